"""One line of text for what request validation (pydantic) found wrong.

>>> from doublecorner.web.schemas import MoveRequest
>>> from pydantic import ValidationError
>>> try:
...     MoveRequest.model_validate({"move": "11-15", "colour": "black"})
... except ValidationError as error:
...     print(first_error(error.errors()))
colour: Extra inputs are not permitted
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# The first item of an error's location in a FastAPI request: not worth repeating.
_REQUEST_PARTS = ("body", "query", "path", "header")


def first_error(errors: Sequence[Mapping[str, Any]]) -> str:
    """``where: what`` for the first error, with a count of the others."""
    if not errors:
        return "the request is not valid"
    error = errors[0]
    location = [str(part) for part in error.get("loc", ())]
    if location and location[0] in _REQUEST_PARTS:
        part, location = location[0], location[1:]
    else:
        part = "message"
    where = ".".join(location) if location else f"the {part}"
    if error.get("type") == "json_invalid":
        where = f"the {part}"  # FastAPI locates it by a character offset: not a field
        what = f"not valid JSON ({error.get('ctx', {}).get('error', 'cannot be read')})"
    else:
        what = str(error.get("msg", "not valid"))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {what}{more}"
