"""Rayleigh fading -> two-state Markov channel (paper 004, Sec. 3.1), Jakes traces, estimator."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.integrate
import scipy.special

from lossytcp.channels import (
    estimate_two_state,
    jakes_error_trace,
    jakes_gain,
    marcum_q1,
    rayleigh_two_state,
    read_trace,
    write_trace,
)
from lossytcp.errors import ParameterError
from lossytcp.scenario import trace_outcomes
from lossytcp.spec import parse_channel


def _marcum_by_quadrature(a: float, b: float) -> float:
    # Eq. (5) integrated directly; exp-scaled I0 keeps the integrand finite for large a*w.
    def f(w):
        return math.exp(-(a - w) ** 2 / 2) * scipy.special.i0e(a * w) * w
    val, _ = scipy.integrate.quad(f, b, math.inf, limit=200)
    return val


@pytest.mark.parametrize("a,b", [(0.5, 1.0), (2.0, 1.0), (3.0, 3.5), (0.0, 1.2), (6.3, 6.28)])
def test_marcum_q_matches_eq5_by_quadrature(a, b):
    assert marcum_q1(a, b) == pytest.approx(_marcum_by_quadrature(a, b), rel=1e-7, abs=1e-12)


def test_marcum_q_at_zero_first_argument_is_rayleigh_tail():
    # Q1(0, b) = exp(-b^2/2): the complementary CDF of a Rayleigh envelope.
    for b in (0.1, 1.0, 2.5):
        assert marcum_q1(0.0, b) == pytest.approx(math.exp(-b * b / 2), rel=1e-12)


def test_errata_value_of_staying_bad():
    # Seeds README: at F = 10 dB, f_D T = 0.016, 1 - p_BG = 0.8798 (sampled: 0.8804).
    ch = rayleigh_two_state(fading_margin_db=10, doppler_norm=0.016)
    assert 1 - ch.p_bg == pytest.approx(0.8798, abs=5e-5)
    assert ch.epsilon == pytest.approx(1 - math.exp(-0.1), rel=1e-12)


@pytest.mark.parametrize("f_db,fdt", [(10, 0.016), (5, 0.05), (15, 0.1), (0, 0.008)])
def test_transition_probabilities_match_sampled_correlated_gaussians(f_db, fdt):
    """Independent check: sample pairs of complex Gaussian gains with correlation J0(2 pi fdT)."""
    rng = np.random.default_rng(7)
    n = 400_000
    rho = scipy.special.j0(2 * math.pi * fdt)
    h1 = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) / math.sqrt(2)
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) / math.sqrt(2)
    h2 = rho * h1 + math.sqrt(1 - rho * rho) * z
    thr = 10 ** (-f_db / 10)
    bad1, bad2 = np.abs(h1) ** 2 < thr, np.abs(h2) ** 2 < thr
    p_bg_mc = (bad1 & ~bad2).sum() / bad1.sum()
    p_gb_mc = (~bad1 & bad2).sum() / (~bad1).sum()
    ch = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
    se_bg = math.sqrt(ch.p_bg * (1 - ch.p_bg) / bad1.sum())
    se_gb = math.sqrt(ch.p_gb * (1 - ch.p_gb) / (~bad1).sum())
    assert abs(p_bg_mc - ch.p_bg) < 4.5 * se_bg
    assert abs(p_gb_mc - ch.p_gb) < 4.5 * se_gb


@pytest.mark.parametrize("f", [0.5, 1.0, 10.0, 100.0, 1e4])
def test_stationary_error_rate_is_epsilon(f):
    ch = rayleigh_two_state(fading_margin=f, doppler_norm=0.02)
    assert ch.p_gb / (ch.p_gb + ch.p_bg) == pytest.approx(1 - math.exp(-1 / f), rel=1e-9)


def test_rho_zero_gives_iid_loss():
    # J0's first zero 2.404825557695773 / (2 pi): rho = 0 and the chain forgets its state.
    fdt = 2.404825557695773 / (2 * math.pi)
    for f_db in (0.0, 10.0, 20.0):
        ch = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
        assert abs(ch.rho) < 1e-12
        assert ch.p_gb == pytest.approx(ch.epsilon, rel=1e-8)
        assert ch.p_bg == pytest.approx(1 - ch.epsilon, rel=1e-8)


def test_slower_fading_gives_longer_bursts():
    bursts = [rayleigh_two_state(fading_margin_db=10, doppler_norm=f).mean_burst
              for f in (0.001, 0.008, 0.032, 0.128, 0.256)]
    assert all(a > b for a, b in zip(bursts, bursts[1:], strict=False))
    assert bursts[-1] == pytest.approx(1 / (1 - 0.0952), rel=0.05)  # close to i.i.d.


def test_jakes_gain_has_clarke_autocorrelation_and_unit_power():
    fdt = 0.05
    h = jakes_gain(200_000, fdt, block_samples=20_000, seed=3)
    assert np.mean(np.abs(h) ** 2) == pytest.approx(1.0, abs=0.03)
    for lag in (1, 3, 6, 12):
        r = np.mean(h[lag:] * np.conj(h[:-lag])).real
        assert r == pytest.approx(scipy.special.j0(2 * math.pi * fdt * lag), abs=0.04)
    # Rayleigh envelope: the power is exponential with mean 1.
    p = np.abs(h) ** 2
    for x in (0.05, 0.5, 2.0):
        assert np.mean(p < x) == pytest.approx(1 - math.exp(-x), abs=0.015)


@pytest.mark.parametrize("fdt", [0.128, 0.256])
def test_jakes_trace_agrees_with_markov_model_for_fast_fading(fdt):
    tr = jakes_error_trace(300_000, fading_margin_db=10, doppler_norm=fdt, block_packets=30_000,
                           seed=11)
    est = estimate_two_state(tr)
    ch = rayleigh_two_state(fading_margin_db=10, doppler_norm=fdt)
    assert est.epsilon == pytest.approx(ch.epsilon, rel=0.05)
    assert est.mean_burst == pytest.approx(ch.mean_burst, rel=0.05)


def test_jakes_trace_at_rho_zero_is_uncorrelated():
    fdt = 2.404825557695773 / (2 * math.pi)
    tr = jakes_error_trace(300_000, fading_margin_db=7, doppler_norm=fdt, block_packets=30_000,
                           seed=5)
    est = estimate_two_state(tr)
    # i.i.d. loss: P(lost | previous lost) equals the loss rate, bursts are geometric.
    assert est.p_bb_counted == pytest.approx(est.epsilon, abs=0.015)
    assert est.mean_burst == pytest.approx(1 / (1 - est.epsilon), rel=0.03)


def test_doppler_in_hz_with_packet_duration():
    # 1024-byte packets at 1.5 Mb/s: T = 5.46 ms; f_D = 2.93 Hz gives f_D T = 0.016.
    t = 8 * 1024 / 1.5e6
    a = rayleigh_two_state(fading_margin_db=10, doppler_hz=0.016 / t, packet_duration_s=t)
    b = rayleigh_two_state(fading_margin_db=10, doppler_norm=0.016)
    assert a.p_bg == pytest.approx(b.p_bg, rel=1e-12)
    x = jakes_error_trace(1000, fading_margin_db=10, doppler_hz=0.016 / t, packet_duration_s=t,
                          seed=1)
    y = jakes_error_trace(1000, fading_margin_db=10, doppler_norm=0.016, seed=1)
    assert np.array_equal(x, y)
    with pytest.raises(ParameterError, match="packet_duration_s"):
        rayleigh_two_state(fading_margin_db=10, doppler_hz=3.0)
    with pytest.raises(ParameterError, match="doppler_norm"):
        rayleigh_two_state(fading_margin_db=10, doppler_norm=0.01, doppler_hz=3.0)


def test_several_samples_per_packet_only_add_losses():
    one = jakes_error_trace(50_000, fading_margin_db=10, doppler_norm=0.02, seed=9)
    four = jakes_error_trace(50_000, fading_margin_db=10, doppler_norm=0.02,
                             samples_per_packet=4, seed=9)
    assert four.mean() > one.mean()


def test_estimator_on_a_hand_made_trace():
    est = estimate_two_state([0, 1, 1, 0, 0, 0, 1, 0])
    assert est.epsilon == pytest.approx(3 / 8)
    assert est.mean_burst == pytest.approx(1.5)        # bursts of 2 and 1
    assert est.mean_gap == pytest.approx(5 / 3)        # gaps of 1, 3, 1
    assert est.n_bursts == 2
    assert est.p_bg == pytest.approx(2 / 3)
    assert est.p_gb == pytest.approx((3 / 8) * (2 / 3) / (5 / 8))
    assert est.p_bb_counted == pytest.approx(1 / 3)    # of 3 losses followed by anything, 1 lost


def test_estimator_recovers_gilbert_parameters():
    rng = np.random.default_rng(2)
    alpha, beta, n = 0.02, 0.25, 400_000
    u = rng.random(n)
    x = np.empty(n, dtype=bool)
    bad = False
    for k in range(n):  # plain loop: an independent generator of the two-state chain
        bad = (u[k] < alpha) if not bad else (u[k] >= beta)
        x[k] = bad
    est = estimate_two_state(x)
    assert est.p_bg == pytest.approx(beta, rel=0.04)
    assert est.p_gb == pytest.approx(alpha, rel=0.04)


def test_trace_file_round_trip_and_engine_parser(tmp_path):
    rng = np.random.default_rng(1)
    tr = rng.random(1234) < 0.1
    spec = write_trace(tmp_path / "t.txt", tr, line_length=80)
    assert spec == f"trace:file={tmp_path / 't.txt'}"
    assert np.array_equal(read_trace(tmp_path / "t.txt"), tr)
    parsed = parse_channel(spec, "channel")
    assert parsed["kind"] == "trace"
    # The engine reads the file itself (packed, issue 13); the outcomes are the trace's.
    assert trace_outcomes(parsed) == tr.tolist()


def test_channel_spec_parses_as_gilbert_elliott():
    ch = rayleigh_two_state(fading_margin_db=10, doppler_norm=0.016)
    parsed = parse_channel(ch.channel_spec(), "channel")
    assert parsed["alpha"] == pytest.approx(ch.p_gb)
    assert parsed["beta"] == pytest.approx(ch.p_bg)


@pytest.mark.parametrize("kwargs,name", [
    (dict(fading_margin=10, fading_margin_db=10, doppler_norm=0.01), "fading_margin"),
    (dict(doppler_norm=0.01), "fading_margin"),
    (dict(fading_margin=-1, doppler_norm=0.01), "fading_margin"),
    (dict(fading_margin_db=200, doppler_norm=0.01), "fading_margin_db"),
    (dict(fading_margin=10, doppler_norm=0), "doppler_norm"),
    (dict(fading_margin=10, doppler_norm=5), "doppler_norm"),
    (dict(fading_margin=10, doppler_norm="fast"), "doppler_norm"),
])
def test_bad_channel_parameters_are_named(kwargs, name):
    with pytest.raises(ParameterError) as e:
        rayleigh_two_state(**kwargs)
    assert e.value.args and name in str(e.value)


def test_bad_traces_are_rejected(tmp_path):
    with pytest.raises(ParameterError, match="trace"):
        estimate_two_state([0, 2, 1])
    with pytest.raises(ParameterError, match="trace"):
        estimate_two_state([0, 0, 0])
    with pytest.raises(ParameterError, match="trace"):
        write_trace(tmp_path / "x", [])
    with pytest.raises(ParameterError, match="n_packets"):
        jakes_error_trace(0, fading_margin=10, doppler_norm=0.1)
