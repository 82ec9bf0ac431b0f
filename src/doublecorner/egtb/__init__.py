"""Endgame tables: win/loss/draw and distance to conversion for positions of few pieces.

Build with ``doublecorner egtb build --pieces N`` (or :func:`build`), then probe.
Engines play with the installed tables by default (:data:`INSTALLED_TABLES`,
see :mod:`doublecorner.egtb.choice`).

>>> from doublecorner.egtb import Value
>>> Value.WIN > Value.DRAW > Value.LOSS
True

See :mod:`doublecorner.egtb.storage` for the file format and
:mod:`doublecorner.kernel.egtb_build` for how the tables are solved.
"""

from doublecorner.egtb.build import BuildReport, build, ensure_tables, verify
from doublecorner.egtb.choice import INSTALLED_TABLES, TableChoice, TableSource, resolve_tables
from doublecorner.egtb.material import (
    Material,
    build_levels,
    build_order,
    materials,
    total_positions,
)
from doublecorner.egtb.probe import (
    LOADED_PIECES,
    Probe,
    Tables,
    Value,
    load_tables,
    open_tables,
)
from doublecorner.egtb.storage import default_directory
from doublecorner.errors import TableError

__all__ = [
    "INSTALLED_TABLES",
    "LOADED_PIECES",
    "BuildReport",
    "Material",
    "Probe",
    "TableChoice",
    "TableError",
    "TableSource",
    "Tables",
    "Value",
    "build",
    "build_levels",
    "build_order",
    "default_directory",
    "ensure_tables",
    "load_tables",
    "materials",
    "open_tables",
    "resolve_tables",
    "total_positions",
    "verify",
]
