"""Play people in a real browser (issue 25, items 2-4): lobby, rated game, watching, rematch.

Three browser contexts are three people. Ann and Bob sign up through the page's own forms;
Ann posts a rated seek from the lobby panel, Bob accepts it, and both land in the game; Eve,
signed out, opens it from the watch list and follows it live while both boards count her;
they play to Bob's resignation, and both ratings move as Glicko-2 says (computed here with
doublecorner.ratings); Ann reviews the game (the chart, the marks of her weak moves); Bob
offers a rematch, Ann accepts it, and all three pages move to it
with the sides swapped; Ann's profile shows her rating, its history and her games.

The server is the real app under uvicorn, as in test_web_e2e (whose browser fixture is used
here, so this module skips or fails as that one does), with a cheap Argon2 hash, sign-in
limits that let every test sign up from 127.0.0.1 and reviews searched to depth 4 (as in
test_web_review_page, whose line of weak moves is played here).
"""

# The fixtures imported from test_web_e2e are pytest's by name, so the tests' arguments of the
# same names are not redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from doublecorner.ratings import Rating, rate_game
from tests.test_web_account_page import SERVE as ACCOUNTS_SERVE
from tests.test_web_account_page import open_page, sign_up
from tests.test_web_e2e import EN, browser, move_list, play_line, serving  # noqa: F401
from tests.test_web_review_page import LINE

# The accounts' server, its games reviewed quickly and always alike.
SERVE = ACCOUNTS_SERVE.replace(
    "from doublecorner.web.app import create_app",
    "from doublecorner.web.app import create_app\n"
    "from doublecorner.web.review import ReviewLimits").replace(
    "password_hasher=hasher)",
    "password_hasher=hasher,\n"
    "                       review_limits=ReviewLimits(depth=4, seconds_per_position=5.0))")
assert "review_limits=" in SERVE, "test_web_account_page's SERVE changed: follow it here"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database: Path = tmp_path_factory.mktemp("people") / "games.sqlite3"
    with serving(SERVE, database) as url:
        yield url


@contextlib.contextmanager
def people(browser: Browser, count: int) -> Iterator[list[Page]]:
    """``count`` pages, each in a context of its own: another person, with their own cookies."""
    contexts = [browser.new_context(viewport=ViewportSize(width=1280, height=900))
                for _ in range(count)]
    pages = [context.new_page() for context in contexts]
    errors: list[str] = []
    for opened in pages:
        opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield pages
    finally:
        for context in contexts:
            context.close()
    assert errors == [], f"errors in the page's scripts: {errors}"


def player_line(page: Page, name: str) -> Locator:
    """The line beside the board that names ``name``."""
    return page.locator('[data-testid^="player-"]', has_text=name)


