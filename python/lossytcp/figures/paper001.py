"""Paper 001 (Abouzeid & Roy 2003): TCP under abrupt RTT changes (semi-Markov RTT),
Figs. 8-12.

The engine runs the model's setting (as ``scripts/validate_models_II.py``): one link of mu
packets/s (1000 B packets), the semi-Markov RTT on the data direction (``delay=`` with the
states' RTTs T_i, the matrix H and the mean excesses E[V_i]), zero-size ACKs, no minimum RTO and
no timer granularity (the model's Y_i = max(T_i, G, RTO_min) with G = RTO_min = 0), window
w_m. The model gets the RTT the sender sees, T_i + 1/mu (the packet's own transmission time).

* Figs. 8-9: the random designs of Section 6.1, first set (mu ~ U[1, 10] Mb/s, T_i ~ U[0.05,
  0.1] s, w_m ~ U[2, mu min T_i], H with a single recurrent class, E[V_i] ~ U[0, 9 T_i]),
  drawn from one seeded generator (2003) so that the quick size is the first experiments of
  the full one: 100 experiments x 5 runs of 1000 max(E[V_i] + T_i) (full, the paper's), 16 x
  3 runs of 300 max(...) (quick).
* Figs. 10-12: the parameter set of Sections 6.3-6.5 (mu = 1210 packets/s, three RTT states,
  BD over the minimum RTT 70 packets); runs of 500 s (full, 5 seeds) or 200 s (quick, 3).
  The ideal TCP (never reducing its window) exists in the model only: its curve is drawn, the
  engine's OldTahoe and Reno beside it.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..experiments import Experiment, ModelOverlay
from ..models.abrupt_rtt import SECTION_6_3
from ..plots import STYLE, PlotSpec, save_figure
from . import Figure, register
from ._common import series
from .claims import HOLDS, INCONCLUSIVE, ClaimResult, fmt

DESIGN_SEED = 2003


@functools.lru_cache(maxsize=1)
def design(n: int = 100) -> tuple[tuple[float, tuple, int, tuple, tuple], ...]:
    """Section 6.1's first random design: (mu pkt/s, T, w_m, H, E[V]) per experiment."""
    rng = np.random.default_rng(DESIGN_SEED)
    out = []
    for _ in range(n):
        mu = rng.uniform(125.0, 1250.0)
        T = rng.uniform(0.05, 0.1, 3)
        wm = int(rng.integers(2, int(mu * T.min()) + 1))
        H = rng.dirichlet(np.ones(3), 3)
        V = rng.uniform(0.0, 9.0 * T)
        out.append((float(mu), tuple(T.tolist()), wm, tuple(map(tuple, H.tolist())),
                    tuple(V.tolist())))
    return tuple(out)


def _delay(T, H, V):
    return dict(rtt_s=list(T), H=[list(r) for r in H], excess_mean_s=list(V))


def _engine(mu, T, H, V, wm, duration_s, d=3):
    return dict(rate_bps=mu * 8000.0, packet_size_bytes=1000, window=wm,
                delay=_delay(T, H, V), duration_s=duration_s, min_rto_s=0.0,
                granularity_s=0.0, ack_size_bytes=0, dupack_threshold=d)


def _model(mu, T, H, V, wm, variant, d=3):
    return dict(rate_pps=mu, rtt_s=tuple(t + 1.0 / mu for t in T), H=H, excess_mean_s=V,
                max_window=wm, variant=variant, dupack_threshold=d)


# ---------------------------------------------------------------------------- Figs. 8-9
def fig89_experiments(quick: bool):
    n, factor = (16, 300.0) if quick else (100, 1000.0)

    def scenario(p):
        mu, T, wm, H, V = design()[p["exp"]]
        return _engine(mu, T, H, V, wm, factor * max(v + t for v, t in zip(V, T,
                                                                            strict=True)))

    def model(p):
        mu, T, wm, H, V = design()[p["exp"]]
        return _model(mu, T, H, V, wm, p["variant"])
    return [Experiment(
        name="paper001-fig8-9",
        description="Section 6.1 first random design: model vs engine, OldTahoe and Reno",
        scenario=scenario, sweep={"exp": list(range(n))}, variants=["oldtahoe", "reno"],
        models=[ModelOverlay("abrupt-rtt", model, label="model", metric="throughput_pps",
                             sim_metric="throughput_pps")],
        seeds=3 if quick else 5, metrics=["throughput_pps", "timeouts", "fast_retransmits"])]


