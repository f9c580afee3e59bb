"""The web layer: ``arena serve``, an ASGI application (Starlette, on uvicorn) over the
database and the library - the report's pages always current, seasons followed live, and
people playing bots at tables the server holds (:mod:`arena.web.tables`).

It is a view, like the command line: it reads storage and calls the library; nothing below
imports it. Pages are the report's templates (``arena/views/templates``) with a few of its
own (``arena/web/templates``), the card drawings and the replay viewer are the report's
scripts. No build step, nothing from a CDN.
"""

from .app import make_app, serve

__all__ = ["make_app", "serve"]
