"""abrupt-rtt (Abouzeid & Roy, paper 001) against the engine's semi-Markov delay.

The random designs of Section 6.1: per experiment the link rate mu, three RTT states T_i, the
window w_m, a random H and excess means V_i; 5 runs of 1000 max(E[V_i] + T_i) per variant
(OldTahoe, Reno). The engine's RTT is the state's delay plus the packet's transmission time
(ACKs take no time), so the model gets ``rtt_s = T + 1/mu``; no granularity, no minimum RTO,
no RTO ceiling below the backoff's 64 Y (``max_rto_s`` 1e5 s), fine-grained per-ACK samples.

Two engine timers:

* ``rto_estimator="last_sample"``: the paper's own rule (eq. (2), Y_i = max(T_i, G,
  RTO_min), timestamps: every new ACK a sample), to test the model's mathematics;
* ``"rfc6298"``: the engine's TCP, against the paper's model and against our extension
  ``rto="rfc6298"`` (the RTO carries SRTT/RTTVAR from the previous state, see
  :mod:`lossytcp.models.abrupt_rtt`).

Fig. 9 is also run in ns-2 2.35 (:func:`fig9_ns2`), the paper's simulator, with the engine
configured as ns-2 beside it.

Where design 2 and the model part (see the model's docstring): :func:`karn_jumps` (isolated
jumps that more than double the RTT expire twice in the RFC engine, Karn's rule keeping the
backed-off timer), :func:`isolated_jump` with :data:`SPLIT_JUMP` and :func:`ack_gaps` (the
engine's bursts split by earlier jumps, so the idle gap a timeout needs is rarely whole), and
:func:`by_window` (the errors by window size), :func:`window_at_timeouts` (the window between
expiries and the segments received twice, engine against model), :func:`split_rounds` (split
bursts round by round, engine against ``bursts="split"``), :func:`jump_outcomes` (timeouts at
the engine's own RTT jumps, from its delay-state trace, against the model's rule for each),
:func:`rto_at_jumps` (the engine's RTO at those jumps against the model's mixture),
:func:`recovery_splits` (bursts across Reno's fast recoveries), :func:`split_grid` (the
split-off idle time's grid against the error) and :func:`confirm_beyond` (the experiments
beyond 20% with more engine runs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["design_61", "run_design", "long_holding", "isolated_jump", "karn_jumps",
           "ack_gaps", "split_rounds", "split_grid", "jump_outcomes", "rto_at_jumps",
           "recovery_splits", "confirm_beyond", "window_at_timeouts", "by_window",
           "holding_sweep", "summarize", "fig9", "fig9_ns2", "gain_shares", "section_63",
           "tables"]

VARIANTS = ("oldtahoe", "reno")


def design_61(n: int, seed: int, second: bool = False):
    """Section 6.1. First set: mu ~ U[1, 10] Mb/s (1 KB packets), T_i ~ U[0.05, 0.1] s,
    w_m ~ U[2, mu min T_i]. Second set: mu ~ U[1, 100] Mb/s, w_m ~ U[4, 100],
    T_i ~ U[w_m/mu, 10 w_m/mu]. Both: M = 3, H with positive entries (a single recurrent
    aperiodic class), E[V_i] ~ U[0, 9 T_i]. Yields (mu pkt/s, T, w_m, H, V)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if not second:
            mu = rng.uniform(125.0, 1250.0)
            T = rng.uniform(0.05, 0.1, 3)
            wm = int(rng.integers(2, int(mu * T.min()) + 1))
        else:
            mu = rng.uniform(125.0, 12500.0)
            wm = int(rng.integers(4, 101))
            T = rng.uniform(wm / mu, 10 * wm / mu, 3)
        H = rng.dirichlet(np.ones(3), 3)
        V = rng.uniform(0.0, 9.0 * T)
        yield mu, T, wm, H, V


def _experiments(n: int, second: bool) -> list:
    """The first ``n`` experiments of design 1 or 2 (their seeds 2003, 2004)."""
    return list(design_61(n, 2004 if second else 2003, second))


def _duration(exp, factor: float) -> float:
    """A run of ``factor`` times an experiment's longest mean visit, max(E[V_i] + T_i)."""
    return factor * float(np.max(exp[4] + exp[1]))


def _engine_kwargs(exp, duration_s: float, estimator: str = "rfc6298") -> dict:
    """The engine's configuration of one experiment ``(mu, T, w_m, H, V)`` of a design: 1 KB
    packets, ACKs of no size, no granularity, no minimum RTO, no RTO ceiling below the
    backoff's."""
    mu, T, wm, H, V = exp
    return dict(rate_bps=mu * 8000.0, packet_size_bytes=1000, window=wm,
                delay=dict(rtt_s=np.asarray(T).tolist(), H=np.asarray(H).tolist(),
                           excess_mean_s=np.asarray(V).tolist()),
                duration_s=duration_s, min_rto_s=0.0, granularity_s=0.0, max_rto_s=1e5,
                ack_size_bytes=0, rto_estimator=estimator)


def _engine(variant: str, exp, duration_s: float, runs: int, estimator: str):
    """``runs`` runs (seeds 0, 1, ...) of one experiment of a design in the engine."""
    import lossytcp

    return lossytcp.simulate_seeds(list(range(runs)), variant,
                                   **_engine_kwargs(exp, duration_s, estimator))


def _model_kwargs(exp, variant: str = "oldtahoe", **form) -> dict:
    """The model's parameters of one experiment (its RTTs plus a packet's transmission)."""
    mu, T, wm, H, V = exp
    return dict(rate_pps=mu, rtt_s=tuple(T + 1.0 / mu), H=H, excess_mean_s=tuple(V),
                max_window=wm, variant=variant, **form)


#: The model's forms compared with the engine: the paper's, the RFC 6298 extension, and the
#: extension with split bursts.
MODEL_FORMS = {"paper": dict(rto="paper"), "rfc6298": dict(rto="rfc6298"),
               "split": dict(rto="rfc6298", bursts="split")}


