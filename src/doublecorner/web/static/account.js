// The account of the person at this browser: in the top bar Sign in and Sign up, or their
// name (a link to the account view) and Sign out; and the account view, the page's own at
// #account: the password, the browsers signed in (each can be signed out from here), and
// deleting the account (docs/web-api.md, "Accounts and sessions").

import { accountApi, describeAccountError } from "./account-api.js";
import { AccountDialog, isPasswordLength } from "./account-dialog.js";
import { $, make, setMessage, showText, textOf, verbatim } from "./dom.js";
import {
  clearFieldErrors, focusFirstError, rewordFieldErrors, setFieldError, setFormError,
} from "./field-errors.js";
import { t } from "./i18n.js";
import { dateText } from "./library.js";

const VIEW_HASH = "#account";

// A browser and its system, named from a User-Agent (the first pattern that fits wins: an
// Edge's agent names Chrome too, an Android's Linux, an iPhone's Mac OS X).
const BROWSERS = [
  [/Edg(e|A|iOS)?\//, "Edge"], [/OPR\/|Opera/, "Opera"], [/Firefox\/|FxiOS\//, "Firefox"],
  [/Chrom(e|ium)\/|CriOS\//, "Chrome"], [/Safari\//, "Safari"],
];
const SYSTEMS = [
  [/Android/, "Android"], [/iPhone|iPad|iPod/, "iOS"], [/Windows/, "Windows"],
  [/Macintosh|Mac OS X/, "macOS"], [/CrOS/, "ChromeOS"], [/Linux/, "Linux"],
];

/** A session's device in short ("Chrome · Linux"), the agent itself when it names none known,
 * or null when there is no agent. */
function deviceOf(agent) {
  if (!agent) return null;
  const named = [BROWSERS, SYSTEMS].map((known) => known.find(([pattern]) => pattern.test(agent))?.[1]);
  return named.some(Boolean) ? named.filter(Boolean).join(" · ") : agent;
}

/** A time of the API (2026-11-30T12:00:00Z) as the page writes times, in the reader's zone. */
const when = (text) => dateText(new Date(text));

export class AccountView {
  /**
   * @param {object} handlers {changed()}: who is signed in here changed (the list of saved
   *   games holds the account's games).
   */
  constructor({ changed }) {
    this.changed = changed;
    this.account = undefined; // {username, created}; null: signed out; undefined: not known yet
    this.sessions = null; // the account's sessions, while the view shows them
    this.news = null; // {say, kind}: what the view last said (a function, for a change of language)
    this.dialog = new AccountDialog({ signedIn: (answer, mode) => this.signedIn(answer, mode) });
    for (const [testid, mode] of [["sign-in", "signin"], ["sign-up", "signup"],
      ["account-page-sign-in", "signin"], ["account-page-sign-up", "signup"]]) {
      $(testid).addEventListener("click", () => this.dialog.open(mode));
    }
    for (const testid of ["sign-out", "account-page-sign-out"]) $(testid).addEventListener("click", () => this.signOut());
    $("password-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.changePassword();
    });
    $("delete-account").addEventListener("click", () => this.openDeletion());
    $("delete-account-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.deleteAccount();
    });
    $("cancel-delete-account").addEventListener("click", () => $("delete-account-dialog").close());
    window.addEventListener("hashchange", () => this.route({ navigated: true }));
  }

  /** Show the view if the address names it, then ask the server who is signed in. */
  async start() {
    this.route({ navigated: false });
    this.account = await accountApi.current().catch(() => null);
    this.render();
    if (this.isOpen && this.account) await this.loadSessions();
  }

  get isOpen() {
    return !$("account-page").hidden;
  }

  route({ navigated }) {
    if (location.hash === VIEW_HASH) this.open();
    else if (this.isOpen) {
      this.hide();
      if (navigated && this.account) $("account-link").focus(); // where the reader came from
    }
  }

  open() {
    if (this.isOpen) return;
    this.news = null;
    this.sessions = null;
    $("account-page").hidden = false;
    document.querySelector(".layout").hidden = true;
    this.render();
    document.getElementById("account-heading").focus();
    if (this.account) this.loadSessions();
  }

  hide() {
    $("account-page").hidden = true;
    document.querySelector(".layout").hidden = false;
    this.render();
  }

  /** Leave the view for the board (a new game, the setup): the address stops naming it. */
  close() {
    if (!this.isOpen) return;
    this.hide();
    if (location.hash === VIEW_HASH) history.replaceState(null, "", location.pathname);
  }

  // --- what is shown -----------------------------------------------------------

  render() {
    this.renderBar();
    this.renderView();
    rewordFieldErrors();
  }

  renderBar() {
    const signedIn = Boolean(this.account);
    for (const testid of ["sign-in", "sign-up"]) $(testid).hidden = this.account !== null;
    for (const testid of ["account-link", "sign-out"]) $(testid).hidden = !signedIn;
    const link = $("account-link");
    link.textContent = signedIn ? this.account.username : "";
    if (this.isOpen) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }

  renderView() {
    if (!this.isOpen) return;
    const signedIn = Boolean(this.account);
    $("account-signed-out").hidden = this.account !== null;
    $("account-details").hidden = !signedIn;
    const news = $("account-news");
    showText(news, this.news ? this.news.say() : "");
    news.dataset.kind = this.news?.kind ?? "info";
    if (!signedIn) return;
    showText($("account-name"), verbatim(this.account.username));
    $("account-created").textContent = t("account.created", { date: when(this.account.created) });
    // The forms name the account to password managers, in a field nobody sees.
    for (const form of ["password-form", "delete-account-form"]) {
      $(form).elements.username.setAttribute("value", this.account.username);
    }
    $("session-list").replaceChildren(...(this.sessions ?? []).map((session) => this.sessionItem(session)));
  }

  sessionItem(session) {
    const item = make("li");
    item.dataset.testid = "session";
    item.dataset.current = String(session.current);
    const agent = deviceOf(session.user_agent);
    const device = agent ? verbatim(agent) : t("account.unknownDevice");
    const name = make("span", { className: "device" });
    showText(name, device);
    if (agent) name.title = session.user_agent; // the whole agent, for whoever wants it
    const heading = make("p", { className: "session-device" });
    heading.append(name);
    if (session.current) heading.append(" ", make("strong", { className: "this-device", textContent: t("account.thisDevice") }));
    const lastSeen = when(session.last_seen);
    const times = make("small", {
      textContent: t("account.sessionTimes", { created: when(session.created), lastSeen, address: session.address }),
    });
    const end = make("button", { type: "button", textContent: t("account.endSession") });
    end.dataset.testid = "end-session";
    end.setAttribute("aria-label", t("account.endSessionOf", { device: textOf(device), lastSeen }));
    end.addEventListener("click", () => this.endSession(session));
    const text = make("div");
    text.append(heading, times);
    item.append(text, end);
    return item;
  }

  /** Say `say()` where the reader is: on the view, or in the board's message line. */
  say(say, kind = "info") {
    if (this.isOpen) {
      this.news = { say, kind };
      this.renderView();
    } else {
      setMessage(say, kind);
    }
  }

  // --- signing in and out ----------------------------------------------------------

  signedIn(answer, mode) {
    this.account = { username: answer.username, created: answer.created };
    const claimed = answer.claimed_games;
    const key = mode === "signup"
      ? (claimed ? "account.signedUpClaimed" : "account.signedUp")
      : (claimed ? "account.signedInClaimed" : "account.signedIn");
    this.say(() => t(key, { username: answer.username, count: claimed }));
    this.render();
    $("account-link").focus();
    this.changed();
    if (this.isOpen) this.loadSessions();
  }

  /** This browser is signed out (by itself, or found so): say it with `say()`. */
  signedOut(say, kind = "info") {
    this.account = null;
    this.sessions = null;
    for (const dialog of ["account-dialog", "delete-account-dialog"]) $(dialog).close();
    this.say(say, kind);
    this.render();
    $("sign-in").focus();
    this.changed();
  }

  async signOut() {
    try {
      await accountApi.signOut();
    } catch (error) {
      this.say(() => describeAccountError(error), "error");
      return;
    }
    this.signedOut(() => t("account.signedOut"));
  }

  /** A request found the session over (ended from another browser, or by a password change). */
  refused(error, form = null) {
    if (error.code === "not_signed_in") {
      this.signedOut(() => describeAccountError(error), "error");
    } else if (form) {
      setFormError(form, () => describeAccountError(error));
    } else {
      this.say(() => describeAccountError(error), "error");
    }
  }

  // --- the view's forms and lists ------------------------------------------------

  async loadSessions() {
    try {
      this.sessions = await accountApi.sessions();
    } catch (error) {
      this.refused(error);
      return;
    }
    this.renderView();
  }

  async endSession(session) {
    try {
      await accountApi.endSession(session.id);
    } catch (error) {
      this.refused(error);
      return;
    }
    if (session.current) {
      this.signedOut(() => t("account.signedOut"));
      return;
    }
    this.say(() => t("account.sessionEnded"));
    document.getElementById("sessions-heading").focus(); // its button is gone with it
    await this.loadSessions();
  }

  async changePassword() {
    const form = $("password-form");
    const { current, new: next } = form.elements;
    clearFieldErrors(form);
    if (!current.value) setFieldError(current, () => t("account.required"));
    if (!isPasswordLength(next.value)) setFieldError(next, () => t("error.invalidPassword"));
    if (focusFirstError(form)) return;
    const button = $("change-password");
    button.disabled = true;
    let answer;
    try {
      answer = await accountApi.changePassword(current.value, next.value);
    } catch (error) {
      button.disabled = false;
      // The new password was checked above: a password refused is the current one.
      if (["wrong_password", "invalid_password"].includes(error.code)) {
        setFieldError(current, () => describeAccountError(error));
        focusFirstError(form);
      } else {
        this.refused(error, form);
      }
      return;
    }
    button.disabled = false;
    form.reset();
    const ended = answer.ended_sessions;
    this.say(() => (ended ? t("account.passwordChanged", { count: ended }) : t("account.passwordChangedAlone")));
    await this.loadSessions();
  }

  openDeletion() {
    const form = $("delete-account-form");
    form.reset();
    clearFieldErrors(form);
    $("delete-account-dialog").showModal();
    form.elements.password.focus();
  }

  async deleteAccount() {
    const form = $("delete-account-form");
    const { password } = form.elements;
    clearFieldErrors(form);
    if (!password.value) setFieldError(password, () => t("account.required"));
    if (focusFirstError(form)) return;
    const button = $("confirm-delete-account");
    button.disabled = true;
    try {
      await accountApi.deleteAccount(password.value);
    } catch (error) {
      button.disabled = false;
      if (["wrong_password", "invalid_password"].includes(error.code)) {
        setFieldError(password, () => describeAccountError(error));
        focusFirstError(form);
      } else {
        this.refused(error, form);
      }
      return;
    }
    button.disabled = false;
    this.signedOut(() => t("account.deleted"));
  }
}
