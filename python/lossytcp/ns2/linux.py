"""ns-2 2.35's ``Agent/TCP/Linux``: Linux congestion-control modules run inside ns-2.

The agent (tcp/tcp-linux.cc, tcp/scoreboard1.cc and tcp/linux/, the "ns-linux" glue of
Wei and Cao, 2006) runs the modules of Linux 2.6.22.6 (``tcp/linux/src/tcp_westwood.c``
says so in its first line) behind ns-2's own loss recovery. What a script gets, read from
that source and checked on the Debian binary (``tests/reference/make_westwood.py`` keeps the
evidence):

* ``$tcp select_ca westwood`` installs the module and sets the agent's tick to one jiffy,
  ``tcpTick_ = 1/HZ = 1 ms`` (``install_congestion_control``); ``tcp_time_stamp`` is
  ``trunc(now x 1000)``. The module reads ``srtt`` = ns-2's own ``t_srtt_`` in those ticks
  (``rtt_update()``, one timed segment per window without the timestamp option).
* Loss detection is the agent's scoreboard, fed by **SACK blocks only**: without a SACK
  sink (``Agent/TCPSink``) a duplicate ACK marks nothing lost, so the agent never fast
  retransmits and every loss ends in a timeout (``tcp-linux.cc recv()`` calls
  ``UpdateScoreBoard()`` only with SACK blocks or a non-empty scoreboard, and
  ``tcp_fastretrans_alert()`` acts only on ``FLAG_DATA_LOST``). With ``Agent/TCPSink/Sack1``
  a segment is marked lost FACK-style when it lies at least 4 below the highest SACKed
  segment (``lost_seq_threshold = fack_ - (3 + 1)``): the fourth duplicate ACK after a
  single loss, where Linux's ``tcp_time_to_recover()`` (``fackets_out > reordering``) acts on
  the third.
* Entering recovery: ``ssthresh = ops->ssthresh()`` (Westwood+: ``tcp_reno_ssthresh``, half
  the window), ``cwnd = ops->min_cwnd()`` (Westwood+: BWE x RTT_min), and a rate-halving
  budget ``next_pkts_in_flight_`` from the old window down to that cwnd (Linux 2.6.22's
  ``tcp_cwnd_down()`` floor ``min_cwnd``). Retransmissions come from the scoreboard, sent
  while the packets in flight (``snd_nxt - snd_una - lost - sacked``) are below the window.
  Recovery ends when ``recover_`` (the highest segment sent at its start) is acknowledged:
  ``cwnd = ssthresh`` if cwnd was below it (moderated to in flight + 3), ssthresh stays.
  The agent never raises ``CA_EVENT_COMPLETE_CWR``, so Westwood+'s ``cwnd = ssthresh = BWE x
  RTT_min`` at the end of recovery never happens in ns-2.
* A timeout: ``ssthresh = ops->ssthresh()`` (half), ``CA_EVENT_LOSS`` (Linux 2.6.22's
  Westwood+ acts on ``CA_EVENT_FRTO`` only, so nothing), ``cwnd = 1``, every outstanding
  segment marked lost and retransmitted from the scoreboard.
* Growth: the module's ``cong_avoid`` (Westwood+: ``tcp_reno_cong_avoid``) with ns-2's
  ``sysctl_tcp_abc = 1`` (ns-linux-param.c): slow start +1 per ACK that acknowledges a full
  segment, congestion avoidance +1 per window of acknowledged bytes; only while the window
  is full (``in_flight >= cwnd``), never in recovery. Windows are whole segments.
* Counters: ``nrexmit_`` counts timeouts, ``ncwndcuts_`` timeouts and entries into recovery
  (so fast retransmits = ``ncwndcuts_ - nrexmit_``, as for the other agents), ``ack_`` is
  ``highest_ack_``; deliveries are counted at the sink (``bytes_``), as
  :func:`lossytcp.ns2.parse_result` does.

:func:`build_linux_script` writes the script through :func:`lossytcp.ns2.build_script` (the
same link, queue, channel models, seeds and result line as every other cross-check) and
swaps in the Linux agent; :func:`simulate_linux`, :func:`run_linux_seeds` run it;
:func:`linux_link_trace` returns ns-2's send trace and the fate of every transmission, and
:func:`compare_linux_send_traces` replays those fates in the engine (``trace:`` channel) and
finds the first send where the two senders differ.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from ..sim import build_scenario
from .run import (
    Ns2Report,
    Ns2Summary,
    fates_channel,
    first_divergence,
    parse_link_fates,
    parse_send_trace,
    run_script,
)
from .script import Ns2Script, Ns2Unsupported, build_script

__all__ = [
    "LINUX_CC", "LINUX_JIFFY_S", "build_linux_script", "compare_linux_send_traces",
    "linux_link_trace", "run_linux_seeds", "simulate_linux",
]

#: Congestion-control modules compiled into ns-2 2.35's Linux agent (tcp/linux/src/, plus
#: the built-in "reno"), Linux 2.6.22.6.
LINUX_CC = ("reno", "bic", "compound", "cubic", "highspeed", "htcp", "hybla", "illinois",
            "lp", "scalable", "vegas", "veno", "westwood", "yeah")

#: One jiffy of the glue (ns-linux-util.h: JIFFY_RATIO 1000): the agent's tick once a
#: module is selected.
LINUX_JIFFY_S = 0.001

#: simulate() knobs of ns-2's other agents that the Linux agent has no counterpart for.
_NOT_LINUX = ("limited_transmit", "delay_growth", "partial_window_deflation",
              "recovery_exit_growth", "timer_every_partial_ack", "tick_phase", "granularity_s",
              "rtt_sampling", "profile", "vegas_alpha", "vegas_beta", "vegas_gamma", "lp_alpha",
              "lp_beta", "westwood_tau_s")

#: The agent's settings, written out so that a changed ns-default.tcl cannot change the
#: scenario silently. ns-default.tcl's Linux defaults: rtxcur_init_ 3, maxrto_ 120, minrto_
#: 0.2 (the scenario's values replace these three), ts_resetRTO_ true, delay_growth_ false,
#: next_pkts_in_flight_ 0; the agent ignores numdupacks_ (the scoreboard's threshold is 3)
#: and singledup_ (its recv() replaces TcpAgent's).
_LINUX_SETTINGS: dict[str, Any] = {
    "tcpTick_": LINUX_JIFFY_S, "ts_resetRTO_": "true", "delay_growth_": "false",
    "next_pkts_in_flight_": 0,
}


def linux_agent(cc: str, tcp: dict[str, Any], agent_settings: dict[str, Any] | None = None,
                ) -> tuple[str, str, dict[str, Any], list[str]]:
    """:func:`lossytcp.ns2.script.tcp_agent` for ``Agent/TCP/Linux`` with module ``cc`` and a
    SACK receiver, in a network script: the settings :func:`build_linux_script` writes, the
    module selected after them (``@select_ca``).

    The engine config's timer tick, profile and ns-2-agent knobs have no counterpart in this
    agent (its tick is one jiffy, its recovery its own): they apply to the engine only, as
    the note says. A duplicate-ACK threshold other than 3 is refused (scoreboard1.h)."""
    from .script import tcp_agent

    _check_cc(cc)
    if tcp["dupack_threshold"] != 3:
        raise Ns2Unsupported("dupack_threshold", tcp["dupack_threshold"],
                             "Agent/TCP/Linux's scoreboard marks losses with a fixed "
                             "threshold of 3 (scoreboard1.h)")
    _, receiver, sets, _ = tcp_agent("sack", {**tcp, "granularity_s": LINUX_JIFFY_S,
                                              "profile": "ns2"},
                                     {**_LINUX_SETTINGS, **(agent_settings or {})})
    sets["@select_ca"] = cc
    note = (f"Agent/TCP/Linux ({cc}) keeps its own 1 ms tick and recovery: the engine's "
            "profile, timer granularity and ns-2-agent knobs apply to the engine only")
    return "Agent/TCP/Linux", receiver, sets, [note]


def _check_cc(cc: str) -> None:
    if cc not in LINUX_CC:
        raise ParameterError("cc", cc, f"one of ns-2 2.35's Linux modules: {', '.join(LINUX_CC)}")


def build_linux_script(cc: str = "westwood", *, sack: bool = True,
                       trace_file: str | None = None, drop_counts: list[int] | None = None,
                       agent_settings: dict[str, Any] | None = None,
                       **kwargs: Any) -> Ns2Script:
    """The ns-2 script running ``Agent/TCP/Linux`` with module ``cc`` on the path of
    :func:`lossytcp.simulate`'s arguments (``rate_bps``, ``rtt_s``, ``packet_size_bytes``,
    ``window``, ``queue_packets``, ``channel``, ``ack_channel``, ``duration_s``, ``seed``,
    ``initial_window``, ``min_rto_s``, ``max_rto_s``, ``initial_rto_s``, ``delayed_ack``,
    ``ack_size_bytes``).

    ``sack``: the receiver is ``Agent/TCPSink/Sack1`` (the agent's loss recovery needs its
    blocks) or, if False, ``Agent/TCPSink`` (the agent then recovers by timeouts only).
    ``delayed_ack`` adds ``/DelAck`` with ``interval_ 0.1``. ``trace_file``, ``drop_counts``
    and ``agent_settings`` as for :func:`lossytcp.ns2.build_script`.

    Refused (:class:`~lossytcp.ns2.Ns2Unsupported`): the knobs of ns-2's other agents and of
    the engine's profiles (``_NOT_LINUX``), a duplicate-ACK threshold other than 3 (the
    scoreboard's is fixed), and what :func:`~lossytcp.ns2.build_script` refuses for every
    agent (a fixed RTO with backoff, no backoff with the estimator, a backoff cap other than
    64: the agent keeps TcpAgent's ``rtt_timeout()`` and ``rtt_backoff()``).
    """
    _check_cc(cc)
    if not isinstance(sack, bool):
        raise ParameterError("sack", sack, "must be True or False")
    for k in _NOT_LINUX:
        if kwargs.get(k) is not None:
            raise Ns2Unsupported(k, kwargs[k], "ns-2's Agent/TCP/Linux has no such setting "
                                 "(its tick is one 1 ms jiffy, its recovery its own)")
    if kwargs.get("dupack_threshold", 3) != 3:
        raise Ns2Unsupported("dupack_threshold", kwargs["dupack_threshold"],
                             "Agent/TCP/Linux's scoreboard marks losses with a fixed "
                             "threshold of 3 (scoreboard1.h)")
    # build_script validates the scenario and writes the path, the channels and the result
    # line; its per-agent settings are overridden here. Its engine variant only picks the
    # sink class: sack -> Agent/TCPSink/Sack1, newreno -> Agent/TCPSink.
    base = "sack" if sack else "newreno"
    settings = {**_LINUX_SETTINGS, **(agent_settings or {})}
    sc = build_script(base, trace_file=trace_file, drop_counts=drop_counts,
                      agent_settings=settings, profile="ns2", granularity_s=LINUX_JIFFY_S,
                      **kwargs)
    sender = "Agent/TCP/Sack1" if sack else "Agent/TCP/Newreno"
    text, n = re.subn(rf"^set tcp \[new {re.escape(sender)}\]$", "set tcp [new Agent/TCP/Linux]",
                      sc.text, flags=re.M)
    # select_ca after every `$tcp set`: it sets tcpTick_ to one jiffy itself, and a module
    # must be installed before the run-start reset (load_to_linux_once) for its state to be
    # initialised on the first ACK.
    last_set = max((m.end() for m in re.finditer(r"^\$tcp set .*$", text, flags=re.M)),
                   default=-1)
    if n != 1 or last_set < 0:
        raise RuntimeError("lossytcp.ns2.build_script's text changed: the Linux agent could "
                           "not be put in place of its sender")
    text = text[:last_set] + f"\n$tcp select_ca {cc}" + text[last_set:]
    text = _queue_limits(text, kwargs)
    if "\n$sink set interval_ " in text:
        # ns-2 2.35's DelAck sinks acknowledge segment 0 at once (SYN_immediate_ack_, added
        # 2010 for the SYN); the engine has no handshake and delays that ACK like any other.
        text = re.sub(r"^(\$sink set interval_ .*)$", r"\1\n$sink set SYN_immediate_ack_ false",
                      text, count=1, flags=re.M)
    text = text.replace(f"# Generated by lossytcp.ns2 for ns-2 2.35: {base},",
                        f"# Generated by lossytcp.ns2.linux for ns-2 2.35: Agent/TCP/Linux "
                        f"{cc}, {'SACK' if sack else 'no SACK'},", 1)
    return replace(sc, text=text, variant=linux_name(cc, sack), notes=())


def _queue_limits(text: str, kwargs: dict[str, Any]) -> str:
    """Write each direction's ``queue-limit`` as the engine's waiting room + 1.

    The engine's ``queue_packets`` counts the packets waiting, the one in transmission
    excluded; ns-2's DropTail drops when ``length + 1 >= qlim_`` (queue/drop-tail.cc
    ``enque()``), so it keeps ``qlim_ - 1`` waiting. Set here whatever the generic writer put
    (idempotent), so that the congestion-only cross-check drops the same packets.
    """
    links = build_scenario("newreno", **{k: v for k, v in kwargs.items()
                                         if k not in ("seed",)}, seed=1)["links"]
    limits = []
    for lk in links:
        q = lk.get("queue")
        if q is not None and (q.get("kind") != "droptail" or q.get("bytes")):
            raise Ns2Unsupported("queue", q, "the Linux cross-check writes DropTail queues "
                                 "in packets only")
        limits.append((q or {}).get("packets", lk.get("queue_packets")))
    for (a, b), lim in zip((("n0", "n1"), ("n1", "n0")), limits, strict=True):
        text, n = re.subn(rf"^\$ns queue-limit \${a} \${b} \d+$",
                          f"$ns queue-limit ${a} ${b} {int(lim) + 1}", text, flags=re.M)
        if n != 1:
            raise RuntimeError("lossytcp.ns2.build_script's text changed: no queue-limit line")
    return text


def linux_name(cc: str, sack: bool) -> str:
    """The report's variant label, e.g. ``linux-westwood-sack``."""
    return f"linux-{cc}-{'sack' if sack else 'nosack'}"