def run_design(n: int = 100, runs: int = 5, factor: float = 1000.0, second: bool = False,
               seed: int | None = None, estimators=("rfc6298",),
               models=("paper", "rfc6298", "split")):
    """One row per experiment: parameters, and per variant, engine timer and model form
    (:data:`MODEL_FORMS`) the engine's throughput, the model's, their relative error and the
    timeouts per second.
    Columns ``{variant}_{estimator}_sim``, ``{variant}_{estimator}_{model}_err``, ..."""
    import pandas as pd

    from lossytcp.models.abrupt_rtt import abrupt_rtt

    if seed is None:
        seed = 2004 if second else 2003
    rows = []
    for k, (mu, T, wm, H, V) in enumerate(design_61(n, seed, second)):
        dur = _duration((mu, T, wm, H, V), factor)
        row = dict(exp=k, mu_pps=mu, w_m=wm, bd_min=mu * T.min(), duration_s=dur,
                   min_v_over_t=float(np.min(V / T)), t_spread=float(T.max() / T.min()))
        for variant in VARIANTS:
            m = {rule: abrupt_rtt(**_model_kwargs((mu, T, wm, H, V), variant,
                                                  **MODEL_FORMS[rule]))
                 for rule in models}
            for rule, r in m.items():
                row[f"{variant}_model_{rule}"] = r.throughput_pps
                row[f"{variant}_model_{rule}_to_per_s"] = (r.spurious_timeouts_per_s
                                                           * r.mean_timeouts_per_event)
            row[f"{variant}_ideal"] = m[models[0]].ideal_pps
            if variant == "reno":
                # Eq. (3) as typeset (a DA whenever d packets overtake the *last* packet of
                # the first burst), for Fig. 9.
                row["reno_model_typeset"] = abrupt_rtt(**_model_kwargs(
                    (mu, T, wm, H, V), "reno", dupack_rule="typeset")).throughput_pps
            for est in estimators:
                s = _engine(variant, (mu, T, wm, H, V), dur, runs, est)
                sim = s.mean("throughput_pps")
                row[f"{variant}_{est}_sim"] = sim
                row[f"{variant}_{est}_sim_ci95"] = s.ci95("throughput_pps")
                row[f"{variant}_{est}_to_per_s"] = s.mean("timeouts") / dur
                row[f"{variant}_{est}_fr_per_s"] = s.mean("fast_retransmits") / dur
                # The paper's timer is compared with the paper's model only.
                for rule in (("paper",) if est == "last_sample" else models):
                    row[f"{variant}_{est}_{rule}_err"] = m[rule].throughput_pps / sim - 1
        rows.append(row)
    return pd.DataFrame(rows)


def long_holding(exps, *, second: bool = True, scale: float = 10.0, runs: int = 5,
                 factor: float = 1000.0, max_duration_s: float = 3e4, variants=VARIANTS,
                 estimator: str = "last_sample", rule: str = "paper"):
    """Experiments of a design rerun with every excess holding mean scaled by ``scale``: the
    RTT changes become isolated (many rounds apart, the depth of a change in its round
    uniform), the paper's assumptions for eq. (14) and Appendices A-C. One row per
    (experiment, variant): model (the paper's RTO) vs engine (``estimator``) and the
    timeouts per second of each; the model with RTO rule ``rule``."""
    import pandas as pd

    from lossytcp.models.abrupt_rtt import abrupt_rtt

    designs = _experiments(max(exps) + 1, second)
    rows = []
    for k in exps:
        mu, T, wm, H, V = designs[k]
        V = V * scale
        dur = min(_duration((mu, T, wm, H, V), factor), max_duration_s)
        for variant in variants:
            s = _engine(variant, (mu, T, wm, H, V), dur, runs, estimator)
            m = abrupt_rtt(**_model_kwargs((mu, T, wm, H, V), variant, rto=rule))
            sim = s.mean("throughput_pps")
            rows.append(dict(exp=k, variant=variant, scale=scale, model=m.throughput_pps,
                             sim=sim, rel_error=m.throughput_pps / sim - 1,
                             model_to_per_s=m.spurious_timeouts_per_s
                             * m.mean_timeouts_per_event,
                             sim_to_per_s=s.mean("timeouts") / dur, duration_s=dur))
    return pd.DataFrame(rows)


#: Design 2's experiments where the extension is furthest above the RFC engine.
ABOVE_ENGINE = (47, 53, 35, 7)
#: Design 2's experiments that were 20-22% above the RFC engine before the restart rule and
#: the Karn lag of the extension (visits of a few RTTs, frequent timeouts).
RESTART_EXPERIMENTS = (15, 97, 59)


def holding_sweep(exps=ABOVE_ENGINE, scales=(0.5, 1.0, 3.0, 10.0), runs: int = 2,
                  factor: float = 1000.0, max_duration_s: float = 3e3):
    """Experiments of design 2 with every excess holding mean scaled by each of ``scales``:
    the extension (``rto="rfc6298"``) against the RFC 6298 engine, OldTahoe."""
    import pandas as pd

    return pd.concat([long_holding(exps, scale=x, runs=runs, factor=factor,
                                   max_duration_s=max_duration_s, variants=("oldtahoe",),
                                   estimator="rfc6298", rule="rfc6298") for x in scales],
                     ignore_index=True)


def _alternating(rate_pps: float, rtt_s: tuple, window: int, excess_s: float) -> dict:
    """Two RTT states that alternate (each change the other way), each held ``excess_s`` on
    average beyond its RTT: isolated jumps."""
    return dict(rate_pps=rate_pps, rtt_s=rtt_s, window=window, H=((0.0, 1.0), (1.0, 0.0)),
                excess_mean_s=(excess_s, excess_s))


ISOLATED_JUMP = _alternating(1000.0, (0.05, 0.08), 10, 2.0)

#: Isolated jumps (two states, changes ~1-2 s apart) under which the RFC 6298 engine expires
#: twice per upward jump (the new RTT more than twice the old: Karn's rule keeps the backed-off
#: timer through the go-back-N fast phase) or not (less than twice).
KARN_JUMPS = {
    "12->35ms": _alternating(9277.0, (0.012, 0.035), 46, 1.0),
    "12->22ms": _alternating(9277.0, (0.012, 0.022), 46, 1.0),
    "48->110ms": _alternating(8342.0, (0.048, 0.110), 98, 2.0),
    # Design 2's experiments 59, 97 and 44 (states, rate and window) as isolated jumps: the
    # new RTT within a few ms of 2Y + w/(2 mu), where the Karn expiry depends on when the
    # new data leaves the bottleneck (see ``_event_paths``).
    "121->259ms": _alternating(1032.0, (0.1213, 0.2588), 43, 3.0),
    "76->159ms": _alternating(2673.0, (0.0763, 0.1586), 61, 3.0),
    "80->356ms": _alternating(1821.0, (0.0797, 0.3561), 71, 3.0),
}


