"""The simulator's Python API: validate here, simulate in Rust.

:func:`simulate` runs one flow over one path (a link of ``rate_bps`` with a two-way
propagation delay ``rtt_s``, a channel on the data direction, a lossless ACK direction unless
``ack_channel`` says otherwise) and returns a :class:`SimReport`. :func:`simulate_seeds` runs
several seeds in threads (the engine releases the GIL) and summarises them with 95%
confidence intervals. :func:`run` and :func:`run_seeds` do the same for any
:class:`~lossytcp.scenario.Scenario` (several flows, networks, generated traffic) and return
:class:`NetReport` / :class:`NetSummary`.

Ctrl-C stops a run within about 50 ms (the engine polls for it; see ``crates/lossytcp-py``):
:func:`simulate` raises ``KeyboardInterrupt``, and :func:`simulate_seeds` cancels the runs in
progress and those not started, then raises it.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from . import _validate as v
from . import scenario as sc_mod
from . import variants as _variants
from .errors import NoProgressError, ParameterError, ScenarioError
from .scenario import (
    CLASSIFYING_VARIANTS,
    VARIANTS,
    Record,
    Scenario,
    draws_from_ns2_rng,
    record,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["METRICS", "RACK_METRICS", "REORDERING_METRICS", "TLP_METRICS", "UNDO_METRICS",
           "VARIANTS", "LinkReport", "NetReport", "NetSummary", "SeedSummary", "SimReport",
           "TrafficReport", "build_scenario", "engine_supports_networks", "run", "run_seeds",
           "scenario_from_keywords", "simulate", "simulate_seeds"]

#: The undo counters: their sum, then by the detection that found the loss spurious.
UNDO_METRICS = ("undos", "undos_eifel_timeout", "undos_eifel_fast_retransmit", "undos_frto",
                "undos_dsack", "undos_partial")
#: The tail loss probe counters (``tlp``): probes sent, and episodes ended as a loss the
#: probe repaired.
TLP_METRICS = ("tlps", "tlp_recoveries")
#: The RACK counters (``rack``): segments RACK marked lost, and retransmissions in flight
#: marked lost, by RACK or a timeout (Linux's TCPLostRetransmit).
RACK_METRICS = ("rack_lost", "rack_lost_retransmissions")
#: The kernel's response to reordering, beside ``rack``: reordering events (Linux's
#: TCPSACKReorder + TCPTSReorder), the highest reordering degree (``reordering``) and RACK's
#: window steps at the end (``rack_reo_wnd``).
REORDERING_METRICS = ("reordering_events", "reordering_degree", "rack_reo_wnd_steps")

#: Metrics reported per run, in display order.
METRICS = (
    "goodput_norm", "throughput_norm", "goodput_pps", "throughput_pps", "packets_sent",
    "retransmissions", "channel_losses", "queue_drops", "timeouts", "fast_retransmits",
    "loss_events", "timeout_fraction", "spurious_timeouts", "spurious_fast_retransmits",
    *UNDO_METRICS, *TLP_METRICS, *RACK_METRICS, *REORDERING_METRICS,
    "transmissions_per_delivered", "completion_time_s", "classification_accuracy",
)


class RunMetrics:
    """Rates and ratios derived from a run's counters, for the engine's and ns-2's reports."""

    packets_sent: int
    packets_received: int
    packets_delivered: int
    timeouts: int
    fast_retransmits: int
    elapsed_s: float
    capacity_pps: float

    @property
    def throughput_pps(self) -> float:
        """Data packets arriving at the receiver per second, duplicates included."""
        return self.packets_received / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def goodput_pps(self) -> float:
        """Segments delivered in order for the first time, per second."""
        return self.packets_delivered / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def throughput_norm(self) -> float:
        return self.throughput_pps / self.capacity_pps

    @property
    def goodput_norm(self) -> float:
        return self.goodput_pps / self.capacity_pps

    @property
    def loss_events(self) -> int:
        return self.timeouts + self.fast_retransmits

    @property
    def timeout_fraction(self) -> float:
        """Share of loss detections that were timeouts (NaN when there were none)."""
        return self.timeouts / self.loss_events if self.loss_events else math.nan

    @property
    def transmissions_per_delivered(self) -> float:
        return self.packets_sent / self.packets_delivered if self.packets_delivered else math.nan


@dataclass(frozen=True, kw_only=True)
class RunCounts(RunMetrics):
    """The counters a run of one flow reports on any side of a cross-check, with the rates
    :class:`RunMetrics` derives from them; ``packets_received`` NaN where a side does not count
    it. One definition for :class:`lossytcp.cli._verdicts.FlowCounts` and
    :class:`lossytcp.ns3.Ns3Report`. Keyword-only (as its subclasses), so that a subclass adds
    fields with or without defaults after the one with a default here."""

    packets_sent: int
    retransmissions: int
    timeouts: int
    fast_retransmits: int
    packets_delivered: int
    elapsed_s: float
    capacity_pps: float
    packets_received: float = math.nan

    def metric(self, name: str) -> float:
        """A counter, rate or ratio by name; NaN for one that is None."""
        x = getattr(self, name)
        return math.nan if x is None else float(x)


