"""Load or compile the kernel before first use, saying so when it takes a while.

numba compiles the kernel the first time it runs after an install (some
seconds) and loads it from its disk cache afterwards (a fraction of a second).
Rather than look frozen, the first slow load logs a notice on the
``doublecorner`` logger; with no logging set up, Python prints warnings to
stderr.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable

from doublecorner._jit import HAS_NUMBA

logger = logging.getLogger("doublecorner")

NOTICE_AFTER_SECONDS = 2.0  # a cache load takes well under this


@functools.cache
def ensure_compiled() -> None:
    """Compile or load every kernel function of the rules once per process."""
    _load_announced("the move generator", _touch_every_kernel_function)


def load_announced(what: str, load: Callable[[], None]) -> None:
    """Run ``load`` (compiling or loading ``what``), logging a notice if it takes a while.

    For kernel functions outside the rules, such as the engine's and the
    batched environments', which their own packages load on first use.
    """
    _load_announced(what, load)


def _load_announced(what: str, load: Callable[[], None]) -> None:
    """Run ``load``, logging a notice if it takes long enough to look frozen."""
    if not HAS_NUMBA:  # pragma: no cover - the plain-Python kernel needs no compiling
        return
    started = time.monotonic()
    announced = threading.Event()

    def announce() -> None:
        announced.set()
        logger.warning("doublecorner: compiling %s with numba (the first run after an "
                       "install: under a minute in all; cached afterwards)...", what)

    timer = threading.Timer(NOTICE_AFTER_SECONDS, announce)
    timer.daemon = True
    timer.start()
    try:
        load()
    finally:
        timer.cancel()
    if announced.is_set():
        logger.warning("doublecorner: compiled in %.0f s", time.monotonic() - started)


def _touch_every_kernel_function() -> None:
    import numpy as np

    from doublecorner import kernel
    from doublecorner.kernel.replies import REPLY_COUNT_FIELD, generate_with_reply_counts

    black, white, turn = (1 << 12) - 1, 0xFFFFFFFF ^ ((1 << 20) - 1), 0
    kernel.generate_moves(black, white, 0, turn)
    kernel.count_moves(black, white, 0, turn)
    kernel.has_captures(black, white, 0, turn)
    kernel.zobrist_key(black, white, 0, turn)
    kernel.perft(black, white, 0, turn, 2)
    # What Board calls for its legal moves: rows with a reply count, as Board passes them.
    generate_with_reply_counts(black, white, 0, turn,
                               np.empty((64, REPLY_COUNT_FIELD + 1), np.int64))
