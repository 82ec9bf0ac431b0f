// The page: one game at a time, kept on the server, drawn and played here.
//
// Every change of a game goes through the server (docs/web-api.md), which
// answers with the whole game; the page redraws from that answer. The only
// state of its own is what the person is looking at: the move shown, the
// half-entered move, the board's orientation and look.

import { AccountView } from "./account.js";
import { AnalysisPanel } from "./analysis.js";
import { changesInWords } from "./announce.js";
import { LiveSocket, api } from "./api.js";
import { BoardView } from "./board.js";
import { $, make, rewordMessage, setMessage, showText } from "./dom.js";
import { ExplorerPanel, isSameMove } from "./explorer.js";
import {
  STARTING_FEN, applyMove, colorName, formatFen, movePath, opponent, parseFen, replay,
} from "./geometry.js";
import {
  chosenLanguage, languagePicker, onLanguageChange, setLanguage, t,
} from "./i18n.js";
import { GameLibrary } from "./library.js";
import { LobbyPanel, playerLink } from "./lobby.js";
import {
  MESSAGES, describeError, endingReason, playerName, playersText, refusedMove, scoreText,
} from "./messages.js";
import { renderMoveList } from "./movelist.js";
import { GameNotes } from "./notes.js";
import { ReviewPanel } from "./review.js";
import { MoveInput } from "./moveinput.js";
import { changeText, ratingElement } from "./ratings.js";
import { prefersReducedMotion } from "./motion.js";
import { loadSettings, saveSettings } from "./settings.js";
import { SetupEditor } from "./setup.js";
import { Sounds } from "./sounds.js";
import { Tabs } from "./tabs.js";
import { forgetGame, forgetInvite, inviteOf, keepTokens, seatsOf, tokenFor } from "./tokens.js";

const LAST_GAME_KEY = "doublecorner.lastGame";

// Every word below comes from the catalogue: it is loaded before anything is drawn.
await setLanguage(chosenLanguage());

const state = {
  game: null,
  positions: [], // positions[i]: after i moves of the game, replayed from start_fen
  viewPly: null, // the move shown; null follows the game
  variation: null, // {key, ply, move, fen}: a move of an imported game's variation, shown read only
  flipped: false, // the person's turn of the board, on top of the mode's default
  settings: loadSettings(),
  busy: false, // a request is on its way to the server
  pending: null, // {move, position}: a move on its way to the server, shown already
  clockAt: 0, // performance.now() when game.clock was received
  clockAsked: false, // a resync was asked for when the running clock reached zero
  spectators: null, // how many watch the game shown, by its live stream (null: not known)
};

// The seats the signed-in account holds at each game, as the server said (its answers to
// GET and to the start of a game between accounts carry them): such a seat acts with the
// session, without a token here.
const accountSeats = new Map();

// Friend games are followed live: the other browser's changes arrive here.
const live = new LiveSocket({ onMessage: (message) => receiveLive(message) });

const input = new MoveInput();
const board = new BoardView($("board"), {
  activate: (square) => activate(square),
  drop: (from, to) => drop(from, to),
  canDrag: (square) => canMove() && input.canSelect(square),
  cancel: () => cancelMove(),
  moved: (move) => sounds.playMove(move),
});
const sounds = new Sounds();
// Moves, Analysis, Explorer, Games: the side panel's tabs.
const tabs = new Tabs($("side-tabs"));
const analysis = new AnalysisPanel();
const review = new ReviewPanel({ goTo: (ply) => goTo(ply), changed: () => renderMoves() });
const notes = new GameNotes({ loaded: () => renderMoves() });
const explorer = new ExplorerPanel({
  play: (move) => playFromExplorer(move),
  open: (id) => openStoredGame(id),
});
const setup = new SetupEditor({
  changed: () => render(),
  analyse: (fen) => createGame({ mode: "analysis", fen }).catch((error) => setMessage(() => describeError(error))),
  playFrom: (fen) => openNewGame(fen),
  cancel: () => {
    setup.close();
    setMessage("");
    refreshInput();
    render();
  },
});
const library = new GameLibrary({
  open: (id) => openGame(id),
  imported: (game) => showGame(game),
  deleted: (id) => {
    forgetGame(id);
    forgetInvite(id);
    if (state.game?.id !== id) return;
    state.game = null;
    tabs.choose("games");
    setMessage("");
    localStorage.removeItem(LAST_GAME_KEY);
    history.replaceState(null, "", location.pathname);
    render();
  },
});
// The lobby: seeks, challenges and games to watch; a game of this account that starts opens.
const lobby = new LobbyPanel({ open: (id) => openGame(id), current: () => state.game?.id });
// Who is signed in here (the saved games then include the account's, the lobby shows who
// posts), and the account view.
const account = new AccountView({
  changed: () => {
    accountSeats.clear();
    library.refresh();
    lobby.reconnect();
  },
});

