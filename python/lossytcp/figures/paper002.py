"""Paper 002 (Kaj & Olsen): time-out probability and throughput of Tahoe and NewReno under
RED-like (independent) and DropTail-like (burst) loss, scenario I (Figs. 9-12).

Scenario I is the paper's idealised droppers: "RED" = an independent dropper with
probability p after a large-buffer queue; "DropTail" = Good -> Bad with probability p per
packet, Bad dropping everything for a time longer than the rest of the window but shorter than
an RTT. The engine: ``bernoulli:p`` and ``burst:p,hold=50ms`` on a 10 Mb/s link (a window of
20 x 1500 B leaves in 24 ms, inside the 240 ms RTT: the model's rounds), window 20, 1500 B
packets, an ACK per packet, large queue; ns-2's agents without limited transmit or delayed
growth and with NewReno's timer restarted on every partial ACK (the model's fast recovery
never times out); a fixed T0 of 0.72 s (3 RTTs, the paper's observed time-out scale) with
back-off, as ``scripts/validate_models_I.py`` configures it (there: throughput within 25% and
Q within 0.08-0.10 for RED up to p = 0.2 and DropTail up to p = 0.03). The model gets the
same T0 and window cap. Run length: the paper's 2000 s with 6 seeds (full), 300 s with 4
seeds (quick).
Control runs: the back-off off on both sides (``paper002-scenario1-nobackoff``, the
throughput's model error); fast retransmit on the first duplicate ACK
(``paper002-scenario1-dupack1``, Fig. 10's Q order: Tahoe's time-outs in windows too small
for three duplicate ACKs); the window capped at 8 and 4 under RED
(``paper002-scenario1-window``, Fig. 12's "similar throughput": Tahoe's climb back from one
segment after a fast retransmit); the model over NewReno's own window law (``q_window="own"``,
Fig. 10's "tracks (Q, NewReno)"); the three largest p with 30 seeds (``paper002-scenario1-
seeds``, where time-outs make the runs vary most: its runs, the figure's seeds among them,
stand for the figure's at those points in every engine claim of Figs. 9-12); the model's
DropTail cycle with RED's time-out probability (Fig. 12's "NewReno suffers more under
DropTail": DropTail's effect through the cycle alone, :func:`droptail_cycle_ratio`).

Scenario II (Figs. 13-18, below): the 62-node dumbbell of ``scenario.paper002_scenario2``
with Poisson 100 KB downloads, real RED and DropTail queues, every sender ns-2's Tahoe of the
paper's time (0.1 s tick). The arrival rate is swept and sets the loss level; p is *measured*
(the observed flow's drop rate), and the model is evaluated at each run's measured p, RTT and
T0, so the model "curve" of Fig. 14 is a set of points at the simulated p's (Q depends on p
alone, so Fig. 13's is a curve). Queue traces of the bottleneck give Figs. 15-18 and the loss
pattern within rounds that the claims on correlation test.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..experiments import Experiment, ModelOverlay, logrange
from ..experiments.spec import ENGINE_SCENARIO
from ..experiments.stats import holm, mean_ci
from ..plots import PlotSpec, save_figure
from . import Figure, register
from ._common import ordering, pooled_series, series
from .claims import (
    FAILS,
    FAMILY_ALPHA,
    HOLDS,
    INCONCLUSIVE,
    ClaimResult,
    combine,
    fmt,
    pairwise_claim,
)

MODEL_TCP = dict(profile="ns2", limited_transmit=False, delay_growth=False,
                 timer_every_partial_ack=True)
VARIANTS = ("tahoe", "newreno")
#: Tolerances from the paper's words. Q: "the analytical formulas estimate the simulation
#: results with good accuracy" (Figs. 9-10): within a tenth of the 0-1 axis; "the time-out
#: estimation is very good for the RED case" (Fig. 13): within a twentieth. Throughput:
#: "in the correct range" (Figs. 11-12), "correctly estimated", "good" (Fig. 14): within a
#: quarter of the simulated value.
THR_TOL, Q_TOL, Q_TOL_VERY = 0.25, 0.10, 0.05
SIMILAR = 0.10


def _sim(p):
    return _sim_with(p, backoff=True)


def _sim_with(p, backoff: bool):
    # The axis is "aqm" (the loss environment the dropper stands for), not "queue": an axis
    # named after a simulate() parameter would be passed to it.
    ch = f"bernoulli:p={p['p']:g}" if p["aqm"] == "red" else f"burst:p={p['p']:g},hold=50ms"
    return dict(rate_bps=10e6, rtt_s=0.24, packet_size_bytes=1500, window=20,
                queue_packets=1000, channel=ch, fixed_rto_s=0.72, backoff=backoff,
                duration_s=p["duration_s"], **MODEL_TCP)


#: Scenario I's round-trip time (the engine's rtt_s, the model's).
S1_RTT_S = 0.24


def _model_s1(formula: str):
    def params(p):
        return dict(variant=p["variant"], queue=p["aqm"], p=p["p"], rtt_s=S1_RTT_S,
                    timeout_s=0.72, max_window=20, timeout_formula=formula)
    return params


def experiments(quick: bool):
    sweep = {"p": logrange(1e-3, 0.35, 5 if quick else 10), "aqm": ["red", "droptail"],
             "duration_s": [300.0 if quick else 2000.0]}

    def scenario1(name: str, description: str, scenario, model: str | None = None,
                  **kw) -> Experiment:
        """Scenario I or one of its controls: the same variants, seeds and metrics."""
        models = [] if model is None else [
            ModelOverlay("aqm-renewal", _model_s1(model), label="model",
                         metric="throughput_pps", sim_metric="throughput_pps")]
        return Experiment(name=name, description=description, scenario=scenario,
                          sweep=kw.pop("sweep", sweep), variants=VARIANTS, models=models,
                          seeds=kw.pop("seeds", 4 if quick else 6),
                          metrics=["throughput_pps", "timeout_fraction", "timeouts"], **kw)

    return [
        scenario1("paper002-scenario1",
                  "Scenario I: RED (independent) and DropTail (burst) droppers, RTT 240 ms, "
                  "window 20, 1500 B", _sim, "approximate"),
        scenario1("paper002-scenario1-nobackoff",
                  "Control: scenario I with the back-off off on both sides (the engine's "
                  "RTO fixed at T0, the model's E[Z_TO] without doubling)",
                  lambda p: _sim_with(p, backoff=False), "no_backoff"),
        scenario1("paper002-scenario1-dupack1",
                  "Control: scenario I with fast retransmit on the first duplicate ACK "
                  "(dupack_threshold 1; no reordering here, so every duplicate means a loss)",
                  lambda p: {**_sim(p), "dupack_threshold": 1}),
        scenario1(SEEDS_EXP,
                  "Control: scenario I at the largest p, where the figure's seeds leave the "
                  f"claims undecided, with {CONTROL_SEEDS[0]} seeds ({CONTROL_SEEDS[1]} quick)",
                  _sim, sweep={**sweep, "p": sweep["p"][-CONTROL_POINTS[quick]:]},
                  seeds=CONTROL_SEEDS[quick]),
        scenario1("paper002-scenario1-window",
                  "Control: scenario I under RED with the window capped below 20 "
                  f"({', '.join(map(str, CONTROL_WINDOWS))} packets)",
                  # the axis is not named "window": an axis named after a simulate()
                  # parameter would be passed to it
                  lambda p: {**_sim(p), "window": p["cap_packets"]},
                  sweep={**sweep, "aqm": ["red"], "cap_packets": list(CONTROL_WINDOWS)})]


#: The more-seeds control of Figs. 9-12: the largest p of the sweep (full, quick), where
#: time-outs make the runs' throughput and Q vary most, run with more seeds (full, quick);
#: its runs replace the figure's at those points (the same runs, the figure's seeds included).
SEEDS_EXP = "paper002-scenario1-seeds"
CONTROL_POINTS = (3, 2)
CONTROL_SEEDS = (30, 8)


def _s1_sim(data, **kw):
    """The engine's series of scenario I with the more-seeds control's runs in place of the
    figure's at its points."""
    return pooled_series(data, "paper002-scenario1", SEEDS_EXP, "p", kw.pop("sim_metric"), **kw)


def _seeds_note(data) -> str:
    more = data.runs(SEEDS_EXP)
    ps = sorted(more["p"].unique())
    n = int(more.groupby(["p", "aqm", "variant"]).size().min())
    return f"p {', '.join(f'{x:.3g}' for x in ps)}: {n} seeds (control {SEEDS_EXP})"


#: Fig. 12's control of "similar throughput under RED": windows capped below the 20 of the
#: runs, where Tahoe's climb back from one segment after a fast retransmit is shorter.
CONTROL_WINDOWS = (8, 4)


def _rel_errors(data, variant: str, exp: str) -> list[float]:
    """model / sim - 1 of the throughput at every p of both queues (means)."""
    out = []
    for queue in ("red", "droptail"):
        m = series(data, "model", "p", model_metric="throughput_pps", label="model",
                   variant=variant, aqm=queue, exp=exp)
        s_ = series(data, "simulation", "p", sim_metric="throughput_pps", variant=variant,
                    aqm=queue, exp=exp)
        out += [mv / s_.mean[s_.x.index(x)] - 1 for x, mv in zip(m.x, m.mean, strict=True)
                if x in s_.x and s_.mean[s_.x.index(x)] > 0]
    return out


def _tracks(data, variant: str, what: str):
    """The model within the paper's tolerance of the simulation at every p, both queues: the
    gap's interval (the simulated mean's t interval, Bonferroni over the points) inside the
    tolerance holds the point, outside fails it, across undecided."""
    f = data.figure.id
    sim_m, mod_m = (("throughput_pps", "throughput_pps") if what == "throughput"
                    else ("timeout_fraction", "timeout_probability"))
    rows = []
    for queue in ("red", "droptail"):
        m = series(data, "model", "p", model_metric=mod_m, label="model", variant=variant,
                   aqm=queue, exp="paper002-scenario1")
        s = _s1_sim(data, sim_metric=sim_m, variant=variant, aqm=queue)
        rows += [(queue, x, mv, s.samples[s.x.index(x)]) for x, mv in zip(m.x, m.mean,
                                                                          strict=True)]
    level = 1 - 0.05 / max(len(rows), 1)
    bad, unsure = _gaps(rows, what, level)
    n = len(rows)
    v = FAILS if bad else INCONCLUSIVE if unsure else HOLDS
    tol_txt = ("a quarter of the simulated throughput" if what == "throughput"
               else f"{Q_TOL} on Q")
    short = (f"{n - len(bad) - len(unsure)} of {n} points within {tol_txt} "
             f"({_seeds_note(data)})"
             + (f"; outside at {len(bad)}" if bad else "")
             + (f"; undecided at {len(unsure)}" if unsure else ""))
    why = ""
    if v != HOLDS:
        why = "; ".join(bad + unsure)
        if bad and what == "Q":
            why += " | " + _backoff_note(data, variant)
        if what == "Q" and variant == "newreno":
            why += " | " + _own_window_control(rows, level)
        if what == "throughput":
            main = _rel_errors(data, variant, "paper002-scenario1")
            ctrl = _rel_errors(data, variant, "paper002-scenario1-nobackoff")
            if main and ctrl:
                why += (f" | model / sim - 1 from {min(main):+.0%} to {max(main):+.0%}; "
                        f"control, the back-off off on both sides (the engine's RTO fixed at "
                        f"T0, the model's time-out period T0 per expiry): from "
                        f"{min(ctrl):+.0%} to {max(ctrl):+.0%} (the model's E[Z_TO] restarts "
                        "the back-off every cycle, the engine's doubling carries over)")
    words = ("'Throughput estimation is in the correct range for Tahoe and NewReno in both the "
             "RED and the DropTail queueing environments'" if what == "throughput" else
             "'The analytical formulas estimate the simulation results with good accuracy "
             "throughout the considered range of error rates'")
    return [ClaimResult(f, f"The model tracks simulation over the whole p range ({what}, "
                           f"{variant})", "simulation", v, short + (" | " + why if why else ""),
                        True, short=short, why=why,
                        reading=f"{words}: within {tol_txt} at every p of both queues (the "
                                f"interval at {level:.4f}, Bonferroni over the points)")]


