// The move list: moves numbered as the notation writes them, each a button to go there,
// with what is known of them: the review's marks (?!, ?, ??), and an imported game's own
// notes (NAGs after the move, comments and variations below its row).

import { make, showText, verbatim } from "./dom.js";
import { numberedRows } from "./geometry.js";
import { t } from "./i18n.js";
import { scoreText } from "./messages.js";
import { JUDGEMENTS } from "./review.js";

// NAGs as PDN and PGN write them where they have a glyph; others are written $n.
const NAG_GLYPHS = {
  1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 10: "=", 13: "∞", 14: "⩲", 15: "⩱",
  16: "±", 17: "∓", 18: "+−", 19: "−+",
};

/** A move's NAGs as glyphs: notation, the same in every language (translate="no"). */
function nagsElement(nags) {
  const element = make("span", { className: "nags", textContent: nags.map((nag) => NAG_GLYPHS[nag] ?? `$${nag}`).join(" ") });
  element.setAttribute("translate", "no");
  return element;
}

/** The number and side of the `ply`-th move (1: the first) of a game whose first move is `firstTurn`'s. */
function numberOf(firstTurn, ply) {
  const shifted = firstTurn === "white" ? ply : ply - 1; // plies since the first Black move's place
  return { number: Math.floor(shifted / 2) + 1, black: shifted % 2 === 0 };
}

/**
 * Fill `list` (an <ol>) with `moves`, the first made by `firstTurn`; the move
 * that led to ply `current` is marked, `result` ends the list, and a click on
 * a move calls `goTo(ply)`. `marks` (ply -> the review's judged move) puts a mark
 * beside a move; `notes` ({comment, byPly: ply -> notes}) adds an imported game's
 * NAGs, comments and variations, whose moves call `showVariation(move)` (move:
 * {key, ply, move, fen}); `variation` is the key of the variation move shown.
 */
export function renderMoveList(list, {
  moves, firstTurn, current, result, goTo, marks = new Map(), notes = null, variation = null,
  showVariation = () => {},
}) {
  const byPly = notes?.byPly ?? new Map();
  const moveCell = (index) => {
    const ply = index + 1;
    const button = make("button", { type: "button", className: "move", textContent: moves[index] });
    button.dataset.ply = String(ply);
    if (ply === current && variation === null) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => goTo(ply));
    const cell = make("span", { className: "move-cell" });
    cell.append(button);
    const nags = byPly.get(ply)?.nags ?? [];
    if (nags.length) cell.append(nagsElement(nags));
    const judged = marks.get(ply);
    if (judged) cell.append(markElement(judged));
    return cell;
  };
  const lines = { firstTurn, variation, showVariation };
  const items = [];
  if (notes?.comment) items.push(noteItem([comment(notes.comment)]));
  for (const row of numberedRows(firstTurn, moves.length)) {
    const item = make("li");
    const number = make("span", {
      className: "number", textContent: row.black === null ? `${row.number}…` : `${row.number}.`,
    });
    item.append(number, row.black === null ? make("span") : moveCell(row.black));
    if (row.white !== null) item.append(moveCell(row.white));
    items.push(item);
    for (const index of [row.black, row.white]) {
      const noted = index === null ? null : byPly.get(index + 1);
      if (!noted || !(noted.comment || noted.starting_comment || noted.variations.length)) continue;
      const parts = [noted.starting_comment, noted.comment].filter(Boolean).map(comment);
      parts.push(...noted.variations.map((line, at) => lineElement(line, `${noted.ply}.${at}`, lines)));
      items.push(noteItem(parts, noted.ply));
    }
  }
  if (!moves.length) items.push(make("li", { className: "empty", textContent: t("moves.none") }));
  if (result) {
    const item = make("li", { className: "result", textContent: result });
    item.dataset.testid = "result";
    items.push(item);
  }
  list.classList.toggle("annotated", items.some((item) => item.classList.contains("note")));
  list.replaceChildren(...items);
  list.querySelector('[aria-current="true"]')?.scrollIntoView({ block: "nearest" });
}

/** The review's mark of a judged move, with its meaning as its name and tooltip. */
function markElement(judged) {
  const mark = make("span", { className: `mark mark-${judged.judgement}`, textContent: judged.mark });
  mark.dataset.testid = "move-mark";
  mark.dataset.mark = judged.mark;
  mark.dataset.ply = String(judged.ply);
  const meaning = t(JUDGEMENTS[judged.judgement]);
  const said = judged.best
    ? t("review.markBest", { judgement: meaning, best: judged.best, score: scoreText(judged.best_score) })
    : meaning;
  mark.title = said;
  mark.setAttribute("translate", "no"); // the glyph is notation; its meaning is in the reader's words
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", said);
  return mark;
}

function comment(text) {
  const element = make("span", { className: "comment" });
  showText(element, verbatim(text)); // the game's own words, in its own language
  return element;
}

function noteItem(parts, ply = null) {
  const item = make("li", { className: "note" });
  if (ply !== null) item.dataset.ply = String(ply);
  item.append(...parts);
  return item;
}

/**
 * A variation (a list of moves, each with its own variations) as an indented block; `key`
 * names it among the game's variations.
 */
function lineElement(line, key, { firstTurn, variation, showVariation }) {
  const block = make("div", { className: "variation" });
  block.setAttribute("role", "group");
  block.setAttribute("aria-label", t("notes.variation"));
  const nested = [];
  line.forEach((move, index) => {
    const { number, black } = numberOf(firstTurn, move.ply);
    if (move.starting_comment) block.append(comment(move.starting_comment), " ");
    if (black || index === 0) block.append(make("span", { className: "number", textContent: black ? `${number}.` : `${number}…` }), " ");
    const moveKey = `${key}.${index}`;
    const button = make("button", { type: "button", className: "variation-move", textContent: move.move });
    button.dataset.testid = "variation-move";
    if (moveKey === variation) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => showVariation({ key: moveKey, ply: move.ply, move: move.move, fen: move.fen }));
    block.append(button);
    if (move.nags.length) block.append(nagsElement(move.nags));
    if (move.comment) block.append(" ", comment(move.comment));
    block.append(" ");
    move.variations.forEach((alternative, at) => nested.push(lineElement(alternative, `${moveKey}.${at}`,
      { firstTurn, variation, showVariation })));
  });
  block.append(...nested);
  return block;
}
