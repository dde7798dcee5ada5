#!/usr/bin/env python3
"""Analytical models II (abrupt-rtt, fading-energy) against the engine; the tables printed.

A thin wrapper over :mod:`lossytcp.validation.abrupt` (the random designs of paper 001
Section 6.1 with the paper's timer and RFC 6298's in the engine, Fig. 9, Figs. 10-12) and
:mod:`lossytcp.validation.fading` (paper 004: the bounds against the slot model, Figs. 1-4 over
Jakes traces replayed per slot, the energy-efficiency claims against the paper's text).

Usage:  .venv/bin/python scripts/validate_models_II.py [--quick] [--only abrupt|fading]
        [--ns2] [--runs N] [--out DIR]   (--only abrupt-designs: the two designs only)

``--quick`` shrinks every design (20 experiments, 2 runs of 300 max(E[V] + T); shorter slot
runs; fewer claim sources). ``--ns2`` adds Fig. 9 in ns-2 2.35 (design 1, 2 runs of 300
max(E[V] + T) per experiment). ``--runs N`` sets the runs per experiment of paper 001's
designs (the paper's 5 by default; 2 halves the time). ``--out DIR`` also writes each table
as CSV.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from lossytcp.validation import abrupt, fading  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["abrupt", "abrupt-designs", "fading"],
                    help="abrupt-designs: paper 001's two designs and their summaries only")
    ap.add_argument("--ns2", action="store_true", help="Fig. 9 in ns-2 2.35 as well")
    ap.add_argument("--runs", type=int, default=None, help="runs per paper-001 experiment")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    import pandas as pd

    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    pd.set_option("display.max_rows", None)
    t0 = time.time()
    tables = {}
    if a.only in (None, "abrupt", "abrupt-designs"):
        tables.update(abrupt.tables(quick=a.quick, ns2=a.ns2, runs=a.runs,
                                    designs_only=a.only == "abrupt-designs"))
    if a.only in (None, "fading"):
        tables.update(fading.tables(quick=a.quick))
    for name, df in tables.items():
        print(f"\n== {name} ==")
        print(df.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    if "fading_bounds" in tables:
        fb = tables["fading_bounds"]
        print("\nfading bounds, largest excursion per variant (all points; f_D T <= 0.016):")
        print(fb.groupby("variant")[["thr_out", "tps_out"]].max().to_string())
        print(fb[fb.fdT <= 0.016].groupby("variant")[["thr_out"]].max().to_string())
        print("mean excursion per variant; Tahoe with the paper's cycle (max, mean):")
        print(fb.groupby("variant")[["thr_out"]].mean().to_string())
        print(fb.thr_out_paper.agg(["max", "mean"]).to_string())
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        for name, df in tables.items():
            df.to_csv(a.out / f"{name}.csv", index=False)
        print(f"\nCSV tables written to {a.out}")
    print(f"\ndone in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
