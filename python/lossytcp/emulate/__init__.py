"""The real thing: Linux's own TCP over the engine's channels, delays and queues.

:func:`emulate` runs a bulk transfer with the kernel's TCP between two network namespaces
joined by TUN devices; the link emulator between them (``crates/lossytcp-emu``) applies the
engine's own link code: serialisation at the rate, the queue (DropTail or RED), the channel
(every spec string of :func:`lossytcp.simulate`: ``bernoulli``, ``ge`` with either advance,
``twostate``, ``burst``, ``trace``) and the propagation delay (fixed or paper 001's
semi-Markov process), with the run's seed. Each packet's fate is logged, so the engine can
replay exactly the same losses (:func:`replay_in_engine`, ``lossytcp crosscheck linux``).

Real time makes the emulator's accuracy part of every result: it measures the machine
before the run and refuses rates it cannot hold (:class:`EmulatorRefused`), and measures
itself during the run (packets written late against their arrival times, the rate achieved
over back-to-back packets, its CPU share): a run whose accuracy did not hold raises
:class:`EmulatorInaccurate` unless ``allow_inaccurate``. Needs root, ``/dev/net/tun`` and
network namespaces (:func:`emulator_status`); the namespaces are anonymous and vanish with
the emulator's process, whatever ends it.
"""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import _validate as v
from ..errors import ParameterError
from ._run import (
    EXIT_INACCURATE,
    EmulatorError,
    EmulatorInaccurate,
    EmulatorRefused,
    EmulatorUnavailable,
    emulator_status,
    find_emulator,
    raise_for,
    run_emulator,
)
from .report import EmulationReport, FateLog, from_emulator

__all__ = ["EmulationReport", "EmulatorError", "EmulatorInaccurate", "EmulatorRefused",
           "EmulatorUnavailable", "FateLog", "ProbeResult", "emulate", "emulator_status",
           "find_emulator", "kernel_congestion_controls", "probe", "replay_in_engine"]

#: The longest emulation: it runs in real time.
MAX_DURATION_S = 3600.0
#: Packet sizes a real interface takes (its MTU), bytes.
MIN_PACKET, MAX_PACKET = 68, 65535
#: An ACK with the timestamps option, as Linux sends it: IPv4 20 + TCP 20 + 12.
LINUX_ACK_BYTES = 52


def kernel_congestion_controls() -> tuple[str, ...]:
    """Congestion controls this kernel offers (net.ipv4.tcp_available_congestion_control)."""
    try:
        text = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text()
    except OSError:
        return ()
    return tuple(text.split())


def _scenario(*, rate_bps: float, rtt_s: float | None, packet_size_bytes: int,
              window: int | None, channel: str, ack_channel: str, queue: Any, delay: Any,
              duration_s: float, seed: int, protect_retransmissions: bool) -> dict[str, Any]:
    """The engine scenario whose links the emulator applies (validated by the same code as
    :func:`lossytcp.simulate`'s)."""
    from ..sim import build_scenario

    packet_size_bytes = v.integer("packet_size_bytes", packet_size_bytes, MIN_PACKET, MAX_PACKET)
    duration_s = v.in_range("duration_s", duration_s, 1e-3, MAX_DURATION_S)
    kw: dict[str, Any] = dict(
        rate_bps=rate_bps, packet_size_bytes=packet_size_bytes,
        window=1_000_000 if window is None else window, channel=channel,
        ack_channel=ack_channel, duration_s=duration_s, seed=seed,
        ack_size_bytes=LINUX_ACK_BYTES, protect_retransmissions=protect_retransmissions)
    if delay is not None:
        kw["delay"] = delay
    else:
        kw["rtt_s"] = rtt_s
    if queue is not None:
        kw["queue"] = queue
    return build_scenario("newreno", **kw)


_SYSCTL_NAME = re.compile(r"net(\.[A-Za-z0-9_-]+)+")


def _sysctls(sysctls: Mapping[str, Any] | None) -> dict[str, str]:
    """``sysctls`` checked: network-namespace settings (``net.*``) with integer values or
    space-separated integers (vectors such as ``tcp_rmem``)."""
    out: dict[str, str] = {}
    for name, value in (sysctls or {}).items():
        if not isinstance(name, str) or not _SYSCTL_NAME.fullmatch(name):
            raise ParameterError("sysctls", name, "must name a network namespace's sysctl, "
                                 "dotted, e.g. net.ipv4.tcp_timestamps")
        if not Path("/proc/sys", *name.split(".")).exists():
            raise ParameterError("sysctls", name, "is not a sysctl of this kernel "
                                 "(/proc/sys/net/...)")
        text = " ".join(str(value).split()) if not isinstance(value, bool) else ""
        if not re.fullmatch(r"-?\d+( -?\d+)*", text):
            raise ParameterError(f"sysctls[{name}]", value, "must be an integer or "
                                 "space-separated integers")
        out[name] = text
    return out