def _pairs(data):
    """Per variant: arrays of (experiment, sim mean, sim CI, model)."""
    s = data.result().summary(["throughput_pps"])
    m = data.models()
    j = m.merge(s, on=["variant", "exp"], suffixes=("_model", ""))
    return j


def fig8_claims(data):
    f = data.figure.id
    j = _pairs(data)
    err = j["throughput_pps_model"] / j["throughput_pps"] - 1
    ci_rel = j["throughput_pps_ci"].fillna(0) / j["throughput_pps"]
    out = []
    outside = int(((err.abs() - ci_rel) > 0.20).sum())
    unsure = int(((err.abs() + ci_rel) > 0.20).sum()) - outside
    v = "fails" if outside else INCONCLUSIVE if unsure else HOLDS
    out.append(ClaimResult(f, "Model within 20% of simulation", "simulation", v,
                           f"{len(j)} experiment-variant pairs: |model/sim - 1| > 20% at "
                           f"{outside} (beyond the CI), undecided at {unsure}; max "
                           f"{err.abs().max():.1%}", True))
    by = {var: err[j["variant"] == var].abs().mean() for var in ("oldtahoe", "reno")}
    v = HOLDS if all(x < 0.10 for x in by.values()) else "fails"
    out.append(ClaimResult(f, "Mean error below 10%", "simulation", v, ", ".join(
        f"{k}: mean |model/sim - 1| {x:.1%}" for k, x in by.items()), True))
    below = ((err - ci_rel) <= 0).mean()
    v = HOLDS if below >= 0.9 else "fails" if below < 0.5 else INCONCLUSIVE
    out.append(ClaimResult(f, "The model a (tight) lower bound", "simulation", v,
                           f"model <= simulation (within its CI) in {below:.0%} of pairs "
                           f"(holds at >= 90%); median model/sim - 1 = {err.median():+.1%}",
                           True))
    return out


def fig9_claims(data):
    f = data.figure.id
    out = []
    j = _pairs(data)
    for src, col in (("model", "throughput_pps_model"), ("simulation", "throughput_pps")):
        w = j.pivot_table(index="exp", columns="variant", values=col)
        gain = (w["oldtahoe"] / w["reno"] - 1).dropna()
        k = int((gain <= 0.10).sum())
        le10 = k / len(gain)
        # the experiments are a random sample of the design: the share has a sampling
        # interval (Wilson, 95%), which must lie inside "about 60%" (read as 40-80%)
        lo, hi_ci = _wilson(k, len(gain))
        hi = float(gain.max())
        rng_ok = 0.3 <= hi <= 1.5 and gain.min() >= -0.05
        if rng_ok and 0.4 <= lo and hi_ci <= 0.8:
            v = HOLDS
        elif not rng_ok or hi_ci < 0.4 or lo > 0.8:
            v = "fails"
        else:
            v = INCONCLUSIVE
        out.append(ClaimResult(
            f, "OldTahoe's gain over Reno: 0% to ~100%; about 60% of experiments <= 10%",
            src, v,
            f"{len(gain)} experiments: gain <= 10% in {le10:.0%} (95% interval {lo:.0%}-"
            f"{hi_ci:.0%}; read as 40-80%), > 10% in {1 - le10:.0%}, max {hi:.0%} (read as "
            f"30-150%), min {gain.min():+.1%}", True))
    return out


