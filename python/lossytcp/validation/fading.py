"""fading-energy (Zorzi & Rao, paper 004) against the engine's slot model, and its claims.

* :func:`bounds_vs_engine`: the model's pessimistic/optimistic throughput bounds against the
  engine's slot model (one packet per slot, the ACK at the end of its slot, fixed RTO of T0
  slots, no back-off) over the same two-state channel, advancing every slot. The model's
  Tahoe is ``tahoe_queue="engine"`` (the retransmission behind the queued window; the paper's
  Tahoe cycle in the ``*_paper`` columns), its Reno and NewReno follow ns-2's recovery
  (NewReno's partial-ACK window and timer), so the engine is run with the ns2 profile, whose
  ssthresh is half the window (max(floor(W/2), 2), ns-2's slowdown()), without ns-2's limited
  transmit, delayed growth and growth on the ACK ending recovery, and compared with the
  model's ``threshold_rounding="floor"``, the same rule. The paper's ceil (Sec. 2, rule 3:
  W_th = ceil(W/2)) is the model's default and serves the claims.
* :func:`figs_1_4`: Tahoe, W_max 24: "analysis" (Marcum-Q parameters), "simulation" (the
  engine over a Jakes trace replayed one outcome per slot, idle slots included, as the paper's
  simulation runs in time) and "analysis/sim." (the model with parameters estimated from the
  trace).
* :func:`energy_claims`: the energy-efficiency ratios of Section 5 at 90% throughput, next to
  the values the paper's text gives, with the channel from the analytic Marcum-Q parameters
  and from Jakes traces (the paper's "hybrid" approach, used for Figs. 5-15), the latter
  with one fading sample per packet (eq. (2)'s threshold model) and with the fade followed
  within the packet (the paper's bit-level simulation of uncoded 1024-byte packets).
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["SLOT_S", "T0_SLOTS", "ENGINE_TCP", "engine_slot", "bounds_vs_engine", "figs_1_4",
           "hybrid_channel", "energy_claims", "PAPER_CLAIMS", "tables"]

SLOT_S = 8 * 1024 / 1.5e6          # 1024-byte packets at 1.5 Mb/s (paper 004)
T0_SLOTS = 100

#: The engine configured to the paper's protocol rules (see the module docstring).
ENGINE_TCP = dict(profile="ns2", limited_transmit=False, delay_growth=False,
                  recovery_exit_growth=False)

BOUND_POINTS = [(fdt, w, f_db) for w in (6, 24) for fdt in (0.001, 0.016, 0.256)
                for f_db in (10.0, 15.0)]


def engine_slot(variant: str, channel: str, w_max: int, seeds=(1, 2), slots: int = 300_000,
                K: int = 3, t0: int = T0_SLOTS, **tcp) -> tuple[float, float, float, float]:
    """The engine's slot model: (delivered packets per slot, transmissions per delivered
    packet, timeouts per slot, fast retransmits per slot), averaged over ``seeds``."""
    import lossytcp

    s = lossytcp.simulate_seeds(list(seeds), variant, rate_bps=1.5e6, packet_size_bytes=1024,
                                window=w_max, channel=channel, duration_s=slots * SLOT_S,
                                slot_model=True, fixed_rto_s=t0 * SLOT_S, dupack_threshold=K,
                                initial_window=1, **tcp)
    return (s.mean("goodput_norm"), s.mean("transmissions_per_delivered"),
            s.mean("timeouts") / slots, s.mean("fast_retransmits") / slots)


def _excursion(x, lo, hi):
    """Relative distance of x outside [lo, hi] (0 inside)."""
    return max(lo - x, x - hi, 0.0) / lo


def bounds_vs_engine(points=BOUND_POINTS, variants=("tahoe", "reno", "newreno"), seeds=(1, 2),
                     slots: int = 300_000, before: bool = False):
    """One row per (variant, point): the model's bounds (``threshold_rounding="floor"``, Tahoe
    with ``tahoe_queue="engine"``; the paper's Tahoe cycle in ``*_paper``) and the engine
    (:data:`ENGINE_TCP`), the throughput's and the transmissions-per-success's excursion
    outside the bounds. ``before=True`` adds the comparison as it was before the
    ns2 profile: the model's ceil against the rfc-profile engine."""
    import pandas as pd

    from lossytcp.channels import rayleigh_two_state
    from lossytcp.models.fading_energy import fading_energy

    rows = []
    for variant in variants:
        for fdt, w_max, f_db in points:
            ch = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
            m = fading_energy(variant=variant, w_max=w_max, p_gb=ch.p_gb, p_bg=ch.p_bg,
                              timeout_slots=T0_SLOTS, threshold_rounding="floor",
                              tahoe_queue="engine")
            thr, tps, tos, frs = engine_slot(variant, ch.channel_spec("slot"), w_max, seeds,
                                             slots, **ENGINE_TCP)
            row = dict(variant=variant, fdT=fdt, w_max=w_max, F_dB=f_db, eps=ch.epsilon,
                       thr_lo=m.throughput_slot, thr_hi=m.throughput_slot_opt, thr_engine=thr,
                       thr_out=_excursion(thr, m.throughput_slot, m.throughput_slot_opt),
                       tps_lo=m.transmissions_per_success_opt,
                       tps_hi=m.transmissions_per_success, tps_engine=tps,
                       tps_out=_excursion(tps, m.transmissions_per_success_opt,
                                          m.transmissions_per_success),
                       load_model=m.load, load_engine=thr * tps,
                       # Per 1000 slots: the engine's timeout_fraction also counts a fast
                       # retransmit that ends in a timeout as a loss event, the model's does not.
                       timeouts_per_kslot_model=1e3 * m.timeout_fraction / m.mean_cycle_slots,
                       timeouts_per_kslot_engine=1e3 * tos,
                       fast_retransmits_per_kslot_model=1e3 * m.fast_retransmit_fraction
                       / m.mean_cycle_slots, fast_retransmits_per_kslot_engine=1e3 * frs)
            if variant == "tahoe":
                # The paper's Tahoe cycle (ends at the fast retransmit), for comparison.
                mp = fading_energy(variant=variant, w_max=w_max, p_gb=ch.p_gb, p_bg=ch.p_bg,
                                   timeout_slots=T0_SLOTS, threshold_rounding="floor")
                row.update(thr_lo_paper=mp.throughput_slot, thr_hi_paper=mp.throughput_slot_opt,
                           thr_out_paper=_excursion(thr, mp.throughput_slot,
                                                    mp.throughput_slot_opt))
            if before:
                mc = fading_energy(variant=variant, w_max=w_max, p_gb=ch.p_gb, p_bg=ch.p_bg,
                                   timeout_slots=T0_SLOTS)
                thr_rfc, *_ = engine_slot(variant, ch.channel_spec("slot"), w_max, seeds,
                                            slots)
                row.update(thr_lo_ceil=mc.throughput_slot, thr_hi_ceil=mc.throughput_slot_opt,
                           thr_engine_rfc=thr_rfc,
                           thr_out_before=_excursion(thr_rfc, mc.throughput_slot,
                                                     mc.throughput_slot_opt))
            rows.append(row)
    return pd.DataFrame(rows)


