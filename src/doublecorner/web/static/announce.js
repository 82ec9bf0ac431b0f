// What the live region (index.html's announcer, aria-live="polite") says as a game goes on:
// each move in words ("Black 11 to 15", "White jumps 22 to 15 capturing 18 and is crowned")
// and how the game ended, in the reader's language. A screen reader gets from it what the
// eye gets from the pieces moving, the engine's and the other player's moves too.

import { textOf } from "./dom.js";
import { colorName, jumpedSquare, movePath, opponent } from "./geometry.js";
import { listAnd, t } from "./i18n.js";
import { endingReason } from "./messages.js";

/** A move in words: `before` is the position it was played in, `move` its text ("9x18x27"). */
export function moveInWords(before, move) {
  const path = movePath(move);
  const [from, to] = [path[0], path.at(-1)];
  const piece = before.pieces.get(from);
  const side = colorName(piece?.color ?? before.turn);
  const captured = path.slice(1).map((square, index) => jumpedSquare(path[index], square))
    .filter((square) => square !== null);
  // Squares as written in moves, never as numbers of the language ("1,234").
  const squares = { side, from: String(from), to: String(to) };
  const words = captured.length
    ? t("announce.jump", { ...squares, captured: listAnd(captured.map(String)) })
    : t("announce.step", squares);
  const crowned = piece && !piece.king && (piece.color === "black" ? to >= 29 : to <= 4);
  return crowned ? t("announce.crowned", { move: words }) : words;
}

/** How a game ended (the server's `outcome`), in words: the result, then the reason. */
export function endingInWords({ winner, result, reason }) {
  const headline = winner ? t("status.won", { winner: colorName(winner), result }) : t("status.drawn", { result });
  return t("announce.end", { headline, reason: textOf(endingReason(reason, winner ? opponent(winner) : null)) });
}

/**
 * What changed from `before` (the game as it was shown, or null for a game just started) to
 * `game`, in words: the moves played since, and the end if it came; "" when nothing is to be
 * said (a takeback, another game). `positions[i]` is the game's position after i moves.
 */
export function changesInWords(before, game, positions) {
  const known = before?.moves ?? [];
  const continues = known.length <= game.moves.length && known.every((move, index) => move === game.moves[index]);
  if (!continues) return "";
  const parts = game.moves.slice(known.length)
    .map((move, index) => moveInWords(positions[known.length + index], move));
  if (game.outcome && !before?.outcome) parts.push(endingInWords(game.outcome));
  return parts.length ? parts.reduce((first, next) => t("announce.then", { first, next })) : "";
}