// --- settings --------------------------------------------------------------

// The board's labels, look and kings, the sounds and the motion, each kept as it is changed.
const SETTING_FIELDS = { coordinates: "coordinates", "board-style": "style", "king-look": "kings" };
for (const [testid, name] of Object.entries(SETTING_FIELDS)) {
  $(testid).value = state.settings[name];
  $(testid).addEventListener("change", () => changeSetting(name, $(testid).value));
}
for (const name of ["sounds", "motion"]) {
  $(name).checked = state.settings[name];
  $(name).addEventListener("change", () => changeSetting(name, $(name).checked));
}
sounds.setOn(state.settings.sounds);
// With the system asking for less motion, nothing slides whatever the setting says: the page says so.
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");
function showMotionSetting() {
  $("motion").disabled = prefersReducedMotion();
  $("reduced-motion-note").hidden = !prefersReducedMotion();
}
reducedMotion?.addEventListener?.("change", showMotionSetting);
showMotionSetting();

function changeSetting(name, value) {
  state.settings[name] = value;
  saveSettings(state.settings);
  sounds.setOn(state.settings.sounds);
  render();
}

// The settings menu closes as a menu does: with Escape (the focus back on its summary) or a click elsewhere.
const settingsMenu = $("settings");
settingsMenu.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || !settingsMenu.open) return;
  settingsMenu.open = false;
  settingsMenu.querySelector("summary").focus();
});
document.addEventListener("click", (event) => {
  if (settingsMenu.open && !settingsMenu.contains(event.target)) settingsMenu.open = false;
});

// --- language ----------------------------------------------------------------

languagePicker($("language"));

// The static page is translated by i18n.js; what script wrote is written again.
onLanguageChange((lang) => {
  announce(""); // what was said was said in the other language; the next move is said in this one
  render();
  library.render();
  account.render();
  lobby.render();
  rewordMessage();
  renderNewGameError();
});

// --- what is shown -----------------------------------------------------------

function isLive() {
  if (state.variation) return false;
  return !state.game || state.viewPly === null || state.viewPly === state.game.ply;
}

function shownPly() {
  return isLive() ? state.game?.ply ?? 0 : state.viewPly;
}

function shownPosition() {
  if (setup.isOpen) return setup.position;
  if (state.pending) return state.pending.position;
  if (!state.game) return parseFen(STARTING_FEN);
  if (state.variation) return parseFen(state.variation.fen);
  if (isLive()) return parseFen(state.game.fen);
  return state.positions[state.viewPly];
}

/** The seats this browser holds at game `id`: by the tokens it keeps, and by its account. */
function seatsHere(id) {
  return [...new Set([...seatsOf(id), ...(accountSeats.get(id) ?? [])])];
}

/** This browser's side in a friend game (null: only watching). */
function friendSide() {
  const seats = state.game ? seatsHere(state.game.id) : [];
  return ["black", "white"].find((side) => seats.includes(side)) ?? null;
}

function isFlipped() {
  const game = state.game;
  const mine = game?.mode === "engine" ? game.human : game?.mode === "friend" ? friendSide() : null;
  const humanIsBlack = !setup.isOpen && mine === "black";
  return humanIsBlack !== state.flipped; // the human's side at the bottom
}

/** The seat of this browser that acts for `side` (a colour): the owner of an analysis, or that side's. */
function seatFor(side) {
  const seats = state.game ? seatsHere(state.game.id) : [];
  if (seats.includes("owner")) return "owner";
  return side && seats.includes(side) ? side : null;
}

/** A seat of this browser at the game shown (null: only watching). */
function anySeat() {
  return state.game ? seatsHere(state.game.id)[0] ?? null : null;
}

function canMove() {
  const game = state.game;
  if (!game || game.outcome || state.busy || setup.isOpen || !isLive()) return false;
  return seatFor(game.turn) !== null;
}

/** The side this browser plays now: the human against the engine, its own against a
 * friend, the side to move at one board. */
function humanSide() {
  const game = state.game;
  if (game.mode === "friend") return friendSide();
  return game.mode === "engine" ? game.human : game.turn;
}

/** Whether the engine's help waits for the end of `game`: against the engine, and between people
 * in two browsers (fair play: the server refuses it too, docs/web-api.md). */
function isHelpWithheld(game) {
  return !game.outcome && game.mode !== "analysis" && game.mode !== "two-player";
}

