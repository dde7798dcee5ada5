"""CUBIC's response function: the average window against the loss rate (RFC 9438 §5.1,
RFC 8312 §5.1).

L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-Distance Networks",
RFC 9438, 2023 (and I. Rhee et al., RFC 8312, 2018).

The deterministic-loss model of the RFC: congestion avoidance only, one loss every 1/p
packets, the window following the cubic ``W(t) = C (t - K)^3 + W_max`` from ``beta W_max``
(t = 0) back to ``W_max`` (t = K = cbrt(W_max (1 - beta) / C)), then a loss. A cycle
delivers ``W_max K (3 + beta) / (4 RTT)`` packets = 1/p, so

    AVG_W_cubic = (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4)    segments.

The Reno-friendly region (§4.3): an AIMD(alpha_cubic, beta) flow with alpha_cubic =
3 (1 - beta) / (1 + beta) averages

    AVG_W_est = sqrt(alpha_cubic (1 + beta) / (2 (1 - beta) p)) = sqrt(3 / (2 p)),

Reno's square-root law, and CUBIC is never slower: AVG_W = max(AVG_W_cubic, AVG_W_est)
(``reno_friendly``; without it the cubic alone). The cubic region holds where
``RTT^(3/4) / p^(1/4)`` is large (long RTTs, low loss): with C = 0.4, beta = 0.7 and RTT 0.1 s
the two meet at p = 5.5e-4 (the crossing is returned as ``p_crossing``).

Throughput = AVG_W / RTT packets per second, capped by ``max_window / RTT`` and the link's
capacity where given (as :mod:`~lossytcp.models.mathis`). Domain: the RFC's: deterministic
loss in congestion avoidance, no timeouts, no slow start; a random (Bernoulli) loss process
spreads the cycles, bursts (Gilbert-Elliott) lose several packets per window; how far the
engine's CUBIC is from it in each case is measured by
:func:`lossytcp.validation.modern.cubic_response_cases`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _validate as v
from .base import Model, ModelResult, norm_or_none, register
from .mathis import _link, _validate_link


@dataclass(frozen=True)
class CubicResponseParams:
    rtt_s: float
    p: float
    c: float = 0.4
    beta: float = 0.7
    reno_friendly: bool = True
    max_window: float | None = None
    rate_bps: float | None = None
    packet_size_bytes: float | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "rtt_s", v.duration("rtt_s", self.rtt_s, lo=1e-9))
        s(self, "p", v.probability("p", self.p, open_low=True))
        s(self, "c", v.in_range("c", self.c, 1e-6, 100.0))
        s(self, "beta", v.probability("beta", self.beta, open_low=True, open_high=True))
        s(self, "reno_friendly", v.boolean("reno_friendly", self.reno_friendly))
        if self.max_window is not None:
            s(self, "max_window", v.in_range("max_window", self.max_window, 1, 1e9))
        _validate_link(self)


@dataclass(frozen=True, repr=False)
class CubicResponseResult(ModelResult):
    #: Average window (segments) of the region that applies, and of each region.
    avg_window: float
    avg_window_cubic: float
    avg_window_reno: float
    #: "cubic" or "reno-friendly".
    region: str
    #: The cycle of the cubic region: W_max (segments) and K (seconds).
    w_max: float
    k_s: float
    #: The loss rate below which the cubic region holds (at this RTT).
    p_crossing: float
    unconstrained_pps: float
    capacity_pps: float | None


def _cubic_window(p: CubicResponseParams, loss: float) -> float:
    return (p.c * (3 + p.beta) / (4 * (1 - p.beta))) ** 0.25 * p.rtt_s ** 0.75 / loss ** 0.75


def _compute(params: CubicResponseParams) -> CubicResponseResult:
    b, c = params.beta, params.c
    alpha = 3 * (1 - b) / (1 + b)
    w_cubic = _cubic_window(params, params.p)
    w_reno = math.sqrt(alpha * (1 + b) / (2 * (1 - b) * params.p))
    cubic_wins = w_cubic >= w_reno or not params.reno_friendly
    w = w_cubic if cubic_wins else w_reno
    # W_max of the cubic cycle: AVG = W_max (3 + beta) / 4; K = cbrt(W_max (1 - beta) / C).
    w_max = 4 * w_cubic / (3 + b)
    k = (w_max * (1 - b) / c) ** (1 / 3)
    # AVG_W_cubic = AVG_W_est: p^(1/4) = (C (3+b) / (4 (1-b)))^(1/4) RTT^(3/4) / sqrt(3/2).
    p_cross = ((c * (3 + b) / (4 * (1 - b))) ** 0.25 * params.rtt_s ** 0.75
               / math.sqrt(alpha * (1 + b) / (2 * (1 - b)))) ** 4
    raw = w / params.rtt_s
    thr = raw
    if params.max_window is not None:
        thr = min(thr, params.max_window / params.rtt_s)
    cap = _link(params)
    if cap is not None:
        thr = min(thr, cap)
    return CubicResponseResult(
        throughput_pps=thr, throughput_norm=norm_or_none(thr, cap), avg_window=w,
        avg_window_cubic=w_cubic, avg_window_reno=w_reno,
        region="cubic" if cubic_wins else "reno-friendly", w_max=w_max, k_s=k,
        p_crossing=min(p_cross, 1.0), unconstrained_pps=raw, capacity_pps=cap)


def cubic_response(**kwargs) -> CubicResponseResult:
    """CUBIC's response function; see the module docstring."""
    return _compute(CubicResponseParams(**kwargs))


MODEL = register(Model(
    name="cubic-response", params_type=CubicResponseParams, compute=_compute,
    summary="CUBIC's average window vs loss rate: (C(3+b)/(4(1-b)))^(1/4) RTT^(3/4) / p^(3/4), "
            "at least Reno's sqrt(3/(2p))",
    citation="Xu, Ha, Rhee, Goel, Eggert. CUBIC for Fast and Long-Distance Networks. RFC 9438, "
             "2023, Section 5.1.",
))

LOSS_PARAMETER = "p"


def _property_space():
    from hypothesis import strategies as st
    return {
        "rtt_s": st.floats(1e-3, 2.0),
        "p": st.floats(1e-7, 1.0),
        "c": st.floats(0.01, 10.0),
        "beta": st.floats(0.05, 0.95),
        "reno_friendly": st.booleans(),
        "max_window": st.none() | st.floats(1, 1e5),
        "rate_bps": st.just(1e7),
        "packet_size_bytes": st.just(1000),
    }


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name == "PROPERTY_SPACE":
        return _property_space()
    raise AttributeError(name)
