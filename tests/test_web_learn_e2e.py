"""The page ``/learn`` in a real browser: the lessons played in Irish and in English, and the quiz.

It runs on the server, browser and page of ``test_web_e2e.py`` (skipped as that
module is, without playwright or chromium). A learner plays every exercise with
clicks on the board, the solutions taken from the course as the rules work them
out (``doublecorner.learn``); a wrong try is answered with its reason and the
hint, and the progress kept in the browser outlives a reload.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from doublecorner.learn import Exercise, load_course
from tests import test_web_e2e as e2e

# The browser tests' fixtures, shared: one server and one browser for this module too.
database = e2e.database
games_db = e2e.games_db
server = e2e.server
browser = e2e.browser
page = e2e.page

COURSE = load_course()
QUESTIONS = {question.id: question for question in COURSE.quiz}


def say(catalogue: dict[str, Any], key: str, **params: object) -> str:
    """The catalogue's message ``key`` with its placeholders filled, as i18n.js fills them."""
    return re.sub(r"\{(\w+)\}", lambda found: str(params[found.group(1)]), catalogue[key])


def square(page: Page, number: int) -> Any:
    return page.locator(f'[data-testid="learn-board"] rect.square.playing[data-square="{number}"]')


def click(page: Page, *squares: int) -> None:
    """Click the squares on the exercise's board; a try waits for the server's answer."""
    for number in squares:
        square(page, number).click()
    expect(page.locator("body")).to_have_attribute("data-busy", "false")


def solve(page: Page, exercise: Exercise) -> str:
    """Play the exercise's first solution square by square; its text."""
    move = exercise.solutions[0]
    click(page, *move.path)
    return str(move)