/** The position shown, for the analysis panel; null where analysis is not offered. */
function analysisTarget() {
  const game = state.game;
  if (!game || setup.isOpen || isHelpWithheld(game)) return null;
  if (state.variation) {
    return { fen: state.variation.fen, moves: [], turn: shownPosition().turn, game: game.id };
  }
  const ply = shownPly();
  return { fen: game.start_fen, moves: game.moves.slice(0, ply), turn: state.positions[ply].turn, game: game.id };
}

// --- drawing -----------------------------------------------------------------

function render() {
  document.body.dataset.style = state.settings.style;
  document.body.dataset.busy = String(state.busy);
  renderBoard();
  $("score-bar").dataset.black = isFlipped() ? "bottom" : "top"; // Black's share grows from Black's side
  renderPlayers();
  renderStatus();
  renderActions();
  renderMoves();
  analysis.show(analysisTarget());
  // The explorer is offered where analysis is (not against the engine while the game goes on).
  explorer.show(analysisTarget() ? formatFen(shownPosition()) : null, state.game?.id);
  const offered = Boolean(state.game && !setup.isOpen && state.game.ply && !isHelpWithheld(state.game));
  review.show(offered ? state.game : null, shownPly());
  $("fair-play-note").hidden = !(state.game && !setup.isOpen && isHelpWithheld(state.game)
    && state.game.mode !== "engine");
  $("setup-panel").hidden = !setup.isOpen;
  for (const testid of ["move-form", "game-actions"]) $(testid).hidden = setup.isOpen;
  document.querySelector(".moves-panel").hidden = setup.isOpen;
  $("flip").setAttribute("aria-pressed", String(state.flipped));
}

/** Draw the board; `hinted`: squares of pieces to ring for a moment (the pieces that can move). */
function renderBoard(hinted = []) {
  const position = shownPosition();
  const game = state.game;
  let lastMove = null;
  if (state.pending) lastMove = movePath(state.pending.move);
  else if (state.variation) lastMove = movePath(state.variation.move);
  else if (game && !setup.isOpen && shownPly() > 0) lastMove = movePath(game.moves[shownPly() - 1]);
  const live = canMove();
  board.render({
    position,
    flipped: isFlipped(),
    coordinates: state.settings.coordinates,
    style: state.settings.style,
    kings: state.settings.kings,
    animate: state.settings.motion,
    lastMove,
    mustCapture: live ? game.must_capture : [],
    selected: live ? input.selected : null,
    visited: live ? input.visited() : [],
    targets: live ? input.targets() : [],
    movable: live ? input.movable() : [],
    hinted: live ? hinted : [],
    label: t("board.labelToMove", { side: colorName(position.turn) }),
  });
}

function renderPlayer(element, color) {
  const game = state.game;
  const name = game && game[color] !== "?" ? game[color] : ""; // "?" is PDN for a name not known
  const swatch = make("span", { className: `swatch ${color}` });
  swatch.setAttribute("aria-hidden", "true");
  const label = make("span", { textContent: colorName(color) });
  const rating = game?.ratings?.[color] ?? null; // a player with an account
  if (name) {
    let named = make("span");
    if (rating) named = playerLink(name);
    else showText(named, playerName(name));
    label.append(t("player.between"), named);
  }
  const parts = [swatch, label];
  if (rating) {
    const shown = rating.after ?? rating; // after a rated game: the new rating, and its change
    parts.push(ratingElement(shown.rating, shown.provisional));
    if (rating.after) parts.push(make("span", { className: "rating-change", textContent: changeText(rating.rating, rating.after.rating) }));
  }
  if (game && !game.outcome && !setup.isOpen && shownPosition().turn === color) {
    parts.push(make("span", { className: "to-move", textContent: t("player.toMove") }));
  }
  element.replaceChildren(...parts.flatMap((part, index) => (index ? [" ", part] : [part])));
}

function renderPlayers() {
  const bottom = isFlipped() ? "black" : "white";
  renderPlayer($("player-bottom"), bottom);
  renderPlayer($("player-top"), opponent(bottom));
}

/** The headline of the status for a game going on: whose move, and whose that is for this browser. */
function turnHeadline(game) {
  const side = colorName(game.turn);
  if (game.mode === "engine") return t(game.turn === game.human ? "status.yourMove" : "status.enginesMove", { side });
  if (game.mode === "friend" && friendSide()) {
    return t(game.turn === friendSide() ? "status.yourMove" : "status.opponentsMove", { side });
  }
  return t("status.toMove", { side });
}

