"""Accounts of a league others join (``arena serve --league``): people who sign in, their API
tokens, and invitations.

An account has a name, a role - ``author`` (submits bots, sees their own) or ``organizer``
(runs the league) - and, if it signs in in a browser, a password, kept as its argon2id hash
(argon2-cffi's ``PasswordHasher``: a memory-hard function, its parameters in the hash, so
they can be raised and old hashes are rehashed at the next sign-in). A **token** acts for
an account: an API token (``arena submit --to URL --token T``; made by ``arena user add``
or ``token``, or on the account's page) or a browser's sign-in (a session, until it
expires or signs out). A token is shown once, when it is made: only its SHA-256 is stored -
a token is 32 random bytes, so a fast hash is enough (a password is not, hence argon2). Its
last use is kept (to the minute), and it can be revoked. An **invitation** is a code that
makes one account of a role, once, before it expires.

Nothing here prints or logs a secret; every refusal is an ArenaError of one line.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from .. import db
from ..errors import ArenaError

ROLES = ("author", "organizer")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
TOKEN_PREFIX = {"api": "arena_t_", "session": "arena_s_"}
SESSION_DAYS = 30
INVITE_DAYS = 7
#: a token's last use is written at most this often (a busy client does not write a row
#: a request)
TOUCH = timedelta(minutes=1)


class AuthError(ArenaError):
    """A refusal to act for someone: the HTTP status it answers with."""

    def __init__(self, message: str, status: int = 401):
        super().__init__(message)
        self.status = status


def _hasher():
    try:
        from argon2 import PasswordHasher
    except ImportError:  # pragma: no cover - a dependency of card-arena
        raise ArenaError("passwords need argon2-cffi: pip install argon2-cffi") from None
    return PasswordHasher()


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ArenaError(f"an account name is 1-32 letters, digits, '_', '.' or '-', "
                         f"beginning with a letter or digit, not {name[:40]!r}")
    return name


def check_password(password: str) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ArenaError(f"a password has {MIN_PASSWORD}-{MAX_PASSWORD} characters")
    return password


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _account(session, name: str) -> db.AccountRow | None:
    """The account named ``name`` (None: there is none)."""
    return session.exec(select(db.AccountRow).where(db.AccountRow.name == name)).first()


def add(engine, name: str, role: str = "author", password: str | None = None,
        first_token: bool = True) -> tuple[db.AccountRow, str | None]:
    """A new account and its first API token (the token: shown once, never stored)."""
    check_name(name)
    if role not in ROLES:
        raise ArenaError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
    hashed = None if password is None else _hasher().hash(check_password(password))
    with Session(engine) as session:
        if _account(session, name):
            raise ArenaError(f"an account named {name!r} exists")
        row = db.AccountRow(name=name, role=role, password_hash=hashed)
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            raise ArenaError(f"an account named {name!r} exists") from None
        session.refresh(row)
    if not first_token:
        return row, None
    _, token = new_token(engine, name, "first token")
    return row, token


def get(engine, name: str) -> db.AccountRow:
    with Session(engine) as session:
        row = _account(session, name)
    if row is None:
        raise ArenaError(f"no account named {name!r}")
    return row


def accounts(engine) -> list[db.AccountRow]:
    with Session(engine) as session:
        return list(session.exec(select(db.AccountRow).order_by(db.AccountRow.name)))


def set_password(engine, name: str, password: str) -> None:
    """Set the account's password; every browser signed in to it is signed out."""
    hashed = _hasher().hash(check_password(password))
    with Session(engine) as session:
        row = _account(session, name)
        if row is None:
            raise ArenaError(f"no account named {name!r}")
        row.password_hash = hashed
        session.add(row)
        _revoke_where(session, row.id, "session")
        session.commit()


def set_disabled(engine, name: str, disabled: bool) -> None:
    with Session(engine) as session:
        row = _account(session, name)
        if row is None:
            raise ArenaError(f"no account named {name!r}")
        row.disabled = disabled
        session.add(row)
        if disabled:
            _revoke_where(session, row.id, "session")
        session.commit()


