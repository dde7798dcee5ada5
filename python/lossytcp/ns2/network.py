"""ns-2 2.35 scripts for the engine's network scenarios: nodes, directed links with DropTail
or RED queues and channels, static routing, several TCP flows, finite transfers on Poisson
arrivals, UDP constant-bit-rate and exponential on/off sources.

:func:`build_network_script` takes the engine's JSON scenario (the dict
``lossytcp._sim.run_json`` reads) and writes the Tcl; :func:`run_network` runs it and returns
per-flow, per-link and per-traffic-entry results under the engine's report names.

Mapping (each line checked on Debian's ``ns`` 2.35):

==========================  ===============================================================
engine                      ns-2
==========================  ===============================================================
node, link (directed)       ``$ns node``, ``$ns simplex-link`` (rate, delay, queue class)
routing                     ns-2's static routing (fewest hops). The engine breaks ties by
                            link index; ns-2 by its own route computation, so a scenario
                            whose routes have ties is refused, and a hand-listed path must
                            be the unique shortest one
DropTail ``packets`` P      ``queue-limit`` P + 1 (ns-2 counts the packet in transmission:
                            ``script.droptail_limit``)
DropTail ``bytes`` B        ``queue_in_bytes_ true``, ``mean_pktsize_ 1``, limit B + 1
RED                         ``Queue/RED`` with every parameter written out: ``limit_``,
                            ``bytes_``, ``queue_in_bytes_``, ``thresh_`` / ``maxthresh_``
                            (0: automatic), ``linterm_ = 1/max_p``, ``q_weight_`` (-1:
                            automatic), ``gentle_``, ``wait_``, ``mean_pktsize_``,
                            ``use_mark_p_``, ``targetdelay_``; ``setbit_``, ``adaptive_``,
                            ``cautious_`` off, ``drop_tail_`` on
channel                     the error models of :mod:`lossytcp.ns2._tcl` after the link
                            (``link-lossmodel``); a time-driven channel needs one packet size
                            on its link (its start-time offset is size/rate + delay)
flow (bulk / transfer)      the agents of ``script.tcp_agent``, FTP from ``start_s``; a
                            finite flow ``advanceby`` its packets, its completion time taken
                            by the agent's ``done`` callback
transfers                   ``max_concurrent`` slots per entry, each transfer a fresh
                            agent pair (the engine opens a new connection per transfer):
                            ``reset`` would not do, it keeps state of the last incarnation
                            (Sack1's scoreboard its cumulative ACK, ScoreBoardRQ's
                            ``sack_min``, so that SACK recovery finds no hole below it; any
                            agent an initial window cut to 1 by a lost first segment,
                            tcp.cc ``timeout()``). A slot's previous pair is detached (ns-2's
                            null agent takes its late packets, which the engine discards)
                            but kept (deleting it could free an agent a queued timer still
                            names). Then ``advanceby`` the transfer's packets; Poisson
                            arrivals and sizes drawn by Tcl's ``rand()``
cbr                         ``Agent/UDP`` + ``Application/Traffic/CBR`` (``random_``)
onoff                       ``Agent/UDP`` + ``Application/Traffic/Exponential``
                            (``burst_time_ = on_s``, ``idle_time_ = off_s``), its own RNG
UDP sink                    ``Agent/LossMonitor`` (received; sent = received + ``nlost_``,
                            losses after the last arrival unseen)
==========================  ===============================================================

Random streams: Tcl's ``rand()`` (channels, arrivals, sizes) seeded by ``ns2_seed(seed)``;
each on/off source its own ``RNG`` seeded from the seed and its index; ns-2's default RNG,
which RED's drop test and the native error models use, reseeded at time 0 from the seed
(after the agents' reset at the start of the run, so that each agent keeps ns-2's own RTT
tick phase), or with the RED queues' ``ns2_seed`` when they give one (the engine's RED then
draws the same; ns-2 has one default RNG, so RED queues giving different ones are refused).
The agents' tick phases (``boot_time_``) are successive draws of the default
RNG at that reset, so with several flows they differ from agent to agent, while the
engine's ``profile='ns2'`` gives every flow the first agent's phase: RTT samples may differ
by a tick (an effect in law only, see ``ns2/README.md`` rule 6).

Measured per monitored link: departures (``pdepartures_``), drops (``pdrops_``), early drops
(``QueueMonitor/ED``'s ``epdrops_`` through RED's ``early-drop-target``), forced = drops -
early, the time-average queue in packets (the monitor's integrator; packets waiting, the one
in transmission excluded, as the engine), RED's average sampled every ``red_sample_s``
(time-average, in packets of the mean size as the engine reports it), channel losses.
"""

from __future__ import annotations

import math
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from . import _tcl
from .script import (
    RESULT_TAG,
    Ns2Script,
    Ns2Unsupported,
    _channel_tcl,
    _num,
    agent_lines,
    droptail_limit,
    ns2_seed,
    tcp_agent,
    with_progress,
)

__all__ = ["Ns2NetReport", "Ns2NetScript", "build_network_script", "build_single_flow_script",
           "named_scenario", "parse_fates", "routes", "run_network"]

#: Engine variant names -> lossytcp.ns2.AGENTS keys.
VARIANT_KEYS = {"old_tahoe": "oldtahoe", "new_reno": "newreno"}
TIME_DRIVEN = ("burst", "two_state")
FLOW_TAG = "LOSSYTCP-FLOW"
LINK_TAG = "LOSSYTCP-LINK"
TRAFFIC_TAG = "LOSSYTCP-TRAFFIC"


@dataclass(frozen=True)
class Ns2NetScript:
    text: str
    seed: int
    duration_s: float
    monitored: tuple[int, ...]
    notes: tuple[str, ...] = ()
    #: Per flow: the bottleneck capacity of its forward path, data packets per second.
    capacity_pps: tuple[float, ...] = ()


