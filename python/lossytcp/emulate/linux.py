"""The engine as close to Linux's TCP as its knobs go, and what cannot match by construction.

**The closest configuration** (:func:`engine_config`), per setting, with Linux's source of it:

* variant: ``reno`` -> the engine's ``sack`` (Linux's Reno congestion control recovers with
  SACK, on by default, RFC 6675's scoreboard in spirit) with Linux's reno module's window
  (``reno_rules='linux'``: ``tcp_reno_cong_avoid()`` counts the segments each ACK delivers,
  ``tcp_reno_ssthresh()`` halves cwnd; RFC 5681's per-ACK count, the engine's default, grows
  half as fast with delayed ACKs: on a fixed 40 ms, 10 Mb/s path the first slow start then
  overshoots by half as much, 76 queue drops against the kernel's 152-155, and 152 with
  ``linux``); ``cubic`` -> the engine's ``cubic``
  with Linux's ``tcp_cubic.c`` rules and HyStart (``cubic_rules='linux'``,
  ``cubic_slow_start='hystart'``: the RFC 9438 arithmetic and HyStart++ are the engine's
  defaults, not the kernel's); ``bbr`` -> the engine's ``bbr`` (Linux's ``tcp_bbr.c``) with
  ``bbr_pacing_burst='tso'`` (the TSO/GSO note below; the engine's default, set here all the
  same so that this configuration does not follow a change of default);
  ``bbr3`` -> the engine's ``bbr3``, run as the kernel's ``bbr`` where that is Google's v3
  (:func:`engine_variant` tells by its ``bbr_skb_marked_lost``), refused by name elsewhere;
* ``frto=True``: the kernel runs F-RTO (``net.ipv4.tcp_frto`` = 2, the SACK-enhanced RFC
  5682, in every namespace by default); on the crosscheck's paths its timeouts are genuine
  (0 spurious RTOs in 16 kernel runs, emulate/README.md) and the engine's F-RTO changes
  goodput by at most 0.0006 there; on paper 001's path, where a jump to 320 ms fires the
  engine's timer (spuriously, and F-RTO undoes it), the kernel's Tail Loss Probe mostly
  re-arms its RTO first (no timeout in the 18 kernel runs of emulate/README.md's table; in
  a later seed 5, every one found spurious by the kernel's F-RTO and undone);
* ``dsack=True``: the kernel's receiver sends DSACK (``net.ipv4.tcp_dsack`` = 1 by default)
  and its sender undoes an episode whose retransmissions all came back as DSACKs
  (``undo_retrans``, ``tcp_try_undo_loss()`` / ``tcp_try_undo_dsack()``); the engine's
  ``dsack`` does the same on its RFC 2018 blocks;
* ``tlp=True``: the kernel's Tail Loss Probe (``net.ipv4.tcp_early_retrans`` = 3 by default,
  RFC 8985 §7): the engine's ``tlp`` follows ``tcp_schedule_loss_probe()`` /
  ``tcp_send_loss_probe()`` / ``tcp_process_tlp_ack()`` with this kernel's HZ (250);
  ``tlps`` is judged against TCPLossProbes, ``tlp_recoveries`` against TCPLossProbeRecovery;
* ``prr=True``: the kernel runs RFC 6937's Proportional Rate Reduction on every ACK of a fast
  recovery (``tcp_cwnd_reduction()``, always, except under a congestion control with its own
  ``cong_control``: BBR); the engine's ``prr`` follows it in its SACK recovery (sack,
  cubic; none for bbr, as in the kernel);
* ``rack=True``: the kernel detects losses by RACK (``net.ipv4.tcp_recovery`` = 1 by
  default, RFC 8985 §6): the engine's ``rack`` follows ``tcp_rack_advance()`` /
  ``tcp_rack_detect_loss()`` / ``tcp_rack_reo_timeout()`` (the reordering timer in this
  kernel's 4 ms jiffies) and starts a recovery on a proven loss, not on the duplicate-ACK
  count (``tcp_time_to_recover()``); ``rack_lost_retransmissions`` is judged against
  TCPLostRetransmit. On the crosscheck's fixed lossy paths it takes the engine's timeouts
  to the kernel's (none) and its goodput nearer the kernel's (emulate/README.md, RACK);
* ``reordering=True``, ``rack_reo_wnd=True``, ``partial_undo=True``: the kernel's response
  to reordering beside RACK: the reordering degree ``tp->reordering`` raised by
  ``tcp_check_sack_reordering()`` (at most 300) and read as the engine's DupThresh, RACK's
  window widened by DSACKs (``tcp_rack_update_reo_wnd()``: steps of min_rtt/4, at most
  SRTT, persisting 16 recoveries) and ``tcp_try_undo_partial()`` on timestamps; on paper
  001's reordering path (18 stored kernel runs) they bring the engine's goodput nearer the
  kernel's (engine minus kernel -0.020 without them, -0.013 with them) and its
  retransmissions from +69 to -23 per run (emulate/README.md, *The kernel's reordering
  response*);
* ``handshake_rtt=True``: the kernel's active open measures the SYN's round trip before any
  data (``tcp_ack_update_rtt()``), the first sample of SRTT, the RTO and ``tcp_min_rtt()``,
  which ``bbr_init()`` takes as RTprop; the engine's flows start established, so the
  simulator times a 60-byte SYN and SYN-ACK across the idle path at the start and gives the
  sender that sample. Without it BBR's startup window was 5% larger (its first sample a
  data ACK's) and its startup overshoots dropped 6 more packets each (emulate/README.md,
  *BBR's extra startup drops*);
* ``initial_window=10`` (RFC 6928, ``TCP_INIT_CWND``); ``delayed_ack=True``;
  ``limited_transmit=True`` (RFC 3042, on in Linux); ``dupack_threshold=3``
  (``tcp_reordering``); per-ACK RTT samples (the timestamps option times every ACK);
* the timer: Linux sets RTO = SRTT + max(``tcp_rto_min``, 4 RTTVAR) with ``tcp_rto_min`` =
  200 ms (``tcp_set_rto``, ``rttvar_us`` floored at the minimum), which is RFC 6298's formula
  with a clock granularity G of 200 ms: ``granularity_s=0.2``, ``min_rto_s=0.2``,
  ``initial_rto_s=1`` (``TCP_TIMEOUT_INIT``), ``max_rto_s=120`` (``TCP_RTO_MAX``);
* sizes: ``packet_size_bytes`` is the IP packet (1448 data bytes of 1500 carry 52 bytes of
  headers with timestamps), ACKs are 52 bytes;
* the window: the receiver's clamp when one is given, else what the namespace's autotuning
  can reach (``tcp_rmem``'s maximum, half of it advertised by ``tcp_adv_win_scale`` = 1).

**What cannot match by construction** (the engine implements RFC algorithms; the kernel
implements its own, and these differ on purpose):

* RACK (RFC 8985 §6) is modelled (``rack=True`` above) beside RFC 6675's IsLost, which it
  always covers on a path that does not reorder (Linux 6.x has no IsLost beside RACK; the
  engine's counts against the reordering degree, as Linux 4.x's ``tcp_mark_head_lost()``
  did), with the reordering response (above: the window's growth reads the degree as
  ``tcp_may_raise_cwnd()`` does, and a partial ACK that ``tcp_try_undo_partial()`` holds
  retransmits nothing); not modelled: a timeout's sparing of the segments sent within
  RACK.rtt (``tcp_timeout_mark_lost()``): the engine's go-back-N resends them all.
* PRR (RFC 6937) is modelled (``prr=True`` above) in the SACK recovery; in Linux's CWR state
  (ECN marks) it has nothing to act on here, the engine's queues marking nothing.
* Undo (F-RTO RFC 5682, DSACK/Eifel): Linux reverts a window reduction it finds spurious.
  The configuration above runs the engine's F-RTO (RFC 5682 as the kernel's
  ``tcp_frto = 2``), which undoes a spurious timeout as ``tcp_try_undo_loss()`` does, without
  go-back-N, and its DSACK undo (``dsack=True``, RFC 2883 / RFC 3708 with Linux's
  ``undo_retrans``); the kernel's timestamp undo (``tcp_packet_delayed()``) is the engine's
  ``eifel_undo=True``, off here (the kernel's ``spurious_timeouts`` are F-RTO's detections,
  the engine's its oracle's). On paper 001's path (emulate/README.md) the kernel's undos
  are that test in recovery (``tcp_try_undo_partial()``: TCPPartialUndo, which also raises
  the reordering degree and stops retransmitting), which ``partial_undo`` models (above);
  ``eifel_undo`` (the test at the end of a recovery or timeout) stays off. The engine's
  DSACK carries the duplicate's block first and at most two others (three blocks with
  timestamps, as the kernel's option space allows).
* TSO/GSO/GRO: the forwarder reads one IP packet of at most the MTU from the TUN device, but
  the kernel's TCP still builds GSO packets of ``tcp_tso_autosize()`` segments (about 1 ms
  of the pacing rate, at least ``tcp_min_tso_segs`` = 2): measured through the emulator,
  ``Tcp.OutSegs`` / ``Ip.OutRequests`` = 2.0 at 10 Mb/s (data arriving in pairs 2-3 us apart)
  and bursts of 3.9 segments at 50 Mb/s. With ``pfifo_fast`` (no fq) BBR paces internally,
  one such burst per pacing wake-up; ``bbr_pacing_burst='tso'``, the engine's default for
  ``bbr`` and ``bbr3``, does the same (``'segment'`` paces per segment, as ns-3 does). TCP
  Small Queues shape when segments leave too; the engine's unpaced senders send at once.
* Timestamps: 12 option bytes per segment (1448 data bytes in a 1500 B packet); RTT samples
  on every ACK, also during recovery, where Karn's rule stops the engine.
* IW10 and slow start after idle, congestion window validation (RFC 7661): the first is
  configured above; the others have no engine counterpart. CUBIC's HyStart is the engine's
  ``cubic_slow_start='hystart'`` (``hystart_update()``'s rounds, ACK train and delay tests);
  on a fixed 40 ms, 10 Mb/s, 1000 B, DropTail-100 path both leave slow start by the ACK
  train at cwnd 68, 0.147 s (engine) and 0.146-0.148 s (kernel 6.18, TCP_INFO every 2 ms).
* Delayed ACKs: Linux ACKs at once in quick-ack mode (after the handshake and whenever data
  arrives out of order or after an idle spell), then every second full segment or after
  an adaptive timeout (``ato``, 40 ms to 200 ms); the engine ACKs every second segment with
  a fixed 200 ms timer (``delack_interval_s`` 0.1 s in ns-2's profile).
* Receive-window autotuning: the advertised window grows with the measured rate; the engine's
  window is fixed.

**A ``linux`` profile** (as ``profile='ns2'`` is for ns-2) would take the engine further.
Of what it needs, the options above now model TLP, PRR, RACK with the kernel's response to
reordering, the DSACK, F-RTO and partial undos and Linux's Reno window; still missing are
the quick-ack heuristic and the adaptive ``ato`` in the receiver, segment counting in bytes with
the timestamp overhead, and the unpaced senders' pacing from ``sk_pacing_rate``; IW10 and
the 200 ms RTTVAR floor would become profile defaults. Those are the mechanisms the
per-metric differences of ``lossytcp crosscheck linux`` point at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..variants import OPTIONS
from . import LINUX_ACK_BYTES

#: Kernel congestion control -> the engine variant closest to it.
ENGINE_VARIANT = {"reno": "sack", "cubic": "cubic", "bbr": "bbr"}
#: The variant's own knobs that make it the kernel's (see the module documentation).
LINUX_KNOBS = {"cubic": {"cubic_rules": "linux", "cubic_slow_start": "hystart"},
               "bbr": {"bbr_pacing_burst": "tso"},
               "sack": {"reno_rules": "linux"}, "newreno": {"reno_rules": "linux"}}


def _autotuned_window_segments(mss: int) -> int:
    """What the receive-window autotuning can advertise: half of ``tcp_rmem``'s maximum
    (``tcp_adv_win_scale`` = 1), in segments."""
    try:
        rmem_max = int(Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()[2])
    except (OSError, ValueError, IndexError):
        rmem_max = 6 << 20   # the kernel's default
    return max(10, rmem_max // 2 // max(mss, 1))


#: Engine variants whose kernel counterpart registers under another name, and how to tell it
#: is the one loaded: Google's BBRv3 (github.com/google/bbr, branch v3) registers as ``bbr``
#: like v1; only v3 has the ``skb_marked_lost`` hook (``bbr_skb_marked_lost``), only v1 the
#: long-term bandwidth sampler (``bbr_lt_bw_sampling``).
KERNEL_ALIAS = {"bbr3": ("bbr", "bbr_skb_marked_lost")}


def kernel_has_symbol(name: str, kallsyms: Path = Path("/proc/kallsyms")) -> bool:
    """Whether the running kernel (or a loaded module) has function ``name``."""
    try:
        with kallsyms.open() as f:
            return any(line.rstrip().split(" ")[-1].split("\t")[0] == name for line in f)
    except OSError:
        return False


def kernel_cc(cc: str) -> str:
    """The name the kernel knows congestion control ``cc`` by (``bbr3`` is ``bbr``)."""
    return KERNEL_ALIAS.get(cc, (cc, ""))[0]


def engine_variant(cc: str, kallsyms: Path = Path("/proc/kallsyms")) -> str:
    """The engine variant for kernel congestion control ``cc``; refused when the engine has
    none like it, or (``bbr3``) when the kernel does not run it."""
    from ..scenario import VARIANTS

    if cc in KERNEL_ALIAS:
        name, marker = KERNEL_ALIAS[cc]
        if not kernel_has_symbol(marker, kallsyms):
            raise ParameterError("cc", cc, f"this kernel's '{name}' is not BBRv3 (no {marker}: "
                                 "it is BBR v1, Linux mainline's tcp_bbr.c); BBRv3 runs only "
                                 "on a kernel built from github.com/google/bbr (branch v3); "
                                 "crosscheck the kernel's bbr against the engine's bbr instead")
        return cc
    v = ENGINE_VARIANT.get(cc)
    if v is None:
        raise ParameterError("cc", cc, "the engine has no counterpart of this congestion "
                             f"control; crosscheck covers {', '.join(ENGINE_VARIANT)}")
    if v not in VARIANTS:
        raise ParameterError("cc", cc, f"the engine has no '{v}' variant yet (its variants: "
                             f"{', '.join(VARIANTS)}); crosscheck the kernel's reno instead")
    return v


def engine_config(*, packet_size_bytes: int, window: int | None,
                  variant: str | None = None) -> dict[str, Any]:
    """simulate() keywords making the engine's TCP (``variant``'s, when given) as Linux-like
    as its knobs go (see the module documentation for each and for what remains
    different)."""
    mss = packet_size_bytes - LINUX_ACK_BYTES
    return dict(**LINUX_KNOBS.get(variant or "", {}),
        # The sender-wide options as their declarations set them for Linux (frto, dsack,
        # tlp, prr, rack, limited_transmit on; eifel_undo off: see above).
        **{k: o.as_linux for k, o in OPTIONS.items() if o.as_linux is not None},
        profile="rfc", initial_window=10, delayed_ack=True,
        dupack_threshold=3, rtt_sampling="per_ack", granularity_s=0.2,
        min_rto_s=0.2, initial_rto_s=1.0, max_rto_s=120.0, ack_size_bytes=LINUX_ACK_BYTES,
        window=window if window is not None else _autotuned_window_segments(mss))


def _trace_channel(outcomes: Any, path: Path) -> str:
    """A ``trace:`` channel of per-transmission outcomes (True: lost); ``none`` when there is
    no loss (the same and cheaper)."""
    if not outcomes.any():
        return "none"
    path.write_text("".join("1\n" if x else "0\n" for x in outcomes))
    return f"trace:file={path}"


def replay_keywords(report: Any, variant: str | None = None,
                    **engine: Any) -> tuple[str, dict[str, Any]]:
    """The engine variant and simulate() keywords replaying ``report``'s losses (see
    :func:`replay`); the trace files go into the report's log directory."""
    if report.log_dir is None:
        raise ParameterError("report", report.cc, "has no fate log to replay: run emulate() "
                             "with log_dir")
    d = Path(report.log_dir)
    path = dict(report.path)
    packet = path["packet_size_bytes"]
    window = path.pop("window")
    v = variant or engine_variant(report.cc)
    kw = {**engine_config(packet_size_bytes=packet, window=window, variant=v), **engine}
    kw["channel"] = _trace_channel(report.fates("forward").channel_outcomes("data"),
                                   d / "replay-data.txt")
    kw["ack_channel"] = _trace_channel(report.fates("reverse").channel_outcomes("ack"),
                                       d / "replay-acks.txt")
    for k in ("channel", "ack_channel", "sysctls"):
        path.pop(k, None)
    return v, {**path, **kw}


