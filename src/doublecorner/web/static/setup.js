// The position editor: pieces placed on the board by clicks, or a FEN pasted.

import { $, setMessage } from "./dom.js";
import { describeError } from "./messages.js";
import { STARTING_FEN, formatFen, parseFen } from "./geometry.js";

export class SetupEditor {
  /**
   * @param {object} handlers {changed(), analyse(fen), playFrom(fen), cancel()}
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.position = null; // null while the editor is closed
    $("setup-turn").addEventListener("change", () => this.change(() => {
      this.position.turn = $("setup-turn").value;
    }));
    $("setup-start").addEventListener("click", () => this.change(() => {
      this.position = parseFen(STARTING_FEN);
    }));
    $("setup-clear").addEventListener("click", () => this.change(() => {
      this.position = { turn: this.position.turn, pieces: new Map() };
    }));
    $("fen-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.change(() => {
        try {
          this.position = parseFen($("setup-fen").value);
          setMessage("");
        } catch (error) {
          setMessage(() => describeError(error));
        }
      });
    });
    $("setup-analyse").addEventListener("click", () => handlers.analyse(formatFen(this.position)));
    $("setup-play").addEventListener("click", () => handlers.playFrom(formatFen(this.position)));
    $("setup-cancel").addEventListener("click", () => handlers.cancel());
  }

  get isOpen() {
    return this.position !== null;
  }

  open(position) {
    this.position = { turn: position.turn, pieces: new Map(position.pieces) };
    this.sync();
  }

  close() {
    this.position = null;
  }

  /** A click on a square: put the chosen piece there, or take off the same piece. */
  click(square) {
    this.change(() => {
      const tool = document.querySelector('input[name="setup-tool"]:checked').value;
      const pieces = this.position.pieces;
      if (tool === "empty") {
        pieces.delete(square);
        return;
      }
      const [color, kind] = tool.split("-");
      // A man on the row where it would be crowned is a king.
      const crowned = (color === "black" && square >= 29) || (color === "white" && square <= 4);
      const piece = { color, king: kind === "king" || crowned };
      const old = pieces.get(square);
      if (old && old.color === piece.color && old.king === piece.king) pieces.delete(square);
      else pieces.set(square, piece);
    });
  }

  change(edit) {
    edit();
    this.sync();
    this.handlers.changed();
  }

  sync() {
    $("setup-turn").value = this.position.turn;
    $("setup-fen").value = formatFen(this.position);
  }
}
