"""Statistics over seeds: Student-t intervals, sequential stopping, Welch tests with Holm's
correction, and the power a seed count gives.

Every function takes plain sequences of per-seed values (NaN entries are dropped: a metric
that is undefined for a run, such as the timeout fraction of a run without losses, does not
count as a sample).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import _validate as v
from ..errors import ParameterError

__all__ = ["Interval", "SequentialRule", "holm", "mean_ci", "min_detectable_difference",
           "welch", "welch_power"]


def _finite(values: Sequence[float]) -> np.ndarray:
    x = np.asarray(values, dtype=float).ravel()
    return x[np.isfinite(x)]


@dataclass(frozen=True)
class Interval:
    """Mean of ``n`` samples with the half-width of its Student-t interval at ``level``."""

    mean: float
    halfwidth: float
    n: int
    level: float
    std: float

    @property
    def low(self) -> float:
        return self.mean - self.halfwidth

    @property
    def high(self) -> float:
        return self.mean + self.halfwidth

    @property
    def relative(self) -> float:
        """Half-width over |mean| (inf for a zero mean, NaN without samples)."""
        if not math.isfinite(self.halfwidth):
            return math.nan
        return self.halfwidth / abs(self.mean) if self.mean != 0 else (
            0.0 if self.halfwidth == 0 else math.inf)


def check_level(level: float, name: str = "level") -> float:
    return v.probability(name, level, open_low=True, open_high=True)


def mean_ci(values: Sequence[float], level: float = 0.95) -> Interval:
    """Mean and Student-t confidence half-width for ``n - 1`` degrees of freedom.

    One sample has a half-width of NaN (no spread to estimate), none a NaN mean."""
    level = check_level(level)
    x = _finite(values)
    if x.size == 0:
        return Interval(math.nan, math.nan, 0, level, math.nan)
    if x.size == 1:
        return Interval(float(x[0]), math.nan, 1, level, math.nan)
    from scipy import stats

    sd = float(x.std(ddof=1))
    hw = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * sd / math.sqrt(x.size))
    return Interval(float(x.mean()), hw, int(x.size), level, sd)


@dataclass(frozen=True)
class SequentialRule:
    """Seeds until the CI half-width of ``metric`` is below ``rel_halfwidth`` of its mean (or
    below ``abs_halfwidth``, for means near zero), starting with ``min_seeds`` and adding
    ``step`` seeds at a time, never more than ``max_seeds`` (Pawlikowski et al., "On
    credibility of simulation studies of telecommunication networks", 2002: stop on the
    relative precision of the estimate rather than after a fixed count).

    The decision is taken only after a whole step has finished, from the values of seeds
    ``base_seed .. base_seed + n - 1``, so the number of seeds a point gets depends on the
    data alone, never on which worker finished first: every executor gives the same rows."""

    metric: str = "goodput_norm"
    rel_halfwidth: float = 0.05
    abs_halfwidth: float = 0.0
    min_seeds: int = 3
    max_seeds: int = 30
    step: int = 2
    level: float = 0.95

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "rel_halfwidth", v.non_negative("rel_halfwidth", self.rel_halfwidth))
        s(self, "abs_halfwidth", v.non_negative("abs_halfwidth", self.abs_halfwidth))
        s(self, "min_seeds", v.integer("min_seeds", self.min_seeds, 2, 100_000))
        s(self, "max_seeds", v.integer("max_seeds", self.max_seeds, 2, 100_000))
        s(self, "step", v.integer("step", self.step, 1, 100_000))
        s(self, "level", check_level(self.level))
        if self.max_seeds < self.min_seeds:
            raise ParameterError("max_seeds", self.max_seeds,
                                 f"must be >= min_seeds = {self.min_seeds}")
        if self.rel_halfwidth == 0 and self.abs_halfwidth == 0:
            raise ParameterError("rel_halfwidth", 0, "give rel_halfwidth > 0 or "
                                 "abs_halfwidth > 0: a zero target never stops before the cap")

    def satisfied(self, values: Sequence[float]) -> bool:
        ci = mean_ci(values, self.level)
        if ci.n < 2 or not math.isfinite(ci.halfwidth):
            # every seed gave NaN or one value: more seeds cannot help once at the minimum
            # with no finite sample at all
            return ci.n == 0 and len(values) >= self.min_seeds
        return ci.halfwidth <= max(self.rel_halfwidth * abs(ci.mean), self.abs_halfwidth)

    def next_count(self, values: Sequence[float]) -> int:
        """How many seeds the point should have, given the values of the first ones."""
        n = len(values)
        if n < self.min_seeds:
            return self.min_seeds
        if n >= self.max_seeds or self.satisfied(values):
            return n
        return min(n + self.step, self.max_seeds)


@dataclass(frozen=True)
class Welch:
    t: float
    df: float
    p: float
    diff: float
    se: float


def welch(a: Sequence[float], b: Sequence[float]) -> Welch:
    """Welch's unequal-variance t-test of mean(a) = mean(b), two-sided.

    With zero spread on both sides the test is exact: p = 1 if the means are equal, else 0.
    Fewer than two samples on a side give p = NaN (no variance to estimate)."""
    x, y = _finite(a), _finite(b)
    if x.size < 2 or y.size < 2:
        d = float(x.mean() - y.mean()) if x.size and y.size else math.nan
        return Welch(math.nan, math.nan, math.nan, d, math.nan)
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    d = float(x.mean() - y.mean())
    se = math.sqrt(va + vb)
    if se == 0:
        return Welch(0.0 if d == 0 else math.copysign(math.inf, d), math.inf,
                     1.0 if d == 0 else 0.0, d, 0.0)
    df = (va + vb) ** 2 / (va**2 / (x.size - 1) + vb**2 / (y.size - 1))
    from scipy import stats

    t = d / se
    return Welch(float(t), float(df), float(2 * stats.t.sf(abs(t), df)), d, se)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and is not counted).

    Holm (1979) controls the family-wise error rate like Bonferroni under any dependence
    between the tests, and rejects at least as often: the metrics a crosscheck judges are
    strongly dependent (goodput, packets sent and retransmissions move together), which rules
    out corrections that assume independence (Sidak) or positive dependence of a particular
    kind (Hochberg)."""
    p = np.asarray(pvalues, dtype=float)
    ok = np.flatnonzero(np.isfinite(p))
    out = np.full(p.shape, math.nan)
    m = ok.size
    running = 0.0
    for rank, i in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out.tolist()


