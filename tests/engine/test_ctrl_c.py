"""Ctrl-C (a real SIGINT) stops simulate, simulate_seeds and the command line within a second,
with one clean message and exit code 130 (issue 13). Each test runs a child process whose run
would last for years and signals it once it is busy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("lossytcp._sim")

#: How long after SIGINT the child must be gone. The engine looks for Ctrl-C every 50 ms;
#: the rest is the child tidying up on a loaded machine.
BOUND_S = 1.0

CHILD = r"""
import sys, time, lossytcp
print("running", flush=True)
t = None
try:
    if sys.argv[1] == "simulate":
        lossytcp.simulate(duration_s=1e9, rate_bps=1e7)
    else:
        # 20 seeds on 2 threads: 18 wait in the queue, 2 run.
        lossytcp.simulate_seeds(20, duration_s=1e9, rate_bps=1e7, threads=2)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(42)
print("finished", flush=True)
"""


def _interrupt(argv: list[str], settle_s: float = 1.0) -> tuple[subprocess.CompletedProcess, float]:
    """Start ``argv``, wait until it prints a line (or for the CLI, ``settle_s``), let it run,
    send one SIGINT and time how long it takes to exit."""
    # A suite started as a background job (``nohup make test &``) inherits SIGINT ignored;
    # the child gets the default back, as a terminal would give it.
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        if argv[1] == "-c":
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "running"
        time.sleep(settle_s)
        assert p.poll() is None, "the run ended before it was interrupted"
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        took = time.perf_counter() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(argv, p.returncode, out, err), took


@pytest.mark.parametrize("what", ["simulate", "simulate_seeds"])
def test_ctrl_c_stops_the_python_api(what):
    r, took = _interrupt([sys.executable, "-c", CHILD, what])
    assert r.returncode == 42, (r.stdout, r.stderr)
    assert "interrupted" in r.stdout and "finished" not in r.stdout
    assert took < BOUND_S, took
    # No thread left behind dumping an ignored exception at exit.
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr


@pytest.mark.parametrize("extra", [["--seeds", "20"], ["--seed", "1"]])
def test_ctrl_c_stops_the_command_line(extra):
    r, took = _interrupt([sys.executable, "-m", "lossytcp", "simulate", "--duration", "1e9s",
                          "--rate", "10Mbps", *extra], settle_s=2.0)
    assert r.returncode == 130, (r.returncode, r.stderr)
    assert r.stderr.strip() == "lossytcp simulate: interrupted"
    assert r.stdout == ""
    assert took < BOUND_S, took


def test_a_cancelled_control_stops_a_run_on_another_thread():
    import threading

    from lossytcp import _sim
    from lossytcp.sim import build_scenario

    ctl = _sim.RunControl()
    text = __import__("json").dumps(build_scenario(duration_s=1e9, rate_bps=1e7))
    box: dict[str, object] = {}

    def work() -> None:
        try:
            _sim.run_json(text, ctl)
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            box["error"] = e

    th = threading.Thread(target=work)
    th.start()
    deadline = time.perf_counter() + 10
    while ctl.simulated_s == 0 and time.perf_counter() < deadline:
        time.sleep(0.01)
    reached = ctl.simulated_s
    assert reached > 0          # the control reports the run's simulated time as it goes
    t0 = time.perf_counter()
    ctl.cancel()
    th.join(timeout=5)
    assert not th.is_alive() and time.perf_counter() - t0 < BOUND_S
    assert isinstance(box["error"], _sim.Cancelled)
    assert ctl.cancelled and ctl.simulated_s >= reached


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_long_single_run_reports_progress_in_simulated_time():
    """partial=True: while one long run goes on, progress(done, total) gets fractions of it
    (its simulated time over its duration); a progress callback that raises stops the run."""
    import lossytcp

    seen: list[float] = []

    class Enough(Exception):
        pass

    def progress(done: float, total: int) -> None:
        seen.append(done)
        if 0 < done < 1:
            raise Enough

    t0 = time.perf_counter()
    with pytest.raises(Enough):
        lossytcp.simulate_seeds([1], rate_bps=1e7, duration_s=1e9, progress=progress,
                                partial=True)
    assert time.perf_counter() - t0 < 30
    assert seen[0] == 0 and 0 < seen[-1] < 1e-3
