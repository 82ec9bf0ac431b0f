"""The cookie that carries a signed-in browser's session: its name, its attributes, reading it.

The cookie holds only a 256-bit secret; the server keeps its SHA-256 (the
session's id) and everything else. It is ``HttpOnly`` (no script of the page
reads it), ``SameSite=Lax`` (another site's forms and fetches go without it),
``Path=/``, and ``Secure`` when the request came over https (the scheme of the
connection, or ``X-Forwarded-Proto`` from a proxy of ``serve
--forwarded-allow-ips``, which uvicorn turns into the scheme). ``Max-Age``
slides: the server sends the cookie again as the session is used.

>>> set_cookie("abc", secure=False)
(b'set-cookie', b'doublecorner_session=abc; HttpOnly; Max-Age=2592000; Path=/; SameSite=Lax')
>>> cleared_cookie(secure=True)[1]
b'doublecorner_session=""; HttpOnly; Max-Age=0; Path=/; SameSite=Lax; Secure'
>>> session_secret({"headers": [(b"cookie", b"theme=dark; doublecorner_session=abc")]})
'abc'
"""

from __future__ import annotations

from starlette.requests import cookie_parser
from starlette.types import Scope

SESSION_COOKIE = "doublecorner_session"
MAX_AGE_SECONDS = 30 * 24 * 3600  # 30 days since the session was last used
MAX_SECRET_TEXT = 100  # a secret is 43 characters; longer text is not one of ours


def is_https(scope: Scope) -> bool:
    """Whether the request came over https (uvicorn sets the scheme from a trusted proxy)."""
    return scope.get("scheme") in ("https", "wss")


def _cookie(value: str, max_age: int, *, secure: bool) -> tuple[bytes, bytes]:
    attributes = f"{SESSION_COOKIE}={value}; HttpOnly; Max-Age={max_age}; Path=/; SameSite=Lax"
    return b"set-cookie", (attributes + ("; Secure" if secure else "")).encode("latin-1")


def set_cookie(secret: str, *, secure: bool) -> tuple[bytes, bytes]:
    """The ``Set-Cookie`` header that gives the browser the session's ``secret``."""
    return _cookie(secret, MAX_AGE_SECONDS, secure=secure)


def cleared_cookie(*, secure: bool) -> tuple[bytes, bytes]:
    """The ``Set-Cookie`` header that makes the browser forget the session."""
    return _cookie('""', 0, secure=secure)


def session_secret(scope: Scope) -> str | None:
    """The secret of the session cookie the request carries, or ``None``."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            secret = cookie_parser(value.decode("latin-1")).get(SESSION_COOKIE)
            if secret and len(secret) <= MAX_SECRET_TEXT:
                return secret
    return None


def has_session_cookie(scope: Scope) -> bool:
    """Whether the request carries a session cookie at all (even one the server does not
    know): such a request acts for an account, so it must come from the server's page."""
    return any(name == b"cookie" and SESSION_COOKIE in cookie_parser(value.decode("latin-1"))
               for name, value in scope.get("headers", ()))
