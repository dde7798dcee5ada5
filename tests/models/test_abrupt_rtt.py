"""abrupt-rtt (Abouzeid & Roy, paper 001): building blocks against brute force and Monte Carlo,
limits derived by hand, the claims of Figs. 9-12 on the Section 6.3 parameter set, speed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lossytcp import models
from lossytcp.errors import ParameterError
from lossytcp.models import abrupt_rtt as ar
from lossytcp.models.abrupt_rtt import SECTION_6_3, AbruptRttParams, abrupt_rtt


def _scaled(k: float, **kw):
    base = dict(SECTION_6_3)
    base["excess_mean_s"] = tuple(k * x for x in SECTION_6_3["excess_mean_s"])
    base.update(kw)
    return base


# ------------------------------------------------------------------------ building blocks
def _brute_force_dupack_depths(mu, Ti, Tj, w1, d):
    """Receiver-side replay: packets 1..c with RTT Ti, c+1..w1 with Tj, all sent at g/mu."""
    count = 0
    for c in range(1, w1 + 1):
        arrivals = sorted([(m / mu + Ti, m) for m in range(1, c + 1)]
                          + [(k / mu + Tj, k) for k in range(c + 1, w1 + 1)])
        got, nxt, dup, da = set(), 1, 0, False
        for _, p in arrivals:
            got.add(p)
            if p == nxt:
                while nxt in got:
                    nxt += 1
                dup = 0            # a new cumulative ACK resets the duplicate count
            else:
                dup += 1
                da = da or dup >= d
        count += da
    return count


@pytest.mark.parametrize("mu,Ti,Tj,w1,d", [
    (1024, 0.0808, 0.0613, 61, 3), (1024, 0.0808, 0.0613, 10, 3), (909, 0.0679, 0.0649, 40, 3),
    (1210, 0.0819, 0.0581, 60, 5), (500, 0.09, 0.06, 30, 1), (500, 0.09, 0.06, 30, 12),
    (300, 0.1, 0.099, 20, 3),
])
def test_spurious_dupack_probability_matches_receiver_replay(mu, Ti, Tj, w1, d):
    p = AbruptRttParams(rate_pps=mu, rtt_s=(Ti, Tj), H=((0, 1), (1, 0)),
                        excess_mean_s=(0.1, 0.1), max_window=max(w1, 2), variant="reno",
                        dupack_threshold=d)
    w = np.arange(1, p.max_window + 1, dtype=float)
    _, pda, _, _ = ar._event_paths(p, 0, 1, w, np.array([Ti, Tj]))
    expected = _brute_force_dupack_depths(mu, Ti, Tj, w1, d) / (mu * Ti)
    assert pda[w1 - 1] == pytest.approx(expected, abs=1e-12)


def test_oldtahoe_never_sees_dupacks():
    p = AbruptRttParams(rate_pps=1024, rtt_s=(0.08, 0.06), H=((0, 1), (1, 0)),
                        excess_mean_s=(0.1, 0.1), max_window=50, variant="oldtahoe")
    _, pda, _, _ = ar._event_paths(p, 0, 1, np.arange(1, 51.0), np.array([0.08, 0.06]))
    assert not pda.any()


def test_backoff_counts():
    Y = 0.1
    # expiries at Y, 3Y, 7Y, 15Y, 31Y, 63Y, 127Y, then every 64Y
    x = np.array([0.05, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 12.8, 19.0, 19.2, 26.0])
    expected = [0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9]
    assert ar._timeouts(x, Y).tolist() == expected


def _mc_packets_and_window(mu, Ti, Tj, Vj, wm, s, n, rng):
    """Monte Carlo of the round model with uniform depth: packets sent before X_j ends and the
    window at the next transition, from window s of the round in progress."""
    L = max(Ti, s / mu)                         # the round in progress lasts max(T_i, s/mu)
    gp = rng.uniform(0, L, n)                   # time since it started
    X = Tj + rng.exponential(Vj, n) if Vj > 0 else np.full(n, Tj)
    packets = np.zeros(n)
    window = np.full(n, s)
    g = np.arange(1, s + 1)
    packets += ((g[None, :] / mu - gp[:, None] > 0) & (g[None, :] / mu - gp[:, None] < X[:, None])
                ).sum(axis=1)
    start = L - gp                              # next round, window s + 1
    w = s + 1
    alive = X > start
    while alive.any():
        ww = min(w, wm)
        window[alive] = ww
        gg = np.arange(1, ww + 1)
        t = start[alive, None] + gg[None, :] / mu
        packets[alive] += (t < X[alive, None]).sum(axis=1)
        start = start + max(Tj, ww / mu)
        w += 1
        alive = X > start
    law = np.bincount(window, minlength=wm + 1)[1:] / n
    return packets.mean(), packets.std() / math.sqrt(n), law


@pytest.mark.parametrize("mu,Ti,Tj,Vj,wm", [
    (1000, 0.08, 0.06, 0.2, 40), (1000, 0.06, 0.08, 0.05, 40), (500, 0.07, 0.07, 0.3, 30),
    (800, 0.05, 0.09, 0.0, 60), (300, 0.06, 0.05, 0.4, 25),
])
def test_rewards_and_next_window_law_match_monte_carlo(mu, Ti, Tj, Vj, wm):
    rng = np.random.default_rng(3)
    E = ar._reward_tables(np.array([Ti]), Tj, Vj, mu, wm, True)[0]
    G, E2 = ar._transition_tables(Ti, Tj, Vj, mu, wm, True)
    assert np.allclose(E, E2, rtol=1e-12)
    for s in (1, wm // 3, wm - 1, wm):
        mean, se, law = _mc_packets_and_window(mu, Ti, Tj, Vj, wm, s, 40_000, rng)
        assert E[s - 1] == pytest.approx(mean, abs=5 * se + 1e-9)
        assert np.abs(G[s - 1] - law).max() < 0.015


def test_paper_gamma_zero_rewards_follow_eq_a4():
    """depth_average=False: (A.4) as printed, g = 0..w below w_m, g = 1..w_m above."""
    mu, T, V, wm = 700.0, 0.07, 0.15, 30

    def sf(t):
        return 1.0 if t < T else math.exp(-(t - T) / V)
    for s in (1, 10, 29, 30):
        e = sum(sf(g / mu + T * (w - s)) for w in range(s, wm) for g in range(0, w + 1))
        e += sum(sf(g / mu + T * (wm - s) + k * T)
                 for k in range(0, 3000) for g in range(1, wm + 1))
        G, E = ar._transition_tables(0.09, T, V, mu, wm, False)
        assert E[s - 1] == pytest.approx(e, rel=1e-9)
        # (A.2): the next window is s + k when T k <= X < T (k + 1)
        for w2 in range(s, wm):
            assert G[s - 1, w2 - 1] == pytest.approx(sf(T * (w2 - s)) - sf(T * (w2 - s + 1)))


@pytest.mark.parametrize("variant", ar.VARIANTS)
@pytest.mark.parametrize("depth", [True, False])
def test_sparse_censored_chain_equals_dense_emc(variant, depth):
    rng = np.random.default_rng(11)
    for _ in range(4):
        M = int(rng.integers(2, 4))
        p = AbruptRttParams(rate_pps=rng.uniform(200, 1500), rtt_s=rng.uniform(0.03, 0.1, M),
                            H=rng.dirichlet(np.ones(M), M), excess_mean_s=rng.uniform(0.01, 0.6, M),
                            max_window=int(rng.integers(2, 70)), variant=variant,
                            depth_average=depth)
        a, b = ar._compute(p), ar._compute_dense(p)
        assert a.throughput_pps == pytest.approx(b.throughput_pps, rel=1e-9)
        assert np.allclose(a.emc_distribution, b.emc_distribution, atol=1e-10)


# ------------------------------------------------------------------------------- limits
def test_equal_rtts_give_the_ideal_throughput_exactly():
    """No RTT change can fool TCP: the window sits at w_m and the rate is w_m / T."""
    for variant in ar.VARIANTS:
        r = abrupt_rtt(rate_pps=1000, rtt_s=(0.05, 0.05, 0.05),
                       H=((0.2, 0.5, 0.3), (0.5, 0.1, 0.4), (0.3, 0.3, 0.4)),
                       excess_mean_s=(0.1, 0.5, 0.02), max_window=30, variant=variant)
        assert r.throughput_pps == pytest.approx(30 / 0.05, rel=1e-9)
        assert r.ideal_pps == pytest.approx(30 / 0.05, rel=1e-12)
        assert r.p_spurious_timeout == 0 and r.p_spurious_dupack == 0
        assert r.window_pmf[-1] == pytest.approx(1.0)


def test_ideal_throughput_by_hand():
    # H = [[0, 1], [1, 0]]: pi = (1/2, 1/2); theta_i proportional to E[X_i] = T_i + V_i.
    T, V, wm = (0.05, 0.08), (0.2, 0.1), 20
    r = abrupt_rtt(rate_pps=2000, rtt_s=T, H=((0, 1), (1, 0)), excess_mean_s=V, max_window=wm)
    th = np.array([0.25, 0.18]) / 0.43
    assert r.ideal_pps == pytest.approx(wm * (th[0] / T[0] + th[1] / T[1]), rel=1e-12)


def test_single_timeout_window_by_hand():
    """A step up by more than the RTO in the idle part of a round: one timeout, eq. (6)."""
    mu, w1 = 1000.0, 9
    p = AbruptRttParams(rate_pps=mu, rtt_s=(0.05, 0.09), H=((0, 1), (1, 0)),
                        excess_mean_s=(0.1, 0.1), max_window=20, variant="oldtahoe")
    w = np.arange(1, 21.0)
    paths, _, p_to, k_to = ar._event_paths(p, 0, 1, w, np.array([0.05, 0.09]))
    # idle: x_I = 0.09 - 10/1000 = 0.08 in (Y, 3Y) with Y = 0.05 -> K_I = 1, window (w1+1)/2
    # busy: x_B = 0.04 < Y -> no timeout; p_idle = 1 - 9 / 50
    (pr_i, st_i), (_, st_b) = paths[1], paths[2]
    assert pr_i[w1 - 1] == pytest.approx(1 - 9 / 50)
    assert st_i[w1 - 1] == pytest.approx(5.0)
    assert st_b[w1 - 1] == pytest.approx(9.0)
    assert p_to[w1 - 1] == pytest.approx(1 - 9 / 50)
    assert k_to[w1 - 1] == pytest.approx(1 - 9 / 50)


def test_rfc6298_karn_expiry_after_the_fast_phase_by_hand():
    """RFC 6298 engine (rto="rfc6298"): the ACKs of the go-back-N fast phase give no sample,
    so the timer stays at 2Y; the new data's ACK comes T_j - w_r/mu after the last of them.
    T_j = 35 ms > 2 Y = 24 ms: a second expiry, the window halved again; 22 ms: none."""
    mu = 9277.0
    k, w, _ = ar._karn_expiries(0.035, np.array([20.0, 20.0]), np.array([1.0, 0.0]), 0.012, mu)
    assert k.tolist() == [2.0, 0.0] and w.tolist() == [10.0, 20.0]
    k, w, _ = ar._karn_expiries(0.022, np.array([20.0]), np.array([1.0]), 0.012, mu)
    assert k.tolist() == [1.0] and w.tolist() == [20.0]
    # 100 ms after 12 ms: 2Y, 4Y and 8Y = 96 ms pass before the new data's ACK; 16Y does not.
    k, w, _ = ar._karn_expiries(0.1, np.array([40.0]), np.array([1.0]), 0.012, mu)
    assert k.tolist() == [4.0] and w.tolist() == [5.0]


def test_rfc6298_go_back_n_duplicates_by_hand():
    """rto="rfc6298" (ours): after a spurious expiry go-back-N re-sends the whole flight (w1
    segments, each received twice), each further backoff expiry segment 1 again, each Karn
    expiry its own flight; the paper's rules count none."""
    mu, w1 = 9277.0, 20
    kw = dict(rate_pps=mu, rtt_s=(0.012, 0.035), H=((0, 1), (1, 0)), excess_mean_s=(1, 1),
              max_window=40, variant="oldtahoe")
    w = np.arange(1, 41.0)
    Y = np.array([0.012, 0.035])
    *_, dup = ar._event_paths(AbruptRttParams(**kw, rto="rfc6298"), 0, 1, w, Y, resent=True)
    *_, none = ar._event_paths(AbruptRttParams(**kw), 0, 1, w, Y, resent=True)
    assert not none.any()
    # Both paths: one backoff expiry (x < 3Y = 36 ms), then a Karn expiry with w_r = 10
    # (idle: (w1 + 1)/2 = 10.5): 20 + 10.5 idle, 20 + 10 busy.
    p_idle = 1 - w1 / (mu * 0.012)
    assert dup[w1 - 1] == pytest.approx(p_idle * 30.5 + (1 - p_idle) * 30.0)


