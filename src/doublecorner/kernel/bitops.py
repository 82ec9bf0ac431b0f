"""Bit counting primitives: plain Python, and single CPU instructions under numba.

The Python definitions are the meaning; the numba overloads lower them to LLVM's
``ctpop``/``cttz`` so the compiled kernel gets ``popcnt``/``tzcnt``. With
``NUMBA_DISABLE_JIT=1`` the Python definitions run, with the same results.
"""

from __future__ import annotations

from typing import Any

from doublecorner._jit import HAS_NUMBA


def popcount(bits: int) -> int:
    """Number of set bits of a non-negative integer.

    >>> popcount(0b1011)
    3
    """
    return int(bits).bit_count()


def bit_index(single_bit: int) -> int:
    """Index of the lowest set bit (the only one, where the kernel calls it).

    >>> bit_index(1 << 31)
    31
    """
    value = int(single_bit)
    return (value & -value).bit_length() - 1


if HAS_NUMBA:
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def _ctpop(typing_context: Any, value: Any) -> Any:
        if not isinstance(value, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.ctpop(args[0])

        return value(value), codegen

    @intrinsic
    def _cttz(typing_context: Any, value: Any) -> Any:
        if not isinstance(value, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return value(value), codegen

    @overload(popcount)
    def _popcount_compiled(bits: Any) -> Any:
        def implementation(bits: Any) -> Any:
            return _ctpop(bits)  # type: ignore[call-arg]  # numba supplies the context

        return implementation

    @overload(bit_index)
    def _bit_index_compiled(single_bit: Any) -> Any:
        def implementation(single_bit: Any) -> Any:
            return _cttz(single_bit)  # type: ignore[call-arg]  # numba supplies the context

        return implementation