def _wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def _draw89(data, stem):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    j = _pairs(data)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.4))
    for var in ("oldtahoe", "reno"):
        d = j[j["variant"] == var]
        color, marker = STYLE[var]
        a.errorbar(d["throughput_pps"], d["throughput_pps_model"],
                   xerr=d["throughput_pps_ci"].fillna(0), fmt=marker, color=color, ms=4,
                   mfc="white", lw=0.8, label=var)
    lim = [0, float(max(j["throughput_pps"].max(), j["throughput_pps_model"].max()) * 1.05)]
    a.plot(lim, lim, "k-", lw=0.8, label="model = simulation")
    a.plot(lim, [0.8 * x for x in lim], "k:", lw=0.8, label="+-20%")
    a.plot(lim, [1.2 * x for x in lim], "k:", lw=0.8)
    a.set_xlabel("engine throughput (packets/s), mean ± CI")
    a.set_ylabel("model throughput (packets/s)")
    a.set_title("Fig. 8: model vs simulation", fontsize=10)
    a.legend(fontsize=8)
    for src, col, style in (("model", "throughput_pps_model", "-"),
                            ("engine", "throughput_pps", "--")):
        w = j.pivot_table(index="exp", columns="variant", values=col)
        g = np.sort((w["oldtahoe"] / w["reno"] - 1).dropna().to_numpy())
        b.step(g * 100, np.arange(1, len(g) + 1) / len(g), style, where="post", label=src)
    b.axvline(10, color="grey", lw=0.6)
    b.set_xlabel("OldTahoe's gain over Reno (%)")
    b.set_ylabel("fraction of experiments (CDF)")
    b.set_title("Fig. 9: OldTahoe vs Reno", fontsize=10)
    b.legend(fontsize=8)
    fig.suptitle("Paper 001 Figs. 8-9: Section 6.1 random design" +
                 (" (quick)" if data.quick else ""), fontsize=11)
    fig.tight_layout()
    out = save_figure(fig, stem)
    plt.close(fig)
    return out


# ---------------------------------------------------------------------- Figs. 10-12
S = SECTION_6_3


def _s63(p, duration_s):
    V = tuple(p.get("k", 1.0) * v for v in S["excess_mean_s"])
    return _engine(S["rate_pps"], S["rtt_s"], S["H"], V, p["w_m"], duration_s, p.get("d", 3))


def _s63_model(p, variant=None):
    V = tuple(p.get("k", 1.0) * v for v in S["excess_mean_s"])
    return _model(S["rate_pps"], S["rtt_s"], S["H"], V, p["w_m"], variant or p["variant"],
                  p.get("d", 3))


def _overlays():
    return [ModelOverlay("abrupt-rtt", _s63_model, label="model", metric="throughput_pps",
                         sim_metric="throughput_pps"),
            ModelOverlay("abrupt-rtt", _s63_model, label="ideal TCP (model)",
                         metric="ideal_pps", sim_metric="throughput_pps")]


def fig10_experiments(quick: bool):
    dur = 200.0 if quick else 500.0
    ds = [1, 3, 8, 16, 30, 50] if quick else [1, 2, 3, 5, 8, 12, 16, 20, 25, 30, 35, 40, 50, 60]
    return [Experiment(
        name="paper001-fig10", description="Fig. 10: throughput vs dupack threshold d, "
        "w_m 25/30/60 (Section 6.3 set)", scenario=lambda p: _s63(p, dur),
        sweep={"d": ds, "w_m": [25, 30, 60]}, variants=["reno", "oldtahoe"],
        models=_overlays()[:1], seeds=3 if quick else 5,
        metrics=["throughput_pps", "timeouts", "fast_retransmits"])]


def fig10_claims(data):
    f = data.figure.id
    out = []
    for src in ("model", "simulation"):
        parts = []
        ok_all = True
        for wm in (25, 30, 60):
            r = series(data, src, "d", sim_metric="throughput_pps",
                       model_metric="throughput_pps", label="model", variant="reno", w_m=wm)
            o = series(data, src, "d", sim_metric="throughput_pps",
                       model_metric="throughput_pps", label="model", variant="oldtahoe",
                       w_m=wm)
            old = sum(o.mean) / len(o.mean)
            tol = 0.99 if src == "model" else 0.95
            sat = next((x for x, m in zip(r.x, r.mean, strict=True) if m >= tol * old), None)
            d_opt = min(wm, 35)
            ok = sat is not None and 0.5 * d_opt <= sat <= 1.5 * d_opt and \
                r.mean[-1] >= r.mean[0]
            ok_all &= ok
            parts.append(f"w_m {wm}: Reno reaches {tol:.0%} of OldTahoe ({fmt(old)} pkt/s) at "
                         f"d = {sat} (d_opt = min(w_m, BD/2) = {d_opt})")
        out.append(ClaimResult(f, "Throughput rises with d and saturates at OldTahoe's at "
                               "d ~ min(w_m, BD/2)", src, HOLDS if ok_all else "fails",
                               "; ".join(parts) + " (read as: within 0.5-1.5 x d_opt)",
                               src == "model"))
    return out