/** The status: a headline and a detail (a string of the catalogue's, or the server's words). */
function statusText() {
  const game = state.game;
  if (setup.isOpen) return [t("status.setup"), t("status.toMove", { side: colorName(setup.position.turn) })];
  if (!game) return [t("status.noGame"), t("status.noGameHint")];
  let headline;
  let detail = "";
  if (game.outcome) {
    const { winner, result } = game.outcome;
    headline = winner ? t("status.won", { winner: colorName(winner), result }) : t("status.drawn", { result });
    detail = endingReason(game.outcome.reason, winner ? opponent(winner) : null);
  } else if (state.busy && game.mode === "engine") {
    headline = t("status.engineThinking");
  } else {
    headline = turnHeadline(game);
    if (game.must_capture.length) detail = t("status.mustCapture");
    if (game.draw_offer) detail = t("status.drawOffered", { side: colorName(game.draw_offer) });
    if (game.takeback_request) detail = t("status.takebackAsked", { side: colorName(game.takeback_request) });
  }
  if (game.outcome && game.rematch_offer) detail = t("status.rematchOffered", { side: colorName(game.rematch_offer) });
  if (!isLive()) detail = t("status.lookingBack", { ply: state.viewPly, total: game.ply });
  if (state.variation) detail = t("status.variation", { move: state.variation.move });
  return [headline, detail];
}

function renderStatus() {
  const status = $("status");
  const [headline, detail] = statusText();
  const parts = [headline];
  if (detail) {
    const element = make("span", { className: "detail" });
    showText(element, detail);
    parts.push(element);
  }
  status.replaceChildren(...parts);
  status.dataset.over = String(Boolean(state.game?.outcome && !setup.isOpen));
}

function renderActions() {
  const game = state.game;
  const playing = Boolean(game && !game.outcome && game.mode !== "analysis" && anySeat());
  const idle = !state.busy && Boolean(anySeat());
  const offer = playing ? game.draw_offer : null;
  const friend = game?.mode === "friend";
  const asked = friend ? game.takeback_request : null; // a takeback asked, by this side
  const canAnswerTakeback = Boolean(asked && friendSide() && asked !== friendSide());
  $("takeback").disabled = !(game && game.ply > 0 && idle && !asked);
  $("takeback").hidden = canAnswerTakeback || Boolean(game?.rated); // a rated game takes none back
  $("takeback").textContent = friend ? t("actions.askTakeback") : t("actions.takeback");
  $("accept-takeback").hidden = !canAnswerTakeback;
  $("decline-takeback").hidden = !canAnswerTakeback;
  for (const testid of ["accept-takeback", "decline-takeback"]) $(testid).disabled = !idle;
  // An offer is answered by the other side, when this browser holds its seat.
  const canAnswerOffer = Boolean(offer && seatFor(opponent(offer)));
  $("offer-draw").disabled = !(playing && idle);
  $("offer-draw").hidden = Boolean(offer) || game?.mode === "analysis";
  $("accept-draw").hidden = !canAnswerOffer;
  $("decline-draw").hidden = !canAnswerOffer;
  if (offer) $("accept-draw").textContent = t("actions.acceptDraw", { side: colorName(opponent(offer)) });
  // A draw by repetition or the 40-move rule ends a game only when the side to move
  // claims it; the button shows where this browser holds that side's seat.
  const canClaim = Boolean(playing && game.can_claim_draw && seatFor(game.turn));
  $("claim-draw").hidden = !canClaim;
  $("claim-draw").disabled = !idle;
  $("claim-draw").textContent = canClaim && game.mode === "two-player"
    ? t("actions.sideClaimsDraw", { side: colorName(game.turn) }) : t("actions.claimDraw");
  $("resign").disabled = !(playing && idle);
  $("resign").hidden = game?.mode === "analysis";
  $("resign").textContent = playing && game.mode === "two-player"
    ? t("actions.sideResigns", { side: colorName(game.turn) }) : t("actions.resign");
  // A finished game between two people: a rematch is offered, and the other side answers.
  const between = Boolean(game?.outcome && friend && friendSide() && !inviteOf(game.id) && !game.rematch);
  const rematchOffer = between ? game.rematch_offer : null;
  $("offer-rematch").hidden = !between || Boolean(rematchOffer);
  $("accept-rematch").hidden = !rematchOffer || rematchOffer === friendSide();
  $("decline-rematch").hidden = $("accept-rematch").hidden;
  for (const testid of ["offer-rematch", "accept-rematch", "decline-rematch"]) $(testid).disabled = !idle;
  $("spectators").hidden = state.spectators === null || !friend || setup.isOpen;
  if (state.spectators !== null) $("spectators").textContent = t("spectators.count", { count: state.spectators });
  const invite = game?.mode === "friend" ? inviteOf(game.id) : null;
  $("invite-panel").hidden = !invite || setup.isOpen;
  if (invite) $("invite-link").value = new URL(invite, location.href).href;
  renderClocks();
  const exportLink = $("export-pdn");
  if (game) {
    exportLink.href = api.pdnUrl(game.id);
    exportLink.removeAttribute("aria-disabled");
    exportLink.removeAttribute("tabindex");
  } else {
    exportLink.removeAttribute("href");
    exportLink.setAttribute("aria-disabled", "true");
    exportLink.setAttribute("tabindex", "-1");
  }
  const browsing = game && !setup.isOpen;
  for (const testid of ["nav-first", "nav-prev"]) $(testid).disabled = !browsing || shownPly() === 0;
  for (const testid of ["nav-next", "nav-last"]) $(testid).disabled = !browsing || isLive();
  $("move-input").disabled = !canMove();
  $("move-form").querySelector("button").disabled = !canMove();
}

