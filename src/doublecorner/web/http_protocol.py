"""uvicorn's HTTP/1.1 protocol with the contract's JSON for requests it cannot parse.

A request that breaks HTTP itself (a ``Content-Length`` that is not a
number, a malformed header line) never reaches the app: uvicorn answers it
from its protocol, by default with a ``text/plain`` 400. This protocol
answers ``400 {"error": ...}`` instead, like every other error of the API;
``serve`` and the bench hand it to uvicorn (``http=JsonErrorH11Protocol``).
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

BAD_REQUEST = "the request is not valid HTTP/1.1 (a header such as Content-Length is malformed)"


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering unparsable requests with a JSON 400."""

    def send_400_response(self, msg: str) -> None:
        """Answer ``400 {"error": ...}`` and close the connection."""
        body = json.dumps({"error": BAD_REQUEST}).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
                   (b"content-length", str(len(body)).encode())]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                      h11.Data(data=body), h11.EndOfMessage()):
            output = self.conn.send(event)
            if output:
                self.transport.write(output)
        self.transport.close()
