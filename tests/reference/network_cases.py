"""Network scenarios cross-checked against ns-2 2.35 (make_network.py, test_network.py) and
timed in bench/network.py: the engine's JSON scenarios, built here without the typed
Python scenario layer.

* ``red_dumbbell``: 5 NewReno flows S1..S5 -> R1 -> R2 -> D1..D5, access links 100 Mb/s with
  one-way delays 1..5 ms, a 10 Mb/s 20 ms bottleneck with a RED queue, 1000 B packets,
  window 100, flows started at random instants in [0, 1) s (drawn from the seed, the same on
  both sides). Two RED settings: ns-2 2.35's defaults (byte mode, automatic thresholds and
  weight, gentle) and Floyd & Jacobson's classic packet mode (5/15 packets, max_p 0.1,
  w_q 0.002, not gentle).
* ``five_flows``: paper 003 Fig. 7's link, five NewReno flows on one 10 Mb/s link, RTT
  100 ms, DropTail queue of one bandwidth-delay product (83 packets of 1500 B), delayed
  ACKs, random start instants in [0, 1) s.
* ``paper002``: paper 002 Scenario II: A1..A30 -> B -> C -> D1..D30, 15 Mb/s 100 ms
  bottleneck with a 150-packet RED (packet mode, ns-2's automatic thresholds and weight) or
  DropTail queue, 90 Mb/s access links of 10/30/50 ms, a persistent Tahoe transfer
  A1 -> D1, Poisson 100 KB downloads between the other pairs, at most 20 open per node;
  500 B packets, window 20.

* ``exact_path``: one link whose every time is exact both in binary floating point (ns-2's
  clock) and in whole nanoseconds (the engine's): 1280 B data packets at 5.24288 Mb/s and
  40 B ACKs at 163.84 kb/s (1/512 s each; for SACK, whose ACKs carry 8 bytes a block, 8/512 s
  a data packet and 1/512 s per 8 ACK bytes), one-way delays of 25/512 s, a 1/128 s timer tick
  and a 26/128 s minimum RTO, start instants in sixteenths of a second. Ties are exact
  there, and ns-2 breaks them in the order its events were scheduled, as the engine does, so
  the two can be compared send for send (``test_network.py``, the RED replays).
* ``red_table``: issue 20's table: n NewReno flows from time 0 on one 10 Mb/s link, RTT
  100 ms, 1500 B, window 1000, RED limit 100, thresholds 5/15, max_p 0.1, w_q 0.002, gentle,
  in packet mode or in ns-2's byte mode (what ``red:...`` with those keys gives: thresholds
  and limit in 500-byte units), or DropTail 100.

Every TCP runs ns-2's timers (profile ``ns2``, 10 ms tick, 200 ms minimum RTO, 3 s initial
RTO), so both sides run the same sender.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from lossytcp.sim import build_scenario  # noqa: E402

TIMERS = dict(profile="ns2", granularity_s=0.01, min_rto_s=0.2, initial_rto_s=3.0)

RED_SETTINGS: dict[str, dict[str, Any]] = {
    # ns-2 2.35's Queue/RED defaults, the limit aside
    "ns2-defaults": {"kind": "red", "packets": 100},
    # Floyd & Jacobson 1993's parameters, packet mode
    "classic": {"kind": "red", "packets": 100, "bytes": False, "queue_in_bytes": False,
                "min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002, "gentle": False},
}


def tcp(variant: str = "newreno", *, window: int, size: int, delayed_ack: bool = False,
        ) -> dict[str, Any]:
    """The engine's TCP config for ``variant`` (as lossytcp.simulate builds it)."""
    sc = build_scenario(variant, window=window, packet_size_bytes=size,
                        delayed_ack=delayed_ack, **TIMERS)
    return sc["flows"][0]["tcp"]


def duplex(links: list[dict[str, Any]], a: str, b: str, rate: float, delay: float,
           queue: dict[str, Any]) -> None:
    for x, y in ((a, b), (b, a)):
        links.append({"from": x, "to": y, "rate_bps": rate,
                      "delay": {"kind": "fixed", "delay_s": delay}, "queue": dict(queue)})


def starts(seed: int, n: int) -> list[float]:
    """Start instants in [0, 1) s, drawn from the seed (the same scenario on both sides)."""
    rng = random.Random(seed)
    return [round(rng.random(), 6) for _ in range(n)]


def red_dumbbell(red: str, seed: int, duration_s: float = 100.0) -> dict[str, Any]:
    links: list[dict[str, Any]] = []
    duplex(links, "R1", "R2", 10e6, 0.02, RED_SETTINGS[red])
    t = tcp(window=100, size=1000)
    flows = []
    for i, s in enumerate(starts(seed, 5), start=1):
        duplex(links, f"S{i}", "R1", 100e6, 0.001 * i, {"kind": "droptail", "packets": 1000})
        duplex(links, "R2", f"D{i}", 100e6, 0.001 * i, {"kind": "droptail", "packets": 1000})
        flows.append({"variant": "new_reno", "src": f"S{i}", "dst": f"D{i}", "tcp": t,
                      "app": {"kind": "bulk"}, "start_s": s})
    return {"seed": seed, "duration_s": duration_s, "links": links, "flows": flows}


