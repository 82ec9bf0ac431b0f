"""The edge of the app that turns a request's bearer token into a seat at the game.

Routes that change a game depend on :func:`acting_seat`: the request must
carry ``Authorization: Bearer TOKEN`` with the token of one of the game's
seats, or it is refused with ``403`` before the game service is called.
Routes that read a game depend on :func:`viewing_seat` (a token is needed
only to see a private game), and the list of games on :func:`caller_tokens`.
The game service below gets the :class:`~doublecorner.web.tokens.Seat`,
never the request.
"""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from doublecorner.web.games import GameService
from doublecorner.web.tokens import (
    MAX_LISTED_TOKENS,
    MAX_TOKEN_TEXT,
    Seat,
    bearer_tokens,
    seat_of,
)

FORBIDDEN = 403
BEARER_HINT = "send 'Authorization: Bearer TOKEN' with the token the game gave its seat"
# Declares the scheme in the OpenAPI schema; the header is read (and refused) below.
_bearer = Depends(HTTPBearer(auto_error=False, scheme_name="seat token",
                             description="the token of a seat of the game (from the answer "
                                         "that created or joined it)"))


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.games
    return service


async def _seat(request: Request, game_id: str, tokens: list[str]) -> Seat:
    if len(tokens) != 1 or len(tokens[0]) > MAX_TOKEN_TEXT:
        raise HTTPException(FORBIDDEN, f"a change to game {game_id!r} needs the token of one "
                                       f"of its seats: {BEARER_HINT}")
    seats = await _service(request).seats(game_id)
    seat = seat_of(tokens[0], seats)
    if seat is None:
        raise HTTPException(FORBIDDEN, f"the token is not one of game {game_id!r}'s")
    return seat


async def acting_seat(game_id: str, request: Request,
                      _: HTTPAuthorizationCredentials | None = _bearer) -> Seat:
    """The seat whose token the request carries (``403`` without one, or with another's)."""
    return await _seat(request, game_id, bearer_tokens(request.headers.get("authorization")))


async def viewing_seat(game_id: str, request: Request,
                       _: HTTPAuthorizationCredentials | None = _bearer) -> Seat | None:
    """The seat of the request's token, ``None`` without one (``403`` with a wrong one)."""
    tokens = bearer_tokens(request.headers.get("authorization"))
    return None if not tokens else await _seat(request, game_id, tokens)


async def caller_tokens(request: Request,
                        _: HTTPAuthorizationCredentials | None = _bearer) -> list[str]:
    """The tokens a request names (``Authorization: Bearer T1, T2``), to list their games."""
    tokens = bearer_tokens(request.headers.get("authorization"))
    if len(tokens) > MAX_LISTED_TOKENS:
        raise HTTPException(400, f"at most {MAX_LISTED_TOKENS} tokens in one request, "
                                 f"not {len(tokens)}")
    return [token for token in tokens if len(token) <= MAX_TOKEN_TEXT]