def simulate_linux(cc: str = "westwood", *, sack: bool = True, ns: str | None = None,
                   keep_script: str | Path | None = None, **kwargs: Any) -> Ns2Report:
    """One ns-2 run of ``Agent/TCP/Linux`` (see :func:`build_linux_script`)."""
    return run_script(build_linux_script(cc, sack=sack, **kwargs), ns=ns,
                      keep_script=keep_script)[0]


def run_linux_seeds(seeds: int | Iterable[int] = 5, cc: str = "westwood", *, sack: bool = True,
                    ns: str | None = None, **kwargs: Any) -> Ns2Summary:
    """:func:`simulate_linux` for each seed, one process after the other."""
    if isinstance(seeds, int):
        if seeds < 1:
            raise ParameterError("seeds", seeds, "must be >= 1")
        seed_list: Sequence[int] = range(1, seeds + 1)
    else:
        seed_list = list(seeds)
    kwargs.pop("seed", None)
    return Ns2Summary(tuple(simulate_linux(cc, sack=sack, ns=ns, seed=s, **kwargs)
                            for s in seed_list))


def linux_link_trace(cc: str = "westwood", *, sack: bool = True, ns: str | None = None,
                     **kwargs: Any) -> tuple[Ns2Report, list[tuple[float, int, bool]], list[bool]]:
    """One run with the data link traced: the report, the sender's sends ``(time, segment,
    retransmission)`` and the channel's fate of every transmission in order (True: lost),
    ready for the engine's ``trace:`` channel."""
    with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
        tr = Path(wd) / "link.tr"
        rep, _ = run_script(build_linux_script(cc, sack=sack, trace_file=str(tr), **kwargs),
                            ns=ns, workdir=wd)
        text = tr.read_text()
    return rep, parse_send_trace(text), [lost for _, _, lost in parse_link_fates(text)]


