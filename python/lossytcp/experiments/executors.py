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

import contextlib
import functools
import json
import os
import signal
import socket
import threading
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
    try:
        text = _sim.run_json(scenario_json)
    except ValueError as e:
        # The engine's own checks (a scenario given whole, not built by simulate()):
        # refused, with the run it belongs to.
        from ..errors import ScenarioError

        raise ScenarioError(f"the engine refused the scenario of run {key} (variant "
                            f"{variant}, seed {seed}): {e}") from None
    except _sim.NoProgress as e:
        from ..errors import NoProgressError

        raise NoProgressError(f"{e} (run {key}, variant {variant}, seed {seed})") from None
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


def run_batch(batch: Batch, store_path: str | None = None,
              con: Any = None) -> list[dict[str, Any]]:
    """Run a batch; with ``store_path`` (or an open connection ``con``) commit each run to
    that store as it finishes."""
    rows = []
    if con is None and store_path is not None:
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
    writes_store = False     # True when the workers commit rows themselves (given a path)

    def run(self, batches: Sequence[Batch],
            store_path: str | None) -> Iterator[list[dict[str, Any]]]:
        """Each batch's rows as it finishes. With ``store_path`` an executor that
        :attr:`writes_store` has committed them there already; without, the caller
        writes them."""
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
        # A connection of its own, closed at the end: this process outlives the sweep, and a
        # connection left open would keep the store's write-ahead log beside it.
        from .store import _SCHEMA, connect

        con = None
        if store_path is not None:
            con = connect(store_path)
            con.executescript(_SCHEMA)
        try:
            for b in batches:
                yield run_batch(b, store_path, con)
        finally:
            if con is not None:
                con.close()

    def map(self, fn, items):
        for it in items:
            yield fn(it)


def _die_with(parent_pid: int) -> None:
    """Make this worker process die with the process that started the pool, however that
    one ends (SIGKILL included): the kernel's parent-death signal covers the worker's own
    parent (the forkserver), and a thread waiting on a pidfd of the pool's owner covers the
    owner, which the forkserver outlives while any worker holds its pipe (issue 24: workers
    ran on for 30 minutes with parent 1, and wrote their batch after the parent was gone).
    The engine runs with the GIL released, so the thread wakes even mid-run."""
    import ctypes
    import signal
    import threading

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)         # PR_SET_PDEATHSIG
    except (OSError, AttributeError):         # not Linux: the watchdog alone
        pass

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    try:
        fd = os.pidfd_open(parent_pid)
    except ProcessLookupError:
        die()
        return
    except (AttributeError, OSError):
        fd = None

    def watch() -> None:
        import select

        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                try:
                    os.kill(parent_pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.5)
        die()

    threading.Thread(target=watch, name="lossytcp-parent-watch", daemon=True).start()


def _portable(e: BaseException) -> BaseException:
    """``e`` if it survives pickling, else a RuntimeError with its type and message."""
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001 - any pickling failure
        return RuntimeError(f"{type(e).__name__}: {e}")


