"""Mathis square-root law: hand values and an independent saw-tooth count."""

import math

import pytest

from lossytcp.errors import ParameterError
from lossytcp.models import evaluate
from lossytcp.models.mathis import mathis


def _sawtooth_pps(p: float, rtt_s: float) -> float:
    """Deterministic saw-tooth: rounds with windows W/2..W deliver 1/p packets per cycle."""
    w = 2
    while True:
        rounds = list(range(w // 2, w + 1))
        if sum(rounds) >= 1 / p:
            return sum(rounds) / (len(rounds) * rtt_s)
        w += 2


def test_hand_value():
    # sqrt(3 / (2 * 0.01)) / 0.1 = sqrt(150) / 0.1 = 122.474...
    r = mathis(rtt_s=0.1, p=0.01)
    assert r.throughput_pps == pytest.approx(122.4745, rel=1e-5)
    assert r.throughput_per_rtt == pytest.approx(12.24745, rel=1e-5)
    assert r.throughput_norm is None
    assert mathis(rtt_s=0.1, p=0.01, packets_per_ack=2).throughput_pps == pytest.approx(
        122.4745 / math.sqrt(2), rel=1e-5)


@pytest.mark.parametrize("p", [1e-4, 1e-3])
def test_matches_sawtooth(p):
    assert mathis(rtt_s=0.05, p=p).throughput_pps == pytest.approx(_sawtooth_pps(p, 0.05),
                                                                    rel=0.03)


def test_caps_by_link_and_window():
    r = evaluate("mathis", rtt_s=0.1, p=1e-6, rate_bps=1e6, packet_size_bytes=1250)
    assert r.throughput_pps == pytest.approx(100.0)   # 1e6 / (8 * 1250)
    assert r.throughput_norm == pytest.approx(1.0)
    assert r.unconstrained_pps > 100
    assert mathis(rtt_s=0.1, p=1e-6, max_window=20).throughput_pps == pytest.approx(200.0)


@pytest.mark.parametrize("kwargs,name", [
    (dict(rtt_s=0, p=0.01), "rtt_s"), (dict(rtt_s=0.1, p=0), "'p'"),
    (dict(rtt_s=0.1, p=0.01, rate_bps=1e6), "packet_size_bytes"),
    (dict(rtt_s=0.1, p=0.01, packets_per_ack=0.5), "packets_per_ack"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        mathis(**kwargs)
