"""A page that feels like a game (issue 26, item 4), in a real browser: moves that slide and
captures that fade (and none of it with reduced motion or the setting off), sounds on demand,
the board's looks and kings kept, the evaluation bar beside the board, the side panel's tabs
by mouse and keys, a new game dialog that fits a low window, and a man dragged by touch on a
phone.

The server, the browser and the page come from ``test_web_e2e`` (its fixtures, imported here),
so this module skips or fails exactly as that one does. What the page animates and plays is
recorded as it starts (``Element.animate`` and ``HTMLMediaElement.play`` wrapped by an init
script), so that no test depends on how fast this machine draws.
"""

# The fixtures imported from test_web_e2e are pytest's by name, so the tests' arguments of the
# same names are not redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.test_web_e2e import (  # noqa: F401  (fixtures, found by pytest by their names)
    DESKTOP,
    browser,
    database,
    games_db,
    idle,
    move_list,
    new_game,
    page,
    play,
    play_line,
    server,
    square,
)

# Each animation the page starts, as it starts: the class of what moves, its keyframes, timing.
RECORD_ANIMATIONS = """
window.animations = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const disc = this.querySelector("circle");
  const at = disc ? ["cx", "cy"].map((name) => Number(disc.getAttribute(name))) : null;
  window.animations.push({ kind: this.getAttribute("class"), square: this.dataset.square ?? null,
                           at, keyframes: JSON.parse(JSON.stringify(keyframes)), options });
  return animate.call(this, keyframes, options);
};
"""

# Each sound the page plays, by its file's name; nothing reaches the speakers.
RECORD_SOUNDS = """
window.played = [];
HTMLMediaElement.prototype.play = function () {
  window.played.push(this.src.split("/").pop().replace(/[.]wav$/, ""));
  return Promise.resolve();
};
"""


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    opened = browser.new_context(viewport=DESKTOP)
    opened.add_init_script(RECORD_ANIMATIONS)
    opened.add_init_script(RECORD_SOUNDS)
    yield opened
    opened.close()


@pytest.fixture
def recorded(context: BrowserContext) -> Iterator[Page]:
    """A page whose animations and sounds are recorded; fails the test on a script error."""
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    assert errors == [], f"errors in the page's scripts: {errors}"


def centre(page: Page, number: int) -> tuple[float, float]:
    """A square's middle in the board's own units (the SVG's)."""
    box = square(page, number).evaluate(
        "rect => [rect.x.baseVal.value, rect.y.baseVal.value, rect.width.baseVal.value]")
    return box[0] + box[2] / 2, box[1] + box[2] / 2


def started(page: Page, kind: str) -> list[dict[str, Any]]:
    """The animations of a kind of copy ("moving", "fading"), each once: a board redrawn while
    a move slides (the server's answer) starts its animations again from where they stood."""
    found: dict[str, dict[str, Any]] = {}
    for animation in page.evaluate("window.animations"):
        if animation["kind"].startswith(kind):
            key = repr((animation["kind"], animation["at"], animation["keyframes"]))
            found.setdefault(key, animation)
    return list(found.values())


def slides(page: Page) -> list[dict[str, Any]]:
    return started(page, "moving")


def fades(page: Page) -> list[dict[str, Any]]:
    return started(page, "fading")


def translation(keyframe: dict[str, Any]) -> tuple[float, float]:
    found = re.fullmatch(r"translate\(([-\d.]+)px, ([-\d.]+)px\)", keyframe["transform"])
    assert found, keyframe
    return float(found[1]), float(found[2])


# -- motion ---------------------------------------------------------------------------------

