"""Plain-text board diagrams with a1-h8 coordinates."""

from __future__ import annotations

from doublecorner.kernel.bits import square_row_file

_FILES = "a b c d e f g h"


def board_diagram(black: int, white: int, kings: int, *, flipped: bool = False) -> str:
    """The board as text: ``b``/``w`` men, ``B``/``W`` kings, ``.`` empty dark squares.

    White is at the bottom unless ``flipped``.

    >>> print(board_diagram(1 << 0, 1 << 31, 1 << 31))  # doctest: +ELLIPSIS
        a b c d e f g h
    8     b   .   .   . 8
    ...
    1   .   .   .   W   1
        a b c d e f g h
    """
    cells = [[" "] * 8 for _ in range(8)]
    for index in range(32):
        row, file = square_row_file(index)
        bit = 1 << index
        symbol = "."
        if black & bit:
            symbol = "B" if kings & bit else "b"
        elif white & bit:
            symbol = "W" if kings & bit else "w"
        cells[row][file] = symbol
    return _frame(cells, flipped=flipped)


def square_numbers_diagram(*, flipped: bool = False) -> str:
    """The board with each playing square's number, as a key to the notation."""
    cells = [["  "] * 8 for _ in range(8)]
    for index in range(32):
        row, file = square_row_file(index)
        cells[row][file] = f"{index + 1:2d}"
    return _frame(cells, flipped=flipped)


def _frame(cells: list[list[str]], *, flipped: bool) -> str:
    width = len(cells[0][0])
    files = [chr(ord("a") + file).rjust(width) for file in range(8)]
    rows = list(range(8))
    if flipped:
        rows.reverse()
        files.reverse()
        cells = [list(reversed(row)) for row in cells]
    header = "    " + " ".join(files)
    lines = [header]
    for row in rows:
        rank = 8 - row
        lines.append(f"{rank}   " + " ".join(cells[row]) + f" {rank}")
    lines.append(header)
    return "\n".join(line.rstrip() for line in lines)
