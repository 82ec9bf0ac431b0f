"""The lessons of the page ``/learn``: data read from ``lessons.json``, checked by the rules.

Lessons are data, not code. Each names the message-catalogue keys of its title and
its few lines, a diagram (a FEN, squares to mark, an arrow) and its exercises: a
position (a FEN and the moves played from it), a goal, a hint, and the typical
wrong moves, each with the key of the reason it is wrong. This module reads them
and works out with :class:`~doublecorner.board.Board` which moves solve each
exercise, so that a page that knows no rules only compares the move the server
accepted with that list. Loading refuses data the rules contradict (a bad FEN, an
illegal solution, a goal no move reaches) with an error naming the exercise.

>>> course = load_course()
>>> [lesson.id for lesson in course.lessons][:4]
['board', 'pieces', 'start', 'man']
>>> must = course.lesson("compulsory").exercises[0]
>>> [str(move) for move in must.solutions], must.wrong[0].move, must.wrong[0].reason
(['14x23'], '9-13', 'learn.reason.captureCompulsory')
>>> [str(move) for move in course.lesson("winning").exercises[1].solutions]
['18-22']
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doublecorner.board import Board
from doublecorner.errors import DraughtsError
from doublecorner.move import Move

LESSONS_FILE = Path(__file__).with_name("lessons.json")


class LessonDataError(DraughtsError, ValueError):
    """Lesson data that cannot be read, or that the rules contradict; names the exercise."""


class Goal(str, enum.Enum):
    """What solves an exercise."""

    MOVES = "moves"  # one of the moves the data lists
    ANY = "any"  # any legal move
    ONLY_CAPTURE = "only-capture"  # the one legal move, a capture
    WINS = "wins"  # a move after which the other side has no legal move
    REPEATS = "repeats"  # a move that brings a position about for the third time


@dataclass(frozen=True, slots=True)
class WrongMove:
    """A typical wrong try (``9-13``), the catalogue key of why it is wrong, and the
    key's parameters (``{"move": "14x23"}``)."""

    move: str
    reason: str
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Exercise:
    """A position to play a move in, what solves it, and the words around it (keys).

    The position is ``fen`` after ``moves`` (a history, for a repetition);
    ``solutions`` are the legal moves that meet the ``goal``.
    """

    id: str
    task: str
    hint: str
    done: str | None
    fen: str
    moves: tuple[str, ...]
    goal: Goal
    solutions: tuple[Move, ...]
    wrong: tuple[WrongMove, ...]
    highlights: tuple[int, ...]

    def board(self) -> Board:
        """A board at the exercise's position, with its history."""
        board = Board(self.fen)
        for text in self.moves:
            board.push_str(text)
        return board

    def text_keys(self) -> set[str]:
        """The catalogue keys of its words."""
        keys = {self.task, self.hint, *(wrong.reason for wrong in self.wrong)}
        return keys | ({self.done} if self.done else set())


@dataclass(frozen=True, slots=True)
class Diagram:
    """The board a lesson shows beside its lines: a FEN, squares marked, an arrow's path."""

    fen: str
    highlights: tuple[int, ...] = ()
    arrow: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Lesson:
    """One rule: a title and lines (keys), a diagram, and exercises played in order."""

    id: str
    title: str
    text: tuple[str, ...]
    diagram: Diagram
    exercises: tuple[Exercise, ...]


@dataclass(frozen=True, slots=True)
class Course:
    """The lessons in order, and the pool the final quiz draws ``quiz_size`` questions from."""

    lessons: tuple[Lesson, ...]
    quiz: tuple[Exercise, ...]
    quiz_size: int

    def lesson(self, lesson_id: str) -> Lesson:
        """The lesson with this id.

        :raises LookupError: there is none.
        """
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise LookupError(f"no lesson {lesson_id!r}: the lessons are "
                          f"{', '.join(lesson.id for lesson in self.lessons)}")

    def text_keys(self) -> set[str]:
        """Every catalogue key the course names."""
        keys: set[str] = set()
        for lesson in self.lessons:
            keys |= {lesson.title, *lesson.text}
            for exercise in lesson.exercises:
                keys |= exercise.text_keys()
        for question in self.quiz:
            keys |= question.text_keys()
        return keys


