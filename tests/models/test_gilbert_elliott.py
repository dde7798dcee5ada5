"""Gilbert-Elliott / Bernoulli helpers against hand values and a Monte Carlo of the chain."""

import numpy as np
import pytest

from lossytcp.channels import Bernoulli, GilbertElliott
from lossytcp.errors import ParameterError


def _simulate_losses(ch: GilbertElliott, n: int, seed: int) -> np.ndarray:
    """Per-packet loss indicators, built from geometric state sojourns (independent of the code)."""
    rng = np.random.default_rng(seed)
    k = int(n * (ch.alpha * ch.beta) / (ch.alpha + ch.beta) * 1.2) + 10
    good = rng.geometric(ch.alpha, size=k)
    bad = rng.geometric(ch.beta, size=k)
    lengths = np.empty(2 * k, dtype=int)
    lengths[0::2], lengths[1::2] = good, bad
    states = np.repeat(np.tile([0, 1], k), lengths)[:n]
    assert states.size == n
    e = np.array([ch.loss_good, ch.loss_bad])
    return rng.random(n) < e[states]


def _runs(x: np.ndarray, value: bool) -> float:
    d = np.diff(np.concatenate([[not value], x, [not value]]).astype(int))
    starts = np.flatnonzero(d == (1 if value else -1))
    ends = np.flatnonzero(d == (-1 if value else 1))
    return float(np.mean(ends - starts))


def test_stationary_and_means_by_hand():
    ch = GilbertElliott(alpha=0.01, beta=0.2)
    # pi_B = 0.01 / 0.21, sojourns 1/beta = 5 and 1/alpha = 100 (paper 000, eq. (2)).
    assert ch.pi_bad == pytest.approx(0.01 / 0.21)
    assert ch.pi_good == pytest.approx(0.20 / 0.21)
    assert ch.loss_rate == pytest.approx(0.047619, rel=1e-4)
    assert ch.mean_burst_packets == pytest.approx(5.0)
    assert ch.mean_good_run_packets == pytest.approx(100.0)
    pi = np.linalg.matrix_power(ch.transition_matrix, 500)[0]
    assert pi == pytest.approx([ch.pi_good, ch.pi_bad])


def test_general_loss_probabilities_match_monte_carlo():
    ch = GilbertElliott(alpha=0.05, beta=0.3, loss_good=0.02, loss_bad=0.7)
    x = _simulate_losses(ch, 400_000, seed=3)
    assert x.mean() == pytest.approx(ch.loss_rate, rel=0.03)
    assert _runs(x, True) == pytest.approx(ch.mean_burst_packets, rel=0.03)
    assert _runs(x, False) == pytest.approx(ch.mean_good_run_packets, rel=0.03)


def test_from_loss_rate_round_trip():
    ch = GilbertElliott.from_loss_rate(0.02, 4.0)
    assert ch.beta == pytest.approx(0.25)
    assert ch.loss_rate == pytest.approx(0.02)
    assert ch.mean_burst_packets == pytest.approx(4.0)
    with pytest.raises(ParameterError, match="loss_rate"):
        GilbertElliott.from_loss_rate(0.9, 2.0)   # needs alpha > 1
    with pytest.raises(ParameterError, match="mean_burst_packets"):
        GilbertElliott.from_loss_rate(0.1, 0.5)


def test_spec_and_netem_strings():
    ch = GilbertElliott(alpha=0.01, beta=0.2)
    assert ch.spec() == "ge:alpha=0.01,beta=0.2,advance=slot"
    assert ch.spec(advance="transmission", idle_reset_s=0.05) == (
        "ge:alpha=0.01,beta=0.2,advance=transmission,idle_reset=50ms")
    assert ch.netem() == "loss gemodel 1% 20% 100% 0%"
    g = GilbertElliott(alpha=0.01, beta=0.2, loss_good=0.001, loss_bad=0.5)
    assert "loss_good=0.001,loss_bad=0.5" in g.spec()
    assert Bernoulli(0.01).spec() == "bernoulli:p=0.01"
    assert Bernoulli(0.01).netem() == "loss random 1%"


def test_bernoulli_is_memoryless_ge():
    b = Bernoulli(0.1)
    g = b.as_gilbert_elliott()
    assert g.loss_rate == pytest.approx(0.1)
    assert g.mean_burst_packets == pytest.approx(b.mean_burst_packets) == pytest.approx(1 / 0.9)
    assert g.mean_good_run_packets == pytest.approx(10.0)
    assert Bernoulli(0.0).as_gilbert_elliott().loss_rate == 0.0


@pytest.mark.parametrize("kwargs,name", [
    (dict(alpha=-0.1, beta=0.2), "alpha"), (dict(alpha=0.1, beta=1.5), "beta"),
    (dict(alpha=0.0, beta=0.0), "alpha"), (dict(alpha=0.1, beta=0.2, loss_bad=2), "loss_bad"),
])
def test_bad_parameters_rejected(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        GilbertElliott(**kwargs)
    with pytest.raises(ParameterError, match="'p'"):
        Bernoulli(1.2)
    with pytest.raises(ParameterError, match="advance"):
        GilbertElliott(0.1, 0.2).spec(advance="sometimes")