def isolated_jump(duration_s: float = 2000.0, seeds=(1, 2), variant: str = "oldtahoe",
                  config: dict | None = None, estimators=("last_sample", "rfc6298"),
                  rules=("paper",)):
    """Two RTT states far apart in time (``config``, default :data:`ISOLATED_JUMP`: 30 ms
    apart, changes every ~2 s, window 10 at 1000 packets/s: each upward jump times out when
    it falls in the idle part of a round (eq. (5)), never in the busy part (eq. (11)), once by
    the backoff). One row per (engine timer, model RTO rule in ``rules``): the engine's
    timeouts (expiries) against the model's, also per upward jump, and both throughputs."""
    import pandas as pd

    import lossytcp
    from lossytcp.models.abrupt_rtt import abrupt_rtt

    c = config or ISOLATED_JUMP
    mu = c["rate_pps"]
    # States alternate: one upward jump per cycle of the two mean holding times.
    jumps = duration_s / sum(t + x for t, x in zip(c["rtt_s"], c["excess_mean_s"],
                                                    strict=True))
    # One solve per RTO rule, compared with every engine timer.
    models = {rule: abrupt_rtt(rate_pps=mu, rtt_s=tuple(t + 1 / mu for t in c["rtt_s"]),
                               H=c["H"], excess_mean_s=c["excess_mean_s"],
                               max_window=c["window"], variant=variant, rto=rule)
              for rule in rules}
    rows = []
    for est in estimators:
        s = lossytcp.simulate_seeds(
            list(seeds), variant, rate_bps=mu * 8000, packet_size_bytes=1000,
            window=c["window"], duration_s=duration_s, min_rto_s=0.0, granularity_s=0.0,
            max_rto_s=1e5, ack_size_bytes=0, rto_estimator=est,
            delay=dict(rtt_s=list(c["rtt_s"]), H=[list(r) for r in c["H"]],
                       excess_mean_s=list(c["excess_mean_s"])))
        for rule, m in models.items():
            model_to = m.spurious_timeouts_per_s * m.mean_timeouts_per_event * duration_s
            rows.append(dict(engine_rto=est, model_rto=rule, model_timeouts=model_to,
                             model_timeouts_per_event=m.mean_timeouts_per_event,
                             engine_timeouts=s.mean("timeouts"),
                             engine_spurious_timeouts=s.mean("spurious_timeouts"),
                             expiries_per_model_timeout=s.mean("timeouts") / model_to,
                             engine_expiries_per_jump=s.mean("timeouts") / jumps,
                             model_expiries_per_jump=model_to / jumps,
                             model_pps=m.throughput_pps, engine_pps=s.mean("throughput_pps"),
                             rel_error=m.throughput_pps / s.mean("throughput_pps") - 1))
    return pd.DataFrame(rows)


#: Design 2's experiment 12 (T 55 and 66 ms, window 95 at 9274 packets/s) as an isolated jump:
#: a single burst per round would time out in the idle part of every round (the idle gap
#: plus the 11 ms jump exceeds the RTO), but the engine's bursts are split.
SPLIT_JUMP = _alternating(9274.0, (0.05508, 0.06626), 95, 2.0)


def karn_jumps(duration_s: float = 1000.0, seeds=(1, 2), rules=("paper", "rfc6298")):
    """:data:`KARN_JUMPS` in the RFC 6298 engine (OldTahoe) against the model with each RTO
    rule in ``rules``: one row per (jump, rule), expiries per upward jump and throughputs."""
    import pandas as pd

    rows = []
    for name, c in KARN_JUMPS.items():
        r = isolated_jump(duration_s, seeds, config=c, estimators=("rfc6298",), rules=rules)
        r.insert(0, "jump", name)
        rows.append(r)
    return pd.concat(rows, ignore_index=True)


#: Design 2's experiments where the model overestimates the timeouts most (12, 69: small
#: jumps, large windows) and two where it does not (47, 53).
ACK_GAP_EXPERIMENTS = (12, 69, 47, 53)


def _traced_runs(exps, second: bool, factor: float, seed: int, variant: str,
                 sends: bool = False):
    """Per experiment of a design: its number, its parameters (mu, T, w_m, H, V) and one run
    of ``factor`` max(E[V_i] + T_i) in the RFC 6298 engine with its window trace (and its
    send trace with ``sends``)."""
    import lossytcp

    designs = _experiments(max(exps) + 1, second)
    for k in exps:
        exp = designs[k]
        r = lossytcp.simulate(variant, **_engine_kwargs(exp, _duration(exp, factor)),
                              trace_window=True,
                              trace_sends=sends, seed=seed)
        yield k, exp, r


def ack_gaps(exps, second: bool = True, fractions=(0.5, 0.8), factor: float = 100.0,
             seed: int = 1, variant: str = "oldtahoe"):
    """Burst structure in the RFC 6298 engine: per experiment of a design, the share of time
    spent in ACK gaps longer than a fraction of the RTO (a proxy for the RTT, which it
    equals once the estimator has converged), against a single burst per round (eq. (14):
    one idle gap of RTO - w/mu per round, w the window in force). An upward jump D that lands
    in a gap g times out iff g + D > RTO, so the long gaps are what the timeouts need."""
    import pandas as pd

    rows = []
    for k, (mu, T, wm, _, _), r in _traced_runs(exps, second, factor, seed, variant):
        w = np.array(r.window_trace)
        gap, rto = np.diff(w[:, 0]), w[:-1, 3]
        idle = 1.0 - np.minimum(w[:-1, 1], wm) / (mu * rto)     # one gap per round
        row = dict(exp=k, w_m=wm, t_spread=float(T.max() / T.min()))
        for x in fractions:
            row[f"engine_gt_{x}"] = gap[gap > x * rto].sum() / gap.sum()
            row[f"single_burst_gt_{x}"] = (gap * np.where(idle > x, idle, 0.0)).sum() / gap.sum()
        rows.append(row)
    return pd.DataFrame(rows)


def _rounds(r, mu: float, wm: int):
    """Rounds of a traced engine run (send and window traces). A round: from the first sending
    of segment n - w to that of segment n, w the window in force (cwnd capped at w_m); its
    idle time: the gaps between sendings longer than 1.5/mu; its split-off idle time: all of
    it but the largest gap. Returns the rounds' ends, windows, lengths and split-off idle
    times (arrays in time order), and the expiry times (cwnd falling to 1)."""
    sends = np.array(r.send_trace)
    new = sends[sends[:, 2] == 0]
    seq, i0 = np.unique(new[:, 1].astype(int), return_index=True)
    first = np.full(seq.max() + 1, np.nan)
    first[seq] = new[i0, 0]
    win = np.array(r.window_trace)
    at = np.searchsorted(win[:, 0], first[seq], side="right") - 1
    w = np.floor(np.minimum(win[np.maximum(at, 0), 1], wm)).astype(int)
    ok = (at >= 0) & (seq - w >= 0)
    t0, t1, w = first[seq[ok] - w[ok]], first[seq[ok]], w[ok]
    ok = t1 > t0                               # NaN: segment n - w never sent as new data
    t0, t1, w = t0[ok], t1[ok], w[ok]
    instants = np.unique(sends[:, 0])
    gaps = np.diff(instants)
    gaps = np.where(gaps > 1.5 / mu, gaps, 0.0)
    a = np.searchsorted(instants, t0)
    b = np.searchsorted(instants, t1)         # the round's gaps: gaps[a:b]
    cum = np.concatenate(([0.0], np.cumsum(gaps)))
    # Largest gap per round: reduceat over (a, b) pairs, the even entries.
    largest = np.maximum.reduceat(gaps, np.column_stack((a, np.minimum(b, gaps.size - 1)))
                                  .ravel())[::2]
    split_off = np.where(b > a, cum[b] - cum[a] - largest, 0.0)
    cw = win[:, 1]
    expiry = win[np.flatnonzero((cw[1:] <= 1.0) & (cw[:-1] > 1.0)) + 1, 0]
    return t1, w, t1 - t0, split_off, expiry


