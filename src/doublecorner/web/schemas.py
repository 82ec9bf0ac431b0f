"""The JSON bodies of the web API (see ``docs/web-api.md``), as pydantic models.

FastAPI checks requests against these models and builds the OpenAPI schema
(``/openapi.json``) from them. Request models refuse unknown fields, so that
a misspelt option is an error rather than silently ignored.

>>> body = GameBody.of(GameState.of(GameRecord(
...     id="g_1", mode=GameMode.ANALYSIS, created="", updated="", black="?", white="?",
...     start_fen="W:W18:B14")))
>>> body.turn, [move.move for move in body.legal_moves], body.must_capture
('white', ['18x9'], [18])
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from doublecorner.color import Color
from doublecorner.db import Exploration, StoredGame
from doublecorner.errors import (
    AmbiguousMoveError,
    DraughtsError,
    EngineError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidSquareError,
    PdnError,
)
from doublecorner.ratings import Rating
from doublecorner.web.account_record import AccountRecord, SessionRecord
from doublecorner.web.accounts import (
    InvalidPasswordError,
    InvalidUsernameError,
    NotSignedInError,
    SessionNotFoundError,
    SignInError,
    SignInLimitError,
    WrongPasswordError,
    utc_text,
)
from doublecorner.web.asgi_errors import code_for_status
from doublecorner.web.explorer import ExplorerNotFoundError, ExplorerReadError
from doublecorner.web.fair_play import FairPlayError
from doublecorner.web.game_clock import time_left
from doublecorner.web.games import (
    DrawAction,
    GameForbiddenError,
    GameLimitError,
    GameNotFoundError,
    GameRequestError,
    GameStateError,
    RematchAction,
    TakebackAction,
)
from doublecorner.web.record import GameMode, GameRecord, PlayerRating
from doublecorner.web.review import (
    GameInProgressError,
    Review,
    ReviewLimitError,
    ReviewNotFoundError,
    ReviewStatus,
)
from doublecorner.web.state import GameState, claimable_draw
from doublecorner.web.store import StoreError, UsernameTakenError
from doublecorner.web.tokens import Seat

Side = Literal["black", "white"]
MAX_MOVE_TEXT = 200  # a path of 9 jumps is 27 characters; more is not a move
MAX_FEN_TEXT = 200  # 24 pieces with K marks and commas fit in about 100
MAX_ANALYSIS_MOVES = 2000  # plies; real games end long before
MAX_USERNAME_TEXT = 100  # a username is at most 20 characters; this bounds what is tried
MAX_GAME_ID_TEXT = 100  # a game id is 18 characters


def side_name(color: Color) -> Side:
    """``"black"`` or ``"white"``."""
    return "black" if color is Color.BLACK else "white"


def side_color(side: Side | None) -> Color | None:
    """The :class:`Color` of ``"black"`` or ``"white"``."""
    return None if side is None else Color[side.upper()]


class _Request(BaseModel):
    # Each field is strict (no "6" or true for a number); enums still read their values.
    model_config = ConfigDict(extra="forbid")


StrictFloat = Annotated[float, Field(strict=True)]  # an int is a float; a bool or text is not


# -- requests ----------------------------------------------------------------


class ClockRequest(_Request):
    """A friend game's clock: minutes for each side, seconds added after each move."""

    minutes: StrictFloat = Field(gt=0, le=180)
    increment: StrictFloat = Field(0.0, ge=0, le=60)


class NewGameRequest(_Request):
    """A new game; ``level`` and ``seconds`` are for engine mode only, ``clock`` for friend
    mode."""

    mode: GameMode
    human: Side | None = Field(None, description="the human's side in engine mode, the "
                                                 "creator's in friend mode (default: black)")
    level: StrictInt | None = Field(None, ge=1, le=10, description="engine level "
                                                                   "(default: 6)")
    seconds: StrictFloat | None = Field(None, gt=0, description="engine seconds per move, "
                                                                "instead of a level")
    fen: StrictStr | None = Field(None, max_length=MAX_FEN_TEXT,
                                  description="start position (default: the start)")
    private: StrictBool = Field(False, description="shown only to the holders of its tokens")
    clock: ClockRequest | None = Field(None, description="friend mode: a clock for each side")


