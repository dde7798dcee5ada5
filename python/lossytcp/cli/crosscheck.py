"""``lossytcp crosscheck ns2``: the same scenario in lossytcp and in ns-2 2.35, side by side.

Takes every flag of ``lossytcp simulate``; runs the engine and ``ns`` for each seed; prints
both means with their standard errors and, per metric, whether they agree within two
standard errors of the difference (sqrt(se_a^2 + se_b^2)). The engine runs with ns-2's timer
profile and a 10 ms tick unless ``--profile``/``--granularity`` say otherwise, so that both
sides simulate the same TCP. Metrics ns-2 cannot observe (spurious timeouts and fast
retransmits) are shown as "n/a"; features it cannot express are refused with the reason.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from ._progress import run_progress
from .simulate import (
    METRICS,
    add_scenario_arguments,
    json_safe,
    scenario_from_args,
    seeds_from_args,
)

__all__ = ["compare", "register", "run"]

#: Judged metrics, in display order (the engine's names).
JUDGED = ("goodput_norm", "throughput_norm", "packets_sent", "retransmissions",
          "channel_losses", "timeouts", "fast_retransmits", "timeout_fraction",
          "transmissions_per_delivered")


def _stats(values: np.ndarray) -> tuple[float, float, int]:
    x = values[np.isfinite(values)]
    if x.size == 0:
        return math.nan, math.nan, 0
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    return float(x.mean()), se, int(x.size)


def compare(engine_reports: list[Any], ns2_reports: list[Any],
            metrics: tuple[str, ...] = JUDGED) -> list[dict[str, Any]]:
    """Per metric: both means and standard errors, the difference and the verdict.

    With one seed per side there is no standard error and no verdict ("n/a")."""
    rows = []
    for m in metrics:
        a = np.array([r.metric(m) for r in engine_reports], dtype=float)
        b = np.array([r.metric(m) for r in ns2_reports], dtype=float)
        ma, sa, na = _stats(a)
        mb, sb, nb = _stats(b)
        se = math.sqrt(sa**2 + sb**2) if na > 1 and nb > 1 else math.nan
        if not (math.isfinite(ma) and math.isfinite(mb)):
            verdict = "n/a"
        elif not math.isfinite(se):
            verdict = "n/a"
        elif se == 0:
            verdict = "agree" if ma == mb else "DIFFER"
        else:
            verdict = "agree" if abs(ma - mb) <= 2 * se else "DIFFER"
        rows.append({"metric": m, "lossytcp": ma, "lossytcp_se": sa, "ns2": mb, "ns2_se": sb,
                     "diff": ma - mb, "diff_se": se, "verdict": verdict})
    return rows


def _agent_settings(items: list[str]) -> dict[str, str]:
    from ..errors import ParameterError

    out = {}
    for it in items:
        name, eq, value = it.partition("=")
        if not eq or not name or not value:
            raise ParameterError("ns2-agent", it, "must be NAME=VALUE, e.g. singledup_=0")
        out[name.strip()] = value.strip()
    return out


def _fmt(x: float, se: float) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.5g}" + (f" ± {se:.2g}" if math.isfinite(se) else "")


def run(a: argparse.Namespace) -> int:
    from .. import ns2
    from ..sim import build_scenario, simulate

    try:
        ns2.find_ns()
    except ns2.Ns2NotInstalled as e:
        print(f"lossytcp crosscheck: {e}")
        return 3
    kw = scenario_from_args(a)
    variant = kw.pop("variant")
    seeds = seeds_from_args(a)
    agent = _agent_settings(a.ns2_agent)
    ns2_kw = dict(kw)
    # Bad input, or a scenario ns-2 cannot express, fails here before any run starts.
    build_scenario(variant, seed=seeds[0], **kw)
    notes: list[str] = []
    if not str(kw["channel"]).strip().startswith("drops"):
        notes += ns2.build_script(variant, seed=seeds[0], agent_settings=agent,
                                  **ns2_kw).notes
    sims = []
    with run_progress(f"{variant}: lossytcp and ns-2 runs", 2 * len(seeds)) as progress:
        engine = []
        for s in seeds:
            engine.append(simulate(variant, seed=s, **kw))
            progress(len(engine), 2 * len(seeds))
        for i, s in enumerate(seeds):
            keep = None
            if a.keep_script:
                keep = (a.keep_script if i == 0
                        else a.keep_script.replace(".tcl", "") + f"-seed{s}.tcl")
            sims.append(ns2.simulate_ns2(variant, seed=s, keep_script=keep,
                                         agent_settings=agent, **ns2_kw))
            progress(len(seeds) + len(sims), 2 * len(seeds))
    rows = compare(engine, sims)
    if agent:
        notes.append("ns-2 agent settings: " + ", ".join(f"{k} {v}" for k, v in agent.items()))
    hidden = (*ns2.NOT_OBSERVABLE, *ns2.NOT_OBSERVABLE_FOR.get(variant, ()))
    notes.append("not observable in ns-2, not judged: " + ", ".join(
        m for m in METRICS if m in hidden))
    if a.json:
        print(json.dumps(json_safe({"variant": variant, "seeds": seeds, "scenario": kw,
                                    "metrics": rows, "notes": notes})))
        return 0 if all(r["verdict"] != "DIFFER" for r in rows) else 1
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{variant}: lossytcp vs ns-2 2.35, {len(seeds)} seed(s), mean ± s.e.")
    for col in ("metric", "lossytcp", "ns-2", "difference", "verdict (2 s.e.)"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for r in rows:
        t.add_row(r["metric"], _fmt(r["lossytcp"], r["lossytcp_se"]), _fmt(r["ns2"], r["ns2_se"]),
                  _fmt(r["diff"], r["diff_se"]), r["verdict"])
    con = Console()
    con.print(t)
    for n in notes:
        con.print(f"note: {n}")
    if a.keep_script:
        con.print(f"ns-2 script kept: {a.keep_script}")
    return 0 if all(r["verdict"] != "DIFFER" for r in rows) else 1


def register(sub: Any) -> None:
    p = sub.add_parser("crosscheck", help="compare a scenario against another simulator",
                       description="Run one scenario in lossytcp and in another simulator.")
    which = p.add_subparsers(dest="against", required=True, metavar="SIMULATOR")
    q = which.add_parser("ns2", help="ns-2 2.35 (Debian package ns2)",
                         description=__doc__.split("\n\n")[1])
    add_scenario_arguments(q)
    # like with like: ns-2's tick-based estimator on the engine side too
    q.set_defaults(profile="ns2", granularity="10ms")
    q.add_argument("--keep-script", default=None, metavar="PATH",
                   help="keep the generated ns-2 Tcl script there (one per seed)")
    q.add_argument("--ns2-agent", action="append", default=[], metavar="NAME=VALUE",
                   help="extra ns-2 agent setting, e.g. singledup_=0 (limited transmit off)")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=run)
