"""The store under concurrent writers, SIGKILL and resumption, and executors giving the same
rows."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from lossytcp.experiments import (
    Experiment,
    SequentialRule,
    Store,
    logrange,
    run,
)
from lossytcp.experiments.executors import LocalPool, Serial
from lossytcp.experiments.store import PROVENANCE

ROOT = Path(__file__).resolve().parents[2]


def _row(i: int, who: str) -> dict:
    return dict(key=f"k{i:05d}", engine_version="t", variant="sack", seed=i, scenario="{}",
                metrics=json.dumps({"goodput_norm": i / 1000}), report="{}", wall_s=0.0,
                worker=who, finished_at=None)


def _writer(path: str, who: int) -> None:
    st = Store(path)
    rows = [_row(i, str(who)) for i in range(200)] + [_row(1000 + 100 * who + i, str(who))
                                                       for i in range(50)]
    random.Random(who).shuffle(rows)
    for r in rows:                       # one transaction per row, as the workers do
        st.put_runs([r])
    st.close()


def test_concurrent_writers_neither_corrupt_nor_duplicate(tmp_path):
    path = str(tmp_path / "s.sqlite")
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone() == (400, 400)


SWEEP = """
name = "killme"
variants = ["tahoe", "newreno", "sack"]
seeds = 6
[scenario]
rate_bps = 10e6
rtt_s = 0.05
packet_size_bytes = 1000
window = 64
duration_s = 120
channel = "bernoulli:p={p}"
[sweep]
p = {log = [1e-3, 5e-2], num = 12}
"""


def _table(store_path: Path, name: str) -> pd.DataFrame:
    df = Store(store_path).runs(name)
    return (df.drop(columns=[c for c in (*PROVENANCE, "experiment") if c in df])
            .sort_values("key").reset_index(drop=True))


def _cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "lossytcp", *args], capture_output=True,
                          text=True, cwd=kw.pop("cwd"), timeout=600, **kw)


def test_sigkill_at_a_random_moment_then_rerun_loses_and_duplicates_nothing(tmp_path):
    exp_file = tmp_path / "sweep.toml"
    exp_file.write_text(SWEEP)
    killed = tmp_path / "killed.sqlite"
    total = 3 * 12 * 6
    proc = subprocess.Popen([sys.executable, "-m", "lossytcp", "run", str(exp_file),
                             "--store", str(killed), "--workers", "2"],
                            cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # kill once some runs are committed and before the end, at a random moment between
    t0 = time.time()
    while time.time() - t0 < 120:
        if killed.exists():
            try:
                n = sqlite3.connect(killed).execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= 5:
                break
        time.sleep(0.05)
    time.sleep(random.uniform(0.0, 0.5))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    con = sqlite3.connect(killed)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    con.close()
    assert 5 <= before < total        # killed in the middle, not after the end
    rerun = _cli(["run", str(exp_file), "--store", str(killed), "--workers", "2", "--json"],
                 cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    out = json.loads(rerun.stdout)
    assert out["planned_runs"] == total and out["computed_runs"] == total - before
    clean = tmp_path / "clean.sqlite"
    assert _cli(["run", str(exp_file), "--store", str(clean), "--workers", "0", "--json"],
                cwd=tmp_path).returncode == 0
    a, b = _table(killed, "killme"), _table(clean, "killme")
    assert len(a) == total and a["key"].is_unique
    pd.testing.assert_frame_equal(a, b)


def _small(seeds=3) -> Experiment:
    return Experiment(name="same", scenario=dict(duration_s=20,
                                                 channel="ge:alpha={alpha},beta=0.3,advance=slot"),
                      sweep={"alpha": logrange(1e-3, 3e-2, 3)}, variants=["tahoe", "sack"],
                      seeds=seeds)


def test_local_pool_and_dask_local_cluster_give_identical_rows(tmp_path):
    pytest.importorskip("distributed")
    from lossytcp.experiments.executors import DaskExecutor

    with LocalPool(2) as ex:
        run(_small(), store=tmp_path / "local.sqlite", executor=ex)
    with DaskExecutor("local", 2) as ex:
        r = run(_small(), store=tmp_path / "dask.sqlite", executor=ex)
    assert r.computed == 18
    pd.testing.assert_frame_equal(_table(tmp_path / "local.sqlite", "same"),
                                  _table(tmp_path / "dask.sqlite", "same"))


def test_sequential_stopping_is_the_same_on_every_executor(tmp_path):
    rule = SequentialRule(metric="goodput_norm", rel_halfwidth=0.03, min_seeds=3, max_seeds=12,
                          step=3)
    with Serial() as ex:
        a = run(_small(rule), store=tmp_path / "a.sqlite", executor=ex)
    with LocalPool(2) as ex:
        b = run(_small(rule), store=tmp_path / "b.sqlite", executor=ex)
    assert a.planned == b.planned and 18 < a.planned <= 72
    n = a.summary(["goodput_norm"])["n"]
    assert n.min() >= 3 and n.max() <= 12 and n.nunique() > 1    # points stopped differently
    pd.testing.assert_frame_equal(_table(tmp_path / "a.sqlite", "same"),
                                  _table(tmp_path / "b.sqlite", "same"))


def test_a_changed_engine_never_reuses_a_stored_run(tmp_path, monkeypatch):
    import re

    from lossytcp.experiments import keys

    # the engine's version carries a digest of its sources (crates/lossytcp-py/build.rs)
    assert re.fullmatch(r"\d+\.\d+\.\d+\+[0-9a-f]{12}", keys.engine_version())
    store = tmp_path / "s.sqlite"
    assert run(_small(1), store=store, workers=0).computed == 6
    assert run(_small(1), store=store, workers=0).computed == 0
    # the same crate version built from other sources: every run is computed again
    other = keys.engine_version().split("+")[0] + "+000000000000"
    monkeypatch.setattr(keys, "engine_version", lambda: other)
    again = run(_small(1), store=store, workers=0)
    assert again.computed == 6
    assert set(again.runs()["engine_version"]) == {other}
