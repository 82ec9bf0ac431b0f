"""Rules of English draughts, one rule per test: a FEN in, sorted move strings out.

Every expected answer here was derived by hand from the board geometry
(``shared/refdata/square-coordinates.tsv``), never copied from the implementation.
Numbering with White at the bottom: rows from the top hold 1-4, 5-8, ... 29-32;
even rows (1-4, 9-12, ...) sit on files b, d, f, h and odd rows on a, c, e, g.
Black moves first, down the board (towards 32) and crowns on 29-32; White moves up
and crowns on 1-4.
"""

from __future__ import annotations

import pytest

from doublecorner import (
    AmbiguousMoveError,
    Board,
    Color,
    DraughtsError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Move,
    Outcome,
    Piece,
    Termination,
)

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def moves(fen: str | None) -> list[str]:
    return sorted(str(m) for m in Board(fen).legal_moves)


def play(board: Board, line: str) -> None:
    for text in line.split():
        board.push_str(text)


# --------------------------------------------------------------------------- start


def test_start_position_black_moves():
    assert moves(None) == sorted(
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    )


def test_start_position_fen_and_turn():
    board = Board()
    assert board.turn is Color.BLACK
    assert board.fen() == START_FEN
    assert len(board.legal_moves) == 7


def test_start_position_white_to_move():
    assert moves("W:W21-32:B1-12") == sorted(
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    )


def test_color_opponent():
    assert Color.BLACK.opponent is Color.WHITE
    assert Color.WHITE.opponent is Color.BLACK


# --------------------------------------------------------------------------- steps


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # black man on d4 steps down to c3 / e3 only
        ("B:W32:B18", ["18-22", "18-23"]),
        # white man on d4 steps up to c5 / e5 only
        ("W:W18:B1", ["18-14", "18-15"]),
    ],
)
def test_man_steps_forward_only(fen, expected):
    assert moves(fen) == sorted(expected)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W32:BK18", ["18-14", "18-15", "18-22", "18-23"]),
        ("W:WK18:B1", ["18-14", "18-15", "18-22", "18-23"]),
    ],
)
def test_king_steps_all_four_directions(fen, expected):
    assert moves(fen) == sorted(expected)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W32:B12", ["12-16"]),  # h6: only g5
        ("B:W32:B5", ["5-9"]),  # a7: only b6
        ("B:W32:B13", ["13-17"]),  # a5: only b4
        ("B:W5:B28", ["28-32"]),  # h2: only g1
        ("W:W21:B1", ["21-17"]),  # a3: only b4
        ("W:W28:B1", ["28-24"]),  # h2: only g3
        ("W:W20:B1", ["20-16"]),  # h4: only g5
    ],
)
def test_man_on_edge_has_one_step(fen, expected):
    assert moves(fen) == expected


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W32:BK29", ["29-25"]),  # a1 corner
        ("W:WK4:B12", ["4-8"]),  # h8 corner
        ("W:WK5:B12", ["5-1", "5-9"]),  # a7 edge
        ("B:W5:BK32", ["32-27", "32-28"]),  # g1 back row
    ],
)
def test_king_on_edge_has_fewer_steps(fen, expected):
    assert moves(fen) == sorted(expected)


def test_steps_only_onto_empty_squares():
    # 18's step to 22 is blocked by its own man; 22 itself steps to 25 / 26
    assert moves("B:W32:B18,22") == sorted(["18-23", "22-25", "22-26"])


def test_own_piece_is_never_jumped():
    # 9 cannot jump its own man on 14
    assert moves("B:W32:B9,14") == sorted(["9-13", "14-17", "14-18"])


def test_no_jump_off_the_board():
    # black man g5 next to white h4: the square beyond would be off the board
    assert moves("B:W20:B16") == ["16-19"]


def test_no_jump_onto_occupied_square():
    # 9 over 14 would land on 18, which holds a black man
    assert moves("B:W14:B9,18") == sorted(["9-13", "18-22", "18-23"])


# --------------------------------------------------------------------------- jumps


