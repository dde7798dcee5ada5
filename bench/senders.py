"""What paper 003's senders cost per simulated packet, against NewReno (issue 10: no more
than 10% over NewReno).

Each sender runs the same scenario in this process: the CPU time of the calling thread
(``time.thread_time``: the engine runs in it, so a shared machine's other processes do not
count, as they would in wall time) spent inside ``lossytcp._sim.run_json``, no import or
process start counted; the
variants interleaved round by round so that a change of CPU speed or load during the run
touches them alike; the cost of a run is its engine seconds over the data packets it sent
(the senders send different numbers of packets on a lossy path: NewReno-LP keeps a larger
window than NewReno, so per packet is the comparison that asks what a packet costs), and
also over its events (each packet's arrivals, ACKs and timers). Printed per variant: the
fastest round's cost per packet and per event (the least disturbed by other processes' use of
the caches) and the median round's, and the ratios of each to
NewReno's. Never a timed test: this prints numbers, it asserts nothing.

Scenarios:

* ``same``: one lossless 100 Mb/s link, RTT 20 ms, 1500 B, a receiver window of 100 segments
  (below the 167-segment BDP): every variant sends the same packets at the same times, so
  the ratio is the sender's own per-ACK work (the predictor's RTT rounds, Westwood's filter)
  and nothing else;
* ``two-hop``: paper 003 Fig. 3's path (10 Mb/s wired + 10 Mb/s wireless, RTT 100 ms, queues
  of one BDP, 1500 B, delayed ACKs, ns-2's agents as ``lossytcp.figures.paper003`` runs
  them), independent PER 1e-2 on the wireless hop;
* ``fast``: one 100 Mb/s link, RTT 20 ms, 1500 B, window 1000, p = 1e-4 (``bench/run.py``'s
  ``bernoulli``), where the per-ACK work of the loss predictor and of Westwood's filter weighs
  most against the little else each packet costs.

On the lossy scenarios the variants keep different windows, so the engine's event heap and
queues hold different numbers of packets: their ratios mix the sender's cost with the
network's, ``same`` isolates the sender's.

With ``--callgrind`` the count is instructions instead of CPU time: each variant's scenario
runs in ``target/release/examples/run_scenario`` (the engine alone, no Python) under
valgrind's callgrind at ``--duration`` and at twice that, and its cost per packet is the
difference of the two instruction counts over the difference of the packets sent (which
cancels the process start and the JSON parsing). Instruction counts do not move with the
machine's load, which CPU times on 2 shared cores do by several per cent; they do not see
cache misses (the lossy scenarios' larger windows), which the CPU times do.

    python bench/senders.py [--duration 1000] [--rounds 11] [--scenario same|two-hop|fast|all]
                            [--variants paper003|modern] [--json]
    python bench/senders.py --callgrind [--duration 20] [--scenario ...]   # after
        cargo build --release --example run_scenario
    python bench/senders.py ... --bbr-pacing-burst segment|tso    # BBR's pacing per segment
                                                                  # or per TSO burst
    python bench/senders.py --ns3 [--duration 100] [--rounds 3]
    python bench/senders.py --ns3 --callgrind [--duration 20] [--cache-sim]  # both sides

With ``--ns3`` NewReno, SACK, CUBIC and BBR run in ns-3 3.37 (``lossytcp crosscheck ns3``'s
program: TcpNewReno, TcpLinuxReno with SACK, TcpCubic, TcpBbr) and in the engine on one
10 Mb/s, RTT 100 ms link with random loss p = 1e-3 (a DropTail of 100 packets, window
1000, 1000 B), seed 1; CUBIC with Linux's rules and HyStart on both sides (issue 22: the
engine at least 100x faster than ns-3 on the same scenario). The engine's cost is the
calling thread's CPU time in ``run_json``; ns-3's is its process's CPU time (user + system,
from ``wait4``), which leaves out the machine's other load as the thread time does and
counts the process start, a few ms. The engine's side of each round repeats its run (the
same seed, the same packets) until it has used 0.5 s of CPU, as one run takes only 15-50 ms.
Printed: each side's fastest round per packet sent and their ratio ns-3 / engine, and the
median and lowest of the ratios of the rounds, each round's engine and ns-3 measured back to
back.

With ``--ns3 --callgrind`` both sides count instructions instead, a number the machine's
load does not move (the CPU times of both sides are bimodal on 2 shared cores): the engine's
scenario in ``run_scenario`` and ns-3's program (the same arguments as above) each under
callgrind at ``--duration`` and at twice that, each side's cost the difference of its two
instruction counts over the difference of its packets sent (which cancels the process start,
ns-3's set-up and the handshake), and the ratio ns-3 / engine. Instructions are not time:
they do not see cache misses, mispredicted branches and stalls, which the CPU times do, and
ns-3 runs fewer instructions per ns than the engine, so its ratio in instructions is smaller
than in CPU time (bench/README.md gives the CPU times). ``--cache-sim`` adds callgrind's
cycle estimate per packet (KCachegrind's CEst: instructions + 10 x (L1 misses + mispredicted
branches) + 100 x last-level misses, from callgrind's simulation of the host's caches and a
branch predictor), a model of time that the load does not move either: a model, not the
machine's cycles (the VM has no hardware counters). ns-3 under callgrind
runs about 50x slower than natively: at the default ``--duration 20`` with ``--callgrind``
(20 -> 40 s) the whole run took 15 minutes of wall time on 2 shared cores at load average
5-6, 24 minutes with ``--cache-sim`` at 4-5 (5 -> 10 s: 77 s of CPU, 5 minutes of wall
time); the instruction counts were the same to the unit in both runs. ns-3 3.37's BBR
times out again and again on this path (``python/lossytcp/ns3/README.md``): it sends few
packets between the two durations (67 from 20 to 40 s), so its cost per packet is mostly its
timers' and its row is not a comparison of like with like.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

VARIANTS = ("newreno", "newreno-lp", "ideal-lp", "westwood-nr", "westwood-plus")
#: Issue 22's senders: CUBIC within 15% and BBR within 30% of NewReno per packet.
MODERN = ("newreno", "sack", "cubic", "bbr")


#: BBR's `bbr_pacing_burst` for the runs (``--bbr-pacing-burst``; None: the default).
BBR_PACING_BURST: str | None = None


def scenario(name: str, variant: str, duration_s: float) -> dict:
    from lossytcp import scenario as s
    from lossytcp.figures import paper003

    if name == "same":
        link = s.SingleLink(rate_bps=100e6, rtt_s=0.02, queue=s.DropTail(1000))
        tcp = s.Tcp(packet_size_bytes=1500, window=100)
        sc = s.Scenario(topology=link, flows=(s.Flow(variant=variant, tcp=tcp),),
                        duration_s=duration_s)
    elif name == "two-hop":
        sc = paper003.two_hop(variant, 10e6, 10e6, s.Bernoulli(p=1e-2), duration_s=duration_s)
    elif name == "fast":
        link = s.SingleLink(rate_bps=100e6, rtt_s=0.02, queue=s.DropTail(1000),
                            channel=s.Bernoulli(p=1e-4))
        tcp = s.Tcp(packet_size_bytes=1500, window=1000)
        sc = s.Scenario(topology=link, flows=(s.Flow(variant=variant, tcp=tcp),),
                        duration_s=duration_s)
    else:
        raise SystemExit(f"unknown scenario {name!r}: same, two-hop, fast or all")
    out = sc.engine(seed=1)
    if BBR_PACING_BURST is not None and variant == "bbr":
        for f in out["flows"]:
            f["tcp"].setdefault("params", {})["bbr_pacing_burst"] = BBR_PACING_BURST
    return out


def measure(name: str, duration_s: float, rounds: int, variants=VARIANTS) -> dict:
    from lossytcp import _sim

    VARIANTS = variants  # noqa: N806 - the set measured
    texts = {v: json.dumps(scenario(name, v, duration_s)) for v in VARIANTS}
    per_pkt: dict[str, list[float]] = {v: [] for v in VARIANTS}
    per_event: dict[str, list[float]] = {v: [] for v in VARIANTS}
    sent: dict[str, int] = {}
    _sim.run_json(texts["newreno"])                       # warm the caches once
    for r in range(rounds):
        order = VARIANTS if r % 2 == 0 else VARIANTS[::-1]
        for v in order:
            t0 = time.thread_time()
            out = json.loads(_sim.run_json(texts[v]))
            dt = time.thread_time() - t0
            f = out["flows"][0]
            sent[v] = f["packets_sent"]
            per_pkt[v].append(dt / f["packets_sent"])
            per_event[v].append(dt / out["events"])
    res = {}
    for v in VARIANTS:
        best, med = min(per_pkt[v]), statistics.median(per_pkt[v])
        res[v] = dict(packets_sent=sent[v],
                      ns_per_packet=1e9 * best, ns_per_packet_median=1e9 * med,
                      ns_per_event=1e9 * min(per_event[v]),
                      ratio_per_packet=best / min(per_pkt["newreno"]),
                      ratio_per_packet_median=med / statistics.median(per_pkt["newreno"]),
                      ratio_per_event=min(per_event[v]) / min(per_event["newreno"]))
    return res


RUN_SCENARIO = ROOT / "target" / "release" / "examples" / "run_scenario"


def callgrind(argv: list[str], cache_sim: bool = False) -> tuple[dict[str, int], str]:
    """Callgrind's event totals for one run of ``argv`` (``Ir``, instructions; with
    ``cache_sim`` also its simulated cache misses and mispredicted branches, ``I1mr`` ...
    ``Bim``), and what the program printed."""
    sim = ["--cache-sim=yes", "--branch-sim=yes"] if cache_sim else []
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cg.out"
        p = subprocess.run(["valgrind", "--tool=callgrind", *sim,
                            f"--callgrind-out-file={out}", *argv],
                           capture_output=True, text=True, check=True)
        text = out.read_text()
    events = re.search(r"^events: (.*)$", text, re.M)
    totals = re.search(r"^totals: (.*)$", text, re.M)
    if events is None or totals is None:
        raise SystemExit(f"no event totals in callgrind's output:\n{p.stderr[-2000:]}")
    names, counts = events.group(1).split(), totals.group(1).split()
    return dict(zip(names, map(int, counts), strict=True)), p.stdout


def cycle_estimate(ev: Mapping[str, float]) -> float:
    """Callgrind's cycle estimate (KCachegrind's CEst): Ir + 10 (L1 misses + mispredicted
    branches) + 100 last-level misses, from a run with ``cache_sim``."""
    l1 = ev["I1mr"] + ev["D1mr"] + ev["D1mw"]
    return ev["Ir"] + 10 * (l1 + ev["Bcm"] + ev["Bim"]) + 100 * (ev["ILmr"] + ev["DLmr"]
                                                                   + ev["DLmw"])


def _run_scenario(text: str, cache_sim: bool = False) -> dict[str, int]:
    """Callgrind's event totals for one run of ``run_scenario`` on the scenario JSON."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "scenario.json"
        path.write_text(text)
        return callgrind([str(RUN_SCENARIO), str(path)], cache_sim)[0]


