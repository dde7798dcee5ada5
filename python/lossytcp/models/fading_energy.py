"""Throughput and energy efficiency of TCP on a two-state Markov (fading) channel.

M. Zorzi and R. R. Rao, "Energy efficiency of TCP in a local wireless environment", Mobile
Networks and Applications 6 (2001) (paper 004 of the project), Section 4.

Setting (Section 3): time in slots of one packet; one packet per slot; zero round-trip time (the
ACK of a slot's packet is back at the end of that slot); ACKs error free; the channel state of
each slot is a two-state Markov chain (Good = delivered, Bad = lost) with P(G->B) = ``p_gb``,
P(B->G) = ``p_bg``, evolving in every slot whether or not a packet is sent. The timeout is a fixed
``T0`` slots from the instant the timer was (re)armed; ``K`` duplicate ACKs trigger a fast
retransmit; the advertised window is ``W_max``.

Markov renewal-reward framework (Sec. 4.1)
------------------------------------------
The embedded chain is sampled at the first slot of each cycle, a cycle running from one loss
detection to the next. Its state is ``X = (C, W_th, W0)``: the channel state in the slot before
the cycle, the slow-start threshold and the window at the start of the cycle (the paper's Tahoe
always has ``W0 = 1``, ours behind the queued window also ``W0 = 2``; Reno and NewReno also
start cycles after a successful fast recovery, with ``C = G`` and ``W0 = W_th``, or with ns-2's
rule ``W0 = floor(Y)/2``). A cycle has two phases:

Phase 1 (eq. 7, 19): with no outstanding packet at each slot start, a packet is sent in every
slot until the first loss, ``n`` slots into the cycle, with ``P(n) = alpha_C(n) = p_CB`` for
``n = 1`` and ``p_CG p_GG^(n-2) p_GB`` for ``n > 1``. Each success's ACK grows the window (slow
start: +1; congestion avoidance: +1/W; capped at ``W_max``), so the window at the loss,
``Y = w(n; W0, W_th)``, is a deterministic function of ``n``, tabulated here exactly until it
reaches ``W_max`` (the geometric tail beyond is summed in closed form). ``Y`` matters only
through ``floor(Y)`` (how many packets may follow the lost one) and ``ceil(Y/2)`` (the next
threshold); phase 1 contributes ``N_d = N_t = n`` slots and transmissions and ``N_s = n - 1``
successes.

Phase 2 (Sec. 4.2, slot 0 = the loss): ``m = floor(Y) - 1`` further packets may be sent in
slots ``1..m``. ``phi_{B,g}(j, x)`` = P(j successes in slots 1..x, state g in slot x | B in
slot 0) is tabulated by a forward recursion. If the K-th success falls in slot ``i <= m``
(probability of first other loss at ``l1``: eq. 23) the K-th duplicate ACK triggers a fast
retransmit at the end of slot ``i``; otherwise the sender stalls and the timer armed at the
start of slot 0 expires: the next cycle starts in slot ``T0`` (``N_d = T0 - 1``, ``N_t = m``,
channel in slot ``T0 - 1`` from the ``(T0 - 1 - m)``-step matrix, eq. 20-21), with threshold
``ceil(Y/2)``.

Success counting (the paper's two bounds): a success is counted only if it delivers a packet
that is never sent again. The pessimistic bound counts only transmissions surely acknowledged
by the cumulative ACK of the recovery, the optimistic bound all successful transmissions.

Tahoe (exactly Sec. 4.2, ``tahoe_queue="paper"``, the default): fast retransmit at ``i`` ends
the cycle: next state ``(G, ceil(Y/2), 1)``, ``N_d = N_t = i``; ``N_s = K`` if ``i = K`` (eq.
22), else between ``l1 - 1`` and ``K`` (eq. 23-24). On timeout, ``N_s`` is between 0 and ``j``
(eq. 20). (Eq. 24 as extracted writes ``floor(Y/2)``; the protocol rule of Sec. 2 and eq. 22
give ``ceil(Y/2)``, used here.)

Tahoe behind the queued window (``tahoe_queue="engine"``, ours; the engine's and ns-2's Tahoe
in the slot model, pinned by a replayed channel sequence in the tests): as for Reno below,
``P1..Pm`` are queued when P0 is lost, so the fast retransmit at the end of slot ``i`` drops
the window to one and goes back N, but P0's retransmission leaves in slot ``m + 1``; the
duplicate ACKs of ``P(i+1)..Pm`` send nothing. It fails: the timer armed at the fast
retransmit expires, the next cycle starts in slot ``i + 1 + T0`` (``N_d = i + T0``, ``N_t = m +
1``, ``N_s`` between 0 and ``j``), threshold the halved window of one (``ceil(1/2)`` or ns-2's
2), ``W0 = 1``. It succeeds: its ACK, cumulative up to the first other loss ``l1`` (or ``m +
1``), grows the window to 2; next state ``(G, W_th, 2)``, ``N_d = N_t = m + 1``, ``N_s`` between
``l1`` (``m + 1`` if none) and ``1 + j``. A loss among ``P(i+1)..Pm`` is thus a hole that the
go-back-N repairs, not the loss of a new cycle's first packets at window one or two (which
the paper's rule times out). Approximation: the go-back-N resends packets after ``l1`` that
had arrived; the next cycle counts them as successes (the optimistic bound counts them twice,
the pessimistic once). The paper's rule stays the default: its figures and claims are its
Tahoe (with ``"engine"``, Tahoe/Reno at 90% throughput is 5.4 instead of 8.0, the paper's
"about ten"; the K, T0 and f_D T ratios move by at most 0.14).

Reno and NewReno: derivation from the rules of Section 2 (ours)
---------------------------------------------------------------
The paper only says they follow "with a little more effort"; the rules below are derived by us
from Section 2 and from the protocol as ns-2 (and the engine's ns2 profile) runs it in the slot
model. Both halve the threshold at the K-th duplicate ACK, ``W_th = ceil(Y/2)`` (ns-2:
``max(floor(Y/2), 2)``), inflate the window to ``b + K`` with ``b`` the halved window (the
paper's ``W_th``; ns-2's ``Y/2``, whole part ``floor(floor(Y)/2)``) and re-arm the timer at the
fast retransmit. Three consequences of zero RTT with one packet per slot shape the recovery:

* The window is already out. Every ACK releases the window at once, so when P0 is lost in slot
  0 the packets ``P1..Pm`` are queued behind it; the fast retransmit at the end of slot ``i``
  cannot overtake them: P0 goes in slot ``m + 1``, and every loss among ``P1..Pm`` (not only
  among ``P1..Pi``) is a further hole. ``j`` = successes in ``1..m``; the law of ``(j, i, l1,
  state of slot m)`` is tabulated by a forward recursion (``_window_law``).
* Each success in recovery returns a duplicate (or partial) ACK that inflates the window by
  one: when the window allows, the sender keeps releasing new data, ``min(b + j + s, W_max) -
  floor(Y)`` packets after ``s`` further successes (never more than ``W_max - floor(Y)``).
* The recovery ends with a cumulative ACK or a timeout; no second fast retransmit can start
  before the ACK passes everything sent at the first (``recover``, ns-2's ``bugfix_``).

Cases after a fast retransmit (fewer than K successes in ``1..m``: timeout exactly as Tahoe):

* P0's retransmission (slot ``m + 1``) fails: the timer armed at the fast retransmit (time
  ``i + 1``) expires, the next cycle starts in slot ``i + 1 + T0`` (``N_d = i + T0``). Meanwhile
  the new data the duplicate ACKs release keeps going until the queue empties (``_new_data_table``:
  each loss shortens the queue by one, each success keeps it while the window may still grow):
  ``N_t = m + 1 +`` those transmissions; ``N_s`` between 0 and ``j +`` their successes. The
  threshold halves the uninflated window (ns-2 drops the inflation before the timeout's
  halving), ``ceil(W_th/2)`` / ``max(floor(W_th/2), 2)``, ``W0 = 1``.
* It succeeds and ``P1..Pm`` all arrived (``j = m``): the ACK covers everything, recovery ends
  with the uninflated window, the paper's ``W_th`` or ns-2's ``Y/2`` (``cwnd_/2``, not
  truncated: with ``"floor"`` the next cycle starts from ``floor(Y)/2``, the fraction of ``Y``
  not being in the state); next state ``(G, W_th, W0)``, ``N_d = N_t = N_s = m + 1``. The new
  data already queued is the start of the next cycle.
* Reno, further holes: the partial ACK (end of slot ``m + 1``) ends Reno's recovery and
  re-arms the timer; the new data already queued goes out, its duplicate ACKs cannot start
  another recovery, and the timer expires ``T0`` later: ``N_d = m + 1 + T0``, ``N_t = m + 1 +``
  the queued packets, threshold halved as above, ``W0 = 1``; ``N_s`` between ``l1`` (``P0..P(l1-1)``
  acknowledged) and ``1 + j +`` the queued packets' successes. This is the paper's "when two or
  more errors occur in the same window the system will timeout regardless of the window size"
  (Sec. 5.2), with "the window" the ``floor(Y)`` packets out at the loss.
* NewReno, ``h = m + 1 - j`` holes: each partial ACK retransmits the next hole, each Good
  with ``p_GG``. All succeed (``p_GG^(h-1)``): next state ``(G, W_th, W0)`` as above, ``N_d =
  N_t = m + h``, ``N_s = m + 1``. The r-th fails (``p_GG^(r-2) p_GB``, r = 2..h): ns-2 re-arms the
  timer at the first partial ACK only (RFC 6582's "Impatient" variant), so the next cycle
  starts in slot ``m + 2 + T0`` (``N_d = m + 1 + T0``); ``N_t = m + r +`` the new data sent on
  the window inflated by ``j + r - 1`` successes; ``N_s`` between ``l1 + r - 2`` and ``j + r -
  1 +`` that new data's successes; threshold halved as above, ``W0 = 1``.

Approximations (ours, so that the comparison with the engine can be judged): the new data sent
between NewReno's retransmissions is counted as sent after the failing one (the same total,
retransmissions in consecutive slots, each Good with ``p_GG``); after a full ACK the next cycle
starts afresh, although ns-2 cannot fast-retransmit a loss of the very first packet after
``recover``; ns-2's ``Y/2`` is taken as ``floor(Y)/2``.

Checks: a cycle-level Monte Carlo of exactly these rules agrees with the chain (tests).

Threshold rounding. The paper's protocol rules halve the *window* and round up: rule 3 of
Sec. 2 (``W_th = ceil(W/2)`` at a timeout, and at Tahoe's fast retransmit, which "behaves as if
a timeout has occurred") and the Reno text (``W_th = ceil(W/2)``, ``W = W_th + K``); eq. (24)'s
``floor(Y/2)`` is the extraction's. ``threshold_rounding="ceil"`` (default) is that rule.
``"floor"`` is ns-2's (``slowdown()``: half the window, truncated, at least 2). The engine's
rfc profile halves the *flight size* (RFC 5681 eq. (4)), which in the slot model is the whole
window ``floor(Y)``, queued at once: nearly ns-2's rule. The profiles differ in NewReno's
partial-ACK window and timer (RFC 6582 against ns-2), which this model follows as ns-2 has them.

Validation (``lossytcp.validation.fading``, ``scripts/validate_models_II.py``): the engine's
slot model with ns-2's window-halving rule (profile ns2, no limited transmit, no delayed
growth, no growth on the ACK ending recovery) against the model with ``"floor"``, 36 points
(f_D T 0.001, 0.016, 0.256; W_max 6, 24; 10 and 15 dB; 2 x 300k slots), Tahoe with
``tahoe_queue="engine"``: transmissions per success inside the bounds within 0.1% everywhere.
Throughput outside the bounds, at most (mean over the 36 points): Tahoe 0.9% (0.17%), Reno
0.9% (0.31%), NewReno 1.8% (0.67%); at f_D T <= 0.016 Tahoe 0.9%, Reno 0.8%, NewReno 1.5%.
The model's timeouts and fast retransmits per slot are the engine's within 4% for every
variant at f_D T 0.256 (columns ``timeouts_per_kslot_*``, ``fast_retransmits_per_kslot_*``).
With the paper's Tahoe cycle (columns ``*_paper``) Tahoe lies up to 4.2% (mean 1.2%; 3.0% at
f_D T <= 0.016) above the optimistic bound, at f_D T 0.256 and 10 dB (error rate 9.5%; 2.6%
at W_max 6): there timeouts idle four fifths of the slots, so 1% fewer timeouts per slot is
about 5% more throughput; at W_max 24 the engine times out 8.12 times per 1000 slots, the
paper's rule 8.21 and the queued-window rule 8.14 (load 0.209, 0.199 and 0.206; throughput
0.1867 against the bounds [0.1703, 0.1865], 0.1% above). Before the Reno/NewReno rules above
(P0 retransmitted in slot ``i + 1``, holes counted among ``P1..Pi`` only, no new data in
recovery, ``W0 = W_th`` after recovery) Reno lay up to 8.8% below the pessimistic bound at
f_D T 0.256 (15 dB, W_max 24: every second loss among the ``m - i`` packets queued after the
fast retransmit times Reno out, which the old rules did not see) and NewReno up to 12.3%
above the optimistic one (10 dB, W_max 24: the new data its inflated window sends while a
failed retransmission waits for the timer was not counted, and ns-2's ``Y/2`` after recovery
grows back faster than ``W_th``, so the engine started more fast recoveries per slot than the
model). So the measured domain within 2% of the bounds is every point for every variant; the
largest excursions (0.8-0.9% at f_D T 0.001, 10 dB, all variants) are the engine below the
pessimistic bound. The paper's ceil against the rfc-profile engine (``before=True``, Tahoe
with the paper's rule): Tahoe 4.2%, Reno 0.8%, NewReno 10.0%.
Figs. 1-4 (Tahoe, W_max 24; the engine over a Jakes trace replayed one outcome per slot, as
the paper's simulation runs in time): within 2% of the analysis at f_D T 0.001 and 5% at
0.128 at every margin; at 0.008-0.032 and 5-10 dB the engine lies 5-25% below it, the fade
being neither constant over a cycle nor Markov (the paper finds its analysis "a little
pessimistic" there; ours is optimistic).

Claims (Sec. 5, at 90% throughput; ``lossytcp.validation.fading.energy_claims``): with the
channel from the Marcum-Q parameters (eq. (2)-(5)) the model gives NewReno W_max 24/6 = 3.0
(paper: "triples"), Tahoe/Reno = 8.0 (paper: about ten), Tahoe K = 1/K = 3 = 2.2 (W_max 6)
and 1.7 (24) and K = 2/K = 3 = 1.5 (paper: "doubled ... almost again doubled ... three- to
fourfold"), T0 = 50/150 = 1.6 (Tahoe) and 2.2 (Reno) (paper: "a factor of 3 or even more")
and f_D T 0.001/0.256 = 4.5 (paper: "in excess of an order of magnitude"). The queue-aware
Reno/NewReno rules moved the three ratios they enter: before them NewReno's W_max 24/6 was
3.2, Tahoe/Reno 6.9 and Reno's T0 ratio 2.6 (Reno now times out on every second loss among
the window queued at the first). Neither the rounding (floor: 2.9, 7.7, 2.2/1.8, Reno's T0
2.2, 4.8) nor the paper's hybrid parameters estimated from a Jakes trace with one fading
sample per packet (3.0, 8.3, 2.2, 1.7, Reno's T0 2.3, 4.8) move them. What does is how a
packet is lost: eq. (2) decides a packet on one fading sample, the paper's simulation on
every bit of an uncoded 1024-byte packet (its Fig. 7: the error rate at a given SNR grows
with f_D T). Following the fade within
the packet (8, 16, 32 and 64 samples per packet, lost if any falls below 1/F; 32 and 64 on
200k and 100k packets) gives Tahoe/Reno 12.6/13.0/12.8/13.8, Reno's T0 ratio
3.3/3.4/3.6/3.9 and f_D T 0.001/0.256 = 36/63/96/114. K = 1/K = 3 at f_D T 0.256 keeps
growing with the sampling, 2.4/2.6/3.3/4.0 (W_max 6) and 1.8/2.0/2.3/2.6 (24), K = 2/K = 3
1.6/1.7/1.9/2.0: at the 90%-throughput margin a deep fade lasts a fraction of a packet time
at f_D T 0.256, and 16 samples still miss part of it. So the K (W_max 6), T0 (Reno, the
variant the paper calls more sensitive) and f_D T claims are the paper's channel (packet
errors from bit-level fading), not our rules or rounding; Tahoe/Reno, 8.0 with one sample per
packet and 12.6-13.8 with the fade followed, brackets the paper's "about ten". Two ratios stay
off (documented): NewReno's W_max 24/6 is 3.0 with one sample per packet but 3.8 with the fade
followed (3.8/3.8/3.8/3.8), so "triples" holds in eq. (2)'s channel only; and Tahoe's T0
50/150 stays 1.6-1.8, below the "factor of 3" the text gives for both variants.

The channel three ways: ``p_gb``/``p_bg`` given; the Marcum-Q parameters of eq. (2)-(5) from
the fading margin and f_D T (the paper's "analysis"); or the paper's hybrid model (Sec. 5.1,
used for its Figs. 5-15 "because it provides the correct relationship between the
transmitted power and the error parameters"): ``snr_db`` and ``doppler_norm``, the two-state
parameters estimated (error rate, mean error burst) from a bit-level Jakes trace of
``8 packet_size_bytes``-bit packets (:func:`hybrid_trace`, :mod:`lossytcp.channels.bit_level`)
and the SNR as the energy per transmission. At 90% throughput and f_D T 0.016 the hybrid
model gives Tahoe/Reno 11.9 (Marcum-Q 8.0) and NewReno W_max 24/6 3.51 (3.04); the figures
(``lossytcp.figures.paper004``) report every ratio against the paper's words.

Metrics (eq. 13-18): with ``pi`` the stationary law of the embedded chain and per-state
expected cycle rewards, throughput = E[S]/E[D] (successes per slot), load = E[T]/E[D], success
probability = E[S]/E[T], transmissions per success = E[T]/E[S], energy efficiency
``lambda = E[S] / E[(F + w_a) T + w_i (D - T)]`` (eq. 14-15) and ``lambda_0 = E[S]/(F E[T])``.
``F`` is the energy per transmission: the fading margin (linear) when the channel is given by
``fading_margin``/``fading_margin_db`` and ``doppler_norm`` (energy unit: one packet at 0 dB),
else ``energy_per_transmission`` (default 1). ``throughput_pps`` divides the pessimistic
successes per slot by the slot time ``8 packet_size_bytes / rate_bps`` (1.5 Mb/s and 1024 B,
the paper's values, by default).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validate as v
from ..errors import ParameterError
from ._markov import stationary_distribution
from .base import Model, ModelResult, register

VARIANTS = ("tahoe", "reno", "newreno")
#: Largest advertised window accepted (see ``FadingEnergyParams``).
MAX_W_MAX = 100

__all__ = ["FadingEnergyParams", "FadingEnergyResult", "fading_energy",
           "energy_efficiency_at_throughput", "hybrid_trace", "snr_db_for_epsilon", "VARIANTS",
           "MODEL"]


@dataclass(frozen=True)
class FadingEnergyParams:
    """Inputs of the Zorzi-Rao model. Give the channel as ``p_gb`` and ``p_bg``, as the
    fading margin (``fading_margin`` linear or ``fading_margin_db``) with ``doppler_norm``
    (eq. (2)-(5): the Marcum-Q parameters, the paper's "analysis"), or as the average SNR
    ``snr_db`` with ``doppler_norm`` (the paper's hybrid model of Sec. 5.1, used from Fig. 5
    on: the parameters estimated from a bit-level Jakes trace of ``8 packet_size_bytes``-bit
    packets, ``modulation`` "ncfsk" or "dpsk"; see :func:`hybrid_trace`).
    ``tahoe_queue``: ``"paper"`` (Sec. 4.2's Tahoe cycle) or ``"engine"`` (ours: the
    retransmission leaves behind the window already queued; see the module docstring)."""

    variant: str = "tahoe"
    w_max: int = 24
    dupack_threshold: int = 3
    timeout_slots: int = 100
    p_gb: float | None = None
    p_bg: float | None = None
    fading_margin: float | None = None
    fading_margin_db: float | None = None
    doppler_norm: float | None = None
    snr_db: float | None = None
    modulation: str = "ncfsk"
    energy_per_transmission: float | None = None
    active_energy: float = 0.0
    idle_energy: float = 0.0
    rate_bps: float = 1.5e6
    packet_size_bytes: float = 1024.0
    threshold_rounding: str = "ceil"
    tahoe_queue: str = "paper"

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "variant", v.choice("variant", self.variant, VARIANTS))
        s(self, "tahoe_queue", v.choice("tahoe_queue", self.tahoe_queue, ["paper", "engine"]))
        s(self, "threshold_rounding", v.choice("threshold_rounding", self.threshold_rounding,
                                               ["ceil", "floor"]))
        # The window path of every start state is tabulated exactly (about W^2/2 steps per
        # start threshold, W/2 thresholds): the cost grows as W^3. W_max = 100 solves in well
        # under a second (the paper uses 6 and 24); 500 took 10-30 s, 1000 over 40 s.
        s(self, "w_max", v.integer("w_max", self.w_max, 1, MAX_W_MAX))
        s(self, "dupack_threshold", v.integer("dupack_threshold", self.dupack_threshold, 1, 10_000))
        s(self, "timeout_slots", v.integer("timeout_slots", self.timeout_slots, 1, 1_000_000))
        if self.timeout_slots < self.w_max:
            # The analysis assumes the timer outlives the window's transmissions (Sec. 4.2).
            raise ParameterError("timeout_slots", self.timeout_slots,
                                 f"must be >= w_max ({self.w_max}) slots")
        s(self, "modulation", v.choice("modulation", self.modulation, ["ncfsk", "dpsk"]))
        s(self, "packet_size_bytes", v.positive("packet_size_bytes", self.packet_size_bytes))
        margin = self.fading_margin is not None or self.fading_margin_db is not None
        hybrid = self.snr_db is not None
        fading = margin or hybrid or self.doppler_norm is not None
        direct = self.p_gb is not None or self.p_bg is not None
        if fading == direct or (margin and hybrid):
            raise ParameterError("p_gb", self.p_gb, "give the channel as p_gb and p_bg, as "
                                 "fading_margin (or fading_margin_db) and doppler_norm, or as "
                                 "snr_db and doppler_norm (the hybrid model)")
        if hybrid:
            if self.doppler_norm is None:
                raise ParameterError("doppler_norm", None, "is needed with snr_db")
            s(self, "snr_db", v.in_range("snr_db", self.snr_db, -10.0, 80.0))
            s(self, "doppler_norm", v.positive("doppler_norm", self.doppler_norm))
            if self.doppler_norm > 1.0:
                raise ParameterError("doppler_norm", self.doppler_norm, "must be in (0, 1]")
            est = self._hybrid()
            if not 0 < est.epsilon < 1:
                raise ParameterError("snr_db", self.snr_db, "gives a channel that never (or "
                                     "always) fails in the hybrid trace; the cycle analysis "
                                     "needs both transitions possible")
        if direct:
            if self.p_gb is None or self.p_bg is None:
                missing = "p_bg" if self.p_bg is None else "p_gb"
                raise ParameterError(missing, None, "p_gb and p_bg must be given together")
            # A floor of 1e-12 per slot (a channel that keeps its state for ~1e12 slots never
            # changes within a run): below it the chain's rows underflow to 0/0 (p_gb 1e-300,
            # found by the fuzz test).
            for name in ("p_gb", "p_bg"):
                x = v.probability(name, getattr(self, name), open_low=True)
                if x < 1e-12:
                    raise ParameterError(name, getattr(self, name), "must be in [1e-12, 1]")
                s(self, name, x)
            if self.p_gb == 1.0 and self.p_bg == 1.0:
                # Good and Bad alternate slot by slot: a periodic chain, which the cycle
                # analysis (stationary, aperiodic channel) cannot describe; it divided by
                # zero and reported infinities.
                raise ParameterError("p_bg", self.p_bg, "p_gb = p_bg = 1 is a channel that "
                                     "alternates Good and Bad every slot (a periodic chain); "
                                     "the model needs p_gb < 1 or p_bg < 1")
        elif not hybrid:
            from ..channels.rayleigh import rayleigh_two_state
            if self.doppler_norm is None:
                raise ParameterError("doppler_norm", None,
                                     "is needed with fading_margin / fading_margin_db")
            ch = rayleigh_two_state(fading_margin=self.fading_margin,
                                    fading_margin_db=self.fading_margin_db,
                                    doppler_norm=self.doppler_norm)
            if ch.p_gb <= 0 or ch.p_bg <= 0:
                raise ParameterError("fading_margin", self.fading_margin or self.fading_margin_db,
                                     "gives a channel that never (or always) fails; the cycle "
                                     "analysis needs both transitions possible")
        if self.energy_per_transmission is not None:
            s(self, "energy_per_transmission",
              v.positive("energy_per_transmission", self.energy_per_transmission))
        s(self, "active_energy", v.non_negative("active_energy", self.active_energy))
        s(self, "idle_energy", v.non_negative("idle_energy", self.idle_energy))
        s(self, "rate_bps", v.positive("rate_bps", self.rate_bps))

    def _hybrid(self):
        bits = int(round(8 * self.packet_size_bytes))
        return hybrid_trace(self.doppler_norm, packet_bits=bits, modulation=self.modulation
                            ).two_state(self.snr_db)

    def channel(self) -> tuple[float, float, float | None]:
        """(p_gb, p_bg, energy per transmission the channel implies or None): the fading
        margin F (Marcum-Q), the average SNR (hybrid; both linear)."""
        if self.p_gb is not None:
            return float(self.p_gb), float(self.p_bg), None
        if self.snr_db is not None:
            est = self._hybrid()
            return (min(max(est.p_gb, 1e-12), 1.0), min(max(est.p_bg, 1e-12), 1.0),
                    10.0 ** (self.snr_db / 10.0))
        from ..channels.rayleigh import rayleigh_two_state
        ch = rayleigh_two_state(fading_margin=self.fading_margin,
                                fading_margin_db=self.fading_margin_db,
                                doppler_norm=self.doppler_norm)
        return ch.p_gb, ch.p_bg, ch.fading_margin


@dataclass(frozen=True, repr=False)
class FadingEnergyResult(ModelResult):
    variant: str
    epsilon: float
    p_gb: float
    p_bg: float
    throughput_slot: float          # pessimistic successes per slot (headline)
    throughput_slot_opt: float      # optimistic bound
    load: float                     # transmissions per slot
    success_prob: float
    success_prob_opt: float
    transmissions_per_success: float
    transmissions_per_success_opt: float
    energy_per_transmission: float
    energy_efficiency: float        # lambda, eq. (15), pessimistic successes
    energy_efficiency_opt: float
    lambda0: float                  # all consumption in transmissions (w_a = w_i = 0)
    lambda0_opt: float
    timeout_fraction: float         # share of cycles ended by a timeout
    fast_retransmit_fraction: float  # share of cycles with a fast retransmit
    mean_cycle_slots: float
    slot_s: float
    states: tuple = field(default=(), repr=False)          # (C, W_th, W0) per state
    distribution: np.ndarray = field(default=None, repr=False)  # stationary law of the EMC
    transition_matrix: np.ndarray = field(default=None, repr=False)


# ----------------------------------------------------------------------------------------------
# Channel helpers. Index 0 = Good, 1 = Bad.

def _channel_matrix(p_gb: float, p_bg: float) -> np.ndarray:
    return np.array([[1.0 - p_gb, p_gb], [p_bg, 1.0 - p_bg]])


def _phi_table(M: np.ndarray, x_max: int, j_max: int) -> np.ndarray:
    """phi[x, j, g] = P(j successes in slots 1..x and state g in slot x | Bad in slot 0).

    Successes above ``j_max`` are lumped into ``j_max``.
    """
    phi = np.zeros((x_max + 1, j_max + 1, 2))
    phi[0, 0, 1] = 1.0
    for x in range(1, x_max + 1):
        prev = phi[x - 1]
        to_good = prev @ M[:, 0]
        to_bad = prev @ M[:, 1]
        phi[x, :, 1] = to_bad
        phi[x, 1:, 0] = to_good[:-1]
        phi[x, j_max, 0] += to_good[j_max]
    return phi


@functools.lru_cache(maxsize=4096)
def _window_path(w0: float, wth: int, w_max: int, rounding: str):
    """Window at the n-th transmission of a cycle, n = 1, 2, ... until it reaches w_max.

    Returns (n, yf, yh, n_cap): arrays over n < n_cap of the slot index, floor(Y(n)) and the
    halved threshold; Y(n) = w_max for every n >= n_cap. Cached: it depends on neither the
    channel nor the variant.
    """
    w = float(w0)
    ys = []
    while w < w_max:
        ys.append(w)
        w = w + 1.0 if w < wth else w + 1.0 / w
        if w > w_max:
            w = float(w_max)
    y = np.array(ys)
    n = np.arange(1, y.size + 1, dtype=float)
    yf = np.floor(y + 1e-9).astype(int)
    yh = _half(y, rounding).astype(int)
    for a in (n, yf, yh):
        a.setflags(write=False)
    return n, yf, yh, y.size + 1


def _half(y, rounding: str):
    """The threshold after a loss at window y: ceil(y/2) (paper, Sec. 2 rule 3) or
    max(floor(y/2), 2) (RFC 5681 / ns-2, as the engine does)."""
    if isinstance(y, (int, float)):
        # Scalars in the inner loops: plain Python is ten times faster than numpy here.
        if rounding == "ceil":
            return float(math.ceil(y / 2.0 - 1e-9))
        return float(max(math.floor(y / 2.0 + 1e-9), 2))
    y = np.asarray(y, dtype=float)
    if rounding == "ceil":
        return np.ceil(y / 2.0 - 1e-9)
    return np.maximum(np.floor(y / 2.0 + 1e-9), 2.0)


def _phase1(c: int, w0: float, wth: int, p: FadingEnergyParams, M: np.ndarray):
    """Phase-1 law of the window at the loss, grouped by (floor(Y), ceil(Y/2)).

    Returns dict (yf, yh) -> [prob, E[n; group]] (partial expectations).
    """
    p_gb = M[0, 1]
    q = M[0, 0]
    n, yf, yh, n_cap = _window_path(float(w0), int(wth), p.w_max, p.threshold_rounding)
    out: dict[tuple[int, int], list[float]] = {}
    if n.size:
        alpha = np.where(n == 1, M[c, 1], M[c, 0] * q ** np.maximum(n - 2, 0) * p_gb)
        keys, inv = np.unique(yf * 100_000 + yh, return_inverse=True)
        prob = np.bincount(inv, alpha)
        mean = np.bincount(inv, alpha * n)
        for k, pr, mn in zip(keys.tolist(), prob.tolist(), mean.tolist(), strict=True):
            out[(k // 100_000, k % 100_000)] = [pr, mn]
    # Tail n >= n_cap with Y = w_max.
    N = n_cap
    if N == 1:
        prob = 1.0
        mean = M[c, 1] * 1 + M[c, 0] * (2 / (1 - q) + q / (1 - q) ** 2) * p_gb
    else:
        qq = q ** (N - 2)
        prob = M[c, 0] * p_gb * qq / (1 - q)
        mean = M[c, 0] * p_gb * qq * (N / (1 - q) + q / (1 - q) ** 2)
    key = (p.w_max, int(_half(p.w_max, p.threshold_rounding)))
    cur = out.setdefault(key, [0.0, 0.0])
    cur[0] += prob
    cur[1] += mean
    return out


class _Outcome:
    """Accumulates phase-2 outcomes: next state -> probability; rewards as partial sums."""

    __slots__ = ("to", "d", "t", "s_lo", "s_hi", "timeout", "fast_retransmit")

    def __init__(self) -> None:
        self.to: dict[tuple, float] = {}
        self.d = self.t = self.s_lo = self.s_hi = self.timeout = self.fast_retransmit = 0.0

    def add(self, state, prob, d, t, s_lo, s_hi, timeout=False):
        """``d``, ``t``, ``s_*`` are partial expectations (already weighted by ``prob``)."""
        if prob <= 0:
            return
        self.to[state] = self.to.get(state, 0.0) + prob
        self.d += d
        self.t += t
        self.s_lo += s_lo
        self.s_hi += s_hi
        if timeout:
            self.timeout += prob


def _fast_retransmit_sums(p: FadingEnergyParams, M: np.ndarray, phi: np.ndarray) -> dict:
    """Tahoe's per-slot fast-retransmit terms, summed over i = K..m for every m at once.

    The law of (i, l1) (eq. 23) does not depend on the window: the window only bounds i by
    m = floor(Y) - 1. So every phase-2 sum over i is a prefix sum, tabulated here once per
    model point; entry [m] sums i = K..m (zero where m < K).
    """
    K, Wm = p.dupack_threshold, p.w_max
    pGG, pGB, pBG, pBB = M[0, 0], M[0, 1], M[1, 0], M[1, 1]
    out = {}
    if K > Wm - 1:
        return out
    i = np.arange(K, Wm, dtype=float)                       # every possible K-th success slot
    ii = np.arange(K, Wm)
    probs = np.zeros((i.size, K))
    if i.size > 1:
        probs[1:, 0] = pBB * phi[ii[1:] - 1, K, 0]
        for l1 in range(2, K + 1):
            probs[1:, l1 - 1] = pBG * pGG ** (l1 - 2) * pGB * phi[ii[1:] - l1, K - l1 + 1, 0]
    P = probs.sum(axis=1)
    El1 = probs @ np.arange(1, K + 1, dtype=float)
    P[0] = pBG * pGG ** (K - 1)                             # i = K: no other loss
    El1[0] = (K + 1.0) * P[0]
    terms = {"P": P, "iP": i * P, "s_lo_tahoe": np.where(i > K, El1 - P, K * P)}
    for key, term in terms.items():
        acc = np.zeros(Wm + 1)
        acc[K:Wm] = np.cumsum(term)                         # acc[m] = sum over i = K..m
        out[key] = acc
    return out


def _window_law(p: FadingEnergyParams, M: np.ndarray):
    """Reno/NewReno: the law of slots 1..x after the loss in slot 0, for every x < W_max.

    Returns (P, L): ``P[x, c, j, i]`` = P(j successes in slots 1..x, state c in slot x, the
    K-th success in slot i | Bad in slot 0), with i = 0 while j < K; ``L`` the same weighted
    by the slot l1 of the first other loss (0 where there is none).
    """
    K, Wm = p.dupack_threshold, p.w_max
    n = Wm + 1
    P = np.zeros((Wm, 2, n, n))
    L = np.zeros_like(P)
    P[0, 1, 0, 0] = 1.0
    for x in range(1, Wm):
        to_good, to_bad = M[:, 0] @ P[x - 1].reshape(2, -1), M[:, 1] @ P[x - 1].reshape(2, -1)
        l_good, l_bad = M[:, 0] @ L[x - 1].reshape(2, -1), M[:, 1] @ L[x - 1].reshape(2, -1)
        to_good, to_bad = to_good.reshape(n, n), to_bad.reshape(n, n)
        l_good, l_bad = l_good.reshape(n, n), l_bad.reshape(n, n)
        P[x, 0, 1:], L[x, 0, 1:] = to_good[:-1], l_good[:-1]
        if x >= K:                                          # the K-th success is this slot
            for a in (P[x, 0, K], L[x, 0, K]):
                a[x], a[0] = a[0], 0.0
        P[x, 1], L[x, 1] = to_bad, l_bad
        L[x, 1, x - 1] += x * to_bad[x - 1]                 # first other loss: slot x
    return P, L


def _new_data_table(M: np.ndarray, q_max: int) -> np.ndarray:
    """New data a stalled recovery still sends on its inflated window.

    ``f[c, q, e]`` = (expected transmissions, expected successes) from a slot in state c with
    q packets queued and e more the window may release: each slot sends one; a success's
    duplicate ACK inflates the window by one, which releases one more while e > 0.
    """
    f = np.zeros((2, q_max + 1, q_max + 1, 2))
    for q in range(1, q_max + 1):
        for e in range(q_max + 1 - q):
            good = f[0, q, e - 1] if e > 0 else f[0, q - 1, 0]
            bad = f[1, q - 1, e]
            for c in (0, 1):
                f[c, q, e] = (1.0 + M[c, 0] * good[0] + M[c, 1] * bad[0],
                              M[c, 0] * (1.0 + good[1]) + M[c, 1] * bad[1])
    return f


def _phase2(yf: int, yh: int, p: FadingEnergyParams, M: np.ndarray, phi: np.ndarray,
            Mpow, fr: dict, rec=None) -> _Outcome:
    """Phase 2 from a loss in slot 0 with floor(Y) = yf and the next threshold yh.

    Every case of the module docstring. Tahoe's sums over the slot i of the K-th success come
    from ``_fast_retransmit_sums`` (its next state does not depend on i); Reno's and NewReno's
    recovery from ``_recovery`` with the tables ``rec`` (``_window_law``, ``_new_data_table``
    and the channel's powers).
    """
    K, T0, var = p.dupack_threshold, p.timeout_slots, p.variant
    m = yf - 1
    o = _Outcome()
    # Timeout without fast retransmit: fewer than K successes in slots 1..m (eq. 20).
    Pidle = Mpow(T0 - 1 - m)
    js = np.arange(min(K, m + 1))
    for g in (0, 1):
        pj = phi[m, js, g]
        tot, jsum = float(pj.sum()), float((pj * js).sum())
        if tot <= 0:
            continue
        for c_next in (0, 1):
            q = Pidle[g, c_next]
            o.add((c_next, yh, 1), tot * q, (T0 - 1) * tot * q, m * tot * q, 0.0, jsum * q,
                  timeout=True)
    o.fast_retransmit = 1.0 - sum(o.to.values())
    if m < K:
        return o
    S = {key: float(acc[m]) for key, acc in fr.items()}
    if var == "tahoe" and p.tahoe_queue == "paper":          # eq. (22)-(24)
        o.add((0, yh, 1), S["P"], S["iP"], S["iP"], S["s_lo_tahoe"], K * S["P"])
        return o
    if var == "tahoe":
        return _tahoe_queued(yf, yh, p, M, rec, o)
    return _recovery(yf, yh, p, M, rec, o)


def _retransmission_split(m: int, K: int, M: np.ndarray, law, l1_law):
    """P0's retransmission (slot m + 1) after a fast retransmit at slot i = K..m: the law of
    its failure per (j, i) summed by i and by j, and of its success per j with the partial
    expectation of ``l1``. Returns ``(by_i, by_j, i, w_ok, l1_ok)``."""
    Pm, Lm = law[m][:, :m + 1, K:m + 1], l1_law[m][:, :m + 1, K:m + 1]
    w_fail = M[0, 1] * Pm[0] + M[1, 1] * Pm[1]             # (j, i)
    w_ok = (M[0, 0] * Pm[0] + M[1, 0] * Pm[1]).sum(axis=1)  # per j
    l1_ok = (M[0, 0] * Lm[0] + M[1, 0] * Lm[1]).sum(axis=1)
    return w_fail.sum(axis=0), w_fail.sum(axis=1), np.arange(K, m + 1), w_ok, l1_ok


def _tahoe_queued(yf: int, yh: int, p: FadingEnergyParams, M: np.ndarray, rec,
                  o: _Outcome) -> _Outcome:
    """Tahoe behind the queued window (``tahoe_queue="engine"``, ours): the fast retransmit
    at the end of slot i drops the window to one, but ``P(i+1)..Pm`` are already queued, so P0
    goes in slot m + 1. It fails: the timer armed at the fast retransmit expires at
    ``i + 1 + T0``. It succeeds: its ACK (cumulative up to the first other loss ``l1``, or to
    ``m + 1``) grows the window to 2 and the next cycle starts in slot ``m + 2`` from
    ``(G, W_th, 2)``, going back N from the first hole."""
    K, T0 = p.dupack_threshold, p.timeout_slots
    m = yf - 1
    law, l1_law, _f, pows = rec
    by_i, by_j, i, w_ok, l1_ok = _retransmission_split(m, K, M, law, l1_law)
    j = np.arange(m + 1)
    # P0's retransmission fails: timeout at i + 1 + T0, the window (one) halved.
    to = by_i @ pows[i + T0 - m - 1, 1]
    half_one = int(_half(1.0, p.threshold_rounding))
    for c_next in (0, 1):
        o.add((c_next, half_one, 1), float(to[c_next]), 0.0, 0.0, 0.0, 0.0, timeout=True)
    o.d += float(by_i @ (i + T0))
    o.t += (m + 1) * float(by_j.sum())
    o.s_hi += float(by_j @ j)
    # It succeeds: P0..P(l1 - 1) acknowledged (all m + 1 when j = m).
    ok = float(w_ok.sum())
    s_lo = float(l1_ok[:m].sum()) + (m + 1) * float(w_ok[m])
    o.add((0, yh, 2.0), ok, (m + 1) * ok, (m + 1) * ok, s_lo, float(w_ok @ (1 + j)))
    return o


def _exit_window(yf: int, yh: int, rounding: str) -> float:
    """The window a successful fast recovery leaves: the paper's ``W_th``, or ns-2's
    ``cwnd_/2`` (``Y/2``, here ``floor(Y)/2``: the fraction of ``Y`` is not in the state)."""
    return yf / 2.0 if rounding == "floor" else float(yh)


def _recovery(yf: int, yh: int, p: FadingEnergyParams, M: np.ndarray, rec,
              o: _Outcome) -> _Outcome:
    """Reno's and NewReno's fast recovery (module docstring): the K-th success in slot
    i <= m, the retransmission of P0 in slot m + 1 behind the window already queued."""
    K, T0, Wm, var = p.dupack_threshold, p.timeout_slots, p.w_max, p.variant
    pGG, pGB = M[0, 0], M[0, 1]
    m = yf - 1
    law, l1_law, f, pows = rec
    # Fast retransmits only: the K-th success in slot i = K..m.
    by_i, by_j, i, w_ok, l1_ok = _retransmission_split(m, K, M, law, l1_law)
    half_yh = int(_half(yh, p.threshold_rounding))
    # The uninflated window after the cut: ns-2's cwnd_/2 (whole part floor(yf/2)) or the
    # paper's W_th; every success (duplicate or partial ACK) inflates it by one.
    base = yf // 2 if p.threshold_rounding == "floor" else yh
    room = Wm - yf                                          # new data the advertised window allows
    j = np.arange(m + 1)

    def queued(extra, j=j):
        """Packets queued and still releasable when the recovery stalls, per j."""
        q = np.clip(np.minimum(base + j + extra, Wm) - yf, 0, room)
        return q, room - q

    def add_timeout(to, d, t, s_lo, s_hi):
        """A timeout outcome: ``to`` the law of the next cycle's channel (summing to its
        probability); rewards are partial expectations."""
        for c_next in (0, 1):
            o.add((c_next, half_yh, 1), float(to[c_next]), 0.0, 0.0, 0.0, 0.0, timeout=True)
        o.d += d
        o.t += t
        o.s_lo += s_lo
        o.s_hi += s_hi

    # P0's retransmission fails (state of slot m Bad -> p_GB or p_BB): the timer armed at the
    # fast retransmit (time i + 1) expires; meanwhile the duplicate ACKs of the queued
    # packets keep releasing new data.
    q, e = queued(0)
    add_timeout(by_i @ pows[i + T0 - m - 1, 1], d=float(by_i @ (i + T0)),
                t=float(by_j @ (m + 1 + f[1, q, e, 0])), s_lo=0.0,
                s_hi=float(by_j @ (j + f[1, q, e, 1])))
    # P0's retransmission succeeds: full ACK if P1..Pm all arrived.
    full = float(w_ok[m])
    exit_state = (0, yh, _exit_window(yf, yh, p.threshold_rounding))
    o.add(exit_state, full, (m + 1) * full, (m + 1) * full, (m + 1) * full, (m + 1) * full)
    w_ok, l1_ok, jj = w_ok[:m], l1_ok[:m], j[:m]
    ok = float(w_ok.sum())
    if ok <= 0:
        return o
    if var == "reno":
        # The partial ACK ends recovery and re-arms the timer; no duplicate ACK can start
        # another (the ACK is below ``recover``): timeout T0 later. The queued packets go out.
        q = queued(0)[0][:m]
        add_timeout(ok * pows[T0, 0], d=(m + 1 + T0) * ok, t=float(w_ok @ (m + 1 + q)),
                    s_lo=float(l1_ok.sum()), s_hi=float(w_ok @ (1 + jj + f[0, q, 0, 1])))
        return o
    # NewReno: h = m + 1 - j holes; the r-th retransmission fails (r = 2..h) or all succeed.
    h = m + 1 - jj
    ok_all = w_ok * pGG ** (h - 1)
    s_ok = float(ok_all.sum())
    o.add(exit_state, s_ok, float(ok_all @ (m + h)), float(ok_all @ (m + h)), (m + 1) * s_ok,
          (m + 1) * s_ok)
    r = np.arange(2, m + 2)
    cond = np.where(r[None, :] <= h[:, None], pGG ** (r - 2) * pGB, 0.0)   # (j, r)
    fail = cond * w_ok[:, None]
    q, e = queued(r[None, :] - 1, jj[:, None])
    by_r = fail.sum(axis=0)
    # ns-2's NewReno re-arms the timer at the first partial ACK only (RFC 6582's Impatient).
    add_timeout(by_r @ pows[T0 + 1 - r, 1], d=(m + 1 + T0) * float(by_r.sum()),
                t=float((fail * (m + r[None, :] + f[1, q, e, 0])).sum()),
                s_lo=float((cond * (l1_ok[:, None] + (r[None, :] - 2) * w_ok[:, None])).sum()),
                s_hi=float((fail * (jj[:, None] + r[None, :] - 1 + f[1, q, e, 1])).sum()))
    return o


def _compute(params: FadingEnergyParams) -> FadingEnergyResult:
    p_gb, p_bg, F_margin = params.channel()
    M = _channel_matrix(p_gb, p_bg)
    K, Wm = params.dupack_threshold, params.w_max
    # Exact counts up to K are needed (eq. 23); larger counts are lumped one above.
    phi = _phi_table(M, Wm, min(K, Wm) + 1)
    cache_pow: dict[int, np.ndarray] = {}

    def Mpow(k: int) -> np.ndarray:
        if k not in cache_pow:
            cache_pow[k] = np.linalg.matrix_power(M, max(k, 0))
        return cache_pow[k]

    wth_max = max(math.ceil(Wm / 2), 2)
    states: list[tuple] = [(c, w, 1) for c in (0, 1) for w in range(1, wth_max + 1)]
    if params.variant == "tahoe" and params.tahoe_queue == "engine":
        states += [(0, w, 2.0) for w in range(1, wth_max + 1)]
    elif params.variant != "tahoe" and params.threshold_rounding == "ceil":
        states += [(0, w, w) for w in range(2, wth_max + 1)]
    elif params.variant != "tahoe":
        # ns-2 leaves recovery at floor(Y)/2 (K + 1 <= floor(Y) <= W_max).
        known = set(states)
        for yf in range(K + 1, Wm + 1):
            wth = int(_half(yf, "floor"))
            st = (0, wth, _exit_window(yf, wth, "floor"))
            if st not in known:
                known.add(st)
                states.append(st)
    index = {s: k for k, s in enumerate(states)}

    def norm(st):
        c, wth, w0 = st
        return (0, 1, 1) if (w0 == wth == 1 and c == 0) else st

    n = len(states)
    fr = _fast_retransmit_sums(params, M, phi)
    rec = None
    if params.variant != "tahoe" or params.tahoe_queue == "engine":
        # Channel rows over every jump a recovery's timeout needs (at most T0 + W_max slots).
        pows = np.empty((params.timeout_slots + Wm + 2, 2, 2))
        pows[0] = np.eye(2)
        for k in range(1, len(pows)):
            pows[k] = pows[k - 1] @ M
        rec = (*_window_law(params, M), _new_data_table(M, Wm), pows)
    # Each phase-2 outcome, as a row over next states and its rewards, computed once.
    phase2_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def phase2(yf: int, yh: int):
        if (yf, yh) not in phase2_cache:
            o = _phase2(yf, yh, params, M, phi, Mpow, fr, rec)
            row = np.zeros(n)
            for st, q in o.to.items():
                row[index[norm(st)]] += q
            phase2_cache[(yf, yh)] = (row, np.array([o.d, o.t, o.s_lo, o.s_hi, o.timeout,
                                                     o.fast_retransmit]))
        return phase2_cache[(yf, yh)]

    P = np.zeros((n, n))
    rew = np.zeros((n, 6))   # D, T, S_lo, S_hi, timeouts, fast retransmits
    for a, (c, wth, w0) in enumerate(states):
        groups = [(g, v) for g, v in _phase1(c, w0, wth, params, M).items() if v[0] > 0]
        pr1 = np.array([v[0] for _, v in groups])
        en = np.array([v[1] for _, v in groups])
        rows, r2 = zip(*(phase2(*g) for g, _ in groups), strict=True)
        P[a] = pr1 @ np.array(rows)
        rew[a] = pr1 @ np.array(r2)
        rew[a, :4] += [en.sum(), en.sum(), en.sum() - pr1.sum(), en.sum() - pr1.sum()]
    # Rows sum to one up to rounding; renormalise so the solver sees an exact stochastic matrix.
    P /= P.sum(axis=1, keepdims=True)
    pi = stationary_distribution(P)
    ED, ET, ESlo, EShi, ETO, EFR = pi @ rew
    E_energy = params.energy_per_transmission
    if E_energy is None:
        E_energy = F_margin if F_margin is not None else 1.0
    EC = (E_energy + params.active_energy) * ET + params.idle_energy * (ED - ET)
    slot_s = 8.0 * params.packet_size_bytes / params.rate_bps
    thr = ESlo / ED
    eps = p_gb / (p_gb + p_bg)
    return FadingEnergyResult(
        throughput_pps=thr / slot_s, throughput_norm=thr, variant=params.variant,
        epsilon=eps, p_gb=p_gb, p_bg=p_bg,
        throughput_slot=thr, throughput_slot_opt=EShi / ED, load=ET / ED,
        success_prob=ESlo / ET, success_prob_opt=EShi / ET,
        transmissions_per_success=ET / ESlo, transmissions_per_success_opt=ET / EShi,
        energy_per_transmission=E_energy,
        energy_efficiency=ESlo / EC, energy_efficiency_opt=EShi / EC,
        lambda0=ESlo / (E_energy * ET), lambda0_opt=EShi / (E_energy * ET),
        timeout_fraction=float(ETO), fast_retransmit_fraction=float(EFR),
        mean_cycle_slots=float(ED), slot_s=slot_s,
        states=tuple(states), distribution=pi, transition_matrix=P,
    )


def fading_energy(**kwargs) -> FadingEnergyResult:
    """Zorzi-Rao throughput / energy model; see the module docstring."""
    return _compute(FadingEnergyParams(**kwargs))


#: The hybrid model's Jakes trace (paper 004 Sec. 5.1): one realisation per f_D T, seeded,
#: long enough for thousands of error bursts (2000 Doppler periods, 200k to 1M packets).
HYBRID_SEED = 2001


def hybrid_packets(doppler_norm: float) -> int:
    return int(min(1_000_000, max(200_000, round(2000.0 / doppler_norm))))


def hybrid_trace(doppler_norm: float, *, packet_bits: int = 8192, modulation: str = "ncfsk"):
    """The bit-level Jakes trace behind the hybrid model at this f_D T
    (:func:`lossytcp.channels.bit_level_trace`, :data:`HYBRID_SEED`): about 2 to 15 s to
    compute once per machine, then read from its disk cache."""
    from ..channels.bit_level import bit_level_trace

    return bit_level_trace(float(doppler_norm), hybrid_packets(doppler_norm),
                           packet_bits=int(packet_bits), modulation=modulation,
                           seed=HYBRID_SEED)


def snr_db_for_epsilon(epsilon: float, doppler_norm: float, *, packet_bits: int = 8192,
                       modulation: str = "ncfsk") -> float:
    """The average SNR (dB) at which the hybrid model's trace has packet error rate
    ``epsilon`` (the x axis of the paper's figures is the error rate)."""
    return hybrid_trace(doppler_norm, packet_bits=packet_bits, modulation=modulation
                        ).snr_db_for_epsilon(epsilon)


def energy_efficiency_at_throughput(target: float = 0.9, *, doppler_norm: float,
                                    bound: str = "pessimistic", channel: str = "marcum",
                                    **kwargs) -> FadingEnergyResult:
    """The model at the fading margin (``channel="marcum"``) or the average SNR (``"hybrid"``)
    where the throughput (successes/slot) equals ``target``.

    Fig. 13 of the paper reads every curve at 90% throughput. Throughput rises with the fading
    margin, so the margin (in dB) is found by bisection (scipy's brentq) over [-10, 60] dB
    (the SNR over [-5, 80] dB). ``bound`` picks which throughput bound must meet the target.
    """
    import scipy.optimize

    target = v.probability("target", target, open_low=True, open_high=True)
    bound = v.choice("bound", bound, ["pessimistic", "optimistic"])
    channel = v.choice("channel", channel, ["marcum", "hybrid"])
    for k in ("fading_margin", "fading_margin_db", "p_gb", "p_bg", "snr_db"):
        if k in kwargs:
            raise ParameterError(k, kwargs[k], "is chosen by the search; do not pass it")
    key = "fading_margin_db" if channel == "marcum" else "snr_db"
    FadingEnergyParams(doppler_norm=doppler_norm, **{key: 30.0}, **kwargs)  # validate

    def thr(db: float) -> float:
        r = fading_energy(doppler_norm=doppler_norm, **{key: db}, **kwargs)
        return (r.throughput_slot if bound == "pessimistic" else r.throughput_slot_opt) - target

    if channel == "marcum":
        lo, hi = -10.0, 60.0
    else:
        tr = hybrid_trace(doppler_norm, packet_bits=int(round(8 * kwargs.get(
            "packet_size_bytes", 1024.0))), modulation=kwargs.get("modulation", "ncfsk"))
        # inside the SNRs where the trace has both losses and successes
        lo = tr.snr_db_for_epsilon(0.9)
        hi = tr.snr_db_for_epsilon(40.0 / tr.n_packets)
    if thr(hi) < 0:
        raise ParameterError("target", target, f"is not reached below {hi:.3g} dB")
    if thr(lo) > 0:
        lo_db = lo
    else:
        lo_db = scipy.optimize.brentq(thr, lo, hi, xtol=1e-6 if channel == "marcum" else 1e-4)
    return fading_energy(doppler_norm=doppler_norm, **{key: lo_db}, **kwargs)


MODEL = register(Model(
    name="fading-energy", params_type=FadingEnergyParams, compute=_compute,
    summary="Zorzi-Rao Markov renewal-reward model of Tahoe/Reno/NewReno over a two-state "
            "fading channel: throughput bounds, transmissions per success, energy efficiency",
    citation="M. Zorzi, R. R. Rao. Energy efficiency of TCP in a local wireless environment. "
             "Mobile Networks and Applications 6(3), 2001.",
    aliases=("fading_energy", "zorzi-rao"),
))

LOSS_PARAMETER = "p_gb"


def _property_space():
    from hypothesis import strategies as st
    return {
        "variant": st.sampled_from(VARIANTS),
        "w_max": st.integers(1, 32),
        "dupack_threshold": st.integers(1, 4),
        "timeout_slots": st.integers(32, 200),
        "p_gb": st.floats(1e-4, 0.5),
        "p_bg": st.floats(0.01, 1.0),
    }


def __getattr__(name: str):
    # Built lazily so importing the model never needs hypothesis.
    if name == "PROPERTY_SPACE":
        return _property_space()
    raise AttributeError(name)
