"""Issue 24's cases in the experiment layer and the results commands, one test each: results
that cannot go stale or vanish, stores that are not stores, filters that are parsed and never
evaluated, arguments refused before any work, sweeps bounded up front."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from _shared import PFTK_OVERLAY
from cli_in_process import assert_refused, cli

from lossytcp import ParameterError
from lossytcp import experiments as ex
from lossytcp.experiments import Experiment, ExperimentError, ModelOverlay, Store
from lossytcp.experiments.executors import LocalPool, Serial
from lossytcp.experiments.runner import DefinitionChanged
from lossytcp.experiments.spec import MAX_RUNS
from lossytcp.experiments.store import _retrying, write_runs

pytest.importorskip("lossytcp._sim")

FIRST = """
name = "edit"
variants = ["tahoe", "newreno", "sack"]
seeds = 2
[scenario]
duration_s = 2
channel = "bernoulli:p={p}"
[sweep]
p = [0.01, 0.02, 0.03]
"""
EDITED = FIRST.replace('variants = ["tahoe", "newreno", "sack"]', 'variants = ["sack"]') \
              .replace("p = [0.01, 0.02, 0.03]", "p = [0.01]")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``lossytcp ARGS`` run in ``cwd``, in this process (a subprocess costs seconds of
    start-up; the tests that need one, for signals or concurrency, start their own)."""
    return cli(*args, cwd=cwd)


_refused = assert_refused


def _small(name: str = "small", **kw) -> Experiment:
    args = dict(name=name, scenario=dict(duration_s=1, channel="bernoulli:p={p}"),
                sweep={"p": [0.01, 0.05]}, variants=["tahoe", "sack"], seeds=2)
    args.update(kw)
    return Experiment(**args)


