"""The build driver: solve slice pairs in order, check them, write them; resume where left.

Each mirror pair of slices (see :mod:`doublecorner.kernel.egtb_build`) is
solved with every slice it converts into already in memory. The pairs come in
levels of equal pieces and men (:func:`build_levels`); the pairs of one level
do not depend on each other, so ``jobs`` threads solve them side by side (and
:mod:`doublecorner.egtb.build_distributed` spreads them over a Ray cluster). A
pair whose files are present and whole is loaded instead of rebuilt, so an
interrupted build resumes with the pairs it had not finished.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from doublecorner.egtb.material import Material, build_levels, build_order, total_positions
from doublecorner.egtb.probe import Tables, load_tables
from doublecorner.egtb.solve import Region, first_inconsistent, solve_region
from doublecorner.egtb.storage import SliceData, read_slice, write_slice
from doublecorner.errors import TableError
from doublecorner.kernel.egtb_build import (
    pack_values,
)

MAX_PIECES = 6  # what the index and the material codes allow
BYTES_PER_POSITION = 48  # solving a pair: its arrays, predecessor lists and slice copies
MEMORY_SHARE = 0.8  # of the memory available when a level starts, for its pairs

# on_progress(positions done, positions in all, slice being built)
ProgressCallback = Callable[[int, int, str], None]


@dataclass
class BuildReport:
    """What a build did."""

    built: list[str] = field(default_factory=list)  # slices solved now
    loaded: list[str] = field(default_factory=list)  # slices found whole on disk
    positions: int = 0
    deepest_dtc: int = 0  # among the slices solved now
    seconds: float = 0.0


class _Pair(Region):
    """A slice pair being solved, the positions of its first slice first."""

    def __init__(self, slices: tuple[Material, ...]) -> None:
        self.slices = slices
        size_a = slices[0].size
        size_b = slices[1].size if len(slices) > 1 else 0
        super().__init__(slices[0], slices[-1], size_a=size_a, size_b=size_b)

    def parts(self) -> list[tuple[Material, slice]]:
        found = [(self.slices[0], slice(0, self.size_a))]
        if len(self.slices) > 1:
            found.append((self.slices[1], slice(self.size_a, self.total)))
        return found


def _slice_data(pair: _Pair) -> list[SliceData]:
    dtc_type = np.uint8 if int(pair.depth.max(initial=0)) <= 255 else np.uint16
    found = []
    for material, part in pair.parts():
        values = pair.value[part]
        packed = np.zeros((values.shape[0] + 3) // 4, np.uint8)
        pack_values(values, packed, 0)
        found.append(SliceData(material, packed, pair.depth[part].astype(dtc_type)))
    return found


def check_built_pair(pair: tuple[Material, ...], tables: Tables) -> None:
    """Check a loaded pair against the forward moves (see ``check_pair``).

    :raises TableError: a position's value or DTC does not follow from its moves.
    """
    solved = _Pair(pair)
    solved.depth = np.concatenate([tables.dtc_array(material) for material in pair])
    bad = first_inconsistent(solved, tables)
    if bad >= 0:
        material = pair[0] if bad < solved.size_a else pair[-1]
        index = bad if bad < solved.size_a else bad - solved.size_a
        raise TableError(f"slice {material.name}: position {index} is inconsistent")


def read_pair(directory: Path, pair: tuple[Material, ...]) -> list[SliceData]:
    """The values of ``pair`` if every file is on disk and whole, else an empty list.

    The DTC is left out: a build only probes the values of what it converts into.
    """
    try:
        return [read_slice(directory, material, with_dtc=False) for material in pair]
    except TableError:
        return []


def solve_pair(pair: tuple[Material, ...], tables: Tables, directory: Path, *, check: bool,
               advance: Callable[[int], None]) -> int:
    """Solve one pair with what it converts into loaded in ``tables``; put it there and on disk.

    Returns the pair's largest DTC. With ``check`` the pair is checked against
    the forward moves before anything is written.

    :raises TableError: the pair fails its check.
    """
    solving = _Pair(pair)
    deepest = solve_region(solving, tables, advance)
    slices = _slice_data(solving)
    del solving
    for data in slices:
        tables.put(data)
    if check:
        check_built_pair(pair, tables)
    for data in slices:
        write_slice(directory, data)
        # Later pairs probe only its values: its DTC (a byte a position) need not stay.
        tables.put(dataclasses.replace(data, dtc=None))
    return deepest


def pair_memory(pair: tuple[Material, ...]) -> int:
    """About the most bytes solving ``pair`` holds at once (``bench/egtb.py`` measures it)."""
    return BYTES_PER_POSITION * sum(material.size for material in pair)


def available_memory() -> int:
    """Bytes the system can give without swapping (Linux's MemAvailable, else free pages)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


class _MemoryGate:
    """Lets a pair start only while the pairs running leave room for it.

    A pair larger than the whole budget still runs, alone, rather than never.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.running = 0
        self.changed = threading.Condition()

    def acquire(self, amount: int) -> None:
        with self.changed:
            self.changed.wait_for(
                lambda: self.running == 0 or self.used + amount <= self.budget)
            self.used += amount
            self.running += 1

    def release(self, amount: int) -> None:
        with self.changed:
            self.used -= amount
            self.running -= 1
            self.changed.notify_all()


def build(max_pieces: int, directory: Path, *, check: bool = True, jobs: int = 1,
          on_progress: ProgressCallback | None = None) -> BuildReport:
    """Build (or finish) every slice of up to ``max_pieces`` pieces in ``directory``.

    With ``check``, each pair solved is checked against the forward moves
    before it is written. ``jobs`` pairs of a level are solved at once, in
    threads (the compiled passes release the GIL), as far as the memory the
    system has left allows; the files are the same whatever ``jobs`` is.

    :raises ValueError: ``max_pieces`` is not in 2..6, or ``jobs`` is below 1.
    :raises TableError: a slice fails its check.
    """
    if not 2 <= max_pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be in 2..{MAX_PIECES}, not {max_pieces}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    started = time.monotonic()
    report = BuildReport(positions=total_positions(max_pieces))
    tables = Tables(max_pieces)
    progress = _Progress(2 * report.positions, on_progress)
    for level in build_levels(max_pieces):
        missing = []
        for pair in level:
            found = read_pair(directory, pair)
            if not found:
                missing.append(pair)
                continue
            for data in found:
                tables.put(data)
            report.loaded.extend(material.name for material in pair)
            progress.advance(2 * sum(material.size for material in pair), _names(pair))
        if jobs == 1 or len(missing) < 2:
            deepest = [_solve_counted(pair, tables, directory, check, progress)
                       for pair in missing]
        else:
            deepest = _solve_in_threads(missing, tables, directory, check, progress, jobs)
        report.deepest_dtc = max([report.deepest_dtc, *deepest])
        report.built.extend(material.name for pair in missing for material in pair)
    report.seconds = time.monotonic() - started
    return report


def _names(pair: tuple[Material, ...]) -> str:
    return "/".join(material.name for material in pair)


class _Progress:
    """Positions done over all, reported from any thread."""

    def __init__(self, total: int, on_progress: ProgressCallback | None) -> None:
        self.total = total
        self.done = 0
        self.on_progress = on_progress
        self.lock = threading.Lock()

    def advance(self, amount: int, name: str) -> None:
        with self.lock:
            self.done += amount
            if self.on_progress is not None:
                self.on_progress(self.done, self.total, name)


def _solve_counted(pair: tuple[Material, ...], tables: Tables, directory: Path, check: bool,
                   progress: _Progress) -> int:
    name = _names(pair)
    return solve_pair(pair, tables, directory, check=check,
                      advance=lambda amount: progress.advance(amount, name))


def _solve_in_threads(pairs: list[tuple[Material, ...]], tables: Tables, directory: Path,
                      check: bool, progress: _Progress, jobs: int) -> list[int]:
    """Solve the pairs of one level in ``jobs`` threads, largest first, within the memory."""
    gate = _MemoryGate(int(MEMORY_SHARE * available_memory()))

    def run(pair: tuple[Material, ...]) -> int:
        amount = pair_memory(pair)
        gate.acquire(amount)
        try:
            return _solve_counted(pair, tables, directory, check, progress)
        finally:
            gate.release(amount)

    with concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="egtb") as pool:
        futures = [pool.submit(run, pair) for pair in pairs]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:  # pairs already running finish and are kept
                future.cancel()
            raise


def verify(max_pieces: int, directory: Path,
           on_progress: ProgressCallback | None = None) -> int:
    """Check every slice of up to ``max_pieces`` pieces in ``directory``; positions checked.

    :raises TableError: a slice is missing, damaged or inconsistent.
    """
    tables = load_tables(directory, max_pieces=max_pieces)
    done = 0
    total = total_positions(max_pieces)
    for pair in build_order(max_pieces):
        for material in pair:
            if not tables.has(material):
                raise TableError(f"{directory}: slice {material.name} is missing")
        check_built_pair(pair, tables)
        done += sum(material.size for material in pair)
        if on_progress is not None:
            on_progress(done, total, "/".join(material.name for material in pair))
    return done


def ensure_tables(directory: Path, *, max_pieces: int = 4,
                  on_progress: ProgressCallback | None = None) -> Tables:
    """Load the tables of up to ``max_pieces`` pieces, building what is missing first.

    Up to 4 pieces the build takes seconds (see ``bench/egtb.py``).

    :raises TableError: a file is damaged.
    """
    tables = load_tables(directory, max_pieces=max_pieces)
    if all(tables.has(material) for pair in build_order(max_pieces) for material in pair):
        return tables
    build(max_pieces, directory, on_progress=on_progress)
    return load_tables(directory, max_pieces=max_pieces)
