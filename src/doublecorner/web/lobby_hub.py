"""The open lobby sockets (``WS /api/lobby``), whose they are, and the messages handed to them.

Each socket is a queue of messages that its connection sends on, in order,
and belongs to an account (``None``: a visitor who is not signed in).
Messages go to every socket (a seek posted, the watch list) or to those of
some accounts (a challenge, a game that starts). An account is *present*
while it has a socket open: listeners hear when it arrives (its first socket)
and when it leaves (its last one closed), which is how a seek goes when its
author leaves. A socket that falls :data:`MAX_BACKLOG` messages behind is
dropped (its connection closes with 1013, and reconnecting resyncs it).

>>> hub = LobbyHub()
>>> left = []
>>> hub.on_leave.append(left.append)
>>> ann, visitor = hub.join(1), hub.join(None)
>>> hub.send_to([1], {"type": "hello"}); hub.send_all({"type": "news"})
>>> ann.qsize(), visitor.qsize(), hub.is_present(1)
(2, 1, True)
>>> hub.leave(ann); left, hub.is_present(1)
([1], False)
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

MAX_BACKLOG = 100  # messages a socket may fall behind before it is dropped

Message = dict[str, Any]
Outbox = asyncio.Queue[Message | None]  # None: the socket is dropped


class LobbyHub:
    """The lobby's sockets by account, and listeners of accounts arriving and leaving."""

    def __init__(self) -> None:
        self._owner: dict[Outbox, int | None] = {}
        self._by_account: defaultdict[int, set[Outbox]] = defaultdict(set)
        self.on_arrive: list[Callable[[int], None]] = []
        self.on_leave: list[Callable[[int], None]] = []

    def join(self, account: int | None) -> Outbox:
        """A new socket of ``account`` (``None``: not signed in): its outbox."""
        outbox: Outbox = asyncio.Queue()
        self._owner[outbox] = account
        if account is not None:
            is_first = not self._by_account[account]
            self._by_account[account].add(outbox)
            if is_first:
                for listener in self.on_arrive:
                    listener(account)
        return outbox

    def leave(self, outbox: Outbox) -> None:
        """The socket has closed."""
        if outbox not in self._owner:
            return
        account = self._owner.pop(outbox)
        if account is None:
            return
        sockets = self._by_account[account]
        sockets.discard(outbox)
        if not sockets:
            del self._by_account[account]
            for listener in self.on_leave:
                listener(account)

    def is_empty(self) -> bool:
        """Whether no socket is open."""
        return not self._owner

    def is_present(self, account: int) -> bool:
        """Whether the account has a lobby socket open."""
        return bool(self._by_account.get(account))

    def send_all(self, message: Message) -> None:
        """Hand ``message`` to every socket."""
        self._send(list(self._owner), message)

    def send_to(self, accounts: Iterable[int], message: Message) -> None:
        """Hand ``message`` to the sockets of ``accounts``."""
        self._send([outbox for account in set(accounts)
                    for outbox in self._by_account.get(account, ())], message)

    def _send(self, outboxes: list[Outbox], message: Message) -> None:
        for outbox in outboxes:
            if outbox.qsize() >= MAX_BACKLOG:
                self.leave(outbox)
                outbox.put_nowait(None)  # the connection closes; the client resyncs
            else:
                outbox.put_nowait(message)