def open_learn(page: Page, server: str, query: str = "") -> None:
    page.goto(f"{server}learn{query}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def lessons_done(page: Page) -> list[str]:
    return page.locator('[data-testid="lesson-item"][data-done="true"]').evaluate_all(
        "items => items.map(item => item.dataset.lesson)")


def play_every_lesson(page: Page, catalogue: dict[str, Any]) -> None:
    """Play every lesson in order from the first, with the wrong tries of two exercises."""
    title, feedback, hint = (page.get_by_test_id(testid) for testid in
                             ("lesson-title", "feedback", "hint"))
    for lesson in COURSE.lessons:
        expect(title).to_have_text(catalogue[lesson.title])
        expect(page).to_have_url(re.compile(f"#{lesson.id}$"))
        for index, exercise in enumerate(lesson.exercises):
            expect(page.get_by_test_id("exercise")).to_have_attribute(
                "data-exercise", f"{lesson.id}/{exercise.id}")
            expect(page.get_by_test_id("exercise-heading")).to_have_text(
                say(catalogue, "learn.exercise", number=index + 1, total=len(lesson.exercises)))
            expect(page.get_by_test_id("task")).to_have_text(catalogue[exercise.task])
            if (lesson.id, exercise.id) == ("compulsory", "must"):
                click(page, 9, 13)  # a man with no capture, while another must capture
                expect(feedback).to_have_text(
                    say(catalogue, "learn.reason.captureCompulsory", move="14x23"))
                expect(hint).to_have_text(say(catalogue, "learn.hint",
                                              hint=catalogue[exercise.hint]))
                page.get_by_test_id("try-again").click()
                expect(feedback).to_have_text("")
            if (lesson.id, exercise.id) == ("multijump", "three"):
                click(page, 3, 10, 10)  # a click on the square it stands on stops it there
                expect(feedback).to_have_text(
                    say(catalogue, "learn.reason.multiJumpIncomplete", move="3x10x19x28"))
                expect(page.get_by_test_id("exercise")).to_have_attribute("data-outcome", "wrong")
            move = solve(page, exercise)
            expect(feedback).to_have_text(say(catalogue, "learn.solved", move=move))
            if exercise.done:
                expect(hint).to_have_text(catalogue[exercise.done])
            page.get_by_test_id("next").click()
    expect(title).to_have_text(catalogue["learn.quiz"])
    expect(page).to_have_url(re.compile("#quiz$"))


def test_a_learner_completes_every_lesson_in_irish_then_in_english(page: Page,
                                                                    server: str) -> None:
    open_learn(page, server, "?lang=ga")
    expect(page.locator("html")).to_have_attribute("lang", "ga")
    assert lessons_done(page) == []
    assert e2e.foreign_words(page, e2e.GA) == [], "the first lesson, in Irish"
    click(page, 11, 16)  # legal, but not the square asked for
    expect(page.get_by_test_id("feedback")).to_have_text(
        say(e2e.GA, "learn.notTheGoal", move="11-16"))
    assert e2e.foreign_words(page, e2e.GA) == [], "a wrong try, in Irish"

    play_every_lesson(page, e2e.GA)
    assert lessons_done(page) == [lesson.id for lesson in COURSE.lessons]
    assert e2e.foreign_words(page, e2e.GA) == [], "the quiz, in Irish"

    page.reload()  # the progress is kept in the browser
    expect(page.get_by_test_id("lesson-title")).to_have_text(e2e.GA["learn.quiz"])
    assert lessons_done(page) == [lesson.id for lesson in COURSE.lessons]

    open_learn(page, server, "?lang=en")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("reset-progress").click()
    expect(page.locator('[data-testid="lesson-item"][data-done="true"]')).to_have_count(0)
    page.goto(f"{server}learn#board")
    expect(page.get_by_test_id("lesson-title")).to_have_text(e2e.EN["lesson.board.title"])
    play_every_lesson(page, e2e.EN)
    assert lessons_done(page) == [lesson.id for lesson in COURSE.lessons]


def test_the_quiz_asks_mixed_questions_one_try_each_and_keeps_the_best_score(
        page: Page, server: str) -> None:
    open_learn(page, server, "?lang=en#quiz")
    feedback, hint = page.get_by_test_id("feedback"), page.get_by_test_id("hint")
    total = COURSE.quiz_size
    asked = []
    for number in range(1, total + 1):
        expect(page.get_by_test_id("exercise-heading")).to_have_text(
            say(e2e.EN, "learn.question", number=number, total=total))
        found = page.get_by_test_id("exercise").get_attribute("data-exercise")
        assert found is not None and found.startswith("quiz/")
        question = QUESTIONS[found.removeprefix("quiz/")]
        asked.append(question.id)
        if number == 1:  # a wrong answer: said why, with the answer, and no second try
            page.get_by_test_id("try-input").fill("1-2")
            page.get_by_test_id("try-input").press("Enter")
            expect(page.get_by_test_id("exercise")).to_have_attribute("data-outcome", "missed")
            expect(feedback).to_contain_text("Illegal move 1-2")
            answers = " or ".join(str(move) for move in question.solutions)
            expect(hint).to_contain_text(f"The answer: {answers}.")
            expect(page.get_by_test_id("try-input")).to_be_disabled()
        else:
            move = solve(page, question)
            expect(feedback).to_have_text(say(e2e.EN, "learn.right", move=move))
        page.get_by_test_id("next").click()
    assert len(set(asked)) == total
    expect(feedback).to_have_text(say(e2e.EN, "learn.quizScore", score=total - 1, total=total))
    expect(hint).to_have_text(say(e2e.EN, "learn.quizBest", score=total - 1, total=total))
    expect(page.locator('[data-testid="lesson-item"][data-lesson="quiz"]')).to_have_attribute(
        "data-done", "true")
    page.get_by_test_id("next").click()  # again: a new draw, from the first question
    expect(page.get_by_test_id("exercise-heading")).to_have_text(
        say(e2e.EN, "learn.question", number=1, total=total))


def test_the_home_page_links_to_the_lessons_and_a_link_opens_its_lesson(page: Page,
                                                                         server: str) -> None:
    page.goto(f"{server}?lang=en")
    page.get_by_test_id("cancel-new-game").click()  # a first visit asks what to play
    page.get_by_test_id("learn-link").click()
    expect(page).to_have_url(re.compile(r"/learn#board$"))  # the first lesson not yet done
    expect(page.get_by_test_id("lesson-title")).to_have_text(e2e.EN["lesson.board.title"])
    open_learn(page, server, "#jump")
    expect(page.get_by_test_id("lesson-title")).to_have_text(e2e.EN["lesson.jump.title"])
    expect(page.locator('[aria-current="page"]')).to_have_text(e2e.EN["lesson.jump.title"])
    page.get_by_test_id("language").select_option("ga")  # at once, without a reload
    expect(page.get_by_test_id("lesson-title")).to_have_text(e2e.GA["lesson.jump.title"])
    expect(page).to_have_title(e2e.GA["learn.pageTitle"])
    page.get_by_role("link", name=e2e.GA["lesson.king.title"], exact=True).click()
    expect(page).to_have_url(re.compile("#king$"))
    click(page, 18, 22)  # a White man stands there
    expect(page.get_by_test_id("feedback")).to_have_text(e2e.GA["learn.reason.occupied"])