def test_two_accounts_play_a_rated_game_from_the_lobby_watched_then_a_rematch(
        browser: Browser, server: str) -> None:
    with people(browser, 3) as (ann, bob, eve):
        for page, name in ((ann, "Ann"), (bob, "Bob")):
            open_page(page, server)
            sign_up(page, name)
        open_page(eve, server)

        # Ann posts a rated seek, playing Black; Bob sees it live and accepts it.
        ann.get_by_test_id("open-lobby").click()
        expect(ann.get_by_test_id("seek-minutes")).to_be_focused()
        ann.get_by_test_id("seek-minutes").fill("10")
        ann.get_by_test_id("seek-increment").fill("5")
        ann.get_by_test_id("seek-color").select_option("black")
        ann.get_by_test_id("seek-rated").check()
        ann.get_by_test_id("post-seek").click()
        seek = bob.get_by_test_id("seek")
        expect(seek).to_contain_text("Ann")
        expect(seek).to_contain_text("1500?")
        expect(seek).to_contain_text("10+5")
        expect(seek).to_contain_text("Rated")
        expect(seek).to_contain_text("You: White")
        expect(eve.get_by_test_id("seek")).to_contain_text("Ann")  # signed out: she sees it
        expect(eve.get_by_test_id("accept-seek")).to_have_count(0)  # but cannot take it
        seek.get_by_test_id("accept-seek").click()

        # Both land in the game, each with their own side at the bottom and the ratings shown.
        for page in (ann, bob):
            expect(page).to_have_url(re.compile(r"#game=g_"))
            expect(page.get_by_test_id("player-bottom")).to_contain_text(
                "Ann" if page is ann else "Bob")
            expect(player_line(page, "Ann")).to_contain_text("1500?")
            expect(player_line(page, "Bob")).to_contain_text("1500?")
        game_url = ann.url
        assert bob.url == game_url
        expect(ann.get_by_test_id("status")).to_contain_text("your move")
        expect(bob.get_by_test_id("seek-list")).to_contain_text("No open seeks")

        # Eve, signed out, finds the game in the watch list and follows it live.
        watched = eve.get_by_test_id("watched-game")
        expect(watched).to_contain_text("Ann")
        expect(watched).to_contain_text("Rated")
        watched.get_by_test_id("watch-game").click()
        expect(eve).to_have_url(game_url)
        for page in (ann, bob, eve):
            expect(page.get_by_test_id("spectators")).to_have_text("Watching: 1")
        for ply, move in enumerate(LINE):
            mover = bob if ply % 2 else ann
            # The other's last move must have reached the mover's page before it counts
            # the list: play_line expects exactly one more move after its own.
            expect(move_list(mover)).to_have_count(ply)
            play_line(mover, move)
        expect(move_list(eve)).to_have_text(LINE)
        expect(eve.get_by_test_id("resign")).to_be_disabled()  # she only watches
        expect(bob.get_by_test_id("takeback")).to_be_hidden()  # a rated game: no takebacks

        # Bob resigns: both ratings move as Glicko-2 says.
        bob.get_by_test_id("resign").click()
        won, lost = rate_game(Rating(), Rating(), 1.0)
        for page in (ann, bob, eve):
            expect(page.get_by_test_id("status")).to_contain_text("Black wins (1-0)")
            expect(player_line(page, "Ann")).to_contain_text(f"{won.rating:.0f}?")
            expect(player_line(page, "Ann")).to_contain_text(
                f"(+{round(won.rating) - 1500})")
            expect(player_line(page, "Bob")).to_contain_text(f"{lost.rating:.0f}?")
            expect(player_line(page, "Bob")).to_contain_text(
                f"(\u2212{1500 - round(lost.rating)})")
        for name, rating in (("Ann", won), ("Bob", lost)):
            shown = ann.request.get(f"{server}api/users/{name}").json()["rating"]
            assert shown["rating"] == pytest.approx(rating.rating, abs=1e-9)
            assert shown["deviation"] == pytest.approx(rating.deviation, abs=1e-9)
            assert shown["provisional"] is True

        # Ann reviews the game: the evaluation chart, and her weak moves marked (which ones
        # is the network's judgement: tests/test_web_review.py checks them), Bob's good
        # ones not.
        ann.get_by_test_id("review-button").click()
        expect(ann.get_by_test_id("eval-chart")).to_be_visible()
        expect(ann.get_by_test_id("review-status")).to_have_text(EN["review.done"])
        marks = ann.get_by_test_id("move-mark")
        plies = [int(mark.get_attribute("data-ply") or 0) for mark in marks.all()]
        assert plies and all(ply % 2 == 1 for ply in plies), plies

        # A rematch: Bob offers it, Ann accepts it, and all three move to it, sides swapped.
        bob.get_by_test_id("offer-rematch").click()
        expect(ann.get_by_test_id("status")).to_contain_text("White offers a rematch")
        ann.get_by_test_id("accept-rematch").click()
        for page in (ann, bob, eve):
            expect(page).not_to_have_url(game_url)
            expect(page).to_have_url(re.compile(r"#game=g_"))
            expect(move_list(page)).to_have_count(0)
        assert ann.url == bob.url == eve.url
        expect(bob.get_by_test_id("status")).to_contain_text("Black to move — your move")
        expect(ann.get_by_test_id("player-bottom")).to_contain_text("White")
        expect(ann.get_by_test_id("player-bottom")).to_contain_text("Ann")
        expect(bob.get_by_test_id("player-bottom")).to_contain_text("Black")
        expect(bob.get_by_test_id("player-bottom")).to_contain_text("Bob")
        expect(player_line(bob, "Ann")).to_contain_text(f"{won.rating:.0f}?")
        play_line(bob, "9-14")
        expect(move_list(ann)).to_have_text(["9-14"])

        # Ann's profile: her rating, the history of her one rated game, her games.
        ann.goto(f"{server}u/Ann")
        expect(ann.locator("body")).to_have_attribute("data-ready", "true")
        expect(ann.get_by_test_id("profile-rating")).to_have_text(f"{won.rating:.0f}?")
        expect(ann.get_by_test_id("profile-record")).to_have_text("Won 1, drawn 0, lost 0")
        chart = ann.get_by_test_id("rating-chart").locator("svg")
        expect(chart).to_have_attribute(
            "aria-label", f"Rating after each rated game, from {won.rating:.0f}? to "
                          f"{won.rating:.0f}?")
        ann.get_by_test_id("history-details").locator("summary").click()
        expect(ann.get_by_test_id("history-table").locator("tbody tr")).to_have_count(1)
        expect(ann.get_by_test_id("history-table")).to_contain_text("Bob")
        expect(ann.get_by_test_id("profile-game")).to_have_count(2)
        expect(ann.get_by_test_id("download-games")).to_have_attribute(
            "href", "/api/users/Ann/games.pdn")
        ann.get_by_test_id("profile-game").last.click()  # the first game opens on the board
        expect(move_list(ann)).to_have_text(LINE)
