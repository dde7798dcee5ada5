"""ns-3 3.37 (Debian ``libns3-dev``) runs of one :func:`lossytcp.simulate` scenario, for
``lossytcp crosscheck ns3``.

The ns-3 side is one C++ program, ``crosscheck.cc`` beside this module with the set-up it
shares with ``bench/ns3/lossytcp-bench.cc`` in ``lossytcp_ns3.h`` (both shipped in the
package), compiled once per machine against the installed ns-3 (pkg-config) into
``$XDG_CACHE_HOME/lossytcp`` (or ``~/.cache/lossytcp``) under a name keyed by its sources
(:func:`source_digest`), and run once per seed in its own process group (killed with this
process: :mod:`lossytcp.ns2.run`'s helpers).

Mapping (what the engine's scenario becomes in ns-3): one point-to-point link, ``rate_bps``,
one-way delay ``rtt_s / 2`` each way, a DropTail device queue of ``queue_packets`` and no
traffic-control qdisc; the data channel as a receive error model (Bernoulli: ns-3's
``RateErrorModel`` per packet; Gilbert-Elliott per slot or per transmission: the engine's
chain; ``drops:`` the first transmission of each listed segment); MSS = packet size - 42
(IPv4 + TCP headers, no timestamps, PPP), so a data packet is the same size on the wire;
``initial_window``, ``min_rto_s``, ``granularity_s`` (ns-3's ClockGranularity), one ACK per
segment or ns-3's delayed ACKs (``DelAckCount`` 2, timer 100 ms as the engine's). The
variant's counterpart is the registry's (:mod:`lossytcp.variants`: congestion control,
recovery, SACK), its parameters passed under their ns-3 attribute names. The window: ns-3
caps cwnd at ``window`` segments (a receive window that limits crashes ns-3 3.37's
TcpRateLinux on the first retransmission); the engine limits the flight by the receiver's
window and lets cwnd be: where the window binds the congestion controls' states differ,
so :func:`simulate_ns3` notes it.

Metrics under the engine's names: ``packets_sent`` (every data segment handed to IP),
``retransmissions`` (those not beyond the highest sequence sent), ``timeouts`` (entries into
``CA_LOSS``), ``fast_retransmits`` (entries into ``CA_RECOVERY``), ``packets_delivered``
(the sink's bytes / MSS), and the time-weighted mean and quartiles of cwnd (segments) and the
mean pacing rate from the first data segment on. Not observable: channel losses, packets
received, spurious detections. ns-3 opens the connection with a handshake: its first data
segment leaves one RTT after the engine's, with an RTT sample from the SYN (the engine's flow
starts with data and no sample); both count delivered segments over the same duration.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..sim import RACK_METRICS, REORDERING_METRICS, TLP_METRICS, UNDO_METRICS, RunCounts
from ..variants import OPTIONS, PARAMS, refuse_options_without, variant

__all__ = ["ENGINE_AS_NS3", "NS3_INSTALL", "NOT_OBSERVABLE", "Ns3Error", "Ns3NotInstalled",
           "Ns3Report", "Ns3Unsupported", "build_program", "like_ns3_notes", "ns3_arguments",
           "simulate_ns3", "source_digest"]

NS3_INSTALL = "sudo apt-get install libns3-dev libgsl-dev g++ pkg-config   (Debian ns-3 3.37)"
MODULES = ("ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-applications",
           "ns3-traffic-control")
SOURCE = Path(__file__).with_name("crosscheck.cc")
#: The set-up crosscheck.cc shares with bench/ns3/lossytcp-bench.cc (included by both).
SHARED_HEADER = Path(__file__).with_name("lossytcp_ns3.h")
#: Bytes of headers on a data packet besides the MSS (IPv4 20, TCP 20, PPP 2).
HEADER_BYTES = 42
#: Metrics ns-3's run does not give: NaN, never judged.
NOT_OBSERVABLE = ("channel_losses", "packets_received", "throughput_norm", "throughput_pps",
                  "spurious_timeouts", "spurious_fast_retransmits", "completion_time_s",
                  *UNDO_METRICS, *TLP_METRICS, *RACK_METRICS, *REORDERING_METRICS)

#: simulate() keywords the ns-3 program expresses, beyond the variant's own parameters.
_MAPPED = {"rate_bps", "rtt_s", "packet_size_bytes", "window", "channel", "duration_s",
           "seed", "queue_packets", "initial_window", "min_rto_s", "granularity_s",
           "delayed_ack"}
#: ... and those accepted at their defaults only, with the reason.
_DEFAULT_ONLY = {
    "profile": ("rfc", "ns-3 runs its own TCP; the engine's ns2 profile is ns-2's timers"),
    "fixed_rto_s": (None, "ns-3's RTO is its estimator's"),
    "backoff": (None, "ns-3 always doubles the RTO"),
    "max_backoff": (64, "ns-3 doubles the RTO without the engine's cap"),
    "rtt_sampling": ("per_ack", "ns-3 samples every ACK"),
    "rto_estimator": ("rfc6298", "ns-3's estimator is RFC 6298's"),
    "slot_model": (False, "paper 004's slot model is the engine's alone"),
    "delay": (None, "the semi-Markov delay is not written for ns-3"),
    "hops": (None, "one link only"),
    "ack_channel": ("none", "no ACK-path channel in the ns-3 program"),
    "ack_size_bytes": (40, "ns-3's ACKs are its headers' size"),
    "transfer_bytes": (None, "a bulk sender only"),
    "protect_retransmissions": (False, "ns-3's error model cannot tell retransmissions"),
    "initial_rto_s": (None, "ns-3's first RTO follows its handshake's RTT sample"),
    "max_rto_s": (60.0, "ns-3's RTO cap is its own"),
    "dupack_threshold": (3, "ns-3's ReTxThreshold is kept at 3"),
    "limited_transmit": (None, "ns-3's limited transmit is its own (on)"),
    "delay_growth": (None, "ns-2's delay_growth_ has no ns-3 counterpart"),
    "partial_window_deflation": (None, "ns-3's recovery is its own"),
    "recovery_exit_growth": (None, "ns-3's recovery is its own"),
    "timer_every_partial_ack": (None, "ns-3's recovery is its own"),
    "tick_phase": (None, "ns-2's tick clock"),
    "trace_sends": (False, "no traces from ns-3 beyond cwnd and pacing summaries"),
    "trace_window": (False, "no traces from ns-3 beyond cwnd and pacing summaries"),
    "trace_delay": (False, "no semi-Markov delay"),
    "tlp": (False, "ns-3 3.37's TcpSocketBase has no tail loss probe (its recovery ops are "
                   "classic and PRR; its only probes are the persist timer's)"),
    "rack": (False, "ns-3 3.37 has no RACK (no TcpRack; its loss detection is the "
                    "duplicate-ACK count of its classic and PRR recovery ops)"),
}

#: The engine's settings that stand for what ns-3 3.37 runs by default, per variant, for a
#: cross-check of like with like (each can be overridden): CUBIC with Linux's arithmetic and
#: HyStart on (ns-3's TcpCubic is a port of tcp_cubic.c; its HyStart attribute is on); BBR
#: paced one segment per departure, as TcpSocketBase paces ns-3's TcpBbr (the engine's
#: default is Linux's TSO bursts, the kernel's way: see ``emulate.linux.LINUX_KNOBS``).
ENGINE_AS_NS3 = {"cubic": {"cubic_rules": "linux", "cubic_slow_start": "hystart"},
                 "bbr": {"bbr_pacing_burst": "segment"}}


def like_ns3_notes(variant_name: str, kw: Mapping[str, Any]) -> list[str]:
    """The printed notes on the engine's settings of :data:`ENGINE_AS_NS3`: those this run
    keeps (like for like), and those the flags changed (ns-3 still runs its own way)."""
    like = ENGINE_AS_NS3.get(variant_name, {})
    kept = [f"{k}={x}" for k, x in like.items() if kw.get(k, x) == x]
    changed = [f"{k}={kw[k]} (ns-3 runs as {k}={x})" for k, x in like.items()
               if kw.get(k, x) != x]
    notes = []
    if kept:
        notes.append("the engine runs as ns-3 does, like for like: " + ", ".join(kept)
                     + " (the engine's defaults: " + ", ".join(
                         f"{k}={PARAMS[k].default}" for k in like) + ")")
    if changed:
        notes.append("set otherwise than ns-3 runs, by the flags: " + ", ".join(changed))
    return notes


class Ns3NotInstalled(RuntimeError):
    def __init__(self, why: str) -> None:
        super().__init__(f"ns-3 is not available ({why}); install it with: {NS3_INSTALL}")


class Ns3Error(RuntimeError):
    """The ns-3 program failed to build, or ran but failed."""


class Ns3Unsupported(ParameterError):
    """The scenario uses a feature the ns-3 program cannot reproduce."""


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lossytcp"


def _pkg_flags() -> list[str]:
    if shutil.which("pkg-config") is None:
        raise Ns3NotInstalled("pkg-config not found")
    p = subprocess.run(["pkg-config", "--cflags", "--libs", *MODULES], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise Ns3NotInstalled("pkg-config does not know " + " ".join(MODULES))
    return p.stdout.split()


def source_digest() -> str:
    """SHA-256 of the program's sources (crosscheck.cc and the header it includes): what
    the reference data records, and the key of the compiled program."""
    h = hashlib.sha256()
    for path in (SOURCE, SHARED_HEADER):
        h.update(path.read_bytes())
    return h.hexdigest()


def build_program(force: bool = False) -> Path:
    """The compiled ns-3 program (built once per source and machine, ~15 s)."""
    flags = _pkg_flags()
    if shutil.which("g++") is None:
        raise Ns3NotInstalled("g++ not found")
    key = hashlib.sha256((source_digest() + " ".join(flags)).encode()).hexdigest()[:16]
    exe = _cache_dir() / f"ns3-crosscheck-{key}"
    if exe.exists() and not force:
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=exe.parent) as d:
        tmp = Path(d) / exe.name
        p = subprocess.run(["g++", "-O2", "-std=c++17", str(SOURCE), "-o", str(tmp), *flags],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise Ns3Error(f"building {SOURCE.name} against ns-3 failed:\n{p.stderr[-3000:]}")
        os.replace(tmp, exe)   # atomic: a concurrent build leaves one good program
    return exe


def _num(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else str(int(x))


def _channel(spec: Any) -> str:
    """The engine's channel as the program's spec."""
    from ..scenario import Bernoulli, Drops, GilbertElliott, NoChannel, channel

    c = channel(spec, "channel")
    if isinstance(c, NoChannel):
        return "none"
    if isinstance(c, Bernoulli):
        return f"bernoulli:p={_num(c.p)}"
    if isinstance(c, GilbertElliott):
        if c.loss_good != 0.0 or c.loss_bad != 1.0 or c.idle_reset_s is not None \
                or c.slot_s is not None:
            raise Ns3Unsupported("channel", spec, "the ns-3 program's Gilbert-Elliott chain "
                                 "has a lossless Good and a lossy Bad state, no idle reset "
                                 "and the link's packet time as its slot")
        return f"ge:alpha={_num(c.alpha)},beta={_num(c.beta)},advance={c.advance}"
    if isinstance(c, Drops):
        return "drops:seq=" + "+".join(str(s) for s in c.seqs)
    raise Ns3Unsupported("channel", spec, "the ns-3 program has none, bernoulli, ge and drops")


def ns3_arguments(name: str, kw: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The program's arguments for simulate(``name``, ``**kw``) (validated by the engine's
    front first), and notes; :class:`Ns3Unsupported` naming the first parameter ns-3 cannot
    express."""
    from ..sim import _DEFAULTS, scenario_from_keywords

    scenario_from_keywords(name, **kw)          # the engine's own validation first
    var = variant(name)
    if var.ns3 is None:
        raise Ns3Unsupported("variant", name, "has no ns-3 3.37 counterpart in the registry; "
                             "variants that have one: "
                             + ", ".join(v for v in _ns3_variants()))
    for k, (default, why) in _DEFAULT_ONLY.items():
        x = kw.get(k, _DEFAULTS.get(k))
        if x is not None and x != default:
            raise Ns3Unsupported(k, x, why)
    refuse_options_without("ns3", kw, Ns3Unsupported, "ns-3 3.37")
    p = {**_DEFAULTS, **kw}
    if p["queue"] is not None:
        from ..scenario import DropTail, queue

        q = queue(p["queue"], "queue")
        if not isinstance(q, DropTail) or q.bytes is not None or q.packets is None:
            raise Ns3Unsupported("queue", p["queue"], "the ns-3 program's queue is a "
                                 "DropTail of packets")
        p["queue_packets"] = q.packets
    attrs: list[str] = []
    engine_only: list[str] = []
    congestion_ops = var.ns3["congestion_ops"]
    for k in var.params:
        x = kw.get(k)
        spec = PARAMS[k]
        if spec.ns3 is not None:
            if x is not None:
                attrs.append(f"{spec.ns3}={_attr_value(x)}")
        elif k == "cubic_slow_start":
            x = x or spec.default
            if x == "hystart_pp":
                raise Ns3Unsupported(k, x, "ns-3 3.37's TcpCubic has Linux's HyStart "
                                     "(hystart) or none (reno), not HyStart++")
            attrs.append(f"ns3::TcpCubic::HyStart={'true' if x == 'hystart' else 'false'}")
        elif k == "reno_rules":
            # ns-3's TcpLinuxReno is Linux's reno module (segment counting, ssthresh from
            # cwnd); its TcpNewReno counts per ACK and halves the flight, as RFC 5681.
            if (x or spec.default) == "linux":
                congestion_ops = "ns3::TcpLinuxReno"
        elif (x is not None and x != spec.default
              and ENGINE_AS_NS3.get(name, {}).get(k) != x):
            # A setting of the engine's side only (its rules): run, and say so (the
            # like-for-like settings have their own notes, like_ns3_notes()).
            engine_only.append(f"{k}={x}")
    # ns-3's PRR is a recovery of its own (the declaration's counterpart of prr).
    recovery = OPTIONS["prr"].ns3 if kw.get("prr") else var.ns3["recovery"]
    args = [f"--cc={congestion_ops}", f"--recovery={recovery}",
            f"--sack={'1' if var.ns3['sack'] else '0'}",
            f"--rate={_num(p['rate_bps'])}", f"--rtt={_num(p['rtt_s'])}",
            f"--size={int(p['packet_size_bytes'])}", f"--window={int(p['window'])}",
            f"--duration={_num(p['duration_s'])}", f"--seed={int(p['seed'])}",
            f"--queue={int(p['queue_packets'])}", f"--initial-cwnd={int(p['initial_window'])}",
            f"--min-rto={_num(0.2 if p['min_rto_s'] is None else p['min_rto_s'])}",
            f"--granularity={_num(max(p['granularity_s'], 1e-9))}",
            f"--channel={_channel(p['channel'])}",
            f"--delack={2 if p['delayed_ack'] else 1}", "--delack-timeout=0.1"]
    if attrs:
        args.append("--attrs=" + ";".join(attrs))
    notes = []
    if engine_only:
        notes.append("the engine's own settings, with no ns-3 attribute: "
                     + ", ".join(engine_only))
    bdp = p["rate_bps"] * p["rtt_s"] / (8 * p["packet_size_bytes"])
    if p["window"] < bdp + p["queue_packets"]:
        notes.append(f"the window ({p['window']} segments) is below the path's BDP plus "
                     f"queue ({bdp + p['queue_packets']:.0f}): ns-3 caps cwnd there while "
                     "the engine limits the flight by the receiver's window, so the "
                     "congestion controls' states differ once it binds")
    return args, notes


