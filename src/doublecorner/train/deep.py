"""Deeper scores for the positions of self-play records: labels that look further.

A record keeps the score of the search that chose each move, at the node
budget the game was played with (20,000 nodes for most of ``data/``). Where a
level game is won or lost, from about 14 down to 8 pieces (issue 28), that
search is shallow for the shots and slow plans that decide it. ``train deepen``
searches some of those positions again with a much larger budget and keeps
the scores; ``train fit --deep`` then takes them instead of the records' own.

A deep scores file mirrors one records file: ``DEEP/FOLDER/deep-KKKKK.txt.xz``
for ``FOLDER/games-KKKKK.txt.xz`` (game numbers repeat across folders, so the
folder's name is part of the place). It is LZMA-compressed UTF-8 text: a
header line ``#dcd 1 {JSON}`` (the format's version, how the searches were
made, and the SHA-256 of the records file they were made from, so that scores
of another file are never joined to these games), then one line per game with
any scores, two fields separated by a tab:

- the game's number;
- ``ply:score`` pairs, comma-separated: the ply (counted from the record's
  start, as :mod:`.positions` counts it) and the deep search's score for the
  side to move there, in the engine's units.

Which positions: quiet ones (the evaluation sees only those) with
``min_pieces`` to ``max_pieces`` pieces, and of those only every
``every``-th ply of a game (a game's neighbouring positions are much alike;
``(ply + game) mod every == 0``, so that different games take different
phases of the move cycle). Each file is written whole, atomically; a run
skips the files already there, so an interrupted run resumes.

>>> line = encode_deep_line(5, {0: 12, 1: -40})
>>> line
'5\\t0:12,1:-40'
>>> decode_deep_line(line)
(5, {0: 12, 1: -40})
"""

from __future__ import annotations

import io
import json
import lzma
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from doublecorner.engine import Engine, Limit
from doublecorner.errors import EngineError, quoted
from doublecorner.files import atomic_writer, shown_path
from doublecorner.kernel.movegen import has_captures
from doublecorner.train.portable import portable_record
from doublecorner.train.records import (
    RECORDS_NAME,
    GameRecord,
    header_of,
    numbered_lines,
    read_records,
    records_digest,
    records_files,
)
from doublecorner.train.starts import check_piece_range

FORMAT = "dcd"
VERSION = 1
WHAT = "deep scores file"
_PRESET = 6
_PAIR = re.compile(r"(0|[1-9][0-9]{0,4}):(-?[0-9]{1,6})")
_NUMBER = re.compile(r"-?[0-9]{1,10}")
MAX_TEXT_CHARACTERS = 1 << 28


@dataclass(frozen=True, slots=True, kw_only=True)
class DeepConfig:
    """How the deep searches are made; kept in every deep scores file's header."""

    nodes: int = 200_000
    min_pieces: int = 8
    max_pieces: int = 14
    every: int = 4
    evaluation: str = "nn"
    network: str | None = None  # a weights file; None: the one shipped
    network_generation: int = 0
    egtb_dir: str | None = None
    hash_mb: int = 64

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise EngineError(f"nodes per position must be at least 1, not {self.nodes}")
        check_piece_range(self.min_pieces, self.max_pieces)
        if not 1 <= self.every <= 1000:
            raise EngineError(f"every must be 1 to 1000 plies, not {self.every}")


@dataclass(frozen=True, slots=True)
class DeepReport:
    """What one finished deep scores file holds."""

    path: Path
    games: int
    positions: int


def deep_path(deep_root: Path, records_path: Path) -> Path:
    """Where the deep scores of the records file at ``records_path`` are kept."""
    name = records_path.name.replace("games-", "deep-", 1)
    return deep_root / records_path.parent.name / name


def chosen_plies(record: GameRecord, config: DeepConfig) -> list[int]:
    """The plies of ``record`` whose positions ``config`` searches again."""
    plies = []
    for ply, (black, white, kings, turn, _) in enumerate(record.states()):
        if ((ply + record.number) % config.every == 0
                and config.min_pieces <= (black | white).bit_count() <= config.max_pieces
                and not has_captures(black, white, kings, turn)):
            plies.append(ply)
    return plies


def deep_scores(engine: Engine, record: GameRecord, config: DeepConfig) -> dict[int, int]:
    """The deep search's score at each chosen ply of one game (its history given, so
    that repetitions and the 40-move count are the game's)."""
    wanted = set(chosen_plies(record, config))
    scores: dict[int, int] = {}
    if not wanted:
        return scores
    engine.new_game()
    limit = Limit(nodes=config.nodes)
    for ply, board in enumerate(record.boards()):
        if ply in wanted:
            result = engine.search(board, limit, use_book=False)
            scores[ply] = result.score.value
            if len(scores) == len(wanted):
                break
    return scores


def encode_deep_line(number: int, scores: Mapping[int, int]) -> str:
    """One game's line (no newline)."""
    return f"{number}\t" + ",".join(f"{ply}:{score}" for ply, score in sorted(scores.items()))