def _gaps(rows, what: str, level: float) -> tuple[list[str], list[str]]:
    """The points of (queue, p, model value, simulated samples) where the model is outside
    the tolerance of the simulation (the gap's interval clear of it) and where undecided."""
    from ..experiments.stats import mean_ci

    bad, unsure = [], []
    for queue, x, mv, smp in rows:
        c = mean_ci(smp, level)
        sv, ci = c.mean, c.halfwidth if math.isfinite(c.halfwidth) else math.inf
        tol = THR_TOL * sv if what == "throughput" else Q_TOL
        gap = abs(mv - sv)
        if gap - ci > tol:
            bad.append(f"{queue} p={x:.3g}: model {mv:.3g} vs sim {sv:.3g}±{ci:.2g}")
        elif gap + ci > tol:
            unsure.append(f"{queue} p={x:.3g}: model {mv:.3g} vs sim {sv:.3g}±{ci:.2g}")
    return bad, unsure


def _own_window_control(rows, level: float) -> str:
    """NewReno's Q: the paper evaluates eq. (18)-(19) with Tahoe's window law for both
    variants (Sec. 5.2.1, "a simplification"), which puts more mass on windows too small for
    three duplicate ACKs than NewReno, resuming at half its window, has. The control: the
    model over NewReno's own stationary window law (``q_window="own"``), the same runs."""
    from .. import models

    own = [(queue, x, models.evaluate("aqm-renewal", variant="newreno", queue=queue, p=x,
                                      rtt_s=0.24, timeout_s=0.72, max_window=20,
                                      timeout_formula="approximate",
                                      q_window="own").timeout_probability, smp)
           for queue, x, _, smp in rows]
    bad, unsure = _gaps(own, "Q", level)
    v = FAILS if bad else INCONCLUSIVE if unsure else HOLDS
    return ("the model takes Tahoe's window law for NewReno's Q (Sec. 5.2.1), more small "
            "windows than NewReno has | control, the model over NewReno's own window law "
            f"(q_window='own'), the same runs: {len(own) - len(bad) - len(unsure)} of "
            f"{len(own)} points within {Q_TOL} on Q"
            + (f"; outside at {'; '.join(bad)}" if bad else "")
            + (f"; undecided at {'; '.join(unsure)}" if unsure else "") + f": {v}")


def _backoff_note(data, variant: str) -> str:
    """Where Q is off: the engine counts every expiry of a backed-off timer as a time-out,
    the model one per time-out interval; the runs' own numbers of time-outs and loss events."""
    r = data.runs()
    r = r[r["variant"] == variant]
    to = int(r["timeouts"].sum())
    return (f"the engine's Q counts every expiry of a backed-off timer ({to} time-outs over "
            f"{len(r)} runs of {variant}); the model's one time-out interval per loss event")


def _droptail_more_timeouts(data, variant):
    out = []
    for src in ("model", "simulation"):
        kw = dict(sim_metric="timeout_fraction", model_metric="timeout_probability",
                  label="model", variant=variant)
        dt = series(data, src, "p", aqm="droptail", **kw)
        red = series(data, src, "p", aqm="red", **kw)
        c = pairwise_claim(data.figure.id, "DropTail gives far more time-outs than RED", src,
                           "DropTail", dt, "RED", red, "p", 0.02, True)
        c.reading = ("'the type of queueing environment with its assumed packet loss behavior "
                     "has a big impact on the occurrence of time-outs': DropTail's Q above "
                     "RED's (or equal within 0.02) at every p, above somewhere")
        if c.verdict != HOLDS:
            c.why = c.detail
        out.append(c)
    return out


def _newreno_q_above(data):
    """'the NewReno variant has a slightly higher risk of experiencing a time-out than Tahoe
    ... the difference ... appear[s] to be bigger in the model than observed in the
    simulations'."""
    out = []
    for src in ("model", "simulation"):
        parts = []
        for queue in ("red", "droptail"):
            parts += ordering(data, f"NewReno >= Tahoe ({queue})", "newreno", "tahoe", "p",
                              primary="model", label="model", margin=0.02,
                              sim_metric="timeout_fraction", model_metric="timeout_probability",
                              aqm=queue, sources=(src,))
        for p, q in zip(parts, ("red", "droptail"), strict=True):
            p.claim = f"NewReno >= Tahoe ({q})"
        c = combine(data.figure.id, "NewReno's Q slightly above Tahoe's", parts)
        c.primary = True
        c.reading = ("'the NewReno variant has a slightly higher risk of experiencing a "
                     "time-out than Tahoe': NewReno's Q above or equal (within 0.02) at every p "
                     "of both queues, above somewhere")
        if c.verdict != HOLDS:
            c.why = "; ".join(p.short for p in parts if p.verdict != HOLDS)
            if src == "simulation":
                c.why += " | " + _small_window_control(data)
        out.append(c)
    # the difference bigger in the model than in the simulation (per queue, mean over p)
    rows, vs = [], []
    for queue in ("red", "droptail"):
        kw = dict(label="model", sim_metric="timeout_fraction",
                  model_metric="timeout_probability", aqm=queue)
        mn = series(data, "model", "p", variant="newreno", **kw)
        mt = series(data, "model", "p", variant="tahoe", **kw)
        sn = series(data, "simulation", "p", variant="newreno", **kw)
        st = series(data, "simulation", "p", variant="tahoe", **kw)
        dm = float(np.mean([a - b for a, b in zip(mn.mean, mt.mean, strict=True)]))
        from .claims import propagate

        npts = len(sn.x)
        e = propagate(lambda *m, n=npts: float(np.mean(np.array(m[:n]) - np.array(m[n:]))),
                      list(sn.samples) + list(st.samples))
        vv = HOLDS if dm > e.hi else FAILS if dm < e.lo else INCONCLUSIVE
        vs.append(vv)
        rows.append(f"{queue}: mean excess of NewReno's Q, model {dm:+.3f}, simulation "
                    f"{e.text()} ({vv})")
    v = FAILS if FAILS in vs else HOLDS if all(x == HOLDS for x in vs) else INCONCLUSIVE
    out.append(ClaimResult(data.figure.id, "NewReno's Q excess over Tahoe's bigger in the model "
                           "than in the simulation", "simulation", v, "; ".join(rows), True,
                           why="" if v == HOLDS else "; ".join(rows),
                           reading="'the difference between time-out probabilities for the "
                                   "different TCP versions appear to be bigger in the model "
                                   "than observed in the simulations': the model's mean excess "
                                   "over p above the simulated one's interval, both queues"))
    return out


def _small_window_control(data) -> str:
    """Why the engine's NewReno times out less than its Tahoe: Tahoe restarts from one
    segment after every fast retransmit, and a loss in a window too small to return three
    duplicate ACKs ends in a time-out; NewReno resumes at half its window. (The model takes
    Tahoe's window law for both variants, Sec. 5.2.1, which puts NewReno above.) The control:
    the same runs with fast retransmit on the first duplicate ACK, which leaves a time-out only
    to a loss with nothing sent after it or a lost retransmission."""
    ctrl = "paper002-scenario1-dupack1"
    kw = dict(sim_metric="timeout_fraction", aqm="red")
    t, n = (series(data, "simulation", "p", variant=v, **kw) for v in VARIANTS)
    i = max(range(len(t.x)), key=lambda j: t.mean[j] - n.mean[j])
    ct, cn = (series(data, "simulation", "p", variant=v, exp=ctrl, **kw) for v in VARIANTS)
    parts = []
    for queue in ("red", "droptail"):
        parts += ordering(data, f"NewReno >= Tahoe ({queue})", "newreno", "tahoe", "p",
                          primary="simulation", margin=0.02, sim_metric="timeout_fraction",
                          exp=ctrl, aqm=queue, sources=("simulation",))
    cc = combine(data.figure.id, "NewReno's Q slightly above Tahoe's", parts)
    gap = [a - b for a, b in zip(t.mean, n.mean, strict=True)]
    cgap = [a - b for a, b in zip(ct.mean, cn.mean, strict=True)]
    return (f"RED, p={t.x[i]:.3g}: Q Tahoe {fmt(t.mean[i])} vs NewReno {fmt(n.mean[i])}: "
            "Tahoe restarts from one segment after every fast retransmit and a loss in a "
            "window too small for three duplicate ACKs ends in a time-out, NewReno resumes at "
            "half its window (the model gives both Tahoe's window law, Sec. 5.2.1) | control, "
            "the same runs with fast retransmit on the first duplicate ACK: Q Tahoe "
            f"{fmt(ct.mean[i])} vs NewReno {fmt(cn.mean[i])} at p={t.x[i]:.3g}; Tahoe's Q above "
            f"NewReno's by at most {max(cgap):+.3f} over RED's p (this run: {max(gap):+.3f}); "
            f"'NewReno above' {cc.verdict} on the control ({cc.short})")


def claims_q(variant):
    def fn(data):
        out = _tracks(data, variant, "Q") + _droptail_more_timeouts(data, variant)
        if variant == "newreno":
            out += _newreno_q_above(data)
        return out
    return fn


def _dt_ratio(data, src, variant):
    """Throughput under DropTail over throughput under RED at every p: the model's, or the
    engine's with its delta-method interval."""
    from .claims import exact, ratio_estimate

    kw = dict(sim_metric="throughput_pps", model_metric="throughput_pps", label="model",
              variant=variant)
    if src == "model":
        dt = series(data, src, "p", aqm="droptail", exp="paper002-scenario1", **kw)
        red = series(data, src, "p", aqm="red", exp="paper002-scenario1", **kw)
    else:
        dt, red = (_s1_sim(data, aqm=q, **kw) for q in ("droptail", "red"))
    if src == "model":
        return dt.x, [exact(a / b) for a, b in zip(dt.mean, red.mean, strict=True)]
    return dt.x, [ratio_estimate(a, b) for a, b in zip(dt.samples, red.samples, strict=True)]


