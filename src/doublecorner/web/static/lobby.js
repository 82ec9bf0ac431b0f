// The lobby panel: post a seek or challenge a player, see the open seeks and your challenges
// live, accept one, and the games in progress to watch (docs/web-api.md, "Lobby").
//
// The lobby socket (WS /api/lobby) sends everything there is on connecting, then each
// change; a dropped socket connects again and is sent everything anew. Posting,
// accepting and challenging need an account (the socket says who is signed in); anyone
// sees the seeks and may watch. When a game of this account starts (its seek or challenge
// accepted, here or in another browser) the page goes to it.

import { api } from "./api.js";
import { $, make, setMessage, showText, verbatim } from "./dom.js";
import { colorName, opponent } from "./geometry.js";
import { t } from "./i18n.js";
import { describeError, playerName } from "./messages.js";
import { ratingElement } from "./ratings.js";

const RECONNECT_MS = 2000;

/** A player's name as a link to their profile (an account's), or as the server names them. */
export function playerLink(name) {
  const link = make("a", { className: "player-name", href: `/u/${encodeURIComponent(name)}` });
  showText(link, verbatim(name));
  return link;
}

/** A player of a list ({name, rating, provisional}): the name, and the rating if any. */
function playerParts(player) {
  if (player.rating === null) {
    const named = make("span");
    showText(named, playerName(player.name));
    return [named];
  }
  return [playerLink(player.name), " ", ratingElement(player.rating, player.provisional)];
}

const timeControl = (game) => `${game.minutes}+${game.increment}`;

/** The side this browser's account plays in a seek or challenge whose author plays `color`. */
function sideWords(color, isAuthor) {
  if (color === "random") return t("lobby.sideRandom");
  return t("lobby.youPlay", { side: colorName(isAuthor ? color : opponent(color)) });
}

/** Parts joined with " · " (data, not words). */
function joined(...groups) {
  return groups.flatMap((group, index) => (index ? [" · ", ...group] : group));
}

function button(testid, key, action) {
  const element = make("button", { type: "button", textContent: t(key) });
  element.dataset.testid = testid;
  element.addEventListener("click", action);
  return element;
}

