"""The page of ``doublecorner serve`` in a real browser (Playwright driving Debian's chromium).

The real app (``doublecorner.web.app.create_app``) runs under uvicorn in a
subprocess, on a free loopback port, over a temporary SQLite file, with the
small game database of ``test_web_explorer`` for its opening explorer. Each test
opens a fresh browser context, so it starts with no remembered game, and
waits on the page's own states (Playwright's auto-waiting locators), never on
the clock.

The module skips when playwright or ``/usr/bin/chromium`` is missing, unless
``DOUBLECORNER_REQUIRE_BROWSER`` is set (CI sets it), where it fails instead.
Browsers are never downloaded: the tests use the system's chromium.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import queue
import re
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("DOUBLECORNER_CHROMIUM", "/usr/bin/chromium"))
REQUIRED = bool(os.environ.get("DOUBLECORNER_REQUIRE_BROWSER"))
STARTUP_SECONDS = 300  # the first start may compile the engine's kernel


def _unavailable() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    try:
        import uvicorn  # noqa: F401

        import doublecorner.web.app  # noqa: F401
    except ImportError as error:
        return f"the web app cannot be imported ({error}); install the test extra"
    if not CHROMIUM.is_file():
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    return None


_REASON = _unavailable()
if _REASON is not None:
    if REQUIRED:
        pytest.fail(f"browser tests required but {_REASON}", pytrace=False)
    pytest.skip(_REASON, allow_module_level=True)

from playwright.sync_api import (  # noqa: E402
    Browser,
    BrowserContext,
    Page,
    expect,
    sync_playwright,
)

from doublecorner.db import GameDatabase  # noqa: E402
from tests.test_web_explorer import COLLECTION  # noqa: E402

SERVE = """
import sys
import uvicorn
from doublecorner.web.app import create_app
uvicorn.run(create_app(sys.argv[1], games_db=sys.argv[3]), host="127.0.0.1",
            port=int(sys.argv[2]))
"""

# Waits end on the page's state; the limit only bounds a failure on a busy machine.
expect.set_options(timeout=20_000)

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SQLite file the server keeps its games in."""
    return tmp_path_factory.mktemp("web") / "games.sqlite3"


def stored_games(database: Path) -> int:
    with contextlib.closing(sqlite3.connect(database)) as connection:
        return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])


@pytest.fixture(scope="module")
def games_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The explorer's game database: four games, two of which transpose."""
    folder = tmp_path_factory.mktemp("games-db")
    (folder / "club.pdn").write_text(COLLECTION, encoding="utf-8")
    with GameDatabase(folder / "games-db.sqlite3") as opened:
        opened.import_files([folder / "club.pdn"])
    return opened.path


@pytest.fixture(scope="module")
def server(database: Path, games_db: Path) -> Iterator[str]:
    """The base URL of the real app serving a fresh database (and ``games_db``)."""
    with serving(SERVE, database, str(games_db)) as url:
        yield url


@contextlib.contextmanager
def serving(script: str, database: Path, *more: str) -> Iterator[str]:
    """The base URL of the app that ``script`` serves (its arguments: ``database``, a free
    port, then ``more``), while it runs."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(database), str(port), *more],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()
    log: list[str] = []

    def read_log() -> None:  # drains the pipe for the server's whole life
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read_log, daemon=True).start()
    try:
        while True:
            try:
                line = lines.get(timeout=STARTUP_SECONDS)
            except queue.Empty:
                pytest.fail(f"the server did not start in {STARTUP_SECONDS} s:\n{''.join(log)}")
            if line is None:
                pytest.fail(f"the server stopped at start:\n{''.join(log)}")
            if "Uvicorn running on" in line:
                break
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page in a fresh context (no remembered game); fails the test on a script error."""
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], f"errors in the page's scripts: {errors}"


# -- helpers -------------------------------------------------------------------


def square(page: Page, number: int):
    return page.locator(f'rect.square.playing[data-square="{number}"]')


def move_list(page: Page):
    return page.locator('[data-testid="move-list"] button.move')


def pieces(page: Page) -> list[str]:
    """Every piece as ``"piece black man@11"``, in drawing order."""
    return page.eval_on_selector_all(
        "#board g.piece",
        "found => found.map(p => p.getAttribute('class') + '@' + p.dataset.square)")