def _run(scenario: dict[str, Any], workload: dict[str, Any], log_dir: str | Path | None,
         realtime: bool, preflight: bool, max_lateness_s: float | None,
         allow_inaccurate: bool, finish: Any, sysctls: dict[str, str] | None = None) -> Any:
    keep = log_dir is not None
    tmp = None if keep else tempfile.TemporaryDirectory(prefix="lossytcp-emulate-")
    d = Path(log_dir) if keep else Path(tmp.name)  # type: ignore[union-attr]
    try:
        d.mkdir(parents=True, exist_ok=True)
        cfg = {"scenario": scenario, "workload": workload, "log_dir": str(d.resolve()),
               "realtime": v.boolean("realtime", realtime),
               "preflight": v.boolean("preflight", preflight),
               "max_lateness_s": None if max_lateness_s is None else v.in_range(
                   "max_lateness_s", max_lateness_s, 1e-6, 10.0),
               "sysctls": sysctls or {}}
        code, raw = run_emulator(cfg)
        raise_for(code, raw)
        result = finish(raw)
        if code == EXIT_INACCURATE and not allow_inaccurate:
            raise EmulatorInaccurate(raw.get("accuracy", {}).get("problems", []), result)
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()


def emulate(cc: str = "cubic", *, rate_bps: float = 10e6, rtt_s: float | None = 0.04,
            packet_size_bytes: int = 1500, window: int | None = None, channel: str = "none",
            ack_channel: str = "none", queue: Any = None, delay: Any = None,
            duration_s: float = 30.0, seed: int = 1, sample_interval_s: float = 0.01,
            protect_retransmissions: bool = False, log_dir: str | Path | None = None,
            realtime: bool = True, preflight: bool = True, max_lateness_s: float | None = None,
            allow_inaccurate: bool = False,
            sysctls: Mapping[str, Any] | None = None) -> EmulationReport:
    """A bulk transfer with the kernel's TCP (congestion control ``cc``, set per socket with
    TCP_CONGESTION) over the emulated path for ``duration_s`` of real time.

    The path is :func:`lossytcp.simulate`'s single link, given the same way (``rate_bps``,
    ``rtt_s`` or a semi-Markov ``delay``, ``queue``, ``channel``, ``ack_channel`` spec
    strings, ``seed``); ``packet_size_bytes`` is the whole IP packet, the interfaces' MTU, and
    the segment size is clamped to it (TCP_MAXSEG), so a full data packet is exactly that
    size (1448 data bytes in 1500 with timestamps). ``window`` (segments) clamps the
    receiver's advertised window (TCP_WINDOW_CLAMP); left out, the kernel tunes it.
    TCP_INFO is sampled every ``sample_interval_s``. ``log_dir`` keeps the fate logs
    (``forward.csv``, ``reverse.csv``) and the configuration. ``sysctls`` (``{"net.ipv4.
    tcp_timestamps": 0}``) are written in both namespaces before the handshake: new
    namespaces start from the kernel's defaults for the per-namespace TCP settings
    (``tcp_timestamps``, ``tcp_recovery``, ``tcp_comp_sack_nr``, ...), not from the host's,
    so a control run sets them here; the report's ``path`` records them.

    Raises :class:`EmulatorUnavailable` (not root, no TUN), :class:`EmulatorRefused` (the
    machine cannot hold this rate now), :class:`EmulatorInaccurate` (the run's accuracy did
    not hold; ``allow_inaccurate`` returns the report instead, its ``accuracy`` says why)."""
    available = kernel_congestion_controls()
    if available and cc not in available:
        raise ParameterError("cc", cc, "must be a congestion control this kernel offers: "
                             + ", ".join(available))
    sc = _scenario(rate_bps=rate_bps, rtt_s=rtt_s, packet_size_bytes=packet_size_bytes,
                   window=window, channel=channel, ack_channel=ack_channel, queue=queue,
                   delay=delay, duration_s=duration_s, seed=seed,
                   protect_retransmissions=protect_retransmissions)
    interval = v.in_range("sample_interval_s", sample_interval_s, 1e-3, 60.0)
    knobs = _sysctls(sysctls)
    workload = {"kind": "tcp", "cc": cc, "sample_interval_s": interval}
    if window is not None:
        workload["window_clamp_bytes"] = window * (packet_size_bytes - LINUX_ACK_BYTES)

    def finish(raw: dict[str, Any]) -> EmulationReport:
        r = from_emulator(raw, seed=seed, rate_bps=sc["links"][0]["rate_bps"],
                          packet_size_bytes=packet_size_bytes)
        if log_dir is None:
            r.log_dir = None   # a temporary directory, removed on return
        r.scenario = sc
        r.path = dict(rate_bps=rate_bps, packet_size_bytes=packet_size_bytes, window=window,
                      channel=channel, ack_channel=ack_channel, duration_s=duration_s,
                      seed=seed, protect_retransmissions=protect_retransmissions,
                      **({"queue": queue} if queue is not None else {}),
                      **({"delay": delay} if delay is not None else {"rtt_s": rtt_s}))
        if knobs:
            r.path["sysctls"] = knobs
        return r

    return _run(sc, workload, log_dir, realtime, preflight, max_lateness_s, allow_inaccurate,
                finish, knobs)


