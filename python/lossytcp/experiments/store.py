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

import errno
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError

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


def _store_error(path: str | Path, e: BaseException, writing: bool) -> ParameterError:
    """A clear error for a store path SQLite cannot use (a directory, a file that is not a
    database, a place that cannot be written)."""
    p = Path(path)
    if p.is_dir():
        why = "is a directory; give the path of a results database file"
    elif isinstance(e, sqlite3.DatabaseError) and "not a database" in str(e):
        why = "is not an SQLite results database (file is not a database)"
    elif "readonly" in str(e) or "read-only" in str(e) or (
            isinstance(e, OSError) and e.errno in (errno.EACCES, errno.EROFS, errno.EPERM)) \
            or (writing and not _writable(p)):
        why = ("cannot be written (read-only file or directory)" if writing
               else "cannot be read (permission denied)")
    elif "unable to open" in str(e) or isinstance(e, OSError):
        why = f"cannot be opened ({getattr(e, 'strerror', None) or e})"
    else:
        why = f"cannot be used ({e})"
    return ParameterError("store", str(path), why)


def _writable(p: Path) -> bool:
    """Whether the database file and its directory (for SQLite's WAL and shared-memory
    files) can be written, asking the file system itself (root passes permission checks,
    not a read-only mount or an immutable file)."""
    import tempfile

    try:
        if p.exists():
            os.close(os.open(p, os.O_WRONLY | os.O_APPEND))
        with tempfile.TemporaryFile(dir=p.resolve().parent):
            pass
    except OSError:
        return False
    return True


def _retrying(con: sqlite3.Connection, sql: str, deadline: float) -> Any:
    """``con.execute(sql)``, retried while the database is locked. SQLite does not call the
    busy handler where waiting could deadlock: two connections switching a new database to
    WAL at once each hold a shared lock and want an exclusive one, and one of them gets
    "database is locked" at once whatever the busy timeout (issue 24: two ``lossytcp run``
    starting together on a new store). Backing off and trying again resolves it."""
    import random

    delay = 0.005
    while True:
        try:
            return con.execute(sql).fetchall()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() > deadline:
                raise
        time.sleep(delay * (1 + random.random()))
        delay = min(delay * 2, 0.2)


def connect(path: str | Path, timeout_s: float = 60.0, *,
            readonly: bool = False) -> sqlite3.Connection:
    """A connection in WAL mode with a busy timeout (``readonly``: a read-only one that
    changes nothing in the file, for ``lossytcp results``)."""
    deadline = time.monotonic() + timeout_s
    if readonly:
        from urllib.parse import quote

        uri = f"file:{quote(str(Path(path).resolve()))}"
        try:
            con = sqlite3.connect(f"{uri}?mode=ro", timeout=timeout_s, isolation_level=None,
                                  uri=True)
            con.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
            _retrying(con, "SELECT COUNT(*) FROM sqlite_master", deadline)
        except sqlite3.OperationalError:
            # A WAL database in a directory nobody may write (a read-only disk, an archive):
            # SQLite cannot make its shared-memory file there; read the file as it is.
            con = sqlite3.connect(f"{uri}?immutable=1", isolation_level=None, uri=True)
            con.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
        return con
    con = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None)
    con.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
    if str(path) != ":memory:":
        _retrying(con, "PRAGMA journal_mode = WAL", deadline)
    con.execute("PRAGMA synchronous = NORMAL")
    return con


def _rollback(con: sqlite3.Connection) -> None:
    """Roll back the transaction if there still is one: an interrupt (Ctrl-C) can arrive
    after SQLite finished the COMMIT and before Python returned from it, and then ROLLBACK
    would fail with "cannot rollback - no transaction is active" (issue 24)."""
    if con.in_transaction:
        try:
            con.execute("ROLLBACK")
        except sqlite3.OperationalError:
            pass