def delete(engine, name: str) -> None:
    """Delete account ``name``: disabled for good, its password and every token gone. Its
    row stays, so that the name - and the bot names it owns - never pass to a newcomer;
    ``arena user delete`` deletes its bots too (``store.delete``)."""
    with Session(engine) as session:
        row = _account(session, name)
        if row is None:
            raise ArenaError(f"no account named {name!r}")
        row.disabled, row.password_hash, row.role = True, None, "deleted"
        session.add(row)
        for kind in ("api", "session"):
            _revoke_where(session, row.id, kind)
        session.commit()


#: a hash compared against where no account has the name, so that a sign-in takes as long
#: for a name that does not exist as for a wrong password
_DUMMY: list[str] = []


def sign_in(engine, name: str, password: str) -> tuple[db.AccountRow, str]:
    """The account whose name and password these are, and a new session token for the
    browser; AuthError (the same line for an unknown name and a wrong password)."""
    from argon2.exceptions import InvalidHashError, VerificationError

    hasher = _hasher()
    refused = AuthError("wrong name or password", 401)
    if not isinstance(name, str) or not isinstance(password, str) or \
            len(password) > MAX_PASSWORD or not NAME.fullmatch(name or ""):
        raise refused
    with Session(engine) as session:
        row = _account(session, name)
    if row is None or row.password_hash is None:
        if not _DUMMY:
            _DUMMY.append(hasher.hash(secrets.token_hex(16)))
        try:
            hasher.verify(_DUMMY[0], password)
        except VerificationError:
            pass
        raise refused
    try:
        hasher.verify(row.password_hash, password)
    except (VerificationError, InvalidHashError):
        raise refused from None
    if row.disabled:
        raise AuthError(f"account {name!r} is disabled", 403)
    if hasher.check_needs_rehash(row.password_hash):
        with Session(engine) as session:
            fresh = session.get(db.AccountRow, row.id)
            fresh.password_hash = hasher.hash(password)
            session.add(fresh)
            session.commit()
    _, token = new_token(engine, name, "browser", kind="session", days=SESSION_DAYS)
    return row, token


def new_token(engine, name: str, label: str = "", kind: str = "api", days: int | None = None
              ) -> tuple[db.TokenRow, str]:
    """A new token for account ``name``: its row and the token itself (shown once)."""
    if not isinstance(label, str) or len(label) > 80 or not label.isprintable():
        raise ArenaError("a token's label is up to 80 printable characters")
    token = TOKEN_PREFIX[kind] + secrets.token_urlsafe(32)
    account = get(engine, name)
    row = db.TokenRow(account_id=account.id, token_hash=_digest(token), kind=kind,
                      label=label, expires_at=None if days is None else
                      db.now() + timedelta(days=days))
    with Session(engine) as session:
        session.add(row)
        session.commit()
        session.refresh(row)
    return row, token


def authenticate(engine, token: str | None, kind: str = "api") -> db.AccountRow:
    """The account a token acts for (its last use noted); AuthError if it acts for none: not
    a token, revoked, expired, or its account disabled."""
    if not token or not isinstance(token, str) or len(token) > 200 or \
            not token.startswith(TOKEN_PREFIX[kind]):
        raise AuthError("sign in, or give a token (Authorization: Bearer TOKEN)")
    digest = _digest(token)
    with Session(engine) as session:
        row = session.exec(select(db.TokenRow).where(db.TokenRow.token_hash == digest)).first()
        if row is None or not hmac.compare_digest(row.token_hash, digest) or \
                row.kind != kind or row.revoked_at is not None:
            raise AuthError("this token is not valid (revoked, or never made): sign in again "
                            "or make a new one")
        at = db.now()
        if row.expires_at is not None and _naive(row.expires_at) <= _naive(at):
            raise AuthError("this sign-in has expired: sign in again")
        account = session.get(db.AccountRow, row.account_id)
        if account.disabled:
            raise AuthError(f"account {account.name!r} is disabled", 403)
        if row.last_used_at is None or _naive(at) - _naive(row.last_used_at) >= TOUCH:
            row.last_used_at = at
            session.add(row)
            session.commit()
            session.refresh(account)
        return account


def _naive(moment: datetime) -> datetime:
    return moment.replace(tzinfo=None)