def test_a_move_slides_along_its_path_and_the_men_it_takes_fade(recorded: Page,
                                                                server: str) -> None:
    page = recorded
    new_game(page, server, "two-player", fen="B:W18,27,26:B10,14")
    play(page, 14, 32)  # 14x23x32: two legs, two men taken
    expect(move_list(page)).to_have_text(["14x23x32"])
    # The board holds the position at once: the king on 32, the men taken gone.
    expect(page.locator('#board g.piece.black.king[data-square="32"]')).to_have_count(1)
    expect(page.locator("#board g.piece.white")).to_have_count(1)
    (slide,) = slides(page)
    assert slide["kind"] == "moving black"
    points = [translation(keyframe) for keyframe in slide["keyframes"]]
    assert points == [pytest.approx(centre(page, number)) for number in (14, 23, 32)]
    assert slide["options"]["duration"] <= 200
    taken = fades(page)
    assert [fade["kind"] for fade in taken] == ["fading white", "fading white"]
    assert [fade["at"] for fade in taken] == [pytest.approx(centre(page, number))
                                              for number in (18, 27)]
    first, second = (fade["options"] for fade in taken)
    assert first["delay"] < second["delay"] <= slide["options"]["duration"]  # as it passes each
    assert all(fade["keyframes"][-1]["opacity"] == 0 for fade in taken)
    # The piece on 32 itself waits unseen while its copy travels; then the board is still.
    assert any(animation["kind"] == "piece black king" and animation["square"] == "32"
               for animation in page.evaluate("window.animations"))
    expect(page.locator("#board svg")).to_have_attribute("data-moving", "false")
    expect(page.locator("#board .moving, #board .fading")).to_have_count(0)


def test_the_engines_reply_slides_after_the_move_it_answers(recorded: Page, server: str) -> None:
    page = recorded
    new_game(page, server, "engine", fen="B:W27,12:B4", level=1)  # 4-8, then 12x3 only
    play(page, 4, 8)
    expect(move_list(page)).to_have_text(["4-8", "12x3"])
    mine, reply = slides(page)
    assert (mine["kind"], reply["kind"]) == ("moving black", "moving white")
    assert [translation(keyframe) for keyframe in reply["keyframes"]] == [
        pytest.approx(centre(page, number)) for number in (12, 3)]


def test_nothing_slides_with_reduced_motion_or_with_the_setting_off(browser: Browser,
                                                                     server: str) -> None:
    def animations_of_a_move(reduced: bool, setting: bool) -> tuple[int, Page, BrowserContext]:
        context = browser.new_context(viewport=DESKTOP,
                                      reduced_motion="reduce" if reduced else "no-preference")
        context.add_init_script(RECORD_ANIMATIONS)
        opened = context.new_page()
        new_game(opened, server, "two-player", fen="B:W18:B14")
        if not setting:
            opened.locator('[data-testid="settings"] summary').click()
            opened.get_by_test_id("motion").uncheck()
        play(opened, 14, 23)
        expect(move_list(opened)).to_have_text(["14x23"])
        moved = len(slides(opened)) + len(fades(opened))
        return moved, opened, context

    moved, opened, context = animations_of_a_move(reduced=False, setting=True)
    assert moved == 2  # the slide and the fade: what the others must not have
    context.close()
    moved, opened, context = animations_of_a_move(reduced=False, setting=False)
    assert moved == 0
    opened.reload()  # the setting is kept
    opened.locator('[data-testid="settings"] summary').click()
    expect(opened.get_by_test_id("motion")).not_to_be_checked()
    context.close()
    moved, opened, context = animations_of_a_move(reduced=True, setting=True)
    assert moved == 0
    # The setting says why it does nothing here.
    opened.locator('[data-testid="settings"] summary').click()
    expect(opened.get_by_test_id("motion")).to_be_disabled()
    expect(opened.get_by_test_id("reduced-motion-note")).to_be_visible()
    context.close()


# -- sounds --------------------------------------------------------------------------------

def played(page: Page) -> list[str]:
    return list(page.evaluate("window.played"))


