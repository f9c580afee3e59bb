"""A league's uploads: submissions sent to its server (``arena submit --to``, the upload
form on an author's page), kept until they are checked, then checked one at a time by
whoever serves the queue - the server's own checker, and every ``arena ladder GAME
--serve``.

An upload is **written before it is answered**: its bytes to ``STORE/.uploads/`` (a file of
its own, readable by the runner alone), then its row (``waiting``); the server then says
``202`` with the upload's number, and the author's page and ``arena submit`` follow it to
``kept`` (the version it became) or ``refused`` (one line saying why).

A checker **claims** an upload with its lock (``db.claim``: a PostgreSQL advisory lock, or a
file lock beside a SQLite file), which goes with the process: two checkers never check one
upload, and one killed half-way (``checking``, no lock held) is taken up again by the next
look of any checker - nothing sent is lost, and no upload becomes two versions (the store
numbers a content once). Checks run in upload order.

Limits: an account has at most ``PENDING`` uploads waiting or being checked; the server adds
its rates per account and per address (``arena.web.league``).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from sqlmodel import Session, select

from .. import db
from ..errors import ArenaError
from ..sandbox import files

UPLOADS = ".uploads"
#: uploads of one account waiting or being checked at once
PENDING = 3
OPEN = ("waiting", "checking")


class NotYours(ArenaError):
    status = 404


def enqueue(engine, store: Path, account: str, filename: str, data: bytes) -> db.UploadRow:
    """Keep ``data`` (sent as ``filename``) for its check, as ``account``'s; the row.
    Unpacked once first, so that what is no upload (a name, a link, a path outside its
    folder, a bomb: ``files.unpack_upload``) is refused at once, with nothing kept;
    ArenaError too (429) for an account with ``PENDING`` uploads waiting."""
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as folder:
        files.unpack_upload(filename, data, Path(folder))  # Refused, one line: nothing kept
    with Session(engine) as session:
        waiting = session.exec(select(db.UploadRow.id).where(
            db.UploadRow.account == account, db.UploadRow.status.in_(OPEN))).all()
    if len(waiting) >= PENDING:
        error = ArenaError(f"{len(waiting)} of your uploads are waiting for their check: "
                           "send the next when one is done")
        error.status = 429
        raise error
    folder = store / UPLOADS
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"{uuid.uuid4().hex}-{filename}"
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
                     | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except OSError as e:
        raise ArenaError(f"cannot keep the upload: {e.strerror}") from None
    row = db.UploadRow(account=account, filename=filename, size=len(data),
                       path=f"{UPLOADS}/{name}")
    with Session(engine) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
    return row


def get(engine, upload_id: int, account: str | None = None) -> db.UploadRow:
    """Upload ``upload_id``; NotYours (404, as for no upload) when it is not ``account``'s."""
    with Session(engine) as session:
        row = session.get(db.UploadRow, upload_id)
    if row is None or (account is not None and row.account != account):
        raise NotYours(f"no upload {upload_id} of yours")
    return row


def of_account(engine, account: str, limit: int = 20) -> list[db.UploadRow]:
    """``account``'s latest uploads, newest first."""
    with Session(engine) as session:
        return list(session.exec(select(db.UploadRow).where(db.UploadRow.account == account)
                                 .order_by(db.UploadRow.id.desc()).limit(limit)))


def waiting(engine) -> list[db.UploadRow]:
    """The uploads not checked yet (waiting, or left half-checked), in upload order."""
    with Session(engine) as session:
        return list(session.exec(select(db.UploadRow).where(db.UploadRow.status.in_(OPEN))
                                 .order_by(db.UploadRow.id)))


def check_next(engine, registry, store: Path, say=lambda line: None) -> db.UploadRow | None:
    """Check the first upload no other checker holds: unpacked, then submitted as
    ``arena submit`` submits a file (staged, listed, checked in the sandbox, kept) as its
    account's; the row as it ends (``kept`` or ``refused``), or None when none waits."""
    from . import store as stores

    for row in waiting(engine):
        with db.claim(engine, f"arena:upload:{row.id}") as mine:
            if not mine:
                continue
            row = get(engine, row.id)  # as it is now that this checker holds it
            if row.status not in OPEN:
                continue
            _set(engine, row.id, status="checking")
            say(f"upload {row.id} ({row.filename}, {row.account}): checking")
            kept = store / row.path
            work = Path(tempfile.mkdtemp(prefix="arena-upload-"))
            try:
                try:
                    data = kept.read_bytes()
                except OSError as e:
                    raise ArenaError(f"the upload's file is gone ({e.strerror})") from None
                path = files.unpack_upload(row.filename, data, work)
                done = stores.submit(engine, copy.copy(registry).refresh(), store, path,
                                     row.account, account_owned=True)
                r = done.row
                bot = f"{r.name}@{r.version}"
                message = (f"accepted, version {r.version} of {r.name} "
                           f"({', '.join(json.loads(r.games))}), by {r.author}" if done.new
                           else f"already submitted, the same content as version {r.version}")
                row = _set(engine, row.id, status="kept", bot=bot, message=message)
            except ArenaError as e:
                row = _set(engine, row.id, status="refused", message=db.first_line(e))
            except Exception as e:  # noqa: BLE001 - never checked again and again
                row = _set(engine, row.id, status="refused",
                           message=f"the check itself failed ({type(e).__name__}); tell "
                           "the league's organizer")
            finally:
                shutil.rmtree(work, ignore_errors=True)
            kept.unlink(missing_ok=True)
            say(f"upload {row.id}: {row.status}: {row.message}")
            return row
    return None


def _set(engine, upload_id: int, **values) -> db.UploadRow:
    with Session(engine) as session:
        row = session.get(db.UploadRow, upload_id)
        for key, value in values.items():
            setattr(row, key, value)
        row.updated_at = db.now()
        session.add(row)
        session.commit()
        session.refresh(row)
        return row
