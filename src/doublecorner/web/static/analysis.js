// The analysis panel: the engine's lines for the position shown, live, with a score bar.
//
// Analysis is a switch: while it is on, the position shown is analysed, and
// showing another position starts a search there. The server runs one search
// per connection and ends a search, with its `done`, before it starts the next.

import { AnalysisSocket } from "./api.js";
import { $, make, setMessage } from "./dom.js";
import { colorName, lineText } from "./geometry.js";

const MAX_LINES = 30;
const SCORE_SCALE = 250; // hundredths of a man at which the bar is three quarters full

export class AnalysisPanel {
  constructor() {
    this.target = null; // {fen, moves, turn}: the position shown, or null where analysis is not offered
    this.on = false; // the person wants the position shown analysed
    this.searching = false; // the server has a search going, until its `done`
    this.stale = 0; // `done`s still to come from searches left behind
    this.key = null; // the position `lines` are about, whose side to move is `turn`
    this.turn = "black";
    this.lines = [];
    this.best = null;
    this.socket = new AnalysisSocket({
      onMessage: (message) => this.receive(message),
      onClose: () => {
        Object.assign(this, { on: false, searching: false, stale: 0 });
        this.render();
      },
    });
    $("analysis-toggle").addEventListener("click", () => {
      if (this.on) this.stop();
      else this.start();
      this.render();
    });
  }

  /** Show the panel for `target` ({fen, moves, turn}, or null to hide it); a live analysis follows. */
  show(target) {
    this.target = target;
    if (this.on && !target) this.stop();
    else if (this.on && keyOf(target) !== this.key) this.start();
    this.render();
  }

  start() {
    const target = this.target;
    if (this.searching) this.stale += 1;
    Object.assign(this, {
      on: true, searching: true, key: keyOf(target), turn: target.turn, lines: [], best: null,
    });
    this.render();
    this.socket.start(target.fen, target.moves).catch((error) => {
      Object.assign(this, { on: false, searching: false });
      setMessage(error.message);
      this.render();
    });
  }

  stop() {
    if (this.searching) {
      this.socket.stop();
      this.stale += 1;
      this.searching = false;
    }
    this.on = false;
  }

  receive(message) {
    if (this.stale && message.type !== "error") {
      // The tail of a search that was stopped or replaced: its lines are for another position.
      if (message.type === "done") this.stale -= 1;
      return;
    }
    if (message.type === "info") {
      this.lines.unshift(message);
      this.lines.length = Math.min(this.lines.length, MAX_LINES);
    } else if (message.type === "done") {
      this.searching = false;
      this.best = message.bestmove;
    } else if (message.type === "error") {
      Object.assign(this, { on: false, searching: false });
      setMessage(message.error);
    }
    this.render();
  }

  render() {
    const panel = $("analysis-panel");
    panel.hidden = !this.target;
    const toggle = $("analysis-toggle");
    toggle.textContent = this.on ? "Stop analysis" : "Start analysis";
    toggle.setAttribute("aria-pressed", String(this.on));
    if (!this.target) return;
    // Lines are shown only with the position they are about.
    const lines = this.key === keyOf(this.target) ? this.lines : [];
    const latest = lines[0];
    const side = colorName(this.turn);
    const bar = $("score-bar");
    let share = 50;
    if (latest) {
      const blackCp = this.turn === "black" ? latest.score_cp : -latest.score_cp;
      share = Math.round(50 + 50 * Math.tanh(blackCp / SCORE_SCALE));
      bar.setAttribute("aria-valuetext", `${side}: ${latest.score}`);
      $("score-text").textContent = `${side}: ${latest.score}`;
      const depth = latest.seldepth > latest.depth ? `${latest.depth}/${latest.seldepth}` : `${latest.depth}`;
      $("analysis-info").textContent = `Scores for ${side}, to move · depth ${depth}`
        + ` · ${Number(latest.nodes).toLocaleString("en")} nodes`
        + ` · ${Number(latest.nps).toLocaleString("en")} n/s`
        + (this.searching ? "" : ` · finished${this.best ? `, best ${this.best}` : ""}`);
    } else {
      bar.removeAttribute("aria-valuetext");
      $("score-text").textContent = this.on && this.searching ? "thinking…" : "";
      $("analysis-info").textContent = "";
    }
    panel.querySelector(".score-fill").style.width = `${share}%`;
    bar.setAttribute("aria-valuenow", String(share));
    $("analysis-lines").replaceChildren(...lines.map((line) => {
      const item = make("li", { textContent: `${line.score}  ${lineText(this.turn, line.pv ?? [])}` });
      item.value = line.depth;
      return item;
    }));
  }
}

function keyOf(target) {
  return target ? JSON.stringify([target.fen, target.moves]) : null;
}
