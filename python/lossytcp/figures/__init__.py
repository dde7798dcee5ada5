"""The papers' figures as experiments plus claim checks (one module per paper).

A :class:`Figure` is: the experiment(s) that produce it (at the paper's size, or ``quick``),
how to draw it (:class:`lossytcp.plots.PlotSpec`), and the claims of ``SCENARIOS.md`` checked
against its data, on the model and on the simulation. :func:`reproduce` runs it through the
experiment layer (the store lives in the output directory, so running again resumes) and
writes the figure (PNG and SVG), the data (CSV) and the claims (JSON).

Adding a figure: in the paper's module, write a function ``quick -> [Experiment, ...]``
(name each experiment after the figure, set the scenario to the paper's parameters, overlay
the model — or, for a model figure, configure the engine to the model's assumptions), a
claims function ``FigureData -> [ClaimResult, ...]`` using the helpers of :mod:`.claims`,
and ``register(Figure(...))`` them; ``lossytcp reproduce list`` shows it from then on, the
report includes it, and ``tests/figures`` checks its claims at ``--quick`` size when it is
marked ``quick_decidable``.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..experiments import Experiment, RunResult, Store
from ..experiments import run as run_experiment
from ..plots import PlotSpec, draw
from .claims import ClaimResult

__all__ = ["FIGURES", "Figure", "FigureData", "Outcome", "get", "reproduce"]

#: Papers by key (a module registering figures of another paper adds its entry here).
PAPERS = {
    "000": "Anjum & Tassiulas 2003, TCP over a Gilbert-Elliott channel (packet-train model)",
    "001": "Abouzeid & Roy 2003, TCP under abrupt RTT changes (semi-Markov RTT)",
    "002": "Kaj & Olsen, TCP under RED and DropTail loss (renewal-reward model)",
    "003": "Martignon, NewReno-LP (Vegas loss predictor)",
    "004": "Zorzi & Rao 2001, TCP energy efficiency over Rayleigh fading",
    "beyond": "beyond the seeds: today's TCPs (CUBIC, BBR) on the seeds' paths (issue 22)",
}


@dataclass
class FigureData:
    figure: Figure
    quick: bool
    results: dict[str, RunResult]

    def result(self, name: str | None = None) -> RunResult:
        if name is None:
            return next(iter(self.results.values()))
        return self.results[name]

    def runs(self, name: str | None = None):
        return self.result(name).runs()

    def models(self, name: str | None = None):
        return self.result(name).models()

    def summary(self, name: str | None = None):
        r = self.result(name)
        return r.summary()


@dataclass(frozen=True)
class Figure:
    id: str                       # "paper000-fig3"
    paper: str                    # "000"
    title: str                    # the paper's caption, shortened
    kind: str                     # what the paper shows: "model", "simulation" or "table"
    description: str              # one line for `reproduce list`
    experiments: Callable[[bool], list[Experiment]]
    claims: Callable[[FigureData], list[ClaimResult]]
    plot: PlotSpec | None = None
    notes: str = ""               # parameters chosen where the paper is silent, and why
    quick_decidable: bool = True  # its claims are decidable at --quick size (make test)
    draw_fn: Callable[[FigureData, Path], list[Path]] | None = None   # custom drawing
    # expensive inputs made in parallel on the executor before the experiments expand
    prepare: Callable[[bool, Any], None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


FIGURES: dict[str, Figure] = {}


def title_of(data: FigureData) -> str:
    """A figure's title as drawn: the paper, the caption, "(quick)" at the quick size."""
    f = data.figure
    return f"Paper {f.paper} {f.title}" + (" (quick)" if data.quick else "")

#: Figures and tables of SCENARIOS.md not reproducible here yet, and why (``reproduce list``
#: prints them under "Not reproduced yet"; empty when every one is).
PENDING: dict[str, str] = {}
#: Modules of this package that hold no figures; every other module registers its own on
#: import (a new module of figures needs no entry anywhere).
_NOT_FIGURES = {"claims"}
_loaded = False


