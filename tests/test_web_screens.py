"""The page as it looks, against committed screenshots (issue 26, item 4).

The home page (a first visit: the new game dialog) and a game in progress, at 1280x800 and
at 360x740 (a phone), in English and in Irish, are each compared with a PNG under
``tests/data/screens/``: the test fails when more than ``TOLERANCE`` of the pixels differ
(a pixel differs when a channel moves by more than ``CHANNEL_STEP``, which lets
anti-aliasing that moves by a shade pass), and writes what it saw beside the baseline
(``NAME.new.png``) with the differing pixels in red (``NAME.diff.png``). Set
``DOUBLECORNER_UPDATE_SCREENS=1`` to write the baselines anew instead, after a change that
is meant to show: then look at them before committing (tests/data/screens/README.md). The
game's screenshot at 1280x800 in English is also the README's (``docs/images/game.png``).

Each screenshot is made to be the same on every run: a fixed game between two players at one
board (no engine, no clock), reduced motion (nothing slides), the explorer's answer in, the
lobby's lists (which other tests and sockets change) left out, and Debian chromium's
default fonts. The baselines are this machine's; another machine's fonts differ, so a CI
machine with other fonts writes its own baselines with the variable above.
"""

# The fixtures imported from test_web_e2e are pytest's by name, so the tests' arguments of the
# same names are not redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_web_e2e import (  # noqa: F401  (fixtures, found by pytest by their names)
    EN,
    GA,
    browser,
    database,
    games_db,
    idle,
    move_list,
    play_line,
    server,
    square,
    start_game,
)

Image = pytest.importorskip("PIL.Image", reason="Pillow (the test extra's matplotlib brings it)")

SCREENS = Path(__file__).parent / "data" / "screens"
README_IMAGE = Path(__file__).parent.parent / "docs" / "images" / "game.png"
UPDATE = os.environ.get("DOUBLECORNER_UPDATE_SCREENS") == "1"
CHANNEL_STEP = 40  # of 255: a pixel whose channels all stay within this is the same pixel
TOLERANCE = 0.003  # the share of the pixels that may differ
VIEWPORTS = {"1280x800": {"width": 1280, "height": 800}, "360x740": {"width": 360, "height": 740}}
CATALOGUES = {"en": EN, "ga": GA}
# What other tests and sockets change while these run: the lobby's lists. Left out of the
# picture (its place kept, so that the rest lies where it lies).
UNSTEADY = '[data-testid="lobby-panel"] { visibility: hidden !important; }'


def differing(baseline: Path, shot: Path) -> tuple[float, np.ndarray]:
    """The share of pixels that differ between two PNGs, and a mask of them (1.0: other sizes)."""
    with Image.open(baseline) as first, Image.open(shot) as second:
        old = np.asarray(first.convert("RGB"), dtype=np.int16)
        new = np.asarray(second.convert("RGB"), dtype=np.int16)
    if old.shape != new.shape:
        return 1.0, np.ones(new.shape[:2], dtype=bool)
    mask = np.abs(old - new).max(axis=2) > CHANNEL_STEP
    return float(mask.mean()), mask


def check_screen(page: Page, name: str) -> None:
    """Compare the page's viewport with the baseline ``name``.png (or write it, when updating)."""
    baseline = SCREENS / f"{name}.png"
    shot = SCREENS / f"{name}.new.png"
    page.screenshot(path=str(shot), animations="disabled", caret="hide", style=UNSTEADY)
    if UPDATE or not baseline.exists():
        shot.replace(baseline)
        if not UPDATE:
            pytest.fail(f"no baseline {baseline.name} yet: written now, look at it and commit it")
        return
    share, mask = differing(baseline, shot)
    if share <= TOLERANCE:
        shot.unlink()
        return
    with Image.open(shot) as seen:
        marked = np.asarray(seen.convert("RGB")).copy()
    marked[mask] = (255, 0, 0)
    Image.fromarray(marked).save(SCREENS / f"{name}.diff.png")
    pytest.fail(f"{name}: {share:.2%} of the pixels differ from the baseline (at most "
                f"{TOLERANCE:.2%}); see {shot.name} and {name}.diff.png beside it")


def open_page(browser: Browser, server: str, lang: str, viewport: str) -> Page:
    context = browser.new_context(viewport=VIEWPORTS[viewport], reduced_motion="reduce",
                                  locale="en-IE")
    page = context.new_page()
    page.goto(f"{server}?lang={lang}")
    expect(page.get_by_test_id("new-game-dialog")).to_be_visible()  # a first visit asks
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.evaluate("document.fonts.ready")
    return page


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["en", "ga"])
def test_the_home_page_looks_as_it_did(browser: Browser, server: str, lang: str,
                                       viewport: str) -> None:
    page = open_page(browser, server, lang, viewport)
    try:
        expect(page.get_by_test_id("game-list")).to_contain_text(
            CATALOGUES[lang]["library.empty"])  # the saved games have been asked for
        check_screen(page, f"home-{lang}-{viewport}")
    finally:
        page.context.close()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["en", "ga"])
def test_a_game_in_progress_looks_as_it_did(browser: Browser, server: str, lang: str,
                                            viewport: str) -> None:
    page = open_page(browser, server, lang, viewport)
    try:
        start_game(page, "two-player")
        play_line(page, "11-15", "24-20", "8-11", "22-18")  # 15x22 is compulsory now
        expect(move_list(page)).to_have_count(4)
        square(page, 15).click()  # picked up: its target marked
        expect(page.locator("#board .target-dot")).to_have_count(1)
        explorer = page.get_by_test_id("explorer-panel")
        expect(explorer).to_have_attribute("data-fen", re.compile(r"^[BW]:"))  # its answer is in
        idle(page)
        if viewport == "360x740":  # the board at the top of the screen, as a player holds it
            page.get_by_test_id("player-top").evaluate("line => line.scrollIntoView()")
        check_screen(page, f"game-{lang}-{viewport}")
        if UPDATE and (lang, viewport) == ("en", "1280x800"):
            shutil.copyfile(SCREENS / f"game-{lang}-{viewport}.png", README_IMAGE)
    finally:
        page.context.close()


def test_the_readme_shows_the_game_screenshot() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert "](docs/images/game.png)" in readme
    assert README_IMAGE.read_bytes() == (SCREENS / "game-en-1280x800.png").read_bytes()


def test_the_comparison_sees_a_changed_page_and_lets_a_shade_pass(tmp_path: Path) -> None:
    picture = np.full((100, 100, 3), 200, dtype=np.uint8)
    Image.fromarray(picture).save(tmp_path / "a.png")
    shaded = picture.copy()
    shaded[:50] += 10  # anti-aliasing that moves by a shade
    Image.fromarray(shaded).save(tmp_path / "b.png")
    assert differing(tmp_path / "a.png", tmp_path / "b.png")[0] == 0
    changed = picture.copy()
    changed[:1, :10] = 0  # ten pixels of ten thousand: a tenth of a percent
    Image.fromarray(changed).save(tmp_path / "c.png")
    assert differing(tmp_path / "a.png", tmp_path / "c.png")[0] == pytest.approx(0.001)
    Image.fromarray(picture[:90]).save(tmp_path / "d.png")
    assert differing(tmp_path / "a.png", tmp_path / "d.png")[0] == 1.0
