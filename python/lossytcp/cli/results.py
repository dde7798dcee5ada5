"""``lossytcp results``: list, query and export what an experiment store holds.

    lossytcp results list [--store PATH]
    lossytcp results show NAME [--where "variant == 'sack'"] [--runs] [--metric M ...]
    lossytcp results export NAME (--csv FILE | --parquet FILE) [--where ...] [--runs]

``show`` prints per-point means with confidence intervals (``--runs``: one row per run);
``export`` writes the same table (per point by default, per run with ``--runs``); each
model overlay adds a column "LABEL: METRIC" (the value ``run`` prints beside the
simulation), and cells holding tables are written as JSON. ``--where`` filters the runs:
comparisons of columns (the swept axes, variant, seed, the metrics) with literals, joined
by and / or / not ("variant == 'sack' and alpha < 0.01", "seed in [1, 2]"); it is parsed,
never evaluated.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _store(a: argparse.Namespace):
    from ..experiments import Store

    return Store(a.store, readonly=True)


def _table(a: argparse.Namespace):
    from .run import check_metrics

    check_metrics(a.metric)
    with _store(a) as st:
        return _read_table(a, st)


def _read_table(a: argparse.Namespace, st: Any):
    from ..errors import ParameterError
    from ..experiments import summarize

    d = st.definition(a.name)
    if d is None:
        names = [e["name"] for e in st.experiments()]
        raise ParameterError("name", a.name, "no such experiment in this store; it holds: "
                             + (", ".join(names) or "nothing"))
    runs = st.runs(a.name, where=a.where)
    axes = ["variant", *d.get("sweep", {})]
    if a.runs:
        return with_models(runs, st.model_rows(a.name), d, axes), d
    from ..sim import METRICS

    metrics = a.metric or [m for m in METRICS if m in runs.columns]
    summ = summarize(runs, metrics, d.get("level", 0.95), list(d.get("sweep", {})))
    return with_models(summ, st.model_rows(a.name), d, axes), d


def with_models(df, models, definition: dict[str, Any], axes: list[str]):
    """``df`` with a column ``"LABEL: METRIC"`` per model overlay (the value ``lossytcp run``
    prints beside the simulation: NaN where the model refused the point, its reason in
    ``"LABEL: error"``), matched on the point's variant and axes."""
    import pandas as pd

    if not len(df) or not len(models):
        return df
    on = [c for c in axes if c in df.columns and c in models.columns]
    for m in definition.get("models", []):
        label = m.get("label") or m["name"]
        metric = m.get("metric", "throughput_norm")
        sel = models[models["label"] == label]
        col = f"{label}: {metric}"
        if metric not in sel.columns or col in df.columns:
            continue
        part = sel[[*on, metric, "error"]].rename(columns={metric: col,
                                                            "error": f"{label}: error"})
        if not part[f"{label}: error"].notna().any():
            part = part.drop(columns=[f"{label}: error"])
        part = part.drop_duplicates(subset=on)
        df = pd.merge(df, part, how="left", on=on) if on else df.assign(
            **{c: part[c].iloc[0] for c in part.columns})
    return df


def _flat(df):
    """Cells holding dicts or lists (the engine's per-cause counters, a classification
    table) as JSON text, for CSV, Parquet and the printed table."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object and out[c].map(lambda x: isinstance(x, (dict, list))).any():
            out[c] = out[c].map(lambda x: json.dumps(x, sort_keys=True)
                                if isinstance(x, (dict, list)) else x)
    return out


def _writable(param: str, path: str) -> Path:
    from ..errors import ParameterError

    p = Path(path).expanduser()
    if p.is_dir():
        raise ParameterError(param, path, "is a directory; give a file name")
    if not p.resolve().parent.is_dir():
        raise ParameterError(param, path, "its directory does not exist")
    return p


def _list(a: argparse.Namespace) -> int:
    with _store(a) as st:
        rows = st.experiments()
        count = st.run_count()
    if a.json:
        print(json.dumps(rows))
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"experiments in {a.store} ({count} runs stored)")
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
        print(_flat(df).to_string(index=False, float_format=lambda x: f"{x:.5g}")
              if len(df) else "(no finished runs match)")
    return 0


def _export(a: argparse.Namespace) -> int:
    from ..errors import ParameterError

    if not (a.csv or a.parquet):
        raise ParameterError("export", None, "give --csv FILE or --parquet FILE")
    targets = [(k, _writable(k, path)) for k, path in (("csv", a.csv), ("parquet", a.parquet))
               if path]
    df, _ = _table(a)
    df = _flat(df)
    for kind, path in targets:
        try:
            if kind == "csv":
                df.to_csv(path, index=False)
            else:
                df.to_parquet(path, index=False)
        except ImportError:
            raise ParameterError("parquet", str(path), "needs pyarrow: pip install "
                                 "pyarrow") from None
        except OSError as e:
            raise ParameterError(kind, str(path), f"cannot be written ({e.strerror or e})"
                                 ) from None
        print(f"{len(df)} rows written to {path}")
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
                     help="filter on the runs, e.g. \"variant == 'sack' and alpha < 0.01\" "
                          "(comparisons, and/or/not, 'in [...]')")
    sel.add_argument("--runs", action="store_true", help="one row per run, not per point")
    sel.add_argument("--metric", action="append", default=None, metavar="NAME",
                     help="metric to summarise (repeatable; default: all)")
    q = which.add_parser("show", parents=[sel], help="per-point means and CIs (or runs)")
    q.set_defaults(func=_show)
    q = which.add_parser("export", parents=[sel], help="write CSV and/or Parquet")
    q.add_argument("--csv", default=None, metavar="FILE")
    q.add_argument("--parquet", default=None, metavar="FILE")
    q.set_defaults(func=_export)