function clockText(seconds) {
  const whole = Math.ceil(Math.max(0, seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, "0")}`;
}

/** The clocks of a friend game, counted down here from the server's last word. */
function renderClocks() {
  const clock = state.game?.clock;
  $("clocks").hidden = !clock || setup.isOpen;
  if (!clock) return;
  const elapsed = (performance.now() - state.clockAt) / 1000;
  for (const side of ["black", "white"]) {
    const running = clock.running === side;
    const left = clock[side] - (running ? elapsed : 0);
    const element = $(`clock-${side}`);
    element.textContent = t("clock.side", { side: colorName(side), time: clockText(left) });
    element.dataset.running = String(running);
    if (running && left <= 0 && !state.clockAsked) {
      state.clockAsked = true; // the server says whether the flag fell
      openGame(state.game.id);
    }
  }
}

setInterval(() => { if (state.game?.clock?.running) renderClocks(); }, 250);

function renderMoves() {
  const game = state.game;
  if (!game) {
    $("move-list").replaceChildren();
    return;
  }
  const moves = state.pending ? [...game.moves, state.pending.move] : game.moves;
  renderMoveList($("move-list"), {
    moves,
    firstTurn: state.positions[0].turn,
    current: state.pending ? moves.length : shownPly(),
    result: game.outcome?.result,
    goTo,
    marks: review.marks(),
    notes,
    variation: state.variation?.key ?? null,
    showVariation,
  });
}

/** Show a position of an imported game's variation, read only. */
function showVariation(move) {
  if (!state.game || state.busy) return;
  state.variation = move;
  state.viewPly = Math.min(move.ply - 1, state.game.ply);
  refreshInput();
  setMessage("");
  render();
}

// --- playing ---------------------------------------------------------------

function refreshInput() {
  input.setLegalMoves(canMove() ? state.game.legal_moves : []);
}

function activate(square) {
  if (setup.isOpen) {
    setup.click(square);
    return;
  }
  if (!canMove()) {
    if (state.game && !isLive()) setMessage(() => t("move.lookingBack"), "info");
    return;
  }
  const result = input.click(square);
  if (result.kind === "move") {
    submitMove(result.move);
    return;
  }
  let hinted = [];
  if (result.kind === "ambiguous") {
    setMessage(() => t("move.severalEndThere", { moves: result.moves.join(", ") }), "info");
  } else if (result.kind === "select" || result.kind === "step") {
    setMessage("");
  } else if (shownPosition().pieces.has(square) && !input.canSelect(square)) {
    // A piece that cannot move: say why, and ring the pieces that can.
    const why = whyNoMove(square);
    setMessage(why, "info");
    hinted = input.movable();
  }
  renderBoard(hinted);
}

/** Escape on the board: the piece picked up goes back, and nothing is played. */
function cancelMove() {
  if (input.selected === null) return;
  input.reset();
  setMessage("");
  renderBoard();
  announce(t("announce.cancelled"));
}

/** Say `text` to screen readers, through the polite live region beside the board. */
function announce(text) {
  $("announcer").textContent = text;
}

/** Why the piece on `square` cannot move now (the side to move can: canMove()), as a function
 * that words it. */
function whyNoMove(square) {
  const game = state.game;
  const piece = shownPosition().pieces.get(square);
  if (piece.color !== game.turn) return () => MESSAGES.notTheSideToMove(game.turn, piece.color);
  const captures = game.legal_moves.map((entry) => entry.move);
  if (game.must_capture.length) return () => MESSAGES.captureIsCompulsory(captures);
  return () => MESSAGES.pieceHasNoMove();
}

function drop(from, to) {
  if (!canMove()) return;
  input.reset();
  if (input.click(from).kind !== "select") {
    renderBoard();
    return;
  }
  activate(to);
  if (input.selected !== null && !input.targets().length) input.reset();
}

function submitMove(move) {
  const game = state.game;
  const entry = game.legal_moves.find((legal) => legal.move === move);
  if (entry) state.pending = { move: entry.move, position: applyMove(parseFen(game.fen), entry.path) };
  return request(() => api.move(game.id, move, seatFor(game.turn)), (answer) => {
    const reply = answer.engine_reply;
    setMessage(reply ? () => t("engine.replied", { move: reply.move, depth: reply.depth, score: scoreText(reply.score) })
      : "", "info");
  }, (error) => refusedMove(move, error, game.turn));
}

/**
 * Run one request to the server with the page marked busy, then show the game it returns;
 * `describe` words a refusal.
 */
async function request(call, after = null, describe = (error) => describeError(error)) {
  state.busy = true;
  input.reset();
  render();
  try {
    const answer = await call();
    state.pending = null;
    state.busy = false;
    showGame(answer);
    after?.(answer);
  } catch (error) {
    state.pending = null;
    state.busy = false;
    setMessage(() => describe(error));
    render();
  }
}

/**
 * Show a game the server sent. The moves played since the same game was last shown are said
 * in the live region; `started`: a game just made, whose moves so far (the engine's first) are.
 */
function showGame(game, { started = false } = {}) {
  const before = state.game?.id === game.id ? state.game : null;
  if (game.seats) accountSeats.set(game.id, game.seats);
  if (!before) {
    state.spectators = null;
    state.flipped = false;
    analysis.stop();
    setMessage(""); // what was said of the game left behind; callers say what is new after this
    // A game comes with its moves; an analysis board just made, with its analysis.
    tabs.choose(started && game.mode === "analysis" ? "analysis" : "moves");
  }
  if (game.mode === "friend") live.follow(game.id);
  else live.stop();
  setup.close();
  state.game = game;
  state.clockAt = performance.now();
  state.clockAsked = false;
  state.positions = replay(game.start_fen, game.moves);
  state.viewPly = null;
  if (before || started) {
    const words = changesInWords(before, game, state.positions);
    if (words) announce(words);
    if (game.outcome && !before?.outcome) sounds.playEnd(); // its moves sound as the board shows them
  }
  state.variation = null;
  notes.follow(game);
  refreshInput();
  localStorage.setItem(LAST_GAME_KEY, game.id);
  // The account view keeps its address while a game it hides changes (a friend's move).
  if (!account.isOpen && location.hash !== `#game=${game.id}`) history.replaceState(null, "", `#game=${encodeURIComponent(game.id)}`);
  render();
  library.mark(game.id);
  library.refresh();
  if (before && !before.rematch && game.rematch) followRematch(game);
}

