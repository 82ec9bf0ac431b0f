// The seats this browser holds: the token of each seat of each game it made or joined.
//
// The server hands out a game's tokens once, in the answer that creates the
// game (or lets a friend join it), and keeps only their hashes: they live
// here, in localStorage, and go with every request that changes the game
// (Authorization: Bearer TOKEN). The list of saved games is the list of games
// whose tokens are here.

const TOKENS_KEY = "doublecorner.tokens";
const MAX_LISTED = 200; // the server reads at most this many tokens in one request

function load() {
  try {
    const stored = JSON.parse(localStorage.getItem(TOKENS_KEY) ?? "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return {};
  }
}

function save(all) {
  localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
}

/** Keep the tokens ({seat: token}) the server gave for game `id`; the newest game goes last. */
export function keepTokens(id, tokens) {
  if (!tokens) return;
  const all = load();
  const merged = { ...(all[id] ?? {}), ...tokens };
  delete all[id];
  all[id] = merged;
  save(all);
}

/** The seats ("black", "white", "owner") this browser holds at game `id`. */
export function seatsOf(id) {
  return Object.keys(load()[id] ?? {});
}

/** The token of `seat` at game `id` (any seat of the game when `seat` is null), or null. */
export function tokenFor(id, seat = null) {
  const tokens = load()[id] ?? {};
  if (seat) return tokens[seat] ?? null;
  return Object.values(tokens)[0] ?? null;
}

export function forgetGame(id) {
  const all = load();
  delete all[id];
  save(all);
}

/** The distinct tokens held, those of the newest games first, for the list of saved games. */
export function listedTokens() {
  const tokens = [];
  for (const seats of Object.values(load()).reverse()) {
    for (const token of Object.values(seats)) if (!tokens.includes(token)) tokens.push(token);
  }
  return tokens.slice(0, MAX_LISTED);
}

const INVITES_KEY = "doublecorner.invites";

function loadInvites() {
  try {
    const stored = JSON.parse(localStorage.getItem(INVITES_KEY) ?? "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return {};
  }
}

/** Keep the invite link (its path) of a friend game this browser made, until the friend joins. */
export function keepInvite(id, path) {
  localStorage.setItem(INVITES_KEY, JSON.stringify({ ...loadInvites(), [id]: path }));
}

export function inviteOf(id) {
  return loadInvites()[id] ?? null;
}

export function forgetInvite(id) {
  const all = loadInvites();
  delete all[id];
  localStorage.setItem(INVITES_KEY, JSON.stringify(all));
}
