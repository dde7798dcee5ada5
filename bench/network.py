"""Speed and memory of lossytcp's network engine against ns-2 2.35, in one run.

Scenarios (tests/reference/network_cases.py; every TCP with ns-2's timers on both sides):

* ``paper002``: paper 002 Scenario II, the 62-node dumbbell: a 15 Mb/s 100 ms RED bottleneck
  (150 packets, packet mode, automatic thresholds and weight), a persistent Tahoe flow and
  Poisson 100 KB downloads between 29 node pairs (0.5 per second each, at most 20 open per
  node), 2000 simulated seconds;
* ``red5``: five NewReno flows through a 10 Mb/s RED bottleneck (ns-2's RED defaults),
  1000 simulated seconds.

Each simulator is a child process (wall time from start to exit, peak resident memory as the
child's VmHWM, as bench/run.py measures): the engine binary (``run_scenario``, no Python),
lossytcp from Python (``lossytcp._sim.run_json`` on the same JSON, interpreter start-up
included), and ns-2 running the script ``lossytcp.ns2.network`` writes for the same
scenario, with a queue monitor on the bottleneck (the engine always reports every link) and
no sampling of RED's average. Then the engine's peak memory for the paper002 scenario at
250, 500, 1000 and 2000 simulated seconds: it must not grow with simulated time. Never a
timed test: this prints numbers, it asserts nothing.

    python bench/network.py [--scenario paper002|red5|all] [--skip ns2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "reference"))
sys.path.insert(0, str(HERE))

import network_cases as nc  # noqa: E402
from run import _child  # noqa: E402  (bench/run.py: the same child measurement)

SCENARIOS = {
    "paper002": lambda: nc.paper002(1, red=True, arrival_rate_per_s=0.5, duration_s=2000.0),
    "red5": lambda: nc.red_dumbbell("ns2-defaults", 1, duration_s=1000.0),
}
MEMORY_DURATIONS_S = (250.0, 500.0, 1000.0, 2000.0)

PY_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from lossytcp import _sim
text = open(sys.argv[1]).read()
t1 = time.perf_counter()
r = json.loads(_sim.run_json(text))
t2 = time.perf_counter()
print(json.dumps({"sim_s": t2 - t1, "delivered": sum(f["packets_delivered"] for f in r["flows"]),
                  "completed": sum(t["transfers_completed"] for t in r["traffic"]),
                  "events": r["events"]}))
"""


def run_engine(path: str) -> dict | str:
    exe = ROOT / "target" / "release" / "examples" / "run_scenario"
    if not exe.exists():
        return "not built: cargo build --release --example run_scenario (make bench does it)"
    text, wall, rss, cpu = _child([str(exe), path])
    d = json.loads(text.strip().splitlines()[-1])
    return {"wall_s": wall, "cpu_s": cpu, "sim_s": d["wall_s"], "rss_bytes": rss,
            "delivered": d["all_flows_delivered"], "completed": d["transfers_completed"],
            "events": d["events"]}


def run_python(path: str) -> dict:
    text, wall, rss, cpu = _child([sys.executable, "-c", PY_CHILD, path])
    d = json.loads(text.strip().splitlines()[-1])
    return {"wall_s": wall, "cpu_s": cpu, "sim_s": d["sim_s"], "rss_bytes": rss,
            "delivered": d["delivered"],
            "completed": d["completed"], "events": d["events"]}


def run_ns2(sc: dict) -> dict | str:
    from lossytcp import ns2
    from lossytcp.ns2.network import build_network_script, parse_network

    try:
        exe = ns2.find_ns()
    except ns2.Ns2NotInstalled as e:
        return str(e)
    script = build_network_script(sc, monitor_links=[0], red_sample_s=None)
    with tempfile.TemporaryDirectory() as wd:
        path = Path(wd) / "bench.tcl"
        path.write_text(script.text)
        text, wall, rss, cpu = _child([exe, str(path)], cwd=wd)
    rep = parse_network(text, sc, script)
    return {"wall_s": wall, "cpu_s": cpu, "sim_s": wall, "rss_bytes": rss,
            "delivered": sum(f["packets_delivered"] for f in rep.flows),
            "completed": int(sum(t.get("transfers_completed", 0) for t in rep.traffic))}


def _json_file(sc: dict) -> str:
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(sc, f)
    f.close()
    return f.name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="all", choices=["all", *SCENARIOS])
    ap.add_argument("--skip", action="append", default=[], choices=["ns2", "memory"])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    names = list(SCENARIOS) if a.scenario == "all" else [a.scenario]
    results: dict = {}
    for name in names:
        sc = SCENARIOS[name]()
        path = _json_file(sc)
        try:
            results[name] = {
                "duration_s": sc["duration_s"],
                "engine": run_engine(path),
                "lossytcp": run_python(path),
                "ns2": "skipped (--skip ns2)" if "ns2" in a.skip else run_ns2(sc),
            }
        finally:
            os.unlink(path)
    if "memory" not in a.skip:
        mem = {}
        for d in MEMORY_DURATIONS_S:
            path = _json_file(nc.paper002(1, duration_s=d))
            try:
                r = run_engine(path)
            finally:
                os.unlink(path)
            mem[d] = r if isinstance(r, str) else {"rss_bytes": r["rss_bytes"],
                                                   "wall_s": r["wall_s"]}
        results["memory_paper002"] = mem
    if a.json:
        print(json.dumps(results, indent=1))
        return 0
    hdr = (f"{'scenario':9} {'simulator':9} {'sim. s':>7} {'wall s':>8} {'cpu s':>7} "
           f"{'peak MB':>8} {'delivered':>10} {'transfers':>9} {'ns-2/this wall':>14} "
           f"{'cpu':>6}")
    print(hdr)
    print("-" * len(hdr))
    for name in names:
        r = results[name]
        ns = r["ns2"]
        for sim in ("engine", "lossytcp", "ns2"):
            x = r[sim]
            if isinstance(x, str):
                print(f"{name:9} {sim:9} {x}")
                continue
            ours = sim != "ns2" and not isinstance(ns, str)
            ratio = f"{ns['wall_s'] / x['wall_s']:.1f}x" if ours else ""
            ratio_cpu = f"{ns['cpu_s'] / x['cpu_s']:.1f}x" if ours else ""
            print(f"{name:9} {sim:9} {r['duration_s']:7g} {x['wall_s']:8.2f} "
                  f"{x['cpu_s']:7.2f} {x['rss_bytes'] / 1e6:8.1f} {x['delivered']:10d} "
                  f"{x['completed']:9d} {ratio:>14} {ratio_cpu:>6}")
    if "memory_paper002" in results:
        cells = ", ".join(f"{d:g} s: " + (v if isinstance(v, str) else
                                         f"{v['rss_bytes'] / 1e6:.1f} MB ({v['wall_s']:.1f} s)")
                          for d, v in results["memory_paper002"].items())
        print(f"engine peak memory, paper002 by simulated time: {cells}")
    print("wall s: the child process from start to exit (lossytcp: Python start-up and import "
          "included); cpu s: its user + system time; ns-2/this: ns-2's over that row's.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
