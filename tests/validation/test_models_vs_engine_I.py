"""Analytical models I against the engine, each in its own domain (the cases, tolerances and
engine configuration are :mod:`lossytcp.validation.models_i`; ``scripts/validate_models_I.py``
prints the full tables).

Every asserted case runs the engine with the case's seeds and duration (a few hundred
simulated seconds; the whole file takes well under a minute of CPU).
"""

import importlib.util
import shutil

import pytest

lossytcp = pytest.importorskip("lossytcp")
if not hasattr(lossytcp, "simulate") or importlib.util.find_spec("lossytcp._sim") is None:
    pytest.skip("the engine (lossytcp._sim) is not built", allow_module_level=True)

from lossytcp.validation import models_i as mi  # noqa: E402
from lossytcp.validation.cases import run_case  # noqa: E402

CASES = mi.all_cases()
ASSERTED = [c for c in CASES if c.asserted]


def _case(model, variant, point, group="main"):
    return next(c for c in CASES if c.model == model and c.variant == variant
                and c.point == point and c.group == group)


def test_at_least_six_points_per_model_and_variant():
    counts = {}
    for c in ASSERTED:
        counts[(c.model, c.variant)] = counts.get((c.model, c.variant), 0) + 1
    assert counts and min(counts.values()) >= 6, counts


@pytest.mark.parametrize("case", ASSERTED, ids=lambda c: c.id)
def test_model_agrees_with_engine(case):
    row = run_case(case)
    assert abs(row["rel_error"]) <= case.tolerance, row
    if case.q_tolerance is not None:   # the time-out probability Q of paper 002, Figs. 9-10
        assert abs(row["model_timeout_prob"] - row["sim_timeout_fraction"]) <= case.q_tolerance, row


def test_sack_at_high_loss_after_the_rtt_and_recovery_fixes():
    # Issue 12: SACK was 21% above the engine at 1 Mb/s, alpha 0.01, beta 0.3. The engine's
    # round trip made the model's T (6.6% per round) and SACK's recovery in halved-window
    # trains (ours) bring it to 9.1%; the uncorrected engine round trip alone is reported.
    point = "1Mbps tau=0.05s alpha=0.01 beta=0.3"
    fixed = run_case(_case("packet-train", "sack", point))
    before = run_case(_case("packet-train", "sack", point + " rtt_s=0.02 propagation",
                            group="rtt_uncorrected"))
    assert abs(fixed["rel_error"]) < 0.12, fixed
    assert before["rel_error"] > fixed["rel_error"] + 0.03, (before, fixed)


def test_newreno_overflow_as_a_bad_burst_is_the_papers_model():
    # Paper 000 treats the loss at W_m as the start of a Bad burst: NewReno then spends
    # 1/beta rounds in recovery after every overflow and the model falls a quarter below the
    # engine, whose overflow drops one packet; split as a channel loss or an overflow
    # ("stationary", ours) it comes within 1% (11% allowed).
    point = "drop q=4 overflow={} alpha=0.001 beta=0.1"
    paper = run_case(_case("packet-train", "newreno", point.format("as_channel"), "drop"))
    ours = run_case(_case("packet-train", "newreno", point.format("stationary"), "drop"))
    assert paper["rel_error"] < -0.25, paper
    assert abs(ours["rel_error"]) < 0.11, ours


def test_figs_5_6_hold_only_as_the_timer_becomes_small_against_the_rtt():
    # The paper's eq. (10) charges a timeout tau_t seconds: 0.05 s is 2.5 RTTs at 1 Mb/s and
    # 5 at 2 Mb/s, so at BDP 20 the two figures differ by ~11% with the paper's fine timer and
    # coincide at 0.005 s, as the paper's own text says ("identical as the timeout
    # granularity is decreased further"); NewReno is worst on both links only then.
    df = mi.packet_train_figs_5_6()
    for _, g in df.groupby("alpha"):
        by = g.set_index("timeout_s")
        assert by.loc[0.5, "max_link_difference"] > by.loc[0.05, "max_link_difference"] \
            > by.loc[0.005, "max_link_difference"]
        assert by.loc[0.005, "max_link_difference"] < 0.03
        assert by.loc[0.005, "worst_1mbps"] == by.loc[0.005, "worst_2mbps"] == "newreno"
    fine = df[df.timeout_s == 0.05]
    assert fine.max_link_difference.max() > 0.08
    assert (fine.worst_2mbps != "newreno").any()


