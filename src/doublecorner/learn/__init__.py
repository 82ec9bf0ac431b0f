"""Learning the rules on the board: the lessons and the quiz of the page ``/learn``, as data.

The lessons live in ``lessons.json`` (positions, goals and the message-catalogue keys
of their words); :func:`load_course` reads them and works out each exercise's
solutions with the rules. Nothing here knows of the web: the server serves the
course as JSON, and tests check it with :class:`~doublecorner.board.Board`.
"""

from doublecorner.learn.course import (
    LESSONS_FILE,
    Course,
    Diagram,
    Exercise,
    Goal,
    Lesson,
    LessonDataError,
    WrongMove,
    load_course,
    parse_course,
)

__all__ = ["LESSONS_FILE", "Course", "Diagram", "Exercise", "Goal", "Lesson", "LessonDataError",
           "WrongMove", "load_course", "parse_course"]
