"""Progress of runs on standard error, shown only when a person is watching (a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def run_progress(description: str, total: int, *, simulated_s: float | None = None
                 ) -> Iterator[Callable[[float, int], None]]:
    """A ``progress(done, total)`` callback drawing a transient bar on a terminal's stderr.

    ``done`` may be fractional (runs in progress counted by their simulated time), so a long
    single run moves the bar too; with ``simulated_s`` (each run's simulated duration) the
    bar also shows how far in simulated time the runs are, and an estimate of the time left.
    Off when stderr is not a terminal, so piped output, ``--json`` consumers and logs see
    nothing of it."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = ["[progress.description]{task.description}", BarColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[where]}"), TextColumn("elapsed"), TimeElapsedColumn(),
               TextColumn("left"), TimeRemainingColumn()]
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total, where="")

        def update(done: float, total: int) -> None:
            where = f"{done:.2f}/{total} runs" if total > 1 else ""
            if simulated_s and total == 1:
                where = f"t = {done * simulated_s:.6g} of {simulated_s:.6g} s"
            bar.update(task, completed=done, total=total, where=where)

        yield update
