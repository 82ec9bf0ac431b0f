// The game's sounds: a move, a capture, a crowning and the end of a game, each a short WAV that
// the project makes itself (tools/make_sounds.py writes static/sounds/ from a few lines of
// numpy). Off until the reader turns them on (Settings); played with <audio>, which needs no
// decoding step and plays as soon as the file is in the cache.

const NAMES = ["move", "capture", "crown", "end"];
const AFTER_MOVE_MS = 200; // the end's chime waits for the last move's sound (and slide)

export class Sounds {
  constructor() {
    this.on = false;
    this.players = new Map(); // name -> its <audio>, made on first use
  }

  /** Turn the sounds on or off; on, the files are fetched at once so the first move is heard. */
  setOn(on) {
    this.on = on;
    if (on) for (const name of NAMES) this.player(name);
  }

  player(name) {
    if (!this.players.has(name)) {
      const audio = new Audio(new URL(`sounds/${name}.wav`, document.baseURI).href);
      audio.preload = "auto";
      this.players.set(name, audio);
    }
    return this.players.get(name);
  }

  play(name, delay = 0) {
    if (!this.on) return;
    const start = () => {
      const audio = this.player(name);
      audio.currentTime = 0;
      // A browser that blocks sound before the reader has touched the page refuses: say nothing.
      audio.play()?.catch?.(() => {});
    };
    if (delay > 0) setTimeout(start, delay);
    else start();
  }

  /** The sound of a move shown on the board (motion.js's description: its captures, crowning). */
  playMove({ captured, crowned }) {
    this.play(crowned ? "crown" : captured.length ? "capture" : "move");
  }

  /** The end of a game: after the sound of the move that ended it. */
  playEnd() {
    this.play("end", AFTER_MOVE_MS);
  }
}
