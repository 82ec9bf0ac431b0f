"""Run independent tasks on a Ray cluster: what distributed matches and analyses share.

Ray is an optional dependency (``pip install '.[ray]'``), imported
only here and only when tasks run. Without an address, Ray joins the cluster
that ``RAY_ADDRESS`` or a ``ray start`` on this machine names, else starts one
here for the job; a Ray started here is shut down at the end, one already
running in this process is used as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from doublecorner.egtb import Tables

T = TypeVar("T")

MAX_RETRIES = 3  # runs of a task whose worker died (a node lost, a process killed)


def run_on_ray(function: Callable[..., T], arguments: Sequence[tuple[Any, ...]], *,
               address: str | None = None, memory: Sequence[int] | None = None,
               on_result: Callable[[T], None] | None = None) -> list[T]:
    """``function(*args)`` for every tuple of ``arguments``, one Ray task each.

    ``memory`` gives each task's bytes to Ray's scheduler, which then starts
    no more tasks on a node than its memory holds (Ray counts CPUs only,
    without it). ``on_result`` is called in the calling thread as each task finishes.
    Returns the results in the order they finished. On an error or an
    interrupt the tasks not yet finished are cancelled.

    :raises ImportError: Ray is not installed.
    """
    if not arguments:
        return []
    import ray

    with ray_session(address):
        task = ray.remote(max_retries=MAX_RETRIES)(function)
        if memory is None:
            pending = [task.remote(*args) for args in arguments]
        else:
            pending = [task.options(memory=amount).remote(*args)
                       for args, amount in zip(arguments, memory, strict=True)]
        results: list[T] = []
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                result: T = ray.get(ready[0])
                results.append(result)
                if on_result is not None:
                    on_result(result)
        finally:
            for ref in pending:  # an error or an interrupt: run no more
                ray.cancel(ref, force=True)
        return results


@contextlib.contextmanager
def ray_session(address: str | None = None) -> Iterator[None]:
    """Ray joined (or started) for the ``with`` block; one started here is shut down after.

    Jobs that call :func:`run_on_ray` several times in a row (the levels of an
    endgame-table build) hold one session around the calls, so Ray starts once.

    :raises ImportError: Ray is not installed.
    """
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def task_tables(egtb_dir: str | None) -> Tables | None:
    """The endgame tables a task loads for itself (they must be in ``egtb_dir`` on every node)."""
    if egtb_dir is None:
        return None
    from doublecorner.egtb import LOADED_PIECES, load_tables

    return load_tables(Path(egtb_dir), max_pieces=LOADED_PIECES, lazy_dtc=True)