def tokens(engine, name: str, kind: str = "api") -> list[db.TokenRow]:
    """The account's tokens of ``kind``, revoked ones too, oldest first."""
    account = get(engine, name)
    with Session(engine) as session:
        return list(session.exec(select(db.TokenRow).where(
            db.TokenRow.account_id == account.id, db.TokenRow.kind == kind)
            .order_by(db.TokenRow.id)))


def revoke(engine, token_id: int, name: str | None = None) -> db.TokenRow:
    """Revoke token ``token_id`` - of account ``name`` only, if given (an author revokes
    their own; an organizer, from the command line, any)."""
    with Session(engine) as session:
        row = session.get(db.TokenRow, token_id)
        owner = None if row is None else session.get(db.AccountRow, row.account_id)
        if row is None or (name is not None and owner.name != name):
            raise ArenaError(f"no token {token_id}" + ("" if name is None else " of yours"))
        if row.revoked_at is None:
            row.revoked_at = db.now()
            session.add(row)
            session.commit()
            session.refresh(row)
        return row


def sign_out(engine, token: str | None) -> None:
    """End a browser's sign-in (nothing if it was none)."""
    if not token:
        return
    with Session(engine) as session:
        row = session.exec(select(db.TokenRow).where(
            db.TokenRow.token_hash == _digest(token), db.TokenRow.kind == "session")).first()
        if row is not None and row.revoked_at is None:
            row.revoked_at = db.now()
            session.add(row)
            session.commit()


def _revoke_where(session, account_id: int, kind: str) -> None:
    for row in session.exec(select(db.TokenRow).where(
            db.TokenRow.account_id == account_id, db.TokenRow.kind == kind,
            db.TokenRow.revoked_at.is_(None))):
        row.revoked_at = db.now()
        session.add(row)


def invite(engine, role: str = "author", days: int = INVITE_DAYS, by: str = "") -> str:
    """A new invitation's code (shown once): it makes one account of ``role``."""
    if role not in ROLES:
        raise ArenaError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
    if not 1 <= days <= 365:
        raise ArenaError("an invitation holds 1-365 days")
    code = "arena_i_" + secrets.token_urlsafe(24)
    with Session(engine) as session:
        session.add(db.InvitationRow(code_hash=_digest(code), role=role, created_by=by,
                                     expires_at=db.now() + timedelta(days=days)))
        session.commit()
    return code


def redeem(engine, code: str, name: str, password: str) -> tuple[db.AccountRow, str]:
    """Make the account an invitation (or open sign-up, ``code`` None) allows: the account
    and a session token for the browser that signed up."""
    check_name(name)
    check_password(password)
    role = "author"
    with Session(engine) as session:
        if _account(session, name):
            raise ArenaError(f"an account named {name!r} exists: choose another name")
    if code is not None:
        if not isinstance(code, str) or not code.startswith("arena_i_") or len(code) > 200:
            raise AuthError("this invitation is not valid", 403)
        with Session(engine) as session:
            row = session.exec(select(db.InvitationRow).where(
                db.InvitationRow.code_hash == _digest(code))).first()
            if row is None or row.used_by is not None or \
                    _naive(row.expires_at) <= _naive(db.now()):
                raise AuthError("this invitation is not valid (used, expired, or never "
                                "made): ask for another", 403)
            role = row.role
            # taken now, in one update that only one request can make
            taken = session.execute(db.InvitationRow.__table__.update().where(
                db.InvitationRow.id == row.id, db.InvitationRow.used_by.is_(None))
                .values(used_by=name)).rowcount
            session.commit()
            if taken != 1:
                raise AuthError("this invitation has just been used", 403)
    try:
        account, _ = add(engine, name, role, password, first_token=False)
    except ArenaError:
        if code is not None:  # the name was taken meanwhile: the invitation stays good
            with Session(engine) as session:
                session.execute(db.InvitationRow.__table__.update().where(
                    db.InvitationRow.code_hash == _digest(code),
                    db.InvitationRow.used_by == name).values(used_by=None))
                session.commit()
        raise
    _, token = new_token(engine, name, "browser", kind="session", days=SESSION_DAYS)
    return account, token
