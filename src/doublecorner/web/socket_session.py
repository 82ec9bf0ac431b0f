"""Who a WebSocket handshake is signed in as: the session its cookie names.

HTTP requests find their session in :class:`SessionMiddleware`; a WebSocket
handshake carries the same cookie (the browser sends it to its own origin,
and the edge lets no other origin open a socket), and is looked up here
when it opens: the lobby knows whose seeks and challenges it shows, and a
game's live stream whose seat it is.
"""

from __future__ import annotations

from starlette.websockets import WebSocket

from doublecorner.web.account_record import SignedIn
from doublecorner.web.accounts import AccountService
from doublecorner.web.session_cookie import session_secret


async def socket_session(websocket: WebSocket, accounts: AccountService) -> SignedIn | None:
    """The account and session of the handshake's cookie; ``None`` without one (or when
    its session is over)."""
    secret = session_secret(websocket.scope)
    if secret is None:
        return None
    found = await accounts.session(secret)
    return None if found is None else found.signed_in
