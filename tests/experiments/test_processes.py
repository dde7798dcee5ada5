"""Nothing left behind (issue 24): `lossytcp run`, `reproduce` and `crosscheck` stopped by Ctrl-C
(SIGINT to the process group, as a terminal sends it, or to the process alone), SIGTERM or
SIGKILL leave no process of theirs running (workers, forkserver, resource tracker), print
one message and no traceback, exit 130 / 143 (-9 for SIGKILL, which allows no message), and
leave the store intact: it passes SQLite's integrity check and a rerun finishes the sweep.
(tests/test_crosscheck_scenarios.py checks crosscheck's ns-2 children the same way.)

Each command runs in a session of its own, so "its processes" are exactly the processes of
that session, whoever their parent is now (a worker orphaned by a SIGKILL keeps the session).
`crosscheck` likewise, its ns-2 child included: ns-2 runs in a session of its own (so that its
whole process group can be killed), so it is followed by pid.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("lossytcp._sim")
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

#: Runs of ~0.1 s each on two workers: busy for a few seconds unless stopped.
SWEEP = """
name = "procs"
variants = ["newreno", "sack"]
seeds = 12
[scenario]
rate_bps = 10e6
duration_s = 60
channel = "bernoulli:p={p}"
[sweep]
p = [0.001, 0.01]
"""
PLANNED = 2 * 2 * 12


def session_processes(sid: int) -> list[str]:
    """Live processes of session ``sid`` (pid and command line)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            out.append(f"{d}: {cmd[:100]}")
    return out


