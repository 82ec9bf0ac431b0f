"""Analyse a PDN archive's games on a Ray cluster: one task per game.

The same analysis as :func:`~doublecorner.analysis.game.analyse_game` run game
after game, spread over the cores of a Ray cluster (``doublecorner analyse
GAMES.pdn --ray [ADDRESS]``). Each task gets one game as PDN text (a
:class:`~doublecorner.pdn.Game` tree is larger to ship than its text), reads
it back, analyses it with an engine of its own (a fresh table, as
:func:`~doublecorner.analysis.game.analyse_game` starts every game with one) and
returns the analyses; the caller gets each result as its game finishes. A
task whose worker dies is run again by Ray (see :mod:`doublecorner.distributed`).
Fixed-depth analyses are the same as a local run's.

Ray is an optional dependency (``pip install '.[ray]'``), imported
only when games are analysed on it; clusters are addressed as for
:mod:`doublecorner.match.distributed`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from doublecorner.analysis.game import MoveAnalysis, analyse_game
from doublecorner.distributed import run_on_ray, task_tables
from doublecorner.engine import Engine, Limit
from doublecorner.engine.search import DEFAULT_EVALUATION
from doublecorner.errors import DraughtsError
from doublecorner.pdn import read_game


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """One game's result: its analyses, or why it could not be analysed.

    ``index`` is the game's place in the list given to :func:`analyse_games_on_ray`.
    """

    index: int
    analyses: tuple[MoveAnalysis, ...] = ()
    error: str | None = None


def analyse_games_on_ray(texts: Sequence[str], limit: Limit, *, hash_mb: int,
                         egtb_dir: Path | str | None = None, address: str | None = None,
                         evaluation: str = DEFAULT_EVALUATION, network: str | None = None,
                         on_game: Callable[[GameAnalysis], None] | None = None,
                         ) -> list[GameAnalysis]:
    """Analyse every game (PDN text, one game each), one Ray task per game.

    Each task searches with ``limit`` on an ``Engine(hash_mb=hash_mb,
    evaluation=evaluation, network=network)`` of its own, probing the endgame
    tables in ``egtb_dir`` if given (the tables, and a ``network`` file, must
    be at those paths on every node). A game that cannot be analysed (an invalid ``FEN``
    tag, say) gives a result with ``error`` set and does not stop the others.
    Ray is started (``address`` None: here, or the cluster ``RAY_ADDRESS``
    names) or joined (``address``) unless it already runs in this process; a
    Ray started here is shut down at the end. ``on_game`` is called in the
    calling thread as each game finishes. Returns the results in game order.

    :raises ImportError: Ray is not installed.
    """
    tables = None if egtb_dir is None else str(egtb_dir)
    if network is not None:
        network = str(Path(network).resolve())
    results = run_on_ray(_analyse_one, [(index, text, limit, hash_mb, tables, evaluation,
                                         network) for index, text in enumerate(texts)],
                         address=address, on_result=on_game)
    return sorted(results, key=lambda one: one.index)


def _analyse_one(index: int, text: str, limit: Limit, hash_mb: int, egtb_dir: str | None,
                 evaluation: str, network: str | None) -> GameAnalysis:
    """Read one game from its PDN text and analyse it (one Ray task)."""
    tables = task_tables(egtb_dir)
    game = read_game(io.StringIO(text))
    if game is None:
        return GameAnalysis(index, error="no game in the text sent")
    try:
        engine = Engine(hash_mb=hash_mb, tables=tables, evaluation=evaluation, network=network)
        return GameAnalysis(index, tuple(analyse_game(game, engine, limit)))
    except DraughtsError as error:
        return GameAnalysis(index, error=str(error))