def test_sounds_are_off_until_turned_on_then_each_kind_plays_and_the_choice_is_kept(
        recorded: Page, server: str) -> None:
    page = recorded
    new_game(page, server, "two-player", fen="B:W25,15,27:B4,19")
    play_line(page, "19-23")
    assert played(page) == []  # off by default
    page.locator('[data-testid="settings"] summary').click()
    page.get_by_test_id("sounds").check()
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.locator('[data-testid="settings"] summary').click()
    expect(page.get_by_test_id("sounds")).to_be_checked()  # kept
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("settings")).not_to_have_attribute("open", "")
    play_line(page, "27x18", "4-8", "15-11", "8x15x22x29")  # the last is crowned and wins
    expect(page.get_by_test_id("result")).to_have_text("1-0")
    page.wait_for_function("window.played.length >= 5")
    assert played(page) == ["capture", "move", "move", "crown", "end"]
    for name in ("move", "capture", "crown", "end"):
        answer = page.request.get(f"{server}sounds/{name}.wav")
        assert answer.status == 200 and answer.body()[:4] == b"RIFF", name


# -- the board's looks ---------------------------------------------------------------------

def test_the_look_and_the_kings_chosen_are_kept_and_the_lessons_use_them(page: Page,
                                                                         server: str) -> None:
    new_game(page, server, "two-player", fen="W:WK15,20:BK28,12")
    board = page.locator("#board svg")
    king = page.locator('#board g.piece.white.king[data-square="15"]')
    expect(board).to_have_attribute("data-style", "tournament")
    expect(king.locator("circle")).to_have_count(2)  # two men stacked: the page's default
    expect(king.locator("path.crown")).to_have_count(0)
    page.locator('[data-testid="settings"] summary').click()
    expect(page.get_by_test_id("board-style").locator("option")).to_have_count(4)
    page.get_by_test_id("board-style").select_option("wood")
    page.get_by_test_id("king-look").select_option("crowned")
    expect(board).to_have_attribute("data-style", "wood")
    expect(king.locator("path.crown")).to_have_count(1)
    page.reload()
    expect(board).to_have_attribute("data-style", "wood")
    expect(king.locator("path.crown")).to_have_count(1)
    page.goto(f"{server}learn")
    expect(page.locator("#learn-board svg")).to_have_attribute("data-style", "wood")


# -- the evaluation bar --------------------------------------------------------------------

def test_the_evaluation_bar_stands_beside_the_board_while_analysis_is_on(page: Page,
                                                                        server: str) -> None:
    new_game(page, server, "analysis")
    bar = page.get_by_test_id("score-bar")
    expect(bar).to_be_hidden()
    page.get_by_test_id("analysis-toggle").click()
    expect(bar).to_be_visible()
    expect(bar).to_have_attribute("aria-valuetext", re.compile(r"^Black: [+-]\d+\.\d\d$"))
    expect(bar).to_have_attribute("aria-label", "Evaluation: Black's share")
    expect(bar.locator(".score-figure")).to_have_text(re.compile(r"^\d+\.\d\d$|^#\d*$"))
    box, board = bar.bounding_box(), page.get_by_test_id("board").bounding_box()
    assert box is not None and board is not None
    assert box["x"] + box["width"] <= board["x"]  # at the board's left
    assert box["height"] == pytest.approx(board["height"], abs=2)  # as tall as the board
    expect(bar).to_have_attribute("data-black", "top")  # Black's share from Black's side
    page.get_by_test_id("flip").click()
    expect(bar).to_have_attribute("data-black", "bottom")
    page.get_by_test_id("analysis-toggle").click()
    expect(bar).to_be_hidden()


# -- the side panel's tabs -----------------------------------------------------------------

def tab(page: Page, name: str):
    return page.get_by_test_id(f"tab-{name}")


