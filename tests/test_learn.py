"""The lessons of ``/learn`` (``doublecorner/learn/lessons.json``) checked against the rules.

Each lesson and quiz question is played through :class:`~doublecorner.Board`, apart
from the loader: every solution meets its goal, every typical wrong move listed is
wrong in the way its reason says, and every word the lessons name is in both
message catalogues with the placeholders the data fills.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from doublecorner import Board, Color, IllegalMoveError, Move
from doublecorner.errors import DraughtsError
from doublecorner.learn import (
    LESSONS_FILE,
    Course,
    Exercise,
    Goal,
    LessonDataError,
    WrongMove,
    load_course,
    parse_course,
)

CATALOGUES = Path(__file__).parent.parent / "src" / "doublecorner" / "web" / "static" / "i18n"
COURSE = load_course()
EXERCISES = [pytest.param(exercise, id=f"{lesson.id}/{exercise.id}")
             for lesson in COURSE.lessons for exercise in lesson.exercises]
EXERCISES += [pytest.param(question, id=f"quiz/{question.id}") for question in COURSE.quiz]
WRONG_MOVES = [pytest.param(exercise, wrong, id=f"{param.id}:{wrong.move}")
               for param in EXERCISES for exercise in param.values
               if isinstance(exercise, Exercise) for wrong in exercise.wrong]


def catalogue(language: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CATALOGUES / f"{language}.json").read_text("utf-8"))
    return loaded


def squares(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.split(r"[-x]", text))


def row(square: int) -> int:
    """The row from Black's side: 0 for squares 1-4, 7 for 29-32."""
    return (square - 1) // 4


def test_the_lessons_come_in_the_order_of_the_rules() -> None:
    assert [lesson.id for lesson in COURSE.lessons] == [
        "board", "pieces", "start", "man", "king", "jump", "kings", "multijump",
        "compulsory", "crowning", "winning", "draws"]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_solution_meets_its_goal_by_the_rules(exercise: Exercise) -> None:
    board = Board(exercise.fen)
    for text in exercise.moves:
        board.push_str(text)
    legal = set(board.legal_moves)
    assert exercise.solutions and set(exercise.solutions) <= legal
    if exercise.goal is Goal.ANY:
        assert set(exercise.solutions) == legal
    elif exercise.goal is Goal.ONLY_CAPTURE:
        (only,) = legal
        assert only.is_capture and exercise.solutions == (only,)
    for move in legal:
        board.push(move)
        if exercise.goal is Goal.WINS:
            assert (not board.legal_moves) == (move in exercise.solutions), move
        elif exercise.goal is Goal.REPEATS:
            assert board.is_repetition(3) == (move in exercise.solutions), move
        board.pop()


@pytest.mark.parametrize(("exercise", "wrong"), WRONG_MOVES)
def test_each_listed_wrong_move_is_wrong_as_its_reason_says(exercise: Exercise,
                                                             wrong: WrongMove) -> None:
    board = exercise.board()
    path = squares(wrong.move)
    with pytest.raises(IllegalMoveError) as refused:
        board.parse_move(wrong.move)
    piece = board.piece_at(path[0])
    kind = wrong.reason.removeprefix("learn.reason.")
    if kind == "captureCompulsory":
        assert refused.value.reason == "a capture is compulsory"
        assert board.parse_move(wrong.params["move"]).is_capture
    elif kind == "forwardsOnly":
        assert piece is not None and piece.color is board.turn and not piece.is_king
        backwards = 1 if board.turn is Color.WHITE else -1  # Black's men go down, to higher rows
        assert row(path[1]) - row(path[0]) in (backwards, 2 * backwards)
    elif kind == "occupied":
        assert len(path) == 2 and abs(row(path[1]) - row(path[0])) == 1
        assert board.piece_at(path[1]) is not None
    elif kind == "multiJumpIncomplete":
        complete = board.parse_move(wrong.params["move"])
        assert complete.path[:len(path)] == path and len(complete.path) > len(path)
    elif kind == "crowningEnds":
        crowned = board.parse_move(wrong.params["move"])
        assert piece is not None and not piece.is_king
        assert path[:len(crowned.path)] == crowned.path and len(path) > len(crowned.path)
        assert row(crowned.path[-1]) == (7 if board.turn is Color.BLACK else 0)
    else:
        pytest.fail(f"no check for the reason {wrong.reason!r}: add one here")


def test_every_word_of_the_lessons_is_in_both_catalogues() -> None:
    for language in ("en", "ga"):
        messages = catalogue(language)
        missing = sorted(COURSE.text_keys() - set(messages))
        assert missing == [], f"{language}.json lacks {missing}"
        for key in COURSE.text_keys():
            assert messages[key] and isinstance(messages[key], str), (language, key)


@pytest.mark.parametrize(("exercise", "wrong"), WRONG_MOVES)
def test_a_reason_gets_each_of_its_placeholders_and_no_more(exercise: Exercise,
                                                            wrong: WrongMove) -> None:
    placeholders = set(re.findall(r"\{(\w+)\}", catalogue("en")[wrong.reason]))
    assert set(wrong.params) == placeholders


def test_a_task_names_no_placeholder_but_the_side() -> None:
    english = catalogue("en")
    for param in EXERCISES:
        (exercise,) = param.values
        assert isinstance(exercise, Exercise)
        for key in (exercise.task, exercise.hint, exercise.done):
            if key is not None:
                assert set(re.findall(r"\{(\w+)\}", english[key])) <= {"side"}, key


