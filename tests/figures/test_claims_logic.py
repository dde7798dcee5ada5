"""Claim verdicts on hand-made numbers: significance, equality within a margin, reversal."""

from __future__ import annotations

import numpy as np
import pytest

from lossytcp.figures.claims import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    Series,
    compare_model,
    compare_sim,
    pairwise_claim,
)


def _series(means, sd, n, seed):
    rng = np.random.default_rng(seed)
    samples = [list(m + sd * rng.standard_normal(n)) for m in means]
    return Series([1.0, 2.0, 3.0][: len(means)], [float(np.mean(s)) for s in samples],
                  [0.0] * len(means), samples)


def test_clear_difference_holds_and_clear_reversal_fails():
    a = _series([0.6, 0.5, 0.4], 0.01, 10, 1)
    b = _series([0.5, 0.4, 0.3], 0.01, 10, 2)
    assert pairwise_claim("f", "a >= b", "simulation", "a", a, "b", b, "x", 0.01,
                          True).verdict == HOLDS
    assert pairwise_claim("f", "b >= a", "simulation", "b", b, "a", a, "x", 0.01,
                          True).verdict == FAILS


def test_reversed_means_with_overlapping_intervals_are_inconclusive_not_holds():
    # the demo's old mistake (issue 13): Tahoe 0.494 vs NewReno 0.502, intervals overlapping,
    # clearly above at the other alphas, was printed as "holds"
    tahoe = Series([1, 2], [0.6, 0.494], [0, 0], [[0.60, 0.61, 0.59, 0.60],
                                                 [0.47, 0.52, 0.49, 0.496]])
    newreno = Series([1, 2], [0.5, 0.502], [0, 0], [[0.50, 0.51, 0.49, 0.50],
                                                   [0.48, 0.53, 0.50, 0.498]])
    c = pairwise_claim("f", "Tahoe above NewReno", "simulation", "tahoe", tahoe, "newreno",
                       newreno, "alpha", 0.005, True)
    assert c.verdict == INCONCLUSIVE and "undecided" in c.detail


def test_equal_within_margin_needs_a_tight_interval():
    outs, _ = compare_sim([[0.500, 0.501, 0.499, 0.500] * 3], [[0.5005, 0.5, 0.501, 0.4995] * 3],
                          margin=0.01)
    assert outs == ["equal"]
    outs, _ = compare_sim([[0.45, 0.55]], [[0.44, 0.56]], margin=0.01)
    assert outs == ["undecided"]
    assert compare_model([0.5, 0.5, 0.4], [0.4, 0.5, 0.5]) == ["above", "equal", "below"]


def test_holm_makes_many_points_harder_to_call():
    # one point at p ~ 0.02 is "above" alone, but not as one of ten points of a claim
    b = [1.0, 2.0, 3.0, 4.0, 5.0]
    a = [x + 2.9 for x in b]
    alone, p1 = compare_sim([a], [b], 0.01)
    many, adj = compare_sim([a] + [b] * 9, [b] * 10, 0.01)
    assert alone == ["above"] and 0.01 < p1[0] < 0.05
    assert many[0] == "undecided" and adj[0] == pytest.approx(10 * p1[0])


def test_a_more_seeds_control_stands_for_the_figures_runs_at_its_points_only():
    """pooled_runs / pooled_series: at the control's x values its runs (the figure's seeds
    among them) replace the figure's; elsewhere the figure's runs are untouched."""
    import pandas as pd

    from lossytcp.figures._common import pooled_series

    def table(xs, seeds):
        return pd.DataFrame([dict(x=x, v="a", seed=s, y=x + s) for x in xs
                             for s in range(1, seeds + 1)])

    tables = {"main": table([1.0, 2.0, 3.0], 3), "more": table([3.0], 10)}

    class Data:

        def runs(self, name):
            return tables[name]

        def result(self, name):
            class R:
                class experiment:
                    level = 0.95
            return R

    s = pooled_series(Data(), "main", "more", "x", "y", v="a", label="ignored",
                      model_metric="ignored")
    assert s.x == [1.0, 2.0, 3.0]
    assert [len(x) for x in s.samples] == [3, 3, 10]
    assert s.mean[0] == 3.0 and s.mean[2] == 3.0 + 5.5


@pytest.mark.parametrize(("slow_to_fast", "outcome", "verdict"), [
    (1.05, "above", HOLDS),          # clearly higher under faster fading
    (0.992, "equal", INCONCLUSIVE),  # below 1 with its interval, but within the reading's 10%
    (0.80, "below", FAILS),          # lower by more than the 10%
])
def test_fig7_reads_its_ratio_as_its_reading_says(slow_to_fast, outcome, verdict):
    import pandas as pd

    from lossytcp.figures.paper004 import _fig7_parts

    rng = np.random.default_rng(5)
    rows = []
    for fdt, scale in ((0.256, slow_to_fast), (0.016, 1.0), (0.001, 1.0)):
        for seed in range(64):
            eps = 0.01 * (1 + 0.01 * rng.standard_normal())
            rows.append(dict(doppler_norm=fdt, snr_db=15.0, seed=seed,
                             epsilon=eps * (scale if fdt == 0.256 else 1.0)))
    parts = _fig7_parts("paper004-fig7", pd.DataFrame(rows))
    fast = next(p for p in parts if p.claim.startswith("f_D T 0.256"))
    assert fast.numbers["outcomes"] == [outcome]
    assert fast.verdict == verdict