def claims_thr(variant):
    def fn(data):
        out = _tracks(data, variant, "throughput")
        if variant != "newreno":
            return out
        from .claims import Estimate

        # "for independent packet losses, the Tahoe and NewReno version achieve similar
        # throughput"
        for src in ("model", "simulation"):
            kw = dict(sim_metric="throughput_pps", model_metric="throughput_pps",
                      label="model", aqm="red")
            v, txt = _similar(series(data, src, "p", variant="tahoe", **kw),
                              series(data, src, "p", variant="newreno", **kw), src)
            why = "" if v == HOLDS else txt + " | " + _window_control(data, src)
            out.append(ClaimResult(data.figure.id, "Under RED (independent losses) Tahoe and "
                                   "NewReno achieve similar throughput", src, v, txt, True,
                                   why=why,
                                   reading="'for independent packet losses, the Tahoe and "
                                           "NewReno version achieve similar throughput': within "
                                           "a tenth at every p"))
        # "In the DropTail environment the NewReno throughput is more heavily affected by the
        # correlated losses than Tahoe throughput": DropTail/RED lower for NewReno
        for src in ("model", "simulation"):
            xs, rn = _dt_ratio(data, src, "newreno")
            _, rt = _dt_ratio(data, src, "tahoe")
            if src == "model":
                from .claims import Series

                a = Series(xs, [e.value for e in rt], [0.0] * len(xs))
                b = Series(xs, [e.value for e in rn], [0.0] * len(xs))
                c = pairwise_claim(data.figure.id, "Tahoe's DropTail/RED >= NewReno's", src,
                                   "Tahoe", a, "NewReno", b, "p", 0.01, True)
            else:
                outs, ests = [], []
                for et, en in zip(rt, rn, strict=True):
                    w = math.hypot(math.log(et.hi / et.value), math.log(en.hi / en.value)) \
                        if all(math.isfinite(v) and v > 0 for v in (et.hi, en.hi)) \
                        else math.nan
                    q = et.value / en.value
                    e = Estimate(q, q * math.exp(-w), q * math.exp(w))
                    ests.append(e)
                    outs.append("above" if e.lo > 1 else "below" if e.hi < 1 else "equal"
                                if 0.99 < e.lo and e.hi < 1.01 else "undecided")
                vv = FAILS if "below" in outs else HOLDS if all(o in ("above", "equal") for
                                                                o in outs) and "above" in outs \
                    else INCONCLUSIVE
                counts = ", ".join(f"{o} at {outs.count(o)}" for o in
                                   ("above", "equal", "below", "undecided") if o in outs)
                c = ClaimResult(data.figure.id, "Tahoe's DropTail/RED >= NewReno's", src, vv,
                                f"Tahoe vs NewReno: {counts} of {len(outs)} points "
                                "(the ratio of the two ratios' interval against 1; "
                                f"{_seeds_note(data)})", True)
                c.numbers = dict(x=xs, outcomes=outs, estimates=ests)
            detail = "DropTail / RED throughput: " + "; ".join(
                f"p={x:.3g}: Tahoe {a.text()}, NewReno {b.text()}" for x, a, b in
                zip(xs, rt, rn, strict=True))
            cc = combine(data.figure.id, "Under DropTail NewReno's throughput suffers more than "
                         "Tahoe's (relative to RED)", [c])
            cc.detail = detail + " | " + cc.detail
            cc.primary = True
            cc.reading = ("'In the DropTail environment the NewReno throughput is more heavily "
                          "affected by the correlated losses than Tahoe throughput': NewReno's "
                          "DropTail/RED throughput ratio below Tahoe's (the ratio of the two "
                          "ratios above 1) at every p, or equal within 1%, below somewhere")
            if cc.verdict != HOLDS:
                cc.why = detail
                if src == "model":
                    cc.why += " | " + _q_route_control(xs, c.numbers.get("outcomes"))
                else:
                    cc.why += " | " + _undecided_text(xs, c.numbers["outcomes"],
                                                      c.numbers["estimates"], data)
            out.append(cc)
        return out
    return fn


def _undecided_text(xs, outcomes, ests, data) -> str:
    """The points the runs leave undecided: the effect (Tahoe's DropTail/RED over NewReno's,
    from 1) against its interval's half-width, at the seeds the point has."""
    runs = pd.concat([data.runs("paper002-scenario1"), data.runs(SEEDS_EXP)])
    rows = []
    for x, o, e in zip(xs, outcomes, ests, strict=True):
        if o != "undecided":
            continue
        n = int(runs[runs["p"] == x].groupby(["aqm", "variant"])["seed"].nunique().min())
        rows.append(f"p={x:.3g}: Tahoe's ratio over NewReno's {e.text()} with {n} seeds, an "
                    f"effect of {e.value - 1:+.1%} against an interval half-width of "
                    f"{(e.hi - e.lo) / 2 / e.value:.0%}")
    return ("undecided where time-outs dominate both queues and the runs' throughput varies "
            "most: " + "; ".join(rows) + f" (the control {SEEDS_EXP} adds seeds there)")


def _s1_model(variant: str, queue: str, p: float):
    from .. import models

    return models.evaluate("aqm-renewal", **_model_s1("approximate")(
        dict(variant=variant, aqm=queue, p=p)))


def droptail_cycle_ratio(variant: str, p: float) -> tuple[float, float, float]:
    """The model's DropTail / RED throughput of one variant with RED's time-out probability
    in the DropTail cycle (eq. (2) with DropTail's E[A], E[B], E[Y], E[Z_FR], E[Z_TO]):
    DropTail's effect through the cycle alone; with the two Q's (DropTail, RED)."""
    dt, red = _s1_model(variant, "droptail", p), _s1_model(variant, "red", p)
    q = red.timeout_probability
    per_rtt = (dt.mean_packets_before_loss + dt.mean_packets_after_loss) / (
        dt.mean_cycle_rounds + (1 - q) * dt.mean_fast_recovery_rounds
        + q * dt.mean_timeout_s / S1_RTT_S)
    return per_rtt / red.throughput_per_rtt, dt.timeout_probability, q


def _q_route_control(xs, outcomes) -> str:
    """Where the model's NewReno suffers less under DropTail than Tahoe: DropTail acts on the
    throughput through the cycle (eq. (12): fewer packets after the loss; NewReno's longer
    fast recovery, Sec. 3.4) and through the time-out probability Q. At the largest p nearly
    every loss times out under both queues, and NewReno's DropTail Q (eq. (19), no factor for
    kappa duplicate ACKs arriving) falls below its RED Q (eq. (18)). The control: each
    variant's DropTail cycle with its RED Q (:func:`droptail_cycle_ratio`)."""
    from .claims import Series

    rows, ctrl = [], {v: [] for v in VARIANTS}
    for i, p in enumerate(xs):
        res = {v: droptail_cycle_ratio(v, p) for v in VARIANTS}
        for v in VARIANTS:
            ctrl[v].append(res[v][0])
        if outcomes is None or outcomes[i] != "above":
            (rt, qt_dt, qt_red), (rn, qn_dt, qn_red) = res["tahoe"], res["newreno"]
            rows.append(f"p={p:.3g}: Q DropTail / RED Tahoe {qt_dt:.4f} / {qt_red:.4f}, "
                        f"NewReno {qn_dt:.4f} / {qn_red:.4f}; with RED's Q DropTail / RED "
                        f"Tahoe {rt:.3f}, NewReno {rn:.3f}")
    t, n = (Series(list(xs), ctrl[v], [0.0] * len(xs)) for v in VARIANTS)
    c = pairwise_claim("", "", "model", "Tahoe", t, "NewReno", n, "p", 0.01, True)
    return ("at the largest p nearly every loss ends in a time-out under both queues, and "
            "the model's NewReno times out less under DropTail (eq. (19), without eq. (18)'s "
            "factor for kappa duplicate ACKs arriving) than under RED | control, each variant's "
            "DropTail cycle with its RED time-out probability (DropTail's effect through the "
            "cycle alone): " + "; ".join(rows) + f"; the claim on the control: {c.verdict} "
            f"({c.short})")


def _similar(t, n, src: str) -> tuple[str, str]:
    """Fig. 12's "similar throughput" (within a tenth at every p) on Tahoe's and NewReno's
    series: the model exactly, the engine by the ratio's interval (Bonferroni over p)."""
    from .claims import ratio_estimate

    if src == "model":
        rel = max(abs(a - b) / max(a, b) for a, b in zip(t.mean, n.mean, strict=True))
        return (HOLDS if rel <= SIMILAR else FAILS,
                f"largest |Tahoe - NewReno| / max {rel:.1%}")
    es = [ratio_estimate(a, b, 1 - 0.05 / len(t.x)) for a, b in
          zip(n.samples, t.samples, strict=True)]
    inside = all(1 - SIMILAR < e.lo and e.hi < 1 + SIMILAR for e in es)
    outside = any(e.hi < 1 - SIMILAR or e.lo > 1 + SIMILAR for e in es)
    return (HOLDS if inside else FAILS if outside else INCONCLUSIVE,
            "NewReno / Tahoe: " + "; ".join(f"p={x:.3g} {e.text()}" for x, e in
                                            zip(t.x, es, strict=True)))


def _window_control(data, src: str) -> str:
    """Why Tahoe and NewReno differ under RED: after a fast retransmit Tahoe climbs back from
    one segment to half its window in slow start (about log2(W/2) RTTs at every loss event),
    NewReno resumes at half; the cost grows with the window at the loss. The control: the
    same runs (or the model) with the window capped at :data:`CONTROL_WINDOWS`."""
    from .. import models

    xs = sorted(data.runs("paper002-scenario1")["p"].unique())
    rows = []
    for cap in CONTROL_WINDOWS:
        if src == "model":
            thr = {v: [models.evaluate("aqm-renewal", variant=v, queue="red", p=p, rtt_s=0.24,
                                       timeout_s=0.72, max_window=cap,
                                       timeout_formula="approximate").throughput_pps
                       for p in xs] for v in VARIANTS}
            from .claims import Series

            t, n = (Series(xs, thr[v], [0.0] * len(xs)) for v in VARIANTS)
            v, txt = _similar(t, n, src)
            rows.append(f"window {cap}: {txt}, {v}")
        else:
            kw = dict(aqm="red", cap_packets=cap, exp="paper002-scenario1-window")
            t, n = (series(data, "simulation", "p", variant=v, sim_metric="throughput_pps",
                           **kw) for v in VARIANTS)
            q = series(data, "simulation", "p", variant="tahoe", sim_metric="timeout_fraction",
                       **kw)
            v, _ = _similar(t, n, src)
            r = [a / b for a, b in zip(n.mean, t.mean, strict=True)]
            i = max(range(len(r)), key=lambda j: abs(math.log(r[j])))
            rows.append(f"window {cap}: NewReno / Tahoe furthest from 1 at p={t.x[i]:.3g}: "
                        f"{r[i]:.3f} (Tahoe's Q there {fmt(q.mean[i])}), 'similar' {v}")
    return ("after a fast retransmit Tahoe climbs back from one segment to half its window "
            "in slow start, NewReno resumes at half: the cost grows with the window at the loss"
            f" | control, the same {'model' if src == 'model' else 'runs'} with the window "
            "capped below 20: " + "; ".join(rows))


def _spec(metric_sim, metric_model, ylabel, variant):
    return PlotSpec(x="p", xlabel="p (drop / Good -> Bad probability per packet)",
                    ylabel=ylabel, xlog=True, sim_metric=metric_sim, model_metric=metric_model,
                    series="aqm", where={"variant": variant}, sim_label="engine",
                    series_names={"red": "RED (independent)", "droptail": "DropTail (burst)"},
                    model_label_names={"model": "model"})


for _n, _v, _what in ((9, "tahoe", "Q"), (10, "newreno", "Q"), (11, "tahoe", "throughput"),
                      (12, "newreno", "throughput")):
    _name = "TCP-Tahoe" if _v == "tahoe" else "TCP-NewReno"
    register(Figure(
        f"paper002-fig{_n}", "002",
        f"Fig. {_n}: {'time-out probability' if _what == 'Q' else 'throughput'} for {_name} "
        "in an idealized DropTail and RED environment", "model+simulation",
        f"scenario I, {_name}: {'Q' if _what == 'Q' else 'throughput'} vs p under both "
        "droppers, model and engine", experiments,
        claims_q(_v) if _what == "Q" else claims_thr(_v),
        _spec("timeout_fraction", "timeout_probability", "time-out probability Q", _v)
        if _what == "Q" else _spec("throughput_pps", "throughput_pps",
                                   "throughput (packets/s)", _v),
        notes="The engine: fixed T0 0.72 s with back-off (ns-2's agents without limited "
              "transmit or delayed growth, NewReno's timer restarted on every partial ACK); Q "
              "in the engine = timeouts / loss events (each backed-off expiry counts)."))


# =================================================================== scenario II (Figs. 13-18)
# The dumbbell of lossytcp.scenario.paper002_scenario2 (Fig. 8): 30 senders, a 15 Mb/s 100 ms
# bottleneck with a 150-packet RED or DropTail queue, Tahoe everywhere, 500 B, window 20.