def _split_at(t1, split_off, t):
    """The split-off idle time of the last round ended by each time of ``t`` (0 before the
    first)."""
    i = np.searchsorted(t1, t, side="right") - 1
    return np.where(i >= 0, split_off[np.maximum(i, 0)], 0.0)


def _jumps(r):
    """The RTT changes of a run with its delay-state trace: times, states left, states
    entered (a state re-entered is no change)."""
    d = np.array(r.delay_trace)
    change = np.flatnonzero(d[1:, 1] != d[:-1, 1]) + 1
    return d[change, 0], d[change - 1, 1].astype(int), d[change, 1].astype(int)


def _idle_landing(r, mu: float, t):
    """For each time of ``t``: the index of the last transmission at the bottleneck starting
    by then (-1: none), the transmission starts, and whether the bottleneck is idle at that
    time (a transmission starts at max(sending, end of the previous) and lasts 1/mu)."""
    sent = np.sort(np.array(r.send_trace)[:, 0])
    k = np.arange(sent.size) / mu
    start = np.maximum.accumulate(sent - k) + k
    last = np.searchsorted(start, t, side="right") - 1
    idle = (last < 0) | (start[np.maximum(last, 0)] + 1.0 / mu <= t)
    return last, start, idle


def _window_at(win: np.ndarray, t, wm: int) -> np.ndarray:
    """The window (cwnd capped at w_m, at least 1) in force at each time of ``t``."""
    at = np.searchsorted(win[:, 0], t, side="right") - 1
    return np.clip(np.floor(win[np.maximum(at, 0), 1]), 1, wm).astype(int)


def _split_model(exp, variant: str = "oldtahoe"):
    """The model with RFC 6298's RTO and split bursts on one experiment of a design."""
    from lossytcp.models.abrupt_rtt import abrupt_rtt

    return abrupt_rtt(**_model_kwargs(exp, variant, rto="rfc6298", bursts="split"))


def split_rounds(exps=ACK_GAP_EXPERIMENTS + (13, 24), second: bool = True,
                 factor: float = 300.0, seed: int = 1, variant: str = "oldtahoe"):
    """Split bursts round by round in the RFC 6298 engine (one run with its send and window
    traces, rounds as :func:`_rounds` has them) against ``bursts="split"``, per experiment of
    a design: the engine's split-off idle time per round (weighted by the round's length),
    the share of rounds where it passes half the model's split-off gap, and the share of
    expiries that end a round that split so; the model's split-off idle time per transition
    (``split_idle_s``), its split share, its gap, and both expiries per second. ``_top``: the
    split shares over the rounds (the model's transitions) with the window in its top fifth
    (w >= 0.8 w_m)."""
    import pandas as pd

    rows = []
    for k, (mu, T, wm, H, V), r in _traced_runs(exps, second, factor, seed, variant, True):
        m = _split_model((mu, T, wm, H, V), variant)
        t1, w, length, split_off, expiry = _rounds(r, mu, wm)
        top = w >= 0.8 * wm
        last = np.searchsorted(t1, expiry) - 1
        last = last[last >= 0]
        half = m.split_gap_s / 2.0
        s_w = m.emc_distribution.sum(axis=1)
        top_m = np.arange(1, wm + 1) >= 0.8 * wm
        rows.append(dict(
            exp=k, w_m=wm, gap_ms=1e3 * m.split_gap_s,
            engine_split_idle_ms=1e3 * float((split_off * length).sum() / length.sum()),
            model_split_idle_ms=1e3 * m.split_idle_s,
            engine_split_rounds=float(length[split_off > half].sum() / length.sum()),
            model_split_share=m.split_share,
            engine_split_rounds_top=float(length[top & (split_off > half)].sum()
                                          / length[top].sum()) if top.any() else np.nan,
            model_split_share_top=float((m.split_by_window * s_w)[top_m].sum()
                                        / s_w[top_m].sum()),
            engine_expiries_after_split=float(np.mean(split_off[last] > half))
            if last.size else np.nan,
            engine_expiries_per_s=r.timeouts / r.elapsed_s,
            model_expiries_per_s=m.spurious_timeouts_per_s * m.mean_timeouts_per_event))
    return pd.DataFrame(rows)


def _delay_runs(k: int, second: bool, factor: float, seeds, variant: str):
    """One experiment of a design in the RFC 6298 engine, per seed: the run with its send,
    window and delay-state traces."""
    import lossytcp

    exp = _experiments(k + 1, second)[k]
    kwargs = _engine_kwargs(exp, _duration(exp, factor))
    for seed in seeds:
        yield lossytcp.simulate(variant, **kwargs, trace_sends=True, trace_window=True,
                                trace_delay=True, seed=seed)


