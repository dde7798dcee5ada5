"""An emulation's result: the kernel TCP's counters under the engine's metric names, the
emulator's measured accuracy, and each packet's fate (the log the engine replays)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..sim import METRICS, RunMetrics

#: Metrics the kernel does not expose (not judged against the engine).
NOT_OBSERVABLE = ("spurious_fast_retransmits", "completion_time_s", "classification_accuracy",
                  # The kernel counts its undos by where they happen (TCPLossUndo,
                  # TCPFullUndo, TCPPartialUndo, TCPDSACKUndo), not by what detected them:
                  # timestamps and DSACK share the first three.
                  "undos_eifel_timeout", "undos_eifel_fast_retransmit", "undos_dsack",
                  # No counter of the segments RACK marks (TCPLostRetransmit counts the
                  # retransmissions only: rack_lost_retransmissions).
                  "rack_lost",
                  # TCP_INFO gives tp->reordering at the end (tcpi_reordering), not the
                  # highest reached, and no counter gives RACK's window steps.
                  "reordering_degree", "rack_reo_wnd_steps")

#: Outcomes in the fate log (crates/lossytcp-emu/src/forward.rs ``Outcome``).
OUTCOMES = ("delivered", "lost", "early", "forced", "ignored")
KINDS = ("syn", "data", "ack", "udp", "other")


@dataclass(frozen=True)
class FateLog:
    """One direction's packets in the order they reached the link, as columns: read time,
    kind, size, sequence (TCP: bytes from the first data byte; probe: its number), segment
    number (-1: none), retransmission flag, outcome, start and end of transmission, arrival
    time per the model and actual write time (0: never written); times in ns since the
    emulator's origin."""

    t_in_ns: np.ndarray
    kind: np.ndarray
    size: np.ndarray
    seq: np.ndarray
    segment: np.ndarray
    retransmission: np.ndarray
    outcome: np.ndarray
    start_ns: np.ndarray
    tx_end_ns: np.ndarray
    due_ns: np.ndarray
    sent_ns: np.ndarray

    @classmethod
    def read(cls, path: str | Path) -> FateLog:
        cols = {f: [] for f in cls.__dataclass_fields__}
        with open(path) as f:
            header = f.readline().strip().split(",")
            rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
        idx = {h: i for i, h in enumerate(header)}
        for name in cols:
            i = idx[name]
            col = [r[i] for r in rows]
            if name == "kind":
                cols[name] = np.array([KINDS.index(x) for x in col], dtype=np.int8)
            elif name == "outcome":
                cols[name] = np.array([OUTCOMES.index(x) for x in col], dtype=np.int8)
            else:
                cols[name] = np.array(col, dtype=np.int64)
        return cls(**cols)

    def is_kind(self, kind: str) -> np.ndarray:
        return self.kind == KINDS.index(kind)

    def is_outcome(self, *outcomes: str) -> np.ndarray:
        return np.isin(self.outcome, [OUTCOMES.index(o) for o in outcomes])

    @property
    def admitted(self) -> np.ndarray:
        """Packets the queue admitted: transmitted, then delivered or lost on the channel."""
        return self.is_outcome("delivered", "lost")

    def channel_outcomes(self, kind: str | None = None) -> np.ndarray:
        """The channel's decision for each transmitted packet (of ``kind``), in transmission
        order: True = lost. What the engine's ``trace:`` channel replays."""
        m = self.admitted if kind is None else self.admitted & self.is_kind(kind)
        return self.outcome[m] == OUTCOMES.index("lost")


