"""Quantities with units in their text, for the command line: ``2Mbps``, ``20ms``, ``500B``.

The Python API takes plain numbers in the unit its parameter's name carries (``rate_bps=2e6``,
``rtt_s=0.02``, ``packet_size_bytes=500``) and refuses text; these parsers turn the command
line's (and a spec string's) text into those numbers. Units are exact and case-sensitive, as
SI and IEC 80000-13 write them:

* rates in bits per second: ``bps``, ``b/s``, ``bit/s`` with a prefix ``k`` (``K`` is read as
  ``k``), ``M``, ``G``, ``T`` (10^3 steps) or ``Ki``, ``Mi``, ``Gi`` (2^10 steps); in bytes per
  second: ``Bps``, ``B/s`` (``2MBps`` is 16 Mbit/s, not 2);
* sizes in bytes: ``B`` with the same prefixes (``1.5kB`` = 1500 B, ``KB`` = ``kB``, ``KiB`` =
  1024 B); bits (``b``) are refused where a size in bytes is expected;
* times: ``s``, ``ms``, ``us`` or ``µs``, ``ns``, ``min``, ``h``;
* counts per time: ``2/s``, ``30/min``, ``1/h``, ``5Hz``.

``m`` is milli, never mega or minutes: ``2mbps`` and ``5m`` are refused with a hint. A number
without a unit is refused where a unit is expected (``--rtt 20`` could mean seconds or
milliseconds), except ``0``. We keep this table rather than a units library (pint): it is the
whole of what the command line needs, and it loads in microseconds where pint takes a
noticeable part of the command's start-up budget.
"""

from __future__ import annotations

import math
import re

from .errors import ParameterError

_NUM = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*")

_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3, "Ti": 1024.0**4}


def _table(units: dict[str, float]) -> dict[str, float]:
    return {p + u: pv * uv for p, pv in _PREFIX.items() for u, uv in units.items()}


_RATE = _table({"bps": 1.0, "b/s": 1.0, "bit/s": 1.0, "Bps": 8.0, "B/s": 8.0})
_SIZE = {**_table({"B": 1.0}), "byte": 1.0, "bytes": 1.0}
_BITS = _table({"b": 1.0, "bit": 1.0, "bits": 1.0})
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}
_PER_TIME = {"/s": 1.0, "/min": 1 / 60.0, "/h": 1 / 3600.0, "Hz": 1.0, "kHz": 1e3}

_HINTS = {
    "rate": "e.g. 2Mbps (megabits) or 250kBps (kilobytes per second)",
    "time": "e.g. 20ms, 1.5s, 2min",
    "size": "e.g. 500B, 1.5kB, 64KiB",
    "per_time": "e.g. 2/s, 30/min",
}


def _split(name: str, text: object, kind: str) -> tuple[float, str]:
    if not isinstance(text, str):
        raise ParameterError(name, text, f"must be text with a unit, {_HINTS[kind]}")
    m = _NUM.fullmatch(text)
    if not m:
        raise ParameterError(name, text, f"must be a number with a unit, {_HINTS[kind]}")
    x = float(m.group(1))
    if not math.isfinite(x):
        raise ParameterError(name, text, "must be a finite number")
    unit = m.group(2)
    if not unit and x != 0:
        raise ParameterError(name, text, f"needs a unit, {_HINTS[kind]}")
    return x, unit


def _milli_hint(unit: str, table: dict[str, float]) -> str:
    if unit[:1] == "m" and "M" + unit[1:] in table:
        return f"; 'm' is milli: for mega write 'M{unit[1:]}'"
    return ""


def _parse(name: str, text: object, table: dict[str, float], kind: str) -> float:
    x, unit = _split(name, text, kind)
    if not unit:
        return 0.0
    if unit not in table:
        hint = _milli_hint(unit, table)
        if kind == "size" and unit in _BITS:
            hint = "; sizes are whole bytes: 'b' is bits, write 'B'"
        if kind == "time" and unit in ("m", "M"):
            hint = "; write 'min' for minutes or 'ms' for milliseconds"
        raise ParameterError(name, text, f"unknown unit {unit!r}{hint} ({_HINTS[kind]})")
    value = x * table[unit]
    if not math.isfinite(value):
        raise ParameterError(name, text, "must be a finite number")
    return value


def rate_bps(text: str, name: str = "rate") -> float:
    """``2Mbps`` -> 2e6 (bits per second); ``1MBps`` -> 8e6."""
    return _parse(name, text, _RATE, "rate")


def time_s(text: str, name: str = "time") -> float:
    """``20ms`` -> 0.02 (seconds)."""
    return _parse(name, text, _TIME, "time")


def size_bytes(text: str, name: str = "size") -> float:
    """``500B`` -> 500 (bytes); ``1.5kB`` -> 1500. Whole bytes are checked by the caller."""
    return _parse(name, text, _SIZE, "size")


def per_s(text: str, name: str = "rate") -> float:
    """``2/s`` -> 2.0 (events per second); ``30/min`` -> 0.5."""
    return _parse(name, text, _PER_TIME, "per_time")


def parse_for_field(field_name: str, text: str) -> float:
    """Parse a command-line value by the unit suffix of the parameter's field name."""
    if field_name.endswith("_bps"):
        return rate_bps(text, field_name)
    if field_name.endswith("_per_s"):
        return per_s(text, field_name)
    if field_name.endswith("_s"):
        return time_s(text, field_name)
    if field_name.endswith("_bytes"):
        return size_bytes(text, field_name)
    return number(text, field_name)


def number(text: str, name: str) -> float:
    """A plain number (no unit), finite."""
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise ParameterError(name, text, "must be a number") from None
    if not math.isfinite(x):
        raise ParameterError(name, text, "must be a finite number")
    return x


def _number_text(x: float) -> str:
    return f"{x:.6g}".replace("e+0", "e").replace("e+", "e")


def format_for_field(field_name: str, value: object) -> str:
    """``value`` written as the command line takes it for this field, unit included (what
    :func:`parse_for_field` reads back): ``timeout_s`` 0.5 -> ``500ms``, ``rate_bps`` 2e6 ->
    ``2Mbps``, ``packet_size_bytes`` 125 -> ``125B``; a vector's entries joined by ','."""
    if isinstance(value, (list, tuple)):
        if value and isinstance(value[0], (list, tuple)):
            return ";".join(format_for_field(field_name, r) for r in value)
        return ",".join(format_for_field(field_name, x) for x in value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    x = float(value)
    if not math.isfinite(x):
        return str(value)
    if field_name.endswith("_bps"):
        for prefix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
            if abs(x) >= scale:
                return f"{_number_text(x / scale)}{prefix}bps"
        return f"{_number_text(x)}bps"
    if field_name.endswith("_per_s"):
        return f"{_number_text(x)}/s"
    if field_name.endswith("_s"):
        if x == 0 or abs(x) >= 1:
            return f"{_number_text(x)}s"
        if abs(x) >= 1e-3:
            return f"{_number_text(x * 1e3)}ms"
        return f"{_number_text(x * 1e6)}us"
    if field_name.endswith("_bytes"):
        return f"{_number_text(x)}B"
    return _number_text(x) if isinstance(value, float) else str(value)
