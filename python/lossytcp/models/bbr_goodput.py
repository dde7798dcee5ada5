"""BBR v1's goodput under random loss: it ignores loss until loss limits delivery.

N. Cardwell, Y. Cheng, C. S. Gunn, S. Hassas Yeganeh, V. Jacobson, "BBR: Congestion-Based
Congestion Control", ACM Queue 14(5), 2016; Linux's ``net/ipv4/tcp_bbr.c`` (the engine's
``bbr``).

BBR paces at its bottleneck-bandwidth estimate, the maximum delivery rate over 10 rounds,
and keeps two BDPs in flight; a random loss changes neither (only the round of recovery,
which conserves packets). On a path of capacity mu with independent losses of probability
p at the link (the packet uses the link either way) the sender keeps the link busy and
delivers (1 - p) mu, less:

* Linux's pacing margin (1%: it paces at 99% of its estimate);
* ProbeRTT: every ``min_rtt_win_s`` (10 s) without a lower RTT sample the window drops to
  4 segments for ``probe_rtt_s`` (200 ms) plus about one round to drain the flight, when
  next to nothing is delivered: a share D / (W + D) of the time, D = probe_rtt_s + RTT.

So ``goodput = (1 - p)(1 - margin)(1 - D / (W + D)) mu``, unless loss limits delivery:
Linux's long-term estimator (the policer detector) takes over when two consecutive sampling
intervals of 4-16 rounds lose at least 20% of what they deliver (lost / delivered >= 50/256,
i.e. p >= 50 / 306 = 0.163) with consistent rates; BBR then paces at the measured delivery
rate, (1 - p) of what it sends, and delivers (1 - p)^2 (1 - margin) mu (region
``policer``). A receiver window below the BDP caps the rate at window / RTT.

BBRv3's loss-bounded probing (its 2% loss threshold, inflight_hi) is not modelled here: the
engine has no ``bbr3`` to check it against.

Domain: the engine's BBR (with its SACK recovery, which finds lost retransmissions as Linux
does but has no RACK-TLP or F-RTO) follows this within 2% for p <= 1% on a path where
Startup's overshoot fits the queue; above, lost retransmissions that nothing later reveals
end in timeouts, which the model does not have and Linux's tail-loss probes mostly avoid
(measured by :func:`lossytcp.validation.modern.bbr_goodput_cases`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import _validate as v
from ..errors import ParameterError
from .base import Model, ModelResult, register

#: Linux bbr_lt_loss_thresh: lost / delivered of a long-term interval, 50/256.
LT_LOSS_THRESH = 50.0 / 256.0


@dataclass(frozen=True)
class BbrGoodputParams:
    rtt_s: float
    p: float
    rate_bps: float
    packet_size_bytes: float
    probe_rtt_s: float = 0.2
    min_rtt_win_s: float = 10.0
    pacing_margin: float = 0.01
    lt_bw: bool = True
    max_window: float | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "rtt_s", v.duration("rtt_s", self.rtt_s, lo=1e-9))
        s(self, "p", v.probability("p", self.p, open_high=True))
        s(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        s(self, "packet_size_bytes", v.positive("packet_size_bytes", self.packet_size_bytes))
        s(self, "probe_rtt_s", v.duration("probe_rtt_s", self.probe_rtt_s))
        s(self, "min_rtt_win_s", v.duration("min_rtt_win_s", self.min_rtt_win_s, lo=1e-3))
        s(self, "pacing_margin", v.in_range("pacing_margin", self.pacing_margin, 0.0, 0.5))
        s(self, "lt_bw", v.boolean("lt_bw", self.lt_bw))
        if self.max_window is not None:
            s(self, "max_window", v.in_range("max_window", self.max_window, 1, 1e9))
        if self.rate_bps / (8 * self.packet_size_bytes) > 1e12:
            raise ParameterError("rate_bps", self.rate_bps, "gives more than 1e12 packets/s")


@dataclass(frozen=True, repr=False)
class BbrGoodputResult(ModelResult):
    #: "bandwidth" (loss ignored), "policer" (the long-term estimator's rate) or "window".
    region: str
    #: Share of the time in ProbeRTT.
    probe_rtt_share: float
    capacity_pps: float
    #: The loss rate from which the long-term estimator takes over.
    p_policer: float


def _compute(params: BbrGoodputParams) -> BbrGoodputResult:
    mu = params.rate_bps / (8.0 * params.packet_size_bytes)
    p = params.p
    d = params.probe_rtt_s + params.rtt_s
    share = d / (params.min_rtt_win_s + d)
    # lost / delivered = p / (1 - p) >= 50/256.
    p_pol = LT_LOSS_THRESH / (1 + LT_LOSS_THRESH)
    policed = params.lt_bw and p >= p_pol
    keep = (1 - params.pacing_margin) * (1 - share)
    sent = mu * keep * ((1 - p) if policed else 1.0)
    region = "policer" if policed else "bandwidth"
    if params.max_window is not None and params.max_window / params.rtt_s < sent:
        sent = params.max_window / params.rtt_s * (1 - share)
        region = "window"
    thr = sent * (1 - p)
    return BbrGoodputResult(throughput_pps=thr, throughput_norm=thr / mu, region=region,
                            probe_rtt_share=share, capacity_pps=mu, p_policer=p_pol)


def bbr_goodput(**kwargs) -> BbrGoodputResult:
    """BBR v1's goodput under random loss; see the module docstring."""
    return _compute(BbrGoodputParams(**kwargs))


MODEL = register(Model(
    name="bbr-goodput", params_type=BbrGoodputParams, compute=_compute,
    summary="BBR v1 under random loss: (1-p)(1-margin)(1-ProbeRTT share) of the capacity, "
            "(1-p)^2 once the long-term estimator takes over",
    citation="Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson. BBR: Congestion-Based "
             "Congestion Control. ACM Queue 14(5), 2016; Linux net/ipv4/tcp_bbr.c.",
))

LOSS_PARAMETER = "p"


def _property_space():
    from hypothesis import strategies as st
    return {
        "rtt_s": st.floats(1e-3, 2.0),
        "p": st.floats(0.0, 0.99),
        "rate_bps": st.floats(1e5, 1e10),
        "packet_size_bytes": st.sampled_from([500, 1000, 1500]),
        "probe_rtt_s": st.floats(0.0, 1.0),
        "pacing_margin": st.floats(0.0, 0.5),
        "lt_bw": st.booleans(),
        "max_window": st.none() | st.floats(1, 1e5),
    }


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name == "PROPERTY_SPACE":
        return _property_space()
    raise AttributeError(name)
