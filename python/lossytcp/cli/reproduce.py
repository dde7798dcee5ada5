"""``lossytcp reproduce``: the papers' figures, model and simulation on the same axes, with
the claims of SCENARIOS.md checked on both.

    lossytcp reproduce list
    lossytcp reproduce paper000-fig3 [--quick] [--out DIR] [--workers N | --dask ADDRESS]
    lossytcp reproduce --all [--quick] [--out DIR]       # plus one HTML report, DIR/report.html

Each figure writes DIR/<figure>/: the figure (PNG, SVG), its data (CSV: per-point simulation
means with CIs, model values) and its claims (claims.json); the claims are printed as a
table (holds / fails / inconclusive, with the numbers). The results database lives in DIR,
so running the same command again resumes where it stopped and recomputes nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .run import add_executor_arguments, check_executor_arguments

__all__ = ["print_claims", "register"]

STYLE = {"holds": "[green]holds[/]", "fails": "[red]fails[/]",
         "inconclusive": "[yellow]inconclusive[/]"}


def print_claims(console, outcome, *, width_detail: int | None = None) -> None:
    from rich.table import Table

    t = Table(title=f"{outcome.figure.id}: claims (* = the source the paper shows; every "
                    f"point in {outcome.figure.id}/claims.json)", show_lines=True)
    t.add_column("claim", ratio=2)
    t.add_column("source", no_wrap=True)
    t.add_column("verdict", no_wrap=True)
    t.add_column("measured (why, where it does not hold)", ratio=3)
    for c in sorted(outcome.claims, key=lambda c: (c.claim, not c.primary)):
        src = ("*" if c.primary else "") + ("sim" if c.source == "simulation" else c.source)
        why = c.why if len(c.why) <= 300 else c.why[:297] + "..."
        t.add_row(c.claim, src, STYLE.get(c.verdict, c.verdict),
                  c.short + (f"\nwhy: {why}" if why else ""))
    console.print(t)


def _list(console) -> int:
    from rich.table import Table

    from ..figures import PAPERS, PENDING, all_figures

    t = Table(title="Reproducible figures and tables (lossytcp reproduce ID [--quick])")
    t.add_column("id", no_wrap=True)
    t.add_column("paper shows", no_wrap=True)
    t.add_column("description")
    for f in all_figures():
        t.add_row(f.id, f.kind, f.description)
    console.print(t)
    if PENDING:
        t = Table(title="Not reproduced yet")
        t.add_column("id", no_wrap=True)
        t.add_column("why")
        for k, why in PENDING.items():
            t.add_row(k, why)
        console.print(t)
    else:
        console.print("Not reproduced yet: none (every figure and table of SCENARIOS.md is "
                      "above).")
    console.print("papers: " + "; ".join(f"{k}: {v}" for k, v in PAPERS.items()))
    return 0


def run(a: argparse.Namespace) -> int:
    from rich.console import Console

    from .. import figures
    from ..errors import ParameterError
    from ..experiments import make_executor
    from ..experiments.progress import sweep_progress

    console = Console()
    if a.figure == "list":
        return _list(console)
    check_executor_arguments(a)
    if not a.all and not a.figure:
        raise ParameterError("figure", None, "name a figure (see: lossytcp reproduce list) "
                             "or give --all")
    if a.all and a.figure:
        raise ParameterError("figure", a.figure, "give a figure or --all, not both")
    figs = figures.all_figures() if a.all else [figures.get(a.figure)]
    out = Path(a.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ParameterError("out", a.out, f"cannot be created: {e.strerror}") from None
    t0 = time.perf_counter()
    outcomes = []
    with make_executor(a.workers, a.dask) as ex:
        for fig in figs:
            with sweep_progress(f"{fig.id}") as progress:
                o = figures.reproduce(fig, quick=a.quick, out=out, executor=ex,
                                      progress=lambda _name, p=progress: p)
            outcomes.append(o)
            if fig.extra.get("table"):
                txt = next((p for p in o.files if p.suffix == ".txt"), None)
                if txt is not None:
                    console.print(txt.read_text(), markup=False, highlight=False)
            print_claims(console, o)
            pics = [str(p) for p in o.files if p.suffix == ".png"]
            console.print(f"{fig.id}: {o.runs} runs ({o.computed} computed now) in "
                          f"{o.wall_s:.1f} s; figure: {', '.join(pics) or '(none)'}")
    figures_s = time.perf_counter() - t0
    if a.all:
        from ..report import write_report

        path = write_report(outcomes, out / "report.html", quick=a.quick,
                            executor=f"{ex.name} ({ex.workers} workers)",
                            wall_s=figures_s)
        console.print(f"report: {path} (figures {figures_s:.0f} s, the report with its "
                      f"validation tables {time.perf_counter() - t0 - figures_s:.0f} s)")
    counts: dict[str, int] = {}
    for o in outcomes:
        for c in o.claims:
            if c.primary:
                counts[c.verdict] = counts.get(c.verdict, 0) + 1
    tally = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    console.print(f"claims on the paper's own source: {tally}; total "
                  f"{time.perf_counter() - t0:.0f} s of wall time")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("reproduce", help="reproduce the papers' figures and check their "
                       "claims", description=__doc__.split("\n\n")[0],
                       epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("figure", nargs="?", default=None,
                   help="figure id (e.g. paper000-fig3), or 'list'")
    p.add_argument("--all", action="store_true", help="every figure, plus DIR/report.html")
    p.add_argument("--quick", action="store_true",
                   help="reduced size: seconds to a minute per figure")
    p.add_argument("--out", default="figures-out", metavar="DIR",
                   help="output directory, also holding the results database "
                        "(default: %(default)s)")
    add_executor_arguments(p)
    p.set_defaults(func=run)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(0)
