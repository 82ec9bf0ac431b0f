"""Round trips (random games and trees -> PDN -> the same again) and fuzzed text (hypothesis)."""

from __future__ import annotations

import inspect
import io
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Color, Move, PdnError
from doublecorner.fen import STARTING_FEN
from doublecorner.pdn import SEVEN_TAG_ROSTER, Game, GameNode, iter_games, read_game, write_game
from doublecorner.pdn.reader import NotPdnError
from tests.conftest import positions

DATA = Path(__file__).with_name("data") / "pdn"
RESULTS = st.sampled_from(["1-0", "0-1", "1/2-1/2", "*"])
RESERVED = {*SEVEN_TAG_ROSTER, "GameType", "SetUp", "FEN"}

tag_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True).filter(
    lambda name: name not in RESERVED)
# Tag values hold anything but line breaks, quotes and backslashes included.
tag_values = st.text(st.characters(blacklist_categories=("Cs",),
                                   blacklist_characters="\n\r"), max_size=20)
# A comment as a reader gives it back: no "}", its spaces collapsed.
comments = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="{}"),
                   max_size=20).map(lambda text: " ".join(text.split()))
nag_sets = st.sets(st.integers(0, 255), max_size=3)


def legal_moves(board: Board) -> list[Move]:
    return sorted(board.legal_moves, key=lambda move: move.path)


@st.composite
def games(draw: st.DrawFn, max_plies: int = 60) -> tuple[str, list[Move]]:
    """A start position (usually the standard one) and random legal moves from it."""
    start = draw(st.one_of(st.just(STARTING_FEN), positions().map(lambda p: p.fen())))
    board = Board(start)
    moves = []
    for _ in range(draw(st.integers(0, max_plies))):
        if board.outcome() is not None:  # no move is read after the end
            break
        move = draw(st.sampled_from(legal_moves(board)))
        board.push(move)
        moves.append(move)
    return start, moves


@settings(max_examples=80, deadline=None)
@given(games(), st.dictionaries(tag_names, tag_values, max_size=4), RESULTS)
def test_random_games_read_back_with_the_same_moves_and_tags(
        game: tuple[str, list[Move]], tags: dict[str, str], result: str) -> None:
    start, moves = game
    text = write_game(moves, tags={"Black": "Black, A.", **tags}, start_fen=start,
                      result=result)
    read = read_game(io.StringIO(text), strict=True)
    assert read is not None
    assert read.mainline_moves() == moves
    assert read.board().fen() == Board(start).fen()
    assert read.result == result and read.headers["Black"] == "Black, A."
    assert {name: read.headers[name] for name in tags} == tags
    assert list(read.headers)[:7] == list(SEVEN_TAG_ROSTER)


@st.composite
def trees(draw: st.DrawFn) -> Game:
    """A random game tree: a main line with annotated moves and nested sidelines."""
    game = Game()
    start = draw(st.one_of(st.just(STARTING_FEN), positions().map(lambda p: p.fen())))
    if start != STARTING_FEN:
        game.setup(start)
    game.comment = draw(comments)
    game.headers["Result"] = draw(RESULTS)
    for name, value in draw(st.dictionaries(tag_names, tag_values, max_size=3)).items():
        game.headers[name] = value
    # Lines still to grow: the node to grow from, its board, how many plies, how
    # many more levels of sidelines may open inside.
    lines: list[tuple[GameNode, Board, int, int]] = [
        (game, Board(start), draw(st.integers(0, 30)), 2)]
    while lines:
        node, board, plies, nesting = lines.pop()
        for _ in range(plies):
            legal = legal_moves(board)
            if board.outcome() is not None:  # no move is read after the end
                break
            move = draw(st.sampled_from(legal))
            child = node.add_variation(move, comment=draw(comments), nags=draw(nag_sets))
            if nesting and len(legal) > 1 and draw(st.integers(0, 3)) == 0:
                other = draw(st.sampled_from([legal_move for legal_move in legal
                                              if legal_move != move]))
                side = node.add_variation(other, comment=draw(comments),
                                          starting_comment=draw(comments), nags=draw(nag_sets))
                side_board = board.copy()
                side_board.push(other)
                lines.append((side, side_board, draw(st.integers(0, 6)), nesting - 1))
            board.push(move)
            node = child
    return game


def dump(node: GameNode) -> list[Any]:
    """Every node below ``node`` in preorder with its annotations and number of variations.

    The list describes the tree exactly, and two trees can be compared by it
    however deep they are (no recursion).
    """
    nodes: list[Any] = []
    stack = [node]
    while stack:
        current = stack.pop()
        nodes.append((str(current.move), current.comment, current.starting_comment,
                      sorted(current.nags), len(current.variations)))
        stack.extend(reversed(current.variations))
    return nodes


@settings(max_examples=80, deadline=None)
@given(trees())
def test_random_trees_read_back_the_same(game: Game) -> None:
    text = str(game)
    read = read_game(io.StringIO(text), strict=True)
    assert read is not None
    assert dump(read) == dump(game)
    assert read.board().fen() == game.board().fen()
    assert {name: read.headers[name] for name in game.headers if name != "FEN"} == {
        name: value for name, value in game.headers.items() if name != "FEN"}
    assert str(read) == text


