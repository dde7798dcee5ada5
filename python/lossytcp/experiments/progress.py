"""A progress bar with ETA for sweeps, on a terminal's standard error only."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def sweep_progress(description: str, force: bool = False
                   ) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a rich bar with elapsed time and ETA.

    Silent when standard error is not a terminal (pipes, logs, tests) unless ``force``."""
    if not (force or sys.stderr.isatty()):
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), "ETA", TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