@record
class SimReport(Record, RunMetrics):
    """One run of one flow. Rates are over ``elapsed_s`` (to the end of the run, or to the
    completion of a finite transfer); ``*_norm`` divide by the bottleneck capacity. Times are
    whole nanoseconds (the engine's clock), shown as such."""

    variant: str
    seed: int
    packets_sent: int
    retransmissions: int
    channel_losses: int
    queue_drops: int
    packets_received: int
    packets_delivered: int
    acks_sent: int
    timeouts: int
    fast_retransmits: int
    spurious_timeouts: int
    spurious_fast_retransmits: int
    #: Window reductions the sender undid, by the detection that found the loss spurious:
    #: Eifel's timestamp echo after a timeout or a fast retransmit (``eifel_undo``), F-RTO
    #: (``frto``), DSACK (``dsack``); :attr:`undos` is their sum.
    undos_eifel_timeout: int
    undos_eifel_fast_retransmit: int
    undos_frto: int
    undos_dsack: int
    elapsed_s: float
    completion_time_s: float | None
    capacity_pps: float
    final_cwnd: float
    final_ssthresh: float
    final_rto_s: float
    srtt_s: float | None
    events: int
    send_trace: list[tuple[float, int, bool]] = field(default_factory=list, repr=False)
    window_trace: list[tuple[float, float, float, float]] = field(default_factory=list, repr=False)
    #: (time_s, phase) of the growth plugin's own state (BBR's mode), with ``trace_window``.
    phase_trace: list[tuple[float, str]] = field(default_factory=list, repr=False)
    #: (time_s, pacing rate in b/s, 0 when not pacing) on change, with ``trace_window``.
    pacing_trace: list[tuple[float, float]] = field(default_factory=list, repr=False)
    #: simulate(trace_delay=True): (entry time, state) of the semi-Markov delay, per state.
    delay_trace: list[tuple[float, int]] = field(default_factory=list, repr=False)
    #: The flow's name in a multi-flow report.
    label: str | None = None
    #: Network engine only (None before): RED's early drops and full-queue drops
    #: (queue_drops is their sum), and the true cause of each detected loss.
    early_drops: int | None = None
    forced_drops: int | None = None
    loss_causes: dict[str, int] | None = field(default=None, compare=False)
    #: A loss classifier's verdicts against the true causes (newreno-lp, ideal-lp): loss
    #: events judged (spurious detections have no cause and are left out), correct ones, and
    #: the two errors.
    classification: dict[str, int] | None = field(default=None, compare=False)
    #: ``tlp``: tail loss probes sent (Linux's TCPLossProbes), and the probe episodes that
    #: ended as a loss the probe repaired, with the window reduced (TCPLossProbeRecovery).
    tlps: int = 0
    tlp_recoveries: int = 0
    #: ``rack``: segments RACK marked lost, and retransmissions in flight marked lost, by RACK
    #: or a timeout (Linux's TCPLostRetransmit).
    rack_lost: int = 0
    rack_lost_retransmissions: int = 0
    #: ``rack``: reordering events (Linux's TCPSACKReorder + TCPTSReorder), the highest
    #: reordering degree (``reordering``) and RACK's window steps at the end
    #: (``rack_reo_wnd``); ``partial_undo``: recoveries undone by tcp_try_undo_partial()
    #: (TCPPartialUndo), counted in :attr:`undos`.
    reordering_events: int = 0
    reordering_degree: int = 0
    rack_reo_wnd_steps: int = 0
    undos_partial: int = 0

    @property
    def undos(self) -> int:
        """Window reductions undone, whatever found them spurious."""
        return (self.undos_eifel_timeout + self.undos_eifel_fast_retransmit + self.undos_frto
                + self.undos_dsack + self.undos_partial)

    @property
    def classification_accuracy(self) -> float:
        """Paper 003: correct classifications / loss events (NaN without a classifier or
        without a judged loss)."""
        c = self.classification
        return c["correct"] / c["classified"] if c and c["classified"] else math.nan

    def metric(self, name: str) -> float:
        """One metric of :data:`METRICS` (or another numeric field of the report)."""
        x = getattr(self, name, None) if isinstance(name, str) and not name.startswith("_") \
            else None
        if x is None and name not in METRICS or isinstance(x, (bool, str, dict, list, tuple)) \
                or callable(x):
            raise ParameterError("metric", name, "must be one of " + ", ".join(METRICS))
        return math.nan if x is None else float(x)

    def as_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.endswith("trace")}
        d.update({m: self.metric(m) for m in METRICS})
        return d


def _ci95(x: np.ndarray) -> float:
    import numpy as np

    x = x[np.isfinite(x)]
    if x.size < 2:
        return 0.0 if x.size == 1 else math.nan
    from scipy import stats  # deferred: importing scipy costs more than a short run

    return float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


def _mean(x: np.ndarray) -> float:
    import numpy as np

    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else math.nan


@dataclass(frozen=True)   # a dataclass (not a record): lossytcp.ns2's Ns2Summary derives from it
class SeedSummary:
    """Runs of the same scenario over several seeds."""

    reports: tuple[SimReport, ...]

    def values(self, metric: str) -> np.ndarray:
        import numpy as np

        return np.array([r.metric(metric) for r in self.reports], dtype=float)

    def mean(self, metric: str) -> float:
        return _mean(self.values(metric))

    def ci95(self, metric: str) -> float:
        """Half-width of the 95% Student-t confidence interval of the mean (0 for one run)."""
        return _ci95(self.values(metric))

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {m: {"mean": self.mean(m), "ci95": self.ci95(m)} for m in METRICS}


