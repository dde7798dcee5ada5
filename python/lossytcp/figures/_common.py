"""Pieces the papers' figure modules share: series of either source, ordering claims."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .claims import (
    INCONCLUSIVE,
    ClaimResult,
    Series,
    combine,
    fmt,
    model_series,
    pairwise_claim,
    sim_series,
    verdict_at_least,
)

SOURCES = ("model", "simulation")


def series(data, source: str, xname: str, *, sim_metric: str = "goodput_norm",
           model_metric: str = "throughput_norm", label: str | None = None,
           exp: str | None = None, x_filter: Callable[[float], bool] | None = None,
           **where: Any) -> Series:
    if source == "model":
        s = model_series(data.models(exp), model_metric, xname, label, **where)
    else:
        r = data.result(exp)
        s = sim_series(data.runs(exp), sim_metric, xname, r.experiment.level, **where)
    if x_filter is not None:
        keep = [i for i, x in enumerate(s.x) if x_filter(x)]
        s = Series([s.x[i] for i in keep], [s.mean[i] for i in keep], [s.ci[i] for i in keep],
                   None if s.samples is None else [s.samples[i] for i in keep])
    return s


def ordering(data, claim: str, a: str, b: str | Sequence[str], xname: str, *,
             primary: str, margin: float = 0.01, label: str | None = None,
             sim_metric: str = "goodput_norm", model_metric: str = "throughput_norm",
             exp: str | None = None, x_filter: Callable[[float], bool] | None = None,
             verdict_fn: Callable[[Sequence[str]], str] = verdict_at_least,
             sources: Sequence[str] = SOURCES, **where: Any) -> list[ClaimResult]:
    """Claim "variant a at least variant(s) b" on each source."""
    bs = [b] if isinstance(b, str) else list(b)
    out = []
    for src in sources:
        kw = dict(sim_metric=sim_metric, model_metric=model_metric, label=label, exp=exp,
                  x_filter=x_filter, **where)
        sa = series(data, src, xname, variant=a, **kw)
        parts = [pairwise_claim(data.figure.id, f"{a} >= {bb}", src, a, sa, bb,
                                series(data, src, xname, variant=bb, **kw), xname, margin,
                                src == primary, verdict_fn) for bb in bs]
        res = combine(data.figure.id, claim, parts) if len(parts) > 1 else parts[0]
        res.claim = claim
        res.primary = src == primary
        out.append(res)
    return out


def spread(values: Sequence[float]) -> float:
    vals = [v for v in values if math.isfinite(v)]
    return max(vals) - min(vals) if vals else math.nan


def pooled_runs(data, main: str, more: str, xname: str):
    """The runs of experiment ``main`` with those of ``more`` (a control with more seeds at
    some of its x values, the figure's seeds among them) in place of its own at those x."""
    import pandas as pd

    a, b = data.runs(main), data.runs(more)
    return pd.concat([a[~a[xname].isin(b[xname].unique())], b], ignore_index=True)


def pooled_series(data, main: str, more: str, xname: str, metric: str, **where: Any) -> Series:
    """:func:`series` of the engine over :func:`pooled_runs` (``model_metric`` and ``label``,
    meaningless here, are accepted and ignored)."""
    from .claims import sim_series

    where.pop("model_metric", None)
    where.pop("label", None)
    return sim_series(pooled_runs(data, main, more, xname), metric, xname,
                      data.result(main).experiment.level, **where)


def seeds_control(exp, n: int, variants=None, **sweep):
    """The control of an inconclusive simulation claim: ``exp``'s runs at the claim's points
    (``variants``, ``sweep`` overriding the figure's axes) with ``n`` seeds, the same
    definition otherwise."""
    import dataclasses

    return dataclasses.replace(
        exp, name=f"{exp.name}-seeds", models=(), seeds=n,
        variants=tuple(variants or exp.variants), sweep={**exp.sweep, **sweep},
        description=f"Control: {exp.name}'s runs" + (
            f" of {', '.join(variants)}" if variants else "") + f" with {n} seeds (the "
        f"figure's {exp.seeds}), to decide the claims its seeds leave undecided")


def decide_on_seeds(c: ClaimResult, cc: ClaimResult, n: int, note: str = "") -> ClaimResult:
    """An inconclusive simulation claim ``c`` beside the same check on the control's ``n``
    seeds (``cc``): the why quotes the control; where the control decides, the verdict is
    the control's (the same reading, Welch/Holm or the propagated interval as before, on
    more seeds), else ``note`` says what the control's intervals resolve."""
    before = c.short
    c.why = (c.why + " | " if c.why else "") + (
        f"control, the same points with {n} seeds: {cc.verdict} ({cc.short})" + note)
    if cc.verdict != INCONCLUSIVE:
        c.verdict = cc.verdict
        c.detail = f"decided on {n} seeds (the control; the figure's seeds: {before}): " \
                   f"{cc.detail}"
        c.short = f"on {n} seeds: {cc.short}"
        c.numbers = cc.numbers
    return c


def resolution(data, ctrl: str, a: str, b: str, xname: str, margin: float = 0.01,
                **kw) -> str:
    """What an ordering's control still cannot decide: at its undecided points the
    difference with its 95% Welch interval, against the margin."""
    from .claims import diff_estimate

    sa = series(data, "simulation", xname, variant=a, exp=ctrl, **kw)
    sb = series(data, "simulation", xname, variant=b, exp=ctrl, **kw)
    cc = pairwise_claim(data.figure.id, "", "simulation", a, sa, b, sb, xname, margin, True)
    und = [i for i, o in enumerate(cc.numbers["outcomes"]) if o == "undecided"]
    if not und:
        return ""
    ests = [(sa.x[i], diff_estimate(sa.samples[i], sb.samples[i])) for i in und]
    return (f"; still undecided at {xname} " + ", ".join(
        f"{x:.3g}: {a} - {b} {e.text()} (half-width {fmt((e.hi - e.lo) / 2)})"
        for x, e in ests[:4]) + f": the difference is within what {len(sa.samples[und[0]])} "
        f"seeds resolve against the margin {margin}")


def ordering_on_seeds(data, c: ClaimResult, ctrl: str, a: str, b: str, xname: str,
                      **kw) -> ClaimResult:
    """:func:`decide_on_seeds` for an ordering claim "a at least b" (``kw``: ordering()'s
    x_filter and the where of its points)."""
    cc = ordering(data, c.claim, a, b, xname, primary="simulation", exp=ctrl,
                  sources=("simulation",), **kw)[0]
    n = int(data.result(ctrl).experiment.seeds)
    note = resolution(data, ctrl, a, b, xname, **kw) if cc.verdict == INCONCLUSIVE else ""
    return decide_on_seeds(c, cc, n, note)
