"""Running an experiment: expand, skip what the store has, execute the rest, summarise.

:func:`run` is resumable by construction: it computes only the runs whose keys the store lacks,
so rerunning after Ctrl-C, SIGKILL or a crash finishes the sweep without recomputing or
duplicating anything. Sequential stopping proceeds in rounds: each round asks every point for
the seeds its rule wants given the values so far, runs the missing ones, and repeats until no
point wants more (decisions use the first n seeds in order, so they do not depend on timing).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import keys
from .executors import Executor, make_batches, make_executor
from .spec import Experiment, Point, RunSpec
from .stats import SequentialRule, mean_ci
from .store import Store

__all__ = ["RunResult", "definition", "evaluate_models", "run", "summarize"]

Progress = Callable[[int, int], None]


@dataclass
class RunResult:
    experiment: Experiment
    store: Store
    planned: int          # runs the experiment asked for
    computed: int         # runs computed now (the rest were in the store)
    wall_s: float
    executor: str

    def runs(self):
        """Every finished run of this experiment's current definition (DataFrame)."""
        return self.store.runs(self.experiment.name, keys=self._keys)

    def summary(self, metrics=None, level=None):
        return summarize(self.runs(), metrics or self.experiment.summary_metrics,
                         level or self.experiment.level, list(self.experiment.sweep))

    def models(self):
        return self.store.model_rows(self.experiment.name)

    _keys: set[str] | None = None


def definition(exp: Experiment) -> dict[str, Any]:
    """A JSON-ready record of the experiment (functions recorded by name)."""
    def fn(x: Any) -> Any:
        return f"<function {getattr(x, '__qualname__', x)}>" if callable(x) else x
    seeds = exp.seeds if isinstance(exp.seeds, int) else exp.seeds.__dict__
    return dict(name=exp.name, description=exp.description, scenario=fn(exp.scenario),
                sweep={k: list(v) for k, v in exp.sweep.items()}, variants=list(exp.variants),
                models=[dict(name=m.name, label=m.label, metric=m.metric,
                             sim_metric=m.sim_metric, params=fn(m.params),
                             variants=None if m.variants is None else list(m.variants))
                        for m in exp.models],
                seeds=seeds, base_seed=exp.base_seed, level=exp.level,
                engine_version=keys.engine_version())


def evaluate_models(exp: Experiment, store: Store,
                    executor: Callable[[], Executor] | None = None) -> int:
    """Evaluate every model overlay at every point it covers (cached in the store by model,
    parameters and the model's source). A model refusing a point is stored with its error
    (shown as a gap in the figure, never silently dropped). With ``executor`` (a function
    returning one), many evaluations are spread over its workers. Returns evaluations
    computed."""
    from .executors import evaluate_models as evaluate_batch

    todo: dict[str, tuple[str, dict[str, Any]]] = {}
    members = []
    for point in exp.points():
        for m in exp.models:
            if not m.covers(point.variant):
                continue
            params = exp.model_params(m, point)
            k = keys.model_key(m.name, params)
            members.append((point.id, m.key, k))
            todo[k] = (m.name, params)
    have = store.models_finished(todo)
    items = [(k, name, params) for k, (name, params) in todo.items() if k not in have]
    if items and executor is not None and len(items) >= 8:
        ex = executor()
        size = max(1, math.ceil(len(items) / (4 * max(ex.workers, 1))))
        for rows in ex.map(evaluate_batch, [items[i:i + size]
                                            for i in range(0, len(items), size)]):
            store.put_models(rows)
    else:
        for i in range(0, len(items), 50):
            store.put_models(evaluate_batch(items[i:i + 50]))
    store.put_model_members(exp.name, members)
    return len(items)


def _wanted(exp: Experiment, store: Store, specs: dict[tuple[str, int], RunSpec],
            points: list[Point]) -> dict[str, int]:
    """Seeds each point wants now."""
    if isinstance(exp.seeds, int):
        return {p.id: exp.seeds for p in points}
    rule: SequentialRule = exp.seeds
    out = {}
    for p in points:
        n = 0
        while (p.id, exp.base_seed + n) in specs:
            n += 1
        ks = [specs[p.id, exp.base_seed + i].key for i in range(n)]
        if len(store.finished(ks)) < n:
            out[p.id] = n       # the last step is not complete yet: decide after it
            continue
        out[p.id] = rule.next_count(store.metric_values(ks, rule.metric))
    return out