class Store:
    """An SQLite results store at ``path`` (created on first use; ``":memory:"`` for one in
    this process only). ``readonly``: open an existing store for reading only (``lossytcp
    results``): nothing in the file changes, and a store on a read-only disk can be read.

    A path SQLite cannot use (a directory, a file that is not a database, a read-only
    place to write) raises :class:`~lossytcp.errors.ParameterError` naming ``store``."""

    def __init__(self, path: str | Path = DEFAULT_NAME, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        try:
            if readonly:
                if not self.path.is_file():
                    raise ParameterError("store", str(path), "no such results database (run "
                                         "an experiment first, or pass --store PATH)")
                self._con = connect(self.path, readonly=True)
                have = {r[0] for r in self._con.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not {"runs", "members", "experiments"} <= have:
                    self._con.close()
                    raise ParameterError("store", str(path), "holds no lossytcp results (an "
                                         "empty file or another application's database)")
                return
            if not self.in_memory and self.path.parent and not self.path.parent.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._con = connect(self.path)
            self._con.executescript(_SCHEMA)
        except ParameterError:
            raise
        except (sqlite3.Error, OSError) as e:
            raise _store_error(path, e, writing=not readonly) from None

    @property
    def in_memory(self) -> bool:
        """A store that lives in this process only: workers cannot write it themselves."""
        return str(self.path) in (":memory:", "")

    # ------------------------------------------------------------------------ writing
    def _tx(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.executemany(sql, rows)
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise

    def put_runs(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Insert finished runs (dicts with :data:`RUN_COLUMNS`) in one transaction."""
        write_runs(self._con, rows)

    def put_members(self, experiment: str, members: Iterable[tuple[str, int, str]]) -> None:
        """Record runs ``(point, seed, key)`` as the experiment's: a (point, seed) whose key
        changed (a new engine version, an edited trace file or scenario function) now
        names the new run."""
        self._tx("INSERT OR REPLACE INTO members VALUES (?, ?, ?, ?)",
                 [(experiment, p, s, k) for p, s, k in members])

    def reset_stale_members(self, experiment: str,
                            members: Sequence[tuple[str, int, str]]) -> bool:
        """Forget the experiment's recorded runs if any of ``members`` (its first planned
        runs) has another key than recorded: its inputs changed under the same definition
        (engine version, trace file contents, a scenario function's code), so none of the
        old runs is what the experiment asks for now. The runs stay in the store. Returns
        whether the record was reset."""
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            old = {(p, s): k for p, s, k in con.execute(
                "SELECT point, seed, key FROM members WHERE experiment = ?", (experiment,))}
            stale = any(old.get((p, s), k) != k for p, s, k in members)
            if stale:
                con.execute("DELETE FROM members WHERE experiment = ?", (experiment,))
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise
        return stale

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

    def claim(self, name: str, definition: Mapping[str, Any], identity: Sequence[str],
              replace: bool = False) -> list[str]:
        """Store ``definition`` as experiment ``name``'s, in one transaction. If the store
        holds another definition under that name (differing in one of the ``identity``
        keys: what decides the runs), return the keys that differ and change nothing,
        unless ``replace``: then forget the old definition's record of runs (the runs stay,
        content-keyed, and are reused when asked for again) and store the new one. Keys
        outside the identity (description, confidence level, summarised metrics) are
        updated in place."""
        text = _json(definition)
        new = json.loads(text)
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            row = con.execute("SELECT definition FROM experiments WHERE name = ?",
                              (name,)).fetchone()
            old = None if row is None else json.loads(row[0])
            changed = [] if old is None else _changed(old, new, identity)
            if changed and not replace:
                con.execute("ROLLBACK")
                return changed
            if changed:
                con.execute("DELETE FROM members WHERE experiment = ?", (name,))
                con.execute("DELETE FROM model_members WHERE experiment = ?", (name,))
            con.execute("INSERT OR REPLACE INTO experiments VALUES (?, ?, ?)",
                        (name, text, time.time()))
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise
        return []

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
        filter on the result (``"variant == 'sack' and alpha < 0.01"``: comparisons of
        columns and literals, and/or/not, see :mod:`.query`; parsed, never evaluated);
        ``reports``
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
        if where is not None:
            from .query import mask, parse

            parse(where)               # refused even when there is nothing to filter
            if len(df):
                df = df[mask(df, where)]
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


def _changed(old: Mapping[str, Any], new: Mapping[str, Any],
             identity: Sequence[str]) -> list[str]:
    """The identity keys whose values differ (a table's own keys one level down:
    ``sweep.alpha``, ``scenario.duration_s``)."""
    out = []
    for k in identity:
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += [f"{k}.{x}" for x in sorted(set(a) | set(b)) if a.get(x) != b.get(x)]
        else:
            out.append(k)
    return out


def write_runs(con: sqlite3.Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    vals = [(r["key"], r["engine_version"], r["variant"], r["seed"], r["scenario"],
             r["metrics"], r["report"], r.get("wall_s"), r.get("worker"),
             r.get("finished_at") or time.time()) for r in rows]
    con.execute("BEGIN IMMEDIATE")
    try:
        con.executemany(f"INSERT OR IGNORE INTO runs VALUES ({','.join('?' * 10)})", vals)
        con.execute("COMMIT")
    except BaseException:
        _rollback(con)
        raise


_WORKER_CONNECTIONS: dict[str, sqlite3.Connection] = {}


def worker_connection(path: str) -> sqlite3.Connection:
    """One connection per worker process and store (workers outlive many tasks)."""
    key = f"{os.getpid()}:{os.path.abspath(path)}"
    con = _WORKER_CONNECTIONS.get(key)
    if con is None:
        con = connect(path)
        con.executescript(_SCHEMA)
        _WORKER_CONNECTIONS[key] = con
    return con
