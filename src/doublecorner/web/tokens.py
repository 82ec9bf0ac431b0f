"""Who may change a game: a secret token per seat, kept only as a hash, compared in constant time.

A game has up to three seats: ``black`` and ``white`` (the players) and
``owner`` (an analysis board, which has no players). Whoever creates a game
is handed the tokens of the seats they hold; the server keeps SHA-256 hashes
of them, so a copy of the database gives no one a seat. A request acts for
the seat whose token it carries (``Authorization: Bearer TOKEN``).

>>> token = new_token()
>>> seats = {Seat.BLACK: token_hash(token), Seat.WHITE: token_hash(new_token())}
>>> seat_of(token, seats), seat_of("guess", seats)
(<Seat.BLACK: 'black'>, None)
>>> bearer_tokens("Bearer abc, def"), bearer_tokens("Basic abc"), bearer_tokens(None)
(['abc', 'def'], [], [])
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from collections.abc import Mapping

from doublecorner.color import Color

TOKEN_BYTES = 32  # 256 bits: not guessable, even by many clients trying for years
MAX_TOKEN_TEXT = 100  # a token is 43 characters; longer text is not one of ours
MAX_LISTED_TOKENS = 200  # tokens one request may name (the games list): 9 KB of header


class Seat(str, enum.Enum):
    """A place at a game that a token holds: a side, or the owner of an analysis board."""

    BLACK = "black"
    WHITE = "white"
    OWNER = "owner"

    @property
    def color(self) -> Color | None:
        """The side this seat plays; ``None`` for the owner of an analysis board."""
        return None if self is Seat.OWNER else Color[self.name]

    @classmethod
    def of(cls, color: Color) -> Seat:
        """The seat that plays ``color``."""
        return cls[color.name]


def new_token() -> str:
    """A fresh secret (URL-safe text), for a seat or an invite link."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the server keeps of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def seat_of(token: str, seats: Mapping[Seat, str]) -> Seat | None:
    """The seat whose hash in ``seats`` is the hash of ``token``, or ``None``.

    Every seat is compared, each in constant time, so the answer takes as
    long whichever seat (if any) matches.
    """
    digest = token_hash(token)
    found = None
    for seat, stored in seats.items():
        if hmac.compare_digest(digest, stored):
            found = seat
    return found


def bearer_tokens(header: str | None) -> list[str]:
    """The tokens of an ``Authorization: Bearer T1, T2`` header (none for another scheme)."""
    if header is None:
        return []
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return []
    return [token for token in (part.strip() for part in value.split(",")) if token]