def figs_1_4(n_packets: int = 200_000, slots: int = 195_000, fdts=(0.001, 0.008, 0.032, 0.128),
             f_dbs=(5.0, 10.0, 15.0, 20.0), seed: int = 7):
    """Figs. 1-4 (Tahoe, W_max 24): analysis, the engine over a Jakes trace replayed per slot,
    and analysis with the trace's parameters. One row per (f_D T, fading margin)."""
    import pandas as pd

    from lossytcp.channels import (
        estimate_two_state,
        jakes_error_trace,
        rayleigh_two_state,
        write_trace,
    )
    from lossytcp.models.fading_energy import fading_energy

    rows = []
    with tempfile.TemporaryDirectory() as d:
        for fdt in fdts:
            for f_db in f_dbs:
                trace = jakes_error_trace(n_packets, fading_margin_db=f_db, doppler_norm=fdt,
                                          block_packets=max(n_packets // 10, 1), seed=seed)
                est = estimate_two_state(trace)
                ana = rayleigh_two_state(fading_margin_db=f_db, doppler_norm=fdt)
                spec = write_trace(Path(d) / f"jakes_{fdt}_{f_db}.txt", trace)
                sim, *_ = engine_slot("tahoe", spec + ",advance=slot", 24, (1,), slots)
                m_ana = fading_energy(variant="tahoe", w_max=24, p_gb=ana.p_gb, p_bg=ana.p_bg)
                m_est = fading_energy(variant="tahoe", w_max=24, p_gb=est.p_gb, p_bg=est.p_bg)
                rows.append(dict(fdT=fdt, F_dB=f_db, eps_analysis=ana.epsilon,
                                 eps_trace=est.epsilon, burst_analysis=ana.mean_burst,
                                 burst_trace=est.mean_burst, analysis=m_ana.throughput_slot,
                                 simulation=sim, analysis_sim=m_est.throughput_slot,
                                 analysis_sim_opt=m_est.throughput_slot_opt))
    df = pd.DataFrame(rows)
    df["sim_vs_analysis_sim"] = df.simulation / df.analysis_sim - 1
    df["sim_vs_analysis"] = df.simulation / df.analysis - 1
    return df


@functools.lru_cache(maxsize=16)
def _min_power(doppler_norm: float, samples_per_packet: int, n_packets: int, seed: int):
    """Per packet, the smallest fading power |h|^2 over its samples (Jakes, E|h|^2 = 1)."""
    from lossytcp.channels import jakes_gain

    s = samples_per_packet
    h = jakes_gain(n_packets * s, doppler_norm / s, block_samples=(n_packets // 4) * s,
                   seed=seed)
    return (h.real ** 2 + h.imag ** 2).reshape(n_packets, s).min(axis=1)


def hybrid_channel(doppler_norm: float, fading_margin_db: float, *, samples_per_packet: int = 1,
                   n_packets: int = 400_000, seed: int = 2001) -> tuple[float, float, float]:
    """(p_gb, p_bg, epsilon) estimated from a Jakes trace at this fading margin: the paper's
    hybrid approach (Sec. 3.1). A packet is lost when the fading power falls below 1/F at any
    of its ``samples_per_packet`` instants (1: eq. (2)'s threshold model; more: the fade
    followed within the packet). The same fading realisation serves every margin."""
    x = _min_power(float(doppler_norm), int(samples_per_packet), int(n_packets), int(seed)) \
        < 10 ** (-fading_margin_db / 10)
    eps = float(x.mean())
    d = np.diff(np.concatenate(([0], x.astype(np.int8), [0])))
    bursts = int((d == 1).sum())
    if bursts == 0 or eps >= 1.0:
        return (1e-9, 1.0, eps) if bursts == 0 else (1.0, 1e-9, eps)
    p_bg = bursts / float(x.sum())
    return min(1.0, eps * p_bg / (1.0 - eps)), p_bg, eps


HYBRID_SAMPLES = 6_400_000


def _lambda0(target: float, fdt: float, source, **kw) -> float:
    """lambda_0 at the fading margin where the pessimistic throughput equals ``target``."""
    import scipy.optimize

    from lossytcp.models.fading_energy import energy_efficiency_at_throughput, fading_energy

    if source == "analytic":
        return energy_efficiency_at_throughput(target, doppler_norm=fdt, **kw).lambda0
    s = int(source)
    # At most 6.4 million fading samples per trace (100 MB): 400k packets up to 16 samples per
    # packet, fewer packets beyond (100k at 64 samples still holds thousands of loss bursts).
    n = min(400_000, HYBRID_SAMPLES // s)

    def thr(db):
        p_gb, p_bg, _ = hybrid_channel(fdt, db, samples_per_packet=s, n_packets=n)
        return fading_energy(p_gb=p_gb, p_bg=p_bg, **kw).throughput_slot - target

    db = scipy.optimize.brentq(thr, -5.0, 50.0, xtol=1e-3)
    p_gb, p_bg, _ = hybrid_channel(fdt, db, samples_per_packet=s, n_packets=n)
    return fading_energy(p_gb=p_gb, p_bg=p_bg, energy_per_transmission=10 ** (db / 10),
                         **kw).lambda0


#: The ratios the paper's text states (Section 5.2 and its closing list), at 90% throughput.
PAPER_CLAIMS = {
    "newreno_wmax24_over_wmax6": ("Fig. 12, f_D T 0.016: W_max 24 instead of 6 in NewReno "
                                  "triples the battery life", 3.0),
    "tahoe_over_reno": ("Fig. 11, f_D T 0.016, W_max 24: Reno instead of Tahoe loses a factor "
                        "of about ten", 10.0),
    "k1_over_k3_wmax6": ("Fig. 15, f_D T 0.256, Tahoe: K = 1 instead of 3 gives three- to "
                         "fourfold", 3.5),
    "k1_over_k3_wmax24": ("Fig. 15, as above, W_max 24", 3.5),
    "k2_over_k3_wmax6": ("Fig. 15: K = 3 to K = 2 doubles", 2.0),
    "t0_50_over_150_tahoe": ("Fig. 14, f_D T 0.016, W_max 24: T0 = 50 vs 150, 'a factor of 3 "
                             "or even more'", 3.0),
    "t0_50_over_150_reno": ("Fig. 14, as above, Reno (more sensitive to T0)", 3.0),
    "fdt_0.001_over_0.256_tahoe": ("Fig. 13, W_max 24: degradation across f_D T 'in excess of "
                                   "an order of magnitude'", 10.0),
}


def energy_claims(sources=("analytic", 1, 8, 16, 32, 64), floor_sources=("analytic",)):
    """Each claim of :data:`PAPER_CLAIMS`: the paper's value and the model's ratio for each
    channel source ("analytic" = Marcum-Q parameters; an integer s = hybrid parameters from a
    Jakes trace with s fading samples per packet), with the paper's ceil rounding and, for
    ``floor_sources``, with ``threshold_rounding="floor"``. One row per claim."""
    import pandas as pd

    def ratios(src, rounding):
        def lam(fdt, src, **kw):
            return _lambda0(0.9, fdt, src, threshold_rounding=rounding, **kw)

        r = {}
        r["newreno_wmax24_over_wmax6"] = (lam(0.016, src, variant="newreno", w_max=24)
                                          / lam(0.016, src, variant="newreno", w_max=6))
        r["tahoe_over_reno"] = (lam(0.016, src, variant="tahoe", w_max=24)
                                / lam(0.016, src, variant="reno", w_max=24))
        for w in (6, 24):
            k3 = lam(0.256, src, variant="tahoe", w_max=w, dupack_threshold=3)
            r[f"k1_over_k3_wmax{w}"] = lam(0.256, src, variant="tahoe", w_max=w,
                                           dupack_threshold=1) / k3
            if w == 6:
                r["k2_over_k3_wmax6"] = lam(0.256, src, variant="tahoe", w_max=w,
                                            dupack_threshold=2) / k3
        for v in ("tahoe", "reno"):
            r[f"t0_50_over_150_{v}"] = (lam(0.016, src, variant=v, w_max=24, timeout_slots=50)
                                        / lam(0.016, src, variant=v, w_max=24,
                                              timeout_slots=150))
        r["fdt_0.001_over_0.256_tahoe"] = (lam(0.001, src, variant="tahoe", w_max=24)
                                           / lam(0.256, src, variant="tahoe", w_max=24))
        return r

    def name(src):
        return "analytic" if src == "analytic" else f"hybrid_{src}_samples"

    cols = {name(src): ratios(src, "ceil") for src in sources}
    cols.update({name(src) + "_floor": ratios(src, "floor") for src in floor_sources})
    rows = []
    for key, (text, paper) in PAPER_CLAIMS.items():
        row = dict(claim=key, paper=paper, paper_text=text)
        for name, r in cols.items():
            row[name] = r[key]
        rows.append(row)
    return pd.DataFrame(rows)


def tables(*, quick: bool = False) -> dict:
    """Every table of this module as DataFrames (``quick``: shorter runs, fewer sources)."""
    slots = 100_000 if quick else 300_000
    return {
        "fading_bounds": bounds_vs_engine(slots=slots, seeds=(1,) if quick else (1, 2),
                                          before=not quick),
        "fading_figs_1_4": figs_1_4(n_packets=100_000 if quick else 200_000,
                                    slots=95_000 if quick else 195_000),
        "fading_claims": (energy_claims(sources=("analytic",), floor_sources=()) if quick
                          else energy_claims()),
    }

