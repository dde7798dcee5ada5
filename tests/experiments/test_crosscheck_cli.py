"""``lossytcp crosscheck ns2``: statistics, exit codes, input checked before anything runs."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian ns2) absent")


def _cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "lossytcp", "crosscheck", "ns2", *args],
                          capture_output=True, text=True, timeout=600, env=env, cwd=cwd)


@needs_ns2
def test_identical_systems_with_three_seeds_do_not_differ_by_chance():
    # the example: 2-s.e. verdicts flagged retransmissions and channel losses here
    r = _cli("--variant", "newreno", "--rate", "10Mbps", "--rtt", "100ms",
             "--channel", "bernoulli:p=0.01", "--duration", "300s", "--seeds", "3", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["exit_code"] == 0, r.stdout
    assert out["correction"] == "holm"
    for m in out["metrics"]:
        assert m["verdict"] == "agree" and m["p_holm"] >= m["p"]
        # few seeds: a stated, nonzero blind spot (none for a count that is 0 everywhere)
        assert m["detectable_80"] > 0 or (m["exact"] and m["lossytcp"] == m["ns2"] == 0)


@needs_ns2
def test_a_real_difference_is_found_and_exits_1():
    # ns-2 told to use a 5-packet window, the engine 20: every rate metric differs
    r = _cli("--channel", "bernoulli:p=0.01", "--duration", "30s", "--seeds", "4",
             "--ns2-agent", "window_=5", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 1
    verdicts = {m["metric"]: m["verdict"] for m in out["metrics"]}
    assert verdicts["packets_sent"] == "DIFFER"


@needs_ns2
def test_paired_replays_ns2_losses_and_matches_seed_for_seed():
    r = _cli("--variant", "sack", "--channel", "ge:alpha=0.01,beta=0.2,advance=slot",
             "--duration", "30s", "--seeds", "3", "--paired", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0, r.stdout
    for m in out["metrics"]:
        assert m["identical_seeds"] == 3, m


@needs_ns2
def test_one_seed_is_refused_unless_paired():
    # issue 24: it used to run both sides and exit 0 with "no verdict"
    for args, name in ((["--seeds", "1"], "'seeds' = 1"), (["--seed", "2"], "'seed' = 2")):
        r = _cli(*args, "--duration", "10s", "--channel", "bernoulli:p=0.02", "--json")
        assert r.returncode == 2 and name in r.stderr and "at least 2 seeds" in r.stderr
        assert r.stdout == ""
    # paired, one seed is compared exactly on ns-2's own losses
    r = _cli("--seed", "2", "--duration", "10s", "--channel", "bernoulli:p=0.02", "--paired",
             "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and {m["verdict"] for m in out["metrics"]} == {"agree"}


@pytest.mark.parametrize("args, text", [
    (["--seeds", "0"], "'seeds' = 0"),
    (["--seeds", "1"], "'seeds' = 1"),
    (["--keep-script", "/nonexistent/x.tcl"], "does not exist"),
    (["--ns2-agent", "window_=abc"], "must be a number or true/false"),
    (["--ns2-agent", "windw_=5"], "not a variable of ns-2"),
    (["--alpha", "1.5"], "'alpha' = 1.5"),
    (["--paired", "--channel", "drops:seq=5"], "already the same"),
])
def test_bad_input_exits_2_before_any_run(args, text, tmp_path):
    if shutil.which("ns") is None:
        # the checks run after looking for ns-2: give it a stand-in that must never run
        fake = tmp_path / "ns"
        fake.write_text("#!/bin/sh\necho ran > " + str(tmp_path / "ran") + "\nexit 1\n")
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
        env = {**os.environ, "LOSSYTCP_NS": str(fake)}
    else:
        env = None
    r = _cli(*args, "--duration", "5s", env=env)
    assert r.returncode == 2 and text in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "ran").exists()


def test_ns2_failing_is_a_clean_error_with_its_own_exit_code(tmp_path):
    fake = tmp_path / "ns"
    fake.write_text("#!/bin/sh\necho 'segmentation fault (pretend)'\nexit 139\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    r = _cli("--duration", "5s", "--seeds", "2",
             env={**os.environ, "LOSSYTCP_NS": str(fake)})
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert "ns-2 failed" in r.stdout and "Traceback" not in r.stderr


def test_exit_codes_are_documented_in_help():
    r = _cli("--help")
    assert "Exit codes: 0" in r.stdout and "4 ns-2 or the engine failed" in r.stdout
    assert Path(__file__).exists()
