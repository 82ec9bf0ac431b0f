"""Accounts and their sessions: sign up, sign in and out, change the password, delete.

A username is 3 to 20 letters, digits, ``_`` or ``-``, unique ignoring case
and not one of :data:`RESERVED_NAMES`; a password is 8 to 256 characters,
kept only as its Argon2id hash (:mod:`~doublecorner.web.passwords`). Signing
in opens a session: a 256-bit secret for the browser's cookie, of which the
store keeps the SHA-256. A session ends when its browser signs out, when it
is revoked (from any session of the account, or by a password change, which
ends all the others), when the account is deleted, or after 30 days unused.
Every password check first passes the :class:`SignInLimits`; an unknown name
costs the same hash as a wrong password and gets the same answer.

Signing up or in with the seat tokens the browser holds makes their seats
the account's too (those no other account holds), so the games of an
anonymous player stay theirs. Deleting an account keeps its games: the name
in them becomes ``"deleted player"`` and the seats are no longer bound to
it (their tokens still act).

>>> check_username("Ann_1"), check_password("correct horse")
('Ann_1', 'correct horse')
>>> check_username("Admin")
Traceback (most recent call last):
...
doublecorner.web.accounts.InvalidUsernameError: the username 'Admin' is reserved
"""

from __future__ import annotations

import asyncio
import datetime
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from doublecorner.errors import quoted
from doublecorner.web.account_record import AccountRecord, SessionRecord, SignedIn
from doublecorner.web.limits import retry_after
from doublecorner.web.passwords import Passwords
from doublecorner.web.session_cookie import MAX_AGE_SECONDS
from doublecorner.web.sign_in_limits import SignInLimits
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import new_token, token_hash

_P = ParamSpec("_P")
_T = TypeVar("_T")

USERNAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{3,20}")
# Names that would pass for the server, the engine or nobody in a game or a lobby.
RESERVED_NAMES = frozenset({
    "admin", "administrator", "anonymous", "api", "deleted", "deleted-player",
    "doublecorner", "engine", "guest", "human", "lobby", "mod", "moderator", "none",
    "null", "root", "server", "staff", "support", "system", "undefined", "unknown"})
MIN_PASSWORD = 8
MAX_PASSWORD = 256  # Argon2 of a long text is cheap, but a megabyte of it is not a password
MAX_USER_AGENT = 200  # what is kept of a browser's User-Agent
SESSION_IDLE_SECONDS = MAX_AGE_SECONDS  # a session unused this long is over, like its cookie
# last_seen is written at most this often: not one write per request of a page.
TOUCH_SECONDS = 300.0
WRONG_SIGN_IN = "wrong username or password"


class AccountRequestError(ValueError):
    """A username or password that breaks the rules (too short, a reserved name...)."""


class InvalidUsernameError(AccountRequestError):
    """A username that breaks the rules: its characters, its length, a reserved name."""


class InvalidPasswordError(AccountRequestError):
    """A password shorter than 8 or longer than 256 characters."""


class SignInError(PermissionError):
    """The username and password do not match an account (the same for both faults)."""


class NotSignedInError(PermissionError):
    """The request carries no session (or one that is over)."""


class WrongPasswordError(PermissionError):
    """The password given to confirm a change is not the account's."""


class SessionNotFoundError(LookupError):
    """The account has no session with that id."""


class SignInLimitError(RuntimeError):
    """Too many password attempts: from the address, or on the name; ``retry_after``
    seconds to wait."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def check_username(username: str) -> str:
    """``username`` if it may name a new account.

    :raises InvalidUsernameError: it breaks the rules, saying which.
    """
    if USERNAME_PATTERN.fullmatch(username) is None:
        raise InvalidUsernameError(
            f"the username {quoted(username)} must be 3 to 20 letters, digits, '_' or '-'")
    if username.lower() in RESERVED_NAMES:
        raise InvalidUsernameError(f"the username {username!r} is reserved")
    return username


def check_password(password: str) -> str:
    """``password`` if it may be an account's (never quoted in the error: it is secret).

    :raises InvalidPasswordError: it is shorter than 8 or longer than 256 characters.
    """
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidPasswordError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} "
                                  f"characters, not {len(password)}")
    return password


def utc_text(seconds: float) -> str:
    """A Unix time as the API writes times: ``2026-11-30T12:00:00Z``."""
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session just opened: who, the cookie's ``secret``, and how many games of the
    tokens sent became the account's."""

    signed_in: SignedIn
    secret: str
    claimed_games: int


