"""Claim checks: verdicts with their numbers, on the model and on the simulation.

A claim is checked against each source separately. On the model (deterministic) a comparison
is exact up to a relative tolerance of 1e-9. On the simulation every point is a Welch t-test
of the per-seed values, the points of one claim forming a family whose p-values get Holm's
correction (the claim "A above B at every alpha" tests as many hypotheses as it has points).
Each point is then

* ``above`` / ``below``: the difference is significant at the family level ``alpha``;
* ``equal``: the difference's confidence interval lies inside ``±margin`` (two one-sided
  tests, TOST: the two curves are the same within what the figure can show);
* ``undecided``: neither (too few seeds, or a difference near the margin).

and a claim "A >= B" *holds* when every point is ``above`` or ``equal`` and at least one is
``above``, *fails* when some point is ``below`` (reported with the reason), and is
*inconclusive* otherwise: means reversed but intervals overlapping is inconclusive, never
"holds".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..experiments.stats import holm, mean_ci, welch

HOLDS, FAILS, INCONCLUSIVE = "holds", "fails", "inconclusive"
FAMILY_ALPHA = 0.05
MODEL_RTOL = 1e-9


@dataclass
class ClaimResult:
    figure: str
    claim: str            # the paper's words (SCENARIOS.md)
    source: str           # "model" or "simulation"
    verdict: str          # holds / fails / inconclusive
    detail: str           # what was measured, with the numbers
    primary: bool = True  # the source the paper's figure shows (model figure: the model)
    numbers: dict[str, Any] = field(default_factory=dict)
    short: str = ""       # one line for the terminal (the detail has every point)
    why: str = ""         # fails / inconclusive: the measured reason (numbers of this run,
    #                       a control run where a mechanism is named)
    reading: str = ""     # how the paper's words became the check (quoted, with the band)

    def __post_init__(self) -> None:
        if not self.short:
            self.short = self.detail if len(self.detail) <= 160 else self.detail[:157] + "..."

    def as_dict(self) -> dict[str, Any]:
        return _json_ready(asdict(self))


def _json_ready(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _json_ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_ready(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def fmt(x: float, digits: int = 3) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}g}"


def compare_model(a: Sequence[float], b: Sequence[float], margin: float = 0.0) -> list[str]:
    """Per point: 'above', 'below' or 'equal' (within ``margin`` absolute, or 1e-9 relative)."""
    out = []
    for x, y in zip(a, b, strict=True):
        if not (math.isfinite(x) and math.isfinite(y)):
            out.append("undecided")
            continue
        tol = max(margin, MODEL_RTOL * max(abs(x), abs(y)))
        out.append("above" if x - y > tol else "below" if y - x > tol else "equal")
    return out


def compare_sim(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]],
                margin: float, alpha: float = FAMILY_ALPHA) -> tuple[list[str], list[float]]:
    """Per point: Welch test with Holm's correction over the points, TOST for 'equal'.
    Returns the outcomes and the adjusted p-values."""
    tests = [welch(x, y) for x, y in zip(a, b, strict=True)]
    adj = holm([t.p for t in tests])
    out = []
    from scipy import stats

    for t, p in zip(tests, adj, strict=True):
        if math.isfinite(p) and p < alpha and t.diff != 0:
            out.append("above" if t.diff > 0 else "below")
            continue
        # TOST at level alpha: the (1 - 2 alpha) interval of the difference inside +-margin
        if math.isfinite(t.se) and math.isfinite(t.df):
            q = stats.t.ppf(1 - alpha, t.df) if t.se > 0 else 0.0
            lo, hi = t.diff - q * t.se, t.diff + q * t.se
            if -margin < lo and hi < margin:
                out.append("equal")
                continue
        out.append("undecided")
    return out, adj


def verdict_at_least(outcomes: Sequence[str], need_one_above: bool = True) -> str:
    """'A >= B at every point' from per-point outcomes."""
    if "below" in outcomes:
        return FAILS
    if all(o in ("above", "equal") for o in outcomes) and (
            not need_one_above or "above" in outcomes):
        return HOLDS
    return INCONCLUSIVE


def describe(xs: Iterable[Any], outcomes: Sequence[str], a_vals: Sequence[float],
             b_vals: Sequence[float], a: str, b: str, xname: str,
             a_ci: Sequence[float] | None = None, b_ci: Sequence[float] | None = None) -> str:
    parts = []
    for i, (x, o) in enumerate(zip(xs, outcomes, strict=True)):
        ca = "" if a_ci is None or not math.isfinite(a_ci[i]) else f"±{fmt(a_ci[i], 2)}"
        cb = "" if b_ci is None or not math.isfinite(b_ci[i]) else f"±{fmt(b_ci[i], 2)}"
        parts.append(f"{xname}={x:.3g}: {a} {fmt(a_vals[i])}{ca} vs {b} {fmt(b_vals[i])}{cb} "
                     f"({o})")
    return "; ".join(parts)


@dataclass
class Series:
    """One curve of one source at the figure's x values: means (and per-seed samples)."""

    x: list[float]
    mean: list[float]
    ci: list[float]
    samples: list[list[float]] | None = None    # simulation only


