// Entering a move with clicks: the state between the first click and the move.
//
// A move is entered square by square along its path (a multi-jump one jump
// at a time), or by its first square and then its end square when no other
// legal move from that piece ends there. The legal moves come from the server
// as {move, path, captures}; nothing here knows the rules.

function startsWith(path, prefix) {
  return prefix.every((square, index) => path[index] === square);
}

export class MoveInput {
  constructor() {
    this.legal = [];
    this.prefix = [];
  }

  /** New legal moves (a new position): forget any half-entered move. */
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

  /** Squares of the pieces that have a legal move. */
  movable() {
    return [...new Set(this.legal.map((entry) => entry.path[0]))];
  }

  canSelect(square) {
    return this.legal.some((entry) => entry.path[0] === square);
  }

  /** Legal moves that continue the squares entered so far. */
  candidates() {
    return this.legal.filter(
      (entry) => entry.path.length > this.prefix.length && startsWith(entry.path, this.prefix),
    );
  }

  /** The squares that may be clicked next along a path. */
  targets() {
    if (!this.prefix.length) return [];
    return [...new Set(this.candidates().map((entry) => entry.path[this.prefix.length]))];
  }

  /** Squares the half-entered move has already visited, after its first. */
  visited() {
    return this.prefix.slice(1);
  }

  /**
   * Handle a click (or a drop) on a square. Returns one of
   * {kind: "move", move}, {kind: "select"}, {kind: "step"}, {kind: "ambiguous", moves},
   * {kind: "cancel"} or {kind: "none"}.
   */
  click(square) {
    if (this.prefix.length) {
      const candidates = this.candidates();
      if (this.targets().includes(square)) {
        this.prefix = [...this.prefix, square];
        const complete = candidates.filter((entry) => entry.path.length === this.prefix.length
          && startsWith(entry.path, this.prefix));
        if (complete.length === 1 && candidates.filter((entry) => startsWith(entry.path, this.prefix)).length === 1) {
          this.prefix = [];
          return { kind: "move", move: complete[0].move };
        }
        return { kind: "step" };
      }
      const ending = candidates.filter((entry) => entry.path[entry.path.length - 1] === square);
      if (ending.length === 1) {
        this.prefix = [];
        return { kind: "move", move: ending[0].move };
      }
      if (ending.length > 1) return { kind: "ambiguous", moves: ending.map((entry) => entry.move) };
      if (square === this.prefix[0]) {
        // A second click on the piece: back to the piece alone, then off.
        this.prefix = this.prefix.length > 1 ? [square] : [];
        return { kind: this.prefix.length ? "select" : "cancel" };
      }
    }
    if (this.canSelect(square)) {
      this.prefix = [square];
      return { kind: "select" };
    }
    const hadSelection = this.prefix.length > 0;
    this.prefix = [];
    return { kind: hadSelection ? "cancel" : "none" };
  }
}
