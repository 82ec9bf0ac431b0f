// The opening explorer: what the server's game database says of the position shown.
//
// For the position shown it lists the moves played there, most played first,
// each with its number of games and a bar of Black wins, draws and White
// wins, then the newest games that reached the position (by any order of
// moves). A click on a move plays it, a click on a game opens it; the page
// decides what that means (app.js). Answers are kept by position, so stepping
// back and forth through a game asks the server once per position. A server
// started without `--games-db` answers 404: the panel then stays hidden.

import { api } from "./api.js";
import { $, make, setMessage, showText, verbatim } from "./dom.js";
import { colorName, movePath } from "./geometry.js";
import { formatNumber, t } from "./i18n.js";
import { describeError, playersElement } from "./messages.js";

const TOP_GAMES = 10;
const KEPT_ANSWERS = 500;
const LABEL_SHARE = 0.15; // a segment of the bar at least this wide shows its percentage

/** Whether `text` (full or short form, as the explorer writes it) is the move `full` (a full path). */
export function isSameMove(text, full) {
  const [short, path] = [movePath(text), movePath(full)];
  if (short.length === path.length) return short.join() === path.join();
  return short.length === 2 && short[0] === path[0] && short[1] === path[path.length - 1]
    && text.includes("x") === full.includes("x");
}

export class ExplorerPanel {
  /**
   * @param {object} handlers {play(move), open(id)}
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.available = null; // null until the server's first answer; false: it has no game database
    this.fen = null; // the position shown, or null where the explorer is not offered
    this.game = null; // the id of the game it is shown in, if any
    this.found = null; // the server's answer for `fen`, once it has come
    this.answers = new Map(); // fen -> answer, oldest first
  }

  /**
   * Show what the database holds of the position `fen` (as formatFen writes it), shown in
   * the game `game` (an id, if any); null hides the panel.
   */
  show(fen, game = null) {
    this.game = game;
    if (fen !== this.fen) {
      this.fen = fen;
      this.found = fen === null ? null : this.answers.get(fen) ?? null;
      if (fen !== null && this.found === null && this.available !== false) this.ask(fen);
    }
    this.render();
  }

  async ask(fen) {
    try {
      const found = await api.explore(fen, TOP_GAMES, this.game);
      this.available = true;
      this.answers.set(fen, found);
      if (this.answers.size > KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value);
      if (this.fen === fen) this.found = found;
    } catch (error) {
      if (error.status === 404) this.available = false;
      else if (this.fen === fen) setMessage(() => explorerError(error));
    }
    this.render();
  }

  render() {
    const panel = $("explorer-panel");
    panel.hidden = !this.fen || !this.available;
    if (panel.hidden) return;
    const found = this.found;
    panel.dataset.fen = found?.fen ?? "";
    let summary = t("explorer.lookingUp");
    if (found) {
      const params = {
        games: t("explorer.games", { count: found.games }),
        side: colorName(found.fen.startsWith("W") ? "white" : "black"),
      };
      if (found.games === 0) summary = t("explorer.none");
      else summary = t(found.moves.length ? "explorer.reachedWithBars" : "explorer.reached", params);
    }
    $("explorer-summary").textContent = summary;
    $("explorer-moves").replaceChildren(...(found?.moves ?? []).map((move) => this.moveItem(move)));
    $("explorer-games").replaceChildren(...(found?.top_games ?? []).map((game) => this.gameItem(game)));
    $("explorer-games-heading").hidden = !found?.top_games.length;
  }

  moveItem(stats) {
    const button = make("button", { type: "button", className: "explorer-move" });
    button.dataset.testid = "explorer-move";
    button.dataset.move = stats.move;
    const counts = [["black", stats.black_wins], ["draw", stats.draws], ["white", stats.white_wins]];
    const decided = stats.black_wins + stats.draws + stats.white_wins;
    const description = t("explorer.results", { black: stats.black_wins, draws: stats.draws, white: stats.white_wins });
    const bar = make("span", { className: "wdl" });
    bar.setAttribute("role", "img");
    bar.setAttribute("aria-label", description);
    if (!decided) bar.append(make("span", { className: "wdl-none", textContent: t("explorer.noResult") }));
    for (const [kind, count] of counts) {
      if (!count) continue;
      const share = count / decided;
      const segment = make("span", {
        className: `wdl-${kind}`, textContent: share >= LABEL_SHARE ? `${Math.round(100 * share)}%` : "",
      });
      segment.style.width = `${100 * share}%`;
      bar.append(segment);
    }
    button.append(make("span", { className: "explorer-move-text", textContent: stats.move }),
      make("span", { className: "explorer-count", textContent: formatNumber(stats.games) }), bar);
    button.title = t("explorer.play", {
      move: stats.move, games: t("explorer.games", { count: stats.games }), results: description,
    });
    button.addEventListener("click", () => this.handlers.play(stats.move));
    const item = make("li");
    item.append(button);
    return item;
  }

  gameItem(game) {
    const item = make("li");
    item.dataset.id = String(game.id);
    const open = make("button", { type: "button", className: "open" });
    open.dataset.testid = "explorer-game";
    const details = [game.result, game.date, game.event].filter((part) => !/^[?.\s-]*$/.test(part));
    const small = make("small");
    showText(small, verbatim(details.join(" · "))); // dates and events as the records give them
    open.append(playersElement(game.black, game.white), small);
    open.title = t("explorer.open");
    open.addEventListener("click", () => this.handlers.open(game.id));
    item.append(open);
    return item;
  }
}

/** An error of the explorer, said as the explorer's. */
function explorerError(error) {
  const said = describeError(error);
  return typeof said === "string" ? t("explorer.error", { error: said }) : said;
}
