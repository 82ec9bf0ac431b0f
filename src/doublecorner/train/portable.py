"""Paths as a kept record names them: as they would read on another machine.

A weights file's provenance and a records file's header are kept (shipped,
committed) and read elsewhere, so they name no folder of the machine that
wrote them: a path inside the folder the command runs in is kept relative
to it, any other absolute path by its last name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PureWindowsPath
from typing import Any

_WINDOWS_ABSOLUTE = re.compile(r"[A-Za-z]:[\\/]")


def recorded_path(path: str | os.PathLike[str] | None, *,
                  base: str | os.PathLike[str] | None = None) -> str | None:
    """``path`` as a provenance records it: relative to ``base`` (the current folder) if
    it lies inside it, else just its name; a relative path stays as it is.

    >>> recorded_path("/work/main/data/nets/gen1.dcnn", base="/work/main")
    'data/nets/gen1.dcnn'
    >>> recorded_path("/root/.local/share/doublecorner/egtb", base="/work/main")
    'egtb'
    >>> recorded_path("data/gen1"), recorded_path(None)
    ('data/gen1', None)
    """
    if path is None:
        return None
    if _WINDOWS_ABSOLUTE.match(os.fspath(path)):
        return PureWindowsPath(path).name
    place = Path(path)
    if not place.is_absolute():
        return place.as_posix()
    try:
        return place.relative_to(Path(base) if base is not None else Path.cwd()).as_posix()
    except ValueError:
        return place.name


def is_absolute_path(text: str) -> bool:
    """Whether ``text`` is an absolute path, of this system or of Windows.

    >>> is_absolute_path("/root/egtb"), is_absolute_path("C:/nets"), is_absolute_path("gen4")
    (True, True, False)
    """
    return text.startswith("/") or bool(_WINDOWS_ABSOLUTE.match(text)) or os.path.isabs(text)


def portable_record(value: Any) -> Any:
    """``value`` (JSON) with every absolute path in it as :func:`recorded_path` gives it.

    >>> portable_record({"played_by": [{"network": "/tmp/x/gen1.dcnn", "nodes": 6000}]})
    {'played_by': [{'network': 'gen1.dcnn', 'nodes': 6000}]}
    """
    if isinstance(value, dict):
        return {key: portable_record(item) for key, item in value.items()}
    if isinstance(value, list):
        return [portable_record(item) for item in value]
    if isinstance(value, str) and is_absolute_path(value):
        return recorded_path(value)
    return value
