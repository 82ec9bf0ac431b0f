"""The game service: every change to a game, checked against the rules and stored before it returns.

The web app is a thin adapter over this class. A request on a game loads it,
checks it against the rules (the board raises on an illegal move, and the
service on a request the game's state forbids), lets the engine reply in
engine mode, and commits the new record; only then does it answer.

Each change is made for a :class:`~doublecorner.web.tokens.Seat`: the edge
of the app finds it from the request's token (among the game's own seats)
and the service checks that this seat may make this change (a player moves
only on their turn, and resigns only for their own side). A new game hands
out the tokens of the seats its creator holds; a friend game also an invite
secret, which gives the other seat's token to the first who joins with it.
Every saved change is also handed to ``on_change`` (the live streams), in
the order the changes were made. Games between two accounts are made by
:meth:`GameService.start_between` (the lobby, challenges) and by a rematch;
a rated one is rated with its end, in the same write (:mod:`ratings_service`),
allows no takebacks and cannot be deleted. A
request that fails changes nothing. Requests on one game run one after the
other; requests on different games run side by side. Database calls run in
one worker thread and engine searches in the :class:`EnginePool`, so the
event loop never waits for the disk or the engine.

>>> import asyncio, tempfile, pathlib
>>> from doublecorner.web.engine_pool import EnginePool, engine_factory
>>> from doublecorner.web.store import GameStore
>>> async def demo(folder):
...     service = GameService(GameStore(pathlib.Path(folder) / "games.sqlite3"),
...                           EnginePool(threads=1, max_seconds=5, new_engine=engine_factory(1)))
...     game = await service.create(GameMode.ENGINE, human=Color.WHITE, level=1)
...     game = await service.move(game.record.id, "22-18", Seat.WHITE)
...     service.close()
...     return len(game.record.moves), game.engine_reply is not None
>>> with tempfile.TemporaryDirectory() as folder:
...     asyncio.run(demo(folder))
(3, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import enum
import hmac
import random
import secrets
import time
import weakref
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import ParamSpec, TypeVar

from doublecorner.board import Board
from doublecorner.book.reader import Book
from doublecorner.color import Color
from doublecorner.engine import Score
from doublecorner.engine.levels import (
    DEFAULT_LEVEL,
    HUMAN_NAME,
    LEVEL_DEPTHS,
    Strength,
    engine_accepts_draw,
)
from doublecorner.errors import EngineError
from doublecorner.fen import STARTING_FEN
from doublecorner.web.account_record import AccountRecord
from doublecorner.web.engine_pool import EnginePool
from doublecorner.web.game_clock import after_move, start_clock
from doublecorner.web.pdn_games import game_pdn, imported_games
from doublecorner.web.ratings_service import black_score, rating_update, starting_ratings
from doublecorner.web.record import (
    UNFINISHED,
    AgreedEnding,
    Agreement,
    Clock,
    GameMode,
    GameRecord,
)
from doublecorner.web.state import (
    EngineReply,
    GameState,
    claimable_draw,
    ending,
    replay,
    result,
)
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import Seat, new_token, token_hash

_P = ParamSpec("_P")
_T = TypeVar("_T")

PLAYER_UNKNOWN = "?"  # the players of an analysis game, as PDN names an unknown one
ENGINE_NAME = "doublecorner"


class GameNotFoundError(LookupError):
    """No game has the id asked for."""


class GameStateError(RuntimeError):
    """The request is well formed but the game's state forbids it (it is over, not your turn)."""


class GameRequestError(ValueError):
    """The request does not make sense for this game (a bad option, a side that is not yours)."""


class GameLimitError(RuntimeError):
    """Storing the new games would go over a cap: the client's, or the server's."""


class GameForbiddenError(PermissionError):
    """The seat the request acts for may not make this change (not its turn, not its side)."""


class RematchAction(str, enum.Enum):
    """What a player of a finished game between two people does about a rematch."""

    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


class DrawAction(str, enum.Enum):
    """What a player does about a draw."""

    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


class TakebackAction(str, enum.Enum):
    """What a player of a friend game does about taking back a move."""

    ASK = "ask"
    ACCEPT = "accept"
    DECLINE = "decline"


MAX_CLOCK_MINUTES = 180.0
MAX_INCREMENT_SECONDS = 60.0