def jump_outcomes(exps=(53, 13, 12, 69), second: bool = True, factor: float = 1000.0,
                  seeds=(2, 3), variant: str = "oldtahoe", bins: int = 3):
    """Timeouts at the engine's own upward RTT jumps (RFC 6298, delay-state trace) against the
    model's rule for the same jump. Per experiment and window band (``bins`` equal bands of
    1..w_m): the upward jumps landing in idle time (the bottleneck not transmitting), the
    share of them that the last round before split (:func:`_rounds`, split-off idle time
    above half the model's gap), the share followed by an expiry before the next jump
    (unsplit, split), and the model's timeout probability for each jump (its states i -> j and
    window w), single burst (S = 0) and one mean jump split off (S = gap), averaged over the
    same jumps. Only jumps with no other jump since that round began count: with visits of about
    one RTT the last round often predates the previous jump, whose drop may have closed the
    split since. Over all the upward jumps landing in idle time (``idle_jumps``): the share
    that land in a gap of the bottleneck's idle time at least 0.9 of the round's (the idle
    time whole, as one gap: ``engine_whole``) against the model's share of transitions made
    without a split at the same windows (``model_whole``, from ``split_by_window``)."""
    import pandas as pd

    from lossytcp.models import abrupt_rtt as A

    designs = _experiments(max(exps) + 1, second)
    rows = []
    for k in exps:
        mu, T, wm, H, V = designs[k]
        p = A.AbruptRttParams(**_model_kwargs(designs[k], variant, rto="rfc6298",
                                              bursts="split"))
        m = A.MODEL.compute(p)
        _, Tm, _, _, _, M, Y, _, w1 = A._arrays(p)
        mix = A._rto_mixture(p, A._sample_rates(p))
        # P(timeout | landing in idle time) per (mode, i, j, w).
        p_to = np.stack([np.stack([
            A._event_paths_mixed(p, i, np.arange(M), w1, Y, mix, restart=True,
                                 split_s=n * m.split_gap_s, gap=m.split_gap_s)[2]
            / np.maximum(1.0 - w1 / (mu * Tm[i]), 1e-12) for i in range(M)]) for n in (0, 1)])
        ev = []
        for r in _delay_runs(k, second, factor, seeds, variant):
            t1, _, length, split_off, expiry = _rounds(r, mu, wm)
            tj, si, sj = _jumps(r)
            rd = np.searchsorted(t1, tj, side="right") - 1
            began = np.where(rd >= 0, (t1 - length)[np.maximum(rd, 0)], np.inf)
            fresh = np.concatenate(([-np.inf], tj[:-1])) < began
            nxt = np.append(tj[1:], np.inf)
            up = T[sj] > T[si]
            tj, si, sj, fresh, nxt = tj[up], si[up], sj[up], fresh[up], nxt[up]
            last, start, idle = _idle_landing(r, mu, tj)
            w = _window_at(np.array(r.window_trace), tj, wm)
            split = _split_at(t1, split_off, tj) > m.split_gap_s / 2.0
            e = np.searchsorted(expiry, tj, side="right")
            timed_out = (e < expiry.size) & (expiry[np.minimum(e, expiry.size - 1)] < nxt)
            # The idle gap the jump lands in: from the end of the last transmission before it
            # to the start of the next, against the round's idle time T_i - w/mu.
            after = np.minimum(last + 1, start.size - 1)
            landed = np.where(last + 1 < start.size,
                              start[after] - start[np.maximum(last, 0)] - 1.0 / mu, np.inf)
            whole = landed >= 0.9 * (Tm[si] - w / mu)
            ev.append(np.column_stack((si, sj, w, split, timed_out, fresh, whole))[idle])
        ev = np.concatenate(ev)
        si, sj, w = (ev[:, c].astype(int) for c in range(3))
        split, timed_out, fresh, whole = (ev[:, c].astype(bool) for c in range(3, 7))
        model_whole = 1.0 - np.nan_to_num(m.split_by_window)
        edges = np.linspace(1, wm + 1, bins + 1)
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            every = (w >= lo) & (w < hi)
            band = every & fresh
            if not band.any():
                continue
            rows.append(dict(
                exp=k, w_m=wm, windows=f"{int(np.ceil(lo))}-{int(np.ceil(hi)) - 1}",
                idle_jumps=int(every.sum()), engine_whole=float(whole[every].mean()),
                model_whole=float(model_whole[w[every] - 1].mean()),
                jumps=int(band.sum()), engine_split=float(split[band].mean()),
                engine_to_unsplit=float(timed_out[band & ~split].mean())
                if (band & ~split).any() else np.nan,
                engine_to_split=float(timed_out[band & split].mean())
                if (band & split).any() else np.nan,
                model_to_single=float(p_to[0, si[band], sj[band], w[band] - 1].mean()),
                model_to_split=float(p_to[1, si[band], sj[band], w[band] - 1].mean())))
    return pd.DataFrame(rows)


def rto_at_jumps(exps=((53, 1), (13, 1), (65, 2)), second: bool = True, factor: float = 1000.0,
                 seeds=(2, 3), variant: str = "oldtahoe", bins: int = 3,
                 quantiles=(0.1, 0.5, 0.9)):
    """The RTO the RFC 6298 engine leaves an RTT state with, against the model's mixture
    (``_rto_mixture``), per (experiment, state) of a design and window band: at each upward
    jump out of the state landing in idle time, the RTO in force at the last ACK of the
    packets sent before it (the timer the jump can expire), its ``quantiles``; the model's at
    the same windows with the previous state's ACKs as one burst per round (``model``) and
    spread over it (``spread``)."""
    import pandas as pd

    from lossytcp.models import abrupt_rtt as A

    designs = _experiments(max(k for k, _ in exps) + 1, second)
    rows = []
    for k, state in exps:
        mu, T, wm, H, V = designs[k]
        p = A.AbruptRttParams(**_model_kwargs(designs[k], variant, rto="rfc6298"))
        Tm = np.array(p.rtt_s)
        rate = A._sample_rates(p)
        mixes = {name: A._rto_mixture(p, rate, burst=b)[state]
                 for name, b in (("model", True), ("spread", False))}
        ev = []
        for r in _delay_runs(k, second, factor, seeds, variant):
            tj, si, sj = _jumps(r)
            last, start, idle = _idle_landing(r, mu, tj)
            ok = (si == state) & (T[sj] > T[si]) & (last >= 0) & idle
            win = np.array(r.window_trace)
            w = _window_at(win, tj, wm)
            ack = np.searchsorted(win[:, 0], start[np.maximum(last, 0)] + Tm[state] + 1e-9,
                                  side="right") - 1
            ev.append(np.column_stack((w, win[np.maximum(ack, 0), 3]))[ok])
        ev = np.concatenate(ev)
        edges = np.linspace(1, wm + 1, bins + 1)
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            band = (ev[:, 0] >= lo) & (ev[:, 0] < hi)
            if not band.any():
                continue
            ws = ev[band, 0].astype(int) - 1
            row = dict(exp=k, state=state, rtt_ms=1e3 * Tm[state],
                       windows=f"{int(np.ceil(lo))}-{int(np.ceil(hi)) - 1}",
                       jumps=int(band.sum()))
            for q in quantiles:
                row[f"engine_q{q:g}_ms"] = 1e3 * float(np.quantile(ev[band, 1], q))
            for name, (vals, wts) in mixes.items():
                qs = A._weighted_quantiles(vals[:, ws].reshape(-1, 1),
                                           np.repeat(wts, ws.size), quantiles)[:, 0]
                row.update({f"{name}_q{q:g}_ms": 1e3 * float(x)
                            for q, x in zip(quantiles, qs, strict=True)})
            rows.append(row)
    return pd.DataFrame(rows)


def recovery_splits(exps=(13, 53, 69, 12, 24), second: bool = True, factor: float = 1000.0,
                    seeds=range(2, 10), after_rtts=(1.5, 3.0)):
    """Split bursts across Reno's fast recoveries in the RFC 6298 engine (the model's spurious
    DA path keeps the split-off idle time): per experiment, the fast retransmits (cwnd set to
    ssthresh + 3), the share of them whose last round before split (as :func:`split_rounds`),
    and the share split ``after_rtts`` mean RTTs later, given split and given unsplit before,
    against the same shares at random times (no recovery)."""
    import pandas as pd

    from lossytcp.models import abrupt_rtt as A

    designs = _experiments(max(exps) + 1, second)
    rng = np.random.default_rng(0)
    rows = []
    for k in exps:
        mu, T, wm, H, V = designs[k]
        half = A._split_gap(T, H) / 2.0          # the model's split threshold
        acc = {x: [] for x in after_rtts}
        ctrl = {x: [] for x in after_rtts}
        for r in _delay_runs(k, second, factor, seeds, "reno"):
            t1, _, _, split_off, _ = _rounds(r, mu, wm)
            win = np.array(r.window_trace)
            cw, ss = win[:, 1], win[:, 2]
            fr = win[np.flatnonzero((np.abs(cw[1:] - ss[1:] - 3.0) < 1e-9)
                                    & (ss[1:] != ss[:-1]) & (cw[:-1] > 1.0)) + 1, 0]
            tr = rng.uniform(t1[0] + T.max(), t1[-1] - 4.0 * T.max(), 2000)
            for x in after_rtts:
                for out, t in ((acc[x], fr), (ctrl[x], tr)):
                    out.append(np.column_stack((
                        _split_at(t1, split_off, t - 0.2 * T.mean()) > half,
                        _split_at(t1, split_off, t + x * T.mean()) > half)))
        for x in after_rtts:
            a, c = np.concatenate(acc[x]).astype(bool), np.concatenate(ctrl[x]).astype(bool)
            rows.append(dict(exp=k, after_rtts=x, recoveries=len(a),
                             split_before=float(a[:, 0].mean()),
                             split_after_split=float(a[a[:, 0], 1].mean()),
                             split_after_unsplit=float(a[~a[:, 0], 1].mean()),
                             no_recovery_after_split=float(c[c[:, 0], 1].mean()),
                             no_recovery_after_unsplit=float(c[~c[:, 0], 1].mean())))
    return pd.DataFrame(rows)


