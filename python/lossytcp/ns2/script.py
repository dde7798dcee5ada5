"""Write the ns-2 2.35 Tcl script equivalent to one :func:`lossytcp.simulate` scenario.

Topology, as the engine builds it: sender node -> duplex link (``rate_bps``, one-way delay
``rtt_s / 2``, DropTail queue of ``queue_packets`` each way) -> receiver node; data packets of
``packet_size_bytes`` on the wire (``useHeaders_ false``), 40-byte ACKs, a bulk FTP source
from time 0. The channel is an error model on the data direction (and on the ACK direction
when ``ack_channel`` is set), placed at the end of the link: see :mod:`lossytcp.ns2._tcl` for
why that reproduces the engine's "fate drawn at the start of transmission".

Variant mapping (ns-2 one-way agents, segments numbered from 0 as in the engine):

=========  ==========================================  ==========================
variant    sender                                      receiver
=========  ==========================================  ==========================
oldtahoe   ``Agent/TCP`` with ``noFastRetrans_ true``  ``Agent/TCPSink``
tahoe      ``Agent/TCP``                               ``Agent/TCPSink``
reno       ``Agent/TCP/Reno``                          ``Agent/TCPSink``
newreno    ``Agent/TCP/Newreno``                       ``Agent/TCPSink``
sack       ``Agent/TCP/Sack1``                         ``Agent/TCPSink/Sack1``
vegas      ``Agent/TCP/Vegas`` (``v_alpha_``, ...)       ``Agent/TCPSink``
=========  ==========================================  ==========================

(``/DelAck`` receivers with ``interval_ 0.1`` when ``delayed_ack``.) Timer settings:
``tcpTick_ = granularity_s`` (ns-2 needs a positive tick: its estimator counts in ticks),
``rtxcur_init_ = initial_rto_s``, ``minrto_``, ``maxrto_``; ns-2 always backs off by doubling up
to 64. A fixed RTO without backoff is ``minrto_ = maxrto_ = fixed_rto_s``.

What ns-2 cannot express here, and so raises :class:`Ns2Unsupported` (a
:class:`~lossytcp.errors.ParameterError` naming the parameter): a fixed RTO *with* backoff,
no backoff with the adaptive estimator, a backoff cap other than 64, ``protect_retransmissions``
(the error model cannot tell a retransmission from new data), the slot model of paper 004,
finite transfers, per-ACK RTT sampling (ns-2's agents time one segment per window: the
engine's ``profile='ns2'`` does the same), and the semi-Markov delay combined with a
time-driven channel (the model's start-time correction assumes a constant delay).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ParameterError
from ..sim import build_scenario
from ..variants import PARAMS, REGISTRY, refuse_options_without, resolved
from . import _tcl

__all__ = ["AGENTS", "Ns2Script", "Ns2Unsupported", "build_script", "ns2_seed"]

#: variant -> (sender class, receiver class, extra sender settings), from the engine's
#: registry (:mod:`lossytcp.variants`): the variants with an ns-2 counterpart.
AGENTS: dict[str, tuple[str, str, dict[str, Any]]] = {
    name: (x.ns2["sender"], x.ns2["receiver"], dict(x.ns2["settings"]))
    for name, x in REGISTRY.items() if x.ns2 is not None}

#: ns-2's delayed-ACK timer (Agent/TCPSink/DelAck interval_), also the engine's default.
DELACK_INTERVAL_S = 0.1
#: ns-2's backoff_ doubles while below 64 (tcp.cc rtt_backoff).
NS2_MAX_BACKOFF = 64
#: The result line the script prints at the end of the run.
RESULT_TAG = "LOSSYTCP-RESULT"
#: The simulated-time lines of :func:`with_progress`.
PROGRESS_TAG = "LOSSYTCP-T"


class Ns2Unsupported(ParameterError):
    """The scenario uses a feature the generated ns-2 script cannot reproduce."""


#: Engine variants ns-2 2.35 has no sender for, each with the reason (checked on Debian's
#: ns 2.35: neither ``Agent/TCP/Westwood`` nor ``Agent/TCP/WestwoodNR`` exists; the Linux
#: agent's ``westwood`` module is Westwood+ and its ``lp`` module is TCP-LP, a low-priority
#: sender, not paper 003's loss predictor).
NO_NS2_AGENT = {
    "westwood-nr": "ns-2 2.35 has no TCP Westwood (NR) agent (its Agent/TCP/Linux westwood "
                   "module is Westwood+: variant 'westwood-plus')",
    "newreno-lp": "paper 003's NewReno with a Vegas loss predictor is not an ns-2 2.35 agent "
                  "(the Linux agent's 'lp' module is TCP-LP, another algorithm)",
    "ideal-lp": "paper 003's ideal loss predictor knows the cause of every loss: no ns-2 "
                "2.35 agent does",
    "cubic": "ns-2 2.35's only CUBIC is Agent/TCP/Linux's module of Linux 2.6.22 (CUBIC "
             "before RFC 9438, without HyStart++); compare with ns-3 instead (lossytcp "
             "crosscheck ns3)",
    "bbr": "ns-2 2.35 has no BBR; compare with ns-3 instead (lossytcp crosscheck ns3)",
    "bbr3": "ns-2 2.35 has no BBR of any version (and ns-3 3.37 has only BBR v1: BBRv3 has no "
            "simulator counterpart to check against)",
}
#: The engine variant run by ns-2's Agent/TCP/Linux (see lossytcp.ns2.linux).
LINUX_VARIANT = "westwood-plus"


def ns2_variant(variant: str, param: str = "variant") -> str:
    """The :data:`AGENTS` key (or :data:`LINUX_VARIANT`) of an API or engine variant name;
    :class:`Ns2Unsupported` naming ``param`` for a sender ns-2 2.35 does not have."""
    name = {x.engine: n for n, x in REGISTRY.items()}.get(variant, variant)
    if name in AGENTS or name == LINUX_VARIANT:
        return name
    why = NO_NS2_AGENT.get(name, "ns-2 2.35 has no agent for this sender; it runs "
                                 + ", ".join([*AGENTS, LINUX_VARIANT]))
    raise Ns2Unsupported(param, name, why)


def agent_lines(var: str, settings: dict[str, Any]) -> list[str]:
    """``$agent set NAME VALUE`` per setting, in order; a key ``@cmd`` is the command
    ``$agent cmd VALUE`` (the Linux agent's ``select_ca``)."""
    return [f"{var} {k[1:]} {val}" if k.startswith("@") else f"{var} set {k} {val}"
            for k, val in settings.items()]


@dataclass(frozen=True)
class Ns2Script:
    """A generated script and what it needs to be read back."""

    text: str
    variant: str
    seed: int
    duration_s: float
    packet_size_bytes: int
    capacity_pps: float
    channel_kind: str
    notes: tuple[str, ...] = field(default=())


_M64 = 2**64 - 1


def ns2_seed(seed: int) -> int:
    """The script's ``srand()`` argument for a run seed: scrambled (SplitMix64's finalizer),
    then in [1, 2^31 - 2] (0 would mean "from the clock").

    Tcl's ``rand()`` is a multiplicative generator, x_k = 16807^k x_0 mod (2^31 - 1), so the
    streams of seeds 2, 3, 4, ... (``seed + 1``, as before) are multiples of one stream:
    u_k(m) = frac(m u_k(1)). Channel realizations of nearby seeds were then correlated (seeds
    m and m': gcd(m, m')^2 / (m m') for a linear statistic, 0.5 for 2 and 4): the variance of
    a 20-seed mean of the Gilbert-Elliott per-slot loss fraction over seeds 1-20 was 3.1 times
    what the seeds' own spread gives (0.90 with scrambled seeds, 200 draws of the base stream),
    and seeds 1-2000 lost 0.70% less than the law (0.08% with scrambled seeds, 2000 seeds).
    Scrambled, the seeds start at unrelated points of the generator's 2^31 - 2 cycle.
    """
    z = (seed + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    z ^= z >> 31
    return z % (2**31 - 2) + 1


def _num(x: float) -> str:
    return repr(float(x))


def with_progress(text: str, duration_s: float, steps: int = 100) -> str:
    """The script printing ``LOSSYTCP-T <simulated time>`` (flushed) ``steps`` times over
    the run, for a progress bar. The events touch no state and draw no random number, so the
    run is the same; the script still runs in plain ``ns``."""
    if duration_s <= 0 or PROGRESS_TAG in text:
        return text
    head, sep, tail = text.rpartition("$ns run")
    if not sep:
        return text
    proc = (f"proc lossytcp_progress {{}} {{\n    global ns\n"
            f"    puts \"{PROGRESS_TAG} [$ns now]\"\n    flush stdout\n"
            f"    $ns at [expr {{[$ns now] + {_num(duration_s / steps)}}}] lossytcp_progress\n}}\n"
            "$ns at 0.0 lossytcp_progress\n")
    return head + proc + sep + tail


def _runs_from_losses(lost: list[bool]) -> list[tuple[int, int]]:
    """[(pass, lost), ...] covering the sequence exactly, for LossyTcp/Runs."""
    runs: list[tuple[int, int]] = []
    i, n = 0, len(lost)
    while i < n:
        g = 0
        while i < n and not lost[i]:
            g, i = g + 1, i + 1
        b = 0
        while i < n and lost[i]:
            b, i = b + 1, i + 1
        runs.append((g, b))
    return runs


def runs_from_drop_counts(counts: list[int]) -> list[tuple[int, int]]:
    """Runs dropping the packets at these 0-based positions of the link's data stream."""
    runs: list[tuple[int, int]] = []
    nxt = 0
    for c in sorted(counts):
        if c < nxt:
            raise ParameterError("channel.seq", counts, "positions must be distinct")
        runs.append((c - nxt, 1))
        nxt = c + 1
    return runs


def _channel_tcl(ch: dict[str, Any], var: str, rng: str, offset_s: float, slot_s: float,
                 param: str, drop_counts: list[int] | None) -> tuple[str, str]:
    """Tcl creating the error model ``$var`` for one structured channel; returns (tcl, kind)."""
    kind = ch["kind"]
    off = _num(offset_s)
    if kind == "none":
        return f"set {var} [new LossyTcp/None {rng} {off}]", kind
    if kind == "bernoulli":
        return f"set {var} [new LossyTcp/Bernoulli {rng} {off} {_num(ch['p'])}]", kind
    if kind == "gilbert_elliott":
        a, b = ch["alpha"], ch["beta"]
        lg, lb = ch["loss_good"], ch["loss_bad"]
        idle = ch.get("idle_reset_s") or 0.0
        if ch["advance"] == "transmission" and lg == 0.0 and lb == 1.0 and not idle:
            return f"set {var} [new LossyTcp/GERuns {rng} {off} {_num(a)} {_num(b)}]", "ge-runs"
        if ch["advance"] == "slot" and not idle:
            return (f"set {var} [lossytcp_native]\n$ns at 0.0 \"lossytcp_ge_slot ${var} {off} "
                    f"{_num(a)} {_num(b)} {_num(lg)} {_num(lb)} {_num(slot_s)}\""), "ge-slot"
        per_slot = 1 if ch["advance"] == "slot" else 0
        return (f"set {var} [new LossyTcp/GE {rng} {off} {_num(a)} {_num(b)} {_num(lg)} "
                f"{_num(lb)} {per_slot} {_num(slot_s)} {_num(idle)}]"), "ge"
    if kind == "burst":
        return (f"set {var} [new LossyTcp/Burst {rng} {off} {_num(ch['p'])} "
                f"{_num(ch['hold_s'])}]"), kind
    if kind == "two_state":
        fixed = 1 if ch["dist"] == "fixed" else 0
        return (f"set {var} [lossytcp_native]\n$ns at 0.0 \"lossytcp_two_state ${var} {off} "
                f"{_num(ch['good_s'])} {_num(ch['bad_s'])} {_num(ch['loss_good'])} "
                f"{_num(ch['loss_bad'])} {fixed}\""), kind
    if kind == "trace":
        if ch.get("advance", "transmission") != "transmission":
            raise Ns2Unsupported(param, ch, "a trace indexed by time slot (advance=slot) has no "
                                 "ns-2 equivalent here; use advance=transmission")
        from ..scenario import trace_outcomes

        runs = _runs_from_losses(trace_outcomes(ch))
        body = " ".join(f"{{{g} {b}}}" for g, b in runs)
        return f"set {var} [new LossyTcp/Runs {rng} {off} {{{body}}} 1]", kind
    if kind == "drops":
        if drop_counts is None:
            raise Ns2Unsupported(param, ch, "a drop list by segment number needs the positions "
                                 "of those transmissions: use lossytcp.ns2.run_drops()")
        body = " ".join(f"{{{g} {b}}}" for g, b in runs_from_drop_counts(drop_counts))
        return f"set {var} [new LossyTcp/Runs {rng} {off} {{{body}}} 0]", kind
    raise Ns2Unsupported(param, kind, "no ns-2 equivalent for this channel kind")


def _semi_markov_tcl(d: dict[str, Any], rng: str) -> str:
    """Tcl scheduling the forward delay of the semi-Markov RTT process (paper 001).

    State i lasts T_i + Exp(V_i) and sets the data direction's propagation delay to T_i
    (the ACK direction has none, as in the engine). The first state is drawn as the engine
    draws it, in time-stationarity: P(i) proportional to pi_i (T_i + V_i), pi the embedded
    chain's stationary law. ns-2's LinkDelay reads ``delay_`` when a packet finishes
    transmission, the engine when it starts: a packet straddling a change may see the other
    state's delay, a difference of at most one packet time.
    """
    import numpy as np

    from ..models._markov import stationary_distribution

    pi = np.asarray(stationary_distribution(np.asarray(d["h"], dtype=float)))
    w = pi * (np.asarray(d["delay_s"]) + np.asarray(d["excess_mean_s"]))
    p0 = w / w.sum()
    t = " ".join(_num(x) for x in d["delay_s"])
    ex = " ".join(_num(x) for x in d["excess_mean_s"])
    h = " ".join("{" + " ".join(_num(x) for x in row) + "}" for row in d["h"])
    p0s = " ".join(_num(x) for x in p0)
    return f"""
set smd_T {{{t}}}
set smd_V {{{ex}}}
set smd_H {{{h}}}
proc smd_pick {{probs}} {{
    set u [expr {{rand()}}]
    set j 0
    set acc 0.0
    foreach p $probs {{
        set acc [expr {{$acc + $p}}]
        if {{$u < $acc}} {{ return $j }}
        incr j
    }}
    return [expr {{$j - 1}}]
}}
proc smd_enter {{i}} {{
    global ns smd_T smd_V smd_H fwd_link {rng.lstrip("$")}
    $fwd_link set delay_ [lindex $smd_T $i]
    set v [lindex $smd_V $i]
    set hold [lindex $smd_T $i]
    if {{$v > 0}} {{ set hold [expr {{$hold - $v * log([lossytcp_u {rng}])}}] }}
    $ns at [expr {{[$ns now] + $hold}}] "smd_enter [smd_pick [lindex $smd_H $i]]"
}}
smd_enter [smd_pick {{{p0s}}}]
"""


def droptail_limit(packets: int, param: str) -> int:
    """ns-2's ``queue-limit`` for a DropTail queue holding ``packets`` waiting packets.

    The engine counts the packets *waiting*, the one in transmission excluded; ns-2's
    drop-tail.cc drops when ``length + 1 >= limit_``, so ``limit_ = L`` keeps L - 1 waiting
    (Debian's ns 2.35: a burst of 10 into an idle link with ``queue-limit 5`` keeps 5, one on
    the wire and four waiting). A queue with no waiting room has no ns-2 equivalent (limit 1
    drops even a packet that finds the link idle).
    """
    if packets < 1:
        raise Ns2Unsupported(param, packets, "ns-2's DropTail cannot hold zero waiting packets "
                             "(queue-limit 1 drops every packet)")
    return packets + 1


def tcp_agent(variant: str, tcp: dict[str, Any], agent_settings: dict[str, Any] | None = None,
              param: str = "variant") -> tuple[str, str, dict[str, Any], list[str]]:
    """ns-2's sender and receiver classes for an engine TCP config, the ``$tcp set`` lines
    (:func:`agent_lines`), and notes; raises :class:`Ns2Unsupported` for what ns-2's agents
    cannot do (a variant without an agent names ``param``, a sender-wide option on without
    an ns-2 counterpart names the option)."""
    variant = ns2_variant(variant, param)
    refuse_options_without("ns2", tcp, Ns2Unsupported, "ns-2 2.35")
    if variant == LINUX_VARIANT:
        from .linux import linux_agent

        return linux_agent("westwood", tcp, agent_settings)
    notes: list[str] = []
    if tcp["granularity_s"] <= 0:
        raise ParameterError("granularity_s", tcp["granularity_s"],
                             "ns-2 needs a positive timer tick (tcpTick_, 0.01 s by default)")
    fixed = tcp["fixed_rto_s"]
    backoff = tcp["max_backoff"] > 1
    if fixed is not None and backoff:
        raise Ns2Unsupported("fixed_rto_s", fixed, "ns-2 can fix the RTO only by minrto_ = "
                             "maxrto_, which also stops the backoff: add backoff=False "
                             "(--no-backoff)")
    if fixed is None and not backoff:
        raise Ns2Unsupported("backoff", False, "ns-2 always doubles the RTO up to 64 times "
                             "unless it is fixed (fixed_rto_s, --fixed-rto)")
    if fixed is None and tcp["max_backoff"] != NS2_MAX_BACKOFF:
        raise Ns2Unsupported("max_backoff", tcp["max_backoff"],
                             f"ns-2's backoff cap is {NS2_MAX_BACKOFF}")
    if tcp.get("recovery_exit_growth") is False and variant in ("reno", "newreno"):
        raise Ns2Unsupported("recovery_exit_growth", False, "ns-2's Reno and NewReno always "
                             "open cwnd on the ACK that ends fast recovery")
    if tcp["profile"] != "ns2" and tcp["rtt_sampling"] == "per_ack":
        notes.append("engine profile 'rfc' samples the RTT on every ACK with RFC 6298's "
                     "estimator; ns-2 times one segment per window in ticks: timers differ "
                     "by design (use profile='ns2' to compare like with like)")
    if variant not in AGENTS:
        raise Ns2Unsupported("variant", variant, "has no ns-2 2.35 counterpart; variants that "
                             "have one: " + ", ".join(AGENTS))
    sender, receiver, extra = AGENTS[variant]
    if tcp["delayed_ack"]:
        receiver += "/DelAck"
    size = tcp["packet_size_bytes"]
    if fixed is not None:
        min_rto = max_rto = fixed
    else:
        min_rto, max_rto = tcp["min_rto_s"], tcp["max_rto_s"]
    tcp_settings = {
        "useHeaders_": "false", "syn_": "false", "packetSize_": size,
        "window_": tcp["max_window"], "windowInit_": tcp["initial_window"],
        "maxcwnd_": 0, "numdupacks_": tcp["dupack_threshold"],
        "tcpTick_": _num(tcp["granularity_s"]), "rtxcur_init_": _num(tcp["initial_rto_s"]),
        "minrto_": _num(min_rto), "maxrto_": _num(max_rto),
        # no timestamps option, no random send overhead, no burst limit: ns-2's defaults,
        # stated so that a changed ns-default.tcl cannot change the scenario silently
        "timestamps_": "false", "overhead_": 0, "maxburst_": 0,
        # ns-2 2.35's defaults, stated: the first ACK does not open cwnd (tcp.cc newack);
        # limited transmit, a new segment on each of the first dupacks (RFC 3042). The
        # engine's knobs of the same behaviours, when given, set them (None: ns-2's default,
        # which is also the engine's ns2 profile default)
        "delay_growth_": "false" if tcp.get("delay_growth") is False else "true",
        "singledup_": 0 if tcp.get("limited_transmit") is False else 1,
        **extra,
    }
    # The variant's plugin parameters, under their ns-2 names (the registry's); one without
    # an ns-2 counterpart cannot be expressed.
    for name, value in resolved(variant, tcp["params"]).items():
        if PARAMS[name].ns2 is not None:
            tcp_settings[PARAMS[name].ns2] = value
        elif name in tcp["params"]:
            raise Ns2Unsupported(name, value, "has no ns-2 counterpart")
    if variant == "newreno" and tcp.get("partial_window_deflation") is not None:
        tcp_settings["partial_window_deflation_"] = int(tcp["partial_window_deflation"])
    if variant == "newreno" and tcp.get("timer_every_partial_ack") is not None:
        # tcp-newreno.cc partialnewack_helper(): with newreno_changes1_ (ns-2 2.35's default
        # 1) only the first partial ACK restarts the timer, without it every one does
        tcp_settings["newreno_changes1_"] = 0 if tcp["timer_every_partial_ack"] else 1
    for k, val in (agent_settings or {}).items():
        if not (isinstance(k, str) and k.endswith("_") and k[:-1].replace("_", "").isalnum()):
            raise ParameterError("agent_settings", k, "keys are ns-2 agent variables such as "
                                 "'singledup_'")
        if not isinstance(val, (int, float, str)) or any(c in str(val) for c in "[]{};$\n"):
            raise ParameterError(f"agent_settings.{k}", val, "must be a plain number or word")
        tcp_settings[k] = val
    return sender, receiver, tcp_settings, notes


def build_script(variant: str = "newreno", *, trace_file: str | None = None,
                 drop_counts: list[int] | None = None,
                 agent_settings: dict[str, Any] | None = None, **kwargs: Any) -> Ns2Script:
    """The ns-2 script for :func:`lossytcp.simulate`'s arguments (validated the same way).

    ``trace_file``: write ns-2's trace of the data link there (``$ns trace-queue``: the
    sender's send times are its ``+`` events). ``drop_counts``: positions in the data link's
    packet stream to drop, for ``channel='drops:...'`` (see :func:`lossytcp.ns2.run_drops`).
    ``agent_settings``: extra ``$tcp set NAME VALUE`` lines applied last, e.g.
    ``{"cwnd_": 4}``; ``limited_transmit`` and ``delay_growth`` (simulate's knobs) set
    ``singledup_`` and ``delay_growth_``, so both sides run the same sender.
    """
    kw = {"seed": 1, **kwargs}
    if kw.get("slot_model"):
        raise Ns2Unsupported("slot_model", True, "ns-2 has no one-packet-per-slot link; "
                             "cross-check paper 004's slot model against the model instead")
    if ns2_variant(variant) == LINUX_VARIANT:
        return _westwood_plus_script(trace_file, drop_counts, agent_settings, kw)
    sc = build_scenario(variant, **kw)
    if len(sc["links"]) != 2 or any("queue" in lk for lk in sc["links"]):
        # Several hops, or a RED queue or one limited in bytes: the network writer (hops as
        # a chain of nodes), which writes every queue ns-2 has.
        from .network import build_single_flow_script

        return build_single_flow_script(sc, variant, agent_settings=agent_settings,
                                        trace_file=trace_file, drop_counts=drop_counts)
    flow = sc["flows"][0]
    tcp = flow["tcp"]
    fwd, rev = sc["links"]
    notes: list[str] = []
    if fwd["protect_retransmissions"]:
        raise Ns2Unsupported("protect_retransmissions", True,
                             "an ns-2 error model cannot tell retransmissions from new data")
    if flow["app"]["kind"] != "bulk":
        raise Ns2Unsupported("transfer_bytes", flow["app"].get("bytes"),
                             "only a bulk (FTP) sender is cross-checked")
    rate = fwd["rate_bps"]
    size = tcp["packet_size_bytes"]
    ack = tcp["ack_size_bytes"]
    delay = fwd["delay"]
    semi_markov = delay["kind"] == "semi_markov"
    one_way = 0.0 if semi_markov else delay["delay_s"]
    time_driven = {"burst", "two_state"}
    if semi_markov and (fwd["channel"]["kind"] in time_driven or (
            fwd["channel"]["kind"] == "gilbert_elliott"
            and (fwd["channel"]["advance"] == "slot" or fwd["channel"].get("idle_reset_s")))):
        raise Ns2Unsupported("delay", "semi-Markov", "cannot be combined with a time-driven "
                             "channel in ns-2 (the model sees packets after a varying delay)")
    sender, receiver, tcp_settings, agent_notes = tcp_agent(variant, tcp, agent_settings)
    notes.extend(agent_notes)
    seed = ns2_seed(sc["seed"])
    slot_s = size * 8.0 / rate
    ack_slot_s = ack * 8.0 / rate
    fwd_tcl, kind = _channel_tcl(fwd["channel"], "em_fwd", "$rng_fwd", slot_s + one_way, slot_s,
                                 "channel", drop_counts)
    rev_tcl, _ = _channel_tcl(rev["channel"], "em_rev", "$rng_rev",
                              ack_slot_s + (0.0 if semi_markov else one_way), ack_slot_s,
                              "ack_channel", None)
    sets = "\n".join(agent_lines("$tcp", tcp_settings))
    sink_sets = f"$sink set packetSize_ {ack}"
    if tcp["delayed_ack"]:
        sink_sets += f"\n$sink set interval_ {DELACK_INTERVAL_S}"
    trace = ""
    if trace_file:
        trace = f"set tf [open {{{trace_file}}} w]\n$ns trace-queue $n0 $n1 $tf"
    smd = _semi_markov_tcl(delay, "$rng_delay") if semi_markov else ""
    duration = sc["duration_s"]
    text = f"""# Generated by lossytcp.ns2 for ns-2 2.35: {variant}, seed {sc['seed']}.
# Scenario: {rate:g} b/s, one-way delay {one_way:g} s, {size} B packets, window
# {tcp['max_window']}, data channel {fwd['channel']['kind']}, {duration:g} s.
{_tcl.CHANNEL_CLASSES}
set ns [new Simulator]
expr {{srand({seed})}}
set rng_fwd ""
set rng_rev ""
set rng_delay ""
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 {_num(rate)} {_num(one_way)} DropTail
$ns queue-limit $n0 $n1 {droptail_limit(fwd['queue_packets'], 'queue_packets')}
$ns queue-limit $n1 $n0 {droptail_limit(rev['queue_packets'], 'queue_packets')}
{trace}
set fwd_link [[$ns link $n0 $n1] link]
set rev_link [[$ns link $n1 $n0] link]
{"$rev_link set delay_ 0.0" if semi_markov else ""}
set tcp [new {sender}]
{sets}
set sink [new {receiver}]
{sink_sets}
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

{fwd_tcl}
$ns link-lossmodel $em_fwd $n0 $n1
{rev_tcl}
$ns link-lossmodel $em_rev $n1 $n0
set mon_fwd [lossytcp_count $em_fwd $n1]
set mon_rev [lossytcp_count $em_rev $n0]
set qmon [new QueueMonitor]
[$ns link $n0 $n1] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \\
    [new SnoopQueue/Drop] $qmon
{smd}
proc finish {{}} {{
    global ns tcp sink qmon tf mon_fwd mon_rev
    puts "{RESULT_TAG} ndatapack [$tcp set ndatapack_] nrexmitpack [$tcp set nrexmitpack_]\\
 nrexmit [$tcp set nrexmit_] ncwndcuts [$tcp set ncwndcuts_] ack [$tcp set ack_]\\
 maxseq [$tcp set maxseq_] cwnd [$tcp set cwnd_] ssthresh [$tcp set ssthresh_]\\
 srtt [$tcp set srtt_] rttvar [$tcp set rttvar_] backoff [$tcp set backoff_]\\
 tick [$tcp set tcpTick_]\\
 nackpack [$tcp set nackpack_] sink_bytes [$sink set bytes_]\\
 passed [[lindex $mon_fwd 0] set parrivals_] lost [[lindex $mon_fwd 1] set pdrops_]\\
 ack_lost [[lindex $mon_rev 1] set pdrops_]\\
 qdrops [$qmon set pdrops_] departures [$qmon set pdepartures_]"
    foreach ch {{tf}} {{ if {{[info exists $ch]}} {{ flush [set $ch]; close [set $ch] }} }}
    $ns halt
}}
$ns at 0.0 "$ftp start"
$ns at {_num(duration)} "finish"
$ns run
"""
    return Ns2Script(text=text, variant=variant, seed=sc["seed"], duration_s=duration,
                     packet_size_bytes=size, capacity_pps=rate / (8.0 * size),
                     channel_kind=kind, notes=tuple(notes))


def _westwood_plus_script(trace_file: str | None, drop_counts: list[int] | None,
                          agent_settings: dict[str, Any] | None, kw: dict[str, Any]
                          ) -> Ns2Script:
    """Westwood+ as ns-2 2.35 has it: Agent/TCP/Linux with Linux 2.6.22's westwood module
    and a SACK receiver, whose blocks its scoreboard recovery needs (lossytcp.ns2.linux)."""
    from dataclasses import replace

    from .linux import build_linux_script

    kw = dict(kw)
    slow_start = kw.pop("westwood_slow_start", None)
    if slow_start not in (None, "per_ack"):
        raise Ns2Unsupported("westwood_slow_start", slow_start, "ns-2's Agent/TCP/Linux runs "
                             "Linux 2.6.22's slow start, one segment per ACK ('per_ack')")
    sc = build_linux_script("westwood", sack=True, trace_file=trace_file,
                            drop_counts=drop_counts, agent_settings=agent_settings, **kw)
    return replace(sc, notes=(WESTWOOD_PLUS_NOTE,))


#: What a cross-check of westwood-plus against ns-2 compares.
WESTWOOD_PLUS_NOTE = (
    "westwood-plus runs in ns-2 as Agent/TCP/Linux with Linux 2.6.22's westwood module and a "
    "SACK receiver (its own scoreboard recovery, a 1 ms tick): lossytcp/ns2/README.md lists "
    "the measured differences from the engine (L1-L9); expect some metrics to differ")