def test_single_jump_is_compulsory():
    # 9-13, 11-15, 11-16 exist as steps but 9x18 must be taken
    assert moves("B:W14:B9,11") == ["9x18"]


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W14:B18", ["18-22", "18-23"]),  # black man cannot jump back over c5
        ("W:W14:B18", ["14-9", "14-10"]),  # white man cannot jump back over d4
    ],
)
def test_man_cannot_jump_backwards(fen, expected):
    assert moves(fen) == sorted(expected)


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W14:BK18", ["18x9"]),
        ("W:WK14:B18", ["14x23"]),
    ],
)
def test_king_jumps_backwards(fen, expected):
    assert moves(fen) == expected


def test_man_captures_a_king():
    board = Board("B:WK14:B9")
    assert moves(board.fen()) == ["9x18"]
    board.push_str("9x18")
    assert board.piece_at(14) is None
    assert board.piece_at(18) == Piece(Color.BLACK, False)


def test_multi_jump_must_be_completed():
    assert moves("B:W14,23:B9") == ["9x18x27"]


def test_incomplete_multi_jump_cannot_be_pushed():
    board = Board("B:W14,23:B9")
    before = board.fen()
    with pytest.raises(IllegalMoveError):
        board.push(Move(9, 18))
    assert board.fen() == before
    with pytest.raises(IllegalMoveError):
        board.parse_move("9x18")


def test_multi_jump_may_change_direction():
    # down-right over 14 to 18, then down-left over 22 to 25
    assert moves("B:W14,22:B9") == ["9x18x25"]


def test_multi_jump_branches_are_separate_moves():
    assert moves("B:W14,22,23:B9") == sorted(["9x18x25", "9x18x27"])


def test_man_multi_jump_does_not_turn_backwards():
    # from 18 the white man on 15 is behind the black man
    assert moves("B:W14,15:B9") == ["9x18"]


def test_king_multi_jump_turns_backwards():
    assert moves("B:W14,15:BK9") == ["9x18x11"]


def test_multi_jump_stops_at_own_piece():
    # after 9x18 the next piece (23) is black: the jump ends on 18
    assert moves("B:W14:B9,23") == ["9x18"]


def test_no_majority_rule_between_pieces():
    # 12x19 takes one man, 9x18x27 takes two; both may be chosen
    assert moves("B:W14,16,23,26:B9,12") == sorted(["12x19", "9x18x27"])
    board = Board("B:W14,16,23,26:B9,12")
    board.push_str("12x19")
    assert board.piece_at(16) is None
    assert board.piece_at(14) is not None and board.piece_at(23) is not None


def test_no_majority_rule_within_one_piece():
    # 10x17 (one man) and 10x19x26 (two men) from the same man
    assert moves("B:W14,15,23:B10") == sorted(["10x17", "10x19x26"])


def test_never_jumps_the_same_piece_twice():
    # after 18x9 the king could only jump back over the already-taken 14
    assert moves("W:WK18:B14") == ["18x9"]
    assert moves("W:WK18:BK14") == ["18x9"]


def test_jumped_pieces_are_removed():
    board = Board("B:W14,23:B9")
    board.push(Move(9, 18, 27))
    assert board.piece_at(9) is None
    assert board.piece_at(14) is None
    assert board.piece_at(18) is None
    assert board.piece_at(23) is None
    assert board.piece_at(27) == Piece(Color.BLACK, False)
    assert board.turn is Color.WHITE


def test_step_not_pushable_when_jump_exists():
    board = Board("B:W14:B9,11")
    before = board.fen()
    assert Move(11, 15) not in board.legal_moves
    with pytest.raises(IllegalMoveError):
        board.push(Move(11, 15))
    with pytest.raises(IllegalMoveError):
        board.push_str("11-15")
    assert board.fen() == before
    assert board.turn is Color.BLACK


# --------------------------------------------------------------------------- crowning


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # black man 22x31 crowns; as a king it could go on over 27 to 24
        ("B:W26,27:B22", ["22x31"]),
        # white man 11x2 crowns; as a king it could go on over 6 to 9
        ("W:W11:B6,7", ["11x2"]),
    ],
)
def test_man_crowning_by_jump_ends_the_move(fen, expected):
    assert moves(fen) == expected


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("B:W26,27:BK22", ["22x31x24"]),
        ("W:WK11:B6,7", ["11x2x9"]),
    ],
)
def test_king_jumping_onto_crowning_row_continues(fen, expected):
    assert moves(fen) == expected


