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
