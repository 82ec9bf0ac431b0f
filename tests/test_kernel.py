"""The compiled kernel: against a naive reading of the rules, without numba, from its cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings

from doublecorner import Board, Position
from doublecorner.kernel import count_moves, decode_path, generate_moves, has_captures
from tests import rules_oracle
from tests.conftest import positions

SAMPLE_FENS = [
    "B:W21-32:B1-12",
    "W:WK15,20:BK28,12",
    "B:W22,K5:BK15,K6",
    "W:WK30,22,16,K2:B21,14,13,K10",
    "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31",
    "W:W30,29,22,21,9,6:B24,20,16,13,8,7",
    "W:WK25:B6,7,14,15,22",
    "W:WK2:B6,7,14,15",
    "B:W6,7,14,15:B2",
]

# Prints, for every sample FEN, the kernel's moves as sorted rows, and a perft.
_DUMP_SCRIPT = """
import json, sys
from doublecorner import Position
from doublecorner.kernel import generate_moves, perft
result = {}
for fen in json.loads(sys.argv[1]):
    p = Position.from_fen(fen)
    rows = sorted(generate_moves(p.black, p.white, p.kings, int(p.turn)).tolist())
    result[fen] = [rows, perft(p.black, p.white, p.kings, int(p.turn), 3)]
print(json.dumps(result))
"""


def _kernel_rows(position: Position) -> list[list[int]]:
    return sorted(generate_moves(position.black, position.white, position.kings,
                                 int(position.turn)).tolist())


def _run_dump(env: dict[str, str]) -> dict[str, list[object]]:
    completed = subprocess.run(
        [sys.executable, "-c", _DUMP_SCRIPT, json.dumps(SAMPLE_FENS)],
        capture_output=True, text=True, env=env, check=True, timeout=600)
    loaded: dict[str, list[object]] = json.loads(completed.stdout)
    return loaded


@settings(max_examples=400, deadline=None)
@given(positions())
def test_kernel_moves_match_the_rulebook_reading(position: Position) -> None:
    board = rules_oracle.from_bitboards(position.black, position.white, position.kings)
    turn = "B" if position.turn == 0 else "W"
    expected = sorted(rules_oracle.legal_paths(board, turn))
    rows = _kernel_rows(position)
    assert sorted(decode_path(key) for *_, key in rows) == expected
    for black, white, kings, key in rows:
        after = rules_oracle.play(board, decode_path(key))
        assert rules_oracle.from_bitboards(black, white, kings) == after
    assert count_moves(position.black, position.white, position.kings,
                       int(position.turn)) == len(expected)
    assert has_captures(position.black, position.white, position.kings,
                        int(position.turn)) == any(
        abs(rules_oracle.coordinates(path[0])[0] - rules_oracle.coordinates(path[1])[0]) == 2
        for path in expected)


def test_kernel_gives_identical_results_without_numba() -> None:
    in_process = {fen: [_kernel_rows(Position.from_fen(fen)), None] for fen in SAMPLE_FENS}
    plain_python = _run_dump({**os.environ, "NUMBA_DISABLE_JIT": "1"})
    compiled = _run_dump(dict(os.environ))
    for fen in SAMPLE_FENS:
        assert plain_python[fen] == compiled[fen], fen
        assert plain_python[fen][0] == in_process[fen][0], fen


_CACHE_SCRIPT = """
import importlib, json
from doublecorner import Board
from doublecorner.engine.search import ensure_engine_compiled
Board()  # loads or compiles every kernel function of the rules
ensure_engine_compiled()  # and of the engine
stats = {}
for name in ("movegen", "perft", "hashing", "replies", "evaluate", "search"):
    module = importlib.import_module("doublecorner.kernel." + name)
    for name, value in vars(module).items():
        if hasattr(value, "stats") and hasattr(value, "py_func") and value.signatures:
            stats[name] = [sum(value.stats.cache_hits.values()),
                           sum(value.stats.cache_misses.values())]
print(json.dumps(stats))
"""


def test_compiled_kernel_is_cached_and_loads_in_a_fresh_process(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    first = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT], capture_output=True,
                           text=True, env=env, check=True, timeout=900)
    assert "compiling the move generator" in first.stderr
    assert "compiling the engine" in first.stderr
    second = subprocess.run([sys.executable, "-c", _CACHE_SCRIPT], capture_output=True,
                            text=True, env=env, check=True, timeout=300)
    assert "compiling" not in second.stderr
    stats = json.loads(second.stdout)
    assert {"generate_moves", "count_moves", "perft", "generate_with_reply_counts",
            "evaluation_features", "search_window"} <= set(stats)
    for name, (hits, misses) in stats.items():
        assert misses == 0 and hits >= 1, (name, hits, misses)


def test_board_moves_come_from_the_kernel() -> None:
    for fen in SAMPLE_FENS:
        position = Position.from_fen(fen)
        from_kernel = sorted(decode_path(key) for *_, key in _kernel_rows(position))
        assert sorted(move.path for move in Board(fen).legal_moves) == from_kernel