class MoveRequest(_Request):
    """A move in full (``9x18x27``) or short (``9x27``) form."""

    move: StrictStr = Field(max_length=MAX_MOVE_TEXT, examples=["11-15"])


class ResignRequest(_Request):
    """Who resigns: may be left out (the side of the token); if given, the token's side."""

    side: Side | None = None


class TakebackRequest(_Request):
    """Friend games: ask to take back one's last move, or answer the other's request."""

    action: TakebackAction = TakebackAction.ASK


class JoinRequest(_Request):
    """The secret of a friend game's invite link."""

    secret: StrictStr = Field(max_length=100)


class DrawRequest(_Request):
    """A draw offer, or the answer to one."""

    side: Side | None = Field(None, description="who acts: may be left out (the side of "
                                                "the token); if given, the token's side")
    action: DrawAction


class RematchRequest(_Request):
    """A rematch offer, or the answer to one."""

    action: RematchAction = RematchAction.OFFER


class ImportRequest(_Request):
    """A PDN text of one game or more."""

    pdn: StrictStr


# -- answers -----------------------------------------------------------------


class LevelSetting(BaseModel):
    level: int


class SecondsSetting(BaseModel):
    seconds: float


class LegalMove(BaseModel):
    move: str = Field(description="the full path, e.g. 9x18x27")
    path: list[int]
    captures: list[int] = Field(description="the squares of the pieces jumped")


class LastMove(BaseModel):
    move: str
    path: list[int]


class Outcome(BaseModel):
    result: Literal["1-0", "0-1", "1/2-1/2"]
    reason: Literal["no legal moves", "threefold repetition", "forty-move rule",
                    "resignation", "draw agreed", "time forfeit", "abandonment"]
    winner: Side | None


class ClockBody(BaseModel):
    initial: float = Field(description="seconds each side started with")
    increment: float = Field(description="seconds added after each move")
    black: float = Field(description="Black's seconds left, now")
    white: float = Field(description="White's seconds left, now")
    running: Side | None = Field(description="the side whose time runs (null before the "
                                             "first move and after the end)")


class RatingBody(BaseModel):
    """A Glicko-2 rating."""

    rating: float
    deviation: float = Field(description="RD: how unsure the rating is")
    provisional: bool = Field(description="the deviation is above 110: shown with a '?'")

    @classmethod
    def of(cls, rating: Rating) -> RatingBody:
        return cls(rating=rating.rating, deviation=rating.deviation,
                   provisional=rating.is_provisional)


class PlayerRatingBody(RatingBody):
    """A player's rating at the start of the game, and after it once a rated game ends."""

    after: RatingBody | None = Field(description="after the game: set once a rated game "
                                                 "has ended and been rated")

    @classmethod
    def of_player(cls, rating: PlayerRating | None) -> PlayerRatingBody | None:
        if rating is None:
            return None
        before = RatingBody.of(rating.before)
        return cls(**before.model_dump(),
                   after=None if rating.after is None else RatingBody.of(rating.after))


class GameRatingsBody(BaseModel):
    """The ratings of a game's players (``null``: a player without an account)."""

    black: PlayerRatingBody | None
    white: PlayerRatingBody | None


class InviteBody(BaseModel):
    secret: str = Field(description="for POST /api/games/{id}/join")
    path: str = Field(description="the page's invite link, after the server's address")


class EngineReplyBody(BaseModel):
    move: str
    score: str = Field(description="for the engine: +0.25, -1.00, win in 13, loss in 7")
    depth: int
    book: bool = Field(default=False, description="the move came from the server's opening "
                                                  "book (serve --book): no search, depth 0")


class _GameHeading(BaseModel):
    """What a game and its line in a list both show, in this order."""

    id: str
    mode: GameMode
    created: str
    updated: str
    black: str
    white: str

    @staticmethod
    def heading(record: GameRecord) -> dict[str, Any]:
        """The heading fields of ``record``."""
        return {"id": record.id, "mode": record.mode, "created": record.created,
                "updated": record.updated, "black": record.black, "white": record.white}