# ------------------------------------------------------------------------ network reports
@record
class LinkReport(Record):
    """One directed link's counters (``extra``: keys of newer engines)."""

    index: int
    src: str | None
    dst: str | None
    transmitted: int
    channel_drops: int
    queue_drops: int
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "src": self.src, "dst": self.dst,
                "transmitted": self.transmitted, "channel_drops": self.channel_drops,
                "queue_drops": self.queue_drops, **self.extra}


@record
class TrafficReport(Record):
    """One traffic source's report from the engine (packets, transfers, completion times,
    goodput), as a mapping of the engine's keys."""

    label: str
    kind: str
    values: dict[str, Any] = field(compare=False)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, **self.values}


_SUMMED = ("packets_sent", "retransmissions", "channel_losses", "queue_drops",
           "packets_received", "packets_delivered", "acks_sent", "timeouts",
           "fast_retransmits", "spurious_timeouts", "spurious_fast_retransmits", *UNDO_METRICS,
           *TLP_METRICS, *RACK_METRICS, "reordering_events")


@record
class NetReport(Record):
    """One run of a scenario: a :class:`SimReport` per flow, the links and traffic sources,
    and the flows' aggregate (:meth:`metric`): counters summed, packet rates summed, and the
    normalised rates divided by the largest flow's bottleneck capacity (the shared
    bottleneck, when the flows share one)."""

    seed: int
    flows: tuple[SimReport, ...]
    links: tuple[LinkReport, ...]
    traffic: tuple[TrafficReport, ...]
    events: int
    simulated_s: float
    queue_trace: Any = field(default=None, compare=False, repr=False)

    def flow(self, key: int | str) -> SimReport:
        """A flow by index or label."""
        if isinstance(key, str):
            for f in self.flows:
                if f.label == key:
                    return f
            raise ParameterError("flow", key, "must be one of the labels "
                                 + ", ".join(str(f.label) for f in self.flows))
        return self.flows[v.integer("flow", key, 0, len(self.flows) - 1)]

    def _chosen(self, flows: Iterable[int | str] | None) -> list[SimReport]:
        if flows is None:
            return list(self.flows)
        chosen = [self.flow(k) for k in flows]
        if not chosen:
            raise ParameterError("flows", flows, "must choose at least one flow")
        return chosen

    def metric(self, name: str) -> float:
        """The flows' aggregate of a metric of :data:`METRICS`."""
        fl = self.flows
        if name in _SUMMED:
            return float(sum(getattr(f, name) for f in fl))
        cap = max(f.capacity_pps for f in fl)
        if name in ("goodput_pps", "throughput_pps"):
            return float(sum(getattr(f, name) for f in fl))
        if name in ("goodput_norm", "throughput_norm"):
            return float(sum(getattr(f, name.replace("_norm", "_pps")) for f in fl)) / cap
        if name == "loss_events":
            return float(sum(f.loss_events for f in fl))
        if name == "timeout_fraction":
            ev = sum(f.loss_events for f in fl)
            return sum(f.timeouts for f in fl) / ev if ev else math.nan
        if name == "transmissions_per_delivered":
            d = sum(f.packets_delivered for f in fl)
            return sum(f.packets_sent for f in fl) / d if d else math.nan
        if name == "completion_time_s":
            done = [f.completion_time_s for f in fl if f.completion_time_s is not None]
            return sum(done) / len(done) if done else math.nan
        if name in ("reordering_degree", "rack_reo_wnd_steps"):
            # A flow's own state at its highest or at the end: the flows' largest.
            return float(max(getattr(f, name) for f in fl))
        if name == "classification_accuracy":
            judged = [f.classification for f in fl if f.classification]
            n = sum(c["classified"] for c in judged)
            return sum(c["correct"] for c in judged) / n if n else math.nan
        raise ParameterError("metric", name, "must be one of " + ", ".join(METRICS))

    def jain(self, flows: Iterable[int | str] | None = None, metric: str = "goodput_pps"
             ) -> float:
        """Jain's fairness index (sum x)^2 / (n sum x^2) of ``metric`` over the chosen flows
        (all by default): 1 when all get the same, 1/n when one gets everything."""
        x = [f.metric(metric) for f in self._chosen(flows)]
        s2 = sum(y * y for y in x)
        return (sum(x) ** 2) / (len(x) * s2) if s2 > 0 else math.nan

    def fair_share_goodput(self, flows: Iterable[int | str] | None = None) -> list[float]:
        """Each chosen flow's goodput over its fair share, the chosen flows' common bottleneck
        capacity divided by their number (1 = exactly the fair share)."""
        chosen = self._chosen(flows)
        share = min(f.capacity_pps for f in chosen) / len(chosen)
        return [f.goodput_pps / share for f in chosen]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {m: self.metric(m) for m in METRICS}
        out["jain_index"] = self.jain()
        out["flows"] = [f.as_dict() for f in self.flows]
        out["links"] = [lk.as_dict() for lk in self.links]
        if self.traffic:
            out["traffic"] = [t.as_dict() for t in self.traffic]
        return out


