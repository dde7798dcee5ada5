"""``make demo``: paper 000 Fig. 3 on the built-in default.

OldTahoe, Tahoe, NewReno and SACK over a Gilbert-Elliott channel (2 Mb/s, RTT 20 ms, 500 B
packets, window 20, beta = 0.2, the chain stepping once per packet slot) for several alpha:
normalized goodput from the simulator (mean and 95% CI over seeds), beside the packet-train
model where it is available. The paper's claims: Tahoe above NewReno, SACK best.
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


def _model(variant: str, alpha: float) -> float | None:
    try:
        from .models import get

        m = get("packet-train")
    except Exception:  # the model library is optional for the demo
        return None
    r = m(variant=variant, alpha=alpha, beta=0.2, rate_bps=2e6, rtt_s=0.02,
          packet_size_bytes=500, timeout_s=0.5)
    return r.throughput_norm


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
        table.add_column(f"{v} sim", justify="right")
    has_model = _model("tahoe", 0.01) is not None
    if has_model:
        for v in VARIANTS:
            table.add_column(f"{v} model", justify="right")
    with console.status("simulating...") as status:
        for alpha in ALPHAS:
            row = [f"{alpha:g}"]
            for v in VARIANTS:
                status.update(f"simulating {v}, alpha = {alpha:g}")
                s = simulate_seeds(a.seeds, v, rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500,
                                   window=20, duration_s=a.duration_s,
                                   channel=f"ge:alpha={alpha},beta=0.2,advance=slot")
                row.append(f"{s.mean('goodput_norm'):.3f} ± {s.ci95('goodput_norm'):.3f}")
            if has_model:
                row += [f"{_model(v, alpha):.3f}" for v in VARIANTS]
            table.add_row(*row)
    console.print(table)
    console.print(f"{len(ALPHAS) * len(VARIANTS) * a.seeds} runs of {a.duration_s:g} simulated "
                  f"seconds in {time.perf_counter() - t0:.1f} s wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