/** The game shown has had its rematch (the other player accepted it): go there. A seat
 * this browser holds by its token holds the other side there with the same token. */
function followRematch(game) {
  copyRematchTokens(game.id, game.rematch);
  const side = friendSide();
  openGame(game.rematch).then(() => {
    if (side) setMessage(() => t("rematch.started", { side: colorName(opponent(side)) }), "info");
  });
}

function copyRematchTokens(oldId, newId) {
  for (const seat of seatsOf(oldId).filter((held) => held !== "owner")) {
    keepTokens(newId, { [opponent(seat)]: tokenFor(oldId, seat) });
  }
}

function goTo(ply) {
  const game = state.game;
  if (!game || state.busy || setup.isOpen) return;
  state.viewPly = Math.max(0, Math.min(ply, game.ply));
  if (state.viewPly === game.ply) state.viewPly = null;
  state.variation = null;
  refreshInput();
  setMessage("");
  render();
}

/** A message of the live stream: the other browser's change, or the game again after a reconnect. */
function receiveLive(message) {
  if (message.type === "spectators") {
    state.spectators = message.count;
    renderActions();
    return;
  }
  if (message.type !== "game" || message.game.id !== state.game?.id) return;
  if (message.event === "deleted") {
    setMessage(() => t("live.deleted"));
    return;
  }
  if (message.event === "joined") {
    forgetInvite(message.game.id);
    setMessage(() => t("live.joined"), "info");
  }
  // While a request of ours is on its way its answer will show the game.
  if (!state.busy) showGame(message.game);
}

/** A move of the explorer: played when a move can be, a step forward when it is the game's next. */
function playFromExplorer(text) {
  const game = state.game;
  if (!game) return;
  if (canMove()) {
    const legal = game.legal_moves.find((entry) => isSameMove(text, entry.move));
    submitMove(legal?.move ?? text);
    return;
  }
  const next = isLive() ? null : game.moves[shownPly()];
  if (next && isSameMove(text, next)) {
    goTo(shownPly() + 1);
  } else if (!isLive()) {
    setMessage(() => t("move.lookingBack"), "info");
  } else if (!state.busy) {
    setMessage(() => (game.outcome ? t("move.gameOver") : t("move.notYourMove")), "info");
  }
}

