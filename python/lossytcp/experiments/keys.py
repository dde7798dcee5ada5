"""Canonical JSON and the content keys of runs and model evaluations.

A run's key is a hash of everything that decides its result: the engine scenario exactly as
:func:`lossytcp.build_scenario` gives it (seed included), the contents of any file it names
(a ``trace:`` channel read lazily by the engine would otherwise be keyed by its path only),
and :func:`lossytcp._sim.engine_version`. Two experiments asking for the same run share it;
a new engine version computes everything again.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

KEY_CHARS = 32   # 128 bits of SHA-256: collisions are not a concern at any sweep size


def canonical(obj: Any) -> Any:
    """A JSON-ready copy with floats normalised (``-0.0`` -> ``0.0``, integral floats kept as
    floats), numpy scalars unwrapped, tuples as lists and NaN refused (it has no JSON form
    and no stable hash)."""
    if isinstance(obj, Mapping):
        return {str(k): canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if hasattr(obj, "item") and not isinstance(obj, (int, float)):   # numpy scalar
        obj = obj.item()
    if hasattr(obj, "tolist"):                                        # numpy array
        return canonical(obj.tolist())
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ValueError(f"{obj!r} cannot be part of a key")
        return 0.0 if obj == 0 else obj
    raise TypeError(f"{type(obj).__name__} {obj!r} cannot be part of a key")


def _default(obj: Any) -> Any:
    if hasattr(obj, "tolist"):       # numpy scalars and arrays
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} {obj!r} cannot be part of a key")


def dumps(obj: Any) -> str:
    """Canonical JSON text: sorted keys, no spaces, floats by repr (round-trips exactly),
    numpy values as their Python equivalents, NaN refused (it has no stable hash)."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False,
                          default=_default)
    except TypeError:
        # keys that are not strings, or types json cannot order: the slow, thorough path
        return json.dumps(canonical(obj), sort_keys=True, separators=(",", ":"),
                          allow_nan=False)


def digest(obj: Any) -> str:
    return hashlib.sha256(dumps(obj).encode()).hexdigest()[:KEY_CHARS]


@functools.lru_cache(maxsize=256)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digests(scenario: Any) -> dict[str, str]:
    """SHA-256 of every file a scenario names (a ``file`` or ``path`` entry anywhere)."""
    out: dict[str, str] = {}

    def walk(x: Any) -> None:
        if isinstance(x, Mapping):
            for k, val in x.items():
                if k in ("file", "path") and isinstance(val, str):
                    p = Path(val)
                    st = p.stat()
                    out[val] = _file_digest(str(p.resolve()), st.st_mtime_ns, st.st_size)
                else:
                    walk(val)
        elif isinstance(x, list):
            for val in x:
                walk(val)

    walk(scenario)
    return out


@functools.lru_cache(maxsize=1)
def engine_version() -> str:
    from .. import _sim

    return _sim.engine_version()


def run_key(scenario: Mapping[str, Any]) -> str:
    """The key of one engine run (scenario with its seed)."""
    text = dumps(scenario)
    return _key(_files_prefix(scenario, text), text)


def _files_prefix(scenario: Mapping[str, Any], text: str) -> str:
    files = file_digests(scenario) if ('"file"' in text or '"path"' in text) else {}
    return f'{{"engine":{json.dumps(engine_version())},"files":{dumps(files)},"scenario":'


def _key(prefix: str, text: str) -> str:
    return hashlib.sha256(f"{prefix}{text}}}".encode()).hexdigest()[:KEY_CHARS]


#: Stands for the seed in a :class:`SeedTemplate`: no run has it (seeds are below 2**64).
_SEED_MARK = str(2**64 + 40_961)


class SeedTemplate:
    """The canonical JSON of one scenario for any seed, and the run keys, computed once:
    the text is cut where the seed goes, so each seed costs a string join and one SHA-256
    instead of serialising the scenario again (a sweep of a million runs plans in minutes,
    not tens of minutes). ``key(seed)`` equals :func:`run_key` of the scenario with that
    seed."""

    __slots__ = ("_head", "_tail", "_prefix", "_scenario", "cost")

    def __init__(self, scenario: Mapping[str, Any], cost: float = 0.0) -> None:
        marked = dict(scenario)
        marked["seed"] = int(_SEED_MARK)
        text = dumps(marked)
        self._prefix = _files_prefix(marked, text)
        self.cost = cost
        if text.count(_SEED_MARK) == 1:
            self._head, _, self._tail = text.partition(_SEED_MARK)
            self._scenario = None
        else:                        # the mark occurs in the scenario itself: no shortcut
            self._head = self._tail = ""
            self._scenario = dict(scenario)

    def text(self, seed: int) -> str:
        if self._scenario is not None:
            return dumps({**self._scenario, "seed": seed})
        return f"{self._head}{int(seed)}{self._tail}"

    def key(self, seed: int) -> str:
        return _key(self._prefix, self.text(seed))


@functools.lru_cache(maxsize=64)
def model_source_digest(model_name: str) -> str:
    """Hash of the source of the module implementing a model: a changed model is evaluated
    again rather than read from the store."""
    from .. import models

    m = models.get(model_name)
    try:
        src = inspect.getsource(inspect.getmodule(m.compute))   # type: ignore[arg-type]
    except (OSError, TypeError):
        src = m.name
    return hashlib.sha256(src.encode()).hexdigest()[:16]


def model_key(model_name: str, params: Mapping[str, Any]) -> str:
    from .. import models

    name = models.get(model_name).name
    return digest({"model": name, "source": model_source_digest(name), "params": params})
