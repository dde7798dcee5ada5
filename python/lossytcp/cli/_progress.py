"""Progress of runs on standard error, shown only when a person is watching (a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def run_progress(description: str, total: int) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a transient bar on a terminal's stderr.

    Off when stderr is not a terminal, so piped output, ``--json`` consumers and logs see
    nothing of it."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
