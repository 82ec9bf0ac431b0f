"""Portable Draughts Notation (PDN): writing games (reading comes with the game tree)."""

from doublecorner.pdn.writer import SEVEN_TAG_ROSTER, move_text, result_text, write_game

__all__ = ["SEVEN_TAG_ROSTER", "move_text", "result_text", "write_game"]