def replay(report: Any, variant: str | None = None, **engine: Any) -> Any:
    """The engine on ``report``'s path with the kernel run's own losses (see
    :func:`lossytcp.emulate.replay_in_engine`): the data link's channel decisions for data
    segments, the ACK link's for ACKs, each in transmission order (a ``trace:`` channel,
    which repeats from its start if the engine transmits more). Returns the engine's
    :class:`~lossytcp.sim.SimReport`.

    A semi-Markov ``delay`` is a process in time, drawn from the seed on the emulator's
    clock (zero when its forwarder started, before the handshake): the engine's flow then
    starts at the kernel's time zero, the end of the handshake (``t0_s`` on that clock), and
    runs for the same ``duration_s``, so that each of its packets meets the delay state the
    kernel's packet sent at that moment met (``trace_delay=True`` shows the states)."""
    from ..sim import _run, build_scenario, simulate

    v, kw = replay_keywords(report, variant, **engine)
    if kw.get("delay") is None:
        return simulate(v, **kw)
    sc = build_scenario(v, **kw)
    t0_s = float(report.raw["tcp"]["t0_s"])
    sc["flows"][0]["start_s"] = t0_s
    sc["duration_s"] = t0_s + sc["duration_s"]
    return _run(sc, v)


def loss_event_rate(report: Any, *, channel_only: bool = True) -> float:
    """Loss events per data transmission in the run's window: a run of consecutive lost
    transmissions is one event, as a window reduction is one (a bursty channel's packet
    loss rate would count each burst as many). ``channel_only``: the channel's losses, the
    ones the models take as given; the queue's are the window's own doing (the models bound
    the window by the pipe instead, :func:`model_predictions`)."""
    import numpy as np

    f = report.fates("forward")
    t0 = report.raw["tcp"]["t0_s"] * 1e9
    m = f.is_kind("data") & (f.t_in_ns >= t0) & (f.t_in_ns < t0 + report.elapsed_s * 1e9)
    kinds = ("lost",) if channel_only else ("lost", "early", "forced")
    lost = f.is_outcome(*kinds)[m].astype(np.int8)
    if lost.size == 0:
        return 0.0
    events = int(np.sum(np.diff(np.concatenate([[0], lost])) == 1))
    return events / lost.size


