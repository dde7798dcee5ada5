"""The experiment layer's costs: per-run overhead of executor and store, batching, and scaling.

    python bench/experiments.py                      # overhead table (about a minute)
    python bench/experiments.py --runs 10000         # the issue's 10,000 short runs
    python bench/experiments.py --figures --quick    # reproduce --all: 1, 2 workers, Dask
    python bench/experiments.py --json

Overhead: a sweep of N short runs (NewReno, Bernoulli p = 0.01, 2 Mb/s, RTT 20 ms, a few
simulated seconds each) through each executor into a fresh store; the engine's own time is
measured by calling the extension directly on the same scenarios in one process, so

    overhead per run = (wall x workers - engine time) / N

is what the experiment layer adds per run (expansion and keys in the parent, pickling,
scheduling, JSON, one SQLite commit per run), spread over the workers. Each executor runs
once with the default batching (batches of ~0.25 s of estimated engine time, at least 4 per
worker) and once with one run per task. Numbers are for this machine (2 shared cores): run it,
do not trust them elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from lossytcp.experiments import Experiment, linrange, run  # noqa: E402
from lossytcp.experiments.executors import DaskExecutor, LocalPool, Serial  # noqa: E402


def sweep(n: int, duration_s: float) -> Experiment:
    per = max(1, n // 100)
    return Experiment(name="bench", scenario=dict(duration_s=duration_s,
                                                  channel="bernoulli:p={p}"),
                      sweep={"p": linrange(0.005, 0.05, 100)}, variants=["newreno"],
                      seeds=per)


def engine_only(exp: Experiment) -> float:
    from lossytcp import _sim
    from lossytcp.experiments import keys

    specs = [keys.dumps(exp.run_spec(p, s).scenario) for p in exp.points()
             for s in exp.seed_list(exp.initial_seed_count())]
    t0 = time.perf_counter()
    for sc in specs:
        _sim.run_json(sc)
    return time.perf_counter() - t0


def overhead(n: int, duration_s: float) -> list[dict]:
    # warm up: imports (scipy for the summaries) and caches are paid once per process, not
    # per run; measured separately as the executors' start-up
    with tempfile.TemporaryDirectory() as d:
        run(sweep(100, duration_s), store=Path(d) / "w.sqlite", executor=Serial()).summary()
    exp = sweep(n, duration_s)
    n = len(exp.points()) * exp.initial_seed_count()
    eng = engine_only(exp)
    rows = [dict(executor="engine alone (one process)", workers=1, batching="-", runs=n,
                 wall_s=eng, per_run_ms=1e3 * eng / n, overhead_ms=0.0)]
    cases = [("serial (in process)", lambda: Serial(), "default", 0.25),
             ("local pool", lambda: LocalPool(1), "default", 0.25),
             ("local pool", lambda: LocalPool(2), "default", 0.25),
             ("local pool", lambda: LocalPool(2), "1 run/task", 0.0),
             ("dask LocalCluster", lambda: DaskExecutor("local", 2), "default", 0.25),
             ("dask LocalCluster", lambda: DaskExecutor("local", 2), "1 run/task", 0.0)]
    for name, make, batching, target in cases:
        with tempfile.TemporaryDirectory() as d:
            t_start = time.perf_counter()
            ex = make()
            t_up = time.perf_counter() - t_start
            try:
                t0 = time.perf_counter()
                r = run(exp, store=Path(d) / "s.sqlite", executor=ex, target_batch_s=target)
                wall = time.perf_counter() - t0
            finally:
                ex.close()
            assert r.computed == n
        w = max(1, ex.workers)
        rows.append(dict(executor=name, workers=w, batching=batching, runs=n, wall_s=wall,
                         startup_s=t_up, per_run_ms=1e3 * wall / n,
                         overhead_ms=1e3 * (wall * w - eng) / n))
    return rows


def figures(quick: bool) -> list[dict]:
    import shutil

    from lossytcp.figures import all_figures, paper004, reproduce

    rows = []
    for label, make in (("local pool, 1 worker", lambda: LocalPool(1)),
                        ("local pool, 2 workers", lambda: LocalPool(2)),
                        ("dask LocalCluster, 2 workers", lambda: DaskExecutor("local", 2))):
        # every configuration synthesizes paper 004's Jakes traces again
        shutil.rmtree(paper004.TRACE_DIR, ignore_errors=True)
        paper004.jakes_trace.cache_clear()
        with tempfile.TemporaryDirectory() as d:
            ex = make()
            t0 = time.perf_counter()
            runs = 0
            try:
                for f in all_figures():
                    runs += reproduce(f, quick=quick, out=d, executor=ex).computed
            finally:
                ex.close()
            rows.append(dict(executor=label, size="quick" if quick else "full", runs=runs,
                             wall_s=time.perf_counter() - t0))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--duration", type=float, default=2.0, help="simulated s per run")
    ap.add_argument("--figures", action="store_true", help="time reproduce --all instead")
    ap.add_argument("--quick", action="store_true", help="with --figures: quick size")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = figures(a.quick) if a.figures else overhead(a.runs, a.duration)
    if a.json:
        print(json.dumps(rows))
        return 0
    import pandas as pd

    print(f"cores: {os.cpu_count()}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
