"""Analytical models against the packet-level engine: experiment designs, runs and error
tables as pandas DataFrames.

Each module configures the engine to one model's assumptions and returns its tables:

* :mod:`.models_i`: packet-train (paper 000), aqm-renewal (paper 002), mathis, pftk;
* :mod:`.abrupt`: abrupt-rtt (paper 001), the random designs of Section 6.1, Fig. 9, Figs. 10-12;
* :mod:`.fading`: fading-energy (paper 004), the bounds against the slot model, Figs. 1-4, the
  energy-efficiency claims.

``tables(quick=...)`` of each module gives ``{name: DataFrame}``; :func:`all_tables` merges
them. ``scripts/validate_models_I.py`` and ``scripts/validate_models_II.py`` print them;
``tests/validation`` asserts their bounds (quick sizes by default, the full ones under the
``slow`` marker). Engine runs go through :func:`lossytcp.simulate_seeds` (threads; the GIL is
released while the engine runs).
"""

from __future__ import annotations

from .cases import Case, error_summary, run_case, run_cases

__all__ = ["Case", "run_case", "run_cases", "error_summary", "all_tables"]


def all_tables(*, quick: bool = True) -> dict:
    """Every validation table, ``{name: DataFrame}`` (``quick``: the smaller designs)."""
    from . import abrupt, fading, models_i

    out = {}
    mi = models_i.tables(duration_scale=0.25 if quick else 1.0)
    out.update({f"models_i_{k}": v for k, v in mi.items()})
    out.update(abrupt.tables(quick=quick))
    out.update(fading.tables(quick=quick))
    return out