def test_rfc6298_rto_per_window():
    """The RTO mixture per window (one sample per ACK): a larger window takes more samples
    of T_i in a visit, so its RTO ends nearer T_i (not monotonically: RTTVAR first grows
    with the samples that differ from SRTT); the backoff count takes an RTO per window."""
    p = AbruptRttParams(**SECTION_6_3, max_window=25, variant="oldtahoe", rto="rfc6298")
    T = np.array(p.rtt_s)
    w = np.arange(1, 26.0)
    mix = ar._rto_mixture(p, w[None, :] / np.maximum(T[:, None], w[None, :] / p.rate_pps))
    for i, (ys, qs) in enumerate(mix):
        assert ys.shape == (qs.size, 25) and qs.sum() == pytest.approx(1.0)
        err = np.abs(ys - T[i]).max(axis=0)
        assert err[-1] < 0.2 * err.max()
    Y = np.array([0.01, 0.02, 0.05])
    x = np.array([0.015, 0.015, 0.2])
    assert ar._timeouts(x, Y).tolist() == [ar._timeouts(a, b) for a, b in zip(x, Y, strict=True)]


def test_rfc6298_windows_after_timeouts_are_half_the_flight():
    """RFC 5681 holds ssthresh over repeated expiries of a segment: after K_I > 1 the fast
    phase still ends at (w1 + 1)/2 (the paper's eq. (8), fast congestion avoidance, is for a
    threshold reset to 1), unless a Karn expiry halves it again; the busy path ends at half
    its flight w1."""
    mu, w1 = 2000.0, 30
    kw = dict(rate_pps=mu, rtt_s=(0.03, 0.122), H=((0, 1), (1, 0)), excess_mean_s=(0.1, 0.1),
              max_window=40, variant="oldtahoe")
    w = np.arange(1, 41.0)
    Y = np.array([0.03, 0.122])
    paper = ar._event_paths(AbruptRttParams(**kw), 0, 1, w, Y)
    rfc = ar._event_paths(AbruptRttParams(**kw, rto="rfc6298"), 0, 1, w, Y)
    # Idle: x_I = 122 - 15.5 = 106.5 ms, expiries at 30 and 90 ms -> K_I = 2; busy: x_B =
    # 92 ms, K_B = 2. The paper's windows: eq. (8) and eq. (12).
    (_, paper_i), (_, paper_b) = paper[0][1], paper[0][2]
    assert paper_i[w1 - 1] == pytest.approx((-1 + math.sqrt(1 + 8 * w1)) / 2)
    assert paper_b[w1 - 1] == pytest.approx((-1 + math.sqrt(1 + 4 * w1)) / 2)
    assert paper[3][w1 - 1] == pytest.approx(2.0)
    # RFC: half the flight. Idle: the new data leaves behind the re-sent flight, as the last
    # late ACK restarts the timer, so its ACK comes T_j = 122 ms later, after 4Y = 120 ms: a
    # Karn expiry halves (w1 + 1)/2 again. Busy halves: the new data leaves T_i - w1/mu =
    # 15 ms or w1/(4 mu) = 3.75 ms before that ACK, so its own ACK comes 107 or 118.25 ms
    # after it, before 4Y: no Karn expiry, the window stays w1/2.
    (_, rfc_i), (_, rfc_b1), (_, rfc_b2) = rfc[0][1], rfc[0][2], rfc[0][3]
    assert rfc_i[w1 - 1] == pytest.approx((w1 + 1) / 4)
    assert rfc_b1[w1 - 1] == rfc_b2[w1 - 1] == pytest.approx(w1 / 2)
    p_idle = 1 - w1 / (mu * 0.03)
    assert rfc[3][w1 - 1] == pytest.approx(p_idle * 3 + (1 - p_idle) * 2)