#: The senders as the paper's ns-2 ran them (2001-2002): ns-2's Agent/TCP estimator (one
#: timed segment per window, srtt + 4 rttvar in ticks) with its tick of that time,
#: ``tcpTick_ = 0.1`` s (ns-default.tcl: "default changed on 2002/03/07" to 0.01), and without
#: limited transmit or delayed growth (the model's kappa = 3 duplicate ACKs, as scenario I).
#: With the engine's RFC 6298 timer (granularity 0, min RTO 0.2 s) the RTO sits just above
#: the 0.24 s RTT and most time-outs are spurious (measured: 127 of 138 at 0.5 downloads/s,
#: RED), which no model of loss describes; with the 0.1 s tick the RTO is 0.5-0.7 s, the
#: paper's "time-out period of the order of three round-trip times", and none is spurious.
S2_TCP = dict(profile="ns2", granularity_s=0.1, limited_transmit=False, delay_growth=False)
#: Download arrivals per second at each of the 29 other senders: they set the loss level
#: (measured, never set). The bottleneck saturates near 0.65/s (29 x 0.65 x 800 kb = 15 Mb/s);
#: DropTail's loss rises from 0.7% to 9% between 0.60 and 0.65, hence its finer grid there.
S2_RATES = {"red": (0.5, 0.53, 0.55, 0.58, 0.6, 0.63, 0.65, 0.7, 0.8),
            "droptail": (0.55, 0.58, 0.6, 0.61, 0.62, 0.63, 0.64, 0.65, 0.7)}
#: Quick: the same regime as the full size (RED's average below max_th at the illustrated
#: rate, 0.6; 0.7 overloads the bottleneck and pushes it above), fewer rates.
S2_QUICK_RATES = {"red": (0.55, 0.6, 0.65), "droptail": (0.6, 0.63, 0.65)}
#: Rates whose runs also trace the bottleneck queue (the middle one gives Figs. 15-18).
S2_TRACE_RATES = {"red": (0.55, 0.6, 0.65), "droptail": (0.61, 0.63, 0.65)}
S2_QUICK_TRACE_RATES = {"red": (0.55, 0.6), "droptail": (0.6, 0.63)}
S2_SIZE = {False: dict(duration_s=2000.0, seeds=4), True: dict(duration_s=100.0, seeds=6)}
#: Trace runs: the window trace (time-out lengths) over the whole run, the queue trace over its
#: last ``window_s`` (a queue trace holds every packet at the bottleneck, ~0.3 MB/s of JSON).
#: Full size: 60 s windows (~8 drop-drop pairs expected under RED if drops were independent,
#: enough to see a factor-2 departure; 30 s gave ~4), ~20 MB of stored trace per run.
S2_TRACE_SIZE = {False: dict(duration_s=300.0, window_s=60.0, seeds=2),
                 True: dict(duration_s=60.0, window_s=20.0, seeds=2)}
S2_AQMS = ("red", "droptail")
#: RTT of A1 -> D1 without queueing: 2 x (10 + 100 + 10) ms of propagation, a 500 B packet
#: and a 40 B ACK serialised at 90, 15 and 90 Mb/s.
RTT_MIN_S = 0.24 + (500 + 40) * 8 * (2 / 90e6 + 1 / 15e6)
PKT_TIME_S = 500 * 8 / 15e6          # one packet at the bottleneck
#: A round: the observed flow's packets reaching B with gaps below 100 ms. Measured gaps are
#: bimodal: within a window under ~30 ms (mostly 0.04 ms back to back at 90 Mb/s, or 0.27-3 ms
#: clocked by ACKs), between windows an RTT later (>= ~170 ms); none in between.
ROUND_GAP_S = 0.1
#: A burst (Figs. 16, 18): packets reaching B with gaps of at most 1 ms (~4 packet times).
BURST_GAP_S = 1e-3
#: Independence within a factor 2 of the conditional drop probability counts as "equal".
INDEP_FACTOR = 2.0


def s2_scenario(aqm: str, rate: float, duration_s: float, *, window_trace: bool = False,
                queue_window: tuple[float, float] | None = None,
                red_wait: bool | None = None):
    """Scenario II at ``rate`` downloads/s per node with :data:`S2_TCP` senders; optional
    traces, and RED's ``wait`` set (the control run of Figs. 15-16)."""
    import dataclasses

    from .. import scenario as s

    sc = s.paper002_scenario2(aqm, arrival_rate_per_s=rate, duration_s=duration_s)
    tcp = dataclasses.replace(sc.flows[0].tcp, **S2_TCP)
    net = sc.topology
    if red_wait is not None:
        net = dataclasses.replace(net, queue=s.Red(packets=150, wait=red_wait))
    trace = s.Tracing(window=window_trace, queue=None if queue_window is None
                      else s.QueueTrace("B->C", *queue_window))
    return sc.replace(topology=net, trace=trace,
                      flows=tuple(dataclasses.replace(f, tcp=tcp) for f in sc.flows),
                      traffic=tuple(dataclasses.replace(t, tcp=tcp) for t in sc.traffic))


@functools.lru_cache(maxsize=8)
def _template(aqm: str, red_wait: bool | None = None) -> str:
    return json.dumps(s2_scenario(aqm, 0.5, 1.0, red_wait=red_wait).engine())


def s2_engine(aqm: str, rate: float, duration_s: float, *,
              queue_window: tuple[float, float] | None = None, window_trace: bool = False,
              red_wait: bool | None = None) -> dict:
    """``s2_scenario(...).engine()``, fast: the scenario is built and checked once per queue
    (routing 60 endpoints costs ~0.1 s a build), then only the arrival rate, the duration and
    the traces change (tests/figures checks it equals the built scenario's engine form)."""
    from .. import scenario as s

    e = json.loads(_template(aqm, red_wait))
    e["duration_s"] = float(s.Scenario(duration_s=duration_s).duration_s)
    rate = _checked_rate(rate)
    for t in e["traffic"]:
        t["arrival_rate_per_s"] = rate
    q = None
    if queue_window is not None:
        qt = s.QueueTrace("B->C", *queue_window)
        q = {"link": _bc_link(), "from_s": qt.from_s, "to_s": qt.to_s}
    e["trace"] = {"sends": False, "window": bool(window_trace), **({"queue": q} if q else {})}
    return e


def _checked_rate(rate) -> float:
    """The arrival rate as ``scenario.Transfers`` checks it: :func:`s2_engine` writes it past
    the scenario's checks, and a NaN would reach the engine as invalid JSON."""
    from .._validate import in_range
    from ..errors import ParameterError

    x = in_range("arrival_rate_per_s", rate, 0, 1e6)
    if x <= 0:
        raise ParameterError("arrival_rate_per_s", rate, "must be > 0 arrivals per second")
    return x


@functools.lru_cache(maxsize=1)
def _bc_link() -> int:
    """Index of the bottleneck B -> C among the engine's links."""
    links = json.loads(_template("red"))["links"]
    return next(i for i, lk in enumerate(links) if (lk.get("from"), lk.get("to")) == ("B", "C"))


def _main_scenario(aqm: str, duration_s: float, p) -> dict:
    return {ENGINE_SCENARIO: s2_engine(aqm, p["arrival_rate"], duration_s)}


def _trace_scenario(aqm: str, duration_s: float, window_s: float, traced, p) -> dict:
    qw = (duration_s - window_s, duration_s) if p["arrival_rate"] in traced else None
    return {ENGINE_SCENARIO: s2_engine(aqm, p["arrival_rate"], duration_s, window_trace=True,
                                       queue_window=qw)}


def s2_experiments(quick: bool):
    """Figs. 13-14: per queue, the arrival rate swept, at :data:`S2_SIZE`."""
    size = S2_SIZE[quick]
    rates = S2_QUICK_RATES if quick else S2_RATES
    out = []
    for aqm in S2_AQMS:
        # one argument: a scenario function of two gets the seed as its second
        scen = functools.partial(_main_scenario, aqm, size["duration_s"])
        out.append(Experiment(
            name=f"paper002-s2-{aqm}",
            description=f"Scenario II, {aqm}: persistent Tahoe A1 -> D1 among 100 KB "
                        "downloads from the 29 other senders, arrival rate swept",
            scenario=scen, sweep={"arrival_rate": list(rates[aqm])}, variants=("tahoe",),
            seeds=size["seeds"], metrics=["throughput_pps", "timeout_fraction", "timeouts",
                                          "fast_retransmits", "queue_drops", "packets_sent"]))
    return out


