"""Which games change ratings, and by how much: the web's policy over :mod:`doublecorner.ratings`.

A rated game is one between two accounts that was made rated (a rated seek,
challenge, or the rematch of a rated game). When it ends, however it ends (a
win on the board, a resignation, an agreed or claimed draw, a time forfeit,
an abandonment), both players are rated as one Glicko-2 rating period of that
one game (:func:`doublecorner.ratings.rate_game`): Black scores 1 for a win,
0.5 for a draw and 0 for a loss, White the rest. The store writes the new
ratings with the game's end, once per game (:meth:`GameStore.update_rated`).
The arithmetic is all in :mod:`doublecorner.ratings`; nothing here computes a
rating.

A rating is *provisional* while its deviation is above
:data:`~doublecorner.ratings.PROVISIONAL_DEVIATION` (110): it is shown with a
``?`` (``1500?``).

>>> from doublecorner.ratings import Rating
>>> rate = rating_update(GameEnding("1-0", "resignation", Color.BLACK))
>>> black, white = rate(Rating(), Rating())
>>> rating_text(black), rating_text(white), rating_text(Rating(1712.4, 60))
('1662?', '1338?', '1712')
"""

from __future__ import annotations

from doublecorner.color import Color
from doublecorner.ratings import Rating, rate_game
from doublecorner.web.account_record import AccountRecord
from doublecorner.web.record import GameRatings, PlayerRating
from doublecorner.web.state import GameEnding
from doublecorner.web.store import RateGame


def black_score(ending: GameEnding) -> float:
    """Black's score in a game that ended so: 1 a win, 0.5 a draw, 0 a loss."""
    if ending.winner is None:
        return 0.5
    return 1.0 if ending.winner is Color.BLACK else 0.0


def rating_update(ending: GameEnding) -> RateGame:
    """The update of both players' ratings (Black's, White's) after a game that ended so."""
    score = black_score(ending)

    def rate(black: Rating, white: Rating) -> tuple[Rating, Rating]:
        return rate_game(black, white, score)

    return rate


def starting_ratings(black: AccountRecord | None, white: AccountRecord | None
                     ) -> GameRatings | None:
    """The ratings a game between these players shows beside their names (``None``: a
    player without an account shows none)."""
    if black is None and white is None:
        return None
    return GameRatings(None if black is None else PlayerRating(black.rating),
                       None if white is None else PlayerRating(white.rating))


def rating_text(rating: Rating) -> str:
    """A rating as people read it: whole points, ``?`` when provisional."""
    return f"{rating.rating:.0f}{'?' if rating.is_provisional else ''}"