def test_crowning_jump_makes_a_king_and_passes_the_turn():
    board = Board("B:W26,27:B22")
    board.push_str("22x31")
    assert board.piece_at(31) == Piece(Color.BLACK, True)
    assert board.piece_at(26) is None
    assert board.piece_at(27) == Piece(Color.WHITE, False)
    assert board.turn is Color.WHITE


@pytest.mark.parametrize(
    ("fen", "move", "square", "color"),
    [
        ("B:W5:B27", "27-32", 32, Color.BLACK),
        ("B:W5:B27", "27-31", 31, Color.BLACK),
        ("W:W6:B12", "6-1", 1, Color.WHITE),
        ("W:W6:B12", "6-2", 2, Color.WHITE),
    ],
)
def test_man_stepping_onto_far_row_is_crowned(fen, move, square, color):
    board = Board(fen)
    board.push_str(move)
    assert board.piece_at(square) == Piece(color, True)


# --------------------------------------------------------------------------- duplicate routes


def test_two_routes_same_endpoints_are_two_moves():
    # 2x9x18 takes 6,14; 2x11x18 takes 7,15
    assert moves("B:W6,7,14,15:B2") == sorted(["2x9x18", "2x11x18"])


def test_short_form_with_two_routes_is_ambiguous():
    board = Board("B:W6,7,14,15:B2")
    with pytest.raises(AmbiguousMoveError):
        board.parse_move("2x18")
    assert board.parse_move("2x9x18") == Move(2, 9, 18)
    assert board.parse_move("2x11x18") == Move(2, 11, 18)


def test_king_loop_in_both_directions_is_two_moves():
    # 25x18 over 22, then round the diamond 6, 7, 14, 15 either way back to 18
    assert moves("W:WK25:B6,7,14,15,22") == sorted(
        ["25x18x11x2x9x18", "25x18x9x2x11x18"]
    )


@pytest.mark.parametrize("path", [(25, 18, 11, 2, 9, 18), (25, 18, 9, 2, 11, 18)])
def test_king_loop_each_route_pushable_by_full_path(path):
    board = Board("W:WK25:B6,7,14,15,22")
    move = Move(*path)
    assert move in board.legal_moves
    board.push(move)
    assert board.piece_at(18) == Piece(Color.WHITE, True)
    for square in (6, 7, 14, 15, 22, 25):
        assert board.piece_at(square) is None
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner is Color.WHITE


def test_king_loop_short_form_is_ambiguous():
    board = Board("W:WK25:B6,7,14,15,22")
    before = board.fen()
    with pytest.raises(AmbiguousMoveError):
        board.parse_move("25x18")
    with pytest.raises(AmbiguousMoveError):
        board.push_str("25x18")
    assert board.fen() == before


def test_king_loop_back_to_its_own_square():
    # the king's starting square is vacated and may be landed on again
    assert moves("W:WK2:B6,7,14,15") == sorted(["2x11x18x9x2", "2x9x18x11x2"])
    board = Board("W:WK2:B6,7,14,15")
    with pytest.raises(AmbiguousMoveError):
        board.parse_move("2x2")
    board.push_str("2x9x18x11x2")
    assert board.piece_at(2) == Piece(Color.WHITE, True)
    assert all(board.piece_at(s) is None for s in (6, 7, 14, 15))


def test_loop_captures_listed_in_order():
    assert Move(25, 18, 11, 2, 9, 18).captures == (22, 15, 7, 6, 14)
    assert Move(25, 18, 9, 2, 11, 18).captures == (22, 14, 6, 7, 15)


# --------------------------------------------------------------------------- game end


@pytest.mark.parametrize(
    ("fen", "winner"),
    [
        ("B:W18:B", Color.WHITE),  # Black has no pieces
        ("W:W:B12", Color.BLACK),  # White has no pieces
        ("B:W22,23,25,27:B18", Color.WHITE),  # black man on 18 blocked
        ("W:W29:B22,25", Color.BLACK),  # white man on 29 blocked
    ],
)
def test_side_without_moves_loses(fen, winner):
    board = Board(fen)
    assert len(board.legal_moves) == 0
    assert list(board.legal_moves) == []
    assert board.is_game_over()
    outcome = board.outcome()
    assert isinstance(outcome, Outcome)
    assert outcome.winner is winner
    assert outcome.termination is Termination.NO_MOVES


