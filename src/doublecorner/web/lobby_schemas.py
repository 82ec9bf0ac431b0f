"""The JSON bodies of the lobby, challenges, the watch list and profiles (docs/web-api.md).

Requests refuse unknown fields and take strict types, as every request of
the API does (:mod:`~doublecorner.web.schemas`). A player is shown by name
and rating, with ``provisional`` set while the rating is not yet sure (the
page writes ``1500?``).

>>> from doublecorner.web.account_record import AccountRecord
>>> ann = AccountRecord(id=1, username="Ann", created="", password_hash="")
>>> PlayerBody.of_account(ann).model_dump()
{'name': 'Ann', 'rating': 1500.0, 'provisional': True}
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from doublecorner.ratings import Rating
from doublecorner.web.account_record import AccountRecord
from doublecorner.web.accounts import utc_text
from doublecorner.web.challenges import Challenge
from doublecorner.web.profiles import Profile
from doublecorner.web.record import GameRecord, PlayerRating
from doublecorner.web.schemas import MAX_USERNAME_TEXT, PlayedGameSummary, RatingBody, StrictFloat
from doublecorner.web.seeks import ColorChoice, Seek
from doublecorner.web.watch import WatchedGame

# -- requests ----------------------------------------------------------------


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt option is an error


class SeekRequest(_Request):
    """A seek: the time control, rated or casual, and the author's colour."""

    minutes: StrictFloat = Field(gt=0, le=180, description="each side's time")
    increment: StrictFloat = Field(0.0, ge=0, le=60, description="seconds added a move")
    rated: StrictBool = Field(False, description="the end changes both players' ratings")
    color: ColorChoice = Field(ColorChoice.RANDOM, description="the side the author plays")


class ChallengeRequest(SeekRequest):
    """A challenge to the account named ``username``."""

    username: StrictStr = Field(max_length=MAX_USERNAME_TEXT)


# -- answers -----------------------------------------------------------------


class PlayerBody(BaseModel):
    """A player as lists show them: the name and the rating (``null``: no account)."""

    name: str
    rating: float | None = Field(description="Glicko-2; null for a player without an account")
    provisional: bool = Field(description="the rating is not yet sure (deviation above 110)")

    @classmethod
    def of_account(cls, account: AccountRecord) -> PlayerBody:
        return cls.of_rating(account.username, account.rating)

    @classmethod
    def of_rating(cls, name: str, rating: Rating | None) -> PlayerBody:
        return cls(name=name, rating=None if rating is None else rating.rating,
                   provisional=rating is not None and rating.is_provisional)


class SeekBody(BaseModel):
    """An open seek of the lobby."""

    id: str
    author: PlayerBody
    minutes: float
    increment: float
    rated: bool
    color: ColorChoice = Field(description="the side the author plays")
    created: str

    @classmethod
    def of(cls, seek: Seek) -> SeekBody:
        return cls(id=seek.id, author=PlayerBody.of_account(seek.author), minutes=seek.minutes,
                   increment=seek.increment, rated=seek.rated, color=seek.color,
                   created=seek.created)


class SeekList(BaseModel):
    seeks: list[SeekBody] = Field(description="oldest first")


class ChallengeBody(BaseModel):
    """An open challenge, as its two players see it."""

    id: str
    challenger: PlayerBody
    challenged: PlayerBody
    minutes: float
    increment: float
    rated: bool
    color: ColorChoice = Field(description="the side the challenger plays")
    expires: str

    @classmethod
    def of(cls, challenge: Challenge) -> ChallengeBody:
        return cls(id=challenge.id, challenger=PlayerBody.of_account(challenge.challenger),
                   challenged=PlayerBody.of_account(challenge.challenged),
                   minutes=challenge.minutes, increment=challenge.increment,
                   rated=challenge.rated, color=challenge.color,
                   expires=utc_text(challenge.expires))


class ChallengeList(BaseModel):
    challenges: list[ChallengeBody] = Field(description="made by the account or to it, "
                                                        "oldest first")


class TimeControlBody(BaseModel):
    minutes: float
    increment: float


def _players(record: GameRecord) -> tuple[PlayerBody, PlayerBody]:
    ratings = record.ratings

    def before(rating: PlayerRating | None) -> Rating | None:
        return None if rating is None else rating.before

    return (PlayerBody.of_rating(record.black, None if ratings is None else before(ratings.black)),
            PlayerBody.of_rating(record.white, None if ratings is None else before(ratings.white)))


class WatchedGameBody(BaseModel):
    """A game in progress that anyone may watch."""

    id: str
    black: PlayerBody
    white: PlayerBody
    rated: bool
    clock: TimeControlBody | None
    ply: int
    spectators: int = Field(description="streams following it without a seat")
    updated: str

    @classmethod
    def of(cls, watched: WatchedGame) -> WatchedGameBody:
        record = watched.state.record
        black, white = _players(record)
        clock = record.clock
        return cls(id=record.id, black=black, white=white, rated=record.rated,
                   clock=None if clock is None else TimeControlBody(
                       minutes=clock.initial / 60.0, increment=clock.increment),
                   ply=len(record.moves), spectators=watched.spectators, updated=record.updated)


class WatchListBody(BaseModel):
    games: list[WatchedGameBody] = Field(description="rated first, then by the players' "
                                                     "average rating")


class HistoryPoint(BaseModel):
    """A rated game of a player's history: the rating after it."""

    game: str
    played: str = Field(description="when the game ended")
    rating: float
    deviation: float
    provisional: bool
    before: float = Field(description="the rating before the game")
    opponent: str
    score: float = Field(description="1 a win, 0.5 a draw, 0 a loss")


class ProfileBody(BaseModel):
    """A player's public page."""

    username: str
    created: str
    rating: RatingBody
    wins: int
    draws: int
    losses: int
    games: int = Field(description="public games between two people that the player holds "
                                   "a seat in (GET /api/users/{username}/games)")
    history: list[HistoryPoint] = Field(description="the last 500 rated games, oldest first")

    @classmethod
    def of(cls, profile: Profile) -> ProfileBody:
        account, results = profile.account, profile.results
        return cls(
            username=account.username, created=account.created,
            rating=RatingBody.of(account.rating), wins=results.wins, draws=results.draws,
            losses=results.losses, games=profile.games,
            history=[HistoryPoint(game=change.game_id, played=change.played,
                                  rating=change.after.rating,
                                  deviation=change.after.deviation,
                                  provisional=change.after.is_provisional,
                                  before=change.before.rating,
                                  opponent=profile.opponents.get(change.opponent_id, "?"),
                                  score=change.score)
                     for change in profile.history])


class ProfileGames(BaseModel):
    games: list[PlayedGameSummary] = Field(description="newest first")
    total: int = Field(description="how many games the player has in all")
