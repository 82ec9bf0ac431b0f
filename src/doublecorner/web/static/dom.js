// Small helpers over the page's DOM, shared by the modules of the page.

/** The element with this `data-testid` (every control of the page has one). */
export const $ = (testid) => document.querySelector(`[data-testid="${testid}"]`);

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A new element: `make("li", {className: "empty", textContent: "None."})`. */
export function make(tag, properties = {}) {
  return Object.assign(document.createElement(tag), properties);
}

/**
 * Words the page shows as they came, not from its catalogue, wherever it takes words:
 * verbatim(text) a name a person typed (marked translate="no"), inEnglish(text) a
 * server's English sentence that has no code the catalogue words (marked lang="en").
 */
export const verbatim = (text) => ({ text: String(text), translate: false });
export const inEnglish = (text) => ({ text: String(text), lang: "en" });

/** Put `said` (a string of the catalogue's, or verbatim()/inEnglish()) into `element`. */
export function showText(element, said) {
  const { text, lang = null, translate = true } = typeof said === "string" ? { text: said } : said;
  element.textContent = text;
  if (lang) element.lang = lang;
  else element.removeAttribute("lang");
  if (translate) element.removeAttribute("translate");
  else element.setAttribute("translate", "no");
}

/** The text of `said` alone, where no element can carry its marks (an attribute, a dialog). */
export const textOf = (said) => (typeof said === "string" ? said : said.text);

let message = { say: () => "", kind: "error" };

/**
 * The line under the status: an error (default) or a piece of news ("info"). `say` is
 * the text, or a function giving it: it is called again when the language changes.
 */
export function setMessage(say, kind = "error") {
  message = { say: typeof say === "function" ? say : () => say, kind };
  rewordMessage();
}

/** Show the message again in the current language. */
export function rewordMessage() {
  const element = $("message");
  showText(element, message.say());
  element.dataset.kind = message.kind;
}