def pairwise_claim(figure: str, claim: str, source: str, a_name: str, a: Series, b_name: str,
                   b: Series, xname: str, margin: float, primary: bool,
                   verdict_fn: Callable[[Sequence[str]], str] = verdict_at_least,
                   ) -> ClaimResult:
    """'a at least b' over the x values both series share."""
    xs = [x for x in a.x if x in b.x]
    ia = [a.x.index(x) for x in xs]
    ib = [b.x.index(x) for x in xs]
    am, bm = [a.mean[i] for i in ia], [b.mean[i] for i in ib]
    if source == "model":
        outs = compare_model(am, bm, margin)
        adj = None
        acs = bcs = None
    else:
        outs, adj = compare_sim([a.samples[i] for i in ia], [b.samples[i] for i in ib], margin)
        acs, bcs = [a.ci[i] for i in ia], [b.ci[i] for i in ib]
    v = verdict_fn(outs)
    detail = describe(xs, outs, am, bm, a_name, b_name, xname, acs, bcs)
    return ClaimResult(figure, claim, source, v, detail, primary,
                       numbers=dict(x=xs, a=am, b=bm, outcomes=outs, holm_p=adj),
                       short=_short(xs, outs, am, bm, a_name, b_name, xname))


def _short(xs, outs, am, bm, a, b, xname) -> str:
    counts = ", ".join(f"{k} at {outs.count(k)}" for k in ("above", "equal", "below",
                                                          "undecided") if k in outs)
    rank = {"below": 0, "undecided": 1, "equal": 2, "above": 3}
    if not xs:
        return "no common points"
    i = min(range(len(xs)), key=lambda j: (rank[outs[j]], am[j] - bm[j]))
    return (f"{a} vs {b}: {counts} of {len(xs)} points; least favourable {xname}={xs[i]:.3g}: "
            f"{fmt(am[i])} vs {fmt(bm[i])} ({outs[i]})")


def sim_series(runs, metric: str, xname: str, level: float = 0.95, **where: Any) -> Series:
    """Per-x means, CI and samples of one metric from a run table, rows selected by ``where``."""
    df = runs
    for k, val in where.items():
        df = df[df[k] == val]
    xs = sorted(df[xname].unique().tolist())
    mean, ci, samples = [], [], []
    for x in xs:
        vals = df[df[xname] == x][metric].to_numpy(dtype=float)
        c = mean_ci(vals, level)
        mean.append(c.mean)
        ci.append(c.halfwidth)
        samples.append(vals[np.isfinite(vals)].tolist())
    return Series(xs, mean, ci, samples)


def model_series(models, metric: str, xname: str, label: str | None = None,
                 **where: Any) -> Series:
    df = models
    if label is not None:
        df = df[df["label"] == label]
    for k, val in where.items():
        df = df[df[k] == val]
    df = df.sort_values(xname)
    xs = df[xname].tolist()
    vals = [float("nan") if v is None else float(v) for v in df[metric].tolist()] \
        if metric in df else [math.nan] * len(xs)
    return Series(xs, vals, [0.0] * len(xs))


def combine(figure: str, claim: str, parts: Sequence[ClaimResult]) -> ClaimResult:
    """One claim made of several comparisons (e.g. "SACK best" = SACK >= each other)."""
    vs = [p.verdict for p in parts]
    v = FAILS if FAILS in vs else HOLDS if all(x == HOLDS for x in vs) else INCONCLUSIVE
    shown = [p for p in parts if p.verdict != HOLDS or v == HOLDS]
    detail = " | ".join(f"[{p.claim}: {p.verdict}] {p.detail}" for p in shown)
    short = " | ".join(p.short for p in shown[:2]) + (" | ..." if len(shown) > 2 else "")
    return ClaimResult(figure, claim, parts[0].source, v, detail, parts[0].primary,
                       numbers={p.claim: p.numbers for p in parts}, short=short)


