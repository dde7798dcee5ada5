"""``lossytcp crosscheck ns3``: the same scenario in lossytcp and in ns-3 3.37, side by side.

Takes the single-link flags of ``lossytcp simulate`` and runs the engine and ns-3 (Debian's
libns3-dev; the program is built on first use) for each seed. Judged per quantity, as
``crosscheck ns2`` judges: Welch's t-test of the per-seed values, Holm's correction over all
the quantities at once (a quantity "DIFFERS" when its Holm-adjusted p-value is below
--alpha), with the difference each seed count detects with 80% power. Besides the counters
(goodput, packets sent, retransmissions, timeouts, fast retransmits), the window and pacing
traces are compared by their time-weighted means and quartiles over the run.

The variant's ns-3 counterpart is the registry's (lossytcp.variants: NewReno and SACK as
ns3::TcpNewReno without and with SACK, CUBIC as ns3::TcpCubic, BBR as ns3::TcpBbr, classic
recovery). Like for like (lossytcp.ns3.ENGINE_AS_NS3, named in the output's notes): the
engine runs CUBIC with Linux's rules and HyStart, as ns-3's TcpCubic (a port of Linux's
tcp_cubic.c) does, unless --cubic-rules/--cubic-slow-start say otherwise; and BBR paced one
segment per departure, as ns-3 paces its TcpBbr, unless --bbr-pacing-burst says otherwise
(the engine's default is Linux's TSO bursts, which `crosscheck linux` compares). The
window defaults to 100000 segments (no cap): ns-3 caps cwnd where the engine limits the
flight by a receiver's window. What ns-3 cannot express is refused by name before any run.
lossytcp/ns3/README.md lists where ns-3 3.37 departs from Linux.

Exit codes: 0 every judged quantity agrees; 1 some quantity differs; 2 bad input (nothing
was run); 3 ns-3 is not installed; 4 ns-3 or the engine failed while running; 130
interrupted; 143 terminated.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from . import documented_parser
from ._progress import run_progress
from ._verdicts import (
    EXIT_CRASH,
    EXIT_NO_REFERENCE,
    FlowCounts,
    Quantity,
    flow_observation,
    judge,
    print_verdicts,
    verdicts_json,
)
from .simulate import add_scenario_arguments, scenario_from_args, seeds_from_args

__all__ = ["TRACE_METRICS", "add_parser", "engine_observation", "ns3_observation", "run"]

#: The window and pacing traces, by their time-weighted summaries.
TRACE_METRICS = ("cwnd_mean", "cwnd_p25", "cwnd_p50", "cwnd_p75", "pacing_rate_mean_norm")
#: The crosscheck's window when none is given: no cap on either side.
DEFAULT_WINDOW = 100_000


def _weighted(points: list[tuple[float, float]], start: float, end: float
              ) -> tuple[float, float, float, float]:
    """Time-weighted mean and quartiles of a piecewise-constant trace over [start, end]."""
    held: dict[float, float] = {}
    total = 0.0
    integral = 0.0
    for i, (t, x) in enumerate(points):
        t0 = max(t, start)
        t1 = min(points[i + 1][0] if i + 1 < len(points) else end, end)
        if t1 > t0:
            held[x] = held.get(x, 0.0) + (t1 - t0)
            integral += x * (t1 - t0)
            total += t1 - t0
    if total <= 0:
        return (math.nan,) * 4  # type: ignore[return-value]
    qs = []
    for q in (0.25, 0.5, 0.75):
        acc = 0.0
        for x in sorted(held):
            acc += held[x]
            if acc >= q * total - 1e-12:
                qs.append(x)
                break
    return integral / total, qs[0], qs[1], qs[2]


def _counts(rep: Any) -> FlowCounts:
    return FlowCounts(label="flow", packets_sent=rep.packets_sent,
                      retransmissions=rep.retransmissions, timeouts=rep.timeouts,
                      fast_retransmits=rep.fast_retransmits,
                      packets_delivered=rep.packets_delivered, elapsed_s=rep.elapsed_s,
                      capacity_pps=rep.capacity_pps)


def engine_observation(rep: Any, rate_bps: float, duration_s: float) -> dict[Quantity, float]:
    """The judged quantities of one engine run (traced windows)."""
    obs = flow_observation([_counts(rep)])
    first = rep.send_trace[0][0] if rep.send_trace else 0.0
    cw = [(t, c) for t, c, _, _ in rep.window_trace]
    mean, p25, p50, p75 = _weighted(cw, first, duration_s)
    pacing = _weighted(rep.pacing_trace, first, duration_s)[0] if rep.pacing_trace else 0.0
    obs.update({Quantity("aggregate", "", "cwnd_mean"): mean,
                Quantity("aggregate", "", "cwnd_p25"): p25,
                Quantity("aggregate", "", "cwnd_p50"): p50,
                Quantity("aggregate", "", "cwnd_p75"): p75,
                Quantity("aggregate", "", "pacing_rate_mean_norm"): pacing / rate_bps})
    return obs


def ns3_observation(rep: Any, rate_bps: float) -> dict[Quantity, float]:
    obs = flow_observation([_counts(rep)])
    obs.update({Quantity("aggregate", "", "cwnd_mean"): rep.cwnd_mean,
                Quantity("aggregate", "", "cwnd_p25"): rep.cwnd_p25,
                Quantity("aggregate", "", "cwnd_p50"): rep.cwnd_p50,
                Quantity("aggregate", "", "cwnd_p75"): rep.cwnd_p75,
                Quantity("aggregate", "", "pacing_rate_mean_norm"):
                    rep.pacing_rate_mean_bps / rate_bps})
    return obs


def _kwargs(a: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    from .. import ns3

    if a.window is None:
        a.window = DEFAULT_WINDOW
    kw = scenario_from_args(a)
    variant = kw.pop("variant")
    for k, x in ns3.ENGINE_AS_NS3.get(variant, {}).items():
        kw.setdefault(k, x)
    return variant, kw


def run(a: argparse.Namespace) -> int:
    """SIGTERM stops the runs and ns-3 as Ctrl-C does; exit code 143."""
    from .crosscheck import terminable

    return terminable(_run, a)


def _run(a: argparse.Namespace) -> int:
    from .. import ns3
    from ..errors import ParameterError
    from ..experiments.stats import check_level
    from ..sim import simulate

    try:
        check_level(a.alpha, "alpha")
    except ParameterError:
        raise ParameterError("alpha", a.alpha, "must be a significance level in (0, 1), "
                             "e.g. 0.05") from None
    seeds = seeds_from_args(a)
    if len(seeds) < 2:
        raise ParameterError("seeds", len(seeds), "a crosscheck judges per-seed spreads: "
                             "give at least 2 seeds")
    variant, kw = _kwargs(a)
    # Bad input, or what ns-3 cannot express, fails here before any run starts.
    _, notes = ns3.ns3_arguments(variant, {**kw, "seed": seeds[0]})
    try:
        ns3.build_program()
    except ns3.Ns3NotInstalled as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_NO_REFERENCE
    except ns3.Ns3Error as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_CRASH
    n = len(seeds)
    rate, duration = kw["rate_bps"], kw["duration_s"]
    engine, ref = [], []
    try:
        with run_progress(f"{variant}: lossytcp and ns-3 runs", 2 * n) as progress:
            for s in seeds:
                rep = simulate(variant, seed=s, trace_window=True, trace_sends=True, **kw)
                engine.append(engine_observation(rep, rate, duration))
                progress(len(engine), 2 * n)
            for s in seeds:
                ref.append(ns3_observation(ns3.simulate_ns3(variant, seed=s, **kw), rate))
                progress(n + len(ref), 2 * n)
    except ns3.Ns3Error as e:
        print(f"lossytcp crosscheck: ns-3 failed: {e}")
        return EXIT_CRASH
    rows = judge(engine, ref, ref_name="ns3", alpha=a.alpha, paired=False)
    notes = [*ns3.like_ns3_notes(variant, kw), *notes,
             "not observable in ns-3's run, not judged: channel losses, packets "
             "received, spurious detections",
             "ns-3 opens with a handshake: its data starts one RTT later, with an RTT sample"]
    out = verdicts_json(rows, reference="ns3", variant=variant, scenario=kw, seeds=seeds,
                        paired=False, alpha=a.alpha, correction="holm", notes=notes)
    if a.json:
        import json

        print(json.dumps(out))
        return out["exit_code"]
    print_verdicts(rows, title=f"{variant}: lossytcp vs ns-3 3.37, {n} seeds", ref_name="ns3",
                   ref_label="ns-3", paired=False, alpha=a.alpha, notes=notes)
    return out["exit_code"]


def add_parser(which: Any) -> None:
    """``crosscheck ns3`` under ``crosscheck``'s subcommands."""
    q = documented_parser(which, "ns3", "ns-3 3.37 (Debian package libns3-dev)", __doc__)
    add_scenario_arguments(q)
    for action in q._actions:
        if action.dest == "window":
            action.help = f"maximum window, packets [{DEFAULT_WINDOW}: no cap]"
    q.add_argument("--alpha", type=float, default=0.05,
                   help="family-wise significance level over the judged quantities "
                        "(default %(default)s)")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=run)
