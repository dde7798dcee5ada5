"""The simulator's Python API: validate here, simulate in Rust.

:func:`simulate` runs one flow over one path (a link of ``rate_bps`` with a two-way
propagation delay ``rtt_s``, a channel on the data direction, a lossless ACK direction unless
``ack_channel`` says otherwise) and returns a :class:`SimReport`. :func:`simulate_seeds` runs
several seeds in threads (the engine releases the GIL) and summarises them with 95%
confidence intervals.
"""

from __future__ import annotations

import json
import math
import numbers
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from . import _validate as v
from .errors import ParameterError
from .spec import parse_channel

if TYPE_CHECKING:
    import numpy as np

VARIANTS = ("oldtahoe", "tahoe", "reno", "newreno", "sack", "vegas")

#: Vegas's thresholds when not given (ns-2's v_alpha_, v_beta_, v_gamma_).
VEGAS_DEFAULTS = {"vegas_alpha": 1, "vegas_beta": 3, "vegas_gamma": 1}

#: Metrics reported per run, in display order.
METRICS = (
    "goodput_norm", "throughput_norm", "goodput_pps", "throughput_pps", "packets_sent",
    "retransmissions", "channel_losses", "queue_drops", "timeouts", "fast_retransmits",
    "loss_events", "timeout_fraction", "spurious_timeouts", "spurious_fast_retransmits",
    "transmissions_per_delivered", "completion_time_s",
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


@dataclass(frozen=True)
class SimReport(RunMetrics):
    """One run of one flow. Rates are over ``elapsed_s`` (to the end of the run, or to the
    completion of a finite transfer); ``*_norm`` divide by the bottleneck capacity."""

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

    def metric(self, name: str) -> float:
        x = getattr(self, name)
        return math.nan if x is None else float(x)

    def as_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.endswith("trace")}
        d.update({m: self.metric(m) for m in METRICS})
        return d


@dataclass(frozen=True)
class SeedSummary:
    """Runs of the same scenario over several seeds."""

    reports: tuple[SimReport, ...]

    def values(self, metric: str) -> np.ndarray:
        import numpy as np

        return np.array([r.metric(metric) for r in self.reports], dtype=float)

    def mean(self, metric: str) -> float:
        import numpy as np

        x = self.values(metric)
        x = x[np.isfinite(x)]
        return float(x.mean()) if x.size else math.nan

    def ci95(self, metric: str) -> float:
        """Half-width of the 95% Student-t confidence interval of the mean (0 for one run)."""
        import numpy as np

        x = self.values(metric)
        x = x[np.isfinite(x)]
        if x.size < 2:
            return 0.0 if x.size == 1 else math.nan
        from scipy import stats  # deferred: importing scipy costs more than a short run

        return float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {m: {"mean": self.mean(m), "ci95": self.ci95(m)} for m in METRICS}


