"""Paper 003's senders through the Python API and the CLI: names, knobs refused for other
variants, and the classification report (accuracy and its two errors)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import lossytcp
from lossytcp import ParameterError

PATH = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1500, window=200, queue_packets=84,
            delayed_ack=True, duration_s=100.0, seed=1)


@pytest.mark.parametrize("variant", ["newreno-lp", "ideal-lp", "westwood-nr", "westwood-plus",
                                     "newreno_lp", "Westwood-Plus"])
def test_names_run(variant):
    r = lossytcp.simulate(variant, **PATH, channel="bernoulli:p=0.005")
    assert r.packets_delivered > 0


def test_classification_is_reported_for_classifying_senders_only():
    ideal = lossytcp.simulate("ideal-lp", **PATH, channel="bernoulli:p=0.005")
    c = ideal.classification
    assert c["classified"] > 20
    assert ideal.classification_accuracy == 1.0
    lp = lossytcp.simulate("newreno-lp", **PATH, channel="bernoulli:p=0.005")
    c = lp.classification
    assert c["correct"] + c["congestion_called_wireless"] + c["wireless_called_congestion"] \
        == c["classified"]
    assert 0.7 < lp.classification_accuracy <= 1.0
    nr = lossytcp.simulate("newreno", **PATH, channel="bernoulli:p=0.005")
    assert nr.classification is None and math.isnan(nr.classification_accuracy)
    # Channel losses only: LP and Ideal-LP spare the window that NewReno halves.
    assert lp.goodput_norm > 2 * nr.goodput_norm
    assert ideal.goodput_norm > 2 * nr.goodput_norm


@pytest.mark.parametrize("knob, value, owner", [("lp_alpha", 0.5, "newreno-lp"),
                                                ("lp_beta", 4.0, "newreno-lp"),
                                                ("westwood_tau_s", 1.0, "westwood-nr")])
def test_knobs_belong_to_their_variant(knob, value, owner):
    lossytcp.simulate(owner, **{**PATH, "duration_s": 2.0}, **{knob: value})
    with pytest.raises(ParameterError, match=f"applies to variant '{owner}' only"):
        lossytcp.simulate("newreno", **{**PATH, "duration_s": 2.0}, **{knob: value})


def test_predictor_thresholds_are_ordered():
    with pytest.raises(ParameterError, match="lp_alpha"):
        lossytcp.simulate("newreno-lp", lp_alpha=4.0, lp_beta=3.0, duration_s=1.0)


def test_lp_thresholds_change_the_verdicts():
    # A predictor that calls every loss congestion (beta = 0: V_P >= 0 as RTT >= RTT_min) is
    # NewReno, send for send.
    kw = {**PATH, "channel": "bernoulli:p=0.005", "duration_s": 60.0}
    always = lossytcp.simulate("newreno-lp", lp_alpha=0.0, lp_beta=0.0, **kw)
    nr = lossytcp.simulate("newreno", **kw)
    assert always.packets_sent == nr.packets_sent
    assert always.classification["wireless_called_congestion"] \
        == always.classification["classified"]


def test_cli_accepts_the_names_and_reports_accuracy():
    out = subprocess.run(
        [sys.executable, "-m", "lossytcp", "simulate", "--variant", "newreno-lp", "--rate",
         "10Mbps", "--rtt", "100ms", "--channel", "bernoulli:p=0.01", "--duration", "30s",
         "--seeds", "2", "--lp-beta", "4", "--json"],
        capture_output=True, text=True, check=True)
    acc = json.loads(out.stdout)["classification_accuracy"]
    assert 0.5 < acc["mean"] <= 1.0