def welch_power(n_a: int, n_b: int, sd_a: float, sd_b: float, delta: float,
                alpha: float = 0.05) -> float:
    """Power of the two-sided Welch test at level ``alpha`` to detect a true difference
    ``delta`` with these seed counts and standard deviations (noncentral t, Welch's df)."""
    if n_a < 2 or n_b < 2 or not all(map(math.isfinite, (sd_a, sd_b, delta))):
        return math.nan
    va, vb = sd_a**2 / n_a, sd_b**2 / n_b
    se = math.sqrt(va + vb)
    if se == 0:
        return 1.0 if delta != 0 else alpha
    df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1)) if va + vb > 0 else math.inf
    from scipy import stats

    crit = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) / se
    p = float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))
    if not math.isfinite(p):
        # scipy's noncentral t has no value far in its tail (tiny alpha, few degrees of
        # freedom): the normal approximation of the same statistic, slightly optimistic
        p = float(stats.norm.sf(crit - nc) + stats.norm.cdf(-crit - nc))
    return p


def min_detectable_difference(n_a: int, n_b: int, sd_a: float, sd_b: float,
                              alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference the Welch test detects with probability ``power``."""
    if n_a < 2 or n_b < 2 or not (math.isfinite(sd_a) and math.isfinite(sd_b)):
        return math.nan
    se = math.sqrt(sd_a**2 / n_a + sd_b**2 / n_b)
    if se == 0:
        return 0.0
    from scipy import optimize

    f = lambda d: welch_power(n_a, n_b, sd_a, sd_b, d, alpha) - power  # noqa: E731
    hi = se
    while f(hi) < 0:
        hi *= 2
    return float(optimize.brentq(f, 0.0, hi, xtol=se * 1e-6))