class GameBody(_GameHeading):
    """A game as the page shows it."""

    human: Side | None
    engine: LevelSetting | SecondsSetting | None
    start_fen: str
    moves: list[str]
    ply: int
    fen: str
    turn: Side
    legal_moves: list[LegalMove] = Field(description="empty once the game is over")
    must_capture: list[int] = Field(description="squares of the pieces that can capture")
    last_move: LastMove | None
    outcome: Outcome | None
    draw_offer: Side | None
    can_claim_draw: bool = Field(description="the side to move may claim a draw by threefold "
                                             "repetition or the 40-move rule (POST "
                                             "/api/games/{id}/claim-draw)")
    engine_reply: EngineReplyBody | None
    private: bool
    takeback_request: Side | None = Field(description="friend mode: the side asking to take "
                                                      "back its last move")
    clock: ClockBody | None
    invite: InviteBody | None = Field(None, description="only in the answer that creates a "
                                                        "friend game: the one-time invite")
    tokens: dict[str, str] | None = Field(
        None, description="only in the answer that creates the game (or imports it): the "
                          "token of each seat the creator holds, by seat (black, white, owner)")
    rated: bool = Field(False, description="its end changes both players' ratings")
    ratings: GameRatingsBody | None = Field(
        None, description="the players' ratings (a game between accounts from the lobby, a "
                          "challenge or a rematch)")
    rematch_offer: Side | None = Field(None, description="the side offering a rematch of "
                                                         "the finished game")
    rematch: str | None = Field(None, description="the id of the rematch, once it was made")
    seats: list[Side] | None = Field(
        None, description="in GET /api/games/{id} and the answers that start a game between "
                          "accounts, with a session: the seats the signed-in account holds")

    @classmethod
    def of(cls, state: GameState, *, seats: list[Seat] | None = None) -> GameBody:
        """The body of a game (``seats``: those the request's account holds, to say so)."""
        record, board, ending = state.record, state.board, state.ending
        legal = [] if ending is not None else sorted(board.legal_moves, key=lambda m: m.path)
        engine: LevelSetting | SecondsSetting | None = None
        if record.mode is GameMode.ENGINE:
            engine = (SecondsSetting(seconds=record.seconds) if record.seconds is not None
                      else LevelSetting(level=record.level or 0))
        last = board.move_stack[-1] if board.move_stack else None
        reply = state.engine_reply
        return cls(
            **cls.heading(record),
            human=None if record.human is None else side_name(record.human),
            engine=engine, start_fen=record.start_fen, moves=list(record.moves),
            ply=len(record.moves), fen=board.fen(), turn=side_name(board.turn),
            legal_moves=[LegalMove(move=str(move), path=list(move.path),
                                   captures=list(move.captures)) for move in legal],
            must_capture=sorted({move.path[0] for move in legal if move.is_capture}),
            last_move=None if last is None else LastMove(move=str(last), path=list(last.path)),
            outcome=None if ending is None else Outcome.model_validate({
                "result": ending.result, "reason": ending.reason,
                "winner": None if ending.winner is None else side_name(ending.winner)}),
            draw_offer=None if record.draw_offer is None else side_name(record.draw_offer),
            can_claim_draw=ending is None and claimable_draw(record, board) is not None,
            engine_reply=None if reply is None else EngineReplyBody(
                move=str(reply.move), score=str(reply.score), depth=reply.depth,
                book=reply.is_book),
            private=record.private,
            takeback_request=None if record.takeback_request is None
            else side_name(record.takeback_request),
            clock=_clock_body(state),
            invite=None if state.invite is None else InviteBody(
                secret=state.invite, path=f"/#join={record.id}.{state.invite}"),
            tokens=None if state.tokens is None else dict(state.tokens),
            rated=record.rated,
            ratings=None if record.ratings is None else GameRatingsBody(
                black=PlayerRatingBody.of_player(record.ratings.black),
                white=PlayerRatingBody.of_player(record.ratings.white)),
            rematch_offer=None if record.rematch_offer is None
            else side_name(record.rematch_offer),
            rematch=record.rematch,
            seats=None if seats is None else [side_name(seat.color) for seat in seats
                                              if seat.color is not None])