@record
class NetSummary(Record):
    """Runs of one scenario over several seeds: means and 95% intervals of the aggregate,
    of Jain's index, and of each flow's metrics (:meth:`flow`)."""

    reports: tuple[NetReport, ...]

    def values(self, metric: str) -> np.ndarray:
        import numpy as np

        if metric == "jain_index":
            return np.array([r.jain() for r in self.reports], dtype=float)
        return np.array([r.metric(metric) for r in self.reports], dtype=float)

    def mean(self, metric: str) -> float:
        return _mean(self.values(metric))

    def ci95(self, metric: str) -> float:
        return _ci95(self.values(metric))

    def flow(self, key: int | str) -> SeedSummary:
        return SeedSummary(tuple(r.flow(key) for r in self.reports))

    @property
    def labels(self) -> list[str]:
        return [str(f.label) for f in self.reports[0].flows]

    def fair_share(self, key: int | str) -> np.ndarray:
        """A flow's goodput over its fair share (:meth:`NetReport.fair_share_goodput` over all
        flows), one value per seed."""
        import numpy as np

        i = key if isinstance(key, int) else self.labels.index(key)
        return np.array([r.fair_share_goodput()[i] for r in self.reports], dtype=float)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {m: {"mean": self.mean(m), "ci95": self.ci95(m)} for m in METRICS}
        out["jain_index"] = {"mean": self.mean("jain_index"), "ci95": self.ci95("jain_index")}
        out["flows"] = []
        for i, lab in enumerate(self.labels):
            share = self.fair_share(i)
            out["flows"].append({"label": lab, "variant": self.reports[0].flows[i].variant,
                                 **self.flow(i).as_dict(),
                                 "fair_share_goodput": {"mean": _mean(share),
                                                        "ci95": _ci95(share)}})
        return out


# --------------------------------------------------------------- simulate()'s keywords
_DEFAULTS: dict[str, Any] = dict(
    rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20, channel="none",
    duration_s=100.0, seed=1, queue_packets=1000, queue=None, dupack_threshold=3,
    initial_window=1, min_rto_s=None, max_rto_s=60.0, granularity_s=0.0, initial_rto_s=None,
    fixed_rto_s=None, backoff=None, max_backoff=None, rtt_sampling="per_ack",
    rto_estimator="rfc6298", delayed_ack=False,
    protect_retransmissions=False, delay=None, slot_model=False, ack_channel="none",
    ack_size_bytes=40, transfer_bytes=None, profile="rfc", tick_phase=None, trace_sends=False,
    trace_window=False, trace_delay=False, hops=None,
    # Every sender-wide option of the engine's registry (False, or None: the profile's).
    **{k: o.unset for k, o in _variants.OPTIONS.items()},
    # Every plugin parameter of the engine's registry (None: the variant's default).
    **dict.fromkeys(_variants.PARAMS),
)


def _refuse_together(given: set[str], a: str, others: Sequence[str], value: object,
                     why: str) -> None:
    clash = [o for o in others if o in given]
    if clash:
        raise ParameterError(a, value, f"give either {a} or {', '.join(clash)}: {why}")