@dataclass(frozen=True)
class Ns2NetReport:
    """One ns-2 run of a network scenario, with the engine's report names."""

    flows: list[dict[str, float]]
    links: dict[int, dict[str, float]]
    traffic: list[dict[str, Any]]
    duration_s: float
    wall_s: float = math.nan
    peak_rss_bytes: int = 0
    notes: tuple[str, ...] = field(default=())


# --- topology ---------------------------------------------------------------------------

def _endpoints(sc: dict[str, Any]) -> tuple[list[str], list[tuple[int, int]]]:
    """Node names and each link's (from, to), as the engine resolves them."""
    links = sc["links"]
    if not sc.get("nodes") and not any(lk.get("from") or lk.get("to") for lk in links):
        raise Ns2Unsupported("links", "without endpoints",
                             "the network writer needs each link's 'from' and 'to' nodes")
    names: list[str] = list(sc.get("nodes") or [])
    index = {n: i for i, n in enumerate(names)}
    ends = []
    for i, lk in enumerate(links):
        a, b = lk.get("from"), lk.get("to")
        if a is None or b is None:
            raise ParameterError(f"links[{i}]", lk, "needs 'from' and 'to'")
        for n in (a, b):
            if n not in index:
                index[n] = len(names)
                names.append(n)
        ends.append((index[a], index[b]))
    return names, ends


def routes(n_nodes: int, ends: list[tuple[int, int]], src: int, dst: int,
           ) -> tuple[list[int] | None, bool]:
    """The engine's route (fewest hops, lowest link index at each node; topology.rs) and
    whether it is the only shortest path."""
    inc: list[list[int]] = [[] for _ in range(n_nodes)]
    out: list[list[int]] = [[] for _ in range(n_nodes)]
    for lk, (a, b) in enumerate(ends):
        out[a].append(lk)
        inc[b].append(lk)
    inf = 1 << 60
    d = [inf] * n_nodes
    d[dst] = 0
    q = deque([dst])
    while q:
        n = q.popleft()
        for lk in inc[n]:
            m = ends[lk][0]
            if d[m] == inf:
                d[m] = d[n] + 1
                q.append(m)
    if d[src] == inf:
        return None, True
    path, unique, n = [], True, src
    while n != dst:
        nxt = [lk for lk in out[n] if d[ends[lk][1]] == d[n] - 1]
        unique &= len(nxt) == 1
        path.append(nxt[0])
        n = ends[nxt[0]][1]
    return path, unique


def _resolve(sc: dict[str, Any], names: list[str], ends: list[tuple[int, int]],
             entry: dict[str, Any], name: str, tcp: bool) -> tuple[int, int]:
    """(source node, destination node) of a flow or traffic entry, checked to be routed by
    ns-2 over the same links as by the engine."""
    index = {n: i for i, n in enumerate(names)}
    fwd, rev = entry.get("forward") or [], entry.get("reverse") or []
    if entry.get("src") is not None:
        s, t = index[entry["src"]], index[entry["dst"]]
    else:
        s, t = ends[fwd[0]][0], ends[fwd[-1]][1]
    for (a, b, given, what) in ((s, t, fwd, "forward"), (t, s, rev, "reverse")):
        if what == "reverse" and not tcp:
            continue
        path, unique = routes(len(names), ends, a, b)
        if path is None:
            raise ParameterError(name, entry, f"no {what} route")
        if not unique:
            raise Ns2Unsupported(f"{name}.{what}", path, "another path is as short: ns-2's "
                                 "static routing may take it (the engine takes the lowest "
                                 "link index); make the route unique")
        if given and list(given) != path:
            raise Ns2Unsupported(f"{name}.{what}", given, f"ns-2 routes over the shortest "
                                 f"path {path}; a hand-listed other path has no equivalent")
    return s, t


# --- pieces of Tcl ----------------------------------------------------------------------

def _queue_tcl(i: int, lk: dict[str, Any], a: str, b: str, sizes: set[int]) -> tuple[str, str]:
    """(queue class, Tcl configuring the queue after the link exists); ``sizes``: the packet
    sizes crossing the link."""
    q = lk.get("queue")
    if q is None:
        limit = droptail_limit(lk["queue_packets"], f"links[{i}].queue_packets")
        return "DropTail", f"$ns queue-limit {a} {b} {limit}"
    if q["kind"] == "droptail":
        packets, nbytes = q.get("packets"), q.get("bytes")
        if packets is not None and nbytes is not None:
            # Both limits: ns-2 has one. The packet limit never binds when that many of the
            # smallest packets would already exceed the byte limit: then bytes alone.
            if sizes and packets * min(sizes) > nbytes:
                packets = None
            else:
                raise Ns2Unsupported(f"links[{i}].queue", q, "ns-2's DropTail counts packets "
                                     "or bytes, not both (here either limit can bind: "
                                     f"{packets} packets of {min(sizes or {0})} bytes are "
                                     f"within {nbytes} bytes)")
        if packets is not None:
            return "DropTail", (f"$ns queue-limit {a} {b} "
                                f"{droptail_limit(packets, f'links[{i}].queue.packets')}")
        return "DropTail", (f"set q [[$ns link {a} {b}] queue]\n$q set queue_in_bytes_ true\n"
                            f"$q set mean_pktsize_ 1\n$ns queue-limit {a} {b} {int(nbytes) + 1}")
    if q["kind"] != "red":
        raise Ns2Unsupported(f"links[{i}].queue.kind", q["kind"], "no ns-2 equivalent here")
    r = {"packets": 50, "bytes": True, "queue_in_bytes": True, "min_th": None, "max_th": None,
         "max_p": 0.1, "w_q": None, "gentle": True, "wait": True,
         "mean_packet_size_bytes": 500, "use_mark_p": True, "target_delay_s": 0.005, **q}
    tf = {True: "true", False: "false"}
    sets = {
        "bytes_": tf[bool(r["bytes"])], "queue_in_bytes_": tf[bool(r["queue_in_bytes"])],
        "thresh_": _num(r["min_th"] or 0.0), "maxthresh_": _num(r["max_th"] or 0.0),
        "linterm_": _num(1.0 / r["max_p"]), "q_weight_": _num(r["w_q"] or -1.0),
        "gentle_": tf[bool(r["gentle"])], "wait_": tf[bool(r["wait"])],
        "mean_pktsize_": int(r["mean_packet_size_bytes"]),
        "use_mark_p_": tf[bool(r["use_mark_p"])], "targetdelay_": _num(r["target_delay_s"]),
        "setbit_": "false", "adaptive_": 0, "cautious_": 0, "drop_tail_": "true",
        "drop_front_": "false", "drop_rand_": "false", "ns1_compat_": "false",
    }
    body = "\n".join(f"$q set {k} {v}" for k, v in sets.items())
    return "RED", (f"set q [[$ns link {a} {b}] queue]\n{body}\n"
                   f"$ns queue-limit {a} {b} {int(r['packets'])}")


