"""Account passwords, hashed with Argon2id off the event loop, a few at a time.

argon2-cffi's :class:`~argon2.PasswordHasher` (RFC 9106's low-memory profile
by default: 64 MiB and three passes, tens of milliseconds of a core each) does
the work in a thread of its own, at most ``at_once`` hashes at a time: a burst
of sign-ins waits its turn instead of taking a core and 64 MiB each. A wrong
password and an unknown user cost the same: the unknown one is checked
against a dummy hash made with the same parameters, so no answer's timing
tells whether a name exists. A hash made with older parameters is
recomputed at the next sign-in (:meth:`Passwords.needs_rehash`).

>>> import asyncio
>>> from argon2 import PasswordHasher
>>> passwords = Passwords(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
>>> async def demo():
...     stored = await passwords.hash("correct horse")
...     return (await passwords.verify(stored, "correct horse"),
...             await passwords.verify(stored, "wrong horse"),
...             await passwords.verify(None, "anything"))
>>> asyncio.run(demo())
(True, False, False)
>>> passwords.close()
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_T = TypeVar("_T")

DEFAULT_HASHES_AT_ONCE = 2  # a hash takes a core and 64 MiB: this machine has two cores


class Passwords:
    """Hashing and checking passwords with ``hasher`` (default: Argon2id, RFC 9106 low
    memory), at most ``at_once`` at a time."""

    def __init__(self, hasher: PasswordHasher | None = None, *,
                 at_once: int = DEFAULT_HASHES_AT_ONCE) -> None:
        self.hasher = PasswordHasher() if hasher is None else hasher
        self.at_once = at_once
        self._threads = ThreadPoolExecutor(max_workers=at_once,
                                           thread_name_prefix="doublecorner-hash")
        # Made at the first check of an unknown name, with the same parameters.
        self._dummy: str | None = None
        self._dummy_lock = threading.Lock()
        self._turns: asyncio.Semaphore | None = None

    def close(self) -> None:
        """Finish the hashes under way."""
        self._threads.shutdown(wait=True)

    async def _in_turn(self, work: Callable[[], _T]) -> _T:
        """Run ``work`` in a hashing thread, once one of the ``at_once`` turns is free."""
        # The semaphore keeps a waiting request from holding a thread: one that gives up
        # (its client left) never hashes.
        if self._turns is None:
            self._turns = asyncio.Semaphore(self.at_once)
        async with self._turns:
            return await asyncio.get_running_loop().run_in_executor(self._threads, work)

    async def hash(self, password: str) -> str:
        """The Argon2id hash of ``password`` (a PHC string with its salt and parameters)."""
        return await self._in_turn(lambda: str(self.hasher.hash(password)))

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made from. ``None`` (no such
        account) checks against a dummy hash, which takes as long, and is ``False``."""
        if stored is None:
            await self._in_turn(lambda: self._check(self._dummy_hash(), password))
            return False
        return await self._in_turn(lambda: self._check(stored, password))

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than the hasher's."""
        try:
            return bool(self.hasher.check_needs_rehash(stored))
        except (InvalidHashError, ValueError):
            return True

    def _check(self, stored: str, password: str) -> bool:
        try:
            return bool(self.hasher.verify(stored, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False  # a wrong password, or a damaged or emptied hash

    def _dummy_hash(self) -> str:
        with self._dummy_lock:
            if self._dummy is None:
                self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
            return self._dummy