def _clock_body(state: GameState) -> ClockBody | None:
    clock = state.record.clock
    if clock is None:
        return None
    now = time.time()
    turn = state.board.turn
    running = clock.since is not None and state.ending is None
    if state.ending is not None and clock.since is not None:
        # The clock stops at the end; a flag fall leaves the loser at zero.
        return ClockBody(initial=clock.initial, increment=clock.increment,
                         black=time_left(clock, Color.BLACK, turn=turn, now=now)
                         if turn is Color.BLACK and state.ending.reason == "time forfeit"
                         else clock.black,
                         white=time_left(clock, Color.WHITE, turn=turn, now=now)
                         if turn is Color.WHITE and state.ending.reason == "time forfeit"
                         else clock.white, running=None)
    return ClockBody(initial=clock.initial, increment=clock.increment,
                     black=time_left(clock, Color.BLACK, turn=turn, now=now),
                     white=time_left(clock, Color.WHITE, turn=turn, now=now),
                     running=side_name(turn) if running else None)


class GameSummary(_GameHeading):
    ply: int
    result: str = Field(description="1-0, 0-1, 1/2-1/2, or * while the game goes on")

    @classmethod
    def of(cls, record: GameRecord) -> GameSummary:
        """The summary of a game in a list."""
        return cls(**cls.heading(record), ply=len(record.moves), result=record.result)


class PlayedGameSummary(GameSummary):
    """A game of a player's profile: a summary, whether it was rated, and the ratings."""

    rated: bool
    ratings: GameRatingsBody | None

    @classmethod
    def of_played(cls, record: GameRecord) -> PlayedGameSummary:
        return cls(**GameSummary.of(record).model_dump(), rated=record.rated,
                   ratings=None if record.ratings is None else GameRatingsBody(
                       black=PlayerRatingBody.of_player(record.ratings.black),
                       white=PlayerRatingBody.of_player(record.ratings.white)))


class GameList(BaseModel):
    games: list[GameSummary]


class ImportAnswer(BaseModel):
    games: list[GameBody]
    errors: list[str] = Field(description="what the reader found wrong: 'line L, column C: ...'")


# The code of each kind of error the service raises (docs/web-api.md, "Error codes"); the
# most specific class wins, and a kind without one takes its status's code.
ERROR_CODES: dict[type[Exception], str] = {
    DraughtsError: "invalid_input",
    IllegalMoveError: "illegal_move",
    AmbiguousMoveError: "ambiguous_move",
    InvalidMoveError: "invalid_move",
    InvalidSquareError: "invalid_square",
    InvalidFenError: "invalid_fen",
    InvalidPositionError: "invalid_position",
    PdnError: "invalid_pdn",
    EngineError: "engine_unavailable",
    GameRequestError: "bad_request",
    GameForbiddenError: "not_your_seat",
    GameNotFoundError: "game_not_found",
    GameStateError: "not_allowed_now",
    GameLimitError: "too_many_games",
    StoreError: "store_error",
    ExplorerNotFoundError: "games_db_not_found",
    ExplorerReadError: "games_db_error",
    InvalidUsernameError: "invalid_username",
    InvalidPasswordError: "invalid_password",
    SignInError: "wrong_credentials",  # an unknown name and a wrong password alike
    NotSignedInError: "not_signed_in",
    WrongPasswordError: "wrong_password",
    SessionNotFoundError: "session_not_found",
    UsernameTakenError: "username_taken",
    SignInLimitError: "too_many_attempts",
    FairPlayError: "fair_play",
    GameInProgressError: "game_in_progress",
    ReviewLimitError: "too_many_reviews",
    ReviewNotFoundError: "review_not_found",
}