def _sizes_crossing(sc: dict[str, Any], paths: dict[str, list[tuple[list[int], list[int]]]],
                    ) -> list[set[int]]:
    """Packet sizes crossing each link (data and ACKs)."""
    sizes: list[set[int]] = [set() for _ in sc["links"]]
    for f, (fwd, rev) in zip(sc.get("flows") or [], paths["flows"], strict=True):
        for lk in fwd:
            sizes[lk].add(f["tcp"]["packet_size_bytes"])
        for lk in rev:
            sizes[lk].add(f["tcp"]["ack_size_bytes"])
    for t, (fwd, rev) in zip(sc.get("traffic", []), paths["traffic"], strict=True):
        size = t["tcp"]["packet_size_bytes"] if t["kind"] == "transfers" else t["packet_size_bytes"]
        for lk in fwd:
            sizes[lk].add(size)
        for lk in rev:
            sizes[lk].add(t["tcp"]["ack_size_bytes"])
    return sizes


def _size_tcl(size: dict[str, Any]) -> str:
    """Tcl expression of a transfer size in bytes (as the engine: round, at least 1)."""
    k = size["kind"]
    if k == "fixed":
        return str(int(size["bytes"]))
    if k == "exp":
        return f"max(1, round(-{_num(size['mean_bytes'])} * log(1.0 - rand())))"
    if k == "pareto":
        shape = size["shape"]
        scale = size["mean_bytes"] * (shape - 1.0) / shape
        return f"max(1, round({_num(scale)} / pow(1.0 - rand(), {_num(1.0 / shape)})))"
    raise Ns2Unsupported("size.kind", k, "unknown size distribution")


def _delack_lines(sink: str, sender: str, tcp: dict[str, Any]) -> list[str]:
    """A delayed-ACK sink's timer; for the Linux agent also segment 0's ACK delayed like any
    other (lossytcp.ns2.linux.build_linux_script: ns-2 2.35's DelAck sinks acknowledge it at
    once for the SYN, ``SYN_immediate_ack_``; the engine has no handshake)."""
    if not tcp["delayed_ack"]:
        return []
    out = [f"{sink} set interval_ {tcp.get('delack_interval_s', 0.1)}"]
    if sender == "Agent/TCP/Linux":
        out.append(f"{sink} set SYN_immediate_ack_ false")
    return out


# --- the writer -------------------------------------------------------------------------

