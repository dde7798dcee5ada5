"""``lossytcp simulate``: one scenario over several seeds, mean and 95% CI per metric.

The scenario is the single link of the flags below, a ``--topology`` (paper 003's two-hop
path, paper 002's dumbbell), or a TOML file (``--scenario``; see
:mod:`lossytcp.scenario`); flags given beside a file override it: the TCP flags apply to
every flow, ``--rate``/``--rtt``/``--queue``/``--channel``/``--ack-channel`` to the
topology's link they name (the bottleneck's queue and the lossy hop's channel where there
are several links), ``--flows N`` makes N copies of the first flow started 10 ms apart,
``--cross-traffic`` replaces the file's traffic.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from typing import Any

from .. import _validate as v
from .. import units
from ..errors import ParameterError
from ..sim import METRICS
from ..variants import OPTIONS, PARAMS, VARIANTS

__all__ = ["METRICS", "add_scenario_arguments", "json_safe", "register", "scenario_from_args",
           "seeds_from_args"]

#: ``--delay``'s help, here and in the emulator's commands.
DELAY_HELP = ("paper 001's semi-Markov round trip instead of --rtt, on the data direction, "
              "spelt as a scenario file's delay: '{rtt_s = [0.04, 0.32], H = [[0, 1], "
              "[1, 0]], excess_mean_s = [3, 3]}' (state delays, embedded transition matrix, "
              "mean holding time beyond each state's delay)")

#: Flags that only the typed scenario (not simulate()'s keywords) expresses.
_NETWORK_FLAGS = ("scenario", "topology", "flows", "cross_traffic")


def add_scenario_arguments(p: argparse.ArgumentParser) -> None:
    """Every scenario flag of ``simulate`` (shared with ``crosscheck``). Flags left out take
    the scenario's defaults (shown in brackets); values carry their units."""
    p.add_argument("--scenario", default=None, metavar="FILE.toml",
                   help="a scenario file (examples/scenarios/); flags given beside it override it")
    p.add_argument("--topology", default=None, choices=["single", "two-hop", "dumbbell"],
                   help="single link [default], paper 003's two-hop wired+wireless path, or "
                        "paper 002's dumbbell")
    p.add_argument("--variant", default=None, choices=VARIANTS, help="[newreno]")
    p.add_argument("--flows", type=int, default=None, metavar="N",
                   help="N identical flows on the path, started 10 ms apart [1]")
    p.add_argument("--rate", default=None, help="link rate, e.g. 2Mbps [2Mbps]")
    p.add_argument("--rtt", default=None, help="two-way propagation delay, e.g. 20ms [20ms]")
    p.add_argument("--delay", default=None, metavar="TABLE", help=DELAY_HELP)
    p.add_argument("--packet-size", default=None, help="data packet size, e.g. 500B [500B]")
    p.add_argument("--window", type=int, default=None, help="maximum window, packets [20]")
    p.add_argument("--channel", default=None,
                   help="data-direction channel, e.g. ge:alpha=0.01,beta=0.2,advance=slot "
                        "[none]; see lossytcp.spec")
    p.add_argument("--ack-channel", default=None, help="ACK-direction channel [none]")
    p.add_argument("--duration", default=None, help="simulated time per seed, e.g. 1000s [100s]")
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=int, default=5,
                       help="number of seeds, run as seeds 1..N [5]")
    seeds.add_argument("--seed", type=int, default=None, help="run this one seed only")
    p.add_argument("--queue", default=None,
                   help="queue: packets of a DropTail (50), droptail:packets=50[,bytes=..] or "
                        "red:packets=100[,min_th=5,max_th=15,max_p=0.1,w_q=0.002,gentle=true,"
                        "bytes=false,queue_in_bytes=false,ns2_seed=run] (RED left out: ns-2's "
                        "defaults, in 500-byte units; ns2_seed=N|run: early drops drawn from "
                        "ns-2's generator) [1000]")
    p.add_argument("--cross-traffic", action="append", default=None, metavar="SPEC",
                   help="generated load (repeatable): cbr:rate=2Mbps, "
                        "onoff:rate=2Mbps,on=500ms,off=500ms or web:arrival=2/s,size=100KB,max=20")
    p.add_argument("--dupack-threshold", type=int, default=None, help="[3]")
    p.add_argument("--initial-window", type=int, default=None, help="[1]")
    p.add_argument("--min-rto", default=None, help="[200ms]")
    p.add_argument("--max-rto", default=None, help="[60s]")
    p.add_argument("--initial-rto", default=None, help="[1s]")
    p.add_argument("--granularity", default=None, help="timer granularity G [0s]")
    p.add_argument("--fixed-rto", default=None,
                   help="constant RTO instead of the estimator (then no --min-rto/--initial-rto)")
    p.add_argument("--no-backoff", action="store_true", default=None,
                   help="do not double the RTO")
    p.add_argument("--rtt-sampling", default=None, choices=["per_ack", "per_window"],
                   help="[per_ack]")
    p.add_argument("--delayed-ack", action="store_true", default=None)
    # Every sender-wide option of the engine's registry, as a flag.
    for o in OPTIONS.values():
        if o.kind == "switch":
            p.add_argument(o.flag, action="store_true", default=None,
                           help=o.doc.replace("%", "%%"))
        else:
            p.add_argument(o.flag, default=None, choices=("true", "false"),
                           help=f"{o.doc} [{o.default_text()}]".replace("%", "%%"))
    p.add_argument("--protect-retransmissions", action="store_true", default=None,
                   help="retransmissions are never lost on the channel")
    p.add_argument("--transfer", default=None,
                   help="a finite transfer of this size per flow, e.g. 100kB")
    p.add_argument("--profile", default=None, choices=["rfc", "ns2"],
                   help="rfc: RFC 5681/6582/6675/6298; ns2: behave as ns-2 2.35's agents [rfc]")
    # Every plugin parameter of the engine's registry, as a flag.
    for param in PARAMS.values():
        choices = param.choices if param.type == "choice" else (
            ("true", "false") if param.type == "bool" else None)
        p.add_argument(param.flag, default=None, choices=choices,
                       dest="param_" + param.name, metavar=None if choices else "VALUE",
                       help=(f"{', '.join(param.variants)} only: {param.doc} "
                             f"[{param.default_text()}]").replace("%", "%%"))


