// Sentences the page builds from parts (moves, sides, what the server sent), worded by the
// message catalogue of the reader's language (i18n.js). The server's words reach the
// page as data and codes, which are turned into the catalogue's words here: the codes
// of its errors, the reasons a move or a game ended, its scores, its players' names.

import { inEnglish, make, showText, textOf, verbatim } from "./dom.js";
import { FenError, colorName } from "./geometry.js";
import { listOr, t } from "./i18n.js";

const has = (table, key) => typeof key === "string" && Object.hasOwn(table, key);

/** The catalogue's message for each error code of the API (docs/web-api.md) and of the page. */
const ERROR_MESSAGES = {
  illegal_move: "error.illegalMove",
  ambiguous_move: "error.ambiguousMove",
  invalid_move: "error.invalidMove",
  invalid_square: "error.invalidSquare",
  invalid_fen: "error.invalidFen",
  invalid_position: "error.invalidPosition",
  invalid_pdn: "error.invalidPdn",
  invalid_input: "error.invalidInput",
  bad_request: "error.badRequest",
  invalid_request: "error.invalidRequest",
  forbidden: "error.forbidden",
  not_found: "error.notFound",
  game_not_found: "error.gameNotFound",
  games_db_not_found: "error.gamesDbNotFound",
  not_allowed_now: "error.notAllowedNow",
  conflict: "error.conflict",
  method_not_allowed: "error.methodNotAllowed",
  too_slow: "error.tooSlow",
  too_large: "error.tooLarge",
  too_long: "error.tooLong",
  not_json: "error.notJson",
  wrong_host: "error.wrongHost",
  too_many_requests: "error.tooManyRequests",
  too_many_games: "error.tooManyGames",
  fair_play: "error.fairPlay",
  game_in_progress: "error.gameInProgress",
  too_many_reviews: "error.tooManyReviews",
  review_not_found: "error.reviewNotFound",
  not_signed_in: "error.notSignedIn",
  seek_not_found: "error.seekNotFound",
  challenge_not_found: "error.challengeNotFound",
  user_not_found: "error.userNotFound",
  own_seek: "error.ownSeek",
  not_your_seek: "error.notYourSeek",
  not_your_challenge: "error.notYourChallenge",
  cannot_challenge: "error.cannotChallenge",
  too_many_seeks: "error.tooManySeeks",
  too_many_challenges: "error.tooManyChallenges",
  server_error: "error.serverError",
  store_error: "error.storeError",
  games_db_error: "error.gamesDbError",
  engine_unavailable: "error.engineUnavailable",
  unavailable: "error.unavailable",
  // The page's own: the server could not be reached, or answered without the API's body.
  network: "error.network",
  analysis_stream: "error.analysisStream",
  http: "error.http",
};

/**
 * A failure in words: the catalogue's message for its code (`overrides` maps a code to
 * another key where the request says more, such as an import without a game), else the
 * server's own English text.
 */
export function describeError(error, overrides = {}) {
  if (error instanceof FenError) return t(error.key, error.params);
  const code = error?.code;
  const key = has(overrides, code) ? overrides[code] : has(ERROR_MESSAGES, code) ? ERROR_MESSAGES[code] : null;
  if (key) return t(key, { status: error.status });
  return inEnglish(error?.message ?? String(error));
}

/** The reasons the server gives for an illegal move (IllegalMoveError.reason). */
const MOVE_REASONS = { "a capture is compulsory": "move.reason.captureCompulsory" };

/**
 * A move the server refused (`body`: its error body), in words; `turn`, the side to move,
 * names who has no move when there is none.
 */
export function refusedMove(move, error, turn) {
  const body = error.body ?? {};
  if (error.code === "ambiguous_move" && Array.isArray(body.routes)) {
    return t("move.ambiguous", { move, routes: listOr(body.routes) });
  }
  if (error.code !== "illegal_move" || !Array.isArray(body.legal_moves)) return describeError(error);
  if (!body.legal_moves.length) return t("move.illegalNoMoves", { move, side: colorName(turn) });
  const moves = body.legal_moves.join(", ");
  if (!body.reason) return t("move.illegal", { move, moves });
  if (!has(MOVE_REASONS, body.reason)) return inEnglish(error.message);
  return t("move.illegalBecause", { move, reason: t(MOVE_REASONS[body.reason]), moves });
}

export const MESSAGES = {
  /** A click on a piece of the side to move that has no move. */
  pieceHasNoMove: () => t("move.pieceHasNoMove"),
  /** A click on a piece that may not move because another must capture. */
  captureIsCompulsory: (captures) => t("move.mustCapture", { moves: captures.join(", ") }),
  /** A click on a piece of the side not to move. */
  notTheSideToMove: (turn, owner) => t("move.notYourPiece", { owner: colorName(owner), turn: colorName(turn) }),
};

/** How a game ended (the server's `outcome.reason`): the message and whom it names. */
const ENDINGS = {
  "no legal moves": "ending.noMoves",
  "threefold repetition": "ending.repetition",
  "forty-move rule": "ending.fortyMoves",
  resignation: "ending.resigned",
  "draw agreed": "ending.agreed",
  "time forfeit": "ending.timeForfeit",
  abandonment: "ending.abandoned",
};

/** The sentence that says why a game ended; `loser` is the side that lost (null in a draw). */
export function endingReason(reason, loser) {
  if (!has(ENDINGS, reason)) return inEnglish(reason);
  return t(ENDINGS[reason], { loser: loser ? colorName(loser) : "" });
}

/** A score of the engine ("+0.25", "win in 13", "table loss") in the reader's words. */
export function scoreText(score) {
  const mate = /^(win|loss) in (\d+)$/.exec(score);
  if (mate) return t(mate[1] === "win" ? "score.winIn" : "score.lossIn", { count: Number(mate[2]) });
  if (score === "table win") return t("score.tableWin");
  if (score === "table loss") return t("score.tableLoss");
  return score; // a number of men, signed
}

// The names the server gives its players (engine/levels.py HUMAN_NAME, web/games.py ENGINE_NAME,
// web/account_record.py DELETED_PLAYER).
const ENGINE_AT_LEVEL = /^doublecorner \(level (\d+)\)$/;
const ENGINE_AT_SECONDS = /^doublecorner \(([\d.]+) s per move\)$/;

/** A player's name: the server's names for the human and the engine in words, any other as typed. */
export function playerName(name) {
  if (name === "human") return t("player.human");
  if (name === "deleted player") return t("player.deleted");
  const level = ENGINE_AT_LEVEL.exec(name);
  if (level) return t("player.engineLevel", { level: Number(level[1]) });
  const seconds = ENGINE_AT_SECONDS.exec(name);
  if (seconds) return t("player.engineSeconds", { seconds: Number(seconds[1]) });
  return verbatim(name);
}

/** The players of a game as text ("Ann – Bob"), for a sentence or an attribute. */
export function playersText(black, white) {
  return t("players", { black: textOf(playerName(black)), white: textOf(playerName(white)) });
}

/** The players of a game as an element: each name in words, or as typed (translate="no"). */
export function playersElement(black, white) {
  const name = (player) => {
    const element = make("span");
    showText(element, playerName(player));
    return element;
  };
  const element = make("span");
  element.append(name(black), t("players.between"), name(white));
  return element;
}
