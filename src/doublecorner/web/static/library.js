// The saved games: the list kept by the server, and PDN imported into it.

import { api } from "./api.js";
import { $, escapeHtml, make, setMessage } from "./dom.js";

const MODES = { engine: "against the engine", "two-player": "two players", analysis: "analysis" };

export class GameLibrary {
  /**
   * @param {object} handlers {open(id), imported(game), deleted(id)}
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.current = null;
    $("refresh-games").addEventListener("click", () => this.refresh());
    $("import-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.importPdn();
    });
  }

  async refresh() {
    try {
      const { games } = await api.listGames();
      const items = games.map((summary) => this.item(summary));
      if (!items.length) items.push(make("li", { className: "empty", textContent: "No saved games yet." }));
      $("game-list").replaceChildren(...items);
      this.mark(this.current);
    } catch (error) {
      setMessage(error.message);
    }
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
    const players = summary.black === "?" && summary.white === "?" ? "Analysis board"
      : `${summary.black} – ${summary.white}`;
    const when = new Date(summary.updated ?? summary.created);
    const details = [MODES[summary.mode] ?? summary.mode, `${summary.ply} ${summary.ply === 1 ? "ply" : "plies"}`,
      summary.result, Number.isNaN(when.getTime()) ? "" : when.toLocaleString()];
    const open = make("button", { type: "button", className: "open" });
    open.dataset.testid = "open-game";
    open.innerHTML = `<span>${escapeHtml(players)}</span><small>${escapeHtml(details.join(" · "))}</small>`;
    open.addEventListener("click", () => this.handlers.open(summary.id));
    const remove = make("button", { type: "button", className: "delete", textContent: "✕" });
    remove.dataset.testid = "delete-game";
    remove.setAttribute("aria-label", `Delete the game ${players}`);
    remove.addEventListener("click", () => this.remove(summary.id));
    item.append(open, remove);
    return item;
  }

  async remove(id) {
    if (!window.confirm("Delete this game?")) return;
    try {
      await api.deleteGame(id);
      this.handlers.deleted(id);
      this.refresh();
    } catch (error) {
      setMessage(error.message);
    }
  }

  async importPdn() {
    const errors = $("import-errors");
    errors.replaceChildren();
    const file = $("pdn-file").files[0];
    const text = file ? await file.text() : $("pdn-text").value;
    if (!text.trim()) {
      setMessage("Paste PDN or choose a file to import.");
      return;
    }
    try {
      const answer = await api.importPdn(text);
      errors.replaceChildren(...answer.errors.map((error) => make("li", { textContent: error })));
      if (answer.errors.length) errors.scrollIntoView({ block: "nearest" }); // beside the button, in view
      const count = answer.games.length;
      if (count) this.handlers.imported(answer.games[0]); // shows it, clearing the old game's message
      setMessage(`Imported ${count} ${count === 1 ? "game" : "games"}.`, "info");
      $("pdn-text").value = "";
      $("pdn-file").value = "";
      this.refresh();
    } catch (error) {
      // Beside the Import button, where the person is looking, as well as above.
      errors.replaceChildren(make("li", { textContent: error.message }));
      errors.scrollIntoView({ block: "nearest" });
      setMessage(error.message);
    }
  }
}