def _size(text: str, flag: str) -> int:
    return v.integer(flag, units.size_bytes(text, flag), 1, 2**63 - 1)


def _tcp_changes(a: argparse.Namespace) -> dict[str, Any]:
    """TCP settings the flags give (units parsed), by field of lossytcp.scenario.Tcp."""
    out: dict[str, Any] = {}
    if a.packet_size is not None:
        out["packet_size_bytes"] = _size(a.packet_size, "packet-size")
    for flag, name in (("window", "window"), ("initial_window", "initial_window"),
                       ("dupack_threshold", "dupack_threshold"), ("rtt_sampling", "rtt_sampling"),
                       ("profile", "profile")):
        if getattr(a, flag) is not None:
            out[name] = getattr(a, flag)
    for flag, name in (("min_rto", "min_rto_s"), ("max_rto", "max_rto_s"),
                       ("initial_rto", "initial_rto_s"), ("granularity", "granularity_s"),
                       ("fixed_rto", "fixed_rto_s")):
        if getattr(a, flag) is not None:
            out[name] = units.time_s(getattr(a, flag), flag.replace("_", "-"))
    for name, param in PARAMS.items():
        text = getattr(a, "param_" + name, None)
        if text is not None:
            out[name] = param.parse_flag(text)
    if a.no_backoff:
        out["backoff"] = False
    if a.delayed_ack:
        out["delayed_ack"] = True
    for name, o in OPTIONS.items():
        x = getattr(a, name, None)
        if x is not None:
            out[name] = x if o.kind == "switch" else x == "true"
    return out