def s2_trace_experiments(quick: bool, control: bool = False):
    """The trace runs: the window trace (time-out lengths) at every rate, the bottleneck's
    queue trace at :data:`S2_TRACE_RATES`; with ``control``, RED with ``wait = false``."""
    size = S2_TRACE_SIZE[quick]
    rates = S2_QUICK_RATES if quick else S2_RATES
    traced = S2_QUICK_TRACE_RATES if quick else S2_TRACE_RATES
    dur, win = size["duration_s"], size["window_s"]
    out = []
    for aqm in S2_AQMS:
        scen = functools.partial(_trace_scenario, aqm, dur, win, traced[aqm])
        out.append(Experiment(
            name=f"paper002-s2-trace-{aqm}",
            description=f"Scenario II, {aqm}: window trace of A1 -> D1, queue trace of B -> C",
            scenario=scen, sweep={"arrival_rate": list(rates[aqm])}, variants=("tahoe",),
            seeds=size["seeds"], metrics=["throughput_pps", "timeout_fraction",
                                          "queue_drops", "packets_sent"]))
    if control:
        mid = traced["red"][len(traced["red"]) // 2]

        def ctrl(p):
            return {ENGINE_SCENARIO: s2_engine("red", p["arrival_rate"], dur,
                                               queue_window=(dur - win, dur), red_wait=False)}
        out.append(Experiment(
            name="paper002-s2-trace-red-nowait",
            description="Control: RED with wait = false (ns-2's wait_ off), queue trace",
            # three times the seeds of one traced rate: about as many drop pairs as the
            # three traced rates give the claim itself
            scenario=ctrl, sweep={"arrival_rate": [mid]}, variants=("tahoe",),
            seeds=3 * size["seeds"], metrics=["queue_drops", "packets_sent"]))
    return out


# ------------------------------------------------------------------- per-run measurements
def _report(res, key: str) -> dict:
    """One run's whole report (a queue trace is megabytes: never all of them at once)."""
    return res.store.runs(res.experiment.name, keys=[key], reports=True)["report"].iloc[0]


def main_measures(rep: dict, bc: int) -> dict:
    """What a Figs. 13-14 run measured of the flow A1 -> D1: p = its packets dropped at the
    bottleneck over its packets sent (the drop rate; see the module notes), Q = time-outs over
    loss events, throughput (arrivals at D1, duplicates included: the paper's throughput), and
    its RTT = :data:`RTT_MIN_S` plus the bottleneck's time-average queue."""
    f = rep["flows"][0]
    link = rep["links"][bc]
    ev = f["timeouts"] + f["fast_retransmits"]
    return dict(p=f["queue_drops"] / f["packets_sent"] if f["packets_sent"] else math.nan,
                Q=f["timeouts"] / ev if ev else math.nan,
                throughput_pps=f["packets_received"] / f["elapsed_s"],
                rtt_s=RTT_MIN_S + link["mean_queue_packets"] * PKT_TIME_S,
                loss_events=ev, drops=f["queue_drops"], early=f["early_drops"],
                forced=f["forced_drops"], utilization=link["utilization"],
                mean_queue=link["mean_queue_packets"], mean_red_avg=link.get("mean_red_avg"))


def timeout_rtos(window_trace) -> tuple[list[float], int]:
    """(the RTO of each time-out that was not itself backed off: the model's T0, and how many
    repeated expiries of a backed-off timer there were). A time-out doubles the RTO (ns-2's
    back-off); any other change of it is a new RTT estimate; a doubling right after another
    is a repeated expiry."""
    first, repeats = [], 0
    prev_rto, prev_was_timeout = None, False
    for _, _, _, rto in window_trace:
        if prev_rto is not None and rto != prev_rto:
            doubled = abs(rto - 2 * prev_rto) <= 1e-9 * rto
            if doubled and prev_was_timeout:
                repeats += 1
            elif doubled:
                first.append(prev_rto)
            prev_was_timeout = doubled
        prev_rto = rto
    return first, repeats


def first_timeout_rtos(window_trace) -> list[float]:
    return timeout_rtos(window_trace)[0]


@dataclass
class LossPattern:
    """The observed flow's losses at the bottleneck in one queue trace, counted so that runs
    add up (each run a stratum of the independence test)."""

    arrivals: int = 0
    drops: int = 0
    after_admit: int = 0          # arrivals whose predecessor (of the flow) was admitted ...
    drops_after_admit: int = 0    # ... and how many of them were dropped: p Good -> Bad
    # consecutive pairs inside one round: previous dropped / admitted x next dropped / admitted
    dd: int = 0
    da: int = 0
    ad: int = 0
    aa: int = 0
    # rounds with a drop followed by >= 1 packet: the fraction of those later packets lost
    rest_fractions: list[float] = field(default_factory=list)
    rounds: int = 0
    rounds_with_drop: int = 0
    # RED's average over each burst of >= 5 packets: (max - min) / mean
    avg_variation: list[float] = field(default_factory=list)

    @property
    def p_drop(self) -> float:
        return self.drops / self.arrivals if self.arrivals else math.nan

    @property
    def p_good_bad(self) -> float:
        return self.drops_after_admit / self.after_admit if self.after_admit else math.nan


def flow_arrivals(qt: dict, flow: int = 0, *, waiting: bool = False):
    """Times, drop flags and RED averages of ``flow``'s data packets in a queue trace (and,
    with ``waiting``, the packets each found waiting)."""
    t = np.asarray(qt["t_s"], dtype=float)
    fl = np.asarray(qt["flow"])
    ev = np.asarray(qt["event"])
    mine = (fl == flow) & (np.asarray(qt["packet"]) == "data")
    avg = np.array([np.nan if a is None else a for a in qt["red_avg"]], dtype=float)
    out = (t[mine], np.isin(ev[mine], ("early", "forced")), avg[mine])
    if waiting:
        return (*out, np.asarray(qt["queue_packets"], dtype=float)[mine])
    return out


def red_base_probability(avg: float, rate_bps: float = 15e6, delay_s: float = 0.1) -> float:
    """RED's drop probability for an average alone (ns-2 2.35's ``calculate_p_new`` with the
    automatic thresholds of ``initialize_params``, max_p 0.1, gentle; 500 B packets, so byte
    mode scales nothing): the model's independent p for every packet of a burst, before
    RED's count since the last drop (``modify_p``) spreads the drops out."""
    ptc = rate_bps / (8 * 500)
    lo = max(5.0, 0.005 * ptc / 2)
    hi, max_p = 3 * lo, 0.1
    if avg < lo:
        return 0.0
    if avg < hi:
        return max_p * (avg - lo) / (hi - lo)
    return min(1.0, max_p + (1 - max_p) * (avg - hi) / hi)


def group_ids(t: np.ndarray, gap_s: float) -> np.ndarray:
    """Consecutive arrivals closer than ``gap_s`` share a group (round or burst)."""
    if not len(t):
        return np.zeros(0, dtype=int)
    return np.concatenate([[0], np.cumsum(np.diff(t) >= gap_s)])


def loss_pattern(qt: dict) -> LossPattern:
    t, d, avg = flow_arrivals(qt)
    lp = LossPattern(arrivals=len(t), drops=int(d.sum()))
    if len(t) < 2:
        return lp
    prev, nxt = d[:-1], d[1:]
    lp.after_admit = int((~prev).sum())
    lp.drops_after_admit = int((~prev & nxt).sum())
    rid = group_ids(t, ROUND_GAP_S)
    same = rid[1:] == rid[:-1]
    lp.dd = int((prev & nxt & same).sum())
    lp.da = int((prev & ~nxt & same).sum())
    lp.ad = int((~prev & nxt & same).sum())
    lp.aa = int((~prev & ~nxt & same).sum())
    lp.rounds = int(rid[-1]) + 1
    for r in np.unique(rid[d]):
        dr = d[rid == r]
        rest = dr[int(np.argmax(dr)) + 1:]
        lp.rounds_with_drop += 1
        if len(rest):
            lp.rest_fractions.append(float(rest.mean()))
    bid = group_ids(t, BURST_GAP_S)
    for b in np.unique(bid):
        a = avg[bid == b]
        if len(a) >= 5 and np.isfinite(a).all() and a.mean() > 0:
            lp.avg_variation.append(float((a.max() - a.min()) / a.mean()))
    return lp


def trace_measures(rep: dict) -> dict:
    """What a trace run measured: the first time-outs' RTOs, and the loss pattern if its
    queue was traced."""
    f = rep["flows"][0]
    qt = rep.get("queue_trace")
    first, repeats = timeout_rtos(f.get("window_trace") or [])
    return dict(t0=first, repeats=repeats, timeouts=f["timeouts"],
                fast_retransmits=f["fast_retransmits"],
                pattern=loss_pattern(qt) if qt else None,
                p=f["queue_drops"] / f["packets_sent"] if f["packets_sent"] else math.nan)


_CACHE: dict[tuple[str, str], dict] = {}


def _runs_measured(res, fn, *args) -> list[dict]:
    """Per run (by rate, then seed): the rate, the seed and ``fn(report, *args)``, computed
    once per process and run (a run's key fixes its report bit for bit)."""
    tag = f"{res.store.path}:{fn.__name__}"
    out = []
    for _, r in res.runs().sort_values(["arrival_rate", "seed"]).iterrows():
        k = (tag, r["key"])
        if k not in _CACHE:
            _CACHE[k] = fn(_report(res, r["key"]), *args)
        out.append(dict(arrival_rate=float(r["arrival_rate"]), seed=int(r["seed"]),
                        **_CACHE[k]))
    return out


# ------------------------------------------------------------- the model at measured values
@functools.lru_cache(maxsize=4096)
def s2_model(aqm: str, p: float, rtt_s: float, timeout_s: float):
    """Tahoe under ``aqm`` at a measured drop rate, RTT and T0: window 20, b = 1, kappa = 3,
    the paper's E[Z_TO] = T0 / (1 - 2p)."""
    from .. import models

    return models.evaluate("aqm-renewal", variant="tahoe", queue=aqm, p=p, rtt_s=rtt_s,
                           timeout_s=timeout_s, max_window=20)


def _t0_by_rate(trace_runs: list[dict]) -> tuple[dict[float, float], float, dict]:
    """T0 per arrival rate: the mean RTO of the first time-outs in that rate's trace runs, or
    over all rates where a rate has fewer than 5 (quiet, low-loss rates)."""
    pooled = [x for r in trace_runs for x in r["t0"]]
    all_mean = float(np.mean(pooled)) if pooled else 3 * RTT_MIN_S
    by: dict[float, list[float]] = {}
    for r in trace_runs:
        by.setdefault(r["arrival_rate"], []).extend(r["t0"])
    out = {k: float(np.mean(v)) if len(v) >= 5 else all_mean for k, v in by.items()}
    return out, all_mean, {k: len(v) for k, v in by.items()}


def s2_runs(data, aqm: str):
    """One row per Figs. 13-14 run: what it measured and the model at its p, RTT and T0."""
    import pandas as pd

    main = _runs_measured(data.result(f"paper002-s2-{aqm}"), main_measures, _bc_link())
    trace = _runs_measured(data.result(f"paper002-s2-trace-{aqm}"), trace_measures)
    t0, t0_all, _ = _t0_by_rate(trace)
    rows = []
    for r in main:
        row = dict(aqm=aqm, **r, t0_s=t0.get(r["arrival_rate"], t0_all))
        if r["p"] > 0 and math.isfinite(r["p"]):
            m = s2_model(aqm, min(r["p"], 0.45), r["rtt_s"], row["t0_s"])
            row.update(Q_model=m.timeout_probability, throughput_pps_model=m.throughput_pps)
        else:
            row.update(Q_model=math.nan, throughput_pps_model=math.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def s2_summary(runs, level: float = 0.95):
    """Per arrival rate: means and CIs of the measured values, the model at the mean p, RTT
    and T0, and the per-run residuals sim - model (Q) and model / sim - 1 (throughput)."""
    import pandas as pd

    recs = []
    for rate, g in runs.groupby("arrival_rate", sort=True):
        rec = dict(aqm=g["aqm"].iloc[0], arrival_rate=rate, n=len(g))
        for col in ("p", "Q", "throughput_pps", "rtt_s"):
            c = mean_ci(g[col].to_numpy(float), level)
            rec[col], rec[f"{col}_ci"] = c.mean, c.halfwidth
        rec["t0_s"] = float(g["t0_s"].iloc[0])
        if rec["p"] > 0:
            m = s2_model(rec["aqm"], min(rec["p"], 0.45), rec["rtt_s"], rec["t0_s"])
            rec["Q_model_at_mean"] = m.timeout_probability
            rec["throughput_pps_model_at_mean"] = m.throughput_pps
        q_res = (g["Q"] - g["Q_model"]).to_numpy(float)
        t_res = (g["throughput_pps_model"] / g["throughput_pps"] - 1).to_numpy(float)
        for name, res in (("Q_resid", q_res), ("thr_rel_err", t_res)):
            c = mean_ci(res, level)
            rec[name], rec[f"{name}_ci"], rec[f"{name}_n"] = c.mean, c.halfwidth, c.n
            rec[f"{name}_p"] = _t_pvalue(res)
        rec["early_fraction"] = float(g["early"].sum() / max(g["drops"].sum(), 1))
        recs.append(rec)
    return pd.DataFrame(recs)


def _t_pvalue(x) -> float:
    """Two-sided one-sample t-test of mean 0 (NaN below two finite values; exact when the
    values do not vary)."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 2:
        return math.nan
    sd = x.std(ddof=1)
    if sd == 0:
        return 1.0 if x.mean() == 0 else 0.0
    from scipy import stats

    t = x.mean() / (sd / math.sqrt(x.size))
    return float(2 * stats.t.sf(abs(t), x.size - 1))


# ------------------------------------------------------------------- claims of Figs. 13-14
def _point_text(r, what: str, col: str, rel: bool, status: str) -> str:
    """One rate's numbers: measured p, the simulated and model values, the residual."""
    k, unit = (100, "%") if rel else (1, "")
    return (f"p={r['p']:.3g}±{fmt(r['p_ci'], 2)}: sim {fmt(r[what])}±{fmt(r[what + '_ci'], 2)}"
            f", model {fmt(r.get(what + '_model_at_mean', math.nan))}; "
            f"{'relative error' if rel else 'residual'} {fmt(k * r[col])}{unit}"
            f"±{fmt(k * r[col + '_ci'], 2)}{unit} ({status})")


def _within_claim(fig: str, claim: str, summ, col: str, tol: float, what: str,
                  rel: bool) -> ClaimResult:
    """Model within ``tol`` of the simulation at every rate: the mean per-run residual's CI
    inside +-tol holds the point, outside it fails it, across the bound is undecided."""
    if not len(summ):
        return ClaimResult(fig, claim, "simulation", INCONCLUSIVE, "no points in range", True)
    parts, bad, unsure, ok = [], [], [], 0
    for _, r in summ.iterrows():
        m, ci = r[col], r[f"{col}_ci"]
        if not math.isfinite(m) or not math.isfinite(ci):
            unsure.append(f"p={r['p']:.3g}")
            status = "undecided"
        elif abs(m) - ci > tol:
            bad.append(f"p={r['p']:.3g}")
            status = "outside"
        elif abs(m) + ci <= tol:
            ok += 1
            status = "within"
        else:
            unsure.append(f"p={r['p']:.3g}")
            status = "undecided"
        parts.append(_point_text(r, what, col, rel, status))
    off = [x for x in parts if not x.endswith("(within)")]
    v = FAILS if bad else INCONCLUSIVE if unsure else HOLDS
    tol_txt = f"{tol:.0%} relative" if rel else f"{tol:g} absolute"
    short = (f"{ok} of {len(summ)} points within {tol_txt}" + (f"; outside at {', '.join(bad)}"
                                                               if bad else "")
             + (f"; undecided at {', '.join(unsure)}" if unsure else ""))
    return ClaimResult(fig, claim, "simulation", v, short + " | " + "; ".join(parts), True,
                       numbers=dict(p=summ["p"].tolist(), resid=summ[col].tolist(),
                                    ci=summ[f"{col}_ci"].tolist()), short=short,
                       why="" if v == HOLDS else "; ".join(off))


def _direction_claim(fig: str, claim: str, summ, col: str, sign: int, what: str,
                     rel: bool) -> ClaimResult:
    """The residual significantly of ``sign`` at every rate (one-sample t-tests over the seeds,
    Holm-corrected over the rates): holds; significantly the other way somewhere: fails."""
    if not len(summ):
        return ClaimResult(fig, claim, "simulation", INCONCLUSIVE, "no points in range", True)
    adj = holm(summ[f"{col}_p"].tolist())
    outs, parts = [], []
    k, unit = (100, "%") if rel else (1, "")
    for (_, r), pa in zip(summ.iterrows(), adj, strict=True):
        m = r[col]
        if math.isfinite(pa) and pa < FAMILY_ALPHA and m != 0:
            o = "as claimed" if np.sign(m) == sign else "against"
        else:
            o = "undecided"
        outs.append(o)
        parts.append(_point_text(r, what, col, rel, f"Holm p {fmt(pa, 2)}: {o}"))
    v = FAILS if "against" in outs else HOLDS if all(o == "as claimed" for o in outs) \
        else INCONCLUSIVE
    short = (f"{outs.count('as claimed')} of {len(outs)} points significantly as claimed"
             + (f", {outs.count('against')} against" if "against" in outs else "")
             + f"; mean residual {fmt(k * float(np.nanmean(summ[col])))}{unit}")
    return ClaimResult(fig, claim, "simulation", v, short + " | " + "; ".join(parts), True,
                       numbers=dict(p=summ["p"].tolist(), resid=summ[col].tolist(),
                                    holm_p=adj, outcomes=outs), short=short)


def _q_with_p_good_bad(data, aqm: str, what: str = "Q") -> str:
    """The DropTail comparison (``what``: "Q" or "throughput_pps") again with p read as the
    paper defines it, the probability of a drop given that the flow's previous packet got
    through, measured in the queue traces."""
    tr = _runs_measured(data.result(f"paper002-s2-trace-{aqm}"), trace_measures)
    runs = s2_runs(data, aqm)
    parts = []
    for rate in sorted({r["arrival_rate"] for r in tr if r["pattern"] is not None}):
        pats = [r["pattern"] for r in tr if r["arrival_rate"] == rate and r["pattern"]]
        after = sum(x.after_admit for x in pats)
        pgb = sum(x.drops_after_admit for x in pats) / after if after else math.nan
        pdr = sum(x.drops for x in pats) / max(sum(x.arrivals for x in pats), 1)
        g = runs[runs["arrival_rate"] == rate]
        if not len(g) or not pgb > 0:
            continue
        q = mean_ci(g[what].to_numpy(float))
        m = s2_model(aqm, min(pgb, 0.45), float(g["rtt_s"].mean()), float(g["t0_s"].iloc[0]))
        mv = m.timeout_probability if what == "Q" else m.throughput_pps
        parts.append(f"rate {rate:g}/s: p Good->Bad {fmt(pgb)} (drop rate in the same traces "
                     f"{fmt(pdr)}), model {'Q' if what == 'Q' else 'throughput'} there "
                     f"{fmt(mv)} vs sim {fmt(q.mean)}±{fmt(q.halfwidth, 2)}")
    return "; ".join(parts)


def _episodes_text(data, aqm: str) -> str:
    """Q counting a back-off sequence once, as the model's time-out interval does (the engine
    counts every expiry), from the trace runs' window traces, beside Q and the model there."""
    tr = _runs_measured(data.result(f"paper002-s2-trace-{aqm}"), trace_measures)
    parts = []
    for rate in sorted({r["arrival_rate"] for r in tr}):
        g = [r for r in tr if r["arrival_rate"] == rate]
        first = sum(len(r["t0"]) for r in g)
        to, fr = sum(r["timeouts"] for r in g), sum(r["fast_retransmits"] for r in g)
        p = float(np.mean([r["p"] for r in g]))
        if to + fr == 0 or not p > 0:
            continue
        q_model = s2_model(aqm, min(p, 0.45), RTT_MIN_S, 3 * RTT_MIN_S).timeout_probability
        parts.append(f"p={p:.3g}: Q {fmt(to / (to + fr))}, once per back-off sequence "
                     f"{fmt(first / (first + fr))}, model {fmt(q_model)}")
    return "; ".join(parts)


def claims_13(data):
    f = data.figure.id
    red, dt = (s2_summary(s2_runs(data, a)) for a in S2_AQMS)
    c1 = _within_claim(f, "Q well predicted under RED", red, "Q_resid", Q_TOL_VERY, "Q",
                       False)
    c1.reading = ("'The time-out estimation is very good for the RED case with observed values "
                  f"close to the analytical estimation': within {Q_TOL_VERY} at every arrival "
                  "rate (a twentieth of the 0-1 axis, for 'very good')")
    episodes = _episodes_text(data, "red")
    c1.detail += (" | Q with a back-off sequence counted once, as the model's time-out "
                  "interval (the engine's Q counts every expiry), in the trace runs: "
                  + episodes)
    if c1.verdict != HOLDS:
        c1.why += ("; control, Q with a back-off sequence counted once as the model's "
                   "time-out interval counts it (the trace runs): " + episodes)
    c2 = _direction_claim(f, "Under DropTail the simulated Q lies below the model (losses "
                          "less correlated than assumed)", dt, "Q_resid", -1, "Q", False)
    extra = _q_with_p_good_bad(data, "droptail")
    if extra:
        c2.detail += " | with p = P(drop | previous packet through): " + extra
    c2.detail += (" | Q with a back-off sequence counted once, in the trace runs: "
                  + _episodes_text(data, "droptail"))
    return [c1, c2]


def claims_14(data):
    f = data.figure.id
    red, dt = (s2_summary(s2_runs(data, a)) for a in S2_AQMS)
    low, high = dt[dt["p"] < 0.03], dt[dt["p"] >= 0.03]
    out = [
        _within_claim(f, "Throughput right under RED", red, "thr_rel_err", THR_TOL,
                      "throughput_pps", True),
        _direction_claim(f, "Throughput under-estimated by the model for DropTail below "
                         "p ~ 3%", low, "thr_rel_err", -1, "throughput_pps", True),
        _within_claim(f, "DropTail throughput estimated well above p ~ 3%", high,
                      "thr_rel_err", THR_TOL, "throughput_pps", True)]
    for c, part in zip(out[1:], (low, high), strict=True):
        if not len(part):
            c.why = (f"no arrival rate's measured p in the claim's range: DropTail's p from "
                     f"{dt['p'].min():.3g} to {dt['p'].max():.3g} over {len(dt)} rates (the "
                     "rates set the loss level; the size's grid does not reach it)")
    # Why DropTail's model is low: it loses the whole rest of a round after a first drop
    # (Figs. 17-18 measure ~0.6 of it) and reads p as Good -> Bad, fewer than all drops
    extra = _q_with_p_good_bad(data, "droptail", "throughput_pps")
    if extra:
        for c in out[1:]:
            c.detail += " | with p = P(drop | previous packet through): " + extra
            if c.verdict != HOLDS and len(high if c is out[2] else low):
                fr = np.array([x for p in _patterns(data, "paper002-s2-trace-droptail")
                               for x in p.rest_fractions])
                c.why += ("; the model loses the whole rest of a round after its first drop "
                          + (f"(the trace runs: {fmt(float(fr.mean()))} of it lost on "
                             f"average over {fr.size} rounds) " if fr.size else "")
                          + "and reads p as the Good -> Bad probability; control, the model "
                          "at p = P(drop | previous packet through) measured in the trace "
                          "runs: " + extra)
    return out


# ------------------------------------------------------------- claims of Figs. 15-18 (traces)
def _wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    from scipy import stats

    z = stats.norm.ppf(0.5 + level / 2)
    ph = k / n
    c = (ph + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


@dataclass
class Dependence:
    """Does a drop make the next packet of the same round likelier to be dropped? Pooled
    conditional probabilities, and the observed over expected count of drop-drop pairs with
    the expectation taken inside each run (runs differ in loss level: pooling their tables
    alone would show a dependence between independent drops), an exact stratified test."""

    p_dd: float
    p_dd_ci: tuple[float, float]
    n_d: int
    p_ad: float
    p_ad_ci: tuple[float, float]
    n_a: int
    observed: int
    expected: float
    ratio_ci: tuple[float, float]
    p_value: float

    @property
    def ratio(self) -> float:
        return self.observed / self.expected if self.expected > 0 else math.nan

    def text(self) -> str:
        return (f"P(next dropped | dropped) = {fmt(self.p_dd)} [{fmt(self.p_dd_ci[0], 2)}, "
                f"{fmt(self.p_dd_ci[1], 2)}] over {self.n_d} pairs; P(next dropped | "
                f"admitted) = {fmt(self.p_ad)} [{fmt(self.p_ad_ci[0], 2)}, "
                f"{fmt(self.p_ad_ci[1], 2)}] over {self.n_a}; drop-drop pairs {self.observed}"
                f" vs {fmt(self.expected)} expected if independent within each run: ratio "
                f"{fmt(self.ratio)} [{fmt(self.ratio_ci[0], 2)}, {fmt(self.ratio_ci[1], 2)}],"
                f" exact stratified p = {fmt(self.p_value, 2)}")


def dependence(patterns: list[LossPattern], level: float = 0.95) -> Dependence:
    from scipy import stats

    pmf = np.ones(1)
    expected = 0.0
    for x in patterns:
        n = x.dd + x.da + x.ad + x.aa
        row, col = x.dd + x.da, x.dd + x.ad
        if n == 0 or row == 0 or col == 0:
            continue
        expected += row * col / n
        k = np.arange(0, min(row, col) + 1)
        pmf = np.convolve(pmf, stats.hypergeom.pmf(k, n, col, row))
    obs = sum(x.dd for x in patterns)
    p_obs = pmf[obs] if obs < len(pmf) else 0.0
    p_value = float(min(1.0, pmf[pmf <= p_obs * (1 + 1e-7)].sum())) if len(pmf) else math.nan
    a = 1 - level
    lo = stats.chi2.ppf(a / 2, 2 * obs) / 2 if obs > 0 else 0.0
    hi = stats.chi2.ppf(1 - a / 2, 2 * obs + 2) / 2
    n_d = sum(x.dd + x.da for x in patterns)
    n_a = sum(x.ad + x.aa for x in patterns)
    dd, ad = obs, sum(x.ad for x in patterns)
    return Dependence(dd / n_d if n_d else math.nan, _wilson(dd, n_d, level), n_d,
                      ad / n_a if n_a else math.nan, _wilson(ad, n_a, level), n_a, obs,
                      expected, (lo / expected, hi / expected) if expected > 0
                      else (math.nan, math.nan), p_value)


def _patterns(data, name: str) -> list[LossPattern]:
    return [r["pattern"] for r in _runs_measured(data.result(name), trace_measures)
            if r["pattern"] is not None]


def _independence_verdict(d: Dependence) -> tuple[str, str]:
    """(outcome, words): 'positive' / 'negative' dependence at the 5% level, 'independent'
    when the ratio's interval lies within a factor 2 of 1, else 'undecided'."""
    if math.isfinite(d.p_value) and d.p_value < FAMILY_ALPHA:
        return ("positive", "drops cluster") if d.observed > d.expected else \
            ("negative", "a drop makes the next drop rarer")
    lo, hi = d.ratio_ci
    if math.isfinite(lo) and lo >= 1 / INDEP_FACTOR and hi <= INDEP_FACTOR:
        return "independent", f"within a factor {INDEP_FACTOR:g} of independence"
    return "undecided", "too few drops to tell"


def claims_15_16(data):
    f = data.figure.id
    pats = _patterns(data, "paper002-s2-trace-red")
    d = dependence(pats)
    out, words = _independence_verdict(d)
    v = HOLDS if out == "independent" else FAILS if out in ("positive", "negative") \
        else INCONCLUSIVE
    detail = f"{words}: {d.text()}"
    ctrl = _patterns(data, "paper002-s2-trace-red-nowait")
    dc = dependence(ctrl) if ctrl else None
    oc = _independence_verdict(dc)[0] if dc else ""
    if out == "negative":
        # ns-2 red.cc: with wait_ (its default, on here as in the paper's ns-2) the drop
        # probability is 0 until count x p_b >= 1, count = arrivals of every flow since the
        # last drop; without it, p_a = p_b / (1 - count p_b) is still smallest right after a
        # drop (count 0): RED spreads its drops out, it does not draw them independently
        detail += (" | why: RED spreads its drops: ns-2's RED (red.cc, the engine's) "
                   "raises the drop probability with the count of arrivals since the last "
                   "drop, p_a = p_b / (1 - count p_b), and with wait (ns-2's default) holds "
                   "it at 0 until count x p_b >= 1, so the packet after a drop is the least "
                   "likely to be dropped; the model draws each packet independently. "
                   + ("The control without wait " + (
                       "is also negative: the count alone spreads the drops" if oc == "negative"
                       else "is within a factor 2 of independence: wait is the cause"
                       if oc == "independent" else "cannot tell (too few drops): wait is "
                       "at least the larger part") if dc else ""))
    if dc:
        detail += (f" | control, RED with wait = false: {_independence_verdict(dc)[1]}: "
                   f"{dc.text()}")
    c1 = ClaimResult(f, "RED drops within a burst are independent", "simulation", v, detail,
                     True, why="" if v == HOLDS else detail,
                     numbers=dict(ratio=d.ratio, ratio_ci=d.ratio_ci, p=d.p_value,
                                  observed=d.observed, expected=d.expected),
                     short=f"{words}: P(drop | drop) {fmt(d.p_dd)} vs P(drop | admitted) "
                           f"{fmt(d.p_ad)}; pairs {d.observed} vs {fmt(d.expected)} expected "
                           f"(p = {fmt(d.p_value, 2)})")
    var = np.array([x for p in pats for x in p.avg_variation])
    if len(var):
        q95 = float(np.quantile(var, 0.95))
        v2 = HOLDS if q95 < 0.01 else FAILS
        txt = (f"(max - min) / mean of RED's average over {len(var)} bursts of >= 5 packets: "
               f"median {fmt(float(np.median(var)))}, 95th percentile {fmt(q95)}, max "
               f"{fmt(float(var.max()))} (nearly constant: 95th percentile below 1%)")
    else:
        v2, txt = INCONCLUSIVE, "no burst of 5 packets traced"
    c2 = ClaimResult(f, "RED's average nearly constant over a burst (one drop probability "
                        "for the whole burst)", "simulation", v2, txt, True)
    runs = s2_runs(data, "red")
    early, drops = int(runs["early"].sum()), int(runs["drops"].sum())
    lo, hi = _wilson(early, drops)
    v3 = HOLDS if lo > 0.95 else FAILS if hi < 0.95 else INCONCLUSIVE
    c3 = ClaimResult(f, "RED's losses are early (random) drops, not buffer overflow",
                     "simulation", v3, f"{early} of {drops} drops of A1 -> D1 early "
                     f"({fmt(early / max(drops, 1))}, CI [{fmt(lo, 3)}, {fmt(hi, 3)}]; holds "
                     "above 95%)", True)
    return [c1, c2, c3]


def claims_17_18(data):
    f = data.figure.id
    pats = _patterns(data, "paper002-s2-trace-droptail")
    d = dependence(pats)
    out, words = _independence_verdict(d)
    v = HOLDS if out == "positive" else FAILS if out in ("negative", "independent") \
        else INCONCLUSIVE
    c1 = ClaimResult(f, "DropTail losses are correlated", "simulation", v,
                     f"{words}: {d.text()}", True,
                     numbers=dict(ratio=d.ratio, ratio_ci=d.ratio_ci, p=d.p_value),
                     short=f"P(drop | drop) {fmt(d.p_dd)} vs P(drop | admitted) "
                           f"{fmt(d.p_ad)}: ratio {fmt(d.ratio)} [{fmt(d.ratio_ci[0], 2)}, "
                           f"{fmt(d.ratio_ci[1], 2)}], p = {fmt(d.p_value, 2)}")
    fr = np.array([x for p in pats for x in p.rest_fractions])
    c = mean_ci(fr)
    all_lost = int((fr == 1.0).sum())
    if c.n < 2 or not math.isfinite(c.halfwidth):
        v2 = INCONCLUSIVE
    else:
        v2 = HOLDS if c.high < 1.0 else FAILS if c.halfwidth == 0 else INCONCLUSIVE
    txt = (f"after the first drop of a round, {fmt(c.mean)}±{fmt(c.halfwidth, 2)} of the "
           f"round's later packets lost (mean over {c.n} rounds with a later packet; the "
           f"model: all); all of them lost in {all_lost} of {c.n} rounds")
    c2 = ClaimResult(f, "DropTail losses correlated, but less than \"the rest of the window "
                        "is lost\"", "simulation", v2, txt, True,
                     numbers=dict(mean=c.mean, ci=c.halfwidth, n=c.n, all_lost=all_lost))
    return [c1, c2]


#: How each scenario II claim's words became its check (the claims of scenario I carry
#: their own).
READINGS = {
    "Under DropTail the simulated Q lies below the model (losses less correlated than "
    "assumed)": "'somewhat lower than the analytical estimation': the per-run residual sim - "
                "model significantly below 0 at every arrival rate (t-tests, Holm)",
    "Throughput right under RED": "'In the RED environment the simulated values are correctly "
                                  "estimated throughout the interval': within a quarter of the "
                                  "simulated throughput at every rate",
    "Throughput under-estimated by the model for DropTail below p ~ 3%":
        "'we under-estimate throughput for lower error rates': model / sim - 1 significantly "
        "below 0 at every rate whose p is below 3% (t-tests, Holm)",
    "DropTail throughput estimated well above p ~ 3%":
        "'the estimation is good for error rates approximately larger than 3 percent': within "
        "a quarter of the simulated throughput at every rate whose p is 3% or more",
    "RED drops within a burst are independent":
        "'the packet dropping probability is the same for all packets in the arriving burst. "
        "This is exactly the assumptions in the analytical model': drop-drop pairs within a "
        "round as many as independence gives (exact stratified test; within a factor 2)",
    "RED's average nearly constant over a burst (one drop probability for the whole burst)":
        "'the average queue is almost constant during this interval': (max - min) / mean of "
        "the average over a burst below 1% for 95% of the bursts",
    "RED's losses are early (random) drops, not buffer overflow":
        "'the loss is due to the RED dropping algorithm': more than 95% of the observed flow's "
        "drops early (Wilson interval)",
    "DropTail losses are correlated": "'there is a high degree of correlation between packet "
                                      "losses in the DropTail environment': drop-drop pairs "
                                      "significantly above independence",
    "DropTail losses correlated, but less than \"the rest of the window is lost\"":
        "'The model assumption that all packets in one window are lost after the first lost "
        "packet is a bit too pessimistic': the mean fraction of a round's later packets lost "
        "below 1 (its interval)",
}


# ---------------------------------------------------------------------------------- drawing
COLORS = {"red": ("#1f77b4", "o"), "droptail": ("#d62728", "s")}
NAMES = {"red": "RED", "droptail": "DropTail"}


def _write_points(data, stem) -> list:
    """Every run (measured p, Q, throughput, RTT, T0 and the model there) and the per-rate
    summary, both queues, as CSV beside the figure."""
    import pandas as pd

    runs = pd.concat([s2_runs(data, a) for a in S2_AQMS], ignore_index=True)
    summ = pd.concat([s2_summary(s2_runs(data, a)) for a in S2_AQMS], ignore_index=True)
    p1, p2 = stem.parent / "scenario2-runs.csv", stem.parent / "scenario2-summary.csv"
    runs.to_csv(p1, index=False)
    summ.to_csv(p2, index=False)
    return [p1, p2]


def _draw_13_14(which: str):
    def draw(data, stem):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.6, 4.6))
        for aqm in S2_AQMS:
            color, marker = COLORS[aqm]
            summ = s2_summary(s2_runs(data, aqm))
            summ = summ[summ["p"] > 0]
            if which == "Q":
                lo, hi = float(summ["p"].min()) / 1.5, float(summ["p"].max()) * 1.5
                grid = np.logspace(math.log10(lo), math.log10(min(hi, 0.45)), 60)
                # Q depends on p alone (b, kappa and the window cap fixed)
                ax.plot(grid, [s2_model(aqm, float(x), RTT_MIN_S, 3 * RTT_MIN_S)
                               .timeout_probability for x in grid], "-", color=color,
                        lw=1.2, label=f"model, {NAMES[aqm]}")
                y, yci = summ["Q"], summ["Q_ci"]
            else:
                ax.plot(summ["p"], summ["throughput_pps_model_at_mean"], "--", color=color,
                        marker=marker, mfc="none", ms=5, lw=1.0,
                        label=f"model at the measured p, RTT, T0, {NAMES[aqm]}")
                y, yci = summ["throughput_pps"], summ["throughput_pps_ci"]
            ax.errorbar(summ["p"], y, xerr=summ["p_ci"].fillna(0), yerr=yci.fillna(0),
                        fmt=marker, color=color, ms=5, lw=0.8,
                        label=f"engine, {NAMES[aqm]} (mean ± CI per arrival rate)")
        ax.set_xscale("log")
        ax.set_xlabel("p: drops of A1 -> D1 at the bottleneck / packets sent")
        ax.set_ylabel("time-out probability Q" if which == "Q"
                      else "throughput of A1 -> D1 (packets/s, 500 B)")
        n = "13" if which == "Q" else "14"
        ax.set_title(f"Paper 002 Fig. {n}: Tahoe in scenario II, real RED and DropTail"
                     + (" (quick)" if data.quick else ""), fontsize=10)
        ax.legend(fontsize=7)
        fig.tight_layout()
        files = save_figure(fig, stem)
        plt.close(fig)
        return files + _write_points(data, stem)
    return draw


def _write_patterns(data, aqm: str, stem) -> list:
    """Per traced run: the observed flow's loss pattern, beside what the model assumes of it
    (RED: every packet dropped independently, so P(drop | drop) = P(drop | admitted) and a
    fraction p of the rest of a round lost; DropTail: the rest of the round always lost)."""
    import pandas as pd

    names = [f"paper002-s2-trace-{aqm}"] + (["paper002-s2-trace-red-nowait"]
                                            if aqm == "red" else [])
    rows = []
    for name in names:
        if name not in data.results:
            continue
        for r in _runs_measured(data.result(name), trace_measures):
            x = r["pattern"]
            if x is None:
                continue
            n_d, n_a = x.dd + x.da, x.ad + x.aa
            p_dd = x.dd / n_d if n_d else math.nan
            p_ad = x.ad / n_a if n_a else math.nan
            rest = float(np.mean(x.rest_fractions)) if x.rest_fractions else math.nan
            rows.append(dict(experiment=name, arrival_rate=r["arrival_rate"], seed=r["seed"],
                             arrivals=x.arrivals, drops=x.drops, p_drop=x.p_drop,
                             p_good_bad=x.p_good_bad, dd=x.dd, da=x.da, ad=x.ad, aa=x.aa,
                             p_next_drop_given_drop=p_dd, p_next_drop_given_admit=p_ad,
                             rounds=x.rounds, rounds_with_drop=x.rounds_with_drop,
                             rest_rounds=len(x.rest_fractions), rest_lost_fraction=rest,
                             p_next_drop_given_drop_model=p_ad if aqm == "red" else 1.0,
                             rest_lost_fraction_model=x.p_drop if aqm == "red" else 1.0))
    path = stem.parent / f"loss-patterns-{aqm}.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return [path]


def _illustration_report(data, aqm: str) -> dict:
    res = data.result(f"paper002-s2-trace-{aqm}")
    traced = S2_QUICK_TRACE_RATES if data.quick else S2_TRACE_RATES
    rate = traced[aqm][len(traced[aqm]) // 2]
    runs = res.runs()
    r = runs[(runs["arrival_rate"] == rate) & (runs["seed"] == res.experiment.base_seed)]
    return dict(rate=rate, report=_report(res, r["key"].iloc[0]))


def pick_burst(qt: dict, aqm: str, after_s: float = 1.0):
    """The illustrated burst, by rule (never by hand): the first burst of the observed flow
    starting ``after_s`` into the traced window with exactly one drop (RED, Fig. 16) or at
    least two (DropTail, Fig. 18), of 7 packets (the paper's), else of the size nearest 7.
    Returns (indices into the flow's arrivals, size) or None."""
    t, d, _ = flow_arrivals(qt)
    if not len(t):
        return None
    bid = group_ids(t, BURST_GAP_S)
    start = qt["t_s"][0] + after_s
    found: dict[int, np.ndarray] = {}
    for b in np.unique(bid):
        idx = np.flatnonzero(bid == b)
        if t[idx[0]] < start:
            continue
        k = int(d[idx].sum())
        if (k == 1) if aqm == "red" else (k >= 2):
            found.setdefault(len(idx), idx)
    if not found:
        return None
    size = min(found, key=lambda s: (abs(s - 7), s))
    return found[size], size


def queue_curve(qt: dict):
    """Waiting packets at the traced queue over time: +1 at each admitted arrival, -1 when it
    starts transmission (ties: the arrival first, as the engine orders them). Exact once the
    packets queued before the traced window have left (under 150 packet times, 40 ms)."""
    t = np.asarray(qt["t_s"], dtype=float)
    adm = np.isin(np.asarray(qt["event"]), ("admit", "lost"))
    deq = np.array([np.nan if x is None else x for x in qt["dequeue_s"]], dtype=float)
    times = np.concatenate([t[adm], deq[adm]])
    delta = np.concatenate([np.ones(adm.sum()), -np.ones(adm.sum())])
    order = np.lexsort((-delta, times))
    return times[order], np.cumsum(delta[order])


def _window(times, values, lo, hi):
    i0 = max(int(np.searchsorted(times, lo, side="right")) - 1, 0)
    i1 = int(np.searchsorted(times, hi, side="right"))
    return times[i0:i1], values[i0:i1]


def _draw_queue(aqm: str):
    wide_s, zoom_s = (0.04, 0.003) if aqm == "red" else (1.0, 0.005)

    def draw(data, stem):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ill = _illustration_report(data, aqm)
        qt = ill["report"]["queue_trace"]
        fig, (a, b) = plt.subplots(1, 2, figsize=(12.5, 5.4))
        pick = pick_burst(qt, aqm)
        n1, n2 = ("15", "16") if aqm == "red" else ("17", "18")
        fig.suptitle(f"Paper 002 Figs. {n1}-{n2}: {NAMES[aqm]} bottleneck B -> C at "
                     f"{ill['rate']:g} downloads/s per node (seed 1)"
                     + (" (quick)" if data.quick else ""), fontsize=11)
        if pick is None:
            for ax in (a, b):
                ax.text(0.5, 0.5, "no burst matches the rule in this trace", ha="center",
                        transform=ax.transAxes)
            files = save_figure(fig, stem)
            plt.close(fig)
            return files + _write_patterns(data, aqm, stem)
        idx, size = pick
        qt_t, qt_n = queue_curve(qt)
        t_all = np.asarray(qt["t_s"], dtype=float)
        avg_all = np.array([np.nan if x is None else x for x in qt["red_avg"]], dtype=float)
        t, d, avg, seen = flow_arrivals(qt, waiting=True)
        bt, bd, bseen = t[idx], d[idx], seen[idx]
        for ax, span, zoom in ((a, wide_s, False), (b, zoom_s, True)):
            lo = bt[0] - (0.5e-3 if zoom else span / 2)
            hi = lo + span
            x, y = _window(qt_t, qt_n, lo, hi)
            ax.step((x - lo) * 1e3, y, where="post", color="k", lw=0.9,
                    label="current queue (packets waiting)")
            if aqm == "red":
                x2, y2 = _window(t_all, avg_all, lo, hi)
                ax.plot((x2 - lo) * 1e3, y2, "-", color="#1f77b4", lw=1.4,
                        label="RED average queue")
            if not zoom:
                ax.axvline((bt[0] - lo) * 1e3, color="#ff9f1c", lw=1.0,
                           label=f"the burst of Fig. {n2}")
            else:
                for j in range(size):
                    ax.plot((bt[j] - lo) * 1e3, bseen[j], "x" if bd[j] else "o",
                            color="#d62728" if bd[j] else "#2ca02c", ms=9 if bd[j] else 6,
                            mfc="none", mew=1.6)
                    ax.annotate(str(j + 1), ((bt[j] - lo) * 1e3, bseen[j]),
                                textcoords="offset points", xytext=(0, 8), ha="center",
                                fontsize=8)
                ax.plot([], [], "o", color="#2ca02c", mfc="none",
                        label="A1's packet admitted (at the queue it found)")
                ax.plot([], [], "x", color="#d62728", label="A1's packet dropped")
                if aqm == "droptail":
                    first = int(np.argmax(bd))
                    ax.plot((bt[first + 1:] - lo) * 1e3, bseen[first + 1:], "s", color="grey",
                            ms=13, mfc="none", lw=0,
                            label="lost in the model too (the rest of the window)")
                else:
                    pb = red_base_probability(float(np.nanmean(avg[idx])))
                    ax.plot([], [], " ", label=f"model: each packet dropped independently, "
                                              f"p_b(average) = {pb:.3f}")
                ymin, ymax = ax.get_ylim()
                ax.set_ylim(ymin, ymax + 0.15 * (ymax - ymin))
            ax.set_xlabel(f"time (ms) from t = {lo:.4f} s")
            ax.set_ylabel("packets")
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
                      frameon=False)
        a.set_title(f"Fig. {n1}: {NAMES[aqm]} queue over {wide_s * 1e3:g} ms", fontsize=10)
        b.set_title(f"Fig. {n2}: a burst of {size} packets of A1 -> D1, {int(bd.sum())} "
                    f"dropped ({zoom_s * 1e3:g} ms)", fontsize=10)
        fig.tight_layout()
        files = save_figure(fig, stem)
        plt.close(fig)
        return files + _write_patterns(data, aqm, stem)
    return draw


# ------------------------------------------------------------------------------ registration
_S2_NOTES = (
    "Scenario II as lossytcp.scenario.paper002_scenario2 builds it (Fig. 8; RED with ns-2 "
    "2.35's defaults, which the paper does not give: automatic thresholds min_th 9.4, max_th "
    "28.1 packets and weight 8.9e-5 for 15 Mb/s, max_p 0.1, gentle, wait, byte mode), every "
    "sender ns-2's Tahoe with the 0.1 s tick of its time (T0 0.5-0.7 s) and without limited "
    "transmit. p is the drop rate of A1 -> D1 at the bottleneck over the whole run (its drops "
    "/ packets sent), Q its time-outs / loss events; the model at each run's p, RTT (0.24 s + "
    "the mean queue) and T0 (the mean RTO of first time-outs in the trace runs at that rate). "
    f"Quick: {S2_SIZE[True]['duration_s']:g} s runs, {S2_SIZE[True]['seeds']} seeds, "
    f"{len(S2_QUICK_RATES['red'])} rates per queue; full: {S2_SIZE[False]['duration_s']:g} s, "
    f"{S2_SIZE[False]['seeds']} seeds, {len(S2_RATES['red'])} rates. Trace runs (T0, queue "
    f"traces): quick {S2_TRACE_SIZE[True]['duration_s']:g} s with the last "
    f"{S2_TRACE_SIZE[True]['window_s']:g} s traced, full {S2_TRACE_SIZE[False]['duration_s']:g}"
    f" s with the last {S2_TRACE_SIZE[False]['window_s']:g} s, "
    f"{S2_TRACE_SIZE[False]['seeds']} seeds.")

register(Figure(
    "paper002-fig13", "002", "Fig. 13: time-out probability of Tahoe, real RED and DropTail",
    "model+simulation", "scenario II: Q of the persistent Tahoe flow vs its measured drop rate, "
    "model at the measured p", lambda q: s2_experiments(q) + s2_trace_experiments(q),
    claims_13, draw_fn=_draw_13_14("Q"), notes=_S2_NOTES,
    extra={"model_at_measured": True}))
register(Figure(
    "paper002-fig14", "002", "Fig. 14: throughput of Tahoe, real RED and DropTail",
    "model+simulation", "scenario II: throughput of the persistent Tahoe flow vs its measured "
    "drop rate, model at the measured p, RTT and T0",
    lambda q: s2_experiments(q) + s2_trace_experiments(q), claims_14,
    draw_fn=_draw_13_14("throughput"), notes=_S2_NOTES, extra={"model_at_measured": True}))
register(Figure(
    "paper002-fig15-16", "002", "Figs. 15-16: RED queue dynamics and a burst of A1 -> D1",
    "simulation", "scenario II, RED bottleneck: queue and average over 40 ms, a 3 ms burst; "
    "drop dependence within rounds over every traced round",
    lambda q: s2_experiments(q)[:1] + s2_trace_experiments(q, control=True)[::2],
    claims_15_16, draw_fn=_draw_queue("red"), notes=_S2_NOTES + " Bursts: the flow's packets "
    "reaching B less than 1 ms apart; rounds: less than 100 ms apart. The illustrated burst: the "
    "first with exactly one drop, 1 s into the trace, of 7 packets (else the nearest size).",
    extra={"model_at_measured": True}))
register(Figure(
    "paper002-fig17-18", "002", "Figs. 17-18: DropTail queue dynamics and a burst of A1 -> D1",
    "simulation", "scenario II, DropTail bottleneck: queue over 1 s, a 5 ms burst; loss "
    "correlation within rounds over every traced round", lambda q: s2_trace_experiments(q)[1:2],
    claims_17_18, draw_fn=_draw_queue("droptail"), notes=_S2_NOTES + " The illustrated burst: "
    "the first with at least two drops, 1 s into the trace, of 7 packets (else the nearest "
    "size); grey squares: the packets the model would also lose.",
    extra={"model_at_measured": True}))
