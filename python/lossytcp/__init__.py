"""lossytcp: TCP over lossy, bursty, delay-jumping paths.

Analytical models (:mod:`lossytcp.models`), channel helpers (:mod:`lossytcp.channels`) and a
packet-level simulator (:func:`lossytcp.simulate`, :func:`lossytcp.run` for any
:mod:`lossytcp.scenario`) over one set of inputs.

The simulator's names are imported on first use (PEP 562), so that ``import lossytcp`` and
the command line's start-up stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ParameterError

if TYPE_CHECKING:
    from .scenario import Scenario
    from .sim import (
        METRICS,
        NetReport,
        NetSummary,
        SeedSummary,
        SimReport,
        build_scenario,
        run,
        run_seeds,
        simulate,
        simulate_seeds,
    )

_FROM_SIM = ("METRICS", "NetReport", "NetSummary", "SeedSummary", "SimReport", "build_scenario",
             "run", "run_seeds", "simulate", "simulate_seeds")

__all__ = ["METRICS", "NetReport", "NetSummary", "ParameterError", "Scenario", "SeedSummary",
           "SimReport", "build_scenario", "run", "run_seeds", "simulate", "simulate_seeds"]
__version__ = "0.1.0"

_SUBMODULES = ("sim", "scenario", "spec", "units", "models", "channels", "cli", "ns2", "errors",
               "experiments", "figures", "emulate")


def __getattr__(name: str) -> Any:
    if name in _FROM_SIM:
        from . import sim

        return getattr(sim, name)
    if name == "Scenario":
        from .scenario import Scenario

        return Scenario
    if name in _SUBMODULES:   # lossytcp.sim, lossytcp.models, ... as before, on first use
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'lossytcp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_FROM_SIM, "Scenario"])