def load_course(path: str | os.PathLike[str] | None = None) -> Course:
    """The course in ``path`` (default: the package's ``lessons.json``).

    :raises LessonDataError: the file is not JSON, or its data is wrong (see :func:`parse_course`).
    :raises OSError: the file cannot be read.
    """
    source = LESSONS_FILE if path is None else Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise LessonDataError(f"{source}: not JSON ({error})") from None
    return parse_course(data)


def parse_course(data: object) -> Course:
    """The course that ``data`` (as read from JSON) describes, its solutions worked out.

    >>> parse_course({"quiz_size": 1, "lessons": [], "quiz": [{"id": "q", "task": "t",
    ...     "hint": "h", "fen": "B:W18:B14", "goal": "moves", "solutions": ["14-17"]}]})
    Traceback (most recent call last):
    ...
    doublecorner.learn.course.LessonDataError: quiz, question 'q': solution '14-17': illegal \
move '14-17' in B:W18:B14 (a capture is compulsory); legal moves: 14x23

    :raises LessonDataError: a field is missing or of the wrong type, an id is used
        twice, a FEN or a move is refused by the rules, or a goal no legal move meets.
    """
    top = _Reader(data, "the course")
    lessons = tuple(_lesson(item) for item in top.items("lessons"))
    _check_unique([lesson.id for lesson in lessons], "the lessons")
    quiz = tuple(_exercise(item, "quiz, question") for item in top.items("quiz"))
    _check_unique([question.id for question in quiz], "the quiz")
    size = top.integer("quiz_size")
    if not 1 <= size <= len(quiz):
        raise LessonDataError(f"the course: quiz_size {size} is not between 1 and the "
                              f"{len(quiz)} questions of the quiz")
    top.check_keys({"lessons", "quiz", "quiz_size"})
    return Course(lessons, quiz, size)