@dataclass(frozen=True, slots=True)
class FoundSession:
    """The session of a cookie; ``is_refreshed``: its last use was just written, so the
    cookie's lifetime starts again too."""

    signed_in: SignedIn
    is_refreshed: bool


@dataclass(frozen=True, slots=True)
class Visitor:
    """Where a sign-in or a sign-up comes from: the client's address and its user agent."""

    address: str
    user_agent: str = ""


class AccountService:
    """The accounts and sessions of ``store``, with passwords checked by ``passwords``
    within ``limits``; ``now`` tells the time (Unix seconds)."""

    def __init__(self, store: GameStore, passwords: Passwords, limits: SignInLimits, *,
                 now: Callable[[], float] = time.time) -> None:
        self.store = store
        self.passwords = passwords
        self.limits = limits
        self._now = now
        # One thread for the database calls, as the game service has: a commit waits
        # for the disk, which the event loop must not.
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="doublecorner-acc")

    def close(self) -> None:
        """Finish the database calls and hashes under way (the store stays open)."""
        self._db.shutdown(wait=True)
        self.passwords.close()

    # -- signing up, in and out --------------------------------------------------

    async def sign_up(self, username: str, password: str, visitor: Visitor, *,
                      tokens: Sequence[str] = (), replacing: SignedIn | None = None
                      ) -> NewSession:
        """A new account, signed in; the seats of ``tokens`` become its own.

        :raises AccountRequestError: the username or the password breaks the rules.
        :raises SignInLimitError: too many attempts from the address.
        :raises UsernameTakenError: an account has (or had) the name, ignoring case.
        """
        check_username(username)
        check_password(password)
        self._take_attempt(visitor.address, None)
        digest = await self.passwords.hash(password)
        account = await self._in_db(self.store.add_account, username, digest,
                                    utc_text(self._now()))
        return await self._open(account, visitor, tokens, replacing)

    async def sign_in(self, username: str, password: str, visitor: Visitor, *,
                      tokens: Sequence[str] = (), replacing: SignedIn | None = None
                      ) -> NewSession:
        """A new session of the account ``username`` names; the seats of ``tokens``
        become the account's. An unknown name and a wrong password cost the same and
        raise the same error.

        :raises SignInLimitError: too many attempts from the address or on the name.
        :raises InvalidPasswordError: the password cannot be one (8 to 256 characters).
        :raises SignInError: no account has this username and password.
        """
        self._take_attempt(visitor.address, username)
        check_password(password)
        account = await self._in_db(self.store.account_named, username)
        # No such account: a dummy hash is checked, the same work as a wrong password.
        is_right = await self.passwords.verify(
            None if account is None else account.password_hash, password)
        if account is None or not is_right:
            self.limits.failed(username)
            raise SignInError(WRONG_SIGN_IN)
        self.limits.succeeded(username)
        if self.passwords.needs_rehash(account.password_hash):
            digest = await self.passwords.hash(password)
            await self._in_db(self.store.set_password_hash, account.id, digest)
        return await self._open(account, visitor, tokens, replacing)

    async def sign_out(self, signed_in: SignedIn) -> None:
        """End the session."""
        await self._in_db(self.store.delete_sessions, signed_in.account.id,
                          only=signed_in.session.id)

    async def session(self, secret: str) -> FoundSession | None:
        """The session of a cookie's ``secret``; ``None`` if there is none, or it is over
        (30 days unused: then it is deleted)."""
        found = await self._in_db(self.store.session, token_hash(secret))
        if found is None:
            return None
        session, account = found
        now = self._now()
        if now - session.last_seen > SESSION_IDLE_SECONDS:
            await self._in_db(self.store.delete_sessions, account.id, only=session.id)
            return None
        is_refreshed = now - session.last_seen >= TOUCH_SECONDS
        if is_refreshed:
            await self._in_db(self.store.touch_session, session.id, now)
        return FoundSession(SignedIn(account, session), is_refreshed)

    # -- the account's own changes -----------------------------------------------

    async def change_password(self, signed_in: SignedIn, current: str, new: str,
                              address: str) -> int:
        """Replace the password (``current`` must be right) and end every other session
        of the account; how many ended.

        :raises InvalidPasswordError: ``new`` breaks the rules.
        :raises SignInLimitError: too many attempts from the address or on the account.
        :raises InvalidPasswordError: ``current`` cannot be a password.
        :raises WrongPasswordError: ``current`` is not the password.
        """
        check_password(new)
        account = await self._confirmed(signed_in, current, address)
        digest = await self.passwords.hash(new)
        await self._in_db(self.store.set_password_hash, account.id, digest)
        return await self._in_db(self.store.delete_sessions, account.id,
                                 keep=signed_in.session.id)

    async def delete(self, signed_in: SignedIn, password: str, address: str) -> None:
        """Delete the account (``password`` must be right): its games stay, anonymised,
        and all its sessions end.

        :raises SignInLimitError: too many attempts from the address or on the account.
        :raises InvalidPasswordError: ``password`` cannot be a password.
        :raises WrongPasswordError: ``password`` is not the account's.
        """
        account = await self._confirmed(signed_in, password, address)
        await self._in_db(self.store.delete_account, account.id, utc_text(self._now()))

    async def sessions(self, signed_in: SignedIn) -> list[SessionRecord]:
        """The account's sessions that are not over, the last used first."""
        account = signed_in.account.id
        await self._in_db(self.store.delete_sessions, account,
                          idle_since=self._now() - SESSION_IDLE_SECONDS)
        return await self._in_db(self.store.sessions_of, account)

    async def revoke(self, signed_in: SignedIn, session_id: str) -> None:
        """End one of the account's sessions (this one too, if named).

        :raises SessionNotFoundError: the account has no session with this id.
        """
        if not await self._in_db(self.store.delete_sessions, signed_in.account.id,
                                 only=session_id):
            raise SessionNotFoundError(f"this account has no session {quoted(session_id)}")

    # -- helpers -------------------------------------------------------------------

    def _take_attempt(self, address: str, username: str | None) -> None:
        """Count a password attempt from ``address`` on the account ``username`` (``None``:
        a sign-up, which names no account yet)."""
        wait = self.limits.wait_address(address)
        what = "from this address"
        if wait == 0 and username is not None:
            wait = self.limits.wait_account(username)
            what = "for this account"  # said of unknown names too: it tells nothing
        if wait > 0:
            raise SignInLimitError(f"too many password attempts {what}: try again in "
                                   f"{retry_after(wait)} s", wait)

    async def _confirmed(self, signed_in: SignedIn, password: str,
                         address: str) -> AccountRecord:
        """The account, once ``password`` is shown to be its own."""
        account = signed_in.account
        self._take_attempt(address, account.username)
        check_password(password)
        if not await self.passwords.verify(account.password_hash, password):
            self.limits.failed(account.username)
            raise WrongPasswordError("the password is not this account's")
        self.limits.succeeded(account.username)
        return account

    async def _open(self, account: AccountRecord, visitor: Visitor, tokens: Sequence[str],
                    replacing: SignedIn | None) -> NewSession:
        """A new session of ``account``, in place of the browser's old one."""
        secret = new_token()
        now = self._now()
        session = SessionRecord(id=token_hash(secret), account_id=account.id, created=now,
                                last_seen=now, user_agent=visitor.user_agent[:MAX_USER_AGENT],
                                address=visitor.address)
        await self._in_db(self.store.add_session, session)
        if replacing is not None:
            await self._in_db(self.store.delete_sessions, replacing.account.id,
                              only=replacing.session.id)
        await self._in_db(self.store.delete_sessions, account.id,
                          idle_since=now - SESSION_IDLE_SECONDS)
        claimed = await self._in_db(self.store.bind_seats,
                                    [token_hash(token) for token in tokens], account.id)
        return NewSession(SignedIn(account, session), secret, claimed)

    async def _in_db(self, function: Callable[_P, _T], *args: _P.args,
                     **kwargs: _P.kwargs) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db, lambda: function(*args, **kwargs))
