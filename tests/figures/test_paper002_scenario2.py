"""Paper 002 scenario II's measurements (lossytcp.figures.paper002): the fast engine form of
the scenario, time-out lengths from the window trace, the observed flow's loss pattern from
the queue trace, the stratified independence test, the illustration rule, the queue curve."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lossytcp import _sim
from lossytcp.figures import paper002 as m


@pytest.mark.parametrize("args,kw", [
    (("red", 0.6, 300.0), dict(window_trace=True, queue_window=(270.0, 300.0))),
    (("droptail", 0.63, 2000.0), {}),
    (("red", 0.55, 60.0), dict(queue_window=(40.0, 60.0), red_wait=False)),
])
def test_fast_engine_form_equals_the_built_scenario(args, kw):
    assert m.s2_engine(*args, **kw) == m.s2_scenario(*args, **kw).engine()


@pytest.mark.parametrize("rate", [0.0, -1.0, float("nan"), float("inf"), "fast"])
def test_fast_engine_form_checks_the_arrival_rate(rate):
    from lossytcp.errors import ParameterError

    with pytest.raises(ParameterError, match="arrival_rate_per_s"):
        m.s2_engine("red", rate, 10.0)


def test_scenario_ii_senders_are_ns2_tahoe_with_the_coarse_tick():
    e = m.s2_engine("droptail", 0.6, 10.0)
    tcps = [e["flows"][0]["tcp"]] + [t["tcp"] for t in e["traffic"]]
    assert len(tcps) == 30
    for tcp in tcps:
        assert (tcp["profile"], tcp["granularity_s"], tcp["limited_transmit"],
                tcp["delay_growth"], tcp["max_window"], tcp["packet_size_bytes"]) == \
            ("ns2", 0.1, False, False, 20, 500)
    assert e["links"][m._bc_link()]["rate_bps"] == 15e6


def test_timeout_rtos_first_and_repeated_expiries():
    wt = [(0.0, 1, 2, 0.6), (1.0, 2, 2, 0.6), (2.0, 1, 2, 1.2),   # time-out at RTO 0.6
          (3.0, 1, 2, 2.4),                                        # repeated expiry
          (4.0, 2, 2, 0.5),                                        # a new RTT estimate
          (5.0, 1, 2, 1.0), (6.0, 2, 2, 0.7), (7.0, 1, 2, 1.4)]    # two first time-outs
    assert m.timeout_rtos(wt) == ([0.6, 0.5, 0.7], 1)


def test_timeout_rtos_count_every_expiry_of_a_real_run():
    e = m.s2_engine("droptail", 0.7, 60.0, window_trace=True)
    f = json.loads(_sim.run_json(json.dumps(e)))["flows"][0]
    first, repeats = m.timeout_rtos(f["window_trace"])
    assert f["timeouts"] > 0
    assert len(first) + repeats == f["timeouts"]
    # ns-2's RTO in 0.1 s ticks, at least 2 ticks
    assert all(x >= 0.2 - 1e-9 and abs(x * 10 - round(x * 10)) < 1e-6 for x in first)


def _trace(records):
    """A queue trace from (t, flow, event, waiting, dequeue) records."""
    return {"t_s": [r[0] for r in records], "flow": [r[1] for r in records],
            "event": [r[2] for r in records], "packet": ["data"] * len(records),
            "traffic": [-1] * len(records), "seq": list(range(len(records))),
            "queue_packets": [r[3] for r in records],
            "red_avg": [20.0] * len(records), "dequeue_s": [r[4] for r in records]}


def test_loss_pattern_counts_pairs_inside_rounds_only():
    a, d = "admit", "early"
    # round 1: a d d a a ; round 2 (0.3 s later): a a d a ; another flow's packets between
    seq = [(0.0, a), (1e-4, d), (2e-4, d), (3e-4, a), (4e-4, a),
           (0.3, a), (0.3001, a), (0.3002, d), (0.3003, a)]
    recs = []
    for t, ev in seq:
        recs.append((t, 0, ev, 3, t if ev == a else None))
        recs.append((t + 5e-5, -1, "forced", 3, None))
    lp = m.loss_pattern(_trace(recs))
    assert (lp.arrivals, lp.drops) == (9, 3)
    assert (lp.dd, lp.da, lp.ad, lp.aa) == (1, 2, 2, 2)
    # the paper's p: a drop given the previous packet got through, across rounds too
    assert (lp.after_admit, lp.drops_after_admit) == (5, 2)
    assert lp.rounds == 2 and lp.rounds_with_drop == 2
    assert lp.rest_fractions == pytest.approx([1 / 3, 0.0])


def _pattern(dd, da, ad, aa):
    return m.LossPattern(dd=dd, da=da, ad=ad, aa=aa)


def test_dependence_is_stratified_by_run():
    # independent inside each run (P(drop | drop) = P(drop | admitted)), at 1% and 30%: the
    # pooled table alone shows a fourfold "dependence", the stratified test none
    pats = [_pattern(1, 99, 99, 9801), _pattern(30, 70, 300, 700)]
    dep = m.dependence(pats)
    assert dep.p_dd / dep.p_ad > 3
    assert dep.expected == pytest.approx(31.0)
    assert dep.ratio == pytest.approx(1.0)
    assert dep.p_value > 0.5
    assert m._independence_verdict(dep)[0] == "independent"


def test_dependence_detects_clustering_and_spacing():
    clustered = m.dependence([_pattern(40, 60, 40, 1860)] * 3)
    assert clustered.p_value < 1e-10 and clustered.ratio > 5
    assert m._independence_verdict(clustered)[0] == "positive"
    spaced = m.dependence([_pattern(0, 100, 100, 900)] * 2)   # ~10 pairs expected each
    assert spaced.observed == 0 and spaced.p_value < 1e-6
    # none seen where 2 x 100 x 100 / 1100 were expected: the exact Poisson bound 3.689
    assert spaced.expected == pytest.approx(200 / 11)
    assert spaced.ratio_ci == pytest.approx((0.0, 3.6889 / (200 / 11)), rel=1e-4)
    assert m._independence_verdict(spaced)[0] == "negative"
    few = m.dependence([_pattern(0, 10, 10, 80)])
    assert m._independence_verdict(few)[0] == "undecided"


def test_pick_burst_follows_the_rule():
    a, d = "admit", "early"
    recs = [(0.0, -1, a, 0, 0.0)]
    t = 0.5      # a 7-packet burst with one drop before 1 s: ignored
    for j in range(7):
        recs.append((t + j * 2e-4, 0, d if j == 3 else a, 10, None if j == 3 else t))
    t = 1.2      # 7 packets, two drops: not RED's rule, DropTail's
    for j in range(7):
        recs.append((t + j * 2e-4, 0, d if j in (1, 4) else a, 10, None))
    t = 1.5      # 6 packets, one drop
    for j in range(6):
        recs.append((t + j * 2e-4, 0, d if j == 2 else a, 10, None))
    t = 1.8      # 7 packets, one drop: RED's pick
    for j in range(7):
        recs.append((t + j * 2e-4, 0, d if j == 4 else a, 10, None))
    qt = _trace(recs)
    times = m.flow_arrivals(qt)[0]
    idx, size = m.pick_burst(qt, "red")
    assert size == 7 and times[idx[0]] == pytest.approx(1.8)
    idx, size = m.pick_burst(qt, "droptail")
    assert size == 7 and times[idx[0]] == pytest.approx(1.2)
    # without a 7-packet burst, the nearest size
    qt2 = _trace([r for r in recs if not 1.79 < r[0] < 1.9])
    idx, size = m.pick_burst(qt2, "red")
    assert size == 6 and m.flow_arrivals(qt2)[0][idx[0]] == pytest.approx(1.5)


def test_queue_curve_counts_waiting_packets():
    recs = [(0.0, 0, "admit", 0, 0.0), (1.0, 0, "admit", 0, 3.0), (2.0, 0, "admit", 1, 4.0),
            (2.5, 0, "forced", 2, None)]
    t, n = m.queue_curve(_trace(recs))
    at = {float(x): float(y) for x, y in zip(t, n, strict=True)}
    assert at == {0.0: 0.0, 1.0: 1.0, 2.0: 2.0, 3.0: 1.0, 4.0: 0.0}


def test_red_base_probability_with_ns2_automatic_thresholds():
    # 15 Mb/s, 500 B: min_th = 0.005 x 3750 / 2 = 9.375, max_th = 28.125 (the engine's
    # red.rs test), max_p 0.1, gentle up to 2 max_th
    assert m.red_base_probability(9.0) == 0.0
    assert m.red_base_probability(18.75) == pytest.approx(0.05)
    assert m.red_base_probability(28.125) == pytest.approx(0.1)
    assert m.red_base_probability(42.1875) == pytest.approx(0.55)
    assert m.red_base_probability(60.0) == 1.0


def test_model_at_measured_values_and_summary():
    import pandas as pd

    runs = pd.DataFrame([dict(aqm="droptail", arrival_rate=0.6, seed=s, p=p, Q=q,
                              throughput_pps=thr, rtt_s=0.25, t0_s=0.6, early=0, drops=10)
                         for s, p, q, thr in ((1, 0.01, 0.1, 50.0), (2, 0.012, 0.15, 45.0),
                                              (3, 0.011, 0.12, 48.0))])
    mod = [m.s2_model("droptail", p, 0.25, 0.6) for p in runs["p"]]
    runs["Q_model"] = [x.timeout_probability for x in mod]
    runs["throughput_pps_model"] = [x.throughput_pps for x in mod]
    s = m.s2_summary(runs).iloc[0]
    assert s["p"] == pytest.approx(0.011)
    assert s["Q_resid"] == pytest.approx(float(np.mean(runs["Q"] - runs["Q_model"])))
    assert s["Q_resid"] < -0.1          # the model's DropTail Q is far above these
    assert 0 <= s["Q_resid_p"] < 0.05
    assert math.isfinite(s["thr_rel_err_ci"])
