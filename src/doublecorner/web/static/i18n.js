// The page's words in the reader's language: one message catalogue per language
// (i18n/en.json, i18n/ga.json: docs/i18n.md), read by one small lookup.
//
//   t(key, params)   the current language's message `key`, each {name} in it replaced by
//                    params[name] (a number is written the language's way). A message that
//                    counts something is an object of plural forms, keyed by the categories
//                    Intl.PluralRules gives the language ("one", "two", "few", "many",
//                    "other"); params.count picks the form:
//                      t("import.done", {count: 3})  ->  "Imported 3 games."
//   In index.html    data-i18n="key" sets an element's text; data-i18n-attr=
//                    "aria-label:key;title:key2" sets attributes (placeholder too);
//                    data-i18n-params='{"level": 6}' gives both their params.
//   setLanguage(lang) loads a catalogue and translates the page (chooseLanguage(lang) also
//                    keeps it as the reader's choice); onLanguageChange(listener) hears of
//                    it, for the views that build their words in script.
//
// The language of a visit (chosenLanguage()): ?lang=ga|en in the address (then kept), else
// the reader's kept choice, else the first of the browser's languages the page speaks,
// else English.

export const LANGUAGES = { ga: "Gaeilge", en: "English" }; // each named in its own language
const FALLBACK = "en";
const STORAGE_KEY = "doublecorner.language";

const isLanguage = (lang) => typeof lang === "string" && Object.hasOwn(LANGUAGES, lang);
const catalogues = new Map(); // lang -> its messages, once loaded
const listeners = new Set();
let language = null;
let messages = {};
let plurals = null;
let numbers = null;

/** The message `key` of the current language, its {placeholders} filled from `params`. */
export function t(key, params = {}) {
  let message = messages[key];
  if (message === undefined) {
    console.warn(`no message ${JSON.stringify(key)} in the ${language} catalogue`);
    return key;
  }
  if (typeof message === "object") message = message[pluralCategory(params.count)] ?? message.other;
  return message.replace(/\{(\w+)\}/g, (placeholder, name) => {
    if (!(name in params)) return placeholder;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

/** A number written the current language's way ("1,234"). */
export function formatNumber(value) {
  return numbers.format(value);
}

export function currentLanguage() {
  return language;
}

/** Call `listener(lang)` after each change of language. */
export function onLanguageChange(listener) {
  listeners.add(listener);
}

/**
 * The plural category of `count`. In Irish a noun after 11 to 19 (and after the same last
 * two digits of a larger number) mutates as after its last digit (trí chluiche déag,
 * seacht gcluiche déag), and after 101, 102... as after 1, 2...; CLDR puts all of them in
 * "other", so they take the form of the number that decides the mutation.
 */
function pluralCategory(count) {
  if (language === "ga" && Number.isInteger(count) && count > 10) {
    const lastTwo = count % 100;
    if (lastTwo === 0 || lastTwo >= 20) return "other";
    const lastDigit = lastTwo % 10;
    return lastDigit === 0 || lastDigit >= 7 ? "many" : "few";
  }
  return plurals.select(count ?? 0);
}

async function load(lang) {
  if (!catalogues.has(lang)) {
    const response = await fetch(new URL(`./i18n/${lang}.json`, import.meta.url));
    if (!response.ok) throw new Error(`cannot load the ${lang} catalogue: ${response.status}`);
    catalogues.set(lang, await response.json());
  }
  return catalogues.get(lang);
}

/** The language this visit starts in (see the top of this file); ?lang= is kept as the choice. */
export function chosenLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (isLanguage(asked)) {
    localStorage.setItem(STORAGE_KEY, asked);
    return asked;
  }
  const stored = localStorage.getItem(STORAGE_KEY);
  if (isLanguage(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (isLanguage(base)) return base;
  }
  return FALLBACK;
}

/** Fill a language picker (a select): each language named in its own, the page's chosen;
 * a choice there becomes the page's language, and the picker follows every change. */
export function languagePicker(select) {
  select.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.lang = code; // each language is named in its own
    return option;
  }));
  select.value = currentLanguage();
  select.addEventListener("change", () => chooseLanguage(select.value));
  onLanguageChange((lang) => { select.value = lang; });
}

/** The reader picked `lang`: use it now and on later visits. */
export async function chooseLanguage(lang) {
  localStorage.setItem(STORAGE_KEY, lang);
  await setLanguage(lang);
}

/** Switch the page to `lang` (a key of LANGUAGES): the static page, then every listener. */
export async function setLanguage(lang) {
  if (!isLanguage(lang)) throw new Error(`no catalogue for language ${JSON.stringify(lang)}`);
  messages = await load(lang);
  language = lang;
  plurals = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
  document.documentElement.lang = lang;
  translate(document);
  for (const listener of listeners) listener(lang);
}

/** Fill the data-i18n and data-i18n-attr marks of `root` and its descendants. */
export function translate(root) {
  if (root === document) document.title = t("page.title");
  for (const element of root.querySelectorAll("[data-i18n], [data-i18n-attr]")) {
    const params = element.dataset.i18nParams ? JSON.parse(element.dataset.i18nParams) : {};
    if (element.dataset.i18n) element.textContent = t(element.dataset.i18n, params);
    for (const pair of (element.dataset.i18nAttr ?? "").split(";").filter(Boolean)) {
      const [attribute, key] = pair.split(":").map((part) => part.trim());
      element.setAttribute(attribute, t(key, params));
    }
  }
}

/**
 * Alternatives listed as the language lists them: "11-15 or 11-16", "a, b or c" (the
 * catalogue's "list.or": Chromium's Intl.ListFormat has no Irish, and says "or" for it).
 */
export function listOr(items) {
  if (items.length < 2) return items.join("");
  return t("list.or", { items: items.slice(0, -1).join(", "), last: items.at(-1) });
}

/** Items listed as the language lists them all: "18 and 27", "11, 18 and 25" (the catalogue's "list.and"). */
export function listAnd(items) {
  if (items.length < 2) return items.join("");
  return t("list.and", { items: items.slice(0, -1).join(", "), last: items.at(-1) });
}
