// The move list: moves numbered as the notation writes them, each a button to go there.

import { make } from "./dom.js";
import { numberedRows } from "./geometry.js";
import { t } from "./i18n.js";

/**
 * Fill `list` (an <ol>) with `moves`, the first made by `firstTurn`; the move
 * that led to ply `current` is marked, `result` ends the list, and a click on
 * a move calls `goTo(ply)`.
 */
export function renderMoveList(list, { moves, firstTurn, current, result, goTo }) {
  const moveButton = (index) => {
    const button = make("button", { type: "button", className: "move", textContent: moves[index] });
    button.dataset.ply = String(index + 1);
    if (index + 1 === current) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => goTo(index + 1));
    return button;
  };
  const items = numberedRows(firstTurn, moves.length).map((row) => {
    const item = make("li");
    const number = make("span", {
      className: "number", textContent: row.black === null ? `${row.number}…` : `${row.number}.`,
    });
    item.append(number, row.black === null ? make("span") : moveButton(row.black));
    if (row.white !== null) item.append(moveButton(row.white));
    return item;
  });
  if (!moves.length) items.push(make("li", { className: "empty", textContent: t("moves.none") }));
  if (result) {
    const item = make("li", { className: "result", textContent: result });
    item.dataset.testid = "result";
    items.push(item);
  }
  list.replaceChildren(...items);
  list.querySelector('[aria-current="true"]')?.scrollIntoView({ block: "nearest" });
}
