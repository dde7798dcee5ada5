"""Regenerate the ns-2 2.35 reference data of the network engine (``make reference``):
``network/*.csv``, ``network/*.json``, read by ``test_network.py``. The scenarios are in
``network_cases.py``; the Tcl is written by :mod:`lossytcp.ns2.network`.

* ``red_average.csv``: RED's average as ns-2 traces it (``ave_``, a line per change: time
  and value, 6 significant digits) on the deterministic CBR scenario ``red_cbr``, in packet
  and byte mode, with the forced drops and departures (``red_cbr.json``). Nothing is random
  there, so the engine must give the same averages, to ns-2's printed precision.
* ``red_dumbbell.csv``: per seed (1-20) and RED setting, the bottleneck's time-average RED
  average (sampled every 5 ms), early and forced drops, time-average queue, utilization,
  and the five flows' goodput, 100 s.
* ``five_flows.csv``: per seed (1-20), the goodput of each of paper 003's five NewReno
  flows on one DropTail link, their Jain index, the link's drops and utilization, 100 s.
* ``deterministic.json``: single NewReno flows with nothing random (a 10-packet DropTail
  queue given as ``queue``; two hops with a legacy 8-packet queue): ns-2's counters, which
  the engine must reproduce exactly.
* ``red_replays.json``: TCP over RED (and one DropTail case) on ``exact_path``, 60 s, seed
  1: per flow its send trace as digests of blocks of 256 sends (make_replays.py's
  ``digests``), its timeouts, and the queue's drops. The engine, drawing RED's uniforms from
  ns-2's generator and given ns-2's agent tick phases (``lossytcp.ns2.rng.with_ns2_draws``),
  must send the same segments at the same microsecond.
* ``red_table.csv``: issue 20's table (``red_table``): 1, 2, 5 and 20 NewReno flows, RED in
  packet and in byte mode and DropTail, 200 s, seeds 1-10: per run the flows' summed
  goodput, timeouts and fast retransmits and the link's drops.
* ``grid.json``, ``grid.csv``: the network conformance grid (network_grid.py: its design,
  and per case and seed the judged metrics of ns-2's run); about 20 minutes on two cores.

    python tests/reference/make_network.py [--only JOB]

JOB is one of average, dumbbell, five, deterministic, replays, table, grid; ``--only grid
--cases GLOB`` runs again only the grid's cases matching GLOB (``'dumbbell/*'``: the nine
dumbbells with cross traffic, about 6 minutes), keeping the other rows. Needs ``ns`` on
PATH (Debian package ns2); the tests that read these files do not. About 7 minutes on two
shared cores without the grid (the RED dumbbells sample the average in Tcl), 10-20 more
for it.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
sys.path.insert(0, str(HERE))

import network_cases as nc  # noqa: E402
import network_grid as ng  # noqa: E402
from make_replays import digests  # noqa: E402

from lossytcp import ns2  # noqa: E402
from lossytcp.ns2.network import run_network  # noqa: E402

OUT = HERE / "network"
SEEDS = tuple(range(1, 21))
DURATION_S = 100.0
#: RED's average is sampled this often in ns-2 for its time-average (it moves with a time
#: constant of hundreds of packets, seconds here).
RED_SAMPLE_S = 0.005


def jain(x: list[float]) -> float:
    s = sum(x)
    return s * s / (len(x) * sum(v * v for v in x))


def make_average() -> None:
    rows = []
    counts = {}
    with tempfile.TemporaryDirectory() as wd:
        for mode, qib in (("packets", False), ("bytes", True)):
            tr = Path(wd) / f"{mode}.tr"
            rep = run_network(nc.red_cbr(qib), red_trace=(0, str(tr)))
            for ln in tr.read_text().splitlines():
                kind, t, v = ln.split()
                if kind == "a":
                    rows.append({"mode": mode, "t_s": t, "ave": v})
            lk = rep.links[0]
            counts[mode] = {"forced_drops": lk["forced_drops"], "early_drops": lk["early_drops"],
                            "departures": lk["departures"]}
    with open(OUT / "red_average.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["mode", "t_s", "ave"])
        w.writeheader()
        w.writerows(rows)
    (OUT / "red_cbr.json").write_text(json.dumps(counts, indent=1) + "\n")
    print(f"red_average.csv: {len(rows)} changes of the average")


def make_dumbbell() -> None:
    rows = []
    for red in nc.RED_SETTINGS:
        for s in SEEDS:
            t0 = time.perf_counter()
            rep = run_network(nc.red_dumbbell(red, s, DURATION_S), monitor_links=[0],
                              red_sample_s=RED_SAMPLE_S)
            lk = rep.links[0]
            row = {"red": red, "seed": s, "mean_red_avg": lk["mean_red_avg"],
                   "early_drops": lk["early_drops"], "forced_drops": lk["forced_drops"],
                   "mean_queue_packets": lk["mean_queue_packets"],
                   "utilization": lk["utilization"]}
            row.update({f"goodput_{i}": f["goodput_pps"] for i, f in enumerate(rep.flows)})
            rows.append(row)
            print(f"red_dumbbell {red} seed {s}: {time.perf_counter() - t0:.1f} s", flush=True)
    _write(OUT / "red_dumbbell.csv", rows)


def make_five() -> None:
    rows = []
    for s in SEEDS:
        rep = run_network(nc.five_flows(s, DURATION_S), monitor_links=[0])
        g = [f["goodput_pps"] for f in rep.flows]
        row = {"seed": s, "jain": jain(g), "forced_drops": rep.links[0]["forced_drops"],
               "utilization": rep.links[0]["utilization"]}
        row.update({f"goodput_{i}": x for i, x in enumerate(g)})
        rows.append(row)
    _write(OUT / "five_flows.csv", rows)
    print(f"five_flows.csv: {len(rows)} seeds")


def make_deterministic() -> None:
    out = {}
    rep = run_network(nc.single_droptail(), monitor_links=[0])
    f = rep.flows[0]
    out["droptail-queue"] = {"packets_sent": f["packets_sent"], "timeouts": f["timeouts"],
                             "fast_retransmits": f["fast_retransmits"],
                             "packets_delivered": f["packets_delivered"],
                             "queue_drops": rep.links[0]["queue_drops"]}
    r = ns2.simulate_ns2("newreno", **nc.TWO_HOP)
    out["two-hop"] = {"packets_sent": r.packets_sent, "timeouts": r.timeouts,
                      "fast_retransmits": r.fast_retransmits,
                      "packets_delivered": r.packets_delivered, "queue_drops": r.queue_drops,
                      "packets_received": r.packets_received}
    (OUT / "deterministic.json").write_text(json.dumps(out, indent=1) + "\n")
    print("deterministic.json:", out)


def flow_sends(trace: str) -> list[list[tuple[float, int, bool]]]:
    """Each flow's sends (time, segment, retransmission) from a ``trace-queue`` file of the
    link all flows enter: ``+`` events of tcp packets, by the source agent's port (flows are
    attached in order, so port k is flow k)."""
    out: dict[int, list[tuple[float, int, bool]]] = {}
    highest: dict[int, int] = {}
    for ln in trace.splitlines():
        f = ln.split()
        if len(f) < 12 or f[0] != "+" or f[4] != "tcp":
            continue
        k, seq = int(f[8].split(".")[1]), int(f[10])
        out.setdefault(k, []).append((float(f[1]), seq, seq <= highest.get(k, -1)))
        highest[k] = max(highest.get(k, -1), seq)
    return [out[k] for k in sorted(out)]


def make_replays() -> None:
    cases = []
    for name, (queue, variant, starts) in nc.REPLAYS.items():
        sc = nc.exact_path(queue, variant, starts)
        with tempfile.TemporaryDirectory() as wd:
            tr = Path(wd) / "link.tr"
            rep = run_network(sc, monitor_links=[0], red_sample_s=None, trace_file=str(tr))
            sends = flow_sends(tr.read_text())
        end = sc["duration_s"]
        flows = []
        for f, s in zip(rep.flows, sends, strict=True):
            s = [x for x in s if x[0] < end]
            flows.append({"n_sends": len(s), "digests": digests(s), "timeouts": f["timeouts"]})
        lk = rep.links[0]
        cases.append({"case": name, "queue": queue, "variant": variant, "starts": starts,
                      "flows": flows, "early_drops": lk["early_drops"],
                      "forced_drops": lk["forced_drops"]})
        print(f"red_replays {name}: {sum(f['n_sends'] for f in flows)} sends, "
              f"{lk['queue_drops']:.0f} drops", flush=True)
    (OUT / "red_replays.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


TABLE_SEEDS = tuple(range(1, 11))
TABLE_FLOWS = (1, 2, 5, 20)


def table_row(rep_flows: list[dict], link: dict, sc: dict) -> dict:
    """One run of the table: the flows' sums and the link's drops (either side's names)."""
    cap = 10e6 / (8 * 1500)
    return {"goodput_norm": sum(f["packets_delivered"] for f in rep_flows)
            / (sc["duration_s"] * cap),
            "timeouts": sum(f["timeouts"] for f in rep_flows),
            "fast_retransmits": sum(f["fast_retransmits"] for f in rep_flows),
            "early_drops": link["early_drops"], "forced_drops": link["forced_drops"]}


def make_table() -> None:
    rows = []
    for q in nc.TABLE_QUEUES:
        for n in TABLE_FLOWS:
            for s in TABLE_SEEDS:
                sc = nc.red_table(q, n, s)
                rep = run_network(sc, monitor_links=[0], red_sample_s=None)
                rows.append({"queue": q, "flows": n, "seed": s,
                             **table_row(rep.flows, rep.links[0], sc)})
            print(f"red_table {q} {n} flows: done", flush=True)
    _write(OUT / "red_table.csv", rows)


def _grid_run(job: tuple[dict, int]) -> dict:
    case, seed = job
    sc = ng.scenario(case, seed)
    rep = run_network(sc, monitor_links=[0], red_sample_s=None)
    return {"case": case["case"], "seed": seed,
            **ng.metrics(case, sc, rep.flows, rep.links[0], rep.traffic)}


def make_grid(only: str | None = None) -> None:
    """The grid; with ``only`` (a glob over case names) only the matching cases are run
    again, their rows replacing theirs in grid.csv (the design must be unchanged)."""
    from concurrent.futures import ProcessPoolExecutor

    cases = ng.design()
    (OUT / "grid.json").write_text(json.dumps(
        {"seeds": list(ng.SEEDS), "duration_s": ng.DURATION_S, "cases": cases,
         "fast": ng.fast_subset(cases)}, indent=1) + "\n")
    rows = []
    if only is not None:
        with open(OUT / "grid.csv") as f:
            old = list(csv.DictReader(f))
        if {r["case"] for r in old} != {c["case"] for c in cases}:
            raise SystemExit("grid.csv is of another design: run the whole grid")
        cases = [c for c in cases if fnmatch.fnmatchcase(c["case"], only)]
        if not cases:
            raise SystemExit(f"--cases {only!r} matches no case of the grid")
        names = {c["case"] for c in cases}
        rows = [{k: v for k, v in r.items() if v != ""} for r in old
                if r["case"] not in names]
    jobs = [(c, s) for c in cases for s in ng.SEEDS]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(2) as ex:
        for k, row in enumerate(ex.map(_grid_run, jobs, chunksize=4), start=1):
            rows.append(row)
            if k % 100 == 0:
                print(f"grid: {k}/{len(jobs)} runs, {time.perf_counter() - t0:.0f} s", flush=True)
    order = {c["case"]: i for i, c in enumerate(ng.design())}
    rows.sort(key=lambda r: (order[r["case"]], int(r["seed"])))
    names = sorted({m for r in rows for m in r} - {"case", "seed"})
    with open(OUT / "grid.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["case", "seed", *names])
        w.writeheader()
        w.writerows(rows)
    print(f"grid.csv: {len(cases)} cases x {len(ng.SEEDS)} seeds run")


def _write(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["average", "dumbbell", "five", "deterministic", "replays",
                                       "table", "grid"])
    ap.add_argument("--cases", metavar="GLOB",
                    help="with --only grid: run again only the grid's cases matching GLOB "
                         "(e.g. 'dumbbell/*'), keeping the other rows of grid.csv")
    a = ap.parse_args()
    if a.cases is not None and a.only != "grid":
        ap.error("--cases needs --only grid")
    OUT.mkdir(exist_ok=True)
    jobs = {"average": make_average, "deterministic": make_deterministic, "five": make_five,
            "dumbbell": make_dumbbell, "replays": make_replays, "table": make_table,
            "grid": lambda: make_grid(a.cases)}
    for name, job in jobs.items():
        if a.only in (None, name):
            job()
    return 0


if __name__ == "__main__":
    sys.exit(main())