/**
 * A game of the server's game database, opened on the board: imported as an
 * analysis game of this browser (so it is kept, exported and analysed like any
 * other) and shown at the position the explorer was showing.
 */
function openStoredGame(id) {
  const fen = explorer.fen;
  return request(async () => {
    const stored = await api.storedGame(id);
    const { games } = await api.importPdn(stored.pdn);
    return games[0];
  }, (game) => {
    const ply = state.positions.findIndex((position) => formatFen(position) === fen);
    if (ply >= 0) goTo(ply);
    tabs.choose("explorer"); // opened from there: the explorer goes on with it
    setMessage(() => t("explorer.opened", { id: String(id), players: playersText(game.black, game.white) }), "info");
  });
}

async function openGame(id) {
  try {
    const game = await api.getGame(id);
    setMessage("");
    showGame(game);
  } catch (error) {
    setMessage(() => describeError(error));
    if (error.status === 404 && localStorage.getItem(LAST_GAME_KEY) === id) localStorage.removeItem(LAST_GAME_KEY);
  }
}

// --- controls ------------------------------------------------------------------

$("takeback").addEventListener("click", () => {
  const game = state.game;
  if (game.mode === "friend") {
    request(() => api.takeback(game.id, friendSide(), "ask"),
      () => setMessage(() => t("takeback.asked"), "info"));
    return;
  }
  request(() => api.takeback(game.id, anySeat()), () => setMessage(() => t("takeback.done"), "info"));
});

for (const action of ["accept", "decline"]) {
  $(`${action}-takeback`).addEventListener("click", () => {
    request(() => api.takeback(state.game.id, friendSide(), action),
      () => setMessage(() => (action === "accept" ? t("takeback.done") : t("takeback.refused")), "info"));
  });
}

$("copy-invite").addEventListener("click", async () => {
  $("invite-link").select();
  try {
    await navigator.clipboard.writeText($("invite-link").value);
    setMessage(() => t("invite.copied"), "info");
  } catch {
    setMessage(() => t("invite.copyByHand"), "info");
  }
});

$("offer-draw").addEventListener("click", () => {
  const game = state.game;
  request(() => api.draw(game.id, seatFor(humanSide()), "offer"), (answer) => {
    if (game.mode !== "engine") setMessage("");
    else setMessage(() => (answer.outcome ? t("engine.acceptsDraw") : t("engine.declinesDraw")), "info");
  });
});

for (const action of ["accept", "decline"]) {
  $(`${action}-draw`).addEventListener("click", () => {
    const game = state.game;
    request(() => api.draw(game.id, seatFor(opponent(game.draw_offer)), action));
  });
}

$("resign").addEventListener("click", () => request(() => api.resign(state.game.id, seatFor(humanSide()))));

for (const action of ["offer", "accept", "decline"]) {
  $(`${action}-rematch`).addEventListener("click", () => {
    const old = state.game;
    const side = friendSide();
    request(async () => {
      const answer = await api.rematch(old.id, side, action);
      if (answer.id !== old.id) copyRematchTokens(old.id, answer.id); // accepted: the new game
      return answer;
    }, (answer) => {
      if (answer.id !== old.id) setMessage(() => t("rematch.started", { side: colorName(opponent(side)) }), "info");
      else if (action === "offer") setMessage(() => t("rematch.offered"), "info");
    });
  });
}

$("claim-draw").addEventListener("click", () => request(() => api.claimDraw(state.game.id, seatFor(state.game.turn))));

$("flip").addEventListener("click", () => {
  state.flipped = !state.flipped;
  render();
});

const NAVIGATION = {
  "nav-first": () => goTo(0),
  "nav-prev": () => goTo(shownPly() - 1),
  "nav-next": () => goTo(shownPly() + 1),
  "nav-last": () => goTo(Infinity),
};
for (const [testid, go] of Object.entries(NAVIGATION)) $(testid).addEventListener("click", go);
const NAVIGATION_KEYS = { ArrowLeft: "nav-prev", ArrowRight: "nav-next", Home: "nav-first", End: "nav-last" };

document.addEventListener("keydown", (event) => {
  // The board's squares, fields and dialogs have their own use for these keys.
  if (event.target.closest?.("input, textarea, select, dialog, svg") || event.altKey || event.ctrlKey
    || event.metaKey) return;
  const testid = NAVIGATION_KEYS[event.key];
  if (testid && state.game && !account.isOpen) {
    event.preventDefault();
    NAVIGATION[testid]();
  }
});

