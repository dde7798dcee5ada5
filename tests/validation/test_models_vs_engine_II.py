"""Analytical models II against the packet-level engine.

* fading-energy (paper 004): the engine's slot model (one packet per slot, ACK at the end of
  the slot, fixed RTO of T0 slots) over the same two-state channel (Gilbert-Elliott advancing
  every slot, idle or not). The engine's delivered-packet rate and transmissions per delivered
  packet must lie inside the model's pessimistic/optimistic bounds, or within a stated margin
  of them: 6 points per variant across f_D T and W_max.
* abrupt-rtt (paper 001): the random design of Section 6.1 (20 experiments per variant here,
  100 in scripts/validate_models_II.py) over the engine's semi-Markov delay; the paper reached
  max < 20% and mean < 10% relative error, and so must we.

The engine must be built (``lossytcp._sim``); the tests are skipped otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

lossytcp = pytest.importorskip("lossytcp")
pytest.importorskip("lossytcp._sim")

from lossytcp.channels import (  # noqa: E402
    estimate_two_state,
    jakes_error_trace,
    rayleigh_two_state,
)
from lossytcp.models.abrupt_rtt import abrupt_rtt  # noqa: E402
from lossytcp.models.fading_energy import fading_energy  # noqa: E402

SLOT_S = 8 * 1024 / 1.5e6          # 1024-byte packets at 1.5 Mb/s (paper 004)
T0_SLOTS = 100

# Margin (relative) allowed outside the model's bounds. The model counts cycles exactly as
# the paper does but the engine's TCP differs in details the paper abstracts away: the
# threshold after a loss is max(floor(flight/2), 2) (RFC 5681) rather than ceil(W/2), a
# cumulative ACK after a timeout jumps over packets already received, and an inflated window
# may send new data while a doomed recovery waits for its timeout. Measured deviations are a
# few percent (see the report); 6% bounds them with room for run-to-run noise.
FE_MARGIN = 0.06

FE_POINTS = [(0.001, 24), (0.008, 24), (0.016, 24), (0.256, 24), (0.016, 6), (0.256, 6)]


def _engine_slot(variant, channel, w_max, seeds=(1, 2), slots=300_000):
    reps = [lossytcp.simulate(variant=variant, rate_bps=1.5e6, packet_size_bytes=1024,
                              window=w_max, channel=channel, duration_s=slots * SLOT_S,
                              seed=s, slot_model=True, fixed_rto_s=T0_SLOTS * SLOT_S,
                              dupack_threshold=3, initial_window=1) for s in seeds]
    good = float(np.mean([r.goodput_norm for r in reps]))
    tps = float(np.mean([r.transmissions_per_delivered for r in reps]))
    return good, tps


def _inside(x, lo, hi, margin):
    return lo * (1 - margin) <= x <= hi * (1 + margin)


@pytest.mark.parametrize("variant", ["tahoe", "reno", "newreno"])
def test_fading_energy_bounds_contain_the_engine(variant):
    rows = []
    for fdt, w_max in FE_POINTS:
        ch = rayleigh_two_state(fading_margin_db=10.0, doppler_norm=fdt)
        m = fading_energy(variant=variant, w_max=w_max, p_gb=ch.p_gb, p_bg=ch.p_bg,
                          timeout_slots=T0_SLOTS)
        good, tps = _engine_slot(variant, ch.channel_spec(advance="slot"), w_max)
        rows.append((fdt, w_max, m.throughput_slot, m.throughput_slot_opt, good,
                     m.transmissions_per_success_opt, m.transmissions_per_success, tps))
    bad = [r for r in rows if not (_inside(r[4], r[2], r[3], FE_MARGIN)
                                   and _inside(r[7], r[5], r[6], FE_MARGIN))]
    assert not bad, "outside the bounds (+-6%): " + "; ".join(
        f"fdT={r[0]} W={r[1]} thr [{r[2]:.4f},{r[3]:.4f}] sim {r[4]:.4f} "
        f"tps [{r[5]:.4f},{r[6]:.4f}] sim {r[7]:.4f}" for r in bad)


@pytest.mark.parametrize("f_db", [10.0, 15.0])
def test_fading_energy_over_a_jakes_trace_fast_fading(f_db, tmp_path):
    """Figs. 1-4 at f_D T = 0.128, where the paper finds all three approaches agree.

    Here the trace is consumed one outcome per *transmission* (``advance=transmission``), so
    idle slots (timeouts) do not advance the fade; the test below replays it in time. At fast
    fading the lag correlation dies within a few packets and the effect is small: the engine
    over the Jakes trace must match the engine over the two-state channel with the estimated
    parameters (same per-transmission semantics) within 8% (measured 0.3-6%: the fading
    process is not exactly two-state Markov), and the model within 12% below
    its lower bound (measured 3-9%).
    """
    from lossytcp.channels import write_trace

    fdt = 0.128
    trace = jakes_error_trace(400_000, fading_margin_db=f_db, doppler_norm=fdt,
                              block_packets=40_000, seed=21)
    est = estimate_two_state(trace)
    ana = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
    spec = write_trace(tmp_path / "jakes.txt", trace)
    g_jakes, _ = _engine_slot("tahoe", spec, 24, seeds=(1,), slots=300_000)
    g_two, _ = _engine_slot("tahoe", est.channel_spec(advance="transmission"), 24,
                            seeds=(1,), slots=300_000)
    m_ana = fading_energy(variant="tahoe", w_max=24, p_gb=ana.p_gb, p_bg=ana.p_bg)
    m_est = fading_energy(variant="tahoe", w_max=24, p_gb=est.p_gb, p_bg=est.p_bg)
    assert est.mean_burst == pytest.approx(ana.mean_burst, rel=0.05)
    assert m_est.throughput_slot == pytest.approx(m_ana.throughput_slot, rel=0.05)
    assert g_jakes == pytest.approx(g_two, rel=0.08)
    assert _inside(g_jakes, m_est.throughput_slot, m_est.throughput_slot_opt, 0.12)


@pytest.mark.parametrize(("fdt", "f_db", "tol"), [
    (0.001, 10.0, 0.05), (0.001, 15.0, 0.05), (0.016, 15.0, 0.05), (0.016, 10.0, 0.10),
    (0.128, 15.0, 0.05),
])
def test_fading_energy_over_a_jakes_trace_in_time(fdt, f_db, tol, tmp_path):
    """Figs. 1-4's "simulation" against "analysis": Tahoe, W_max 24, over a Jakes fading trace
    replayed one outcome per slot (``advance=slot``: a timeout's idle slots move through the
    fade as time does, as in the paper's simulation), against the model with the Marcum-Q
    parameters. Measured (one 200k-slot trace, engine vs the model's lower bound): 0.860 vs
    0.874 and 0.952 vs 0.952 for slow fading (0.001), 0.897 vs 0.893 and 0.723 vs 0.728 at
    15 dB (0.016, 0.128); 0.593 vs 0.631 at f_D T 0.016 and 10 dB, where the fade is
    neither slow enough to be constant over a cycle nor fast enough to be Markov."""
    from lossytcp.channels import write_trace

    trace = jakes_error_trace(200_000, fading_margin_db=f_db, doppler_norm=fdt, seed=1)
    spec = write_trace(tmp_path / "jakes.txt", trace)
    g, _ = _engine_slot("tahoe", spec + ",advance=slot", 24, seeds=(1,), slots=195_000)
    ana = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
    m = fading_energy(variant="tahoe", w_max=24, p_gb=ana.p_gb, p_bg=ana.p_bg)
    assert _inside(g, m.throughput_slot, m.throughput_slot_opt, tol), (g, m.throughput_slot)


# ----------------------------------------------------------------------- abrupt-rtt, Sec. 6.1
def _random_design(n, seed):
    """Section 6.1: mu ~ U[1, 10] Mb/s with 1 KB packets, M = 3, T_i ~ U[0.05, 0.1] s,
    w_m ~ U[2, mu min T_i], H random with positive entries (one recurrent aperiodic class),
    V_i exponential with mean ~ U[0, 9 T_i]."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        mu = rng.uniform(125.0, 1250.0)
        T = rng.uniform(0.05, 0.1, 3)
        wm = int(rng.integers(2, int(mu * T.min()) + 1))
        H = rng.dirichlet(np.ones(3), 3)
        V = rng.uniform(0.0, 9.0 * T)
        out.append((mu, T, wm, H, V))
    return out


def _abrupt_errors(variant, design, run_factor, seeds):
    errs = []
    for mu, T, wm, H, V in design:
        delay = dict(rtt_s=T.tolist(), H=H.tolist(), excess_mean_s=V.tolist())
        dur = run_factor * float(np.max(V + T))
        sim = np.mean([lossytcp.simulate(variant=variant, rate_bps=mu * 8000.0,
                                         packet_size_bytes=1000, window=wm, delay=delay,
                                         duration_s=dur, seed=s, min_rto_s=0.0,
                                         granularity_s=0.0, ack_size_bytes=0).throughput_pps
                       for s in seeds])
        # The sender's RTT includes the packet's transmission time (ACKs take no time here).
        model = abrupt_rtt(rate_pps=mu, rtt_s=T + 1.0 / mu, H=H, excess_mean_s=V,
                           max_window=wm, variant=variant).throughput_pps
        errs.append((model - sim) / sim)
    return np.array(errs)


@pytest.mark.parametrize("variant", ["oldtahoe", "reno"])
def test_abrupt_rtt_random_design_errors(variant):
    errs = _abrupt_errors(variant, _random_design(20, seed=61), run_factor=300, seeds=(0, 1))
    assert np.abs(errs).max() < 0.20
    assert np.abs(errs).mean() < 0.10


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["oldtahoe", "reno"])
def test_abrupt_rtt_random_design_full(variant):
    """The paper's own sizes: 100 experiments, 5 runs of 1000 max(E[V_i] + T_i) each."""
    errs = _abrupt_errors(variant, _random_design(100, seed=2003), run_factor=1000,
                          seeds=range(5))
    assert np.abs(errs).max() < 0.20
    assert np.abs(errs).mean() < 0.10
