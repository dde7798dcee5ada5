"""PFTK (Padhye et al. 1998) full model and approximation against hand-computed values."""

import math

import pytest

from lossytcp.errors import ParameterError
from lossytcp.models.pftk import backoff_factor, pftk, q_hat


def test_hand_value_unlimited():
    # p = 0.01, b = 1, RTT 0.1 s, T0 1 s, computed by hand:
    #   E[W_u] = 1 + sqrt(8*0.99/0.03 + 1) = 1 + sqrt(265) = 17.2788
    #   Qhat   = (1-.99^3)(1+.99^3(1-.99^14.2788)) / (1-.99^17.2788) = 0.033554/0.15942 = 0.21048
    #   f      = 1.0102 + 4e-6 + ... = 1.010204
    #   B      = (99 + 17.2788 + 0.21261) / (0.1*(8.6394+1) + 0.21048*1.010204/0.99) = 98.83
    r = pftk(rtt_s=0.1, p=0.01, timeout_s=1.0)
    assert r.mean_window == pytest.approx(17.2788, rel=1e-4)
    assert r.timeout_probability == pytest.approx(0.21048, rel=1e-3)
    assert backoff_factor(0.01) == pytest.approx(1.010204, rel=1e-6)
    assert r.throughput_pps == pytest.approx(98.83, rel=1e-3)
    assert not r.window_limited


def test_hand_value_window_limited():
    # Same point with W_max = 10: Qhat(10) = .029701*(1+.970299*(1-.99^7))/(1-.99^10)
    #   = .029701*1.065624/.095618 = 0.33100;
    #   B = (99 + 10 + .33434) / (0.1*(1.25 + 9.9 + 2) + .33100*1.010204/.99) = 109.334/1.65276
    r = pftk(rtt_s=0.1, p=0.01, timeout_s=1.0, max_window=10)
    assert r.window_limited
    assert q_hat(0.01, 10) == pytest.approx(0.33100, rel=1e-3)
    assert r.throughput_pps == pytest.approx(109.334 / 1.65276, rel=1e-3)


def test_approximation_hand_value():
    # 1 / (0.1*sqrt(2*0.01/3) + 1*min(1, 3*sqrt(3*0.01/8))*0.01*(1+32e-4))
    den = 0.1 * math.sqrt(0.02 / 3) + 3 * math.sqrt(0.03 / 8) * 0.01 * 1.0032
    r = pftk(rtt_s=0.1, p=0.01, timeout_s=1.0, formula="approximate")
    assert r.throughput_pps == pytest.approx(1 / den, rel=1e-9)
    assert pftk(rtt_s=0.1, p=1e-5, timeout_s=1.0, formula="approximate",
                max_window=12).throughput_pps == pytest.approx(120.0)


def test_small_p_limit_is_square_root_law():
    r = pftk(rtt_s=0.2, p=1e-7, timeout_s=1.0)
    assert r.throughput_pps == pytest.approx(math.sqrt(1.5 / 1e-7) / 0.2, rel=0.01)


def test_q_hat_limits():
    assert q_hat(0.1, 3) == 1.0
    assert q_hat(0.1, 2.5) == 1.0
    # p -> 0: Qhat -> 3/w (Padhye eq. 27).
    assert q_hat(1e-7, 30) == pytest.approx(0.1, rel=1e-3)


@pytest.mark.parametrize("kwargs,name", [
    (dict(rtt_s=0.1, p=1.0, timeout_s=1), "'p'"),
    (dict(rtt_s=0.1, p=0.1, timeout_s=0), "timeout_s"),
    (dict(rtt_s=0.1, p=0.1, timeout_s=1, formula="exact"), "formula"),
    (dict(rtt_s=0.1, p=0.1, timeout_s=1, max_window=0), "max_window"),
])
def test_bad_input(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        pftk(**kwargs)


def test_q_hat_keeps_its_limit_where_one_minus_p_rounds_to_one():
    # Found by the fuzz test: with q = 1 - p written out, p = 1e-280 gave 0/0. For small p,
    # Q(p, w) -> 3/w (a loss in a window of w is one of its last three packets).
    assert q_hat(1e-280, 100) == pytest.approx(0.03, rel=1e-12)
    q = 0.99
    assert q_hat(0.01, 10) == pytest.approx((1 - q**3) * (1 + q**3 * (1 - q**7)) / (1 - q**10),
                                            rel=1e-12)
    for formula in ("full", "approximate"):
        r = pftk(rtt_s=1.0, p=1e-280, timeout_s=1.0, formula=formula, rate_bps=1e7,
                 packet_size_bytes=1000)
        assert r.throughput_pps == pytest.approx(1250.0)    # link-limited


def test_an_rtt_below_a_nanosecond_is_refused():
    with pytest.raises(ParameterError, match=r"rtt_s.*>= 1e-09"):
        pftk(rtt_s=1e-280, p=0.01, timeout_s=1.0)
