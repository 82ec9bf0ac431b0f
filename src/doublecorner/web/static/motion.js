// The board's moves in motion: the piece that moved slides along its path, a leg of a jump
// after the other, and the pieces it captured fade as it passes them. All of it in 200 ms at
// most (a step in 150), so that the game keeps its pace; none of it where the system asks for
// reduced motion (WCAG 2.3.3) or where the page's setting turns it off.
//
// board.js redraws the whole board on every change, so a motion is kept here as a time span
// rather than as the animations of elements: each drawing plays again the motions not yet
// over, from where they stand (a negative delay). That keeps a move sliding while the page
// redraws under it (the server's answer, a mark), and lets the engine's reply start when the
// move before it has arrived. What the board holds never waits for a motion: the pieces are
// on their squares (data-square) from the first drawing; what slides and fades are copies
// that name no square and are hidden from screen readers, so that tests and readers see the
// position at once.

import { applyMove, formatFen, jumpedSquare } from "./geometry.js";

const MOVE_MS = 200; // a whole move, its legs sharing it out
const STEP_MS = 150; // a leg at most

/** Whether the system asks for less motion (the browser's prefers-reduced-motion). */
export function prefersReducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** How `path` took `before` to `after`, or null when it did not: the piece and what it took. */
function motionOf(before, after, path) {
  if (!before || !path || path.length < 2) return null;
  let moved;
  try {
    moved = applyMove(before, path);
  } catch {
    return null; // no piece on the path's first square: not a move of this position
  }
  if (formatFen(moved) !== formatFen(after)) return null;
  const captured = [];
  path.slice(1).forEach((square, leg) => {
    const jumped = jumpedSquare(path[leg], square);
    if (jumped !== null && before.pieces.has(jumped)) {
      captured.push({ square: jumped, piece: before.pieces.get(jumped), leg });
    }
  });
  const legs = path.length - 1;
  const legMs = Math.min(STEP_MS, MOVE_MS / legs);
  const piece = before.pieces.get(path[0]);
  const crowned = !piece.king && Boolean(after.pieces.get(path.at(-1))?.king);
  return { path, piece, captured, crowned, legMs, duration: legMs * legs };
}

export class MoveMotions {
  constructor() {
    this.running = []; // {path, piece, captured, legMs, duration, start}
    this.drawn = null; // the position last drawn, and its FEN
    this.drawnFen = null;
    this.droppedMove = null; // [from, to] of a piece the pointer dragged there: it is there already
  }

  /** A piece was dragged from `from` and dropped on `to`: that move needs no slide. */
  dropped(from, to) {
    this.droppedMove = [from, to];
  }

  /**
   * Take the position about to be drawn. A move from the one drawn before (`lastMove`, its
   * path) is returned, described ({path, piece, captured, crowned, ...}), and slides after the
   * motions still running, unless `enabled` is false, which stops them all. Null: no move.
   */
  update(position, lastMove, enabled, now) {
    const fen = formatFen(position);
    const before = this.drawn;
    const changed = fen !== this.drawnFen;
    this.drawn = position;
    this.drawnFen = fen;
    this.running = enabled ? this.running.filter((motion) => motion.start + motion.duration > now) : [];
    if (!changed) return null; // the same position drawn again: what moves goes on moving
    const dropped = this.droppedMove;
    this.droppedMove = null;
    const motion = motionOf(before, position, lastMove);
    if (!motion) {
      this.running = [];
      return null;
    }
    const inPlace = dropped && dropped[0] === motion.path[0] && dropped[1] === motion.path.at(-1);
    if (!enabled || inPlace) return motion;
    // A motion whose piece this move takes or moves on ends at once: it has to be there.
    const touched = new Set([motion.path[0], ...motion.captured.map((taken) => taken.square)]);
    this.running = this.running.filter((earlier) => !touched.has(earlier.path.at(-1)));
    const start = Math.max(now, ...this.running.map((earlier) => earlier.start + earlier.duration));
    this.running.push({ ...motion, start });
    return motion;
  }

  /** When the last motion ends (a performance.now() time), or 0 when none runs. */
  get end() {
    return Math.max(0, ...this.running.map((motion) => motion.start + motion.duration));
  }

  /**
   * Play the running motions on a board just drawn. `board` gives `centre(square)`, the
   * `overlay` group holding the pieces, `above` (the element the moving copies go before, so
   * that they pass over the other pieces) and `copy(piece, cx, cy)`, a piece's drawing.
   */
  play(board, now) {
    for (const motion of this.running) {
      const delay = motion.start - now;
      const to = motion.path.at(-1);
      // The piece on its square waits, unseen, while its copy travels.
      board.overlay.querySelector(`g.piece[data-square="${to}"]`)?.animate(
        [{ opacity: 0 }, { opacity: 0 }], { duration: Math.max(1, delay + motion.duration) });
      for (const taken of motion.captured) {
        const fading = copyOf(board, taken.piece, taken.square, "fading");
        board.above.before(fading);
        // It goes as the mover passes over it: the second half of the leg that jumps it.
        fading.animate([{ opacity: 1 }, { opacity: 0 }], {
          duration: motion.legMs / 2, delay: delay + motion.legMs * (taken.leg + 0.5), fill: "both",
        }).onfinish = () => fading.remove();
      }
      const moving = copyOf(board, motion.piece, null, "moving");
      board.above.before(moving);
      const points = motion.path.map((square) => board.centre(square));
      moving.animate(points.map(([x, y]) => ({ transform: `translate(${x}px, ${y}px)`, easing: "ease-in-out" })), {
        duration: motion.duration, delay, fill: "both",
      }).onfinish = () => moving.remove();
    }
  }
}

/** A copy of a piece for a motion: drawn like it, but no piece of the board's for readers or tests. */
function copyOf(board, piece, square, kind) {
  const [cx, cy] = square === null ? [0, 0] : board.centre(square);
  const copy = board.copy(piece, cx, cy);
  copy.setAttribute("class", `${kind} ${piece.color}`);
  copy.setAttribute("aria-hidden", "true");
  copy.setAttribute("pointer-events", "none");
  return copy;
}