@settings(max_examples=20, deadline=None)
@given(mu=st.floats(150, 1500), T=st.tuples(*[st.floats(0.04, 0.12)] * 3),
       V=st.tuples(*[st.floats(0.0, 0.9)] * 3), wm=st.integers(2, 60),
       rows=st.lists(st.tuples(*[st.floats(0.05, 1.0)] * 3), min_size=3, max_size=3))
def test_oldtahoe_at_least_reno_and_physical_bounds(mu, T, V, wm, rows):
    H = [[x / sum(r) for x in r] for r in rows]
    kw = dict(rate_pps=mu, rtt_s=T, H=H, excess_mean_s=V, max_window=wm)
    ot = abrupt_rtt(variant="oldtahoe", **kw)
    re = abrupt_rtt(variant="reno", **kw)
    nr = abrupt_rtt(variant="newreno", **kw)
    assert re.throughput_pps <= ot.throughput_pps * (1 + 1e-9)       # Fig. 9
    assert nr.throughput_pps == pytest.approx(re.throughput_pps)      # footnote 7
    # Hard bounds: the link rate, and w_m packets per shortest round. (The Ideal formula is
    # not a strict bound: right after a step up, the round in progress still runs on the
    # shorter RTT, which eq. (21) ignores; the excess is a fraction of a percent.)
    assert ot.throughput_pps <= mu * (1 + 1e-9)
    assert ot.throughput_pps <= wm / min(T) * (1 + 1e-9)
    assert ot.window_pmf.sum() == pytest.approx(1.0)
    assert 0 <= re.p_spurious_dupack <= 1 and 0 <= re.p_spurious_timeout <= 1


