"""Intervals, Welch, Holm, power and sequential stopping against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lossytcp.experiments.stats import (
    SequentialRule,
    holm,
    mean_ci,
    min_detectable_difference,
    welch,
    welch_power,
)


def test_mean_ci_is_students_t_for_the_seed_count():
    x = [0.51, 0.48, 0.55, 0.50]
    ci = mean_ci(x, 0.975)
    lo, hi = stats.t.interval(0.975, 3, loc=np.mean(x), scale=stats.sem(x))
    assert ci.n == 4 and ci.low == pytest.approx(lo) and ci.high == pytest.approx(hi)
    assert math.isnan(mean_ci([1.0]).halfwidth) and math.isnan(mean_ci([]).mean)
    assert mean_ci([1.0, math.nan, 3.0]).n == 2      # NaN is no sample


def test_welch_matches_scipy_and_handles_zero_spread():
    a, b = [1.0, 2.0, 4.0, 3.5], [2.5, 3.0, 5.5]
    w = welch(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert w.t == pytest.approx(ref.statistic) and w.p == pytest.approx(ref.pvalue)
    assert welch([2, 2, 2], [2, 2]).p == 1.0 and welch([2, 2, 2], [3, 3]).p == 0.0
    assert math.isnan(welch([1.0], [1.0, 2.0]).p)


def test_holm_step_down():
    # Holm 1979's procedure by hand: sorted p 0.01, 0.02, 0.04 times 3, 2, 1, made monotone
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert math.isnan(holm([0.5, math.nan, 0.01])[1])      # NaN stays, not counted
    assert holm([0.5, math.nan, 0.01])[2] == pytest.approx(0.02)
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])     # 2 x 0.8 capped at 1


def test_power_grows_with_seeds_and_detectable_difference_has_the_stated_power():
    p3 = welch_power(3, 3, 1.0, 1.0, 1.5, 0.05)
    p10 = welch_power(10, 10, 1.0, 1.0, 1.5, 0.05)
    assert 0.05 < p3 < p10 < 1
    d = min_detectable_difference(10, 10, 1.0, 1.0, 0.05, 0.8)
    assert welch_power(10, 10, 1.0, 1.0, d, 0.05) == pytest.approx(0.8, abs=1e-4)
    # by simulation: the Welch test at that difference rejects ~80% of the time
    rng = np.random.default_rng(7)
    rej = np.mean([stats.ttest_ind(rng.normal(d, 1, 10), rng.normal(0, 1, 10),
                                   equal_var=False).pvalue < 0.05 for _ in range(4000)])
    assert rej == pytest.approx(0.8, abs=0.03)


def test_sequential_rule_stops_on_relative_halfwidth_and_at_the_cap():
    rule = SequentialRule(rel_halfwidth=0.05, min_seeds=3, max_seeds=9, step=2)
    assert rule.next_count([]) == 3
    assert rule.next_count([1.0, 1.01, 0.99]) == 3               # precise enough: stop
    noisy = [1.0, 2.0, 0.5]
    assert rule.next_count(noisy) == 5
    assert rule.next_count(noisy * 3) == 9                        # the cap
    assert SequentialRule(rel_halfwidth=0.01, abs_halfwidth=0.5, min_seeds=2).next_count(
        [0.0, 0.01]) == 2                                         # absolute floor near zero
    with pytest.raises(ValueError, match="max_seeds"):
        SequentialRule(min_seeds=5, max_seeds=3)
