"""Packet errors from bit errors over Jakes fading: paper 004's simulated channel (Sec. 5.1).

Zorzi & Rao's "simulation" runs TCP "over a trace of packet errors obtained through fading
simulation according to Jakes", for "a packet length of 1024 bytes with no coding", and their
"hybrid" analysis (used for every figure after Fig. 4, "because it provides the correct
relationship between the transmitted power and the error parameters") takes the two-state
parameters from that trace. Eq. (2)'s threshold model (:mod:`.rayleigh`) decides a packet on
one fading sample; here every bit of the packet meets the fade at its own instant, so a packet
is more likely to be hit on a fast-varying channel (the paper's Fig. 7) and the error rate is a
function of the average SNR *and* of f_D T.

The bit-level model (ours where the paper is silent: it names neither the modulation nor the
receiver). A bit received at instantaneous SNR ``gamma`` is in error with probability
``BER(gamma) = a exp(-c gamma)``: non-coherent binary FSK (``"ncfsk"``, a = c = 1/2, the
default) or binary DPSK (``"dpsk"``, a = 1/2, c = 1); ``gamma = S |h(t)|^2`` with ``S`` the
average SNR and ``h`` the Jakes gain (E|h|^2 = 1). Bit errors are independent given the fade
(no coding, no interleaving), so a packet of ``L`` bits survives with probability
``prod_bits (1 - BER(gamma_bit))``. The fade moves little within a packet (a quarter of a
Doppler period at f_D T = 0.256), so the packet is cut into ``sub_blocks`` equal parts with
the gain taken at each part's centre: ``ceil(128 f_D T)`` parts (1 at f_D T <= 1/128, 33 at
0.256: at most 0.05 rad of Doppler phase per part), which is exact for slow fading and changes
the error rate by well under 1% against 4x as many parts at 0.256 (tests).

Common random numbers. Each packet gets one uniform ``U`` and is lost iff ``U < 1 - P(survive
| S)``. Survival grows with ``S``, so each packet has a *critical SNR* ``S*``: lost iff ``S <
S*``. :func:`bit_level_trace` computes ``S*`` for every packet once (a bracketed Newton
iteration in log S, the bracket from the closed forms with all the packet's bits at its
weakest part's fade and with only that part's bits); then the loss trace at any SNR is ``S* >
S``, the error rate a count, and the SNR giving an error rate a quantile: the same fading and
the same draws at every SNR, so curves against the SNR or the error rate are smooth and every
point is exactly reproducible.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _validate as v
from ..errors import ParameterError
from .rayleigh import MAX_DOPPLER_NORM, TwoStateEstimate, estimate_two_state, write_trace

__all__ = ["MODULATIONS", "BitLevelTrace", "bit_level_trace", "default_sub_blocks",
           "ber", "slow_fading_epsilon", "fast_fading_epsilon"]

#: BER(gamma) = a exp(-c gamma): (a, c) per modulation.
MODULATIONS = {"ncfsk": (0.5, 0.5), "dpsk": (0.5, 1.0)}
#: Where the disk cache of critical SNRs lives (one .npy per trace, a function of its
#: arguments: concurrent writers write the same bytes).
CACHE_DIR = Path(tempfile.gettempdir()) / "lossytcp-bit-traces"
_S_MIN, _S_MAX = 1e-6, 1e12


def ber(gamma, modulation: str = "ncfsk"):
    """Bit error probability at instantaneous SNR ``gamma`` (linear)."""
    a, c = MODULATIONS[v.choice("modulation", modulation, list(MODULATIONS))]
    return a * np.exp(-c * np.asarray(gamma, dtype=float))


def default_sub_blocks(doppler_norm: float) -> int:
    """Parts a packet is cut into: at most 1/128 of a Doppler period each."""
    return int(min(64, max(1, math.ceil(128.0 * doppler_norm - 1e-9))))


def slow_fading_epsilon(snr_db: float, packet_bits: int = 8192,
                        modulation: str = "ncfsk") -> float:
    """The packet error rate as f_D T -> 0 (the fade constant over a packet): E over gamma ~
    Exp(mean S) of 1 - (1 - BER(gamma))^L, by quadrature."""
    import scipy.integrate

    S = 10 ** (snr_db / 10)
    a, c = MODULATIONS[modulation]

    def f(u):   # u = gamma / S, density exp(-u)
        return -np.expm1(packet_bits * np.log1p(-a * np.exp(-c * S * u))) * np.exp(-u)
    # the integrand falls from ~1 to ~0 around u* = log(2 a L) / (c S): split there
    u_star = math.log(2 * a * packet_bits) / (c * S)
    lo = scipy.integrate.quad(f, 0, u_star, limit=200)[0]
    hi = scipy.integrate.quad(f, u_star, np.inf, limit=200)[0]
    return float(lo + hi)


def fast_fading_epsilon(snr_db: float, packet_bits: int = 8192,
                        modulation: str = "ncfsk") -> float:
    """The packet error rate as f_D T -> infinity (every bit an independent fade): 1 - (1 -
    E[BER])^L with E[BER] = a / (1 + c S) over Rayleigh fading."""
    S = 10 ** (snr_db / 10)
    a, c = MODULATIONS[modulation]
    return float(-math.expm1(packet_bits * math.log1p(-a / (1 + c * S))))


class _Jakes:
    """One Jakes fade (the angle model of :func:`.rayleigh.jakes_gain`: ``n_sin`` sinusoids,
    a fresh realisation every ``block`` packets), evaluated at any instants of any packets.
    The gain at packet k, part j of s is ``sum_m exp(i(w_m (k + (j + 1/2)/s) + phase_m))``:
    a product of a packet-rate matrix and a part-offset matrix (BLAS), not one complex
    exponential per sample."""

    def __init__(self, n: int, fdt: float, n_sin: int, block: int,
                 rng: np.random.Generator) -> None:
        idx = np.arange(1, n_sin + 1)
        self.block, self.n_sin, self.n = block, n_sin, n
        self.w, self.ph = [], []
        for _ in range(0, n, block):
            phi = rng.uniform(-math.pi, math.pi)
            self.w.append(2.0 * math.pi * fdt * np.cos((2.0 * math.pi * idx - math.pi + phi)
                                                       / n_sin))
            self.ph.append(rng.uniform(-math.pi, math.pi, n_sin))

    def power(self, packets: np.ndarray, s: int) -> np.ndarray:
        """|h|^2 at the centres of ``s`` equal parts of each listed packet (rows)."""
        out = np.empty((len(packets), s), dtype=np.float64)
        offs = (np.arange(s) + 0.5) / s
        blk = packets // self.block
        chunk = max(1, 400_000 // max(s, self.n_sin))
        for b in np.unique(blk):
            rows = np.flatnonzero(blk == b)
            w, ph = self.w[b], self.ph[b]
            part = np.exp(1j * np.outer(w, offs))                    # (n_sin, s)
            step = np.exp(1j * w)
            for c0 in range(0, len(rows), chunk):
                r = rows[c0:c0 + chunk]
                k = packets[r] - b * self.block
                if len(r) > 1 and np.all(np.diff(k) == 1):
                    # consecutive packets: one exponential per sinusoid, then a running
                    # product (relative rounding ~1e-16 per step)
                    a = np.empty((len(r), self.n_sin), dtype=complex)
                    a[0] = np.exp(1j * (w * float(k[0]) + ph))
                    a[1:] = step
                    a = np.cumprod(a, axis=0)
                else:
                    a = np.exp(1j * (np.outer(k.astype(float), w) + ph))
                g = a @ part / math.sqrt(self.n_sin)
                out[r] = g.real ** 2 + g.imag ** 2
        return out


#: Parts per packet are refined until the part spacing is at most half the width of the bit
#: error burst a fade of the packet's depth causes at the SNR where it decides the packet: near
#: a minimum |h|^2 ~ g_min + v^2 t^2 with v ~ 4.44 f_D T per packet (Jakes' rms rate of
#: change), and the bit error rate exp(-c S |h|^2) is a Gaussian in t of width 1 / (v
#: sqrt(2 c S)); at the packet's critical SNR, c S ~ log(2 a L) / g_min (about 9 / g_min).
#: Spacing <= width / 2 gives PARTS_COEF f_D T / sqrt(g_min) parts, PARTS_COEF ~ 2 x 4.44 x
#: sqrt(18) ~ 38.
PARTS_COEF = 40.0
MAX_PARTS = 1024


def _parts_needed(gmin: np.ndarray, fdt: float) -> np.ndarray:
    need = PARTS_COEF * fdt / np.sqrt(np.maximum(gmin, 1e-12))
    return np.minimum(MAX_PARTS, 2 ** np.ceil(np.log2(np.maximum(need, 1.0)))).astype(int)


def _critical_snr(g: np.ndarray, lam: np.ndarray, bits: float, a: float, c: float,
                  ) -> np.ndarray:
    """Per packet (rows of ``g``, fade power per part), the SNR S* with sum_j b log(1 - a
    exp(-c S g_j)) = lam (b = bits per part): lost iff S < S*."""
    s = g.shape[1]
    b = bits / s
    gmin = g.min(axis=1).astype(float)
    gmin = np.maximum(gmin, 1e-30)

    def closed(nbits):
        # all nbits at the weakest part's fade: a exp(-c S g) = -expm1(lam / nbits)
        r = -np.expm1(lam / nbits) / a
        with np.errstate(divide="ignore"):
            return np.where(r >= 1.0, _S_MIN, -np.log(np.minimum(r, 1.0)) / (c * gmin))
    hi = np.clip(closed(bits), _S_MIN, _S_MAX)           # every bit as weak: S* <= this
    if s == 1:
        return hi
    lo = np.clip(closed(b), _S_MIN, _S_MAX)              # only the weakest part: S* >= this
    x = 0.5 * (np.log(lo) + np.log(hi))
    xlo, xhi = np.log(lo), np.log(hi)
    act = np.arange(len(x))            # rows not yet converged
    for _ in range(80):
        ga = g[act].astype(float)
        S = np.exp(x[act])
        e = a * np.exp(-c * S[:, None] * ga)
        f = b * np.log1p(-e).sum(axis=1) - lam[act]
        # f < 0: lost at S (S below S*), so S* lies above
        xlo[act] = np.where(f < 0, x[act], xlo[act])
        xhi[act] = np.where(f >= 0, x[act], xhi[act])
        df = b * c * S * (ga * e / (1.0 - e)).sum(axis=1)          # d f / d log S
        with np.errstate(divide="ignore", invalid="ignore"):
            xn = x[act] - f / df
        bad = ~np.isfinite(xn) | (xn <= xlo[act]) | (xn >= xhi[act])
        xn = np.where(bad, 0.5 * (xlo[act] + xhi[act]), xn)
        moved = np.abs(xn - x[act])
        x[act] = xn
        act = act[(moved >= 1e-10) & (xhi[act] - xlo[act] >= 1e-10)]
        if not len(act):
            break
    return np.exp(x)


@dataclass(frozen=True)
class BitLevelTrace:
    """A Jakes fading realisation and one uniform per packet, as each packet's critical SNR
    (lost iff the average SNR is below it). See the module docstring."""

    doppler_norm: float
    n_packets: int
    packet_bits: int
    modulation: str
    sub_blocks: int
    seed: int
    critical_snr: np.ndarray        # linear, per packet

    def losses(self, snr_db: float) -> np.ndarray:
        """The loss trace (True = lost) at average SNR ``snr_db``."""
        return self.critical_snr > 10 ** (snr_db / 10)

    def epsilon(self, snr_db: float) -> float:
        """The packet error rate at ``snr_db``."""
        return float(np.mean(self.critical_snr > 10 ** (snr_db / 10)))

    def snr_db_for_epsilon(self, epsilon: float) -> float:
        """The average SNR (dB) at which this trace loses a fraction ``epsilon`` of packets."""
        eps = v.probability("epsilon", epsilon, open_low=True, open_high=True)
        if eps * self.n_packets < 20:
            raise ParameterError("epsilon", epsilon, f"needs at least 20 lost packets in the "
                                 f"trace: above {20 / self.n_packets:.3g} with "
                                 f"{self.n_packets} packets")
        return 10 * math.log10(float(np.quantile(self.critical_snr, 1.0 - eps)))

    def two_state(self, snr_db: float) -> TwoStateEstimate:
        """The paper's hybrid parameters at ``snr_db``: the error rate and the measured mean
        error burst (p_BG = 1 / burst, p_GB from the rate)."""
        return estimate_two_state(self.losses(snr_db))

    def write(self, snr_db: float, path: str | os.PathLike | None = None) -> str:
        """Write the loss trace at ``snr_db`` for the engine's ``trace:`` channel (stepped per
        slot); the spec string. Without ``path`` a file named after the trace's arguments in
        :data:`CACHE_DIR`, written once."""
        if path is None:
            tag = hashlib.sha256(f"{self._key()},{snr_db!r}".encode()).hexdigest()[:16]
            CACHE_DIR.mkdir(parents=True, exist_ok=True)
            path = CACHE_DIR / f"losses-{tag}.txt"
            if not path.exists():
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                write_trace(tmp, self.losses(snr_db))
                tmp.replace(path)
        else:
            write_trace(path, self.losses(snr_db))
        return f"trace:file={path},advance=slot"

    def _key(self) -> str:
        return (f"{self.doppler_norm!r},{self.n_packets},{self.packet_bits},{self.modulation},"
                f"{self.sub_blocks},{self.seed}")


@functools.lru_cache(maxsize=64)
def bit_level_trace(doppler_norm: float, n_packets: int, *, packet_bits: int = 8192,
                    modulation: str = "ncfsk", sub_blocks: int | None = None, seed: int = 1,
                    n_sinusoids: int = 64, block_packets: int | None = None) -> BitLevelTrace:
    """The bit-level trace of ``n_packets`` back-to-back packets of ``packet_bits`` bits at
    normalised Doppler f_D T = ``doppler_norm`` (see the module docstring). Cached in the
    process and on disk (:data:`CACHE_DIR`): a trace is a function of its arguments.
    ``block_packets`` (default: an eighth of the trace, at least 50 Doppler periods): a fresh
    fading realisation every so many packets."""
    fdt = v.positive("doppler_norm", doppler_norm)
    if fdt > MAX_DOPPLER_NORM:
        raise ParameterError("doppler_norm", doppler_norm, f"must be in (0, {MAX_DOPPLER_NORM}]")
    n = v.integer("n_packets", n_packets, 2, 50_000_000)
    bits = v.integer("packet_bits", packet_bits, 1, 10_000_000)
    mod = v.choice("modulation", modulation, list(MODULATIONS))
    s = default_sub_blocks(fdt) if sub_blocks is None else v.integer("sub_blocks", sub_blocks,
                                                                       1, 4096)
    nsin = v.integer("n_sinusoids", n_sinusoids, 8, 4096)
    block = (max(n // 8, min(n, math.ceil(50 / fdt))) if block_packets is None
             else v.integer("block_packets", block_packets, 1))
    key = f"{fdt!r},{n},{bits},{mod},{s},{seed},{nsin},{block}"
    tag = hashlib.sha256(key.encode()).hexdigest()[:20]
    path = CACHE_DIR / f"critical-{tag}.npy"
    crit = None
    if path.exists():
        try:
            crit = np.load(path)
        except (OSError, ValueError):
            crit = None
    if crit is None or crit.shape != (n,):
        rng = np.random.default_rng([int(seed), 2001])
        fade = _Jakes(n, fdt, nsin, block, rng)
        lam = np.log1p(-rng.uniform(0.0, 1.0, n))
        a, c = MODULATIONS[mod]
        crit = np.empty(n)
        packets = np.arange(n)
        g = fade.power(packets, s)
        parts = np.full(n, s)
        gmin = g.min(axis=1)
        refined: dict[int, np.ndarray] = {}
        for _ in range(4):     # deeper minima found on finer parts may ask for finer still
            need = np.maximum(parts, _parts_needed(gmin, fdt))
            more = np.flatnonzero(need > parts)
            if not len(more):
                break
            for q in np.unique(need[more]):
                sel = more[need[more] == q]
                gq = fade.power(sel, int(q))
                gmin[sel] = np.minimum(gmin[sel], gq.min(axis=1))
                parts[sel] = q
        coarse = np.flatnonzero(parts == s)
        crit[coarse] = _critical_snr(g[coarse], lam[coarse], float(bits), a, c)
        for q in np.unique(parts[parts != s]):
            sel = np.flatnonzero(parts == q)
            refined[int(q)] = sel
            crit[sel] = _critical_snr(fade.power(sel, int(q)), lam[sel], float(bits), a, c)
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, crit)
        os.replace(tmp, path)
    return BitLevelTrace(fdt, n, bits, mod, s, int(seed), crit)