# ------------------------------------------------------------- claims, Sections 6.3-6.5
def test_claim_fig10_dupack_threshold_saturates_at_min_wm_half_bd():
    """Throughput rises with d and saturates at OldTahoe's at d_opt = min(w_m, BD/2)."""
    bd = 1210 * 0.058056                           # 70 packets over the smallest RTT
    for wm in (25, 30, 60):
        old = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="oldtahoe").throughput_pps
        thr = [abrupt_rtt(**SECTION_6_3, max_window=wm, variant="reno", dupack_threshold=d)
               .throughput_pps for d in range(1, 41)]
        assert all(a <= b + 1e-9 for a, b in zip(thr, thr[1:], strict=False))
        assert thr[0] < 0.95 * old
        d_opt = min(wm, bd / 2)
        assert thr[int(d_opt) - 1] == pytest.approx(old, rel=0.02)
        # and the saturation is not reached much earlier than d_opt
        assert thr[int(0.6 * d_opt) - 1] < 0.99 * old


def test_claim_fig11_all_rise_with_window_and_reno_gap_widens():
    wms = (5, 10, 20, 30, 40, 50, 60, 70)
    ideal, old, reno = [], [], []
    for wm in wms:
        o = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="oldtahoe")
        r = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="reno")
        ideal.append(o.ideal_pps)
        old.append(o.throughput_pps)
        reno.append(r.throughput_pps)
    for seq in (ideal, old, reno):
        assert all(a < b for a, b in zip(seq, seq[1:], strict=False))
    gap_or = np.subtract(old, reno)
    assert all(a < b for a, b in zip(gap_or, gap_or[1:], strict=False))
    gap_io = np.subtract(ideal, old)
    # Ideal - OldTahoe widens with w_m only below w_m ~ 29: above it the largest RTT step
    # (23.9 ms = 29 packets at 1210 packets/s) can no longer time out (eq. 5) and OldTahoe
    # stays within 2% of Ideal. The paper's claim holds on the first branch only (see report).
    assert gap_io[0] < gap_io[1] < gap_io[2]
    assert np.all(gap_io[3:] < 0.02 * np.asarray(ideal[3:]))


def test_claim_fig12_time_scaling_knee():
    """E[V] scaled by k: Ideal nearly flat; OldTahoe rises sharply (knee); both reach Ideal."""
    ks = (0.01, 0.1, 0.3, 1, 3, 10, 100, 1000)
    res = [(abrupt_rtt(**_scaled(k), max_window=25, variant="oldtahoe"),
            abrupt_rtt(**_scaled(k), max_window=25, variant="reno")) for k in ks]
    ideal = np.array([o.ideal_pps for o, _ in res])
    ratio_old = np.array([o.throughput_pps for o, _ in res]) / ideal
    ratio_reno = np.array([r.throughput_pps for _, r in res]) / ideal
    assert ideal.max() / ideal.min() < 1.2
    assert all(a < b for a, b in zip(ratio_old, ratio_old[1:], strict=False))
    assert ratio_old[1] < 0.4 and ratio_old[5] > 0.9          # the knee: within two decades
    assert ratio_old[-1] > 0.995 and ratio_reno[-1] > 0.995
    assert all(r <= o + 1e-9 for o, r in zip(ratio_old, ratio_reno, strict=False))


# ------------------------------------------------------------------ interface, speed, errors
def test_registered_and_property_space():
    assert models.get("abrupt-rtt") is ar.MODEL
    assert ar.LOSS_PARAMETER is None
    fields = set(AbruptRttParams.__dataclass_fields__)
    assert set(ar.PROPERTY_SPACE) <= fields
    r = models.evaluate("abrupt-rtt", **SECTION_6_3, max_window=30)
    assert r.throughput_norm == pytest.approx(r.throughput_pps / 1210)


@pytest.mark.parametrize("kwargs,name", [
    (dict(rate_pps=0), "rate_pps"),
    (dict(rtt_s=(0.05, -0.1, 0.07)), "rtt_s"),
    (dict(H=((0.5, 0.5), (0.5, 0.5))), "H"),
    (dict(H=((0.5, 0.6, 0.0), (0.3, 0.3, 0.4), (0.1, 0.1, 0.8))), "H[0]"),
    (dict(H=((1, 0, 0), (0, 1, 0), (0, 0, 1))), "H"),
    (dict(excess_mean_s=(0.1, 0.1)), "excess_mean_s"),
    (dict(max_window=0), "max_window"),
    (dict(variant="sack"), "variant"),
    (dict(dupack_threshold=0), "dupack_threshold"),
    (dict(min_rto_s=-1), "min_rto_s"),
    (dict(dupack_rule="loose"), "dupack_rule"),
    (dict(bursts="many"), "bursts"),
    (dict(bursts="split"), "bursts"),           # needs rto="rfc6298"
])
def test_bad_parameters_are_named(kwargs, name):
    base = dict(SECTION_6_3, max_window=30)
    base.update(kwargs)
    with pytest.raises(ParameterError) as e:
        abrupt_rtt(**base)
    assert e.value.name == name