def scenario_from_args(a: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`lossytcp.simulate` (seed excluded), units parsed: the
    single-link flags given, and the path's basics (``rate_bps``, ``rtt_s``,
    ``packet_size_bytes``, ``window``, ``channel``, ``duration_s``) always."""
    for flag in _NETWORK_FLAGS:
        if getattr(a, flag, None) is not None:
            raise ParameterError(flag.replace("_", "-"), getattr(a, flag),
                                 "is not available here: this command runs simulate()'s "
                                 "single link")
    kw: dict[str, Any] = dict(
        variant=a.variant or "newreno",
        rate_bps=units.rate_bps(a.rate or "2Mbps", "rate"),
        **_round_trip(a),
        packet_size_bytes=_size(a.packet_size or "500B", "packet-size"),
        window=20 if a.window is None else a.window,
        channel=a.channel or "none",
        duration_s=units.time_s(a.duration or "100s", "duration"),
    )
    tcp = _tcp_changes(a)
    tcp.pop("packet_size_bytes", None)
    tcp.pop("window", None)
    kw.update(tcp)
    if a.ack_channel is not None:
        kw["ack_channel"] = a.ack_channel
    if a.queue is not None:
        kw["queue"] = a.queue
    if a.protect_retransmissions:
        kw["protect_retransmissions"] = True
    if a.transfer is not None:
        kw["transfer_bytes"] = _size(a.transfer, "transfer")
    return kw


def _round_trip(a: argparse.Namespace) -> dict[str, Any]:
    """simulate()'s ``rtt_s`` (20 ms unless ``--rtt``) or, with ``--delay``, its ``delay``."""
    delay = getattr(a, "delay", None)
    if delay is None:
        return {"rtt_s": units.time_s(a.rtt or "20ms", "rtt")}
    if a.rtt is not None:
        raise ParameterError("rtt", a.rtt, "give either --rtt or --delay: the semi-Markov "
                             "delay replaces the fixed round trip")
    from ..scenario import delay_from_text

    return {"delay": delay_from_text(delay, "delay")}


def seeds_from_args(a: argparse.Namespace, default: int | list[int] = 5) -> list[int]:
    if a.seed is not None:
        return [v.integer("seed", a.seed, 0, 2**64 - 1)]
    n = default if a.seeds is None else a.seeds
    if isinstance(n, list):
        return n
    return list(range(1, v.integer("seeds", n, 1, 10**7) + 1))


