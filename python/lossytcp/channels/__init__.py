"""Channel models and their parameters: Gilbert-Elliott, Bernoulli, Rayleigh fading.

``gilbert_elliott`` holds the two-state packet-level channel of paper 000 and its conversions;
``rayleigh`` derives two-state Markov parameters from Rayleigh fading (paper 004, Section 3.1)
and simulates Jakes fading traces; ``bit_level`` turns a Jakes fade into packet errors bit
by bit (paper 004's simulated channel).
"""

from __future__ import annotations

import importlib

for _m in ("gilbert_elliott", "rayleigh", "bit_level"):
    _mod = importlib.import_module(f"{__name__}.{_m}")
    globals().update({k: getattr(_mod, k) for k in _mod.__all__})