# ------------------------------------------------------------------ RFC 6298 RTO (ours)
def test_rfc6298_rto_mixture_limits():
    p = AbruptRttParams(**SECTION_6_3, max_window=25, variant="oldtahoe", rto="rfc6298")
    T = np.array(p.rtt_s)
    H = np.array(p.H)
    pi = ar.stationary_distribution(H)
    for rate, expect in ((1e9, T), (0.0, None)):
        mix = ar._rto_mixture(p, rate)
        for i, (ys, qs) in enumerate(mix):
            assert qs.sum() == pytest.approx(1.0)
            if expect is not None:           # endless samples: the estimator forgets T_k
                assert np.allclose(ys, T[i])
            else:                            # no sample: SRTT is still T_k, RTTVAR 0
                ks = np.flatnonzero(pi * H[:, i] > 0)
                wk = pi[ks] * H[ks, i] / (pi[ks] * H[ks, i]).sum()
                assert np.isin(ys, T[ks]).all()
                shares = np.array([np.mean(ys == T[k]) for k in ks])
                assert shares == pytest.approx(wk, abs=1.0 / ar._RTO_VALUES)
    # One sample after a jump D = T_k - T_i: SRTT = T_i + D 7/8, RTTVAR = 2|D| (7/8 - 3/4).
    p1 = AbruptRttParams(rate_pps=1.0, rtt_s=(1.0, 2.0), H=((0.0, 1.0), (1.0, 0.0)),
                         excess_mean_s=(0.0, 0.0), max_window=4, rto="rfc6298")
    ys, _ = ar._rto_mixture(p1, 0.5)[0]            # n = 0.5 * 1.0 samples in state 0
    a, b = 0.875 ** 0.5, 0.75 ** 0.5
    assert ys == pytest.approx(1.0 + a + 8 * (a - b))


def test_rfc6298_rto_absorbs_small_jumps():
    # The Section 6.3 set changes by a few ms: RFC 6298's variance term absorbs jumps that
    # eq. (2)'s RTO turns into timeouts, so fewer spurious timeouts and more throughput.
    # (At w_m = 25 both variants time out on upward jumps; OldTahoe at 40 no longer does.)
    for variant in ("oldtahoe", "reno"):
        paper = abrupt_rtt(**SECTION_6_3, max_window=25, variant=variant)
        rfc = abrupt_rtt(**SECTION_6_3, max_window=25, variant=variant, rto="rfc6298")
        assert rfc.p_spurious_timeout < paper.p_spurious_timeout
        assert rfc.throughput_pps > paper.throughput_pps
        assert rfc.throughput_pps <= rfc.ideal_pps * (1 + 1e-9)


def test_rto_rule_is_validated():
    with pytest.raises(ParameterError, match="rto"):
        abrupt_rtt(**SECTION_6_3, max_window=10, rto="rfc")


def test_chains_too_large_to_solve_quickly_are_refused_with_the_bound():
    # Found by the fuzz test: w_m 4618 with 3 states took 19 s (and 20 states with the RFC
    # 6298 timer 27 s and 2 GB); the bound is states^3 x w_m^2 (states^4 with rfc6298).
    from lossytcp.models import evaluate

    def kw(m):
        h = np.full((m, m), 1.0 / (m - 1))
        np.fill_diagonal(h, 0.0)
        return dict(rate_pps=1000.0, rtt_s=tuple(np.linspace(0.05, 0.1, m)),
                    excess_mean_s=(0.3,) * m, H=tuple(map(tuple, h)), variant="reno")

    with pytest.raises(ParameterError, match=r"max_window.*\[1, 1000\]"):
        evaluate("abrupt-rtt", max_window=4618, **kw(3))
    with pytest.raises(ParameterError, match="at most 316 with 10 RTT states"):
        evaluate("abrupt-rtt", max_window=317, **kw(10))
    with pytest.raises(ParameterError, match="at most 702 with 3 RTT states, rto='rfc6298'"):
        evaluate("abrupt-rtt", max_window=703, rto="rfc6298", **kw(3))
    # Split bursts: jumps up of 25, 50 and 25 ms, equally often (33.3 ms on average), on a
    # grid of a quarter of it (8.33 ms) up to 99 ms of idle time: 12 steps, 13 levels.
    with pytest.raises(ParameterError, match="at most 194 with 3 RTT states, rto='rfc6298', "
                       "bursts='split' and 13 levels"):
        evaluate("abrupt-rtt", max_window=195, rto="rfc6298", bursts="split", **kw(3))
    with pytest.raises(ParameterError, match="at most 6 states with bursts='split'"):
        evaluate("abrupt-rtt", max_window=5, rto="rfc6298", bursts="split", **kw(7))
    with pytest.raises(ParameterError, match="at most 10 states with rto='rfc6298'"):
        evaluate("abrupt-rtt", max_window=5, rto="rfc6298", **kw(11))
    assert evaluate("abrupt-rtt", max_window=60, **kw(10)).throughput_pps > 0


