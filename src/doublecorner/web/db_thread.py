"""A worker thread for database calls: the event loop never waits for the disk.

SQLite takes one writer at a time anyway, and a commit waits for the disk;
the lobby's readers (profiles, the watch list) run their calls here, one at a
time, as the game service runs its own on its thread.

>>> import asyncio
>>> thread = DbThread("demo")
>>> asyncio.run(thread.run(sum, [1, 2, 3]))
6
>>> thread.close()
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_T = TypeVar("_T")


class DbThread:
    """One thread, named ``name``, that runs the calls handed to :meth:`run` in turn."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``function(*args, **kwargs)`` on the thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: function(*args, **kwargs))

    def close(self) -> None:
        """Finish the calls under way."""
        self._executor.shutdown(wait=True)
