"""``lossytcp simulate``: one scenario over several seeds, mean and 95% CI per metric."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .. import units
from ..sim import METRICS, VARIANTS, simulate_seeds
from ._progress import run_progress

__all__ = ["METRICS", "add_scenario_arguments", "json_safe", "register", "scenario_from_args"]


def add_scenario_arguments(p: argparse.ArgumentParser) -> None:
    """Every scenario flag of ``simulate`` (shared with ``crosscheck``)."""
    p.add_argument("--variant", default="newreno", choices=VARIANTS)
    p.add_argument("--rate", default="2Mbps", help="link rate, e.g. 2Mbps")
    p.add_argument("--rtt", default="20ms", help="two-way propagation delay, e.g. 20ms")
    p.add_argument("--packet-size", default="500B", help="data packet size, e.g. 500B")
    p.add_argument("--window", type=int, default=20, help="maximum window, packets")
    p.add_argument("--channel", default="none",
                   help="data-direction channel, e.g. ge:alpha=0.01,beta=0.2,advance=slot")
    p.add_argument("--ack-channel", default="none", help="ACK-direction channel")
    p.add_argument("--duration", default="100s", help="simulated time per seed, e.g. 1000s")
    p.add_argument("--seeds", type=int, default=5, help="number of seeds (1..N)")
    p.add_argument("--seed", type=int, default=None, help="run this one seed only")
    p.add_argument("--queue", type=int, default=1000, help="DropTail queue, packets")
    p.add_argument("--dupack-threshold", type=int, default=3)
    p.add_argument("--initial-window", type=int, default=1)
    p.add_argument("--min-rto", default="200ms")
    p.add_argument("--max-rto", default="60s")
    p.add_argument("--initial-rto", default="1s")
    p.add_argument("--granularity", default="0s", help="timer granularity G")
    p.add_argument("--fixed-rto", default=None, help="constant RTO instead of the estimator")
    p.add_argument("--no-backoff", action="store_true", help="do not double the RTO")
    p.add_argument("--rtt-sampling", default="per_ack", choices=["per_ack", "per_window"])
    p.add_argument("--delayed-ack", action="store_true")
    p.add_argument("--protect-retransmissions", action="store_true",
                   help="retransmissions are never lost on the channel")
    p.add_argument("--transfer", default=None, help="finite transfer size, e.g. 100KB")
    p.add_argument("--profile", default="rfc", choices=["rfc", "ns2"],
                   help="rfc: RFC 5681/6582/6675/6298; ns2: behave as ns-2 2.35's agents")
    for name, default, what in (("alpha", 1, "grows below"), ("beta", 3, "shrinks above"),
                                ("gamma", 1, "leaves slow start above")):
        p.add_argument(f"--vegas-{name}", type=int, default=None,
                       help=f"vegas only: {what} this many segments queued (default {default})")


def scenario_from_args(a: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`lossytcp.simulate` (seed excluded), units parsed."""
    return dict(
        variant=a.variant,
        rate_bps=units.rate_bps(a.rate, "rate"),
        rtt_s=units.time_s(a.rtt, "rtt"),
        packet_size_bytes=int(units.size_bytes(a.packet_size, "packet-size")),
        window=a.window,
        channel=a.channel,
        ack_channel=a.ack_channel,
        duration_s=units.time_s(a.duration, "duration"),
        queue_packets=a.queue,
        dupack_threshold=a.dupack_threshold,
        initial_window=a.initial_window,
        min_rto_s=units.time_s(a.min_rto, "min-rto"),
        max_rto_s=units.time_s(a.max_rto, "max-rto"),
        initial_rto_s=units.time_s(a.initial_rto, "initial-rto"),
        granularity_s=units.time_s(a.granularity, "granularity"),
        fixed_rto_s=None if a.fixed_rto is None else units.time_s(a.fixed_rto, "fixed-rto"),
        backoff=not a.no_backoff,
        rtt_sampling=a.rtt_sampling,
        delayed_ack=a.delayed_ack,
        protect_retransmissions=a.protect_retransmissions,
        transfer_bytes=(None if a.transfer is None
                        else int(units.size_bytes(a.transfer, "transfer"))),
        profile=a.profile,
        **{f"vegas_{n}": getattr(a, f"vegas_{n}") for n in ("alpha", "beta", "gamma")
           if getattr(a, f"vegas_{n}") is not None},
    )


def seeds_from_args(a: argparse.Namespace) -> list[int]:
    return [a.seed] if a.seed is not None else list(range(1, a.seeds + 1))


def json_safe(obj: Any) -> Any:
    """NaN and infinities become null: JSON has no such numbers."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def _fmt(x: float) -> str:
    return "nan" if not math.isfinite(x) else f"{x:.6g}"


def run(a: argparse.Namespace) -> int:
    kw = scenario_from_args(a)
    variant = kw.pop("variant")
    seeds = seeds_from_args(a)
    with run_progress(f"{variant}: runs", len(seeds)) as progress:
        summary = simulate_seeds(seeds, variant, progress=progress, **kw)
    if a.json:
        print(json.dumps(json_safe(summary.as_dict())))
        return 0
    from rich.console import Console
    from rich.table import Table

    n = len(summary.reports)
    t = Table(title=f"{variant}, {n} seed{'s' if n > 1 else ''}: mean ± 95% CI")
    t.add_column("metric")
    t.add_column("mean", justify="right")
    t.add_column("± ci95", justify="right")
    for m in METRICS:
        t.add_row(m, _fmt(summary.mean(m)), _fmt(summary.ci95(m)))
    Console().print(t)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="packet-level simulation of one flow",
                       description="Simulate one TCP flow over a lossy path for several seeds.")
    add_scenario_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