def test_the_double_corner_is_on_each_players_right() -> None:
    board = COURSE.lesson("board")
    # Square 1 (b8) and 5 (a7) are at the screen's top left: the right hand of Black, who
    # sits at the top facing down; 28 (h2) and 32 (g1) at the bottom right: White's.
    assert set(board.diagram.highlights) == {1, 5, 28, 32}
    (solution,) = board.exercises[1].solutions
    assert solution.path[-1] in (28, 32)


def test_a_man_crowned_by_a_jump_stops_though_as_a_king_it_could_jump_on() -> None:
    stop = COURSE.lesson("crowning").exercises[1]
    (capture,) = stop.solutions
    assert capture == Move(22, 31) and Board(stop.fen).parse_move("22x31").is_capture
    after = Board(stop.fen)
    after.push(capture)
    assert after.piece_at(31) is not None and after.piece_at(31).is_king
    # The same king with the move again would jump on: the rules stopped the man, not the board.
    as_king = Board("B:W27:BK31")
    assert [str(move) for move in as_king.legal_moves] == ["31x24"]
    assert [wrong.move for wrong in stop.wrong] == ["22x31x24"]


def test_the_draw_is_claimable_after_the_repeating_move() -> None:
    repetition = COURSE.lesson("draws").exercises[0]
    board = repetition.board()
    assert not board.is_repetition(3)
    board.push(repetition.solutions[0])
    assert board.can_claim_draw() and board.outcome() is None


def test_the_quiz_draws_from_a_pool_larger_than_one_quiz() -> None:
    assert 1 <= COURSE.quiz_size < len(COURSE.quiz)
    assert {question.task for question in COURSE.quiz} == {
        "quiz.capture", "quiz.win", "quiz.crown", "quiz.legal"}


# -- data the loader refuses ----------------------------------------------------------


def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LESSONS_FILE.read_text("utf-8"))
    return data


def first_exercise(data: dict[str, Any]) -> dict[str, Any]:
    exercise: dict[str, Any] = data["lessons"][0]["exercises"][0]
    return exercise


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(LessonDataError) as error:
        parse_course(data)
    return str(error.value)


def test_the_shipped_data_loads_and_a_copy_of_it_parses_the_same() -> None:
    assert isinstance(COURSE, Course) and parse_course(copy.deepcopy(raw())) == COURSE


@pytest.mark.parametrize(("change", "message"), [
    (lambda ex: ex.update(fen="B:W33:B1"), "exercise 'numbers': invalid FEN 'B:W33:B1'"),
    (lambda ex: ex.update(solutions=["11-16x"]), "solution '11-16x': invalid move"),
    (lambda ex: ex.update(solutions=["11-7"]), "solution '11-7': illegal move '11-7'"),
    (lambda ex: ex.update(goal="best"), "goal 'best' is none of moves, any, only-capture"),
    (lambda ex: ex.update(goal="only-capture", solutions=None) or ex.pop("solutions"),
     "the goal 'only-capture' needs one legal move, a capture; the legal moves are 11-15, 11-16"),
    (lambda ex: ex.update(goal="wins", solutions=None) or ex.pop("solutions"),
     "no legal move meets the goal 'wins'"),
    (lambda ex: ex.update(goal="any"), "'solutions' are listed for the goal 'any'"),
    (lambda ex: ex.update(wrong=[{"move": "11-15", "reason": "learn.reason.occupied"}]),
     "a wrong move: '11-15' solves the exercise"),
    (lambda ex: ex.update(wrong=[{"move": "11-7", "reason": "r", "params": {"move": 7}}]),
     "'params' should map names to texts"),
    (lambda ex: ex.pop("hint"), "exercise 'numbers': 'hint' is missing"),
    (lambda ex: ex.update(task=""), "exercise 'numbers': 'task' is empty"),
    (lambda ex: ex.update(highlights=[0]), "'highlights' should be a list of squares 1-32"),
    (lambda ex: ex.update(moves=["11-15", "11-15"]), "moves[1]: illegal move '11-15'"),
    (lambda ex: ex.update(colour="red"), "exercise 'numbers': unknown field 'colour'"),
])
def test_an_exercise_the_rules_contradict_is_refused_by_name(change: Any, message: str) -> None:
    data = raw()
    change(first_exercise(data))
    assert message in refused(data)


def test_ids_used_twice_and_a_quiz_larger_than_its_pool_are_refused() -> None:
    data = raw()
    data["lessons"][1]["id"] = "board"
    assert refused(data) == "the lessons: the id 'board' is used twice"
    data = raw()
    data["quiz_size"] = len(data["quiz"]) + 1
    assert "quiz_size 13 is not between 1 and the 12 questions" in refused(data)
    data = raw()
    data["lessons"][0]["exercises"] = []
    assert refused(data) == "lesson 'board': it has no exercise"


def test_a_file_that_is_not_json_is_refused_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "lessons.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(LessonDataError, match=re.escape(str(broken))):
        load_course(broken)


def test_an_unknown_lesson_is_a_lookup_error_listing_the_lessons() -> None:
    with pytest.raises(LookupError, match="no lesson 'castling': the lessons are board, "):
        COURSE.lesson("castling")


def test_the_lesson_data_error_is_a_draughts_error() -> None:
    assert issubclass(LessonDataError, DraughtsError) and issubclass(LessonDataError, ValueError)
