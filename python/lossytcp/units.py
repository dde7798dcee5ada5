"""Quantities with units in their text: ``2Mbps``, ``20ms``, ``500B``, ``1.5KB``.

Used by the CLI (values carry units) and accepted by the Python API where a string is given.
Bare numbers are taken in the base unit (bit/s, seconds, bytes).
"""

from __future__ import annotations

import re

from .errors import ParameterError

_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*"

_RATE = {"": 1.0, "bps": 1.0, "b/s": 1.0, "kbps": 1e3, "kb/s": 1e3, "mbps": 1e6, "mb/s": 1e6,
         "gbps": 1e9, "gb/s": 1e9}
_TIME = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9,
         "min": 60.0, "h": 3600.0}
_SIZE = {"": 1.0, "b": 1.0, "byte": 1.0, "bytes": 1.0, "kb": 1e3, "kib": 1024.0, "mb": 1e6,
         "mib": 1024.0**2}


def _parse(name: str, text: str | float | int, table: dict[str, float], example: str) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    m = re.fullmatch(_NUM + r"([a-zA-Zµ/]*)", str(text).strip())
    if not m:
        raise ParameterError(name, text, f"must be a number with a unit, e.g. {example}")
    unit = m.group(2).lower()
    if unit not in table:
        units = ", ".join(sorted(k for k in table if k))
        raise ParameterError(name, text, f"unknown unit {m.group(2)!r}; use one of {units}")
    return float(m.group(1)) * table[unit]


def rate_bps(text: str | float, name: str = "rate") -> float:
    """``2Mbps`` -> 2e6 (bits per second)."""
    return _parse(name, text, _RATE, "2Mbps")


def time_s(text: str | float, name: str = "time") -> float:
    """``20ms`` -> 0.02 (seconds)."""
    return _parse(name, text, _TIME, "20ms")


def size_bytes(text: str | float, name: str = "size") -> float:
    """``500B`` -> 500 (bytes); ``1.5KB`` -> 1500."""
    return _parse(name, text, _SIZE, "500B")


def parse_for_field(field_name: str, text: str) -> float:
    """Parse a CLI value by the unit suffix of the parameter's field name."""
    if field_name.endswith("_bps"):
        return rate_bps(text, field_name)
    if field_name.endswith("_s"):
        return time_s(text, field_name)
    if field_name.endswith("_bytes"):
        return size_bytes(text, field_name)
    try:
        return float(text)
    except ValueError:
        raise ParameterError(field_name, text, "must be a number") from None