def scenario_from_keywords(variant: str = "newreno", **kwargs: Any) -> Scenario:
    """The :class:`~lossytcp.scenario.Scenario` for :func:`simulate`'s arguments, validated.

    Parameters given together that cannot both hold are refused (``delay`` with ``rtt_s``,
    ``slot_model`` with ``rtt_s``/``ack_size_bytes``/``granularity_s``, ``hops`` with the
    single link's ``rate_bps``/``rtt_s``/``channel``, ``queue`` with ``queue_packets``)."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise ParameterError(unknown[0], kwargs[unknown[0]],
                             "is not a parameter of simulate(); see help(lossytcp.simulate)")
    given = {k for k, x in kwargs.items() if x is not None}
    p = {**_DEFAULTS, **kwargs}
    variant = v.choice("variant", variant, VARIANTS)
    if p["hops"] is not None:
        _refuse_together(given, "hops", ["rate_bps", "rtt_s", "channel"], p["hops"],
                         "hops describe each link")
    if p["delay"] is not None:
        _refuse_together(given, "delay", ["rtt_s"], p["delay"], "the semi-Markov delay "
                         "replaces the fixed round trip")
    if p["queue"] is not None:
        _refuse_together(given, "queue", ["queue_packets"], p["queue"],
                         "queue_packets is a DropTail queue")
    slot_model = v.boolean("slot_model", p["slot_model"])
    backoff = p["backoff"]
    if slot_model:
        _refuse_together(given, "slot_model", ["rtt_s", "ack_size_bytes", "granularity_s"],
                         True, "the slot model has no propagation delay, ACKs of no size at "
                         "the end of the slot and an exact timer")
        # Paper 004: one packet per slot, no propagation delay, the ACK at the end of its slot,
        # a fixed RTO of T0 slots and no backoff unless asked for.
        if p["fixed_rto_s"] is None:
            raise ParameterError("fixed_rto_s", None, "the slot model needs the fixed timeout T0 "
                                 "(in seconds: T0 slots x packet time)")
        p.update(rtt_s=0.0, ack_size_bytes=0, granularity_s=0.0)
        if backoff is None:
            backoff = False
    backoff = True if backoff is None else v.boolean("backoff", backoff)
    tcp = sc_mod.Tcp(
        packet_size_bytes=p["packet_size_bytes"], ack_size_bytes=p["ack_size_bytes"],
        window=p["window"], initial_window=p["initial_window"],
        dupack_threshold=p["dupack_threshold"], min_rto_s=p["min_rto_s"],
        max_rto_s=p["max_rto_s"], initial_rto_s=p["initial_rto_s"],
        granularity_s=p["granularity_s"], fixed_rto_s=p["fixed_rto_s"], backoff=backoff,
        max_backoff=p["max_backoff"], rtt_sampling=p["rtt_sampling"],
        rto_estimator=p["rto_estimator"], delayed_ack=p["delayed_ack"], profile=p["profile"],
        **{k: p[k] for k in _variants.PARAMS},
        **{k: p[k] for k in _variants.OPTIONS}, tick_phase=p["tick_phase"])
    app: Any = sc_mod.Bulk()
    if p["transfer_bytes"] is not None:
        app = sc_mod.Transfer(v.integer("transfer_bytes", p["transfer_bytes"], 1,
                                        sc_mod.MAX_BYTES))
    flow = sc_mod.Flow(variant=variant, tcp=tcp, app=app)
    if p["queue"] is not None:
        q = sc_mod.queue(p["queue"], "queue")
    else:
        with v.where("queue_packets", {"packets": ""}):
            q = sc_mod.DropTail(packets=p["queue_packets"])
    protect = v.boolean("protect_retransmissions", p["protect_retransmissions"])
    topo: Any
    if p["hops"] is not None:
        topo = sc_mod.Chain(hops=_legacy_hops(p["hops"], q), ack_channel=p["ack_channel"],
                            delay=p["delay"], protect_retransmissions=protect)
    else:
        topo = sc_mod.SingleLink(rate_bps=p["rate_bps"],
                                 rtt_s=None if p["delay"] is not None else p["rtt_s"],
                                 delay=p["delay"],
                                 queue=q, channel=p["channel"], ack_channel=p["ack_channel"],
                                 protect_retransmissions=protect)
    trace = sc_mod.Tracing(sends=v.boolean("trace_sends", p["trace_sends"]),
                           window=v.boolean("trace_window", p["trace_window"]),
                           delay=v.boolean("trace_delay", p["trace_delay"]))
    return Scenario(topology=topo, flows=(flow,), seed=p["seed"], duration_s=p["duration_s"],
                    trace=trace)


def _legacy_hops(hops: object, default_queue: Any) -> list[Any]:
    """simulate()'s ``hops``: dicts with ``rate_bps``, ``delay_s`` (one way) and optionally
    ``queue_packets`` (or ``queue``) and ``channel``."""
    if isinstance(hops, (str, bytes, Mapping)) or not isinstance(hops, Sequence) or not hops:
        raise ParameterError("hops", hops, "must be a non-empty list of hop dicts")
    out = []
    for i, h in enumerate(hops):
        name = f"hops[{i}]"
        if isinstance(h, sc_mod.Hop):
            out.append(h)
            continue
        if not isinstance(h, Mapping):
            raise ParameterError(name, h, "must be a dict with rate_bps and delay_s")
        h = dict(h)
        unknown = set(h) - {"rate_bps", "delay_s", "queue_packets", "queue", "channel"}
        if unknown:
            k = sorted(unknown)[0]
            raise ParameterError(f"{name}.{k}", h[k],
                                 "unknown key; use rate_bps, delay_s, queue_packets, channel")
        if "queue_packets" in h:
            if "queue" in h:
                raise ParameterError(f"{name}.queue", h["queue"],
                                     "give either queue or queue_packets")
            with v.where(f"{name}.queue_packets", {"packets": ""}):
                h["queue"] = sc_mod.DropTail(packets=h.pop("queue_packets"))
        h.setdefault("queue", default_queue)
        out.append(sc_mod.Hop.from_dict(h, name))
    return out


def build_scenario(variant: str = "newreno", **kwargs: Any) -> dict[str, Any]:
    """The engine scenario (a JSON-ready dict) for :func:`simulate`'s arguments, validated."""
    return scenario_from_keywords(variant, **kwargs).engine()


# ------------------------------------------------------------------------------ running
def _engine_run(engine_json: dict[str, Any] | str, control: Any = None) -> dict[str, Any]:
    """One engine run; the engine's refusals and its Zeno guard as ParameterErrors."""
    from . import _sim

    text = engine_json if isinstance(engine_json, str) else json.dumps(engine_json)
    try:
        return json.loads(_sim.run_json(text, control))
    except _sim.NoProgress as e:
        raise NoProgressError(str(e)) from None
    except ValueError as e:
        if "unknown field" in str(e):
            raise ScenarioError(f"this build of the engine does not run networks yet (named "
                                f"nodes, routed flows, generated traffic, RED: issue 9); it "
                                f"refused the scenario: {e}") from None
        raise ScenarioError(f"the engine refused the scenario: {e}") from None


def _round_ns(x: float | None) -> float | None:
    # The engine's times are whole nanoseconds converted as ns * 1e-9, which leaves binary
    # noise in the last digit (1000.0000000000001); rounded to 9 decimals they read exactly.
    return None if x is None else round(x, 9)


