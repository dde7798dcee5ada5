"""``lossytcp crosscheck ns3`` end to end: the ns-3 program builds and runs, the verdicts
come out per quantity, and what ns-3 cannot express is refused by name before any run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lossytcp import ns3

try:
    ns3.build_program()
    HAVE_NS3 = True
except ns3.Ns3NotInstalled:
    HAVE_NS3 = False


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lossytcp", "crosscheck", "ns3", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args, name", [
    (["--variant", "vegas"], "variant"),
    (["--variant", "cubic", "--cubic-slow-start", "hystart_pp"], "cubic_slow_start"),
    (["--profile", "ns2"], "profile"),
    (["--ack-channel", "bernoulli:p=0.01"], "ack_channel"),
    (["--channel", "twostate:good=1s,bad=50ms"], "channel"),
    (["--seeds", "1"], "seeds"),
])
def test_what_ns3_cannot_express_is_refused_by_name(args: list[str], name: str) -> None:
    p = cli(*args, "--duration", "1s")
    assert p.returncode == 2, p.stdout + p.stderr
    assert f"'{name}'" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.skipif(not HAVE_NS3, reason="ns-3 (libns3-dev) not installed")
def test_crosscheck_ns3_judges_every_quantity() -> None:
    p = cli("--variant", "bbr", "--rate", "10Mbps", "--rtt", "100ms", "--packet-size", "1000B",
            "--queue", "1000", "--duration", "5s", "--seeds", "2", "--json")
    assert p.returncode in (0, 1), p.stdout + p.stderr
    out = json.loads(p.stdout)
    judged = {r["metric"]: r for r in out["metrics"]}
    assert {"goodput_norm", "timeouts", "cwnd_mean", "pacing_rate_mean_norm"} <= set(judged)
    # Nothing random on this path: BBR sends no retransmission on either side, and both
    # pace (ns-3's TcpBbr as the engine's).
    assert judged["retransmissions"]["lossytcp"] == judged["retransmissions"]["ns3"] == 0
    assert judged["pacing_rate_mean_norm"]["ns3"] > 0.5
    assert judged["pacing_rate_mean_norm"]["lossytcp"] > 0.5
    assert out["reference"] == "ns3" and out["exit_code"] == p.returncode
