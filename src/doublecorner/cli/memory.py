"""Whether the machine has the memory an option asks for, checked before anything is allocated.

``--hash 65536`` is within the engine's range, yet on most machines it is a
MemoryError (or the kernel's out-of-memory killer) the moment the table is
made; the commands say so in one line instead.
"""

from __future__ import annotations

import os

from doublecorner.cli.common import UsageError


def available_memory_mb() -> int | None:
    """The memory the system can give without swapping (MemAvailable), else all of it, in MB;
    ``None`` when neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (AttributeError, OSError, ValueError):
        return None


def check_hash_fits(hash_mb: int, available_mb: int | None = None) -> None:
    """Check that a transposition table of ``hash_mb`` MB fits in the memory available.

    >>> check_hash_fits(64, available_mb=4000)
    >>> check_hash_fits(8192, available_mb=400)
    Traceback (most recent call last):
    doublecorner.cli.common.UsageError: --hash 8192 needs 8192 MB, and 400 MB are available

    :raises UsageError: it does not fit.
    """
    available = available_memory_mb() if available_mb is None else available_mb
    if available is not None and hash_mb > available:
        raise UsageError(f"--hash {hash_mb} needs {hash_mb} MB, and {available} MB "
                         "are available")
