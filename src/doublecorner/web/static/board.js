// The board drawn as SVG, and the clicks, drags and keys that reach it.
//
// The drawing follows doublecorner.svg (src/doublecorner/svg.py): the same
// units, styles (colours), classes and kings (stacked or crowned), so that a board
// drawn by the server and one drawn here look alike. A move may slide (motion.js).
// On top of that picture come the marks of a game
// in progress: the selected piece, the legal targets and the pieces that must
// capture. Every mark lets the pointer through to the square under it, so a
// click anywhere in a square reaches that square. The marks and the square
// numbers take colours of the page's own where svg.py's fall short of WCAG AA
// (3:1 for a mark against the square under it, 4.5:1 for the numbers).
//
// For the keyboard and screen readers the board is an ARIA grid (the APG's
// "layout grid"): eight rows of four cells, the playing squares as they stand
// on the screen, one tab stop (a roving tabindex) and the arrow keys between
// cells. A grid rather than a group of buttons because screen readers switch
// to their focus mode in a grid, so the arrow keys reach the page instead of
// reading on; and rows of cells let them say where a square is. Up and down
// keep the column of four, so the focus zigzags down a file rather than
// drifting off the board. Everything else drawn is hidden from them: a
// cell's name says its number, name, piece and what Enter does there.

import { SQUARES, algebraic, rowFile, squareAt } from "./geometry.js";
import { t } from "./i18n.js";
import { MoveMotions, prefersReducedMotion } from "./motion.js";

const NS = "http://www.w3.org/2000/svg";
const SQUARE_SIZE = 45;
const MARGIN = 20;
const PIECE_RADIUS = 0.39 * SQUARE_SIZE;
const STACK_OFFSET = 0.06 * SQUARE_SIZE; // a stacked king's men, up and down from the middle
const DRAG_THRESHOLD = 6; // pixels the pointer moves before a press becomes a drag

// The palettes of svg.py (its styles), plus the page's own marks: the must-capture ring, the rings of the
// marked squares (last move, selected piece and its path) and the focus ring. Each mark has
// 3:1 against what surrounds it (tests/test_web_a11y.py measures them).
export const PALETTES = {
  tournament: {
    playing: "#3a7d44", unused: "#f0dcaa", frame: "#3b2a1a", border: "#3b2a1a", label: "#f0dcaa",
    disc: { black: ["#c62828", "#7f1212"], white: ["#f7f3e8", "#8f8a7a"] },
    crown: { black: ["#f4c430", "#6b4e00"], white: ["#f4c430", "#6b4e00"] },
    lastMove: "#fff176", highlight: "#4fc3f7", arrow: "#1565c0",
    // The page's own: svg.py's numbers (#f0dcaa, 3.7:1 on the green) and an orange ring (2.3:1) were too faint.
    number: "#ffffff", numberHalo: "#173a1e", mustCapture: "#ffd54f",
    lastMoveRing: "#1a1a1a", highlightRing: "#0d47a1", focusRing: ["#000000", "#ffeb3b"],
  },
  wood: {
    playing: "#9a6434", unused: "#ecd2a4", frame: "#4a2c14", border: "#4a2c14", label: "#ecd2a4",
    disc: { black: ["#c62828", "#2b0606"], white: ["#f7f3e8", "#8f8a7a"] },
    crown: { black: ["#f4c430", "#6b4e00"], white: ["#f4c430", "#6b4e00"] },
    lastMove: "#fff176", highlight: "#4fc3f7", arrow: "#1565c0",
    number: "#ffffff", numberHalo: "#3d2410", mustCapture: "#ffd54f",
    lastMoveRing: "#1a1a1a", highlightRing: "#08306b", focusRing: ["#000000", "#ffeb3b"],
  },
  slate: {
    playing: "#4f6d8a", unused: "#d9e1e8", frame: "#263545", border: "#263545", label: "#d9e1e8",
    disc: { black: ["#c62828", "#2b0606"], white: ["#f7f3e8", "#8f8a7a"] },
    crown: { black: ["#f4c430", "#6b4e00"], white: ["#f4c430", "#6b4e00"] },
    lastMove: "#fff176", highlight: "#80deea", arrow: "#ef6c00",
    number: "#ffffff", numberHalo: "#1c2b3a", mustCapture: "#ffd54f",
    lastMoveRing: "#1a1a1a", highlightRing: "#0d47a1", focusRing: ["#000000", "#ffeb3b"],
  },
  book: {
    playing: "#ffffff", unused: "#a6a6a6", frame: "#ffffff", border: "#000000", label: "#000000",
    disc: { black: ["#1a1a1a", "#000000"], white: ["#ffffff", "#000000"] },
    crown: { black: ["#ffffff", "#ffffff"], white: ["#1a1a1a", "#1a1a1a"] },
    lastMove: "#ffd54f", highlight: "#81d4fa", arrow: "#d84315",
    number: "#595959", numberHalo: "#ffffff", mustCapture: "#d84315",
    lastMoveRing: "#8a5200", highlightRing: "#01579b", focusRing: ["#000000", "#ffeb3b"],
  },
};

