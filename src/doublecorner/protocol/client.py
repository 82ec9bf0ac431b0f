"""The controller side of the protocol: drive any engine program that speaks it.

:class:`EngineClient` is the asyncio core: it starts the program, does the
handshake, sends positions and searches, and reads the answers with a
deadline on each. A program that exits, hangs past its deadline or answers
nonsense raises :class:`EngineError` (a hung one is killed).
:class:`SimpleEngineClient` is the blocking facade for scripts, running the
core on an event loop in a background thread, as python-chess's
``SimpleEngine`` does for UCI.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from doublecorner.board import Board
from doublecorner.errors import DraughtsError, EngineError, quoted
from doublecorner.move import Move
from doublecorner.protocol.messages import GoCommand, Info, PositionCommand, parse_info

T = TypeVar("T")

# A program may load tables or compile during the handshake (doublecorner's
# first run after an install compiles for under a minute, after its id lines),
# but its first answer comes at once: a program that says nothing is not
# waited for minutes.
HANDSHAKE_SECONDS = 180.0
FIRST_ANSWER_SECONDS = 20.0
REPLY_GRACE_SECONDS = 5.0  # beyond a search's own time, before the program counts as hung
STOP_GRACE_SECONDS = 2.0  # after 'stop', for the bestmove
QUIT_SECONDS = 2.0  # for the program to exit after 'quit', before it is killed


@dataclass(frozen=True, slots=True)
class PlayResult:
    """An engine's answer to ``go``: its move (``None``: it has none) and its last info."""

    move: Move | None
    info: Info | None


class EngineClient:
    """One engine program, driven over the protocol (asyncio).

    Start it with :meth:`start`; ``id`` holds the program's ``id`` lines and
    ``options`` its option declarations by name.
    """

    def __init__(self, process: asyncio.subprocess.Process, name: str) -> None:
        self._process = process
        self.name = name
        self.id: dict[str, str] = {}
        self.options: dict[str, str] = {}
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def start(cls, command: Sequence[str], *, name: str | None = None,
                    timeout: float = HANDSHAKE_SECONDS) -> EngineClient:
        """Start ``command`` and do the handshake.

        The first answer must come within :data:`FIRST_ANSWER_SECONDS` (or
        ``timeout``, if shorter), the whole handshake within ``timeout``; an
        answer that is not part of the handshake (a program that echoes, or
        prints a banner) ends it at once.

        :raises EngineError: the program cannot be started, does not speak the
            protocol, or does not finish the handshake in time.
        """
        try:
            process = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL)
        except OSError as error:
            raise EngineError(f"cannot start engine {' '.join(command)!r}: {error}") from None
        client = cls(process, name or command[0])
        try:
            await client._send("dcp")
            deadline = asyncio.get_running_loop().time() + timeout
            wait = min(timeout, FIRST_ANSWER_SECONDS)
            while True:
                line = await client._next_line(wait, "the handshake")
                wait = max(deadline - asyncio.get_running_loop().time(), 0.0)
                kind, _, rest = line.partition(" ")
                if kind == "id":
                    key, _, value = rest.partition(" ")
                    client.id[key] = value
                elif kind == "option":
                    client.options[_option_name(rest)] = rest
                elif kind == "dcpok":
                    break
                elif line:
                    raise EngineError(f"{client.name} does not speak the engine protocol: it "
                                      f"answered {quoted(line)} to 'dcp' (expected id, option "
                                      "and dcpok lines)")
        except EngineError:
            await client.close()
            raise
        if name is None and "name" in client.id:
            client.name = client.id["name"]
        return client

    async def _read(self) -> None:
        assert self._process.stdout is not None
        while True:
            raw = await self._process.stdout.readline()
            if not raw:
                break
            self._lines.put_nowait(raw.decode("utf-8", "replace").strip())
        self._lines.put_nowait(None)

    async def _send(self, line: str) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write((line + "\n").encode())
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise EngineError(f"{self.name} has exited (sending {line!r})") from None

    async def _next_line(self, timeout: float, awaiting: str) -> str:
        try:
            if timeout == float("inf"):  # the caller keeps the deadline
                line = await self._lines.get()
            else:
                line = await asyncio.wait_for(self._lines.get(), timeout)
        except TimeoutError:
            raise EngineError(f"{self.name} did not answer within {timeout:g} s "
                              f"(awaiting {awaiting})") from None
        if line is None:
            code = await self._process.wait()
            raise EngineError(f"{self.name} exited with status {code} (awaiting {awaiting})")
        return line

    async def configure(self, options: Mapping[str, object]) -> None:
        """Set options the program declared; checked with ``isready``.

        :raises EngineError: an option it did not declare, or an ``error`` answer.
        """
        for name, value in options.items():
            if name not in self.options:
                raise EngineError(f"{self.name} has no option {name!r}; it has "
                                  f"{', '.join(self.options) or 'none'}")
            text = str(value).lower() if isinstance(value, bool) else str(value)
            await self._send(f"setoption name {name} value {text}")
        await self.ping()

    async def ping(self, timeout: float = HANDSHAKE_SECONDS) -> None:
        """``isready`` and wait for ``readyok``; any ``error`` on the way is raised."""
        await self._send("isready")
        while True:
            line = await self._next_line(timeout, "readyok")
            if line.startswith("error"):
                raise EngineError(f"{self.name} answered: {line}")
            if line == "readyok":
                return

    async def new_game(self) -> None:
        """``newgame``, then ``isready``: an error in between is raised here, not later."""
        await self._send("newgame")
        await self.ping()

    async def play(self, board: Board, go: GoCommand, *,
                   on_info: Callable[[Info], None] | None = None,
                   timeout: float | None = None) -> PlayResult:
        """Search the board's position (sent with its moves) and return the move.

        ``timeout`` defaults to the search's own time plus a grace; past it the
        program is sent ``stop`` and, if it still does not answer, killed.

        :raises EngineError: the program fails, hangs, or plays an illegal move.
        """
        start = board.copy()
        while start.move_stack:
            start.pop()
        moves = tuple(str(move) for move in board.move_stack)
        await self._send(PositionCommand(start.fen(), moves).line())
        await self._send(go.line())
        deadline = timeout if timeout is not None else _default_timeout(go, board)
        infos: list[Info] = []
        try:
            return await asyncio.wait_for(self._bestmove(board, on_info, infos), deadline)
        except TimeoutError:
            pass
        await self._send("stop")
        try:
            return await asyncio.wait_for(self._bestmove(board, on_info, infos),
                                          STOP_GRACE_SECONDS)
        except TimeoutError:
            await self.close()
            raise EngineError(f"{self.name} hung: no bestmove {deadline:g} s after go nor "
                              f"{STOP_GRACE_SECONDS:g} s after stop; killed") from None

    async def _bestmove(self, board: Board, on_info: Callable[[Info], None] | None,
                        infos: list[Info]) -> PlayResult:
        """Read ``info`` lines (kept in ``infos``) up to the ``bestmove``."""
        while True:
            line = await self._next_line(float("inf"), "bestmove")
            if line.startswith("info"):
                infos.append(parse_info(line))
                if on_info is not None:
                    on_info(infos[-1])
            elif line.startswith("bestmove"):
                return PlayResult(self._legal_move(board, line), infos[-1] if infos else None)
            elif line.startswith("error"):
                raise EngineError(f"{self.name} answered: {line}")

    def _legal_move(self, board: Board, line: str) -> Move | None:
        words = line.split()
        if len(words) != 2:
            raise EngineError(f"{self.name} sent a malformed best move: {line!r}")
        if words[1] == "none":  # the caller decides what a missing move means
            return None
        try:
            return board.parse_move(words[1])
        except DraughtsError as error:
            raise EngineError(f"{self.name} played an illegal move: {error}") from None

    async def close(self) -> None:
        """Send ``quit``; kill the program if it has not exited soon after."""
        if self._process.returncode is None:
            with contextlib.suppress(EngineError):
                await self._send("quit")
            try:
                await asyncio.wait_for(self._process.wait(), QUIT_SECONDS)
            except TimeoutError:
                self._process.kill()
                await self._process.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


