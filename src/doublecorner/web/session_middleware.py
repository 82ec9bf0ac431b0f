"""Who is signed in: the session a request's cookie names, found once for the routes below.

For each API request that carries the session cookie, :class:`SessionMiddleware`
asks the :class:`~doublecorner.web.accounts.AccountService` for the session
and leaves it in the request's scope, where :func:`signed_in` finds it (the
routes and the seat checks of :mod:`~doublecorner.web.auth`). It also keeps the
cookie in step with the server: a cookie of a session that is over (revoked,
signed out elsewhere, 30 days unused) is cleared, and one whose session was
just used again gets its full lifetime back. A route that sets the cookie
itself (sign-in, sign-out) has the last word.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from doublecorner.web.account_record import SignedIn
from doublecorner.web.accounts import AccountService
from doublecorner.web.session_cookie import (
    SESSION_COOKIE,
    cleared_cookie,
    is_https,
    session_secret,
    set_cookie,
)

_SCOPE_KEY = "doublecorner.signed_in"
_COOKIE_PREFIX = f"{SESSION_COOKIE}=".encode()


def signed_in(scope: Scope) -> SignedIn | None:
    """The account and session of the request, or ``None`` when it is not signed in."""
    found: SignedIn | None = scope.get(_SCOPE_KEY)
    return found


class SessionMiddleware:
    """ASGI middleware: the session of the cookie of each request under ``prefix``."""

    def __init__(self, app: ASGIApp, *, accounts: AccountService, prefix: str = "/api/") -> None:
        self.app = app
        self.accounts = accounts
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        secret = None
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(self.prefix):
            secret = session_secret(scope)
        if secret is None:
            await self.app(scope, receive, send)
            return
        found = await self.accounts.session(secret)
        scope[_SCOPE_KEY] = None if found is None else found.signed_in
        secure = is_https(scope)
        cookie = (cleared_cookie(secure=secure) if found is None
                  else set_cookie(secret, secure=secure) if found.is_refreshed else None)
        if cookie is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                if not any(name.lower() == b"set-cookie" and value.startswith(_COOKIE_PREFIX)
                           for name, value in headers):
                    message = {**message, "headers": [*headers, cookie]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)
