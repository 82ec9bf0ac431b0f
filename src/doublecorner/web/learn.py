"""The routes of learning the rules: the page ``/learn``, its lessons, a move checked.

``GET /api/learn`` serves the course of :mod:`doublecorner.learn` as the page needs
it: each exercise's position, its legal moves (for moving by click) and the moves
that solve it, worked out by the rules when the app starts. ``POST
/api/rules/check`` checks one move in a position and stores nothing; the page
compares the move it accepted with the exercise's solutions, and words a refusal
from its parts, as it does in a game (docs/web-api.md).

>>> answer = check_move(CheckRequest(fen="B:W18:B9,14", move="14x23"))
>>> answer.move, answer.fen, answer.outcome.reason
('14x23', 'W:W:B9,23', 'no legal moves')
>>> check_move(CheckRequest(fen="B:W18:B9,14", move="9-13"))
Traceback (most recent call last):
...
doublecorner.errors.IllegalMoveError: illegal move '9-13' in B:W18:B9,14 (a capture is \
compulsory); legal moves: 14x23
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from doublecorner.board import Board
from doublecorner.errors import DraughtsError
from doublecorner.learn import Course, Exercise
from doublecorner.move import Move
from doublecorner.web.schemas import (
    MAX_FEN_TEXT,
    MAX_MOVE_TEXT,
    ErrorBody,
    LegalMove,
    Outcome,
    Side,
    side_name,
)

MAX_CHECK_HISTORY = 200  # plies before the move checked; a lesson's history is a few
PAGE = "learn.html"


class HistoryError(DraughtsError, ValueError):
    """A move of a check's history that is not legal (its code: ``invalid_input``)."""


class CheckRequest(BaseModel):
    """A move to check in the position ``fen`` after the moves ``moves``."""

    model_config = ConfigDict(extra="forbid")

    fen: StrictStr = Field(max_length=MAX_FEN_TEXT, examples=["B:W18:B9,14"])
    moves: list[StrictStr] = Field(
        default_factory=list, max_length=MAX_CHECK_HISTORY,
        description="moves played from fen before the one checked (for repetitions)")
    move: StrictStr = Field(max_length=MAX_MOVE_TEXT, examples=["14x23"],
                            description="full (9x18x27) or short (9x27) form")


class CheckAnswer(BaseModel):
    """A legal move: its full path, and the position it leads to."""

    move: str = Field(description="the full path, e.g. 9x18x27")
    path: list[int]
    captures: list[int] = Field(description="the squares of the pieces jumped")
    fen: str = Field(description="the position after the move")
    turn: Side = Field(description="the side to move after it")
    outcome: Outcome | None = Field(description="set when the side to move has no legal move")
    can_claim_draw: bool = Field(description="the side to move may claim a draw (threefold "
                                             "repetition or the 40-move rule)")


def check_move(request: CheckRequest) -> CheckAnswer:
    """The answer to ``request``: the move made in its position, or the rules' refusal.

    :raises InvalidFenError: ``fen`` describes no position.
    :raises HistoryError: a move of ``moves`` is not legal.
    :raises InvalidMoveError: ``move`` is not a move.
    :raises IllegalMoveError: ``move`` is not legal (with the reason and the legal moves).
    :raises AmbiguousMoveError: a short capture that fits several routes.
    """
    board = Board(request.fen)
    for index, text in enumerate(request.moves):
        try:
            board.push_str(text)
        except DraughtsError as error:
            raise HistoryError(f"moves[{index}]: {error}") from None
    move = board.push_str(request.move)
    outcome = board.outcome()
    return CheckAnswer(
        **_legal_move(move).model_dump(), fen=board.fen(), turn=side_name(board.turn),
        outcome=None if outcome is None else Outcome.model_validate({
            "result": outcome.result(), "reason": outcome.termination.value,
            "winner": None if outcome.winner is None else side_name(outcome.winner)}),
        can_claim_draw=outcome is None and board.can_claim_draw())