def build_network_script(sc: dict[str, Any], *, monitor_links: list[int] | None = None,
                         red_sample_s: float | None = 0.001,
                         agent_settings: dict[str, Any] | None = None,
                         legacy_result: bool = False,
                         trace_file: str | None = None,
                         red_trace: tuple[int, str] | None = None,
                         trace_links: list[int] | None = None) -> Ns2NetScript:
    """The ns-2 script for an engine scenario (a dict as ``lossytcp._sim.run_json`` reads).

    ``monitor_links``: the links whose queues and RED averages are measured (default: all;
    a monitor costs ns-2 a little time per packet). ``red_sample_s``: the sampling period of
    RED's average (None: not sampled). ``agent_settings``: extra ``$tcp set`` lines for
    every TCP agent.
    ``legacy_result``: also print the single-flow result line of :mod:`lossytcp.ns2.script`
    for flow 0 (multi-hop :func:`lossytcp.ns2.build_script`). ``trace_file``: trace the
    first link of flow 0 (``trace-queue``), or the links ``trace_links`` (every packet:
    :func:`parse_fates` reads what the channel did to each). ``red_trace``: (link, file) to
    write that RED queue's ``ave_`` and ``curq_`` traces to (a line whenever either
    changes).
    """
    names, ends = _endpoints(sc)
    links = sc["links"]
    flows = sc.get("flows") or []
    traffic = sc.get("traffic") or []
    notes: list[str] = []
    endpoints: dict[str, list[tuple[int, int]]] = {"flows": [], "traffic": []}
    paths: dict[str, list[tuple[list[int], list[int]]]] = {"flows": [], "traffic": []}
    for i, f in enumerate(flows):
        s, t = _resolve(sc, names, ends, f, f"flows[{i}]", True)
        endpoints["flows"].append((s, t))
        paths["flows"].append((routes(len(names), ends, s, t)[0] or [],
                               routes(len(names), ends, t, s)[0] or []))
    for k, tr in enumerate(traffic):
        tcp_entry = tr["kind"] == "transfers"
        s, t = _resolve(sc, names, ends, tr, f"traffic[{k}]", tcp_entry)
        endpoints["traffic"].append((s, t))
        paths["traffic"].append((routes(len(names), ends, s, t)[0] or [],
                                 routes(len(names), ends, t, s)[0] or [] if tcp_entry else []))
    sizes = _sizes_crossing(sc, paths)
    monitored = tuple(range(len(links)) if monitor_links is None else monitor_links)
    seed = ns2_seed(sc["seed"])
    duration = float(sc["duration_s"])
    out: list[str] = [f"# Generated by lossytcp.ns2.network for ns-2 2.35, seed {sc['seed']}: "
                      f"{len(names)} nodes, {len(links)} links, {len(flows)} flows, "
                      f"{len(traffic)} traffic entries, {duration:g} s.",
                      _tcl.CHANNEL_CLASSES, "set ns [new Simulator]", f"expr {{srand({seed})}}",
                      "global defaultRNG", 'set rng_ch ""']
    for i in range(len(names)):
        out.append(f"set n({i}) [$ns node]")
    red_links: list[int] = []
    channel_links: list[int] = []
    for i, lk in enumerate(links):
        a, b = f"$n({ends[i][0]})", f"$n({ends[i][1]})"
        if lk.get("protect_retransmissions"):
            raise Ns2Unsupported(f"links[{i}].protect_retransmissions", True,
                                 "an ns-2 error model cannot tell retransmissions from new data")
        delay = lk["delay"]
        if delay["kind"] != "fixed":
            raise Ns2Unsupported(f"links[{i}].delay", delay["kind"], "the network writer "
                                 "takes fixed delays (semi-Markov: lossytcp.ns2.build_script)")
        qclass, qtcl = _queue_tcl(i, lk, a, b, sizes[i])
        out.append(f"$ns simplex-link {a} {b} {_num(lk['rate_bps'])} {_num(delay['delay_s'])} "
                   f"{qclass}")
        out.append(qtcl)
        if qclass == "RED":
            red_links.append(i)
        ch = lk.get("channel") or {"kind": "none"}
        if ch["kind"] == "none" and not legacy_result:
            continue
        if ch["kind"] in ("drops", "flow_drops"):
            raise Ns2Unsupported(f"links[{i}].channel", ch["kind"], "drop lists by segment "
                                 "number are cross-checked on one flow (lossytcp.ns2.run_drops)")
        time_driven = ch["kind"] in TIME_DRIVEN or (
            ch["kind"] == "gilbert_elliott"
            and (ch["advance"] == "slot" or ch.get("idle_reset_s")))
        if time_driven and len(sizes[i]) > 1:
            raise Ns2Unsupported(f"links[{i}].channel", ch["kind"], "a time-driven channel on "
                                 f"a link carrying packets of {sorted(sizes[i])} bytes: ns-2's "
                                 "model sees each packet size/rate + delay after it started")
        size = max(sizes[i]) if sizes[i] else 1000
        slot_bytes = lk.get("slot_bytes") or size
        slot_s = slot_bytes * 8.0 / lk["rate_bps"]
        offset = size * 8.0 / lk["rate_bps"] + delay["delay_s"]
        tcl, _ = _channel_tcl(ch, f"em({i})", "$rng_ch", offset, slot_s, f"links[{i}].channel",
                              None)
        out.append(tcl.replace("${em(" + str(i) + ")}", f"$em({i})"))
        out.append(f"$ns link-lossmodel $em({i}) {a} {b}")
        out.append(f"set chmon({i}) [lossytcp_count $em({i}) {b}]")
        channel_links.append(i)
    # Queue monitors.
    for i in monitored:
        a, b = f"$n({ends[i][0]})", f"$n({ends[i][1]})"
        out.append(f"set qm({i}) [new QueueMonitor/ED]\n"
                   f"[$ns link {a} {b}] attach-monitors [new SnoopQueue/In] "
                   f"[new SnoopQueue/Out] [new SnoopQueue/Drop] $qm({i})\n"
                   f"set qint({i}) [new Integrator]\n$qm({i}) set-pkts-integrator $qint({i})")
        if i in red_links:
            out.append(f"set ed [new SnoopQueue/EDrop]\n$ed set-monitor $qm({i})\n"
                       f"$ed target [$ns set nullAgent_]\n"
                       f"[[$ns link {a} {b}] queue] early-drop-target $ed\n"
                       f"set redq({i}) [[$ns link {a} {b}] queue]\nset redsum({i}) 0.0")
    if red_trace is not None:
        i, path = red_trace
        if i not in red_links:
            raise ParameterError("red_trace", red_trace, "names a link without a RED queue")
        out.append(f"set rtf [open {{{path}}} w]\n"
                   f"set rq [[$ns link $n({ends[i][0]}) $n({ends[i][1]})] queue]\n"
                   f"$rq trace ave_\n$rq trace curq_\n$rq attach $rtf")
    if trace_file and (flows or trace_links):
        traced = [paths["flows"][0][0][0]] if trace_links is None else list(trace_links)
        out.append(f"set tf [open {{{trace_file}}} w]")
        out.extend(f"$ns trace-queue $n({ends[i][0]}) $n({ends[i][1]}) $tf" for i in traced)
    # Flows.
    for i, f in enumerate(flows):
        variant = VARIANT_KEYS.get(f["variant"], f["variant"])
        tcp = f["tcp"]
        sender, receiver, sets, agent_notes = tcp_agent(variant, tcp, agent_settings,
                                                        f"flows[{i}].variant")
        notes.extend(n for n in agent_notes if n not in notes)
        s, t = endpoints["flows"][i]
        out.append(f"set tcp({i}) [new {sender}]")
        out.extend(agent_lines(f"$tcp({i})", sets))
        out.append(f"set sink({i}) [new {receiver}]\n$sink({i}) set packetSize_ "
                   f"{tcp['ack_size_bytes']}")
        out.extend(_delack_lines(f"$sink({i})", sender, tcp))
        out.append(f"$ns attach-agent $n({s}) $tcp({i})\n$ns attach-agent $n({t}) $sink({i})\n"
                   f"$ns connect $tcp({i}) $sink({i})\nset done({i}) -1")
        start = _num(f.get("start_s", 0.0))
        if f["app"]["kind"] == "bulk":
            out.append(f"set ftp({i}) [new Application/FTP]\n$ftp({i}) attach-agent $tcp({i})\n"
                       f"$ns at {start} \"$ftp({i}) start\"")
        else:
            n = math.ceil(f["app"]["bytes"] / tcp["packet_size_bytes"])
            out.append(f"$tcp({i}) proc done {{}} {{ global ns done; set done({i}) "
                       f"[expr {{[$ns now] - {start}}}] }}\n"
                       f"$ns at {start} \"$tcp({i}) advanceby {max(1, n)}\"")
    # Traffic.
    for k, tr in enumerate(traffic):
        s, t = endpoints["traffic"][k]
        start, stop = _num(tr.get("start_s", 0.0)), tr.get("stop_s")
        if tr["kind"] in ("cbr", "onoff"):
            size = tr["packet_size_bytes"]
            out.append(f"set udp({k}) [new Agent/UDP]\n$udp({k}) set packetSize_ {size}\n"
                       f"set lm({k}) [new Agent/LossMonitor]\n"
                       f"$ns attach-agent $n({s}) $udp({k})\n$ns attach-agent $n({t}) $lm({k})\n"
                       f"$ns connect $udp({k}) $lm({k})")
            if tr["kind"] == "cbr":
                out.append(f"set app({k}) [new Application/Traffic/CBR]\n"
                           f"$app({k}) set random_ {1 if tr.get('random') else 0}")
            else:
                out.append(f"set app({k}) [new Application/Traffic/Exponential]\n"
                           f"$app({k}) set burst_time_ {_num(tr['on_s'])}\n"
                           f"$app({k}) set idle_time_ {_num(tr['off_s'])}\n"
                           f"set apprng({k}) [new RNG]\n"
                           f"$apprng({k}) seed {ns2_seed(sc['seed'] * 1009 + k + 1)}\n"
                           f"$app({k}) use-rng $apprng({k})")
            out.append(f"$app({k}) set packetSize_ {size}\n"
                       f"$app({k}) set rate_ {_num(tr['rate_bps'])}\n"
                       f"$app({k}) attach-agent $udp({k})\n$ns at {start} \"$app({k}) start\"")
            if stop is not None:
                out.append(f"$ns at {_num(stop)} \"$app({k}) stop\"")
            continue
        # Finite transfers: ``max_concurrent`` slots, each a fresh agent pair per transfer
        # (``lt_pair``; see the module docstring).
        variant = VARIANT_KEYS.get(tr["variant"], tr["variant"])
        tcp = tr["tcp"]
        sender, receiver, sets, agent_notes = tcp_agent(variant, tcp, agent_settings,
                                                        f"traffic[{k}].variant")
        notes.extend(n for n in agent_notes if n not in notes)
        m = int(tr["max_concurrent"])
        out.append(f"set tfree({k}) {{}}\nset tstats({k}) {{0 0 0 0 0 0 0 0}}\n"
                   f"set ttimes({k}) {{}}")
        out.append(f"proc lt_pair_{k} {{j}} {{\n"
                   f"    global ns n tagent tsink\n"
                   f"    set a [new {sender}]\n" +
                   "".join(f"    {ln}\n" for ln in agent_lines("$a", sets)) +
                   f"    set r [new {receiver}]\n    $r set packetSize_ {tcp['ack_size_bytes']}\n" +
                   "".join(f"    {ln}\n" for ln in _delack_lines("$r", sender, tcp)) +
                   f"    $ns attach-agent $n({s}) $a\n    $ns attach-agent $n({t}) $r\n"
                   f"    $ns connect $a $r\n"
                   f"    set tagent({k},$j) $a\n    set tsink({k},$j) $r\n"
                   f"    $a proc done {{}} \"lt_done {k} $j\"\n}}\n"
                   f"proc lt_retire_{k} {{j}} {{\n"
                   f"    global ns n tagent tsink\n"
                   f"    $ns detach-agent $n({s}) $tagent({k},$j)\n"
                   f"    $ns detach-agent $n({t}) $tsink({k},$j)\n}}\n"
                   f"for {{set j 0}} {{$j < {m}}} {{incr j}} {{ lt_pair_{k} $j; "
                   f"lappend tfree({k}) $j }}")
        rate = float(tr["arrival_rate_per_s"])
        mx = tr.get("max_transfers")
        out.append(
            f"set tcfg({k}) [list {_num(1.0 / rate)} {tcp['packet_size_bytes']} "
            f"{-1 if mx is None else int(mx)} {_num(stop) if stop is not None else -1}]\n"
            f"proc lt_size_{k} {{}} {{ return [expr {{{_size_tcl(tr['size'])}}}] }}\n"
            f"$ns at [expr {{{start} - {_num(1.0 / rate)} * log(1.0 - rand())}}] "
            f"\"lt_arrival {k}\"")
    # Procedures, sampling, the end.
    out.append(r"""
# Transfers: tstats = {arrived started completed refused bytes_delivered sent retx timeouts}
proc lt_stat {k i d} {
    global tstats
    lset tstats($k) $i [expr {[lindex $tstats($k) $i] + $d}]
}
proc lt_arrival {k} {
    global ns tfree tagent tsink tcfg tt0 tbytes tused
    lassign $tcfg($k) gap size maxn stop
    lt_stat $k 0 1
    set arrived [lindex $::tstats($k) 0]
    if {$maxn < 0 || $arrived < $maxn} {
        set next [expr {[$ns now] - $gap * log(1.0 - rand())}]
        if {$stop < 0 || $next <= $stop} { $ns at $next "lt_arrival $k" }
    }
    if {[llength $tfree($k)] == 0} { lt_stat $k 3 1; return }
    set j [lindex $tfree($k) end]
    set tfree($k) [lrange $tfree($k) 0 end-1]
    set bytes [lt_size_$k]
    set tbytes($k,$j) $bytes
    set tt0($k,$j) [$ns now]
    if {[info exists tused($k,$j)]} {
        lt_retire_$k $j
        lt_pair_$k $j
    }
    set tused($k,$j) 1
    $tagent($k,$j) reset
    $tsink($k,$j) reset
    lt_stat $k 1 1
    $tagent($k,$j) advanceby [expr {($bytes + $size - 1) / $size}]
}
proc lt_done {k j} {
    global ns tfree tagent tt0 tbytes ttimes
    lappend ttimes($k) [expr {[$ns now] - $tt0($k,$j)}]
    lt_stat $k 2 1
    lt_stat $k 4 $tbytes($k,$j)
    set a $tagent($k,$j)
    lt_stat $k 5 [$a set ndatapack_]
    lt_stat $k 6 [$a set nrexmitpack_]
    lt_stat $k 7 [$a set nrexmit_]
    lappend tfree($k) $j
}
""")
    if red_sample_s is not None and any(i in red_links for i in monitored):
        reds = " ".join(str(i) for i in monitored if i in red_links)
        out.append(f"""proc red_sample {{}} {{
    global ns redq redsum
    foreach i {{{reds}}} {{ set redsum($i) [expr {{$redsum($i) + [$redq($i) set ave_]}}] }}
    $ns at [expr {{[$ns now] + {_num(red_sample_s)}}}] red_sample
}}
$ns at 0.0 red_sample""")
    out.append(f"$ns at 0.0 \"$defaultRNG seed {_default_rng_seed(links, red_links, seed)}\"")
    fin = ["proc finish {} {", "    global ns tcp sink done qm qint redq redsum chmon lm tstats "
           "ttimes tf tagent"]
    fin.append("    set now [$ns now]")
    for i in range(len(flows)):
        fin.append(f'    puts "{FLOW_TAG} {i} ndatapack [$tcp({i}) set ndatapack_] '
                   f'nrexmitpack [$tcp({i}) set nrexmitpack_] nrexmit [$tcp({i}) set nrexmit_] '
                   f'ncwndcuts [$tcp({i}) set ncwndcuts_] ack [$tcp({i}) set ack_] '
                   f'sink_bytes [$sink({i}) set bytes_] done $done({i})"')
    for i in monitored:
        mean_pkt = 1.0
        q = links[i].get("queue") or {}
        if i in red_links and q.get("queue_in_bytes", True):
            mean_pkt = float(q.get("mean_packet_size_bytes", 500))
        red = ""
        if i in red_links and red_sample_s is not None:
            red = (f" redavg [expr {{$redsum({i}) * {_num(red_sample_s)} / $now / "
                   f"{_num(mean_pkt)}}}]")
        ch = (f" chlost [[lindex $chmon({i}) 1] set pdrops_]"
              if i in channel_links else "")
        fin.append(f"    $qint({i}) newpoint $now [$qm({i}) set pkts_]")
        fin.append(f'    puts "{LINK_TAG} {i} departures [$qm({i}) set pdepartures_] '
                   f'bdepartures [$qm({i}) set bdepartures_] drops [$qm({i}) set pdrops_] '
                   f'edrops [$qm({i}) set epdrops_] qavg [expr {{[$qint({i}) set sum_] / $now}}]'
                   f'{red}{ch}"')
    for k, tr in enumerate(traffic):
        if tr["kind"] == "transfers":
            fin.append(f'    puts "{TRAFFIC_TAG} {k} stats {{$tstats({k})}} '
                       f'times {{$ttimes({k})}}"')
        else:
            fin.append(f'    puts "{TRAFFIC_TAG} {k} received [$lm({k}) set npkts_] '
                       f'rbytes [$lm({k}) set bytes_] lost [$lm({k}) set nlost_]"')
    if legacy_result and flows:
        fwd, rev = paths["flows"][0]
        lost = " + ".join(f"[[lindex $chmon({i}) 1] set pdrops_]" for i in fwd
                          if i in channel_links) or "0"
        ack_lost = " + ".join(f"[[lindex $chmon({i}) 1] set pdrops_]" for i in rev
                              if i in channel_links) or "0"
        qdrops = " + ".join(f"[$qm({i}) set pdrops_]" for i in fwd) or "0"
        last = fwd[-1]
        passed = (f"[[lindex $chmon({last}) 0] set parrivals_]" if last in channel_links
                  else f"[$qm({last}) set pdepartures_]")
        fin.append(
            f'    puts "{RESULT_TAG} ndatapack [$tcp(0) set ndatapack_] nrexmitpack '
            f'[$tcp(0) set nrexmitpack_] nrexmit [$tcp(0) set nrexmit_] ncwndcuts '
            f'[$tcp(0) set ncwndcuts_] ack [$tcp(0) set ack_] maxseq [$tcp(0) set maxseq_] '
            f'cwnd [$tcp(0) set cwnd_] ssthresh [$tcp(0) set ssthresh_] srtt [$tcp(0) set srtt_] '
            f'rttvar [$tcp(0) set rttvar_] backoff [$tcp(0) set backoff_] '
            f'tick [$tcp(0) set tcpTick_] nackpack [$tcp(0) set nackpack_] '
            f'sink_bytes [$sink(0) set bytes_] passed {passed} lost [expr {{{lost}}}] '
            f'ack_lost [expr {{{ack_lost}}}] qdrops [expr {{{qdrops}}}] '
            f'departures [$qm({fwd[0]}) set pdepartures_]"')
    fin.append('    global rtf')
    fin.append('    foreach ch {tf rtf} { if {[info exists $ch]} { flush [set $ch]; '
               'close [set $ch] } }')
    fin.append("    $ns halt")
    fin.append("}")
    out.append("\n".join(fin))
    out.append(f"$ns at {_num(duration)} \"finish\"\n$ns run\n")
    return Ns2NetScript(text="\n".join(out) + "\n", seed=sc["seed"], duration_s=duration,
                        monitored=monitored, notes=tuple(notes),
                        capacity_pps=tuple(
                            min(links[lk]["rate_bps"] for lk in fwd)
                            / (8.0 * f["tcp"]["packet_size_bytes"])
                            for f, (fwd, _) in zip(flows, paths["flows"], strict=True)))