def test_the_side_panel_is_tabs_for_the_mouse_and_the_keys(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "11-15")
    expect(page.get_by_test_id("side-tabs")).to_have_attribute("role", "tablist")
    names = ["moves", "analysis", "explorer", "games"]
    expect(page.get_by_role("tab")).to_have_count(4)

    def shown(name: str) -> None:
        for other in names:
            expect(tab(page, other)).to_have_attribute("aria-selected", str(other == name).lower())
        expect(page.locator('[role="tabpanel"]:visible')).to_have_count(1)
        expect(page.locator(f'#tabpanel-{name}')).to_be_visible()

    shown("moves")  # a game opens on its moves
    expect(move_list(page)).to_have_text(["11-15"])
    tab(page, "games").click()
    shown("games")
    expect(page.get_by_test_id("game-list")).to_be_visible()
    tab(page, "games").focus()
    page.keyboard.press("ArrowRight")  # round to the first
    shown("moves")
    expect(tab(page, "moves")).to_be_focused()
    page.keyboard.press("ArrowRight")
    shown("analysis")
    expect(page.get_by_test_id("analysis-toggle")).to_be_visible()
    page.keyboard.press("End")
    shown("games")
    page.keyboard.press("Home")
    shown("moves")
    page.keyboard.press("ArrowLeft")
    shown("games")
    # The arrows went between the tabs, not through the game.
    expect(page.get_by_test_id("status")).not_to_contain_text("Looking at move")
    expect(page.locator('[role="tab"][tabindex="0"]')).to_have_count(1)


def test_a_tab_with_nothing_to_show_is_left_out(page: Page, server: str) -> None:
    new_game(page, server, "engine", level=1)  # no engine help while it goes on
    expect(tab(page, "analysis")).to_be_hidden()
    expect(tab(page, "explorer")).to_be_hidden()
    tab(page, "moves").focus()
    page.keyboard.press("ArrowRight")
    expect(tab(page, "games")).to_be_focused()
    page.get_by_test_id("resign").click()
    idle(page)
    expect(tab(page, "analysis")).to_be_visible()  # open once the game is over
    expect(tab(page, "games")).to_have_attribute("aria-selected", "true")  # the choice stays


def test_an_analysis_board_opens_on_its_analysis_and_no_game_on_the_saved_games(
        page: Page, server: str) -> None:
    new_game(page, server, "analysis")
    expect(tab(page, "analysis")).to_have_attribute("aria-selected", "true")
    page.evaluate("localStorage.clear()")  # a browser that holds no game
    page.goto(server)
    page.get_by_test_id("cancel-new-game").click()
    expect(tab(page, "games")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("import-panel")).to_be_visible()


# -- the new game dialog, and the phone ----------------------------------------------------

@pytest.mark.parametrize("mode", ["engine", "two-player", "friend", "analysis"])
def test_the_new_game_dialog_fits_a_window_720_pixels_high(browser: Browser, server: str,
                                                           mode: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        opened = context.new_page()
        opened.goto(server)
        dialog = opened.get_by_test_id("new-game-dialog")
        expect(dialog).to_be_visible()
        opened.get_by_test_id(f"mode-{mode}").check()
        box = dialog.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720
        assert dialog.evaluate("d => d.scrollHeight <= d.clientHeight")  # nothing to scroll to
        expect(opened.get_by_test_id("start-game")).to_be_in_viewport()
    finally:
        context.close()


def test_a_man_is_dragged_by_touch_on_a_phone(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
    try:
        opened = context.new_page()
        new_game(opened, server, "two-player")
        board = opened.get_by_test_id("board").bounding_box()
        assert board is not None and board["x"] >= 0 and board["x"] + board["width"] <= 360
        assert board["width"] >= 350  # the board fills the screen's width
        assert opened.evaluate("document.documentElement.scrollWidth") <= 360
        start, end = square(opened, 11).bounding_box(), square(opened, 15).bounding_box()
        assert start is not None and end is not None
        (x0, y0), (x1, y1) = ((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                              for box in (start, end))
        touch = context.new_cdp_session(opened)

        def finger(kind: str, x: float, y: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
            touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        finger("touchStart", x0, y0)
        for step in range(1, 9):  # a finger moves in small steps
            finger("touchMove", x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8)
        finger("touchEnd", x1, y1)
        idle(opened)
        expect(move_list(opened)).to_have_text(["11-15"])
        expect(opened.locator('#board g.piece.black[data-square="15"]')).to_have_count(1)
    finally:
        context.close()
