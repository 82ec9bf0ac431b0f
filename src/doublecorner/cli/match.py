"""The ``match`` subcommand: two players over the ACF three-move ballot deck."""

from __future__ import annotations

import argparse
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any

from doublecorner.cli.common import (
    EXIT_OK,
    LOCAL_RAY,
    UsageError,
    positive_float,
    positive_int,
    ray_address,
)
from doublecorner.cli.memory import available_memory_mb
from doublecorner.cli.streams import (
    check_directory_option,
    check_output_file,
    check_regular_output,
)
from doublecorner.egtb import Tables
from doublecorner.engine import Limit
from doublecorner.errors import EngineError, quoted
from doublecorner.match import (
    EnginePlayer,
    ExternalEngine,
    GameRecord,
    Player,
    parse_engine,
    parse_player,
    run_match,
    score_of,
    three_move_deck,
)
from doublecorner.match.ballots import Ballot
from doublecorner.match.clock import GameClock
from doublecorner.match.journal import JournalWriter, header_differences, read_journal
from doublecorner.match.pentanomial import PairCounter
from doublecorner.match.sprt import SequentialTest, Sprt, Verdict, parse_sprt

DEFAULT_SECONDS = 0.1
PLAYER_HELP = ("a player: engine[:time=S|depth=D|nodes=N,hash=MB,eval=nn|linear,network=FILE,"
               "book=BOOK,egtb=off|DIR,name=N] (network= as --network; weights= is another "
               "name for it; the engine plays with the installed endgame tables unless "
               "egtb= says otherwise), "
               "random[:seed=N], "
               "pydraughts[:python=PATH,time=S], openspiel[:python=PATH,time=S] (the peers "
               "run under the given Python, where their package is installed), or the name "
               "of an --engine [:time=S|depth=D|nodes=N]")


def add_parsers(commands: Any) -> None:
    """Register ``match``."""
    match = commands.add_parser(
        "match", help="play two players over the three-move ballot deck",
        description="Each opening of the ACF 156-opening deck is played twice, colours "
                    "reversed. Games are judged by the rules (no moves loses; threefold "
                    "repetition and the 40-move rule draw); a player that fails or plays an "
                    "illegal move loses. Prints one line per game and the result for the "
                    "first player: wins/draws/losses, score, Elo difference with its 95% "
                    "interval, and the likelihood of superiority; then the same over the "
                    "pairs of games of each opening (the pentanomial counts of pairs the "
                    "first player scored 0, 1/2, 1, 3/2 and 2 points in), and with --sprt "
                    "the verdict of the sequential test.")
    match.add_argument("first", help=PLAYER_HELP)
    match.add_argument("second", help="the opponent, in the same form")
    limits = match.add_mutually_exclusive_group()
    limits.add_argument("--time", type=positive_float, metavar="S",
                        help=f"seconds per move (default: {DEFAULT_SECONDS:g})")
    limits.add_argument("--depth", type=positive_int, metavar="D",
                        help="fixed depth for the engine (peers still get --time's default)")
    limits.add_argument("--clock", type=game_clock, metavar="S[+I]",
                        help="a game clock: S seconds for each side's game and I added after "
                             "each of its moves (e.g. 60+0.5); the players budget their own "
                             "time, a peer that takes only a time a move gets the share the "
                             "engine would spend, and a side whose time runs out before its "
                             "move arrives loses")
    match.add_argument("--openings", default="1-156", metavar="RANGE",
                       help="which ballots, by number: e.g. 1-156 (default), 1-10, 7")
    match.add_argument("--concurrency", type=positive_int, default=1, metavar="K",
                       help="games at a time (each engine uses one core)")
    match.add_argument("--engine", action="append", default=[], metavar="name=N,cmd=CMD",
                       help="declare a program that speaks the engine protocol "
                            "(docs/engine-protocol.md), usable as player N; more "
                            "OPTION=VALUE items are set with setoption; repeatable")
    match.add_argument("--pdn", type=Path, metavar="FILE",
                       help="write every game as PDN as it finishes (with --resume: append "
                            "the new games)")
    match.add_argument("--results", type=Path, metavar="FILE",
                       help="write every finished game as a JSON line as it finishes, after a "
                            "header line naming the match (replaces FILE unless --resume)")
    match.add_argument("--resume", action="store_true",
                       help="go on with the match in --results FILE: play only the games "
                            "missing there and report the totals over all games")
    match.add_argument("--egtb", nargs="?", const="", default=None, metavar="DIR",
                       help="end a game as soon as the endgame tables in DIR (default: the "
                            "folder 'doublecorner egtb build' fills) hold its position, with "
                            "their result (the engine players' own tables are their egtb=)")
    match.add_argument("--ray", nargs="?", const=LOCAL_RAY, default=None, metavar="ADDRESS",
                       help="play the games on a Ray cluster, one task per game (a task whose "
                            "worker dies is run again); without ADDRESS on a Ray started here "
                            "(or the one RAY_ADDRESS names). ADDRESS is the head node's "
                            "HOST:6379 as 'ray start --head' prints it, 'auto' for the "
                            "cluster this machine belongs to, or ray://HOST:10001 from outside "
                            "it; every node needs doublecorner installed. --concurrency is "
                            "ignored: the cluster's cores set it. Needs pip install "
                            "'.[ray]' in doublecorner's folder")
    match.add_argument("--sprt", nargs="?", const="", type=sprt_setting, metavar="SETTINGS",
                       help="stop as soon as a sequential probability ratio test over the pairs "
                            "decides: H1, the first player is elo1 Elo stronger, or H0, elo0 "
                            "stronger, with error rates alpha and beta; SETTINGS is any of "
                            "elo0=0,elo1=10,alpha=0.05,beta=0.05 (those are the defaults). "
                            "Games already started are played out; a resumed match replays "
                            "the test over the games in --results")
    match.add_argument("--quiet", action="store_true", help="no line per game")
    match.set_defaults(run=_match)


