"""The edge of the app that turns a request's bearer token, or its session, into a seat at the game.

Routes that change a game depend on :func:`acting_seat`: the request must
carry ``Authorization: Bearer TOKEN`` with the token of one of the game's
seats, or the session cookie of the account that holds one, or it is
refused with ``403`` before the game service is called. A seat an account
holds is its own: a request signed in as another account gets ``403`` for
it, with its token or without. Routes that read a game depend on
:func:`viewing_seat` (a token or a seat of the account is needed only to see
a private game), and the list of games on :func:`caller_tokens`. The game
service below gets the :class:`~doublecorner.web.tokens.Seat`, never the
request.
"""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from doublecorner.web.account_record import SignedIn
from doublecorner.web.games import GameForbiddenError, GameService
from doublecorner.web.session_middleware import signed_in
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


async def _account_seats(request: Request, game_id: str, account: SignedIn) -> list[Seat]:
    """The seats of the game that the signed-in account holds."""
    holders = await _service(request).seat_holders(game_id)
    return [seat for seat, holder in holders.items() if holder == account.account.id]


async def _check_holder(request: Request, game_id: str, seat: Seat,
                        account: SignedIn | None) -> None:
    """Refuse a seat that another account holds than the one the request is signed in as."""
    if account is None:
        return
    holder = (await _service(request).seat_holders(game_id)).get(seat)
    if holder is not None and holder != account.account.id:
        raise GameForbiddenError(f"the {seat.value} seat of game {game_id!r} is another "
                                 f"account's, not {account.account.username!r}'s")


async def acting_seat(game_id: str, request: Request,
                      _: HTTPAuthorizationCredentials | None = _bearer) -> Seat:
    """The seat whose token the request carries, else the seat its account holds (``403``
    without either, with another game's token, or for a seat of another account).

    An account that holds both sides (a two-player game it made) acts for the side
    to move; a token says which seat otherwise.
    """
    tokens = bearer_tokens(request.headers.get("authorization"))
    account = signed_in(request.scope)
    if tokens or account is None:
        seat = await _seat(request, game_id, tokens)
        await _check_holder(request, game_id, seat, account)
        return seat
    held = await _account_seats(request, game_id, account)
    if not held:
        raise GameForbiddenError(f"the account {account.account.username!r} holds no seat of "
                                 f"game {game_id!r}: {BEARER_HINT}")
    if len(held) > 1:
        turn = Seat.of((await _service(request).get(game_id, held[0])).board.turn)
        return turn if turn in held else held[0]
    return held[0]


async def viewing_seat(game_id: str, request: Request,
                       _: HTTPAuthorizationCredentials | None = _bearer) -> Seat | None:
    """The seat of the request's token, else one its account holds; ``None`` without
    either (``403`` with a wrong token)."""
    tokens = bearer_tokens(request.headers.get("authorization"))
    if tokens:
        return await _seat(request, game_id, tokens)
    account = signed_in(request.scope)
    held = [] if account is None else await _account_seats(request, game_id, account)
    return held[0] if held else None


async def caller_tokens(request: Request,
                        _: HTTPAuthorizationCredentials | None = _bearer) -> list[str]:
    """The tokens a request names (``Authorization: Bearer T1, T2``), to list their games."""
    tokens = bearer_tokens(request.headers.get("authorization"))
    if len(tokens) > MAX_LISTED_TOKENS:
        raise HTTPException(400, f"at most {MAX_LISTED_TOKENS} tokens in one request, "
                                 f"not {len(tokens)}")
    return [token for token in tokens if len(token) <= MAX_TOKEN_TEXT]