def fig11_experiments(quick: bool):
    dur = 200.0 if quick else 500.0
    wms = [5, 15, 30, 60] if quick else [5, 10, 15, 20, 25, 30, 40, 50, 60, 70]
    return [Experiment(
        name="paper001-fig11", description="Fig. 11: throughput vs w_m (d = 3), Ideal, Reno, "
        "OldTahoe", scenario=lambda p: _s63(p, dur), sweep={"w_m": wms},
        variants=["reno", "oldtahoe"], models=_overlays(), seeds=3 if quick else 5,
        metrics=["throughput_pps", "timeouts", "fast_retransmits"])]


def fig11_claims(data):
    f = data.figure.id
    out = []
    for src in ("model", "simulation"):
        kw = dict(sim_metric="throughput_pps", model_metric="throughput_pps", label="model")
        r = series(data, src, "w_m", variant="reno", **kw)
        o = series(data, src, "w_m", variant="oldtahoe", **kw)
        ideal = series(data, "model", "w_m", model_metric="ideal_pps",
                       label="ideal TCP (model)", variant="reno")
        rises = all(s.mean[-1] > s.mean[0] for s in (r, o, ideal))
        g1 = [i - x for i, x in zip(ideal.mean, o.mean, strict=True)]
        g2 = [x - y for x, y in zip(o.mean, r.mean, strict=True)]
        widen = g1[-1] > g1[0] and g2[-1] > g2[0]
        out.append(ClaimResult(
            f, "All rise with w_m; the gaps Ideal-OldTahoe and OldTahoe-Reno widen", src,
            HOLDS if rises and widen else "fails",
            f"Reno {fmt(r.mean[0])} -> {fmt(r.mean[-1])}, OldTahoe {fmt(o.mean[0])} -> "
            f"{fmt(o.mean[-1])}, Ideal {fmt(ideal.mean[0])} -> {fmt(ideal.mean[-1])}; gap "
            f"Ideal-OldTahoe {fmt(g1[0])} -> {fmt(g1[-1])}, OldTahoe-Reno {fmt(g2[0])} -> "
            f"{fmt(g2[-1])} (w_m {r.x[0]} -> {r.x[-1]}; Ideal from the model)",
            src == "model"))
    return out


def fig12_experiments(quick: bool):
    dur = 200.0 if quick else 500.0
    ks = [0.01, 0.1, 1, 10, 100] if quick else [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100]
    return [Experiment(
        name="paper001-fig12", description="Fig. 12: E[V_i] scaled by k, w_m 25",
        scenario=lambda p: _s63(p, max(dur, 20 * p["k"] * max(S["excess_mean_s"]))),
        sweep={"k": ks, "w_m": [25]}, variants=["reno", "oldtahoe"], models=_overlays(),
        seeds=3 if quick else 5, metrics=["throughput_pps", "timeouts", "fast_retransmits"])]


def _knee(ks, ratio) -> tuple[bool, str]:
    """A knee, independent of the grid: the curve climbs (monotone within 0.02, by more than
    0.1) and the k where it passes 10% and 90% of its climb (log-interpolated) lie within a
    factor 100, two of the four decades swept."""
    total = ratio[-1] - ratio[0]
    if total <= 0.1 or any(b < a - 0.02 for a, b in zip(ratio, ratio[1:], strict=False)):
        return False, "no monotone climb"

    def cross(level):
        y = ratio[0] + level * total
        for (k0, r0), (k1, r1) in zip(zip(ks, ratio, strict=True),
                                      zip(ks[1:], ratio[1:], strict=True), strict=False):
            if r0 <= y <= r1 and r1 > r0:
                return k0 * (k1 / k0) ** ((y - r0) / (r1 - r0))
        return math.nan
    k10, k90 = cross(0.1), cross(0.9)
    f = k90 / k10
    return bool(f <= 100), f"10% at k={k10:.3g}, 90% at k={k90:.3g}, factor {f:.3g}"