def test_capturing_the_last_piece_wins():
    board = Board("B:W14,23:B9")
    board.push_str("9x27")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner is Color.BLACK
    assert outcome.termination is Termination.NO_MOVES


def test_start_position_is_not_over():
    board = Board()
    assert board.outcome() is None
    assert not board.is_game_over()
    assert not board.can_claim_draw()


# --------------------------------------------------------------------------- draws

# Black king h8 (4) and white king a1 (29) shuffle 4-8 / 29-25 and back.
SHUFFLE_FEN = "B:WK29:BK4"
SHUFFLE = ["4-8", "29-25", "8-4", "25-29"] * 2


def test_threefold_repetition_is_a_draw_when_claimed():
    board = Board(SHUFFLE_FEN)
    for ply, text in enumerate(SHUFFLE, start=1):
        board.push_str(text)
        if ply < 8:
            assert board.outcome(claim_draw=True) is None, ply
    # the start position with Black to move has now occurred three times
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    assert outcome.termination is Termination.THREEFOLD_REPETITION
    assert outcome.winner is None
    assert board.is_game_over(claim_draw=True)
    assert board.can_claim_draw()
    # unclaimed, the draw ends nothing (WCDF: a player claims it)
    assert board.outcome() is None
    assert not board.is_game_over()


def test_a_game_goes_on_past_an_unclaimed_repetition():
    board = Board(SHUFFLE_FEN)
    play(board, " ".join(SHUFFLE * 2))  # the start position occurs a fifth time
    assert board.is_repetition(5)
    assert board.outcome() is None
    play(board, "4-8 29-25 8-11")  # a new position: the draw is no longer on the board
    assert board.outcome(claim_draw=True) is None
    assert board.outcome() is None


def test_can_claim_draw_when_a_move_would_repeat_three_times():
    board = Board(SHUFFLE_FEN)
    for ply, text in enumerate(SHUFFLE[:7], start=1):
        board.push_str(text)
        if ply < 7:
            # no legal move reaches any position for the third time yet
            assert not board.can_claim_draw(), ply
    # White's 25-29 would bring the start position back a third time
    assert board.outcome() is None
    assert board.can_claim_draw()
    assert board.outcome(claim_draw=True) is None  # not before 25-29 is played


def test_pop_undoes_repetition():
    board = Board(SHUFFLE_FEN)
    play(board, " ".join(SHUFFLE))
    assert board.pop() == Move(25, 29)
    assert board.outcome() is None
    assert board.fen() == "W:WK25:BK4"


# Black king circles 3-8-12-16-19-15-10-7 (8 squares), white king circles
# 30-25-21-17-22-26 (6 squares) on the far side of the board: the pair repeats
# only every lcm(8, 6) = 24 moves, so no position occurs three times in 80 plies.
FORTY_FEN = "B:WK30:BK3"
BLACK_CYCLE = [3, 8, 12, 16, 19, 15, 10, 7]
WHITE_CYCLE = [30, 25, 21, 17, 22, 26]


def forty_move_line() -> list[Move]:
    line = []
    for k in range(40):
        for cycle in (BLACK_CYCLE, WHITE_CYCLE):
            n = len(cycle)
            line.append(Move(cycle[k % n], cycle[(k + 1) % n]))
    return line


def test_forty_move_rule():
    board = Board(FORTY_FEN)
    line = forty_move_line()
    for ply, move in enumerate(line, start=1):
        board.push(move)
        assert board.halfmove_clock == ply
        if ply < 80:
            assert board.outcome(claim_draw=True) is None, ply
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None
    assert outcome.termination is Termination.FORTY_MOVE_RULE
    assert outcome.winner is None
    assert board.is_game_over(claim_draw=True)
    assert board.can_claim_draw()
    # unclaimed, the game goes on: more king moves are legal and end nothing
    assert board.outcome() is None and not board.is_game_over()
    board.push(Move(BLACK_CYCLE[0], BLACK_CYCLE[1]))
    assert board.halfmove_clock == 81
    assert board.outcome() is None
    assert board.outcome(claim_draw=True) == outcome


