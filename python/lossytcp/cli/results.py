"""``lossytcp results``: list, query and export what an experiment store holds.

    lossytcp results list [--store PATH]
    lossytcp results show NAME [--where "variant == 'sack'"] [--runs] [--metric M ...]
    lossytcp results export NAME (--csv FILE | --parquet FILE) [--where ...] [--runs]

``show`` prints per-point means with confidence intervals (``--runs``: one row per run);
``export`` writes the same table (per point by default, per run with ``--runs``). ``--where``
is a pandas query over the columns (the swept axes, ``variant``, ``seed``, the metrics).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _store(a: argparse.Namespace):
    from ..errors import ParameterError
    from ..experiments import Store

    if not Path(a.store).exists():
        raise ParameterError("store", a.store, "no such results database (run an experiment "
                             "first, or pass --store PATH)")
    return Store(a.store)


def _table(a: argparse.Namespace):
    from ..errors import ParameterError
    from ..experiments import summarize

    st = _store(a)
    d = st.definition(a.name)
    if d is None:
        names = [e["name"] for e in st.experiments()]
        raise ParameterError("name", a.name, "no such experiment in this store; it holds: "
                             + (", ".join(names) or "nothing"))
    try:
        runs = st.runs(a.name, where=a.where)
    except Exception as e:   # pandas raises many types for a bad query
        raise ParameterError("where", a.where, f"is not a valid query ({e})") from None
    if a.runs:
        return runs, d
    from ..sim import METRICS

    metrics = a.metric or [m for m in METRICS if m in runs.columns]
    return summarize(runs, metrics, d.get("level", 0.95), list(d.get("sweep", {}))), d


def _list(a: argparse.Namespace) -> int:
    st = _store(a)
    rows = st.experiments()
    if a.json:
        print(json.dumps(rows))
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"experiments in {st.path} ({st.run_count()} runs stored)")
    for c in ("experiment", "points", "runs finished / planned"):
        t.add_column(c, no_wrap=True)
    for r in rows:
        t.add_row(r["name"], str(r["points"]),
                  f"{r['finished_runs']} / {r['planned_runs']}")
    Console().print(t)
    return 0


def _show(a: argparse.Namespace) -> int:
    df, _ = _table(a)
    if a.json:
        print(df.to_json(orient="records"))
        return 0
    import pandas as pd

    with pd.option_context("display.max_rows", None, "display.width", 250,
                           "display.max_columns", None):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.5g}")
              if len(df) else "(no finished runs match)")
    return 0


def _export(a: argparse.Namespace) -> int:
    from ..errors import ParameterError

    if not (a.csv or a.parquet):
        raise ParameterError("export", None, "give --csv FILE or --parquet FILE")
    df, _ = _table(a)
    for path in (a.csv, a.parquet):
        if path and not Path(path).resolve().parent.is_dir():
            raise ParameterError("csv" if path == a.csv else "parquet", path,
                                 "its directory does not exist")
    if a.csv:
        df.to_csv(a.csv, index=False)
        print(f"{len(df)} rows written to {a.csv}")
    if a.parquet:
        try:
            df.to_parquet(a.parquet, index=False)
        except ImportError:
            raise ParameterError("parquet", a.parquet, "needs pyarrow: pip install "
                                 "pyarrow") from None
        print(f"{len(df)} rows written to {a.parquet}")
    return 0


def _nan(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def register(sub: Any) -> None:
    p = sub.add_parser("results", help="list, query and export stored experiment results",
                       description=__doc__.split("\n\n")[0],
                       epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    which = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", default="lossytcp-results.sqlite", metavar="PATH",
                        help="results database (default: %(default)s)")
    common.add_argument("--json", action="store_true", help="print JSON")
    q = which.add_parser("list", parents=[common], help="experiments in the store")
    q.set_defaults(func=_list)
    sel = argparse.ArgumentParser(add_help=False, parents=[common])
    sel.add_argument("name", help="experiment name")
    sel.add_argument("--where", default=None, metavar="QUERY",
                     help="pandas query, e.g. \"variant == 'sack' and alpha < 0.01\"")
    sel.add_argument("--runs", action="store_true", help="one row per run, not per point")
    sel.add_argument("--metric", action="append", default=None, metavar="NAME",
                     help="metric to summarise (repeatable; default: all)")
    q = which.add_parser("show", parents=[sel], help="per-point means and CIs (or runs)")
    q.set_defaults(func=_show)
    q = which.add_parser("export", parents=[sel], help="write CSV and/or Parquet")
    q.add_argument("--csv", default=None, metavar="FILE")
    q.add_argument("--parquet", default=None, metavar="FILE")
    q.set_defaults(func=_export)