def build_scenario_from_args(a: argparse.Namespace) -> Any:
    """The typed :class:`~lossytcp.scenario.Scenario` of the flags (and the file)."""
    from .. import scenario as s

    if a.scenario is not None:
        sc = s.Scenario.load(a.scenario)
        if a.topology is not None and s.TOPOLOGIES[a.topology] is not type(sc.topology):
            raise ParameterError("topology", a.topology,
                                 f"differs from the file's topology ({sc.topology.KIND}); "
                                 "edit the file or leave --topology out")
    else:
        topo = {None: s.SingleLink, "single": s.SingleLink, "two-hop": s.TwoHop,
                "dumbbell": s.Dumbbell}[a.topology]()
        sc = s.Scenario(topology=topo)
    # The topology's settings.
    given = {"rate": a.rate, "rtt": a.rtt, "delay": a.delay, "queue": a.queue,
             "channel": a.channel, "ack_channel": a.ack_channel,
             "protect_retransmissions": a.protect_retransmissions}
    given = {k: x for k, x in given.items() if x is not None}
    fields_of = sc.topology.overrides()
    changes: dict[str, Any] = {}
    for flag, x in given.items():
        name = fields_of.get(flag)
        if name is None:
            raise ParameterError(flag.replace("_", "-"), x,
                                 f"has no meaning for the {sc.topology.KIND} topology; set its "
                                 "links in a scenario file (see examples/scenarios/)")
        if flag == "rate":
            x = units.rate_bps(x, "rate")
        elif flag == "rtt":
            x = units.time_s(x, "rtt")
            if "delay" in fields_of:
                # The fixed round trip replaces the file's semi-Markov delay.
                changes["delay"] = None
        elif flag == "delay":
            x = _round_trip(a)["delay"]
            # ... and the semi-Markov delay the file's (or the default) round trip.
            if "rtt" in fields_of:
                changes[fields_of["rtt"]] = None
        changes[name] = x
    # The topology is checked against the flows together with them (below): a channel
    # naming flow 2 needs the --flows that make it exist.
    topo = dataclasses.replace(sc.topology, **changes) if changes else sc.topology
    # Every flow's TCP, variant, application.
    tcp = _tcp_changes(a)
    flows = []
    for f in sc.flows:
        kw: dict[str, Any] = {}
        if tcp:
            kw["tcp"] = dataclasses.replace(f.tcp, **tcp)
        if a.variant is not None:
            kw["variant"] = a.variant
        if a.transfer is not None:
            kw["app"] = s.Transfer(_size(a.transfer, "transfer"))
        flows.append(dataclasses.replace(f, **kw) if kw else f)
    if a.flows is not None:
        n = v.integer("flows", a.flows, 1, 10_000)
        flows = [dataclasses.replace(flows[0], count=n, stagger_s=0.01)]
    sc = sc.replace(topology=topo, flows=tuple(flows))
    if a.cross_traffic is not None:
        from ..spec import traffic_from_spec

        sources = []
        for spec in a.cross_traffic:
            t = traffic_from_spec(spec, "cross-traffic")
            if isinstance(t, s.Transfers) and t.tcp == s.Tcp():
                t = dataclasses.replace(t, tcp=sc.flows[0].tcp)   # the run's TCP settings
            sources.append(t)
        sc = s.with_cross_traffic(sc, sources)
    if a.duration is not None:
        sc = sc.replace(duration_s=units.time_s(a.duration, "duration"))
    return sc


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


