"""Who may talk to the app at all: the ``Host`` allow-list and the ``Origin`` check.

A page on another site must not reach the server through the user's browser:

- **Host.** A request whose ``Host`` is not one of the allowed names is
  refused with ``421`` (a WebSocket handshake with ``403``). That defeats DNS
  rebinding, where a hostile name is made to point at the loopback address:
  its requests still carry the hostile name.
- **Origin.** A request that changes state (any method but GET, HEAD and
  OPTIONS) and every WebSocket handshake must come from the app's own page:
  an ``Origin`` header, when present, must be ``http(s)://`` and the request's
  own ``Host`` (``403`` otherwise; ``Origin: null`` too). Browsers send
  ``Origin`` on every such request; a WebSocket handshake without one is
  refused, and so is any request a browser marks ``Sec-Fetch-Site:
  cross-site`` or ``same-site``. Programs (curl, scripts) that send neither
  header may call the API: they act with their own tokens, never a user's.
- **Sessions.** A change that carries the session cookie acts for an
  account, so it must say its ``Origin`` (``403`` without one), and so must
  a sign-in or sign-up (``origin_paths``): another site can neither act with
  a user's session nor sign the browser into an account of its choosing.
- **Content type.** A body sent with a content type other than JSON is a
  ``415``: an HTML form cannot post JSON.

>>> allowed_host("LocalHost:8000", frozenset({"localhost"})), host_name("[::1]:80")
(True, '::1')
>>> is_same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
True
>>> is_same_origin("http://evil.example", "127.0.0.1:8000"), is_same_origin("null", "x")
(False, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from doublecorner.web.asgi_errors import send_error
from doublecorner.web.session_cookie import has_session_cookie

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_JSON_TYPES = ("application/json",)


def host_name(host: str) -> str:
    """The name of a ``Host`` header, without its port and brackets, in lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


def allowed_host(host: str, allowed: frozenset[str]) -> bool:
    """Whether ``host`` (a ``Host`` header) names one of the ``allowed`` hosts."""
    return host_name(host) in allowed


def is_same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` (an ``Origin`` header) is a page served from ``host`` itself."""
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope.get("headers", ())}


class EdgeGuardMiddleware:
    """ASGI middleware: the allowed hosts, same-origin changes and handshakes, JSON bodies."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str],
                 origin_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed_hosts = frozenset(host_name(host) for host in allowed_hosts)
        self.origin_paths = frozenset(origin_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        problem = self._problem(scope, headers, host)
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await receive()  # the handshake's websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": problem[1][:120]})
        else:
            await send_error(send, problem[0], problem[1])

    def _problem(self, scope: Scope, headers: dict[str, str],
                 host: str) -> tuple[int, str] | None:
        """The status and message that refuse the request, or ``None``."""
        if not allowed_host(host, self.allowed_hosts):
            names = ", ".join(sorted(self.allowed_hosts))
            return 421, (f"this server does not answer for host {host_name(host)!r} "
                         f"(it answers for: {names}; see serve --allowed-host)")
        is_socket = scope["type"] == "websocket"
        if not is_socket and scope.get("method", "GET") in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        fetch_site = headers.get("sec-fetch-site", "")
        if origin is not None and not is_same_origin(origin, host):
            return 403, f"requests from another site ({origin!r}) may not change anything here"
        if origin is None and (is_socket or fetch_site in ("cross-site", "same-site")):
            return 403, "a request from a page must say its Origin"
        if origin is None and has_session_cookie(scope):
            return 403, ("a change signed in with the session cookie must say its Origin "
                         "(the server's own)")
        if origin is None and scope.get("path") in self.origin_paths:
            return 403, (f"{scope.get('path')} must say its Origin (the server's own), "
                         "as the server's page does")
        content_type = headers.get("content-type")
        if (not is_socket and content_type is not None
                and content_type.split(";")[0].strip().lower() not in _JSON_TYPES):
            return 415, f"send the body as application/json, not {content_type!r}"
        return None