def _flow_report(flow: Mapping[str, Any], variant: str, seed: int, events: int,
                 label: str | None = None, delay_trace=()) -> SimReport:
    names = {f.name for f in fields(SimReport)}
    kw = {k: flow[k] for k in names if k in flow}
    if variant not in CLASSIFYING_VARIANTS:
        kw.pop("classification", None)
    engine_label = kw.pop("label", None)
    label = label if label is not None else engine_label
    for k in ("elapsed_s", "completion_time_s", "final_rto_s", "srtt_s"):
        if k in kw:
            kw[k] = _round_ns(kw[k])
    return SimReport(variant=variant, seed=seed, events=events, label=label,
                     delay_trace=list(delay_trace), **kw)


def _run(scenario: dict[str, Any], variant: str) -> SimReport:
    out = _engine_run(scenario)
    states = next((lk["delay_trace"] for lk in out.get("links", ()) if lk.get("delay_trace")),
                  ())
    return _flow_report(out["flows"][0], variant, scenario["seed"], out["events"],
                        delay_trace=[(t, int(s)) for t, s in states])


def simulate(variant: str = "newreno", **kwargs: Any) -> SimReport:
    """Simulate one TCP flow over a lossy path.

    Parameters are numbers in the unit of their name (``rate_bps=2e6``; text with units is
    refused: :mod:`lossytcp.units` parses it) and booleans where a switch is meant (``True``
    or ``False``, never ``"no"``): ``rate_bps``, ``rtt_s`` (two-way propagation delay, split
    evenly), ``packet_size_bytes``, ``window`` (maximum window, packets), ``channel`` (spec
    string, see :mod:`lossytcp.spec`, a dict in the engine's form or a channel of
    :mod:`lossytcp.scenario`), ``duration_s``, ``seed``, ``queue_packets`` (a DropTail queue)
    or ``queue`` (``"red:packets=..."`` or a queue of :mod:`lossytcp.scenario`),
    ``dupack_threshold``, ``initial_window`` (at most ``window``), ``min_rto_s`` (default
    0.2), ``max_rto_s``, ``granularity_s``, ``initial_rto_s`` (default 1, at least
    ``min_rto_s``), ``fixed_rto_s`` (a constant timeout instead of the estimator; then
    ``min_rto_s`` and ``initial_rto_s`` do not apply and may not be given), ``backoff``
    (doubling up to ``max_backoff``), ``rtt_sampling`` ('per_ack' or 'per_window'),
    ``rto_estimator`` ('rfc6298', or 'last_sample': paper 001's timer, RTO = max(latest RTT
    sample, G, min_rto_s), a sample from every new ACK timed from the segment's first
    transmission as the timestamp option gives on a lossless path; lossless paths only; or
    'linux': Linux's tcp_set_rto() on RFC 6298's estimates, RTO = SRTT + max(G, 4 RTTVAR,
    min_rto_s), the timer at least min_rto_s beyond the RTT), ``delayed_ack``,
    ``protect_retransmissions``, ``delay`` (semi-Markov RTT: dict with
    ``rtt_s``, ``H``, ``excess_mean_s``; applied on the data direction, the ACK direction then
    has no propagation delay; not with ``rtt_s``), ``slot_model`` (paper 004: no propagation
    delay, ACKs of no size, an exact timer, so not with ``rtt_s``, ``ack_size_bytes`` or
    ``granularity_s``), ``ack_channel``, ``transfer_bytes`` (a finite transfer instead of a
    bulk sender), ``profile`` ('rfc' or 'ns2'), each variant's plugin parameters
    (listed below, from the engine's registry), ``tick_phase``
    (profile 'ns2': the phase of ns-2's RTT tick clock, ``boot_time_ / tcpTick_`` in [0, 1);
    default the phase ns-2 2.35 uses in the scripts of :mod:`lossytcp.ns2`), the sender-wide
    options (the profile's knobs and the undo switches, listed below, from the engine's
    registry), ``trace_sends``,
    ``trace_window``, ``trace_delay`` (the semi-Markov delay's states, ``delay_trace``),
    ``hops`` (a chain of links instead of one: a list of dicts with
    ``rate_bps``, ``delay_s`` one way, optional ``queue_packets`` and ``channel``; ACKs return
    over the same hops).

    Floors the engine's clock sets, refused before the run: a data packet takes at least 1 ns
    to transmit (``rate_bps`` <= 8e9 x ``packet_size_bytes``), timers last at least one packet
    time of the path's slowest link, a two-state channel's periods at least one packet time,
    every time at most 1e9 s. Ctrl-C stops the run (``KeyboardInterrupt``).

    Sender-wide options (:data:`lossytcp.variants.OPTIONS`; left out, or None for the knobs
    whose default is the profile's: the default): OPTIONS

    Plugin parameters (:data:`lossytcp.variants.PARAMS`; None or left out: the default):
    """
    scenario = build_scenario(variant, **kwargs)
    return _run(scenario, v.choice("variant", variant, VARIANTS))


def _paragraph(text: str) -> str:
    return textwrap.fill(text, width=92, initial_indent="    ", subsequent_indent="    ")


simulate.__doc__ = (simulate.__doc__ or "").rstrip(" ").replace(
    " OPTIONS\n", "\n" + _paragraph(_variants.options_doc()) + "\n") + _paragraph(
    _variants.keywords_doc()) + "\n"


