"""The evaluation's weights: one value per feature of :mod:`doublecorner.kernel.evaluate`.

The defaults live in ``weights.json`` beside this module, written by the
tuning script ``bench/tune.py`` (which records how they were fitted); any
:class:`Weights` can be given to an :class:`~doublecorner.engine.Engine`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from doublecorner.errors import EngineError
from doublecorner.kernel.evaluate import FEATURE_NAMES

DEFAULTS_FILE = "weights.json"


class Weights(Mapping[str, float]):
    """An immutable mapping from every feature name to its weight.

    >>> weights = Weights.default()
    >>> weights["man"]
    100.0
    >>> weights.replace(mobility=0.0)["mobility"]
    0.0
    >>> weights.replace(wings=1.0)
    Traceback (most recent call last):
    ...
    doublecorner.errors.EngineError: unknown evaluation feature 'wings'; known: man, king, ...
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, float]) -> None:
        unknown = sorted(set(values) - set(FEATURE_NAMES))
        if unknown:
            raise EngineError(f"unknown evaluation feature {unknown[0]!r}; known: "
                              f"{', '.join(FEATURE_NAMES[:2])}, ...")
        missing = [name for name in FEATURE_NAMES if name not in values]
        if missing:
            raise EngineError(f"no weight for evaluation feature {missing[0]!r}")
        self._values = tuple(float(values[name]) for name in FEATURE_NAMES)

    @classmethod
    def default(cls) -> Weights:
        """The tuned weights shipped with the package."""
        return _default_weights()

    @classmethod
    def from_json(cls, text: str) -> Weights:
        """Read weights from the JSON object written by :meth:`to_json`.

        :raises EngineError: if the text is not such an object.
        """
        try:
            document: Any = json.loads(text)
        except json.JSONDecodeError as error:
            raise EngineError(f"weights are not valid JSON: {error}") from None
        values = document.get("weights") if isinstance(document, dict) else None
        if not isinstance(values, dict):
            raise EngineError('weights JSON must be an object with a "weights" object')
        return cls(values)

    def to_json(self, **notes: object) -> str:
        """This set of weights as JSON, with any notes (how they were made) beside them."""
        return json.dumps({**notes, "weights": dict(self)}, indent=2) + "\n"

    def replace(self, **changes: float) -> Weights:
        """A copy with some weights changed."""
        return Weights({**dict(self), **changes})

    def as_array(self) -> np.ndarray:
        """The weights in feature order, as the kernel reads them."""
        return np.array(self._values, dtype=np.float64)

    def __getitem__(self, name: str) -> float:
        try:
            return self._values[FEATURE_NAMES.index(name)]
        except ValueError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(FEATURE_NAMES)

    def __len__(self) -> int:
        return len(FEATURE_NAMES)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Weights) and self._values == other._values

    def __hash__(self) -> int:
        return hash(self._values)

    def __repr__(self) -> str:
        return f"Weights({dict(self)!r})"


@cache
def _default_weights() -> Weights:
    text = resources.files("doublecorner.engine").joinpath(DEFAULTS_FILE).read_text("utf-8")
    return Weights.from_json(text)
