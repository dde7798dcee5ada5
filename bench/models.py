"""Speed of the analytical models against their targets (issues 3 and 4), one run.

Targets: one model point in under 10 ms (abrupt-rtt at w_m = 100, M = 3 included); a
50-point packet-train sweep for all four variants in under a second. Printed, never asserted:
speed lives here, not in the test suite.

    python bench/models.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from lossytcp import models  # noqa: E402
from lossytcp.models.abrupt_rtt import SECTION_6_3  # noqa: E402

POINTS = {
    "packet-train BDP 20": ("packet-train", dict(variant="newreno", alpha=1e-3, beta=0.1,
                                                 rate_bps=2e6, rtt_s=0.01,
                                                 packet_size_bytes=125)),
    "packet-train BDP 100": ("packet-train", dict(variant="newreno", alpha=1e-4, beta=0.1,
                                                  rate_bps=2e6, rtt_s=0.05,
                                                  packet_size_bytes=125)),
    "aqm-renewal": ("aqm-renewal", dict(variant="newreno", queue="droptail", p=0.01,
                                        rtt_s=0.24, timeout_s=0.72, packets_per_ack=1)),
    "mathis": ("mathis", dict(rtt_s=0.1, p=0.01)),
    "pftk": ("pftk", dict(rtt_s=0.1, p=0.01, timeout_s=1.0, max_window=20)),
    "abrupt-rtt w_m 100 M 3": ("abrupt-rtt", dict(SECTION_6_3, max_window=100, variant="reno")),
    "fading-energy W 24": ("fading-energy", dict(variant="newreno", w_max=24,
                                                 fading_margin_db=10, doppler_norm=0.016)),
}


def best_of(fn, n: int = 20) -> float:
    fn()  # warm caches and imports
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


#: Chains at abrupt-rtt's size limits (``_check_size``): (states, w_m, RTO rule, bursts).
#: Split bursts: w_m None is the limit for the draw's levels of split-off idle time.
ABRUPT_LIMITS = ((3, 1000, "paper", "single"), (20, 111, "paper", "single"),
                 (64, 19, "paper", "single"), (3, 702, "rfc6298", "single"),
                 (10, 63, "rfc6298", "single"), (3, None, "rfc6298", "split"),
                 (6, None, "rfc6298", "split"))


def abrupt_limits() -> None:
    """One solve per chain at the limits, on a random semi-Markov RTT of that size (with split
    bursts RTTs 2-5 ms apart, small jumps against the RTT: the most levels)."""
    from lossytcp.models.abrupt_rtt import _split_gap, _split_levels, _window_limit, abrupt_rtt

    rng = np.random.default_rng(1)
    for m, wm, rule, bursts in ABRUPT_LIMITS:
        t_s = (rng.uniform(0.05, 0.1, m) if wm else
               0.1 + np.cumsum(rng.uniform(0.002, 0.005, m)))
        h = rng.dirichlet(np.ones(m), m)
        levels = 1
        if bursts == "split":
            levels = _split_levels(t_s, 1000.0, _split_gap(t_s, h))[1]
            wm = _window_limit(m, rule, levels)
        kw = dict(rate_pps=1000.0, rtt_s=t_s, H=h,
                  excess_mean_s=rng.uniform(0.0, 9.0, m) * t_s, max_window=wm, rto=rule,
                  bursts=bursts)
        t = time.process_time()
        abrupt_rtt(**kw)
        print(f"abrupt-rtt {m:2d} states w_m {wm:4d} {rule:8s} {bursts:6s} {levels:2d} levels "
              f"{time.process_time() - t:6.2f} s")


def main() -> int:
    print(f"{'model point':26} {'best of 20 (ms)':>16} {'target':>8}")
    for label, (name, kw) in POINTS.items():
        m = models.get(name)
        t = best_of(lambda m=m, kw=kw: m(**kw))
        print(f"{label:26} {t * 1e3:16.2f} {'10 ms':>8} {'ok' if t < 0.010 else 'SLOW'}")
    base = dict(beta=0.1, rate_bps=2e6, rtt_s=0.01, packet_size_bytes=125)
    t = best_of(lambda: models.sweep(
        "packet-train", base, variant=["oldtahoe", "tahoe", "newreno", "sack"],
        alpha=np.logspace(-5, -1, 50)), n=3)
    print(f"{'packet-train 4 x 50 sweep':26} {t * 1e3:16.1f} {'1000 ms':>8} "
          f"{'ok' if t < 1.0 else 'SLOW'}")
    abrupt_limits()
    return 0


if __name__ == "__main__":
    sys.exit(main())
