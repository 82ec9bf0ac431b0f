"""Request bodies read as strict JSON: UTF-8, no duplicate keys, no deep nesting, no NaN.

FastAPI reads a JSON body with ``json.loads`` and answers most failures with
a 400 that is not the contract's, and Python's parser recurses, so a body
nested some thousands deep raises ``RecursionError``. Here the text is
checked first (depth counted without recursion), and every refusal is a
:class:`json.JSONDecodeError`, which FastAPI turns into the contract's 422.
The analysis stream reads its messages with the same :func:`parse_json`.

>>> parse_json(b'{"move": "11-15"}')
{'move': '11-15'}
>>> for text in (b'{"a": 1, "a": 2}', b'\\xff', b'[' * 40 + b']' * 40, b'NaN'):
...     try:
...         parse_json(text)
...     except json.JSONDecodeError as error:
...         print(error.msg)
duplicate key 'a'
not UTF-8 (byte 0xff at position 0)
nested deeper than 32 levels
not a JSON value: 'NaN'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

MAX_DEPTH = 32  # the deepest request of the API is 3 levels
# What the depth count looks at: quotes, escapes (inside strings) and brackets. A regex
# that matched whole strings took 280 MB for a 2.4 MB PDN import (its state per character).
_TOKENS = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"duplicate key {key!r}")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"not a JSON value: {name!r}")


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (strings skipped), without recursion."""
    depth = deepest = 0
    in_string = False
    for token in _TOKENS.finditer(text):
        found = token.group()
        if found == '"':
            in_string = not in_string
        elif in_string or found[0] == "\\":
            continue
        elif found in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_json(data: bytes | str) -> Any:
    """The JSON value of ``data``.

    :raises json.JSONDecodeError: not UTF-8, not JSON, a key twice in an object,
        nesting deeper than :data:`MAX_DEPTH`, or ``NaN``/``Infinity``.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise json.JSONDecodeError(
                f"not UTF-8 (byte 0x{data[error.start]:02x} at position {error.start})",
                "", error.start) from None
    else:
        text = data
    if nesting_depth(text) > MAX_DEPTH:
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as error:
        raise json.JSONDecodeError(str(error), text, 0) from None


class StrictJsonRequest(Request):
    """A request whose :meth:`json` is :func:`parse_json`."""

    async def json(self) -> Any:
        """The body as strict JSON (see :func:`parse_json`)."""
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body())
        return self._json


class StrictJsonRoute(APIRoute):
    """A FastAPI route that reads its JSON body with :func:`parse_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handle(StrictJsonRequest(request.scope, request.receive))

        return strict