def instructions(text: str) -> int:
    """Instructions callgrind counts for one run of ``run_scenario`` on the scenario JSON."""
    return _run_scenario(text)["Ir"]


def measure_callgrind(name: str, duration_s: float, variants=VARIANTS) -> dict:
    """Instructions per packet sent of each variant: (I(2T) - I(T)) / (sent(2T) - sent(T))."""
    from lossytcp import _sim

    VARIANTS = variants  # noqa: N806 - the set measured
    res = {}
    for v in VARIANTS:
        counts, sent = [], []
        for d in (duration_s, 2 * duration_s):
            text = json.dumps(scenario(name, v, d))
            counts.append(instructions(text))
            sent.append(json.loads(_sim.run_json(text))["flows"][0]["packets_sent"])
        res[v] = dict(packets_sent=sent[1] - sent[0],
                      instructions_per_packet=(counts[1] - counts[0]) / (sent[1] - sent[0]))
    for v in VARIANTS:
        res[v]["ratio_per_packet"] = (res[v]["instructions_per_packet"]
                                      / res["newreno"]["instructions_per_packet"])
    return res


NS3_PATH = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=1000,
                queue_packets=100, channel="bernoulli:p=0.001", seed=1)


def _ns3_kwargs(variant: str, duration_s: float) -> dict:
    """simulate()'s keywords of the ``--ns3`` scenario, for both sides: the engine set as
    ``crosscheck ns3`` sets it, like for like (CUBIC with Linux's rules and HyStart, BBR
    paced per segment)."""
    from lossytcp.ns3 import ENGINE_AS_NS3

    return {**NS3_PATH, **ENGINE_AS_NS3.get(variant, {}), "duration_s": duration_s}