class _Reader:
    """Fields of one JSON object, each checked for its type; errors name ``where``."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise LessonDataError(f"{where}: expected an object, got {type(data).__name__}")
        self.data: dict[str, Any] = data
        self.where = where

    def fail(self, message: str) -> LessonDataError:
        return LessonDataError(f"{self.where}: {message}")

    def get(self, key: str, kind: type, default: Any = None) -> Any:
        value = self.data.get(key, default)
        if value is None:
            raise self.fail(f"'{key}' is missing")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise self.fail(f"'{key}' should be {kind.__name__}, not {value!r}")
        return value

    def text(self, key: str) -> str:
        value: str = self.get(key, str)
        if not value:
            raise self.fail(f"'{key}' is empty")
        return value

    def optional_text(self, key: str) -> str | None:
        return self.text(key) if key in self.data else None

    def integer(self, key: str) -> int:
        value: int = self.get(key, int)
        return value

    def items(self, key: str, *, default: list[Any] | None = None) -> list[Any]:
        value: list[Any] = self.get(key, list, default)
        return value

    def texts(self, key: str, *, default: list[Any] | None = None) -> tuple[str, ...]:
        values = self.items(key, default=default)
        if not all(isinstance(value, str) and value for value in values):
            raise self.fail(f"'{key}' should be a list of texts, not {values!r}")
        return tuple(values)

    def squares(self, key: str) -> tuple[int, ...]:
        values = self.items(key, default=[])
        if not all(type(value) is int and 1 <= value <= 32 for value in values):
            raise self.fail(f"'{key}' should be a list of squares 1-32, not {values!r}")
        return tuple(values)

    def check_keys(self, known: set[str]) -> None:
        unknown = sorted(set(self.data) - known)
        if unknown:
            raise self.fail(f"unknown field {', '.join(map(repr, unknown))}")


def _check_unique(ids: list[str], where: str) -> None:
    twice = sorted({one for one in ids if ids.count(one) > 1})
    if twice:
        raise LessonDataError(f"{where}: the id {', '.join(map(repr, twice))} is used twice")


def _lesson(data: object) -> Lesson:
    reader = _Reader(data, "a lesson")
    lesson_id = reader.text("id")
    reader.where = f"lesson {lesson_id!r}"
    diagram_reader = _Reader(reader.data.get("diagram"), f"{reader.where}, its diagram")
    diagram = Diagram(diagram_reader.text("fen"), diagram_reader.squares("highlights"),
                      diagram_reader.squares("arrow"))
    diagram_reader.check_keys({"fen", "highlights", "arrow"})
    _board(diagram.fen, diagram_reader)
    exercises = tuple(_exercise(item, f"lesson {lesson_id!r}, exercise")
                      for item in reader.items("exercises"))
    if not exercises:
        raise reader.fail("it has no exercise")
    _check_unique([exercise.id for exercise in exercises], reader.where)
    reader.check_keys({"id", "title", "text", "diagram", "exercises"})
    return Lesson(lesson_id, reader.text("title"), reader.texts("text"), diagram, exercises)


def _board(fen: str, reader: _Reader, moves: tuple[str, ...] = ()) -> Board:
    try:
        board = Board(fen)
    except DraughtsError as error:
        raise reader.fail(str(error)) from None
    for index, text in enumerate(moves):
        try:
            board.push_str(text)
        except DraughtsError as error:
            raise reader.fail(f"moves[{index}]: {error}") from None
    return board


def _exercise(data: object, kind: str) -> Exercise:
    reader = _Reader(data, kind)
    exercise_id = reader.text("id")
    reader.where = f"{kind} {exercise_id!r}"
    fen, moves = reader.text("fen"), reader.texts("moves", default=[])
    board = _board(fen, reader, moves)
    try:
        goal = Goal(reader.text("goal"))
    except ValueError:
        raise reader.fail(f"goal {reader.data['goal']!r} is none of "
                          f"{', '.join(goal.value for goal in Goal)}") from None
    if goal is not Goal.MOVES and "solutions" in reader.data:
        raise reader.fail(f"'solutions' are listed for the goal {goal.value!r}, which "
                          "finds its own")
    solutions = _solutions(board, goal, reader)
    wrong = tuple(_wrong_move(item, board, solutions, reader) for item in
                  reader.items("wrong", default=[]))
    reader.check_keys({"id", "task", "hint", "done", "fen", "moves", "goal", "solutions",
                       "wrong", "highlights"})
    return Exercise(exercise_id, reader.text("task"), reader.text("hint"),
                    reader.optional_text("done"), fen, moves, goal, solutions, wrong,
                    reader.squares("highlights"))


def _solutions(board: Board, goal: Goal, reader: _Reader) -> tuple[Move, ...]:
    legal = sorted(board.legal_moves, key=lambda move: move.path)
    if goal is Goal.MOVES:
        texts = reader.texts("solutions")
        if not texts:
            raise reader.fail("'solutions' is empty")
        found = []
        for text in texts:
            try:
                found.append(board.parse_move(text))
            except DraughtsError as error:
                raise reader.fail(f"solution {text!r}: {error}") from None
        return tuple(found)
    if goal is Goal.ONLY_CAPTURE:
        if len(legal) != 1 or not legal[0].is_capture:
            raise reader.fail(f"the goal 'only-capture' needs one legal move, a capture; "
                              f"the legal moves are {', '.join(map(str, legal)) or 'none'}")
        return tuple(legal)
    meets: dict[Goal, Callable[[Board], bool]] = {
        Goal.ANY: lambda after: True,
        Goal.WINS: lambda after: not after.legal_moves,
        Goal.REPEATS: lambda after: after.is_repetition(3),
    }
    found = []
    for move in legal:
        board.push(move)
        if meets[goal](board):
            found.append(move)
        board.pop()
    if not found:
        raise reader.fail(f"no legal move meets the goal {goal.value!r}")
    return tuple(found)


def _wrong_move(data: object, board: Board, solutions: tuple[Move, ...],
                exercise: _Reader) -> WrongMove:
    reader = _Reader(data, f"{exercise.where}, a wrong move")
    text = reader.text("move")
    params = reader.get("params", dict, {})
    if not all(isinstance(value, str) for value in params.values()):
        raise reader.fail(f"'params' should map names to texts, not {params!r}")
    reader.check_keys({"move", "reason", "params"})
    try:
        solves = board.parse_move(text) in solutions
    except DraughtsError:
        solves = False  # wrong as it should be: the rules refuse it
    if solves:
        raise reader.fail(f"{text!r} solves the exercise")
    return WrongMove(text, reader.text("reason"), dict(params))