def build_single_flow_script(sc: dict[str, Any], variant: str, *,
                             agent_settings: dict[str, Any] | None = None,
                             trace_file: str | None = None,
                             drop_counts: list[int] | None = None) -> Ns2Script:
    """A multi-hop :func:`lossytcp.simulate` scenario (``hops=[...]``) as a chain of nodes,
    with the single-flow result line of :mod:`lossytcp.ns2.script` (so that
    :func:`lossytcp.ns2.run_script` reads it)."""
    if drop_counts is not None or any(lk["channel"]["kind"] == "drops" for lk in sc["links"]):
        raise Ns2Unsupported("channel", "drops", "drop lists are cross-checked on a single hop")
    flow = sc["flows"][0]
    if flow["app"]["kind"] != "bulk":
        raise Ns2Unsupported("transfer_bytes", flow["app"].get("bytes"),
                             "only a bulk (FTP) sender is cross-checked")
    fwd, rev = flow["forward"], flow["reverse"]
    n = len(fwd)
    if len(rev) != n:
        raise Ns2Unsupported("hops", len(fwd), "the ACK path must cross as many hops")
    sc = {**sc, "nodes": [f"h{i}" for i in range(n + 1)], "links": [dict(lk) for lk in sc["links"]]}
    for j, lk in enumerate(fwd):
        sc["links"][lk].update({"from": f"h{j}", "to": f"h{j + 1}"})
    for j, lk in enumerate(rev):
        sc["links"][lk].update({"from": f"h{n - j}", "to": f"h{n - j - 1}"})
    net = build_network_script(sc, agent_settings=agent_settings, legacy_result=True,
                               trace_file=trace_file)
    size = flow["tcp"]["packet_size_bytes"]
    rate = min(sc["links"][lk]["rate_bps"] for lk in fwd)
    kinds = [sc["links"][lk]["channel"]["kind"] for lk in fwd]
    kind = next((k for k in kinds if k != "none"), "none")
    return Ns2Script(text=net.text, variant=variant, seed=sc["seed"],
                     duration_s=net.duration_s, packet_size_bytes=size,
                     capacity_pps=rate / (8.0 * size), channel_kind=kind, notes=net.notes)


