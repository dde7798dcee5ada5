"""Analytical models I (packet-train, aqm-renewal, mathis, pftk) against the engine.

A thin wrapper: the experiment designs, the engine configuration and the tables live in
:mod:`lossytcp.validation.models_i` (its docstring says how each model's domain is chosen).

Run ``python scripts/validate_models_I.py [--seeds N] [--duration-scale X] [--model NAME]
[--ns2] [--markdown] [--out DIR]``; the exit status is 1 if an asserted case is outside its
tolerance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from lossytcp.validation import models_i  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=None, help="seeds per point (default: case's)")
    ap.add_argument("--duration-scale", type=float, default=1.0,
                    help="multiply each case's simulated duration")
    ap.add_argument("--model", default=None, help="only this model")
    ap.add_argument("--ns2", action="store_true", help="add ns-2 2.35 to the Q-order table")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--out", type=Path, help="also write each table as CSV into this directory")
    a = ap.parse_args(argv)
    import pandas as pd

    tables = models_i.tables(model=a.model, seeds=a.seeds, duration_scale=a.duration_scale,
                             ns2=a.ns2)
    df = tables["cases"]
    cols = ["model", "variant", "point", "group", "model_value", "sim_mean", "sim_ci95",
            "rel_error", "tolerance", "asserted", "ok", "model_timeout_prob",
            "sim_timeout_fraction"]

    def markdown(t):
        # A pipe table without pandas' optional tabulate dependency.
        def cell(x):
            return f"{x:.4g}" if isinstance(x, float) else str(x)
        lines = ["| " + " | ".join(map(str, t.columns)) + " |",
                 "|" + "---|" * len(t.columns)]
        lines += ["| " + " | ".join(cell(x) for x in row) + " |"
                  for row in t.itertuples(index=False)]
        return "\n".join(lines)

    def show(name, t):
        print(f"\n== {name} ==")
        with pd.option_context("display.max_rows", None, "display.width", 250,
                               "display.max_columns", 40):
            print(markdown(t) if a.markdown
                  else t.to_string(index=False, float_format=lambda x: f"{x:.4g}"))

    show("model vs engine, one row per case", df[cols])
    for name, t in tables.items():
        if name != "cases":
            show(name, t)
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        for name, t in tables.items():
            t.to_csv(a.out / f"{name}.csv", index=False)
    bad = df[df.asserted & ~df.ok]
    print(f"\nasserted rows outside tolerance: {len(bad)}")
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
