"""Who gets the next engine thread: games before analysis, and clients in turn.

The engine threads are few (``--engine-threads``, 1 by default) and an
analysis runs until it is stopped or capped (10 s), so a first-come queue
lets a few open analysis streams hold a game's reply for as long as they
like (measured: four streams made a level-1 game wait 30 s). Here:

- a game's search (an engine reply, a draw offer) goes before any analysis;
- within each kind, clients take turns, one search each: the next thread
  goes to the waiting client whose last turn is the oldest (a client with
  none first), so one client with many requests waits behind itself, not
  others, and a client that has just had a thread waits for the others;
- a game's search that finds every thread held by analyses stops the
  oldest of them (its stream gets its ``done`` early), so a reply waits for
  at most one analysis to notice its stop, not for the time cap.

>>> import asyncio
>>> async def demo():
...     queue = FairQueue(slots=1)
...     first = await queue.acquire(Priority.ANALYSIS, "a", threading.Event())
...     order = []
...     async def wait(priority, client):
...         ticket = await queue.acquire(priority, client, threading.Event())
...         order.append(client)
...         queue.release(ticket)
...     waiting = [asyncio.create_task(wait(Priority.ANALYSIS, name)) for name in "aab"]
...     waiting.append(asyncio.create_task(wait(Priority.GAME, "g")))
...     await asyncio.sleep(0)
...     stopped = first.stop.is_set()
...     queue.release(first)
...     await asyncio.gather(*waiting)
...     return stopped, order
>>> asyncio.run(demo())
(True, ['g', 'b', 'a', 'a'])
"""

from __future__ import annotations

import asyncio
import enum
import itertools
import threading
from collections import deque
from dataclasses import dataclass, field


class Priority(enum.IntEnum):
    """The kinds of search, most urgent first."""

    GAME = 0
    ANALYSIS = 1


@dataclass(eq=False)
class Ticket:
    """A thread held for one search; ``stop`` asks that search to end."""

    priority: Priority
    client: str
    stop: threading.Event
    number: int = field(default=0)


_Waiter = tuple[Ticket, "asyncio.Future[None]"]


class FairQueue:
    """``slots`` engine threads handed out by priority, then client by client."""

    def __init__(self, *, slots: int) -> None:
        self.slots = slots
        self._running: list[Ticket] = []
        self._waiting: dict[Priority, dict[str, deque[_Waiter]]] = {
            priority: {} for priority in Priority}
        self._numbers = itertools.count()
        # When each client last got a thread (a count of the turns given), while it
        # has a search waiting or running: who had a thread last waits longest.
        self._turns = itertools.count()
        self._last_turn: dict[str, int] = {}

    async def acquire(self, priority: Priority, client: str, stop: threading.Event) -> Ticket:
        """Wait for a thread; cancelling the caller leaves the queue."""
        ticket = Ticket(priority, client, stop, next(self._numbers))
        if len(self._running) < self.slots and not self._has_waiting():
            self._start(ticket)
            return ticket
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[priority].setdefault(client, deque()).append((ticket, future))
        if priority is Priority.GAME:
            self._preempt()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(ticket)  # handed a thread just as the caller was cancelled
            else:
                self._forget(ticket)
            raise
        return ticket

    def release(self, ticket: Ticket) -> None:
        """Give back ``ticket``'s thread, to the next in turn."""
        if ticket in self._running:
            self._running.remove(ticket)
            self._forget_turn(ticket.client)
        while len(self._running) < self.slots:
            found = self._next()
            if found is None:
                return
            waiting, future = found
            self._start(waiting)
            future.set_result(None)

    def _start(self, ticket: Ticket) -> None:
        self._running.append(ticket)
        self._last_turn[ticket.client] = next(self._turns)

    def _has_waiting(self) -> bool:
        return any(self._waiting[priority] for priority in Priority)

    def _next(self) -> _Waiter | None:
        for priority in Priority:
            clients = self._waiting[priority]
            while clients:
                # The longest without a turn; ties (no turn yet) in the order they came.
                client = min(clients, key=lambda name: self._last_turn.get(name, -1))
                line = clients[client]
                found = line.popleft()
                if not line:
                    del clients[client]
                if not found[1].cancelled():
                    return found
                self._forget_turn(client)
        return None

    def _forget_turn(self, client: str) -> None:
        """Drop ``client``'s last turn once it has nothing waiting or running."""
        if any(ticket.client == client for ticket in self._running) or any(
                client in self._waiting[priority] for priority in Priority):
            return
        self._last_turn.pop(client, None)

    def _forget(self, ticket: Ticket) -> None:
        line = self._waiting[ticket.priority].get(ticket.client)
        if line is None:
            return
        for entry in list(line):
            if entry[0] is ticket:
                line.remove(entry)
        if not line:
            del self._waiting[ticket.priority][ticket.client]
        self._forget_turn(ticket.client)

    def _preempt(self) -> None:
        """Stop the oldest analysis when games wait and every thread runs an analysis."""
        if len(self._running) < self.slots:
            return
        analyses = [ticket for ticket in self._running if ticket.priority is Priority.ANALYSIS
                    and not ticket.stop.is_set()]
        games_waiting = sum(len(line) for line in self._waiting[Priority.GAME].values())
        games_running = len(self._running) - len(analyses)
        stopping = sum(1 for ticket in self._running if ticket.priority is Priority.ANALYSIS
                       and ticket.stop.is_set())
        if analyses and games_waiting > stopping and games_running < self.slots:
            min(analyses, key=lambda ticket: ticket.number).stop.set()
