"""The PFTK model: Padhye, Firoiu, Towsley & Kurose (1998).

J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple model and its
empirical validation", ACM SIGCOMM 1998 (eq. (31), the "full model", and eq. (33), the
approximation).

Notation: p loss-indication probability (losses in a round after the first are correlated),
b packets per ACK, RTT, T0 the base retransmission timeout, W_max the receiver window.

Full model (eq. 31)::

    E[W_u] = (2+b)/(3b) + sqrt(8(1-p)/(3 b p) + ((2+b)/(3b))^2)

    Qhat(w) = min(1, (1-(1-p)^3)(1 + (1-p)^3 (1-(1-p)^(w-3))) / (1-(1-p)^w)),  Qhat = 1, w <= 3
    f(p)    = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6        (exponential back-off, 64 T0 cap)

    if E[W_u] < W_max:
        B = [(1-p)/p + E[W_u] + Qhat(E[W_u])/(1-p)]
            / [RTT (b E[W_u]/2 + 1) + Qhat(E[W_u]) T0 f(p)/(1-p)]
    else:
        B = [(1-p)/p + W_max + Qhat(W_max)/(1-p)]
            / [RTT (b W_max/8 + (1-p)/(p W_max) + 2) + Qhat(W_max) T0 f(p)/(1-p)]

Approximation (eq. 33)::

    B ~ min(W_max/RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))

Remarks. Qhat(w) for w <= 3 is 1: fewer than three packets follow the loss, so three duplicate
ACKs cannot arrive (the closed form is meaningless there). The two branches of eq. (31) do not
meet at E[W_u] = W_max: with b = 1 the window-limited denominator is one RTT longer, so the
full model jumps *up* by a few percent when p grows past the point where the window stops being
limited. That is a property of the published model, kept as published; it is why the property
tests check monotonicity in p only without a window limit, with T0 >= RTT and p <= 0.5: when
T0 is much shorter than the RTT and p approaches 1 the full model rises again, because the
Qhat/(1-p) packets credited to a time-out sequence grow faster than its duration. Where the
link is given the throughput is capped at its capacity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _validate as v
from .base import Model, ModelResult, norm_or_none, register
from .mathis import _link, _validate_link

VARIANTS = ("full", "approximate")


@dataclass(frozen=True)
class PftkParams:
    rtt_s: float
    p: float
    timeout_s: float
    packets_per_ack: float = 1.0
    max_window: float | None = None
    formula: str = "full"
    rate_bps: float | None = None
    packet_size_bytes: float | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        # A nanosecond floor: below it the formulas' products underflow to 0 (PFTK's
        # denominator at p ~ 1e-280, found by the fuzz test) and no path has such an RTT.
        s(self, "rtt_s", v.duration("rtt_s", self.rtt_s, lo=1e-9))
        s(self, "p", v.probability("p", self.p, open_low=True, open_high=True))
        s(self, "timeout_s", v.positive("timeout_s", self.timeout_s))
        s(self, "packets_per_ack", v.in_range("packets_per_ack", self.packets_per_ack, 1, 64))
        if self.max_window is not None:
            s(self, "max_window", v.in_range("max_window", self.max_window, 1, 1e9))
        s(self, "formula", v.choice("formula", self.formula, VARIANTS))
        _validate_link(self)


@dataclass(frozen=True, repr=False)
class PftkResult(ModelResult):
    throughput_per_rtt: float
    timeout_probability: float
    mean_window: float
    window_limited: bool
    formula: str


def q_hat(p: float, w: float) -> float:
    """Probability that a loss in a window of ``w`` packets is detected by a time-out."""
    if w <= 3:
        return 1.0
    # 1 - q^k as -expm1(k log1p(-p)): with q = 1 - p written out, q rounds to 1 for p below
    # 1e-16 and the ratio became 0/0 (found by the fuzz test); its limit is 3/w.
    lq = math.log1p(-p)

    def one_minus_q_pow(k: float) -> float:
        return -math.expm1(k * lq)

    q3 = math.exp(3 * lq)
    val = one_minus_q_pow(3) * (1 + q3 * one_minus_q_pow(w - 3)) / one_minus_q_pow(w)
    return min(1.0, val)


def backoff_factor(p: float) -> float:
    """f(p): mean length of a time-out sequence in units of T0 (back-off capped at 64 T0)."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def _compute(params: PftkParams) -> PftkResult:
    p, b, rtt, t0 = params.p, params.packets_per_ack, params.rtt_s, params.timeout_s
    wmax = math.inf if params.max_window is None else params.max_window
    if params.formula == "approximate":
        denom = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (
            1 + 32 * p**2)
        thr = min(wmax / rtt, 1.0 / denom)
        ew = math.sqrt(8 / (3 * b * p))
        limited = wmax / rtt <= 1.0 / denom
        qto = min(1.0, 3 * math.sqrt(3 * b * p / 8))
        mean_w = min(ew, wmax)
    else:
        c = (2 + b) / (3 * b)
        ewu = c + math.sqrt(8 * (1 - p) / (3 * b * p) + c * c)
        f = backoff_factor(p)
        limited = ewu >= wmax
        if not limited:
            qto = q_hat(p, ewu)
            num = (1 - p) / p + ewu + qto / (1 - p)
            den = rtt * (b * ewu / 2 + 1) + qto * t0 * f / (1 - p)
            mean_w = ewu
        else:
            qto = q_hat(p, wmax)
            num = (1 - p) / p + wmax + qto / (1 - p)
            den = rtt * (b * wmax / 8 + (1 - p) / (p * wmax) + 2) + qto * t0 * f / (1 - p)
            mean_w = wmax
        thr = num / den
    cap = _link(params)
    if cap is not None:
        thr = min(thr, cap)
    return PftkResult(throughput_pps=thr, throughput_norm=norm_or_none(thr, cap),
                      throughput_per_rtt=thr * rtt, timeout_probability=qto,
                      mean_window=mean_w, window_limited=bool(limited),
                      formula=params.formula)


