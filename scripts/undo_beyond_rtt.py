"""Spurious-timeout undo on the ``beyond-rtt`` path (paper 001's abrupt RTT changes, quick
size): goodput_norm, timeouts, spurious_timeouts, retransmissions, queue drops and undos of
newreno, sack and cubic with ``frto``, ``eifel_undo`` and ``dsack`` off and on, means with
Student's t 95% intervals over the seeds, and each mode's paired goodput difference against
all off (Holm-corrected over each mode's cells: the variants it applies to at every RTT
high). Takes about 15 s.

``--slow-but-steady`` is the control run of NewReno's loss under ``eifel_undo`` at 160 ms
(README, beside the knob): every run restarts the timer on each partial ACK (RFC 6582's
Slow-but-Steady, ``timer_every_partial_ack=True``) instead of the first only.

    .venv/bin/python scripts/undo_beyond_rtt.py [--seeds 10] [--duration 60] [--slow-but-steady]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from lossytcp import simulate
from lossytcp.figures.modern import rtt_jump_path
from lossytcp.variants import REGISTRY

MODES = {"off": {}, "frto": {"frto": True}, "eifel": {"eifel_undo": True},
         "both": {"frto": True, "eifel_undo": True}, "dsack": {"dsack": True}}
HIGHS = (0.04, 0.08, 0.16, 0.32)
VARIANTS = ("newreno", "sack", "cubic")


def applies(variant: str, mode: str) -> bool:
    """``dsack`` needs SACK blocks, which NewReno's receiver does not send (refused)."""
    return mode != "dsack" or REGISTRY[variant].sack_blocks


def mean_ci(x: np.ndarray) -> tuple[float, float]:
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean()), float(half)


def holm(p: list[float]) -> list[float]:
    out, run = [0.0] * len(p), 0.0
    for rank, i in enumerate(np.argsort(p)):
        run = max(run, min(1.0, (len(p) - rank) * p[i]))
        out[i] = run
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--slow-but-steady", action="store_true")
    a = ap.parse_args()
    timer = {"timer_every_partial_ack": True} if a.slow_but_steady else {}
    cells = [(v, h) for v in VARIANTS for h in HIGHS]
    runs = {(v, h, m): np.array([[r.goodput_norm, r.timeouts, r.spurious_timeouts,
                                  r.retransmissions, r.queue_drops, r.undos]
                                 for r in (simulate(v, seed=s, **rtt_jump_path(h, a.duration),
                                                    **kw, **timer)
                                           for s in range(1, a.seeds + 1))])
            for v, h in cells for m, kw in MODES.items() if applies(v, m)}
    p = {}
    for m in list(MODES)[1:]:
        # One family per knob: its cells (the variants it applies to, every RTT high).
        tested = [(v, h) for v, h in cells if applies(v, m)]
        raw = []
        for v, h in tested:
            on, off = runs[v, h, m][:, 0], runs[v, h, "off"][:, 0]
            raw.append(1.0 if np.allclose(on, off) else stats.ttest_rel(on, off).pvalue)
        p.update({(v, h, m): q for (v, h), q in zip(tested, holm(raw), strict=True)})
    print("| variant | RTT high | mode | goodput_norm | vs off (Holm p) | timeouts | "
          "spurious_timeouts | retransmissions | queue_drops | undos |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for v, h in cells:
        for m in (m for m in MODES if applies(v, m)):
            r = runs[v, h, m]
            g, t, s, x, q, u = (mean_ci(r[:, k]) for k in range(6))
            d = "—" if m == "off" else "{:+.4f} ± {:.4f} (p={:.2g})".format(
                *mean_ci(r[:, 0] - runs[v, h, "off"][:, 0]), p[v, h, m])
            print(f"| {v} | {h * 1000:.0f} ms | {m} | {g[0]:.4f} ± {g[1]:.4f} | {d} | "
                  f"{t[0]:.1f} ± {t[1]:.1f} | {s[0]:.1f} ± {s[1]:.1f} | {x[0]:.0f} ± {x[1]:.0f} "
                  f"| {q[0]:.0f} ± {q[1]:.0f} | {u[0]:.1f} ± {u[1]:.1f} |")


if __name__ == "__main__":
    main()
