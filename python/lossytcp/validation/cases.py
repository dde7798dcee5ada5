"""One model point against the engine configured to the model's assumptions.

A :class:`Case` names the model and its keyword arguments, the engine's keyword arguments
(:func:`lossytcp.simulate`), the two metrics to compare and the tolerance; :func:`run_cases`
runs a list of them and returns one row per case as a pandas DataFrame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "run_case", "run_cases", "error_summary"]


@dataclass(frozen=True)
class Case:
    """A model point and the engine run that should reproduce it.

    ``tolerance`` is relative, on the throughput; ``q_tolerance`` absolute, on the time-out
    probability (paper 002's Q against the engine's ``timeout_fraction``). ``asserted`` rows
    are held to their tolerances by the tests; the others are reported (diagnoses, the
    paper's own variants of a rule).
    """

    model: str
    variant: str
    point: str
    model_kwargs: dict[str, Any]
    sim_kwargs: dict[str, Any]
    model_metric: str
    sim_metric: str
    tolerance: float
    duration_s: float
    seeds: int
    asserted: bool = True
    group: str = "main"
    q_tolerance: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.model}|{self.variant}|{self.point}"


def run_case(case: Case, seeds: int | None = None, duration_scale: float = 1.0) -> dict[str, Any]:
    """Evaluate the model and run the engine (``seeds`` runs in threads); one result row."""
    import lossytcp
    from lossytcp.models import evaluate

    name = case.model.split(" ")[0]
    res = evaluate(name, **case.model_kwargs)
    summ = lossytcp.simulate_seeds(seeds=seeds or case.seeds,
                                   duration_s=case.duration_s * duration_scale, **case.sim_kwargs)
    model_val = float(getattr(res, case.model_metric))
    sim_mean = summ.mean(case.sim_metric)
    row = dict(model=case.model, variant=case.variant, point=case.point, group=case.group,
               model_value=model_val, sim_mean=sim_mean, sim_ci95=summ.ci95(case.sim_metric),
               rel_error=model_val / sim_mean - 1 if sim_mean > 0 else math.inf,
               tolerance=case.tolerance, asserted=case.asserted,
               model_timeout_prob=float(getattr(res, "timeout_probability", math.nan)),
               sim_timeout_fraction=summ.mean("timeout_fraction"))
    row["ok"] = bool(abs(row["rel_error"]) <= case.tolerance)
    if case.q_tolerance is not None:
        row["q_tolerance"] = case.q_tolerance
        row["ok"] = row["ok"] and bool(abs(row["model_timeout_prob"]
                                           - row["sim_timeout_fraction"]) <= case.q_tolerance)
    return row


def run_cases(cases: Iterable[Case], seeds: int | None = None, duration_scale: float = 1.0,
              progress: Callable[[int, Case], None] | None = None):
    """Every case's row, as a DataFrame (columns of :func:`run_case`)."""
    import pandas as pd

    rows = []
    for k, c in enumerate(cases):
        if progress is not None:
            progress(k, c)
        rows.append(run_case(c, seeds, duration_scale))
    return pd.DataFrame(rows)


def error_summary(df, by: str | list[str] = "model"):
    """Mean and maximum absolute relative error (and the row count) per group."""
    return (df.assign(abs_error=df.rel_error.abs()).groupby(by)
            .abs_error.agg(["mean", "max", "count"]))