export class LobbyPanel {
  /**
   * @param {object} handlers {open(id): show a game; current(): the id of the game shown}.
   */
  constructor({ open, current }) {
    this.open = open;
    this.current = current;
    this.socket = null;
    this.retry = null;
    this.connected = false;
    this.you = null; // {name, rating, provisional}: the account signed in, per the socket
    this.seeks = new Map();
    this.challenges = new Map();
    this.games = [];
    $("seek-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.post();
    });
    $("send-challenge").addEventListener("click", () => this.challenge());
  }

  // --- the socket ------------------------------------------------------------------

  connect() {
    clearTimeout(this.retry);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/lobby`);
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(message);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.connected = false;
      this.render();
      this.retry = setTimeout(() => this.connect(), RECONNECT_MS);
    });
  }

  /** Connect again: who is signed in here changed, and the lobby shows it. */
  reconnect() {
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.connect();
  }

  receive(message) {
    if (message.type === "lobby") {
      this.connected = true;
      this.you = message.you;
      this.seeks = new Map(message.seeks.map((seek) => [seek.id, seek]));
      this.challenges = new Map(message.challenges.map((challenge) => [challenge.id, challenge]));
      this.games = message.games;
    } else if (message.type === "seek") {
      if (message.event === "added") this.seeks.set(message.seek.id, message.seek);
      else this.seeks.delete(message.seek.id);
    } else if (message.type === "challenge") {
      this.challengeChanged(message);
    } else if (message.type === "games") {
      this.games = message.games;
    } else if (message.type === "started") {
      const side = message.color;
      setMessage(() => t("lobby.started", { side: colorName(side) }), "info");
      if (this.current() !== message.game) this.open(message.game);
    }
    this.render();
  }

  challengeChanged({ event, challenge, reason }) {
    if (event === "added") {
      this.challenges.set(challenge.id, challenge);
      return;
    }
    this.challenges.delete(challenge.id);
    const mine = challenge.challenger.name === this.you?.name;
    if (mine && reason === "declined") setMessage(() => t("lobby.declined"), "info");
    if (reason === "expired") setMessage(() => t("lobby.expired"), "info");
  }

  // --- acting ------------------------------------------------------------------------

  /** The time control, rated flag and side of the form. */
  terms() {
    const form = $("seek-form").elements;
    return {
      minutes: Number(form.minutes.value),
      increment: Number(form.increment.value) || 0,
      rated: form.rated.checked,
      color: form.color.value,
    };
  }

  async act(call, said = null) {
    try {
      const answer = await call();
      if (said) setMessage(said, "info");
      return answer;
    } catch (error) {
      setMessage(() => describeError(error));
      return null;
    }
  }

  post() {
    this.act(() => api.postSeek(this.terms()), () => t("lobby.posted"));
  }

  async challenge() {
    const username = $("challenge-name").value.trim();
    if (!username) {
      setMessage(() => t("lobby.nameMissing"));
      $("challenge-name").focus();
      return;
    }
    if (await this.act(() => api.challenge({ username, ...this.terms() }), () => t("lobby.challengeSent"))) {
      $("challenge-name").value = "";
    }
  }

  async accept(seek) {
    const game = await this.act(() => api.acceptSeek(seek.id));
    if (game) this.open(game.id);
  }

  async answer(challenge, action) {
    const game = await this.act(() => api.answerChallenge(challenge.id, action));
    if (game) this.open(game.id);
  }

  /** Open the panel and put the focus in it (the top bar's "Play people"). */
  focus() {
    const panel = $("lobby-panel");
    panel.open = true;
    panel.scrollIntoView({ block: "start" });
    (this.you ? $("seek-minutes") : $("lobby-note")).focus();
  }

  // --- drawing ---------------------------------------------------------------------

  render() {
    const signedIn = Boolean(this.you);
    $("seek-fields").disabled = !signedIn;
    const note = $("lobby-note");
    if (!this.connected) showText(note, t("lobby.offline"));
    else if (!signedIn) showText(note, t("lobby.signInFirst"));
    else {
      const link = make("a", { href: `/u/${encodeURIComponent(this.you.name)}`, textContent: t("lobby.myProfile") });
      link.dataset.testid = "my-profile";
      note.replaceChildren(link);
    }
    this.renderSeeks();
    this.renderChallenges();
    this.renderGames();
  }

  renderSeeks() {
    const items = [...this.seeks.values()].map((seek) => {
      const own = seek.author.name === this.you?.name;
      const item = make("li");
      item.dataset.testid = "seek";
      item.append(...joined(playerParts(seek.author), [timeControl(seek)],
        [t(seek.rated ? "lobby.rated" : "lobby.casual")], [sideWords(seek.color, own)]), " ");
      if (own) item.append(button("cancel-seek", "lobby.cancel", () => this.act(() => api.cancelSeek(seek.id))));
      else if (this.you) item.append(button("accept-seek", "lobby.accept", () => this.accept(seek)));
      return item;
    });
    this.fill($("seek-list"), items, "lobby.noSeeks");
  }

  renderChallenges() {
    const items = [...this.challenges.values()].map((challenge) => {
      const own = challenge.challenger.name === this.you?.name;
      const item = make("li");
      item.dataset.testid = "challenge";
      item.append(...joined([...playerParts(challenge.challenger), t("players.between"),
        ...playerParts(challenge.challenged)], [timeControl(challenge)],
      [t(challenge.rated ? "lobby.rated" : "lobby.casual")], [sideWords(challenge.color, own)]), " ");
      if (own) {
        item.append(button("cancel-challenge", "lobby.cancel",
          () => this.act(() => api.cancelChallenge(challenge.id))));
      } else {
        item.append(button("accept-challenge", "lobby.acceptChallenge", () => this.answer(challenge, "accept")),
          " ", button("decline-challenge", "lobby.decline", () => this.answer(challenge, "decline")));
      }
      return item;
    });
    this.fill($("challenge-list"), items, "lobby.noChallenges");
  }

  renderGames() {
    const items = this.games.map((game) => {
      const item = make("li");
      item.dataset.testid = "watched-game";
      const watch = button("watch-game", "lobby.watch", () => this.open(game.id));
      const details = [[...playerParts(game.black), t("players.between"), ...playerParts(game.white)]];
      if (game.clock) details.push([timeControl(game.clock)]);
      details.push([t(game.rated ? "lobby.rated" : "lobby.casual")]);
      if (game.spectators) details.push([t("spectators.count", { count: game.spectators })]);
      item.append(watch, " ", ...joined(...details));
      return item;
    });
    this.fill($("watch-list"), items, "lobby.noGames");
  }

  fill(list, items, emptyKey) {
    list.replaceChildren(...(items.length ? items : [make("li", { className: "empty", textContent: t(emptyKey) })]));
  }
}
