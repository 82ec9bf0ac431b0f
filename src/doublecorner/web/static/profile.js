// A player's page, /u/NAME: their rating (with "?" while provisional), won, drawn and lost,
// the rating history as a chart (an SVG drawn here, described for screen readers, with the
// same points as a table below it), their games (each opens on the board) and all of them
// as one PDN file (docs/web-api.md, "Ratings").

import { api } from "./api.js";
import { $, make, showText, verbatim } from "./dom.js";
import {
  chosenLanguage, languagePicker, onLanguageChange, setLanguage, t,
} from "./i18n.js";
import { dateText } from "./library.js";
import { describeError, playersElement } from "./messages.js";
import { ratingElement, ratingText } from "./ratings.js";

const PAGE = 20; // games read at a time
const CHART = { width: 600, height: 200, margin: 32 };
const SVG = "http://www.w3.org/2000/svg";

await setLanguage(chosenLanguage());

const username = decodeURIComponent(location.pathname.replace(/^\/u\//, "").replace(/\/$/, ""));
const state = { profile: null, games: [], total: 0, error: null };

const when = (text) => dateText(new Date(text));

function svg(tag, attributes = {}) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/** The rating after each rated game as a line, oldest on the left; the rating's range on the left axis. */
function drawChart(history) {
  const { width, height, margin } = CHART;
  const ratings = history.map((point) => point.rating);
  const low = Math.floor(Math.min(...ratings) - 10);
  const high = Math.ceil(Math.max(...ratings) + 10);
  const x = (index) => margin + (history.length === 1 ? (width - 2 * margin) / 2
    : (index * (width - 2 * margin)) / (history.length - 1));
  const y = (rating) => height - margin - ((rating - low) * (height - 2 * margin)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img" });
  chart.setAttribute("aria-label", t("profile.chart", {
    first: ratingText(history[0].rating, history[0].provisional),
    last: ratingText(history.at(-1).rating, history.at(-1).provisional),
  }));
  chart.append(
    svg("line", { class: "axis", x1: margin, y1: margin, x2: margin, y2: height - margin }),
    svg("line", { class: "axis", x1: margin, y1: height - margin, x2: width - margin, y2: height - margin }),
  );
  for (const [value, at] of [[high, margin], [low, height - margin]]) {
    const label = svg("text", { x: 2, y: at + 4 });
    label.textContent = String(value);
    chart.append(label);
  }
  const path = history.map((point, index) => `${index ? "L" : "M"}${x(index).toFixed(1)},${y(point.rating).toFixed(1)}`);
  chart.append(svg("path", { class: "line", d: path.join(" ") }));
  history.forEach((point, index) => {
    const dot = svg("circle", { class: "point", cx: x(index).toFixed(1), cy: y(point.rating).toFixed(1), r: 3.5 });
    dot.dataset.rating = point.rating.toFixed(2);
    chart.append(dot);
  });
  return chart;
}

function resultWord(score) {
  return t(score === 1 ? "profile.won" : score === 0 ? "profile.lost" : "profile.drawn");
}

function renderHistory(history) {
  $("no-history").hidden = history.length > 0;
  $("history-details").hidden = !history.length;
  $("rating-chart").replaceChildren(...(history.length ? [drawChart(history)] : []));
  $("history-table").querySelector("tbody").replaceChildren(...[...history].reverse().map((point) => {
    const row = make("tr");
    const opponent = make("td");
    showText(opponent, verbatim(point.opponent));
    const rating = make("td");
    rating.append(ratingElement(point.rating, point.provisional));
    row.append(make("td", { textContent: when(point.played) }), opponent,
      make("td", { textContent: resultWord(point.score) }), rating);
    return row;
  }));
}

function renderGames() {
  $("profile-games").replaceChildren(...(state.games.length ? state.games.map((game) => {
    const link = make("a", { className: "button open", href: `/#game=${encodeURIComponent(game.id)}` });
    link.dataset.testid = "profile-game";
    const details = make("small", { textContent: `${when(game.created)} · ${game.result}` });
    if (game.rated) details.append(` · ${t("lobby.rated")}`);
    link.append(playersElement(game.black, game.white), details);
    const item = make("li");
    item.append(link);
    return item;
  }) : [make("li", { className: "empty", textContent: t("profile.noGames") })]));
  $("more-games").hidden = state.games.length >= state.total;
}

function render() {
  const profile = state.profile;
  showText($("profile-name"), verbatim(profile?.username ?? username));
  document.title = t("profile.pageTitle", { name: profile?.username ?? username });
  showText($("profile-message"), state.error ? describeError(state.error) : "");
  for (const testid of ["profile-summary", "history-panel", "games-panel"]) $(testid).hidden = !profile;
  if (!profile) return;
  $("profile-rating").replaceChildren(ratingElement(profile.rating.rating, profile.rating.provisional));
  $("profile-record").textContent = t("profile.record", profile);
  $("profile-since").textContent = t("profile.since", { date: when(profile.created) });
  $("download-games").href = api.profilePdnUrl(profile.username);
  renderHistory(profile.history);
  renderGames();
}

async function moreGames() {
  try {
    const page = await api.profileGames(username, state.games.length, PAGE);
    state.games.push(...page.games);
    state.total = page.total;
  } catch (error) {
    state.error = error;
  }
  render();
}

languagePicker($("language"));
onLanguageChange((lang) => {
  render();
});
$("more-games").addEventListener("click", moreGames);

try {
  state.profile = await api.profile(username);
  await moreGames();
} catch (error) {
  state.error = error;
  render();
}
// The tests wait for "ready" and "not busy", as on the board's page.
document.body.dataset.busy = "false";
document.body.dataset.ready = "true";
