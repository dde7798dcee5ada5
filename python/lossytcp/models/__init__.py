"""Analytical models of TCP over lossy paths, one module per paper, one call shape.

>>> from lossytcp import models
>>> models.available()                                     # doctest: +SKIP
>>> models.evaluate("mathis", rtt_s=0.1, p=0.01)           # doctest: +SKIP
"""

from __future__ import annotations

import importlib

from .base import Model, ModelResult, available, evaluate, get, register, sweep

# Each module registers itself on import.
_MODULES = ("mathis", "pftk", "packet_train", "aqm_renewal", "fading_energy", "abrupt_rtt",
            "cubic_response", "bbr_goodput")
for _m in _MODULES:
    importlib.import_module(f"{__name__}.{_m}")

__all__ = ["Model", "ModelResult", "available", "evaluate", "get", "register", "sweep"]
