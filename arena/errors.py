"""Errors a user can cause. The CLI turns any of them into one line on stderr and exit 2."""

import json
import re
import reprlib


class ArenaError(Exception):
    """A mistake in what the user asked for (unknown name, bad option, bad deal...)."""

    def __str__(self) -> str:  # KeyError-style quoting would garble the one-line message
        return str(self.args[0]) if self.args else ""


class UnknownGame(ArenaError, KeyError):
    pass


class UnknownBot(ArenaError, KeyError):
    pass


class GameError(ArenaError, ValueError):
    """Bad game set-up: unknown variant, wrong number of players, malformed deal."""


class IllegalAction(ValueError):
    """An action that is not in the current legal list (the referee turns it into a forfeit)."""


class PluginError(ArenaError):
    """A plugin that cannot be loaded or registers something inconsistent."""


class BotFault(Exception):
    """A bot broke the rules of its seat: it forfeits the match. ``reason`` is stored with the
    result (``timeout``, ``crash: ...``, ``protocol error: ...``, ``memory exceeded``...),
    ``log`` is the tail of what it wrote to stderr."""

    def __init__(self, reason: str, log: str = ""):
        super().__init__(reason)
        self.reason, self.log = reason, log


def crash_reason(e: BaseException) -> str:
    """The stored reason for a bot that raised ``e``: ``crash: Type: first line``."""
    text = str(e).splitlines()[0][:200] if str(e) else ""
    return f"crash: {type(e).__name__}: {text}" if text else f"crash: {type(e).__name__}"


#: ``scheme://user:PASSWORD@host``: the password runs to the last ``@`` before the path
_USERINFO = re.compile(r"(\w[\w+.-]*://[^/\s:@]*:)[^/\s]*@")
#: ``password=...`` (``?password=``, ``&sslpassword=``, a ``key=value`` connection string),
#: and anything named like a secret, a token or a key
_SECRET_PARAM = re.compile(r"((?:^|[?&;\s])[\w.-]*(?:pass(?:word)?|secret|token|key)\s*=\s*)"
                           r"(?:'[^']*'|\"[^\"]*\"|[^&;\s\"']*)", re.IGNORECASE)


def masked(text: str) -> str:
    """``text`` with every password it holds replaced by ``***``: a URL's
    (``scheme://user:PASSWORD@host``, an ``@`` in the password included) and any
    ``password=`` (or ``secret=``, ``token=``, ``key=``) parameter - no message shows a
    database password."""
    return _SECRET_PARAM.sub(r"\1***", _USERINFO.sub(r"\1***@", text))


_JSON_TYPES = {str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null", list: "list", dict: "object"}


def shown(value, limit: int = 80) -> str:
    """``value`` - anything a bot answered - as JSON, cut to ``limit`` characters. It never
    raises: a line of JSON may nest a thousand levels, past what ``json`` and ``repr`` go
    down (a RecursionError in the runner), and is then shown as ``reprlib`` shortens it."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, TypeError, ValueError):
        text = reprlib.repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def said(value, limit: int = 300) -> str:
    """A bot's own words (the ``error`` of its answer): a string as it is, anything else as
    ``shown`` writes it; cut to ``limit`` characters."""
    return value[:limit] if isinstance(value, str) else shown(value, limit)


def illegal_reason(action, legal) -> str:
    """The stored reason for an answer not in the legal list, written as JSON so that the
    integer 0 and the string "0" read differently, and naming a wrong type."""
    text = shown(action, 200)
    kind = _JSON_TYPES.get(type(action), type(action).__name__)
    expected = {_JSON_TYPES.get(type(a), type(a).__name__) for a in legal}
    if legal and kind not in expected:
        return (f"illegal action: {text} (a {kind}; the legal actions are "
                f"{' or '.join(sorted(e + 's' for e in expected))})")
    return f"illegal action: {text} (not one of the {len(legal)} legal actions)"


def traceback_tail(e: BaseException, limit: int = 2000) -> str:
    """The end of ``e``'s traceback, as a log tail for an in-process bot that raised."""
    import traceback

    return "".join(traceback.format_exception(e))[-limit:]