def _scenario(
    variant: str,
    *,
    rate_bps: float,
    rtt_s: float,
    packet_size_bytes: int,
    window: int,
    channel: str | Mapping[str, Any],
    duration_s: float,
    seed: int,
    queue_packets: int,
    dupack_threshold: int,
    initial_window: int,
    min_rto_s: float,
    max_rto_s: float,
    granularity_s: float,
    initial_rto_s: float,
    fixed_rto_s: float | None,
    backoff: bool | None,
    max_backoff: int,
    rtt_sampling: str,
    rto_estimator: str,
    delayed_ack: bool,
    protect_retransmissions: bool,
    delay: Mapping[str, Any] | None,
    slot_model: bool,
    ack_channel: str | Mapping[str, Any],
    ack_size_bytes: int,
    transfer_bytes: int | None,
    profile: str,
    limited_transmit: bool | None,
    delay_growth: bool | None,
    partial_window_deflation: bool | None,
    recovery_exit_growth: bool | None,
    timer_every_partial_ack: bool | None,
    vegas_alpha: int | None,
    vegas_beta: int | None,
    vegas_gamma: int | None,
    tick_phase: float | None,
    trace_sends: bool,
    trace_window: bool,
    hops: Sequence[Mapping[str, Any]] | None,
) -> dict[str, Any]:
    variant = v.choice("variant", variant, VARIANTS)
    rate_bps = v.positive("rate_bps", rate_bps)
    rtt_s = v.non_negative("rtt_s", rtt_s)
    packet_size_bytes = v.integer("packet_size_bytes", packet_size_bytes, 1, 65535)
    window = v.integer("window", window, 1, 1_000_000)
    duration_s = v.positive("duration_s", duration_s)
    seed = v.integer("seed", seed, 0, 2**64 - 1)
    queue_packets = v.integer("queue_packets", queue_packets, 0, 10_000_000)
    dupack_threshold = v.integer("dupack_threshold", dupack_threshold, 1, 1_000_000)
    initial_window = v.integer("initial_window", initial_window, 1, 1_000_000)
    min_rto_s = v.non_negative("min_rto_s", min_rto_s)
    max_rto_s = v.positive("max_rto_s", max_rto_s)
    if max_rto_s < min_rto_s:
        raise ParameterError("max_rto_s", max_rto_s, f"must be >= min_rto_s = {min_rto_s}")
    granularity_s = v.non_negative("granularity_s", granularity_s)
    initial_rto_s = v.positive("initial_rto_s", initial_rto_s)
    if fixed_rto_s is not None:
        fixed_rto_s = v.positive("fixed_rto_s", fixed_rto_s)
    max_backoff = v.integer("max_backoff", max_backoff, 1, 2**20)
    rtt_sampling = v.choice("rtt_sampling", rtt_sampling, ["per_ack", "per_window"])
    profile = v.choice("profile", profile, ["rfc", "ns2"])
    rto_estimator = v.choice("rto_estimator", rto_estimator, ["rfc6298", "last_sample"])
    if rto_estimator != "rfc6298" and (profile != "rfc" or fixed_rto_s is not None
                                       or rtt_sampling != "per_ack"):
        raise ParameterError("rto_estimator", rto_estimator, "is a rule of the rfc profile's "
                             "estimator: it needs profile='rfc', rtt_sampling='per_ack' and no "
                             "fixed_rto_s")
    knobs = {"limited_transmit": limited_transmit, "delay_growth": delay_growth,
             "partial_window_deflation": partial_window_deflation,
             "recovery_exit_growth": recovery_exit_growth,
             "timer_every_partial_ack": timer_every_partial_ack}
    for name, flag in knobs.items():
        if flag is not None and not isinstance(flag, bool) and not _numpy_bool(flag):
            raise ParameterError(name, flag, "must be True, False or None (the profile's "
                                 "default, see help(lossytcp.simulate))")
    if tick_phase is not None:
        if profile != "ns2":
            raise ParameterError("tick_phase", tick_phase, "is the phase of ns-2's tick clock: "
                                 "it needs profile='ns2'")
        tick_phase = v.probability("tick_phase", tick_phase, open_high=True)
    vegas = _vegas_params(variant, vegas_alpha=vegas_alpha, vegas_beta=vegas_beta,
                          vegas_gamma=vegas_gamma)
    if variant == "vegas" and limited_transmit:
        raise ParameterError("limited_transmit", limited_transmit,
                             "Vegas has its own rule for the first duplicate ACKs (nothing new "
                             "is sent until the DupThresh-th, as in ns-2's Agent/TCP/Vegas); "
                             "leave it None or False")
    if profile == "rfc" and partial_window_deflation is not None \
            and not partial_window_deflation:
        raise ParameterError("partial_window_deflation", partial_window_deflation,
                             "RFC 6582 always deflates; the undeflated NewReno is ns-2's "
                             "(profile='ns2')")
    ack_size_bytes = v.integer("ack_size_bytes", ack_size_bytes, 0, 65535)
    if transfer_bytes is not None:
        transfer_bytes = v.integer("transfer_bytes", transfer_bytes, 1)
    data_channel = channel if isinstance(channel, Mapping) else parse_channel(channel, "channel")
    rev_channel = (ack_channel if isinstance(ack_channel, Mapping)
                   else parse_channel(ack_channel, "ack_channel"))
    if slot_model:
        # Paper 004: one packet per slot, no propagation delay, the ACK at the end of its slot,
        # a fixed RTO of T0 slots and no backoff unless asked for.
        if fixed_rto_s is None:
            raise ParameterError("fixed_rto_s", None, "the slot model needs the fixed timeout T0 "
                                 "(in seconds: T0 slots x packet time)")
        rtt_s, ack_size_bytes, granularity_s = 0.0, 0, 0.0
        if backoff is None:
            backoff = False
    if backoff is None:
        backoff = True
    if delay is not None:
        fwd_delay = _semi_markov(delay)
        rev_delay = {"kind": "fixed", "delay_s": 0.0}
    else:
        fwd_delay = rev_delay = {"kind": "fixed", "delay_s": rtt_s / 2}
    protect = bool(protect_retransmissions)
    if hops is None:
        hops = [{"rate_bps": rate_bps, "delay_s": rtt_s / 2, "queue_packets": queue_packets,
                 "channel": data_channel}]
    else:
        hops = _hops(hops, queue_packets)
    if rto_estimator == "last_sample" and (
            rev_channel.get("kind") != "none"
            or any(h["channel"].get("kind") != "none" for h in hops)):
        # Its samples are timed from each segment's first transmission (the timestamp echo
        # of a path that loses nothing); a lost original would be mistimed.
        raise ParameterError("rto_estimator", rto_estimator, "'last_sample' is paper 001's "
                             "lossless timer: it needs channel='none' and ack_channel='none'")
    if delay is not None:
        fwd_delays = [fwd_delay] + [{"kind": "fixed", "delay_s": 0.0}] * (len(hops) - 1)
        rev_delays = [rev_delay] * len(hops)
    else:
        fwd_delays = rev_delays = [{"kind": "fixed", "delay_s": h["delay_s"]} for h in hops]
    n = len(hops)
    forward = [
        {"rate_bps": h["rate_bps"], "queue_packets": h["queue_packets"], "delay": d,
         "channel": h["channel"], "protect_retransmissions": protect}
        for h, d in zip(hops, fwd_delays, strict=True)
    ]
    # ACKs cross the same hops backwards; the ACK channel sits on the first of them.
    reverse = [
        {"rate_bps": h["rate_bps"], "queue_packets": h["queue_packets"], "delay": d,
         "channel": rev_channel if i == 0 else {"kind": "none"},
         "protect_retransmissions": False}
        for i, (h, d) in enumerate(zip(reversed(hops), reversed(rev_delays), strict=True))
    ]
    tcp = {
        "packet_size_bytes": packet_size_bytes, "ack_size_bytes": ack_size_bytes,
        "max_window": window, "initial_window": initial_window,
        "dupack_threshold": dupack_threshold, "min_rto_s": min_rto_s, "max_rto_s": max_rto_s,
        "initial_rto_s": initial_rto_s, "granularity_s": granularity_s,
        "fixed_rto_s": fixed_rto_s, "max_backoff": max_backoff if backoff else 1,
        "rtt_sampling": rtt_sampling, "rto_estimator": rto_estimator,
        "delayed_ack": bool(delayed_ack), "profile": profile,
        **{k: None if f is None else bool(f) for k, f in knobs.items()},
        "vegas": vegas, "tick_phase": tick_phase,
    }
    app = ({"kind": "bulk"} if transfer_bytes is None
           else {"kind": "transfer", "bytes": transfer_bytes})
    variant_key = {"oldtahoe": "old_tahoe", "newreno": "new_reno"}.get(variant, variant)
    return {
        "seed": seed,
        "duration_s": duration_s,
        "links": forward + reverse,
        "flows": [{"variant": variant_key, "forward": list(range(n)),
                   "reverse": list(range(n, 2 * n)), "tcp": tcp, "app": app}],
        "trace": {"sends": bool(trace_sends), "window": bool(trace_window)},
    }