def parse_openings(text: str, deck: tuple[Ballot, ...]) -> list[Ballot]:
    """The ballots a range such as ``1-10`` or ``7`` names.

    >>> [ballot.number for ballot in parse_openings("3-5", three_move_deck())]
    [3, 4, 5]
    >>> parse_openings("5-3", three_move_deck())
    Traceback (most recent call last):
    doublecorner.cli.common.UsageError: --openings '5-3' is reversed: the lower number first (3-5)
    """
    first, dash, last = text.partition("-")
    shown = quoted(text)
    if not all(part.strip().isascii() and part.strip().isdigit()
               for part in ((first, last) if dash else (first,))):
        raise UsageError(f"--openings must be N or N-M, not {shown}")
    low = int(first)
    high = int(last) if dash else low
    if low > high:
        raise UsageError(f"--openings {shown} is reversed: the lower number first "
                         f"({high}-{low})")
    if not 1 <= low <= high <= len(deck):
        raise UsageError(f"--openings {shown} is outside 1-{len(deck)}")
    return list(deck[low - 1:high])


def game_clock(text: str) -> GameClock:
    """An argparse type: the clock of ``--clock``.

    >>> game_clock("300+2")
    GameClock(seconds=300.0, increment=2.0)
    """
    try:
        return GameClock.parse(text)
    except EngineError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def sprt_setting(text: str) -> Sprt:
    """An argparse type: the settings of ``--sprt``.

    >>> sprt_setting("elo1=5")
    Sprt(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05)
    """
    try:
        return parse_sprt(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _tables_directory(text: str | None) -> Path | None:
    """The folder ``--egtb`` names, or None without it."""
    if text is None:
        return None
    from doublecorner.egtb import default_directory

    return check_directory_option(text, "--egtb") if text else default_directory()


def _load_tables(text: str | None) -> Tables | None:
    """The tables ``--egtb`` names, or None without it."""
    directory = _tables_directory(text)
    if directory is None:
        return None
    from doublecorner.egtb import LOADED_PIECES, load_tables, materials

    tables = load_tables(directory, max_pieces=LOADED_PIECES, lazy_dtc=True)
    if not any(tables.has(material) for material in materials(LOADED_PIECES)):
        raise UsageError(f"--egtb: no endgame tables in {directory} "
                         "(make them with 'doublecorner egtb build')")
    return tables


def _declared_engines(arguments: argparse.Namespace,
                      engines: dict[str, ExternalEngine]) -> dict[str, Any]:
    """The ``--engine`` declarations the two players use, for the results header.

    A resumed match must run the same programs with the same options, not just
    programs of the same names.
    """
    used = {spec.partition(":")[0] for spec in (arguments.first, arguments.second)}
    return {name: {"cmd": shlex.join(engine.command), "options": dict(engine.options)}
            for name, engine in sorted(engines.items()) if name in used}


def _resumed(arguments: argparse.Namespace, header: dict[str, Any],
             ballots: list[Ballot]) -> tuple[list[GameRecord], JournalWriter | None]:
    """The games already in ``--results`` (with ``--resume``) and the writer for the rest."""
    if arguments.results is None:
        return [], None
    if not arguments.resume:
        return [], JournalWriter(arguments.results, header=header)
    contents = read_journal(arguments.results, ballots)
    differences = header_differences(header, contents.header)
    if differences:
        raise UsageError(f"--resume: {arguments.results} is from another match ("
                         + "; ".join(differences) + ")")
    if contents.dropped is not None:
        print(f"doublecorner: warning: {arguments.results}: ignoring an unfinished last line "
              f"({contents.dropped[:40]!r}...)", file=sys.stderr)
    return contents.records, JournalWriter(arguments.results, header=None,
                                           keep_bytes=contents.sound_bytes)


def _check_outputs(arguments: argparse.Namespace) -> None:
    """Check ``--pdn``, ``--results`` and ``--resume`` before any game starts.

    :raises UsageError: a file cannot be written, ``--results`` holds games
        without ``--resume``, or ``--resume`` has no file to go on from.
    """
    if arguments.pdn is not None:
        check_output_file(arguments.pdn, "--pdn")
    if arguments.resume and arguments.results is None:
        raise UsageError("--resume needs --results FILE, the file to resume from")
    if arguments.results is None:
        return
    check_regular_output(arguments.results, "--results")  # read back by --resume: no pipe
    if arguments.resume and not arguments.results.exists():
        raise UsageError(f"--resume: {arguments.results} does not exist")
    if (not arguments.resume and arguments.results.exists()
            and arguments.results.stat().st_size > 0):
        # It may hold an interrupted match: never write over it unasked.
        raise UsageError(f"--results {arguments.results} already holds games: add --resume "
                         "to go on with that match, or remove the file")


def _check_engine_memory(arguments: argparse.Namespace, available_mb: int | None) -> None:
    """Check that the engine players' tables fit here, before one is made.

    Each game at a time holds one table per engine player (``hash=``, 64 MB
    unless given); a ``hash=`` that is no number is left to the player's own
    check. On Ray the tables are on the cluster's machines, not here.

    >>> arguments = argparse.Namespace(first="engine:hash=2048", second="engine",
    ...                                concurrency=2, ray=None)
    >>> _check_engine_memory(arguments, available_mb=4000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    doublecorner.cli.common.UsageError: ... need 4224 MB (2048 + 64 MB, 2 games at a time), ...

    :raises UsageError: they do not fit.
    """
    if arguments.ray is not None or available_mb is None:
        return
    sizes = []
    for spec in (arguments.first, arguments.second):
        kind, _, text = spec.partition(":")
        if kind == "engine":
            options = dict(item.partition("=")[::2] for item in text.split(","))
            size = options.get("hash", "64").strip()
            sizes.append(int(size) if size.isascii() and size.isdigit() and len(size) < 10 else 0)
    needed = sum(sizes) * arguments.concurrency
    if needed > available_mb:
        raise UsageError(f"the engine players' tables need {needed} MB "
                         f"({' + '.join(map(str, sizes))} MB, {arguments.concurrency} "
                         f"game{'s' if arguments.concurrency != 1 else ''} at a time), and "
                         f"{available_mb} MB are available")


def _match(arguments: argparse.Namespace) -> int:
    _check_outputs(arguments)
    _check_engine_memory(arguments, available_memory_mb())
    address = ray_address(arguments) if arguments.ray is not None else None
    ballots = parse_openings(arguments.openings, three_move_deck())
    movetime = arguments.time or DEFAULT_SECONDS
    clock: GameClock | None = arguments.clock
    if clock is not None:
        limit = Limit(clock=clock.seconds, increment=clock.increment)
    elif arguments.depth:
        limit = Limit(depth=arguments.depth)
    else:
        limit = Limit(time=movetime)
    tables = _load_tables(arguments.egtb)
    engines = {engine.name: engine for engine in map(parse_engine, arguments.engine)}
    header = {"first": arguments.first, "second": arguments.second,
              "openings": f"{ballots[0].number}-{ballots[-1].number}",
              "time": None if arguments.depth or clock else movetime, "depth": arguments.depth,
              "egtb": tables is not None, "engines": _declared_engines(arguments, engines)}
    if clock is not None:  # only then: a results file from before --clock still resumes
        header["clock"] = str(clock)

    def factory(spec: str) -> Player:
        return parse_player(spec, default_limit=limit, movetime=movetime, engines=engines)

    for spec in (arguments.first, arguments.second):  # fail early on a bad spec
        factory(spec).close()
    total = 2 * len(ballots)
    resumed, journal = _resumed(arguments, header, ballots)
    try:
        pdn_file = (arguments.pdn.open("a" if arguments.resume else "w", encoding="utf-8")
                    if arguments.pdn else None)
    except OSError as error:  # checked before, but the file system may have changed since
        if journal is not None:
            journal.close()
        raise UsageError(f"--pdn {arguments.pdn}: {error.strerror or error}") from None
    if resumed:
        print(f"resuming: {len(resumed)} of {total} games already in {arguments.results}",
              file=sys.stderr)
    started = time.monotonic()
    done: list[GameRecord] = list(resumed)
    pairs = PairCounter()
    test = None if arguments.sprt is None else SequentialTest(arguments.sprt)
    stop = threading.Event()  # set when the test decides: no game starts after

    def count(record: GameRecord) -> None:
        points = pairs.add(record)
        if points is None or test is None:
            return
        if test.add_pair(points) is not Verdict.INCONCLUSIVE:
            stop.set()

    for record in resumed:  # in the order they finished, as the test first saw them
        count(record)
    our_engines: list[EnginePlayer] = []

    def make(spec: str) -> Player:
        player = factory(spec)
        if isinstance(player, EnginePlayer):
            our_engines.append(player)
        return player

    def on_game(record: GameRecord) -> None:
        done.append(record)
        count(record)
        if journal is not None:
            journal.append(record)
        if pdn_file is not None:
            pdn_file.write(record.pdn(event="doublecorner match") + "\n")
            pdn_file.flush()
        if not arguments.quiet:
            print(f"game {record.number:>3} ({len(done)}/{total}) ballot {record.ballot.number:>3}"
                  f" [{record.ballot}] {record.black} - {record.white}: {record.result} "
                  f"({record.reason}, {len(record.moves)} plies"
                  + (f", {record.fallback_moves} fallback moves" if record.fallback_moves else "")
                  + f")   running: {score_of(done).summary()}"
                  + (f"  {test.progress()}" if test is not None else ""), flush=True)

    skip = {record.number for record in resumed}
    try:
        if arguments.ray is not None:
            from doublecorner.match.distributed import run_match_on_ray

            played = run_match_on_ray(
                arguments.first, arguments.second, ballots, default_limit=limit,
                movetime=movetime, engines=engines,
                address=address, skip=skip, on_game=on_game,
                egtb_dir=_tables_directory(arguments.egtb), stop=stop, clock=clock)
        else:
            played = run_match(lambda: make(arguments.first), lambda: make(arguments.second),
                               ballots, concurrency=arguments.concurrency, on_game=on_game,
                               skip=skip, tables=tables, stop=stop, clock=clock)
    finally:
        if pdn_file is not None:
            pdn_file.close()
        if journal is not None:
            journal.close()
    records = sorted([*resumed, *played], key=lambda record: record.number)
    score = score_of(records)
    elapsed = time.monotonic() - started
    print(f"{arguments.first} vs {arguments.second}: {len(records)} games"
          + (f" ({len(resumed)} resumed, {len(played)} played)" if resumed else "")
          + f" in {elapsed:.0f} s")
    print(score.summary())
    unpaired = {0: "", 1: "  (1 game of an unfinished pair left out)"}.get(
        pairs.unpaired, f"  ({pairs.unpaired} games of unfinished pairs left out)")
    print(pairs.pentanomial.summary() + unpaired)
    if test is not None:
        print(test.summary())
    fallbacks = sum(record.fallback_moves for record in records)
    if fallbacks:
        print(f"{fallbacks} moves were played at random for a player that produced none")
    # Each engine player's speed on its own line (both sides may be the engine).
    searched: dict[str, list[float]] = {}
    for engine in our_engines:
        totals = searched.setdefault(engine.name, [0, 0.0])
        totals[0] += engine.nodes
        totals[1] += engine.seconds
    for name, (nodes, seconds) in searched.items():
        if seconds > 0:
            print(f"{name}: {nodes:,.0f} nodes in {seconds:.1f} s searching "
                  f"({nodes / seconds:,.0f} nodes/s)", file=sys.stderr)
    return EXIT_OK
