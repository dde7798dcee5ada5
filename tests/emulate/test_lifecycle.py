"""Set-up and tear-down: the emulator's namespaces (anonymous, held only by its threads)
vanish with its process however it ends (Ctrl-C, SIGKILL); a machine or a user that cannot
emulate gets the reason; a rate the machine cannot hold is refused before the run, and a run
whose accuracy did not hold is reported as such, not silently."""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lossytcp.emulate import (
    EmulatorInaccurate,
    EmulatorRefused,
    EmulatorUnavailable,
    emulator_status,
    find_emulator,
    probe,
)


def _net_ns(pid: int | str) -> set[str]:
    """The network namespaces the tasks of process ``pid`` are in."""
    out = set()
    for link in glob.glob(f"/proc/{pid}/task/*/ns/net"):
        try:
            out.add(os.readlink(link))
        except OSError:
            pass
    return out


def _all_net_ns() -> set[str]:
    out = set()
    for link in glob.glob("/proc/[0-9]*/task/*/ns/net"):
        try:
            out.add(os.readlink(link))
        except OSError:
            pass
    return out


def _start(tmp_path: Path) -> subprocess.Popen:
    from lossytcp.emulate import _scenario

    sc = _scenario(rate_bps=5e6, rtt_s=0.04, packet_size_bytes=1500, window=None,
                   channel="none", ack_channel="none", queue=None, delay=None,
                   duration_s=60.0, seed=1, protect_retransmissions=False)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"scenario": sc, "workload": {"kind": "tcp", "cc": "reno"},
                               "log_dir": str(tmp_path), "preflight": False}))
    return subprocess.Popen([str(find_emulator()), "run", str(cfg)], stdout=subprocess.PIPE,
                            text=True)


def _namespaces_of(proc: subprocess.Popen) -> set[str]:
    """The emulator's own namespaces, once both ends are up."""
    mine = _net_ns("self")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        theirs = _net_ns(proc.pid) - mine
        if len(theirs) >= 2:
            return theirs
        time.sleep(0.05)
    raise AssertionError("the emulator's namespaces did not appear")


@pytest.mark.usefixtures("emulator")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_or_killed_emulator_leaves_no_namespace(tmp_path, how):
    proc = _start(tmp_path)
    try:
        ns = _namespaces_of(proc)
        time.sleep(1.0)   # the transfer is under way
        t = time.monotonic()
        proc.send_signal(how)
        out, _ = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if how == signal.SIGINT:
        # An orderly stop: the transfer ends, the report says so, quickly.
        assert proc.returncode == 130
        assert json.loads(out.strip().splitlines()[-1])["interrupted"] is True
        assert time.monotonic() - t < 8
    else:
        assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while ns & _all_net_ns() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not ns & _all_net_ns(), "a namespace outlived the emulator"
    # Nothing was ever created in this namespace.
    assert not any(Path("/sys/class/net").glob("ltcp*"))


def test_a_user_who_cannot_emulate_is_told_why(tmp_path, monkeypatch):
    monkeypatch.setenv("LOSSYTCP_EMU", str(tmp_path / "missing"))
    ok, why = emulator_status()
    assert not ok and "missing" in why
    with pytest.raises(EmulatorUnavailable, match="not an executable"):
        probe(rate_bps=1e6, packet_size_bytes=500, probe_rate_bps=5e5, duration_s=0.1)
    monkeypatch.delenv("LOSSYTCP_EMU")
    try:
        exe = find_emulator()
    except EmulatorUnavailable as e:
        pytest.skip(str(e))
    if os.geteuid() != 0:
        ok, why = emulator_status()
        assert not ok and "root" in why
        return
    # As an unprivileged user the binary refuses with the reason, before touching anything.
    r = subprocess.run([str(exe), "check"], capture_output=True, text=True, user=65534,
                       group=65534, extra_groups=[])
    assert r.returncode == 4
    assert "needs root" in json.loads(r.stdout)["reason"]


@pytest.mark.usefixtures("emulator")
def test_a_rate_the_machine_cannot_hold_is_refused_before_the_run():
    # Small packets at 2 Gb/s: millions of packets per second, far beyond a TUN pair.
    with pytest.raises(EmulatorRefused, match="packets/s") as e:
        probe(rate_bps=2e9, packet_size_bytes=100, probe_rate_bps=1e9, duration_s=5.0)
    assert e.value.preflight["carried_pps"] < 2 * e.value.preflight["needed_pps"]


@pytest.mark.usefixtures("emulator")
def test_a_run_whose_accuracy_did_not_hold_says_so():
    # A bound no machine meets (1 us), with the preflight off so that the run happens.
    kw = dict(rate_bps=5e6, packet_size_bytes=500, probe_rate_bps=1e6, duration_s=0.5,
              preflight=False, max_lateness_s=1e-6)
    with pytest.raises(EmulatorInaccurate, match="after their arrival time"):
        probe(**kw)
    res = probe(allow_inaccurate=True, **kw)
    assert not res.accuracy["ok"]
    assert any("forward" in p for p in res.accuracy["problems"])
