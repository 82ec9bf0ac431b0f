"""Stored games to PDN and back: the download of a game, the import of a PDN text, and the
notes (comments, NAGs, variations) an imported game keeps.

>>> from doublecorner.web.record import GameMode, GameRecord
>>> record = GameRecord(id="g_1", mode=GameMode.TWO_PLAYER, created="2026-11-30T12:00:00Z",
...                     updated="", black="Ann", white="Bob", start_fen="B:W21-32:B1-12",
...                     moves=("11-15", "23-19"))
>>> text = game_pdn(record)
>>> print(text)  # doctest: +ELLIPSIS
[Event "doublecorner web"]
[Site "?"]
[Date "2026.11.30"]
...
1. 11-15 23-19 *
<BLANKLINE>
>>> (read,) = imported_games(text, created="2026-12-01T00:00:00Z", new_id=lambda: "g_2")
>>> read.record.moves, read.record.black, len(read.board.move_stack), read.errors, read.notes
(('11-15', '23-19'), 'Ann', 2, (), None)

A game with notes keeps them (as PDN), and they come back with it:

>>> (read,) = imported_games("1. 11-15 {the Old Fourteenth?} 23-19?! (22-17) *",
...                          created="2026-12-01T00:00:00Z", new_id=lambda: "g_3")
>>> game_pdn(read.record, read.notes).splitlines()[-1]
'1. 11-15 {the Old Fourteenth?} 1... 23-19?! (1... 22-17) *'
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.errors import DraughtsError
from doublecorner.outcome import Termination
from doublecorner.pdn import ChildNode, Game, iter_games, read_game
from doublecorner.web.record import AgreedEnding, Agreement, GameMode, GameRecord
from doublecorner.web.state import replay, result

EVENT = "doublecorner web"
UNKNOWN = "?"  # PDN's value for a tag nobody knows
ENGLISH_DRAUGHTS = "21"
# Tags the server writes from the record itself rather than keep from an import.
_DERIVED_TAGS = ("FEN", "SetUp", "Result", "Black", "White")
_WINNERS = {"1-0": Color.BLACK, "0-1": Color.WHITE, "2-0": Color.BLACK, "0-2": Color.WHITE}
_DRAWS = ("1/2-1/2", "1-1")
# Variations nested deeper than this are left out of the notes' JSON (the PDN keeps them):
# each level is a level of the answer's nesting, and JSON nests only so deep.
MAX_NOTE_DEPTH = 8


def game_pdn(record: GameRecord, notes: str | None = None) -> str:
    """The game as PDN text: its tags (an imported game keeps its own), moves and result,
    with the ``notes`` an imported game keeps (see :func:`game_tree`).

    :raises StoreError: a stored move is not legal (the database was damaged).
    """
    return str(game_tree(record, notes))


def game_tree(record: GameRecord, notes: str | None = None) -> Game:
    """The game as a tree: its tags, its moves as the main line, and the comments, NAGs
    and variations of ``notes`` (the PDN an imported game kept) where they still fit.

    The record's moves are the main line. While they follow the notes' main line,
    its notes stay with them; where the game took another road (an analysis board
    goes on from an imported game), the road the notes took becomes a variation,
    and the notes' main line after the game's last move is left out.

    :raises StoreError: a stored move is not legal (the database was damaged).
    """
    board = replay(record)
    game = Game.from_board(Board(record.start_fen))
    kept = None if notes is None else read_game(io.StringIO(notes))
    if kept is not None:
        game.comment = kept.comment
        game.variations = kept.variations
        for first in game.variations:
            first.parent = game
    node: Game | ChildNode = game
    for move in board.move_stack:
        if node.has_variation(move):
            node.promote_to_main(move)
            node = node.variations[0]
        else:
            node = node.add_main_variation(move)
    node.variations = []
    game.headers.update({"Event": EVENT, "Date": record.created[:10].replace("-", ".")})
    game.headers.update({name: value for name, value in record.tags.items()
                         if name not in _DERIVED_TAGS})
    game.headers.update({"Black": record.black, "White": record.white,
                         "Result": result(record, board)})
    return game


def game_notes(game: Game) -> dict[str, Any]:
    """The comments, NAGs and variations of ``game``'s main line, as the API gives them.

    ``{"comment": ..., "moves": [...]}``: the comment before the first move, and
    each move of the main line that has a comment (after it, or before it:
    ``starting_comment``), NAGs or variations. A move is ``{"ply", "move", "fen"
    (after it), "comment", "starting_comment", "nags", "variations"}``, where
    ``variations`` are the lines played instead of it, each a list of such moves.
    Variations nested deeper than :data:`MAX_NOTE_DEPTH` are left out.

    >>> game = read_game(io.StringIO("11-15 {a start} 23-19 (22-17 9-13 $1) *"))
    >>> notes = game_notes(game)
    >>> [(move["move"], move["comment"]) for move in notes["moves"]]
    [('11-15', 'a start'), ('23-19', '')]
    >>> [[(move["ply"], move["move"], move["nags"]) for move in line]
    ...  for line in notes["moves"][1]["variations"]]
    [[(2, '22-17', []), (3, '9-13', [1])]]
    """
    moves = [] if game.next() is None else _line(game.variations[0], game.board(), 1, 0)
    return {"comment": game.comment,
            "moves": [move for move in moves if move["comment"] or move["starting_comment"]
                      or move["nags"] or move["variations"]]}


def _line(first: ChildNode, board: Board, ply: int, depth: int) -> list[dict[str, Any]]:
    """The moves of the line from ``first`` (the ``ply``-th of the game) on; ``board`` is at
    the position before it, and is left so."""
    moves = []
    node: ChildNode | None = first
    while node is not None:
        # The lines played instead of a main continuation hang from its parent.
        parent = node.parent
        alternatives = parent.variations[1:] if parent.variations[0] is node else []
        lines = ([_line(other, board, ply, depth + 1) for other in alternatives]
                 if depth < MAX_NOTE_DEPTH else [])
        board.push(node.move)
        moves.append({"ply": ply, "move": str(node.move), "fen": board.fen(),
                      "comment": node.comment, "starting_comment": node.starting_comment,
                      "nags": sorted(node.nags), "variations": lines})
        node = node.next()
        ply += 1
    for _ in moves:
        board.pop()
    return moves


def has_notes(game: Game) -> bool:
    """Whether the game has a comment, a NAG or a variation anywhere.

    >>> has_notes(read_game(io.StringIO("11-15 23-19 *"))), has_notes(
    ...     read_game(io.StringIO("11-15 23-19! *")))
    (False, True)
    """
    if game.comment or len(game.variations) > 1:
        return True
    waiting = list(game.variations)
    while waiting:
        node = waiting.pop()
        if node.comment or node.starting_comment or node.nags or len(node.variations) > 1:
            return True
        waiting.extend(node.variations)
    return False


def download_name(text: str, fallback: str) -> str:
    """The file name a game's PDN is offered under: its players and date.

    ASCII letters, digits and dashes only (accents dropped: a name is no place
    for quotes or slashes); ``fallback`` (the game's id) when the tags give nothing.

    >>> download_name('[Black "Ann Lee"]\\n[White "doublecorner (level 1)"]\\n'
    ...               '[Date "2026.11.30"]\\n', "g_1")
    'Ann-Lee-vs-doublecorner-level-1-2026-11-30.pdn'
    >>> download_name('[Black "?"]\\n[White "Émilie"]\\n[Date "????.??.??"]\\n', "g_1")
    'Emilie.pdn'
    """
    tags = dict(re.findall(r'^\[(Black|White|Date) "([^"\n]*)"\]', text, re.MULTILINE))

    def slug(value: str) -> str:
        ascii_text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
        return re.sub(r"[^A-Za-z0-9]+", "-", ascii_text).strip("-")

    players = [slug(tags.get(side, "")) for side in ("Black", "White")]
    date = slug(tags.get("Date", ""))
    parts = ["-vs-".join(name for name in players if name), date]
    name = "-".join(part for part in parts if part)[:100]
    return f"{name or fallback}.pdn"


@dataclass(frozen=True)
class ImportedGame:
    """One game of a PDN text as the server reads it: its record (``None`` when it is
    left out), the board its moves were played on, what was wrong in it, and its notes:
    the game as PDN when it has comments, NAGs or variations (``None``: it has none)."""

    record: GameRecord | None
    board: Board | None
    errors: tuple[str, ...]
    notes: str | None = None


def imported_games(text: str, *, created: str,
                   new_id: Callable[[], str]) -> Iterator[ImportedGame]:
    """The games of a PDN text as records (mode ``analysis``), one at a time as they are
    read, each with what was wrong in it: a caller may stop at any game, and holds
    only the games it keeps.

    The reader is lenient: a game keeps its moves up to the first one that
    cannot be read, and each problem is listed as ``line L, column C: ...``.
    A game is left out when it has no usable start position, is not English
    draughts, or holds nothing at all (no tag, no move). A result in the tags
    that the rules do not give (``1-0`` in a position where the game goes
    on) is kept as a resignation, or a draw: claimed when the moves stop on a
    threefold repetition or after 40 quiet moves, else agreed.
    """
    for game in iter_games(io.StringIO(text)):
        errors = tuple(str(error) for error in game.errors)
        board = _start_board(game)
        moves = game.mainline_moves()
        if board is None or not (game.headers or moves):
            yield ImportedGame(None, None, errors)
            continue
        start_fen = board.fen()
        for move in moves:
            board.push(move)  # the reader checked them: they are legal
        record = GameRecord(
            id=new_id(), mode=GameMode.ANALYSIS, created=created, updated=created,
            black=game.headers.get("Black", UNKNOWN), white=game.headers.get("White", UNKNOWN),
            start_fen=start_fen,
            moves=tuple(str(move) for move in moves),
            agreed=_agreed_ending(game.headers.get("Result", "*"), board),
            tags={name: value for name, value in game.headers.items()
                  if name not in _DERIVED_TAGS})
        yield ImportedGame(replace(record, result=result(record, board)), board, errors,
                           _notes(game))


def _notes(game: Game) -> str | None:
    """The game as PDN, to keep its notes; ``None`` when it has none."""
    if not has_notes(game):
        return None
    try:
        return str(game)
    except DraughtsError:  # a variation the reader let through that cannot be written
        return None


def _start_board(game: Game) -> Board | None:
    """The game's start position, or ``None`` when its tags rule it out (the reader said why)."""
    game_type = game.headers.get("GameType")
    if game_type is not None and game_type.split(",")[0].strip() != ENGLISH_DRAUGHTS:
        return None
    try:
        return game.board()
    except DraughtsError:
        return None


def _agreed_ending(pdn_result: str, board: Board) -> AgreedEnding | None:
    """The ending the result tag gives, the game's moves made on ``board``."""
    if pdn_result in _WINNERS:
        return AgreedEnding(Agreement.RESIGNATION, _WINNERS[pdn_result])
    if pdn_result in _DRAWS:
        # A drawn record that stops where the rules let a player claim a draw was
        # drawn by that claim.
        outcome = board.outcome(claim_draw=True)
        if outcome is not None and outcome.termination is Termination.FORTY_MOVE_RULE:
            return AgreedEnding(Agreement.FORTY_MOVES_CLAIMED, None)
        if outcome is not None and outcome.termination is Termination.THREEFOLD_REPETITION:
            return AgreedEnding(Agreement.REPETITION_CLAIMED, None)
        return AgreedEnding(Agreement.DRAW_AGREED, None)
    return None