def window_at_timeouts(exps=ABOVE_ENGINE, second: bool = True, factor: float = 300.0,
                       seed: int = 1, variant: str = "oldtahoe"):
    """Between the timeouts, engine (RFC 6298, one run with its window trace) against the
    extension (``rto="rfc6298"``), per experiment of a design: the time-averaged window
    (cwnd capped at w_m), the mean window at a timeout (the engine's cwnd just before each
    expiry, the model's w1 weighted by its expiries), expiries per second, and the segments
    the receiver gets twice per expiry (the engine's received minus delivered; the model's
    re-sent flights), with both throughputs; and the extension with split bursts
    (``bursts="split"``): its expiries per second, the share of its transitions made with a
    burst split, its throughput and error."""
    import pandas as pd

    from lossytcp.models.abrupt_rtt import abrupt_rtt

    rows = []
    for k, (mu, T, wm, H, V), r in _traced_runs(exps, second, factor, seed, variant):
        w = np.array(r.window_trace)
        dt = np.diff(np.append(w[:, 0], r.elapsed_s))
        cw = w[:, 1]
        expiry = np.flatnonzero((cw[1:] <= 1.0) & (cw[:-1] > 1.0)) + 1
        kw = _model_kwargs((mu, T, wm, H, V), variant, rto="rfc6298")
        m = abrupt_rtt(**kw)
        ms = abrupt_rtt(**kw, bursts="split")
        # The model's expiries and twice-received segments, weighted by the EMC.
        w1 = np.arange(1, wm + 1)[:, None]
        kto = (m.emc_distribution * m.expiries).sum()
        at_expiry = (m.emc_distribution * m.expiries * w1).sum() / kto if kto > 0 else np.nan
        twice = (m.emc_distribution * m.resent).sum() / kto if kto > 0 else np.nan
        rows.append(dict(
            exp=k, w_m=wm,
            engine_mean_window=float((np.minimum(cw, wm) * dt).sum() / dt.sum()),
            model_mean_window=m.mean_window,
            engine_window_at_expiry=float(np.minimum(cw[expiry - 1], wm).mean())
            if expiry.size else np.nan,
            model_window_at_expiry=float(at_expiry),
            engine_expiries_per_s=r.timeouts / r.elapsed_s,
            model_expiries_per_s=m.spurious_timeouts_per_s * m.mean_timeouts_per_event,
            engine_twice_per_expiry=(r.packets_received - r.packets_delivered) / r.timeouts
            if r.timeouts else np.nan,
            model_twice_per_expiry=float(twice),
            engine_pps=r.throughput_pps, engine_goodput_pps=r.goodput_pps,
            model_pps=m.throughput_pps, rel_error=m.throughput_pps / r.throughput_pps - 1,
            split_expiries_per_s=ms.spurious_timeouts_per_s * ms.mean_timeouts_per_event,
            split_share=ms.split_share, split_pps=ms.throughput_pps,
            split_rel_error=ms.throughput_pps / r.throughput_pps - 1))
    return pd.DataFrame(rows)


def by_window(df, split: int = 45, estimator: str = "rfc6298", model: str = "rfc6298"):
    """Mean and max |error| of the experiments with w_m <= ``split`` and above it, and the
    ratio of the model's timeouts per second to the engine's (summed over the experiments:
    many have none in the engine), per variant."""
    import pandas as pd

    rows = []
    for v in VARIANTS:
        e = df[f"{v}_{estimator}_{model}_err"].abs()
        m_to, e_to = df[f"{v}_model_{model}_to_per_s"], df[f"{v}_{estimator}_to_per_s"]
        for name, sel in ((f"w_m<={split}", df.w_m <= split), (f"w_m>{split}", df.w_m > split)):
            rows.append(dict(variant=v, experiments=name, n=int(sel.sum()),
                             mean_abs_error=e[sel].mean(), max_abs_error=e[sel].max(),
                             timeout_ratio=m_to[sel].sum() / e_to[sel].sum()))
    return pd.DataFrame(rows)


def beyond_bound(df, bound: float = 0.2, estimator: str = "rfc6298", model: str = "rfc6298"):
    """The experiments whose |error| exceeds ``bound``, per variant, with the engine's 95%
    confidence interval (Student's t over the runs) carried into the error: the model's
    throughput over the interval's ends. ``clear`` says whether the whole interval lies
    beyond the bound (the point estimate alone can cross it through the engine's noise)."""
    import pandas as pd

    rows = []
    for v in VARIANTS:
        sim, ci = df[f"{v}_{estimator}_sim"], df[f"{v}_{estimator}_sim_ci95"]
        mod = df[f"{v}_model_{model}"]
        err = df[f"{v}_{estimator}_{model}_err"]
        for k in np.flatnonzero(err.abs().to_numpy() > bound):
            lo = mod.iloc[k] / (sim.iloc[k] + ci.iloc[k]) - 1
            hi = mod.iloc[k] / max(sim.iloc[k] - ci.iloc[k], 1e-12) - 1
            rows.append(dict(variant=v, exp=int(df.exp.iloc[k]), w_m=int(df.w_m.iloc[k]),
                             engine_pps=sim.iloc[k], engine_ci95=ci.iloc[k],
                             model_pps=mod.iloc[k], error=err.iloc[k], error_lo=lo,
                             error_hi=hi, clear=bool(lo > bound or hi < -bound)))
    return pd.DataFrame(rows, columns=["variant", "exp", "w_m", "engine_pps", "engine_ci95",
                                       "model_pps", "error", "error_lo", "error_hi", "clear"])


