"""Pieces the papers' figure modules share: series of either source, ordering claims."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .claims import (
    ClaimResult,
    Series,
    combine,
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