def _default_timeout(go: GoCommand, board: Board) -> float:
    """The search's own time, or a generous bound when it has none (depth, nodes)."""
    milliseconds = go.movetime
    clock = go.btime if board.turn.name == "BLACK" else go.wtime
    if clock is not None:
        milliseconds = max(milliseconds or 0, clock)
    if go.infinite:
        return float("inf")
    return (milliseconds or 60_000) / 1000 + REPLY_GRACE_SECONDS


def _option_name(declaration: str) -> str:
    """``name Hash type spin ...`` -> ``Hash``."""
    words = declaration.split()
    if len(words) >= 2 and words[0] == "name":
        end = words.index("type") if "type" in words else len(words)
        return " ".join(words[1:end])
    return declaration


class SimpleEngineClient:
    """A blocking facade over :class:`EngineClient` for scripts.

    >>> import sys
    >>> with SimpleEngineClient.popen([sys.executable, "-m", "doublecorner", "engine"]) as engine:
    ...     result = engine.play(Board("W:W18:B14"), GoCommand(depth=3))
    >>> str(result.move)
    '18x9'
    """

    def __init__(self, client: EngineClient, loop: asyncio.AbstractEventLoop,
                 thread: threading.Thread) -> None:
        self._client = client
        self._loop = loop
        self._thread = thread

    @classmethod
    def popen(cls, command: Sequence[str], *, name: str | None = None,
              timeout: float = HANDSHAKE_SECONDS) -> SimpleEngineClient:
        """Start ``command`` and do the handshake.

        :raises EngineError: as :meth:`EngineClient.start`.
        """
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="dcp-client", daemon=True)
        thread.start()
        try:
            client = asyncio.run_coroutine_threadsafe(
                EngineClient.start(command, name=name, timeout=timeout), loop).result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        return cls(client, loop, thread)

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    @property
    def name(self) -> str:
        return self._client.name

    @property
    def options(self) -> dict[str, str]:
        return self._client.options

    def configure(self, options: Mapping[str, object]) -> None:
        self._run(self._client.configure(options))

    def new_game(self) -> None:
        self._run(self._client.new_game())

    def play(self, board: Board, go: GoCommand, *, timeout: float | None = None) -> PlayResult:
        """:meth:`EngineClient.play`, blocking."""
        return self._run(self._client.play(board, go, timeout=timeout))

    def close(self) -> None:
        """Quit the program and stop the background loop."""
        if self._loop.is_closed():
            return
        try:
            self._run(self._client.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> SimpleEngineClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