def run(exp: Experiment, *, store: Store | str | None = None, executor: Executor | None = None,
        workers: int | None = None, dask: str | None = None,
        progress: Progress | None = None, target_batch_s: float = 0.25) -> RunResult:
    """Run ``exp`` (only what ``store`` lacks) and return a handle on its results."""
    from .spec import validate

    validate(exp)
    if not isinstance(store, Store):
        store = Store(store or "lossytcp-results.sqlite")
    store.put_experiment(exp.name, definition(exp))
    points = exp.points()
    specs: dict[tuple[str, int], RunSpec] = {}
    scenario_cache: dict[str, Any] = {}
    own = executor is None
    t0 = time.perf_counter()
    computed = 0
    ex: Executor | None = executor

    def get_ex() -> Executor:
        nonlocal ex
        if ex is None:
            ex = make_executor(workers, dask)
        return ex
    try:
        evaluate_models(exp, store, get_ex)
        while True:
            want = _wanted(exp, store, specs, points)
            new = []
            for p in points:
                for s in exp.seed_list(want[p.id]):
                    if (p.id, s) not in specs:
                        specs[p.id, s] = spec = exp.run_spec(p, s, scenario_cache)
                        new.append(spec)
            store.put_members(exp.name, [(sp.point.id, sp.seed, sp.key) for sp in new])
            all_keys = {sp.key: sp for sp in specs.values()}
            missing_keys = sorted(set(all_keys) - store.finished(all_keys))
            if not missing_keys:
                if not new:
                    break
                continue
            get_ex()
            assert ex is not None
            todo = [all_keys[k] for k in missing_keys]
            # the plan's order: points fill in one after another on the progress bar
            order = {p.id: i for i, p in enumerate(points)}
            todo.sort(key=lambda sp: (order[sp.point.id], sp.seed))
            batches = make_batches(
                [(sp.key, sp.point.variant, sp.seed, keys.dumps(sp.scenario), sp.cost)
                 for sp in todo], ex.workers, target_s=target_batch_s)
            total = len(all_keys)
            done = total - len(todo)
            if progress:
                progress(done, total)
            for rows in ex.run(batches, str(store.path)):
                if not ex.writes_store:
                    store.put_runs(rows)
                done += len(rows)
                computed += len(rows)
                if progress:
                    progress(done, total)
            if isinstance(exp.seeds, int):
                break
    finally:
        if own and ex is not None:
            ex.close()
    res = RunResult(exp, store, planned=len(specs), computed=computed,
                    wall_s=time.perf_counter() - t0,
                    executor="none" if ex is None else ex.name)
    res._keys = {sp.key for sp in specs.values()}
    return res


def summarize(runs, metrics, level: float = 0.95, axes: list[str] | None = None):
    """Per point (variant and swept axes): n, mean and CI half-width of each metric."""
    import pandas as pd

    if runs is None or not len(runs):
        return pd.DataFrame()
    axes = ["variant", *[a for a in (axes or []) if a != "variant"]]
    axes = [a for a in axes if a in runs.columns]
    recs = []
    for vals, g in runs.groupby(axes, sort=False, dropna=False):
        vals = vals if isinstance(vals, tuple) else (vals,)
        rec: dict[str, Any] = dict(zip(axes, vals, strict=True))
        rec["n"] = len(g)
        for m in metrics:
            if m not in g:
                continue
            ci = mean_ci(g[m].to_numpy(dtype=float), level)
            rec[m] = ci.mean
            rec[f"{m}_ci"] = ci.halfwidth
        recs.append(rec)
    return pd.DataFrame(recs)


def point_values(df, point: Point):
    """Rows of ``df`` at one point."""
    mask = None
    for k, val in point.values.items():
        if k not in df.columns:
            continue
        m = df[k] == val
        mask = m if mask is None else mask & m
    return df if mask is None else df[mask]


def load_json(x: str | None) -> Any:
    return None if x is None else json.loads(x)
