"""One fit from self-play records to a weights file, with the provenance written into it.

The provenance says what the network learnt from (folders, the records files
with their SHA-256, games, positions, the tables that labelled them), who
played those games (the evaluation and network of the self-play, hence
the generation: one more than the network that played), how the fit went
(seed, target blend, loss per epoch) and, carried over, the record of every
earlier generation, so a shipped file tells its whole history. Paths are
recorded as they would read on another machine (:func:`recorded_path`): a
shipped file names no folder of the machine that trained it.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from doublecorner.engine.network import Network, load_network
from doublecorner.errors import EngineError, TableError
from doublecorner.train.dataset import (
    DISTANCE_CAP,
    build_dataset,
    repeat_deep,
    split_by_game,
)
from doublecorner.train.deep import deep_path, read_deep
from doublecorner.train.fit import EpochReport, FitConfig, fit
from doublecorner.train.portable import portable_record, recorded_path
from doublecorner.train.positions import COLUMNS, UNKNOWN, read_positions
from doublecorner.train.records import configs_of, records_digest, records_files

if TYPE_CHECKING:
    from doublecorner.egtb import Tables

# The fit labels positions with tables of up to 6 pieces when the folder has them: one
# process, the values alone (640 MB for 6 pieces), a slice's DTC read only if asked for.
LABEL_PIECES = 6


@dataclass(frozen=True, slots=True, kw_only=True)
class FitRequest:
    data: tuple[Path, ...]  # folders of records files, or records files
    out: Path
    start: str | None = None
    result_weight: float = 0.5
    epochs: int = 30
    batch_size: int = 4096
    learning_rate: float = 1e-3
    patience: int = 3
    validation: float = 0.05
    seed: int = 1
    distance_step: float = 0.0
    # The tables that label the positions (and give the distances for a distance_step);
    # None: no position is labelled by the tables.
    egtb_dir: Path | None = None
    # Deep scores kept for the records (see .deep), taken instead of the records' own.
    deep_root: Path | None = None
    deep_repeat: int = 1  # times each position with a deep score is trained on an epoch


def load_label_tables(directory: Path) -> Tables:
    """The tables that label a fit's positions: up to :data:`LABEL_PIECES` pieces, as many
    as ``directory`` holds.

    :raises TableError: a slice file is damaged.
    """
    from doublecorner.egtb import load_tables

    return load_tables(directory, max_pieces=LABEL_PIECES, lazy_dtc=True)


def loaded_pieces(tables: Tables) -> int:
    """The most pieces of any slice loaded (0 for none)."""
    from doublecorner.egtb import materials

    return max((material.pieces for material in materials(tables.max_pieces)
                if tables.has(material)), default=0)


def _records_name(path: Path) -> str:
    """A records file as the provenance names it: :func:`recorded_path`, but with its
    folder's name kept where that gives only the file's (every folder has a games-00000).

    >>> _records_name(Path("/elsewhere/gen5/games-00000.txt.xz"))
    'gen5/games-00000.txt.xz'
    """
    name = recorded_path(path)
    if name == path.name and path.is_absolute():
        return f"{path.parent.name}/{path.name}"
    return str(name)


def _player_generation(configs: list[dict[str, Any]]) -> int:
    """The generation of the strongest network that played the games (0: the linear one).

    Records files record it; for settings that do not (games converted from before
    they did), the network file is read (if it is still where it was).
    """
    generation = 0
    for config in configs:
        if config.get("evaluation") != "nn":
            continue
        played = config.get("network_generation")
        if played is None:
            try:
                played = load_network(config.get("network")).provenance.get("generation", 0)
            except EngineError:
                played = 0
        generation = max(generation, int(played))
    return generation


def fit_network(request: FitRequest, *,
                on_epoch: Callable[[EpochReport], None] | None = None,
                on_batch: Callable[[int, int], None] | None = None,
                on_read: Callable[[int, int], None] | None = None,
                on_note: Callable[[str], None] | None = None) -> Network:
    """Fit a network to the records in ``request.data``, write it to ``request.out``, return it.

    ``on_read(done, total)`` is called as each records file is read.

    :raises EngineError: no records, a damaged records file, too few positions,
        a bad start file, or tables that cannot be read.
    """
    note = on_note or (lambda text: None)
    paths = records_files(request.data)
    tables = None
    if request.egtb_dir is not None:
        try:
            tables = load_label_tables(request.egtb_dir)
        except TableError as error:
            raise EngineError(f"cannot load the tables in {request.egtb_dir}: {error}") from None
        note(f"labelling positions with the tables of up to {loaded_pieces(tables)} pieces "
             f"in {request.egtb_dir}")
    elif request.distance_step > 0:
        raise EngineError("a distance step needs the endgame tables (egtb_dir)")
    parts = []
    for done, path in enumerate(paths, start=1):
        parts.append(read_positions(path, tables=tables, deep_root=request.deep_root))
        if on_read is not None:
            on_read(done, len(paths))
    columns = {name: np.concatenate([part[name] for part in parts]) for name in COLUMNS}
    # Game numbers restart in each folder: make them distinct, file by file, for the split.
    offset = 0
    games = []
    for part in parts:
        if len(part["game"]):
            games.append(part["game"].astype(np.int64) - int(part["game"].min()) + offset)
            offset = int(games[-1].max()) + 1
    columns["game"] = np.concatenate(games) if games else columns["game"].astype(np.int64)
    labelled = int(np.count_nonzero(columns["table"] != UNKNOWN))
    deepened = int(np.count_nonzero(columns["deep"]))
    note(f"read {len(columns['black']):,} positions of {len(np.unique(columns['game'])):,} "
         f"games from {len(paths):,} records files ({labelled:,} labelled by the tables, "
         f"{deepened:,} with deep scores)")
    try:
        dataset = build_dataset(columns, result_weight=request.result_weight,
                                tables=tables if request.distance_step > 0 else None,
                                distance_step=request.distance_step)
    except TableError as error:
        raise EngineError(f"the tables in {request.egtb_dir} cannot give the distance of a "
                          f"position they labelled: {error}") from None
    training, validation = split_by_game(dataset, validation_share=request.validation,
                                         seed=request.seed)
    if len(training) == 0 or len(validation) == 0:
        raise EngineError(f"too few games to fit: {len(training)} training and "
                          f"{len(validation)} validation positions")
    note(f"{len(dataset):,} quiet positions: {len(training):,} to train on, "
         f"{len(validation):,} held out")
    if request.deep_repeat > 1:
        # Only the training set: the validation loss stays comparable between fits.
        repeated = int(np.count_nonzero(training.deep))
        training = repeat_deep(training, request.deep_repeat)
        note(f"each of the {repeated:,} training positions with a deep score "
             f"{request.deep_repeat} times: {len(training):,} rows to train on")
    start = load_network(request.start) if request.start is not None else None
    config = FitConfig(epochs=request.epochs, batch_size=request.batch_size,
                       learning_rate=request.learning_rate, patience=request.patience,
                       seed=request.seed)
    result = fit(training, validation, config,
                 start=None if start is None else start.parameters,
                 on_epoch=on_epoch, on_batch=on_batch)
    configs = configs_of(paths)
    generation = _player_generation(configs) + 1
    history = []
    if start is not None:
        history = list(start.provenance.get("history", []))
        history.append({key: value for key, value in start.provenance.items()
                        if key != "history"})
    provenance = {
        "generation": generation,
        "trained": datetime.date.today().isoformat(),
        "data": {
            "folders": [str(directory) for directory in request.data],
            # Each file by the name a fresh clone reads it by, and its digest: exactly
            # the games the network learnt from.
            "records": [[_records_name(path), records_digest(path)] for path in paths],
            "games": len(np.unique(columns["game"])),
            "positions": len(columns["black"]),
            "table_labels": {
                "tables": None if request.egtb_dir is None else str(request.egtb_dir),
                "pieces": 0 if tables is None else loaded_pieces(tables),
                "positions": labelled,
            },
            "deep_scores": {
                "folder": None if request.deep_root is None else str(request.deep_root),
                "positions": deepened,
                "repeat": request.deep_repeat,
                "made_by": _deep_configs(paths, request.deep_root),
            },
            "quiet_positions": len(dataset),
            "training": len(training),
            "validation": len(validation),
            "played_by": configs,
        },
        "fit": {
            "seed": request.seed,
            "result_weight": request.result_weight,
            "distance_step": request.distance_step,
            "distance_cap": DISTANCE_CAP,
            "start": request.start,
            "batch_size": request.batch_size,
            "learning_rate": request.learning_rate,
            "best_epoch": result.best_epoch,
            "validation_loss": round(result.best_validation_loss, 6),
            "epochs": [[report.epoch, _rounded(report.training_loss),
                        _rounded(report.validation_loss)] for report in result.epochs],
        },
        "history": history,
    }
    network = Network(result.parameters, portable_record(provenance), source=str(request.out))
    network.save(request.out)
    return network


def _deep_configs(paths: list[Path], deep_root: Path | None) -> list[dict[str, Any]]:
    """The distinct settings the deep scores used were searched with (their headers less
    the records file each names)."""
    if deep_root is None:
        return []
    seen: list[dict[str, Any]] = []
    for path in paths:
        place = deep_path(deep_root, path)
        if place.exists():
            header, _ = read_deep(place)
            settings = {key: value for key, value in header.items()
                        if key not in ("records", "records_sha256")}
            if settings not in seen:
                seen.append(settings)
    return seen


def _rounded(value: float) -> float | None:
    return None if value != value else round(value, 6)  # NaN (no training yet) as null
