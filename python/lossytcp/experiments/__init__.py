"""Experiments: declarative sweeps of the engine with model overlays, stored and resumable.

>>> from lossytcp import experiments as ex
>>> exp = ex.load("sweep.toml")                        # doctest: +SKIP
>>> res = ex.run(exp, store="results.sqlite")          # doctest: +SKIP
>>> res.summary()                                      # doctest: +SKIP

See :mod:`.spec` for the experiment's keys, :mod:`.store` for the database, :mod:`.executors`
for the local pool and Dask, and :mod:`.stats` for intervals, sequential stopping and tests.
"""

from .executors import DaskExecutor, LocalPool, Serial, make_executor
from .runner import RunResult, run, summarize
from .spec import (
    Experiment,
    ExperimentError,
    ModelOverlay,
    Point,
    from_dict,
    grid,
    linrange,
    load,
    logrange,
    validate,
)
from .stats import SequentialRule, holm, mean_ci, welch
from .store import DEFAULT_NAME, Store

__all__ = ["DEFAULT_NAME", "DaskExecutor", "Experiment", "ExperimentError", "LocalPool",
           "ModelOverlay", "Point", "RunResult", "SequentialRule", "Serial", "Store",
           "from_dict", "grid", "holm", "linrange", "load", "logrange", "make_executor",
           "mean_ci", "run", "summarize", "validate", "welch"]
