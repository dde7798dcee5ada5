"""Paper 004's simulated channel: bit errors of uncoded packets over a Jakes fade
(lossytcp.channels.bit_level), and the fading-energy model's hybrid channel built on it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lossytcp.channels import bit_level as bl
from lossytcp.channels import bit_level_trace, fast_fading_epsilon, slow_fading_epsilon
from lossytcp.errors import ParameterError
from lossytcp.models.fading_energy import (
    energy_efficiency_at_throughput,
    fading_energy,
    hybrid_trace,
)


def test_slow_fading_trace_meets_the_constant_fade_limit():
    # f_D T 0.0005: the fade constant over a packet; 400k packets hold ~200 Doppler periods
    tr = bit_level_trace(0.0005, 400_000, seed=11)
    for snr in (15.0, 25.0, 35.0):
        eps = tr.epsilon(snr)
        ref = slow_fading_epsilon(snr)
        assert eps == pytest.approx(ref, rel=0.25), snr


def test_faster_fading_loses_more_packets_at_the_same_snr_and_stays_below_independent_bits():
    slow = bit_level_trace(0.001, 200_000, seed=3)
    fast = bit_level_trace(0.256, 20_000, seed=3)
    for snr in (30.0, 40.0):
        assert fast.epsilon(snr) > 2 * slow.epsilon(snr)
        assert fast.epsilon(snr) < fast_fading_epsilon(snr)


def test_error_rate_and_snr_are_inverse_and_monotone():
    tr = bit_level_trace(0.016, 50_000, seed=5)
    snrs = [10.0, 20.0, 30.0, 40.0]
    eps = [tr.epsilon(s) for s in snrs]
    assert all(a > b for a, b in zip(eps, eps[1:], strict=False))
    for target in (0.01, 0.1, 0.5):
        assert tr.epsilon(tr.snr_db_for_epsilon(target)) == pytest.approx(target, abs=2e-4)
    # common random numbers: the losses at a higher SNR are a subset of those at a lower one
    assert not np.any(tr.losses(30.0) & ~tr.losses(20.0))


def test_parts_per_packet_resolve_the_fade():
    """The refined parts against four times as many: the error rate within 1%."""
    a = bit_level_trace(0.256, 20_000, seed=7)
    bl.PARTS_COEF *= 4
    try:
        b = bit_level_trace(0.256, 20_000, seed=7, sub_blocks=4 * a.sub_blocks)
    finally:
        bl.PARTS_COEF /= 4
    for snr in (20.0, 30.0, 40.0):
        assert a.epsilon(snr) == pytest.approx(b.epsilon(snr), rel=0.01)


def test_a_trace_is_a_function_of_its_arguments(tmp_path, monkeypatch):
    monkeypatch.setattr(bl, "CACHE_DIR", tmp_path)
    bit_level_trace.cache_clear()
    a = bit_level_trace(0.032, 5_000, seed=9).critical_snr.copy()
    bit_level_trace.cache_clear()
    b = bit_level_trace(0.032, 5_000, seed=9).critical_snr           # from the disk cache
    assert np.array_equal(a, b) and list(tmp_path.glob("critical-*.npy"))
    bit_level_trace.cache_clear()
    c = bit_level_trace(0.032, 5_000, seed=10).critical_snr
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("kw, name", [
    (dict(doppler_norm=0.0), "doppler_norm"), (dict(doppler_norm=2.0), "doppler_norm"),
    (dict(modulation="qam"), "modulation"), (dict(n_packets=1), "n_packets")])
def test_bad_input_names_the_parameter(kw, name):
    args = dict(doppler_norm=0.01, n_packets=1000, **{k: v for k, v in kw.items()
                                                      if k in ("modulation",)})
    if "doppler_norm" in kw:
        args["doppler_norm"] = kw["doppler_norm"]
    if "n_packets" in kw:
        args["n_packets"] = kw["n_packets"]
    with pytest.raises(ParameterError, match=name):
        bit_level_trace(args.pop("doppler_norm"), args.pop("n_packets"), **args)


def test_hybrid_model_takes_the_traces_parameters_and_the_snr_as_energy():
    snr = 25.0
    est = hybrid_trace(0.016).two_state(snr)
    r = fading_energy(variant="tahoe", w_max=24, snr_db=snr, doppler_norm=0.016)
    assert r.p_gb == pytest.approx(est.p_gb) and r.p_bg == pytest.approx(est.p_bg)
    assert r.energy_per_transmission == pytest.approx(10 ** (snr / 10))
    assert r.epsilon == pytest.approx(est.epsilon)
    with pytest.raises(ParameterError, match="p_gb"):
        fading_energy(snr_db=snr, doppler_norm=0.016, fading_margin_db=20.0)
    with pytest.raises(ParameterError, match="doppler_norm"):
        fading_energy(snr_db=snr)
    with pytest.raises(ParameterError, match="snr_db"):
        fading_energy(snr_db=200.0, doppler_norm=0.016)


def test_ninety_percent_throughput_with_the_hybrid_channel():
    r = energy_efficiency_at_throughput(0.9, doppler_norm=0.016, variant="tahoe", w_max=24,
                                        channel="hybrid")
    assert r.throughput_slot == pytest.approx(0.9, abs=2e-3)
    assert math.isfinite(r.lambda0) and r.lambda0 > 0