# ------------------------------------------------------------------ results cannot go stale
def test_an_edited_definition_under_a_stored_name_is_refused_or_replaces_it(tmp_path):
    (tmp_path / "e.toml").write_text(FIRST)
    assert _cli(tmp_path, "run", "e.toml", "--workers", "0").returncode == 0
    (tmp_path / "e.toml").write_text(EDITED)
    r = _cli(tmp_path, "run", "e.toml", "--workers", "0")
    _refused(r, "experiment 'edit'", "changed: sweep.p, variants", "--replace", "new name")
    listed = json.loads(_cli(tmp_path, "results", "list", "--json").stdout)
    assert listed[0]["planned_runs"] == 18              # the stored one, untouched
    r = _cli(tmp_path, "run", "e.toml", "--workers", "0", "--replace", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["computed_runs"] == 0   # its runs were in the store
    listed = json.loads(_cli(tmp_path, "results", "list", "--json").stdout)
    assert (listed[0]["points"], listed[0]["planned_runs"]) == (1, 2)
    for args in (["show", "edit", "--runs"], ["show", "edit"]):
        rows = json.loads(_cli(tmp_path, "results", *args, "--json").stdout)
        assert {(x["variant"], x["p"]) for x in rows} == {("sack", 0.01)}, rows
    r = _cli(tmp_path, "results", "export", "edit", "--runs", "--csv", "runs.csv")
    assert r.returncode == 0 and len(pd.read_csv(tmp_path / "runs.csv")) == 2
    # back to the first definition: nothing to compute, all 18 rows listed again
    (tmp_path / "e.toml").write_text(FIRST)
    r = _cli(tmp_path, "run", "e.toml", "--workers", "0", "--replace", "--json")
    assert json.loads(r.stdout)["computed_runs"] == 0
    assert len(json.loads(_cli(tmp_path, "results", "show", "edit", "--runs", "--json")
                          .stdout)) == 18


def test_a_changed_level_or_description_is_no_new_definition(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    ex.run(_small(), store=st, workers=0)
    r = ex.run(_small(level=0.99, description="again"), store=st, workers=0)
    assert r.computed == 0 and st.definition("small")["level"] == 0.99
    with pytest.raises(DefinitionChanged, match="changed: seeds") as e:
        ex.run(_small(seeds=3), store=st, workers=0)
    assert isinstance(e.value, ParameterError)


def test_changed_inputs_under_the_same_definition_list_only_the_new_runs(tmp_path):
    """A trace file edited between two runs: same definition, other runs. The store lists
    the new ones only (before: the members kept pointing at the old runs)."""
    trace = tmp_path / "t.txt"
    trace.write_text("0001" * 50)
    exp = Experiment(name="tr", scenario=dict(duration_s=1, channel=f"trace:file={trace}"),
                     variants=["sack"], seeds=2)
    st = Store(tmp_path / "s.sqlite")
    a = ex.run(exp, store=st, workers=0)
    trace.write_text("0" * 200)
    b = ex.run(exp, store=st, workers=0)
    assert b.computed == 2
    rows = st.runs("tr")
    assert len(rows) == 2 and set(rows["key"]) == b._keys != a._keys
    assert (rows["channel_losses"] == 0).all()


@pytest.mark.parametrize("executor", [Serial, lambda: LocalPool(2)])
def test_an_in_memory_store_returns_its_runs(executor):
    with executor() as pool:
        r = ex.run(_small(), store=":memory:", executor=pool)
    assert r.computed == 8 and len(r.runs()) == 8
    assert r.summary(["goodput_norm"])["n"].tolist() == [2, 2, 2, 2]


def test_two_runs_starting_together_on_a_new_store_both_succeed(tmp_path):
    (tmp_path / "e.toml").write_text(EDITED)
    for i in range(2):
        store = f"new{i}.sqlite"
        procs = [subprocess.Popen([sys.executable, "-m", "lossytcp", "run", "e.toml",
                                   "--store", store, "--workers", "1", "--json"], cwd=tmp_path,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
        con = sqlite3.connect(tmp_path / store)
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone() == (2, 2)


class _Locked:
    """A connection whose first statements fail as SQLite fails two connections switching a
    new database to WAL at once: "database is locked" at once, busy handler or not."""

    def __init__(self, fails: int) -> None:
        self.fails = fails
        self.calls = 0

    def execute(self, sql: str):
        self.calls += 1
        if self.calls <= self.fails:
            raise sqlite3.OperationalError("database is locked")
        con = sqlite3.connect(":memory:")
        return con.execute("SELECT 'wal'")


def test_the_wal_switch_is_retried_while_the_database_is_locked():
    con = _Locked(fails=5)
    assert _retrying(con, "PRAGMA journal_mode = WAL", time.monotonic() + 10) == [("wal",)]
    assert con.calls == 6
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _retrying(_Locked(fails=10**6), "PRAGMA journal_mode = WAL", time.monotonic() + 0.2)


class _InterruptedCommit:
    """A connection on which Ctrl-C arrives once COMMIT has done its work (or just before)."""

    def __init__(self, con: sqlite3.Connection, after: bool) -> None:
        self.con, self.after = con, after

    @property
    def in_transaction(self) -> bool:
        return self.con.in_transaction

    def execute(self, sql: str, *args):
        if sql == "COMMIT" and not self.after:
            raise KeyboardInterrupt
        out = self.con.execute(sql, *args)
        if sql == "COMMIT":
            raise KeyboardInterrupt
        return out

    def executemany(self, sql: str, rows):
        return self.con.executemany(sql, rows)


@pytest.mark.parametrize("after", [True, False])
def test_ctrl_c_at_commit_is_a_plain_interrupt(tmp_path, after):
    st = Store(tmp_path / "s.sqlite")
    row = dict(key="k", engine_version="t", variant="sack", seed=1, scenario="{}",
               metrics="{}", report="{}")
    with pytest.raises(KeyboardInterrupt):      # never "cannot rollback"
        write_runs(_InterruptedCommit(st._con, after), [row])
    assert not st._con.in_transaction
    assert st.run_count() == (1 if after else 0)   # committed, or rolled back: never half


# ------------------------------------------------------------------- stores that are not
def _bad_stores(root: Path) -> dict[str, Path]:
    garbage = root / "garbage.sqlite"
    garbage.write_bytes(os.urandom(4096))
    empty = root / "empty.sqlite"
    empty.write_bytes(b"")
    directory = root / "dir.sqlite"
    directory.mkdir()
    return {"garbage": garbage, "empty": empty, "directory": directory}


@pytest.mark.parametrize("which, run_msg, read_msg", [
    ("garbage", "is not an SQLite results database", "is not an SQLite results database"),
    ("directory", "is a directory", "no such results database"),
    ("empty", None, "holds no lossytcp results"),
])
def test_unusable_store_paths_are_clear_errors(tmp_path, which, run_msg, read_msg):
    (tmp_path / "e.toml").write_text(FIRST)
    store = str(_bad_stores(tmp_path)[which])
    r = _cli(tmp_path, "run", "e.toml", "--workers", "0", "--store", store)
    if run_msg is None:
        assert r.returncode == 0, r.stderr            # an empty file is a new database
    else:
        _refused(r, "parameter 'store'", run_msg)
    if run_msg is None:
        return
    for args in (["list"], ["show", "edit"], ["export", "edit", "--csv", "x.csv"]):
        _refused(_cli(tmp_path, "results", *args, "--store", store), "'store'", read_msg)


def test_an_empty_store_file_is_not_listed_as_results(tmp_path):
    empty = _bad_stores(tmp_path)["empty"]
    _refused(_cli(tmp_path, "results", "list", "--store", str(empty)),
             "holds no lossytcp results")


def _read_only(paths: list[Path]) -> None:
    """Make files and directories read-only, for root too (chattr +i), else skip."""
    for p in paths:
        p.chmod(0o555 if p.is_dir() else 0o444)
    if os.geteuid() == 0:
        r = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True)
        if r.returncode != 0:
            pytest.skip("root writes anything, and chattr +i is not available here")


def _writable_again(paths: list[Path]) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)
    for p in paths:
        p.chmod(0o755 if p.is_dir() else 0o644)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_a_read_only_store_is_read_but_not_written(tmp_path):
    """A store on a read-only disk (or an archive): results read it, run is refused with a
    message instead of a traceback, and so is an export into the read-only place."""
    root = tmp_path / "ro"
    root.mkdir()
    (root / "e.toml").write_text(FIRST)
    assert _cli(root, "run", "e.toml", "--workers", "0").returncode == 0
    store = root / "lossytcp-results.sqlite"
    assert not list(root.glob("lossytcp-results.sqlite-*"))   # closed cleanly: no WAL left
    locked = [store, root / "e.toml", root]
    _read_only(locked)
    try:
        r = _cli(root, "results", "show", "edit", "--json")
        assert r.returncode == 0 and len(json.loads(r.stdout)) == 9, r.stderr
        assert _cli(root, "results", "list").returncode == 0
        _refused(_cli(root, "run", "e.toml", "--workers", "0"), "'store'", "cannot be written")
        _refused(_cli(root, "results", "export", "edit", "--csv", "out.csv"), "'csv'",
                 "cannot be written")
    finally:
        _writable_again(locked)


def test_export_to_a_directory_is_refused(tmp_path):
    (tmp_path / "e.toml").write_text(FIRST)
    assert _cli(tmp_path, "run", "e.toml", "--workers", "0").returncode == 0
    (tmp_path / "d").mkdir()
    _refused(_cli(tmp_path, "results", "export", "edit", "--csv", "d"), "'csv'",
             "is a directory")
    _refused(_cli(tmp_path, "results", "export", "edit", "--parquet", "no/such/dir/x.pq"),
             "'parquet'", "directory does not exist")


# --------------------------------------------------------------------------- --where
@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    root = tmp_path_factory.mktemp("stored")
    (root / "e.toml").write_text(FIRST)
    assert _cli(root, "run", "e.toml", "--workers", "0").returncode == 0
    return root


@pytest.mark.parametrize("where, what", [
    ("@pd.io.common.os.system('touch PWNED')", "'@'"),
    ("p.__class__ == 1", "attribute access"),
    ("__import__('os').system('touch PWNED')", "a call"),
    ("variant[0] == 's'", "a subscript"),
    ("p * 2 > 0.01", "arithmetic"),
    ("(lambda: 1)() == 1", "a call"),
    ("p in p", "after 'in'"),
    ("[x for x in 'ab'] == 1", "a comprehension"),
])
def test_where_refuses_anything_but_comparisons(stored, where, what):
    r = _cli(stored, "results", "show", "edit", "--where", where)
    _refused(r, "parameter 'where'", what)
    assert not (stored / "PWNED").exists()


@pytest.mark.parametrize("where, n", [
    ("variant == 'sack' and p < 0.02", 2),
    ("not (seed in [1]) or 0.01 < p <= 0.02", 12),
    ("variant in ('sack', 'tahoe') and not p == 0.03", 8),
    ("`goodput_norm` >= 0 and seed != 3", 18),
    ("p > 1", 0),
])
def test_where_filters_the_runs(stored, where, n):
    with Store(stored / "lossytcp-results.sqlite", readonly=True) as st:
        assert len(st.runs("edit", where=where)) == n
    r = _cli(stored, "results", "show", "edit", "--runs", "--where", where, "--json")
    assert r.returncode == 0 and len(json.loads(r.stdout)) == n, r.stderr


def test_where_names_an_unknown_column(stored):
    _refused(_cli(stored, "results", "show", "edit", "--where", "alpha < 1"),
             "names no column 'alpha'", "variant")


# ------------------------------------------------------- results keep the model, JSON cells
def test_results_show_and_export_keep_the_model_column_and_write_json(tmp_path):
    exp = FIRST + PFTK_OVERLAY
    (tmp_path / "e.toml").write_text(exp)
    run = _cli(tmp_path, "run", "e.toml", "--workers", "0")
    assert "pftk: throughput_pps" in run.stdout
    rows = json.loads(_cli(tmp_path, "results", "show", "edit", "--json").stdout)
    col = "pftk: throughput_pps"
    assert all((r[col] is None) == (r["variant"] != "sack") for r in rows), rows
    assert _cli(tmp_path, "results", "export", "edit", "--runs", "--csv", "r.csv",
                "--parquet", "r.parquet").returncode == 0
    df = pd.read_csv(tmp_path / "r.csv")
    assert col in df and df[col].notna().sum() == 6
    causes = json.loads(df["loss_causes"].iloc[0])          # JSON, not a Python repr
    assert set(causes) >= {"channel", "queue"}
    pytest.importorskip("pyarrow")
    assert json.loads(pd.read_parquet(tmp_path / "r.parquet")["loss_causes"].iloc[0])


# ---------------------------------------------------------- refused before any work starts
@pytest.mark.parametrize("kwargs, name, fragment", [
    (dict(workers=-3), "workers", ">= 0"),
    (dict(workers=0, dask="local"), "workers", "contradicts"),
    (dict(progress="x"), "progress", "function"),
    (dict(progress=lambda done: None), "progress", "two arguments"),
    (dict(planning=lambda: None), "planning", "two arguments"),
    (dict(store=42), "store", "path"),
    (dict(target_batch_s=-1), "target_batch_s", "[0, 3600]"),
])
def test_run_arguments_are_checked_first(tmp_path, kwargs, name, fragment):
    with pytest.raises(ParameterError) as e:
        ex.run(_small(), **{"store": tmp_path / "s.sqlite", **kwargs})
    assert e.value.name == name and fragment in str(e.value)
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.parametrize("scenario, key, fragment", [
    (lambda p: 42, "scenario", "must return a dict"),
    (lambda p: {"engine_scenario": {"seed": 1, "duration_s": 1}}, "scenario.engine_scenario",
     "the engine refuses it"),
    (lambda p: {"engine_scenario": _engine(duration_s=1e300)}, "scenario.engine_scenario",
     "duration_s = 1e300"),
    (lambda p: {"engine_scenario": _engine(min_rto_s=100.0)}, "scenario.engine_scenario",
     "must be >= min_rto_s = 100"),
])
def test_scenario_functions_and_engine_scenarios_are_checked_at_planning(tmp_path, scenario,
                                                                         key, fragment):
    exp = Experiment(name="f", scenario=scenario, variants=["sack"], seeds=1)
    with pytest.raises(ExperimentError) as e:
        ex.run(exp, store=tmp_path / "s.sqlite", workers=0)
    assert e.value.name == key and fragment in str(e.value), str(e.value)


def _engine(**tcp_or_top):
    from lossytcp.sim import build_scenario

    sc = build_scenario("sack", duration_s=1)
    for k, x in tcp_or_top.items():
        if k in sc:
            sc[k] = x
        else:
            sc["flows"][0]["tcp"][k] = x
    return sc


def test_a_model_parameter_function_must_return_a_dict():
    exp = _small(models=[ModelOverlay("mathis", params=lambda p: 42)])
    with pytest.raises(ExperimentError, match="must return a dict"):
        ex.validate(exp)


@pytest.mark.parametrize("edit, key, fragment", [
    (lambda kw: kw.update(variants=["sack", "tahoe", "sack"]), "variants[2]", "twice"),
    (lambda kw: kw.update(sweep={"p": [0.01], "nothing": [1, 2]}), "sweep.nothing",
     "used by nothing"),
    (lambda kw: kw.update(sweep={"p": ex.linrange(0.0, 0.1, 300_000)}, seeds=5), "sweep",
     f"at most {MAX_RUNS:,}"),
])
def test_nonsense_experiments_are_refused(edit, key, fragment):
    kw = dict(name="n", scenario=dict(duration_s=1, channel="bernoulli:p={p}"),
              sweep={"p": [0.01]}, variants=["sack"], seeds=1)
    edit(kw)
    with pytest.raises(ExperimentError) as e:
        Experiment(**kw)
    assert e.value.name == key and fragment in str(e.value)


def test_an_axis_named_after_a_parameter_or_used_by_a_model_is_used():
    Experiment(name="a", scenario=dict(duration_s=1), sweep={"window": [10, 20]})
    Experiment(name="b", scenario=dict(duration_s=1), sweep={"q": [1, 2]},
               models=[ModelOverlay("mathis", params=dict(p="{q}", rtt_s=0.1))])


def test_an_absurd_sweep_is_refused_at_once(tmp_path):
    """step = 1e-12 over [0, 1]: 10^12 points, refused before a list of them exists
    (before: not refused, and growing 80 MB/s)."""
    (tmp_path / "e.toml").write_text(FIRST.replace("p = [0.01, 0.02, 0.03]",
                                                   "p = {start = 0, stop = 1, step = 1e-12}"))
    t0 = time.perf_counter()
    _refused(_cli(tmp_path, "run", "e.toml"), "sweep.p", "at most 1,000,000")
    assert time.perf_counter() - t0 < 30
    with pytest.raises(ParameterError, match="at most"):
        ex.grid(0, 1, 1e-12)


def test_a_large_sweep_reports_its_planning(tmp_path):
    seen = []
    exp = Experiment(name="big", scenario=dict(duration_s=0.01, channel="bernoulli:p={p}"),
                     sweep={"p": ex.linrange(0.0, 0.01, 1500)}, variants=["sack"], seeds=2)
    with Serial() as pool:
        ex.run(exp, store=":memory:", executor=pool,
               planning=lambda d, t: seen.append((d, t)))
    assert seen[0][0] == 0 and seen[-1][0] >= 1500 and all(t == 4500 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("args, fragment", [
    (["run", "e.toml", "--metric", "nonexistent"], "parameter 'metric'"),
    (["run", "e.toml", "--workers", "0", "--dask", "local"], "contradicts"),
])
def test_cli_run_arguments_are_refused_before_the_runs(tmp_path, args, fragment):
    (tmp_path / "e.toml").write_text(FIRST)
    _refused(_cli(tmp_path, *args), fragment)
    assert not (tmp_path / "lossytcp-results.sqlite").exists()


def test_results_show_of_an_unknown_metric_is_refused(stored):
    _refused(_cli(stored, "results", "show", "edit", "--metric", "nonexistent"),
             "parameter 'metric'", "goodput_norm")


def test_a_binary_experiment_file_is_a_clear_error(tmp_path):
    (tmp_path / "e.toml").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(200))
    _refused(_cli(tmp_path, "run", "e.toml"), "e.toml", "not a text (UTF-8) TOML file")
    _refused(_cli(tmp_path, "run", "."), "is a directory")


def test_an_unreachable_dask_scheduler_is_a_clear_error():
    pytest.importorskip("distributed")
    from lossytcp.experiments.executors import DaskExecutor

    # A refused connection is refused at once, whatever the timeout (Dask alone retried it
    # for the whole 20 s).
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="no Dask scheduler answered") as e:
        DaskExecutor("tcp://127.0.0.1:9", timeout_s=60)
    assert e.value.name == "dask" and time.perf_counter() - t0 < 10
    with pytest.raises(ParameterError, match="names no host"):
        DaskExecutor("tcp://:8786")


def test_a_server_that_is_no_dask_scheduler_is_a_clear_error():
    """Something listens but speaks another protocol (a web server, a proxy): Dask reads its
    bytes as a frame length (a MemoryError of exabytes); the user gets one clear error."""
    import socket
    import threading

    pytest.importorskip("distributed")
    from lossytcp.experiments.executors import DaskExecutor

    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]

    def answer():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 8)
            c.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        with pytest.raises(ParameterError, match="no Dask scheduler answered") as e:
            DaskExecutor(f"tcp://127.0.0.1:{port}", timeout_s=3)
        assert e.value.name == "dask"
    finally:
        srv.close()


def test_a_worker_error_reaches_the_caller_as_itself(tmp_path):
    """An error raised in a pool worker (here: the engine refusing a scenario that only
    the engine checks) comes back as the same ParameterError, not a pickling failure."""
    from lossytcp.errors import ScenarioError
    from lossytcp.experiments.executors import run_batch

    bad = json.dumps(_engine(duration_s=-1))
    with LocalPool(1) as pool, pytest.raises(ScenarioError, match="engine refused"):
        list(pool.run([[("k", "sack", 1, bad)]], None))
    with pytest.raises(ScenarioError, match="engine refused"):
        run_batch([("k", "sack", 1, bad)])


def test_definition_changed_is_named_in_the_python_api(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    ex.run(_small(), store=st, workers=0)
    with pytest.raises(DefinitionChanged) as e:
        ex.run(_small(sweep={"p": [0.02]}), store=st, workers=0)
    assert e.value.changed == ["sweep.p"] and "replace=True" in str(e.value)
    r = ex.run(_small(sweep={"p": [0.02]}), store=st, workers=0, replace=True)
    assert math.isclose(r.runs()["p"].unique()[0], 0.02) and len(st.runs("small")) == 4
