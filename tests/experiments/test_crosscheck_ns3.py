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
    # Like for like: the engine's BBR paced per segment, as ns-3's, and the output says so.
    assert any("bbr_pacing_burst=segment" in n and "like for like" in n for n in out["notes"])
    assert out["scenario"]["bbr_pacing_burst"] == "segment"


def test_the_engines_bbr_runs_per_segment_against_ns3_and_is_named() -> None:
    from lossytcp.cli.crosscheck_ns3 import _kwargs
    from lossytcp.variants import PARAMS

    parser = __import__("argparse").ArgumentParser()
    from lossytcp.cli.simulate import add_scenario_arguments

    add_scenario_arguments(parser)
    variant, kw = _kwargs(parser.parse_args(["--variant", "bbr"]))
    assert variant == "bbr" and kw["bbr_pacing_burst"] == "segment"
    assert PARAMS["bbr_pacing_burst"].default == "tso"
    notes = ns3.like_ns3_notes("bbr", kw)
    assert len(notes) == 1 and "like for like" in notes[0]
    assert "bbr_pacing_burst=segment" in notes[0] and "bbr_pacing_burst=tso" in notes[0]
    # Not also listed as a setting of the engine's alone.
    _, notes = ns3.ns3_arguments("bbr", {**kw, "duration_s": 1.0, "seed": 1})
    assert not any("bbr_pacing_burst" in n for n in notes)
    # A user's explicit tso runs, and the output says ns-3 paces otherwise.
    notes = ns3.like_ns3_notes("bbr", {**kw, "bbr_pacing_burst": "tso"})
    assert notes == ["set otherwise than ns-3 runs, by the flags: bbr_pacing_burst=tso "
                     "(ns-3 runs as bbr_pacing_burst=segment)"]
    assert ns3.like_ns3_notes("newreno", kw) == []