# --- running and reading ------------------------------------------------------------------

def _fields(line: str) -> dict[str, str]:
    """key value pairs of a result line; braces group a Tcl list."""
    tok: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in line:
        if ch == "{":
            depth += 1
            if depth == 1:
                continue
        elif ch == "}":
            depth -= 1
            if depth == 0:
                tok.append("".join(buf))
                buf = []
                continue
        if ch == " " and depth == 0:
            if buf:
                tok.append("".join(buf))
                buf = []
            continue
        buf.append(ch)
    if buf:
        tok.append("".join(buf))
    return dict(zip(tok[::2], tok[1::2], strict=True))


def _summary(times: list[float]) -> dict[str, float] | None:
    """The engine's completion-time summary (nearest-rank percentiles), exact."""
    if not times:
        return None
    xs = sorted(times)
    n = len(xs)

    def q(p: float) -> float:
        return xs[min(n, max(1, math.ceil(p * n))) - 1]

    return {"count": n, "mean": sum(xs) / n, "p50": q(0.5), "p90": q(0.9), "p99": q(0.99),
            "min": xs[0], "max": xs[-1]}


def parse_network(stdout: str, sc: dict[str, Any], script: Ns2NetScript) -> Ns2NetReport:
    """Results of a network script under the engine's report names."""
    flows: list[dict[str, float]] = [{} for _ in sc.get("flows") or []]
    links: dict[int, dict[str, float]] = {}
    traffic: list[dict[str, Any]] = [{} for _ in sc.get("traffic") or []]
    seen = False
    for ln in stdout.splitlines():
        parts = ln.split(" ", 2)
        if len(parts) < 3 or parts[0] not in (FLOW_TAG, LINK_TAG, TRAFFIC_TAG):
            continue
        seen = True
        tag, idx, rest = parts[0], int(parts[1]), _fields(parts[2])
        if tag == FLOW_TAG:
            f = sc["flows"][idx]
            size = f["tcp"]["packet_size_bytes"]
            raw = {k: float(v) for k, v in rest.items()}
            done = raw["done"]
            start = f.get("start_s", 0.0)
            elapsed = done if done >= 0 else script.duration_s - start
            delivered = int(raw["sink_bytes"]) // size
            flows[idx] = {
                "capacity_pps": script.capacity_pps[idx] if script.capacity_pps else math.nan,
                "packets_sent": raw["ndatapack"], "retransmissions": raw["nrexmitpack"],
                "timeouts": raw["nrexmit"], "fast_retransmits": raw["ncwndcuts"] - raw["nrexmit"],
                "packets_delivered": delivered, "elapsed_s": elapsed,
                "completion_time_s": done if done >= 0 else None,
                "goodput_pps": delivered / elapsed if elapsed > 0 else 0.0,
            }
        elif tag == LINK_TAG:
            raw = {k: float(v) for k, v in rest.items()}
            lk = sc["links"][idx]
            links[idx] = {
                "departures": raw["departures"], "queue_drops": raw["drops"],
                "early_drops": raw["edrops"], "forced_drops": raw["drops"] - raw["edrops"],
                "mean_queue_packets": raw["qavg"],
                "utilization": raw["bdepartures"] * 8.0 / (lk["rate_bps"] * script.duration_s),
                "mean_red_avg": raw.get("redavg"),
                "channel_drops": raw.get("chlost", 0.0),
            }
        else:
            tr = sc["traffic"][idx]
            if tr["kind"] == "transfers":
                st = [float(x) for x in rest["stats"].split()]
                times = [float(x) for x in rest["times"].split()]
                traffic[idx] = {
                    "kind": "transfers", "transfers_started": st[1],
                    "transfers_completed": st[2], "transfers_refused": st[3],
                    "bytes_delivered": st[4], "packets_sent": st[5], "retransmissions": st[6],
                    "timeouts": st[7], "completion_time_s": _summary(times),
                }
            else:
                rec, lost = float(rest["received"]), float(rest["lost"])
                traffic[idx] = {"kind": tr["kind"], "packets_received": rec,
                                "packets_sent": rec + lost,
                                "bytes_delivered": float(rest["rbytes"])}
            start = tr.get("start_s", 0.0)
            traffic[idx]["goodput_bps"] = (traffic[idx]["bytes_delivered"] * 8.0
                                           / (script.duration_s - start))
    if not seen:
        raise RuntimeError(f"ns-2 printed no results; its output was:\n{stdout[-2000:]}")
    return Ns2NetReport(flows=flows, links=links, traffic=traffic, duration_s=script.duration_s,
                        notes=script.notes)


