"""What the server keeps of an account and of a signed-in session: the records the store writes.

An account has a username (unique ignoring case, shown as typed), the
Argon2id hash of its password (never the password), and a Glicko-2 rating
(:class:`doublecorner.ratings.Rating`, the defaults until it plays rated
games). A session is one signed-in browser: its id is the SHA-256 of the
secret its cookie holds, so a copy of the database signs no one in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doublecorner.ratings import Rating

DELETED_PLAYER = "deleted player"  # the name games show for an account that was deleted


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountRecord:
    """One account. ``password_hash`` is Argon2id's PHC string (kept out of ``repr``)."""

    id: int
    username: str
    created: str
    password_hash: str = field(repr=False)
    rating: Rating = field(default_factory=Rating)


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionRecord:
    """One signed-in browser of an account: when it signed in and was last seen (Unix
    time), its user agent (cut short) and the address it signed in from."""

    id: str
    account_id: int
    created: float
    last_seen: float
    user_agent: str
    address: str


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A request's account and the session it came with."""

    account: AccountRecord
    session: SessionRecord
