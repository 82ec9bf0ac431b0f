// The analysis panel: the engine's lines for the position shown, live, and the evaluation bar
// beside the board while analysis is on.
//
// Analysis is a switch: while it is on, the position shown is analysed, and
// showing another position starts a search there. The server runs one search
// per connection and ends a search, with its `done`, before it starts the next.

import { AnalysisSocket } from "./api.js";
import { $, inEnglish, make, setMessage } from "./dom.js";
import { colorName, lineText } from "./geometry.js";
import { t } from "./i18n.js";
import { describeError, scoreText } from "./messages.js";

const MAX_LINES = 30;
const SCORE_SCALE = 250; // hundredths of a man at which the bar is three quarters full

export class AnalysisPanel {
  constructor() {
    this.target = null; // {fen, moves, turn, game}: the position shown (of game, if any), or null where analysis is not offered
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

  /** Show the panel for `target` ({fen, moves, turn, game}, or null to hide it); a live analysis follows. */
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
    this.socket.start(target.fen, target.moves, target.game).catch((error) => {
      Object.assign(this, { on: false, searching: false });
      setMessage(() => describeError(error));
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
      // A refusal for fair play has a code to word it by; the stream's other errors have none.
      setMessage(message.code ? () => describeError({ code: message.code, message: message.error })
        : inEnglish(message.error));
    }
    this.render();
  }

  render() {
    const panel = $("analysis-panel");
    panel.hidden = !this.target;
    const toggle = $("analysis-toggle");
    toggle.textContent = this.on ? t("analysis.stop") : t("analysis.start");
    toggle.setAttribute("aria-pressed", String(this.on));
    if (!this.target) return;
    // Lines are shown only with the position they are about.
    const lines = this.key === keyOf(this.target) ? this.lines : [];
    const latest = lines[0];
    const side = colorName(this.turn);
    const bar = $("score-bar");
    bar.hidden = !this.on;
    let share = 50;
    let figure = "";
    if (latest) {
      const blackCp = this.turn === "black" ? latest.score_cp : -latest.score_cp;
      share = Math.round(50 + 50 * Math.tanh(blackCp / SCORE_SCALE));
      figure = barFigure(latest.score, blackCp);
      bar.dataset.ahead = blackCp < 0 ? "white" : "black";
      const score = t("analysis.score", { side, score: scoreText(latest.score) });
      bar.setAttribute("aria-valuetext", score);
      $("score-text").textContent = score;
      const params = {
        side,
        depth: latest.seldepth > latest.depth ? `${latest.depth}/${latest.seldepth}` : `${latest.depth}`,
        nodes: t("analysis.nodes", { count: Number(latest.nodes) }),
        speed: t("analysis.speed", { nps: Number(latest.nps) }),
        best: this.best,
      };
      const info = this.searching ? "analysis.info" : this.best ? "analysis.infoBest" : "analysis.infoDone";
      $("analysis-info").textContent = t(info, params);
    } else {
      bar.removeAttribute("aria-valuetext");
      $("score-text").textContent = this.on && this.searching ? t("analysis.thinking") : "";
      $("analysis-info").textContent = "";
    }
    bar.querySelector(".score-fill").style.height = `${share}%`;
    bar.querySelector(".score-figure").textContent = figure;
    bar.setAttribute("aria-valuenow", String(share));
    $("analysis-lines").replaceChildren(...lines.map((line) => {
      const item = make("li", {
        textContent: t("analysis.line", { score: scoreText(line.score), moves: lineText(this.turn, line.pv ?? []) }),
      });
      item.value = line.depth;
      return item;
    }));
  }
}

/**
 * The score written in the bar, at the end of the side ahead (style.css), short enough for its
 * width: 0.35 men, #7 for a win in 7 plies, # for the endgame tables' win.
 */
function barFigure(score, blackCp) {
  const plies = /in (\d+)$/.exec(score);
  if (plies) return `#${plies[1]}`;
  if (score.startsWith("table")) return "#";
  return (Math.abs(blackCp) / 100).toFixed(2);
}

function keyOf(target) {
  return target ? JSON.stringify([target.fen, target.moves]) : null;
}
