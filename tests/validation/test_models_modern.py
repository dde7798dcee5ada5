"""CUBIC's response function and BBR's goodput model against the engine
(:mod:`lossytcp.validation.modern`): the quick set by default, every case with ``-m slow``."""

from __future__ import annotations

import pytest

from lossytcp.models import evaluate
from lossytcp.validation.cases import run_cases
from lossytcp.validation.modern import modern_cases


def _check(quick: bool) -> None:
    df = run_cases(modern_cases(quick))
    bad = df[df.asserted & ~df.ok]
    assert bad.empty, bad[["model", "point", "model_value", "sim_mean", "rel_error"]]
    # The deterministic-loss model is below the engine's random-loss throughput, and at
    # the loss rate of a bursty channel far below (one window cut per burst).
    cubic = df[df.model == "cubic-response"]
    assert (cubic[cubic.group == "random"].rel_error < 0).all()
    assert (cubic[cubic.group == "bursty, p = loss rate"].rel_error < -0.4).all()


def test_models_of_today_s_senders_against_the_engine_quick() -> None:
    _check(quick=True)


@pytest.mark.slow
def test_models_of_today_s_senders_against_the_engine_full() -> None:
    _check(quick=False)


def test_cubic_response_by_hand() -> None:
    # (0.4 x 3.7 / 1.2)^(1/4) x 0.2^(3/4) / 1e-4^(3/4) = 1.05381 x 0.29907 / 0.001 = 315.2
    r = evaluate("cubic-response", rtt_s=0.2, p=1e-4)
    assert r.avg_window == pytest.approx(315.16, rel=1e-3)
    assert r.region == "cubic"
    assert r.throughput_pps == pytest.approx(r.avg_window / 0.2)
    # W_max = 4 AVG / 3.7; K = cbrt(0.3 W_max / 0.4).
    assert r.w_max == pytest.approx(4 * 315.16 / 3.7, rel=1e-3)
    assert r.k_s == pytest.approx((0.3 * r.w_max / 0.4) ** (1 / 3))
    # At a short RTT and high loss, Reno's sqrt(3/(2p)) is larger: the Reno-friendly region.
    r = evaluate("cubic-response", rtt_s=0.01, p=0.01)
    assert r.region == "reno-friendly"
    assert r.avg_window == pytest.approx((1.5 / 0.01) ** 0.5)
    assert evaluate("cubic-response", rtt_s=0.01, p=0.01, reno_friendly=False).region == "cubic"
    # The crossing: both regions give the same window there.
    c = evaluate("cubic-response", rtt_s=0.1, p=1e-3).p_crossing
    at = evaluate("cubic-response", rtt_s=0.1, p=c)
    assert at.avg_window_cubic == pytest.approx(at.avg_window_reno, rel=1e-9)


def test_bbr_goodput_by_hand() -> None:
    # ProbeRTT holds 0.2 s + one RTT (0.1 s) every 10 s: 0.3 / 10.3 of the time.
    r = evaluate("bbr-goodput", rtt_s=0.1, p=0.01, rate_bps=10e6, packet_size_bytes=1000)
    share = 0.3 / 10.3
    assert r.probe_rtt_share == pytest.approx(share)
    assert r.throughput_norm == pytest.approx(0.99 * 0.99 * (1 - share))
    assert r.region == "bandwidth"
    # From lost / delivered >= 50/256 the long-term estimator paces at the delivery rate.
    r = evaluate("bbr-goodput", rtt_s=0.1, p=0.2, rate_bps=10e6, packet_size_bytes=1000)
    assert r.region == "policer"
    assert r.throughput_norm == pytest.approx(0.8 ** 2 * 0.99 * (1 - share))
    assert r.p_policer == pytest.approx(50 / 306)
    # A receiver window below the BDP (125 segments) caps it.
    r = evaluate("bbr-goodput", rtt_s=0.1, p=0.0, rate_bps=10e6, packet_size_bytes=1000,
                 max_window=50)
    assert r.region == "window"
    assert r.throughput_pps == pytest.approx(500 * (1 - share))