def test_a_rate_beyond_a_terabit_is_refused_and_huge_mu_v_stays_finite():
    # Found by the fuzz test: rate_pps 1e300 made q = exp(-1/(mu V)) round to 1 (0/0).
    from lossytcp.models import evaluate

    kw = dict(rtt_s=(0.0625,) * 3, H=((0, 0.5, 0.5), (0.5, 0, 0.5), (0.5, 0.5, 0)),
              excess_mean_s=(0.0, 0.0, 0.5), max_window=2, variant="oldtahoe")
    with pytest.raises(ParameterError, match=r"rate_pps.*\(0, 1e9\]"):
        evaluate("abrupt-rtt", rate_pps=1e300, **kw)
    r = evaluate("abrupt-rtt", rate_pps=1e9, **dict(kw, excess_mean_s=(1e6,) * 3))
    assert math.isfinite(r.throughput_pps) and r.throughput_pps == pytest.approx(32.0)


def test_rfc6298_restart_rows_by_simulation():
    """``_restart_rows`` (ours): after a spurious expiry the round of window s + 1 starts at
    gamma + nd T_j (gamma ~ U[0, L], L = max(T_i, w1/mu)), later rounds tau_j apart; the
    packets sent before X_j = T_j + Exp(V_j) ends and the window then, against a Monte Carlo
    draw of gamma and X_j."""
    mu, wm, Ti = 1000.0, 12, 0.03
    T, V = np.array([Ti, 0.05]), np.array([0.02, 0.08])
    rows, cols, nd = np.array([9, 9, 3]), np.array([4, 10, 2]), np.array([1.0, 1.0, 2.0])
    E, ps, pn, pg = ar._restart_rows(Ti, T, V, mu, wm, np.array([1, 1, 1]), rows, cols, nd)
    rng = np.random.default_rng(5)
    n = 400_000
    for k in range(3):
        L = max(Ti, (rows[k] + 1) / mu)
        gamma = rng.uniform(0.0, L, n)
        X = T[1] + rng.exponential(V[1], n)
        t = gamma + nd[k] * T[1]
        s = cols[k] + 1                              # restart window
        pkts = np.zeros(n)
        win = np.full(n, float(s))
        for m in range(1, 60):
            w = min(s + m, wm)
            started = t < X
            win = np.where(started, w, win)
            pkts += np.minimum(np.clip((X - t) * mu, 0.0, None).astype(int), w) * started
            t = t + max(T[1], w / mu)
        assert E[k] == pytest.approx(pkts.mean(), rel=0.02)
        if s < wm:
            assert ps[k] == pytest.approx((win == s).mean(), abs=0.005)
            if s + 1 < wm:
                assert pn[k] == pytest.approx((win == s + 1).mean(), abs=0.005)
                assert pg[k] == pytest.approx((win >= s + 2).mean(), abs=0.005)


def test_rfc6298_samples_of_a_visit_by_hand():
    """Visits to a 10 ms state, in units of state k's sample rate. After 30 ms (k): 12 ms in
    it give k's ACKs for 12 ms and i's own (those sent in its first 2 ms): 14 ms; 25 ms give
    25 + 15 + 5. After 5 ms (an upward jump): k's ACKs stop after 5 ms, i's resume at 10 ms:
    5 + 2 = 7 and 5 + 5 + 5 = 15. Staying in i (T_k = T_i): the visit's length."""
    n = ar._visit_samples(np.array([0.012, 0.025]), 0.010, np.array([0.030, 0.005, 0.010]))
    assert n[0].tolist() == pytest.approx([0.014, 0.045])
    assert n[1].tolist() == pytest.approx([0.007, 0.015])
    assert n[2].tolist() == pytest.approx([0.012, 0.025])


def test_split_gap_by_hand():
    """The mean upward jump over the RTT process's transitions: a cycle 50 -> 60 -> 80 -> 50
    ms, each state equally often, jumps up by 10 and 20 ms: 15 ms."""
    H = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float)
    assert ar._split_gap(np.array([0.05, 0.06, 0.08]), H) == pytest.approx(0.015)


def test_split_bursts_fewer_timeouts_where_jumps_are_small():
    """bursts="split" (ours): on design 2's experiment 12 (RTTs 55-69 ms, w_m 95: jumps of 3
    to 14 ms against 45 ms of idle time) split-off gaps hide the idle time from most jumps, so
    the timeouts fall and the throughput rises; where every jump outlasts the RTO (12 -> 35
    ms isolated, the busy path times out too) no split survives and little changes."""
    from lossytcp.validation.abrupt import KARN_JUMPS, design_61

    mu, T, wm, H, V = list(design_61(13, 2004, True))[12]
    kw = dict(rate_pps=mu, rtt_s=T + 1 / mu, H=H, excess_mean_s=V, max_window=wm,
              variant="oldtahoe", rto="rfc6298")
    one, split = abrupt_rtt(**kw), abrupt_rtt(**kw, bursts="split")
    assert one.split_share is None and 0.2 < split.split_share < 0.8
    assert split.spurious_timeouts_per_s < 0.8 * one.spurious_timeouts_per_s
    assert split.throughput_pps > 1.5 * one.throughput_pps
    c = KARN_JUMPS["12->35ms"]
    kw = dict(rate_pps=c["rate_pps"], rtt_s=c["rtt_s"], H=c["H"],
              excess_mean_s=c["excess_mean_s"], max_window=c["window"], rto="rfc6298")
    one, split = abrupt_rtt(**kw), abrupt_rtt(**kw, bursts="split")
    assert split.split_share < 0.05
    assert split.throughput_pps == pytest.approx(one.throughput_pps, rel=0.02)


