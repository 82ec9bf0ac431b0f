"""A JSON error answered straight from ASGI middleware, before the app sees the request.

>>> import asyncio
>>> sent = []
>>> async def send(message): sent.append(message)
>>> asyncio.run(send_error(send, 429, "slow down", headers=[(b"retry-after", b"2")]))
>>> sent[0]["status"], sent[0]["headers"][-1], sent[1]["body"]
(429, (b'retry-after', b'2'), b'{"error": "slow down", "code": "too_many_requests"}')
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import Send

# The code of an error body by its status (docs/web-api.md, "Error codes"), where no more
# precise one applies: a stable word for a client to say the error in its own language.
STATUS_CODES: dict[int, str] = {
    400: "bad_request", 401: "not_signed_in", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 408: "too_slow", 409: "conflict", 413: "too_large",
    414: "too_long", 415: "not_json", 421: "wrong_host", 422: "invalid_request",
    429: "too_many_requests", 431: "too_long", 500: "server_error", 503: "unavailable",
}


def code_for_status(status: int) -> str:
    """The code of an error answered with ``status`` that has none more precise.

    >>> code_for_status(413), code_for_status(418), code_for_status(502)
    ('too_large', 'bad_request', 'server_error')
    """
    return STATUS_CODES.get(status, "server_error" if status >= 500 else "bad_request")


async def send_error(send: Send, status: int, error: str, *,
                     headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer ``status`` with ``{"error": error, "code": ...}`` (its status's code)."""
    body = json.dumps({"error": error, "code": code_for_status(status)}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})
