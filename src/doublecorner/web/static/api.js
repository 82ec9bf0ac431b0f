// The JSON API of docs/web-api.md, one function per endpoint.
//
// A change to a game carries the token of the seat that makes it (see
// tokens.js); tokens that come back in an answer are kept at once.

import { keepInvite, keepTokens, listedTokens, tokenFor } from "./tokens.js";

export class ApiError extends Error {
  /**
   * `message`: the server's English text; `body`: the error's JSON, with its `code`
   * (docs/web-api.md, which messages.js words in the reader's language) and the parts
   * of a refused move (reason, legal_moves, routes). The page's own failures to reach
   * the server have codes of the page's ("network", "analysis_stream") and no body.
   */
  constructor(message, status, body = null, code = body?.code ?? null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.code = typeof code === "string" ? code : null;
  }
}

/**
 * One request to the API: its JSON answer (null for a 204), or an ApiError; `token`: the
 * Authorization's bearer tokens, if any.
 */
export async function request(method, path, body, token = null) {
  const options = { method, headers: { Accept: "application/json" } };
  if (token) options.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ApiError(`cannot reach the server (${error.message})`, 0, null, "network");
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data?.error ?? (typeof data?.detail === "string" ? data.detail : null);
    if (message === null) {
      // Not an answer of the API (a proxy's page, say): the status is all there is.
      throw new ApiError(`${method} ${path} failed: ${response.status} ${response.statusText}`,
        response.status, data, "http");
    }
    const error = new ApiError(message, response.status, data);
    // A 429's Retry-After: the seconds to wait, which the account's forms say.
    error.retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw error;
  }
  return data;
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

/** Keep the tokens of a game that an answer hands out. */
function kept(answer) {
  if (answer?.tokens) keepTokens(answer.id, answer.tokens);
  if (answer?.invite) keepInvite(answer.id, answer.invite.path);
  return answer;
}

export const api = {
  createGame: async (options) => kept(await request("POST", "/api/games", options)),
  listGames: () => {
    // Without tokens the server still lists the games of the account signed in, if any.
    const tokens = listedTokens();
    return request("GET", "/api/games", undefined, tokens.length ? tokens.join(", ") : null);
  },
  getGame: (id) => request("GET", game(id), undefined, tokenFor(id)),
  move: (id, move, seat) => request("POST", `${game(id)}/moves`, { move }, tokenFor(id, seat)),
  takeback: (id, seat, action) => request("POST", `${game(id)}/takeback`,
    action ? { action } : undefined, tokenFor(id, seat)),
  join: async (id, secret) => kept(await request("POST", `${game(id)}/join`, { secret })),
  resign: (id, seat) => request("POST", `${game(id)}/resign`, undefined, tokenFor(id, seat)),
  draw: (id, seat, action) => request("POST", `${game(id)}/draw`, { action }, tokenFor(id, seat)),
  claimDraw: (id, seat) => request("POST", `${game(id)}/claim-draw`, undefined, tokenFor(id, seat)),
  importPdn: async (pdn) => {
    const answer = await request("POST", "/api/games/import", { pdn });
    for (const imported of answer.games) kept(imported);
    return answer;
  },
  deleteGame: (id) => request("DELETE", game(id), undefined, tokenFor(id)),
  pdnUrl: (id) => `${game(id)}/pdn`,
  // The game database of `serve --games-db` (404 when the server has none).
  // `game`: the game whose position it is (the server refuses one between people that goes on).
  explore: (fen, limit, game = null) => request("GET",
    `/api/explore?${new URLSearchParams(game ? { fen, limit, game } : { fen, limit })}`),
  storedGame: (id) => request("GET", `/api/games-db/${encodeURIComponent(id)}`),
  // Learning the rules (/learn): the lessons, and a move checked by the rules (nothing stored).
  learn: () => request("GET", "/api/learn"),
  checkMove: (fen, moves, move) => request("POST", "/api/rules/check", { fen, moves, move }),
  // Reviews (the server's whole-game analysis) and an imported game's own notes.
  startReview: (id) => request("POST", `${game(id)}/review`, undefined, tokenFor(id)),
  reviewStatus: (id) => request("GET", `${game(id)}/review`, undefined, tokenFor(id)),
  reviewPdnUrl: (id) => `${game(id)}/review.pdn`,
  notes: (id) => request("GET", `${game(id)}/notes`, undefined, tokenFor(id)),
  // Play between people: the lobby's seeks, challenges, rematches and profiles.
  postSeek: (terms) => request("POST", "/api/seeks", terms),
  cancelSeek: (id) => request("DELETE", `/api/seeks/${encodeURIComponent(id)}`),
  acceptSeek: (id) => request("POST", `/api/seeks/${encodeURIComponent(id)}/accept`),
  challenge: (terms) => request("POST", "/api/challenges", terms),
  answerChallenge: (id, action) => request("POST", `/api/challenges/${encodeURIComponent(id)}/${action}`),
  cancelChallenge: (id) => request("DELETE", `/api/challenges/${encodeURIComponent(id)}`),
  rematch: (id, seat, action) => request("POST", `${game(id)}/rematch`, { action }, tokenFor(id, seat)),
  profile: (name) => request("GET", `/api/users/${encodeURIComponent(name)}`),
  profileGames: (name, offset, limit) => request("GET",
    `/api/users/${encodeURIComponent(name)}/games?${new URLSearchParams({ offset, limit })}`),
  profilePdnUrl: (name) => `/api/users/${encodeURIComponent(name)}/games.pdn`,
};

