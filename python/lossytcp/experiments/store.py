"""The results store: SQLite (standard library), one committed row per finished run.

Tables
------
``runs``        one row per engine run, keyed by the run's content key (see :mod:`.keys`):
                variant, seed, the scenario, the metrics of the first flow, the engine's whole
                report, and provenance (wall time, worker, time of commit).
``members``     which runs belong to which experiment point: (experiment, point, seed, key),
                written before the runs start, so an interrupted sweep knows its plan.
``models``      model evaluations keyed by model, parameters and the model's source hash.
``model_members`` the same for the model overlays of experiment points.
``experiments`` the last definition of each experiment (name, JSON, time).

Concurrency: the database runs in WAL mode with a busy timeout, every write is one short
transaction, and rows are inserted with ``INSERT OR IGNORE`` on their primary key, so several
processes (the workers of a pool, or two ``lossytcp run`` on the same experiment) may write at
once: a run computed twice is stored once, and a reader never sees a half-written row. A
process killed with SIGKILL loses only the run it was computing; WAL's commit is atomic, and
``synchronous=NORMAL`` keeps every commit across a crash of the process (only an operating
system crash may lose the last commits, never corrupt the file).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_NAME = "lossytcp-results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY, engine_version TEXT NOT NULL, variant TEXT NOT NULL,
    seed INTEGER NOT NULL, scenario TEXT NOT NULL, metrics TEXT NOT NULL, report TEXT NOT NULL,
    wall_s REAL, worker TEXT, finished_at REAL);
CREATE TABLE IF NOT EXISTS members (
    experiment TEXT NOT NULL, point TEXT NOT NULL, seed INTEGER NOT NULL, key TEXT NOT NULL,
    PRIMARY KEY (experiment, point, seed));
CREATE INDEX IF NOT EXISTS members_key ON members(key);
CREATE TABLE IF NOT EXISTS models (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, params TEXT NOT NULL, result TEXT,
    error TEXT, wall_s REAL, finished_at REAL);
CREATE TABLE IF NOT EXISTS model_members (
    experiment TEXT NOT NULL, point TEXT NOT NULL, label TEXT NOT NULL, key TEXT NOT NULL,
    PRIMARY KEY (experiment, point, label));
CREATE TABLE IF NOT EXISTS experiments (
    name TEXT PRIMARY KEY, definition TEXT NOT NULL, updated_at REAL NOT NULL);
"""

RUN_COLUMNS = ("key", "engine_version", "variant", "seed", "scenario", "metrics", "report",
               "wall_s", "worker", "finished_at")
#: Columns that say where and when a row was computed, not what: excluded when rows of two
#: executors are compared.
PROVENANCE = ("wall_s", "worker", "finished_at")