def fig12_claims(data):
    f = data.figure.id
    out = []
    ideal = series(data, "model", "k", model_metric="ideal_pps", label="ideal TCP (model)",
                   variant="oldtahoe")
    flat = (max(ideal.mean) - min(ideal.mean)) / max(ideal.mean)
    out.append(ClaimResult(f, "Ideal flat", "model", HOLDS if flat <= 0.10 else "fails",
                           f"Ideal TCP from {fmt(min(ideal.mean))} to {fmt(max(ideal.mean))} "
                           f"pkt/s over k ({flat:.1%} variation; flat read as <= 10%)", True))
    for src in ("model", "simulation"):
        kw = dict(sim_metric="throughput_pps", model_metric="throughput_pps", label="model")
        o = series(data, src, "k", variant="oldtahoe", **kw)
        r = series(data, src, "k", variant="reno", **kw)
        ro = [x / i for x, i in zip(o.mean, ideal.mean, strict=True)]
        rr = [x / i for x, i in zip(r.mean, ideal.mean, strict=True)]
        tend = ro[-1] >= 0.9 and rr[-1] >= 0.9
        knee, span = _knee(o.x, ro)
        out.append(ClaimResult(f, "OldTahoe shows a knee; both tend to Ideal", src,
                               HOLDS if tend and knee else "fails",
                               "OldTahoe / Ideal over k: " + ", ".join(f"{x:.2f}" for x in ro) +
                               "; Reno / Ideal: " + ", ".join(f"{x:.2f}" for x in rr) +
                               f" (tend: both >= 0.9 at the largest k; knee: a monotone climb of "
                               f"more than 0.1 whose 10%-90% part spans at most a factor 100 "
                               f"of k, of the {o.x[-1] / o.x[0]:g} swept: {span})", src == "model"))
    return out


def _spec(x, xlabel, xlog=False):
    return PlotSpec(x=x, xlabel=xlabel, ylabel="throughput (packets/s)", xlog=xlog,
                    sim_metric="throughput_pps", model_metric="throughput_pps",
                    sim_label="engine")


register(Figure(
    "paper001-fig8", "001", "Fig. 8: model vs simulation, Section 6.1 random design",
    "model+simulation", "100 random semi-Markov RTT experiments, OldTahoe and Reno",
    fig89_experiments, fig8_claims, draw_fn=_draw89))
register(Figure(
    "paper001-fig9", "001", "Fig. 9: OldTahoe's gain over Reno, same experiments",
    "model+simulation", "distribution of OldTahoe's throughput gain over Reno",
    fig89_experiments, fig9_claims, draw_fn=_draw89))
register(Figure(
    "paper001-fig10", "001", "Fig. 10: throughput vs dupack threshold d", "model",
    "Reno vs d for w_m 25/30/60 against OldTahoe (Section 6.3 set)", fig10_experiments,
    fig10_claims, PlotSpec(x="d", xlabel="duplicate-ACK threshold d", ylabel="throughput "
                           "(packets/s)", sim_metric="throughput_pps",
                           model_metric="throughput_pps", panel="w_m",
                           panel_label="w_m = {value:g}", sim_label="engine")))
register(Figure(
    "paper001-fig11", "001", "Fig. 11: throughput vs w_m, Ideal / Reno / OldTahoe", "model",
    "throughput against the maximum window (d = 3)", fig11_experiments, fig11_claims,
    _spec("w_m", "maximum window w_m (packets)")))
register(Figure(
    "paper001-fig12", "001", "Fig. 12: E[V_i] scaled by k (w_m 25)", "model",
    "throughput as the RTT holding times grow", fig12_experiments, fig12_claims,
    _spec("k", "scale k of the mean excess holding times E[V_i]", xlog=True)))