def test_can_claim_draw_one_ply_before_forty_move_rule():
    board = Board(FORTY_FEN)
    line = forty_move_line()
    for move in line[:78]:
        board.push(move)
    # Black's moves from 7 (to 2, 3, 10, 11) give at most a second occurrence
    assert not board.can_claim_draw()
    board.push(line[78])
    assert board.halfmove_clock == 79
    assert board.outcome() is None
    # any White move now completes 80 plies without a man move or capture: White may
    # claim, but a referee does not end the game before the move is made
    assert board.can_claim_draw()
    assert board.outcome(claim_draw=True) is None


def test_man_move_resets_halfmove_clock():
    board = Board("B:WK30:BK3,5")
    board.push_str("3-8")
    board.push_str("30-25")
    assert board.halfmove_clock == 2
    board.push_str("5-9")
    assert board.halfmove_clock == 0
    board.push_str("25-21")
    assert board.halfmove_clock == 1


def test_capture_resets_halfmove_clock():
    board = Board("B:WK31:BK4,K22")
    board.push_str("4-8")
    board.push_str("31-26")
    assert board.halfmove_clock == 2
    assert moves(board.fen()) == ["22x31"]
    board.push_str("22x31")
    assert board.halfmove_clock == 0


# --------------------------------------------------------------------------- FEN


def test_fen_ranges_are_expanded():
    assert Board("B:W21-32:B1-12").fen() == START_FEN


def test_fen_kings_and_men():
    board = Board("W:WK15,20:BK28,12")
    assert board.turn is Color.WHITE
    assert board.piece_at(15) == Piece(Color.WHITE, True)
    assert board.piece_at(20) == Piece(Color.WHITE, False)
    assert board.piece_at(28) == Piece(Color.BLACK, True)
    assert board.piece_at(12) == Piece(Color.BLACK, False)
    assert board.piece_at(1) is None
    assert board.piece_at(16) is None


@pytest.mark.parametrize(
    ("fen", "canonical"),
    [
        ("W:WK15,20:BK28,12", "W:WK15,20:B12,K28"),
        ("B:W22,K5:BK15,K6", "B:WK5,22:BK6,K15"),
        ("W:WK30,22,16,K2:B21,14,13,K10", "W:WK2,16,22,K30:BK10,13,14,21"),
        ("W:WK1-3:B20", "W:WK1,K2,K3:B20"),
        ("B:W21-32:B1-12.", START_FEN),
        ('[FEN "B:W21-32:B1-12"]', START_FEN),
    ],
)
def test_fen_canonical_output(fen, canonical):
    assert Board(fen).fen() == canonical


@pytest.mark.parametrize(
    "fen",
    [
        START_FEN,
        "W:WK15,20:B12,K28",
        "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31",
        "W:W6,9,21,22,29,30:B7,8,13,16,20,24",
    ],
)
def test_fen_round_trip(fen):
    assert Board(fen).fen() == fen
    assert Board(Board(fen).fen()).fen() == fen


def test_fen_side_with_no_pieces():
    board = Board("B:W18:B")
    assert board.turn is Color.BLACK
    assert board.piece_at(18) == Piece(Color.WHITE, False)
    assert all(board.piece_at(s) is None for s in range(1, 33) if s != 18)
    assert Board("B:W18").fen() == board.fen()
    assert Board(board.fen()).fen() == board.fen()


@pytest.mark.parametrize(
    ("fen", "mentions"),
    [
        ("B:W5,21:B1,5", "5"),  # square on both sides
        ("B:W33:B1", "33"),  # outside 1-32
        ("B:W21:B0", "0"),  # outside 1-32
        ("B:W21:B30", "30"),  # black man on its crowning row
        ("W:W3:B12", "3"),  # white man on its crowning row
    ],
)
def test_bad_fen_square_is_named(fen, mentions):
    with pytest.raises(InvalidFenError, match=mentions):
        Board(fen)


