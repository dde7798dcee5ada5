"""A progress bar with ETA for sweeps, on a terminal's standard error only."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class _Callback:
    """``progress(done, total)``, and ``progress.phase(description)``: another callback
    drawing on the same bar under another description (planning, then runs)."""

    def __init__(self, bar=None, task=None) -> None:
        self._bar, self._task = bar, task

    def __call__(self, done: int, total: int) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)

    def phase(self, description: str) -> Callable[[int, int], None]:
        def update(done: int, total: int) -> None:
            if self._bar is not None:
                self._bar.update(self._task, description=description, completed=done,
                                 total=total)
        return update


@contextmanager
def sweep_progress(description: str, force: bool = False) -> Iterator[_Callback]:
    """A ``progress(done, total)`` callback drawing a rich bar with elapsed time and ETA.

    Silent when standard error is not a terminal (pipes, logs, tests) unless ``force``."""
    if not (force or sys.stderr.isatty()):
        yield _Callback()
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
        yield _Callback(bar, bar.add_task(description, total=None))
