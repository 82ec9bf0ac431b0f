"""Numeric annotation glyphs (NAGs): ``$n`` in PDN, and the marks ``!`` ``?`` that stand for six.

PDN takes them from chess's PGN: ``$1`` is a good move, written ``!`` by hand,
and so on up to ``$6``; codes up to 255 are allowed, their meaning set by the
PGN standard (``$10`` and up describe the position rather than the move).

>>> nag_of_mark("!?")
5
>>> mark_of_nag(GOOD_MOVE), mark_of_nag(14) is None
('!', True)
"""

from __future__ import annotations

NULL = 0
GOOD_MOVE = 1
MISTAKE = 2
BRILLIANT_MOVE = 3
BLUNDER = 4
SPECULATIVE_MOVE = 5
DUBIOUS_MOVE = 6
MAX_NAG = 255  # PGN keeps NAGs in one byte

_MARKS = {"!": GOOD_MOVE, "?": MISTAKE, "!!": BRILLIANT_MOVE, "??": BLUNDER,
          "!?": SPECULATIVE_MOVE, "?!": DUBIOUS_MOVE}
_MARK_OF_NAG = {nag: mark for mark, nag in _MARKS.items()}


def nag_of_mark(mark: str) -> int | None:
    """The NAG a move mark stands for (``"!"`` is 1 ... ``"?!"`` is 6), or ``None``."""
    return _MARKS.get(mark)


def mark_of_nag(nag: int) -> str | None:
    """The move mark that writes ``nag`` (1-6), or ``None`` for a NAG without one."""
    return _MARK_OF_NAG.get(nag)