def run_network(sc: dict[str, Any], *, ns: str | None = None,
                keep_script: str | Path | None = None, timeout_s: float | None = None,
                on_time: Callable[[float], None] | None = None, **build: Any) -> Ns2NetReport:
    """Run ns-2 on the scenario's network script (see :func:`build_network_script` for
    ``build``); wall time and peak memory as :func:`lossytcp.ns2.run_script` measures them,
    ``on_time`` as there."""
    from dataclasses import replace

    from .run import find_ns, run_ns

    script = build_network_script(sc, **build)
    exe = find_ns(ns)
    with tempfile.TemporaryDirectory(prefix="lossytcp-ns2-") as wd:
        path = Path(keep_script) if keep_script else Path(wd) / "network.tcl"
        path.write_text(script.text if on_time is None
                        else with_progress(script.text, script.duration_s))
        text, wall, hwm = run_ns(exe, path, Path(wd), timeout_s=timeout_s, on_time=on_time)
    rep = parse_network(text, sc, script)
    return replace(rep, wall_s=wall, peak_rss_bytes=hwm)


def _default_rng_seed(links: list[dict[str, Any]], red_links: list[int], seed: int) -> int:
    """The seed of ns-2's default RNG at time 0: the RED queues' ``ns2_seed`` if they give
    one, else the run's ``seed`` (already ns-2's)."""
    given = {i: links[i]["queue"]["ns2_seed"] for i in red_links
             if links[i].get("queue", {}).get("ns2_seed") is not None}
    if len(set(given.values())) > 1:
        i = max(given)
        raise Ns2Unsupported(f"links[{i}].queue.ns2_seed", given[i],
                             "ns-2 has one default RNG for every RED queue: give them all "
                             f"the same ns2_seed (links[{min(given)}]: {given[min(given)]})")
    return next(iter(given.values()), seed)


