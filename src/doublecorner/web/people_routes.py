"""The routes of play between people: the lobby, challenges, rematches, watching and profiles.

A thin adapter, as the game routes are: each route reads its request, calls
the seek book, the challenges, the game service or the profiles, and turns
the answer into JSON (docs/web-api.md: *Lobby*, *Challenges*, *Rematch*,
*Ratings*, *Watching*). Posting, accepting and answering need a session
(``401`` without one): a seek or a challenge shows its author's name and
rating, and its game seats two accounts. Reading (the seeks, the watch list,
a profile) is open to anyone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Query, Request, WebSocket
from fastapi import Path as PathParameter
from fastapi.responses import FileResponse, Response, StreamingResponse

from doublecorner.web.account_record import AccountRecord
from doublecorner.web.accounts import AccountService, NotSignedInError
from doublecorner.web.auth import acting_seat
from doublecorner.web.games import GameService, RematchAction
from doublecorner.web.lobby_schemas import (
    ChallengeBody,
    ChallengeList,
    ChallengeRequest,
    ProfileBody,
    ProfileGames,
    SeekBody,
    SeekList,
    SeekRequest,
    WatchedGameBody,
    WatchListBody,
)
from doublecorner.web.lobby_socket import Lobby
from doublecorner.web.profiles import Profiles
from doublecorner.web.schemas import (
    MAX_USERNAME_TEXT,
    ErrorBody,
    GameBody,
    PlayedGameSummary,
    RematchRequest,
)
from doublecorner.web.session_middleware import signed_in
from doublecorner.web.socket_session import socket_session
from doublecorner.web.state import GameState
from doublecorner.web.tokens import Seat

MAX_ID_TEXT = 100  # seek and challenge ids are 18 characters
DEFAULT_PROFILE_GAMES = 20
MAX_PROFILE_GAMES = 100
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (400, 401, 403, 404, 409, 422, 429)}


def signed_in_account(request: Request) -> AccountRecord:
    """The account the request is signed in as (``401`` when it is not)."""
    found = signed_in(request.scope)
    if found is None:
        raise NotSignedInError("sign in first: the lobby, challenges and rated games are "
                               "for accounts")
    return found.account


async def account_seats(service: GameService, game_id: str, request: Request) -> list[Seat] | None:
    """The seats of the game that the request's account holds (``None``: not signed in)."""
    found = signed_in(request.scope)
    if found is None:
        return None
    holders = await service.seat_holders(game_id)
    return [seat for seat, holder in holders.items() if holder == found.account.id]


def _client(request: Request) -> str:
    return "" if request.client is None else request.client.host


def _started(state: GameState, account: AccountRecord) -> GameBody:
    """A game just started between accounts, as ``account`` (one of them) sees it."""
    color = state.record.black == account.username
    seats = [Seat.BLACK] if color else [Seat.WHITE]
    return GameBody.of(state, seats=seats)


