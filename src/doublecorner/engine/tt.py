"""The transposition table: bounded memory, sized in megabytes."""

from __future__ import annotations

import numpy as np

from doublecorner.errors import EngineError
from doublecorner.kernel.tt import TT_FIELDS

ENTRY_BYTES = TT_FIELDS * 8
MIN_MEGABYTES = 1
MAX_MEGABYTES = 65536


class TranspositionTable:
    """Search results by Zobrist key, shared by the searches of one engine.

    The kernel reads and writes the array in place (see
    :mod:`doublecorner.kernel.search` for the layout). Its entry count is the
    largest power of two that fits in ``megabytes``.

    >>> table = TranspositionTable(1)
    >>> table.entries, table.megabytes
    (32768, 1)
    """

    def __init__(self, megabytes: int = 64) -> None:
        if not MIN_MEGABYTES <= megabytes <= MAX_MEGABYTES:
            raise EngineError(f"hash size must be {MIN_MEGABYTES} to {MAX_MEGABYTES} MB, "
                              f"not {megabytes}")
        self.megabytes = megabytes
        entries = 1 << ((megabytes << 20) // ENTRY_BYTES).bit_length() - 1
        self.table = np.zeros((entries, TT_FIELDS), np.int64)
        # Touch every page now: the operating system maps zeroed memory lazily, and
        # faulting it in during the first searches would eat into their time.
        self.table.fill(0)
        self.generation = 0

    @property
    def entries(self) -> int:
        return int(self.table.shape[0])

    def clear(self) -> None:
        """Forget every entry (a new game)."""
        self.table.fill(0)
        self.generation = 0

    def next_generation(self) -> int:
        """Age the entries at the start of a search, so old deep ones give way."""
        self.generation = (self.generation + 1) & 0xFF
        return self.generation