class ErrorBody(BaseModel):
    """An error: its English text, its code, and for a refused move why, in parts a page can
    word its own way."""

    error: str = Field(description="one line naming the input that was refused")
    code: str = Field(description="what kind of error, in a word that stays the same, for a "
                                  "client to say it in its own language ('illegal_move')")
    reason: str | None = Field(
        default=None, description="an illegal move: why in a few words, without the position "
                                  "('a capture is compulsory'), or ''")
    legal_moves: list[str] | None = Field(
        default=None, description="an illegal move: the moves that are legal in the position")
    routes: list[str] | None = Field(
        default=None, description="an ambiguous short move ('9x27'): the capture routes it "
                                  "could be")

    @classmethod
    def of(cls, error: Exception | str, *, status: int) -> dict[str, Any]:
        """The JSON body for ``error`` (an exception, or the text of an error that is none of
        the service's), answered with ``status``: its code (its own ``code`` attribute where
        it has one, else by its class, else by ``status``) and the parts of a refused move
        where it has them.

        >>> ErrorBody.of(IllegalMoveError("illegal move ...", reason="a capture is compulsory",
        ...                               legal_moves=("15x22",)), status=400)
        {'error': 'illegal move ...', 'code': 'illegal_move', 'reason': 'a capture is compulsory', \
'legal_moves': ['15x22']}
        >>> ErrorBody.of("no such page", status=404)
        {'error': 'no such page', 'code': 'not_found'}
        >>> class TwoCasesError(ValueError):  # a class whose cases a client tells apart
        ...     code = "second_case"
        >>> ErrorBody.of(TwoCasesError("the second case"), status=400)["code"]
        'second_case'
        """
        own = getattr(error, "code", None)  # an error class that tells its cases apart
        code = own if isinstance(own, str) else next(
            (ERROR_CODES[kind] for kind in type(error).__mro__ if kind in ERROR_CODES),
            code_for_status(status))
        body = cls(error=str(error), code=code)
        if isinstance(error, IllegalMoveError):
            body.reason, body.legal_moves = error.reason, list(error.legal_moves)
        elif isinstance(error, AmbiguousMoveError):
            body.routes = list(error.routes)
        return body.model_dump(exclude_none=True)


class Health(BaseModel):
    ok: bool


# -- accounts and sessions ----------------------------------------------------

_PASSWORD = "8 to 256 characters"


class Credentials(_Request):
    """A username and a password: to sign up, or to sign in."""

    username: StrictStr = Field(max_length=MAX_USERNAME_TEXT,
                                description="3 to 20 of A-Z a-z 0-9 _ -, unique ignoring case")
    password: StrictStr = Field(description=_PASSWORD)


class PasswordChangeRequest(_Request):
    """The account's password now, and the new one."""

    current: StrictStr
    new: StrictStr = Field(description=_PASSWORD)


class PasswordChanged(BaseModel):
    ended_sessions: int = Field(description="the account's other sessions, now ended")


class AccountDeletion(_Request):
    """The account's password, to confirm its deletion."""

    password: StrictStr


class AccountBody(BaseModel):
    """The signed-in account."""

    username: str = Field(description="as typed at sign-up")
    created: str

    @classmethod
    def of(cls, account: AccountRecord) -> AccountBody:
        return cls(username=account.username, created=account.created)


class SignInAnswer(AccountBody):
    """The account just signed in (or up), and what it took over from the tokens sent."""

    claimed_games: int = Field(description="games whose seats, held by the tokens sent in "
                                           "Authorization, became the account's")


class SessionBody(BaseModel):
    """One signed-in browser of the account."""

    id: str = Field(description="for DELETE /api/account/sessions/{id}")
    created: str
    last_seen: str = Field(description="written at most every 5 minutes")
    user_agent: str
    address: str
    current: bool = Field(description="the session of this request")

    @classmethod
    def of(cls, session: SessionRecord, *, current: str) -> SessionBody:
        return cls(id=session.id, created=utc_text(session.created),
                   last_seen=utc_text(session.last_seen), user_agent=session.user_agent,
                   address=session.address, current=session.id == current)


class SessionList(BaseModel):
    sessions: list[SessionBody] = Field(description="the last used first")


# -- the analysis stream ------------------------------------------------------


class AnalysisRequest(_Request):
    """A message from the client on ``/api/analysis``."""

    action: Literal["start", "stop"]
    fen: StrictStr | None = Field(None, max_length=MAX_FEN_TEXT)
    moves: list[Annotated[StrictStr, Field(max_length=MAX_MOVE_TEXT)]] = Field(
        default_factory=list, max_length=MAX_ANALYSIS_MOVES)
    game: StrictStr | None = Field(None, max_length=MAX_GAME_ID_TEXT,
                                   description="the game whose position it is, if any (a game "
                                               "between people that goes on is refused)")


# -- reviews and notes ------------------------------------------------------------


class ReviewScore(BaseModel):
    """A position's score from Black's side."""

    ply: int = Field(description="moves played before it (0: the start)")
    score: str = Field(description="+0.25, -1.00, win in 13, loss in 7 (for Black)")
    black: float = Field(description="men for Black, clipped to -10..10 (a win: 10)")