def add_people_routes(app: FastAPI, *, service: GameService, lobby: Lobby, profiles: Profiles,
                      accounts: AccountService, static_dir: Path | None) -> None:
    """Add the routes of the lobby, challenges, rematches, the watch list and profiles."""
    session = Depends(signed_in_account)
    acting = Depends(acting_seat)
    seeks, challenges = lobby.seeks, lobby.challenges

    @app.websocket("/api/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        await lobby.serve(websocket, await socket_session(websocket, accounts))

    @app.get("/api/seeks", response_model=SeekList, responses=_ERRORS)
    async def open_seeks() -> SeekList:
        """Every open seek, oldest first."""
        return SeekList(seeks=[SeekBody.of(seek) for seek in seeks.open()])

    @app.post("/api/seeks", status_code=201, response_model=SeekBody, responses=_ERRORS)
    async def post_seek(request: SeekRequest, http: Request,
                        account: AccountRecord = session) -> SeekBody:
        """A seek of the signed-in account: shown in the lobby until someone accepts it, its
        author cancels it, or its author leaves the lobby."""
        return SeekBody.of(seeks.post(account, minutes=request.minutes,
                                      increment=request.increment, rated=request.rated,
                                      color=request.color, address=_client(http)))

    @app.delete("/api/seeks/{seek_id}", status_code=204, response_class=Response,
                responses=_ERRORS)
    async def cancel_seek(seek_id: str = PathParameter(max_length=MAX_ID_TEXT),
                          account: AccountRecord = session) -> Response:
        """The author takes their seek back."""
        seeks.cancel(account, seek_id)
        return Response(status_code=204)

    @app.post("/api/seeks/{seek_id}/accept", status_code=201, response_model=GameBody,
              responses=_ERRORS)
    async def accept_seek(http: Request, seek_id: str = PathParameter(max_length=MAX_ID_TEXT),
                          account: AccountRecord = session) -> GameBody:
        """Take up a seek: the game between the signed-in account and its author starts (its
        author's lobby sockets are told)."""
        return _started(await seeks.accept(account, seek_id, address=_client(http)), account)

    @app.get("/api/challenges", response_model=ChallengeList, responses=_ERRORS)
    async def my_challenges(account: AccountRecord = session) -> ChallengeList:
        """The open challenges made by the signed-in account or to it."""
        return ChallengeList(challenges=[ChallengeBody.of(one)
                                         for one in challenges.of(account.id)])

    @app.post("/api/challenges", status_code=201, response_model=ChallengeBody,
              responses=_ERRORS)
    async def challenge(request: ChallengeRequest, http: Request,
                        account: AccountRecord = session) -> ChallengeBody:
        """Challenge the account named ``username``: it sees the challenge live."""
        challenged = await profiles.account(request.username)
        return ChallengeBody.of(challenges.create(
            account, challenged, minutes=request.minutes, increment=request.increment,
            rated=request.rated, color=request.color, address=_client(http)))

    @app.post("/api/challenges/{challenge_id}/accept", status_code=201,
              response_model=GameBody, responses=_ERRORS)
    async def accept_challenge(http: Request,
                               challenge_id: str = PathParameter(max_length=MAX_ID_TEXT),
                               account: AccountRecord = session) -> GameBody:
        """The challenged account accepts: the game starts."""
        state = await challenges.accept(account, challenge_id, address=_client(http))
        return _started(state, account)

    @app.post("/api/challenges/{challenge_id}/decline", status_code=204,
              response_class=Response, responses=_ERRORS)
    async def decline_challenge(challenge_id: str = PathParameter(max_length=MAX_ID_TEXT),
                                account: AccountRecord = session) -> Response:
        """The challenged account declines."""
        challenges.decline(account, challenge_id)
        return Response(status_code=204)

    @app.delete("/api/challenges/{challenge_id}", status_code=204, response_class=Response,
                responses=_ERRORS)
    async def cancel_challenge(challenge_id: str = PathParameter(max_length=MAX_ID_TEXT),
                               account: AccountRecord = session) -> Response:
        """The challenger takes the challenge back."""
        challenges.cancel(account, challenge_id)
        return Response(status_code=204)

    @app.post("/api/games/{game_id}/rematch", response_model=GameBody, responses=_ERRORS)
    async def rematch(game_id: str, http: Request, request: RematchRequest | None = None,
                      seat: Seat = acting) -> GameBody:
        """Offer, accept or decline a rematch of a finished game between two people: an
        acceptance answers with the new game (colours swapped)."""
        action = RematchAction.OFFER if request is None else request.action
        state = await service.rematch(game_id, seat, action, client=_client(http))
        return GameBody.of(state, seats=await account_seats(service, state.record.id, http))

    @app.get("/api/watch", response_model=WatchListBody, responses=_ERRORS)
    async def watch() -> WatchListBody:
        """The games in progress between people: rated first, by average rating."""
        return WatchListBody(games=[WatchedGameBody.of(game)
                                    for game in await lobby.watch.games()])

    @app.get("/api/users/{username}", response_model=ProfileBody, responses=_ERRORS)
    async def profile(username: str = PathParameter(max_length=MAX_USERNAME_TEXT)) -> ProfileBody:
        """A player's rating, its history, results and number of games."""
        return ProfileBody.of(await profiles.profile(username))

    @app.get("/api/users/{username}/games", response_model=ProfileGames, responses=_ERRORS)
    async def profile_games(username: str = PathParameter(max_length=MAX_USERNAME_TEXT),
                            limit: int = Query(DEFAULT_PROFILE_GAMES, ge=1,
                                               le=MAX_PROFILE_GAMES),
                            offset: int = Query(0, ge=0, le=2**31)) -> ProfileGames:
        """A player's public games between people, newest first: ``limit`` from the
        ``offset``-th."""
        records, total = await profiles.games(username, limit=limit, offset=offset)
        return ProfileGames(games=[PlayedGameSummary.of_played(record) for record in records],
                            total=total)

    @app.get("/api/users/{username}/games.pdn", response_class=StreamingResponse,
             responses=_ERRORS)
    async def profile_pdn(username: str = PathParameter(max_length=MAX_USERNAME_TEXT)
                          ) -> StreamingResponse:
        """All of a player's public games between people as one PDN file, oldest first
        (sent as it is read)."""
        account = await profiles.account(username)
        games: AsyncIterator[str] = profiles.pdn(account)
        return StreamingResponse(games, media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{account.username}-games.pdn"'})

    if static_dir is not None and (static_dir / "profile.html").is_file():
        page = static_dir / "profile.html"

        @app.get("/u/{username}", response_class=FileResponse, include_in_schema=False)
        async def profile_page(username: str = PathParameter(max_length=MAX_USERNAME_TEXT)
                               ) -> FileResponse:
            """A player's page (its script reads the profile)."""
            return FileResponse(page, media_type="text/html")
