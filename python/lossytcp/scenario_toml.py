"""TOML for scenarios: reading with the standard library's ``tomllib``, writing with the small
emitter below (scenarios are plain data: tables, arrays, strings, numbers and booleans, so
the whole of TOML is not needed, and no package is added for it).

The emitter writes top-level values first, then each table (``[topology]``), then arrays of
tables (``[[flows]]``, or one inline table per line when there are many); tables inside those
are written inline (``queue = {kind = "red", packets = 150}``). What :func:`dumps` writes,
:func:`loads` reads back equal.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .errors import ParameterError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
#: Arrays of more tables than this are written inline, one table per line.
INLINE_ARRAY_MIN = 4


def loads(text: str) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ParameterError("scenario", text[:200], f"must be valid TOML ({e})") from None


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False)


def _value(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
        return repr(x)
    if isinstance(x, str):
        # JSON's escapes are TOML's (a basic string), non-ASCII kept as is.
        return json.dumps(x, ensure_ascii=False)
    if isinstance(x, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(y)}" for k, y in x.items()) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_value(y) for y in x) + "]"
    raise TypeError(f"cannot write {type(x).__name__} as TOML")


def _table_body(d: Mapping[str, Any]) -> list[str]:
    return [f"{_key(k)} = {_value(x)}" for k, x in d.items()]


def dumps(data: Mapping[str, Any], comment: str = "") -> str:
    """``data`` as TOML; ``comment`` (lines) at the top."""
    lines = [f"# {c}".rstrip() for c in comment.splitlines()] if comment else []
    long = {k: x for k, x in data.items() if _is_table_array(x) and len(x) > INLINE_ARRAY_MIN}
    scalars = {k: x for k, x in data.items()
               if not isinstance(x, Mapping) and not _is_table_array(x)}
    tables = {k: x for k, x in data.items() if isinstance(x, Mapping)}
    arrays = {k: x for k, x in data.items() if _is_table_array(x) and k not in long}
    if lines and scalars:
        lines.append("")
    lines += _table_body(scalars)
    for k, arr in long.items():
        # Many entries (a dumbbell's 29 download sources): one line each reads better. Before
        # any [table]: a key after a table's header would belong to that table.
        lines += ["", f"{_key(k)} = ["]
        lines += [f"    {_value(t)}," for t in arr]
        lines.append("]")
    for k, t in tables.items():
        lines += ["", f"[{_key(k)}]", *_table_body(t)]
    for k, arr in arrays.items():
        for t in arr:
            lines += ["", f"[[{_key(k)}]]", *_table_body(t)]
    return "\n".join(lines).lstrip("\n") + "\n"


def _is_table_array(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and bool(x) and all(isinstance(y, Mapping) for y in x)
