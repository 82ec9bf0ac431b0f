"""A JSON error answered straight from ASGI middleware, before the app sees the request.

>>> import asyncio
>>> sent = []
>>> async def send(message): sent.append(message)
>>> asyncio.run(send_error(send, 429, "slow down", headers=[(b"retry-after", b"2")]))
>>> sent[0]["status"], sent[0]["headers"][-1], sent[1]["body"]
(429, (b'retry-after', b'2'), b'{"error": "slow down"}')
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import Send


async def send_error(send: Send, status: int, error: str, *,
                     headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer ``status`` with ``{"error": error}``."""
    body = json.dumps({"error": error}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})