# --- typed scenarios, replays -------------------------------------------------------------

def named_scenario(scenario: Any, seed: int | None = None) -> dict[str, Any]:
    """The engine scenario of a :class:`lossytcp.scenario.Scenario` as this writer takes it:
    the engine's legacy form (links without endpoints, flows by link path: a single link or
    a chain without generated traffic) gets its nodes and each link's ``from`` and ``to``."""
    sc = scenario.engine(seed=seed)
    if "nodes" not in sc:
        net = scenario.net
        sc["nodes"] = list(net.nodes)
        for lk, typed in zip(sc["links"], net.links, strict=True):
            lk["from"], lk["to"] = typed.src, typed.dst
    return sc


def parse_fates(text: str, sc: dict[str, Any], traced: list[int]) -> dict[int, list[bool]]:
    """What the channel of each traced link (:func:`build_network_script`'s ``trace_links``)
    did to every packet that started transmission on it, in order (True: lost): a packet
    with a ``-`` event and no ``r`` event was lost, unless its last bit was still on the way
    when the run ended (the channel, at the end of the link, had not decided it yet).
    Packets of every kind count, as each is one transmission of the engine's channel."""
    names, ends = _endpoints(sc)
    where = {(str(ends[i][0]), str(ends[i][1])): i for i in traced}
    starts: dict[int, list[tuple[float, int, int]]] = {i: [] for i in traced}
    received: dict[int, set[int]] = {i: set() for i in traced}
    for ln in text.splitlines():
        f = ln.split()
        if len(f) < 12 or f[0] not in ("-", "r"):
            continue
        i = where.get((f[2], f[3]))
        if i is None:
            continue
        if f[0] == "-":
            starts[i].append((float(f[1]), int(f[11]), int(f[5])))
        else:
            received[i].add(int(f[11]))
    end = float(sc["duration_s"])
    out: dict[int, list[bool]] = {}
    for i in traced:
        lk = sc["links"][i]
        delay = lk["delay"]["delay_s"]
        out[i] = [uid not in received[i] and t + 8.0 * size / lk["rate_bps"] + delay < end
                  for t, uid, size in starts[i]]
    return out
