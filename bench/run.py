"""Speed and memory of lossytcp against ns-2 (and ns-3 when built), in one run.

Scenarios (issue 2), NewReno, 1000 simulated seconds each, one seed, single-threaded:

* ``ge``: 2 Mb/s, RTT 20 ms, 500 B, window 20, Gilbert-Elliott alpha 0.001, beta 0.2
  stepped per slot (paper 000's channel);
* ``bernoulli``: 100 Mb/s, RTT 20 ms, 1500 B, window 1000, independent loss p = 1e-4.

Each simulator runs in its own child process so that its wall time and peak resident memory
(the child's VmHWM, see ``_child``) are its own; lossytcp's child pays for importing Python, numpy
and the extension, which is reported separately as the time of an empty run. Printed: wall
seconds, delivered packets per wall-second, peak RSS, and lossytcp's speed-up over the others.
Never a timed test: this prints numbers, it asserts nothing.

    python bench/run.py [--duration 1000] [--scenario ge|bernoulli|all] [--skip ns3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lossytcp.ns2.run import _hwm_bytes  # the same VmHWM poll ns-2 runs are measured with

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "python"))

SCENARIOS = {
    "ge": dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20,
               channel="ge:alpha=0.001,beta=0.2,advance=slot"),
    "bernoulli": dict(rate_bps=100e6, rtt_s=0.02, packet_size_bytes=1500, window=1000,
                      channel="bernoulli:p=1e-4"),
}
# ns-2's timer settings on both sides, so that both simulate the same TCP.
COMMON = dict(variant="newreno", granularity_s=0.01, seed=1)

ENGINE_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import lossytcp
kw = json.loads(sys.argv[1])
variant = kw.pop("variant")
t1 = time.perf_counter()
r = lossytcp.simulate(variant, profile="ns2", **kw)
t2 = time.perf_counter()
print(json.dumps({"delivered": r.packets_delivered, "sim_s": t2 - t1, "import_s": t1 - t0,
                  "goodput_norm": r.goodput_norm}))
"""


def _child(cmd: list[str], cwd: str | None = None) -> tuple[str, float, int, float]:
    """Run a child; its stdout, wall seconds, peak RSS in bytes and CPU seconds (user +
    system: less sensitive than wall time to the other sessions on the machine).

    Peak RSS is the child's VmHWM, polled every 2 ms until it exits. Not ``ru_maxrss``: on
    Linux a child's ``ru_maxrss`` starts from the RSS of the process that forked it (the
    kernel carries the parent's high-water mark across fork and exec), so every child of
    this Python process would report at least this process's ~30 MB."""
    t0 = time.perf_counter()
    hwm = 0
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            hwm = max(hwm, _hwm_bytes(p.pid))
            time.sleep(0.002)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[0]} failed:\n{text[-2000:]}")
    return text, wall, hwm, ru.ru_utime + ru.ru_stime


def run_lossytcp(kw: dict) -> dict:
    text, wall, rss, _ = _child([sys.executable, "-c", ENGINE_CHILD, json.dumps(kw)])
    d = json.loads(text.strip().splitlines()[-1])
    return {"wall_s": wall, "sim_s": d["sim_s"], "rss_bytes": rss,
            "delivered": d["delivered"], "goodput_norm": d["goodput_norm"]}


def run_engine(kw: dict) -> dict | str:
    """The Rust engine alone, as a process: no Python start-up, the same scenario."""
    exe = ROOT / "target" / "release" / "examples" / "run_scenario"
    if not exe.exists():
        return "not built: cargo build --release --example run_scenario (make bench does it)"
    import lossytcp

    kw = dict(kw)
    variant = kw.pop("variant")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(lossytcp.build_scenario(variant, profile="ns2", **kw), f)
    try:
        text, wall, rss, _ = _child([str(exe), f.name])
    finally:
        os.unlink(f.name)
    d = json.loads(text.strip().splitlines()[-1])
    return {"wall_s": wall, "sim_s": d["wall_s"], "rss_bytes": rss,
            "delivered": d["packets_delivered"], "goodput_norm": d["goodput_norm"]}


def run_ns2(kw: dict) -> dict | str:
    from lossytcp import ns2

    try:
        ns = ns2.find_ns()
    except ns2.Ns2NotInstalled as e:
        return str(e)
    kw = dict(kw)
    variant = kw.pop("variant")
    script = ns2.build_script(variant, **kw)
    with tempfile.TemporaryDirectory() as wd:
        path = Path(wd) / "bench.tcl"
        path.write_text(script.text)
        text, wall, rss, _ = _child([ns, str(path)], cwd=wd)
    rep = ns2.parse_result(text, script)
    return {"wall_s": wall, "sim_s": wall, "rss_bytes": rss,
            "delivered": rep.packets_delivered, "goodput_norm": rep.goodput_norm}


