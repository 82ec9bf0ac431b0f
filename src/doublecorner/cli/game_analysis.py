"""``analyse FILE.pdn``: every game of a PDN file analysed, annotated, and plotted."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import itertools
import sys
from pathlib import Path
from typing import TextIO

from doublecorner.analysis import (
    SCORE_SIDE,
    MoveAnalysis,
    analyse_game,
    annotate,
    evaluation_plot,
    summary,
)
from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    counted,
    evaluation_from_arguments,
    ray_address,
)
from doublecorner.cli.search_options import (
    DEFAULT_GAME_SECONDS,
    egtb_directory_from_arguments,
    engine_from_arguments,
    limit_from_arguments,
)
from doublecorner.cli.streams import check_output_file
from doublecorner.engine import Engine, Limit
from doublecorner.errors import DraughtsError, quoted
from doublecorner.pdn import Game, iter_games

PROGRESS_EVERY = 10  # plies between two progress lines within a game


def analyse_pdn_file(arguments: argparse.Namespace) -> int:
    """Analyse, annotate and write every game; progress and summaries go to stderr."""
    path = Path(arguments.fen)
    if arguments.moves:
        raise UsageError("--moves applies to a FEN, not to a PDN file")
    if arguments.json:
        raise UsageError("--json applies to a FEN; a PDN file is analysed into PDN")
    if arguments.plot is not None and arguments.plot.suffix.lower() not in {".svg", ".png"}:
        raise UsageError(f"--plot must name an .svg or .png file, not {str(arguments.plot)!r}")
    if not path.exists():
        raise UsageError(f"no such PDN file: {quoted(str(path))}")
    if not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise UsageError(f"{quoted(str(path))} is {kind}, not a PDN file")
    _check_outputs(arguments)
    limit = limit_from_arguments(arguments, default_seconds=DEFAULT_GAME_SECONDS)
    if arguments.ray is not None:
        return _analyse_on_ray(path, limit, arguments, ray_address(arguments))
    engine = engine_from_arguments(arguments)
    output = _open_output(arguments)
    failures = count = 0
    # The games are read one at a time; the first two tell whether plots need numbers.
    games = iter_games(path)
    opening = list(itertools.islice(games, 2))
    several = len(opening) > 1
    try:
        for count, game in enumerate(itertools.chain(opening, games), start=1):
            failures += _analyse_one(game, count, several, engine, limit, arguments, output)
    finally:
        if arguments.output:
            output.close()
    return _finish(failures, count)


_PLURALS = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}


def summary_line(analyses: list[MoveAnalysis]) -> str:
    """What the analysis of one game found, in words, for stderr.

    >>> summary_line([])
    '0 plies analysed (scores for Black); Black: none; White: none'
    """
    plies = len(analyses)
    sides = []
    for side, kinds in summary(analyses).items():
        found = [counted(count, kind, _PLURALS[kind])
                 for kind, count in kinds.items() if count]
        sides.append(f"{side}: {', '.join(found) or 'none'}")
    return (f"{counted(plies, 'ply', 'plies')} analysed (scores for {SCORE_SIDE}); "
            + "; ".join(sides))


def _check_outputs(arguments: argparse.Namespace) -> None:
    """Check ``--output`` and ``--plot`` (and matplotlib for it) before any game is analysed.

    :raises UsageError: a path cannot be written, or matplotlib is missing.
    """
    if arguments.output is not None:
        check_output_file(arguments.output, "--output")
    if arguments.plot is not None:
        check_output_file(arguments.plot, "--plot")
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("--plot needs matplotlib: pip install '.[plot]' in doublecorner's "
                             "folder")


def _open_output(arguments: argparse.Namespace) -> TextIO:
    """The ``--output`` file opened for writing, else stdout.

    :raises UsageError: the file cannot be created.
    """
    if arguments.output is None:
        return sys.stdout
    try:
        return open(arguments.output, "w", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {quoted(str(arguments.output))}: "
                         f"{error.strerror or error}") from None


def _finish(failures: int, count: int) -> int:
    if failures:
        print(f"doublecorner: {failures} of {count} games could not be analysed",
              file=sys.stderr)
    return EXIT_FAILURE if failures else EXIT_OK


def _analyse_on_ray(path: Path, limit: Limit, arguments: argparse.Namespace,
                    address: str | None) -> int:
    """Analyse the games as Ray tasks; write them in file order as the earliest are done."""
    from doublecorner.analysis.distributed import GameAnalysis, analyse_games_on_ray

    games = list(iter_games(path))
    several = len(games) > 1
    done: dict[int, GameAnalysis] = {}  # finished, by place in the file, until written
    texts: list[str] = []
    sent: list[int] = []  # the place in the file of each text sent
    for index, game in enumerate(games):
        for error in game.errors:
            print(f"doublecorner: game {index + 1}: {error} (analysing the moves before it)",
                  file=sys.stderr)
        try:
            texts.append(str(game))
        except DraughtsError as error:  # an invalid FEN tag: nothing to send
            done[index] = GameAnalysis(index, error=str(error))
        else:
            sent.append(index)
    written = failures = finished = 0
    output = _open_output(arguments)

    def write_ready() -> None:
        nonlocal written, failures
        while written in done:  # the games in file order, each as soon as it can be
            ready = done.pop(written)
            written += 1
            if ready.error is not None:
                print(f"doublecorner: game {written}: cannot be analysed: {ready.error}",
                      file=sys.stderr)
                failures += 1
            else:
                _write_one(games[ready.index], written, several, list(ready.analyses),
                           arguments, output)

    def on_game(result: GameAnalysis) -> None:
        nonlocal finished
        index = sent[result.index]
        done[index] = dataclasses.replace(result, index=index)
        finished += 1
        print(f"game {index + 1}: analysed ({finished} of {len(texts)} games done)",
              file=sys.stderr, flush=True)
        write_ready()

    try:
        write_ready()
        analyse_games_on_ray(texts, limit, hash_mb=arguments.hash,
                             egtb_dir=egtb_directory_from_arguments(arguments),
                             **evaluation_from_arguments(arguments),
                             address=address,
                             on_game=on_game)
        write_ready()
    finally:
        if arguments.output:
            output.close()
    return _finish(failures, len(games))


def _analyse_one(game: Game, number: int, several: bool, engine: Engine, limit: Limit,
                 arguments: argparse.Namespace, output: TextIO) -> int:
    """Analyse one game and write it; 1 if it could not be analysed, else 0."""
    label = f"game {number}"
    for error in game.errors:
        print(f"doublecorner: {label}: {error} (analysing the moves before it)", file=sys.stderr)

    def progress(done: int, moves: int) -> None:
        if done % PROGRESS_EVERY == 0 or done == moves:
            print(f"{label}: {done}/{moves} moves analysed", file=sys.stderr, flush=True)

    try:
        analyses = analyse_game(game, engine, limit, on_move=progress)
    except DraughtsError as error:
        print(f"doublecorner: {label}: cannot be analysed: {error}", file=sys.stderr)
        return 1
    _write_one(game, number, several, analyses, arguments, output)
    return 0


def _write_one(game: Game, number: int, several: bool, analyses: list[MoveAnalysis],
               arguments: argparse.Namespace, output: TextIO) -> None:
    """Annotate the game, write it, and report its summary (and plot) on stderr."""
    label = f"game {number}"
    annotate(game, analyses)
    output.write(str(game).rstrip("\n") + "\n\n")
    output.flush()
    print(f"{label}: {summary_line(analyses)}", file=sys.stderr)
    if arguments.plot is not None:
        plot = arguments.plot
        if several:
            plot = plot.with_name(f"{plot.stem}-{number}{plot.suffix}")
        names = f"{game.headers.get('Black', '?')} - {game.headers.get('White', '?')}"
        try:
            evaluation_plot(analyses, plot, title=names)
        except ImportError as error:
            raise UsageError(str(error)) from None
        print(f"{label}: plot written to {plot}", file=sys.stderr)