def threshold_claim(figure: str, claim: str, source: str, s: Series, xname: str,
                    above: float, primary: bool, label: str) -> ClaimResult:
    """Every point of ``s`` above ``above``: on the simulation, the CI's lower end above it
    holds, the upper end below fails, else inconclusive."""
    outs = []
    for m, c in zip(s.mean, s.ci, strict=True):
        c = 0.0 if source == "model" else c
        if not math.isfinite(m) or not math.isfinite(c):
            outs.append("undecided")
        elif m - c > above:
            outs.append("above")
        elif m + c < above:
            outs.append("below")
        else:
            outs.append("undecided")
    v = FAILS if "below" in outs else HOLDS if all(o == "above" for o in outs) else INCONCLUSIVE
    detail = "; ".join(f"{xname}={x:g}: {label} {fmt(m)}" + (f"±{fmt(c, 2)}" if source !=
                       "model" and math.isfinite(c) else "") + f" ({o} {above:g})"
                       for x, m, c, o in zip(s.x, s.mean, s.ci, outs, strict=True))
    worst = min(range(len(s.x)), key=lambda i: s.mean[i]) if s.x else None
    short = (f"{label}: lowest {fmt(s.mean[worst])} at {xname}={s.x[worst]:g} ({outs[worst]} "
             f"{above:g})" if worst is not None else "no points")
    return ClaimResult(figure, claim, source, v, detail, primary,
                       numbers=dict(x=s.x, mean=s.mean, ci=s.ci, outcomes=outs), short=short)


# ------------------------------------------------------------------ bands from the paper's words
@dataclass(frozen=True)
class Band:
    """The values a number the paper states in words allows: ``[low, high)``, the words
    quoted and the reading that turned them into the interval. The rule throughout: a number
    the paper writes ("triples", "about ten", "three- to fourfold") allows the values that
    round to it at the precision it is written, i.e. half-way to the neighbouring values of
    that precision (3 -> [2.5, 3.5); "ten", one significant figure -> [9.5, 15); "3 to 4" ->
    [2.5, 4.5)); "N or more" allows [N - 1/2, inf)."""

    low: float
    high: float
    words: str
    reading: str

    def text(self) -> str:
        hi = "inf" if math.isinf(self.high) else f"{self.high:g}"
        return f"'{self.words}' read as [{self.low:g}, {hi}): {self.reading}"

    def verdict(self, lo: float, hi: float) -> str:
        """An interval estimate [lo, hi] against the band: inside holds, outside fails,
        across an edge inconclusive."""
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return INCONCLUSIVE
        if self.low <= lo and hi < self.high:
            return HOLDS
        if hi < self.low or lo >= self.high:
            return FAILS
        return INCONCLUSIVE


def about(n: float, words: str) -> Band:
    """"About n" / "n-fold" with n written as a whole number: half-way to n - 1 and n + 1
    (for n >= 10, one significant figure: half-way to 9 and 20)."""
    if n >= 10:
        lo, hi = n - 0.5, 1.5 * n
        how = "rounds to it at one significant figure (half-way to 9 and to 20)"
    else:
        lo, hi = n - 0.5, n + 0.5
        how = f"rounds to {n:g} (half-way to {n - 1:g} and to {n + 1:g})"
    return Band(lo, hi, words, how)


def between(a: float, b: float, words: str) -> Band:
    return Band(a - 0.5, b + 0.5, words, f"rounds to a value from {a:g} to {b:g}")


def at_least(n: float, words: str) -> Band:
    return Band(n - 0.5, math.inf, words, f"rounds to {n:g} or more")


# ---------------------------------------------------------------------- intervals of statistics
def _t(df: float, level: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2, df)) if df > 0 else math.inf


@dataclass(frozen=True)
class Estimate:
    """A statistic with its interval at ``level`` (for the deterministic model, lo = hi)."""

    value: float
    lo: float
    hi: float
    level: float = 0.95

    def text(self, digits: int = 3) -> str:
        if self.lo == self.hi == self.value:
            return fmt(self.value, digits)
        return f"{fmt(self.value, digits)} [{fmt(self.lo, digits)}, {fmt(self.hi, digits)}]"


def exact(x: float) -> Estimate:
    return Estimate(float(x), float(x), float(x))


