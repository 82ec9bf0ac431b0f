"""Nodes per second of py-draughts' engine (``SimpleEngine``), run in its own virtualenv.

Reads a JSON object from stdin: ``{"fens": [...], "seconds": S}``; searches
each position for ``S`` seconds (its ``time_limit``, with a depth cap it does
not reach) on a board whose captures are compulsory (see
``py_draughts_worker.py``), and prints one JSON line:
``{"name", "nodes", "seconds", "positions"}``. Its ``TurboEngine`` plays only
the 10x10 game, so ``SimpleEngine`` is the library's engine for checkers.
"""

from __future__ import annotations

import json
import sys
import time

from draughts import AmericanBoard, Move
from draughts.boards._core import CORE_AMERICAN
from draughts.engines import SimpleEngine

DEPTH_CAP = 64  # the time limit ends every search first


class ForcedCaptureBoard(AmericanBoard):
    """American board on which a capture, when available, must be taken."""

    @property
    def legal_moves(self) -> list[Move]:
        return self._legal_moves_from_core(
            CORE_AMERICAN, max_capture=False, captures_optional=False
        )


def main() -> int:
    request = json.loads(sys.stdin.read())
    seconds = float(request["seconds"])
    nodes = 0
    elapsed = 0.0
    for fen in request["fens"]:
        engine = SimpleEngine(depth_limit=DEPTH_CAP, time_limit=seconds)
        board = ForcedCaptureBoard.from_fen(fen)
        started = time.perf_counter()
        engine.get_best_move(board)
        elapsed += time.perf_counter() - started
        nodes += engine.inspected_nodes
    print(json.dumps({"name": "py-draughts SimpleEngine", "nodes": nodes, "seconds": elapsed,
                      "positions": len(request["fens"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