// The skip link puts the keyboard on the board itself (its square that has the tab stop).
document.querySelector(".skip-link").addEventListener("click", (event) => {
  event.preventDefault();
  board.focus();
});

$("move-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("move-input").value.trim();
  if (!text || !canMove()) return;
  $("move-input").value = "";
  submitMove(text);
});

$("open-setup").addEventListener("click", () => {
  account.close();
  analysis.stop();
  setMessage("");
  setup.open(shownPosition());
  render();
});

// --- new game --------------------------------------------------------------

const dialog = $("new-game-dialog");
const newGameForm = $("new-game-form");

let newGameError = null; // the server's refusal of the dialog's game, while it is shown

function renderNewGameError() {
  showText($("new-game-error"), newGameError ? describeError(newGameError) : "");
}

function openNewGame(fen = "") {
  newGameError = null;
  renderNewGameError();
  newGameForm.elements.fen.value = fen;
  syncNewGameForm();
  dialog.showModal();
}

/** The dialog shows the options of the mode chosen only: so it fits a low window. */
function syncNewGameForm() {
  for (const mode of ["engine", "friend"]) {
    const options = newGameForm.querySelector(`.${mode}-options`);
    options.disabled = newGameForm.elements.mode.value !== mode;
    options.hidden = options.disabled;
  }
}

async function createGame(options) {
  const game = await api.createGame(options);
  account.close(); // a new game is played on the board
  showGame(game, { started: true });
  const reply = game.engine_reply;
  setMessage(reply ? () => t("engine.played", { move: reply.move }) : "", "info");
}

newGameForm.addEventListener("change", syncNewGameForm);
$("new-game").addEventListener("click", () => openNewGame());

function showLobby() {
  if (dialog.open) dialog.close();
  account.close();
  lobby.focus();
}

$("open-lobby").addEventListener("click", showLobby);
$("dialog-lobby").addEventListener("click", showLobby);

newGameForm.addEventListener("submit", async (event) => {
  if (event.submitter?.value !== "start") return; // Cancel closes the dialog
  event.preventDefault();
  const fields = newGameForm.elements;
  const options = { mode: fields.mode.value };
  if (options.mode === "engine") {
    const human = fields.human.value;
    options.human = human === "random" ? (Math.random() < 0.5 ? "black" : "white") : human;
    options.level = Number(fields.level.value);
  }
  if (options.mode === "friend") {
    options.human = fields.friendSide.value;
    const minutes = Number(fields.clockMinutes.value);
    if (minutes > 0) options.clock = { minutes, increment: Number(fields.clockIncrement.value) || 0 };
  }
  if (fields.fen.value.trim()) options.fen = fields.fen.value.trim();
  const startButton = $("start-game");
  startButton.disabled = true;
  try {
    await createGame(options);
    dialog.close();
  } catch (error) {
    newGameError = error;
    renderNewGameError();
  } finally {
    startButton.disabled = false;
  }
});

// --- start -------------------------------------------------------------------

function gameIdFromHash() {
  const match = /^#game=(.+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

/** Take the seat an invite link (#join=ID.SECRET) gives, once; a used link shows the game only. */
async function joinFromHash() {
  const match = /^#join=([^.]+)\.(.+)$/.exec(location.hash);
  if (!match) return false;
  const [id, secret] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
  history.replaceState(null, "", `#game=${encodeURIComponent(id)}`); // the secret leaves the address
  try {
    const game = await api.join(id, secret);
    showGame(game);
    const side = friendSide();
    setMessage(() => t("invite.joined", { side: colorName(side) }), "info");
  } catch (error) {
    await openGame(id);
    setMessage(() => (error.status === 403 ? t("invite.used") : describeError(error)));
  }
  return true;
}

window.addEventListener("hashchange", async () => {
  if (await joinFromHash()) return;
  const id = gameIdFromHash();
  if (id && id !== state.game?.id) openGame(id);
});

async function start() {
  render();
  lobby.render();
  lobby.connect();
  const accountKnown = account.start(); // at #account, the account view shows at once
  const joined = await joinFromHash();
  const id = joined ? null : gameIdFromHash() ?? localStorage.getItem(LAST_GAME_KEY);
  if (id) await openGame(id);
  if (!state.game) {
    tabs.choose("games"); // no game to show: the saved ones, and the import
    await library.refresh();
    if (!account.isOpen) {
      history.replaceState(null, "", location.pathname);
      openNewGame();
    }
  }
  await accountKnown;
  document.body.dataset.ready = "true";
}

start();
