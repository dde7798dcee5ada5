"""Gilbert-Elliott and Bernoulli packet-loss channels: parameters and conversions.

The Gilbert-Elliott channel of Anjum & Tassiulas (paper 000, Section II, eq. (1)-(2)) is a
two-state Markov chain (Good, Bad) embedded at the starts of packet transmissions:

    C = [[1 - alpha, alpha],
         [beta,      1 - beta]],     pi_G = beta / (alpha + beta),  pi_B = alpha / (alpha + beta).

A packet sent in Good is lost with probability ``loss_good`` (0 in the paper), in Bad with
``loss_bad`` (1 in the paper). The state sojourns are geometric: the mean Bad sojourn is
``1/beta`` packets and the mean Good sojourn ``1/alpha`` packets.

Run lengths of the *loss process* (not of the hidden state) are computed exactly for any
``loss_good``/``loss_bad``: by ergodicity, the number of loss bursts per packet equals the
stationary probability that a success is followed by a loss, so

    mean loss burst = P(loss) / P(success, then loss),
    mean good run   = P(success) / P(loss, then success),

which reduce to ``1/beta`` and ``1/alpha`` in the paper's case and to ``1/(1-p)`` and ``1/p``
for Bernoulli loss.

Exports: :class:`GilbertElliott` (with :meth:`GilbertElliott.from_loss_rate`, the engine's
spec string and netem ``gemodel`` parameters) and :class:`Bernoulli`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as v
from ..errors import ParameterError

__all__ = ["GilbertElliott", "Bernoulli"]


def _fmt(x: float) -> str:
    return f"{x:.10g}"


@dataclass(frozen=True)
class GilbertElliott:
    """Two-state Markov loss channel, transitions per packet (paper 000, eq. (1)).

    ``alpha`` = P(Good -> Bad), ``beta`` = P(Bad -> Good), per packet transmission.
    """

    alpha: float
    beta: float
    loss_good: float = 0.0
    loss_bad: float = 1.0

    def __post_init__(self) -> None:
        a = v.probability("alpha", self.alpha)
        b = v.probability("beta", self.beta)
        if a + b == 0:
            # Both zero leaves the chain without a unique stationary distribution.
            raise ParameterError("alpha", self.alpha,
                                 "alpha and beta must not both be 0 (no stationary distribution)")
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)
        object.__setattr__(self, "loss_good", v.probability("loss_good", self.loss_good))
        object.__setattr__(self, "loss_bad", v.probability("loss_bad", self.loss_bad))

    # -- stationary behaviour --------------------------------------------------------------
    @property
    def transition_matrix(self) -> np.ndarray:
        return np.array([[1 - self.alpha, self.alpha], [self.beta, 1 - self.beta]])

    @property
    def pi_good(self) -> float:
        return self.beta / (self.alpha + self.beta)

    @property
    def pi_bad(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    @property
    def loss_rate(self) -> float:
        """Long-run fraction of packets lost."""
        return self.pi_good * self.loss_good + self.pi_bad * self.loss_bad

    @property
    def mean_bad_sojourn_packets(self) -> float:
        return float("inf") if self.beta == 0 else 1.0 / self.beta

    @property
    def mean_good_sojourn_packets(self) -> float:
        return float("inf") if self.alpha == 0 else 1.0 / self.alpha

    def _pair(self, first_lost: bool, second_lost: bool) -> float:
        e = np.array([self.loss_good, self.loss_bad])
        f = e if first_lost else 1 - e
        s = e if second_lost else 1 - e
        pi = np.array([self.pi_good, self.pi_bad])
        return float((pi * f) @ self.transition_matrix @ s)

    @property
    def mean_burst_packets(self) -> float:
        """Mean number of consecutive lost packets (inf if a loss run never ends)."""
        starts = self._pair(False, True)
        return float("inf") if starts == 0 else self.loss_rate / starts

    @property
    def mean_good_run_packets(self) -> float:
        """Mean number of consecutive delivered packets (inf if losses never happen)."""
        starts = self._pair(True, False)
        return float("inf") if starts == 0 else (1 - self.loss_rate) / starts

    # -- construction and export -----------------------------------------------------------
    @classmethod
    def from_loss_rate(cls, loss_rate: float, mean_burst_packets: float) -> GilbertElliott:
        """The paper's channel (loss 0 in Good, 1 in Bad) with a given loss rate and burst.

        beta = 1/mean_burst and pi_B = loss_rate give alpha = beta * loss_rate / (1 - loss_rate).
        """
        p = v.probability("loss_rate", loss_rate, open_low=True, open_high=True)
        burst = v.positive("mean_burst_packets", mean_burst_packets)
        if burst < 1:
            raise ParameterError("mean_burst_packets", mean_burst_packets,
                                 "must be >= 1 (a burst holds at least one packet)")
        beta = 1.0 / burst
        alpha = beta * p / (1 - p)
        if alpha > 1:
            raise ParameterError(
                "loss_rate", loss_rate,
                f"is unreachable with mean_burst_packets={burst:g}: needs alpha = {alpha:.4g} > 1; "
                f"loss_rate must be <= {burst / (burst + 1):.6g} for this burst length")
        return cls(alpha=alpha, beta=beta)

    def spec(self, advance: str = "slot", idle_reset_s: float | None = None) -> str:
        """The engine's channel spec string (``lossytcp.simulate(channel=...)``)."""
        adv = v.choice("advance", advance, ("slot", "transmission"))
        parts = [f"alpha={_fmt(self.alpha)}", f"beta={_fmt(self.beta)}"]
        if self.loss_good != 0 or self.loss_bad != 1:
            parts += [f"loss_good={_fmt(self.loss_good)}", f"loss_bad={_fmt(self.loss_bad)}"]
        parts.append(f"advance={adv}")
        if idle_reset_s is not None:
            ms = v.positive("idle_reset_s", idle_reset_s) * 1e3
            parts.append(f"idle_reset={_fmt(ms)}ms")
        return "ge:" + ",".join(parts)

    def netem(self) -> str:
        """Linux netem arguments: ``loss gemodel p r 1-h 1-k`` in percent.

        netem's p = P(G->B), r = P(B->G), 1-h = loss probability in Bad, 1-k = in Good.
        """
        pct = [100 * self.alpha, 100 * self.beta, 100 * self.loss_bad, 100 * self.loss_good]
        return "loss gemodel " + " ".join(f"{_fmt(x)}%" for x in pct)


@dataclass(frozen=True)
class Bernoulli:
    """Independent loss: each packet lost with probability ``p``."""

    p: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", v.probability("p", self.p))

    @property
    def loss_rate(self) -> float:
        return self.p

    @property
    def mean_burst_packets(self) -> float:
        return float("inf") if self.p == 1 else 1.0 / (1 - self.p)

    @property
    def mean_good_run_packets(self) -> float:
        return float("inf") if self.p == 0 else 1.0 / self.p

    def as_gilbert_elliott(self) -> GilbertElliott:
        """The same process as a Gilbert-Elliott channel (alpha = p, beta = 1 - p)."""
        if self.p in (0.0, 1.0):
            # alpha + beta = 1 keeps a unique stationary law; state-dependent loss does the rest.
            return GilbertElliott(alpha=0.5, beta=0.5, loss_good=self.p, loss_bad=self.p)
        return GilbertElliott(alpha=self.p, beta=1 - self.p)

    def spec(self) -> str:
        return f"bernoulli:p={_fmt(self.p)}"

    def netem(self) -> str:
        return f"loss random {_fmt(100 * self.p)}%"