def split_grid(exp: int = 12, steps=(1.0, 0.5, 0.25, 0.125), runs: int = 40,
               second: bool = True, factor: float = 1000.0, variant: str = "oldtahoe"):
    """``bursts="split"`` on one experiment of a design with the split-off idle time's grid
    step at each of ``steps`` mean upward jumps (no cap on the levels), against the RFC 6298
    engine with ``runs`` runs: levels, error and the solve's CPU time per step."""
    import time

    import pandas as pd

    from lossytcp.models import abrupt_rtt as A

    design = _experiments(exp + 1, second)[exp]
    p = A.AbruptRttParams(**_model_kwargs(design, variant, rto="rfc6298", bursts="split"))
    sim = _engine(variant, design, _duration(design, factor), runs,
                  "rfc6298").mean("throughput_pps")
    gap = A._split_gap(np.array(p.rtt_s), np.array(p.H))
    mix = A._rto_mixture(p, A._sample_rates(p))
    rows = []
    for fraction in steps:
        grid = (fraction, 10**6)
        t = time.process_time()
        m = A._compute_chain(p, mix, grid=grid)
        rows.append(dict(exp=exp, variant=variant, step_of_mean_jump=fraction,
                         levels=A._split_levels(np.array(p.rtt_s), p.rate_pps, gap, *grid)[1],
                         model_pps=m.throughput_pps, engine_pps=sim,
                         error=m.throughput_pps / sim - 1, cpu_s=time.process_time() - t))
    return pd.DataFrame(rows)


def confirm_beyond(df, runs: int = 40, bound: float = 0.2, second: bool = True,
                   factor: float = 1000.0, models=("rfc6298", "split"),
                   estimator: str = "rfc6298"):
    """The experiments of a design (``df`` from :func:`run_design`) beyond ``bound`` for any
    of ``models``, rerun in the engine with ``runs`` runs each (the design's 5 leave 95%
    intervals of up to +-15%): per (variant, model form, experiment) the error against the
    design's runs and against these, with :func:`beyond_bound`'s interval and ``clear``."""
    import pandas as pd

    exps = sorted({int(k) for m in models for k in beyond_bound(df, bound, estimator, m).exp})
    designs = _experiments(max(exps, default=-1) + 1, second)
    rows = []
    for k in exps:
        row = df.loc[df.exp == k].iloc[0]
        dur = _duration(designs[k], factor)
        for v in VARIANTS:
            s = _engine(v, designs[k], dur, runs, estimator)
            sim, ci = s.mean("throughput_pps"), s.ci95("throughput_pps")
            for m in models:
                mod = row[f"{v}_model_{m}"]
                lo, hi = mod / (sim + ci) - 1, mod / max(sim - ci, 1e-12) - 1
                rows.append(dict(variant=v, model=m, exp=k, error_design=row[
                    f"{v}_{estimator}_{m}_err"], engine_pps=sim, engine_ci95=ci,
                    error=mod / sim - 1, error_lo=lo, error_hi=hi,
                    clear=bool(lo > bound or hi < -bound)))
    return pd.DataFrame(rows, columns=["variant", "model", "exp", "error_design", "engine_pps",
                                       "engine_ci95", "error", "error_lo", "error_hi",
                                       "clear"])


def summarize(df, design: str = ""):
    """Per (variant, engine timer, model RTO): mean and max |relative error|, the share of
    experiments where the model is at or below the engine (the paper's lower-bound claim) and
    where it is within 5% below it (a tight lower bound)."""
    import pandas as pd

    rows = []
    for col in [c for c in df.columns if c.endswith("_err")]:
        variant, est, rule = col[:-4].split("_", 2)[0], None, None
        rest = col[len(variant) + 1:-4]
        for e in ("last_sample", "rfc6298"):
            if rest.startswith(e + "_"):
                est, rule = e, rest[len(e) + 1:]
        e = df[col]
        rows.append(dict(design=design, variant=variant, engine_rto=est, model_rto=rule,
                         mean_abs_error=e.abs().mean(), max_abs_error=e.abs().max(),
                         model_below=(e <= 0).mean(),
                         tight_lower_bound=((e <= 0) & (e >= -0.05)).mean(), n=len(e)))
    return pd.DataFrame(rows)


def fig9(df, estimator: str = "rfc6298", model: str = "paper"):
    """Fig. 9: OldTahoe's gain over Reno in the engine, in the model (eq. (3) as we read it:
    d consecutive duplicate ACKs) and in the model with eq. (3) as typeset: the share of
    experiments with gain <= 10%, in (10%, 50%], > 50%, and the extremes. The paper reports
    about 60%, 20% and 20%, up to almost 100%."""
    import pandas as pd

    rows = []
    for src, a, b in (("engine", f"oldtahoe_{estimator}_sim", f"reno_{estimator}_sim"),
                      ("model", f"oldtahoe_model_{model}", f"reno_model_{model}"),
                      ("model, eq. (3) typeset", f"oldtahoe_model_{model}",
                       "reno_model_typeset")):
        g = df[a] / df[b] - 1
        rows.append(dict(source=src, le_10pct=(g <= 0.10).mean(),
                         gt_10pct_le_50pct=((g > 0.10) & (g <= 0.5)).mean(),
                         gt_50pct=(g > 0.5).mean(), max_gain=g.max(), min_gain=g.min()))
    return pd.DataFrame(rows)


def gain_shares(gain) -> dict:
    """Fig. 9's three shares of a series of OldTahoe-over-Reno gains (<= 10%, (10%, 50%],
    > 50%) and its extremes."""
    return dict(le_10pct=(gain <= 0.10).mean(), gt_10pct_le_50pct=((gain > 0.10)
                                                                   & (gain <= 0.5)).mean(),
                gt_50pct=(gain > 0.5).mean(), max_gain=gain.max(), min_gain=gain.min())


def fig9_ns2(exps=range(20), runs: int = 2, factor: float = 300.0, seed: int = 2003,
             tick_s: float = 0.001):
    """Fig. 9 in ns-2 2.35: experiments ``exps`` of design 1 with ns-2's OldTahoe
    (``Agent/TCP``, no fast retransmit) and Reno (``Agent/TCP/Reno``) over the semi-Markov
    delay (:func:`lossytcp.ns2.build_script`), next to the engine in the same configuration
    (profile ``ns2``: ns-2's estimator with a ``tick_s`` clock, one RTT sample per window,
    minimum RTO 0, 40-byte ACKs). One row per experiment with both gains; ns-2 is the
    paper's kind of simulator, so its spread says whether a packet-level TCP gives the
    paper's Fig. 9 on this design. Needs the ``ns`` binary."""
    import pandas as pd

    import lossytcp
    from lossytcp.ns2 import run_seeds

    exps = sorted(int(k) for k in exps)
    designs = list(design_61(exps[-1] + 1, seed, False))
    rows = []
    for k in exps:
        mu, T, wm, H, V = designs[k]
        delay = dict(rtt_s=T.tolist(), H=H.tolist(), excess_mean_s=V.tolist())
        kw = dict(rate_bps=mu * 8000.0, packet_size_bytes=1000, window=wm, delay=delay,
                  duration_s=factor * float(np.max(V + T)), min_rto_s=0.0,
                  granularity_s=tick_s, max_rto_s=1e5, profile="ns2")
        row = dict(exp=k, mu_pps=mu, w_m=wm)
        for v in VARIANTS:
            ns2 = run_seeds(list(range(1, runs + 1)), v, **kw)
            eng = lossytcp.simulate_seeds(list(range(1, runs + 1)), v, **kw)
            row[f"{v}_ns2"] = ns2.mean("throughput_pps")
            row[f"{v}_engine"] = eng.mean("throughput_pps")
            row[f"{v}_ns2_to_per_s"] = ns2.mean("timeouts") / kw["duration_s"]
            row[f"{v}_engine_to_per_s"] = eng.mean("timeouts") / kw["duration_s"]
        row["gain_ns2"] = row["oldtahoe_ns2"] / row["reno_ns2"] - 1
        row["gain_engine"] = row["oldtahoe_engine"] / row["reno_engine"] - 1
        rows.append(row)
    return pd.DataFrame(rows)