def test_previous_states_acks_come_as_one_burst():
    """k's round reaches a visit as one burst at a uniform phase: on average the spread-out
    count (L), but a visit shorter than T_k gets all, part or none of it."""
    share = ar._burst_share(0.01, 0.04, np.array([0.04, 0.004]))     # (bursts, phases)
    assert share[0] == pytest.approx(np.full(ar._PHASE_POINTS, 0.01))   # sent throughout
    assert share[1].mean() == pytest.approx(0.01)
    assert share[1].min() == 0.0 and share[1].max() == pytest.approx(0.04)
    # Condensing keeps a column's quantiles (the inverse distribution function at 1/8, 3/8,
    # 5/8, 7/8): four equally likely values of 1..8.
    v = ar._condense(np.arange(1.0, 9.0)[:, None], np.ones(8), 4)
    assert v[:, 0].tolist() == [1.0, 3.0, 5.0, 7.0]


def test_rfc6298_visits_of_millions_of_rtts():
    """A visit may span millions of RTTs (0.1 us RTTs held for a second on average): its
    samples are counted in closed form, not round by round (that once took 24 GB)."""
    import resource

    from lossytcp.models.abrupt_rtt import _visit_samples

    # A visit of 1000 s at a 1 ns RTT: a billion rounds, each of T_k = 1 or 2 ns of samples.
    assert _visit_samples(np.array([1e3]), 1e-9, np.array([1e-9, 2e-9])) == pytest.approx(
        np.array([[1e3], [2e3]]), rel=1e-9)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = abrupt_rtt(rate_pps=1e7, rtt_s=(1e-7, 2e-7), H=((0, 1), (1, 0)), excess_mean_s=(1.0, 1.0),
                   max_window=4, rto="rfc6298", bursts="split")
    assert 0 < r.throughput_pps <= 1e7
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB


def _split_after(i, j, w1, split_s, Yi=1.0):
    """The mean split-off idle time after a transition i -> j out of window w1 (the event
    paths' last element weighted by their probabilities), and the timeout probability."""
    T = (0.05, 0.06, 0.08)
    H = ((0, 1, 0), (0, 0, 1), (1, 0, 0))
    p = AbruptRttParams(rate_pps=1000.0, rtt_s=T, H=H, excess_mean_s=(0.1,) * 3,
                        max_window=60, variant="oldtahoe", rto="rfc6298", bursts="split")
    paths, _, p_to = ar._event_paths(p, i, j, np.array([float(w1)]), np.zeros(3), Yi=Yi,
                                     restart=True, split_s=split_s, gap=0.015)[:3]
    prob = sum(float(np.sum(pt[0])) for pt in paths)
    after = sum(float(np.sum(pt[0] * pt[3])) for pt in paths)
    return after / prob, float(p_to[0])


def test_split_off_idle_time_moves_with_each_jump_by_hand():
    """bursts="split" carries the split-off idle time S (one gap, ours). 50 -> 60 ms, window 10
    at 1000 packets/s (10 ms of bursts, 40 ms idle), S = 5 ms, no timeout: the main gap (0.7
    of the round) keeps S, a burst (0.2) or the split-off gap (0.1) gains the 10 ms jump:
    0.7 * 5 + 0.3 * 15 = 8 ms. 80 -> 50 ms, window 10 (70 ms idle), S = 5 ms (a third of the
    15 ms mean jump): the main gap (65/80) keeps it, the split-off gap (5/80) closes under the
    30 ms drop, a burst (10/80) closes it for the share 1/3 / (1/3 + 1) = 1/4 of the bursts:
    (65 * 5 + 10 * 0.75 * 5) / 80 = 4.53 ms. The same drop with window 40 and S = 15 ms closes
    the 25 ms main gap, and the split-off gap becomes the main: S = 0 on every path. A jump
    that times out restarts the flight as one burst: S = 0."""
    assert _split_after(0, 1, 10, 0.005)[0] == pytest.approx(0.008)
    assert _split_after(2, 0, 10, 0.005)[0] == pytest.approx((65 * 5 + 7.5 * 5) / 80 * 1e-3)
    s, p_to = _split_after(2, 0, 40, 0.015)
    assert s == pytest.approx(0.0, abs=1e-15) and p_to == 0.0
    s, p_to = _split_after(0, 2, 10, 0.0, Yi=0.001)
    assert p_to == pytest.approx(1.0) and s == pytest.approx(0.0, abs=1e-15)


def test_split_levels_by_hand():
    """The grid of S: a quarter of the mean jump up to the largest idle time (T_max - 1/mu), at
    most 48 levels, then a coarser step; no upward jump, no split."""
    step, n = ar._split_levels(np.array([0.05, 0.06, 0.081]), 1000.0, 0.015)
    assert (step, n) == (pytest.approx(0.00375), 23)       # 80 ms / 3.75 ms = 21.3 -> 22 + 1
    step, n = ar._split_levels(np.array([0.05, 0.2]), 1000.0, 0.001)
    assert n == 48 and step == pytest.approx(0.199 / 47)
    assert ar._split_levels(np.array([0.05, 0.2]), 1000.0, 0.0) == (0.0, 1)
    # Equal RTTs (found by the property test): one level, no split, the single burst's answer.
    kw = dict(rate_pps=150.0, rtt_s=(0.0625,) * 3, H=((1 / 3,) * 3,) * 3,
              excess_mean_s=(0.0,) * 3, max_window=2, rto="rfc6298")
    split = abrupt_rtt(**kw, bursts="split")
    assert split.split_share == 0.0 and split.split_idle_s == 0.0
    assert split.throughput_pps == abrupt_rtt(**kw).throughput_pps


def test_iterative_stationary_law_equals_the_direct_solve():
    """The split chains' GMRES solve (``iterative=True``) against the direct one on a random
    sparse chain with transient states (on split chains themselves:
    ``test_split_bursts_physical_bounds_and_solver``)."""
    import scipy.sparse

    from lossytcp.models._markov import stationary_distribution

    rng = np.random.default_rng(3)
    n = 3000
    rows = np.repeat(np.arange(n), 4)
    cols = rng.integers(0, n - 100, rows.size)          # the last 100 states are transient
    P = scipy.sparse.csr_matrix((rng.uniform(0.1, 1.0, rows.size), (rows, cols)), (n, n))
    P = scipy.sparse.diags(1.0 / np.asarray(P.sum(axis=1)).ravel()) @ P
    direct = stationary_distribution(P)
    fast = stationary_distribution(P, iterative=True)
    assert np.abs(fast - direct).max() < 1e-12 and fast[-100:].max() == 0.0


