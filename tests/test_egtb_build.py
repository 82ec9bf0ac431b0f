"""Building endgame tables: exact values (an independent solver), checks, resuming."""

from __future__ import annotations

import collections
import threading
from pathlib import Path

import pytest

from doublecorner.egtb import (
    Material,
    TableError,
    Value,
    build,
    build_levels,
    build_order,
    load_tables,
    materials,
    verify,
)
from doublecorner.egtb.build import _MemoryGate
from doublecorner.egtb.storage import slice_path
from doublecorner.kernel import generate_moves
from doublecorner.position import Position
from tests.retrograde import settle
from tests.test_egtb_index import _placements

State = tuple[int, int, int, int]  # black, white, kings, turn


def _solve_independently(max_pieces: int) -> dict[State, Value]:
    """Values of every position with both sides to move, by a plain retrograde over dicts.

    Shares nothing with the builder but the move generator: no ranking, no
    flipping, no slices.
    """
    value: dict[State, Value] = {}
    open_moves: dict[State, int] = {}
    parents: dict[State, list[State]] = collections.defaultdict(list)
    queue: collections.deque[State] = collections.deque()
    for material in materials(max_pieces):
        for black, white, kings in _placements(material):
            for turn in (0, 1):
                state = (black, white, kings, turn)
                children = generate_moves(black, white, kings, turn).tolist()
                open_moves[state] = len(children)
                for child_black, child_white, child_kings, _ in children:
                    if (child_white if turn == 0 else child_black) == 0:
                        value[state] = Value.WIN  # took the last piece
                    parents[(child_black, child_white, child_kings, 1 - turn)].append(state)
                if not children:
                    value[state] = Value.LOSS
                if state in value:
                    queue.append(state)
    settle(queue, parents, value, open_moves)
    return {state: value.get(state, Value.DRAW) for state in open_moves}


@pytest.fixture(scope="module")
def three_piece_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("egtb3")
    build(3, directory)
    return directory


def test_every_position_of_up_to_three_pieces_matches_an_independent_solver(
        three_piece_dir: Path) -> None:
    tables = load_tables(three_piece_dir, max_pieces=3)
    expected = _solve_independently(3)
    assert len(expected) == 2 * 199_520
    wrong = [state for state, value in expected.items()
             if tables.value(Position(*state)) != value]
    assert wrong == []
    assert set(expected.values()) == {Value.WIN, Value.DRAW, Value.LOSS}


def test_a_built_table_passes_the_full_check(three_piece_dir: Path) -> None:
    assert verify(3, three_piece_dir) == 199_520


def test_the_check_catches_a_flipped_value(three_piece_dir: Path, tmp_path: Path) -> None:
    for path in three_piece_dir.glob("*.dcdb"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    tables = load_tables(tmp_path, max_pieces=3)
    material = Material(0, 2, 0, 1)
    data = tables.dtc_array(material)
    offsets, packed = tables.arrays()
    start = int(offsets[material.code]) // 4
    packed[start] ^= 0b11  # one position's value changes (draw <-> loss, win -> other)
    from doublecorner.egtb.build import check_built_pair

    assert data.shape == (material.size,)
    with pytest.raises(TableError, match="inconsistent"):
        check_built_pair((material,) if material.mirror() == material
                         else tuple(sorted((material, material.mirror()))), tables)


def test_a_finished_slice_is_not_rebuilt(tmp_path: Path) -> None:
    first = build(3, tmp_path)
    assert first.loaded == [] and len(first.built) == len(materials(3))
    victim = Material(0, 2, 0, 1)
    slice_path(tmp_path, victim).unlink()
    before = {path.name: path.stat().st_mtime_ns for path in tmp_path.glob("*.dcdb")}
    again = build(3, tmp_path)
    pair = next(pair for pair in build_order(3) if victim in pair)
    assert sorted(again.built) == sorted(material.name for material in pair)
    assert all(path.stat().st_mtime_ns == before[path.name]
               for path in tmp_path.glob("*.dcdb")
               if path.name[:4] not in again.built)
    assert list(tmp_path.glob(".*")) == []  # no temporary file left behind


def test_a_damaged_slice_is_rebuilt(tmp_path: Path) -> None:
    build(2, tmp_path)
    path = slice_path(tmp_path, Material(0, 1, 0, 1))
    blob = bytearray(path.read_bytes())
    blob[45] ^= 0xFF
    path.write_bytes(bytes(blob))
    report = build(2, tmp_path)
    assert report.built == ["0101"]
    assert verify(2, tmp_path) == sum(material.size for material in materials(2))


def test_bad_piece_counts_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"2\.\.6"):
        build(7, tmp_path)


def _file_bytes(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.glob("*.dcdb"))}


def test_no_pair_converts_into_its_own_level_or_a_later_one() -> None:
    levels = build_levels(6)
    assert sorted(pair for level in levels for pair in level) == sorted(build_order(6))
    placed = {material: number for number, level in enumerate(levels)
              for pair in level for material in pair}
    for material, number in placed.items():
        bm, bk, wm, wk = material
        assert placed[material.mirror()] == number  # a quiet move: the mirror, same level
        # Black to move: a capture takes a white piece, a crowning makes a man a king;
        # the child is stored flipped, as the mirror of what is left.
        converted = [Material(bm, bk, wm - 1, wk), Material(bm, bk, wm, wk - 1),
                     Material(bm - 1, bk + 1, wm, wk)]
        for child in converted:
            if min(child) >= 0 and child[2] + child[3] > 0:
                assert placed[child.mirror()] < number, (material.name, child.name)


def test_two_jobs_write_the_same_files_as_one(three_piece_dir: Path, tmp_path: Path) -> None:
    report = build(3, tmp_path, jobs=2)
    assert len(report.built) == len(materials(3))
    assert _file_bytes(tmp_path) == _file_bytes(three_piece_dir)


def test_the_memory_gate_runs_a_pair_larger_than_the_budget_alone() -> None:
    gate = _MemoryGate(budget=10)
    gate.acquire(25)  # nothing runs: it may start
    started = threading.Event()

    def second() -> None:
        gate.acquire(5)
        started.set()
        gate.release(5)

    waiter = threading.Thread(target=second)
    waiter.start()
    assert not started.wait(0.2)  # 25 + 5 is over the budget: it waits
    gate.release(25)
    assert started.wait(5)
    waiter.join()
    assert gate.used == 0 and gate.running == 0


def test_bad_job_counts_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="jobs must be at least 1, not 0"):
        build(3, tmp_path, jobs=0)
    assert list(tmp_path.iterdir()) == []
