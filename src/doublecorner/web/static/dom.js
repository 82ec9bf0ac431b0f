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

/** The line under the status: an error (default) or a piece of news ("info"). */
export function setMessage(text, kind = "error") {
  const message = $("message");
  message.textContent = text;
  message.dataset.kind = kind;
}