def _vegas_params(variant: str, **given: int | None) -> dict[str, int]:
    """Vegas's alpha, beta and gamma (segments queued in the network), refused for other
    variants so that a threshold is never silently ignored."""
    if variant != "vegas":
        for name, x in given.items():
            if x is not None:
                raise ParameterError(name, x, f"applies to variant 'vegas' only, not "
                                     f"'{variant}'")
    p = {name: VEGAS_DEFAULTS[name] if x is None else v.integer(name, x, 0, 1_000_000)
         for name, x in given.items()}
    if p["vegas_alpha"] > p["vegas_beta"]:
        raise ParameterError("vegas_alpha", p["vegas_alpha"],
                             f"must be <= vegas_beta = {p['vegas_beta']} (grow below alpha "
                             "segments queued, shrink above beta)")
    return {"alpha": p["vegas_alpha"], "beta": p["vegas_beta"], "gamma": p["vegas_gamma"]}


def _hops(hops: object, queue_packets: int) -> list[dict[str, Any]]:
    """A chain of links: each hop a mapping with ``rate_bps``, ``delay_s`` (one way) and
    optionally ``queue_packets`` and ``channel`` (spec string)."""
    if not isinstance(hops, Sequence) or isinstance(hops, str) or not hops:
        raise ParameterError("hops", hops, "must be a non-empty list of hop dicts")
    out = []
    for i, h in enumerate(hops):
        name = f"hops[{i}]"
        if not isinstance(h, Mapping):
            raise ParameterError(name, h, "must be a dict with rate_bps and delay_s")
        unknown = set(h) - {"rate_bps", "delay_s", "queue_packets", "channel"}
        if unknown:
            k = sorted(unknown)[0]
            raise ParameterError(f"{name}.{k}", h[k],
                                 "unknown key; use rate_bps, delay_s, queue_packets, channel")
        for k in ("rate_bps", "delay_s"):
            if k not in h:
                raise ParameterError(name, dict(h), f"needs {k}")
        ch = h.get("channel", "none")
        out.append({
            "rate_bps": v.positive(f"{name}.rate_bps", h["rate_bps"]),
            "delay_s": v.non_negative(f"{name}.delay_s", h["delay_s"]),
            "queue_packets": v.integer(f"{name}.queue_packets",
                                       h.get("queue_packets", queue_packets), 0, 10_000_000),
            "channel": ch if isinstance(ch, Mapping) else parse_channel(ch, f"{name}.channel"),
        })
    return out