def pipe_packets(report: Any) -> float | None:
    """The most packets the path holds: the bandwidth-delay product at the propagation
    round trip plus the queue's room (DropTail packets, RED's limit); None when the queue
    is not counted in packets or the delay is not fixed."""
    link = report.scenario["links"][0]
    q = link.get("queue") or {"kind": "droptail", "packets": link.get("queue_packets")}
    room = q.get("packets") if q.get("kind") in ("droptail", "red") else None
    rtt = report.path.get("rtt_s")
    if room is None or rtt is None:
        return None
    return report.capacity_pps * rtt + room


def model_predictions(report: Any, loss_rate: float | None = None) -> dict[str, float]:
    """Normalised goodput of the square-root law (Mathis et al. 1997) and of PFTK (Padhye et
    al. 1998) for the run: at its channel's loss-event rate (:func:`loss_event_rate`, unless
    given), its median smoothed RTT and median RTO (TCP_INFO samples), the window bounded by
    what the path holds (:func:`pipe_packets`: the queue's drops are that bound at work),
    and b = 1: Linux grows the window by the segments an ACK covers, so its delayed ACKs do
    not slow its growth as the models' b = 2 assumes. Empty when the channel lost nothing."""
    import statistics

    from ..models import evaluate

    p = loss_event_rate(report) if loss_rate is None else loss_rate
    srtt = [x for x in report.samples.get("srtt_s", []) if x > 0]
    rto = [x for x in report.samples.get("rto_s", []) if x > 0]
    if not (srtt and rto and 0 < p < 1):
        return {}
    link = dict(rate_bps=report.capacity_pps * 8.0 * report.path["packet_size_bytes"],
                packet_size_bytes=report.path["packet_size_bytes"],
                max_window=pipe_packets(report))
    rtt = statistics.median(srtt)
    out = {"mathis": evaluate("mathis", rtt_s=rtt, p=p, packets_per_ack=1, **link),
           "pftk": evaluate("pftk", rtt_s=rtt, p=p, timeout_s=statistics.median(rto),
                            packets_per_ack=1, **link)}
    return {k: float(r.throughput_norm) for k, r in out.items()}
