// The account routes of the API (docs/web-api.md, "Accounts and sessions") and their
// refusals in the reader's words.
//
// The session is an HttpOnly cookie that the page never sees: the browser sends it with
// every request, and GET /api/account says whom it signs in. Signing up or in sends the
// seat tokens this browser holds (tokens.js), as GET /api/games takes them, so that the
// games played here before signing in become the account's.

import { request } from "./api.js";
import { t } from "./i18n.js";
import { describeError } from "./messages.js";
import { listedTokens } from "./tokens.js";

/** The tokens this browser holds, as an Authorization's bearer list (null: none). */
const heldTokens = () => listedTokens().join(", ") || null;

export const accountApi = {
  /** The account signed in ({username, created}), or null. */
  current: async () => {
    try {
      return await request("GET", "/api/account");
    } catch (error) {
      if (error.code === "not_signed_in") return null;
      throw error;
    }
  },
  signUp: (username, password) => request("POST", "/api/account/signup", { username, password },
    heldTokens()),
  signIn: (username, password) => request("POST", "/api/account/signin", { username, password },
    heldTokens()),
  signOut: () => request("POST", "/api/account/signout"),
  changePassword: (current, next) => request("POST", "/api/account/password", { current, new: next }),
  sessions: async () => (await request("GET", "/api/account/sessions")).sessions,
  endSession: (id) => request("DELETE", `/api/account/sessions/${encodeURIComponent(id)}`),
  deleteAccount: (password) => request("DELETE", "/api/account", { password }),
};

/** The catalogue's message for each code the account routes answer with. */
const ACCOUNT_ERRORS = {
  invalid_username: "error.invalidUsername",
  invalid_password: "error.invalidPassword",
  wrong_credentials: "error.wrongCredentials",
  not_signed_in: "error.notSignedIn",
  wrong_password: "error.wrongPassword",
  session_not_found: "error.sessionNotFound",
  username_taken: "error.usernameTaken",
  too_many_attempts: "error.tooManyAttempts",
};

/** A refusal of an account route in words; a 429 says how long to wait (its Retry-After). */
export function describeAccountError(error) {
  if (error?.status === 429 && error.retryAfter) return t("account.tryAgainIn", { count: error.retryAfter });
  return describeError(error, ACCOUNT_ERRORS);
}
