"""The decorator that compiles the rules kernel.

numba is the default accelerator. Where it is not installed the kernel runs
unchanged as plain Python (correct, about 40x slower); ``NUMBA_DISABLE_JIT=1``
has the same effect with numba installed, which is how coverage and debuggers
see the kernel.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    HAS_NUMBA = False
else:
    HAS_NUMBA = True

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


def cache_folder(compiled: Callable[..., Any]) -> Path | None:
    """The folder of numba's disk cache that holds ``compiled``.

    ``NUMBA_CACHE_DIR`` or numba's own choice (``__pycache__`` beside the
    source, else a per-user folder); None where nothing is cached (no numba,
    ``NUMBA_DISABLE_JIT=1``).
    """
    path = getattr(getattr(compiled, "_cache", None), "_cache_path", None)
    return Path(path) if isinstance(path, str) and path else None


def kernel_function(func: F) -> F:
    """Compile ``func`` with numba (cached on disk, GIL released), if numba is present."""
    return _compile(func, inline="never")


def kernel_inline(func: F) -> F:
    """Like :func:`kernel_function`, for small helpers that every caller inlines.

    numba inlines these into its own IR before typing, so each caller gets a
    copy. LLVM inlines small compiled functions by itself but keeps larger ones
    as real calls; this is for the few whose call on a hot path costs more than
    their work. Every copy is compiled again with its caller, so keep them few.
    """
    return _compile(func, inline="always")


def kernel_no_alloc(func: F) -> F:
    """Like :func:`kernel_function`, for functions that take arrays but never allocate.

    numba counts the references to every array it passes between compiled
    functions: an atomic increment and decrement of the array's header around a
    call, and again wherever a callee is inlined. In the perft walk (millions of
    calls) that costs about a quarter of the time. These functions are compiled
    without numba's runtime (NRT), which drops the counting; allocating an array
    in one is then a compile error.
    """
    return _compile(func, inline="never", **_WITHOUT_NRT)


def kernel_exact_sums(func: F) -> F:
    """Like :func:`kernel_no_alloc`, letting LLVM reorder float sums to vectorise them.

    Only for functions whose floats all hold whole numbers small enough to be
    exact (below 2**24 in float32): their sums then come out the same in any
    order, so the compiled code and plain Python agree to the bit. The
    network's hidden layers are written that way (see ``kernel/network.py``).
    """
    return _compile(func, inline="never", fastmath=_REORDER_SUMS, **_WITHOUT_NRT)


# Reassociation (vectorised sums), fused multiply-add (exact on whole numbers)
# and no signed zeros; not the approximate reciprocals or functions.
_REORDER_SUMS = {"reassoc", "contract", "nsz"}


def _without_nrt() -> dict[str, bool]:
    """numba's option that compiles without its runtime, where this numba has it.

    ``_nrt`` is an underscore option of numba's CPU target; should a version lack
    it, the functions are compiled as usual (the same results, slower).
    """
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover
        return {}
    return {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}


_WITHOUT_NRT = _without_nrt() if HAS_NUMBA else {}


def _compile(func: F, *, inline: Literal["never", "always"], **options: Any) -> F:
    if not HAS_NUMBA:  # pragma: no cover
        return func
    settings: dict[str, Any] = {"cache": True, "nogil": True, "inline": inline, **options}
    compiled = numba.njit(**settings)(func)
    cache_file = getattr(getattr(compiled, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = kernel_source_stamp()
    # The dispatcher is called exactly like the function it compiles.
    return cast(F, compiled)
