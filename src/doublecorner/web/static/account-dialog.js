// The dialog that signs in or signs up: a username and a password, and on sign-up the
// password again and the rules (docs/web-api.md, "Accounts and sessions"). Each fault is
// said next to its field, in the reader's language; the fields carry the autocomplete
// names password managers look for (username, current-password, new-password).

import { accountApi, describeAccountError } from "./account-api.js";
import { $ } from "./dom.js";
import { clearFieldErrors, focusFirstError, setFieldError, setFormError } from "./field-errors.js";
import { t } from "./i18n.js";

// The server's rules, checked here too so that a fault is said before any request.
const USERNAME = /^[A-Za-z0-9_-]{3,20}$/;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 256;

/** Whether `password` has a length the server takes (counted in characters, as it counts). */
export function isPasswordLength(password) {
  const length = [...password].length;
  return length >= MIN_PASSWORD && length <= MAX_PASSWORD;
}

// The field each refusal of the server is about; any other is said under the form.
const FIELD_OF_CODE = {
  invalid_username: "username",
  username_taken: "username",
  invalid_password: "password",
  wrong_credentials: "password",
};

export class AccountDialog {
  /**
   * @param {object} handlers {signedIn(answer, mode)}: the server signed this browser in;
   *   `answer` is its {username, created, claimed_games}, `mode` "signin" or "signup".
   */
  constructor({ signedIn }) {
    this.signedIn = signedIn;
    this.dialog = $("account-dialog");
    this.form = $("account-form");
    this.mode = "signin";
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    $("account-cancel").addEventListener("click", () => this.dialog.close());
    $("account-switch").addEventListener("click", () => this.setMode(this.mode === "signin" ? "signup" : "signin"));
  }

  /** Open the dialog to sign in or sign up (`mode`), empty, with the focus on the username. */
  open(mode) {
    this.form.reset();
    this.setMode(mode);
    this.dialog.showModal();
    this.field("username").focus();
  }

  field(name) {
    return this.form.elements[name];
  }

  setMode(mode) {
    this.mode = mode;
    const signingUp = mode === "signup";
    for (const element of this.form.querySelectorAll("[data-mode]")) element.hidden = element.dataset.mode !== mode;
    this.dialog.setAttribute("aria-labelledby", signingUp ? "sign-up-heading" : "sign-in-heading");
    // Password managers fill a saved password to sign in, and offer a new one to sign up.
    this.field("password").autocomplete = signingUp ? "new-password" : "current-password";
    // A rule is said with its field where it is shown: aria-describedby reads hidden elements too.
    for (const name of ["username", "password"]) {
      const described = signingUp ? [`account-${name}-rule`, `account-${name}-error`] : [`account-${name}-error`];
      this.field(name).setAttribute("aria-describedby", described.join(" "));
    }
    clearFieldErrors(this.form);
  }

  /** Mark the faults the page sees without the server, each at its field. */
  check() {
    const [username, password, confirm] = ["username", "password", "confirm"].map((name) => this.field(name));
    if (this.mode === "signin") {
      for (const field of [username, password]) if (!field.value) setFieldError(field, () => t("account.required"));
      return;
    }
    if (!USERNAME.test(username.value)) setFieldError(username, () => t("account.usernameBreaksRules"));
    if (!isPasswordLength(password.value)) setFieldError(password, () => t("error.invalidPassword"));
    else if (confirm.value !== password.value) setFieldError(confirm, () => t("account.passwordsDiffer"));
  }

  async submit() {
    const username = this.field("username");
    username.value = username.value.trim();
    clearFieldErrors(this.form);
    this.check();
    if (focusFirstError(this.form)) return;
    const mode = this.mode;
    const submit = $("account-submit");
    submit.disabled = true; // one request at a time: a hash takes the server a moment
    let answer;
    try {
      const call = mode === "signup" ? accountApi.signUp : accountApi.signIn;
      answer = await call(username.value, this.field("password").value);
    } catch (error) {
      submit.disabled = false;
      this.refused(error);
      return;
    }
    submit.disabled = false;
    this.dialog.close();
    this.signedIn(answer, mode);
  }

  /** Say the server's refusal at the field it is about, else under the form. */
  refused(error) {
    const say = () => describeAccountError(error);
    if (Object.hasOwn(FIELD_OF_CODE, error.code ?? "")) {
      setFieldError(this.field(FIELD_OF_CODE[error.code]), say);
      focusFirstError(this.form);
    } else {
      setFormError(this.form, say);
      $("account-submit").focus();
    }
  }
}
