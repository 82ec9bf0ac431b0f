// Entering a try with clicks on the learn page, where a wrong move is part of learning.
//
// A game's board (moveinput.js) takes only legal moves. Here any piece of the side to
// move may be picked and any square clicked: the try goes to the server, which says
// whether it is legal and, if not, why. The legal moves (sent by the server) only tell
// when a path is complete: a multi-jump waits for its next square while a legal move
// goes on from it, a click on the square it stands on stops it there (to try stopping
// half way), and a click on the end square of the only route there plays that route.
// A click on another piece of the side to move picks that piece instead; a drop on it
// tries the move there.

import { jumpedSquare } from "./geometry.js";

function startsWith(path, prefix) {
  return prefix.every((square, index) => path[index] === square);
}

/** A path as move text: `9x18x27` for jumps, `11-15` for a step. */
export function pathText(path) {
  const isJump = path.length > 2 || jumpedSquare(path[0], path[1]) !== null;
  return path.join(isJump ? "x" : "-");
}

export class TryInput {
  constructor() {
    this.legal = [];
    this.prefix = [];
  }

  /** A new position's legal moves ({move, path, captures}): forget any half-entered try. */
  setLegalMoves(legal) {
    this.legal = legal;
    this.prefix = [];
  }

  reset() {
    this.prefix = [];
  }

  get selected() {
    return this.prefix.length ? this.prefix[0] : null;
  }

  /** Squares the half-entered try has visited, after its first. */
  visited() {
    return this.prefix.slice(1);
  }

  /** The legal moves that go on from `path`. */
  continuing(path) {
    return this.legal.filter((entry) => entry.path.length > path.length && startsWith(entry.path, path));
  }

  /** The squares a legal move reaches next from the half-entered try. */
  targets() {
    if (!this.prefix.length) return [];
    return [...new Set(this.continuing(this.prefix).map((entry) => entry.path[this.prefix.length]))];
  }

  /**
   * A click (or Enter) on `square`; `own`: it holds a piece of the side to move. Returns
   * {kind: "select"}, {kind: "step"}, {kind: "cancel"}, {kind: "none"} or
   * {kind: "try", path}: the squares of a move to check.
   */
  click(square, own) {
    const prefix = this.prefix;
    if (!prefix.length) {
      if (!own) return { kind: "none" };
      this.prefix = [square];
      return { kind: "select" };
    }
    if (square === prefix.at(-1)) {
      this.prefix = [];
      return prefix.length === 1 ? { kind: "cancel" } : { kind: "try", path: prefix };
    }
    if (own && prefix.length === 1) {
      this.prefix = [square];
      return { kind: "select" };
    }
    return this.reach(square);
  }

  /** A drag from `from` dropped on `to`: a try from that piece, wherever it lands. */
  drop(from, to) {
    this.prefix = [from];
    return to === from ? { kind: "cancel" } : this.reach(to);
  }

  reach(square) {
    const path = [...this.prefix, square];
    if (this.continuing(path).length) { // a multi-jump goes on from there
      this.prefix = path;
      return { kind: "step" };
    }
    const ending = this.continuing(this.prefix).filter((entry) => entry.path.at(-1) === square);
    this.prefix = [];
    return { kind: "try", path: ending.length === 1 ? ending[0].path : path };
  }
}
