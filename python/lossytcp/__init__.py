"""lossytcp: TCP over lossy, bursty, delay-jumping paths.

Analytical models (:mod:`lossytcp.models`), channel helpers (:mod:`lossytcp.channels`) and a
packet-level simulator (:func:`lossytcp.simulate`) over one set of inputs.
"""

from __future__ import annotations

from .errors import ParameterError
from .sim import METRICS, SeedSummary, SimReport, build_scenario, simulate, simulate_seeds

__all__ = ["METRICS", "ParameterError", "SeedSummary", "SimReport", "build_scenario", "simulate",
           "simulate_seeds"]
__version__ = "0.1.0"