def register(fig: Figure) -> Figure:
    if fig.id in FIGURES:
        raise RuntimeError(f"figure {fig.id} registered twice")
    FIGURES[fig.id] = fig
    return fig


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        import pkgutil

        for m in sorted(i.name for i in pkgutil.iter_modules(__path__)):
            if not m.startswith("_") and m not in _NOT_FIGURES:
                importlib.import_module(f"{__name__}.{m}")


def order_key(fig: Figure) -> tuple:
    """Paper, then figures by number (3a before 3b before 4), then tables, then the rest."""
    import re

    m = re.search(r"-(fig|table)(\d+)([a-z]?)", fig.id)
    if m is None:
        return (fig.paper, 2, 0, "", fig.id)
    return (fig.paper, 0 if m.group(1) == "fig" else 1, int(m.group(2)), m.group(3), fig.id)


def all_figures() -> list[Figure]:
    """Every registered figure, by paper and figure number."""
    _load()
    return sorted(FIGURES.values(), key=order_key)


def get(fig_id: str) -> Figure:
    from ..errors import ParameterError

    _load()
    if fig_id not in FIGURES:
        raise ParameterError("figure", fig_id, "must be one of " + ", ".join(FIGURES)
                             + " (see: lossytcp reproduce list)")
    return FIGURES[fig_id]


@dataclass
class Outcome:
    figure: Figure
    quick: bool
    claims: list[ClaimResult]
    files: list[Path]
    wall_s: float
    runs: int
    computed: int
    data: FigureData


def reproduce(fig: Figure | str, *, quick: bool = False, out: str | Path = "figures-out",
              workers: int | None = None, dask: str | None = None, executor=None,
              progress: Callable[[str], Callable[[int, int], None] | None] | None = None,
              ) -> Outcome:
    """Run a figure's experiments (resuming from ``out``'s store), draw it, check its claims,
    and write everything under ``out/<figure id>/``."""
    fig = get(fig) if isinstance(fig, str) else fig
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    store = Store(out / "lossytcp-results.sqlite")
    t0 = time.perf_counter()
    results = {}
    if fig.prepare is not None and executor is not None:
        fig.prepare(quick, executor)
    for exp in fig.experiments(quick):
        cb = progress(f"{fig.id} {exp.name}") if progress else None
        # replace: the figure's definition is the code's, and --quick shares the name
        results[exp.name] = run_experiment(exp, store=store, executor=executor,
                                           workers=workers, dask=dask, progress=cb,
                                           replace=True)
    data = FigureData(fig, quick, results)
    d = out / fig.id
    d.mkdir(exist_ok=True)
    files: list[Path] = []
    title = title_of(data)
    if fig.draw_fn is not None:
        files += fig.draw_fn(data, d / fig.id)
    elif fig.plot is not None:
        first = data.result()
        spec = fig.plot
        if spec.model_labels is None:
            # line styles in the order the experiment lists its overlays (the first solid)
            import dataclasses

            spec = dataclasses.replace(spec, model_labels=tuple(
                m.key for m in first.experiment.models))
        files += draw(spec, first.summary(), first.models(), title, d / fig.id,
                      first.experiment.level)
    for name, r in results.items():
        summ, mod = r.summary(), r.models()
        p = d / f"{name}-simulation.csv"
        summ.to_csv(p, index=False)
        files.append(p)
        if len(mod):
            p = d / f"{name}-model.csv"
            mod.to_csv(p, index=False)
            files.append(p)
    claims = fig.claims(data)
    readings = getattr(sys.modules.get(getattr(fig.claims, "__module__", ""), None),
                       "READINGS", {})
    for c in claims:
        c.reading = c.reading or readings.get(c.claim, "")
        if c.verdict != "holds" and not c.why:
            # at least the measured numbers the verdict rests on
            c.why = c.short
    p = d / "claims.json"
    p.write_text(json.dumps({"figure": fig.id, "quick": quick,
                             "claims": [c.as_dict() for c in claims]}, indent=1))
    files.append(p)
    return Outcome(fig, quick, claims, files, time.perf_counter() - t0,
                   sum(r.planned for r in results.values()),
                   sum(r.computed for r in results.values()), data)
