// A player's Glicko-2 rating as the page shows it: whole points, and "?" while it is
// provisional (its deviation above 110: too few rated games to be sure), with a title
// that says so. A change after a game is signed: (+162), (−38).

import { make } from "./dom.js";
import { t } from "./i18n.js";

/** The rating in words: "1500?" while provisional, else "1712". */
export function ratingText(rating, provisional) {
  const points = String(Math.round(rating));
  return provisional ? t("rating.provisional", { rating: points }) : points;
}

/** The rating as an element (with the provisional mark's title). */
export function ratingElement(rating, provisional) {
  const element = make("span", { className: "rating", textContent: ratingText(rating, provisional) });
  if (provisional) element.title = t("rating.provisionalTitle");
  return element;
}

/** How a rating moved, signed and in parentheses: "(+162)", "(−38)", "(0)". */
export function changeText(before, after) {
  const change = Math.round(after) - Math.round(before);
  const sign = change > 0 ? "+" : change < 0 ? "\u2212" : "";
  return `(${sign}${Math.abs(change)})`;
}
