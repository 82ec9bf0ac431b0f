"""How often passwords may be tried: per address, per account, and a lock that grows.

Every attempt that checks a password (sign-in, sign-up, a password change, an
account's deletion) takes a token from its address's bucket; those that name
an account also from that name's bucket, whether or not an account has the
name (so the limits tell no one which names exist). From the ``lock_after``-th
failure in a row on one name, each failure locks the name: for
``lock_seconds``, doubled with every further failure, up to
``max_lock_seconds``; a success ends the run. Even a patient guesser from
many addresses then tries a few dozen passwords a day.

>>> now = [0.0]
>>> limits = SignInLimits(per_address=RateLimiter(rate=1.0, burst=10),
...                       per_account=RateLimiter(rate=1.0, burst=10),
...                       lock_after=2, lock_seconds=60, max_lock_seconds=600,
...                       clock=lambda: now[0])
>>> for _ in range(3):
...     limits.failed("ann")
>>> limits.wait_address("10.0.0.1"), limits.wait_account("ann"), limits.wait_account("bob")
(0.0, 120.0, 0.0)
>>> now[0] = 120.0
>>> limits.wait_account("Ann")
0.0
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from doublecorner.web.limits import MAX_TRACKED_CLIENTS, RateLimiter, ServerLimits


@dataclass
class _Failures:
    in_a_row: int
    locked_until: float


class SignInLimits:
    """The buckets of password attempts by address and by account name, and the locks."""

    def __init__(self, *, per_address: RateLimiter, per_account: RateLimiter, lock_after: int,
                 lock_seconds: float, max_lock_seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address = per_address
        self.per_account = per_account
        self.lock_after = lock_after
        self.lock_seconds = lock_seconds
        self.max_lock_seconds = max_lock_seconds
        self._clock = clock
        self._failures: dict[str, _Failures] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, limits: ServerLimits, *,
           clock: Callable[[], float] = time.monotonic) -> SignInLimits:
        """The limits the server's ``limits`` set, on ``clock``."""
        return cls(per_address=RateLimiter(rate=limits.sign_in_rate, burst=limits.sign_in_burst,
                                           clock=clock),
                   per_account=RateLimiter(rate=limits.account_sign_in_rate,
                                           burst=limits.account_sign_in_burst, clock=clock),
                   lock_after=limits.sign_in_lock_after,
                   lock_seconds=limits.sign_in_lock_seconds,
                   max_lock_seconds=limits.sign_in_max_lock_seconds, clock=clock)

    def wait_address(self, address: str) -> float:
        """Take an attempt for ``address``: 0 if it may go ahead, else the seconds until
        it may."""
        return self.per_address.wait(address)

    def wait_account(self, name: str) -> float:
        """Take an attempt on the account ``name`` (whether or not it exists): 0 if it
        may go ahead, else the seconds until it may (it is locked, or tried too often)."""
        key = name.lower()
        with self._lock:
            failures = self._failures.get(key)
            locked = 0.0 if failures is None else failures.locked_until - self._clock()
        if locked > 0:
            return locked
        return self.per_account.wait(key)

    def failed(self, name: str) -> None:
        """A wrong password for ``name``: past ``lock_after`` in a row, the name locks."""
        key = name.lower()
        with self._lock:
            now = self._clock()
            failures = self._failures.get(key)
            if failures is None:
                if len(self._failures) >= MAX_TRACKED_CLIENTS:
                    self._forget_unlocked(now)
                failures = self._failures[key] = _Failures(0, now)
            failures.in_a_row += 1
            beyond = failures.in_a_row - self.lock_after
            if beyond >= 0:
                # 2.0 ** of a large run overflows to inf, which min() caps.
                failures.locked_until = now + min(self.max_lock_seconds,
                                                  self.lock_seconds * 2.0 ** min(beyond, 64))

    def succeeded(self, name: str) -> None:
        """The right password for ``name``: its run of failures ends."""
        with self._lock:
            self._failures.pop(name.lower(), None)

    def _forget_unlocked(self, now: float) -> None:
        """Drop the names that are not locked now (the oldest go if all are)."""
        for key, failures in list(self._failures.items()):
            if failures.locked_until <= now:
                del self._failures[key]
        if len(self._failures) >= MAX_TRACKED_CLIENTS:
            for key in list(self._failures)[:MAX_TRACKED_CLIENTS // 10]:
                del self._failures[key]
