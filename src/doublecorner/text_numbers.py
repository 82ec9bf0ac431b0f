"""Numbers read from text typed by people or sent by clients: plain ASCII only."""

from __future__ import annotations


def plain_float(text: str) -> float:
    """``float(text)`` for ASCII text without underscores.

    ``float()`` alone also reads Arabic and full-width digits and ``'1_0'``,
    which no number a user types (a time, a clock, a weight) is written in.

    >>> plain_float(" 0.5 ")
    0.5
    >>> plain_float("1_0")
    Traceback (most recent call last):
    ValueError: not a plain number: '1_0'
    """
    if not text.isascii() or "_" in text:
        raise ValueError(f"not a plain number: {text!r}")
    return float(text)
