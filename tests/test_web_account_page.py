"""The account in the page (issue 25, item 1), in a real browser: signing up in English and in
Irish with the errors said at their fields, signing out and in, a wrong password and the wait
a 429 asks for, the games of an anonymous player kept by the account, the account view with
its password change and its list of signed-in browsers, revoking another browser's session,
deleting the account, the dialog's keys and focus, and the view's own address (#account).

The server is the real app under uvicorn, as in ``test_web_e2e`` (whose browser and page
fixtures are used here, so this module skips or fails exactly as that one does), with a cheap
Argon2 hash and sign-in limits that let every test sign in from 127.0.0.1, but lock a name
after two wrong passwords in a row, to see the 429.
"""

# The fixtures imported from test_web_e2e are pytest's by name, so the tests' arguments of the
# same names are not redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from tests.test_web_e2e import (  # noqa: F401  (fixtures, found by pytest by their names)
    EN,
    GA,
    browser,
    move_list,
    page,
    serving,
    start_game,
    type_move,
)

SERVE = """
import sys
import uvicorn
from argon2 import PasswordHasher
from doublecorner.web.app import create_app
from doublecorner.web.limits import ServerLimits
limits = ServerLimits(sign_in_rate=100.0, sign_in_burst=1000, account_sign_in_rate=100.0,
                      account_sign_in_burst=1000, sign_in_lock_after=2)
hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
uvicorn.run(create_app(sys.argv[1], limits=limits, password_hasher=hasher), host="127.0.0.1",
            port=int(sys.argv[2]))
"""

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database: Path = tmp_path_factory.mktemp("accounts") / "games.sqlite3"
    with serving(SERVE, database) as url:
        yield url


def sign_up_by_api(server: str, username: str, password: str = PASSWORD) -> None:
    """An account made without any browser (so no browser holds its session)."""
    body = json.dumps({"username": username, "password": password}).encode()
    request = urllib.request.Request(
        f"{server}api/account/signup", data=body, method="POST",
        headers={"Content-Type": "application/json", "Origin": server.rstrip("/")})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201


@contextlib.contextmanager
def another_browser(browser: Browser) -> Iterator[Page]:
    """A page in a context of its own: another browser, with its own cookies and storage."""
    context = browser.new_context(viewport=ViewportSize(width=1280, height=900))
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield opened
    finally:
        context.close()
    assert errors == [], f"errors in the page's scripts: {errors}"


def open_page(page: Page, server: str, query: str = "") -> None:
    """Open the page and put the first visit's New game dialog away."""
    page.goto(f"{server}{query}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    dialog = page.get_by_test_id("new-game-dialog")
    if dialog.is_visible():
        page.get_by_test_id("cancel-new-game").click()
        expect(dialog).to_be_hidden()


def fill_account_form(page: Page, username: str, password: str, confirm: str | None = None) -> None:
    page.get_by_test_id("account-username").fill(username)
    page.get_by_test_id("account-password").fill(password)
    if confirm is not None:
        page.get_by_test_id("account-confirm").fill(confirm)
    page.get_by_test_id("account-submit").click()


def sign_up(page: Page, username: str, password: str = PASSWORD) -> None:
    page.get_by_test_id("sign-up").click()
    fill_account_form(page, username, password, password)
    expect(page.get_by_test_id("account-dialog")).to_be_hidden()
    expect(page.get_by_test_id("account-link")).to_have_text(username)


def sign_in(page: Page, username: str, password: str = PASSWORD) -> None:
    page.get_by_test_id("sign-in").click()
    fill_account_form(page, username, password)
    expect(page.get_by_test_id("account-dialog")).to_be_hidden()
    expect(page.get_by_test_id("account-link")).to_have_text(username)


def signed_out(page: Page) -> None:
    """The top bar says nobody is signed in."""
    expect(page.get_by_test_id("sign-in")).to_be_visible()
    expect(page.get_by_test_id("sign-up")).to_be_visible()
    expect(page.get_by_test_id("account-link")).to_be_hidden()
    expect(page.get_by_test_id("sign-out")).to_be_hidden()


def open_account(page: Page) -> None:
    page.get_by_test_id("account-link").click()
    expect(page.get_by_test_id("account-page")).to_be_visible()
    expect(page.get_by_test_id("account-details")).to_be_visible()


def sessions(page: Page) -> Locator:
    return page.get_by_test_id("session-list").get_by_test_id("session")


def field_error(page: Page, field: str, text: str) -> None:
    """``text`` is said next to the field ``field`` (a data-testid), which is marked invalid,
    describes itself with it and has the focus."""
    element = page.get_by_test_id(field)
    error = page.get_by_test_id(f"{field}-error")
    expect(error).to_have_text(text)
    expect(element).to_have_attribute("aria-invalid", "true")
    described = element.get_attribute("aria-describedby") or ""
    assert error.get_attribute("id") in described.split()
    expect(element).to_be_focused()


# -- signing up, in and out -------------------------------------------------------------


def test_sign_up_through_the_page_in_english(page: Page, server: str) -> None:
    open_page(page, server)
    signed_out(page)
    page.get_by_test_id("sign-up").click()
    dialog = page.get_by_test_id("account-dialog")
    expect(dialog.get_by_role("heading")).to_have_text(EN["account.signUpHeading"])
    expect(page.get_by_test_id("account-username")).to_be_focused()
    # The rules are shown, and said with their fields; password managers know the fields.
    expect(dialog).to_contain_text(EN["account.usernameRule"])
    expect(dialog).to_contain_text(EN["account.passwordRule"])
    assert page.get_by_test_id("account-username").get_attribute("aria-describedby") == (
        "account-username-rule account-username-error")
    for testid, names in [("account-username", "username"), ("account-password", "new-password"),
                          ("account-confirm", "new-password")]:
        expect(page.get_by_test_id(testid)).to_have_attribute("autocomplete", names)

    fill_account_form(page, "Ann_en", PASSWORD, PASSWORD)
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("account-link")).to_have_text("Ann_en")
    expect(page.get_by_test_id("account-link")).to_be_focused()
    expect(page.get_by_test_id("sign-out")).to_be_visible()
    expect(page.get_by_test_id("sign-in")).to_be_hidden()
    expect(page.get_by_test_id("message")).to_have_text(
        EN["account.signedUp"].replace("{username}", "Ann_en"))
    page.reload()  # the session outlives the page
    expect(page.get_by_test_id("account-link")).to_have_text("Ann_en")


