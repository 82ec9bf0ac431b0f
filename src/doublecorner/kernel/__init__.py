"""The rules kernel: numba-compiled functions over 32-bit bitboards.

This package is the only place where the rules of movement are written. A
position is four integers: ``black``, ``white`` and ``kings`` bitboards (bit
``s - 1`` stands for square ``s``) and ``turn`` (0 = Black to move, 1 = White).
Every other layer (Board, perft, and later the engine and databases) calls these
functions.
"""

from doublecorner.kernel.encoding import decode_path
from doublecorner.kernel.hashing import zobrist_key
from doublecorner.kernel.movegen import (
    count_moves,
    generate_moves,
    has_captures,
)
from doublecorner.kernel.perft import perft

__all__ = [
    "count_moves",
    "decode_path",
    "generate_moves",
    "has_captures",
    "perft",
    "zobrist_key",
]