def _attr_value(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    return _num(x) if isinstance(x, (int, float)) else str(x)


def _ns3_variants() -> list[str]:
    from ..variants import REGISTRY

    return [n for n, v in REGISTRY.items() if v.ns3 is not None]


@dataclass(frozen=True, kw_only=True)
class Ns3Report(RunCounts):
    """One ns-3 run under the engine's metric names (NaN where ns-3 does not observe)."""

    variant: str
    seed: int
    cwnd_mean: float
    cwnd_p25: float
    cwnd_p50: float
    cwnd_p75: float
    pacing_rate_mean_bps: float
    first_data_s: float
    wall_s: float

    def metric(self, name: str) -> float:
        return math.nan if name in NOT_OBSERVABLE else super().metric(name)


def _run(exe: Path, args: list[str], timeout_s: float | None) -> tuple[str, float]:
    from ..ns2.run import _die_with_parent, _kill_group

    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([str(exe), *args], stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                preexec_fn=_die_with_parent(os.getpid()))
        try:
            proc.wait(timeout=timeout_s)
        except BaseException as e:
            _kill_group(proc)
            if isinstance(e, subprocess.TimeoutExpired):
                raise Ns3Error(f"ns-3 did not finish within {timeout_s} s") from None
            raise
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise Ns3Error(f"ns-3 exited with {proc.returncode}:\n{text[-2000:]}")
    return text, time.perf_counter() - t0


def simulate_ns3(variant_name: str = "newreno", *, timeout_s: float | None = None,
                 **kw: Any) -> Ns3Report:
    """One ns-3 run of simulate(``variant_name``, ``**kw``)."""
    from ..sim import _DEFAULTS

    args, _ = ns3_arguments(variant_name, kw)
    exe = build_program()
    text, wall = _run(exe, args, timeout_s)
    line = next((ln for ln in text.splitlines() if ln.startswith("{")), None)
    if line is None:
        raise Ns3Error(f"ns-3 printed no result:\n{text[-2000:]}")
    raw = json.loads(line)
    p = {**_DEFAULTS, **kw}
    capacity = p["rate_bps"] / (8.0 * p["packet_size_bytes"])
    return Ns3Report(variant=variant_name, seed=int(p["seed"]),
                     packets_sent=raw["packets_sent"], retransmissions=raw["retransmissions"],
                     timeouts=raw["timeouts"], fast_retransmits=raw["fast_retransmits"],
                     packets_delivered=raw["packets_delivered"], elapsed_s=p["duration_s"],
                     capacity_pps=capacity, cwnd_mean=raw["cwnd_mean"],
                     cwnd_p25=raw["cwnd_p25"], cwnd_p50=raw["cwnd_p50"],
                     cwnd_p75=raw["cwnd_p75"],
                     pacing_rate_mean_bps=raw["pacing_rate_mean_bps"],
                     first_data_s=raw["first_data_s"], wall_s=wall)


def run_seeds(seeds: Iterable[int], variant_name: str, *,
              on_done: Callable[[int], None] | None = None, **kw: Any) -> list[Ns3Report]:
    out = []
    for s in seeds:
        out.append(simulate_ns3(variant_name, seed=s, **kw))
        if on_done is not None:
            on_done(len(out))
    return out