@pytest.mark.parametrize(
    "fen",
    [
        ":W21-32:B1-12",  # missing side to move
        "W21-32:B1-12",  # missing side to move
        "X:W21-32:B1-12",  # unknown side to move
        "hello",
        "",
        "B:Wfoo:B1",
        "B:W21,,x:B1",
    ],
)
def test_bad_fen_raises(fen):
    with pytest.raises(InvalidFenError) as info:
        Board(fen)
    assert str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_fen_is_a_value_error():
    with pytest.raises(ValueError):
        Board("B:W33:B1")


# --------------------------------------------------------------------------- Move


def test_move_jump_properties():
    move = Move(9, 18, 27)
    assert move.path == (9, 18, 27)
    assert move.from_square == 9
    assert move.to_square == 27
    assert move.captures == (14, 23)
    assert move.is_capture
    assert str(move) == "9x18x27"


def test_move_step_properties():
    move = Move(11, 15)
    assert move.path == (11, 15)
    assert move.captures == ()
    assert not move.is_capture
    assert str(move) == "11-15"


def test_move_is_a_hashable_value():
    assert Move(11, 15) == Move(11, 15)
    assert Move(11, 15) != Move(11, 16)
    assert len({Move(11, 15), Move(11, 15), Move(9, 18, 27)}) == 2
    move = Move(11, 15)
    with pytest.raises(AttributeError):
        move.path = (11, 16)  # type: ignore[misc]


@pytest.mark.parametrize("text", ["11-15", "9x18x27", "25x18x11x2x9x18"])
def test_move_parse_round_trip(text):
    assert str(Move.parse(text)) == text


def test_move_parse_values():
    assert Move.parse("11-15") == Move(11, 15)
    assert Move.parse("9x18x27").path == (9, 18, 27)


@pytest.mark.parametrize("text", ["", "hello", "11-", "-15", "11--15"])
def test_move_parse_bad_syntax(text):
    with pytest.raises(InvalidMoveError):
        Move.parse(text)


# --------------------------------------------------------------------------- Board API


def test_parse_move_short_form_resolves_unique_jump():
    board = Board("B:W14,23:B9")
    assert board.parse_move("9x27") == Move(9, 18, 27)
    assert board.parse_move("9x18x27") == Move(9, 18, 27)


def test_parse_move_illegal():
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.parse_move("12-17")  # not adjacent
    with pytest.raises(IllegalMoveError):
        board.parse_move("21-17")  # White's man, Black to move
    with pytest.raises(IllegalMoveError):
        board.parse_move("13-17")  # empty square


def test_parse_move_bad_syntax():
    with pytest.raises(InvalidMoveError):
        Board().parse_move("hello")


def test_push_str_returns_move_and_passes_turn():
    board = Board()
    assert board.push_str("11-15") == Move(11, 15)
    assert board.turn is Color.WHITE
    assert board.piece_at(11) is None
    assert board.piece_at(15) == Piece(Color.BLACK, False)


@pytest.mark.parametrize(
    ("fen", "move"),
    [
        (START_FEN, Move(21, 17)),  # opponent's man
        (START_FEN, Move(1, 5)),  # onto own piece
        (START_FEN, Move(9, 18)),  # jump over nothing
        ("B:W32:B18", Move(18, 14)),  # man moving backwards
        ("B:W14:B9,11", Move(11, 15)),  # step while a jump exists
        ("B:W14,23:B9", Move(9, 18)),  # incomplete multi-jump
        ("B:W26,27:B22", Move(22, 31, 24)),  # man jumping on after crowning
    ],
)
def test_push_illegal_move_raises_and_changes_nothing(fen, move):
    board = Board(fen)
    before = board.fen()
    legal_before = sorted(str(m) for m in board.legal_moves)
    with pytest.raises(IllegalMoveError):
        board.push(move)
    assert board.fen() == before
    assert sorted(str(m) for m in board.legal_moves) == legal_before


def test_push_pop_restores_position():
    board = Board("B:W14,23:B9")
    before = board.fen()
    board.push_str("9x18x27")
    assert board.fen() != before
    assert board.pop() == Move(9, 18, 27)
    assert board.fen() == before
    assert board.turn is Color.BLACK
    assert board.piece_at(14) == Piece(Color.WHITE, False)


def test_legal_moves_is_a_live_view():
    board = Board()
    legal = board.legal_moves
    assert Move(11, 15) in legal
    assert all(isinstance(m, Move) for m in legal)
    board.push(Move(11, 15))
    assert Move(11, 15) not in legal
    assert Move(22, 18) in legal
    assert sorted(str(m) for m in legal) == sorted(
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    )