def utc_now() -> str:
    """The time as the API writes it: ``2026-11-30T12:00:00Z``."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_game_id() -> str:
    """A fresh opaque game id such as ``g_3f9c0b12d4e5a6f7``."""
    return f"g_{secrets.token_hex(8)}"


class GameService:
    """Games in ``store``, with the engine of ``engines`` as the opponent in engine mode.

    With a ``book``, the engine's moves in a game come from it while it holds
    the position (drawn by weight, with a generator seeded by ``book_seed``);
    analyses always search.
    """

    def __init__(self, store: GameStore, engines: EnginePool, *, book: Book | None = None,
                 book_seed: int | None = None,
                 clock: Callable[[], str] = utc_now,
                 new_id: Callable[[], str] = new_game_id,
                 max_games: int | None = None, max_games_per_client: int | None = None,
                 on_change: Callable[[GameState, str], None] | None = None) -> None:
        self.store = store
        self.engines = engines
        self.book = book
        self._book_random = random.Random(book_seed)
        self.on_change = on_change
        self.max_games = max_games
        self.max_games_per_client = max_games_per_client
        self._clock = clock
        self._new_id = new_id
        # One thread for the database: SQLite writes one at a time anyway, and a
        # commit waits for the disk, which the event loop must not.
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="doublecorner-db")
        # A lock lives while a request holds or awaits it; a game nobody touches has none.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    def close(self) -> None:
        """Stop the engines, finish the database work and close the file."""
        self.engines.close()
        self._db.shutdown(wait=True)
        self.store.close()

    # -- reading -----------------------------------------------------------

    async def get(self, game_id: str, seat: Seat | None = None) -> GameState:
        """The game with this id, as anyone sees it (a private one: only its seats).

        :raises GameNotFoundError: there is none.
        :raises GameForbiddenError: the game is private and ``seat`` is ``None``.
        """
        state = GameState.of(await self._load_visible(game_id, seat))
        if state.record.rated and state.ending is not None and state.record.result == UNFINISHED:
            # A flag fell since the last write: the game ends (and is rated) now.
            settled = await self.settle(game_id)
            state = state if settled is None else settled
        return state

    async def mine(self, tokens: list[str], limit: int, *,
                   account: int | None = None) -> list[GameRecord]:
        """The ``limit`` newest games with a seat held by one of ``tokens`` (or by the
        ``account``), newest first."""
        return await self._in_db(self.store.games_of, [token_hash(token) for token in tokens],
                                 limit, account=account)

    async def seats(self, game_id: str) -> dict[Seat, str]:
        """The token hash of each seat of the game.

        :raises GameNotFoundError: there is no such game.
        """
        seats = await self._in_db(self.store.seats, game_id)
        if not seats:
            await self._load(game_id)  # a game without seats (made before seats were) is read only
        return seats

    async def seat_holders(self, game_id: str) -> dict[Seat, int | None]:
        """The account that holds each seat of the game (``None``: its token only).

        :raises GameNotFoundError: there is no such game.
        """
        holders = await self._in_db(self.store.seat_holders, game_id)
        if not holders:
            await self._load(game_id)
        return holders

    async def rated_in_play(self) -> list[GameState]:
        """The rated games that go on by what was last written (a flag may have fallen)."""
        return [GameState.of(record)
                for record in await self._in_db(self.store.rated_games_in_play)]

    async def pdn(self, game_id: str, seat: Seat | None = None) -> str:
        """The game as PDN text (an imported game with its comments, NAGs and variations).

        :raises GameNotFoundError: there is none.
        :raises GameForbiddenError: the game is private and ``seat`` is ``None``.
        """
        record = await self._load_visible(game_id, seat)
        return game_pdn(record, await self._in_db(self.store.notes, game_id))

    # -- new games ---------------------------------------------------------

    async def create(self, mode: GameMode, *, human: Color | None = None,
                     level: int | None = None, seconds: float | None = None,
                     fen: str | None = None, private: bool = False,
                     clock: tuple[float, float] | None = None,
                     creator: str = "", player: AccountRecord | None = None) -> GameState:
        """A new game from ``fen`` (default: the start); in engine mode the engine moves
        first when it is its turn.

        The answer holds the tokens of the creator's seats: the human's side in
        engine mode, both sides in two-player mode, the owner's in analysis; in
        friend mode the creator's side (``human``, default Black) and the
        secret of the invite to the other side. ``clock`` (friend mode only) is
        ``(minutes, increment in seconds)``. ``creator`` names the client, for
        :meth:`count` and the engine queue. A signed-in ``player`` holds the
        creator's seats as well as their tokens, and their name is the human's in
        engine and friend games.

        :raises GameRequestError: an option that does not fit the mode, or out of range.
        :raises InvalidFenError: ``fen`` is not a valid FEN.
        :raises GameLimitError: the client or the server has as many games as it may keep.
        """
        board = Board(STARTING_FEN if fen is None else fen)
        now = self._clock()
        player_name = HUMAN_NAME if player is None else player.username
        if mode is GameMode.ENGINE:
            strength = self._strength(level, seconds)
            human = Color.BLACK if human is None else human
            engine_name = f"{ENGINE_NAME} ({strength.name})"
            black, white = ((player_name, engine_name) if human is Color.BLACK
                            else (engine_name, player_name))
            if seconds is None:
                level = DEFAULT_LEVEL if level is None else level
        else:
            if mode is GameMode.FRIEND:
                human = Color.BLACK if human is None else human
            for name, value in (("human", human), ("level", level), ("seconds", seconds)):
                if value is not None and mode is not GameMode.FRIEND:
                    raise GameRequestError(f"{name!r} applies to engine mode only, "
                                           f"not to mode {mode.value!r}")
            for name, value in (("level", level), ("seconds", seconds)):
                if value is not None:
                    raise GameRequestError(f"{name!r} applies to engine mode only, "
                                           f"not to mode {mode.value!r}")
            names = PLAYER_UNKNOWN if mode is GameMode.ANALYSIS else HUMAN_NAME
            black = white = names
            if mode is GameMode.FRIEND:
                black, white = ((player_name, HUMAN_NAME) if human is Color.BLACK
                                else (HUMAN_NAME, player_name))
        if clock is not None and mode is not GameMode.FRIEND:
            raise GameRequestError(f"a clock is for friend games, not mode {mode.value!r}")
        record = GameRecord(id=self._new_id(), mode=mode, created=now, updated=now,
                            black=black, white=white, start_fen=board.fen(), human=human,
                            level=level, seconds=seconds, private=private,
                            clock=None if clock is None else _new_clock(*clock))
        reply = None
        if mode is GameMode.ENGINE and board.turn is not human and ending(record, board) is None:
            reply = await self._engine_move(record, board, creator)
        record = self._changed(record, board, now=now)
        tokens = {seat: new_token() for seat in _creator_seats(record)}
        invite = None
        invites = []
        if mode is GameMode.FRIEND:
            assert human is not None
            invite = new_token()
            invites.append((record.id, Seat.of(human.opponent), token_hash(invite)))
        await self._in_db(self._insert, [record], creator=creator, seats=[
            (record.id, seat, token_hash(token)) for seat, token in tokens.items()],
            invites=invites, account=None if player is None else player.id)
        return GameState(record, board, ending(record, board), reply,
                         tokens={seat.value: token for seat, token in tokens.items()},
                         invite=invite)

    async def join(self, game_id: str, secret: str, *,
                   player: AccountRecord | None = None) -> GameState:
        """Take the seat a friend game's invite gives; the answer holds its token.

        The invite works once: the first to join with its secret gets the seat.
        A signed-in ``player`` holds the seat as well as its token, and the game
        shows their name on that side.

        :raises GameNotFoundError: there is no such game.
        :raises GameForbiddenError: the game has no open invite, or another secret.
        """
        async with self._lock(game_id):
            record = await self._load(game_id)
            invite = await self._in_db(self.store.invite, game_id)
            if invite is None or not hmac.compare_digest(token_hash(secret), invite[1]):
                raise GameForbiddenError(f"the invite to game {game_id!r} has been used or "
                                         "is not valid")
            token = new_token()
            seat = await self._in_db(self.store.claim_invite, game_id, invite[1],
                                     token_hash(token),
                                     account=None if player is None else player.id)
            if seat is None:  # pragma: no cover - the game's lock keeps out a second claim
                raise GameForbiddenError(f"the invite to game {game_id!r} has been used")
            if player is not None:
                record = (replace(record, black=player.username) if seat is Seat.BLACK
                          else replace(record, white=player.username))
                await self._in_db(self.store.update, record)
            state = GameState.of(record)
            self._announce(state, "joined")
            return replace(state, tokens={seat.value: token})

    async def start_between(self, black: AccountRecord, white: AccountRecord, *,
                            minutes: float, increment: float, rated: bool, human: Color,
                            creator: str = "") -> GameState:
        """A game between two accounts, each holding its seat (they act with their
        sessions: no token is handed out), with a clock of ``minutes`` each and
        ``increment`` seconds a move; ``human`` is the side of the player who asked for it
        (a seek's or challenge's author), ``creator`` the client that made it, for the caps.

        :raises GameRequestError: the clock is out of range, or both are one account.
        :raises GameLimitError: the client or the server has as many games as it may keep.
        """
        if black.id == white.id:
            raise GameRequestError(f"{black.username!r} cannot play against themselves")
        now = self._clock()
        board = Board(STARTING_FEN)
        record = GameRecord(id=self._new_id(), mode=GameMode.FRIEND, created=now, updated=now,
                            black=black.username, white=white.username,
                            start_fen=board.fen(), human=human,
                            clock=_new_clock(minutes, increment), rated=rated,
                            ratings=starting_ratings(black, white))
        seats = [(record.id, Seat.BLACK, token_hash(new_token())),
                 (record.id, Seat.WHITE, token_hash(new_token()))]
        await self._in_db(self._insert, [record], creator=creator, seats=seats,
                          holders={Seat.BLACK: black.id, Seat.WHITE: white.id})
        state = GameState(record, board, None)
        self._announce(state, "started")
        return state

    async def rematch(self, game_id: str, seat: Seat, action: RematchAction, *,
                      client: str = "") -> GameState:
        """Offer, accept or decline a rematch of a finished game between two people.

        An offer stands until the other side accepts or declines it (an offer
        while the other side's is pending accepts it). Accepting makes the new
        game: colours swapped, each seat held by the same token and account as
        the player's seat in this game, the same clock (started afresh) and
        rated flag; this game then names it (``rematch``), which its live stream
        tells both players. The answer to an acceptance is the new game (made as
        ``client``'s, for the caps); to an offer or a decline, this one.

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: the game goes on, is not between two people, has had its
            rematch, or there is no offer to answer; a rated game whose player has no
            account any more.
        :raises GameLimitError: the client or the server has as many games as it may keep.
        """
        async with self._lock(game_id):
            record = await self._load(game_id)
            _check_seat(record, seat)
            board = replay(record)
            seats = await self._in_db(self.store.seats, game_id)
            side = seat.color
            if (record.mode is not GameMode.FRIEND or side is None
                    or {Seat.BLACK, Seat.WHITE} - set(seats)):
                raise GameStateError(f"game {game_id!r} is not between two people: it has "
                                     "no rematch")
            if ending(record, board) is None:
                raise GameStateError(f"game {game_id!r} goes on: a rematch is offered once it "
                                     "is over")
            record = self._ended(record, board)
            if record.rematch is not None:
                raise GameStateError(f"game {game_id!r} has had its rematch: "
                                     f"{record.rematch!r}")
            offer = record.rematch_offer
            if action is RematchAction.OFFER and offer is not side.opponent:
                return await self._save(replace(record, rematch_offer=side), board)
            if offer is not side.opponent:
                raise GameStateError(f"{side.opponent.name.lower()} has offered no rematch "
                                     f"to {action.value} in game {game_id!r}")
            if action is RematchAction.DECLINE:
                return await self._save(replace(record, rematch_offer=None), board)
            holders = await self._in_db(self.store.seat_holders, game_id)
            return await self._start_rematch(record, board, seats, holders, client)

    async def _start_rematch(self, record: GameRecord, board: Board, seats: dict[Seat, str],
                             holders: dict[Seat, int | None], client: str) -> GameState:
        """The rematch of ``record`` (its lock held): stored with ``record`` naming it."""
        if record.rated and None in (holders.get(Seat.BLACK), holders.get(Seat.WHITE)):
            raise GameStateError(f"a player of game {record.id!r} has no account any more: "
                                 "it has no rated rematch")
        accounts = await self._in_db(self.store.accounts_by_id,
                                     [holder for holder in holders.values() if holder])
        now = self._clock()
        clock = record.clock
        new = GameRecord(
            id=self._new_id(), mode=GameMode.FRIEND, created=now, updated=now,
            black=record.white, white=record.black, start_fen=record.start_fen,
            human=None if record.human is None else record.human.opponent,
            clock=None if clock is None else start_clock(minutes=clock.initial / 60.0,
                                                         increment=clock.increment),
            rated=record.rated,
            ratings=starting_ratings(accounts.get(holders.get(Seat.WHITE) or 0),
                                     accounts.get(holders.get(Seat.BLACK) or 0)))
        swapped = {Seat.BLACK: Seat.WHITE, Seat.WHITE: Seat.BLACK}
        old = replace(record, rematch=new.id, rematch_offer=None, updated=now)
        await self._in_db(
            self._insert, [new], creator=client,
            seats=[(new.id, swapped[seat], digest) for seat, digest in seats.items()],
            holders={swapped[seat]: holder for seat, holder in holders.items()},
            replacing=old)
        self._announce(GameState(old, board, ending(old, board)), "changed")
        state = GameState(new, Board(new.start_fen), None)
        self._announce(state, "started")
        return state

    async def settle(self, game_id: str) -> GameState | None:
        """Write the end of a game whose flag has fallen (a time forfeit), if it has not
        been written yet: a rated game is rated then. ``None``: nothing to write.

        :raises GameNotFoundError: there is no such game.
        """
        async with self._lock(game_id):
            record = await self._load(game_id)
            board = replay(record)
            if record.result != UNFINISHED or ending(record, board) is None:
                return None
            return await self._save(self._ended(record, board), board)

    async def abandon(self, game_id: str, side: Color) -> GameState | None:
        """``side`` has left the game and not come back in time: it loses by abandonment,
        unless the game is over already (``None``: nothing changed).

        :raises GameNotFoundError: there is no such game.
        """
        async with self._lock(game_id):
            record = await self._load(game_id)
            board = replay(record)
            if ending(record, board) is not None:
                return None
            record = replace(record, agreed=AgreedEnding(Agreement.ABANDONMENT, side.opponent))
            return await self._save(self._changed(record, board, draw_offer=None), board)

    async def count(self, creator: str | None = None) -> int:
        """How many games are stored (made by ``creator``, if given)."""
        if creator is None:
            return await self._in_db(self.store.count)
        return await self._in_db(self.store.count_by, creator)

    async def import_pdn(self, text: str, *, present: Callable[[GameState], _T],
                         creator: str = "", player: AccountRecord | None = None
                         ) -> tuple[list[_T], list[str]]:
        """Store every game of a PDN text as an analysis game; also returns the text's errors.

        One owner token, in each game's answer, holds all the games of the text.
        Each game's state is handed to ``present`` as it is read (the app makes
        its JSON body there), so that the states, a board each, are not all held
        at once; the answer is what ``present`` made of them. The caps are
        checked before the text is read, and reading stops at the first game
        past the room left (every game of the text counts, also one left out):
        an import over a cap stores nothing, having read at most one game more
        than there was room for. A signed-in ``player`` holds the games' owner
        seats too.

        :raises GameRequestError: the text holds no game that could be read.
        :raises GameLimitError: the games would go over the client's or the server's cap.
        """
        now = self._clock()
        room, why = await self._in_db(self._room, creator)
        if room == 0:
            raise GameLimitError(f"{why}: there is no room for another game")
        token = new_token()
        tokens = {Seat.OWNER.value: token}

        notes: list[tuple[str, str]] = []  # (game id, PDN) of the games with notes

        def read() -> tuple[list[GameRecord], list[_T], list[str]]:
            records: list[GameRecord] = []
            presented: list[_T] = []
            errors: list[str] = []
            games = imported_games(text, created=now, new_id=self._new_id)
            for number, game in enumerate(games, 1):
                if room is not None and number > room:
                    raise GameLimitError(f"{why}: this PDN text holds more games than the "
                                         f"{room} there is room for (none was stored)")
                errors.extend(game.errors)
                if game.record is None or game.board is None:
                    continue
                records.append(game.record)
                if game.notes is not None:
                    notes.append((game.record.id, game.notes))
                presented.append(present(GameState(
                    game.record, game.board, ending(game.record, game.board), tokens=tokens)))
            return records, presented, errors

        # Reading and replaying thousands of games takes a while: not on the event loop.
        records, presented, errors = await asyncio.get_running_loop().run_in_executor(None, read)
        if not records:
            first = f": {errors[0]}" if errors else ""
            raise GameRequestError(f"no game could be read from the PDN text{first}")
        digest = token_hash(token)
        await self._in_db(self._insert, records, creator=creator,
                          seats=[(record.id, Seat.OWNER, digest) for record in records],
                          notes=notes,
                          account=None if player is None else player.id)
        return presented, errors

    # -- changes -----------------------------------------------------------

    async def move(self, game_id: str, text: str, seat: Seat, *,
                   client: str = "") -> GameState:
        """Play ``text`` (full or short form) for ``seat``; in engine mode the engine replies
        (its search waits its turn in the engine queue as ``client``'s).

        :raises GameNotFoundError: there is no such game.
        :raises GameForbiddenError: ``seat`` is a player whose turn it is not.
        :raises GameStateError: the game is over, or it is the engine's turn.
        :raises InvalidMoveError: ``text`` is not a move.
        :raises IllegalMoveError: the move is not legal in the position.
        :raises AmbiguousMoveError: a short capture that fits several routes.
        """
        async with self._editing(game_id, seat, going_on=True) as (record, board):
            if record.mode is GameMode.ENGINE and board.turn is not record.human:
                raise GameStateError(f"it is the engine's turn in game {game_id!r}")
            if seat.color is not None and seat.color is not board.turn:
                raise GameForbiddenError(f"it is {board.turn.name.lower()}'s turn in game "
                                         f"{game_id!r}, and this token is {seat.value}'s")
            mover = board.turn
            board.push_str(text)
            # An offer stands until the other side moves: a move answers it with a no.
            offer = record.draw_offer if record.draw_offer is mover else None
            if record.clock is not None:
                record = replace(record, clock=after_move(record.clock, mover, now=time.time()))
            record = replace(record, takeback_request=None)  # a move answers it with a no
            reply = None
            if record.mode is GameMode.ENGINE and ending(record, board) is None:
                reply = await self._engine_move(record, board, client)
            return await self._save(self._changed(record, board, draw_offer=offer), board, reply)

    async def takeback(self, game_id: str, seat: Seat,
                       action: TakebackAction | None = None) -> GameState:
        """Take back the last move (engine mode: the human's last move and the replies after it).

        A resignation or an agreed draw is taken back with it, and so is a draw
        offer. In a friend game a player asks (``action`` ask, the default) and
        the other accepts (their last move and any reply after it are taken
        back) or declines; a move declines it too.

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: there is no move to take back, or no request to answer, or
            the game is rated.
        :raises GameRequestError: ``action`` given outside a friend game.
        """
        async with self._editing(game_id, seat, going_on=False) as (record, board):
            if record.rated:
                raise GameStateError(f"game {game_id!r} is rated: moves are not taken back")
            if record.mode is GameMode.FRIEND:
                return await self._friend_takeback(record, board, seat,
                                                   action or TakebackAction.ASK)
            if action is not None:
                raise GameRequestError("takebacks are asked and answered in friend games only")
            plies = len(record.moves)
            if record.mode is GameMode.ENGINE:
                first = Board(record.start_fen).turn
                human_plies = [ply for ply in range(plies)
                               if (first if ply % 2 == 0 else first.opponent) is record.human]
                if not human_plies:
                    raise GameStateError(f"game {game_id!r} has no move of yours to take back")
                plies -= human_plies[-1]
            elif plies == 0:
                raise GameStateError(f"game {game_id!r} has no move to take back")
            else:
                plies = 1
            for _ in range(plies):
                board.pop()
            record = replace(record, agreed=None, takeback_request=None)
            return await self._save(self._changed(record, board, draw_offer=None), board)

    async def _friend_takeback(self, record: GameRecord, board: Board, seat: Seat,
                               action: TakebackAction) -> GameState:
        side = seat.color
        assert side is not None  # friend games have no owner seat (see _check_seat)
        if action is TakebackAction.ASK:
            if not _plies_of(record, side):
                raise GameStateError(f"game {record.id!r} has no move of "
                                     f"{side.name.lower()}'s to take back")
            record = replace(record, takeback_request=side)
            return await self._save(self._changed(record, board, draw_offer=record.draw_offer),
                                    board)
        asker = record.takeback_request
        if asker is not side.opponent:
            raise GameStateError(f"{side.opponent.name.lower()} has not asked to take back a "
                                 f"move in game {record.id!r}")
        if action is TakebackAction.ACCEPT:
            for _ in range(len(record.moves) - _plies_of(record, asker)[-1]):
                board.pop()
            record = replace(record, agreed=None, draw_offer=None)
        record = replace(record, takeback_request=None)
        return await self._save(self._changed(record, board, draw_offer=record.draw_offer), board)

    async def resign(self, game_id: str, seat: Seat, side: Color | None = None) -> GameState:
        """``seat``'s side gives up (``side``, if given, must be that side).

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: the game is over, or is an analysis without players.
        :raises GameForbiddenError: ``side`` is not ``seat``'s.
        """
        async with self._editing(game_id, seat, going_on=True) as (record, board):
            side = self._player(record, seat, side, "resigns")
            record = replace(record, agreed=AgreedEnding(Agreement.RESIGNATION, side.opponent))
            return await self._save(self._changed(record, board, draw_offer=None), board)

    async def draw(self, game_id: str, seat: Seat, side: Color | None,
                   action: DrawAction, *, client: str = "") -> GameState:
        """Offer, accept or decline a draw.

        In two-player mode an offer stands until the other side accepts,
        declines or moves (an offer when the other side has one pending accepts
        it). In engine mode the engine answers an offer at once: yes when a draw
        can be claimed by the rules or its score for itself is at most +0.10 (its
        search waits its turn in the engine queue as ``client``'s).

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: the game is over, an analysis, or there is no offer to answer.
        :raises GameForbiddenError: ``side`` is not ``seat``'s.
        """
        async with self._editing(game_id, seat, going_on=True) as (record, board):
            side = self._player(record, seat, side, "offers or answers a draw")
            offer = record.draw_offer
            if record.mode is GameMode.ENGINE:
                if action is not DrawAction.OFFER:
                    raise GameStateError(f"the engine makes no draw offers; you can only "
                                         f"offer one in game {game_id!r}")
                if not await self._engine_accepts_draw(record, board, client):
                    return GameState(record, board, None)
                agreed: AgreedEnding | None = AgreedEnding(Agreement.DRAW_AGREED, None)
                offer = None
            elif action is DrawAction.OFFER and offer is not side.opponent:
                agreed, offer = None, side
            else:
                if offer is not side.opponent:
                    raise GameStateError(f"{side.name.lower()} has no draw offer to "
                                         f"{action.value} in game {game_id!r}")
                is_accepted = action is not DrawAction.DECLINE
                agreed = AgreedEnding(Agreement.DRAW_AGREED, None) if is_accepted else None
                offer = None
            record = replace(record, agreed=agreed)
            return await self._save(self._changed(record, board, draw_offer=offer), board)

    async def claim_draw(self, game_id: str, seat: Seat) -> GameState:
        """The side to move claims a draw by threefold repetition or the 40-move rule.

        The claim stands when the draw is on the board or when the claimant's
        next move would make it (WCDF rules; see :meth:`Board.can_claim_draw`);
        the game ends as a draw named after the rule. Against the engine the
        server already claims every draw on the board for both sides.

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: the game is over, an analysis, or no draw can be claimed.
        :raises GameForbiddenError: ``seat`` is not the side to move.
        """
        async with self._editing(game_id, seat, going_on=True) as (record, board):
            side = self._player(record, seat, None, "claims a draw")
            if side is not board.turn:
                raise GameForbiddenError(f"only the side to move claims a draw: it is "
                                         f"{board.turn.name.lower()}'s turn in game {game_id!r}, "
                                         f"and this token is {seat.value}'s")
            claim = claimable_draw(record, board)
            if claim is None:
                raise GameStateError(
                    f"no draw can be claimed in game {game_id!r}: neither this position nor "
                    "your next move makes a threefold repetition, and fewer than 40 moves "
                    "each have gone by without a man move or capture")
            record = replace(record, agreed=AgreedEnding(claim, None))
            return await self._save(self._changed(record, board, draw_offer=None), board)

    async def delete(self, game_id: str, seat: Seat) -> None:
        """Remove a game for good (any seat of the game may), unless it is rated: a rated
        game is kept, as a part of its players' rating histories.

        :raises GameNotFoundError: there is no such game.
        :raises GameStateError: the game is rated.
        """
        async with self._lock(game_id):
            record = await self._load(game_id)
            _check_seat(record, seat)
            if record.rated:
                raise GameStateError(f"game {game_id!r} is rated: it stays in its players' "
                                     "rating histories and cannot be deleted")
            if not await self._in_db(self.store.delete, game_id):
                raise GameNotFoundError(f"no game {game_id!r}")
            if self.on_change is not None:
                self.on_change(GameState.of(record), "deleted")

    # -- helpers -----------------------------------------------------------

    def _insert(self, records: list[GameRecord], *, creator: str,
                seats: list[tuple[str, Seat, str]],
                invites: list[tuple[str, Seat, str]] | None = None,
                account: int | None = None, notes: list[tuple[str, str]] | None = None,
                holders: dict[Seat, int | None] | None = None,
                replacing: GameRecord | None = None) -> None:
        """Store new games within the caps (in the database thread: one insert at a time,
        so the counts cannot change between the check and the insert).

        :raises GameLimitError: the games would go over a cap.
        """
        new = len(records)
        if self.max_games_per_client is not None:
            held = self.store.count_by(creator)
            if held + new > self.max_games_per_client:
                raise GameLimitError(
                    f"one client may keep at most {self.max_games_per_client} games, and you "
                    f"have {held}: delete some before adding {new} more")
        if self.max_games is not None:
            total = self.store.count()
            if total + new > self.max_games:
                raise GameLimitError(f"the server keeps at most {self.max_games} games and "
                                     f"has {total}: it cannot take {new} more")
        self.store.insert(records, creator=creator, seats=seats, invites=invites or (),
                          account=account, notes=notes or (), holders=holders,
                          replacing=replacing)

    def _room(self, creator: str) -> tuple[int | None, str]:
        """How many more games ``creator`` may store (``None``: no cap), and the cap that
        says so (in the database thread)."""
        room: int | None = None
        why = ""
        if self.max_games_per_client is not None:
            held = self.store.count_by(creator)
            room = max(0, self.max_games_per_client - held)
            why = (f"one client may keep at most {self.max_games_per_client} games, and you "
                   f"have {held}")
        if self.max_games is not None:
            total = self.store.count()
            if room is None or self.max_games - total < room:
                room = max(0, self.max_games - total)
                why = f"the server keeps at most {self.max_games} games and has {total}"
        return room, why

    async def _in_db(self, function: Callable[_P, _T], *args: _P.args,
                     **kwargs: _P.kwargs) -> _T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db, lambda: function(*args, **kwargs))

    @contextlib.asynccontextmanager
    async def _editing(self, game_id: str, seat: Seat, *,
                       going_on: bool) -> AsyncIterator[tuple[GameRecord, Board]]:
        """The game replayed, with no other request on it meanwhile; ``going_on``: not over."""
        async with self._lock(game_id):
            record = await self._load(game_id)
            _check_seat(record, seat)
            board = replay(record)
            if going_on:
                self._check_going_on(record, board)
            yield record, board

    def _lock(self, game_id: str) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    async def _load(self, game_id: str) -> GameRecord:
        record = await self._in_db(self.store.get, game_id)
        if record is None:
            raise GameNotFoundError(f"no game {game_id!r}")
        return record

    async def _load_visible(self, game_id: str, seat: Seat | None) -> GameRecord:
        record = await self._load(game_id)
        if record.private and seat is None:
            raise GameForbiddenError(f"game {game_id!r} is private: send the token of one "
                                     "of its seats")
        return record

    async def _save(self, record: GameRecord, board: Board,
                    reply: EngineReply | None = None) -> GameState:
        found = ending(record, board)
        if record.rated and found is not None:
            # The end and the new ratings in one write; a game is rated once.
            try:
                record = await self._in_db(self.store.update_rated, record,
                                           rating_update(found), black_score=black_score(found),
                                           played=self._clock())
            except LookupError:
                raise GameNotFoundError(f"no game {record.id!r} (it was deleted)") from None
        elif not await self._in_db(self.store.update, record):
            raise GameNotFoundError(f"no game {record.id!r} (it was deleted)")
        state = GameState(record, board, found, reply)
        self._announce(state, "changed")
        return state

    def _announce(self, state: GameState, event: str) -> None:
        """Hand a change to ``on_change`` (called with the game's lock held: in order)."""
        if self.on_change is not None:
            self.on_change(replace(state, engine_reply=None, tokens=None, invite=None), event)

    def _ended(self, record: GameRecord, board: Board) -> GameRecord:
        """``record`` of a game that is over with its end written: a flag that fell since
        the last write becomes a time forfeit, and the result is set."""
        found = ending(record, board)
        if (found is not None and record.agreed is None
                and found.reason == Agreement.TIME_FORFEIT.value):
            record = replace(record, agreed=AgreedEnding(Agreement.TIME_FORFEIT, found.winner))
        return replace(record, result=result(record, board))

    def _changed(self, record: GameRecord, board: Board, *, now: str | None = None,
                 draw_offer: Color | None = None) -> GameRecord:
        """``record`` with the moves of ``board`` and the time of the change."""
        moves = tuple(str(move) for move in board.move_stack)
        record = replace(record, moves=moves, draw_offer=draw_offer,
                         updated=self._clock() if now is None else now)
        return replace(record, result=result(record, board))

    def _strength(self, level: int | None, seconds: float | None) -> Strength:
        if level is not None and seconds is not None:
            raise GameRequestError("give the engine a 'level' or 'seconds' per move, not both")
        if seconds is not None:
            limit = self.engines.max_seconds
            if not 0 < seconds <= limit:
                raise GameRequestError(f"'seconds' must be above 0 and at most {limit:g} "
                                       f"(the server's limit), not {seconds:g}")
            return Strength.from_seconds(seconds)
        level = DEFAULT_LEVEL if level is None else level
        if not 1 <= level <= len(LEVEL_DEPTHS):
            raise GameRequestError(f"'level' must be from 1 to {len(LEVEL_DEPTHS)}, not {level}")
        return Strength.from_level(level)

    def _check_going_on(self, record: GameRecord, board: Board) -> None:
        found = ending(record, board)
        if found is not None:
            raise GameStateError(f"game {record.id!r} is over ({found.result}, {found.reason})")

    def _player(self, record: GameRecord, seat: Seat, side: Color | None, does: str) -> Color:
        """The side that acts: ``seat``'s, which ``side`` must be if it is given."""
        color = seat.color
        if record.mode is GameMode.ANALYSIS or color is None:
            raise GameStateError(f"game {record.id!r} is an analysis: nobody {does} there")
        if side is not None and side is not color:
            raise GameForbiddenError(f"this token is {seat.value}'s in game {record.id!r}, "
                                     f"not {side.name.lower()}'s")
        return color

    async def _engine_move(self, record: GameRecord, board: Board, client: str) -> EngineReply:
        """Let the engine move on ``board`` (pushed there) at the game's strength; the
        search takes its turn in the engine queue as ``client``'s (who asked for it)."""
        entry = self.book.choose(board.position(), self._book_random) if self.book else None
        if entry is not None:
            board.push(entry.move)
            return EngineReply(entry.move, Score(entry.score or 0), 0, is_book=True)
        found = await self.engines.search(
            board.position(), _game_strength(record).limit,
            history=board.position_history(), halfmove_clock=board.halfmove_clock,
            client=client)
        if found.move is None:  # cannot happen: the callers check that the game goes on
            raise EngineError(f"the engine found no move in {board.fen()}")
        board.push(found.move)
        return EngineReply(found.move, found.score, found.depth)

    async def _engine_accepts_draw(self, record: GameRecord, board: Board,
                                   client: str) -> bool:
        if board.can_claim_draw():
            return True
        found = await self.engines.search(
            board.position(), _game_strength(record).limit,
            history=board.position_history(), halfmove_clock=board.halfmove_clock,
            client=client)
        # The search scores the position for the side to move, here the human.
        engine_score = -found.score if board.turn is record.human else found.score
        return engine_accepts_draw(board.position(), engine_score)


def _new_clock(minutes: float, increment: float) -> Clock:
    if not 0 < minutes <= MAX_CLOCK_MINUTES:
        raise GameRequestError(f"clock 'minutes' must be above 0 and at most "
                               f"{MAX_CLOCK_MINUTES:g}, not {minutes:g}")
    if not 0 <= increment <= MAX_INCREMENT_SECONDS:
        raise GameRequestError(f"clock 'increment' must be 0 to {MAX_INCREMENT_SECONDS:g} "
                               f"seconds, not {increment:g}")
    return start_clock(minutes=minutes, increment=increment)


def _plies_of(record: GameRecord, side: Color) -> list[int]:
    """The plies (0-based) of ``record``'s moves that ``side`` made."""
    first = Board(record.start_fen).turn
    return [ply for ply in range(len(record.moves))
            if (first if ply % 2 == 0 else first.opponent) is side]


def _creator_seats(record: GameRecord) -> list[Seat]:
    """The seats whose tokens the creator of a game gets."""
    if record.mode is GameMode.ANALYSIS:
        return [Seat.OWNER]
    if record.mode is GameMode.TWO_PLAYER:
        return [Seat.BLACK, Seat.WHITE]
    assert record.human is not None  # engine and friend games always have one (see create)
    return [Seat.of(record.human)]


def _check_seat(record: GameRecord, seat: Seat) -> None:
    """Refuse a seat the game does not have (the edge finds seats among the game's own)."""
    if (seat is Seat.OWNER) is not (record.mode is GameMode.ANALYSIS) or (
            record.mode is GameMode.ENGINE and seat.color is not record.human):
        raise GameForbiddenError(f"game {record.id!r} has no seat {seat.value!r}")


def _game_strength(record: GameRecord) -> Strength:
    """The strength a stored engine game was created with (the pool caps its time)."""
    if record.seconds is not None:
        return Strength.from_seconds(record.seconds)
    return Strength.from_level(DEFAULT_LEVEL if record.level is None else record.level)
