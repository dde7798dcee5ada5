"""The square-root law of Mathis, Semke, Mahdavi & Ott (1997).

M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP congestion
avoidance algorithm", ACM SIGCOMM CCR 27(3), 1997.

Congestion avoidance only, one loss per cycle, periodic loss: the window saw-tooths between
W/2 and W, a cycle delivers 1/p packets in (W/2) * b rounds, so (3/8) W^2 / b = 1/p and

    throughput = (1 / rtt) * sqrt(3 / (2 b p))   packets per second,

with ``b`` packets acknowledged per ACK (b = 1: C = sqrt(3/2) ~ 1.22, the paper's constant).

Where the link is given (``rate_bps`` and ``packet_size_bytes``) the throughput is capped at
the link capacity, and where ``max_window`` is given, at ``max_window / rtt``: the formula
describes an unconstrained saw-tooth and cannot deliver more than the path carries. The
uncapped value stays available as ``unconstrained_pps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _validate as v
from ..errors import ParameterError
from .base import Model, ModelResult, norm_or_none, register


def _validate_link(params) -> None:
    """Validate the optional link of a frozen parameter dataclass in place."""
    s = object.__setattr__
    if params.rate_bps is not None:
        s(params, "rate_bps", v.positive("rate_bps", params.rate_bps))
    if params.packet_size_bytes is not None:
        s(params, "packet_size_bytes", v.positive("packet_size_bytes", params.packet_size_bytes))
    _link(params)


def _link(params) -> float | None:
    """Capacity in packets/s from ``rate_bps`` and ``packet_size_bytes`` (both or neither)."""
    if (params.rate_bps is None) != (params.packet_size_bytes is None):
        missing = "packet_size_bytes" if params.packet_size_bytes is None else "rate_bps"
        raise ParameterError(missing, None,
                             "rate_bps and packet_size_bytes must be given together")
    if params.rate_bps is None:
        return None
    return params.rate_bps / (8.0 * params.packet_size_bytes)


@dataclass(frozen=True)
class MathisParams:
    rtt_s: float
    p: float
    packets_per_ack: float = 1.0
    max_window: float | None = None
    rate_bps: float | None = None
    packet_size_bytes: float | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        # A nanosecond floor: below it the formulas' products underflow to 0 (PFTK's
        # denominator at p ~ 1e-280, found by the fuzz test) and no path has such an RTT.
        s(self, "rtt_s", v.duration("rtt_s", self.rtt_s, lo=1e-9))
        # p = 1 loses every packet: the square-root law (a small-p approximation) would
        # still give a throughput.
        s(self, "p", v.probability("p", self.p, open_low=True, open_high=True))
        s(self, "packets_per_ack", v.in_range("packets_per_ack", self.packets_per_ack, 1, 64))
        if self.max_window is not None:
            s(self, "max_window", v.in_range("max_window", self.max_window, 1, 1e9))
        _validate_link(self)


@dataclass(frozen=True, repr=False)
class MathisResult(ModelResult):
    throughput_per_rtt: float
    unconstrained_pps: float
    capacity_pps: float | None


def _compute(params: MathisParams) -> MathisResult:
    raw = math.sqrt(3.0 / (2.0 * params.packets_per_ack * params.p)) / params.rtt_s
    thr = raw
    if params.max_window is not None:
        thr = min(thr, params.max_window / params.rtt_s)
    cap = _link(params)
    if cap is not None:
        thr = min(thr, cap)
    return MathisResult(throughput_pps=thr, throughput_norm=norm_or_none(thr, cap),
                        throughput_per_rtt=thr * params.rtt_s, unconstrained_pps=raw,
                        capacity_pps=cap)


def mathis(**kwargs) -> MathisResult:
    """Mathis et al. square-root throughput; see the module docstring."""
    return _compute(MathisParams(**kwargs))


MODEL = register(Model(
    name="mathis", params_type=MathisParams, compute=_compute,
    summary="square-root law: throughput = sqrt(3/(2 b p)) / RTT",
    citation="Mathis, Semke, Mahdavi, Ott. The macroscopic behavior of the TCP congestion "
             "avoidance algorithm. ACM SIGCOMM CCR 27(3), 1997.",
))

LOSS_PARAMETER = "p"


def _property_space():
    from hypothesis import strategies as st
    return {
        "rtt_s": st.floats(1e-3, 2.0),
        "p": st.floats(1e-6, 1.0, exclude_max=True),
        "packets_per_ack": st.sampled_from([1, 2]),
        "max_window": st.none() | st.floats(1, 1000),
        "rate_bps": st.just(2e6),
        "packet_size_bytes": st.just(500),
    }


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name == "PROPERTY_SPACE":
        return _property_space()
    raise AttributeError(name)