def test_sign_up_in_irish_with_each_fault_at_its_field(page: Page, server: str) -> None:
    sign_up_by_api(server, "Taken_ga")
    open_page(page, server, "?lang=ga")
    expect(page.get_by_test_id("sign-up")).to_have_text(GA["account.signUp"])
    page.get_by_test_id("sign-up").click()
    expect(page.get_by_test_id("account-dialog").get_by_role("heading")).to_have_text(
        GA["account.signUpHeading"])

    fill_account_form(page, "a!", "short", "short")  # the page sees both faults itself
    field_error(page, "account-username", GA["account.usernameBreaksRules"])
    expect(page.get_by_test_id("account-password-error")).to_have_text(GA["error.invalidPassword"])
    fill_account_form(page, "Niamh", PASSWORD, PASSWORD + "!")
    field_error(page, "account-confirm", GA["account.passwordsDiffer"])
    expect(page.get_by_test_id("account-username")).not_to_have_attribute("aria-invalid", "true")
    fill_account_form(page, "taken_GA", PASSWORD, PASSWORD)  # the server's: taken, ignoring case
    field_error(page, "account-username", GA["error.usernameTaken"])
    fill_account_form(page, "Admin", PASSWORD, PASSWORD)  # the server's: reserved
    field_error(page, "account-username", GA["error.invalidUsername"])

    fill_account_form(page, "Niamh", PASSWORD, PASSWORD)
    expect(page.get_by_test_id("account-dialog")).to_be_hidden()
    expect(page.get_by_test_id("account-link")).to_have_text("Niamh")
    expect(page.get_by_test_id("sign-out")).to_have_text(GA["account.signOut"])
    expect(page.get_by_test_id("message")).to_have_text(
        GA["account.signedUp"].replace("{username}", "Niamh"))


def test_sign_out_then_sign_in_and_a_wrong_password(page: Page, server: str) -> None:
    sign_up_by_api(server, "Bob_out")
    open_page(page, server)
    sign_in(page, "Bob_out")
    expect(page.get_by_test_id("message")).to_have_text(
        EN["account.signedIn"].replace("{username}", "Bob_out"))
    page.get_by_test_id("sign-out").click()
    signed_out(page)
    expect(page.get_by_test_id("sign-in")).to_be_focused()
    expect(page.get_by_test_id("message")).to_have_text(EN["account.signedOut"])
    open_page(page, server)  # the server ended the session: a new visit finds nobody signed in
    signed_out(page)

    page.get_by_test_id("sign-in").click()
    expect(page.get_by_test_id("account-dialog").get_by_role("heading")).to_have_text(
        EN["account.signIn"])
    expect(page.get_by_test_id("account-password")).to_have_attribute("autocomplete",
                                                                      "current-password")
    expect(page.get_by_test_id("account-confirm")).to_be_hidden()
    fill_account_form(page, "Bob_out", "not the password")
    field_error(page, "account-password", EN["error.wrongCredentials"])
    fill_account_form(page, "nobody_here", PASSWORD)  # no such name: the same answer
    field_error(page, "account-password", EN["error.wrongCredentials"])
    fill_account_form(page, "bob_OUT", PASSWORD)  # any case of the name
    expect(page.get_by_test_id("account-link")).to_have_text("Bob_out")


