"""``lossytcp run FILE.toml``: run an experiment (only what its store lacks) and summarise it.

The store (SQLite) defaults to ``lossytcp-results.sqlite`` in the working directory; running
the same command again after an interruption computes only the missing runs.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .simulate import json_safe

__all__ = ["add_executor_arguments", "register", "run"]

#: Shown when the experiment names no metrics (--json gives all of them).
DISPLAY_METRICS = ("goodput_norm", "timeouts", "fast_retransmits", "timeout_fraction")


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="local worker processes (default: one per core; 0 runs in this "
                        "process)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on Dask: a scheduler address (tcp://host:8786) or 'local' for a "
                        "LocalCluster of one process per core")


def check_executor_arguments(a: argparse.Namespace) -> None:
    from ..errors import ParameterError

    if a.workers is not None and a.workers < 0:
        raise ParameterError("workers", a.workers, "must be >= 0 (0: in this process)")
    if a.dask is not None and a.dask != "local" and "://" not in a.dask:
        raise ParameterError("dask", a.dask, "must be 'local' or a scheduler address such "
                             "as tcp://host:8786")
    if a.dask is not None and a.workers == 0:
        raise ParameterError("workers", a.workers, "0 runs in this process, which contradicts "
                             f"--dask {a.dask}: give one of them (with --dask, --workers N "
                             "sizes a local cluster)")


def check_metrics(names: list[str] | None) -> None:
    """``--metric`` values, checked before anything runs."""
    from ..errors import ParameterError
    from ..sim import METRICS

    for m in names or ():
        if m not in METRICS:
            raise ParameterError("metric", m, "must be one of " + ", ".join(METRICS))


def run(a: argparse.Namespace) -> int:
    from .. import experiments as ex
    from ..experiments.progress import sweep_progress

    check_executor_arguments(a)
    check_metrics(a.metric)
    exp = ex.load(a.file, check=False)     # the points are checked by run(), with a bar
    with sweep_progress(f"{exp.name}: planning") as bar:
        res = ex.run(exp, store=a.store, workers=a.workers, dask=a.dask,
                     progress=bar.phase(f"{exp.name}: runs"), planning=bar,
                     replace=a.replace)
    try:
        return _report(a, exp, res)
    finally:
        res.store.close()      # WAL checkpointed: the store is one file again


def _report(a: argparse.Namespace, exp: Any, res: Any) -> int:
    store = res.store
    metrics = a.metric or list(exp.metrics or DISPLAY_METRICS)
    summ = res.summary(metrics if not a.json else (a.metric or exp.summary_metrics))
    models = res.models()
    if a.json:
        print(json.dumps(json_safe({
            "experiment": exp.name, "store": str(store.path), "planned_runs": res.planned,
            "computed_runs": res.computed, "wall_s": res.wall_s,
            "summary": summ.to_dict(orient="records"),
            "models": models.to_dict(orient="records") if len(models) else []})))
        return 0
    from rich.console import Console
    from rich.table import Table

    con = Console()
    if not con.is_terminal:
        con = Console(width=max(con.width, 160))   # a pipe or file has no width to fit
    t = Table(title=f"{exp.name}: mean ± {exp.level:.3g} CI ({res.planned} runs, "
                    f"{res.computed} computed now, store {store.path})")
    axes = ["variant", *exp.sweep]
    for c in (*axes, "n", *metrics):
        t.add_column(c, justify="left" if c == "variant" else "right", no_wrap=True)
    mcols = {}
    for m in exp.models:
        col = f"{m.key}: {m.metric}"
        mcols[m.key] = (m, col)
        t.add_column(col, justify="right", no_wrap=True)
    for _, r in summ.iterrows():
        cells = [_cell(r[c]) for c in axes] + [str(int(r["n"]))]
        cells += [_ci(r[m], r.get(f"{m}_ci", math.nan)) for m in metrics]
        for m, _col in mcols.values():
            cells.append(_model_cell(models, r, axes, m))
        t.add_row(*cells)
    con.print(t)
    con.print(f"{res.computed} runs computed in {res.wall_s:.1f} s on {res.executor}; "
              f"export with: lossytcp results export {exp.name} --store {store.path} "
              f"--csv FILE")
    return 0


def _cell(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _ci(m: float, ci: float) -> str:
    if not math.isfinite(m):
        return "n/a"
    return f"{m:.4g}" + (f" ± {ci:.2g}" if math.isfinite(ci) else "")


def _model_cell(models, r, axes, overlay) -> str:
    if not len(models):
        return ""
    sel = models[models.label == overlay.key]
    for a in axes:
        if a in sel.columns:
            sel = sel[sel[a] == r[a]]
    if not len(sel):
        return ""
    row = sel.iloc[0]
    if isinstance(row.get("error"), str):
        return "refused"
    x = row.get(overlay.metric, math.nan)
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.4g}"


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run an experiment file (TOML)",
                       description=__doc__.split("\n\n")[0] + " " + __doc__.split("\n\n")[1])
    p.add_argument("file", help="experiment file (TOML); see python/lossytcp/experiments")
    p.add_argument("--store", default="lossytcp-results.sqlite", metavar="PATH",
                   help="results database (default: %(default)s)")
    add_executor_arguments(p)
    p.add_argument("--metric", action="append", default=None, metavar="NAME",
                   help="metric to summarise (repeatable; default: the experiment's)")
    p.add_argument("--replace", action="store_true",
                   help="the store holds another definition under this experiment's name: "
                        "make this one the stored one (without: refused; the other's runs "
                        "stay in the store either way)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
