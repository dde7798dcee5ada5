r"""The packet-train model of Anjum & Tassiulas (paper 000).

F. Anjum, L. Tassiulas, "Comparative study of various TCP versions over a wireless link with
correlated losses", IEEE/ACM Transactions on Networking 11(3), 2003, Sections II-V.

Throughput of OldTahoe, Tahoe, NewReno and SACK over a Gilbert-Elliott channel (Good = success,
Bad = loss, alpha = P(G->B), beta = P(B->G) per packet). The paper writes out Tahoe only
(Propositions 1-4) and says the other variants "follow similarly"; the derivation used here,
for all four, is stated below equation by equation. Numbers in brackets refer to the paper.

Notation
--------
mu = rate_bps / (8 packet_size_bytes) packets/s, T = rtt_s, W_m = floor(mu T) + 1 (the paper's
W_m = mu T + 1 for integer mu T: the window at which the pipe overflows), tau_t = timeout_s,
Omega = dupack_threshold. pi_G = beta/(alpha+beta), pi_B = alpha/(alpha+beta).

1. Trains and the channel [Section III]
   A cycle sends *trains*: the packets clocked out by the ACKs of the previous train, back to
   back. The first packet of each train finds the channel in its stationary law; inside a train
   the chain advances once per packet. Hence, for a train of theta packets,

       s(theta) = P(no loss)        = pi_G (1-alpha)^theta + pi_B beta (1-alpha)^(theta-1)
       f(1)     = P(first loss at 1) = pi_B   (= pi_G alpha + pi_B (1-beta), eq. (14))
       f(i)     = P(first loss at i) = pi_G (1-alpha)^(i-2) alpha,   2 <= i <= theta   (eq. (13))

   which is eq. (15)-(17) train by train:
   (1-alpha)^(#packets) [pi_G + pi_B beta/(1-alpha)]^(#trains).

2. Train sizes [Prop. 4]
   A cycle that starts in slow start with threshold omega has trains 1, 2, 4, ... doubling while
   below omega, then omega, omega+1, ... (congestion avoidance, +1 per train), up to W_m:
   theta_(k+1) = min(2 theta_k, omega) if theta_k < omega, else theta_k + 1. This is Prop. 4;
   t_m = ceil(log2 omega) + 1 + W_m - omega trains at most (eq. (27)). A cycle that starts in
   congestion avoidance at w0 (NewReno/SACK after a successful fast recovery) has trains
   w0, w0+1, ..., W_m (the paper's bar-theta_k). omega = max(floor(sigma/2), 2) and
   w0 = max(floor(sigma/2), 2): the paper's omega = floor(sigma/2) is undefined in its
   log2 for sigma = 1; RFC 5681 (and ns-2) floor ssthresh at two segments.

3. Loss window [Prop. 1]
   If the first loss of the cycle is packet i of train k, the loss window (the window when the
   loss is detected, after the ACKs of the i-1 packets before it) is
       sigma' = min(theta_k + i - 1, omega)   for a slow-start train (theta_k < omega),
       sigma' = theta_k                       for a congestion-avoidance train.
   In slow start theta_k + i - 1 is the packet's index in the cycle, so P(sigma' = eta) =
   S_s(eta) F_s(eta) exactly as in Prop. 1, eq. (13)-(15). For congestion avoidance
   P(sigma' = theta) = P(reach the train) (1 - s(theta)) (eq. (16)-(17)). The train of size W_m
   loses a packet with probability 1 (F_c(W_m) = 1, the overflow of a bufferless pipe), so
   P(sigma' = W_m) = P(reach it): this is the case k = W_m - omega of eq. (12), whose factor
   (1 - psi_1 - psi_2) belongs to k < W_m - omega (the extraction swapped them; the proof is
   unambiguous). Prop. 1's congestion-avoidance exponent gamma_3 = s(omega-1, k) assumes
   omega-1 packets in slow start; with the trains of Prop. 4 (used by Prop. 3 and 4) the slow
   start sends 1+2+...+2^(ceil(log2 omega)-1) packets, which equals omega-1 when omega is a
   power of two. We use the trains of Prop. 4 throughout so that Prop. 1, 3 and 4 describe the
   same cycle; the tests check that both agree where the paper's are consistent.
   ``at_max_window="hold"`` (ours, not in the paper) replaces the forced loss at W_m by a
   receiver window of W_m: the W_m train repeats until a channel loss (a geometric number of
   trains), as with a large buffer and a window limit.

4. Timeout probability [Prop. 2]
   The sigma'-1 packets sent after the first loss continue the chain from the Bad state; a
   timeout occurs iff fewer than Omega of them succeed (fewer than Omega duplicate ACKs):
       tau(sigma') = P(successes among sigma'-1 packets < Omega | previous packet Bad).
   We evaluate it by a forward recursion over (state, number of losses), which equals the
   paper's combinatorial sum eq. (19) (the test suite evaluates eq. (19) independently).
   As in the paper all packets of the loss window are treated as one train, and by default
   (``overflow_loss="as_channel"``) the same tau is used when the loss at W_m is the overflow.
   That makes an overflow look like the start of a Bad burst: NewReno then spends 1/beta
   rounds in fast recovery after every overflow. ``overflow_loss="stationary"`` (ours) splits
   the W_m loss into a channel loss (probability 1 - s(W_m), continuing from Bad) and an
   overflow (probability s(W_m)), after which the sigma'-1 packets meet the channel in its
   stationary law. OldTahoe: tau = 1.
   NewReno needs the number of losses in the window: n_2 = 1 + i, where i is the number of
   losses among those sigma'-1 packets; given no timeout, i <= sigma'-1-Omega. SACK: n_2 = 1.
   As in the paper, retransmissions during fast recovery are not lost.

5. The loss-window chain [Section IV]
   OldTahoe/Tahoe: every cycle starts in slow start with omega from the previous loss window,
   so {sigma} is a Markov chain on 1..W_m with P(sigma'|sigma) from item 3.
   NewReno/SACK: the start depends on how the previous cycle ended, so the chain is on
   (sigma, e), e in {FR, TO}:
       P((sigma', TO) | (sigma, e)) = P(sigma' | start(sigma, e)) tau(sigma')
       P((sigma', FR) | (sigma, e)) = P(sigma' | start(sigma, e)) (1 - tau(sigma'))
   with start(sigma, TO) = slow start from 1, threshold omega, and start(sigma, FR) =
   congestion avoidance at w0 = max(floor(sigma/2), 2). Its stationary law P(sigma, e) comes from
   the shared solver; P(sigma) is its marginal and P_tau = sum P(sigma) tau(sigma) (eq. (18)).

6. Packets and time per cycle [eq. (3)-(10)]
   n_1 = index of the train holding the first loss. With r_k = P(reach train k):
       E[n_1 | start] = sum_k r_k,      E[Q | start] = sum_k theta_k r_k     (eq. (5), (27)-(31))
   and, averaging over the stationary start,
       E[Qhat] = E[Q] + E[sigma]                                                (eq. (4), ours)
   Eq. (4) reads E[Qhat] = E[n_2] + E[Q] + E[epsilon] with epsilon the packets *successfully*
   sent after the first loss, then sets E[epsilon] = E[sigma]: sigma counts the 1 + i lost
   packets of the loss window too, and n_2 counts their retransmissions again. Every packet of
   the loss window is delivered exactly once (first time or by retransmission), so we count
   E[Q] + E[sigma] for every variant: unique packets, what the engine's goodput counts. The
   1 + i retransmissions are reported as ``mean_recovery_packets``.
       E[zeta] = E[sum_(k<=n_1) phi_k] + E[phi_(n_1+1)] + tail,                 (eq. (6)-(10))
       tail_OT = tau_t, tail_T = P_tau tau_t, tail_NR = E[(1-I) n_2] T + P_tau tau_t,
       tail_S  = E[(1-I) n_2] T + P_tau tau_t.
   NewReno: n_2 = 1 + i rounds, one hole each (eq. (8)). SACK: the paper takes n_2 = 1, one
   round for all holes (eq. (9)); we send the 1 + i retransmissions in trains of the halved
   window, n_2 = ceil((1 + i) / w0) with w0 = max(floor(sigma/2), 2) (ours), so that a burst
   longer than the halved window costs SACK more than one round, as in the engine.
   The paper sets E[phi_k] = T. We take phi = max(T, theta/mu) for a train of theta packets
   (ours): a train of W_m = mu T + 1 packets cannot leave the link faster than theta/mu, and
   with phi = T the model could exceed the link capacity. The (n_1+1)-th train carries the
   sigma' packets of the loss window. Throughput Delta = E[Qhat] / E[zeta] (eq. (3)), normalized
   by mu. T is the whole round-trip time, the packet's own transmission included.
   ``buffer_packets`` = q (ours): the paper's W_m = mu T + 1 is the overflow of a bufferless
   pipe; with a buffer of q packets the window overflows at W_m = floor(mu T) + 1 + q, trains
   above mu T taking theta/mu.

7. Conditions for good throughput [Section V, eq. (32)]
   1/alpha >= (mu T)^2 and 1/beta < mu T / 2; see :func:`good_throughput_conditions`.

Validation (``lossytcp.validation.models_i``, ``scripts/validate_models_I.py``): against the
engine configured to these assumptions (trains redrawn from the stationary law, protected
retransmissions, fixed timer without back-off, the engine's round trip equal to the model's
T: propagation T - 1/mu and zero-size ACKs) the model is within 25% at every point of Figs. 2
and 5's links for all four variants, 3.3% on average, 22% at most (Tahoe at 2 Mb/s, alpha
0.003, beta 0.1, where the model's timeout probability is 0.35 against the engine's 0.23).
SACK at 1 Mb/s, alpha 0.01, beta 0.3 was 21% above the engine: 6.6% of it was the engine's
round trip (propagation T plus the packet's and the ACK's transmission; 16.8% with the new
SACK rules and that round trip, reported as ``rtt_uncorrected``), the rest SACK's recovery
in one round and the double count of eq. (4) (item 6): now 9.1%. With the paper's own W_m (a
4-packet queue, ``buffer_packets=4``) and ``overflow_loss="stationary"`` NewReno and SACK are
within 16% (3.2% on average), with a 6-packet queue all three variants within 8.1%; Tahoe at
q = 4 is 31-35% above the engine, outside the model: its slow start after each overflow
overflows the 4-packet queue again in every other cycle (1.5 drops per congestion event
against the model's one, ns-2 2.35's Tahoe identically; ``validation.models_i.
tahoe_slow_start_overflow``). ``overflow_loss="as_channel"``, the paper's model, leaves
NewReno up to 26% (q = 4) and 29% (q = 6) below the engine: it treats every overflow as the
start of a Bad burst, so NewReno spends 1/beta rounds in recovery after each one, where the
engine's overflow drops one packet.
Figs. 5-6 (``packet_train_figs_5_6``): with the paper's fine timer (0.05 s) the 1 and 2 Mb/s
links differ by up to 12% and NewReno is worst only at 1 Mb/s (OldTahoe at 2 Mb/s, where
0.05 s is 5 RTTs); at 0.005 s they differ by 1.5% and NewReno is worst on both. Eq. (10)
charges a timeout tau_t seconds, 2.5 RTTs on one link and 5 on the other: the paper's own
text says the figures are "nearly similar, with the performance becoming identical as the
timeout granularity is decreased further", and NewReno worst "as the granularity becomes
finer and less significant with respect to the RTT". The claims are the paper's limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validate as v
from ..errors import ParameterError
from ._markov import stationary_distribution
from .base import Model, ModelResult, register

VARIANTS = ("oldtahoe", "tahoe", "newreno", "sack")
MAX_WINDOW_MODES = ("drop", "hold")
OVERFLOW_LOSS = ("as_channel", "stationary")
_MAX_BDP = 4096.0  # cost grows as W_m^2; beyond this a point takes seconds


@dataclass(frozen=True)
class PacketTrainParams:
    variant: str
    alpha: float
    beta: float
    rate_bps: float
    rtt_s: float
    packet_size_bytes: float
    timeout_s: float = 0.5
    dupack_threshold: int = 3
    at_max_window: str = "drop"
    overflow_loss: str = "as_channel"
    buffer_packets: int = 0

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "variant", v.choice("variant", self.variant, VARIANTS))
        s(self, "alpha", v.probability("alpha", self.alpha, open_low=True))
        s(self, "beta", v.probability("beta", self.beta, open_low=True))
        s(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        s(self, "rtt_s", v.positive("rtt_s", self.rtt_s))
        s(self, "packet_size_bytes", v.positive("packet_size_bytes", self.packet_size_bytes))
        s(self, "timeout_s", v.positive("timeout_s", self.timeout_s))
        s(self, "dupack_threshold", v.integer("dupack_threshold", self.dupack_threshold, 1, 64))
        s(self, "at_max_window", v.choice("at_max_window", self.at_max_window, MAX_WINDOW_MODES))
        s(self, "overflow_loss", v.choice("overflow_loss", self.overflow_loss, OVERFLOW_LOSS))
        s(self, "buffer_packets", v.integer("buffer_packets", self.buffer_packets, 0, 100_000))
        bdp = self.bdp_packets
        if not 1.0 <= bdp <= _MAX_BDP:
            raise ParameterError(
                "rate_bps", self.rate_bps,
                f"gives a bandwidth-delay product rate_bps*rtt_s/(8*packet_size_bytes) = {bdp:.4g}"
                f" packets; the model needs it in [1, {_MAX_BDP:g}]")
        if self.max_window > _MAX_BDP + 1:
            # The size of the work is the largest window, the buffer included (issue 24: a
            # 100000-packet buffer allocated 9.65 GB, then died on a 74.5 GiB array).
            raise ParameterError(
                "buffer_packets", self.buffer_packets,
                f"gives a largest window W_m = floor(BDP) + 1 + buffer_packets = "
                f"{self.max_window}; the model needs W_m <= {_MAX_BDP + 1:g} (its cost grows "
                "as W_m^2)")

    @property
    def capacity_pps(self) -> float:
        return self.rate_bps / (8.0 * self.packet_size_bytes)

    @property
    def bdp_packets(self) -> float:
        return self.capacity_pps * self.rtt_s

    @property
    def max_window(self) -> int:
        # The paper's W_m = mu T + 1 is the overflow of a bufferless pipe; a buffer of q
        # packets holds q more (ours). Trains above mu T take theta/mu (item 6).
        return int(math.floor(self.bdp_packets + 1e-9)) + 1 + self.buffer_packets


@dataclass(frozen=True, repr=False)
class PacketTrainResult(ModelResult):
    variant: str
    timeout_probability: float
    mean_n1: float
    mean_n2: float
    mean_recovery_packets: float
    mean_loss_window: float
    mean_packets_per_cycle: float
    mean_cycle_s: float
    throughput_per_rtt: float
    max_window: int
    loss_window_distribution: np.ndarray = field(repr=False)


# ---------------------------------------------------------------------------------------------
# Channel pieces (item 1)


class _Channel:
    def __init__(self, alpha: float, beta: float, wmax: int) -> None:
        self.alpha, self.beta = alpha, beta
        self.pg = beta / (alpha + beta)
        self.pb = alpha / (alpha + beta)
        q = 1.0 - alpha
        th = np.arange(wmax + 1, dtype=float)
        # the exponent th - 1 is clipped at 0 so that alpha = 1 never evaluates 0**-1
        self.s = self.pg * q**th + self.pb * beta * q ** np.maximum(th - 1, 0)
        self.s[0] = 1.0
        # first-loss position pmf, i = 1..wmax (index i)
        f = np.zeros(wmax + 1)
        f[1] = self.pb
        if wmax >= 2:
            f[2:] = self.pg * alpha * q ** np.arange(wmax - 1)
        self.f = f


def _loss_count_after_bad(ch: _Channel, n_max: int, p_bad_before: float = 1.0) -> np.ndarray:
    """L[n, i] = P(i losses among n packets | the state before them is Bad w.p. p_bad_before)."""
    a, b = ch.alpha, ch.beta
    out = np.zeros((n_max + 1, n_max + 1))
    out[0, 0] = 1.0
    g = np.zeros(n_max + 2)   # P(last state Good, i losses)
    bad = np.zeros(n_max + 2)  # P(last state Bad, i losses)
    bad[0] = p_bad_before
    g[0] = 1.0 - p_bad_before
    for n in range(1, n_max + 1):
        new_g = g * (1 - a) + bad * b
        new_b = np.zeros_like(bad)
        new_b[1:] = (g[:-1] * a + bad[:-1] * (1 - b))
        g, bad = new_g, new_b
        out[n] = (g + bad)[: n_max + 1]
    return out


# ---------------------------------------------------------------------------------------------
# Cycle statistics per start condition (items 2, 3, 6)


@dataclass
class _StartStats:
    """Per start condition (rows): P(sigma'|start), E[n1], E[sum theta], E[sum phi]."""

    p_sigma: np.ndarray   # (n_starts, W+1), column = sigma'
    n1: np.ndarray
    q: np.ndarray
    dur: np.ndarray


def _ca_stats(ch: _Channel, wmax: int, hold: bool, phi: np.ndarray) -> _StartStats:
    """Congestion avoidance starting at window w0 = row index (1..W): trains w0, w0+1, ..., W."""
    W = wmax
    s = ch.s
    idx = np.arange(W + 1)
    # reach[w0, th] = prod_{j=w0}^{th-1} s(j) for th >= w0; built by a masked cumulative product.
    m = np.where(idx[None, :] >= idx[:, None], s[None, :], 1.0)
    m[:, -1] = 1.0  # s(W) is never a factor of reaching a train
    cp = np.cumprod(m, axis=1)
    reach = np.zeros((W + 1, W + 1))
    reach[:, 1:] = cp[:, :-1]
    reach[idx[:, None] > idx[None, :]] = 0.0
    reach[np.arange(W + 1), np.arange(W + 1)] = 1.0
    reach[0] = 0.0
    p = reach * (1.0 - s)[None, :]
    p[:, W] = reach[:, W]
    # weight of the last train: 1 visit ("drop") or a geometric number of visits ("hold")
    last = 1.0 / (1.0 - s[W]) if hold else 1.0
    wts = reach.copy()
    wts[:, W] *= last
    th = idx.astype(float)
    return _StartStats(p_sigma=p, n1=wts.sum(axis=1), q=wts @ th, dur=wts @ phi)


def _ss_stats(ch: _Channel, wmax: int, omegas: np.ndarray, ca: _StartStats,
              phi: np.ndarray) -> _StartStats:
    """Slow start from a window of 1 with threshold omega (one row per omega in ``omegas``)."""
    W = wmax
    # Slow-start trains are 1, 2, 4, ... whatever omega is; train k covers cycle indices
    # eta = 2^k .. 2^(k+1)-1 and g(eta) = P(first loss is packet eta) (Prop. 1, eq. (13)-(15)).
    n_tr = max(1, int(math.ceil(math.log2(W))) + 1)
    sizes = 2 ** np.arange(n_tr)
    top = int(sizes[-1] * 2)
    g = np.zeros(top + 1)
    reach = np.ones(n_tr + 1)
    for k, th in enumerate(sizes):
        th = int(th)
        g[th: 2 * th] = reach[k] * ch.f[1: th + 1] if th <= W else 0.0
        reach[k + 1] = reach[k] * (ch.s[th] if th <= W else 0.0)
    rows = len(omegas)
    p = np.zeros((rows, W + 1))
    n1 = np.zeros(rows)
    q = np.zeros(rows)
    dur = np.zeros(rows)
    for r, om in enumerate(omegas):
        om = int(om)
        K = int(np.sum(sizes < om))          # slow-start trains before reaching omega
        end = int(2 ** K)                    # first index after them
        p[r, 1:om] = g[1:om]
        p[r, om] += g[om:end].sum()
        R = reach[K]
        p[r] += R * ca.p_sigma[om]
        n1[r] = reach[:K].sum() + R * ca.n1[om]
        q[r] = float(sizes[:K] @ reach[:K]) + R * ca.q[om]
        dur[r] = float(phi[sizes[:K]] @ reach[:K]) + R * ca.dur[om]
    return _StartStats(p_sigma=p, n1=n1, q=q, dur=dur)


# ---------------------------------------------------------------------------------------------


def _omega(sigma: np.ndarray) -> np.ndarray:
    return np.maximum(sigma // 2, 2)


def _model_pieces(params: PacketTrainParams):
    W = params.max_window
    mu, T = params.capacity_pps, params.rtt_s
    ch = _Channel(params.alpha, params.beta, W)
    phi = np.maximum(T, np.arange(W + 1) / mu)
    hold = params.at_max_window == "hold"
    ca = _ca_stats(ch, W, hold, phi)
    sig = np.arange(1, W + 1)
    om = np.minimum(_omega(sig), W)
    uniq, inv = np.unique(om, return_inverse=True)
    ss_u = _ss_stats(ch, W, uniq, ca, phi)
    ss = _StartStats(ss_u.p_sigma[inv], ss_u.n1[inv], ss_u.q[inv], ss_u.dur[inv])
    # timeout probability and n2 per loss window (item 4)
    omega_dup = params.dupack_threshold
    n = np.arange(W)[:, None]
    i = np.arange(W)[None, :]
    ok = (n - i) >= omega_dup           # at least Omega successes: fast retransmit

    # SACK's recovery rounds: the 1 + i holes go out in trains of the halved window
    # w0 = max(floor(sigma/2), 2), sigma = n + 1 (ours; see item 6).
    sack_rounds = np.ceil((1 + i) / np.maximum((n + 1) // 2, 2))

    def tau_n2(L):
        return (np.clip(1.0 - np.where(ok, L, 0.0).sum(axis=1), 0.0, 1.0),
                np.where(ok, (1 + i) * L, 0.0).sum(axis=1),
                np.where(ok, sack_rounds * L, 0.0).sum(axis=1))

    tau = np.ones(W + 1)
    n2 = np.zeros(W + 1)
    rounds = np.zeros(W + 1)
    tau[1:], n2[1:], rounds[1:] = tau_n2(_loss_count_after_bad(ch, W - 1))
    if not hold and params.overflow_loss == "stationary":
        # The W_m train loses to the channel w.p. 1 - s(W_m) and to the overflow otherwise;
        # after an overflow the next packets meet the channel in its stationary law.
        t_st, n_st, r_st = tau_n2(_loss_count_after_bad(ch, W - 1, ch.pb))
        c = ch.s[W]
        tau[W] = (1 - c) * tau[W] + c * t_st[W - 1]
        n2[W] = (1 - c) * n2[W] + c * n_st[W - 1]
        rounds[W] = (1 - c) * rounds[W] + c * r_st[W - 1]
    if params.variant == "oldtahoe":
        tau[:] = 1.0
        n2[:] = 0.0
        rounds[:] = 0.0
    return ch, ca, ss, tau, n2, rounds, phi


def loss_window_transition(params: PacketTrainParams) -> np.ndarray:
    """Tahoe's P(W_(rho+1) = eta | W_rho = sigma) (Prop. 1), rows/columns sigma = 1..W_m."""
    _, _, ss, _, _, _, _ = _model_pieces(params)
    return ss.p_sigma[:, 1:]


def _compute(params: PacketTrainParams) -> PacketTrainResult:
    W = params.max_window
    mu, T, tau_t = params.capacity_pps, params.rtt_s, params.timeout_s
    _, ca, ss, tau, n2, rounds, phi = _model_pieces(params)
    sig = np.arange(1, W + 1)
    if params.variant in ("oldtahoe", "tahoe"):
        P = ss.p_sigma[:, 1:]
        pi = stationary_distribution(P)
        p_sigma = pi @ P
        e_n1 = float(pi @ ss.n1)
        e_q = float(pi @ ss.q)
        e_dur = float(pi @ ss.dur)
    else:
        w0 = np.minimum(np.maximum(sig // 2, 2), W)
        start_p = np.vstack([ss.p_sigma[:, 1:], ca.p_sigma[w0, 1:]])   # rows: (sigma,TO),(sigma,FR)
        to = tau[1:]
        P = np.hstack([start_p * to[None, :], start_p * (1 - to)[None, :]])
        pi = stationary_distribution(P)
        p_sigma = pi @ start_p
        e_n1 = float(pi @ np.concatenate([ss.n1, ca.n1[w0]]))
        e_q = float(pi @ np.concatenate([ss.q, ca.q[w0]]))
        e_dur = float(pi @ np.concatenate([ss.dur, ca.dur[w0]]))
    p_sigma = np.clip(p_sigma, 0.0, None)
    p_sigma /= p_sigma.sum()
    p_tau = float(p_sigma @ tau[1:])
    e_sigma = float(p_sigma @ sig)
    e_last = float(p_sigma @ phi[1:])
    # Second stage: NewReno and SACK both retransmit the 1 + i lost packets, NewReno one per
    # train (n2 = 1 + i), SACK in trains of the halved window. The retransmissions deliver
    # packets of the loss window, which E[sigma] already counts (item 6).
    e_rec = float(p_sigma @ n2[1:]) if params.variant in ("newreno", "sack") else 0.0
    if params.variant == "newreno":
        e_n2 = e_rec
    elif params.variant == "sack":
        e_n2 = float(p_sigma @ rounds[1:])
    else:
        e_n2 = 0.0
    packets = e_q + e_sigma
    if params.variant == "oldtahoe":
        tail = tau_t
    elif params.variant == "tahoe":
        tail = p_tau * tau_t
    else:
        tail = e_n2 * T + p_tau * tau_t
    cycle = e_dur + e_last + tail
    thr = packets / cycle
    return PacketTrainResult(
        throughput_pps=thr, throughput_norm=thr / mu, variant=params.variant,
        timeout_probability=p_tau, mean_n1=e_n1, mean_n2=e_n2, mean_recovery_packets=e_rec,
        mean_loss_window=e_sigma,
        mean_packets_per_cycle=packets, mean_cycle_s=cycle, throughput_per_rtt=thr * T,
        max_window=W, loss_window_distribution=p_sigma,
    )


def packet_train(**kwargs) -> PacketTrainResult:
    """Anjum & Tassiulas packet-train throughput; see the module docstring."""
    return _compute(PacketTrainParams(**kwargs))


@dataclass(frozen=True)
class GoodThroughputConditions:
    """Paper 000, Section V: 1/alpha >= (mu T)^2 and 1/beta < mu T / 2."""

    bdp_packets: float
    alpha_max: float
    beta_min: float
    alpha_ok: bool
    beta_ok: bool

    @property
    def satisfied(self) -> bool:
        return self.alpha_ok and self.beta_ok


def good_throughput_conditions(alpha: float, beta: float, rate_bps: float, rtt_s: float,
                               packet_size_bytes: float) -> GoodThroughputConditions:
    """The two necessary conditions for good throughput (eq. (32) and the text after it)."""
    a = v.probability("alpha", alpha, open_low=True)
    b = v.probability("beta", beta, open_low=True)
    bdp = (v.positive("rate_bps", rate_bps) * v.positive("rtt_s", rtt_s)
           / (8.0 * v.positive("packet_size_bytes", packet_size_bytes)))
    return GoodThroughputConditions(bdp_packets=bdp, alpha_max=1.0 / bdp**2, beta_min=2.0 / bdp,
                                    alpha_ok=1.0 / a >= bdp**2, beta_ok=1.0 / b < bdp / 2)


MODEL = register(Model(
    name="packet-train", params_type=PacketTrainParams, compute=_compute,
    summary="Anjum & Tassiulas packet-train model: OldTahoe/Tahoe/NewReno/SACK over a "
            "Gilbert-Elliott channel",
    citation="Anjum, Tassiulas. Comparative study of various TCP versions over a wireless link "
             "with correlated losses. IEEE/ACM ToN 11(3), 2003.",
    aliases=("anjum-tassiulas",),
))

LOSS_PARAMETER = "alpha"


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name == "PROPERTY_SPACE":
        from hypothesis import strategies as st
        return {
            "variant": st.sampled_from(list(VARIANTS)),
            "alpha": st.floats(1e-6, 0.5),
            "beta": st.floats(0.01, 1.0),
            "rate_bps": st.sampled_from([1e6, 2e6]),
            "rtt_s": st.floats(0.005, 0.1),
            "packet_size_bytes": st.sampled_from([125, 500]),
            "timeout_s": st.sampled_from([0.05, 0.5]),
            "dupack_threshold": st.integers(1, 4),
            "at_max_window": st.sampled_from(list(MAX_WINDOW_MODES)),
            "overflow_loss": st.sampled_from(list(OVERFLOW_LOSS)),
        }
    raise AttributeError(name)
