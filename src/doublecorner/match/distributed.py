"""Play a match's games on a Ray cluster: one task per game.

The same match as :func:`~doublecorner.match.arena.run_match`, spread over
the cores of a Ray cluster (``doublecorner match ... --ray [ADDRESS]``). Each
task builds its own pair of players from their specs, plays one game and
returns its record; the caller gets each record as its game finishes (to
journal it), so nothing finished is lost when the match stops. A task whose
worker dies (a node lost, a process killed) is run again by Ray, up to
:data:`doublecorner.distributed.MAX_RETRIES` times. Fixed-depth games give the same records as a
local run.

Ray is an optional dependency (``pip install '.[ray]'``), imported
only when a match runs on it. Without an address, Ray joins the cluster that
``RAY_ADDRESS`` or a ``ray start`` on this machine names, else starts one
here for the match. To use a cluster, install doublecorner (with the same
version of Ray and Python) on every node, start the head node with
``ray start --head`` and each other node with ``ray start --address=HEAD:6379``,
then run the match on any node with ``--ray HEAD:6379`` (or ``--ray auto``),
or from outside the cluster with ``--ray ray://HEAD:10001`` (Ray Client).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

from doublecorner.distributed import run_on_ray, task_tables
from doublecorner.engine import Limit
from doublecorner.match.arena import GameRecord, play_game
from doublecorner.match.ballots import Ballot
from doublecorner.match.clock import GameClock
from doublecorner.match.players import ExternalEngine, Player, parse_player

PlayerBuilder = Callable[..., Player]


def run_match_on_ray(first_spec: str, second_spec: str, ballots: Sequence[Ballot], *,
                     default_limit: Limit, movetime: float,
                     engines: Mapping[str, ExternalEngine] | None = None,
                     address: str | None = None, skip: Collection[int] = (),
                     on_game: Callable[[GameRecord], None] | None = None,
                     egtb_dir: Path | str | None = None,
                     build: PlayerBuilder = parse_player,
                     stop: threading.Event | None = None,
                     clock: GameClock | None = None) -> list[GameRecord]:
    """Play every ballot twice, colours reversed, one Ray task per game.

    Games are numbered as :func:`~doublecorner.match.arena.run_match` numbers
    them, and those in ``skip`` are not played. Each task builds its players
    with ``build(spec, default_limit=, movetime=, engines=)`` (by default
    :func:`~doublecorner.match.players.parse_player`; it must pickle) and,
    with ``egtb_dir``, loads the endgame tables there to adjudicate; ``clock``
    times the games (see :func:`~doublecorner.match.arena.play_game`). Ray is
    started (``address`` None: here, or the cluster ``RAY_ADDRESS`` names) or
    joined (``address``) unless it already runs in this process; a Ray
    started here is shut down at the end. ``on_game`` is called in the
    calling thread as each game finishes. Once ``stop`` is set (by
    ``on_game``, say, when a test has decided the match) the games not yet
    finished are cancelled, those running included. Returns the finished
    games in their order.

    :raises ImportError: Ray is not installed.
    :raises DraughtsError: a task failed (a bad spec, say), re-raised as Ray's
        task error, which is also an instance of the original error's class.
    """
    jobs = [(number, ballot, first_is_black)
            for index, ballot in enumerate(ballots)
            for number, first_is_black in ((2 * index + 1, True), (2 * index + 2, False))
            if number not in skip]
    if stop is not None and stop.is_set():
        return []
    tables = None if egtb_dir is None else str(egtb_dir)
    engine_map = dict(engines or {})
    records: list[GameRecord] = []

    def finished(record: GameRecord) -> None:
        records.append(record)
        if on_game is not None:
            on_game(record)
        if stop is not None and stop.is_set():
            raise _Stopped  # run_on_ray cancels the tasks left when its callback raises

    with contextlib.suppress(_Stopped):
        run_on_ray(_play_one, [(first_spec, second_spec, ballot, number, first_is_black,
                                default_limit, movetime, engine_map, tables, build, clock)
                               for number, ballot, first_is_black in jobs],
                   address=address, on_result=finished)
    return sorted(records, key=lambda one: one.number)


class _Stopped(Exception):
    """Leaves the Ray loop from its callback once ``stop`` is set."""


def _play_one(first_spec: str, second_spec: str, ballot: Ballot, number: int,
              first_is_black: bool, default_limit: Limit, movetime: float,
              engines: dict[str, ExternalEngine], egtb_dir: str | None,
              build: PlayerBuilder, clock: GameClock | None = None) -> GameRecord:
    """Build the two players, play game ``number`` and close them (one Ray task)."""
    tables = task_tables(egtb_dir)
    options = {"default_limit": default_limit, "movetime": movetime, "engines": engines}
    first = build(first_spec, **options)
    try:
        second = build(second_spec, **options)
    except BaseException:
        first.close()
        raise
    try:
        black, white = (first, second) if first_is_black else (second, first)
        return play_game(black, white, ballot, number=number,
                         first_is_black=first_is_black, seed=number, tables=tables,
                         clock=clock)
    finally:
        first.close()
        second.close()