def _ns3_sent(text: str) -> int:
    """Packets sent, from the ns-3 program's JSON line."""
    return int(json.loads(next(ln for ln in text.splitlines() if ln.startswith("{")))
               ["packets_sent"])


def _ns3_cpu_s(variant: str, duration_s: float) -> tuple[float, int]:
    """ns-3's CPU seconds (user + system of its process) and packets sent for one run."""
    import os

    from lossytcp.ns3 import build_program, ns3_arguments

    args, _ = ns3_arguments(variant, _ns3_kwargs(variant, duration_s))
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([str(build_program()), *args], stdout=out,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if proc.returncode != 0:
        raise SystemExit(f"ns-3 failed ({proc.returncode}):\n{text[-2000:]}")
    return usage.ru_utime + usage.ru_stime, _ns3_sent(text)


#: The engine's side of a ``--ns3`` round runs the scenario again until it has used at least
#: this much CPU time: one run of 300 simulated s takes 15-50 ms, short enough for a single
#: scheduling hiccup of this shared VM to move it by half, while ns-3's run takes seconds.
ENGINE_MIN_CPU_S = 0.5


def _engine_cpu_s_per_packet(text: str) -> tuple[float, int]:
    """The engine's CPU seconds per packet sent on the scenario JSON, over as many identical
    runs (one seed fixes a run) as fill ``ENGINE_MIN_CPU_S``; and the packets of one run."""
    from lossytcp import _sim

    t0 = time.thread_time()
    sent = json.loads(_sim.run_json(text))["flows"][0]["packets_sent"]
    once = time.thread_time() - t0
    reps = max(1, math.ceil(ENGINE_MIN_CPU_S / max(once, 1e-6)))
    t0 = time.thread_time()
    for _ in range(reps):
        _sim.run_json(text)
    return (time.thread_time() - t0) / (reps * sent), sent


def measure_ns3(duration_s: float, rounds: int) -> dict:
    """CPU time per packet sent, the engine's and ns-3's, each round one engine measurement
    and one ns-3 run back to back: the ratio of the fastest of each side, and the median and
    lowest of the rounds' own (paired) ratios, which a slow stretch of the machine moves
    less than it moves either side alone."""
    from lossytcp.sim import build_scenario

    res = {}
    for v in MODERN:
        text = json.dumps(build_scenario(v, **_ns3_kwargs(v, duration_s)))
        eng, ns3 = [], []
        for _ in range(rounds):
            per, engine_sent = _engine_cpu_s_per_packet(text)
            eng.append(per)
            cpu, sent = _ns3_cpu_s(v, duration_s)
            ns3.append(cpu / sent)
        paired = sorted(n / e for n, e in zip(ns3, eng, strict=True))
        res[v] = dict(engine_packets=engine_sent, ns3_packets=sent,
                      engine_ns_per_packet=1e9 * min(eng), ns3_ns_per_packet=1e9 * min(ns3),
                      ns3_over_engine=min(ns3) / min(eng),
                      paired_median=statistics.median(paired), paired_lowest=paired[0])
        print(f"{v}: ns-3 / engine per round {', '.join(f'{x:.0f}' for x in paired)}",
              file=sys.stderr, flush=True)
    return res


def measure_ns3_callgrind(duration_s: float, cache_sim: bool = False) -> dict:
    """Instructions per packet sent on the ``--ns3`` scenario, both sides under callgrind:
    (I(2T) - I(T)) / (sent(2T) - sent(T)) for the engine's ``run_scenario`` and for ns-3's
    program, and their ratio; with ``cache_sim`` the same for callgrind's cycle estimate."""
    from lossytcp import _sim
    from lossytcp.ns3 import build_program, ns3_arguments
    from lossytcp.sim import build_scenario

    exe = str(build_program())
    res = {}
    for v in MODERN:
        runs: dict[str, list[tuple[dict[str, int], int]]] = {"engine": [], "ns3": []}
        for d in (duration_s, 2 * duration_s):
            kw = _ns3_kwargs(v, d)
            text = json.dumps(build_scenario(v, **kw))
            sent = json.loads(_sim.run_json(text))["flows"][0]["packets_sent"]
            runs["engine"].append((_run_scenario(text, cache_sim), sent))
            ev, out = callgrind([exe, *ns3_arguments(v, kw)[0]], cache_sim)
            runs["ns3"].append((ev, _ns3_sent(out)))
        r: dict[str, float] = {}
        for side, ((ev1, sent1), (ev2, sent2)) in runs.items():
            per = {k: (ev2[k] - ev1[k]) / (sent2 - sent1) for k in ev1}
            r[f"{side}_packets"] = sent2 - sent1
            r[f"{side}_instructions_per_packet"] = per["Ir"]
            if cache_sim:
                r[f"{side}_cycle_estimate_per_packet"] = cycle_estimate(per)
        r["ns3_over_engine"] = (r["ns3_instructions_per_packet"]
                                / r["engine_instructions_per_packet"])
        if cache_sim:
            r["ns3_over_engine_cycle_estimate"] = (r["ns3_cycle_estimate_per_packet"]
                                                   / r["engine_cycle_estimate_per_packet"])
        res[v] = r
        print(f"{v}: engine {r['engine_instructions_per_packet']:.0f}, ns-3 "
              f"{r['ns3_instructions_per_packet']:.0f} instructions per packet",
              file=sys.stderr, flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=None,
                    help="simulated seconds per run (1000; 20 with --ns3 --callgrind)")
    ap.add_argument("--rounds", type=int, default=11, help="runs of each variant")
    ap.add_argument("--scenario", default="all", choices=["same", "two-hop", "fast", "all"])
    ap.add_argument("--variants", default="paper003", choices=["paper003", "modern"],
                    help="paper 003's senders (issue 10) or NewReno, SACK, CUBIC and BBR "
                         "(issue 22)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions under valgrind instead of timing")
    ap.add_argument("--cache-sim", action="store_true",
                    help="with --ns3 --callgrind: also callgrind's cycle estimate (its cache "
                         "and branch simulation, about twice as slow)")
    ap.add_argument("--ns3", action="store_true",
                    help="NewReno, SACK, CUBIC and BBR against ns-3 3.37 on one lossy link")
    ap.add_argument("--bbr-pacing-burst", choices=["segment", "tso"], default=None,
                    help="BBR's bbr_pacing_burst on same, two-hop and fast (its default if "
                         "left out)")
    a = ap.parse_args()
    global BBR_PACING_BURST  # noqa: PLW0603 - the scenarios' one knob, set once here
    BBR_PACING_BURST = a.bbr_pacing_burst
    if a.duration is None:
        a.duration = 20.0 if a.ns3 and a.callgrind else 1000.0
    if not a.duration > 0:
        ap.error(f"--duration = {a.duration}: simulated seconds, must be > 0")
    if a.rounds < 1:
        ap.error(f"--rounds = {a.rounds}: must be >= 1")
    names = ["same", "two-hop", "fast"] if a.scenario == "all" else [a.scenario]
    if a.callgrind and (shutil.which("valgrind") is None or not RUN_SCENARIO.exists()):
        raise SystemExit(f"--callgrind needs valgrind and {RUN_SCENARIO} (cargo build "
                         "--release --example run_scenario)")
    if a.cache_sim and not (a.ns3 and a.callgrind):
        ap.error("--cache-sim goes with --ns3 --callgrind")
    if a.ns3:
        if a.callgrind:
            res = measure_ns3_callgrind(a.duration, a.cache_sim)
            how = f"callgrind, {a.duration:g} -> {2 * a.duration:g} simulated s"
            tables = [(f"{how}, instructions per packet sent", "instr/packet",
                       "instructions_per_packet", "ns3_over_engine")]
            if a.cache_sim:
                tables.append((f"{how}, callgrind's cycle estimate per packet sent",
                               "CEst/packet", "cycle_estimate_per_packet",
                               "ns3_over_engine_cycle_estimate"))
        else:
            res = measure_ns3(a.duration, a.rounds)
            tables = [(f"{a.duration:g} simulated s, {a.rounds} rounds (fastest; the rounds' "
                       "paired ratios: median, lowest), CPU time per packet sent",
                       "ns/packet", "ns_per_packet", "ns3_over_engine")]
        if a.json:
            print(json.dumps(res, indent=1))
            return
        for how, unit, key, ratio in tables:
            w = len(unit) + 1
            print(f"\n10 Mb/s, RTT 100 ms, p = 1e-3: {how}")
            print(f"  {'variant':<10} {'engine pkts':>11} {unit:>{w}} {'ns-3 pkts':>10} "
                  f"{unit:>{w}} {'ns-3 / engine':>14}")
            for v, r in res.items():
                print(f"  {v:<10} {r['engine_packets']:>11} {r['engine_' + key]:>{w}.0f} "
                      f"{r['ns3_packets']:>10} {r['ns3_' + key]:>{w}.0f} {r[ratio]:>14.1f}"
                      + (f"  (paired: {r['paired_median']:.1f}, {r['paired_lowest']:.1f})"
                         if "paired_median" in r else ""))
        return
    if a.callgrind:
        variants = VARIANTS if a.variants == "paper003" else MODERN
        cg = {n: measure_callgrind(n, a.duration, variants) for n in names}
        if a.json:
            print(json.dumps(cg, indent=1))
            return
        for n, res in cg.items():
            print(f"\n{n}: callgrind, {a.duration:g} -> {2 * a.duration:g} simulated s")
            print(f"  {'variant':<14} {'packets':>9} {'instr/packet':>13} {'x NewReno':>10}")
            for v, r in res.items():
                print(f"  {v:<14} {r['packets_sent']:>9} {r['instructions_per_packet']:>13.1f} "
                      f"{r['ratio_per_packet']:>10.4f}")
        return
    variants = VARIANTS if a.variants == "paper003" else MODERN
    out = {n: measure(n, a.duration, a.rounds, variants) for n in names}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    for n, res in out.items():
        print(f"\n{n}: {a.duration:g} simulated s, {a.rounds} rounds (fastest; median)")
        print(f"  {'variant':<14} {'packets':>9} {'ns/packet':>15} {'ns/event':>9} "
              f"{'x NewReno/packet':>18} {'x NewReno/event':>16}")
        for v, r in res.items():
            print(f"  {v:<14} {r['packets_sent']:>9} "
                  f"{r['ns_per_packet']:>7.1f}; {r['ns_per_packet_median']:>6.1f} "
                  f"{r['ns_per_event']:>9.1f} "
                  f"{r['ratio_per_packet']:>9.3f}; {r['ratio_per_packet_median']:>6.3f} "
                  f"{r['ratio_per_event']:>16.3f}")


if __name__ == "__main__":
    main()
