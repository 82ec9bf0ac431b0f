"""Subcommand ``train``: self-play games, fit the evaluation network, show a network's record."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doublecorner.cli.common import (
    EXIT_OK,
    LOCAL_RAY,
    ProgressBar,
    UsageError,
    add_evaluation_options,
    evaluation_from_arguments,
    positive_int,
    ray_address,
    whole_number,
)
from doublecorner.cli.streams import check_directory_option, check_regular_output
from doublecorner.errors import quoted

if TYPE_CHECKING:
    from doublecorner.train.fit import EpochReport

def add_parsers(commands: Any) -> None:
    """Register ``train selfplay``, ``fit``, ``deepen``, ``starts``, ``info`` and ``export``."""
    train = commands.add_parser(
        "train", help="train the neural evaluation: self-play, deepen, fit, info, export",
        description="The pipeline that made the shipped network: play games with the engine, "
                    "kept as compact records (games-*.txt.xz), fit the network to their "
                    "positions, and export the weights file. Generation k+1 fits the games "
                    "played by generation k (and the earlier ones).")
    actions = train.add_subparsers(dest="train_command", metavar="ACTION", required=True)

    selfplay = actions.add_parser(
        "selfplay", help="play games from the deck's openings and keep them as records",
        description="Records files of games (games-KKKKK.txt.xz: each game's start, moves, "
                    "search scores and result) are written to OUT as they finish; a run "
                    "resumes an interrupted one (files on disk are skipped).")
    selfplay.add_argument("--out", type=Path, required=True, metavar="DIR",
                          help="folder of the records files (made if it is not there; the "
                               "folder it goes in must exist)")
    selfplay.add_argument("--games", type=positive_int, required=True, metavar="N",
                          help="games in all (rounded up to whole records files)")
    selfplay.add_argument("--nodes", type=positive_int, default=10_000, metavar="N",
                          help="nodes searched per move (default: 10000)")
    add_evaluation_options(selfplay)
    selfplay.add_argument("--random-plies", type=whole_number(0, 40, "expected 0 to 40 random "
                                                               "plies, not {value}"),
                          default=4, metavar="K",
                          help="up to K random plies after the ballot, seeded per game "
                               "(default: 4)")
    selfplay.add_argument("--games-per-shard", type=positive_int, default=100, metavar="N",
                          help="games a records file holds (default: 100)")
    selfplay.add_argument("--first-game", type=whole_number(0, 10**9, "expected a game number "
                                                            "from 0 to 10**9, not {value}"),
                          default=0, metavar="G",
                          help="number the folder's games from G (its openings and random "
                               "plies follow the number; default: 0) so that a new "
                               "generation starts from other positions than the last")
    selfplay.add_argument("--starts", type=Path, metavar="FILE",
                          help="play from the positions of this starts file (see 'train "
                               "starts') instead of the deck's ballots: game G from its "
                               "position G mod its count")
    _add_tables_option(selfplay, "endgame tables (up to 5 pieces) to play with")
    selfplay.add_argument("--jobs", type=positive_int, default=1, metavar="K",
                          help="processes playing side by side (default: 1)")
    selfplay.add_argument("--ray", nargs="?", const=LOCAL_RAY, default=None, metavar="ADDRESS",
                          help="play the records files as Ray tasks (OUT must be a folder "
                               "every node shares)")
    selfplay.set_defaults(run=_selfplay)

    fit = actions.add_parser(
        "fit", help="fit the network to self-play records and write a weights file",
        description="The positions are rebuilt from the records; quiet ones are kept. The "
                    "target blends the game's result and the search's score, or is the "
                    "tables' value where --egtb's tables hold the position (without --egtb "
                    "no position has a table label). Seeded; a share of the games is held "
                    "out for validation; the best epoch is exported.")
    fit.add_argument("data", type=Path, nargs="+", metavar="DATA",
                     help="folders of records files (games-*.txt.xz), or records files")
    fit.add_argument("--out", type=Path, required=True, metavar="FILE",
                     help="the weights file to write")
    fit.add_argument("--start", metavar="FILE",
                     help="start from this network instead of fresh weights")
    fit.add_argument("--result-weight", type=_share, default=0.5, metavar="W",
                     help="weight of the game result in the target, 0-1 (default: 0.5)")
    fit.add_argument("--epochs", type=positive_int, default=30, metavar="N")
    fit.add_argument("--batch-size", type=positive_int, default=4096, metavar="N")
    fit.add_argument("--learning-rate", type=_rate, default=1e-3, metavar="R")
    fit.add_argument("--patience", type=positive_int, default=3, metavar="N",
                     help="epochs without a better validation loss before stopping")
    fit.add_argument("--validation", type=_share, default=0.05, metavar="SHARE",
                     help="share of the games held out (default: 0.05)")
    fit.add_argument("--seed", type=whole_number(0, None, "expected a seed of 0 or more, "
                                                          "not {value}"), default=1)
    fit.add_argument("--distance-step", type=_share, default=0.0, metavar="S",
                     help="lower a won table position's target by S per ply of its distance "
                          "to conversion (up to 50 plies), raise a lost one's alike "
                          "(default: 0); needs --egtb")
    _add_tables_option(fit, "the endgame tables (up to 6 pieces, as many as DIR holds) that "
                            "label the positions they hold and give the distances")
    fit.add_argument("--deep", type=Path, metavar="DIR",
                     help="take the deep scores kept in DIR ('train deepen') instead of the "
                          "records' own where there are any")
    fit.add_argument("--deep-repeat", type=whole_number(1, 100, "expected 1 to 100 times, "
                                                                "not {value}"),
                     default=1, metavar="R",
                     help="train on each position with a deep score R times an epoch "
                          "(default: 1); needs --deep")
    fit.set_defaults(run=_fit)

    deepen = actions.add_parser(
        "deepen", help="search positions of records again, deeper, for better labels",
        description="Quiet positions of the records with a given number of pieces (every "
                    "K-th ply of each game) are searched again at a larger node budget; "
                    "the scores are kept in OUT/FOLDER/deep-KKKKK.txt.xz, one file for "
                    "each records file, for 'train fit --deep OUT'. A run skips the files "
                    "already there, so an interrupted run resumes.")
    deepen.add_argument("data", type=Path, nargs="+", metavar="DATA",
                        help="folders of records files (games-*.txt.xz), or records files")
    deepen.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="folder of the deep scores (made if it is not there)")
    deepen.add_argument("--nodes", type=positive_int, default=200_000, metavar="N",
                        help="nodes searched per position (default: 200000)")
    deepen.add_argument("--pieces", type=_piece_range, default=(8, 14), metavar="A-B",
                        help="pieces on the board, both sides together (default: 8-14)")
    deepen.add_argument("--every", type=whole_number(1, 1000, "expected 1 to 1000 plies, "
                                                             "not {value}"),
                        default=4, metavar="K",
                        help="search every K-th ply of a game (default: 4)")
    deepen.add_argument("--files", type=positive_int, metavar="N",
                        help="write at most N files in this run")
    add_evaluation_options(deepen)
    _add_tables_option(deepen, "endgame tables (up to 5 pieces) to search with")
    deepen.add_argument("--jobs", type=positive_int, default=1, metavar="K",
                        help="processes searching side by side (default: 1)")
    deepen.set_defaults(run=_deepen)

    starts = actions.add_parser(
        "starts", help="draw self-play start positions from the middlegames of records",
        description="Quiet positions (no capture pending) with a given number of pieces "
                    "that the game's own search judged close to level are drawn, without "
                    "duplicates and seeded, from the records and written one FEN a line "
                    "to OUT, for 'train selfplay --starts': games that spend their "
                    "positions in the phase where level games are won or lost.")
    starts.add_argument("data", type=Path, nargs="+", metavar="DATA",
                        help="folders of records files (games-*.txt.xz), or records files")
    starts.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the starts file to write")
    starts.add_argument("--pieces", type=_piece_range, default=(10, 16), metavar="A-B",
                        help="pieces on the board, both sides together (default: 10-16)")
    starts.add_argument("--max-score", type=whole_number(0, 10_000, "expected a score of 0 "
                                                                   "to 10000, not {value}"),
                        default=150, metavar="CP",
                        help="only positions the search scored within CP hundredths of a man "
                             "of level (default: 150)")
    starts.add_argument("--count", type=positive_int, default=10_000, metavar="N",
                        help="positions to draw at most (default: 10000)")
    starts.add_argument("--seed", type=whole_number(0, None, "expected a seed of 0 or more, "
                                                            "not {value}"), default=1)
    starts.set_defaults(run=_starts)

    info = actions.add_parser("info", help="print a weights file's provenance as JSON")
    info.add_argument("network", nargs="?", metavar="FILE",
                      help="a weights file (default: the network shipped)")
    info.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      help="record a fact in the provenance (say, the match that accepted "
                           "the network) and rewrite FILE")
    info.set_defaults(run=_info)

    export = actions.add_parser(
        "export", help="write self-play games as PDN, for 'db import' and opening books",
        description="Each game is written from its start after the ballot and random plies "
                    "(a FEN tag), with every move and the result of its record; both "
                    "players are named by the records file's configuration.")
    export.add_argument("data", type=Path, nargs="+", metavar="DATA",
                        help="folders of records files (games-*.txt.xz), or records files")
    export.add_argument("--pdn", type=Path, required=True, metavar="FILE",
                        help="the PDN file to write")
    export.add_argument("--limit", type=positive_int, metavar="N",
                        help="stop after N games")
    export.set_defaults(run=_export)


def _piece_range(text: str) -> tuple[int, int]:
    """``A-B`` (or one number) as a range of piece counts within 2-24."""
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pieces as A-B, such as 10-16, not "
                                         f"{text!r}") from None
    if not 2 <= bounds[0] <= bounds[1] <= 24:
        raise argparse.ArgumentTypeError(f"expected a range of pieces within 2-24, not {text!r}")
    return bounds


def _starts_file(arguments: argparse.Namespace) -> str | None:
    """``--starts`` checked now (not in a worker), as an absolute path the workers can open."""
    if arguments.starts is None:
        return None
    from doublecorner.train.starts import read_starts

    read_starts(arguments.starts)
    return str(arguments.starts.resolve())


def _starts(arguments: argparse.Namespace) -> int:
    from doublecorner.train.starts import StartsRequest, sample_starts, write_starts

    check_regular_output(arguments.out, "--out")
    low, high = arguments.pieces
    request = StartsRequest(min_pieces=low, max_pieces=high, max_score=arguments.max_score,
                            count=arguments.count, seed=arguments.seed)
    positions = sample_starts(arguments.data, request)
    source = (f"{len(positions):,} quiet positions of {low}-{high} pieces within "
              f"{arguments.max_score} of level, seed {arguments.seed}, from "
              + " ".join(path.name for path in arguments.data))
    write_starts(arguments.out, positions, source=source)
    print(f"{len(positions):,} start positions written to {arguments.out}")
    return EXIT_OK


def _add_tables_option(parser: argparse.ArgumentParser, purpose: str) -> None:
    parser.add_argument("--egtb", nargs="?", const="", default=None, metavar="DIR",
                        help=f"{purpose} (default folder if DIR is left out)")


def _tables_folder(text: str | None) -> Path | None:
    """The folder ``--egtb`` names (the default one for a bare ``--egtb``), or None."""
    if text is None:
        return None
    from doublecorner.egtb import default_directory

    folder = Path(text) if text else default_directory()
    if not folder.is_dir():
        raise UsageError(f"--egtb {folder}: no such folder")
    return folder


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text!r}")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a learning rate, not {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a learning rate in (0, 1), not {text!r}")
    return value


def _selfplay(arguments: argparse.Namespace) -> int:
    from doublecorner.train.selfplay import SelfPlayConfig, run_selfplay

    check_directory_option(arguments.out, "--out")  # a file, or under a missing folder
    network, generation = _playing_network(arguments)
    egtb_dir = _tables_folder(arguments.egtb)
    address = ray_address(arguments) if arguments.ray is not None else None
    config = SelfPlayConfig(nodes=arguments.nodes, evaluation=arguments.evaluation,
                            network=network, network_generation=generation,
                            random_plies=arguments.random_plies,
                            egtb_dir=None if egtb_dir is None else str(egtb_dir),
                            games_per_shard=arguments.games_per_shard,
                            first_game=arguments.first_game, starts=_starts_file(arguments))
    bar = ProgressBar("selfplay")
    files = -(-arguments.games // config.games_per_shard)
    counts = {"positions": 0, "black": 0, "draws": 0, "white": 0, "files": 0}
    done = files - len(_missing(arguments.out, arguments.games, config.games_per_shard))

    def on_shard(report: Any) -> None:
        counts["files"] += 1
        counts["positions"] += report.positions
        counts["black"] += report.black_wins
        counts["draws"] += report.draws
        counts["white"] += report.white_wins
        bar(done + counts["files"], files, f"{counts['positions']:,} positions")

    started = time.monotonic()
    try:
        run_selfplay(arguments.out, arguments.games, config, jobs=arguments.jobs,
                     use_ray=arguments.ray is not None, ray_address=address, on_shard=on_shard)
    finally:
        bar.close()
    print(f"{counts['files']} records files played ({done} already there): "
          f"{counts['positions']:,} positions; Black won {counts['black']}, drawn "
          f"{counts['draws']}, White won {counts['white']} ({time.monotonic() - started:.0f} s) "
          f"in {arguments.out}")
    return EXIT_OK


def _playing_network(arguments: argparse.Namespace) -> tuple[str | None, int]:
    """``--network`` as an absolute path the workers can open (None: the shipped one) and
    the generation of the network that searches (0: the linear evaluation).

    :raises UsageError: ``--network`` with ``--eval linear``.
    """
    evaluation_from_arguments(arguments)  # --network only with --eval nn
    if arguments.evaluation != "nn":
        return None, 0
    from doublecorner.engine.network import load_network

    # A bad file fails here, not in a worker; its generation is recorded with the results.
    generation = int(load_network(arguments.network).provenance.get("generation", 0))
    network = None if arguments.network is None else str(Path(arguments.network).resolve())
    return network, generation


def _deep_folder(folder: Path | None) -> Path | None:
    if folder is not None and not folder.is_dir():
        raise UsageError(f"--deep {folder}: no such folder")
    return folder


def _deepen(arguments: argparse.Namespace) -> int:
    from doublecorner.train.deep import DeepConfig, missing_files, run_deepen

    _check_data(arguments.data)
    check_directory_option(arguments.out, "--out")
    network, generation = _playing_network(arguments)
    low, high = arguments.pieces
    egtb_dir = _tables_folder(arguments.egtb)
    config = DeepConfig(nodes=arguments.nodes, min_pieces=low, max_pieces=high,
                        every=arguments.every, evaluation=arguments.evaluation,
                        network=network, network_generation=generation,
                        egtb_dir=None if egtb_dir is None else str(egtb_dir))
    todo = len(missing_files(arguments.data, arguments.out)[:arguments.files])
    bar = ProgressBar("deepen")
    counts = {"files": 0, "positions": 0}

    def on_file(report: Any) -> None:
        counts["files"] += 1
        counts["positions"] += report.positions
        bar(counts["files"], todo, f"{counts['positions']:,} positions")

    started = time.monotonic()
    try:
        run_deepen(arguments.data, arguments.out, config, jobs=arguments.jobs,
                   limit=arguments.files, on_file=on_file)
    finally:
        bar.close()
    print(f"{counts['files']} deep scores files written: {counts['positions']:,} positions "
          f"searched at {arguments.nodes:,} nodes ({time.monotonic() - started:.0f} s) "
          f"in {arguments.out}")
    return EXIT_OK


def _missing(directory: Path, games: int, per_shard: int) -> list[int]:
    from doublecorner.train.selfplay import missing_shards

    return missing_shards(directory, games, per_shard)


def _fit(arguments: argparse.Namespace) -> int:
    from doublecorner.train.pipeline import FitRequest, fit_network

    _check_data(arguments.data)
    # A folder, '', a missing folder, a device: before the fit, not after it.
    check_regular_output(arguments.out, "--out")
    egtb_dir = _tables_folder(arguments.egtb)
    if arguments.distance_step > 0 and egtb_dir is None:
        raise UsageError("--distance-step needs the endgame tables: add --egtb [DIR]")
    if arguments.deep_repeat > 1 and arguments.deep is None:
        raise UsageError("--deep-repeat needs the deep scores: add --deep DIR")
    request = FitRequest(data=tuple(arguments.data), out=arguments.out, start=arguments.start,
                         result_weight=arguments.result_weight, epochs=arguments.epochs,
                         batch_size=arguments.batch_size, learning_rate=arguments.learning_rate,
                         patience=arguments.patience, validation=arguments.validation,
                         seed=arguments.seed, distance_step=arguments.distance_step,
                         egtb_dir=egtb_dir, deep_root=_deep_folder(arguments.deep),
                         deep_repeat=arguments.deep_repeat)
    bar = ProgressBar("fit")
    reading = ProgressBar("read")

    def on_read(done: int, total: int) -> None:
        reading(done, total, "files")
        if done == total:
            reading.close()

    def on_batch(done: int, total: int) -> None:
        bar(done, total, "batches")

    def on_epoch(report: Any) -> None:
        bar.close()
        bar.shown = 0.0
        bar.started = time.monotonic()
        print(epoch_line(report), file=sys.stderr, flush=True)

    network = fit_network(request, on_epoch=on_epoch, on_batch=on_batch, on_read=on_read,
                          on_note=lambda text: print(text, file=sys.stderr, flush=True))
    print(json.dumps(network.provenance, indent=1, sort_keys=True))
    print(f"wrote {arguments.out}")
    return EXIT_OK


def epoch_line(report: EpochReport) -> str:
    """One epoch of a fit for stderr; epoch 0 is the starting weights, trained on nothing yet.

    >>> import math
    >>> from doublecorner.train.fit import EpochReport
    >>> print(epoch_line(EpochReport(0, math.nan, 0.693147, 0.001, 0.4)))
    epoch   0  the starting weights   validation loss 0.69315  step 0.001  0 s
    >>> print(epoch_line(EpochReport(1, 0.61234, 0.62345, 0.001, 41.0)))
    epoch   1  training loss 0.61234  validation loss 0.62345  step 0.001  41 s
    """
    # Epoch 0's training loss is NaN: no batch has been trained on (fit.EpochReport).
    trained = (f"{'the starting weights':<21}" if report.epoch == 0
               else f"training loss {report.training_loss:.5f}")
    return (f"epoch {report.epoch:3d}  {trained}  validation loss {report.validation_loss:.5f}  "
            f"step {report.learning_rate:.2g}  {report.seconds:.0f} s")


def _info(arguments: argparse.Namespace) -> int:
    from doublecorner.engine.network import Network

    if arguments.network is None:
        if arguments.set:  # the installed package's file is not ours to rewrite
            raise UsageError("--set needs FILE, the weights file to rewrite")
        network = Network.default()
    else:
        network = Network.from_file(arguments.network)
    if arguments.set:
        for item in arguments.set:
            key, equals, value = item.partition("=")
            if not equals or not key:
                raise UsageError(f"--set {item!r} is not KEY=VALUE")
            network.provenance[key] = value
        network.save(arguments.network)
    print(json.dumps(network.provenance, indent=1, sort_keys=True))
    return EXIT_OK


def _check_data(sources: list[Path]) -> None:
    """Each DATA names a folder or a file (what is in them is the library's to judge)."""
    for source in sources:
        if not source.exists():
            raise UsageError(f"{quoted(str(source))}: no such folder or records file")


def _export(arguments: argparse.Namespace) -> int:
    import io

    from doublecorner.files import atomic_writer
    from doublecorner.train.export import export_pdn
    from doublecorner.train.records import records_files

    _check_data(arguments.data)
    paths = records_files(arguments.data)
    check_regular_output(arguments.pdn, "--pdn")
    bar = ProgressBar("export")
    games = 0

    def on_game(index: int, record: Any) -> None:
        nonlocal games
        games += 1
        # Files are counted whole (the one being read is not done yet), or games up to --limit.
        done, total = (index, len(paths)) if arguments.limit is None else (games,
                                                                          arguments.limit)
        bar(done, total, f"{games:,} game{'' if games == 1 else 's'}")

    started = time.monotonic()
    try:
        # Written whole and renamed into place: a damaged record leaves no half file.
        with atomic_writer(arguments.pdn, what="PDN file") as raw:
            stream = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
            try:
                report = export_pdn(paths, stream, limit=arguments.limit, on_game=on_game)
            finally:
                stream.detach()  # flushed; the writer closes the file (or removes it)
        if games != arguments.limit:  # else the bar has just shown the end
            bar(1, 1, f"{games:,} game{'' if games == 1 else 's'}")
    finally:
        bar.close()
    seconds = time.monotonic() - started
    print(f"{report.games:,} games written to {arguments.pdn}; "
          f"{report.games / max(seconds, 1e-9):,.0f} games/s ({seconds:.1f} s)")
    return EXIT_OK
