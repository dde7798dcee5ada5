"""``lossytcp model``: flags from the dataclasses, units in values, JSON keys, clear errors."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lossytcp.cli import main
from lossytcp.cli.model import _model_parser, flag_for_field
from lossytcp.models import available, evaluate, get

ROOT = Path(__file__).resolve().parents[2]


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_flag_names():
    assert flag_for_field("rate_bps") == "--rate"
    assert flag_for_field("rtt_s") == "--rtt"
    assert flag_for_field("packet_size_bytes") == "--packet-size"
    assert flag_for_field("timeout_s") == "--timeout"
    assert flag_for_field("dupack_threshold") == "--dupack-threshold"
    assert flag_for_field("p") == "--p"


@pytest.mark.parametrize("name", available())
def test_every_registered_model_gets_a_flag_per_field(name):
    parser, dests = _model_parser(name)
    fields = [f.name for f in dataclasses.fields(get(name).params_type)]
    assert sorted(dests) == sorted(fields)
    opts = {o for a in parser._actions for o in a.option_strings}
    assert {flag_for_field(f) for f in fields} <= opts


def test_packet_train_example_from_the_issue(capsys):
    out = _json(capsys, ["model", "packet-train", "--variant", "tahoe", "--alpha", "0.01",
                         "--beta", "0.1", "--rate", "2Mbps", "--rtt", "10ms", "--packet-size",
                         "125B", "--timeout", "500ms", "--json"])
    direct = evaluate("packet-train", variant="tahoe", alpha=0.01, beta=0.1, rate_bps=2e6,
                      rtt_s=0.01, packet_size_bytes=125, timeout_s=0.5)
    assert out["model"] == "packet-train"
    assert out["throughput_pps"] == pytest.approx(direct.throughput_pps)
    assert out["throughput_norm"] == pytest.approx(direct.throughput_norm)
    assert out["throughput_per_rtt"] == pytest.approx(direct.throughput_pps * 0.01)
    assert out["timeout_probability"] == pytest.approx(direct.timeout_probability)
    assert "loss_window_distribution" not in out


def test_aqm_renewal_example_from_the_issue(capsys):
    out = _json(capsys, ["model", "aqm-renewal", "--variant", "newreno", "--queue", "droptail",
                         "--p", "0.01", "--rtt", "240ms", "--timeout", "720ms",
                         "--packets-per-ack", "1", "--json"])
    direct = evaluate("aqm-renewal", variant="newreno", queue="droptail", p=0.01, rtt_s=0.24,
                      timeout_s=0.72)
    assert out["throughput_pps"] == pytest.approx(direct.throughput_pps)
    assert out["throughput_per_rtt"] == pytest.approx(direct.throughput_per_rtt)
    assert out["timeout_probability"] == pytest.approx(direct.timeout_probability)
    assert out["throughput_norm"] is None


def test_optional_and_text_fields(capsys):
    out = _json(capsys, ["model", "pftk", "--rtt", "100ms", "--p", "0.01", "--timeout", "1s",
                         "--max-window", "10", "--formula", "approximate", "--json"])
    assert out["formula"] == "approximate"
    assert out["throughput_pps"] == pytest.approx(
        evaluate("pftk", rtt_s=0.1, p=0.01, timeout_s=1, max_window=10,
                 formula="approximate").throughput_pps)
    out = _json(capsys, ["model", "mathis", "--rtt", "100ms", "--p", "0.01", "--max-window",
                         "none", "--json"])
    assert out["timeout_probability"] is None          # the model has none
    assert out["throughput_per_rtt"] == pytest.approx(12.2474, rel=1e-4)


def test_human_readable_output(capsys):
    assert main(["model", "mathis", "--rtt", "100ms", "--p", "0.01"]) == 0
    text = capsys.readouterr().out
    assert "throughput_pps" in text and "122.474" in text


@pytest.mark.parametrize("argv,needle", [
    (["model", "pftk", "--rtt", "100ms", "--p", "2", "--timeout", "1s"], "'p' = 2.0"),
    (["model", "nosuch"], "'model' = 'nosuch'"),
    (["model", "packet-train", "--variant", "tahoe", "--alpha", "0.01", "--beta", "0.1",
      "--rate", "2 furlongs", "--rtt", "10ms", "--packet-size", "125B"], "rate_bps"),
    (["model", "packet-train", "--variant", "tahoe", "--alpha", "0.01", "--beta", "0.1",
      "--rate", "2Mbps", "--rtt", "10ms", "--packet-size", "125B",
      "--dupack-threshold", "2.5"], "dupack_threshold"),
])
def test_errors_name_the_parameter(capsys, argv, needle):
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_missing_required_flag_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["model", "mathis", "--rtt", "100ms"])
    assert e.value.code == 2
    assert "--p" in capsys.readouterr().err


def test_list_and_module_entry_point():
    env = {"PYTHONPATH": str(ROOT / "python")}
    r = subprocess.run([sys.executable, "-m", "lossytcp", "model", "list"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0
    for name in ("packet-train", "aqm-renewal", "mathis", "pftk"):
        assert name in r.stdout
