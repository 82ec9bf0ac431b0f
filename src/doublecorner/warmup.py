"""Load or compile the kernel before first use, saying so when it compiles.

numba compiles the kernel the first time it runs after an install (seconds to
a minute) and loads it from its disk cache afterwards (a fraction of a
second). Rather than look frozen, a run that compiles logs a notice on the
``doublecorner`` logger as the compiling starts (with no logging set up,
Python prints warnings to stderr); a load from the cache says nothing, however
busy the machine.

Processes share the cache, so compiling is done under a lock on a file in it:
of two processes that start on a stale cache, one compiles and stores, the
other waits for it and then loads what it stored. A load from a full cache
takes no lock: each load is first tried without it and given up at numba's
first compile (its ``numba:compile`` event, before any work), then run again
under the lock.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, BinaryIO

from doublecorner._jit import HAS_NUMBA, cache_folder

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: compiles there are not serialised
    fcntl = None

logger = logging.getLogger("doublecorner")

NOTICE_AFTER_SECONDS = 2.0  # a wait for another process's compile longer than this is said
LOCK_FILE_NAME = "doublecorner-compile.lock"


@functools.cache
def ensure_compiled() -> None:
    """Compile or load every kernel function of the rules once per process."""
    _load_announced("the move generator", _touch_every_kernel_function)


def load_announced(what: str, load: Callable[[], None]) -> None:
    """Run ``load`` (compiling or loading ``what``), logging a notice if it compiles.

    For kernel functions outside the rules, such as the engine's and the
    batched environments', which their own packages load on first use.
    """
    _load_announced(what, load)


class _CacheMissed(Exception):
    """Raised at numba's first compile inside a load tried without the lock."""


def _give_up() -> None:
    raise _CacheMissed


def _load_announced(what: str, load: Callable[[], None]) -> None:
    """Run ``load``, from the cache without a lock, else under the lock and announced."""
    if not HAS_NUMBA:  # pragma: no cover - the plain-Python kernel needs no compiling
        return
    watch = _compile_watch()
    try:
        with watch.calling(_give_up):
            load()
        return
    except _CacheMissed:
        pass  # nothing was compiled: numba raised it before its first compile began
    started: list[float] = []

    def announce() -> None:
        if not started:
            started.append(time.monotonic())
            logger.warning("doublecorner: compiling %s with numba (the first run after an "
                           "install: under a minute in all; cached afterwards)...", what)

    # Under the lock, whatever another process compiled meanwhile loads from the cache.
    with _compile_lock().held(what), watch.calling(announce):
        load()
    if started:
        logger.warning("doublecorner: compiled in %.0f s", time.monotonic() - started[0])


class _CompileWatch:
    """Calls a function of the thread that set it at each numba compile on that thread.

    numba's event listeners are process-wide; the function is per thread, so
    that a load on one thread is not told of another thread's compiles.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def calling(self, on_compile: Callable[[], None]) -> Iterator[None]:
        """Call ``on_compile`` at each compile on this thread while inside."""
        outer = getattr(self._local, "on_compile", None)
        self._local.on_compile = on_compile
        try:
            yield
        finally:
            self._local.on_compile = outer

    def compile_started(self) -> None:
        on_compile = getattr(self._local, "on_compile", None)
        if on_compile is not None:
            on_compile()


@functools.cache
def _compile_watch() -> _CompileWatch:
    """The process's one watch, registered with numba on first use."""
    from numba.core import event

    watch = _CompileWatch()

    class Listener(event.Listener):
        def on_start(self, _event: Any) -> None:
            watch.compile_started()

        def on_end(self, _event: Any) -> None:
            pass

    event.register("numba:compile", Listener())  # type: ignore[no-untyped-call]
    return watch


class _CompileLock:
    """One compile at a time: across processes by a file lock, across threads by an RLock.

    Reentrant on one thread (a load that loads something else inside), where
    a second lock on the file would wait for itself.
    """

    def __init__(self) -> None:
        self._threads = threading.RLock()
        self._depth = 0

    @contextlib.contextmanager
    def held(self, what: str) -> Iterator[None]:
        """Hold the lock while inside, saying so if another process makes us wait."""
        with self._threads, contextlib.ExitStack() as stack:
            if self._depth == 0:
                lock_file = _open_lock_file()
                if lock_file is not None:
                    stack.enter_context(lock_file)
                    _lock_waiting_announced(lock_file, what)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1


@functools.cache
def _compile_lock() -> _CompileLock:
    return _CompileLock()


def _open_lock_file() -> BinaryIO | None:
    """The lock file in numba's cache folder of the kernel; None where there is none to lock."""
    from doublecorner.kernel.perft import perft

    folder = cache_folder(perft)
    if fcntl is None or folder is None:
        return None
    try:
        return (folder / LOCK_FILE_NAME).open("ab")  # append: never truncates another's
    except OSError:  # a cache folder numba may write but this user may not lock in
        return None


def _lock_waiting_announced(lock_file: BinaryIO, what: str) -> None:
    """Lock ``lock_file`` (released when it is closed), saying so if that takes a while."""
    if fcntl is None:  # pragma: no cover - no lock file is opened without fcntl
        return
    waiting = threading.Timer(NOTICE_AFTER_SECONDS, logger.warning, [
        "doublecorner: waiting for another process to finish compiling, then loading %s...",
        what])
    waiting.daemon = True
    waiting.start()
    try:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
    finally:
        waiting.cancel()


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
