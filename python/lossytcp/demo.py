"""``make demo``: paper 000 Fig. 3 on the built-in default.

OldTahoe, Tahoe, NewReno and SACK over a Gilbert-Elliott channel (2 Mb/s, RTT 20 ms, 500 B
packets, window 20, beta = 0.2, the chain stepping once per packet slot) for several alpha:
normalized goodput from the simulator (mean and 95% CI over seeds), then the paper's claims
for this figure (Tahoe above NewReno, SACK best) checked against these numbers.
"""

from __future__ import annotations

import argparse
import sys
import time

from rich.console import Console
from rich.table import Table

from . import simulate_seeds

VARIANTS = ("oldtahoe", "tahoe", "newreno", "sack")
ALPHAS = (0.001, 0.003, 0.01, 0.03)


def _claims(means: dict[tuple[str, float], tuple[float, float]]) -> list[tuple[str, bool]]:
    """A claim "a above b" holds unless, at some alpha, b's CI lies wholly above a's."""
    def not_below(a: str, b: str) -> bool:
        return all(means[b, x][0] - means[b, x][1] <= means[a, x][0] + means[a, x][1]
                   for x in ALPHAS)
    return [
        ("SACK at or above every other variant at every alpha",
         all(not_below("sack", v) for v in VARIANTS if v != "sack")),
        ("Tahoe at or above NewReno at every alpha", not_below("tahoe", "newreno")),
        ("OldTahoe (timeouts only) at or below all others",
         all(not_below(v, "oldtahoe") for v in VARIANTS[1:])),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lossytcp.demo", description=__doc__)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration-s", type=float, default=300.0)
    a = ap.parse_args(argv)
    console = Console()
    t0 = time.perf_counter()
    table = Table(title="Paper 000 Fig. 3: normalized goodput, GE channel beta = 0.2, "
                        "2 Mb/s, RTT 20 ms, 500 B, window 20")
    table.add_column("alpha", justify="right")
    for v in VARIANTS:
        table.add_column(v, justify="right")
    means: dict[tuple[str, float], tuple[float, float]] = {}
    with console.status("simulating...") as status:
        for alpha in ALPHAS:
            row = [f"{alpha:g}"]
            for v in VARIANTS:
                status.update(f"simulating {v}, alpha = {alpha:g}")
                s = simulate_seeds(a.seeds, v, rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500,
                                   window=20, duration_s=a.duration_s,
                                   channel=f"ge:alpha={alpha},beta=0.2,advance=slot")
                m, ci = s.mean("goodput_norm"), s.ci95("goodput_norm")
                means[v, alpha] = (m, ci)
                row.append(f"{m:.3f}±{ci:.3f}")
            table.add_row(*row)
    console.print(table)
    for claim, holds in _claims(means):
        console.print(f"{'[green]holds[/]' if holds else '[yellow]not seen[/]'}: {claim}")
    console.print(f"{len(ALPHAS) * len(VARIANTS) * a.seeds} runs of {a.duration_s:g} simulated "
                  f"seconds in {time.perf_counter() - t0:.1f} s wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
