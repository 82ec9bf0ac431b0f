// The review of a game: the server's whole-game analysis, drawn as an evaluation chart.
//
// "Review the game" asks the server to analyse every position of the game shown
// (POST /api/games/{id}/review, docs/web-api.md); the page then asks how it goes
// every second, drawing the scores as they come, until it is done. A done review
// marks the moves it judged (?!, ?, ??) in the move list (movelist.js draws them
// from marks()), and offers the game annotated as PDN. The chart is a slider over
// the game's plies: a click or the arrow keys show that position. The server keeps
// a review with its game, so a game reviewed before shows its review at once.

import { api } from "./api.js";
import { $, inEnglish, make, setMessage } from "./dom.js";
import { colorName } from "./geometry.js";
import { t } from "./i18n.js";
import { describeError, scoreText } from "./messages.js";

const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 150;
const PAD = 6;
const CLIP = 5; // men either side of level: the chart's range (a won game is drawn at the edge)

/** The catalogue's word for each judgement the server makes. */
export const JUDGEMENTS = {
  inaccuracy: "review.inaccuracy",
  mistake: "review.mistake",
  blunder: "review.blunder",
};

const keyOf = (game) => (game ? `${game.id} ${game.moves.join(" ")}` : null);

export class ReviewPanel {
  /**
   * @param {object} handlers {goTo(ply)}: show the position after that many moves
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.game = null; // the game shown where a review is offered, else null
    this.ply = 0; // the ply shown
    this.key = null; // the game and moves `review` is about
    this.review = null; // the server's answer for `key`
    this.asking = false; // a request of ours is on its way
    this.timer = null;
    $("review-button").addEventListener("click", () => this.start());
  }

  /** Offer the review of `game` (null: none here), showing ply `ply` on its chart. */
  show(game, ply) {
    this.game = game;
    this.ply = ply;
    const key = keyOf(game);
    if (key !== this.key) {
      clearTimeout(this.timer);
      this.key = key;
      this.review = null;
      if (game) this.ask(api.reviewStatus(game.id), key); // a review kept with the game shows at once
    }
    this.render();
  }

  /** The judged moves of a done review of the game shown, by ply. */
  marks() {
    const moves = this.review?.status === "done" ? this.review.moves : [];
    return new Map(moves.filter((move) => move.mark).map((move) => [move.ply, move]));
  }

  start() {
    if (!this.game || this.asking) return;
    setMessage("");
    this.ask(api.startReview(this.game.id), this.key);
  }

  async ask(answer, key) {
    this.asking = true;
    this.render();
    try {
      const review = await answer;
      if (key !== this.key) return;
      this.review = review;
      if (review.status === "failed") setMessage(inEnglish(review.error));
      if (review.status === "running") {
        this.timer = setTimeout(() => this.ask(api.reviewStatus(this.game.id), key), POLL_MS);
      }
    } catch (error) {
      if (key === this.key) setMessage(() => describeError(error));
    } finally {
      if (key === this.key) {
        this.asking = false;
        this.render();
        this.handlers.changed?.();
      }
    }
  }

  render() {
    const panel = $("review-panel");
    panel.hidden = !this.game;
    if (!this.game) return;
    const review = this.review;
    const status = review?.status ?? "none";
    const button = $("review-button");
    button.hidden = status === "running" || status === "done";
    button.disabled = this.asking;
    const download = $("review-pdn");
    download.hidden = status !== "done";
    if (status === "done") download.href = api.reviewPdnUrl(this.game.id);
    const said = {
      none: "", running: t("review.running", { done: review?.searched ?? 0, total: review?.positions ?? 0 }),
      done: t("review.done"), failed: t("review.failed"),
    };
    $("review-status").textContent = said[status] ?? "";
    this.renderChart();
    $("review-summary").replaceChildren(...(status === "done" ? ["black", "white"] : []).map((side) => {
      const counts = review.summary[side];
      return make("li", {
        textContent: t("review.side", {
          side: colorName(side), blunders: counts.blunder, mistakes: counts.mistake,
          inaccuracies: counts.inaccuracy,
        }),
      });
    }));
  }

  renderChart() {
    const wrap = $("eval-chart-wrap");
    const scores = this.review?.scores ?? [];
    if (!scores.length) {
      wrap.replaceChildren();
      return;
    }
    const last = Math.max(1, (this.review.positions || scores.length) - 1);
    const x = (ply) => PAD + (ply / last) * (WIDTH - 2 * PAD);
    const y = (black) => HEIGHT / 2 - (Math.max(-CLIP, Math.min(CLIP, black)) / CLIP) * (HEIGHT / 2 - PAD);
    const chart = svg("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "eval-chart", role: "slider", tabindex: "0",
      "data-testid": "eval-chart", "aria-label": t("review.chart"), "aria-valuemin": "0",
      "aria-valuemax": String(last), "aria-valuenow": String(this.ply), "aria-describedby": "review-summary",
      preserveAspectRatio: "none",
    });
    const shown = scores.find((score) => score.ply === this.ply);
    chart.setAttribute("aria-valuetext", shown
      ? t("review.chartValue", { ply: this.ply, score: scoreText(shown.score) })
      : t("review.chartPly", { ply: this.ply }));
    const line = scores.map((score) => `${x(score.ply).toFixed(1)},${y(score.black).toFixed(1)}`);
    const zero = y(0).toFixed(1);
    const first = x(scores[0].ply).toFixed(1);
    const end = x(scores[scores.length - 1].ply).toFixed(1);
    chart.append(
      svg("rect", { class: "chart-ground", x: "0", y: "0", width: String(WIDTH), height: String(HEIGHT) }),
      svg("path", { class: "chart-area", d: `M${first},${zero} L${line.join(" L")} L${end},${zero} Z` }),
      svg("line", { class: "chart-zero", x1: "0", x2: String(WIDTH), y1: zero, y2: zero }),
      svg("polyline", { class: "chart-line", points: line.join(" ") }),
    );
    for (const move of this.marks().values()) {
      const score = scores.find((entry) => entry.ply === move.ply);
      if (score) {
        chart.append(svg("circle", {
          class: `chart-mark mark-${move.judgement}`, cx: x(move.ply).toFixed(1), cy: y(score.black).toFixed(1), r: "4",
        }));
      }
    }
    const cursor = x(this.ply).toFixed(1);
    chart.append(svg("line", { class: "chart-cursor", x1: cursor, x2: cursor, y1: "0", y2: String(HEIGHT) }));
    const plyAt = (clientX) => {
      const box = chart.getBoundingClientRect();
      const share = (clientX - box.left) / box.width;
      return Math.round(((share * WIDTH - PAD) / (WIDTH - 2 * PAD)) * last);
    };
    chart.addEventListener("click", (event) => this.go(plyAt(event.clientX), last));
    chart.addEventListener("keydown", (event) => {
      const steps = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, PageDown: -10, PageUp: 10 };
      let ply = null;
      if (event.key in steps) ply = this.ply + steps[event.key];
      else if (event.key === "Home") ply = 0;
      else if (event.key === "End") ply = last;
      if (ply === null || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      this.go(ply, last);
      $("eval-chart")?.focus(); // the chart is drawn anew: keep the keyboard on it
    });
    wrap.replaceChildren(chart);
  }

  go(ply, last) {
    this.handlers.goTo(Math.max(0, Math.min(last, ply)));
  }
}

function svg(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}