@dataclass
class EmulationReport(RunMetrics):
    """One emulated run of the kernel's TCP. The metrics carry ``lossytcp.simulate``'s names
    and meanings: packets are segments (``snd_mss`` bytes of data in a ``packet_size_bytes``
    packet), rates are over ``elapsed_s`` from the end of the handshake, ``*_norm`` divide by
    the link's capacity in packets/s; counted on the data link over that window from the
    fate log (sent, received, retransmitted, lost) and from the sender namespace's TCP
    counters (timeouts: TcpExt.TCPTimeouts; fast retransmits: recoveries entered on
    duplicate ACKs or SACK, TcpExt.TCPSackRecovery + TCPRenoRecovery; spurious timeouts:
    F-RTO's TcpExt.TCPSpuriousRTOs; undos: TcpExt.TCPLossUndo + TCPFullUndo +
    TCPPartialUndo + TCPDSACKUndo, those of F-RTO alone TCPSpuriousRTOs; tail loss probes:
    TcpExt.TCPLossProbes, the losses they repaired TcpExt.TCPLossProbeRecovery)."""

    cc: str
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
    loss_probes: int
    elapsed_s: float
    capacity_pps: float
    final_cwnd: float
    final_ssthresh: float
    final_rto_s: float
    srtt_s: float
    min_rtt_s: float
    snd_mss: int
    #: The emulator's own accuracy (lateness, achieved rate, CPU) and its preflight.
    accuracy: dict[str, Any]
    preflight: dict[str, Any] | None
    #: Per direction: counters and accuracy (forward carries data, reverse ACKs).
    links: list[dict[str, Any]]
    #: TCP_INFO sampled at a fixed interval (columns: t_s, cwnd, ssthresh, srtt_s, ...).
    samples: dict[str, list[float]]
    #: Changes of the sender namespace's TCP counters over the transfer.
    counters: dict[str, int]
    log_dir: str | None
    raw: dict[str, Any] = field(repr=False)
    #: The engine scenario whose links were emulated (one link each way).
    scenario: dict[str, Any] = field(default_factory=dict, repr=False)
    #: The path as emulate() was given it (rate_bps, rtt_s or delay, queue, channel, ...).
    path: dict[str, Any] = field(default_factory=dict, repr=False)

    undos: float = math.nan
    undos_frto: float = math.nan
    spurious_fast_retransmits: float = math.nan
    undos_eifel_timeout: float = math.nan
    undos_eifel_fast_retransmit: float = math.nan
    undos_dsack: float = math.nan
    tlps: float = math.nan
    tlp_recoveries: float = math.nan
    rack_lost: float = math.nan
    rack_lost_retransmissions: float = math.nan
    undos_partial: float = math.nan
    reordering_events: float = math.nan
    reordering_degree: float = math.nan
    rack_reo_wnd_steps: float = math.nan
    completion_time_s: float = math.nan
    classification_accuracy: float = math.nan

    def metric(self, name: str) -> float:
        x = getattr(self, name)
        return math.nan if x is None else float(x)

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in (
            "cc", "seed", "packets_sent", "retransmissions", "channel_losses", "queue_drops",
            "packets_received", "packets_delivered", "acks_sent", "timeouts",
            "fast_retransmits", "spurious_timeouts", "loss_probes", "elapsed_s",
            "capacity_pps", "final_cwnd", "final_ssthresh", "final_rto_s", "srtt_s",
            "min_rtt_s", "snd_mss", "accuracy", "preflight", "counters", "log_dir")}
        d.update({m: self.metric(m) for m in METRICS})
        d["links"] = self.links
        return d

    def fates(self, direction: str = "forward") -> FateLog:
        """The fate log of ``direction`` (``forward``: data, ``reverse``: ACKs)."""
        if self.log_dir is None:
            raise ValueError("this run kept no fate log (log_dir)")
        return FateLog.read(Path(self.log_dir) / f"{direction}.csv")


def from_emulator(raw: dict[str, Any], *, seed: int, rate_bps: float,
                  packet_size_bytes: int) -> EmulationReport:
    """The report of a kernel TCP run from the emulator's JSON and its fate logs."""
    tcp = raw["tcp"]
    fin = tcp["final_info"]
    c = tcp["counters"]
    t0 = tcp["t0_s"] * 1e9
    t1 = t0 + tcp["duration_s"] * 1e9
    log_dir = raw.get("log_dir")
    fwd = FateLog.read(Path(log_dir) / "forward.csv")
    rev = FateLog.read(Path(log_dir) / "reverse.csv")
    data = fwd.is_kind("data") & (fwd.t_in_ns >= t0) & (fwd.t_in_ns < t1)
    arrived = data & fwd.is_outcome("delivered") & (fwd.sent_ns > 0) & (fwd.sent_ns < t1)
    acks = rev.is_kind("ack") & (rev.t_in_ns >= t0) & (rev.t_in_ns < t1)
    mss = int(fin["snd_mss"]) or packet_size_bytes - 52
    return EmulationReport(
        cc=tcp["cc"], seed=seed,
        packets_sent=int(data.sum()),
        retransmissions=int((data & (fwd.retransmission == 1)).sum()),
        channel_losses=int((data & fwd.is_outcome("lost")).sum()),
        queue_drops=int((data & fwd.is_outcome("early", "forced")).sum()),
        packets_received=int(arrived.sum()),
        packets_delivered=int(tcp["bytes_received"] // mss),
        acks_sent=int(acks.sum()),
        timeouts=int(c.get("TcpExt.TCPTimeouts", 0)),
        fast_retransmits=int(c.get("TcpExt.TCPSackRecovery", 0)
                             + c.get("TcpExt.TCPRenoRecovery", 0)),
        spurious_timeouts=int(c.get("TcpExt.TCPSpuriousRTOs", 0)),
        undos=sum(int(c.get(f"TcpExt.TCP{k}Undo", 0))
                  for k in ("Loss", "Full", "Partial", "DSACK")),
        undos_frto=int(c.get("TcpExt.TCPSpuriousRTOs", 0)),
        loss_probes=int(c.get("TcpExt.TCPLossProbes", 0)),
        tlps=int(c.get("TcpExt.TCPLossProbes", 0)),
        tlp_recoveries=int(c.get("TcpExt.TCPLossProbeRecovery", 0)),
        rack_lost_retransmissions=int(c.get("TcpExt.TCPLostRetransmit", 0)),
        undos_partial=int(c.get("TcpExt.TCPPartialUndo", 0)),
        reordering_events=sum(int(c.get(f"TcpExt.TCP{k}Reorder", 0))
                              for k in ("SACK", "TS", "Reno")),
        elapsed_s=float(tcp["duration_s"]),
        capacity_pps=rate_bps / (8.0 * packet_size_bytes),
        final_cwnd=float(fin["cwnd"]), final_ssthresh=float(fin["ssthresh"]),
        final_rto_s=float(fin["rto_s"]), srtt_s=float(fin["srtt_s"]),
        min_rtt_s=float(fin["min_rtt_s"]), snd_mss=int(fin["snd_mss"]),
        accuracy=raw.get("accuracy") or {}, preflight=raw.get("preflight"),
        links=raw.get("links", []), samples=tcp.get("samples", {}), counters=c,
        log_dir=log_dir, raw=raw)
