"""Engine searches for the server: in worker threads, a few at a time, each capped in time.

The compiled search releases the GIL, so a search in a worker thread leaves
the event loop free to answer other requests. Each worker thread owns one
engine (an :class:`~doublecorner.engine.Engine` searches one position at a
time and keeps a transposition table worth reusing); searches beyond the
number of threads wait their turn in a :class:`~doublecorner.web.engine_queue.FairQueue`
(games first, clients in turn). Every search stops at the time cap, when
its caller is cancelled, when the pool closes, or (an analysis) when a game
needs its thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from doublecorner.egtb import Tables
from doublecorner.engine import Engine, InfoCallback, Limit, SearchResult
from doublecorner.errors import EngineError
from doublecorner.position import Position
from doublecorner.web.engine_queue import FairQueue, Priority


class Searcher(Protocol):
    """What the pool needs of an engine (tests give it slow or scripted ones)."""

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        """Search ``position`` within ``limit``; see :meth:`doublecorner.engine.Engine.search`."""
        ...


def engine_factory(hash_mb: int, tables: Tables | None = None) -> Callable[[], Searcher]:
    """A maker of engines with ``hash_mb`` MB of transposition table each (and ``tables``).

    The engines share the endgame tables: they only read them.
    """
    return lambda: Engine(hash_mb=hash_mb, tables=tables)


def capped(limit: Limit, max_seconds: float) -> Limit:
    """``limit`` with its time cut to ``max_seconds`` (and given that cap if it had none).

    >>> capped(Limit(depth=8), 10.0).time, capped(Limit(time=30.0), 10.0).time
    (10.0, 10.0)
    """
    seconds = max_seconds if limit.time is None else min(limit.time, max_seconds)
    return dataclasses.replace(limit, time=seconds)


class EnginePool:
    """At most ``threads`` searches at once, each capped at ``max_seconds``.

    >>> import asyncio
    >>> pool = EnginePool(threads=1, max_seconds=5.0, new_engine=engine_factory(1))
    >>> result = asyncio.run(pool.search(Position.start(), Limit(depth=2)))
    >>> result.depth
    2
    >>> pool.close()

    :raises EngineError: ``threads`` is below 1 or ``max_seconds`` is not positive.
    """

    def __init__(self, *, threads: int, max_seconds: float,
                 new_engine: Callable[[], Searcher]) -> None:
        if threads < 1:
            raise EngineError(f"the engine pool needs at least 1 thread, not {threads}")
        capped(Limit(), max_seconds)  # checks max_seconds the way Limit checks times
        self.threads = threads
        self.max_seconds = max_seconds
        self._new_engine = new_engine
        self._executor = ThreadPoolExecutor(max_workers=threads,
                                            thread_name_prefix="doublecorner-engine")
        self._queue = FairQueue(slots=threads)
        self._local = threading.local()
        self._running: set[threading.Event] = set()
        self._running_lock = threading.Lock()
        self._closed = False

    async def search(self, position: Position, limit: Limit, *,
                     history: Sequence[Position] = (), halfmove_clock: int = 0,
                     on_info: InfoCallback | None = None,
                     stop: threading.Event | None = None,
                     priority: Priority = Priority.GAME, client: str = "") -> SearchResult:
        """Search in a worker thread once it is this search's turn (by ``priority``, then
        ``client`` by client); ``on_info`` is called in that thread.

        Cancelling the caller stops the search (a search still waiting for a
        thread never starts). An analysis may be stopped early by a game's search.

        :raises EngineError: the pool is closed.
        """
        if self._closed:
            raise EngineError("the engine pool is closed")
        stop = threading.Event() if stop is None else stop
        ticket = await self._queue.acquire(priority, client, stop)
        loop = asyncio.get_running_loop()
        try:
            running = self._executor.submit(self._search, position,
                                            capped(limit, self.max_seconds), tuple(history),
                                            halfmove_clock, on_info, stop)
        except BaseException:
            self._queue.release(ticket)
            raise

        def release(_: object) -> None:  # runs in the engine's thread
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(self._queue.release, ticket)

        # The thread is free when the search has ended, not when its caller gives up.
        running.add_done_callback(release)
        try:
            return await asyncio.wrap_future(running)
        except asyncio.CancelledError:
            stop.set()
            raise

    def close(self) -> None:
        """Stop every running search, drop the waiting ones and wait for the threads to end."""
        self._closed = True
        with self._running_lock:
            for stop in self._running:
                stop.set()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _search(self, position: Position, limit: Limit, history: tuple[Position, ...],
                halfmove_clock: int, on_info: InfoCallback | None,
                stop: threading.Event) -> SearchResult:
        engine: Searcher | None = getattr(self._local, "engine", None)
        if engine is None:
            try:
                engine = self._local.engine = self._new_engine()
            except MemoryError:
                raise EngineError("the server has not the memory for an engine's table "
                                  "(start it with a smaller --hash)") from None
        with self._running_lock:
            if self._closed:
                stop.set()
            self._running.add(stop)
        try:
            return engine.search(position, limit, history=history,
                                 halfmove_clock=halfmove_clock, on_info=on_info, stop=stop)
        finally:
            with self._running_lock:
                self._running.discard(stop)