def _worker_main(conn: Any, parent_pid: int) -> None:
    """A pool worker: ``(fn, item)`` in, ``("ok", fn(item))`` or ``("err", exception)`` out,
    until ``None`` or the end of the pipe. Ctrl-C is the parent's to handle: a terminal
    sends SIGINT to the whole process group, and a worker printing its own
    KeyboardInterrupt traceback is noise (the parent stops the workers itself)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent_pid)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        fn, item = msg
        try:
            out: tuple[str, Any] = ("ok", fn(item))
        except BaseException as e:  # noqa: BLE001 - every failure goes back to the parent
            out = ("err", _portable(e))
        try:
            conn.send(out)
        except (BrokenPipeError, OSError):
            return


class LocalPool(Executor):
    """A pool of worker processes on this machine (default: one per core).

    Each worker has one pipe to this process and runs one task at a time, so nothing is
    queued where this process cannot take it back: an interrupt (Ctrl-C, SIGTERM) or any
    error stops the workers at once (SIGKILL: each finished run is already committed, and
    SQLite's commit is atomic) and returns without waiting for them. The workers ignore
    SIGINT and die with this process however it ends (:func:`_die_with`)."""

    name = "local"
    writes_store = True

    def __init__(self, workers: int | None = None) -> None:
        from ..errors import ParameterError

        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or workers < 1):
            raise ParameterError("workers", workers, "must be an integer >= 1 for a pool")
        self.workers = workers or os.cpu_count() or 1
        self._procs: list[tuple[Any, Any]] = []     # (process, connection)

    def _start(self) -> None:
        import multiprocessing

        if self._procs:
            return
        # forkserver: workers start from a clean process, not a fork of one that may hold
        # threads (the progress bar's) or an open SQLite connection
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["lossytcp.experiments._forkserver", "lossytcp._sim",
                                    "lossytcp.sim"])
        try:
            for _ in range(self.workers):
                ours, theirs = ctx.Pipe(duplex=True)
                p = ctx.Process(target=_worker_main, args=(theirs, os.getpid()), daemon=True,
                                name="lossytcp-worker")
                p.start()
                theirs.close()
                self._procs.append((p, ours))
        except BaseException:
            self._stop()
            raise

    def run(self, batches, store_path):
        return self._execute(run_batch, ((b, store_path) for b in batches), star=True)

    def map(self, fn, items):
        return self._execute(fn, items)

    def _execute(self, fn, items, star: bool = False):
        """Results of ``fn`` on each item as they finish (any order); ``items`` is read as
        workers become free."""
        from multiprocessing.connection import wait

        self._start()
        task = functools.partial(_star, fn) if star else fn
        pending = iter(items)
        more = True
        idle = list(self._procs)
        busy: dict[Any, Any] = {}            # connection -> process
        try:
            while more or busy:
                while more and idle:
                    item = next(pending, _END)
                    if item is _END:
                        more = False
                        break
                    p, c = idle.pop()
                    try:
                        c.send((task, item))
                    except OSError:          # a broken pipe: the worker is gone
                        _died(p)
                    busy[c] = p
                if not busy:
                    continue
                ready = wait([*busy, *(p.sentinel for p in busy.values())])
                for c, p in list(busy.items()):
                    if c in ready:
                        try:
                            status, value = c.recv()
                        except (EOFError, OSError):
                            _died(p)         # its end of the pipe closed: it is gone
                        idle.append((busy.pop(c), c))
                        if status == "err":
                            raise value
                        yield value
                    elif p.sentinel in ready:
                        _died(p)
        except BaseException:
            # Ctrl-C, SIGTERM, an error, or the caller stopped reading: the tasks in flight
            # are abandoned (each finished run is committed already) and the pool restarts
            # on next use.
            self._stop()
            raise

    def _stop(self) -> None:
        procs, self._procs = self._procs, []
        for p, c in procs:
            if p.is_alive():
                p.kill()
            c.close()
        for p, _ in procs:
            p.join(5)

    def close(self) -> None:
        procs, self._procs = self._procs, []
        for _, c in procs:
            try:
                c.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p, c in procs:
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join(5)
            c.close()


def _died(p: Any) -> None:
    from ..errors import WorkerDied

    p.join(1)
    raise WorkerDied(f"a worker process (pid {p.pid}) ended with exit code {p.exitcode} "
                     "while running a task; the runs finished before are stored, and "
                     "running again resumes")


def _star(fn, args):
    return fn(*args)


_END = object()


class DaskExecutor(Executor):
    """Dask distributed: ``address`` of a scheduler (``tcp://host:8786``) or ``"local"`` for a
    :class:`distributed.LocalCluster` of one single-threaded worker process per core. The
    workers need lossytcp installed (the same version: the run keys include the engine's)."""

    name = "dask"

    def __init__(self, address: str = "local", workers: int | None = None,
                 timeout_s: float = 20.0) -> None:
        from ..errors import ParameterError

        if not isinstance(address, str) or not (address == "local" or "://" in address):
            raise ParameterError("dask", address, "must be 'local' or a scheduler address "
                                 "such as tcp://host:8786")
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - depends on the environment
            from ..errors import ParameterError

            raise ParameterError("dask", address, "needs the dask extra: pip install "
                                 "'lossytcp[dask]' (dask[distributed])") from None
        self._cluster = None
        if address == "local":
            self.workers = workers or os.cpu_count() or 1
            with _quiet_children():
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             processes=True, silence_logs=50,
                                             # CRITICAL only: a worker's heartbeat failing
                                             # while the cluster closes at Ctrl-C logs an
                                             # ERROR traceback; a run's own error comes
                                             # back through its future.
                                             # No dashboard, and the scheduler's HTTP
                                             # routes on a free port: two clusters at once
                                             # must not warn about 8787
                                             dashboard_address=":0",
                                             scheduler_kwargs={"dashboard": False})
            self._client = Client(self._cluster)
        else:
            _probe_scheduler(address, timeout_s)
            try:
                self._client = Client(address, timeout=f"{timeout_s}s")
            except Exception as e:
                # Whatever answered was no scheduler: Dask reads a proxy's or another
                # server's bytes as a frame length and fails in odd ways (MemoryError).
                raise ParameterError("dask", address, f"no Dask scheduler answered there "
                                     f"within {timeout_s:g} s ({type(e).__name__}: "
                                     f"{str(e).splitlines()[0] if str(e) else ''})") from None
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


@contextlib.contextmanager
def _quiet_children():
    """The cluster's worker processes start with SIGINT ignored (a disposition a new
    interpreter keeps, and asyncio then leaves alone): Ctrl-C at a terminal reaches the whole
    process group, and this process alone answers it, closing the cluster, instead of every
    worker printing its KeyboardInterrupt traceback. The resource tracker started with them
    cleans up the semaphores of a cluster whose owner was killed without its warning about
    "leaked" ones, which would be the only words after a SIGKILL."""
    env_before = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = ",".join(
        filter(None, [env_before, "ignore::UserWarning:multiprocessing.resource_tracker"]))
    main = threading.current_thread() is threading.main_thread()
    sig_before = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, sig_before)
        if env_before is None:
            os.environ.pop("PYTHONWARNINGS", None)
        else:
            os.environ["PYTHONWARNINGS"] = env_before


def _probe_scheduler(address: str, timeout_s: float) -> None:
    """Refuse at once a TCP address where nothing listens: Dask's client retries a refused
    connection until its whole timeout has passed."""
    from urllib.parse import urlsplit

    from ..errors import ParameterError

    parts = urlsplit(address)
    if parts.scheme not in ("tcp", "tls"):
        return
    try:
        host, port = parts.hostname, parts.port or 8786
    except ValueError as e:
        raise ParameterError("dask", address, f"is not a scheduler address ({e}); "
                             "give tcp://host:port") from None
    if not host:
        raise ParameterError("dask", address, "names no host; give tcp://host:port")
    try:
        socket.create_connection((host, port), timeout=min(timeout_s, 5.0)).close()
    except OSError as e:
        raise ParameterError("dask", address, f"no Dask scheduler answered there "
                             f"({type(e).__name__}: {e.strerror or e})") from None


def make_executor(workers: int | None = None, dask: str | None = None) -> Executor:
    """``dask`` (an address or "local") selects Dask; else ``workers=0`` runs in this process
    and any other count (default: every core) a local process pool."""
    from ..errors import ParameterError

    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 0):
        raise ParameterError("workers", workers, "must be an integer >= 0 (0: in this "
                             "process; None: one per core)")
    if dask:
        if workers == 0:
            raise ParameterError("workers", workers, "0 runs in this process, which "
                                 f"contradicts dask = {dask!r}: give one of them")
        return DaskExecutor(dask, workers)
    if workers == 0:
        return Serial()
    return LocalPool(workers)


def make_batches(runs: Sequence[tuple[str, str, int, Any, float]], workers: int,
                 target_s: float = 0.25, max_runs: int = 256) -> Iterator[Batch]:
    """Group runs (key, variant, seed, scenario JSON, estimated seconds) into batches of about
    ``target_s`` estimated engine seconds, but into at least four batches per worker while
    there are enough runs, so that the last batches do not leave cores idle. The scenario
    may be given as a function of nothing returning the JSON (a :class:`RunSpec`'s text):
    batches are then made as the executor takes them, so a sweep of a million runs never
    holds a million scenarios at once."""
    if not runs:
        return
    total = sum(r[4] for r in runs)
    per = min(target_s, total / max(1, 4 * workers))
    cur: Batch = []
    acc = 0.0
    for key, variant, seed, sc, cost in runs:
        cur.append((key, variant, seed, sc() if callable(sc) else sc))
        acc += cost
        if acc >= per or len(cur) >= max_runs:
            yield cur
            cur, acc = [], 0.0
    if cur:
        yield cur
