"""Errors raised at the Python boundary, before any work starts."""

from __future__ import annotations

from typing import Any

#: Longest value quoted in an error message: a parsed 200 KB trace or a long list would
#: otherwise print itself whole (issue 13 found a 1.4 MB message).
EXCERPT_CHARS = 120


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)``, cut in the middle to at most about ``limit`` characters."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 10, 10)
    return f"{text[:keep]} ... {text[-keep:]} ({len(text)} characters)"


class ParameterError(ValueError):
    """A parameter is out of its valid range.

    The message always names the parameter, the offending value (an excerpt if it is long)
    and the valid range, so a user can fix the call without reading the source. ``value``
    keeps the whole value.
    """

    def __init__(self, name: str, value: object, valid: str) -> None:
        self.name = name
        self.value = value
        self.valid = valid
        super().__init__(f"parameter '{name}' = {excerpt(value)} is invalid: {valid}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt as it is (message, name, value) in another process: a worker of an
        # experiment's pool raises it, the parent reports it. The default would call
        # ``cls(*args)`` with the message alone.
        return _rebuild, (type(self), self.args, self.__dict__)

    def prefixed(self, prefix: str, rename: dict[str, str] | None = None) -> ParameterError:
        """The same error with its parameter named inside ``prefix`` (``links[2]`` +
        ``rate_bps`` -> ``links[2].rate_bps``); ``rename`` maps a field's name to the name the
        user wrote (a spec string's ``hold`` for the field ``hold_s``)."""
        head, dot, rest = self.name.partition(".")
        head = (rename or {}).get(head, head)
        name = head + dot + rest if head else rest
        if prefix and name:
            name = prefix + ("" if name.startswith("[") else ".") + name
        elif prefix:
            name = prefix
        return ParameterError(name, self.value, self.valid)


def _rebuild(cls: type[ParameterError], args: tuple[Any, ...],
             state: dict[str, Any]) -> ParameterError:
    e = cls.__new__(cls)
    e.args = args
    e.__dict__.update(state)
    return e


class ScenarioError(ParameterError):
    """The scenario as a whole cannot run: the message says why in a sentence (no single
    parameter is to blame)."""

    def __init__(self, message: str) -> None:
        super().__init__("scenario", None, message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.args[0])


class NoProgressError(ScenarioError):
    """The engine's Zeno guard ended a run making no progress in simulated time: the
    scenario's durations are too small for the engine's clock (1 ns) somewhere the floors
    checked before the run did not foresee."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the run made no progress: {detail}")


class WorkerDied(RuntimeError):
    """A worker process of a local pool ended while running a task (killed from outside, out
    of memory): the sweep stops, every run finished before is kept, and rerunning resumes."""
