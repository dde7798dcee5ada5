"""Running an experiment: expand, skip what the store has, execute the rest, summarise.

:func:`run` is resumable by construction: it computes only the runs whose keys the store lacks,
so rerunning after Ctrl-C, SIGKILL or a crash finishes the sweep without recomputing or
duplicating anything. Sequential stopping proceeds in rounds: each round asks every point for
the seeds its rule wants given the values so far, runs the missing ones, and repeats until no
point wants more (decisions use the first n seeds in order, so they do not depend on timing).
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import keys
from .executors import Executor, make_batches, make_executor
from .spec import Experiment, ExperimentError, Point, RunSpec
from .stats import SequentialRule, mean_ci
from .store import Store

__all__ = ["IDENTITY", "DefinitionChanged", "RunResult", "definition", "evaluate_models", "run",
           "summarize"]

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


#: The definition's keys that decide which runs an experiment asks for: another value of one
#: of them under a stored name is another experiment (see :func:`run`'s ``replace``). The
#: rest (description, confidence level, summarised metrics) only changes how results read.
IDENTITY = ("scenario", "sweep", "variants", "models", "seeds", "base_seed")


class DefinitionChanged(ExperimentError):
    """The store holds another definition under the experiment's name."""

    def __init__(self, name: str, store: str, changed: list[str], source: str | None = None):
        super().__init__("name", name, "", source)
        self.changed = changed
        where = f"{source}: " if source else ""
        self.args = (
            f"{where}experiment '{name}' in store {store} was run with another definition "
            f"(changed: {', '.join(changed)}). Give the edited experiment a new name, or "
            "replace the stored definition with --replace (Python: run(..., replace=True)): "
            "results then show only what the new definition asks for; finished runs of "
            "either definition stay in the store and are reused when asked for again.",)


def _check_arguments(store: Any, executor: Any, workers: Any, dask: Any, progress: Any,
                     planning: Any, target_batch_s: Any) -> None:
    """The arguments of :func:`run`, checked before anything is written or computed."""
    import inspect
    import os

    from ..errors import ParameterError
    from .executors import Executor

    if store is not None and not isinstance(store, (Store, str, os.PathLike)):
        raise ParameterError("store", store, "must be a Store, a path or ':memory:'")
    if executor is not None and not isinstance(executor, Executor):
        raise ParameterError("executor", executor, "must be an Executor (LocalPool, Serial, "
                             "DaskExecutor) or None")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 0):
        raise ParameterError("workers", workers, "must be an integer >= 0 (0: in this "
                             "process; None: one per core)")
    if dask is not None and not isinstance(dask, str):
        raise ParameterError("dask", dask, "must be a scheduler address (tcp://host:8786) or "
                             "'local'")
    if dask and workers == 0:
        raise ParameterError("workers", workers, "0 runs in this process, which contradicts "
                             f"dask = {dask!r}: give one of them")
    for name, cb in (("progress", progress), ("planning", planning)):
        if cb is None:
            continue
        if not callable(cb):
            raise ParameterError(name, cb, "must be a function progress(done, total) or None")
        try:
            inspect.signature(cb).bind(0, 0)
        except TypeError:
            raise ParameterError(name, cb, "must accept two arguments (done, total)") from None
        except ValueError:
            pass                       # a builtin without a signature: trust it
    if isinstance(target_batch_s, bool) or not isinstance(target_batch_s, (int, float)) \
            or not 0 <= target_batch_s <= 3600:
        raise ParameterError("target_batch_s", target_batch_s, "must be seconds in [0, 3600]")


def run(exp: Experiment, *, store: Store | str | None = None, executor: Executor | None = None,
        workers: int | None = None, dask: str | None = None,
        progress: Progress | None = None, target_batch_s: float = 0.25,
        replace: bool = False, planning: Progress | None = None) -> RunResult:
    """Run ``exp`` (only what ``store`` lacks) and return a handle on its results.

    ``store``: a :class:`Store`, a path, or ``":memory:"`` (results in this process only).
    A store identifies an experiment by its definition: if it holds another definition
    under ``exp.name`` (other scenario, sweep, variants, models or seeds), the run is
    refused with :class:`DefinitionChanged` unless ``replace``, which makes this definition
    the stored one (the other's runs stay in the store, unlisted, and are reused if asked
    for again). ``progress(done, total)`` follows the runs, ``planning(done, total)`` the
    expansion and checking of the points before them (long for large sweeps)."""
    from ..errors import ParameterError
    from .spec import validate

    if not isinstance(exp, Experiment):
        raise ParameterError("experiment", exp, "must be an Experiment (experiments.load(FILE) "
                             "or experiments.Experiment(...))")
    _check_arguments(store, executor, workers, dask, progress, planning, target_batch_s)
    if not isinstance(replace, bool):
        raise ParameterError("replace", replace, "must be True or False")
    scenario_cache: dict[str, Any] = {}
    points = exp.points()
    # One bar for the plan: the points checked, then the runs expanded (the first round's).
    plan_total = len(points) * (1 + exp.initial_seed_count())
    validate(exp, cache=scenario_cache, progress=None if planning is None else
             (lambda done, _total: planning(done, plan_total)))
    if not isinstance(store, Store):
        store = Store(store or "lossytcp-results.sqlite")
    changed = store.claim(exp.name, definition(exp), IDENTITY, replace)
    if changed:
        raise DefinitionChanged(exp.name, str(store.path), changed, exp.source)
    specs: dict[tuple[str, int], RunSpec] = {}
    own = executor is None
    t0 = time.perf_counter()
    computed = 0
    ex: Executor | None = executor
    # Workers write each run to the store themselves, except to a store only this process
    # can see.
    store_path = None if store.in_memory else str(store.path)

    def get_ex() -> Executor:
        nonlocal ex
        if ex is None:
            ex = make_executor(workers, dask)
        return ex
    try:
        evaluate_models(exp, store, get_ex)
        first = True
        while True:
            want = _wanted(exp, store, specs, points)
            new = []
            n_new = sum(len(exp.seed_list(want[p.id])) for p in points) - len(specs)
            for p in points:
                for s in exp.seed_list(want[p.id]):
                    if (p.id, s) not in specs:
                        specs[p.id, s] = spec = exp.run_spec(p, s, scenario_cache)
                        new.append(spec)
                        if planning and first and len(new) % 1000 == 0:
                            planning(len(points) + len(new), len(points) + n_new)
            members = [(sp.point.id, sp.seed, sp.key) for sp in new]
            if first:
                if planning:
                    planning(plan_total, plan_total)
                store.reset_stale_members(exp.name, members)
                first = False
            store.put_members(exp.name, members)
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
                [(sp.key, sp.point.variant, sp.seed, functools.partial(getattr, sp, "text"),
                  sp.cost)
                 for sp in todo], ex.workers, target_s=target_batch_s)
            total = len(all_keys)
            done = total - len(todo)
            if progress:
                progress(done, total)
            for rows in ex.run(batches, store_path):
                if not (ex.writes_store and store_path):
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