def test_too_many_wrong_passwords_say_how_long_to_wait(page: Page, server: str) -> None:
    sign_up_by_api(server, "Cy_lock")
    open_page(page, server)
    page.get_by_test_id("sign-in").click()
    for _ in range(2):  # the second failure in a row locks the name (this server's limits)
        fill_account_form(page, "Cy_lock", "not the password")
        field_error(page, "account-password", EN["error.wrongCredentials"])
    with page.expect_response("**/api/account/signin") as answered:
        fill_account_form(page, "Cy_lock", PASSWORD)
    assert answered.value.status == 429
    seconds = int(answered.value.headers["retry-after"])
    said = EN["account.tryAgainIn"]["one" if seconds == 1 else "other"]
    expect(page.get_by_test_id("account-form-error")).to_have_text(
        said.replace("{count}", str(seconds)))
    expect(page.get_by_test_id("account-form-error")).to_have_attribute("role", "alert")
    expect(page.get_by_test_id("account-link")).to_be_hidden()


# -- the games of the tokens ---------------------------------------------------------------


def test_a_game_played_before_signing_up_is_the_accounts_after(page: Page, server: str,
                                                                browser: Browser) -> None:
    open_page(page, server)
    start_game(page, "two-player")
    type_move(page, "11-15")
    expect(move_list(page)).to_have_text(["11-15"])
    sign_up(page, "Dee_games")
    expect(page.get_by_test_id("message")).to_have_text(
        EN["account.signedUpClaimed"]["one"].replace("{username}", "Dee_games")
        .replace("{count}", "1"))

    with another_browser(browser) as elsewhere:  # no token of the game here
        open_page(elsewhere, server)
        games = elsewhere.get_by_test_id("game-list").get_by_test_id("open-game")
        expect(games).to_have_count(0)
        sign_in(elsewhere, "Dee_games")
        expect(games).to_have_count(1)  # the account's game, listed by the account
        games.first.click()
        expect(move_list(elsewhere)).to_have_text(["11-15"])
        elsewhere.get_by_test_id("sign-out").click()
        expect(games).to_have_count(0)


# -- the account view ----------------------------------------------------------------------


def test_change_the_password_and_the_other_session_ends(page: Page, server: str,
                                                       browser: Browser) -> None:
    open_page(page, server)
    sign_up(page, "Eve_pw")
    with another_browser(browser) as elsewhere:
        open_page(elsewhere, server)
        sign_in(elsewhere, "Eve_pw")

        open_account(page)
        expect(page.get_by_test_id("account-name")).to_have_text("Eve_pw")
        expect(sessions(page)).to_have_count(2)
        expect(page.locator("#password-hint")).to_have_text(
            EN["account.changeHint"])
        page.get_by_test_id("password-current").fill("not the password")
        page.get_by_test_id("password-new").fill("a new password")
        page.get_by_test_id("change-password").click()
        field_error(page, "password-current", EN["error.wrongPassword"])
        page.get_by_test_id("password-current").fill(PASSWORD)
        page.get_by_test_id("change-password").click()
        expect(page.get_by_test_id("account-news")).to_have_text(
            EN["account.passwordChanged"]["one"].replace("{count}", "1"))
        expect(sessions(page)).to_have_count(1)
        expect(page.get_by_test_id("password-current")).to_have_value("")

        elsewhere.reload()
        signed_out(elsewhere)
        page.get_by_test_id("sign-out").click()
        signed_out(page)
        sign_in(page, "Eve_pw", "a new password")


def test_the_sessions_list_and_revoking_another_browser(page: Page, server: str,
                                                        browser: Browser) -> None:
    open_page(page, server)
    sign_up(page, "Fay_rev")
    with another_browser(browser) as elsewhere:
        open_page(elsewhere, server)
        sign_in(elsewhere, "Fay_rev")
        open_account(elsewhere)
        expect(sessions(elsewhere)).to_have_count(2)  # the list in the second browser
        current = sessions(elsewhere).and_(elsewhere.locator('[data-current="true"]'))
        expect(current).to_have_count(1)
        expect(current).to_contain_text(EN["account.thisDevice"])
        expect(current).to_contain_text("Chrome")  # the device, named from its agent

        open_account(page)
        expect(sessions(page)).to_have_count(2)
        other = sessions(page).and_(page.locator('[data-current="false"]'))
        end = other.get_by_test_id("end-session")
        assert (end.get_attribute("aria-label") or "").startswith(EN["account.endSession"])
        end.click()
        expect(page.get_by_test_id("account-news")).to_have_text(EN["account.sessionEnded"])
        expect(sessions(page)).to_have_count(1)
        expect(sessions(page)).to_have_attribute("data-current", "true")

        # The second browser is signed out: its next request says so, and so does the page.
        elsewhere.get_by_test_id("end-session").first.click()
        signed_out(elsewhere)
        expect(elsewhere.get_by_test_id("account-signed-out")).to_be_visible()
        expect(elsewhere.get_by_test_id("account-news")).to_have_text(EN["error.notSignedIn"])
        elsewhere.reload()
        signed_out(elsewhere)
    expect(page.get_by_test_id("account-link")).to_have_text("Fay_rev")