def _legal_move(move: Move) -> LegalMove:
    return LegalMove(move=str(move), path=list(move.path), captures=list(move.captures))


class DiagramBody(BaseModel):
    fen: str
    highlights: list[int]
    arrow: list[int] = Field(description="a path the diagram draws as an arrow")


class WrongMoveBody(BaseModel):
    move: str = Field(description="a typical wrong try, as the learner enters it")
    reason: str = Field(description="the catalogue key of why it is wrong")
    params: dict[str, str] = Field(description="the key's parameters")


class ExerciseBody(BaseModel):
    """An exercise as the page plays it; the words are catalogue keys."""

    id: str
    task: str
    hint: str
    done: str | None
    start_fen: str = Field(description="the position the history starts from")
    moves: list[str] = Field(description="the history: moves played from start_fen")
    fen: str = Field(description="the position to play in")
    turn: Side
    highlights: list[int]
    legal_moves: list[LegalMove]
    solutions: list[str] = Field(description="the moves that solve it, as full paths")
    wrong: list[WrongMoveBody]

    @classmethod
    def of(cls, exercise: Exercise) -> ExerciseBody:
        board = exercise.board()
        return cls(
            id=exercise.id, task=exercise.task, hint=exercise.hint, done=exercise.done,
            start_fen=exercise.fen, moves=list(exercise.moves), fen=board.fen(),
            turn=side_name(board.turn), highlights=list(exercise.highlights),
            legal_moves=[_legal_move(move)
                         for move in sorted(board.legal_moves, key=lambda move: move.path)],
            solutions=[str(move) for move in exercise.solutions],
            wrong=[WrongMoveBody(move=wrong.move, reason=wrong.reason, params=dict(wrong.params))
                   for wrong in exercise.wrong])


class LessonBody(BaseModel):
    id: str
    title: str
    text: list[str]
    diagram: DiagramBody
    exercises: list[ExerciseBody]


class CourseBody(BaseModel):
    """The lessons in order, and the quiz's pool of questions."""

    lessons: list[LessonBody]
    quiz: list[ExerciseBody]
    quiz_size: int = Field(description="how many questions a quiz draws from the pool")

    @classmethod
    def of(cls, course: Course) -> CourseBody:
        return cls(
            lessons=[LessonBody(
                id=lesson.id, title=lesson.title, text=list(lesson.text),
                diagram=DiagramBody(fen=Board(lesson.diagram.fen).fen(),
                                    highlights=list(lesson.diagram.highlights),
                                    arrow=list(lesson.diagram.arrow)),
                exercises=[ExerciseBody.of(exercise) for exercise in lesson.exercises])
                for lesson in course.lessons],
            quiz=[ExerciseBody.of(question) for question in course.quiz],
            quiz_size=course.quiz_size)


_ERRORS: dict[int | str, dict[str, Any]] = {status: {"model": ErrorBody} for status in (400, 422)}


def add_learn_routes(app: FastAPI, course: Course, static_dir: Path | None) -> None:
    """The routes of learning on ``app``: the course, the rules' check, and the page in
    ``static_dir`` (when there is one)."""
    body = CourseBody.of(course)  # once: the rules' answers do not change

    @app.get("/api/learn", response_model=CourseBody)
    async def lessons() -> CourseBody:
        """The lessons and the quiz of /learn, with each exercise's legal moves and solutions."""
        return body

    @app.post("/api/rules/check", response_model=CheckAnswer, responses=_ERRORS)
    async def check(request: CheckRequest) -> CheckAnswer:
        """Check a move in a position by the rules (nothing is stored): the move made, or
        a 400 saying why not."""
        return check_move(request)

    if static_dir is not None and (static_dir / PAGE).is_file():
        page = static_dir / PAGE

        @app.get("/learn", include_in_schema=False)
        async def learn_page() -> FileResponse:
            return FileResponse(page, media_type="text/html")
