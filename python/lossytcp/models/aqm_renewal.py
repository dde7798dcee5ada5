r"""Renewal-reward model of Tahoe and NewReno under RED and DropTail (Kaj & Olsen, paper 002).

I. Kaj, J. Olsen, "Stochastic equilibrium modeling of the TCP dynamics in various AQM
environments", Sections 2-4. Numbers in brackets refer to the paper.

Loss models [Section 1.3]. ``queue="red"``: each packet is dropped independently with
probability p. ``queue="droptail"``: p is the probability of going from Good to Bad; once a
packet is lost the rest of the loss round is lost too; rounds are independent.

Throughput [eq. (2)], per round (RTT):

    T-put = (E[A] + E[B]) / (E[Y] + (1 - Q) E[Z_FR] + Q E[Z_TO] / RTT)

with E[A] = (1-p)/p packets before the first loss (geometric A, Section 2.3), and per second
T-put / RTT. The Section 4 summary, with a = 1/2 for NewReno and a = 0 for Tahoe:

* Tahoe window density (Rayleigh) f_W(v) = b p v exp(-b p v^2 / 2) [eq. (10)];
  f_C(x) = sqrt(2 pi b p) (1 - Phi(sqrt(b p) x)) for C = U W, U uniform [eq. (11)].
* Tahoe: E[W] = sqrt(pi / (2 b p)), E[Y] = (1-p) sqrt(b pi / (2p)) (Section 4.1: the (1-p)
  factor is as printed there; eq. (3) with A = V/p alone gives sqrt(b pi / (2p))), E[Z_FR] = 1.
* NewReno [eq. (13)-(14), re-derived; the typeset roots are garbled]: with K^0 geometric with
  parameter Q, E[sum a^(2k) V_k] = 1 / (1 - a^2 (1-Q)) = 4 / (3 + Q), so
  E[W^2] ~ (2/(b p)) 4/(3+Q), E[W] ~ sqrt(2/(b p)) 2/sqrt(3+Q) and, from the steady state of
  eq. (3), E[Y] = b E[W] (1 - a (1-Q)).
* E[B] = (1-p)(E[W] - 1) under RED (B ~ Bin(W-1, 1-p)), (1-p) E[W]/2 under DropTail
  (B ~ Bin(C, 1-p), E[C] = E[W]/2) [eq. (6)-(8), (12)].
* E[Z_FR]: 1 for Tahoe; NewReno 1 + (5/24) E[W] p under RED, 1 + E[W]/4 under DropTail
  (Section 3.4).
* Time-out probability Q [eq. (15)-(22)], kappa = dupack_threshold (the paper's kappa = 3),
  P(Bin(x, 1-p) >= kappa) ~ 1 - C(x, kappa-1) p^(x-kappa+1) (clipped to [0, 1]: for p near 0.35
  and small x the truncated sum can leave [0, 1]):
    Tahoe/RED       Q = 1 - int_kappa^inf (1 - C(v-1, kappa-1) p^(v-kappa)) f_W(v) dv   (16)
    Tahoe/DropTail  Q = 1 - int_kappa^inf (1 - C(x, kappa-1) p^(x-kappa+1)) f_C(x) dx   (17)
    NewReno/RED     Q = 1 - (1-p) int_kappa^inf (1 - C(v-1,kappa-1) p^(v-kappa))
                                     (1 - r^v)/(-v log r) f_W(v) dv,  r = 1 - p^2     (18),(22)
    NewReno/DropTail Q = 1 - (1-p) int_kappa^inf (1 - r^(v-kappa))/(-v log r) f_W(v) dv,
                                     r = 1 - p                                        (19),(20)
  using the Tahoe density for both variants, as the paper does (Section 5.2.1).
* E[Z_TO] [Section 2.4], with p_0 = p and back-off doubling up to 2^6 T0:
  ``timeout_formula="exact"``: sum_k (1-p0) p0^(k-1) l_k = T0 (1 - p0 - 2^6 p0^7) /
  ((1-p0)(1-2p0)), which equals PFTK's T0 f(p0)/(1-p0) and is 8 T0 at p0 = 1/2;
  ``timeout_formula="approximate"`` (the paper's Section 4 choice, for p0 <= 0.3): T0/(1-2p0);
  ``timeout_formula="no_backoff"`` (ours, for a sender that never doubles its RTO): a geometric
  number of T0 intervals, T0/(1-p0).

Maximum window (ours, not in the paper). ns-2's runs cap the window at 20 packets. With
``max_window`` set, the window follows eq. (3) with the cap: a cycle starts at a W_prev J
(J ~ Bernoulli(1-Q), i.i.d.), grows by 1/b per round until A = V/p packets are sent, and stops
growing at W_max, so W = min(sqrt(w_s^2 + 2A/b), W_max) and
Y = b (min(...) - w_s) + (A - A*)^+ / W_max with A* = b (W_max^2 - w_s^2)/2. We discretize W on
a grid over [0, W_max] (plus the atom at W_max), solve the stationary law with the shared
Markov solver, and take E[W] and E[Y] from it (Tahoe keeps the (1-p) factor on E[Y]). The
Tahoe density used for Q becomes that of min(W, W_max): an atom exp(-b p W_max^2/2) at
W_max, and f_C(x) = sqrt(2 pi b p)(Phi(sqrt(bp) W_max) - Phi(sqrt(bp) x)) + atom / W_max on
[0, W_max). Without a cap NewReno keeps the paper's bound E[W] ~ sqrt(E[W^2]); with a cap it
uses the stationary law, which for large W_max lies a few percent below that bound.

Time-out probability with NewReno's own window (``q_window="own"``, ours). The paper
evaluates eq. (18)-(19) with the Tahoe window density for both variants (Sec. 5.2.1, "a
simplification"). Eq. (18) itself is as derived (1 - Q = (1-p) E[(1-p^2)^D; B >= kappa] from
P(F = 0 | D) = (1-p)(1-p^2)^D); our reading is the literal one. The Tahoe density puts more
mass on small windows than NewReno has, since NewReno restarts at half its window after a
successful recovery; small windows are those that cannot collect kappa duplicate ACKs, so the
model's NewReno Q lands above Tahoe's. With ``"own"`` the expectation runs over NewReno's own
stationary window law (the capped eq. (3) chain below), a fixed point in Q.

Validation (``lossytcp.validation.models_i``, ``scripts/validate_models_I.py``, scenario I in
the engine with the ns-2 profile): throughput within 25% and Q within 0.08 (NewReno under RED
with the paper's density: 0.10) for RED up to p = 0.2 and DropTail up to p = 0.03. The Q order
of Figs. 9-10 (``aqm_timeout_order``): at p = 0.03 the model gives Tahoe 0.163 and NewReno
0.191; the engine 0.145 and 0.110; ns-2 2.35 on the same scenario (both without back-off, the
only way ns-2 fixes its RTO) 0.160 and 0.116; ``q_window="own"`` 0.066. NewReno's Q is below
Tahoe's in the engine and in ns-2 at every p in 0.003-0.1, and with NewReno's own window in
the model: the paper's "slightly above, more so in the model" comes from the Tahoe density,
and its simulated ordering is not reproduced by the engine nor by ns-2 2.35. The own window
brings Q closer to the engine at every p (0.01: 0.012 vs 0.028; 0.1: 0.500 vs 0.518) but its
throughput runs 4-18% above the engine under RED (the paper's density: 2-8%), the error the
larger Q partly hid; the paper's density stays the default.
Beyond, the engine keeps a backed-off RTO across cycles (Karn's rule) and the model's
E[Z_TO], which restarts the back-off every cycle, over-predicts DropTail throughput by
30-190% (p = 0.1-0.35); with back-off off on both sides (``timeout_formula="no_backoff"``)
they agree again, within 23% (mean 9.5%).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.integrate
import scipy.special
from scipy.stats import norm

from .. import _validate as v
from ._markov import stationary_distribution
from .base import Model, ModelResult, norm_or_none, register
from .mathis import _link, _validate_link

VARIANTS = ("tahoe", "newreno")
QUEUES = ("red", "droptail")
TIMEOUT_FORMULAS = ("approximate", "exact", "no_backoff")
Q_WINDOWS = ("tahoe", "own")
_GRID = 100


@dataclass(frozen=True)
class AqmRenewalParams:
    variant: str
    queue: str
    p: float
    rtt_s: float
    timeout_s: float
    packets_per_ack: float = 1.0
    dupack_threshold: int = 3
    timeout_formula: str = "approximate"
    max_window: float | None = None
    rate_bps: float | None = None
    packet_size_bytes: float | None = None
    q_window: str = "tahoe"

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "variant", v.choice("variant", self.variant, VARIANTS))
        s(self, "queue", v.choice("queue", self.queue, QUEUES))
        # The exponential approximation of A (eq. (5)) holds for p below ~0.4, and the
        # approximate E[Z_TO] = T0/(1-2p) diverges at 1/2.
        s(self, "p", v.in_range("p", self.p, 1e-9, 0.45))
        s(self, "rtt_s", v.positive("rtt_s", self.rtt_s))
        s(self, "timeout_s", v.positive("timeout_s", self.timeout_s))
        s(self, "packets_per_ack", v.in_range("packets_per_ack", self.packets_per_ack, 1, 64))
        s(self, "dupack_threshold", v.integer("dupack_threshold", self.dupack_threshold, 1, 64))
        s(self, "timeout_formula",
          v.choice("timeout_formula", self.timeout_formula, TIMEOUT_FORMULAS))
        if self.max_window is not None:
            s(self, "max_window", v.in_range("max_window", self.max_window, 1, 1e6))
        s(self, "q_window", v.choice("q_window", self.q_window, Q_WINDOWS))
        _validate_link(self)


@dataclass(frozen=True, repr=False)
class AqmRenewalResult(ModelResult):
    variant: str
    queue: str
    throughput_per_rtt: float
    timeout_probability: float
    mean_window: float
    mean_packets_before_loss: float
    mean_packets_after_loss: float
    mean_cycle_rounds: float
    mean_fast_recovery_rounds: float
    mean_timeout_s: float


# --- pieces ----------------------------------------------------------------------------------

def timeout_duration_s(p0: float, timeout_s: float, formula: str = "exact") -> float:
    """E[Z_TO] of Section 2.4 in seconds."""
    if formula == "approximate":
        return timeout_s / (1 - 2 * p0)
    if formula == "no_backoff":
        return timeout_s / (1 - p0)
    if abs(p0 - 0.5) < 1e-12:
        return 8.0 * timeout_s
    return timeout_s * (1 - p0 - 2**6 * p0**7) / ((1 - p0) * (1 - 2 * p0))


def _success_prob(x, kappa: int, p: float, shift: int):
    """1 - C(x - shift, kappa-1) p^(x - shift - kappa + 1), clipped to [0, 1] (eq. (15))."""
    xx = np.asarray(x, dtype=float) - shift
    val = 1.0 - scipy.special.binom(xx, kappa - 1) * p ** (xx - kappa + 1)
    return np.clip(val, 0.0, 1.0)


class _TahoeWindow:
    """Density of min(W, W_max) for the Rayleigh Tahoe window (eq. (10)) and of C = U W."""

    def __init__(self, bp: float, wmax: float | None) -> None:
        self.bp = bp
        self.wmax = wmax
        self.atom = 0.0 if wmax is None else math.exp(-bp * wmax**2 / 2)
        sd = 1.0 / math.sqrt(bp)
        # beyond 40 standard scales the Rayleigh tail is below exp(-800): integrate no further
        self.upper = 40.0 * sd + 10 if wmax is None else min(wmax, 40.0 * sd + 10)

    def f_w(self, x):
        return self.bp * x * np.exp(-self.bp * x * x / 2)

    def f_c(self, x):
        r = math.sqrt(self.bp)
        base = norm.sf(r * x) if self.wmax is None else norm.cdf(r * self.wmax) - norm.cdf(r * x)
        extra = 0.0 if self.wmax is None else self.atom / self.wmax
        return math.sqrt(2 * math.pi * self.bp) * base + extra

    def expect(self, h, lo: float, density: str = "w") -> float:
        """E[h(W); W >= lo] (or over C), including the atom at W_max."""
        up = self.upper
        if lo >= up:
            return 0.0
        f = self.f_w if density == "w" else self.f_c
        val, _ = scipy.integrate.quad(lambda x: float(h(x)) * float(f(x)), lo, up, limit=200)
        if self.wmax is not None and density == "w" and self.wmax >= lo:
            val += self.atom * float(h(self.wmax))
        return val


def _timeout_probability(params: AqmRenewalParams, tw: _TahoeWindow) -> float:
    p, k = params.p, params.dupack_threshold
    if params.variant == "tahoe":
        if params.queue == "red":
            good = tw.expect(lambda x: _success_prob(x, k, p, 1), k)
        else:
            good = tw.expect(lambda x: _success_prob(x, k, p, 0), k, density="c")
    else:
        if params.queue == "red":
            r = 1 - p * p
            lr = -math.log(r)

            def g(x):
                return _success_prob(x, k, p, 1) * -math.expm1(-lr * x) / (x * lr)
        else:
            lr = -math.log1p(-p)

            def g(x):
                return -math.expm1(-lr * (x - k)) / (x * lr)
        good = (1 - p) * tw.expect(g, k)
    return float(min(1.0, max(0.0, 1.0 - good)))


def _capped_window_law(bp: float, b: float, a: float, Q: float, p: float, wmax: float):
    """E[W], E[Y] of eq. (3) with the window capped at W_max (our refinement; see docstring)."""
    _, _, ew, ey = _window_law(bp, b, a, Q, p, wmax)
    return ew, ey


def _window_law(bp: float, b: float, a: float, Q: float, p: float, wmax: float,
                n: int = _GRID):
    """The stationary law of the window at the loss (grid points, probabilities), E[W], E[Y]
    of eq. (3) with the window capped at W_max (``math.inf``: no cap)."""
    c = bp / 2.0
    # Beyond 12/sqrt(bp) the stationary window has negligible mass (W^2 <= (2/bp) 4/3 V,
    # V ~ Exp(1)); the grid stops there so its resolution does not depend on a huge W_max.
    top = min(wmax, 12.0 / math.sqrt(bp))
    edges = np.linspace(0.0, top, n + 1)
    mids = np.concatenate([(edges[:-1] + edges[1:]) / 2, [top]])   # last state: W >= top

    def next_law(ws):
        # P(min(sqrt(ws^2 + 2A/b), wmax) in each bin), A = V/p: CDF 1 - exp(-c (x^2 - ws^2))
        x2 = np.maximum(edges[None, :] ** 2 - ws[:, None] ** 2, 0.0)
        cdf = -np.expm1(-c * x2)
        atom = np.exp(-c * np.maximum(top**2 - ws**2, 0.0))
        return np.hstack([np.diff(cdf, axis=1), atom[:, None]])

    def mean_rounds(ws):
        if math.isinf(wmax):
            return b * math.sqrt(math.pi / (4 * c)) * scipy.special.erfcx(math.sqrt(c) * ws)
        rc = math.sqrt(c)
        # E[min(W, wmax)] - ws = int_ws^wmax exp(-c (x^2 - ws^2)) dx, written with erfcx so
        # that large ws * sqrt(c) does not overflow
        grow = math.sqrt(math.pi / (4 * c)) * (
            scipy.special.erfcx(rc * ws)
            - np.exp(-c * (wmax**2 - ws**2)) * scipy.special.erfcx(rc * wmax))
        a_star = b * (wmax**2 - ws**2) / 2
        return b * grow + np.exp(-p * a_star) / p / wmax

    zero = np.zeros(1)
    law0 = next_law(zero)[0]
    y0 = float(mean_rounds(zero)[0])
    if a == 0.0:
        return mids, law0, float(law0 @ mids), y0
    ws = a * mids
    rows = (1 - Q) * next_law(ws) + Q * law0[None, :]
    ys = (1 - Q) * mean_rounds(ws) + Q * y0
    # Subnormal entries (far tails of exp(-c x^2)) slow LAPACK down a hundredfold.
    rows[rows < 1e-250] = 0.0
    rows /= rows.sum(axis=1, keepdims=True)
    pi = stationary_distribution(rows)
    return mids, pi, float(pi @ mids), float(pi @ ys)


def _own_window_timeout_probability(params: AqmRenewalParams) -> float:
    """NewReno's Q from eq. (18)/(19) over NewReno's own stationary window law (ours), a fixed
    point: the law depends on Q through the restarts after time-outs."""
    p, b, k = params.p, params.packets_per_ack, params.dupack_threshold
    wmax = math.inf if params.max_window is None else params.max_window
    if params.queue == "red":
        lr = -math.log(1 - p * p)

        def g(x):
            return _success_prob(x, k, p, 1) * -np.expm1(-lr * x) / (x * lr)
    else:
        lr = -math.log1p(-p)

        def g(x):
            return -np.expm1(-lr * (x - k)) / (x * lr)
    Q = _timeout_probability(params, _TahoeWindow(b * p, params.max_window))
    for _ in range(200):
        mids, pi, _, _ = _window_law(b * p, b, 0.5, Q, p, wmax, n=400)
        ok = mids >= k
        new = 1.0 - (1 - p) * float(pi[ok] @ g(mids[ok]))
        new = min(1.0, max(0.0, new))
        if abs(new - Q) < 1e-12:
            break
        Q = new
    return new


def _compute(params: AqmRenewalParams) -> AqmRenewalResult:
    p, b, rtt = params.p, params.packets_per_ack, params.rtt_s
    bp = b * p
    tw = _TahoeWindow(bp, params.max_window)
    if params.variant == "newreno" and params.q_window == "own":
        Q = _own_window_timeout_probability(params)
    else:
        Q = _timeout_probability(params, tw)
    a = 0.5 if params.variant == "newreno" else 0.0
    if params.max_window is None:
        if params.variant == "tahoe":
            ew = math.sqrt(math.pi / (2 * bp))
            ey = (1 - p) * math.sqrt(b * math.pi / (2 * p))
        else:
            ew = math.sqrt(2 / bp) * 2 / math.sqrt(3 + Q)
            ey = b * ew * (1 - a * (1 - Q))
    else:
        ew, ey = _capped_window_law(bp, b, a, Q, p, params.max_window)
        if params.variant == "tahoe":
            ey *= 1 - p
    ea = (1 - p) / p
    eb = (1 - p) * (max(ew - 1, 0.0) if params.queue == "red" else ew / 2)
    if params.variant == "tahoe":
        efr = 1.0
    elif params.queue == "red":
        efr = 1 + 5 / 24 * ew * p
    else:
        efr = 1 + ew / 4
    eto = timeout_duration_s(p, params.timeout_s, params.timeout_formula)
    per_rtt = (ea + eb) / (ey + (1 - Q) * efr + Q * eto / rtt)
    pps = per_rtt / rtt
    cap = _link(params)
    if cap is not None:
        pps = min(pps, cap)
        per_rtt = pps * rtt
    return AqmRenewalResult(
        throughput_pps=pps, throughput_norm=norm_or_none(pps, cap), variant=params.variant,
        queue=params.queue, throughput_per_rtt=per_rtt, timeout_probability=Q, mean_window=ew,
        mean_packets_before_loss=ea, mean_packets_after_loss=eb, mean_cycle_rounds=ey,
        mean_fast_recovery_rounds=efr, mean_timeout_s=eto,
    )


def aqm_renewal(**kwargs) -> AqmRenewalResult:
    """Kaj & Olsen throughput and time-out probability; see the module docstring."""
    return _compute(AqmRenewalParams(**kwargs))


MODEL = register(Model(
    name="aqm-renewal", params_type=AqmRenewalParams, compute=_compute,
    summary="Kaj & Olsen renewal-reward model: Tahoe/NewReno under RED and DropTail loss",
    citation="Kaj, Olsen. Stochastic equilibrium modeling of the TCP dynamics in various AQM "
             "environments.",
    aliases=("kaj-olsen",),
))

LOSS_PARAMETER = "p"


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name in ("PROPERTY_SPACE", "MONOTONE_SPACE"):
        from hypothesis import strategies as st
        return {
            "variant": st.sampled_from(list(VARIANTS)),
            "queue": st.sampled_from(list(QUEUES)),
            "p": st.floats(1e-4, 0.35),
            "rtt_s": st.floats(0.01, 1.0),
            "timeout_s": st.floats(0.1, 3.0),
            "packets_per_ack": st.sampled_from([1, 2]),
            "timeout_formula": st.sampled_from(list(TIMEOUT_FORMULAS)),
            "max_window": st.none() | st.sampled_from([8, 20, 64]),
            "rate_bps": st.just(1e8),
            "packet_size_bytes": st.just(1500),
        }
    raise AttributeError(name)