class ProbeResult:
    """The emulator measuring itself with a UDP probe: per datagram its number, send and
    receive times (ns since the emulator's origin; one clock for both namespaces), the fate
    logs, and the emulator's report."""

    def __init__(self, raw: dict[str, Any], log_dir: Path) -> None:
        import numpy as np

        self.raw = raw
        self.accuracy: dict[str, Any] = raw.get("accuracy") or {}
        self.links: list[dict[str, Any]] = raw.get("links", [])
        self.sent = int(raw["udp"]["sent"])
        rows = np.loadtxt(log_dir / "probe.csv", delimiter=",", skiprows=1, ndmin=2,
                          dtype=np.int64)
        self.seq, self.sent_ns, self.received_ns = (rows[:, 0], rows[:, 1], rows[:, 2]) if len(
            rows) else (np.zeros(0, np.int64),) * 3
        self.forward = FateLog.read(log_dir / "forward.csv")

    @property
    def delay_s(self) -> Any:
        """One-way delay of each received datagram, s."""
        return (self.received_ns - self.sent_ns) * 1e-9

    def received_rate_bps(self, size_bytes: int) -> float:
        """The rate datagrams arrived at, over the middle 80% of the run."""
        t = self.received_ns
        if len(t) < 10:
            return math.nan
        lo, hi = int(0.1 * len(t)), int(0.9 * len(t))
        return (hi - lo) * size_bytes * 8.0 / ((t[hi] - t[lo]) * 1e-9)


def probe(*, rate_bps: float, packet_size_bytes: int, probe_rate_bps: float,
          rtt_s: float = 0.04, channel: str = "none", queue: Any = None, delay: Any = None,
          duration_s: float = 5.0, seed: int = 1, log_dir: str | Path | None = None,
          realtime: bool = True, preflight: bool = True, max_lateness_s: float | None = None,
          allow_inaccurate: bool = False) -> ProbeResult:
    """Datagrams of ``packet_size_bytes`` at ``probe_rate_bps`` through the emulated link
    (``rate_bps``, ``rtt_s``, ``channel``, ...) for ``duration_s``: above the link rate they
    measure the rate it achieves, below it the one-way delay and the channel's loss
    pattern. The emulator's self-test (tests/emulate)."""
    sc = _scenario(rate_bps=rate_bps, rtt_s=rtt_s, packet_size_bytes=packet_size_bytes,
                   window=None, channel=channel, ack_channel="none", queue=queue, delay=delay,
                   duration_s=duration_s, seed=seed, protect_retransmissions=False)
    workload = {"kind": "udp", "rate_bps": v.positive("probe_rate_bps", probe_rate_bps),
                "packet_size_bytes": packet_size_bytes}
    keep = Path(log_dir) if log_dir is not None else None
    holder: dict[str, Any] = {}

    def finish(raw: dict[str, Any]) -> ProbeResult:
        holder["r"] = ProbeResult(raw, Path(raw["log_dir"]))
        return holder["r"]

    return _run(sc, workload, keep, realtime, preflight, max_lateness_s, allow_inaccurate,
                finish)


def replay_in_engine(report: EmulationReport, variant: str | None = None,
                     **engine: Any) -> Any:
    """The engine on the emulated path with the kernel's own losses: the fate of each data
    transmission (forward) and each ACK (reverse) becomes the engine's ``trace:`` channel,
    so the k-th transmission is lost in the engine exactly when it was in the emulator.
    ``variant`` and ``engine`` default to the engine's closest Linux-like configuration
    (:func:`lossytcp.emulate.linux.engine_config`)."""
    from .linux import replay

    return replay(report, variant, **engine)