def test_copy_is_independent():
    board = Board()
    twin = board.copy()
    twin.push_str("11-15")
    assert board.fen() == START_FEN
    assert board.turn is Color.BLACK
    assert twin.turn is Color.WHITE


@pytest.mark.parametrize(
    "error",
    [InvalidMoveError, IllegalMoveError, AmbiguousMoveError, InvalidFenError],
)
def test_errors_share_a_base(error):
    assert issubclass(error, DraughtsError)


def test_invalid_fen_error_is_value_error():
    assert issubclass(InvalidFenError, ValueError)


# --------------------------------------------------------------------------- classic positions


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        # ACF First Position, White to move: the solver's 15-10 15-11 15-18 15-19 20-16
        ("W:WK15,20:BK28,12", ["15-10", "15-11", "15-18", "15-19", "20-16"]),
        # the same with Black to move: 28-24 28-32 12-16
        ("B:WK15,20:BK28,12", ["12-16", "28-24", "28-32"]),
        # Dr. Call, first position without
        (
            "B:W22,K5:BK15,K6",
            ["15-10", "15-11", "15-18", "15-19", "6-1", "6-2", "6-9", "6-10"],
        ),
        # Banks v Jordan 1911: 2-7! is among eight quiet moves
        (
            "W:WK30,22,16,K2:B21,14,13,K10",
            ["2-6", "2-7", "16-11", "16-12", "22-17", "22-18", "30-25", "30-26"],
        ),
        # Vair, 'One of Those Things': no capture available for Black
        (
            "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31",
            ["5-9", "12-16", "22-18", "22-25", "22-26", "29-25", "31-26", "31-27"],
        ),
        # Gordon, 'A Lot of Work': 10-15 is blocked, 12 is stuck behind 16
        (
            "B:W15,19,21,23,25,30,31,32:B2,3,5,10,12,13,16,24",
            ["2-6", "2-7", "3-7", "3-8", "5-9", "10-14", "13-17", "16-20", "24-27", "24-28"],
        ),
    ],
)
def test_classic_position_legal_moves(fen, expected):
    assert moves(fen) == sorted(expected)


def test_one_of_those_things_main_line_starts():
    board = Board("B:WK10,13,K17,K23,32:B5,12,K22,K29,K31")
    board.push_str("22-25")
    assert Move(17, 21) in board.legal_moves
    board.push_str("17-21")
    assert board.piece_at(21) == Piece(Color.WHITE, True)
    assert board.piece_at(25) == Piece(Color.BLACK, True)


# 'Seeing is Believing': every Black reply in this line is the only legal move.
SEEING_FEN = "W:W30,29,22,21,9,6:B24,20,16,13,8,7"
SEEING_LINE = [
    ("22-17", None),
    ("13x22", ["13x22"]),  # forced: a5 jumps b4 into the hole on c3
    ("29-25", None),
    ("22x29", ["22x29"]),  # captures and crowns on a1
    ("30-25", None),
    ("29x22", ["29x22"]),  # the new king must take back
    ("21-17", None),
    ("22x13", ["22x13"]),  # b6 guards beyond: the king stops on a5
    ("6-1", None),  # White crowns
    ("13x6", ["13x6"]),  # the king takes b6 and lands on c7
]


def test_seeing_is_believing_line():
    board = Board(SEEING_FEN)
    for text, forced in SEEING_LINE:
        if forced is not None:
            assert moves(board.fen()) == forced, text
        board.push_str(text)
    assert board.piece_at(29) is None
    assert board.piece_at(6) == Piece(Color.BLACK, True)
    assert board.piece_at(1) == Piece(Color.WHITE, True)
    # the king on b8 sweeps five pieces, passing over f8 (a crowning square)
    assert moves(board.fen()) == ["1x10x3x12x19x28"]
    assert board.parse_move("1x28") == Move(1, 10, 3, 12, 19, 28)
    board.push_str("1x10x3x12x19x28")
    assert board.fen() == "B:WK28:B20"
    assert board.outcome() is None
    assert moves(board.fen()) == ["20-24"]