def run_ns3(name: str, kw: dict) -> dict | str:
    exe = HERE / "ns3" / "lossytcp-bench"
    # (re)build when ns-3 is installed; otherwise say why there is no ns-3 row
    build = subprocess.run(["sh", str(HERE / "ns3" / "build.sh")], capture_output=True,
                           text=True)
    if build.returncode != 0 or not exe.exists():
        return f"not built: {(build.stderr or build.stdout).strip()[-300:]}"
    args = [str(exe), f"--rate={kw['rate_bps']}", f"--rtt={kw['rtt_s']}",
            f"--size={kw['packet_size_bytes']}", f"--window={kw['window']}",
            f"--duration={kw['duration_s']}", f"--channel={kw['channel']}",
            f"--seed={kw['seed']}"]
    text, wall, rss, _ = _child(args)
    d = json.loads(text.strip().splitlines()[-1])
    return {"wall_s": wall, "sim_s": wall, "rss_bytes": rss, "delivered": d["delivered"],
            "goodput_norm": d.get("goodput_norm", float("nan"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=1000.0, help="simulated seconds")
    ap.add_argument("--scenario", default="all", choices=["all", *SCENARIOS])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip", action="append", default=[], choices=["ns2", "ns3"],
                    help="leave a simulator out (ns-3 takes minutes on the bernoulli scenario)")
    a = ap.parse_args(argv)
    names = list(SCENARIOS) if a.scenario == "all" else [a.scenario]
    empty = run_lossytcp({**COMMON, **SCENARIOS["ge"], "duration_s": 1e-3})
    results = {"startup_s": empty["wall_s"], "startup_rss_bytes": empty["rss_bytes"]}
    for name in names:
        kw = {**COMMON, **SCENARIOS[name], "duration_s": a.duration}
        results[name] = {
            "lossytcp": run_lossytcp(kw),
            "engine": run_engine(kw),
            "ns2": "skipped (--skip ns2)" if "ns2" in a.skip else run_ns2(kw),
            "ns3": "skipped (--skip ns3)" if "ns3" in a.skip else run_ns3(name, kw),
        }
    if a.json:
        print(json.dumps(results, indent=1))
        return 0
    print(f"{a.duration:g} simulated seconds per scenario, NewReno, one seed; "
          f"lossytcp child start-up (Python + imports) {results['startup_s']:.2f} s, "
          f"{results['startup_rss_bytes'] / 1e6:.0f} MB")
    hdr = (f"{'scenario':10} {'simulator':9} {'wall s':>8} {'sim s':>8} {'pkts/wall-s':>12} "
           f"{'peak MB':>8} {'goodput':>8} {'x wall':>11} {'x sim':>6}")
    print(hdr)
    print("-" * len(hdr))
    for name in names:
        ours = results[name]["lossytcp"]
        for sim in ("lossytcp", "engine", "ns2", "ns3"):
            r = results[name][sim]
            if isinstance(r, str):
                print(f"{name:10} {sim:9} {r}")
                continue
            ours_only = sim in ("lossytcp", "engine")
            ratio = "" if ours_only else f"{r['wall_s'] / ours['wall_s']:.1f}"
            ratio_sim = "" if ours_only else f"{r['wall_s'] / ours['sim_s']:.1f}"
            engine = results[name]["engine"]
            if not ours_only and not isinstance(engine, str):
                ratio += f" / {r['wall_s'] / engine['wall_s']:.1f}"
            print(f"{name:10} {sim:9} {r['wall_s']:8.2f} {r['sim_s']:8.2f} "
                  f"{r['delivered'] / r['wall_s']:12.0f} {r['rss_bytes'] / 1e6:8.1f} "
                  f"{r['goodput_norm']:8.4f} {ratio:>11} {ratio_sim:>6}")
    print("x wall = that simulator's wall time / lossytcp's (process start-up included on both "
          "sides) / the engine binary's (no Python); x sim = the same over lossytcp's time "
          "inside simulate() (Python start-up excluded); sim s = time inside simulate(); "
          "'engine' = the Rust engine run as its own process on the same scenario "
          "(target/release/examples/run_scenario).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
