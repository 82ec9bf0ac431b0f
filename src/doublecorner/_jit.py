"""The decorator that compiles the rules kernel.

numba is the default accelerator. Where it is not installed the kernel runs
unchanged as plain Python (correct, about 40x slower); ``NUMBA_DISABLE_JIT=1``
has the same effect with numba installed, which is how coverage and debuggers
see the kernel.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

try:
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only without numba
    _numba = None

HAS_NUMBA = _numba is not None

KERNEL_DIR = Path(__file__).with_name("kernel")


@functools.cache
def kernel_source_stamp() -> str:
    """A digest of every kernel source file.

    numba's disk cache checks only the timestamp of the file that defines a
    function, yet a compiled function inlines the kernel functions it calls from
    other files; stamping every cache entry with the digest of all kernel files
    makes an edit anywhere in the kernel invalidate every entry.
    """
    digest = hashlib.sha256()
    for path in sorted([*KERNEL_DIR.glob("*.py"), Path(__file__)]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def kernel_function(func: F) -> F:
    """Compile ``func`` with numba (cached on disk, GIL released), if numba is present."""
    return _compile(func, inline="never")


def kernel_inline(func: F) -> F:
    """Like :func:`kernel_function`, for small helpers that every caller inlines.

    Calls between separately compiled numba functions are real calls, which LLVM
    does not inline; for the bitboard one-liners of the hot paths that call costs
    more than the work.
    """
    return _compile(func, inline="always")


def _compile(func: F, *, inline: str) -> F:
    if _numba is None:  # pragma: no cover
        return func
    compiled = _numba.njit(cache=True, nogil=True, inline=inline)(func)
    cache_file = getattr(getattr(compiled, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = kernel_source_stamp()
    result: F = compiled
    return result
