"""The engine's strength against its peers: full-deck matches at a time per move.

Usage::

    python bench/strength.py                      # both peers, 312 games each, 0.1 s/move
    python bench/strength.py --openings 1-10      # a quicker look
    python bench/strength.py --peers openspiel --time 0.2

For each peer (py-draughts' engine with captures forced; OpenSpiel's checkers
MCTS bot), creates its virtualenv under ``bench/.venvs`` on first use (see
``bench/perft.py``) and plays ``doublecorner match engine:time=T PEER:python=...``
over the chosen openings of the ACF deck, each twice with colours reversed,
``--concurrency`` games at a time. Writes every game to ``bench/results/`` as
PDN and prints, per peer: W/D/L, score, Elo with its 95 % interval, moves
played at random for a peer that had none (OpenSpiel's own no-capture rule
ends its games early), and the engine's nodes per second during the match.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from doublecorner.cli.match import parse_openings  # noqa: E402
from doublecorner.engine import Limit  # noqa: E402
from doublecorner.match import (  # noqa: E402
    EnginePlayer,
    GameRecord,
    Player,
    parse_player,
    run_match,
    score_of,
    three_move_deck,
)
from perft import PEERS, ensure_venv, progress  # noqa: E402

# Our name for the player -> the bench/perft.py peer whose virtualenv has the package.
PEER_VENVS = {"pydraughts": "py-draughts", "openspiel": "open-spiel"}
RESULTS = BENCH_DIR / "results"


def play(peer: str, seconds: float, openings: str, concurrency: int) -> str:
    venv_peer = next(candidate for candidate in PEERS if candidate.name == PEER_VENVS[peer])
    python = ensure_venv(venv_peer)
    ballots = parse_openings(openings, three_move_deck())
    limit = Limit(time=seconds)
    engines: list[EnginePlayer] = []

    def ours() -> Player:
        player = EnginePlayer(limit)
        engines.append(player)
        return player

    def theirs() -> Player:
        return parse_player(f"{peer}:python={python}", default_limit=limit, movetime=seconds)

    RESULTS.mkdir(exist_ok=True)
    pdn_path = RESULTS / f"vs-{peer}.pdn"
    started = time.monotonic()
    with pdn_path.open("w", encoding="utf-8") as pdn:
        def on_game(record: GameRecord) -> None:
            pdn.write(record.pdn(event=f"bench/strength.py vs {peer}") + "\n")
            if record.number % 20 == 0:
                progress(f"{peer}: {record.number}/{2 * len(ballots)} games")

        records = run_match(ours, theirs, ballots, concurrency=concurrency, on_game=on_game)
    score = score_of(records)
    fallbacks = sum(record.fallback_moves for record in records)
    nodes = sum(engine.nodes for engine in engines)
    searching = sum(engine.seconds for engine in engines)
    return (f"{peer:<11} {len(records)} games in {time.monotonic() - started:.0f} s: "
            f"{score.summary()}; {fallbacks} random moves for the peer; engine "
            f"{nodes / searching / 1e6:.2f} M nodes/s; games in {pdn_path.relative_to(BENCH_DIR)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peers", nargs="+", default=list(PEER_VENVS), choices=list(PEER_VENVS))
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move, both sides")
    parser.add_argument("--openings", default="1-156", help="ballot range (default: all 156)")
    parser.add_argument("--concurrency", type=int, default=2)
    arguments = parser.parse_args(argv)
    lines = [play(peer, arguments.time, arguments.openings, arguments.concurrency)
             for peer in arguments.peers]
    print(f"doublecorner at {arguments.time:g} s/move, openings {arguments.openings}:")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