def _semi_markov(delay: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(delay, Mapping):
        raise ParameterError("delay", delay, "must be a dict with rtt_s, H and excess_mean_s")
    unknown = set(delay) - {"rtt_s", "H", "excess_mean_s"}
    if unknown:
        k = sorted(unknown)[0]
        raise ParameterError(f"delay.{k}", delay[k], "unknown key; use rtt_s, H, excess_mean_s")
    if not {"rtt_s", "H", "excess_mean_s"} <= set(delay):
        raise ParameterError("delay", dict(delay), "needs rtt_s, H and excess_mean_s")
    t = v.vector("delay.rtt_s", delay["rtt_s"], positive_entries=True)
    h = v.stochastic_matrix("delay.H", delay["H"])
    if h.shape[0] != t.size:
        raise ParameterError("delay.H", delay["H"], f"must be {t.size}x{t.size} like rtt_s")
    ex = v.vector("delay.excess_mean_s", delay["excess_mean_s"], t.size, non_negative_entries=True)
    return {"kind": "semi_markov", "delay_s": t.tolist(), "h": h.tolist(),
            "excess_mean_s": ex.tolist()}


_DEFAULTS: dict[str, Any] = dict(
    rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20, channel="none",
    duration_s=100.0, seed=1, queue_packets=1000, dupack_threshold=3, initial_window=1,
    min_rto_s=0.2, max_rto_s=60.0, granularity_s=0.0, initial_rto_s=1.0, fixed_rto_s=None,
    backoff=None, max_backoff=64, rtt_sampling="per_ack", rto_estimator="rfc6298",
    delayed_ack=False,
    protect_retransmissions=False, delay=None, slot_model=False, ack_channel="none",
    ack_size_bytes=40, transfer_bytes=None, profile="rfc", limited_transmit=None,
    delay_growth=None, partial_window_deflation=None, recovery_exit_growth=None,
    timer_every_partial_ack=None, vegas_alpha=None, vegas_beta=None, vegas_gamma=None,
    tick_phase=None,
    trace_sends=False,
    trace_window=False, hops=None,
)


def build_scenario(variant: str = "newreno", **kwargs: Any) -> dict[str, Any]:
    """The engine scenario (a JSON-ready dict) for :func:`simulate`'s arguments, validated."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS))
    if unknown:
        raise ParameterError(unknown[0], kwargs[unknown[0]],
                             "is not a parameter of simulate(); see help(lossytcp.simulate)")
    if kwargs.get("hops") is not None:
        clash = sorted({"rate_bps", "rtt_s", "channel"} & set(kwargs))
        if clash:
            raise ParameterError("hops", kwargs["hops"],
                                 f"give either hops or {', '.join(clash)}: hops describe each link")
    return _scenario(variant, **{**_DEFAULTS, **kwargs})


def _run(scenario: dict[str, Any], variant: str) -> SimReport:
    from . import _sim

    out = json.loads(_sim.run_json(json.dumps(scenario)))
    flow = out["flows"][0]
    names = {f.name for f in fields(SimReport)}
    kw = {k: flow[k] for k in names if k in flow}
    return SimReport(variant=variant, seed=scenario["seed"], events=out["events"], **kw)


def simulate(variant: str = "newreno", **kwargs: Any) -> SimReport:
    """Simulate one TCP flow over a lossy path.

    Parameters (units in the names): ``rate_bps``, ``rtt_s`` (two-way propagation delay,
    split evenly), ``packet_size_bytes``, ``window`` (maximum window, packets), ``channel``
    (spec string, see :mod:`lossytcp.spec`), ``duration_s``, ``seed``, ``queue_packets``,
    ``dupack_threshold``, ``initial_window``, ``min_rto_s``, ``max_rto_s``, ``granularity_s``,
    ``initial_rto_s``, ``fixed_rto_s``, ``backoff`` (doubling up to ``max_backoff``),
    ``rtt_sampling`` ('per_ack' or 'per_window'), ``rto_estimator`` ('rfc6298', or
    'last_sample': paper 001's timer, RTO = max(latest RTT sample, G, min_rto_s), a sample
    from every new ACK timed from the segment's first transmission as the timestamp option
    gives on a lossless path; lossless paths only),
    ``delayed_ack``,
    ``protect_retransmissions``, ``delay`` (semi-Markov RTT: dict with ``rtt_s``, ``H``,
    ``excess_mean_s``; applied on the data direction, the ACK direction then has no
    propagation delay), ``slot_model`` (paper 004), ``ack_channel``, ``transfer_bytes``
    (a finite transfer instead of a bulk sender), ``profile`` ('rfc' or 'ns2'),
    ``limited_transmit`` (RFC 3042) and ``delay_growth`` (ns-2's ``delay_growth_``: the first
    ACK does not open cwnd), each None for the profile's default (on for 'ns2', off for 'rfc'),
    ``partial_window_deflation`` (NewReno partial ACKs deflate the window, RFC 6582 and ns-2
    2.35; default on, off gives the ns-2 NewReno of paper 000 Table III in profile 'ns2'),
    ``recovery_exit_growth`` (the ACK ending fast recovery also opens cwnd, as ns-2 does;
    default on for 'ns2', off for 'rfc'), ``timer_every_partial_ack`` (NewReno restarts the
    timer on every partial ACK, RFC 6582's Slow-but-Steady; default: the first only),
    ``vegas_alpha``, ``vegas_beta``, ``vegas_gamma`` (variant 'vegas' only: segments queued
    in the network below which it grows, above which it shrinks, and above which it leaves
    slow start; default 1, 3, 1 as ns-2), ``tick_phase`` (profile 'ns2': the phase of ns-2's
    RTT tick clock, ``boot_time_ / tcpTick_`` in [0, 1); default the phase ns-2 2.35 uses in
    the scripts of :mod:`lossytcp.ns2`), ``trace_sends``, ``trace_window``, ``hops`` (a chain
    of links instead of one: a list of dicts with ``rate_bps``, ``delay_s`` one way, optional
    ``queue_packets`` and ``channel``; ACKs return over the same hops).
    """
    scenario = build_scenario(variant, **kwargs)
    return _run(scenario, v.choice("variant", variant, VARIANTS))


def _numpy_bool(x: object) -> bool:
    np_mod = sys.modules.get("numpy")   # a numpy bool means numpy is already imported
    return np_mod is not None and isinstance(x, np_mod.bool_)


def simulate_seeds(seeds: int | Iterable[int] = 5, variant: str = "newreno", *,
                   threads: int | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   **kwargs: Any) -> SeedSummary:
    """Run :func:`simulate` for several seeds (``5`` means seeds 1..5) in parallel threads.

    ``progress(done, total)`` is called as each run finishes (from the calling thread); every
    parameter is checked before the first run starts."""
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        seed_list: Sequence[int] = list(range(1, v.integer("seeds", seeds, 1) + 1))
    else:
        seed_list = [v.integer("seeds", s, 0) for s in seeds]  # type: ignore[union-attr]
        if not seed_list:
            raise ParameterError("seeds", seeds, "must name at least one seed")
    kwargs.pop("seed", None)
    scenarios = [build_scenario(variant, seed=s, **kwargs) for s in seed_list]
    name = v.choice("variant", variant, VARIANTS)
    import os

    n = threads or min(len(scenarios), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=n) as pool:
        futures = [pool.submit(_run, sc, name) for sc in scenarios]
        if progress is not None:
            progress(0, len(futures))
            for done, _ in enumerate(as_completed(futures), 1):
                progress(done, len(futures))
        reports = tuple(f.result() for f in futures)
    return SeedSummary(reports)