def _seed_list(seeds: object) -> tuple[Iterable[int], int]:
    """Seeds as an iterable (lazily: ``10**7`` seeds are not listed) and their number."""
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        n = v.integer("seeds", seeds, 1, 2**63)
        return range(1, n + 1), n
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise ParameterError("seeds", seeds, "must be a number of seeds (1..N) or a list of "
                             "distinct seeds")
    seed_list = [v.integer(f"seeds[{i}]", s, 0, 2**64 - 1) for i, s in enumerate(seeds)]
    if not seed_list:
        raise ParameterError("seeds", seeds, "must name at least one seed")
    seen: set[int] = set()
    for s in seed_list:
        if s in seen:
            raise ParameterError("seeds", seeds, f"names seed {s} twice: a repeated seed is the "
                                 "same run, bit for bit")
        seen.add(s)
    return seed_list, len(seed_list)


def _threads(threads: object, n_runs: int) -> int:
    if threads is None:
        return max(1, min(n_runs, os.cpu_count() or 1))
    return v.integer("threads", threads, 1, 1024)


def _check_progress(progress: object) -> None:
    if progress is not None and not callable(progress):
        raise ParameterError("progress", progress, "must be a function progress(done, total) "
                             "or None")


#: How often the main thread looks up while seeds run: to report progress and to let
#: Ctrl-C (handled only on the main thread) through.
_TICK_S = 0.1


class _SignalsBetweenWaits:
    """While the calling thread waits on the pool, SIGINT and SIGTERM only note that they
    came, and :meth:`check` runs their handlers between waits. The default SIGINT handler
    (or the command line's) raises where the main thread happens to be, and inside
    ``threading.Condition.wait`` (between releasing its lock and taking it back) CPython then
    fails with ``RuntimeError: release unlocked lock`` instead of ``KeyboardInterrupt``:
    rarely, but it was seen. Off the main thread, or where a signal's handler is not a Python
    function (ignored, default action), nothing changes."""

    def __init__(self) -> None:
        import signal
        import threading

        self.came: list[int] = []
        self.kept: dict[int, Callable[[int, Any], Any]] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(sig)
            if callable(handler):
                self.kept[sig] = handler
                signal.signal(sig, lambda signum, _frame: self.came.append(signum))

    def check(self) -> None:
        """Runs the handler of the first signal that came (it raises, as it would have)."""
        if self.came:
            signum = self.came[0]
            self.came.clear()
            self.kept[signum](signum, None)

    def restore(self) -> None:
        """The handlers back (a signal that came and was not checked is dropped)."""
        import signal

        for sig, handler in self.kept.items():
            signal.signal(sig, handler)
        self.kept = {}