def test_rfc6298_rto_above_the_bandwidth_delay_product():
    """Above the bandwidth-delay product the sender's RTT samples include the standing queue
    (a round of window w lasts w/mu): at mu = 150 packets/s, RTTs of 109/62/47 ms and w_m =
    21 every window from 17 up is above every state's BDP, so the RTO is w/mu whatever state
    the RTT process came from (no spread between states, no granularity), and no jump (at
    most 62.5 ms) reaches it. The engine (2000 s, two seeds) has no timeout at all and sends
    at the link's rate; the model with RFC 6298's RTO taken on the bare T_i instead had 0.49
    spurious timeouts per second, whose go-back-N duplicates put it at 150.02 packets/s,
    above the link (found by ``test_split_bursts_physical_bounds_and_solver``)."""
    from lossytcp.validation import abrupt

    mu, T, wm = 150.0, (0.109375, 0.0625, 0.046875), 21
    p = AbruptRttParams(rate_pps=mu, rtt_s=T, H=((1 / 3,) * 3,) * 3, excess_mean_s=(0.0,) * 3,
                        max_window=wm, variant="oldtahoe", rto="rfc6298")
    w = np.arange(1, wm + 1)
    for ys, _ in ar._rto_mixture(p, ar._sample_rates(p)):
        above = w / mu >= max(T)
        assert np.all(ys[:, above] == (w / mu)[above])
    for bursts in ar.BURSTS:
        r = abrupt_rtt(**{**p.__dict__, "bursts": bursts})
        assert r.p_spurious_timeout == 0.0
        assert r.throughput_pps == pytest.approx(mu, rel=1e-12)
    exp = (mu, np.array(T) - 1 / mu, wm, np.array(p.H), np.zeros(3))
    runs = abrupt._engine("oldtahoe", exp, 2000.0, 2, "rfc6298").reports
    assert all(run.timeouts == 0 and run.packets_received > 0.999 * mu * 2000 for run in runs)


@settings(max_examples=12, deadline=None)
@given(mu=st.floats(150, 1500), T=st.tuples(*[st.floats(0.04, 0.12)] * 3),
       V=st.tuples(*[st.floats(0.0, 0.9)] * 3), wm=st.integers(2, 40),
       rows=st.lists(st.tuples(*[st.floats(0.05, 1.0)] * 3), min_size=3, max_size=3),
       variant=st.sampled_from(["oldtahoe", "reno"]))
# Found by this test: above the bandwidth-delay product, spurious timeouts the engine never
# has (``test_rfc6298_rto_above_the_bandwidth_delay_product``) sent the throughput above the
# link's rate, 150.0216 > 150.
@example(mu=150.0, T=(0.109375, 0.0625, 0.046875), V=(0.0, 0.0, 0.0), wm=21,
         rows=[(1.0, 1.0, 1.0)] * 3, variant="oldtahoe")
# Go-back-N's duplicates above the window's bound (w_m / min T = 44.66 packets/s; the model
# 44.92 in all with split bursts, 45.27 with one, 43.35 and 43.37 of it new data; the engine,
# 3000 s, two seeds: 45.34 and 45.40 in all, 43.06 and 43.01 new): that bound holds for the
# new data only.
@example(mu=800.05283764497, T=(0.1189427512117052, 0.08955687263782683, 0.08972687936135257),
         V=(0.0, 0.0, 0.8362849645443879), wm=4,
         rows=[(0.06729496141094717, 0.49911511940851766, 0.4335899191805352),
               (0.17454435707875673, 0.5704854412687635, 0.2549702016524797),
               (0.484497075902299, 0.17785180465723713, 0.3376511194404638)],
         variant="reno")
def test_split_bursts_physical_bounds_and_solver(mu, T, V, wm, rows, variant):
    """bursts="split" on random RTT processes: the link's bound on every packet delivered
    (the throughput counts go-back-N's duplicates, as the engine's does) and the window's on
    the new data (the duplicates are not: after a spurious expiry the flight still in the
    pipe is outside the window that sends them again), S inside the largest idle time, and
    the GMRES solve equal to the direct one."""
    H = [[x / sum(r) for x in r] for r in rows]
    kw = dict(rate_pps=mu, rtt_s=T, H=H, excess_mean_s=V, max_window=wm, variant=variant,
              rto="rfc6298", bursts="split")
    r = abrupt_rtt(**kw)
    assert 0.0 < r.throughput_pps <= mu * (1 + 1e-9)
    cycle_s = float((r.emc_distribution * (np.array(H) @ (np.array(T) + np.array(V)))).sum())
    new_data = r.throughput_pps - float((r.emc_distribution * r.resent).sum()) / cycle_s
    assert new_data <= min(mu, wm / min(T)) * (1 + 1e-9)
    assert r.window_pmf.sum() == pytest.approx(1.0)
    assert 0.0 <= r.split_share <= 1.0 and 0.0 <= r.split_idle_s <= max(T)
    from unittest import mock

    from lossytcp.models import _markov

    direct = _markov.stationary_distribution
    with mock.patch.object(ar, "stationary_distribution", lambda P, iterative=False: direct(P)):
        d = abrupt_rtt(**kw)
    assert d.throughput_pps == pytest.approx(r.throughput_pps, rel=1e-8)
    assert d.split_share == pytest.approx(r.split_share, rel=1e-6, abs=1e-9)
