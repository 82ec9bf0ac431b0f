// The saved games: the list kept by the server, and PDN imported into it.

import { api } from "./api.js";
import { $, inEnglish, make, setMessage, showText } from "./dom.js";
import { t } from "./i18n.js";
import { describeError, playersElement, playersText } from "./messages.js";

const MODES = {
  engine: "library.mode.engine", "two-player": "library.mode.twoPlayer", friend: "library.mode.friend",
  analysis: "library.mode.analysis",
};
// An import that the server refuses as a bad request read no game from the text.
const IMPORT_ERRORS = { bad_request: "import.noGame" };

/**
 * A moment as 2026-02-12 13:05, the same in every language: Chromium has no Irish dates
 * (Intl falls back to American English, "2/12/2026, 1:05 PM").
 */
export function dateText(when) {
  const two = (number) => String(number).padStart(2, "0");
  return `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} `
    + `${two(when.getHours())}:${two(when.getMinutes())}`;
}

export class GameLibrary {
  /**
   * @param {object} handlers {open(id), imported(game), deleted(id)}
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.current = null;
    this.games = null; // the list last received, drawn again when the language changes
    this.importFailure = null; // the error of the last import, while it is shown
    $("refresh-games").addEventListener("click", () => this.refresh());
    $("import-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.importPdn();
    });
  }

  async refresh() {
    try {
      ({ games: this.games } = await api.listGames());
      this.render();
    } catch (error) {
      setMessage(() => describeError(error));
    }
  }

  render() {
    this.renderImportFailure();
    if (this.games === null) return;
    const items = this.games.map((summary) => this.item(summary));
    if (!items.length) items.push(make("li", { className: "empty", textContent: t("library.empty") }));
    $("game-list").replaceChildren(...items);
    this.mark(this.current);
  }

  /** Mark the game on the board in the list. */
  mark(id) {
    this.current = id;
    for (const item of $("game-list").children) {
      if (id && item.dataset.id === id) item.setAttribute("aria-current", "true");
      else item.removeAttribute("aria-current");
    }
  }

  item(summary) {
    const item = make("li");
    item.dataset.id = summary.id;
    const unnamed = summary.black === "?" && summary.white === "?";
    const players = unnamed ? t("library.analysisBoard") : playersText(summary.black, summary.white);
    const when = new Date(summary.updated ?? summary.created);
    const mode = Object.hasOwn(MODES, summary.mode) ? t(MODES[summary.mode]) : summary.mode;
    const details = make("small");
    showText(details, t("library.details", {
      mode, plies: t("library.plies", { count: summary.ply }), result: summary.result,
      when: Number.isNaN(when.getTime()) ? "" : dateText(when),
    }));
    const open = make("button", { type: "button", className: "open" });
    open.dataset.testid = "open-game";
    open.append(unnamed ? make("span", { textContent: players }) : playersElement(summary.black, summary.white),
      details);
    open.addEventListener("click", () => this.handlers.open(summary.id));
    const remove = make("button", { type: "button", className: "delete", textContent: "✕" });
    remove.dataset.testid = "delete-game";
    remove.setAttribute("aria-label", t("library.delete", { players }));
    remove.addEventListener("click", () => this.remove(summary.id));
    item.append(open, remove);
    return item;
  }

  async remove(id) {
    if (!window.confirm(t("library.confirmDelete"))) return;
    try {
      await api.deleteGame(id);
      this.handlers.deleted(id);
      this.refresh();
    } catch (error) {
      setMessage(() => describeError(error));
    }
  }

  async importPdn() {
    const errors = $("import-errors");
    errors.replaceChildren();
    this.importFailure = null;
    const file = $("pdn-file").files[0];
    const text = file ? await file.text() : $("pdn-text").value;
    if (!text.trim()) {
      setMessage(() => t("import.nothing"));
      return;
    }
    try {
      const answer = await api.importPdn(text);
      // What the PDN reader found wrong, line by line, in its own (English) words.
      errors.replaceChildren(...answer.errors.map((error) => {
        const item = make("li");
        showText(item, inEnglish(error));
        return item;
      }));
      if (answer.errors.length) errors.scrollIntoView({ block: "nearest" }); // beside the button, in view
      const count = answer.games.length;
      if (count) this.handlers.imported(answer.games[0]); // shows it, clearing the old game's message
      setMessage(() => t("import.done", { count }), "info");
      $("pdn-text").value = "";
      $("pdn-file").value = "";
      this.refresh();
    } catch (error) {
      this.importFailure = error;
      this.renderImportFailure();
      errors.scrollIntoView({ block: "nearest" });
      setMessage(() => describeError(error, IMPORT_ERRORS));
    }
  }

  /** A refused import, beside the Import button, where the person is looking, as well as above. */
  renderImportFailure() {
    if (!this.importFailure) return;
    const item = make("li");
    showText(item, describeError(this.importFailure, IMPORT_ERRORS));
    $("import-errors").replaceChildren(item);
  }
}
