"""The review view, an imported game's notes and fair play, in a real browser.

The app runs as in ``test_web_e2e`` (its fixtures and helpers are used
here), with reviews searched to a fixed small depth so that they are quick:
the test waits on the page's own states, never on the clock. Stable hooks
for other tests: ``review-button``, ``eval-chart`` (the chart, a slider over
the plies), ``move-mark`` (a mark in the move list, its glyph in
``data-mark`` and its ply in ``data-ply``), ``review-pdn`` (the download),
``variation-move``, ``fair-play-note``.
"""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from doublecorner.analysis.game import Judgement
from doublecorner.pdn import nags
from tests.test_web_e2e import (  # the module skips itself without a browser
    EN,
    GA,
    STARTUP_SECONDS,
    _free_port,
    browser,
    browsers,
    foreign_words,
    games_db,
    idle,
    move_list,
    new_game,
    page,
    play_line,
    square,
)
from tests.test_web_review import LINE

# isort: split
from playwright.sync_api import Browser, Locator, Page, Position, expect  # after the skip above

__all__ = ["browser", "games_db", "page"]  # fixtures of test_web_e2e used here

SERVE = """
import sys
import uvicorn
from doublecorner.web.app import create_app
from doublecorner.web.review import ReviewLimits
uvicorn.run(create_app(sys.argv[1], games_db=sys.argv[3],
                       review_limits=ReviewLimits(depth=4, seconds_per_position=5.0)),
            host="127.0.0.1", port=int(sys.argv[2]))
"""
# Black plays badly: a review at depth 4 marks some of its moves. Which ones, and how,
# is the network's judgement (and the pool's engines keep their tables between
# searches): tests/test_web_review.py checks them against the analysis package; here
# the page must show the marks it was given, consistently. The line is that module's.
# A judgement's mark ("?!", "?", "??") and its name, the key of its message ("review.<name>").
JUDGEMENTS = {nags.mark_of_nag(judgement.value): judgement.name.lower()
              for judgement in Judgement}