@pytest.mark.parametrize("variant", ["tahoe", "newreno"])
def test_droptail_high_loss_gap_is_the_backoff_the_model_resets(variant):
    # With RTO back-off on, the model over-predicts DropTail at p = 0.2 by far more than the
    # engine's CI: Karn's rule keeps the backed-off RTO while retransmissions are acknowledged.
    row = run_case(_case("aqm-renewal", f"{variant}/droptail", "p=0.2"), seeds=8)
    assert row["model_value"] > row["sim_mean"] + 2 * row["sim_ci95"]
    assert row["rel_error"] > 0.3


def test_newreno_timeout_probability_order_under_red():
    # Paper 002, Figs. 9-10, claim "NewReno's Q slightly above Tahoe's, more so in the model".
    # Eq. (18) evaluated with the Tahoe window density (the paper's stated simplification,
    # Sec. 5.2.1) puts NewReno above Tahoe; the engine puts it below (as ns-2 2.35 does:
    # ``aqm_timeout_order(ns2=True)``), and so does eq. (18) over NewReno's own window law
    # (ours), which lands within 0.045 of the engine where the paper's density is 0.08 off.
    df = mi.aqm_timeout_order(ps=(0.03, 0.1))
    for r in df.itertuples():
        assert r.newreno_model > r.tahoe_model
        assert r.newreno_engine < r.tahoe_engine
        assert r.newreno_model_own < r.tahoe_model
        assert abs(r.newreno_model_own - r.newreno_engine) < abs(
            r.newreno_model - r.newreno_engine)
    at3 = df.set_index("p").loc[0.03]
    assert abs(at3.newreno_model_own - at3.newreno_engine) < 0.05


def test_tahoe_at_the_papers_queue_drops_twice_in_every_other_cycle():
    # Why Tahoe's q = 4 drop points are reported, not asserted: the model's cycle has one
    # overflow loss; Tahoe's slow start back to W_m / 2 overflows a 4-packet queue again.
    rows = {r["queue_packets"]: r for r in mi.tahoe_slow_start_overflow((4, 5, 6))}
    assert rows[4]["drops_per_event"] > 1.3, rows
    for q in (5, 6):
        assert rows[q]["drops_per_event"] < 1.1, rows


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian package ns2) not installed")
def test_tahoe_slow_start_overflow_is_what_ns2_does():
    # The same sender and queue in ns-2 2.35 (Agent/TCP, DropTail of 4 packets, no channel
    # loss): the same packets sent, retransmitted and fast-retransmitted, so the second drop
    # per cycle is ns-2's Tahoe, not an artefact of the engine.
    from lossytcp.ns2 import simulate_ns2

    kw = dict(rate_bps=2e6, rtt_s=0.0095, packet_size_bytes=125, window=1000, queue_packets=4,
              fixed_rto_s=0.5, backoff=False, profile="ns2", granularity_s=0.01,
              duration_s=100.0, seed=1)
    ours = lossytcp.simulate(variant="tahoe", **kw)
    ns2 = simulate_ns2("tahoe", **kw)
    assert ours.fast_retransmits > 500
    for metric in ("packets_sent", "retransmissions", "fast_retransmits", "timeouts"):
        assert getattr(ours, metric) == getattr(ns2, metric), metric
    assert ours.retransmissions > 1.8 * ours.fast_retransmits
