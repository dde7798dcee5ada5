"""Paper 001's control runs (lossytcp.figures.paper001): the mechanisms the whys of the
model's verdicts name, each pinned on the figure's own parameters."""

from __future__ import annotations

from lossytcp import models
from lossytcp.figures import paper001 as m


def _gain(e: int, **opts) -> float:
    mu, T, wm, H, V = m.design()[e]
    thr = {v: models.evaluate("abrupt-rtt", **m._model(mu, T, H, V, wm, v), **opts)
           .throughput_pps for v in ("oldtahoe", "reno")}
    return thr["oldtahoe"] / thr["reno"] - 1


def test_eq3_as_typeset_counts_more_spurious_dupacks_so_oldtahoe_gains_more():
    """Fig. 9's control: OldTahoe's gain over Reno comes from Reno's spurious duplicate ACKs
    alone; eq. (3) as typeset counts more of them than the consecutive reading, never fewer,
    so every experiment's gain is at least ours and the share of gains above 10% grows."""
    ours = [_gain(e) for e in range(16)]
    typeset = [_gain(e, dupack_rule="typeset") for e in range(16)]
    assert all(t >= o - 1e-9 for o, t in zip(ours, typeset, strict=True))
    assert sum(t > 0.10 for t in typeset) > sum(o > 0.10 for o in ours)


def _old_and_ideal(wm: int, t3_s: float) -> tuple[float, float]:
    kw = m._s63_model(dict(w_m=wm), "oldtahoe")
    kw["rtt_s"] = (*kw["rtt_s"][:2], t3_s + 1.0 / m.S["rate_pps"])
    r = models.evaluate("abrupt-rtt", **kw)
    return r.throughput_pps, r.ideal_pps


def test_oldtahoes_timeouts_stop_where_the_window_fills_the_rtt_rise():
    """Fig. 11's control: the model's OldTahoe times out only when an RTT rise T_j - T_i is
    longer than its window's transmission (eq. 5), so the window that escapes the time-outs
    moves with the rise: at a 100 ms third state (rise 40-42 ms, about 50 packets) w_m 40
    still times out and w_m 60 no longer does; at the control's 120 ms no w_m of the sweep
    escapes and the Ideal-OldTahoe gap widens with w_m."""
    def ratio(wm, t3):
        o, i = _old_and_ideal(wm, t3)
        return o / i
    assert ratio(40, 0.100) < 0.9 < 0.98 < ratio(60, 0.100)
    wms = (15, 30, 50, 70)
    pairs = [_old_and_ideal(wm, m.CONTROL_T3_S) for wm in wms]
    assert max(o / i for o, i in pairs) < 0.9
    gaps = [i - o for o, i in pairs]
    assert gaps == sorted(gaps)


def test_ideal_is_flat_when_every_excess_keeps_its_ratio_to_the_rtt():
    """Fig. 12's control: the Ideal TCP moves with k only through the states' shares of
    time; with E[V_i] in one ratio to T_i those shares do not move, nor does the Ideal."""
    import numpy as np

    T = np.asarray(m.S["rtt_s"])
    vals = [models.evaluate("abrupt-rtt", **m._model(
        m.S["rate_pps"], m.S["rtt_s"], m.S["H"], tuple(k * 0.8 * T), m.FIG12_WM, "oldtahoe"))
        .ideal_pps for k in (0.01, 0.3, 4.59, 100)]
    assert (max(vals) - min(vals)) / max(vals) < 0.01
    shares = [m._time_shares(k) for k in (0.01, 4.59)]
    assert abs(shares[0][2] - shares[1][2]) > 0.2        # the set's own E[V]: shares move


def test_reno_at_d_equal_to_w_m_is_oldtahoe_run_for_run_under_either_timer():
    """Fig. 10 and its control (the model's timer): the saturation value is OldTahoe's,
    exactly, since a window of w_m can never return d = w_m duplicate ACKs."""
    import lossytcp

    for est in ("rfc6298", "last_sample"):
        kw = m._s63(dict(d=25, w_m=25), 100.0, est)
        reno = lossytcp.simulate("reno", seed=3, **kw)
        old = lossytcp.simulate("oldtahoe", seed=3, **kw)
        assert reno.fast_retransmits == 0
        assert reno.throughput_pps == old.throughput_pps


def test_fig12_fastest_transitions_timeouts_stop_after_a_start_up():
    """Fig. 12's engine control: at k = 0.03 every state holds for T_i plus about 3 ms, a
    nearly periodic RTT cycle, and OldTahoe's time-outs (the model's timer) all come in the
    first 100 s: a run four times longer has the same count; at k = 0.3 they keep coming."""
    import lossytcp

    def timeouts(k, seed, dur):
        kw = m._s63(dict(k=k, w_m=m.FIG12_WM), dur, "last_sample")
        return lossytcp.simulate("oldtahoe", seed=seed, **kw).timeouts

    for seed in (1, 2):
        assert timeouts(0.03, seed, 400.0) == timeouts(0.03, seed, 100.0) > 0
        assert timeouts(0.3, seed, 400.0) > 2 * timeouts(0.3, seed, 100.0)


def test_fig8_the_models_timer_times_out_more_and_never_gains_throughput():
    """Fig. 8's control: the paper's reason for the model being a lower bound is its timer
    (eq. (2): the RTO is the latest RTT sample), more aggressive than a smoothed one; in the
    engine that timer times out more than RFC 6298's on the design's experiments (experiment
    1: 21 against 0 time-outs) and never delivers more."""
    import lossytcp

    for e in (1, 3, 12):
        mu, T, wm, H, V = m.design()[e]
        dur = 300 * max(v + t for v, t in zip(V, T, strict=True))
        r = {est: lossytcp.simulate("oldtahoe", seed=1, **m._engine(
            mu, T, H, V, wm, dur, rto_estimator=est)) for est in ("rfc6298", "last_sample")}
        assert r["last_sample"].timeouts > r["rfc6298"].timeouts
        assert r["last_sample"].throughput_pps <= r["rfc6298"].throughput_pps


def test_fig9_control_extends_the_figures_design():
    """Fig. 9's control draws its experiments from the same seeded design: the figure's
    experiments are the first of the control's, so pooling them samples one population."""
    assert m.design(m.FIG9_MORE[0])[:100] == m.design(100)
    exps = m.fig89_experiments(True)
    assert [e.name for e in exps] == [m.EXP_89, m.EXP_89_TIMER, m.EXP_9_MORE, m.EXP_8_SEEDS]
    assert exps[2].sweep["exp"] == list(range(16, m.FIG9_MORE[1]))
    # Fig. 8's more seeds: the same points, the figure's seeds among the control's
    assert exps[3].sweep == exps[0].sweep and exps[3].seeds > exps[0].seeds
    assert exps[3].sim_kwargs(exps[3].points()[0]) == exps[0].sim_kwargs(exps[0].points()[0])