def _run_many(jobs: Iterator[tuple[str, Callable[[dict[str, Any]], Any], float]], total: int,
              threads: int, progress: Callable[[float, int], None] | None,
              partial: bool) -> list[Any]:
    """Runs ``(engine JSON text, finish(raw) -> report, simulated duration)`` jobs in threads,
    at most a few queued ahead of the running ones (jobs are built as they are needed).
    Returns the reports in job order. On any exception (Ctrl-C included) the running engines
    are told to stop and the jobs not started are dropped before it propagates."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    from . import _sim

    results: dict[int, Any] = {}
    running: dict[Any, tuple[int, Any, float]] = {}   # future -> (index, control, duration)
    done = 0
    shown = -1.0
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="lossytcp")
    signals = _SignalsBetweenWaits()
    try:
        if progress is not None:
            progress(0, total)
        index = 0
        exhausted = False
        while True:
            while not exhausted and len(running) < 2 * threads:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                text, finish, duration = job
                ctl = _sim.RunControl()
                fut = pool.submit(lambda t=text, c=ctl, f=finish: f(_engine_run(t, c)))
                running[fut] = (index, ctl, duration)
                index += 1
            if not running:
                break
            finished, _ = wait(list(running), timeout=_TICK_S, return_when=FIRST_COMPLETED)
            signals.check()
            for fut in finished:
                i = running.pop(fut)[0]
                results[i] = fut.result()
                done += 1
                if progress is not None:
                    progress(done, total)
            if partial and progress is not None and not finished:
                # Long runs: add the running ones' simulated time as fractions of a run.
                frac = done + sum(min(c.simulated_s / d, 0.999) for _, c, d in running.values()
                                  if d > 0)
                if frac != shown:
                    shown = frac
                    progress(frac, total)
    except BaseException:
        for _, ctl, _ in running.values():
            ctl.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        # Another signal while the engines stop is not run over this exception.
        signals.restore()
        raise
    pool.shutdown(wait=True)
    try:
        signals.check()   # a signal in the last wait or the shutdown
    finally:
        signals.restore()
    return [results[i] for i in range(len(results))]


def _jobs(scenario: Scenario, seeds: Iterable[int], finish: Callable[[dict[str, Any], int], Any]
          ) -> Iterator[tuple[str, Callable[[dict[str, Any]], Any], float]]:
    """Engine JSON per seed, built as needed: the scenario is validated once, and each seed
    changes only the seed (the whole scenario is rebuilt when a RED queue draws from ns-2's
    generator, whose seed may follow the run's: ``ns2_seed="run"``)."""
    base = scenario.engine()
    rebuild = draws_from_ns2_rng(base)
    for s in seeds:
        if rebuild:
            base = scenario.engine(seed=s)
        base["seed"] = s
        yield json.dumps(base), (lambda raw, s=s: finish(raw, s)), scenario.duration_s


def simulate_seeds(seeds: int | Iterable[int] = 5, variant: str = "newreno", *,
                   threads: int | None = None,
                   progress: Callable[[float, int], None] | None = None,
                   partial: bool = False, **kwargs: Any) -> SeedSummary:
    """Run :func:`simulate` for several seeds (``5`` means seeds 1..5; a list names distinct
    seeds) in parallel threads, and summarise them.

    Every parameter is checked before the first run starts; the seeds' runs are built as
    they are started, so ``10**7`` seeds cost no memory up front. ``progress(done, total)`` is
    called from the calling thread as each run finishes; with ``partial=True`` also every
    0.1 s with a fractional ``done`` counting the simulated time of the runs in progress (a
    long single run's progress). ``seed`` is not a parameter here: the seeds are. Ctrl-C
    cancels the runs in progress and those not started, then raises ``KeyboardInterrupt``.
    """
    if "seed" in kwargs:
        raise ParameterError("seed", kwargs["seed"], "is given by seeds here: use "
                             "simulate_seeds([seed], ...) or simulate(seed=...)")
    seed_iter, total = _seed_list(seeds)
    n = _threads(threads, total)
    _check_progress(progress)
    partial = v.boolean("partial", partial)
    name = v.choice("variant", variant, VARIANTS)
    scenario = scenario_from_keywords(variant, **kwargs)

    def finish(raw: dict[str, Any], seed: int) -> SimReport:
        return _flow_report(raw["flows"][0], name, seed, raw["events"])

    reports = _execute(scenario, seed_iter, total, n, progress, partial, finish)
    return SeedSummary(tuple(reports))


def _execute(scenario: Scenario, seeds: Iterable[int], total: int, threads: int,
             progress: Callable[[float, int], None] | None, partial: bool,
             finish: Callable[[dict[str, Any], int], Any]) -> list[Any]:
    return _run_many(_jobs(scenario, seeds, finish), total, threads, progress, partial)


def _net_report(scenario: Scenario, raw: dict[str, Any], seed: int) -> NetReport:
    labels = scenario.flow_labels()
    flows = tuple(_flow_report(f, g.variant, seed, raw["events"], lab)
                  for f, g, lab in zip(raw["flows"], scenario.all_flows(), labels, strict=True))
    net = scenario.net
    links = []
    for i, lk in enumerate(raw.get("links", [])):
        known = {"transmitted", "channel_drops", "queue_drops"}
        src = net.links[i].src if i < len(net.links) else None
        dst = net.links[i].dst if i < len(net.links) else None
        links.append(LinkReport(i, src, dst, int(lk.get("transmitted", 0)),
                                int(lk.get("channel_drops", 0)), int(lk.get("queue_drops", 0)),
                                {k: x for k, x in lk.items() if k not in known}))
    traffic = tuple(TrafficReport(lab, t.KIND, dict(r)) for lab, t, r in
                    zip(scenario.traffic_labels(), scenario.traffic, raw.get("traffic", []),
                        strict=False))
    return NetReport(seed=seed, flows=flows, links=tuple(links), traffic=traffic,
                     events=raw["events"], simulated_s=_round_ns(raw.get("simulated_s", 0.0))
                     or 0.0, queue_trace=raw.get("queue_trace"))


def _as_scenario(scenario: object) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, str):
        return Scenario.load(scenario)
    raise ParameterError("scenario", scenario, "must be a Scenario, a dict of its fields or "
                         "the path of a TOML file")


def run(scenario: Scenario | Mapping[str, Any] | str, seed: int | None = None) -> NetReport:
    """Run a :class:`~lossytcp.scenario.Scenario` (or its dict, or a TOML file's path) once,
    with its own seed or ``seed``; Ctrl-C stops it (``KeyboardInterrupt``)."""
    sc = _as_scenario(scenario)
    s = sc.seed if seed is None else v.integer("seed", seed, 0, 2**64 - 1)
    return _net_report(sc, _engine_run(sc.engine(seed=s)), s)


def run_seeds(scenario: Scenario | Mapping[str, Any] | str, seeds: int | Iterable[int] = 5, *,
              threads: int | None = None,
              progress: Callable[[float, int], None] | None = None,
              partial: bool = False) -> NetSummary:
    """:func:`run` for several seeds in threads, as :func:`simulate_seeds`."""
    sc = _as_scenario(scenario)
    seed_iter, total = _seed_list(seeds)
    n = _threads(threads, total)
    _check_progress(progress)
    partial = v.boolean("partial", partial)
    reports = _execute(sc, seed_iter, total, n, progress, partial,
                       lambda raw, s: _net_report(sc, raw, s))
    return NetSummary(tuple(reports))


def engine_supports_networks() -> bool:
    """Whether the built engine runs scenarios with named nodes, routed flows and traffic
    (the network schema of issue 9), tried on a two-node network of 1 ms."""
    from . import _sim

    probe = Scenario(topology=sc_mod.TwoHop(), duration_s=0.001,
                     traffic=(sc_mod.Cbr(rate_bps=1e5, src="S", dst="N"),))
    try:
        _sim.run_json(json.dumps(probe.engine()))
    except ValueError:
        return False
    return True