def _short(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 1e4 else f"{x:.4g}"


def _shown(summary: Any, metric: str) -> bool:
    # A bulk transfer has no completion time, and a sender without a loss classifier no
    # classification accuracy: no row of NaNs for either.
    return not (metric in ("completion_time_s", "classification_accuracy")
                and not math.isfinite(summary.mean(metric)))


def run(a: argparse.Namespace) -> int:
    from ..sim import run_seeds
    from ._progress import run_progress

    sc = build_scenario_from_args(a)
    seeds = seeds_from_args(a, [sc.seed] if a.scenario is not None else 5)
    flows = sc.all_flows()
    what = flows[0].variant if len(flows) == 1 else f"{len(flows)} flows"
    with run_progress(f"{what}: runs", len(seeds), simulated_s=sc.duration_s) as progress:
        summary = run_seeds(sc, seeds, progress=progress, partial=True)
    single = len(flows) == 1
    if a.json:
        out = summary.flow(0).as_dict() if single else summary.as_dict()
        if sc.traffic:
            out["traffic"] = _traffic_means(summary)
        print(json.dumps(json_safe(out)))
        return 0
    from rich.console import Console
    from rich.table import Table

    con = Console()
    n = len(summary.reports)
    head = f"{n} seed{'s' if n > 1 else ''}: mean ± 95% CI"
    if single:
        one = summary.flow(0)
        t = Table(title=f"{flows[0].variant}, {head}")
        t.add_column("metric")
        t.add_column("mean", justify="right")
        t.add_column("± ci95", justify="right")
        for m in METRICS:
            if _shown(one, m):
                t.add_row(m, _fmt(one.mean(m)), _fmt(one.ci95(m)))
        con.print(t)
    else:
        t = Table(title=f"{len(flows)} flows together, {head}")
        t.add_column("metric")
        t.add_column("mean", justify="right")
        t.add_column("± ci95", justify="right")
        for m in (*METRICS, "jain_index"):
            if _shown(summary, m):
                t.add_row(m, _fmt(summary.mean(m)), _fmt(summary.ci95(m)))
        con.print(t)
        variants = {f.variant for f in flows}
        per = Table(title="per flow, mean ± 95% CI (share: goodput / (capacity / flows))")
        cols = ("flow", *(("variant",) if len(variants) > 1 else ()), "goodput_norm", "share",
                "timeouts", "fast retr.", "drops")
        for col in cols:
            per.add_column(col, justify="left" if col in ("flow", "variant") else "right")
        from ..sim import _ci95, _mean

        def pm(mean: float, ci: float) -> str:
            return "nan" if not math.isfinite(mean) else (
                f"{mean:.4g}" + (f" ± {ci:.2g}" if math.isfinite(ci) and ci > 0 else ""))

        for i, lab in enumerate(summary.labels):
            f = summary.flow(i)
            share = summary.fair_share(i)
            per.add_row(lab, *((f.reports[0].variant,) if len(variants) > 1 else ()),
                        pm(f.mean("goodput_norm"), f.ci95("goodput_norm")),
                        pm(_mean(share), _ci95(share)),
                        *(pm(f.mean(m), f.ci95(m))
                          for m in ("timeouts", "fast_retransmits", "queue_drops")))
        con.print(per)
    if sc.traffic:
        # The keys a reader compares; --json has them all.
        shown = [("transfers_started", "started"), ("transfers_completed", "done"),
                 ("completion_time_s.mean", "mean s"), ("completion_time_s.p90", "p90 s"),
                 ("packets_sent", "packets"), ("queue_drops", "dropped"),
                 ("goodput_bps", "Mb/s")]
        rows = _traffic_means(summary)
        cols = [(k, head) for k, head in shown if any(k in r for r in rows)]
        tt = Table(title="traffic (mean over seeds; --json has every key)")
        tt.add_column("source")
        for _, head in cols:
            tt.add_column(head, justify="right")
        for r in rows:
            udp = r.get("kind") != "transfers"
            tt.add_row(r["label"], *(
                "" if (udp and k.startswith(("transfers", "completion")))
                else _short(r[k] / (1e6 if k == "goodput_bps" else 1))
                if isinstance(r.get(k), float) and math.isfinite(r[k]) else "-"
                for k, _ in cols))
        con.print(tt)
    return 0


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"completion_time_s": {"mean": 1}}`` -> ``{"completion_time_s.mean": 1}``."""
    out: dict[str, Any] = {}
    for k, x in d.items():
        if isinstance(x, dict):
            out.update(_flatten(x, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = x
    return out


def _traffic_means(summary: Any) -> list[dict[str, Any]]:
    """Per traffic source, the mean over seeds of each numeric key of the engine's report."""
    out = []
    first = summary.reports[0].traffic
    for i, t in enumerate(first):
        row: dict[str, Any] = {"label": t.label, "kind": t.kind}
        flat = _flatten(t.values)
        for k, x in flat.items():
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                vals = [_flatten(r.traffic[i].values).get(k) for r in summary.reports]
                vals = [float(y) for y in vals if isinstance(y, (int, float))]
                row[k] = sum(vals) / len(vals) if vals else math.nan
        out.append(row)
    return out


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="packet-level simulation of TCP flows over a lossy "
                                        "path or network",
                       description=__doc__.split("\n\n")[1].replace("``", "'"))
    add_scenario_arguments(p)
    # Here --seeds left out means "the file's seed" with --scenario (5 seeds without one), so
    # it has no default of its own (crosscheck keeps 5).
    for action in p._actions:
        if action.dest == "seeds":
            action.help = "number of seeds, run as seeds 1..N [5; with --scenario: its seed]"
    p.set_defaults(seeds=None)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