def ratio_estimate(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Estimate:
    """mean(a) / mean(b) of independent samples, with the delta method's interval on the log
    scale (Welch-Satterthwaite degrees of freedom): var(log mean) ~ s^2 / (n mean^2)."""
    x = np.asarray([v for v in a if math.isfinite(v)], dtype=float)
    y = np.asarray([v for v in b if math.isfinite(v)], dtype=float)
    if x.size == 0 or y.size == 0 or x.mean() <= 0 or y.mean() <= 0:
        return Estimate(math.nan, math.nan, math.nan, level)
    r = float(x.mean() / y.mean())
    if x.size < 2 or y.size < 2:
        return Estimate(r, math.nan, math.nan, level)
    va = x.var(ddof=1) / (x.size * x.mean() ** 2)
    vb = y.var(ddof=1) / (y.size * y.mean() ** 2)
    se = math.sqrt(va + vb)
    if se == 0:
        return Estimate(r, r, r, level)
    df = (va + vb) ** 2 / (va ** 2 / (x.size - 1) + vb ** 2 / (y.size - 1))
    q = _t(df, level) * se
    return Estimate(r, r * math.exp(-q), r * math.exp(q), level)


def diff_estimate(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Estimate:
    """mean(a) - mean(b), Welch's interval."""
    t = welch(a, b)
    if not math.isfinite(t.se):
        return Estimate(t.diff, math.nan, math.nan, level)
    q = _t(t.df, level) * t.se if t.se > 0 else 0.0
    return Estimate(t.diff, t.diff - q, t.diff + q, level)


def propagate(stat: Callable[..., float], groups: Sequence[Sequence[float] | float],
              level: float = 0.95, draws: int = 4000, seed: int = 20260) -> Estimate:
    """A statistic of several means with its uncertainty: each group's mean drawn from its
    Student-t sampling law (mean + s / sqrt(n) T_{n-1}; a float is exact), ``stat`` evaluated
    on every draw, the interval the central ``level`` of the draws. For statistics of means
    that no closed form covers (a threshold read off a curve, the largest of several spreads):
    a Monte Carlo propagation of the per-point t intervals, deterministic (fixed seed)."""
    rng = np.random.default_rng(seed)
    cols = []
    for g in groups:
        if isinstance(g, (int, float, np.floating)):
            cols.append(np.full(draws, float(g)))
            continue
        x = np.asarray([v for v in g if math.isfinite(v)], dtype=float)
        if x.size < 2:
            return Estimate(stat(*[np.mean(h) if not isinstance(h, (int, float))
                                   else h for h in groups]), math.nan, math.nan, level)
        se = x.std(ddof=1) / math.sqrt(x.size)
        cols.append(x.mean() + se * rng.standard_t(x.size - 1, draws))
    value = stat(*[float(np.mean(g)) if not isinstance(g, (int, float, np.floating)) else
                   float(g) for g in groups])
    vals = np.array([stat(*row) for row in zip(*cols, strict=True)], dtype=float)
    vals = vals[np.isfinite(vals)]
    if not vals.size:
        return Estimate(value, math.nan, math.nan, level)
    lo, hi = np.quantile(vals, [(1 - level) / 2, (1 + level) / 2])
    return Estimate(value, float(lo), float(hi), level)


def sign_verdict(est: Estimate, want: int, margin: float = 0.0) -> str:
    """``want`` = +1: the statistic above ``margin`` (its interval entirely), -1 below
    ``-margin``; the interval entirely on the other side of 0 fails; else inconclusive."""
    lo, hi = est.lo, est.hi
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return INCONCLUSIVE
    if want > 0:
        return HOLDS if lo > margin else FAILS if hi < 0 else INCONCLUSIVE
    return HOLDS if hi < -margin else FAILS if lo > 0 else INCONCLUSIVE


def why_undecided(c: ClaimResult) -> str:
    """The measured reason an ordering claim is inconclusive: the points where the difference's
    interval reaches across the margin, with the difference and the seeds behind it."""
    n = c.numbers
    outs = n.get("outcomes") or []
    xs = n.get("x") or []
    if not outs:
        return ""
    und = [i for i, o in enumerate(outs) if o == "undecided"]
    if not und:
        return ""
    parts = [f"{fmt(xs[i])}: {fmt(n['a'][i])} vs {fmt(n['b'][i])}" for i in und[:4]]
    return (f"undecided at {len(und)} of {len(outs)} points (difference within what the "
            f"seeds resolve, neither significant after Holm nor inside the margin): "
            + "; ".join(parts) + (" ..." if len(und) > 4 else ""))
