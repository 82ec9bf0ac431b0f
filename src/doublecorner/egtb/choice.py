"""Which endgame tables an engine plays with: the installed ones, a folder's, or none.

Every front end that makes an engine (``analyse``, ``bestmove``, ``play``,
``match``, ``serve``, the protocol, :class:`~doublecorner.engine.Engine`
itself) says which tables it wants as a :data:`TableChoice` and resolves it
here, so that they all mean the same: by default (:data:`INSTALLED_TABLES`)
the tables ``doublecorner egtb build`` put in the default folder, if it
holds any; a folder of the user's; a :class:`Tables` already made; or none.

The tables of a folder are opened once per process and shared by every
engine that names that folder (a server's engine threads, a match's two
players): they are read-only data, and each slice is read only when a search
comes near it (:func:`~doublecorner.egtb.probe.open_tables`).

>>> resolve_tables(None) is None
True
"""

from __future__ import annotations

import enum
import os
import threading
from pathlib import Path
from typing import Final, TypeAlias

from doublecorner.egtb.material import materials
from doublecorner.egtb.probe import LOADED_PIECES, Tables, open_tables
from doublecorner.egtb.storage import SUFFIX, default_directory
from doublecorner.errors import TableError


class TableSource(enum.Enum):
    """Tables named by where they are installed rather than by a folder."""

    INSTALLED = "installed"
    """The tables in :func:`~doublecorner.egtb.default_directory`, if it holds any."""


INSTALLED_TABLES: Final = TableSource.INSTALLED
"""The engines' default: the installed tables, or none if none are installed."""

TableChoice: TypeAlias = "Tables | str | os.PathLike[str] | TableSource | None"
"""Which tables an engine plays with: :data:`INSTALLED_TABLES`, a folder, a
:class:`Tables`, or ``None`` for none."""

_SLICE_NAMES: Final = {f"{material.name}{SUFFIX}": material.pieces
                       for material in materials(LOADED_PIECES)}
_opened: dict[Path, Tables] = {}  # one per folder per process, shared by its engines
_opening = threading.Lock()


def resolve_tables(choice: TableChoice) -> Tables | None:
    """The tables ``choice`` names, ready for an engine (``None``: play without).

    :data:`INSTALLED_TABLES` gives the default folder's tables if it holds a
    slice, else ``None``; a folder gives its tables, shared as the module
    says; a :class:`Tables` is itself.

    :raises TableError: a folder given by name holds no table.
    """
    if choice is None or isinstance(choice, Tables):
        return choice
    if choice is TableSource.INSTALLED:
        directory = default_directory()
        return shared_tables(directory) if holds_tables(directory) else None
    return shared_tables(Path(choice))


def shared_tables(directory: Path) -> Tables:
    """This process's tables of ``directory``: opened on first call, the same object after.

    They hold up to the most pieces that a slice file there has (at most
    :data:`~doublecorner.egtb.LOADED_PIECES`); slices are read as searches
    reach them.

    :raises TableError: ``directory`` holds no slice file.
    """
    key = directory.resolve()
    with _opening:
        tables = _opened.get(key)
        if tables is None:
            pieces = _most_pieces(directory)
            if pieces == 0:
                raise TableError(f"no endgame tables in {directory} (make them with "
                                 "'doublecorner egtb build')")
            tables = _opened[key] = open_tables(directory, max_pieces=pieces)
        return tables


def holds_tables(directory: Path) -> bool:
    """Whether ``directory`` holds a slice file of up to ``LOADED_PIECES`` pieces."""
    return _most_pieces(directory) > 0


def _most_pieces(directory: Path) -> int:
    """The most pieces of a slice file in ``directory``; 0 if it has none (or is no folder)."""
    try:
        names = os.listdir(directory)
    except OSError:  # missing, or no folder: no tables there
        return 0
    return max((_SLICE_NAMES.get(name, 0) for name in names), default=0)