/**
 * The live stream of one game: `follow(id)` connects (and reconnects after a
 * drop, each time getting the whole game first), `stop()` ends it; `onMessage`
 * gets each message of the server ({type: "game", event, game}).
 */
export class LiveSocket {
  constructor({ onMessage }) {
    this.onMessage = onMessage;
    this.id = null;
    this.socket = null;
    this.retry = null;
  }

  follow(id) {
    if (this.id === id && this.socket) return;
    this.stop();
    this.id = id;
    this.open();
  }

  open() {
    const id = this.id;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // A seat's token says whose stream it is (a player's, not a spectator's), as the
    // session does for an account's seat.
    const token = tokenFor(id);
    const query = token ? `?${new URLSearchParams({ token })}` : "";
    const socket = new WebSocket(`${scheme}://${location.host}/api/games/${encodeURIComponent(id)}/live${query}`);
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (this.socket === socket) this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // Dropped: connect again in a while; the first message resyncs the game.
      this.retry = setTimeout(() => { if (this.id === id) this.open(); }, 1000);
    });
  }

  stop() {
    clearTimeout(this.retry);
    const socket = this.socket;
    this.id = null;
    this.socket = null;
    socket?.close();
  }
}

/**
 * The analysis stream: `start(fen, moves)` and `stop()`; `onMessage` gets each
 * message of the server ({type: "info" | "done" | "error", ...}) and
 * `onClose` the end of the connection.
 */
export class AnalysisSocket {
  constructor({ onMessage, onClose }) {
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.socket = null;
    this.ready = null;
  }

  connect() {
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) return this.ready;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/analysis`);
    this.socket = socket;
    this.ready = new Promise((resolve, reject) => {
      socket.addEventListener("open", () => resolve(socket), { once: true });
      socket.addEventListener("error", () => reject(new ApiError("cannot open the analysis stream", 0, null, "analysis_stream")), { once: true });
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (this.socket === socket) this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket === socket) {
        this.socket = null;
        this.onClose();
      }
    });
    return this.ready;
  }

  /** Analyse the position `fen` after `moves`, of the game `game` if it is one's. */
  async start(fen, moves, game = null) {
    const socket = await this.connect();
    socket.send(JSON.stringify(game ? { action: "start", fen, moves, game } : { action: "start", fen, moves }));
  }

  stop() {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ action: "stop" }));
  }
}