def pftk(**kwargs) -> PftkResult:
    """PFTK throughput (full model or its approximation); see the module docstring."""
    return _compute(PftkParams(**kwargs))


MODEL = register(Model(
    name="pftk", params_type=PftkParams, compute=_compute,
    summary="Padhye et al. 1998: TD and TO loss indications, W_max, T0 and b",
    citation="Padhye, Firoiu, Towsley, Kurose. Modeling TCP throughput: a simple model and its "
             "empirical validation. ACM SIGCOMM 1998.",
    aliases=("padhye",),
))

LOSS_PARAMETER = "p"


def _spaces(limited: bool):
    from hypothesis import strategies as st
    if not limited:
        # Monotone subspace: no window limit, T0 >= RTT (a real RTO never undercuts the RTT)
        # and p <= 0.5. With T0 << RTT and p -> 1 the Qhat/(1-p) packets of the time-out
        # sequence outgrow its duration and the published formula rises again.
        return {
            "rtt_s": st.floats(1e-3, 0.5),
            "p": st.floats(1e-6, 0.5),
            "timeout_s": st.floats(0.5, 5.0),
            "packets_per_ack": st.sampled_from([1, 2]),
            "max_window": st.none(),
            "formula": st.sampled_from(list(VARIANTS)),
            "rate_bps": st.just(1e7),
            "packet_size_bytes": st.just(1000),
        }
    return {
        "rtt_s": st.floats(1e-3, 2.0),
        "p": st.floats(1e-6, 0.99),
        "timeout_s": st.floats(1e-2, 5.0),
        "packets_per_ack": st.sampled_from([1, 2]),
        "max_window": (st.none() | st.floats(1, 1000)) if limited else st.none(),
        "formula": st.sampled_from(list(VARIANTS)),
        "rate_bps": st.just(1e7),
        "packet_size_bytes": st.just(1000),
    }


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis. The full model is monotone
    # in p only without a window limit (see the module docstring).
    if name == "PROPERTY_SPACE":
        return _spaces(limited=True)
    if name == "MONOTONE_SPACE":
        return _spaces(limited=False)
    raise AttributeError(name)
