"""Read and replay a PDN file with pydraughts, inside its own virtualenv; print one JSON line.

Run by ``bench/pdn.py`` as ``python pydraughts_pdn_worker.py FILE``. pydraughts'
``PDNReader`` reads the whole file and cuts it into games; each game's moves
(strings, its comments, NAGs and variations already stripped by the reader)
are then made one by one on a ``Board`` of the ``english`` variant, which
checks each against its legal moves. Prints ``{"name", "method", "games",
"plies", "failed", "read_seconds", "replay_seconds", "seconds"}``; a game whose
move pydraughts cannot make counts as failed and the rest of it is skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from draughts import Board, Move
from draughts.PDN import PDNReader


def replay(moves: Sequence[str], fen: str) -> tuple[int, bool]:
    """The number of moves made, and whether all of them were."""
    board = Board(variant="english", fen=fen)
    for made, text in enumerate(moves):
        try:
            board.push(Move(board, pdn_move=text))
        except Exception:  # whatever the peer raises, the game failed
            return made, False
    return len(moves), True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="read and replay a PDN file with pydraughts")
    parser.add_argument("file", help="the PDN file")
    arguments = parser.parse_args(argv)
    start = time.perf_counter()
    reader = PDNReader(filename=arguments.file)
    read = time.perf_counter()
    plies = failed = 0
    for game in reader.games:
        made, complete = replay(game.moves, game.tags.get("FEN", "startpos"))
        plies += made
        failed += not complete
    done = time.perf_counter()
    print(json.dumps({
        "name": "pydraughts",
        "method": "PDNReader(filename=...), then Board.push(Move(board, pdn_move=...))",
        "games": len(reader.games),
        "plies": plies,
        "failed": failed,
        "read_seconds": read - start,
        "replay_seconds": done - read,
        "seconds": done - start,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
