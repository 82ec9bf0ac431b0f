// The notes an imported game keeps: its comments, NAGs and variations (GET /api/games/{id}/notes).
//
// Only imported games have notes, and they are analysis games: the page asks for
// the notes of an analysis game when it is shown, and again when its moves change
// (the server keeps the notes with the moves that still follow them). A game that
// had none never gains any, so it is asked once.

import { api } from "./api.js";

export class GameNotes {
  /**
   * @param {object} handlers {loaded()}: the notes of the game shown have come
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.key = null; // the game and moves the notes are for
    this.none = new Set(); // ids of games that have no notes
    this.comment = "";
    this.byPly = new Map(); // ply -> the move's notes ({ply, move, fen, comment, starting_comment, nags, variations})
  }

  /** Follow the notes of `game` (null: none shown). */
  follow(game) {
    const key = game ? `${game.id} ${game.moves.join(" ")}` : null;
    if (key === this.key) return;
    this.key = key;
    this.comment = "";
    this.byPly = new Map();
    if (game?.mode === "analysis" && !this.none.has(game.id)) this.load(game.id, key);
  }

  async load(id, key) {
    let notes;
    try {
      notes = await api.notes(id);
    } catch {
      return; // notes add to a game: it is shown without them
    }
    if (!notes.comment && !notes.moves.length) this.none.add(id);
    if (key !== this.key) return;
    this.comment = notes.comment;
    this.byPly = new Map(notes.moves.map((move) => [move.ply, move]));
    this.handlers.loaded();
  }
}
