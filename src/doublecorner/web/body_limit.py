"""Refuse HTTP request bodies over a size limit with ``413`` and a JSON error.

A declared ``Content-Length`` over the limit is refused before anything is
read; a body without one (chunked) is read up to the limit and refused as
soon as it goes beyond. Bodies within the limit are read whole and handed to
the app unchanged, so no handler ever sees more than the limit.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from doublecorner.web.asgi_errors import send_error


class BodyLimitMiddleware:
    """ASGI middleware: at most ``max_bytes`` of request body per HTTP request, or the
    limit ``larger`` gives for its path (a PDN import)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int,
                 larger: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope.get("path", ""), self.max_bytes)
        declared = _content_length(scope)
        if declared is None:
            await send_error(send, 400, "the Content-Length header is not a number")
            return
        if declared > limit:
            await send_error(send, 413, _too_large(f"{declared} bytes", limit))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await send_error(send, 413, _too_large(f"over {limit} bytes", limit))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect, as usual

        await self.app(scope, replay, send)


def _too_large(size: str, limit: int) -> str:
    return f"the request body ({size}) is over the limit of {limit} bytes"


def _content_length(scope: Scope) -> int | None:
    """The declared length; 0 without the header; ``None`` if it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return 0

