"""Channel models and their parameters: Gilbert-Elliott, Bernoulli, Rayleigh fading.

``gilbert_elliott`` holds the two-state packet-level channel of paper 000 and its conversions;
``rayleigh`` derives two-state Markov parameters from Rayleigh fading (paper 004, Section 3.1)
and simulates Jakes fading traces.
"""

from __future__ import annotations

import importlib

for _m in ("gilbert_elliott", "rayleigh"):
    try:
        _mod = importlib.import_module(f"{__name__}.{_m}")
    except ModuleNotFoundError as e:  # pragma: no cover - only while a module is being written
        if e.name != f"{__name__}.{_m}":
            raise
        continue
    globals().update({k: getattr(_mod, k) for k in getattr(_mod, "__all__", [])})
