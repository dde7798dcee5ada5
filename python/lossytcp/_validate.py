"""Checks shared by the simulator API and the analytical models.

Each check raises :class:`~lossytcp.errors.ParameterError` naming the parameter, the value and
the valid range, and returns the value (converted) so callers can write ``x = positive("x", x)``.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .errors import ParameterError

if TYPE_CHECKING:
    import numpy as np


#: Longest simulated time anything may last, in seconds (31.7 years): the engine counts time
#: in u64 nanoseconds (584 years), so sums of durations, delays and timers cannot overflow.
MAX_TIME_S = 1e9


@contextmanager
def where(prefix: str, rename: dict[str, str] | None = None) -> Iterator[None]:
    """Names a :class:`ParameterError` raised inside after its place: ``links[2]`` +
    ``rate_bps`` -> ``links[2].rate_bps`` (see :meth:`ParameterError.prefixed`)."""
    try:
        yield
    except ParameterError as e:
        raise e.prefixed(prefix, rename) from None


def _as_float(name: str, value: object, valid: str) -> float:
    if isinstance(value, bool):
        raise ParameterError(name, value, valid)
    if isinstance(value, (str, bytes)):
        # The API takes numbers in the unit of the name (rate_bps=2e6); text with units is
        # the command line's, parsed by lossytcp.units.
        raise ParameterError(name, value, valid + " (a number in the unit of the name, not "
                             "text: for '2Mbps' write 2e6, or use lossytcp.units.rate_bps)")
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(name, value, valid) from None
    if not math.isfinite(x):
        raise ParameterError(name, value, valid)
    return x


def probability(
    name: str, value: object, *, open_low: bool = False, open_high: bool = False
) -> float:
    lo = "(0" if open_low else "[0"
    hi = "1)" if open_high else "1]"
    valid = f"must be a finite probability in {lo}, {hi}"
    x = _as_float(name, value, valid)
    if x < 0 or x > 1 or (open_low and x == 0) or (open_high and x == 1):
        raise ParameterError(name, value, valid)
    return x


def positive(name: str, value: object) -> float:
    valid = "must be a finite number > 0"
    x = _as_float(name, value, valid)
    if x <= 0:
        raise ParameterError(name, value, valid)
    return x


def non_negative(name: str, value: object) -> float:
    valid = "must be a finite number >= 0"
    x = _as_float(name, value, valid)
    if x < 0:
        raise ParameterError(name, value, valid)
    return x


def in_range(name: str, value: object, lo: float, hi: float) -> float:
    valid = f"must be a finite number in [{lo}, {hi}]"
    x = _as_float(name, value, valid)
    if x < lo or x > hi:
        raise ParameterError(name, value, valid)
    return x


def boolean(name: str, value: object) -> bool:
    """True or False (numpy's too); not 1, "yes" or "no": a truthy string would turn a switch
    on whatever it says."""
    np_mod = sys.modules.get("numpy")  # a numpy bool means numpy is already imported
    if isinstance(value, bool) or (np_mod is not None and isinstance(value, np_mod.bool_)):
        return bool(value)
    raise ParameterError(name, value, "must be True or False")


def optional_boolean(name: str, value: object, default_note: str) -> bool | None:
    if value is None:
        return None
    np_mod = sys.modules.get("numpy")
    if isinstance(value, bool) or (np_mod is not None and isinstance(value, np_mod.bool_)):
        return bool(value)
    raise ParameterError(name, value, f"must be True, False or None ({default_note})")


def duration(name: str, value: object, *, lo: float = 0.0, open_low: bool = False) -> float:
    """A time in seconds in [lo, MAX_TIME_S] (or (lo, ...] with ``open_low``)."""
    valid = (f"must be a finite number of seconds {'>' if open_low else '>='} {lo:g} "
             f"(and at most {MAX_TIME_S:g})")
    x = _as_float(name, value, valid)
    if x < lo or (open_low and x == lo) or x > MAX_TIME_S:
        raise ParameterError(name, value, valid)
    return x


def integer(name: str, value: object, lo: int, hi: int | None = None) -> int:
    valid = f"must be an integer >= {lo}" if hi is None else f"must be an integer in [{lo}, {hi}]"
    if isinstance(value, bool):
        raise ParameterError(name, value, valid)
    # numbers.* rather than numpy's types: numpy is imported lazily (a short run from a fresh
    # interpreter should not pay ~50 ms for it), and numpy registers its scalars there.
    if isinstance(value, numbers.Integral):
        x = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        x = int(value)
    else:
        raise ParameterError(name, value, valid)
    if x < lo or (hi is not None and x > hi):
        raise ParameterError(name, value, valid)
    return x


def choice(name: str, value: object, options: Sequence[str]) -> str:
    valid = "must be one of " + ", ".join(repr(o) for o in options)
    if not isinstance(value, str):
        raise ParameterError(name, value, valid)
    v = value.lower().replace("-", "_")
    for o in options:
        if o.lower().replace("-", "_") == v:
            return o
    raise ParameterError(name, value, valid)


def stochastic_matrix(name: str, value: object, *, tol: float = 1e-9) -> np.ndarray:
    """A square matrix with entries in [0, 1] whose rows each sum to 1."""
    import numpy as np

    try:
        m = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be a square matrix of numbers") from None
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise ParameterError(name, value, "must be a non-empty square matrix")
    if not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(m > 1):
        raise ParameterError(name, value, "entries must be finite probabilities in [0, 1]")
    sums = m.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > tol)
    if bad.size:
        i = int(bad[0])
        raise ParameterError(
            f"{name}[{i}]", m[i].tolist(),
            f"each row must sum to 1 (row {i} sums to {sums[i]:.12g})",
        )
    return m


def vector(
    name: str,
    value: object,
    n: int | None = None,
    *,
    positive_entries: bool = False,
    non_negative_entries: bool = False,
) -> np.ndarray:
    import numpy as np

    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "must be a sequence of numbers") from None
    if v.ndim != 1 or v.size == 0:
        raise ParameterError(name, value, "must be a non-empty 1-D sequence of numbers")
    if n is not None and v.size != n:
        raise ParameterError(name, value, f"must have exactly {n} entries")
    if not np.all(np.isfinite(v)):
        raise ParameterError(name, value, "entries must be finite")
    if positive_entries and np.any(v <= 0):
        raise ParameterError(name, value, "entries must be > 0")
    if non_negative_entries and np.any(v < 0):
        raise ParameterError(name, value, "entries must be >= 0")
    return v
