"""``make demo``: paper 000 Fig. 3 on the built-in default.

OldTahoe, Tahoe, NewReno and SACK over a Gilbert-Elliott channel (2 Mb/s, RTT 20 ms, 500 B
packets, window 20, beta = 0.2, the chain stepping once per packet slot) for several alpha:
normalized goodput from the simulator (mean and 95% CI over seeds), then the paper's claims
for this figure (Tahoe above NewReno, SACK best) checked against these numbers, alpha by
alpha: clearly above (95% CIs disjoint), tie (they overlap) or clearly below.
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


def _compare(means, a: str, b: str, alpha: float) -> str:
    """'above', 'below' or 'tie' (the 95% CIs overlap) for variant a against b."""
    (ma, ca), (mb, cb) = means[a, alpha], means[b, alpha]
    if ma - ca > mb + cb:
        return "above"
    if ma + ca < mb - cb:
        return "below"
    return "tie"


def _claims(means: dict[tuple[str, float], tuple[float, float]]) -> list[tuple[str, str, str]]:
    """Each claim "a above b" as (claim, verdict, detail). It holds when a is never clearly
    below b (CIs disjoint) and clearly above somewhere; per-alpha outcomes in the detail."""
    pairs = [("SACK above Tahoe, NewReno and OldTahoe", [("sack", v) for v in VARIANTS[:3]]),
             ("Tahoe above NewReno", [("tahoe", "newreno")]),
             ("OldTahoe (timeouts only) below all others", [(v, "oldtahoe")
                                                           for v in VARIANTS[1:]])]
    out = []
    for claim, cmp in pairs:
        seen = {(a, b, x): _compare(means, a, b, x) for a, b in cmp for x in ALPHAS}
        verdict = ("not seen" if "below" in seen.values()
                   else "holds" if "above" in seen.values() else "tie")
        ties = sorted({x for (a, b, x), r in seen.items() if r == "tie"})
        below = sorted({f"{a}<{b} at {x:g}" for (a, b, x), r in seen.items() if r == "below"})
        detail = ("; ".join(below) if below else
                  ("CIs overlap at alpha " + ", ".join(f"{x:g}" for x in ties)) if ties
                  else "clearly at every alpha")
        out.append((claim, verdict, detail))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lossytcp.demo", description=__doc__)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--duration-s", type=float, default=1000.0)
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
    style = {"holds": "[green]holds[/]", "tie": "[yellow]tie[/]", "not seen": "[red]not seen[/]"}
    console.print("Paper 000's claims for Fig. 3 (95% CIs over seeds):")
    for claim, verdict, detail in _claims(means):
        console.print(f"  {style[verdict]}: {claim} ({detail})")
    console.print(f"{len(ALPHAS) * len(VARIANTS) * a.seeds} runs of {a.duration_s:g} simulated "
                  f"seconds in {time.perf_counter() - t0:.1f} s wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
