"""``make demo``: paper 000 Fig. 3 reproduced, model and simulation on the same axes.

OldTahoe, Tahoe, NewReno and SACK over a Gilbert-Elliott channel (2 Mb/s, RTT 20 ms, 500 B
packets, beta = 0.2, alpha swept) in the engine (ns-2's agents, 20 seeds of 50 s per point)
with the packet-train model drawn over it; the figure is written to a file whose path is
printed, and the paper's claims for the figure (Tahoe above NewReno, SACK best) are checked
on both sources: a claim holds only where the difference is significant at every point
(Welch tests, Holm-corrected over the points), fails where it is significantly reversed, and
is inconclusive otherwise: reversed means with overlapping intervals are inconclusive.

This is ``lossytcp reproduce paper000-fig3 --out demo-out``; ``--quick`` runs fewer seeds.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from .cli.reproduce import print_claims
    from .experiments.progress import sweep_progress
    from .figures import reproduce

    ap = argparse.ArgumentParser(prog="python -m lossytcp.demo", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="8 seeds and 5 alpha instead of "
                    "20 and 9")
    ap.add_argument("--out", default="demo-out", help="output directory (default: "
                    "%(default)s)")
    a = ap.parse_args(argv)
    console = Console()
    t0 = time.perf_counter()
    with sweep_progress("paper000-fig3") as progress:
        o = reproduce("paper000-fig3", quick=a.quick, out=a.out,
                      progress=lambda _name: progress)
    print_claims(console, o)
    png = next(p for p in o.files if p.suffix == ".png")
    console.print(f"{o.runs} runs of 50 simulated seconds ({o.computed} computed now) and the "
                  f"model in {time.perf_counter() - t0:.1f} s wall time")
    console.print(f"figure: [bold]{png.resolve()}[/] (and .svg); data and claims: "
                  f"{png.parent.resolve()}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
