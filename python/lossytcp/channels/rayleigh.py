"""Rayleigh fading as a two-state Markov packet-error channel (Zorzi & Rao, paper 004, Sec. 3.1).

The threshold model of Zorzi, Rao & Milstein (ICUPC'95) calls a packet lost when the received
power, sampled once per packet, is below a threshold. With the power normalised to mean 1
(exponential under Rayleigh fading) and the threshold at ``1/F`` (``F`` the fading margin,
linear):

    epsilon = P(power < 1/F) = 1 - exp(-1/F)                                   (eq. 2)

Two samples of the complex gain taken a packet time ``T`` apart have correlation coefficient
``rho = J0(2 pi f_D T)`` (Clarke/Jakes spectrum); the pair of envelopes is bivariate Rayleigh,
and the probability of a Bad -> Good step is expressed with ``theta =
sqrt((2/F) / (1 - rho^2))`` (eq. 4) and the first-order Marcum Q function ``Q1`` (eq. 5).

Here ``theta = sqrt((2/F) / (1 - rho^2))`` (eq. 4) and ``Q1`` is the first-order Marcum Q
function (eq. 5). As extracted, eq. (3) reads ``p_GB = 1 - [Q(theta, rho theta) -
Q(rho theta, theta)] / (e^{1/F} - 1)``; the seeds' errata (checked there against two million
sampled pairs) establish that the fraction is the probability of *leaving* the Bad state:

    p_BG = [Q1(theta, rho theta) - Q1(rho theta, theta)] / (e^{1/F} - 1),

and ``p_GB`` follows from stationarity, ``epsilon = p_GB / (p_GB + p_BG)``, i.e.
``p_GB = epsilon p_BG / (1 - epsilon)``; since ``epsilon / (1 - epsilon) = e^{1/F} - 1``,
``p_GB`` is simply the numerator ``Q1(theta, rho theta) - Q1(rho theta, theta)``. A quick
check of the orientation: at ``rho = 0`` (``theta = sqrt(2/F)``) ``Q1(theta, 0) = 1`` and
``Q1(0, theta) = exp(-1/F)``, so the fraction is
``(1 - e^{-1/F}) / (e^{1/F} - 1) = e^{-1/F} = 1 - epsilon``: leaving Bad with the probability of
a success, i.e. i.i.d. loss with probability epsilon, as it must.

Numerics: ``Q1(a, b) = ncx2.sf(b^2, 2, a^2)``. For large margins both Q values are close to 1 and
their difference would cancel, so the numerator is then taken as the difference of the two
complementary CDFs, ``ncx2.cdf(theta^2, 2, rho^2 theta^2) - ncx2.cdf(rho^2 theta^2, 2,
theta^2)``, which scipy computes to full relative precision.

Jakes simulation: :func:`jakes_gain` generates the complex gain as a sum of ``n_sinusoids``
unit phasors with Doppler shifts ``f_D cos(alpha_n)``, arrival angles ``alpha_n = (2 pi n - pi +
phi) / N`` (one random rotation ``phi`` per realisation, as in Zheng & Xiao's improvement of
Jakes' model) and independent uniform phases. Averaged over ``phi`` the angles cover the circle
uniformly, so the autocorrelation is exactly ``J0(2 pi f_D tau)``; by the central limit theorem
the gain is close to complex Gaussian (Rayleigh envelope) for a few dozen sinusoids. The trace
is produced in independent blocks (a fresh realisation per block) so that long traces average
over realisations as well as time.

:func:`jakes_error_trace` samples the power at ``samples_per_packet`` equally spaced instants
in each packet and marks the packet lost if any sample is below the threshold (one sample
reproduces the threshold model exactly; more samples model a packet that fails when the fade
hits any part of it). :func:`estimate_two_state` gives the hybrid ("analysis/sim.") parameters
of Figs. 1-4: the average error rate and the *measured* mean burst length, ``p_BG = 1/burst``.
:func:`write_trace` writes the engine's ``trace:file=PATH`` format.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.special
import scipy.stats

from .. import _validate as v
from ..errors import ParameterError

__all__ = [
    "RayleighMarkov",
    "TwoStateEstimate",
    "fading_margin_linear",
    "doppler_norm_from",
    "marcum_q1",
    "rayleigh_two_state",
    "jakes_gain",
    "jakes_error_trace",
    "estimate_two_state",
    "write_trace",
    "read_trace",
]

#: Most fading samples one Jakes simulation draws (n_packets x samples_per_packet): about 40 s
#: and 160 MB of complex gains; a run longer than its trace wraps around it (the ``trace:``
#: channel), so a longer trace buys nothing but memory.
MAX_SAMPLES = 10_000_000

#: f_D T beyond which the model is not meant to be used: J0 has its first zero at 2.405,
#: i.e. f_D T = 0.383; beyond it the samples are anticorrelated, which the threshold model
#: still handles but no paper figure uses. One is a generous bound that keeps inputs sane.
MAX_DOPPLER_NORM = 1.0


def marcum_q1(a: float, b: float) -> float:
    """First-order Marcum Q function Q1(a, b) = P(|a + complex unit Gaussian| > b), for
    a, b >= 0 (infinity included: Q1(inf, b) = 1 for finite b, Q1(a, inf) = 0)."""
    a = float(a)
    b = float(b)
    if math.isnan(a) or math.isnan(b) or a < 0 or b < 0:
        raise ParameterError("marcum_q1", (a, b), "needs a >= 0 and b >= 0")
    if math.isinf(b):
        return 0.0
    if math.isinf(a):
        return 1.0
    return float(scipy.stats.ncx2.sf(b * b, 2, a * a))


def fading_margin_linear(fading_margin: float | None = None,
                         fading_margin_db: float | None = None) -> float:
    """The fading margin F as a linear power ratio, from exactly one of linear or dB."""
    if (fading_margin is None) == (fading_margin_db is None):
        raise ParameterError("fading_margin", fading_margin,
                             "give exactly one of fading_margin (linear) and fading_margin_db")
    if fading_margin is not None:
        # Below 0.05 (-13 dB) P(loss) is 1 - 2e-9: the chain degenerates; above 1e8 none is.
        return v.in_range("fading_margin", fading_margin, 0.05, 1e8)
    db = v.in_range("fading_margin_db", fading_margin_db, -13.0, 80.0)
    return 10.0 ** (db / 10.0)


def doppler_norm_from(doppler_norm: float | None = None, *, doppler_hz: float | None = None,
                      packet_duration_s: float | None = None) -> float:
    """Normalised Doppler f_D T from itself, or from f_D in Hz and the packet duration T."""
    if doppler_norm is not None:
        if doppler_hz is not None or packet_duration_s is not None:
            raise ParameterError("doppler_norm", doppler_norm, "give either doppler_norm or "
                                 "doppler_hz with packet_duration_s, not both")
        fdt = v.positive("doppler_norm", doppler_norm)
    else:
        if doppler_hz is None or packet_duration_s is None:
            missing = "doppler_hz" if doppler_hz is None else "packet_duration_s"
            raise ParameterError(missing, None, "give doppler_norm, or doppler_hz together "
                                 "with packet_duration_s")
        fdt = (v.positive("doppler_hz", doppler_hz)
               * v.positive("packet_duration_s", packet_duration_s))
    if fdt > MAX_DOPPLER_NORM:
        raise ParameterError("doppler_norm", fdt,
                             f"must be in (0, {MAX_DOPPLER_NORM}] (normalised Doppler f_D T)")
    return fdt


@dataclass(frozen=True)
class RayleighMarkov:
    """Two-state Markov approximation of a Rayleigh fading packet channel (paper 004).

    ``p_gb`` = P(Good -> Bad) and ``p_bg`` = P(Bad -> Good) per packet slot. ``alpha``/``beta``
    are the same numbers under the Gilbert-Elliott names used by the engine and paper 000.
    """

    fading_margin: float
    doppler_norm: float
    epsilon: float
    rho: float
    theta: float
    p_gb: float
    p_bg: float

    @property
    def fading_margin_db(self) -> float:
        return 10.0 * math.log10(self.fading_margin)

    @property
    def mean_burst(self) -> float:
        """Mean length of a run of lost packets, 1/p_BG (assumption (iii) of the paper)."""
        return 1.0 / self.p_bg

    @property
    def mean_gap(self) -> float:
        return 1.0 / self.p_gb

    @property
    def alpha(self) -> float:
        return self.p_gb

    @property
    def beta(self) -> float:
        return self.p_bg

    def matrix(self) -> np.ndarray:
        """Transition matrix ordered (Good, Bad)."""
        return np.array([[1 - self.p_gb, self.p_gb], [self.p_bg, 1 - self.p_bg]])

    def channel_spec(self, advance: str = "slot") -> str:
        """Engine channel string: a Gilbert-Elliott channel with these transitions."""
        advance = v.choice("advance", advance, ["slot", "transmission"])
        return f"ge:alpha={self.p_gb:.12g},beta={self.p_bg:.12g},advance={advance}"


def rayleigh_two_state(*, doppler_norm: float | None = None,
                       fading_margin: float | None = None,
                       fading_margin_db: float | None = None, doppler_hz: float | None = None,
                       packet_duration_s: float | None = None) -> RayleighMarkov:
    """Markov parameters from the fading margin and f_D T (eqs. 2-5 with the errata).

    The Doppler is ``doppler_norm`` = f_D T, or ``doppler_hz`` with ``packet_duration_s``.
    """
    F = fading_margin_linear(fading_margin, fading_margin_db)
    fdt = doppler_norm_from(doppler_norm, doppler_hz=doppler_hz,
                            packet_duration_s=packet_duration_s)
    eps = -math.expm1(-1.0 / F)
    rho = float(scipy.special.j0(2.0 * math.pi * fdt))
    one_minus_r2 = 1.0 - rho * rho
    if one_minus_r2 <= 0:  # pragma: no cover - needs fdt below float resolution
        raise ParameterError("doppler_norm", doppler_norm, "is too small: rho rounds to 1")
    theta = math.sqrt((2.0 / F) / one_minus_r2)
    a2, b2 = theta * theta, (rho * theta) ** 2
    # Numerator = P(Bad then Good) / P(Bad) * (e^{1/F} - 1); see the docstring for the choice
    # between the sf and the cdf forms (which cancel least).
    cdf_hi = scipy.stats.ncx2.cdf(a2, 2, b2)
    cdf_lo = scipy.stats.ncx2.cdf(b2, 2, a2)
    if cdf_hi < 0.5:
        num = cdf_hi - cdf_lo
    else:
        num = scipy.stats.ncx2.sf(b2, 2, a2) - scipy.stats.ncx2.sf(a2, 2, b2)
    # eps / (1 - eps) = e^{1/F} - 1, so p_GB = eps p_BG / (1 - eps) is the numerator itself.
    p_gb = min(max(float(num), 0.0), 1.0)
    p_bg = min(p_gb / math.expm1(1.0 / F), 1.0)
    return RayleighMarkov(fading_margin=F, doppler_norm=fdt, epsilon=eps, rho=rho, theta=theta,
                          p_gb=p_gb, p_bg=p_bg)


def jakes_gain(n_samples: int, doppler_norm: float, *, n_sinusoids: int = 64,
               block_samples: int | None = None, seed: int | None = None) -> np.ndarray:
    """Complex Rayleigh fading gain (E|h|^2 = 1) sampled every T, with f_D T = doppler_norm.

    Each block of ``block_samples`` samples (default: the whole trace, or at least 100 Doppler
    periods per block) is an independent sum-of-sinusoids realisation.
    """
    n = v.integer("n_samples", n_samples, 1, MAX_SAMPLES)
    fdt = v.positive("doppler_norm", doppler_norm)
    if fdt > MAX_DOPPLER_NORM:
        raise ParameterError("doppler_norm", doppler_norm, f"must be in (0, {MAX_DOPPLER_NORM}]")
    N = v.integer("n_sinusoids", n_sinusoids, 8, 4096)
    if block_samples is None:
        block = n
    else:
        block = v.integer("block_samples", block_samples, 1)
    rng = np.random.default_rng(seed)
    out = np.empty(n, dtype=complex)
    idx = np.arange(1, N + 1)
    chunk = max(1, 2_000_000 // N)  # bounds the N x chunk phase matrix
    start = 0
    while start < n:
        stop = min(n, start + block)
        phi = rng.uniform(-math.pi, math.pi)
        alpha = (2.0 * math.pi * idx - math.pi + phi) / N
        w = 2.0 * math.pi * fdt * np.cos(alpha)           # radians per sample
        ph0 = rng.uniform(-math.pi, math.pi, N)
        for c0 in range(start, stop, chunk):
            c1 = min(stop, c0 + chunk)
            k = np.arange(c0 - start, c1 - start, dtype=float)
            out[c0:c1] = np.exp(1j * (np.outer(k, w) + ph0)).sum(axis=1) / math.sqrt(N)
        start = stop
    return out


def jakes_error_trace(n_packets: int, *, doppler_norm: float | None = None,
                      fading_margin: float | None = None, fading_margin_db: float | None = None,
                      doppler_hz: float | None = None, packet_duration_s: float | None = None,
                      samples_per_packet: int = 1, n_sinusoids: int = 64,
                      block_packets: int | None = None, seed: int | None = None) -> np.ndarray:
    """Per-packet loss trace (True = lost) from a Jakes fading simulation (paper 004 Figs. 1-4).

    Packets are sent back to back, one per packet duration T; the Doppler is ``doppler_norm``
    = f_D T, or ``doppler_hz`` with ``packet_duration_s``. A packet is lost when the fading
    power at any of its ``samples_per_packet`` sampling instants is below the threshold ``1/F``.
    """
    n = v.integer("n_packets", n_packets, 1, MAX_SAMPLES)
    F = fading_margin_linear(fading_margin, fading_margin_db)
    s = v.integer("samples_per_packet", samples_per_packet, 1, 1000)
    if n * s > MAX_SAMPLES:
        raise ParameterError("n_packets", n_packets, f"x samples_per_packet = {n * s:,} "
                             f"samples; at most {MAX_SAMPLES:,} (a run wraps around a shorter "
                             "trace)")
    fdt = doppler_norm_from(doppler_norm, doppler_hz=doppler_hz,
                            packet_duration_s=packet_duration_s)
    bp = None if block_packets is None else v.integer("block_packets", block_packets, 1) * s
    h = jakes_gain(n * s, fdt / s, n_sinusoids=n_sinusoids, block_samples=bp, seed=seed)
    below = (h.real ** 2 + h.imag ** 2) < 1.0 / F
    return below.reshape(n, s).any(axis=1)


@dataclass(frozen=True)
class TwoStateEstimate:
    """Two-state parameters estimated from a loss trace (the paper's hybrid approach).

    ``p_bg = 1/mean_burst`` uses the measured burst lengths (not the lag-one transition
    counts, which the paper notes differ when the process is not Markov); ``p_gb`` follows from
    ``epsilon``. ``p_bb_counted`` is the lag-one estimate of P(lost | previous lost) for
    comparison.
    """

    n_packets: int
    epsilon: float
    mean_burst: float
    mean_gap: float
    n_bursts: int
    p_bg: float
    p_gb: float
    p_bb_counted: float

    def channel_spec(self, advance: str = "slot") -> str:
        advance = v.choice("advance", advance, ["slot", "transmission"])
        return f"ge:alpha={self.p_gb:.12g},beta={self.p_bg:.12g},advance={advance}"


def _runs(x: np.ndarray, value: bool) -> np.ndarray:
    """Lengths of maximal runs of ``value`` in the boolean array ``x``."""
    padded = np.concatenate(([False], x == value, [False]))
    d = np.diff(padded.astype(np.int8))
    return np.flatnonzero(d == -1) - np.flatnonzero(d == 1)


def estimate_two_state(trace) -> TwoStateEstimate:
    """Average error rate and mean error-burst length of a loss trace (True/1 = lost)."""
    x = np.asarray(trace)
    if x.ndim != 1 or x.size < 2:
        raise ParameterError("trace", f"array of shape {x.shape}",
                             "must be a 1-D sequence of at least 2 outcomes")
    if x.dtype != bool:
        if not np.all((x == 0) | (x == 1)):
            raise ParameterError("trace", "non-binary values", "entries must be 0/1 or booleans")
        x = x.astype(bool)
    eps = float(x.mean())
    if eps == 0.0 or eps == 1.0:
        raise ParameterError("trace", f"error rate {eps}",
                             "must contain both lost and delivered packets")
    bursts = _runs(x, True)
    gaps = _runs(x, False)
    mean_burst = float(bursts.mean())
    p_bg = 1.0 / mean_burst
    p_gb = min(1.0, eps * p_bg / (1.0 - eps))
    prev_lost = x[:-1]
    p_bb = float((x[1:] & prev_lost).sum() / prev_lost.sum()) if prev_lost.any() else float("nan")
    return TwoStateEstimate(n_packets=int(x.size), epsilon=eps, mean_burst=mean_burst,
                            mean_gap=float(gaps.mean()), n_bursts=int(bursts.size), p_bg=p_bg,
                            p_gb=p_gb, p_bb_counted=p_bb)


def write_trace(path: str | os.PathLike, trace, *, line_length: int = 100) -> str:
    """Write a loss trace for the engine's ``trace:file=PATH`` channel; returns the spec string.

    One character per packet transmission, '1' lost and '0' delivered; lines are wrapped
    (whitespace is ignored by the reader) so that the file stays readable in an editor.
    """
    x = np.asarray(trace)
    if x.ndim != 1 or x.size == 0:
        raise ParameterError("trace", f"array of shape {x.shape}",
                             "must be a non-empty 1-D sequence")
    if x.dtype != bool and not np.all((x == 0) | (x == 1)):
        raise ParameterError("trace", "non-binary values", "entries must be 0/1 or booleans")
    n = v.integer("line_length", line_length, 1)
    chars = np.where(x.astype(bool), "1", "0")
    text = "".join(chars.tolist())
    lines = [text[i:i + n] for i in range(0, len(text), n)]
    p = os.fspath(path)
    with open(p, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
    return f"trace:file={p}"


def read_trace(path: str | os.PathLike) -> np.ndarray:
    """Read a ``trace:file=`` file back as a boolean array (True = lost). The file is
    checked as the ``trace:`` channel checks it (a regular file of '0', '1' and whitespace,
    at least one outcome; any other byte is refused, naming its offset)."""
    from ..scenario import check_trace_file

    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError("path", path, "must be the path of a trace file")
    p = check_trace_file("path", os.fspath(path))
    data = np.frombuffer(Path(p).read_bytes(), dtype=np.uint8)
    return data[(data == ord("0")) | (data == ord("1"))] == ord("1")