const CROWN_OUTLINE = [[-0.5, 0.34], [0.5, 0.34], [0.6, -0.26], [0.27, 0.02], [0.0, -0.38],
  [-0.27, 0.02], [-0.6, -0.26]];
const CROWN_BALLS = [[-0.6, -0.33, 0.09], [0.0, -0.46, 0.09], [0.6, -0.33, 0.09]];

function num(value) {
  const text = value.toFixed(2).replace(/\.?0+$/, "");
  return text === "-0" ? "0" : text;
}

function element(name, attributes = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

function crownPath(cx, cy) {
  const point = (x, y) => `${num(cx + x * PIECE_RADIUS)} ${num(cy + y * PIECE_RADIUS)}`;
  const outline = `M ${CROWN_OUTLINE.map(([x, y]) => point(x, y)).join(" L ")} Z`;
  const balls = CROWN_BALLS.map(([x, y, r]) => {
    const radius = num(r * PIECE_RADIUS);
    return `M ${point(x - r, y)} a ${radius} ${radius} 0 1 0 ${num(2 * r * PIECE_RADIUS)} 0 `
      + `a ${radius} ${radius} 0 1 0 ${num(-2 * r * PIECE_RADIUS)} 0 Z`;
  });
  return [outline, ...balls].join(" ");
}

/**
 * A piece as svg.py draws it: a group with the disc and, for a king, a crown or (`kings`
 * "stacked") a second man under it.
 */
export function pieceElement(piece, cx, cy, palette, kings = "stacked") {
  const group = element("g", { class: `piece ${piece.color} ${piece.king ? "king" : "man"}` });
  const [fill, rim] = palette.disc[piece.color];
  const disc = (y, attributes = {}) => element("circle", {
    ...attributes, cx: num(cx), cy: num(y), r: num(PIECE_RADIUS), fill, stroke: rim, "stroke-width": 1.5,
  });
  if (piece.king && kings === "stacked") {
    group.append(disc(cy + STACK_OFFSET, { class: "lower" }), disc(cy - STACK_OFFSET));
    return group;
  }
  group.append(disc(cy));
  if (piece.king) {
    const [crownFill, outline] = palette.crown[piece.color];
    group.append(element("path", {
      class: "crown", d: crownPath(cx, cy), fill: crownFill, stroke: outline, "stroke-width": 1,
      "stroke-linejoin": "round",
    }));
  }
  return group;
}

const PIECE_NAMES = {
  black: { man: "piece.blackMan", king: "piece.blackKing" },
  white: { man: "piece.whiteMan", king: "piece.whiteKing" },
};

function describePiece(piece) {
  if (!piece) return t("piece.none");
  return t(PIECE_NAMES[piece.color][piece.king ? "king" : "man"]);
}

/** A square's accessible name: its number and name, what is on it, and what a click does. */
function describeSquare(square, piece, { target, selected }) {
  const params = { square, name: algebraic(square), content: describePiece(piece) };
  if (target) return t("board.squareTarget", params);
  return t(selected ? "board.squareSelected" : "board.square", params);
}

export class BoardView {
  /**
   * @param {HTMLElement} container where the <svg> goes
   * @param {object} handlers {activate(square), drop(from, to), canDrag(square), cancel(),
   *   moved(move): a move was drawn, played from the position drawn before (motion.js)}
   */
  constructor(container, handlers) {
    this.container = container;
    this.handlers = handlers;
    this.state = null;
    this.focusSquare = 22;
    this.press = null;
    this.motions = new MoveMotions();
    this.settle = null; // the timer that marks the board still when its motions are over
    this.svg = element("svg", { class: "board", role: "grid", "aria-label": t("board.label") });
    container.replaceChildren(this.svg);
    this.svg.addEventListener("pointerdown", (event) => this.pointerDown(event));
    this.svg.addEventListener("pointermove", (event) => this.pointerMove(event));
    this.svg.addEventListener("pointerup", (event) => this.pointerUp(event));
    this.svg.addEventListener("pointercancel", () => this.endPress());
    this.svg.addEventListener("keydown", (event) => this.keyDown(event));
    this.svg.addEventListener("focusin", (event) => {
      const square = Number(event.target.dataset?.square);
      if (square) this.moveFocusRing(square);
    });
  }

  get margin() {
    return this.state?.coordinates === "algebraic" ? MARGIN : 0;
  }

  /** Top-left corner of a cell, row 0 being rank 8, as the board is turned. */
  corner(row, file) {
    if (this.state.flipped) [row, file] = [7 - row, 7 - file];
    return [this.margin + file * SQUARE_SIZE, this.margin + row * SQUARE_SIZE];
  }

  squareCorner(square) {
    return this.corner(...rowFile(square));
  }

  centre(square) {
    const [x, y] = this.squareCorner(square);
    return [x + SQUARE_SIZE / 2, y + SQUARE_SIZE / 2];
  }

  /** The grid's cell of a square as it stands on the screen: [row 0-7 from the top, column 0-3 from the left]. */
  cell(square) {
    let [row, file] = rowFile(square);
    if (this.state.flipped) [row, file] = [7 - row, 7 - file];
    return [row, Math.floor(file / 2)];
  }

  /** The square in a cell of the grid (row 0-7, column 0-3 as on the screen), or null off the board. */
  squareInCell(row, column) {
    if (row < 0 || row > 7 || column < 0 || column > 3) return null;
    return SQUARES.find((square) => {
      const [r, c] = this.cell(square);
      return r === row && c === column;
    });
  }

  /**
   * Draw a state: {position, flipped, coordinates ("numbers" | "algebraic" | "none"),
   * style ("tournament" | "wood" | "slate" | "book"), kings ("stacked" | "crowned"),
   * lastMove (path), mustCapture, selected, visited, targets, movable, hinted (squares: pieces
   * ringed for a moment, see style.css), label (the accessible name), animate (a move from
   * the position drawn before slides: motion.js)}.
   */
  render(state) {
    const hadFocus = this.svg.contains(document.activeElement);
    this.state = state;
    const now = performance.now();
    const moved = this.motions.update(state.position, state.lastMove,
      Boolean(state.animate) && !prefersReducedMotion(), now);
    const palette = PALETTES[state.style] ?? PALETTES.tournament;
    const kings = state.kings ?? "stacked";
    const margin = this.margin;
    const side = 8 * SQUARE_SIZE + 2 * margin;
    const svg = this.svg;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
    svg.setAttribute("aria-label", state.label ?? t("board.label"));
    svg.classList.toggle("flipped", Boolean(state.flipped));
    svg.dataset.style = state.style;
    svg.dataset.coordinates = state.coordinates;

    if (margin) {
      svg.append(element("rect", {
        class: "frame", x: 0, y: 0, width: side, height: side, fill: palette.frame, "aria-hidden": "true",
      }));
      for (let index = 0; index < 8; index += 1) {
        const [x, y] = this.corner(index, index);
        const baseline = 0.35 * 12;
        svg.append(element("text", {
          class: "coordinate file", x: num(x + SQUARE_SIZE / 2), y: num(margin + 8 * SQUARE_SIZE + margin / 2 + baseline),
          "text-anchor": "middle", "font-family": "sans-serif", "font-size": 12, fill: palette.label,
          "aria-hidden": "true",
        }, "abcdefgh"[index]));
        svg.append(element("text", {
          class: "coordinate rank", x: num(margin / 2), y: num(y + SQUARE_SIZE / 2 + baseline),
          "text-anchor": "middle", "font-family": "sans-serif", "font-size": 12, fill: palette.label,
          "aria-hidden": "true",
        }, String(8 - index)));
      }
    }
    svg.append(element("rect", {
      class: "square unused", x: margin, y: margin, width: 8 * SQUARE_SIZE, height: 8 * SQUARE_SIZE, fill: palette.unused,
      "aria-hidden": "true",
    }));

    const pieces = state.position.pieces;
    const movable = new Set(state.movable ?? []);
    // Tabbing into the board lands on a piece that can move.
    if (!hadFocus && movable.size && !movable.has(this.focusSquare)) this.focusSquare = Math.min(...movable);
    const targets = new Set(state.targets ?? []);
    // The grid's rows, top to bottom as shown; each cell's square in the order it stands in its row.
    const rows = Array.from({ length: 8 }, () => element("g", { role: "row" }));
    const cells = [...SQUARES].sort((a, b) => this.cell(a)[1] - this.cell(b)[1]);
    for (const square of cells) {
      const [x, y] = this.squareCorner(square);
      const classes = ["square", "playing"];
      if (movable.has(square)) classes.push("movable");
      if (targets.has(square)) classes.push("target");
      rows[this.cell(square)[0]].append(element("rect", {
        class: classes.join(" "), "data-square": square, x, y, width: SQUARE_SIZE, height: SQUARE_SIZE,
        fill: palette.playing, tabindex: square === this.focusSquare ? 0 : -1, role: "gridcell",
        "aria-label": describeSquare(square, pieces.get(square),
          { target: targets.has(square), selected: square === state.selected }),
      }));
    }
    svg.append(...rows);

    const overlay = element("g", { class: "overlay", "pointer-events": "none", "aria-hidden": "true" });
    svg.append(overlay);
    // A mark is a tint and a ring inside the square: the ring carries the contrast the tint cannot.
    const mark = (squares, kind, colour, ring) => {
      for (const square of new Set(squares)) {
        const [x, y] = this.squareCorner(square);
        overlay.append(element("rect", {
          class: kind, "data-square": square, x: x + 1.5, y: y + 1.5, width: SQUARE_SIZE - 3,
          height: SQUARE_SIZE - 3, fill: colour, "fill-opacity": 0.6, stroke: ring, "stroke-width": 3,
        }));
      }
    };
    mark(state.lastMove ?? [], "last-move", palette.lastMove, palette.lastMoveRing);
    const lit = state.selected ? [state.selected, ...(state.visited ?? [])] : [];
    mark(lit, "highlight", palette.highlight, palette.highlightRing);
    if (state.coordinates === "numbers") {
      for (const square of SQUARES) {
        const [x, y] = this.squareCorner(square);
        // A halo keeps the number legible on a marked square as on a plain one.
        overlay.append(element("text", {
          class: "coordinate number", x: x + 3, y: y + 10, "font-family": "sans-serif", "font-size": 8,
          fill: palette.number, stroke: palette.numberHalo, "stroke-width": 2, "paint-order": "stroke",
          "stroke-linejoin": "round",
        }, String(square)));
      }
    }
    for (const square of state.mustCapture ?? []) {
      const [cx, cy] = this.centre(square);
      overlay.append(element("circle", {
        class: "must-capture", "data-square": square, cx: num(cx), cy: num(cy), r: num(0.47 * SQUARE_SIZE),
        fill: "none", stroke: palette.mustCapture, "stroke-width": 3, "stroke-dasharray": "6 3",
      }));
    }
    for (const square of state.hinted ?? []) {
      const [cx, cy] = this.centre(square);
      overlay.append(element("circle", {
        class: "movable-hint", "data-square": square, cx: num(cx), cy: num(cy), r: num(0.47 * SQUARE_SIZE),
        fill: "none", stroke: palette.highlight, "stroke-width": 4,
      }));
    }
    for (const square of SQUARES) {
      const piece = pieces.get(square);
      if (!piece) continue;
      const group = pieceElement(piece, ...this.centre(square), palette, kings);
      group.setAttribute("data-square", square);
      overlay.append(group);
    }
    const border = element("rect", {
      class: "border", x: margin, y: margin, width: 8 * SQUARE_SIZE, height: 8 * SQUARE_SIZE, fill: "none",
      stroke: palette.border, "stroke-width": 2,
    });
    overlay.append(border);
    this.motions.play({
      overlay, above: border, centre: (square) => this.centre(square),
      copy: (piece, cx, cy) => pieceElement(piece, cx, cy, palette, kings),
    }, now);
    this.markMoving(now);
    if (state.selected && state.visited?.length) {
      const points = [state.selected, ...state.visited].map((square) => this.centre(square).map(num).join(" "));
      overlay.append(element("path", {
        class: "arrow", d: `M ${points.join(" L ")}`, fill: "none", stroke: palette.arrow,
        "stroke-width": num(0.12 * SQUARE_SIZE), "stroke-linecap": "round", "stroke-linejoin": "round", opacity: 0.8,
      }));
    }
    for (const square of targets) {
      const [cx, cy] = this.centre(square);
      overlay.append(element("circle", {
        class: "target-dot", "data-square": square, cx: num(cx), cy: num(cy), r: num(0.16 * SQUARE_SIZE),
        fill: palette.arrow, "fill-opacity": 0.8, stroke: "#ffffff", "stroke-width": 1.5,
      }));
    }
    // The keyboard's focus: two rings, dark outside and light inside, so that one of them stands
    // out on any square and mark; shown by style.css while a square has :focus-visible.
    const [outer, inner] = palette.focusRing;
    this.focusRing = element("g", { class: "focus-ring" });
    this.focusRing.append(
      element("rect", { x: 1.5, y: 1.5, width: SQUARE_SIZE - 3, height: SQUARE_SIZE - 3, fill: "none", stroke: outer,
        "stroke-width": 3 }),
      element("rect", { x: 4.5, y: 4.5, width: SQUARE_SIZE - 9, height: SQUARE_SIZE - 9, fill: "none", stroke: inner,
        "stroke-width": 3 }),
    );
    overlay.append(this.focusRing);
    this.moveFocusRing(this.focusSquare);
    if (hadFocus) this.focus();
    if (moved) this.handlers.moved?.(moved);
  }

  /** svg[data-moving]: "true" while a move slides, for those who wait for the board to be still. */
  markMoving(now) {
    clearTimeout(this.settle);
    const left = this.motions.end - now;
    this.svg.dataset.moving = String(left > 0);
    if (left > 0) this.settle = setTimeout(() => { this.svg.dataset.moving = "false"; }, left);
  }

  /** Make `square` the board's tab stop, with the focus ring on it. */
  moveFocusRing(square) {
    this.focusSquare = square;
    const [x, y] = this.squareCorner(square);
    this.focusRing?.setAttribute("transform", `translate(${x} ${y})`);
    this.focusRing?.setAttribute("data-square", square);
  }

  /** Put the keyboard focus on the board (on the square that had it last). */
  focus() {
    this.svg.querySelector(`rect.square[data-square="${this.focusSquare}"]`)?.focus();
  }

  squareFromPoint(clientX, clientY) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix || !this.state) return null;
    const point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    let file = Math.floor((point.x - this.margin) / SQUARE_SIZE);
    let row = Math.floor((point.y - this.margin) / SQUARE_SIZE);
    if (this.state.flipped) [row, file] = [7 - row, 7 - file];
    return squareAt(row, file);
  }

  pointerDown(event) {
    if (event.button !== 0 || !this.state) return;
    const square = this.squareFromPoint(event.clientX, event.clientY);
    if (square === null) return;
    this.press = { square, x: event.clientX, y: event.clientY, ghost: null };
    if (this.handlers.canDrag(square)) {
      this.svg.setPointerCapture(event.pointerId);
      event.preventDefault(); // no text selection or scrolling while a piece is held
    }
  }

  pointerMove(event) {
    const press = this.press;
    if (!press || !this.handlers.canDrag(press.square)) return;
    if (!press.ghost) {
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_THRESHOLD) return;
      const piece = this.state.position.pieces.get(press.square);
      if (!piece) return;
      press.ghost = pieceElement(piece, 0, 0, PALETTES[this.state.style] ?? PALETTES.tournament,
        this.state.kings ?? "stacked");
      press.ghost.classList.add("dragged");
      press.ghost.setAttribute("pointer-events", "none");
      this.svg.querySelector(`.piece[data-square="${press.square}"]`)?.setAttribute("opacity", "0.35");
      this.svg.append(press.ghost);
    }
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(this.svg.getScreenCTM().inverse());
    press.ghost.setAttribute("transform", `translate(${num(point.x)} ${num(point.y)})`);
  }

  pointerUp(event) {
    const press = this.press;
    if (!press) return;
    this.endPress();
    const square = this.squareFromPoint(event.clientX, event.clientY);
    if (press.ghost) {
      if (square !== null && square !== press.square) {
        this.motions.dropped(press.square, square); // the piece is there already: no slide
        this.handlers.drop(press.square, square);
      } else {
        this.render(this.state); // put the piece back
      }
    } else if (square === press.square) {
      this.handlers.activate(square);
    }
  }

  endPress() {
    if (this.press?.ghost) this.press.ghost.remove();
    this.press = null;
  }

  /**
   * The grid's keys (docs: the page's "Keyboard" help). Enter or Space picks up a piece and puts
   * it down on a target (a multi-jump: each landing square, or its last one when that tells the
   * capture); Escape puts it back; the arrows, Home and End (with Ctrl: the whole board) move the
   * focus between cells. The page's own keys (Left and Right for the moves, Home, End) wait
   * while the board has the focus: these take the event first.
   */
  keyDown(event) {
    const square = Number(event.target.dataset?.square);
    if (!square || event.altKey || event.metaKey) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.handlers.activate(square);
      return;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      this.handlers.cancel();
      return;
    }
    const [row, column] = this.cell(square);
    const whole = event.ctrlKey;
    const moves = {
      ArrowUp: [row - 1, column], ArrowDown: [row + 1, column],
      ArrowLeft: [row, column - 1], ArrowRight: [row, column + 1],
      Home: whole ? [0, 0] : [row, 0], End: whole ? [7, 3] : [row, 3],
    };
    if (!Object.hasOwn(moves, event.key)) return;
    event.preventDefault();
    const next = this.squareInCell(...moves[event.key]);
    if (next === null || next === undefined) return;
    for (const rect of this.svg.querySelectorAll("rect.square.playing")) {
      rect.setAttribute("tabindex", Number(rect.dataset.square) === next ? 0 : -1);
    }
    this.moveFocusRing(next);
    this.focus();
  }
}