def decode_deep_line(line: str) -> tuple[int, dict[int, int]]:
    """The game's number and its scores by ply.

    :raises EngineError: the line is not a game's deep scores.
    """
    fields = line.rstrip("\n").split("\t")
    if len(fields) != 2 or not _NUMBER.fullmatch(fields[0]):
        raise EngineError(f"a deep scores line is a game's number, a tab and ply:score "
                          f"pairs, not {quoted(line.rstrip(), limit=40)}")
    scores: dict[int, int] = {}
    for pair in fields[1].split(",") if fields[1] else ():
        match = _PAIR.fullmatch(pair)
        if match is None:
            raise EngineError(f"game {fields[0]}: {quoted(pair, limit=20)} is no ply:score pair")
        scores[int(match[1])] = int(match[2])
    return int(fields[0]), scores


def write_deep(path: Path, games: Mapping[int, Mapping[int, int]], *,
               header: Mapping[str, Any]) -> None:
    """Write a deep scores file whole (beside its place, then renamed into it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, what=WHAT) as raw, \
            io.TextIOWrapper(lzma.LZMAFile(raw, "w", preset=_PRESET), encoding="utf-8") as stream:
        stream.write(f"#{FORMAT} {VERSION} {json.dumps(dict(header), sort_keys=True)}\n")
        for number, scores in games.items():
            if scores:
                stream.write(encode_deep_line(number, scores) + "\n")


def read_deep(path: Path, *, records_sha256: str | None = None
              ) -> tuple[dict[str, Any], dict[int, dict[int, int]]]:
    """The header and the scores (by game, then ply) of the deep scores file at ``path``.

    :raises EngineError: the file cannot be read, is damaged, or was made from
        another records file than the one whose digest is ``records_sha256``.
    """
    with numbered_lines(path, what=WHAT, max_text=MAX_TEXT_CHARACTERS) as lines:
        header = header_of(path, next(lines, (1, ""))[1], format_name=FORMAT,
                           version=VERSION, what=WHAT)
        if records_sha256 is not None and header.get("records_sha256") != records_sha256:
            raise EngineError(f"{shown_path(path)} holds the deep scores of another "
                              f"records file than {header.get('records', 'its own')} "
                              "is now (the digests differ): make it again")
        games: dict[int, dict[int, int]] = {}
        for number, line in lines:
            if line.strip():
                try:
                    game, scores = decode_deep_line(line)
                except EngineError as error:
                    raise EngineError(f"{shown_path(path)}, line {number}: {error}") from None
                games[game] = scores
    return header, games


_ENGINES: dict[str, Engine] = {}


def _worker_engine(config: DeepConfig) -> Engine:
    """One engine per process and configuration (its tables take seconds to load)."""
    key = json.dumps(asdict(config), sort_keys=True)
    if key not in _ENGINES:
        from doublecorner.train.selfplay import engine_for

        _ENGINES.clear()
        _ENGINES[key] = engine_for(evaluation=config.evaluation, network=config.network,
                                   egtb_dir=config.egtb_dir, hash_mb=config.hash_mb)
    return _ENGINES[key]


def deepen_file(records: str, target: str, config_items: dict[str, Any]) -> DeepReport:
    """Search the chosen positions of one records file again and write their scores
    (a function of plain arguments, for processes)."""
    config = DeepConfig(**config_items)
    engine = _worker_engine(config)
    source = Path(records)
    games = {record.number: deep_scores(engine, record, config)
             for record in read_records(source)}
    header = portable_record({**asdict(config), "records": f"{source.parent.name}/{source.name}",
                              "records_sha256": records_digest(source)})
    write_deep(Path(target), games, header=header)
    return DeepReport(Path(target), sum(1 for scores in games.values() if scores),
                      sum(len(scores) for scores in games.values()))


def missing_files(sources: Sequence[Path], deep_root: Path) -> list[tuple[Path, Path]]:
    """The records files of ``sources`` with no deep scores file yet, and where each goes.

    :raises EngineError: a source is missing or holds no records file.
    """
    pairs = [(path, deep_path(deep_root, path)) for path in records_files(sources)
             if RECORDS_NAME.fullmatch(path.name)]
    return [(path, target) for path, target in pairs if not target.exists()]


def run_deepen(sources: Sequence[Path], deep_root: Path, config: DeepConfig, *,
               jobs: int = 1, limit: int | None = None,
               on_file: Callable[[DeepReport], None] | None = None) -> list[DeepReport]:
    """Write the missing deep scores files of ``sources`` (at most ``limit`` of them) under
    ``deep_root``, ``jobs`` files side by side; ``on_file`` is called as each is written."""
    todo = missing_files(sources, deep_root)[:limit]
    arguments = [(str(path), str(target), asdict(config)) for path, target in todo]
    if jobs <= 1:
        reports = []
        for args in arguments:
            reports.append(deepen_file(*args))
            if on_file is not None:
                on_file(reports[-1])
        return reports
    from doublecorner.train.selfplay import in_processes

    return list(in_processes(deepen_file, arguments, jobs, on_file))


def deep_overrides(records_path: Path, deep_root: Path) -> dict[int, dict[int, int]]:
    """The deep scores kept for the records file at ``records_path`` (none: empty).

    :raises EngineError: the deep scores file is damaged or belongs to another
        version of the records file.
    """
    path = deep_path(deep_root, records_path)
    if not path.exists():
        return {}
    _, games = read_deep(path, records_sha256=records_digest(records_path))
    return games