ANNOTATED = """[Event "Club"]
[Black "Ann"]
[White "Bob"]
{A game of the club} 1. 11-15 {the Old Fourteenth's start} 23-19 2. 8-11! (2. 9-13 $6
22-18 (22-17) 15x22) 22-17 3. 9-13?? 24-20 1-0
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, games_db: Path) -> Iterator[str]:
    """The base URL of the app (reviews to depth 4) over a fresh database, while it runs."""
    database = tmp_path_factory.mktemp("review") / "games.sqlite3"
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVE, str(database), str(port),
                                str(games_db)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def read_log() -> None:  # drains the pipe for the server's whole life
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read_log, daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=STARTUP_SECONDS)
            if line is None:
                pytest.fail("the server stopped at start")
            if "Uvicorn running on" in line:
                break
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=30)


def marks(page: Page) -> Locator:
    return page.get_by_test_id("move-mark")


def chart_point(page: Page, ply: int, last: int) -> Position:
    """Where on the chart ply ``ply`` of ``last`` is drawn (review.js: 600 wide, 6 padding)."""
    box = page.get_by_test_id("eval-chart").bounding_box()
    assert box is not None
    return {"x": (6 + ply / last * 588) / 600 * box["width"], "y": box["height"] / 2}


def test_a_finished_game_is_reviewed_with_a_chart_and_marks(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, *LINE)
    expect(page.get_by_test_id("review-panel")).to_be_visible()  # a game at one board: any time
    page.get_by_test_id("resign").click()
    idle(page)
    expect(page.get_by_test_id("status")).to_contain_text("resigned")

    page.get_by_test_id("review-button").click()
    chart = page.get_by_test_id("eval-chart")
    expect(chart).to_be_visible()
    expect(page.get_by_test_id("review-status")).to_have_text(EN["review.done"])
    shown = [(int(mark.get_attribute("data-ply") or 0), mark.text_content() or "")
             for mark in marks(page).all()]
    assert shown and all(1 <= ply <= len(LINE) and text in JUDGEMENTS for ply, text in shown)
    first_mark = shown[0][1]
    expect(marks(page).first).to_have_attribute("aria-label", re.compile(
        rf"^{re.escape(EN['review.' + JUDGEMENTS[first_mark]])}: the engine preferred "
        r"\d+-\d+ \(([+-]\d\.\d\d|0\.00) for (Black|White)\)$"))
    expect(page.get_by_test_id("review-button")).to_be_hidden()

    def counted(side: int) -> str:  # ply 1 is Black's
        texts = [text for ply, text in shown if ply % 2 == side]
        return (f"blunders {texts.count('??')}, mistakes {texts.count('?')}, "
                f"inaccuracies {texts.count('?!')}")

    expect(page.get_by_test_id("review-summary").locator("li")).to_have_text([
        f"Black: {counted(1)}", f"White: {counted(0)}"])
    expect(page.get_by_test_id("review-pdn")).to_have_attribute("href",
                                                                re.compile(r"/review\.pdn$"))
    expect(chart).to_have_attribute("aria-valuenow", "8")
    expect(chart.locator("circle.chart-mark")).to_have_count(len(shown))

    # A click on the chart shows that ply; the arrow keys step from there.
    chart.click(position=chart_point(page, 3, 8))
    expect(page.get_by_test_id("status")).to_contain_text("Looking at move 3 of 8")
    expect(page.locator('[data-testid="move-list"] button[aria-current="true"]')).to_have_attribute(
        "data-ply", "3")
    expect(chart).to_have_attribute("aria-valuenow", "3")
    expect(chart).to_have_attribute("aria-valuetext",
                                    re.compile(r"^Ply 3: [+-]\d\.\d\d for Black$"))
    page.get_by_test_id("eval-chart").press("ArrowRight")
    expect(page.get_by_test_id("status")).to_contain_text("Looking at move 4 of 8")
    page.get_by_test_id("eval-chart").press("Home")
    expect(page.locator("#board g.piece")).to_have_count(24)  # the start
    page.get_by_test_id("eval-chart").press("End")
    expect(page.get_by_test_id("eval-chart")).to_have_attribute("aria-valuenow", "8")

    with page.expect_download() as download:
        page.get_by_test_id("review-pdn").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "[Annotator " in text
    assert all(f"{LINE[ply - 1]}{mark}" in text for ply, mark in shown)

    page.reload()  # kept with the game: shown at once
    expect(marks(page)).to_have_count(len(shown))
    expect(page.get_by_test_id("eval-chart")).to_be_visible()


def test_no_engine_help_while_friends_play(browser: Browser, server: str) -> None:
    with browsers(browser, 2) as (ann, bob):
        new_game(ann, server, "friend")
        bob.goto(ann.get_by_test_id("invite-link").input_value())
        expect(bob.get_by_test_id("message")).to_contain_text("you play White")
        play_line(ann, "11-15")
        for side in (ann, bob):
            expect(side.get_by_test_id("fair-play-note")).to_be_visible()
            for hidden in ("analysis-panel", "explorer-panel", "review-panel"):
                expect(side.get_by_test_id(hidden)).to_be_hidden()
        bob.get_by_test_id("resign").click()
        for side in (ann, bob):
            expect(side.get_by_test_id("status")).to_contain_text("resigned")
            expect(side.get_by_test_id("fair-play-note")).to_be_hidden()
            for name in ("analysis", "explorer"):  # each in its tab of the side panel
                side.get_by_test_id(f"tab-{name}").click()
                expect(side.get_by_test_id(f"{name}-panel")).to_be_visible()
            expect(side.get_by_test_id("review-button")).to_be_visible()


def test_an_imported_games_notes_and_review_in_irish(page: Page, server: str) -> None:
    page.goto(f"{server}?lang=ga")
    page.get_by_test_id("cancel-new-game").click()
    page.locator('[data-testid="import-panel"] summary').click()
    page.get_by_test_id("pdn-text").fill(ANNOTATED)
    page.get_by_test_id("import-pdn").click()
    expect(move_list(page)).to_have_count(6)
    notes = page.locator('[data-testid="move-list"] li.note')
    expect(notes).to_have_count(3)  # the game's comment, 11-15's, and 8-11's variation
    expect(notes.nth(0)).to_have_text("A game of the club")
    expect(notes.nth(1)).to_have_text("the Old Fourteenth's start")
    expect(page.locator('[data-testid="move-list"] .nags')).to_have_text(["!", "?!", "??"])
    variation = page.get_by_test_id("variation-move")
    expect(variation).to_have_text(["9-13", "22-18", "15x22", "22-17"])

    variation.nth(1).click()  # the position after 2. 9-13 22-18, read only
    expect(page.get_by_test_id("status")).to_contain_text("Malairt ar taispeáint, tar éis 22-18")
    expect(page.locator('#board g.piece[data-square="18"]')).to_have_count(1)
    expect(page.locator('#board g.piece[data-square="13"]')).to_have_count(1)
    expect(variation.nth(1)).to_have_attribute("aria-current", "true")
    square(page, 15).click()  # nothing is played here
    expect(move_list(page)).to_have_count(6)

    page.get_by_test_id("review-button").click()
    expect(page.get_by_test_id("review-status")).to_have_text(GA["review.done"])
    expect(page.get_by_test_id("eval-chart")).to_be_visible()
    assert foreign_words(page, GA) == [], "words that are not the Irish catalogue's"
    page.get_by_test_id("nav-last").click()  # back to the game
    expect(page.get_by_test_id("status")).not_to_contain_text("Malairt")
    expect(page.locator('#board g.piece[data-square="20"]')).to_have_count(1)  # 24-20