def king_walk(board: Board, plies: int) -> list[Move] | None:
    """King moves, each king in its own three rows (so neither can capture), that bring
    no position a third time; ``None`` if there are none."""
    if plies == 0:
        return []
    own_rows = range(1, 13) if board.turn is Color.BLACK else range(21, 33)
    for move in sorted(board.legal_moves, key=lambda move: move.path):
        if move.to_square not in own_rows:
            continue
        board.push(move)
        rest = None if board.is_repetition(3) else king_walk(board, plies - 1)
        board.pop()
        if rest is not None:
            return [move, *rest]
    return None


def test_a_deeply_nested_tree_reads_back() -> None:
    # Kings alone cannot play 80 plies (the 40-move rule), so the tree is as deep as a game
    # allows, and the stack is made short enough that reading it by recursion would fail.
    game = Game()
    game.setup("B:WK29:BK1")
    board, node = game.board(), game
    walk = king_walk(game.board(), 79)
    assert walk is not None
    for step in walk:
        other = next((move for move in board.legal_moves if move != step), None)
        if other is not None:  # a king in the corner has one move
            node.add_variation(other)
        node = node.add_variation(step)
        board.push(step)
    assert board.outcome() is None
    text = str(game)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 60)
    try:
        read = read_game(io.StringIO(text), strict=True)
    finally:
        sys.setrecursionlimit(limit)
    assert read is not None and dump(read) == dump(game)


# -- fuzzing: nothing but PdnError, and strict raises exactly where lenient records -----------


def check_reading(source: str | bytes) -> None:
    """Read ``source`` leniently and strictly; the two must agree and nothing else may escape."""

    def stream() -> io.StringIO | io.BytesIO:
        return io.BytesIO(source) if isinstance(source, bytes) else io.StringIO(source)

    try:
        lenient = list(iter_games(stream()))
    except NotPdnError as not_pdn:  # binary data: refused whole, in either mode
        assert isinstance(source, bytes)
        with pytest.raises(PdnError) as strict_refusal:
            list(iter_games(stream(), strict=True))
        refusal = strict_refusal.value
        if isinstance(refusal, NotPdnError):
            assert str(refusal) == str(not_pdn)
        else:  # strict mode stopped at a fault of the text before the binary data
            assert (refusal.line, refusal.column) < (not_pdn.line, not_pdn.column)
        return
    errors = [error for game in lenient for error in game.errors]
    for error in errors:
        assert isinstance(error, PdnError) and error.line >= 1 and error.column >= 1
    try:
        strict = list(iter_games(stream(), strict=True))
    except PdnError as raised:
        assert errors, "strict mode raised where lenient mode recorded nothing"
        assert (raised.line, raised.column, str(raised)) == (
            errors[0].line, errors[0].column, str(errors[0]))
    else:
        assert not errors
        assert [dump(game) for game in strict] == [dump(game) for game in lenient]
    for game in lenient:
        if any("FEN" in str(error) or "GameType" in str(error) for error in game.errors):
            continue  # no position to replay from
        if any("the Result tag says" in str(error) or "the game has no result" in str(error)
               for error in game.errors):
            continue  # the tag is written as read, and disagrees again (with '*' if no result)
        again = read_game(io.StringIO(str(game)), strict=True)  # what was read is writable
        assert again is not None and dump(again) == dump(game)


PDN_ALPHABET = st.sampled_from([*"0123456789-xX:./()[]{}\"$!?*;% \n\tabcK,WB\\", "1-0", "0-1",
                                "1/2-1/2", "[FEN \"", "\ufeff", "é", "\r\n"])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_random_text(text: str) -> None:
    check_reading(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(PDN_ALPHABET, max_size=80).map("".join))
def test_random_text_made_of_pdn_pieces(text: str) -> None:
    check_reading(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    check_reading(data)


SAMPLES = [(DATA / name).read_text(encoding="utf-8")
           for name in ("quirks.pdn", "broken.pdn")]


@st.composite
def mutated_samples(draw: st.DrawFn) -> str:
    """A sample file with a few characters deleted, replaced or inserted."""
    text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "replace", "insert"]))
        piece = draw(PDN_ALPHABET)
        if kind == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 8)):]
        elif kind == "replace":
            text = text[:where] + piece + text[where + 1:]
        else:
            text = text[:where] + piece + text[where:]
    return text


@settings(max_examples=300, deadline=None)
@given(mutated_samples())
def test_mutated_sample_files(text: str) -> None:
    check_reading(text)


@pytest.mark.parametrize("comment", ["0 ) 0", "( a", "see ( and )", ")"])
def test_parentheses_that_are_words_of_a_comment_read_back_the_same(comment: str) -> None:
    game = Game()
    node = game.add_line([Move(11, 15), Move(23, 19)])
    node.comment = comment
    again = read_game(io.StringIO(str(game)), strict=True)
    assert again is not None
    assert [child.comment for child in again.mainline()] == ["", comment]
