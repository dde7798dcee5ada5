"""Paper 002 scenario I's control runs (lossytcp.figures.paper002, Figs. 9-12): the mechanisms
the whys of the verdicts name, each pinned at one point of the figure's own setting."""

from __future__ import annotations

import lossytcp
from lossytcp.figures import paper002 as m


def _q(variant: str, p: float, **over) -> float:
    kw = {**m._sim(dict(p=p, aqm="red", duration_s=300.0)), **over}
    return lossytcp.simulate_seeds(6, variant, **kw).mean("timeout_fraction")


def test_fast_retransmit_on_the_first_duplicate_removes_tahoes_small_window_timeouts():
    """Fig. 10's control: Tahoe restarts from one segment after every fast retransmit, so more
    of its losses fall in windows too small for three duplicate ACKs; retransmitting on the
    first duplicate removes those time-outs, far more of Tahoe's than of NewReno's."""
    p = 0.0497
    drop = {v: _q(v, p) - _q(v, p, dupack_threshold=1) for v in m.VARIANTS}
    assert drop["newreno"] > 0
    assert drop["tahoe"] > drop["newreno"] + 0.03


def test_capping_the_window_narrows_tahoes_gap_to_newreno_under_red():
    """Fig. 12's control: Tahoe's climb back from one segment after each fast retransmit
    costs more the larger the window at the loss; capped at 4, most losses still recovered by
    fast retransmit, the two throughputs come within 5%."""
    p = 0.0259
    ratio, q = {}, {}
    for cap in (20, *m.CONTROL_WINDOWS):
        kw = {**m._sim(dict(p=p, aqm="red", duration_s=300.0)), "window": cap}
        t, n = (lossytcp.simulate_seeds(6, v, **kw) for v in m.VARIANTS)
        ratio[cap] = n.mean("throughput_pps") / t.mean("throughput_pps")
        q[cap] = t.mean("timeout_fraction")
    assert ratio[8] <= ratio[20] + 0.02
    assert abs(ratio[4] - 1) < 0.05
    assert q[4] < 0.5


def test_newrenos_own_window_law_brings_the_models_q_to_the_engines():
    """Fig. 10's "tracks (Q, NewReno)" control: the model's NewReno Q over Tahoe's window law
    (the paper's simplification) sits above the one over NewReno's own law, and the engine's
    NewReno Q lies nearer the latter under RED."""
    from lossytcp import models

    def model_q(p, law):
        return models.evaluate("aqm-renewal", variant="newreno", queue="red", p=p, rtt_s=0.24,
                               timeout_s=0.72, max_window=20, timeout_formula="approximate",
                               q_window=law).timeout_probability
    for p in (0.01, 0.0259, 0.0497):
        assert model_q(p, "own") < model_q(p, "tahoe")
    p = 0.0259
    sim = lossytcp.simulate_seeds(6, "newreno", **m._sim(dict(p=p, aqm="red", duration_s=600.0)))
    q = sim.mean("timeout_fraction")
    assert abs(q - model_q(p, "own")) < abs(q - model_q(p, "tahoe"))


def test_droptail_through_the_cycle_alone_costs_newreno_at_least_as_much_as_tahoe():
    """Fig. 12's model control: with each variant's RED time-out probability in its DropTail
    cycle (DropTail's effect through eq. (12)'s fewer packets after the loss and NewReno's
    longer fast recovery alone), NewReno's DropTail/RED ratio is at most Tahoe's (within 1%)
    over the whole p range; it is the time-out route that moves the largest p."""
    for p in (0.001, 0.0135, 0.0952, 0.183, 0.35):
        (rt, _, _), (rn, _, _) = (m.droptail_cycle_ratio(v, p) for v in m.VARIANTS)
        assert rn <= rt + 0.01
        assert 0 < rn <= 1 and 0 < rt <= 1
