"""Where runs execute: in this process, a local process pool, or a Dask cluster.

Work travels as *batches*: lists of ``(key, variant, seed, scenario JSON)``. A batch runs in
one task, so a sweep of many short runs pays the executor's per-task cost once per batch (see
bench/experiments.py for the measured costs). Workers of the local pool write each finished run
to the store themselves, one transaction per run, so a SIGKILL of the whole sweep loses only
the runs in flight; Dask's workers may be on other machines, so there the client writes each
batch's rows as the batch comes back (a killed client loses the batches in flight).

All executors run the same function (:func:`run_batch`) on the same inputs and the engine is
deterministic, so the rows are the same whichever executor computed them (provenance columns
aside: wall time, worker name, commit time).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator, Sequence
from typing import Any

Batch = list[tuple[str, str, int, str]]
MAX_SCENARIO_CHARS = 65536
_REPORT_FIELDS: tuple[str, ...] = ()


def _fields() -> tuple[str, ...]:
    from ..sim import SimReport

    return tuple(SimReport.__dataclass_fields__)


def _row(key: str, variant: str, seed: int, scenario_json: str) -> dict[str, Any]:
    global _REPORT_FIELDS
    from .. import _sim
    from ..sim import SimReport
    from . import keys
    from .store import _json

    if not _REPORT_FIELDS:
        _REPORT_FIELDS = _fields()
    t0 = time.perf_counter()
    text = _sim.run_json(scenario_json)
    wall = time.perf_counter() - t0
    out = json.loads(text)
    flow = out["flows"][0]
    rep = SimReport(variant=variant, seed=seed, events=out["events"],
                    **{k: flow[k] for k in _REPORT_FIELDS if k in flow})
    metrics = rep.as_dict()
    metrics.pop("variant", None)
    metrics.pop("seed", None)
    if len(scenario_json) > MAX_SCENARIO_CHARS:
        # a trace channel inlines its outcomes: keep the row small, the key already holds
        # the content (and the scenario is rebuilt from the experiment)
        import hashlib

        scenario_json = json.dumps({"omitted_chars": len(scenario_json), "sha256":
                                    hashlib.sha256(scenario_json.encode()).hexdigest()})
    return dict(key=key, engine_version=keys.engine_version(), variant=variant, seed=seed,
                scenario=scenario_json, metrics=_json(metrics), report=text, wall_s=wall,
                worker=f"{socket.gethostname()}:{os.getpid()}", finished_at=None)


def run_batch(batch: Batch, store_path: str | None = None) -> list[dict[str, Any]]:
    """Run a batch; with ``store_path`` commit each run to that store as it finishes."""
    rows = []
    con = None
    if store_path is not None:
        from .store import worker_connection

        con = worker_connection(store_path)
    for key, variant, seed, sc in batch:
        row = _row(key, variant, seed, sc)
        row["finished_at"] = time.time()
        if con is not None:
            from .store import write_runs

            write_runs(con, [row])
        rows.append(row)
    return rows


def evaluate_models(items: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Evaluate model points ``(key, model name, params)``: a refused point (ParameterError)
    is a row with its error, never dropped."""
    from .. import models
    from ..errors import ParameterError
    from . import keys
    from .store import _json

    rows = []
    for k, name, params in items:
        t0 = time.perf_counter()
        try:
            res = models.evaluate(name, **params)
            result, error = _json(res.as_dict()), None
        except ParameterError as e:
            result, error = None, str(e)
        rows.append(dict(key=k, model=models.get(name).name,
                         params=_json(keys.canonical(params)), result=result, error=error,
                         wall_s=time.perf_counter() - t0))
    return rows


class Executor:
    """Runs batches, yielding each batch's rows as it finishes."""

    name = "executor"
    workers = 1
    writes_store = False     # True when the workers commit rows themselves

    def run(self, batches: Sequence[Batch], store_path: str) -> Iterator[list[dict[str, Any]]]:
        raise NotImplementedError

    def map(self, fn, items: Sequence[Any]) -> Iterator[Any]:
        """``fn(item)`` for each item, results as they finish (any order)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Serial(Executor):
    """This process, one run after the other (``workers=0``): for debugging and tiny sweeps."""

    name = "serial"
    writes_store = True

    def run(self, batches, store_path):
        for b in batches:
            yield run_batch(b, store_path)

    def map(self, fn, items):
        for it in items:
            yield fn(it)


class LocalPool(Executor):
    """A pool of worker processes on this machine (default: one per core)."""

    name = "local"
    writes_store = True

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or os.cpu_count() or 1
        # forkserver: workers start from a clean process, not a fork of one that may hold
        # threads (the progress bar's) or an open SQLite connection
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["lossytcp._sim", "lossytcp.sim"])
        self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx)

    def run(self, batches, store_path):
        return self._gather([self._pool.submit(run_batch, b, store_path) for b in batches])

    def map(self, fn, items):
        return self._gather([self._pool.submit(fn, it) for it in items])

    def _gather(self, futures):
        from concurrent.futures import as_completed

        try:
            for f in as_completed(futures):
                yield f.result()
        except BaseException:
            for f in futures:
                f.cancel()
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """Dask distributed: ``address`` of a scheduler (``tcp://host:8786``) or ``"local"`` for a
    :class:`distributed.LocalCluster` of one single-threaded worker process per core. The
    workers need lossytcp installed (the same version: the run keys include the engine's)."""

    name = "dask"

    def __init__(self, address: str = "local", workers: int | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - depends on the environment
            from ..errors import ParameterError

            raise ParameterError("dask", address, "needs the dask extra: pip install "
                                 "'lossytcp[dask]' (dask[distributed])") from None
        self._cluster = None
        if address == "local":
            self.workers = workers or os.cpu_count() or 1
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         silence_logs=40)
            self._client = Client(self._cluster)
        else:
            self._client = Client(address, timeout="20s")
            self.workers = max(1, sum(self._client.nthreads().values()))
        self.address = address

    def run(self, batches, store_path):
        return self._gather([self._client.submit(run_batch, b, None, pure=False)
                             for b in batches])

    def map(self, fn, items):
        return self._gather([self._client.submit(fn, it, pure=False) for it in items])

    def _gather(self, futures):
        from distributed import as_completed

        try:
            for f in as_completed(futures):
                yield f.result()
        except BaseException:
            self._client.cancel(futures)
            raise

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(workers: int | None = None, dask: str | None = None) -> Executor:
    """``dask`` (an address or "local") selects Dask; else ``workers=0`` runs in this process
    and any other count (default: every core) a local process pool."""
    if dask:
        return DaskExecutor(dask, workers)
    if workers == 0:
        return Serial()
    return LocalPool(workers)


def make_batches(runs: Sequence[tuple[str, str, int, str, float]], workers: int,
                 target_s: float = 0.25, max_runs: int = 256) -> list[Batch]:
    """Group runs (key, variant, seed, scenario JSON, estimated seconds) into batches of about
    ``target_s`` estimated engine seconds, but into at least four batches per worker while
    there are enough runs, so that the last batches do not leave cores idle."""
    if not runs:
        return []
    total = sum(r[4] for r in runs)
    per = min(target_s, total / max(1, 4 * workers))
    batches: list[Batch] = []
    cur: Batch = []
    acc = 0.0
    for key, variant, seed, sc, cost in runs:
        cur.append((key, variant, seed, sc))
        acc += cost
        if acc >= per or len(cur) >= max_runs:
            batches.append(cur)
            cur, acc = [], 0.0
    if cur:
        batches.append(cur)
    return batches