def _runs(store: Path) -> int:
    try:
        con = sqlite3.connect(store, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    # A suite started in the background inherits SIGINT ignored; a terminal gives the
    # default back to the command it starts.
    return subprocess.Popen([sys.executable, "-m", "lossytcp", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _stop(p: subprocess.Popen, store: Path, how: str) -> tuple[int, str, float]:
    """Wait until ``p`` has committed a run (its workers are busy), deliver ``how``, and
    return (exit code, stderr, seconds to exit)."""
    deadline = time.monotonic() + 120
    while _runs(store) < 1 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(random.uniform(0.0, 0.3))
    assert p.poll() is None, ("finished before it was stopped", p.communicate())
    assert len(session_processes(p.pid)) >= 2, session_processes(p.pid)   # a pool at work
    sig, target = {"SIGINT to the group": (signal.SIGINT, "group"),
                   "SIGINT to the process": (signal.SIGINT, "pid"),
                   "SIGTERM": (signal.SIGTERM, "pid"),
                   "SIGKILL": (signal.SIGKILL, "pid")}[how]
    t0 = time.monotonic()
    (os.killpg if target == "group" else os.kill)(p.pid, sig)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"{how}: still running 30 s later (a hang at exit)")
    return p.returncode, err, time.monotonic() - t0


def _nothing_left(sid: int) -> None:
    deadline = time.monotonic() + 5
    while session_processes(sid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert session_processes(sid) == [], "left behind"


def _intact(store: Path) -> int:
    con = sqlite3.connect(store)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        con.close()


EXPECT = {"SIGINT to the group": (130, "interrupted"), "SIGINT to the process": (130,
                                                                               "interrupted"),
          "SIGTERM": (143, "terminated"), "SIGKILL": (-9, None)}


#: Runs of ~0.5 s: a Dask LocalCluster takes a few seconds to start, the sweep must outlast it.
DASK_SWEEP = SWEEP.replace("duration_s = 60", "duration_s = 300")


@pytest.mark.parametrize("pool", ["workers", "dask"])
@pytest.mark.parametrize("how", list(EXPECT))
def test_run_stopped_leaves_nothing_behind_and_the_store_resumes(tmp_path, how, pool):
    """With ``--dask local`` as with the local pool: the cluster's worker processes (spawned
    by nannies in the command's own process) go with it, and a Ctrl-C to the group is the
    command's one message, not a KeyboardInterrupt traceback from every worker."""
    if pool == "dask":
        pytest.importorskip("distributed")
    (tmp_path / "e.toml").write_text(SWEEP if pool == "workers" else DASK_SWEEP)
    store = tmp_path / "s.sqlite"
    p = _start(["run", "e.toml", "--store", str(store),
                *(["--workers", "2"] if pool == "workers" else ["--dask", "local"])], tmp_path)
    code, err, took = _stop(p, store, how)
    want_code, word = EXPECT[how]
    assert code == want_code, (code, err)
    if word is None:
        assert err == ""
    else:
        assert err == f"lossytcp run: {word}\n"          # one message, no traceback
        assert took < 10, took
    _nothing_left(p.pid)
    before = _intact(store)
    assert 1 <= before < PLANNED
    if pool == "dask":
        return                  # resuming is the store's: the local pool case tests it
    r = subprocess.run([sys.executable, "-m", "lossytcp", "run", "e.toml", "--store",
                        str(store), "--workers", "2", "--json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert _intact(store) == PLANNED


@pytest.mark.parametrize("how", list(EXPECT))
def test_reproduce_stopped_leaves_nothing_behind(tmp_path, how):
    store = tmp_path / "out" / "lossytcp-results.sqlite"
    p = _start(["reproduce", "paper000-fig3", "--quick", "--out", "out", "--workers", "2"],
               tmp_path)
    code, err, _ = _stop(p, store, how)
    want_code, word = EXPECT[how]
    assert code == want_code, (code, err)
    assert err == ("" if word is None else f"lossytcp reproduce: {word}\n")
    _nothing_left(p.pid)
    assert _intact(store) >= 1


def _children_named(pid: int, name: str | None = None) -> list[int]:
    """Children of ``pid`` (with the command name ``name``, if given)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            if (name is None or stat.split("(", 1)[1].startswith(f"{name})")) and \
                    int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d))
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (make ns2)")
@pytest.mark.parametrize("how", list(EXPECT))
def test_crosscheck_stopped_leaves_nothing_behind(tmp_path, how):
    p = _start(["crosscheck", "ns2", "--channel", "ge:alpha=0.01,beta=0.2,loss_good=0.001",
                "--duration", "3000s", "--seeds", "2"], tmp_path)
    deadline = time.monotonic() + 120
    while not (ns := _children_named(p.pid, "ns")):
        assert p.poll() is None and time.monotonic() < deadline, "ns-2 never started"
        time.sleep(0.05)
    time.sleep(random.uniform(0.1, 0.4))
    sig, target = {"SIGINT to the group": (signal.SIGINT, os.killpg),
                   "SIGINT to the process": (signal.SIGINT, os.kill),
                   "SIGTERM": (signal.SIGTERM, os.kill),
                   "SIGKILL": (signal.SIGKILL, os.kill)}[how]
    target(p.pid, sig)
    _, err = p.communicate(timeout=30)
    want_code, word = EXPECT[how]
    assert p.returncode == want_code, err
    assert err == ("" if word is None else f"lossytcp crosscheck: {word}\n")
    _nothing_left(p.pid)
    deadline = time.monotonic() + 5
    while any(map(_alive, ns)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, ns)), "ns-2 outlived the command"


def test_a_worker_killed_from_outside_is_one_message_and_the_sweep_resumes(tmp_path):
    (tmp_path / "e.toml").write_text(SWEEP)
    store = tmp_path / "s.sqlite"
    p = _start(["run", "e.toml", "--store", str(store), "--workers", "2"], tmp_path)
    deadline = time.monotonic() + 120
    while _runs(store) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    # the workers are the forkserver's children (the forkserver is the command's child)
    forkserver = [k for k in _children_named(p.pid) if "forkserver" in
                  Path(f"/proc/{k}/cmdline").read_text()]
    assert len(forkserver) == 1, session_processes(p.pid)
    workers = _children_named(forkserver[0])
    assert workers, session_processes(p.pid)
    os.kill(workers[0], signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and err.startswith("lossytcp run: error: a worker process"), err
    assert "Traceback" not in err and err.count("\n") == 1
    _nothing_left(p.pid)
    assert _intact(store) >= 1
    r = subprocess.run([sys.executable, "-m", "lossytcp", "run", "e.toml", "--store",
                        str(store), "--workers", "2"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and _intact(store) == PLANNED, r.stderr


def test_ctrl_c_while_starting_is_one_message_every_time(tmp_path):
    """Ctrl-C in the first second, while numpy, pandas and the engine are being imported:
    an interrupt inside an extension's initialisation became an ImportError traceback, or
    the process ended killed by SIGINT after printing its message (exit -2)."""
    (tmp_path / "e.toml").write_text(SWEEP)
    for delay in (0.2, 0.45, 0.7, 1.0):
        p = _start(["run", "e.toml", "--store", "s.sqlite", "--workers", "0"], tmp_path)
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert (p.returncode, err) == (130, "lossytcp run: interrupted\n"), (delay, err)
        _nothing_left(p.pid)


def test_workers_die_with_the_pool_owner_and_write_nothing_after(tmp_path):
    """SIGKILL of the process owning a LocalPool: its workers (children of the forkserver,
    not of the owner) notice at once, in the middle of a run, and commit nothing more."""
    code = f"""
import sys
from lossytcp import experiments as ex
exp = ex.load({str(tmp_path / 'e.toml')!r})
print("start", flush=True)
ex.run(exp, store={str(tmp_path / 's.sqlite')!r}, workers=2)
"""
    (tmp_path / "e.toml").write_text(SWEEP)
    p = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    store = tmp_path / "s.sqlite"
    _stop(p, store, "SIGKILL")
    _nothing_left(p.pid)
    n = _intact(store)
    time.sleep(1.0)
    assert _intact(store) == n        # no worker went on to write its batch


def test_reproduce_list_into_a_closed_pipe_exits_0(tmp_path):
    """The reader of the output goes away early (``| head``): exit 0, nothing on stderr
    (rich's console exited 1 on the broken pipe)."""
    for _ in range(2):
        r = subprocess.run(f"{sys.executable} -m lossytcp reproduce list | head -3 >/dev/null;"
                           " exit ${PIPESTATUS[0]}", shell=True, capture_output=True,
                           text=True, cwd=tmp_path, executable="/bin/bash", timeout=60)
        assert r.returncode == 0 and r.stderr == "", r.stderr

