// Squares, positions and FEN on the page's side.
//
// The server is the authority on the rules: it sends the legal moves of the
// current position, and this module never generates a move. It only draws
// what the server sent and replays moves the server already accepted, so that
// the move list can show earlier positions without asking again.

import { t } from "./i18n.js";

export const SQUARES = Array.from({ length: 32 }, (_, index) => index + 1);
export const STARTING_FEN = "B:W21-32:B1-12";
export const COLORS = ["black", "white"];

/** Row 0 is rank 8 (Black's back row, squares 1-4); file 0 is a. */
export function rowFile(square) {
  const index = square - 1;
  const row = Math.floor(index / 4);
  return [row, 2 * (index % 4) + (row % 2 === 0 ? 1 : 0)];
}

/** The playing square at a cell of the board, or null on a light cell. */
export function squareAt(row, file) {
  if (row < 0 || row > 7 || file < 0 || file > 7 || (row + file) % 2 === 0) return null;
  return row * 4 + Math.floor(file / 2) + 1;
}

/** `b8` for square 1, `a1` for square 29. */
export function algebraic(square) {
  const [row, file] = rowFile(square);
  return "abcdefgh"[file] + String(8 - row);
}

export function opponent(color) {
  return color === "black" ? "white" : "black";
}

/** A side's name, as it stands in sentences ("Black", "Dubh"). */
export function colorName(color) {
  return color === "black" ? t("color.black") : t("color.white");
}

/** A FEN the page cannot read: `key` and `params` word it in the reader's language. */
export class FenError extends Error {
  constructor(key, params) {
    super(`${key} ${JSON.stringify(params)}`);
    this.name = "FenError";
    this.key = key;
    this.params = params;
  }
}

/** A position: whose turn, and a Map square -> {color, king}. */
export function parseFen(text) {
  let body = text.trim();
  const wrapped = /^\[\s*FEN\s+"(.*)"\s*\]$/s.exec(body);
  if (wrapped) body = wrapped[1].trim();
  if (body.endsWith(".")) body = body.slice(0, -1).trim();
  const fields = body.split(":").map((field) => field.trim());
  const turnLetter = fields[0].toUpperCase();
  if (turnLetter !== "B" && turnLetter !== "W") {
    throw new FenError("fen.badTurn", { fen: JSON.stringify(text) });
  }
  const pieces = new Map();
  for (const field of fields.slice(1)) {
    const side = field.slice(0, 1).toUpperCase();
    if (side !== "B" && side !== "W") {
      throw new FenError("fen.badField", { fen: JSON.stringify(text), field: JSON.stringify(field) });
    }
    const color = side === "B" ? "black" : "white";
    for (const token of field.slice(1).split(",").map((part) => part.trim()).filter(Boolean)) {
      const match = /^(K?)(\d+)(?:-(K?)(\d+))?$/i.exec(token);
      if (!match) throw new FenError("fen.badToken", { fen: JSON.stringify(text), token: JSON.stringify(token) });
      const king = Boolean(match[1] || match[3]);
      const first = Number(match[2]);
      const last = match[4] ? Number(match[4]) : first;
      if (first < 1 || last > 32 || first > last) {
        throw new FenError("fen.badSquare", { fen: JSON.stringify(text), token: JSON.stringify(token) });
      }
      for (let square = first; square <= last; square += 1) pieces.set(square, { color, king });
    }
  }
  return { turn: turnLetter === "B" ? "black" : "white", pieces };
}

/** The canonical FEN the server writes: White's pieces, then Black's, no ranges. */
export function formatFen(position) {
  const list = (color) => SQUARES
    .filter((square) => position.pieces.get(square)?.color === color)
    .map((square) => (position.pieces.get(square).king ? "K" : "") + square)
    .join(",");
  return `${position.turn === "black" ? "B" : "W"}:W${list("white")}:B${list("black")}`;
}

/** The square jumped over between two squares of a capture, or null for a step. */
export function jumpedSquare(from, to) {
  const [r0, f0] = rowFile(from);
  const [r1, f1] = rowFile(to);
  if (Math.abs(r1 - r0) !== 2) return null;
  return squareAt((r0 + r1) / 2, (f0 + f1) / 2);
}

/** The squares of a move's text: `9x18x27` -> [9, 18, 27]. */
export function movePath(text) {
  return text.split(/[-x]/).map(Number);
}

/** The position after a move the server accepted (path of squares). */
export function applyMove(position, path) {
  const pieces = new Map(position.pieces);
  const piece = pieces.get(path[0]);
  if (!piece) throw new Error(`no piece on ${path[0]} to move`);
  pieces.delete(path[0]);
  for (let index = 1; index < path.length; index += 1) {
    const jumped = jumpedSquare(path[index - 1], path[index]);
    if (jumped !== null) pieces.delete(jumped);
  }
  const end = path[path.length - 1];
  const crowns = (piece.color === "black" && end >= 29) || (piece.color === "white" && end <= 4);
  pieces.set(end, { color: piece.color, king: piece.king || crowns });
  return { turn: opponent(position.turn), pieces };
}

/** Every position of a game: index i is the position after i moves. */
export function replay(startFen, moves) {
  const positions = [parseFen(startFen)];
  for (const move of moves) positions.push(applyMove(positions[positions.length - 1], movePath(move)));
  return positions;
}

/**
 * Moves numbered as the notation writes them: `1. 11-15 23-19 2. 8x11`,
 * a White move first written `1... 23-19`. Returns [{number, black, white}]
 * rows holding move indices (or null).
 */
export function numberedRows(firstTurn, count, firstNumber = 1) {
  const rows = [];
  let index = 0;
  let number = firstNumber;
  if (firstTurn === "white" && count > 0) {
    rows.push({ number, black: null, white: 0 });
    index = 1;
    number += 1;
  }
  for (; index < count; index += 2) {
    rows.push({ number, black: index, white: index + 1 < count ? index + 1 : null });
    number += 1;
  }
  return rows;
}

/** A line of moves as text: `1. 11-15 23-19 2. 8x11` or `3... 23-19 4. 11-15`. */
export function lineText(firstTurn, moves, firstNumber = 1) {
  return numberedRows(firstTurn, moves.length, firstNumber)
    .map((row) => {
      const black = row.black === null ? `${row.number}...` : `${row.number}. ${moves[row.black]}`;
      return row.white === null ? black : `${black} ${moves[row.white]}`;
    })
    .join(" ");
}
