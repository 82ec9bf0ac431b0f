// Errors said next to the field they are about, for the account's forms.
//
// A field's error goes in the element its aria-describedby already names (`${id}-error`),
// and the field is marked aria-invalid, so that a screen reader says the error with the
// field; the focus goes to the first field in error. Each error is kept as a function
// that words it, so that a change of language words it again.

import { showText } from "./dom.js";

const shown = new Map(); // error element -> () => what it says

function errorOf(field) {
  return document.getElementById(`${field.id}-error`);
}

/** Show `say()` (a catalogue text, or the server's words) as `field`'s error. */
export function setFieldError(field, say) {
  const element = errorOf(field);
  shown.set(element, say);
  showText(element, say());
  field.setAttribute("aria-invalid", "true");
}

/** Clear the errors of the fields of `form` (and of the form, `form-error`). */
export function clearFieldErrors(form) {
  for (const field of form.querySelectorAll("input[aria-invalid]")) {
    field.removeAttribute("aria-invalid");
    shown.delete(errorOf(field));
    errorOf(field).textContent = "";
  }
  const formError = form.querySelector(".form-error");
  if (formError) setFormError(form, null);
}

/** Show `say()` as the error of the whole form (its `.form-error`, a live region); null clears it. */
export function setFormError(form, say) {
  const element = form.querySelector(".form-error");
  if (say) {
    shown.set(element, say);
    showText(element, say());
  } else {
    shown.delete(element);
    element.textContent = "";
  }
}

/** Put the focus on the first field of `form` in error; whether there was one. */
export function focusFirstError(form) {
  const field = form.querySelector("input[aria-invalid]");
  field?.focus();
  field?.select();
  return Boolean(field);
}

/** Say every error shown again, in the current language. */
export function rewordFieldErrors() {
  for (const [element, say] of shown) showText(element, say());
}
