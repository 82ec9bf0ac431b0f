"""The ASGI app: the JSON API of ``docs/web-api.md``, the analysis stream and the page.

A thin adapter: each route reads its request, calls the :class:`GameService`
and turns the answer (or the error) into JSON. Errors are ``4xx`` with
``{"error": "...", "code": "..."}`` (a refused move adds its parts: :class:`ErrorBody`):
400 for a move or position the rules refuse, 403 for a
change without the token of the seat that makes it, 404 for an unknown game,
409 for a request the game's state forbids, 413 for a body over the limit,
422 for a body that does not fit the schema.

>>> import tempfile, pathlib
>>> from fastapi.testclient import TestClient
>>> with tempfile.TemporaryDirectory() as folder:
...     with TestClient(create_app(pathlib.Path(folder) / "games.sqlite3", hash_mb=1),
...                     base_url="http://localhost") as client:
...         game = client.post("/api/games", json={"mode": "two-player"}).json()
...         moves = f"/api/games/{game['id']}/moves"
...         black = {"Authorization": f"Bearer {game['tokens']['black']}"}
...         answer = client.post(moves, json={"move": "11-16"}, headers=black)
...         print(answer.json()["moves"], client.post(moves, json={"move": "22-18"}).status_code,
...               client.post(moves, json={"move": "22-18"}, headers=black).status_code)
['11-16'] 403 403
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from fastapi import Depends, FastAPI, Query, Request, WebSocket
from fastapi import Path as PathParameter
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from doublecorner import __version__
from doublecorner.board import Board
from doublecorner.book.reader import Book
from doublecorner.egtb import Tables
from doublecorner.engine.search import ensure_engine_compiled
from doublecorner.errors import DraughtsError, EngineError
from doublecorner.fen import STARTING_FEN
from doublecorner.learn import load_course
from doublecorner.web.account_record import AccountRecord, SignedIn
from doublecorner.web.accounts import (
    AccountRequestError,
    AccountService,
    NotSignedInError,
    SessionNotFoundError,
    SignInError,
    SignInLimitError,
    Visitor,
    WrongPasswordError,
)
from doublecorner.web.analysis_ws import AnalysisLimits, AnalysisSession
from doublecorner.web.auth import acting_seat, caller_tokens, viewing_seat
from doublecorner.web.body_limit import BodyLimitMiddleware
from doublecorner.web.edge import LOOPBACK_HOSTS, EdgeGuardMiddleware
from doublecorner.web.engine_pool import EnginePool, Searcher, engine_factory
from doublecorner.web.explorer import ExplorerNotFoundError, ExplorerReadError, GamesExplorer
from doublecorner.web.fair_play import FairPlay, FairPlayError
from doublecorner.web.games import (
    GameForbiddenError,
    GameLimitError,
    GameNotFoundError,
    GameRequestError,
    GameService,
    GameStateError,
)
from doublecorner.web.json_body import StrictJsonRoute
from doublecorner.web.learn import add_learn_routes
from doublecorner.web.limits import (
    ClientSlots,
    ImportSlotsMiddleware,
    RateLimiter,
    RateLimitMiddleware,
    ServerLimits,
    client_of,
    retry_after,
)
from doublecorner.web.live import LiveHub, serve_live
from doublecorner.web.lobby_errors import (
    LobbyForbiddenError,
    LobbyLimitError,
    LobbyNotFoundError,
    LobbyRequestError,
    LobbyStateError,
)
from doublecorner.web.passwords import Passwords
from doublecorner.web.pdn_games import download_name, game_notes, game_tree
from doublecorner.web.people import People
from doublecorner.web.people_routes import account_seats, add_people_routes
from doublecorner.web.review import (
    MAX_WAIT_SECONDS,
    ReviewLimitError,
    ReviewLimits,
    ReviewNotFoundError,
    ReviewService,
    ReviewStatus,
)
from doublecorner.web.schemas import (
    MAX_FEN_TEXT,
    MAX_GAME_ID_TEXT,
    AccountBody,
    AccountDeletion,
    Credentials,
    DrawRequest,
    ErrorBody,
    ExploreAnswer,
    GameBody,
    GameList,
    GameSummary,
    Health,
    ImportAnswer,
    ImportRequest,
    JoinRequest,
    MoveRequest,
    NewGameRequest,
    NotesBody,
    PasswordChanged,
    PasswordChangeRequest,
    ResignRequest,
    ReviewBody,
    SessionBody,
    SessionList,
    SignInAnswer,
    StoredGameBody,
    TakebackRequest,
    side_color,
)
from doublecorner.web.session_cookie import cleared_cookie, is_https, session_secret, set_cookie
from doublecorner.web.session_middleware import SessionMiddleware, signed_in
from doublecorner.web.sign_in_limits import SignInLimits
from doublecorner.web.socket_session import socket_session
from doublecorner.web.state import GameState
from doublecorner.web.store import GameStore, StoreError, UsernameTakenError
from doublecorner.web.tokens import MAX_LISTED_TOKENS, Seat, bearer_tokens
from doublecorner.web.validation import first_error

STATIC_DIR = Path(__file__).with_name("static")
MAX_BODY_BYTES = ServerLimits.max_body_bytes
IMPORT_PATH = "/api/games/import"
SIGN_UP_PATH = "/api/account/signup"
SIGN_IN_PATH = "/api/account/signin"
DEFAULT_ENGINE_THREADS = 1
DEFAULT_MAX_SECONDS = 10.0
DEFAULT_HASH_MB = 32  # per engine thread
DEFAULT_LIST_LIMIT = 100
MAX_LIST_LIMIT = 1000
DEFAULT_EXPLORE_GAMES = 10
MAX_EXPLORE_GAMES = 100
MAX_STORED_GAME_ID = 2**63 - 1  # SQLite's largest integer
NO_GAMES_DB = ("no game database is loaded: the server was started without one "
               "(serve --games-db PATH, or the default one 'doublecorner db import' fills)")

# Statuses for the errors the service raises; the most specific class wins.
_ERROR_STATUS: dict[type[Exception], int] = {
    DraughtsError: 400,  # a move, a FEN or a PDN text that the rules refuse
    GameRequestError: 400,
    GameForbiddenError: 403,  # a seat that may not make this change
    GameNotFoundError: 404,
    GameStateError: 409,
    GameLimitError: 429,  # the client (or the server) keeps as many games as it may
    EngineError: 503,  # the engines are closing down with the server
    StoreError: 500,
    ExplorerNotFoundError: 404,  # no game database, or no such game in it
    ExplorerReadError: 500,
    AccountRequestError: 400,  # a username or password that breaks the rules
    SignInError: 401,  # the same for an unknown name and a wrong password
    NotSignedInError: 401,
    WrongPasswordError: 403,
    SessionNotFoundError: 404,
    UsernameTakenError: 409,
    SignInLimitError: 429,
    LobbyRequestError: 400,  # the lobby, challenges and profiles (each with its code)
    LobbyForbiddenError: 403,
    LobbyNotFoundError: 404,
    LobbyStateError: 409,
    LobbyLimitError: 429,
    FairPlayError: 403,  # engine help for a game between people that goes on
    ReviewNotFoundError: 404,
    ReviewLimitError: 429,
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody}
    for status in (400, 401, 403, 404, 409, 413, 415, 421, 422, 429)}


def create_app(db_path: str | os.PathLike[str], *, engine_threads: int = DEFAULT_ENGINE_THREADS,
               max_seconds: float = DEFAULT_MAX_SECONDS, hash_mb: int = DEFAULT_HASH_MB,
               tables: Tables | None = None, book: Book | None = None,
               book_seed: int | None = None,
               games_db: str | os.PathLike[str] | None = None,
               new_engine: Callable[[], Searcher] | None = None,
               limits: ServerLimits | None = None,
               allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
               static_dir: Path | None = STATIC_DIR,
               password_hasher: PasswordHasher | None = None,
               limits_clock: Callable[[], float] = time.monotonic,
               now: Callable[[], float] = time.time,
               review_limits: ReviewLimits | None = None) -> FastAPI:
    """The app over the games in ``db_path`` (created if missing).

    At most ``engine_threads`` searches run at once, each for at most
    ``max_seconds``, with engines made by ``new_engine`` (default: engines
    with ``hash_mb`` MB of table that probe the endgame ``tables``, if
    given). The engine's moves in games come from ``book`` while it holds the
    position (seeded by ``book_seed``). The explorer's routes read the game
    database at ``games_db`` (read only), if given. Requests must name one of
    ``allowed_hosts`` and changes must come from the app's own origin
    (:mod:`~doublecorner.web.edge`); each client is held to ``limits``
    (default: :class:`ServerLimits`' defaults), whose password attempts are
    counted on ``limits_clock``. Account passwords are hashed by
    ``password_hasher`` (default: Argon2id, RFC 9106's low-memory profile), and
    sessions are timed by ``now`` (Unix seconds). Reviews of games run within
    ``review_limits`` (default: :class:`ReviewLimits`' defaults).
    ``static_dir`` is served at ``/`` when it exists. The engines and the
    database close when the app's lifespan ends.

    :raises StoreError: the database cannot be opened.
    :raises GameDatabaseError: ``games_db`` is missing or is no game database.
    :raises EngineError: ``engine_threads`` or ``max_seconds`` is out of range.
    """
    explorer = None if games_db is None else GamesExplorer(games_db)
    engines = EnginePool(threads=engine_threads, max_seconds=max_seconds,
                         new_engine=new_engine or engine_factory(hash_mb, tables))
    limits = ServerLimits() if limits is None else limits
    hub = LiveHub()
    store = GameStore(db_path)

    def changed(state: GameState, event: str) -> None:
        hub.publish(state, event)  # the live streams first: the players see it at once
        people.changed(state, event)

    service = GameService(store, engines, book=book, book_seed=book_seed,
                          max_games=limits.max_games,
                          max_games_per_client=limits.max_games_per_client,
                          on_change=changed)
    people = People(store, service, hub, limits)
    accounts = AccountService(
        store, Passwords(password_hasher, at_once=limits.password_hashes_at_once),
        SignInLimits.of(limits, clock=limits_clock), now=now)
    fair_play = FairPlay(store)
    reviews = ReviewService(service, engines, store, review_limits)
    analysis_limits = AnalysisLimits(
        RateLimiter(rate=limits.analysis_rate, burst=limits.analysis_burst),
        ClientSlots(limits.analyses_per_client))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Load (or on a first run, compile) the kernel before taking requests: a
        # request would otherwise hold the event loop while it loads, and two
        # threads loading it at once would both compile it.
        await asyncio.to_thread(ensure_engine_compiled)
        await people.start()
        try:
            yield
        finally:
            await people.close()
            await asyncio.to_thread(accounts.close)
            await reviews.close()
            await asyncio.to_thread(service.close)
            if explorer is not None:
                explorer.close()

    # No /docs or /redoc: their pages load Swagger UI and ReDoc from a CDN and are
    # blank offline; /openapi.json and docs/web-api.md describe the API.
    app = FastAPI(title="doublecorner", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  description="Play and analyse English draughts (American checkers). "
                              "The server checks every move against the rules and keeps "
                              "every game in SQLite.")
    app.state.games = service
    app.state.accounts = accounts
    app.state.live = hub
    app.router.route_class = StrictJsonRoute  # bodies read as strict JSON (422 otherwise)
    # The last added runs first: who may ask at all, how often, how many imports at once,
    # how much they may send, then who is signed in.
    app.add_middleware(SessionMiddleware, accounts=accounts)
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes,
                       larger={IMPORT_PATH: limits.max_import_bytes})
    app.add_middleware(ImportSlotsMiddleware, path=IMPORT_PATH, slots=ClientSlots(
        limits.imports_per_client, total=limits.max_imports))
    app.add_middleware(RateLimitMiddleware, limiter=RateLimiter(rate=limits.write_rate,
                                                                burst=limits.write_burst))
    app.add_middleware(EdgeGuardMiddleware, allowed_hosts=allowed_hosts,
                       origin_paths={SIGN_UP_PATH, SIGN_IN_PATH})
    _add_error_handlers(app)
    _add_game_routes(app, service)
    _add_account_routes(app, accounts)
    add_people_routes(app, service=service, lobby=people.lobby, profiles=people.profiles,
                      accounts=accounts, static_dir=static_dir)
    _add_explorer_routes(app, explorer, fair_play)
    _add_review_routes(app, reviews, store)
    add_learn_routes(app, load_course(), static_dir)

    @app.get("/api/health", response_model=Health)
    async def health() -> Health:
        return Health(ok=True)

    @app.websocket("/api/analysis")
    async def analysis(websocket: WebSocket) -> None:
        # Who asks, for fair play: the seats of the handshake's session and tokens.
        secret = session_secret(websocket.scope)
        session = None if secret is None else await accounts.session(secret)
        account = None if session is None else session.signed_in.account.id
        tokens = bearer_tokens(websocket.headers.get("authorization"))[:MAX_LISTED_TOKENS]

        async def check(board: Board, game_id: str | None) -> None:
            await fair_play.check(board.position(), game_id=game_id, tokens=tokens,
                                  account=account)

        await AnalysisSession(websocket, engines, max_message=limits.max_body_bytes,
                              limits=analysis_limits, client=client_of(websocket.scope),
                              fair_play=check).run()

    @app.websocket("/api/games/{game_id}/live")
    async def live(websocket: WebSocket, game_id: str) -> None:
        await serve_live(websocket, game_id, hub, service,
                         await socket_session(websocket, accounts))

    if static_dir is not None and static_dir.is_dir():
        app.mount("/", StaticFiles(directory=static_dir, html=True), name="static")
    return app


def _add_error_handlers(app: FastAPI) -> None:
    async def service_error(request: Request, error: Exception) -> Response:
        status = next(_ERROR_STATUS[kind] for kind in type(error).__mro__ if kind in _ERROR_STATUS)
        headers = ({"Retry-After": str(retry_after(error.retry_after))}
                   if isinstance(error, (SignInLimitError, LobbyLimitError))
                   and error.retry_after > 0 else None)
        return JSONResponse(ErrorBody.of(error, status=status), status_code=status, headers=headers)

    async def validation_error(request: Request, error: Exception) -> Response:
        errors = error.errors() if isinstance(error, RequestValidationError) else []
        return JSONResponse(ErrorBody.of(first_error(errors), status=422),
                            status_code=422)

    async def http_error(request: Request, error: Exception) -> Response:
        if not isinstance(error, HTTPException):  # pragma: no cover - registered for it only
            raise error
        return JSONResponse(ErrorBody.of(str(error.detail), status=error.status_code),
                            status_code=error.status_code, headers=error.headers)

    for kind in _ERROR_STATUS:
        app.add_exception_handler(kind, service_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)


def client_name(request: Request) -> str:
    """The client's address: what limits and caps count by."""
    return "" if request.client is None else request.client.host


def player_of(request: Request) -> AccountRecord | None:
    """The account the request is signed in as, if any."""
    found = signed_in(request.scope)
    return None if found is None else found.account


def required_session(request: Request) -> SignedIn:
    """The request's account and session (``401`` when it is not signed in)."""
    found = signed_in(request.scope)
    if found is None:
        raise NotSignedInError("sign in first: this request has no session (or its session "
                               "is over)")
    return found


def _add_game_routes(app: FastAPI, service: GameService) -> None:
    acting = Depends(acting_seat)
    viewing = Depends(viewing_seat)
    listed = Depends(caller_tokens)

    @app.post("/api/games", status_code=201, response_model=GameBody, responses=_ERRORS)
    async def new_game(request: NewGameRequest, http: Request) -> GameBody:
        """A new game, with ``tokens`` for the creator's seats. In engine mode with the
        human as White, the engine has moved."""
        return GameBody.of(await service.create(
            request.mode, human=side_color(request.human), level=request.level,
            seconds=request.seconds, fen=request.fen, private=request.private,
            clock=None if request.clock is None
            else (request.clock.minutes, request.clock.increment),
            creator=client_name(http), player=player_of(http)))

    @app.get("/api/games", response_model=GameList, responses=_ERRORS)
    async def list_games(http: Request,
                         limit: int = Query(DEFAULT_LIST_LIMIT, ge=1, le=MAX_LIST_LIMIT),
                         tokens: list[str] = listed) -> GameList:
        """The games of the tokens sent (``Authorization: Bearer T1, T2``) and of the
        signed-in account, newest first."""
        player = player_of(http)
        records = await service.mine(tokens, limit,
                                     account=None if player is None else player.id)
        return GameList(games=[GameSummary.of(record) for record in records])

    @app.post(IMPORT_PATH, status_code=201, response_model=ImportAnswer,
              responses=_ERRORS)
    async def import_games(request: ImportRequest, http: Request) -> ImportAnswer:
        """Store each game of a PDN text as an analysis game (one owner token for all)."""
        games, errors = await service.import_pdn(request.pdn, creator=client_name(http),
                                                 present=GameBody.of, player=player_of(http))
        return ImportAnswer(games=games, errors=errors)

    @app.get("/api/games/{game_id}", response_model=GameBody, responses=_ERRORS)
    async def get_game(game_id: str, http: Request, seat: Seat | None = viewing) -> GameBody:
        """The game (with a session: the seats its account holds, in ``seats``)."""
        return GameBody.of(await service.get(game_id, seat),
                           seats=await account_seats(service, game_id, http))

    @app.post("/api/games/{game_id}/moves", response_model=GameBody, responses=_ERRORS)
    async def move(game_id: str, request: MoveRequest, http: Request,
                   seat: Seat = acting) -> GameBody:
        """Play a move; in engine mode the answer also holds the engine's reply."""
        return GameBody.of(await service.move(game_id, request.move, seat,
                                              client=client_name(http)))

    @app.post("/api/games/{game_id}/takeback", response_model=GameBody, responses=_ERRORS)
    async def takeback(game_id: str, request: TakebackRequest | None = None,
                       seat: Seat = acting) -> GameBody:
        """Take back the last move (engine mode: back to the human's turn; friend mode:
        ask, accept or decline)."""
        action = None if request is None else request.action
        return GameBody.of(await service.takeback(game_id, seat, action))

    @app.post("/api/games/{game_id}/join", response_model=GameBody, responses=_ERRORS)
    async def join(game_id: str, request: JoinRequest, http: Request) -> GameBody:
        """Take the seat of a friend game's invite (once); the answer holds its token."""
        return GameBody.of(await service.join(game_id, request.secret, player=player_of(http)))

    @app.post("/api/games/{game_id}/resign", response_model=GameBody, responses=_ERRORS)
    async def resign(game_id: str, request: ResignRequest | None = None,
                     seat: Seat = acting) -> GameBody:
        """The token's side resigns."""
        side = None if request is None else side_color(request.side)
        return GameBody.of(await service.resign(game_id, seat, side))

    @app.post("/api/games/{game_id}/draw", response_model=GameBody, responses=_ERRORS)
    async def draw(game_id: str, request: DrawRequest, http: Request,
                   seat: Seat = acting) -> GameBody:
        """Offer, accept or decline a draw; the engine answers an offer at once."""
        return GameBody.of(await service.draw(game_id, seat, side_color(request.side),
                                              request.action, client=client_name(http)))

    @app.post("/api/games/{game_id}/claim-draw", response_model=GameBody, responses=_ERRORS)
    async def claim_draw(game_id: str, seat: Seat = acting) -> GameBody:
        """The side to move claims a draw by threefold repetition or the 40-move rule."""
        return GameBody.of(await service.claim_draw(game_id, seat))

    @app.get("/api/games/{game_id}/pdn", response_class=PlainTextResponse, responses=_ERRORS)
    async def pdn(game_id: str, seat: Seat | None = viewing) -> PlainTextResponse:
        """The game as a PDN file."""
        text = await service.pdn(game_id, seat)
        name = download_name(text, game_id)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.delete("/api/games/{game_id}", status_code=204, response_class=Response,
                responses=_ERRORS)
    async def delete(game_id: str, seat: Seat = acting) -> Response:
        await service.delete(game_id, seat)
        return Response(status_code=204)


def _visitor(request: Request) -> Visitor:
    return Visitor(client_name(request), request.headers.get("user-agent", ""))


def _cookie_header(request: Request, secret: str | None) -> dict[str, str]:
    """The header that gives the browser the session ``secret`` (``None``: forgets it)."""
    secure = is_https(request.scope)
    _, value = (cleared_cookie(secure=secure) if secret is None
                else set_cookie(secret, secure=secure))
    return {"Set-Cookie": value.decode("latin-1")}


def _add_account_routes(app: FastAPI, accounts: AccountService) -> None:
    session = Depends(required_session)
    listed = Depends(caller_tokens)

    @app.post(SIGN_UP_PATH, status_code=201, response_model=SignInAnswer, responses=_ERRORS)
    async def sign_up(request: Credentials, http: Request, response: Response,
                      tokens: list[str] = listed) -> SignInAnswer:
        """A new account, signed in (the session cookie is set); the seats of the tokens
        sent (``Authorization: Bearer T1, T2``) become its own."""
        new = await accounts.sign_up(request.username, request.password, _visitor(http),
                                     tokens=tokens, replacing=signed_in(http.scope))
        response.headers.update(_cookie_header(http, new.secret))
        return SignInAnswer(**AccountBody.of(new.signed_in.account).model_dump(),
                            claimed_games=new.claimed_games)

    @app.post(SIGN_IN_PATH, response_model=SignInAnswer, responses=_ERRORS)
    async def sign_in(request: Credentials, http: Request, response: Response,
                      tokens: list[str] = listed) -> SignInAnswer:
        """A new session of the account (the session cookie is set); the seats of the
        tokens sent become the account's. 401 for an unknown name or a wrong password."""
        new = await accounts.sign_in(request.username, request.password, _visitor(http),
                                     tokens=tokens, replacing=signed_in(http.scope))
        response.headers.update(_cookie_header(http, new.secret))
        return SignInAnswer(**AccountBody.of(new.signed_in.account).model_dump(),
                            claimed_games=new.claimed_games)

    @app.post("/api/account/signout", status_code=204, response_class=Response,
              responses=_ERRORS)
    async def sign_out(http: Request) -> Response:
        """End this browser's session, if it has one, and forget its cookie."""
        found = signed_in(http.scope)
        if found is not None:
            await accounts.sign_out(found)
        return Response(status_code=204, headers=_cookie_header(http, None))

    @app.get("/api/account", response_model=AccountBody, responses=_ERRORS)
    async def account(found: SignedIn = session) -> AccountBody:
        """The signed-in account (401 when there is none)."""
        return AccountBody.of(found.account)

    @app.post("/api/account/password", response_model=PasswordChanged, responses=_ERRORS)
    async def change_password(request: PasswordChangeRequest, http: Request,
                              found: SignedIn = session) -> PasswordChanged:
        """A new password (the current one confirms it); the other sessions end."""
        ended = await accounts.change_password(found, request.current, request.new,
                                               client_name(http))
        return PasswordChanged(ended_sessions=ended)

    @app.get("/api/account/sessions", response_model=SessionList, responses=_ERRORS)
    async def sessions(found: SignedIn = session) -> SessionList:
        """The account's signed-in browsers, the last used first."""
        return SessionList(sessions=[SessionBody.of(one, current=found.session.id)
                                     for one in await accounts.sessions(found)])

    @app.delete("/api/account/sessions/{session_id}", status_code=204,
                response_class=Response, responses=_ERRORS)
    async def revoke(http: Request, session_id: str = PathParameter(max_length=100),
                     found: SignedIn = session) -> Response:
        """End one of the account's sessions (this one: the browser is signed out)."""
        await accounts.revoke(found, session_id)
        is_this_one = session_id == found.session.id
        return Response(status_code=204,
                        headers=_cookie_header(http, None) if is_this_one else None)

    @app.delete("/api/account", status_code=204, response_class=Response, responses=_ERRORS)
    async def delete_account(request: AccountDeletion, http: Request,
                             found: SignedIn = session) -> Response:
        """Delete the account (its password confirms it): its games stay, under the name
        "deleted player", and every session ends."""
        await accounts.delete(found, request.password, client_name(http))
        return Response(status_code=204, headers=_cookie_header(http, None))


def _add_review_routes(app: FastAPI, reviews: ReviewService, store: GameStore) -> None:
    viewing = Depends(viewing_seat)

    @app.post("/api/games/{game_id}/review", response_model=ReviewBody, responses=_ERRORS)
    async def review(game_id: str, http: Request, response: Response,
                     seat: Seat | None = viewing) -> ReviewBody:
        """Start the review of the game (202), or answer the one that runs (202) or is done
        (200). 409 while a game between people goes on."""
        found = await reviews.start(game_id, seat, client=client_name(http))
        response.status_code = 200 if found.status is ReviewStatus.DONE else 202
        return ReviewBody.of(found)

    @app.get("/api/games/{game_id}/review", response_model=ReviewBody, responses=_ERRORS)
    async def review_status(game_id: str, seat: Seat | None = viewing,
                            wait: float = Query(0.0, ge=0, le=MAX_WAIT_SECONDS)) -> ReviewBody:
        """How the game's review goes (status none, running, done or failed); ``wait``: up
        to that many seconds for a running review to end first."""
        return ReviewBody.of(await reviews.status(game_id, seat, wait=wait))

    @app.get("/api/games/{game_id}/review.pdn", response_class=PlainTextResponse,
             responses=_ERRORS)
    async def review_pdn(game_id: str, seat: Seat | None = viewing) -> PlainTextResponse:
        """The game annotated by its review: what ``analyse GAME.pdn`` writes."""
        text = await reviews.pdn(game_id, seat)
        name = download_name(text, game_id).removesuffix(".pdn") + "-review.pdn"
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.get("/api/games/{game_id}/notes", response_model=NotesBody, responses=_ERRORS)
    async def notes(game_id: str, seat: Seat | None = viewing) -> NotesBody:
        """The comments, NAGs and variations an imported game keeps, on its main line."""
        state = await reviews.games.get(game_id, seat)
        text = await asyncio.to_thread(store.notes, game_id)
        found = await asyncio.to_thread(lambda: game_notes(game_tree(state.record, text)))
        return NotesBody.model_validate(found)


def _add_explorer_routes(app: FastAPI, explorer: GamesExplorer | None,
                         fair_play: FairPlay) -> None:
    listed = Depends(caller_tokens)

    def loaded() -> GamesExplorer:
        if explorer is None:
            raise ExplorerNotFoundError(NO_GAMES_DB)
        return explorer

    @app.get("/api/explore", response_model=ExploreAnswer, responses=_ERRORS)
    async def explore(http: Request, fen: str = Query(STARTING_FEN, max_length=MAX_FEN_TEXT),
                      limit: int = Query(DEFAULT_EXPLORE_GAMES, ge=1, le=MAX_EXPLORE_GAMES),
                      game: str | None = Query(None, max_length=MAX_GAME_ID_TEXT),
                      tokens: list[str] = listed) -> ExploreAnswer:
        """The games of the game database that reached the position ``fen`` (by any order
        of moves), the moves played there with their results, and the ``limit`` newest
        games: what ``db explore --json`` prints. 403 for the position of a game between
        people that goes on, from one of its seats, or naming it (``game``)."""
        player = player_of(http)
        await fair_play.check(Board(fen).position(), game_id=game, tokens=tokens,
                              account=None if player is None else player.id)
        return ExploreAnswer.of(await asyncio.to_thread(loaded().explore, fen, limit))

    @app.get("/api/games-db/{game_id}", response_model=StoredGameBody, responses=_ERRORS)
    async def stored_game(game_id: int = PathParameter(ge=1, le=MAX_STORED_GAME_ID)
                          ) -> StoredGameBody:
        """A game of the game database: its tags, start position, main line and PDN."""
        return StoredGameBody.of(await asyncio.to_thread(loaded().game, game_id))