def idle(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-busy", "false")


def open_tab(page: Page, name: str) -> None:
    """Show a tab of the side panel: moves, analysis, explorer or games."""
    page.get_by_test_id(f"tab-{name}").click()
    expect(page.get_by_test_id(f"tab-{name}")).to_have_attribute("aria-selected", "true")


def new_game(page: Page, server: str, mode: str, *, fen: str | None = None,
             level: int | None = None, human: str = "black") -> None:
    """Open the page and start a game through the New game dialog."""
    page.goto(server)
    dialog = page.get_by_test_id("new-game-dialog")
    expect(dialog).to_be_visible()  # a first visit asks what to play
    page.get_by_test_id(f"mode-{mode}").check()
    if mode == "engine":
        page.get_by_test_id("human-color").select_option(human)
        page.get_by_test_id("level").select_option(str(level or 1))
    if fen is not None:
        page.get_by_test_id("start-fen").fill(fen)
    page.get_by_test_id("start-game").click()
    expect(dialog).to_be_hidden()
    idle(page)
    expect(page).to_have_url(re.compile(r"#game="))


def play(page: Page, *squares: int) -> None:
    """Click the squares, then wait for the server's answer to the move they make.

    The page shows a move at once, before the server has answered; until then
    (``data-busy``) the board takes no other move.
    """
    for number in squares:
        square(page, number).click()
    idle(page)


def play_line(page: Page, *moves: str) -> None:
    """Play each move by clicking every square of its path; each must join the move list."""
    made = move_list(page).count()
    for number, move in enumerate(moves, start=made + 1):
        play(page, *(int(part) for part in re.split(r"[-x]", move)))
        expect(move_list(page)).to_have_count(number)


# -- tests ---------------------------------------------------------------------


def test_play_against_the_engine_at_level_1(page: Page, server: str) -> None:
    new_game(page, server, "engine", level=1, human="black")
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("Black to move — your move")
    # Black plays from the bottom: square 11 is drawn below square 22.
    assert square(page, 11).bounding_box()["y"] > square(page, 22).bounding_box()["y"]

    square(page, 11).click()
    expect(page.locator('.target-dot[data-square="15"]')).to_be_visible()
    square(page, 15).click()

    expect(move_list(page)).to_have_count(2)  # ours and the engine's answer
    expect(move_list(page).first).to_have_text("11-15")
    reply = move_list(page).nth(1).inner_text()
    assert re.fullmatch(r"2[1-4]-1[7-9]|2[1-4]-20", reply), reply  # a White man steps forward
    target = int(reply.split("-")[1])
    expect(page.get_by_test_id("message")).to_contain_text(f"The engine played {reply}")
    expect(page.get_by_test_id("message")).to_contain_text("for the engine")  # whose score
    expect(page.locator('#board g.piece.black[data-square="15"]')).to_have_count(1)
    expect(page.locator('#board g.piece[data-square="11"]')).to_have_count(0)
    expect(page.locator(f'#board g.piece.white[data-square="{target}"]')).to_have_count(1)
    expect(page.locator(f'#board rect.last-move[data-square="{target}"]')).to_have_count(1)
    expect(status).to_contain_text("Black to move — your move")

    page.get_by_test_id("takeback").click()  # back to the human's turn: both moves go
    expect(move_list(page)).to_have_count(0)
    expect(page.locator('#board g.piece.black[data-square="11"]')).to_have_count(1)


def test_an_illegal_click_changes_nothing(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    before = pieces(page)
    posted: list[str] = []
    page.on("request", lambda request: posted.append(request.url)
            if request.method == "POST" else None)

    square(page, 18).click()  # an empty square, nothing selected
    square(page, 22).click()  # a White man while Black is to move
    expect(page.locator("#board rect.highlight")).to_have_count(0)
    square(page, 11).click()
    expect(page.locator("#board rect.highlight")).to_have_count(1)
    square(page, 19).click()  # not a square the man on 11 can reach
    expect(page.locator("#board rect.highlight")).to_have_count(0)

    assert pieces(page) == before
    expect(move_list(page)).to_have_count(0)
    assert posted == []
    # The page still plays: the next legal move is the only move made.
    play(page, 11, 15)
    expect(move_list(page)).to_have_text(["11-15"])


def test_a_compulsory_capture_is_marked(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "11-15", "22-18")

    expect(page.locator("#board .must-capture")).to_have_count(1)
    expect(page.locator('#board .must-capture[data-square="15"]')).to_have_count(1)
    expect(page.get_by_test_id("status")).to_contain_text("capture is compulsory")
    square(page, 9).click()  # 9-13 would be a move, but a capture is compulsory
    expect(page.locator("#board rect.highlight")).to_have_count(0)
    square(page, 15).click()
    expect(page.locator("#board .target-dot")).to_have_count(1)
    expect(page.locator('#board .target-dot[data-square="22"]')).to_have_count(1)
    square(page, 22).click()
    expect(move_list(page)).to_have_text(["11-15", "22-18", "15x22"])
    expect(page.locator('#board g.piece[data-square="18"]')).to_have_count(0)


def test_a_multi_jump_entered_square_by_square(page: Page, server: str) -> None:
    # Black's man on 14 jumps 18, then 26 or 27: 14x23x30 or 14x23x32.
    new_game(page, server, "two-player", fen="B:W18,26,27:B10,14")
    square(page, 14).click()
    expect(page.locator("#board .target-dot")).to_have_count(1)
    expect(page.locator('#board .target-dot[data-square="23"]')).to_have_count(1)
    square(page, 23).click()
    # Half a move: nothing played yet, the path so far marked, both ends offered.
    expect(page.locator('#board rect.highlight[data-square="23"]')).to_have_count(1)
    expect(page.locator("#board .target-dot")).to_have_count(2)
    expect(page.locator('#board g.piece[data-square="14"]')).to_have_count(1)
    expect(move_list(page)).to_have_count(0)
    square(page, 32).click()
    expect(move_list(page)).to_have_text(["14x23x32"])
    expect(page.locator('#board g.piece.black.king[data-square="32"]')).to_have_count(1)
    expect(page.locator('#board g.piece.white')).to_have_count(1)  # 26 is left


def test_a_multi_jump_in_one_click_on_its_end_square(page: Page, server: str) -> None:
    new_game(page, server, "two-player", fen="B:W18,26,27:B10,14")
    play(page, 14, 30)
    expect(move_list(page)).to_have_text(["14x23x30"])


def test_an_end_square_two_captures_share_asks_for_the_route(page: Page, server: str) -> None:
    # 7x14x23 and 7x16x23 both end on 23: one click there cannot tell them apart.
    new_game(page, server, "two-player", fen="B:W10,11,18,19,24:B7")
    play(page, 7, 23)
    expect(page.get_by_test_id("message")).to_contain_text("Several captures end there")
    expect(move_list(page)).to_have_count(0)
    expect(page.locator('#board rect.highlight[data-square="7"]')).to_have_count(1)
    play(page, 16, 23)
    expect(move_list(page)).to_have_text(["7x16x23"])
    expect(page.locator('#board g.piece.white[data-square="10"]')).to_have_count(1)
    expect(page.locator('#board g.piece[data-square="11"]')).to_have_count(0)


def test_a_move_by_dragging(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    start, end = square(page, 11).bounding_box(), square(page, 15).bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    page.mouse.up()
    idle(page)
    expect(move_list(page)).to_have_text(["11-15"])
    expect(page.locator('#board g.piece.black[data-square="15"]')).to_have_count(1)


def test_a_move_with_the_keyboard(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    square(page, 11).focus()
    page.keyboard.press("Enter")
    expect(page.locator('#board rect.highlight[data-square="11"]')).to_have_count(1)
    page.keyboard.press("ArrowDown")  # White is at the bottom: down from f6 is e5, square 15
    expect(square(page, 15)).to_be_focused()
    page.keyboard.press("Enter")
    expect(move_list(page)).to_have_text(["11-15"])
    page.get_by_test_id("move-input").fill("23-19")
    page.get_by_test_id("move-input").press("Enter")
    expect(move_list(page)).to_have_text(["11-15", "23-19"])


def type_move(page: Page, text: str) -> None:
    page.get_by_test_id("move-input").fill(text)
    page.get_by_test_id("move-input").press("Enter")
    idle(page)


def test_a_typed_move_may_name_its_squares_a1_to_h8(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    type_move(page, "f6-e5")
    expect(move_list(page)).to_have_text(["11-15"])


def test_an_illegal_typed_move_is_said_in_words_with_the_legal_moves(page: Page,
                                                                      server: str) -> None:
    new_game(page, server, "two-player")
    message = page.get_by_test_id("message")
    type_move(page, "22-18")  # White's man: no reason the board names, the moves listed
    expect(message).to_have_text(
        "Illegal move 22-18. Legal moves: 9-13, 9-14, 10-14, 10-15, 11-15, 11-16, 12-16")
    play_line(page, "11-15", "22-18")
    type_move(page, "12-16")
    expect(message).to_have_text("Illegal move 12-16: a capture is compulsory. Legal moves: 15x22")
    # The whole message stays inside the panel: no FEN running past it.
    assert message.evaluate("element => element.scrollWidth <= element.clientWidth")
    expect(move_list(page)).to_have_count(2)


def test_an_ambiguous_typed_move_lists_its_routes(page: Page, server: str) -> None:
    new_game(page, server, "two-player", fen="W:WK25:B6,7,14,15,22")
    type_move(page, "25x18")
    expect(page.get_by_test_id("message")).to_have_text(
        "Move 25x18 could be 25x18x11x2x9x18 or 25x18x9x2x11x18: give the full path.")


def test_a_click_on_a_piece_that_cannot_move_says_why_and_rings_those_that_can(
        page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    message = page.get_by_test_id("message")
    hints = page.locator("#board .movable-hint")
    square(page, 1).click()  # Black's back man, hemmed in
    expect(message).to_have_text("That piece has no move.")
    expect(hints).to_have_count(4)
    assert sorted(int(hint.get_attribute("data-square")) for hint in hints.all()) == [9, 10, 11, 12]
    square(page, 22).click()
    expect(message).to_have_text("That is a White piece; Black is to move.")
    square(page, 11).click()  # a piece that can move: selected, and nothing to explain
    expect(message).to_have_text("")
    expect(hints).to_have_count(0)
    square(page, 11).click()
    play_line(page, "11-15", "22-18")
    square(page, 9).click()  # 9-13 would be a move, but a capture is compulsory
    expect(message).to_have_text("A capture is compulsory: 15x22")
    expect(hints).to_have_count(1)
    expect(page.locator('#board .movable-hint[data-square="15"]')).to_have_count(1)


def test_a_message_goes_with_the_game_it_was_about(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    message = page.get_by_test_id("message")
    type_move(page, "22-18")
    expect(message).to_contain_text("22-18")
    game_id = page.url.split("#game=")[1]
    open_tab(page, "games")
    page.once("dialog", lambda dialog: dialog.accept())  # "Delete this game?"
    page.locator(f'[data-testid="game-list"] li[data-id="{game_id}"]').get_by_test_id(
        "delete-game").click()
    expect(page.get_by_test_id("status")).to_contain_text("No game yet")
    expect(message).to_have_text("")


def test_game_over_is_announced_with_its_reason(page: Page, server: str) -> None:
    new_game(page, server, "two-player", fen="B:W18:B14")
    play(page, 14, 23)
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("Black wins (1-0)")
    expect(status).to_contain_text("White has no legal moves")
    expect(page.get_by_test_id("result")).to_have_text("1-0")


def test_two_players_agree_a_draw(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "11-15")
    page.get_by_test_id("offer-draw").click()  # White, to move, offers
    expect(page.get_by_test_id("status")).to_contain_text("White offers a draw")
    accept = page.get_by_test_id("accept-draw")
    expect(accept).to_have_text("Black accepts the draw")
    accept.click()
    expect(page.get_by_test_id("status")).to_contain_text("Draw agreed")
    expect(page.get_by_test_id("result")).to_have_text("1/2-1/2")
    expect(page.get_by_test_id("resign")).to_be_disabled()


def test_the_side_to_move_claims_a_repetition(page: Page, server: str) -> None:
    new_game(page, server, "two-player", fen="B:WK32:BK1")
    claim = page.get_by_test_id("claim-draw")
    play_line(page, "1-6", "32-27", "6-1", "27-32", "1-6", "32-27")
    expect(claim).to_be_hidden()
    play_line(page, "6-1")  # White's 27-32 would bring the start position a third time
    expect(claim).to_have_text("White claims a draw")
    claim.click()
    expect(page.get_by_test_id("status")).to_contain_text("Draw by threefold repetition")
    expect(page.get_by_test_id("result")).to_have_text("1/2-1/2")
    expect(claim).to_be_hidden()


def test_the_game_is_still_there_after_a_reload(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "11-15", "23-19")
    url, before = page.url, pieces(page)

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("new-game-dialog")).to_be_hidden()
    expect(move_list(page)).to_have_text(["11-15", "23-19"])
    assert page.url == url
    assert pieces(page) == before
    game_id = url.split("#game=")[1]
    saved = page.locator(f'[data-testid="game-list"] li[data-id="{game_id}"]')
    expect(saved).to_contain_text("2 plies")  # half-moves, not moves (issue 15)
    # Back and forward through the moves.
    page.get_by_test_id("nav-first").click()
    expect(page.locator('#board g.piece.black[data-square="11"]')).to_have_count(1)
    expect(page.locator('#board g.piece[data-square="15"]')).to_have_count(0)
    page.get_by_test_id("nav-next").click()
    expect(page.locator('#board g.piece.black[data-square="15"]')).to_have_count(1)
    expect(page.locator('#board g.piece.white[data-square="23"]')).to_have_count(1)
    page.get_by_test_id("nav-last").click()
    expect(page.locator('#board g.piece.white[data-square="19"]')).to_have_count(1)
    expect(page.locator('#board g.piece[data-square="23"]')).to_have_count(0)


def test_a_saved_game_opens_again(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "9-13")
    first = page.url.split("#game=")[1]
    page.get_by_test_id("new-game").click()
    page.get_by_test_id("mode-two-player").check()
    page.get_by_test_id("start-game").click()
    expect(page).not_to_have_url(re.compile(re.escape(first)))
    expect(move_list(page)).to_have_count(0)
    open_tab(page, "games")
    saved = page.locator(f'[data-testid="game-list"] li[data-id="{first}"]')
    saved.get_by_test_id("open-game").click()
    expect(move_list(page)).to_have_text(["9-13"])
    expect(page.get_by_test_id("tab-moves")).to_have_attribute("aria-selected", "true")
    expect(page).to_have_url(re.compile(re.escape(first)))


def test_export_pdn_downloads_the_moves(page: Page, server: str) -> None:
    new_game(page, server, "two-player")
    play_line(page, "11-15", "23-19")
    with page.expect_download() as download_info:
        page.get_by_test_id("export-pdn").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".pdn")
    # Named by its players and date, not by the store's id ('g_47df....pdn').
    assert not download.suggested_filename.startswith("g_"), download.suggested_filename
    assert re.search(r"\d{4}-\d{2}-\d{2}\.pdn$", download.suggested_filename)
    text = Path(download.path()).read_text(encoding="utf-8")
    assert re.search(r"1\.\s*11-15\s+23-19", text), text


def test_import_pdn_opens_the_game(page: Page, server: str) -> None:
    page.goto(server)
    page.get_by_test_id("cancel-new-game").click()
    page.locator('[data-testid="import-panel"] summary').click()
    page.get_by_test_id("pdn-text").fill(
        '[Black "Ann"]\n[White "Bob"]\n[Result "*"]\n\n1. 9-14 22-17 2. 11-15 *\n')
    page.get_by_test_id("import-pdn").click()
    expect(move_list(page)).to_have_text(["9-14", "22-17", "11-15"])
    expect(page.get_by_test_id("player-top")).to_contain_text("Ann")
    expect(page.locator('[data-testid="game-list"]')).to_contain_text("Ann \N{EN DASH} Bob")


def test_a_position_set_up_on_the_board(page: Page, server: str) -> None:
    page.goto(server)
    page.get_by_test_id("cancel-new-game").click()
    page.get_by_test_id("open-setup").click()
    page.get_by_test_id("setup-clear").click()
    expect(page.locator("#board g.piece")).to_have_count(0)
    page.get_by_test_id("setup-white-king").check()
    square(page, 15).click()
    page.get_by_test_id("setup-black-man").check()
    play(page, 10, 11, 11)  # a second click on the same piece takes it off
    page.get_by_test_id("setup-turn").select_option("white")
    expect(page.get_by_test_id("setup-fen")).to_have_value("W:WK15:B10")
    page.get_by_test_id("setup-analyse").click()
    expect(page.get_by_test_id("setup-panel")).to_be_hidden()
    expect(page.get_by_test_id("status")).to_contain_text("White to move")
    expect(page.locator("#board .must-capture")).to_have_count(1)  # K15 must take 10
    play(page, 15, 6)
    expect(move_list(page)).to_have_text(["15x6"])
    expect(page.get_by_test_id("status")).to_contain_text("White wins")


def test_analysis_streams_lines_until_stopped(page: Page, server: str) -> None:
    new_game(page, server, "analysis")
    toggle = page.get_by_test_id("analysis-toggle")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # From the start the search runs until stopped (or the server's time cap).
    expect(page.locator('[data-testid="analysis-lines"] li').first).to_contain_text(
        re.compile(r"1\. \d+-\d+"))
    expect(page.get_by_test_id("score-text")).to_contain_text("Black: ")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(toggle).to_have_text("Start analysis")


def explorer_moves(page: Page):
    return page.get_by_test_id("explorer-move")


def test_a_move_from_the_explorer_is_played_on_the_board(page: Page, server: str) -> None:
    new_game(page, server, "analysis")
    open_tab(page, "explorer")
    expect(page.get_by_test_id("explorer-summary")).to_contain_text(
        "4 games reached this position, Black to move")
    expect(explorer_moves(page)).to_have_count(2)
    first = explorer_moves(page).first
    expect(first).to_have_attribute("data-move", "11-15")
    expect(first).to_contain_text("11-15")
    expect(first.locator(".explorer-count")).to_have_text("3")
    expect(first.locator(".wdl")).to_have_attribute(
        "aria-label", "Black wins 1, draws 0, White wins 1")
    expect(first.locator(".wdl > span")).to_have_count(2)  # no segment for no draws
    expect(page.get_by_test_id("explorer-game")).to_have_count(4)

    first.click()
    idle(page)
    expect(move_list(page)).to_have_text(["11-15"])
    expect(page.locator('#board g.piece.black[data-square="15"]')).to_have_count(1)
    expect(page.get_by_test_id("explorer-summary")).to_contain_text("3 games")
    expect(explorer_moves(page)).to_have_text([re.compile(r"^23-19\s*2"),
                                               re.compile(r"^22-18\s*1")])
    page.locator('[data-testid="explorer-move"][data-move="22-18"]').click()
    idle(page)
    expect(move_list(page)).to_have_text(["11-15", "22-18"])
    capture = page.locator('[data-testid="explorer-move"][data-move="15x22"]')
    capture.click()
    idle(page)
    expect(move_list(page)).to_have_text(["11-15", "22-18", "15x22"])
    expect(page.locator('#board g.piece[data-square="18"]')).to_have_count(0)
    # Going back shows the explorer of the position shown.
    page.get_by_test_id("nav-first").click()
    expect(page.get_by_test_id("explorer-summary")).to_contain_text("4 games")


def test_a_game_of_the_explorer_opens_on_the_board_and_steps_through(
        page: Page, server: str) -> None:
    new_game(page, server, "analysis")
    open_tab(page, "explorer")
    page.locator('[data-testid="explorer-move"][data-move="11-15"]').click()
    idle(page)
    games = page.get_by_test_id("explorer-game")
    expect(games).to_have_count(3)  # the games that reached 11-15, newest first
    expect(games.first).to_contain_text("Ann \N{EN DASH} Bob")
    expect(games.first).to_contain_text("1-0 · 2026.11.30 · Club")

    games.first.click()
    idle(page)
    expect(page.get_by_test_id("message")).to_contain_text("Opened game 1 of the database")
    expect(move_list(page)).to_have_text(["11-15", "23-19", "9-14", "22-17"])
    expect(page.locator('[data-testid="player-top"], [data-testid="player-bottom"]')
           ).to_contain_text([re.compile("Ann|Bob"), re.compile("Ann|Bob")])
    # Shown at the position the explorer was showing: after 11-15.
    current = page.locator('[data-testid="move-list"] button[aria-current="true"]')
    expect(current).to_have_text("11-15")
    expect(page.locator('#board g.piece.white[data-square="23"]')).to_have_count(1)
    # The explorer stays in view: the game came from it.
    expect(page.get_by_test_id("tab-explorer")).to_have_attribute("aria-selected", "true")

    page.get_by_test_id("nav-next").click()
    expect(current).to_have_text("23-19")
    expect(page.locator('#board g.piece.white[data-square="19"]')).to_have_count(1)
    expect(explorer_moves(page)).to_have_text([re.compile(r"^8-11"), re.compile(r"^9-14")])
    # The explorer's move that the game played next steps forward through the game.
    page.locator('[data-testid="explorer-move"][data-move="9-14"]').click()
    expect(current).to_have_text("9-14")
    page.get_by_test_id("nav-last").click()
    expect(current).to_have_text("22-17")
    expect(page.get_by_test_id("explorer-summary")).to_contain_text("2 games")  # transposed
    expect(page.get_by_test_id("explorer-game")).to_have_text(
        [re.compile("Ann"), re.compile("Cy")])
    page.get_by_test_id("nav-prev").click()
    expect(current).to_have_text("9-14")
    # It is a saved analysis game of this browser now.
    expect(page.locator('[data-testid="game-list"] li[aria-current="true"]')).to_contain_text(
        "Ann \N{EN DASH} Bob")


def test_without_a_game_database_the_explorer_is_hidden(page: Page, server: str) -> None:
    asked: list[str] = []

    def no_database(route: Any) -> None:  # what a server without --games-db answers
        asked.append(route.request.url)
        route.fulfill(status=404, json={"error": "no game database is loaded: the server "
                                                 "was started without --games-db PATH"})

    page.route("**/api/explore?*", no_database)
    new_game(page, server, "analysis")
    play_line(page, "11-15")
    expect(page.get_by_test_id("analysis-panel")).to_be_visible()
    expect(page.get_by_test_id("explorer-panel")).to_be_hidden()
    expect(page.get_by_test_id("message")).to_be_empty()
    assert len(asked) == 1  # asked once, then never again


READ_DRAWING = """svg => {
  const numbers = (text) => (text.match(/-?[0-9.]+/g) ?? []).map(Number);
  const squares = {}, pieces = {};
  for (const rect of svg.querySelectorAll("rect.square.playing")) {
    squares[rect.dataset.square] = [Number(rect.getAttribute("x")), Number(rect.getAttribute("y")),
                                    rect.getAttribute("fill")];
  }
  for (const group of svg.querySelectorAll("g.piece")) {
    const disc = group.querySelector("circle"), crown = group.querySelector("path.crown");
    pieces[group.dataset.square] = {
      kind: group.getAttribute("class"),
      disc: ["cx", "cy", "r"].map((name) => Number(disc.getAttribute(name))),
      colours: [disc.getAttribute("fill"), disc.getAttribute("stroke"),
                crown?.getAttribute("fill") ?? null, crown?.getAttribute("stroke") ?? null],
      crown: crown ? numbers(crown.getAttribute("d")) : null,
    };
  }
  return {squares, pieces, unused: svg.querySelector("rect.square.unused").getAttribute("fill")};
}"""


def _server_drawing(fen: str, style: str, kings: str) -> dict[str, object]:
    """What :func:`doublecorner.svg.board` draws, in the shape READ_DRAWING reads the page."""
    from xml.etree import ElementTree

    from doublecorner import Position, svg

    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ElementTree.fromstring(svg.board(Position.from_fen(fen), size=None,
                                            style=svg.Style(style), kings=svg.Kings(kings)))
    squares = {rect.get("data-square"): [float(rect.get("x")), float(rect.get("y")),
                                         rect.get("fill")]
               for rect in root.iterfind("svg:rect[@class='square playing']", ns)}
    pieces = {}
    for group in root.iterfind("svg:g", ns):
        if not group.get("class", "").startswith("piece"):
            continue
        disc, crown = group.find("svg:circle", ns), group.find("svg:path", ns)
        pieces[group.get("data-square")] = {
            "kind": group.get("class"),
            "disc": [float(disc.get(name)) for name in ("cx", "cy", "r")],
            "colours": [disc.get("fill"), disc.get("stroke"),
                        None if crown is None else crown.get("fill"),
                        None if crown is None else crown.get("stroke")],
            "crown": None if crown is None else [
                float(value) for value in re.findall(r"-?[0-9.]+", crown.get("d"))],
        }
    unused = root.find("svg:rect[@class='square unused']", ns)
    return {"squares": squares, "pieces": pieces, "unused": unused.get("fill")}


@pytest.mark.parametrize("kings", ["stacked", "crowned"])
@pytest.mark.parametrize("style", ["tournament", "wood", "slate", "book"])
def test_the_board_is_drawn_as_the_server_draws_it(page: Page, server: str, style: str,
                                                   kings: str) -> None:
    fen = "W:WK15,20:BK28,12"
    new_game(page, server, "two-player", fen=fen)
    page.locator('[data-testid="settings"] summary').click()
    page.get_by_test_id("board-style").select_option(style)
    page.get_by_test_id("king-look").select_option(kings)
    expect(page.locator("#board svg")).to_have_attribute("data-style", style)
    expect(page.locator("#board g.piece.king path.crown")).to_have_count(
        2 if kings == "crowned" else 0)
    drawn = page.locator("#board svg").evaluate(READ_DRAWING)
    expected = _server_drawing(fen, style, kings)
    assert drawn["unused"] == expected["unused"]
    assert drawn["squares"] == expected["squares"]
    assert drawn["pieces"].keys() == expected["pieces"].keys()
    for number, piece in expected["pieces"].items():
        mine = drawn["pieces"][number]
        assert (mine["kind"], mine["colours"]) == (piece["kind"], piece["colours"]), number
        # Both round to two decimals; a tie may round either way.
        assert mine["disc"] == pytest.approx(piece["disc"], abs=0.011), number
        if piece["crown"] is None:
            assert mine["crown"] is None, number
        else:
            assert mine["crown"] == pytest.approx(piece["crown"], abs=0.011), number


@pytest.mark.parametrize(("name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_screenshot(browser: Browser, server: str, name: str, viewport: dict[str, int],
                    tmp_path_factory: pytest.TempPathFactory,
                    capsys: pytest.CaptureFixture[str]) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        new_game(page, server, "two-player")
        play_line(page, "11-15", "22-18")
        expect(page.locator("#board .must-capture")).to_have_count(1)
        square(page, 15).click()
        expect(page.locator("#board .target-dot")).to_have_count(1)
        # Usable at this width: nothing wider than the screen, the whole board in view.
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        board = page.get_by_test_id("board").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= viewport["width"]
        path = tmp_path_factory.mktemp("screenshots") / f"doublecorner-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 0
        with capsys.disabled():
            print(f"\nscreenshot: {path}")
    finally:
        with contextlib.suppress(Exception):
            context.close()


# -- a friend by link, and pages that must not act -------------------------------


@contextlib.contextmanager
def browsers(browser: Browser, count: int) -> Iterator[list[Page]]:
    """``count`` pages, each in its own context (its own localStorage: another person)."""
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(count)]
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


def test_two_friends_play_a_game_by_link(browser: Browser, server: str) -> None:
    with browsers(browser, 3) as (ann, bob, eve):
        new_game(ann, server, "friend")
        link = ann.get_by_test_id("invite-link").input_value()
        assert re.fullmatch(re.escape(server) + r"#join=g_[0-9a-f]+\.[\w-]+", link), link
        expect(ann.get_by_test_id("status")).to_contain_text("your move")

        bob.goto(link)
        expect(bob.get_by_test_id("message")).to_contain_text("you play White")
        expect(bob).to_have_url(re.compile(r"#game=g_"))  # the secret leaves the address
        expect(ann.get_by_test_id("message")).to_contain_text("Your friend has joined")
        expect(ann.get_by_test_id("invite-panel")).to_be_hidden()
        # Each sees their own side at the bottom.
        assert square(ann, 11).bounding_box()["y"] > square(ann, 22).bounding_box()["y"]
        assert square(bob, 11).bounding_box()["y"] < square(bob, 22).bounding_box()["y"]

        # Moves are seen live on the other side; nobody moves for the other.
        play_line(ann, "11-15")
        expect(move_list(bob)).to_have_text(["11-15"])
        expect(bob.get_by_test_id("status")).to_contain_text("White to move — your move")
        square(ann, 9).click()  # not Ann's turn: her board takes no move
        expect(ann.locator("#board rect.highlight")).to_have_count(0)
        play_line(bob, "23-19")
        expect(move_list(ann)).to_have_text(["11-15", "23-19"])
        play_line(ann, "8-11")
        expect(move_list(bob)).to_have_text(["11-15", "23-19", "8-11"])

        # Bob asks to take back his 23-19 (and Ann's reply); Ann accepts.
        bob.get_by_test_id("takeback").click()
        expect(ann.get_by_test_id("status")).to_contain_text("White asks to take back")
        ann.get_by_test_id("accept-takeback").click()
        expect(move_list(bob)).to_have_text(["11-15"])
        expect(move_list(ann)).to_have_text(["11-15"])
        expect(bob.get_by_test_id("status")).to_contain_text("your move")

        # A reload resyncs, and the stream goes on after it.
        bob.reload()
        expect(bob.locator("body")).to_have_attribute("data-ready", "true")
        expect(move_list(bob)).to_have_text(["11-15"])
        play_line(bob, "24-20")
        expect(move_list(ann)).to_have_text(["11-15", "24-20"])
        ann.reload()
        expect(move_list(ann)).to_have_text(["11-15", "24-20"])
        play_line(ann, "9-13")
        expect(move_list(bob)).to_have_text(["11-15", "24-20", "9-13"])

        # To the end: Bob offers a draw, Ann declines it, then resigns.
        bob.get_by_test_id("offer-draw").click()
        expect(ann.get_by_test_id("accept-draw")).to_be_visible()
        expect(bob.get_by_test_id("accept-draw")).to_be_hidden()  # not his to answer
        ann.get_by_test_id("decline-draw").click()
        expect(bob.get_by_test_id("status")).not_to_contain_text("offers a draw")
        ann.get_by_test_id("resign").click()
        for page in (ann, bob):
            expect(page.get_by_test_id("status")).to_contain_text("White wins (0-1)")
            expect(page.get_by_test_id("status")).to_contain_text("Black resigned")

        # A third browser opens the used link: refused, it may only watch.
        eve.goto(link)
        expect(eve.get_by_test_id("message")).to_contain_text("used already")
        expect(move_list(eve)).to_have_text(["11-15", "24-20", "9-13"])
        expect(eve.get_by_test_id("takeback")).to_be_disabled()
        assert eve.evaluate("localStorage.getItem('doublecorner.tokens')") in (None, "{}")


EVIL_PAGE = "<!doctype html><title>evil</title><p>Nothing to see here.</p>"


class _EvilPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = EVIL_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


@contextlib.contextmanager
def evil_site(context: BrowserContext, kind: str) -> Iterator[str]:
    """The origin of a hostile page: a public site, or another server on this machine."""
    if kind == "public":
        context.route("http://evil.test/**", lambda route: route.fulfill(
            status=200, content_type="text/html", body=EVIL_PAGE))
        yield "http://evil.test"
        return
    local = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
    thread = threading.Thread(target=local.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{local.server_address[1]}"
    finally:
        local.shutdown()
        local.server_close()


@pytest.mark.parametrize("kind", ["public", "local"])
def test_a_page_from_another_origin_cannot_change_anything(browser: Browser, server: str,
                                                          database: Path, kind: str) -> None:
    context = browser.new_context()
    try:
        with evil_site(context, kind) as evil_origin:
            owner = context.new_page()  # the user's own tab, with a game and its tokens
            new_game(owner, server, "two-player")
            game_id = owner.url.split("#game=")[1]
            before = stored_games(database)

            evil = context.new_page()
            evil.goto(f"{evil_origin}/")
            # A fetch that needs no preflight: it is sent, refused, and unreadable.
            answer = evil.evaluate("""async (url) => {
              try {
                const response = await fetch(url, {method: "POST", mode: "no-cors",
                  headers: {"Content-Type": "text/plain"}, body: '{"mode": "two-player"}'});
                return response.type;
              } catch (error) { return String(error); }
            }""", f"{server}api/games")
            # Sent and refused (opaque), or not even sent by the browser (its Private Network
            # Access rules keep public pages off loopback): either way, nothing is created.
            assert answer in ("opaque", "TypeError: Failed to fetch")
            if kind == "local":
                assert answer == "opaque"  # sent: the server's Origin check refused it
            # A form post, with a body shaped as JSON, to create a game and to resign one.
            for action in (f"{server}api/games", f"{server}api/games/{game_id}/resign"):
                with evil.expect_navigation() as navigation:
                    evil.evaluate("""(action) => {
                      const form = document.createElement("form");
                      Object.assign(form, {method: "POST", action, enctype: "text/plain"});
                      const field = document.createElement("input");
                      Object.assign(field, {name: '{"mode": "two-player", "x": "', value: '"}'});
                      form.append(field);
                      document.body.append(form);
                      form.submit();
                    }""", action)
                assert navigation.value.status == 403
                assert "another site" in evil.content()
                evil.goto(f"{evil_origin}/")
            assert stored_games(database) == before
            owner.reload()
            expect(owner.get_by_test_id("status")).to_contain_text("Black to move")
            expect(owner.get_by_test_id("resign")).to_be_enabled()
    finally:
        context.close()


def test_a_host_name_that_is_not_allowed_is_refused(browser: Browser, server: str) -> None:
    # DNS rebinding: a name of the attacker's that resolves to the loopback address.
    port = server.rsplit(":", 1)[1].strip("/")
    rebound = browser.browser_type.launch(
        executable_path=str(CHROMIUM),
        args=["--host-resolver-rules=MAP rebind.test 127.0.0.1"])
    try:
        page = rebound.new_page()
        response = page.goto(f"http://rebind.test:{port}/")
        assert response is not None and response.status == 421
        assert "does not answer for host 'rebind.test'" in page.content()
        status = page.evaluate("""async () => (await fetch("/api/games", {method: "POST",
          headers: {"Content-Type": "application/json"},
          body: '{"mode": "two-player"}'})).status""")
        assert status == 421
    finally:
        rebound.close()


# -- the page in Irish and English --------------------------------------------------

CATALOGUES = Path(__file__).parent.parent / "src" / "doublecorner" / "web" / "static" / "i18n"
GA = json.loads((CATALOGUES / "ga.json").read_text(encoding="utf-8"))
EN = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))

# Every text of the page as a reader meets it: each visible element's own text and its
# aria-label, title, placeholder, aria-valuetext and alt, each option of a visible list, and
# the document's title. Text marked as not the page's own is left out: names as typed
# (translate="no", also returned as `names`) and text that says its own language (lang=...:
# the server's English, each language's name in the picker).
READ_TEXTS = """() => {
  const notOwn = (element) => element.closest('[translate="no"], body [lang]') !== null;
  const shown = (element) => element.checkVisibility({ visibilityProperty: true });
  const texts = [["title", document.title]];
  for (const element of document.body.querySelectorAll("*")) {
    if (element.matches("script, style") || notOwn(element)) continue;
    const list = element.closest("select");
    if (!shown(list ?? element)) continue;
    const where = element.closest("[data-testid]")?.dataset.testid ?? element.tagName.toLowerCase();
    for (const node of element.childNodes) {
      if (node.nodeType === Node.TEXT_NODE && node.textContent.trim()) {
        texts.push([where, node.textContent.trim()]);
      }
    }
    for (const name of ["aria-label", "title", "placeholder", "aria-valuetext", "alt"]) {
      const value = element.getAttribute(name)?.trim();
      if (value) texts.push([`${where} [${name}]`, value]);
    }
  }
  const names = [...document.querySelectorAll('[translate="no"]')]
    .map((element) => element.textContent.trim());
  return { texts, names };
}"""

# Dashes, the minus sign, the ellipsis and the middle dot, as re escapes.
_MARKS = r"\u2212\u2013\u2014\u2026\u00b7"
# What is data rather than words: numbers, moves and lines of them, times, scores, results,
# dates, FENs, square names, the arrows' glyphs and punctuation, an input quoted back, and the
# evaluation bar's figures (#7: a win in 7 plies).
DATA = [re.compile(pattern) for pattern in (
    rf"[\d\s.,:/+\-{_MARKS}()x*%#]*\d[\d\s.,:/+\-{_MARKS}()x*%]*",
    r"[BW]:[WB][K\d,-]*:[BW][K\d,-]*",
    r"[a-h][1-8]",
    rf"[\s\u00ab\u2039\u203a\u00bb\u2715*{_MARKS}:()#]+",
    r'"[^"]*"',
)]


_PLACEHOLDER = re.compile(r"\{\w+\}")


class _CatalogueWords:
    """Whether a text is data, a name as typed, or a message of the catalogue whose
    placeholders each hold such a text. Answers are remembered: placeholders nest, and
    without the memory one page's check tried every template at every split for minutes."""

    def __init__(self, catalogue: dict[str, Any], names: set[str]) -> None:
        forms = [form for message in catalogue.values()
                 for form in (message.values() if isinstance(message, dict) else [message])]
        self.whole = {form for form in forms if not _PLACEHOLDER.search(form)}
        self.templates = [_PLACEHOLDER.split(form) for form in forms if _PLACEHOLDER.search(form)]
        self.names = names
        self.known: dict[tuple[str, int], bool] = {}

    def fit(self, text: str, depth: int = 0) -> bool:
        text = text.strip()
        if (text, depth) not in self.known:
            self.known[text, depth] = self._fit(text, depth)
        return self.known[text, depth]

    def _fit(self, text: str, depth: int) -> bool:
        if not text or text in self.names or any(pattern.fullmatch(text) for pattern in DATA):
            return True
        return depth <= 3 and (text in self.whole or any(
            _fills(literals, text, lambda part: self.fit(part, depth + 1))
            for literals in self.templates))


def _fills(literals: list[str], text: str, fits: Any) -> bool:
    """Whether ``text`` is the template split into ``literals`` at its placeholders, each
    placeholder replaced by a text that ``fits``."""
    if not text.startswith(literals[0]) or not text.endswith(literals[-1]):
        return False

    def rest(index: int, start: int) -> bool:  # literals[index:] from text[start:]
        if index == len(literals) - 1:
            end = len(text) - len(literals[-1])
            return end >= start and fits(text[start:end])
        found = text.find(literals[index], start)
        while found >= 0:
            if fits(text[start:found]) and rest(index + 1, found + len(literals[index])):
                return True
            found = text.find(literals[index], found + 1)
        return False

    return rest(1, len(literals[0]))


def foreign_words(page: Page, catalogue: dict[str, Any]) -> list[tuple[str, str]]:
    """The texts of the page that are neither the catalogue's messages nor data."""
    read = page.evaluate(READ_TEXTS)
    words = _CatalogueWords(catalogue, set(read["names"]))
    return [(where, text) for where, text in read["texts"] if not words.fit(text)]


def start_game(page: Page, mode: str, **fields: str) -> None:
    """Start a game from the New game dialog (opened if it is not), filling ``fields``."""
    dialog = page.get_by_test_id("new-game-dialog")
    if not dialog.is_visible():
        page.get_by_test_id("new-game").click()
    page.get_by_test_id(f"mode-{mode}").check()
    for testid, value in fields.items():
        field = page.get_by_test_id(testid.replace("_", "-"))
        if field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.get_by_test_id("start-game").click()
    expect(dialog).to_be_hidden()
    idle(page)


def test_the_page_in_irish_has_no_word_outside_the_catalogue(page: Page, server: str) -> None:
    message, status = page.get_by_test_id("message"), page.get_by_test_id("status")

    def check(view: str) -> None:
        assert foreign_words(page, GA) == [], f"{view}: words that are not the Irish catalogue's"

    page.goto(f"{server}?lang=ga")
    expect(page.get_by_test_id("new-game-dialog")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "ga")
    check("the new game dialog")

    start_game(page, "engine", human_color="black", level="1")
    play(page, 11, 15)
    expect(move_list(page)).to_have_count(2)
    expect(message).to_contain_text("D'imir an t-inneall")
    # The engine's reply may leave Black a capture: the status then says the rule too.
    expect(status).to_contain_text("Dubh ar a sheal — do bheartsa")
    check("a game against the engine")
    type_move(page, "22-18")
    expect(message).to_have_text(re.compile(  # "it must capture" when it must
        r"^Beart neamhdhleathach 22-18(: is éigean gabháil)?\. Bearta dleathacha: "))
    check("an illegal move")
    square(page, 1).click()
    expect(message).to_have_text(re.compile(
        r"^(Níl beart ar bith ag an bpíosa sin\.|Is éigean gabháil: [0-9x ,]+)$"))
    check("a piece that cannot move")

    page.get_by_test_id("resign").click()
    expect(status).to_contain_text("Ghéill Dubh.")
    open_tab(page, "analysis")
    page.get_by_test_id("analysis-toggle").click()
    expect(page.get_by_test_id("analysis-lines").locator("li").first).to_be_visible()
    expect(page.get_by_test_id("analysis-info")).to_contain_text("doimhneacht")
    check("the end of the game, analysed")
    page.get_by_test_id("analysis-toggle").click()
    page.get_by_test_id("nav-first").click()  # the start: the explorer's four games
    open_tab(page, "explorer")
    expect(page.get_by_test_id("explorer-game")).to_have_count(4)
    expect(page.get_by_test_id("explorer-summary")).to_contain_text("Shroich 4 chluiche")
    check("the opening explorer")
    page.get_by_test_id("explorer-game").first.click()
    expect(message).to_contain_text("Osclaíodh cluiche")
    check("a game of the database")

    page.get_by_test_id("open-setup").click()
    check("setting up a position")
    page.get_by_test_id("setup-fen").fill("X:W1")
    page.get_by_test_id("fen-form").locator("button").click()
    expect(message).to_contain_text("FEN neamhbhailí")
    check("a FEN that cannot be read")
    page.get_by_test_id("setup-cancel").click()

    open_tab(page, "games")
    for testid in ("import-panel", "settings"):
        page.locator(f'[data-testid="{testid}"] summary').click()
    page.get_by_test_id("pdn-text").fill("hello")
    page.get_by_test_id("import-pdn").click()
    expect(message).to_have_text(GA["import.noGame"])
    check("the saved games, an import without a game, the settings")
    page.keyboard.press("Escape")  # the settings menu closes
    asked: list[str] = []

    def answer(dialog: Any) -> None:  # "Delete this game?", in Irish: no
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", answer)
    page.get_by_test_id("delete-game").first.click()
    expect(page.get_by_test_id("game-list")).to_be_visible()
    assert asked == [GA["library.confirmDelete"]]

    start_game(page, "friend", friend_side="black", clock_minutes="5")
    expect(page.get_by_test_id("invite-panel")).to_be_visible()
    expect(page.get_by_test_id("clocks")).to_be_visible()
    check("a friend's game with a clock, and its invite")

    start_game(page, "two-player")
    play_line(page, "11-15")
    page.get_by_test_id("offer-draw").click()
    expect(page.get_by_test_id("accept-draw")).to_have_text("Glacann Dubh leis an gcluiche cothrom")
    check("a draw offered between two players")


def test_the_account_views_in_irish_have_no_word_outside_the_catalogue(page: Page,
                                                                        server: str) -> None:
    """The walk above through the account's views: sign-up and sign-in with their faults,
    the account view with its devices and a password change, the deletion and what it leaves."""
    password = "focal faire fada"

    def check(view: str) -> None:
        assert foreign_words(page, GA) == [], f"{view}: words that are not the Irish catalogue's"

    def account_form(*values: str) -> None:
        fields = ("account-username", "account-password", "account-confirm")[:len(values)]
        for testid, value in zip(fields, values, strict=True):
            page.get_by_test_id(testid).fill(value)
        page.get_by_test_id("account-submit").click()

    page.goto(f"{server}?lang=ga")
    page.get_by_test_id("cancel-new-game").click()
    check("the top bar, signed out")
    page.get_by_test_id("sign-up").click()
    check("the sign-up dialog")
    account_form("?", "gearr", "gearr")
    expect(page.get_by_test_id("account-username-error")).to_have_text(
        GA["account.usernameBreaksRules"])
    check("the sign-up dialog's faults")
    page.get_by_test_id("account-switch").click()
    account_form("Aoife_ga", password)
    expect(page.get_by_test_id("account-password-error")).to_have_text(GA["error.wrongCredentials"])
    check("the sign-in dialog, a wrong password")
    page.get_by_test_id("account-switch").click()
    account_form("Aoife_ga", password, password)
    expect(page.get_by_test_id("account-link")).to_have_text("Aoife_ga")
    check("signed up")
    start_game(page, "engine", human_color="black", level="1")
    expect(page.get_by_test_id("player-bottom")).to_contain_text("Aoife_ga")
    check("a game of the account")

    page.get_by_test_id("account-link").click()
    expect(page.get_by_test_id("session-list").get_by_test_id("session")).to_have_count(1)
    check("the account view")
    page.get_by_test_id("password-current").fill("ní hé seo é")
    page.get_by_test_id("password-new").fill("focal faire nua")
    page.get_by_test_id("change-password").click()
    expect(page.get_by_test_id("password-current-error")).to_have_text(GA["error.wrongPassword"])
    check("a password change with a wrong password")
    page.get_by_test_id("password-current").fill(password)
    page.get_by_test_id("change-password").click()
    expect(page.get_by_test_id("account-news")).to_have_text(GA["account.passwordChangedAlone"])
    check("the password changed")

    page.get_by_test_id("delete-account").click()
    page.get_by_test_id("delete-password").fill(password)  # the old one
    page.get_by_test_id("confirm-delete-account").click()
    expect(page.get_by_test_id("delete-password-error")).to_have_text(GA["error.wrongPassword"])
    check("the deletion's confirmation, a wrong password")
    page.get_by_test_id("delete-password").fill("focal faire nua")
    page.get_by_test_id("confirm-delete-account").click()
    expect(page.get_by_test_id("account-news")).to_have_text(GA["account.deleted"])
    check("the account deleted")
    page.get_by_test_id("account-back").click()
    expect(page.get_by_test_id("game-list")).to_contain_text(GA["player.deleted"])
    check("the board, the account's game under 'deleted player'")


def test_the_words_check_sees_english_in_the_irish_page(page: Page, server: str) -> None:
    page.goto(f"{server}?lang=ga")
    expect(page.get_by_test_id("new-game-dialog")).to_be_visible()
    assert foreign_words(page, GA) == []
    page.evaluate("""() => {
      const planted = document.createElement("p");
      planted.textContent = "Black to move";
      document.querySelector('[data-testid="status"]').after(planted);
      document.querySelector('[data-testid="flip"]').title = "Flip the board";
      document.querySelector('[data-testid="level"] option').textContent = "Leibhéal 1 (easy)";
    }""")
    assert foreign_words(page, GA) == [("flip [title]", "Flip the board"), ("p", "Black to move"),
                                       ("level", "Leibhéal 1 (easy)")]


def test_the_picker_changes_the_language_without_reloading(page: Page, server: str) -> None:
    new_game(page, server, "engine", level=1, human="black")  # the browser's language: English
    play(page, 11, 15)
    expect(move_list(page)).to_have_count(2)
    page.evaluate("window.sameVisit = true")
    picker = page.get_by_test_id("language")
    assert picker.locator("option").evaluate_all(
        "options => options.map((option) => [option.value, option.textContent, option.lang])"
    ) == [["ga", "Gaeilge", "ga"], ["en", "English", "en"]]

    picker.select_option("ga")
    expect(page.locator("html")).to_have_attribute("lang", "ga")
    expect(page).to_have_title(GA["page.title"])
    expect(page.get_by_test_id("status")).to_contain_text("Dubh ar a sheal — do bheartsa")
    expect(page.get_by_test_id("message")).to_contain_text("D'imir an t-inneall")
    expect(page.get_by_test_id("new-game")).to_have_text("Cluiche nua")
    expect(square(page, 15)).to_have_attribute("aria-label", "cearnóg 15 (e5), fear dubh")
    expect(move_list(page)).to_have_count(2)
    assert page.evaluate("window.sameVisit") is True  # no reload
    assert foreign_words(page, GA) == []

    page.reload()  # the choice is kept
    expect(page.get_by_test_id("status")).to_contain_text("Dubh ar a sheal — do bheartsa")
    page.get_by_test_id("language").select_option("en")
    expect(page.get_by_test_id("status")).to_contain_text("Black to move — your move")
    expect(page).to_have_title(EN["page.title"])


@pytest.mark.parametrize(("locale", "stored", "query", "expected"), [
    ("ga-IE", None, "", "ga"),  # the browser's language
    ("ga", None, "", "ga"),
    ("en-US", None, "", "en"),
    ("fr-FR", None, "", "en"),  # a language the page does not speak: English
    ("ga-IE", "en", "", "en"),  # the reader's stored choice wins over the browser's
    ("en-US", "ga", "", "ga"),
    ("ga-IE", "ga", "?lang=en", "en"),  # the address wins over both, and is kept
    ("en-US", None, "?lang=ga", "ga"),
    ("en-US", None, "?lang=xx", "en"),  # an unknown language is no choice
])
def test_the_language_of_a_visit(browser: Browser, server: str, locale: str, stored: str | None,
                                 query: str, expected: str) -> None:
    context = browser.new_context(locale=locale)
    if stored:  # chosen on an earlier visit (once: later visits keep what this one chooses)
        context.add_init_script(f"""if (!sessionStorage.getItem("seeded")) {{
          localStorage.setItem("doublecorner.language", "{stored}");
          sessionStorage.setItem("seeded", "yes");
        }}""")
    try:
        page = context.new_page()
        heading = page.get_by_test_id("new-game-dialog").locator("h2")
        page.goto(f"{server}{query}")
        catalogue = GA if expected == "ga" else EN
        expect(heading).to_have_text(catalogue["newGame.heading"])
        expect(page.locator("html")).to_have_attribute("lang", expected)
        expect(page.get_by_test_id("language")).to_have_value(expected)
        page.goto(server)  # the next visit, without ?lang=
        expect(heading).to_have_text(catalogue["newGame.heading"])
    finally:
        context.close()


def test_irish_counts_mutate_the_noun_as_the_number_says(page: Page, server: str) -> None:
    page.goto(f"{server}?lang=ga")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    counts = [1, 2, 3, 6, 7, 10, 11, 12, 16, 17, 19, 20, 21, 100, 101, 107, 110, 113, 117, 120]
    said = page.evaluate("""async (counts) => {
      const { t } = await import("/i18n.js");
      return counts.map((count) => t("explorer.games", { count }));
    }""", counts)
    assert said == ["cluiche amháin", "dhá chluiche", "3 chluiche", "6 chluiche", "7 gcluiche",
                    "10 gcluiche", "11 chluiche", "12 chluiche", "16 chluiche", "17 gcluiche",
                    "19 gcluiche", "20 cluiche", "21 cluiche", "100 cluiche", "101 chluiche",
                    "107 gcluiche", "110 gcluiche", "113 chluiche", "117 gcluiche", "120 cluiche"]


def test_a_refusal_is_said_by_its_code_or_else_in_the_servers_words(page: Page,
                                                                   server: str) -> None:
    page.goto(f"{server}?lang=ga")
    expect(page.get_by_test_id("new-game-dialog")).to_be_visible()  # a first visit asks
    start_game(page, "two-player")
    message = page.get_by_test_id("message")

    def refuse(route: Any) -> None:
        route.fulfill(status=409, json=answers.pop(0))

    answers = [{"error": "game 'g_1' is over (1-0, resignation)", "code": "not_allowed_now"},
               {"error": "a refusal of a new kind", "code": "brand_new_kind"}]
    page.route("**/api/games/*/moves", refuse)
    type_move(page, "11-15")
    expect(message).to_have_text(GA["error.notAllowedNow"])
    page.get_by_test_id("language").select_option("en")  # said again in the new language
    expect(message).to_have_text(EN["error.notAllowedNow"])
    page.get_by_test_id("language").select_option("ga")
    type_move(page, "11-15")
    expect(message).to_have_text("a refusal of a new kind")
    expect(message).to_have_attribute("lang", "en")  # the server's English, marked as such
    assert foreign_words(page, GA) == []