def _json(x: Any) -> str:
    """JSON with NaN and infinities as null (JSON has no such numbers)."""
    if isinstance(x, dict) and all(not isinstance(v, (dict, list, tuple)) for v in x.values()):
        return json.dumps({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                           for k, v in x.items()}, sort_keys=True, separators=(",", ":"))

    def fix(o: Any) -> Any:
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {k: fix(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [fix(v) for v in o]
        return o
    return json.dumps(fix(x), sort_keys=True, separators=(",", ":"))


def connect(path: str | Path, timeout_s: float = 60.0) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None)
    con.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    return con


class Store:
    """An SQLite results store at ``path`` (created on first use)."""

    def __init__(self, path: str | Path = DEFAULT_NAME) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._con = connect(self.path)
        self._con.executescript(_SCHEMA)

    # ------------------------------------------------------------------------ writing
    def _tx(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.executemany(sql, rows)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def put_runs(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Insert finished runs (dicts with :data:`RUN_COLUMNS`) in one transaction."""
        write_runs(self._con, rows)

    def put_members(self, experiment: str, members: Iterable[tuple[str, int, str]]) -> None:
        self._tx("INSERT OR IGNORE INTO members VALUES (?, ?, ?, ?)",
                 [(experiment, p, s, k) for p, s, k in members])

    def put_models(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self._tx("INSERT OR IGNORE INTO models VALUES (?, ?, ?, ?, ?, ?, ?)",
                 [(r["key"], r["model"], r["params"], r.get("result"), r.get("error"),
                   r.get("wall_s"), time.time()) for r in rows])

    def put_model_members(self, experiment: str,
                          members: Iterable[tuple[str, str, str]]) -> None:
        """The experiment's overlays at its points, replacing those of an earlier definition
        (a changed sweep or overlay must not leave stale points in its model rows)."""
        rows = [(experiment, p, label, k) for p, label, k in members]
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("DELETE FROM model_members WHERE experiment = ?", (experiment,))
            con.executemany("INSERT OR REPLACE INTO model_members VALUES (?, ?, ?, ?)", rows)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def put_experiment(self, name: str, definition: Mapping[str, Any]) -> None:
        self._tx("INSERT OR REPLACE INTO experiments VALUES (?, ?, ?)",
                 [(name, _json(definition), time.time())])

    # ------------------------------------------------------------------------ reading
    def finished(self, keys: Iterable[str]) -> set[str]:
        """Which of these run keys have a row."""
        return self._present("runs", keys)

    def models_finished(self, keys: Iterable[str]) -> set[str]:
        """Which of these model-evaluation keys have a row."""
        return self._present("models", keys)

    def _present(self, table: str, keys: Iterable[str]) -> set[str]:
        # In chunks: SQLite limits the number of parameters of one statement.
        out: set[str] = set()
        ks = list(keys)
        for i in range(0, len(ks), 500):
            chunk = ks[i:i + 500]
            q = f"SELECT key FROM {table} WHERE key IN ({','.join('?' * len(chunk))})"
            out.update(r[0] for r in self._con.execute(q, chunk))
        return out

    def metric_values(self, keys: Sequence[str], metric: str) -> list[float]:
        """One metric of the given runs, in the order of ``keys`` (NaN where absent)."""
        found: dict[str, float] = {}
        for i in range(0, len(keys), 500):
            chunk = list(keys[i:i + 500])
            q = f"SELECT key, metrics FROM runs WHERE key IN ({','.join('?' * len(chunk))})"
            for k, m in self._con.execute(q, chunk):
                x = json.loads(m).get(metric)
                found[k] = math.nan if x is None else float(x)
        return [found.get(k, math.nan) for k in keys]

    def experiments(self) -> list[dict[str, Any]]:
        q = """SELECT e.name, e.updated_at,
                      (SELECT COUNT(*) FROM members m WHERE m.experiment = e.name),
                      (SELECT COUNT(*) FROM members m JOIN runs r ON r.key = m.key
                       WHERE m.experiment = e.name),
                      (SELECT COUNT(DISTINCT point) FROM members m WHERE m.experiment = e.name)
               FROM experiments e ORDER BY e.name"""
        return [dict(name=n, updated_at=t, planned_runs=p, finished_runs=f, points=pts)
                for n, t, p, f, pts in self._con.execute(q)]

    def definition(self, name: str) -> dict[str, Any] | None:
        row = self._con.execute("SELECT definition FROM experiments WHERE name = ?",
                                (name,)).fetchone()
        return None if row is None else json.loads(row[0])

    def runs(self, experiment: str | None = None, keys: Iterable[str] | None = None,
             where: str | None = None, reports: bool = False):
        """Finished runs as a pandas DataFrame: one row per (point, seed) with the point's
        values as columns, the metrics, and the provenance columns.

        ``experiment`` restricts to its members; ``keys`` to those run keys; ``where`` is a
        pandas query on the result (``"variant == 'sack' and alpha < 0.01"``); ``reports``
        adds the engine's whole report (every flow, link and traffic entry) as a dict column
        ``report``."""
        import pandas as pd

        if experiment is None:
            rows = self._con.execute(
                "SELECT NULL, NULL, r.seed, " + ", ".join(f"r.{c}" for c in RUN_COLUMNS)
                + " FROM runs r").fetchall()
        else:
            rows = self._con.execute(
                "SELECT m.experiment, m.point, m.seed, " + ", ".join(f"r.{c}"
                                                                     for c in RUN_COLUMNS)
                + " FROM members m JOIN runs r ON r.key = m.key WHERE m.experiment = ?"
                " ORDER BY m.point, m.seed", (experiment,)).fetchall()
        wanted = None if keys is None else set(keys)
        recs = []
        for exp, point, seed, *cols in rows:
            r = dict(zip(RUN_COLUMNS, cols, strict=True))
            if wanted is not None and r["key"] not in wanted:
                continue
            rec: dict[str, Any] = {"experiment": exp}
            rec.update(json.loads(point) if point else {"variant": r["variant"]})
            rec["seed"] = seed
            metrics = json.loads(r["metrics"])
            rec.update({k: (math.nan if val is None else val) for k, val in metrics.items()
                        if k not in rec})
            rec.update(key=r["key"], engine_version=r["engine_version"], wall_s=r["wall_s"],
                       worker=r["worker"], finished_at=r["finished_at"])
            if reports:
                rec["report"] = json.loads(r["report"])
            recs.append(rec)
        df = pd.DataFrame(recs)
        if where and len(df):
            df = df.query(where)
        return df.reset_index(drop=True)

    def model_rows(self, experiment: str):
        """Model overlays of an experiment: one row per (point, label), the point's values,
        the label, the model's scalar outputs and its error (if it refused the point)."""
        import pandas as pd

        rows = self._con.execute(
            "SELECT mm.point, mm.label, m.model, m.result, m.error FROM model_members mm "
            "JOIN models m ON m.key = mm.key WHERE mm.experiment = ? ORDER BY mm.point",
            (experiment,)).fetchall()
        recs = []
        for point, label, model, result, error in rows:
            rec: dict[str, Any] = dict(json.loads(point))
            rec.update(label=label, model=model, error=error)
            if result:
                rec.update({k: (math.nan if val is None else val)
                            for k, val in json.loads(result).items() if k not in rec})
            recs.append(rec)
        return pd.DataFrame(recs)

    def run_count(self) -> int:
        return int(self._con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_runs(con: sqlite3.Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    vals = [(r["key"], r["engine_version"], r["variant"], r["seed"], r["scenario"],
             r["metrics"], r["report"], r.get("wall_s"), r.get("worker"),
             r.get("finished_at") or time.time()) for r in rows]
    con.execute("BEGIN IMMEDIATE")
    try:
        con.executemany(f"INSERT OR IGNORE INTO runs VALUES ({','.join('?' * 10)})", vals)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


_WORKER_CONNECTIONS: dict[str, sqlite3.Connection] = {}


def worker_connection(path: str) -> sqlite3.Connection:
    """One connection per worker process and store (workers outlive many tasks)."""
    key = f"{os.getpid()}:{path}"
    con = _WORKER_CONNECTIONS.get(key)
    if con is None:
        con = connect(path)
        con.executescript(_SCHEMA)
        _WORKER_CONNECTIONS[key] = con
    return con