def section_63():
    """Figs. 10-12 from the model (Section 6.3 parameter set)."""
    import pandas as pd

    from lossytcp.models.abrupt_rtt import SECTION_6_3, abrupt_rtt

    out = {}
    rows = []
    for wm in (25, 30, 60):
        old = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="oldtahoe").throughput_pps
        for d in (1, 2, 3, 5, 8, 12, 16, 20, 25, 30, 35, 40, 50, 60):
            r = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="reno", dupack_threshold=d)
            rows.append(dict(w_m=wm, d=d, reno_pps=r.throughput_pps, oldtahoe_pps=old))
    out["abrupt_fig10"] = pd.DataFrame(rows)
    rows = []
    for wm in (5, 10, 15, 20, 25, 30, 40, 50, 60, 70):
        o = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="oldtahoe")
        r = abrupt_rtt(**SECTION_6_3, max_window=wm, variant="reno")
        rows.append(dict(w_m=wm, ideal_pps=o.ideal_pps, oldtahoe_pps=o.throughput_pps,
                         reno_pps=r.throughput_pps))
    out["abrupt_fig11"] = pd.DataFrame(rows)
    rows = []
    for k in (0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 1000):
        kw = dict(SECTION_6_3)
        kw["excess_mean_s"] = tuple(k * x for x in SECTION_6_3["excess_mean_s"])
        o = abrupt_rtt(**kw, max_window=25, variant="oldtahoe")
        r = abrupt_rtt(**kw, max_window=25, variant="reno")
        rows.append(dict(k=k, ideal_pps=o.ideal_pps, oldtahoe_pps=o.throughput_pps,
                         reno_pps=r.throughput_pps))
    out["abrupt_fig12_wm25"] = pd.DataFrame(rows)
    return out


def tables(*, quick: bool = False, ns2: bool = False, runs: int | None = None,
           designs_only: bool = False) -> dict:
    """Both designs with both engine timers (quick: 20 experiments, 2 runs of 300
    max(E[V] + T)), their summaries, Fig. 9 and Figs. 10-12. ``ns2``: Fig. 9 in ns-2 2.35
    (:func:`fig9_ns2`: 20 experiments quick, else 100, 2 runs of 300 max(E[V] + T)).
    ``runs`` overrides the runs per experiment of the designs and of the long-holding
    reruns. ``designs_only``: the two designs, their summaries, errors by window and
    :func:`window_at_timeouts` only."""
    n, runs_, factor = (20, 2, 300.0) if quick else (100, 5, 1000.0)
    runs = runs or runs_
    import pandas as pd

    out = {}
    summaries = []
    for name, second in (("design1", False), ("design2", True)):
        df = run_design(n, runs, factor, second, estimators=("last_sample", "rfc6298"))
        out[f"abrupt_{name}"] = df
        summaries.append(summarize(df, name))
        f9 = fig9(df)
        f9.insert(0, "design", name)
        out[f"abrupt_fig9_{name}"] = f9
    out["abrupt_summary"] = pd.concat(summaries, ignore_index=True)
    out["abrupt_design2_by_window"] = by_window(out["abrupt_design2"])
    out["abrupt_design2_by_window_split"] = by_window(out["abrupt_design2"], model="split")
    out["abrupt_design2_beyond_20"] = pd.concat(
        [beyond_bound(out["abrupt_design2"], model=m).assign(model=m)
         for m in ("rfc6298", "split")], ignore_index=True)
    out["abrupt_design2_beyond_20_runs40"] = confirm_beyond(out["abrupt_design2"],
                                                            factor=factor)
    out["abrupt_window_at_timeouts"] = window_at_timeouts(
        ABOVE_ENGINE + ACK_GAP_EXPERIMENTS[:2] + (65,) + RESTART_EXPERIMENTS,
        factor=100.0 if quick else 300.0)
    if designs_only:
        return out
    out["abrupt_isolated_jump"] = isolated_jump()
    out["abrupt_karn_jumps"] = karn_jumps(300.0 if quick else 1000.0)
    out["abrupt_split_jump"] = isolated_jump(300.0 if quick else 1000.0, config=SPLIT_JUMP,
                                             estimators=("rfc6298",), rules=("rfc6298",))
    out["abrupt_ack_gaps"] = ack_gaps(ACK_GAP_EXPERIMENTS, factor=30.0 if quick else 100.0)
    out["abrupt_split_rounds"] = split_rounds(factor=100.0 if quick else 300.0)
    out["abrupt_split_grid"] = split_grid(steps=(1.0, 0.5) if quick else (1.0, 0.5, 0.25, 0.125),
                                          runs=5 if quick else 40,
                                          factor=300.0 if quick else 1000.0)
    out["abrupt_jump_outcomes"] = jump_outcomes(seeds=(2,) if quick else (2, 3))
    out["abrupt_rto_at_jumps"] = rto_at_jumps(seeds=(2,) if quick else (2, 3))
    out["abrupt_recovery_splits"] = recovery_splits(seeds=range(2, 4) if quick else range(2, 10))
    out["abrupt_holding_sweep"] = holding_sweep(max_duration_s=1e3 if quick else 3e3)
    out["abrupt_holding_sweep_restart"] = holding_sweep(RESTART_EXPERIMENTS,
                                                        max_duration_s=1e3 if quick else 3e3)
    # The worst experiments of design 2 under the paper's timer, with isolated RTT changes.
    d2 = out["abrupt_design2"]
    err = d2[[f"{v}_last_sample_paper_err" for v in VARIANTS]].abs().max(axis=1)
    worst = d2.loc[err.sort_values(ascending=False).index[: 3 if quick else 8], "exp"]
    out["abrupt_long_holding"] = long_holding(sorted(int(k) for k in worst), runs=runs,
                                              max_duration_s=3e3 if quick else 3e4)
    if ns2:
        f = fig9_ns2(range(n), runs=2, factor=300.0)
        out["abrupt_fig9_ns2"] = f
        out["abrupt_fig9_ns2_shares"] = pd.DataFrame(
            [dict(source=src, **gain_shares(f[f"gain_{src}"])) for src in ("ns2", "engine")])
    out.update(section_63())
    return out