class ReviewMove(BaseModel):
    """A move of the game as the review judged it."""

    ply: int
    move: str
    side: Side
    score: str = Field(description="the score after the move, from Black's side")
    best: str | None = Field(description="the engine's move there")
    best_score: str = Field(description="the score the engine's move keeps, from Black's side")
    loss: int = Field(description="hundredths of a man the move gave away")
    judgement: Literal["inaccuracy", "mistake", "blunder"] | None
    mark: Literal["?!", "?", "??"] | None
    forced: bool = Field(description="the only legal move (never judged)")
    depth: int


class ReviewLimitBody(BaseModel):
    depth: int | None = Field(description="each search's depth, if fixed")
    seconds: float | None = Field(description="each search's time at most")


class ReviewBody(BaseModel):
    """A game's review: how far it got, and what it found."""

    game_id: str
    status: ReviewStatus
    positions: int = Field(description="positions to search: the moves and the start")
    searched: int = Field(description="positions searched so far")
    limit: ReviewLimitBody | None
    scores: list[ReviewScore] = Field(description="each position searched so far; final "
                                                  "once the review is done")
    moves: list[ReviewMove] = Field(description="every move, once the review is done")
    summary: dict[Side, dict[Literal["inaccuracy", "mistake", "blunder"], int]] | None = Field(
        description="the judgements counted per side, once the review is done")
    error: str | None = Field(description="why a failed review failed")

    @classmethod
    def of(cls, review: Review) -> ReviewBody:
        return cls.model_validate({
            "game_id": review.game_id, "status": review.status, "positions": review.positions,
            "searched": review.searched, "limit": review.limit, "scores": review.scores,
            "moves": review.moves, "summary": review.summary, "error": review.error})


class MoveNote(BaseModel):
    """A move of an imported game with its notes."""

    ply: int = Field(description="its place in the game (1: the first move)")
    move: str = Field(description="the full path, e.g. 9x18x27")
    fen: str = Field(description="the position after it")
    comment: str = Field(description="the comment after it")
    starting_comment: str = Field(description="the comment before it")
    nags: list[int] = Field(description="its NAGs: 1 !, 2 ?, 3 !!, 4 ??, 5 !?, 6 ?!, ...")
    variations: list[list[MoveNote]] = Field(description="the lines played instead of it")


class NotesBody(BaseModel):
    """The comments, NAGs and variations an imported game keeps, on its main line."""

    comment: str = Field(description="the comment before the first move")
    moves: list[MoveNote] = Field(description="the moves of the main line that have notes")


# -- the game database's explorer ----------------------------------------------


class ExploreMove(BaseModel):
    """A move played in the explored position, and how its games ended."""

    move: str = Field(description="as PDN writes it there: 11-15, 9x27")
    games: int
    black_wins: int
    draws: int
    white_wins: int


class StoredGameSummary(BaseModel):
    """A game of the game database, as lists show it."""

    id: int
    black: str
    white: str
    event: str
    date: str = Field(description="as tagged: 2026.11.30, 1990.??.??, ?")
    result: str = Field(description="1-0 (Black won), 0-1, 1/2-1/2 or *")


class ExploreAnswer(BaseModel):
    """What ``db explore --json`` prints: the games that reached a position, and its moves."""

    fen: str
    games: int = Field(description="games that reached the position, by any order of moves")
    moves: list[ExploreMove] = Field(description="most played first")
    top_games: list[StoredGameSummary] = Field(description="the newest games that reached it")

    @classmethod
    def of(cls, found: Exploration) -> ExploreAnswer:
        return cls.model_validate(found.to_json())


class StoredGameBody(BaseModel):
    """A game of the game database: its tags, start, main line, and PDN."""

    id: int
    tags: dict[str, str] = Field(description="every tag, in the file's order")
    start_fen: str
    moves: list[str] = Field(description="the main line, full paths (9x18x27)")
    result: str
    pdn: str = Field(description="the whole game, with any comments and variations")
    faults: list[str] = Field(description="what the reader found wrong in its file: the "
                                          "game was imported up to the first")

    @classmethod
    def of(cls, game: StoredGame) -> StoredGameBody:
        return cls(id=game.id, tags=game.tags, start_fen=game.start_fen,
                   moves=list(game.moves), result=game.tags.get("Result", "*"),
                   pdn=game.pdn, faults=list(game.faults))