def compare_linux_send_traces(variant: str = "westwood-plus", cc: str = "westwood", *,
                              sack: bool = True, context: int = 6,
                              engine: dict[str, Any] | None = None,
                              ns: str | None = None, **kwargs: Any) -> dict[str, Any]:
    """Where the engine's ``variant`` first sends something other than ns-2's Linux agent.

    ns-2 runs the scenario; the fate of each of its transmissions is replayed in the engine
    through a ``trace:`` channel (so both senders meet the same losses, transmission by
    transmission, as long as they send the same packets); ``engine`` holds extra keywords for
    the engine only (``profile``, ``min_rto_s``, ...). Returns the index of the first send
    that differs in segment, retransmission flag or time (beyond 1 us), None if none does,
    with ``context`` sends either side, the time of that send on each side, and the number of
    sends and of replayed losses.
    """
    from ..sim import simulate

    if variant == "westwood-plus":
        # The agent runs Linux 2.6.22, whose slow start (tcp_abc = 1) adds one segment per ACK;
        # current Linux, the engine's default, the segments each ACK delivers.
        engine = {"westwood_slow_start": "per_ack", **(engine or {})}
    _, ref, fates = linux_link_trace(cc, sack=sack, ns=ns, **kwargs)
    with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
        run = simulate(variant, trace_sends=True,
                       **{**kwargs, **(engine or {}), "channel": fates_channel(fates, Path(wd))})
    eng = [tuple(x) for x in run.send_trace]
    index = first_divergence(ref, eng)
    lo = 0 if index is None else max(0, index - context)
    hi = 0 if index is None else index + context
    at = None if index is None else (ref[index][0] if index < len(ref) else None,
                                     eng[index][0] if index < len(eng) else None)
    return {"index": index, "at_s": at, "ns2_sends": len(ref), "engine_sends": len(eng),
            "ns2": ref[lo:hi], "engine": eng[lo:hi], "from": lo,
            "replayed_losses": sum(fates),
            "losses_before": sum(fates[:index]) if index is not None else sum(fates)}