def test_delete_the_account_and_its_games_stay(page: Page, server: str) -> None:
    open_page(page, server)
    sign_up(page, "Gus_del")
    start_game(page, "friend", friend_side="black")
    expect(page.get_by_test_id("player-bottom")).to_contain_text("Gus_del")  # named by the account
    open_account(page)
    page.get_by_test_id("delete-account").click()
    dialog = page.get_by_test_id("delete-account-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(EN["account.deleteHint"])
    expect(page.get_by_test_id("delete-password")).to_be_focused()
    page.get_by_test_id("delete-password").fill("not the password")
    page.get_by_test_id("confirm-delete-account").click()
    field_error(page, "delete-password", EN["error.wrongPassword"])
    page.get_by_test_id("delete-password").fill(PASSWORD)
    page.get_by_test_id("confirm-delete-account").click()
    expect(dialog).to_be_hidden()
    signed_out(page)
    expect(page.get_by_test_id("account-news")).to_have_text(EN["account.deleted"])
    expect(page.get_by_test_id("account-signed-out")).to_be_visible()

    page.get_by_test_id("account-back").click()
    expect(page.get_by_test_id("board")).to_be_visible()
    games = page.get_by_test_id("game-list").get_by_test_id("open-game")
    expect(games).to_have_count(1)  # the game stays, its token in this browser
    expect(games.first).to_contain_text(EN["player.deleted"])
    expect(games.first).not_to_contain_text("Gus_del")
    page.get_by_test_id("sign-in").click()  # the name is gone with its password
    fill_account_form(page, "Gus_del", PASSWORD)
    field_error(page, "account-password", EN["error.wrongCredentials"])


# -- keys, focus and the view's address ------------------------------------------------------


def test_the_dialog_takes_the_focus_and_closes_on_escape(page: Page, server: str) -> None:
    open_page(page, server)
    page.get_by_test_id("sign-in").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("account-dialog")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("account-username")).to_be_focused()
    for key, testid in [("account.username", "account-username"),
                        ("account.password", "account-password")]:  # each field has its label
        expect(page.get_by_label(EN[key], exact=True)).to_have_attribute("data-testid", testid)
    page.keyboard.press("Enter")  # nothing filled in: the first field in error takes the focus
    field_error(page, "account-username", EN["account.required"])
    expect(page.get_by_test_id("account-password-error")).to_have_text(EN["account.required"])
    page.get_by_test_id("account-switch").click()  # to sign-up, and the errors go
    expect(page.get_by_test_id("account-username-error")).to_be_empty()
    expect(page.get_by_test_id("account-confirm")).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    signed_out(page)


def test_the_account_view_has_an_address_of_its_own(page: Page, server: str) -> None:
    page.goto(f"{server}#account")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("account-page")).to_be_visible()
    expect(page.get_by_test_id("new-game-dialog")).to_be_hidden()  # the view is what was asked
    expect(page.get_by_test_id("board")).to_be_hidden()
    expect(page.get_by_test_id("account-signed-out")).to_be_visible()
    page.get_by_test_id("account-page-sign-up").click()
    fill_account_form(page, "Hal_view", PASSWORD, PASSWORD)
    expect(page.get_by_test_id("account-details")).to_be_visible()
    expect(page.get_by_test_id("account-name")).to_have_text("Hal_view")
    expect(sessions(page)).to_have_count(1)
    expect(page.get_by_test_id("account-link")).to_have_attribute("aria-current", "page")

    page.get_by_test_id("account-back").click()
    expect(page.get_by_test_id("account-page")).to_be_hidden()
    expect(page.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("account-link")).to_be_focused()
    page.go_back()  # the browser's Back: the view again
    expect(page.get_by_test_id("account-page")).to_be_visible()
    expect(page.locator("#account-heading")).to_be_focused()
    page.get_by_test_id("new-game").click()  # a new game leaves the view for the board
    start_game(page, "two-player")
    expect(page.get_by_test_id("account-page")).to_be_hidden()
    expect(page.get_by_test_id("board")).to_be_visible()
    assert page.evaluate("location.hash").startswith("#game=")
