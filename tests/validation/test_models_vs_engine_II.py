"""Analytical models II against the packet-level engine (designs and engine configuration:
:mod:`lossytcp.validation.abrupt` and :mod:`lossytcp.validation.fading`;
``scripts/validate_models_II.py`` prints every table at the full sizes).

* fading-energy (paper 004): the engine's slot model with ns-2's window-halving rule against
  the model's bounds with the same rule (``threshold_rounding="floor"``, Tahoe with
  ``tahoe_queue="engine"``); the measured domain is asserted: every variant within 2% of the
  bounds at f_D T <= 0.016 (measured Tahoe 0.9%, Reno 0.8%, NewReno 1.5%), Tahoe and Reno
  within 2% and NewReno within 3% everywhere (0.9%, 0.9%, 1.8%; the paper's Tahoe cycle 4.2%,
  before the queue-aware Reno/NewReno rules Reno 8.8%, NewReno 12.3%). A replayed channel
  sequence pins the engine's Tahoe events that the queue-aware Tahoe law follows.
  Figs. 1-4 over a Jakes trace replayed per slot.
* abrupt-rtt (paper 001): the random designs of Section 6.1 against the engine with the
  paper's timer (``rto_estimator="last_sample"``) and with RFC 6298.

The engine must be built (``lossytcp._sim``); the tests are skipped otherwise.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

lossytcp = pytest.importorskip("lossytcp")
pytest.importorskip("lossytcp._sim")

from lossytcp.validation import abrupt, fading  # noqa: E402

# Largest relative excursion of the engine outside the model's throughput bounds.
FADING_MARGIN = {"correlated": 0.02, "tahoe": 0.02, "reno": 0.02, "newreno": 0.03}


def _fading_margin(variant, fdt):
    if fdt <= 0.016:
        return min(FADING_MARGIN["correlated"], FADING_MARGIN[variant])
    return FADING_MARGIN[variant]


@pytest.mark.parametrize("variant", ["tahoe", "reno", "newreno"])
def test_fading_energy_bounds_contain_the_engine(variant):
    points = [(0.016, 24, 10.0), (0.016, 6, 15.0), (0.256, 24, 10.0), (0.256, 24, 15.0)]
    df = fading.bounds_vs_engine(points, variants=(variant,))
    bad = df[(df.thr_out > [_fading_margin(variant, f) for f in df.fdT]) | (df.tps_out > 0.01)]
    assert bad.empty, bad.to_string()


def test_fading_energy_recovery_events_are_the_engines():
    """Fast fading (where the old Reno/NewReno rules were 8.8% and 12.3% off and the paper's
    Tahoe cycle 4.2%): the model's timeouts and fast retransmits per slot are the engine's
    (measured within 1% for Reno, 1% and 1.5% for NewReno but its 15 dB timeouts, 3.8% on 1400
    events; Tahoe with ``tahoe_queue="engine"`` 0.3% and 0.9% at 10 dB, 4.0% and 2.1% at 15
    dB)."""
    df = fading.bounds_vs_engine([(0.256, 24, 15.0), (0.256, 24, 10.0)],
                                 variants=("tahoe", "reno", "newreno"))
    for kind in ("timeouts", "fast_retransmits"):
        model, engine = df[f"{kind}_per_kslot_model"], df[f"{kind}_per_kslot_engine"]
        assert ((model / engine - 1).abs() < 0.05).all(), df.to_string()


def _tahoe_replay(losses, slots=2500, n=3000):
    """Tahoe (W_max 8, K = 3, T0 = 100 slots) over a replayed slot sequence that loses the
    given slots: (timeouts, fast retransmits, delivered packets)."""
    import tempfile

    from lossytcp.channels import write_trace

    tr = np.zeros(n, dtype=int)
    tr[list(losses)] = 1
    with tempfile.TemporaryDirectory() as d:
        spec = write_trace(f"{d}/t.txt", tr) + ",advance=slot"
        s = lossytcp.simulate_seeds([1], "tahoe", rate_bps=1.5e6, packet_size_bytes=1024,
                                    window=8, channel=spec, duration_s=slots * fading.SLOT_S,
                                    slot_model=True, fixed_rto_s=100 * fading.SLOT_S,
                                    dupack_threshold=3, initial_window=1, **fading.ENGINE_TCP)
    return s.mean("timeouts"), s.mean("fast_retransmits"), round(s.mean("goodput_norm") * slots)


def test_fading_energy_tahoe_sends_the_queued_window_first():
    """P0 lost in slot 40 at window 8 (m = 7), the K-th duplicate ACK at the end of slot 43.
    The paper's Tahoe starts a cycle at window one in slot 44 (P0's retransmission): a loss in
    slot 44, or in 45 (window 2, too small for K duplicates), would time out. In the engine
    P5..P7 are already queued: P0 goes in slot 48 = m + 1, a loss in 44 or 45 is a hole that
    the go-back-N after P0's ACK repairs without a timeout, and only losing slot 48 times out
    (the timer armed at the fast retransmit: about T0 slots lost). This is
    ``tahoe_queue="engine"``."""
    assert _tahoe_replay([]) == (0, 0, 2500)
    assert _tahoe_replay([40]) == (0, 1, 2499)
    assert _tahoe_replay([40, 44]) == (0, 1, 2497)
    assert _tahoe_replay([40, 45]) == (0, 1, 2497)
    to, fr, delivered = _tahoe_replay([40, 48])
    assert (to, fr) == (1, 1) and 2500 - 100 - 5 < delivered < 2500 - 90


@pytest.mark.slow
def test_fading_energy_bounds_all_points():
    df = fading.bounds_vs_engine(before=True)
    margin = [_fading_margin(v, f) for v, f in zip(df.variant, df.fdT, strict=True)]
    assert (df.thr_out <= margin).all(), df.to_string()
    assert (df.tps_out <= 0.01).all()
    # The paper's ceil against the rfc engine: its flight size is the whole queued window, so
    # Reno agrees as well (measured 0.8%); NewReno's RFC 6582 recovery is not the model's
    # ns-2 one (measured 10.0%).
    before = df.groupby("variant").thr_out_before.max()
    assert before["reno"] < 0.02 and before["newreno"] > 0.05, before


def test_fading_energy_figs_1_4_in_time():
    """Figs. 1-4: the engine over a Jakes trace replayed one outcome per slot (the paper's
    simulation runs in time: a timeout's idle slots move through the fade) against the
    analysis; slow fading (0.001) and fast (0.128) agree within 3%, as the paper finds."""
    df = fading.figs_1_4(n_packets=200_000, slots=195_000, fdts=(0.001, 0.128),
                         f_dbs=(10.0, 15.0))
    assert (df.sim_vs_analysis.abs() < 0.05).all(), df.to_string()
    assert (df.sim_vs_analysis_sim.abs() < 0.05).all(), df.to_string()


def test_hybrid_channel_matches_the_markov_estimate_of_the_trace():
    from lossytcp.channels import estimate_two_state, jakes_error_trace

    p_gb, p_bg, eps = fading.hybrid_channel(0.016, 10.0, n_packets=200_000, seed=3)
    assert eps == pytest.approx(1 - np.exp(-0.1), rel=0.1)
    # Same fading process as jakes_error_trace with one sample per packet.
    est = estimate_two_state(jakes_error_trace(200_000, fading_margin_db=10.0,
                                               doppler_norm=0.016, block_packets=50_000,
                                               seed=3))
    assert p_bg == pytest.approx(est.p_bg, rel=1e-9)
    assert p_gb == pytest.approx(est.p_gb, rel=1e-9)


@pytest.mark.slow
def test_fading_energy_claims_follow_the_packet_error_model():
    """Section 5's ratios at 90% throughput: one fading sample per packet (eq. (2)) gives
    Tahoe/Reno ~8 (paper ~10; measured 8.0 and 8.3), a factor ~5 across f_D T (paper: more
    than ten) and K = 1 against K = 3 ~2 (paper: three- to fourfold); following the fade
    within the packet (the paper's bit-level simulation) brings f_D T to the paper's at 8
    samples per packet and Tahoe/Reno past it (12.6), K (measured 4.0, and K = 2 against 3
    2.0: the paper's "doubled") only at 64, deep fades at f_D T 0.256 lasting a fraction of a
    packet."""
    df = fading.energy_claims(sources=("analytic", 1, 8, 64),
                              floor_sources=()).set_index("claim")
    tr = df.loc["tahoe_over_reno"]
    assert 7.0 < tr.analytic < 9.0 and 7.0 < tr.hybrid_1_samples < 9.0
    assert 11.0 < tr.hybrid_8_samples < 14.0
    f13 = df.loc["fdt_0.001_over_0.256_tahoe"]
    assert f13.analytic < 6.0 < 10.0 < f13.hybrid_8_samples
    assert 2.8 < df.loc["newreno_wmax24_over_wmax6"].analytic < 3.5
    k1 = df.loc["k1_over_k3_wmax6"]
    assert k1.analytic < k1.hybrid_8_samples < 3.0 < k1.hybrid_64_samples < 4.5
    assert 1.8 < df.loc["k2_over_k3_wmax6"].hybrid_64_samples < 2.3


# ----------------------------------------------------------------------- abrupt-rtt, Sec. 6.1
@pytest.fixture(scope="module")
def design1_quick():
    return abrupt.run_design(20, runs=2, factor=300, second=False,
                             estimators=("rfc6298",), models=("paper", "rfc6298", "split"))


@pytest.mark.parametrize("variant", ["oldtahoe", "reno"])
@pytest.mark.parametrize("rule", ["paper", "rfc6298", "split"])
def test_abrupt_rtt_design1_errors(design1_quick, variant, rule):
    e = design1_quick[f"{variant}_rfc6298_{rule}_err"].abs()
    assert e.max() < 0.20 and e.mean() < 0.10


def test_abrupt_rtt_design1_is_no_lower_bound(design1_quick):
    """Sec. 6.1 calls the model a (tight) lower bound. On design 1 against the RFC 6298 engine
    its errors have both signs: it is below the engine in only a minority of experiments
    (measured 25% of the quick design, 30% / 26% at full size), so it is close, not a
    bound."""
    for v in abrupt.VARIANTS:
        below = (design1_quick[f"{v}_rfc6298_paper_err"] <= 0).mean()
        assert 0.05 < below < 0.6, (v, below)


def _typeset_gain(k: int) -> float:
    """OldTahoe's gain over Reno in the model with eq. (3) as typeset, design 1's experiment
    k."""
    from lossytcp.models.abrupt_rtt import abrupt_rtt

    mu, T, wm, H, V = list(abrupt.design_61(k + 1, 2003))[k]
    kw = dict(rate_pps=mu, rtt_s=T + 1.0 / mu, H=H, excess_mean_s=V, max_window=wm)
    return (abrupt_rtt(**kw, variant="oldtahoe").throughput_pps
            / abrupt_rtt(**kw, variant="reno", dupack_rule="typeset").throughput_pps - 1)


NS2 = pytest.mark.skipif(shutil.which("ns") is None,
                         reason="ns-2 (Debian package ns2) not installed")


@NS2
def test_fig9_ns2_does_not_double_where_the_typeset_da_rule_does():
    """Paper 001 Fig. 9 (simulated with ns) has OldTahoe up to ~100% above Reno. On design
    1's experiment 1 (w_m 38 at 598 packets/s) the model with eq. (3) as typeset (a DA
    whenever d packets overtake the last packet of the first burst) gives 98%; ns-2 2.35's
    Agent/TCP/Reno over the same semi-Markov delay gives 39% (2 runs of 300 max(E[V] + T)),
    the engine in the same configuration (profile ns2) 47%."""
    assert _typeset_gain(1) > 0.9
    r = abrupt.fig9_ns2([1], runs=2, factor=300.0).iloc[0]
    assert 0.2 < r.gain_ns2 < 0.6, r.to_dict()
    assert abs(r.gain_ns2 - r.gain_engine) < 0.15, r.to_dict()


@NS2
@pytest.mark.slow
def test_fig9_spread_in_ns2_is_the_engines():
    """Design 1's 100 experiments (2 runs of 300 max(E[V] + T)) in ns-2 2.35 and in the engine
    configured as ns-2 (measured: ns-2 85% / 15% / 0% at <= 10%, (10%, 50%], > 50%, max
    43%; the engine 87% / 13% / 0%, max 47%; per experiment the gains 1.0 points apart on
    average): the paper's 60% / 20% / 20% is not what ns-2's Reno gives on this design."""
    df = abrupt.fig9_ns2(range(100), runs=2, factor=300.0)
    ns2, eng = abrupt.gain_shares(df.gain_ns2), abrupt.gain_shares(df.gain_engine)
    for s in (ns2, eng):
        assert s["le_10pct"] > 0.75 and s["gt_50pct"] <= 0.02, (ns2, eng)
    assert (df.gain_ns2 - df.gain_engine).abs().mean() < 0.03


@pytest.fixture(scope="module")
def design2_quick():
    return abrupt.run_design(20, runs=2, factor=300, second=True,
                             estimators=("rfc6298",), models=("paper", "rfc6298", "split"))


def test_abrupt_rtt_design2_rfc6298_extension(design2_quick):
    """Design 2 (quick size) against the RFC 6298 engine: the extension (Karn's backed-off
    timer through the go-back-N fast phase, RFC 5681's ssthresh, the RTO per window,
    go-back-N's duplicates) lowers the paper's mean error; its one experiment far off is
    12 (T 55-69 ms, window 95), where the engine's bursts are split and its timeouts far
    fewer than the model's (``test_split_bursts_hide_the_idle_gap``)."""
    for v in abrupt.VARIANTS:
        paper = design2_quick[f"{v}_rfc6298_paper_err"].abs()
        ours = design2_quick[f"{v}_rfc6298_rfc6298_err"]
        assert ours.abs().mean() < 0.11 and ours.abs().mean() < paper.mean() - 0.02
        rest = design2_quick.exp != 12
        assert ours[rest].abs().max() < 0.3
        assert ours[~rest].iloc[0] < -0.4
        # Split bursts (bursts="split") bring experiment 12 to -33% / -23% at this size (2 runs
        # of 300 max(E[V_i] + T_i); -18% / +5.5% against 40 runs of the full size) and keep
        # the rest within 15% (measured 0-14.8%).
        split = design2_quick[f"{v}_rfc6298_split_err"].abs()
        assert split.max() < 0.36 and split.mean() < 0.1
        assert split[rest].max() < 0.16


def test_window_between_timeouts_on_short_holding_times():
    """Design 2's experiment 47 (states lasting 1.5 to 2.2 RTTs, w_m 98): the model's window
    follows the engine's between expiries once the RTO is a function of the window (samples
    one per ACK) and go-back-N's duplicates are counted (one run of 300 max(E[V_i] + T_i):
    windows 10.46 against 11.19, duplicates per expiry 11.42 against 13.74, throughput 3.1%
    below, the model's expiries 1.87 per second against 1.64; the previous form of the
    extension was far above)."""
    r = abrupt.window_at_timeouts((47,)).iloc[0]
    assert r.model_mean_window == pytest.approx(r.engine_mean_window, rel=0.2)
    assert r.model_twice_per_expiry == pytest.approx(r.engine_twice_per_expiry, rel=0.25)
    assert r.engine_pps > 1.1 * r.engine_goodput_pps         # duplicates count in throughput
    assert abs(r.rel_error) < 0.15


def test_karn_expiries_after_a_spurious_timeout():
    """An RTT more than doubled expires twice per upward jump in the RFC 6298 engine (measured
    on 1000 s: 12 -> 35 ms 1.91, 48 -> 110 ms 1.83), once with less (12 -> 22 ms 0.56, the
    paper's rule 0.59): the model's rto="rfc6298" has it and comes within 5% of the engine's
    throughput where the paper's rule is up to 19% above. Design 2's experiments 59, 97 and
    44 as isolated jumps (the new RTT within a few ms of 2Y + w/(2 mu), where the lag of the
    new data behind the last late ACK decides the second expiry; measured 1.65, 1.71, 2.63
    expiries per jump against the model's 1.84, 1.79, 2.79) likewise."""
    df = abrupt.karn_jumps(300.0).set_index(["jump", "model_rto"])
    for jump in ("12->35ms", "48->110ms"):
        r, p = df.loc[(jump, "rfc6298")], df.loc[(jump, "paper")]
        assert 1.6 < r.engine_expiries_per_jump < 2.1
        assert r.model_expiries_per_jump == pytest.approx(2.0, abs=0.1)
        assert p.model_expiries_per_jump == pytest.approx(1.0, abs=0.01)
        assert abs(r.rel_error) < 0.06 and abs(r.rel_error) < abs(p.rel_error)
    for jump in ("121->259ms", "76->159ms", "80->356ms"):
        r, p = df.loc[(jump, "rfc6298")], df.loc[(jump, "paper")]
        assert r.model_expiries_per_jump == pytest.approx(r.engine_expiries_per_jump, abs=0.3)
        assert abs(r.rel_error) < 0.06 and abs(r.rel_error) < abs(p.rel_error)
    r = df.loc[("12->22ms", "rfc6298")]
    assert r.model_expiries_per_jump == pytest.approx(r.engine_expiries_per_jump, abs=0.1)
    assert abs(r.rel_error) < 0.02


def test_restart_after_a_spurious_expiry_on_short_visits():
    """Design 2's experiments 15 and 97 (visits of a few RTTs, 3.5 and 0.6 expiries per
    second): the paper's chain restarts the window growth at the change, the engine one T_j
    later (the go-back-N phase runs on the late ACKs); with that restart and the Karn lag
    the model, 20-22% above the engine before, is within 10% (measured over 2 runs of 1000
    max(E[V_i] + T_i) capped at 1000 s: -4.9% and +1.2%)."""
    df = abrupt.holding_sweep((15, 97), scales=(1.0,), max_duration_s=1e3)
    assert (df.rel_error.abs() < 0.12).all(), df.to_string()


def test_split_bursts_hide_the_idle_gap():
    """The documented limitation (design 2, small jumps against large windows): on design 2's
    experiment 12 as an isolated jump (55 -> 66 ms, window 95) a single burst per round gives
    a timeout whenever the jump falls in the idle part; the engine's bursts are split into
    sub-bursts by earlier jumps and its expiries per jump are a third of the model's."""
    r = abrupt.isolated_jump(300.0, config=abrupt.SPLIT_JUMP, estimators=("rfc6298",),
                             rules=("rfc6298",)).iloc[0]
    assert r.model_expiries_per_jump > 0.75
    assert r.engine_expiries_per_jump < 0.4 * r.model_expiries_per_jump


def test_split_bursts_round_by_round():
    """The engine's split rounds hide its timeouts as bursts="split" has it (at most 9% of its
    expiries end a round that split: measured 0-8.6%), and at the largest windows the model's
    split-off idle time splits about as many transitions as the engine's rounds (top fifth of
    the windows, half a mean jump split off: measured 0.95 / 0.75 / 0.84 / 0.83 / 0.67 of the
    model's transitions against 0.99 / 0.76 / 0.79 / 0.74 / 0.81 of the engine's rounds on 12,
    69, 53, 13 and 24; the count of equal gaps had 0.85-0.91 on the last four)."""
    df = abrupt.split_rounds().set_index("exp")
    assert (df.engine_expiries_after_split < 0.1).all(), df.to_string()
    both = df.loc[[12, 69, 53, 13, 24]]
    assert ((both.model_split_share_top - both.engine_split_rounds_top).abs() < 0.15).all()


def test_split_grid_converges_towards_the_engine():
    """Experiment 12 (OldTahoe) with the split-off idle time on a grid of 1 and 1/2 mean
    jumps (11 and 20 levels): the finer grid splits more and sits closer to the engine
    (measured -38% and -31% against 5 short runs; -28.7%, -21.1%, -18.0%, -16.4% down to 1/8
    against 40 full runs, ``split_grid``'s defaults)."""
    df = abrupt.split_grid(steps=(1.0, 0.5), runs=2, factor=300.0)
    assert df.levels.tolist() == [11, 20]
    assert df.model_pps.iloc[1] > 1.05 * df.model_pps.iloc[0]
    assert (df.error < 0).all() and df.error.iloc[1] > df.error.iloc[0]


def test_timeouts_at_the_engines_own_jumps():
    """At the engine's upward jumps landing in idle time (its delay-state trace), split rounds
    hide the timeout as the model's split-off gap does (top third of the windows: measured 0%
    and 7% of the jumps from a split round time out on 53 and 13, the model's 0% with one
    mean jump split off) and whole ones mostly do not (measured 55% and 94%); on 13 the single
    burst's rule gives the engine's share in every third of the windows (measured within
    0.05). The jumps find the idle time whole as often as the model's transitions are unsplit
    (less than half a mean jump split off) below the top third of the windows (measured
    within 0.05 on 53 and 13) and in it on 13 (0.21 against 0.22), but far more often in it on
    53 (0.56 against 0.19: a state of one RTT, where the model's split-off time outlasts the
    engine's)."""
    df = abrupt.jump_outcomes((53, 13), seeds=(2,)).set_index(["exp", "windows"])
    thirteen = df.loc[13]
    assert ((thirteen.engine_to_unsplit - thirteen.model_to_single).abs() < 0.15).all()
    for k in (53, 13):
        top = df.loc[k].iloc[-1]
        assert top.engine_to_split < 0.15 and top.model_to_split < 0.05
        assert top.engine_to_unsplit > 0.5
        below = df.loc[k].iloc[:-1]
        assert ((below.engine_whole - below.model_whole).abs() < 0.08).all()
    top = df.loc[53].iloc[-1]
    assert top.engine_whole > top.model_whole + 0.2
    top = df.loc[13].iloc[-1]
    assert abs(top.engine_whole - top.model_whole) < 0.05


def test_rto_a_short_visit_leaves():
    """Design 2's experiment 53 (a 17.2 ms state lasting one RTT between states of 23.7-23.9
    ms): the RTO the engine leaves it with follows the model's mixture once the previous
    state's ACKs come as one burst per round (10th / 50th / 90th percentiles within 1.5 ms in
    every third of the windows); spread over the round they miss the top third's 90th
    percentile (measured 18.5 ms against the engine's 24.1)."""
    df = abrupt.rto_at_jumps(((53, 1),), seeds=(2,))
    for q in ("0.1", "0.5", "0.9"):
        assert (df[f"model_q{q}_ms"] - df[f"engine_q{q}_ms"]).abs().max() < 1.5, df.to_string()
    top = df.iloc[-1]
    assert top["spread_q0.9_ms"] < top["engine_q0.9_ms"] - 4.0


def test_fast_recovery_reforms_the_bursts():
    """Reno's fast recovery leaves a round split about half the time whether it was split
    before or not (3 RTTs after: measured 0.44-0.59 after a split round, 0.40-0.54 after a
    whole one, against 0.62-0.94 and 0.05-0.12 at random times): the model's spurious-DA path
    keeps the split-off idle time."""
    df = abrupt.recovery_splits((53, 24), seeds=range(2, 6), after_rtts=(3.0,))
    assert ((df.split_after_split - df.split_after_unsplit).abs() < 0.2).all(), df.to_string()
    assert (df.split_after_unsplit > 2.5 * df.no_recovery_after_unsplit).all()
    assert (df.split_after_split < df.no_recovery_after_split - 0.15).all()


def test_abrupt_rtt_isolated_changes_confirm_the_papers_mathematics():
    """With the paper's timer, two of design 2's worst experiments (the model 61% and 34%
    below the engine) come within 5% (measured 3.6% and 2.7%) once the RTT changes are many
    rounds apart (excess holding means x10)."""
    df = abrupt.long_holding([12, 65], runs=2, max_duration_s=3e3, variants=("oldtahoe",))
    assert (df.rel_error.abs() < 0.05).all(), df.to_string()


def test_beyond_bound_carries_the_engines_interval():
    """By hand: a model at 130 against an engine of 100 +- 5 is 24%-37% above (clearly past
    20%); against 100 +- 15, 13%-53% (not clearly); 70 against 100 +- 5 is 26%-33% below."""
    import pandas as pd

    row = dict(exp=[0, 1, 2, 3], w_m=[10] * 4)
    for v in abrupt.VARIANTS:
        row[f"{v}_rfc6298_sim"] = [100.0] * 4
        row[f"{v}_rfc6298_sim_ci95"] = [5.0, 15.0, 5.0, 5.0]
        row[f"{v}_model_rfc6298"] = [130.0, 130.0, 70.0, 110.0]
        row[f"{v}_rfc6298_rfc6298_err"] = [0.3, 0.3, -0.3, 0.1]
    df = abrupt.beyond_bound(pd.DataFrame(row))
    assert len(df) == 6 and set(df.exp) == {0, 1, 2}
    r = df[df.variant == "reno"].set_index("exp")
    assert r.loc[0, "error_lo"] == pytest.approx(130 / 105 - 1)
    assert r.loc[1, "error_hi"] == pytest.approx(130 / 85 - 1)
    assert r.clear.tolist() == [True, False, True]


@pytest.mark.slow
def test_abrupt_rtt_full_designs():
    """The paper's sizes: 100 experiments, 5 runs of 1000 max(E[V_i] + T_i) each."""
    d1 = abrupt.run_design(100, second=False, estimators=("rfc6298",))
    for v in abrupt.VARIANTS:
        for rule in ("paper", "rfc6298", "split"):
            e = d1[f"{v}_rfc6298_{rule}_err"].abs()
            assert e.max() < 0.20 and e.mean() < 0.10
    # Design 2: the extension (Karn's backed-off timer, RFC 5681's ssthresh, the RTO per
    # window, go-back-N's duplicates, the restart after an expiry, a visit's samples)
    # brings the mean inside the paper's bound (measured 4.3% / 4.5%, the paper's model
    # 11.6% / 10.4%); 12 and 69 stay off by up to 58% / 39% (split bursts, see the model's
    # docstring), clearly below. With bursts="split" (the split-off idle time as chain
    # state; measured 3.3% / 19.7% and 3.9% / 14.4%) design 2 is inside the paper's bound,
    # the model above the engine in most experiments (81% / 92%); with 40 runs 12 and 69 are
    # -18% and -9% (OldTahoe), +6% and +6% (Reno).
    d2 = abrupt.run_design(100, second=True, estimators=("rfc6298",))
    for v in abrupt.VARIANTS:
        paper = d2[f"{v}_rfc6298_paper_err"]
        ours = d2[f"{v}_rfc6298_rfc6298_err"]
        split = d2[f"{v}_rfc6298_split_err"]
        assert ours.abs().mean() < 0.05 < 0.10 < paper.abs().mean() < 0.13
        assert ours.abs().max() < 0.6
        assert (ours <= 0).mean() < (paper <= 0).mean()
        assert set(d2.exp[ours.abs() > 0.2]) == {12, 69}
        assert split.abs().mean() < 0.05 and split.abs().max() < 0.20
        assert (split > 0).mean() > 0.75
        # Sec. 6.1's lower bound holds here, loosely: the paper's model is below the engine
        # in two thirds of the experiments (measured 68% / 67%), within 5% below in a fifth.
        assert (paper <= 0).mean() > 0.6
        assert ((paper <= 0) & (paper >= -0.05)).mean() < 0.3
    # The extension's measured domain in design 2: w_m <= 45 (44 experiments), inside the
    # paper's bound (measured 2.5% / 6.5% and 3.1% / 12.8%), where the paper's RTO is not.
    small = d2.w_m <= 45
    bw = abrupt.by_window(d2).set_index(["variant", "experiments"])
    for v in abrupt.VARIANTS:
        r = bw.loc[(v, "w_m<=45")]
        assert r.max_abs_error < 0.20 and r.mean_abs_error < 0.10
        assert d2.loc[small, f"{v}_rfc6298_paper_err"].abs().max() > 0.25
        assert 1.0 < bw.loc[(v, "w_m>45")].timeout_ratio < 1.35
    assert abrupt.beyond_bound(d2, model="split").empty
    sure = abrupt.confirm_beyond(d2).set_index(["variant", "model", "exp"])
    for v in abrupt.VARIANTS:
        for k in (12, 69):
            assert sure.loc[(v, "rfc6298", k)].clear and sure.loc[(v, "rfc6298", k)].error < 0
            assert abs(sure.loc[(v, "split", k)].error) < 0.2


@pytest.mark.slow
def test_abrupt_rtt_long_holding_full():
    # The eight experiments of design 2 worst under the paper's timer (29-61% off): within
    # 11% (measured 10.7%) with the excess holding means x10.
    df = abrupt.long_holding([10, 12, 37, 44, 48, 65, 84, 91])
    assert (df.rel_error.abs() < 0.12).all(), df.to_string()


@pytest.mark.slow
def test_abrupt_rtt_holding_sweep_full():
    """Design 2's experiments 47, 53, 35, 7 with every excess holding mean x0.5, 1, 3, 10 (2
    runs each): within 15% at every scale (measured +14%, +10%, +5%, -8% on 47): states
    lasting one or two RTTs leave the model above, longer ones within 10%."""
    df = abrupt.holding_sweep(max_duration_s=3e3)
    assert (df.rel_error.abs() < 0.15).all(), df.to_string()
    assert (df[df.scale >= 3].rel_error.abs() < 0.11).all(), df.to_string()
