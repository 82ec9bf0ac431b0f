"""How a network scores a bare king against a bare king (a draw) without tables.

Usage::

    python bench/kings_scan.py                        # the shipped network, about a minute
    python bench/kings_scan.py --network FILE --depth 8

Searches every position of one king each (992 placements, either side to
move: 1,984 positions) to a fixed depth with no endgame tables, and prints
how many it scores beyond half a man (``EVEN_KINGS_DRAW_MAX_SCORE``) that are
not proven results (a king that can take the other is a shot, not a
judgement), then the scores of the positions the play test uses
(tests/test_cli_play.py). A new network changes these figures: the comment
above ``EVEN_KINGS_DRAW_MAX_SCORE`` in ``engine/levels.py`` and that test
quote them.
"""

from __future__ import annotations

import argparse
import sys
import time

from doublecorner import Position
from doublecorner.engine import Engine, Limit
from doublecorner.engine.levels import EVEN_KINGS_DRAW_MAX_SCORE, Strength

PLAY_TEST_POSITIONS = ("B:WK4:BK20", "B:WK13:BK22")
PLAY_TEST_LEVEL = 6


def bare_king_fens() -> list[str]:
    """Every position of one Black king and one White king, Black then White to move."""
    return [f"{turn}:WK{white}:BK{black}"
            for turn in "BW" for black in range(1, 33) for white in range(1, 33)
            if black != white]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", help="a network file (default: the shipped one)")
    parser.add_argument("--depth", type=int, default=8, help="search depth (default: 8)")
    arguments = parser.parse_args(argv)
    engine = Engine(tables=None, network=arguments.network)
    fens = bare_king_fens()
    started = time.monotonic()
    beyond = decided = 0
    for done, fen in enumerate(fens, start=1):
        engine.new_game()
        score = engine.search(Position.from_fen(fen), Limit(depth=arguments.depth)).score
        if score.is_win or score.is_loss:
            decided += 1
        elif abs(score.value) > EVEN_KINGS_DRAW_MAX_SCORE:
            beyond += 1
        if done % 200 == 0 or done == len(fens):
            print(f"{done}/{len(fens)} positions, {time.monotonic() - started:.0f} s",
                  file=sys.stderr)
    print(f"depth {arguments.depth}: {beyond} of the {len(fens):,} bare-king positions "
          f"scored beyond {EVEN_KINGS_DRAW_MAX_SCORE / 100:.2f} without a proven result "
          f"({decided} proven: a king takes the other)")
    strength = Strength.from_level(PLAY_TEST_LEVEL)  # as `doublecorner play --level` searches
    for fen in PLAY_TEST_POSITIONS:
        engine.new_game()
        score = engine.search(Position.from_fen(fen), strength.limit).score
        # The test's engine plays White, Black to move: its score is the search's, negated.
        print(f"{fen}: {-score} for White at {strength.name} (depth {strength.limit.depth})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