def five_flows(seed: int, duration_s: float = 100.0) -> dict[str, Any]:
    links: list[dict[str, Any]] = []
    bdp = int(10e6 * 0.1 / (8 * 1500))
    duplex(links, "S", "D", 10e6, 0.05, {"kind": "droptail", "packets": bdp})
    t = tcp(window=1000, size=1500, delayed_ack=True)
    flows = [{"variant": "new_reno", "src": "S", "dst": "D", "tcp": t, "app": {"kind": "bulk"},
              "start_s": s} for s in starts(seed, 5)]
    return {"seed": seed, "duration_s": duration_s, "links": links, "flows": flows}


def paper002(seed: int, *, red: bool = True, arrival_rate_per_s: float = 0.5,
             duration_s: float = 2000.0) -> dict[str, Any]:
    links: list[dict[str, Any]] = []
    queue = ({"kind": "red", "packets": 150, "bytes": False, "queue_in_bytes": False}
             if red else {"kind": "droptail", "packets": 150})
    duplex(links, "B", "C", 15e6, 0.1, queue)
    for i in range(1, 31):
        d = (0.01, 0.03, 0.05)[(i - 1) // 10]
        duplex(links, f"A{i}", "B", 90e6, d, {"kind": "droptail", "packets": 1000})
        duplex(links, "C", f"D{i}", 90e6, d, {"kind": "droptail", "packets": 1000})
    t = tcp("tahoe", window=20, size=500)
    flows = [{"variant": "tahoe", "src": "A1", "dst": "D1", "tcp": t, "app": {"kind": "bulk"},
              "label": "measured"}]
    traffic = [{"kind": "transfers", "src": f"A{i}", "dst": f"D{i}",
                "arrival_rate_per_s": arrival_rate_per_s,
                "size": {"kind": "fixed", "bytes": 100_000}, "max_concurrent": 20,
                "variant": "tahoe", "tcp": t} for i in range(2, 31)]
    return {"seed": seed, "duration_s": duration_s, "links": links, "flows": flows,
            "traffic": traffic}


#: RED as issue 20 gives it, in its two readings (``red_table``), and DropTail 100.
TABLE_QUEUES: dict[str, dict[str, Any]] = {
    "red-packets": {"kind": "red", "packets": 100, "min_th": 5, "max_th": 15, "max_p": 0.1,
                    "w_q": 0.002, "gentle": True, "bytes": False, "queue_in_bytes": False},
    "red-bytes": {"kind": "red", "packets": 100, "min_th": 5, "max_th": 15, "max_p": 0.1,
                  "w_q": 0.002, "gentle": True},
    "droptail": {"kind": "droptail", "packets": 100},
}


def red_table(queue: str, n_flows: int, seed: int, duration_s: float = 200.0,
              variant: str = "newreno", profile: str = "ns2") -> dict[str, Any]:
    links: list[dict[str, Any]] = []
    duplex(links, "S", "D", 10e6, 0.05, TABLE_QUEUES[queue])
    if profile == "ns2":
        t = tcp(variant, window=1000, size=1500)
    else:
        t = build_scenario(variant, window=1000, packet_size_bytes=1500,
                           profile=profile)["flows"][0]["tcp"]
    flows = [{"variant": ENGINE_VARIANT.get(variant, variant), "src": "S", "dst": "D",
              "tcp": t, "app": {"kind": "bulk"}} for _ in range(n_flows)]
    return {"seed": seed, "duration_s": duration_s, "links": links, "flows": flows}


#: lossytcp variant names -> the engine's JSON names
ENGINE_VARIANT = {"newreno": "new_reno", "oldtahoe": "old_tahoe"}
#: exact_path: data and ACK transmissions of 1/512 s, one-way delay 25/512 s
EXACT_SIZE = 1280
EXACT_STEP_S = 1 / 512


def exact_path(queue: dict[str, Any], variant: str, starts: list[float],
               duration_s: float = 60.0, seed: int = 1) -> dict[str, Any]:
    """One flow per start instant (multiples of 1/16 s) over the exact link (see above).
    SACK's ACKs grow by 8 bytes a block, so for it the ACK link takes 1/512 s per 8 bytes
    and the data link 8/512 s per packet (a 655 kb/s path, 40 B ACKs in 5/512 s)."""
    if any((s * 16) % 1 for s in starts):
        raise ValueError(f"start instants must be multiples of 1/16 s: {starts}")
    data_steps = 8 if variant == "sack" else 1
    ack_rate = 8 * 8 / EXACT_STEP_S if variant == "sack" else 40 * 8 / EXACT_STEP_S
    delay = 25 * EXACT_STEP_S
    links = [{"from": "S", "to": "D", "rate_bps": EXACT_SIZE * 8 / (data_steps * EXACT_STEP_S),
              "delay": {"kind": "fixed", "delay_s": delay}, "queue": dict(queue)},
             {"from": "D", "to": "S", "rate_bps": ack_rate,
              "delay": {"kind": "fixed", "delay_s": delay},
              "queue": {"kind": "droptail", "packets": 1000}}]
    t = build_scenario(variant, window=1000, packet_size_bytes=EXACT_SIZE, profile="ns2",
                       granularity_s=1 / 128, min_rto_s=26 / 128,
                       initial_rto_s=3.0)["flows"][0]["tcp"]
    flows = [{"variant": ENGINE_VARIANT.get(variant, variant), "src": "S", "dst": "D",
              "tcp": t, "app": {"kind": "bulk"}, "start_s": s} for s in starts]
    return {"seed": seed, "duration_s": duration_s, "links": links, "flows": flows}


#: The RED replays: (queue, variant, start instants), 60 s each.
_CLASSIC = {"kind": "red", "packets": 100, "min_th": 5, "max_th": 15, "max_p": 0.1,
            "w_q": 0.002, "bytes": False, "queue_in_bytes": False, "gentle": False}
REPLAYS: dict[str, tuple[dict[str, Any], str, list[float]]] = {
    "classic/newreno/1": (_CLASSIC, "newreno", [0.0]),
    "classic-gentle/tahoe/1": ({**_CLASSIC, "gentle": True}, "tahoe", [0.0]),
    "classic-gentle/sack/1": ({**_CLASSIC, "gentle": True}, "sack", [0.0]),
    "bytes/newreno/1": (TABLE_QUEUES["red-bytes"], "newreno", [0.0]),
    "ns2-defaults/newreno/5": ({"kind": "red", "packets": 100}, "newreno",
                               [0.0, 0.3125, 0.5625, 0.6875, 0.875]),
    "classic/newreno/5": (_CLASSIC, "newreno", [0.0] * 5),
    "bytes/tahoe/5": (TABLE_QUEUES["red-bytes"], "tahoe", [0.0, 0.25, 0.5, 0.75, 1.0]),
    "classic/sack/5": (_CLASSIC, "sack", [0.0, 0.25, 0.5, 0.75, 1.0]),
    "droptail/newreno/5": ({"kind": "droptail", "packets": 30}, "newreno", [0.0] * 5),
}


def red_cbr(queue_in_bytes: bool) -> dict[str, Any]:
    """RED's average, deterministic: constant-bit-rate sources that overload a 1 Mb/s link in
    turns, with idle gaps between (the idle-time decay), thresholds out of reach (no random
    drop, so nothing random at all) and a small limit (forced drops). Rates and sizes are
    chosen incommensurate (no small common denominator), so that no arrival coincides with
    the start of a transmission: ns-2 decides such ties by its events' insertion order or by
    the last bit of its floating-point clock, the engine always lets the arrival go first
    (link.rs `arrival_first`)."""
    red = {"kind": "red", "packets": 15, "bytes": False, "queue_in_bytes": queue_in_bytes,
           "min_th": 1000, "max_th": 3000, "w_q": 0.01, "mean_packet_size_bytes": 500}
    links: list[dict[str, Any]] = []
    duplex(links, "X", "Y", 987_654.3, 0.01, red)
    cbr = [(1_312_345.7, 537, 0.5, 1.5), (771_234.9, 411, 1.2, 2.3),
           (1_903_456.1, 601, 3.13, 3.6), (312_987.6, 1013, 4.07, 5.2)]
    traffic = [{"kind": "cbr", "src": "X", "dst": "Y", "rate_bps": r, "packet_size_bytes": s,
                "start_s": a, "stop_s": b} for r, s, a, b in cbr]
    return {"seed": 1, "duration_s": 6.0, "links": links, "traffic": traffic,
            "trace": {"queue": {"link": 0, "from_s": 0.0, "to_s": 6.0}}}


def single_droptail(duration_s: float = 60.0) -> dict[str, Any]:
    """One NewReno flow, 10 Mb/s, RTT 100 ms, 1000 B, window 64, a DropTail queue of 10
    waiting packets given as ``queue`` (ns-2's tie order, link.rs): nothing random."""
    sc = build_scenario("newreno", rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=64,
                        duration_s=duration_s, granularity_s=0.01, min_rto_s=0.2,
                        initial_rto_s=1.0, profile="ns2")
    for lk, (a, b) in zip(sc["links"], (("S", "D"), ("D", "S")), strict=True):
        lk.pop("queue_packets")
        lk.update({"from": a, "to": b, "queue": {"kind": "droptail", "packets": 10}})
    flow = sc["flows"][0]
    flow.pop("forward")
    flow.pop("reverse")
    flow.update({"src": "S", "dst": "D"})
    return sc


#: Two hops as lossytcp.simulate's ``hops`` (legacy queue_packets): nothing random.
TWO_HOP: dict[str, Any] = dict(
    hops=[{"rate_bps": 1e7, "delay_s": 0.02},
          {"rate_bps": 2e6, "delay_s": 0.01, "queue_packets": 8}],
    window=32, duration_s=60.0, granularity_s=0.01, min_rto_s=0.2, initial_rto_s=1.0)
