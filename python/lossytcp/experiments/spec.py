"""A declarative experiment: a scenario, swept parameters, variants, model overlays, seeds.

As Python objects::

    from lossytcp.experiments import Experiment, ModelOverlay, logrange
    exp = Experiment(
        name="ge-alpha",
        scenario=dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20,
                      duration_s=50, channel="ge:alpha={alpha},beta=0.2,advance=slot"),
        sweep={"alpha": logrange(1e-3, 3e-2, 6)},
        variants=["tahoe", "newreno", "sack"],
        models=[ModelOverlay("packet-train", params=dict(alpha="{alpha}", beta=0.2,
                rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, timeout_s=0.5))],
        seeds=5)

or as TOML (``lossytcp run FILE.toml``; the keys below are all there are)::

    name = "ge-alpha"
    description = "..."                       # optional
    variants = ["tahoe", "newreno", "sack"]
    seeds = 5                                 # or a table: sequential stopping, see below
    base_seed = 1                             # seeds base_seed, base_seed + 1, ...
    level = 0.95                              # confidence level of summaries
    metrics = ["goodput_norm", "timeouts"]    # summarised metrics (default: all)

    [scenario]                                # lossytcp.simulate() arguments
    rate_bps = 2e6
    channel = "ge:alpha={alpha},beta=0.2,advance=slot"

    [sweep]                                   # the Cartesian product of these axes
    alpha = {log = [1e-3, 3e-2], num = 6}     # or [0.001, 0.01], {linear = [a, b], num = n},
                                              # {start = a, stop = b, step = s}
    [[models]]
    name = "packet-train"
    label = "model"                           # optional
    metric = "throughput_norm"                # the model output drawn ...
    sim_metric = "goodput_norm"               # ... against this simulation metric
    variants = ["tahoe", "newreno", "sack"]   # optional: points the model covers
    params = {alpha = "{alpha}", beta = 0.2, rate_bps = 2e6, rtt_s = 0.02,
              packet_size_bytes = 500, timeout_s = 0.5}

``"{name}"`` is replaced by the point's value of a swept axis (or ``{variant}``): a string that
is exactly one placeholder takes the value itself (a number stays a number), a longer string
is formatted (``"{alpha:g}"`` works). A swept axis that names a ``simulate()`` parameter and is
not set in ``[scenario]`` is passed as that parameter. A model whose parameters include
``variant`` gets the point's variant unless ``params`` sets it.

``seeds = {min = 3, max = 30, rel_halfwidth = 0.05, metric = "goodput_norm"}`` asks for
sequential stopping (:class:`~lossytcp.experiments.stats.SequentialRule`).

Python objects may give ``scenario`` and a model's ``params`` as functions of the point
(``lambda point: {...}``) for parameters derived from the swept ones (a channel from a fading
margin, a window from a bandwidth-delay product). Expansion happens in the calling process:
workers receive finished engine scenarios only, so nothing here needs to be picklable.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ParameterError
from . import keys
from .stats import SequentialRule, check_level

__all__ = ["Experiment", "ExperimentError", "ModelOverlay", "Point", "RunSpec", "grid",
           "linrange", "load", "logrange"]

Template = Mapping[str, Any] | Callable[[Mapping[str, Any]], Mapping[str, Any]]

#: A scenario (function) returning ``{ENGINE_SCENARIO: {...}}`` gives the engine's JSON
#: scenario itself instead of ``simulate()`` arguments.
ENGINE_SCENARIO = "engine_scenario"


class ExperimentError(ParameterError):
    """A malformed experiment: names the file (if any), the key and what is valid."""

    def __init__(self, key: str, value: object, valid: str, file: str | Path | None = None):
        self.file = None if file is None else str(file)
        where = f"{self.file}: " if self.file else ""
        super().__init__(key, value, valid)
        self.args = (f"{where}key '{key}' = {value!r} is invalid: {valid}",)

    def __str__(self) -> str:
        return self.args[0]


#: Most runs one experiment may plan (points x seeds; a sequential rule's max_seeds): its
#: plan is expanded, checked and recorded before anything runs. A million runs (200,000
#: points of simulate() arguments x 5 seeds) plan in about two minutes and 1.4 GB on this
#: project's machine (a progress bar shows it); beyond, split the sweep into several
#: experiments.
MAX_RUNS = 1_000_000
#: Most values one axis may have (checked before its values are built).
MAX_AXIS_VALUES = MAX_RUNS


def _axis_size(name: str, n: float) -> None:
    if not n <= MAX_AXIS_VALUES:
        raise ParameterError(name, n, f"asks for {n:.4g} values; an axis has at most "
                             f"{MAX_AXIS_VALUES:,} (and an experiment at most {MAX_RUNS:,} "
                             "runs)")


def _clean(x: float) -> float:
    """12 significant digits: ranges computed in floating point give the same keys on every
    machine and in every run (1e-3 * 10**0.5 is not reproducible to the last bit across
    libm versions; its 12-digit rounding is)."""
    return float(f"{x:.12g}")


def logrange(start: float, stop: float, num: int) -> list[float]:
    """``num`` values from ``start`` to ``stop`` inclusive, equally spaced in log."""
    if not (start > 0 and stop > 0) or num < 1:
        raise ParameterError("log", [start, stop], "needs start > 0, stop > 0 and num >= 1")
    _axis_size("num", num)
    if num == 1:
        return [_clean(start)]
    r = math.log(stop / start) / (num - 1)
    return [_clean(start * math.exp(r * i)) for i in range(num)]


def linrange(start: float, stop: float, num: int) -> list[float]:
    """``num`` values from ``start`` to ``stop`` inclusive, equally spaced."""
    if num < 1:
        raise ParameterError("num", num, "must be >= 1")
    _axis_size("num", num)
    if num == 1:
        return [_clean(start)]
    return [_clean(start + (stop - start) * i / (num - 1)) for i in range(num)]


def grid(start: float, stop: float, step: float) -> list[float]:
    """``start, start + step, ...`` up to ``stop`` inclusive (within 1e-9 of a step)."""
    if not all(map(math.isfinite, (start, stop, step))):
        raise ParameterError("step", [start, stop, step], "start, stop and step must be "
                             "finite")
    if step <= 0 or stop < start:
        raise ParameterError("step", step, "must be > 0 with stop >= start")
    _axis_size("step", math.floor((stop - start) / step + 1e-9) + 1)
    n = int(math.floor((stop - start) / step + 1e-9)) + 1
    return [_clean(start + step * i) for i in range(n)]


@dataclass(frozen=True)
class ModelOverlay:
    """An analytical model drawn on the experiment's axes: evaluated at every point (of the
    listed variants), with ``params`` templated like the scenario."""

    name: str
    params: Template = field(default_factory=dict)
    label: str | None = None
    metric: str = "throughput_norm"
    sim_metric: str = "goodput_norm"
    variants: Sequence[str] | None = None

    @property
    def key(self) -> str:
        return self.label or self.name

    def covers(self, variant: str) -> bool:
        return self.variants is None or variant in self.variants


@dataclass(frozen=True)
class Point:
    """One point of the sweep: the variant and the value of every axis."""

    values: Mapping[str, Any]

    @property
    def variant(self) -> str:
        return str(self.values["variant"])

    @functools.cached_property
    def id(self) -> str:
        return keys.dumps(self.values)


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One engine run: a point, a seed, its key and its validated engine scenario (kept as
    its point's :class:`~.keys.SeedTemplate`: a run costs its key, not a scenario)."""

    point: Point
    seed: int
    key: str
    cost: float     # rough engine seconds, to size batches
    template: keys.SeedTemplate

    @property
    def text(self) -> str:
        """The engine scenario as canonical JSON."""
        return self.template.text(self.seed)

    @property
    def scenario(self) -> dict[str, Any]:
        return json.loads(self.text)


@dataclass(frozen=True)
class Experiment:
    name: str
    scenario: Template
    sweep: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    variants: Sequence[str] = ("newreno",)
    models: Sequence[ModelOverlay] = ()
    seeds: int | SequentialRule = 5
    base_seed: int = 1
    level: float = 0.95
    metrics: Sequence[str] | None = None
    description: str = ""
    source: str | None = None       # the TOML file it came from, for error messages

    def __post_init__(self) -> None:
        from ..sim import METRICS, VARIANTS

        f = self.source
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", self.name):
            raise ExperimentError("name", self.name, "must be a non-empty string of letters, "
                                  "digits, '-', '_' or '.'", f)
        if isinstance(self.variants, (str, bytes)) or not isinstance(
                self.variants, Sequence) or not self.variants:
            raise ExperimentError("variants", self.variants, "must be a non-empty list of "
                                  "variants: " + ", ".join(VARIANTS), f)
        for i, var in enumerate(self.variants):
            if not isinstance(var, str) or var not in VARIANTS:
                raise ExperimentError(f"variants[{i}]", var, "must be one of "
                                      + ", ".join(VARIANTS), f)
            if var in list(self.variants)[:i]:
                raise ExperimentError(f"variants[{i}]", var, "is listed twice; list each "
                                      "variant once (its seeds are the replications)", f)
        if not isinstance(self.sweep, Mapping):
            raise ExperimentError("sweep", self.sweep, "must map axis names to lists of "
                                  "values", f)
        for k, vals in self.sweep.items():
            if k == "variant":
                raise ExperimentError("sweep.variant", vals, "list variants under 'variants'",
                                      f)
            if isinstance(vals, (str, bytes)) or not isinstance(vals, Sequence) or not vals:
                raise ExperimentError(f"sweep.{k}", vals, "must be a non-empty list of values "
                                      "or a range table ({log = [a, b], num = n}, {linear = "
                                      "[a, b], num = n}, {start = a, stop = b, step = s})", f)
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, (int, SequentialRule)) \
                or (isinstance(self.seeds, int) and not 1 <= self.seeds <= 1_000_000):
            raise ExperimentError("seeds", self.seeds, "must be an integer in [1, 1000000] or "
                                  "a sequential-stopping table {min, max, rel_halfwidth, "
                                  "abs_halfwidth, metric, step}", f)
        if isinstance(self.base_seed, bool) or not isinstance(self.base_seed, int) \
                or not 0 <= self.base_seed < 2**63:
            raise ExperimentError("base_seed", self.base_seed, "must be an integer >= 0", f)
        try:
            check_level(self.level)
        except ParameterError:
            raise ExperimentError("level", self.level, "must be a confidence level in (0, 1), "
                                  "e.g. 0.95 or 0.975", f) from None
        if self.metrics is not None and (isinstance(self.metrics, (str, bytes))
                                         or not isinstance(self.metrics, Sequence)):
            raise ExperimentError("metrics", self.metrics, "must be a list of metrics: "
                                  + ", ".join(METRICS), f)
        if not isinstance(self.description, str):
            raise ExperimentError("description", self.description, "must be text", f)
        for i, m in enumerate(self.metrics or ()):
            if not isinstance(m, str) or m not in METRICS:
                raise ExperimentError(f"metrics[{i}]", m, "must be one of "
                                      + ", ".join(METRICS), f)
        if isinstance(self.seeds, SequentialRule) and self.seeds.metric not in METRICS:
            raise ExperimentError("seeds.metric", self.seeds.metric, "must be one of "
                                  + ", ".join(METRICS), f)
        self._check_size()
        self._check_axes_used()
        if isinstance(self.models, (str, bytes, Mapping)) or not isinstance(
                self.models, Sequence) or not all(isinstance(m, ModelOverlay)
                                                  for m in self.models):
            raise ExperimentError("models", self.models, "must be a list of ModelOverlay", f)
        for i, m in enumerate(self.models):
            _check_overlay(i, m, VARIANTS, f)
        labels = [m.key for m in self.models]
        for i, m in enumerate(self.models):
            if labels.count(m.key) > 1:
                raise ExperimentError(f"models[{i}].label", m.key, "labels must be unique "
                                      "(give each overlay of the same model a label)", f)

    def _check_size(self) -> None:
        """Refuse a plan too large to expand (see :data:`MAX_RUNS`) before expanding it."""
        points = len(self.variants) * math.prod(len(v) for v in self.sweep.values())
        seeds = self.seeds if isinstance(self.seeds, int) else self.seeds.max_seeds
        if points * seeds > MAX_RUNS:
            axes = " x ".join(f"{len(v):,} {k}" for k, v in self.sweep.items())
            raise ExperimentError(
                "sweep", {k: f"{len(v):,} values" for k, v in self.sweep.items()},
                f"asks for {points * seeds:,} runs ({len(self.variants)} variants"
                + (f" x {axes}" if axes else "") + f" x {seeds:,} seeds); an experiment "
                f"plans at most {MAX_RUNS:,}: coarsen the axes or split the sweep into "
                "several experiments", self.source)

    def _check_axes_used(self) -> None:
        """A swept axis must change something: a placeholder in the scenario or a model's
        parameters, or a simulate() parameter of its name. An axis nothing uses repeats the
        same runs under different labels (identical rows). A scenario or parameters given as
        functions may use any axis: not checked."""
        from ..sim import _DEFAULTS

        if callable(self.scenario) or any(callable(m.params) for m in self.models):
            return
        used: set[str] = set()
        for tmpl in (self.scenario, *(m.params for m in self.models)):
            _placeholders(tmpl, used)
        direct = ENGINE_SCENARIO not in self.scenario
        for axis, vals in self.sweep.items():
            if axis in used or (direct and axis in _DEFAULTS and axis not in self.scenario):
                continue
            if len(vals) == 1:
                continue                 # a constant recorded as a column: harmless
            raise ExperimentError(f"sweep.{axis}", list(vals)[:5], "is used by nothing: "
                                  f"write {{{axis}}} in a scenario value or a model parameter "
                                  "(or name the axis after a simulate() parameter); "
                                  "otherwise every value runs the same scenario", self.source)

    # ------------------------------------------------------------------------- expansion
    @property
    def summary_metrics(self) -> tuple[str, ...]:
        from ..sim import METRICS

        return tuple(self.metrics) if self.metrics else METRICS

    def points(self) -> list[Point]:
        axes = list(self.sweep)
        out = []
        for var in self.variants:
            for combo in itertools.product(*(self.sweep[a] for a in axes)):
                out.append(Point({"variant": var, **dict(zip(axes, combo, strict=True))}))
        return out

    def seed_list(self, n: int) -> list[int]:
        return [self.base_seed + i for i in range(n)]

    def initial_seed_count(self) -> int:
        return self.seeds if isinstance(self.seeds, int) else self.seeds.min_seeds

    def sim_kwargs(self, point: Point, seed: int | None = None) -> dict[str, Any]:
        """``simulate()`` keyword arguments of a point (variant and seed excluded). A scenario
        function taking two arguments also gets the seed (for inputs drawn per replication,
        such as a fading trace)."""
        from ..sim import _DEFAULTS

        if callable(self.scenario):
            if _arity(self.scenario) >= 2:
                out = self.scenario(dict(point.values), self.base_seed if seed is None
                                    else seed)
            else:
                out = self.scenario(dict(point.values))
            kw = _mapping("scenario", out, "a scenario function must return a dict of "
                          f"simulate() arguments (or {{{ENGINE_SCENARIO!r}: {{...}}}})",
                          point, self.source)
            where = "scenario"
        else:
            kw = {k: render(val, point.values, f"scenario.{k}", self.source)
                  for k, val in self.scenario.items()}
            where = "scenario"
        for axis, val in point.values.items():
            if ENGINE_SCENARIO in kw:
                break
            if axis != "variant" and axis in _DEFAULTS and axis not in kw:
                kw[axis] = val
        for k in ("variant", "seed"):
            if k in kw:
                raise ExperimentError(f"{where}.{k}", kw[k], "is set by the experiment "
                                      "(list variants under 'variants', seeds under 'seeds')",
                                      self.source)
        return kw

    def model_params(self, overlay: ModelOverlay, point: Point) -> dict[str, Any]:
        from .. import models

        i = list(self.models).index(overlay)
        if callable(overlay.params):
            kw = _mapping(f"models[{i}].params", overlay.params(dict(point.values)),
                          "a parameter function must return a dict of the model's "
                          "parameters", point, self.source)
        else:
            kw = {k: render(val, point.values, f"models[{i}].params.{k}", self.source)
                  for k, val in overlay.params.items()}
        import dataclasses

        names = {f.name for f in dataclasses.fields(models.get(overlay.name).params_type)}
        if "variant" in names and "variant" not in kw:
            kw["variant"] = point.variant
        return kw

    def run_spec(self, point: Point, seed: int,
                 cache: dict[str, keys.SeedTemplate] | None = None) -> RunSpec:
        """The run of ``point`` at ``seed``. With ``cache`` (a dict the caller keeps), a point
        whose scenario does not depend on the seed is validated once and its template serves
        the other seeds: only the seed differs between them (not when a RED queue draws from
        ns-2's generator: its seed may follow the run's, ``ns2_seed="run"``)."""
        from ..scenario import draws_from_ns2_rng, resolve_ns2_seeds
        from ..sim import build_scenario

        if cache is not None and point.id in cache:
            t = cache[point.id]
            return RunSpec(point, seed, t.key(seed), t.cost, t)
        kw = self.sim_kwargs(point, seed)
        if ENGINE_SCENARIO in kw:
            # a whole engine scenario (topologies, several flows, generated traffic: the
            # network schema of the engine), used as given with the run's seed; the engine
            # checks it when it runs. Metrics are those of its first flow; the engine's whole
            # report is stored with every run (Store.runs(..., reports=True)).
            extra = sorted(set(kw) - {ENGINE_SCENARIO})
            if extra:
                raise ExperimentError(f"scenario.{extra[0]}", kw[extra[0]], "cannot be "
                                      f"combined with {ENGINE_SCENARIO} (put it inside)",
                                      self.source)
            sc = kw[ENGINE_SCENARIO]
            if not isinstance(sc, Mapping):
                raise ExperimentError(f"scenario.{ENGINE_SCENARIO}", sc, "must be the "
                                      "engine's JSON scenario (a dict)", self.source)
            try:
                sc = json.loads(keys.dumps(sc))
            except (TypeError, ValueError) as e:
                raise ExperimentError(f"scenario.{ENGINE_SCENARIO}", sc, f"is not JSON data "
                                      f"({e})", self.source) from None
            sc["seed"] = seed
            resolve_ns2_seeds(sc)
            _engine_check(sc, point, self.source)
            t = keys.SeedTemplate(sc, _cost_s(sc))
            return RunSpec(point, seed, t.key(seed), t.cost, t)
        try:
            sc = build_scenario(point.variant, seed=seed, **kw)
        except ParameterError as e:
            key = e.name
            if not callable(self.scenario) and e.name.split(".")[0] in self.scenario:
                key = f"scenario.{e.name}"
            elif e.name in self.sweep:
                key = f"sweep.{e.name}"
            raise ExperimentError(key, e.value, f"{e.valid} (at point {point.id})",
                                  self.source) from None
        t = keys.SeedTemplate(sc, _cost_s(sc))
        if cache is not None and not (callable(self.scenario) and _arity(self.scenario) >= 2
                                      or draws_from_ns2_rng(sc)):
            cache[point.id] = t
        return RunSpec(point, seed, t.key(seed), t.cost, t)


def _model_outputs(name: str) -> set[str] | None:
    """The result fields of a model (what an overlay may draw), from its compute function's
    return annotation; None if it cannot be told."""
    import dataclasses
    import typing

    from .. import models

    try:
        hint = typing.get_type_hints(models.get(name).compute).get("return")
        return {f.name for f in dataclasses.fields(hint)} if hint else None
    except Exception:  # noqa: BLE001 - an unresolvable annotation: not checked
        return None


def _check_overlay(i: int, m: ModelOverlay, variants: Sequence[str], f: str | None) -> None:
    """An overlay's fields: a registered model, parameters as a table or a function, a
    label, a metric the model gives, a simulation metric, variants."""
    from .. import models
    from ..sim import METRICS

    key = f"models[{i}]"
    try:
        models.get(m.name)
    except ParameterError:
        raise ExperimentError(f"{key}.name", m.name, "must be one of "
                              + ", ".join(models.available()), f) from None
    if not (callable(m.params) or isinstance(m.params, Mapping)):
        raise ExperimentError(f"{key}.params", m.params, "must be a table of the model's "
                              "parameters (or a function of the point returning one)", f)
    if m.label is not None and (not isinstance(m.label, str) or not m.label):
        raise ExperimentError(f"{key}.label", m.label, "must be a non-empty string", f)
    outputs = _model_outputs(m.name)
    if not isinstance(m.metric, str) or (outputs is not None and m.metric not in outputs):
        raise ExperimentError(f"{key}.metric", m.metric, "must be an output of "
                              f"{m.name}: " + ", ".join(sorted(outputs or ())), f)
    if not isinstance(m.sim_metric, str) or m.sim_metric not in METRICS:
        raise ExperimentError(f"{key}.sim_metric", m.sim_metric,
                              "must be one of " + ", ".join(METRICS), f)
    if m.variants is not None:
        if isinstance(m.variants, (str, bytes)) or not isinstance(m.variants, Sequence):
            raise ExperimentError(f"{key}.variants", m.variants, "must be a list of variants",
                                  f)
        for j, var in enumerate(m.variants):
            if var not in variants:
                raise ExperimentError(f"{key}.variants[{j}]", var, "must be one of "
                                      + ", ".join(variants), f)


def _mapping(key: str, value: Any, valid: str, point: Point, source: str | None
             ) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ExperimentError(key, value, f"{valid} (at point {point.id})", source)
    return dict(value)


def _engine_check(sc: Mapping[str, Any], point: Point, source: str | None) -> None:
    """The engine's own checks of a scenario given whole (structure and ranges, as it will
    run it), before anything runs: a scenario refused there would otherwise fail in a
    worker, after the runs before it."""
    from .. import _sim

    try:
        _sim.check_json(keys.dumps(sc))
    except ValueError as e:
        raise ExperimentError(f"scenario.{ENGINE_SCENARIO}", _excerpt_keys(sc),
                              f"the engine refuses it: {e} (at point {point.id})",
                              source) from None


def _excerpt_keys(sc: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: ..." for k in sc) + "}"


def _placeholders(value: Any, out: set[str]) -> None:
    """Collect the axis names of ``{axis}`` placeholders anywhere in a template."""
    if isinstance(value, Mapping):
        for x in value.values():
            _placeholders(x, out)
    elif isinstance(value, (list, tuple)):
        for x in value:
            _placeholders(x, out)
    elif isinstance(value, str) and "{" in value:
        try:
            out.update(f for _, f, _, _ in _FIELD.parse(value) if f)
        except ValueError:
            pass                         # a bad placeholder: render() names it


def _arity(fn: Callable[..., Any]) -> int:
    import inspect

    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return 1


def _cost_s(scenario: Mapping[str, Any]) -> float:
    """Engine seconds of a run, roughly: about two events per packet at the bottleneck and
    ~5 million events per second (measured on the bench scenarios)."""
    try:
        rate = min(link["rate_bps"] for link in scenario["links"])
        size = scenario["flows"][0]["tcp"]["packet_size_bytes"] if scenario.get("flows") \
            else 1000
        return 2.0 * scenario["duration_s"] * rate / (8.0 * size) / 5e6
    except (KeyError, TypeError, ValueError, IndexError):
        return 0.25      # unknown shape: one run per batch


_FIELD = string.Formatter()


def render(value: Any, point: Mapping[str, Any], key: str, source: str | None = None) -> Any:
    """Replace ``{axis}`` placeholders in a template value (recursively in lists and tables)."""
    if isinstance(value, Mapping):
        return {k: render(val, point, f"{key}.{k}", source) for k, val in value.items()}
    if isinstance(value, list):
        return [render(val, point, f"{key}[{i}]", source) for i, val in enumerate(value)]
    if not isinstance(value, str) or "{" not in value:
        return value
    try:
        parsed = list(_FIELD.parse(value))
    except ValueError as e:
        raise ExperimentError(key, value, f"bad placeholder ({e}); write {{axis}} or "
                              "{axis:g}", source) from None
    names = [f for _, f, _, _ in parsed if f is not None]
    for n in names:
        if n not in point:
            raise ExperimentError(key, value, f"placeholder {{{n}}} names no swept axis; the "
                                  "axes are " + ", ".join(sorted(point)), source)
    m = re.fullmatch(r"\{(\w+)\}", value)
    if m:
        return point[m.group(1)]
    try:
        return value.format(**point)
    except (ValueError, IndexError, KeyError) as e:
        raise ExperimentError(key, value, f"cannot be formatted ({e})", source) from None


# ------------------------------------------------------------------------------- TOML
_TOP = ("name", "description", "variants", "seeds", "base_seed", "level", "metrics",
        "scenario", "sweep", "models")
_MODEL_KEYS = ("name", "label", "metric", "sim_metric", "variants", "params")
_SEQ_KEYS = {"min": "min_seeds", "max": "max_seeds", "rel_halfwidth": "rel_halfwidth",
             "abs_halfwidth": "abs_halfwidth", "metric": "metric", "step": "step",
             "level": "level"}


def _axis(name: str, spec: Any, f: str) -> list[Any]:
    key = f"sweep.{name}"
    if isinstance(spec, list):
        if not spec:
            raise ExperimentError(key, spec, "must list at least one value", f)
        return spec
    if not isinstance(spec, Mapping):
        raise ExperimentError(key, spec, "must be a list of values or a range table: {log = "
                              "[a, b], num = n}, {linear = [a, b], num = n} or {start = a, "
                              "stop = b, step = s}", f)
    kinds = [k for k in ("log", "linear", "start") if k in spec]
    allowed = {"log": {"log", "num"}, "linear": {"linear", "num"},
               "start": {"start", "stop", "step"}}
    if len(kinds) != 1:
        raise ExperimentError(key, dict(spec), "a range table has exactly one of 'log', "
                              "'linear' or 'start'", f)
    kind = kinds[0]
    extra = sorted(set(spec) - allowed[kind])
    if extra:
        raise ExperimentError(f"{key}.{extra[0]}", spec[extra[0]], "unknown key; a "
                              f"'{kind}' range takes " + ", ".join(sorted(allowed[kind])), f)
    try:
        if kind == "start":
            for k in ("stop", "step"):
                if k not in spec:
                    raise ExperimentError(key, dict(spec), f"needs '{k}'", f)
            return grid(float(spec["start"]), float(spec["stop"]), float(spec["step"]))
        ends = spec[kind]
        if not (isinstance(ends, list) and len(ends) == 2):
            raise ExperimentError(f"{key}.{kind}", ends, "must be [start, stop]", f)
        num = spec.get("num")
        if isinstance(num, bool) or not isinstance(num, int) or num < 1:
            raise ExperimentError(f"{key}.num", num, "must be an integer >= 1", f)
        fn = logrange if kind == "log" else linrange
        return fn(float(ends[0]), float(ends[1]), num)
    except ExperimentError:
        raise
    except (ParameterError, TypeError, ValueError) as e:
        raise ExperimentError(key, dict(spec), str(e), f) from None


def from_dict(d: Mapping[str, Any], source: str | None = None) -> Experiment:
    """An :class:`Experiment` from the TOML structure (see the module docstring)."""
    f = source
    if not isinstance(d, Mapping):
        raise ExperimentError("(top level)", d, "must be a table", f)
    for k in d:
        if k not in _TOP:
            raise ExperimentError(k, d[k], "unknown key; valid keys: " + ", ".join(_TOP), f)
    for k in ("name", "scenario"):
        if k not in d:
            raise ExperimentError(k, None, "is required", f)
    if not isinstance(d["scenario"], Mapping):
        raise ExperimentError("scenario", d["scenario"], "must be a table of simulate() "
                              "arguments", f)
    from ..sim import _DEFAULTS

    for k, val in d["scenario"].items():
        if k not in _DEFAULTS:
            raise ExperimentError(f"scenario.{k}", val, "is not a simulate() parameter; valid: "
                                  + ", ".join(sorted(_DEFAULTS)), f)
    sweep_in = d.get("sweep", {})
    if not isinstance(sweep_in, Mapping):
        raise ExperimentError("sweep", sweep_in, "must be a table of axes", f)
    sweep = {k: _axis(k, val, f or "") for k, val in sweep_in.items()}
    seeds: Any = d.get("seeds", 5)
    if isinstance(seeds, Mapping):
        for k in seeds:
            if k not in _SEQ_KEYS:
                raise ExperimentError(f"seeds.{k}", seeds[k], "unknown key; valid: "
                                      + ", ".join(_SEQ_KEYS), f)
        try:
            seeds = SequentialRule(**{_SEQ_KEYS[k]: val for k, val in seeds.items()})
        except ParameterError as e:
            inv = {val: k for k, val in _SEQ_KEYS.items()}
            raise ExperimentError(f"seeds.{inv.get(e.name, e.name)}", e.value, e.valid,
                                  f) from None
        except TypeError as e:
            raise ExperimentError("seeds", dict(d["seeds"]), str(e), f) from None
    models = []
    raw_models = d.get("models", [])
    if not isinstance(raw_models, list):
        raise ExperimentError("models", raw_models, "must be an array of tables "
                              "([[models]])", f)
    from .. import models as registry

    for i, m in enumerate(raw_models):
        if not isinstance(m, Mapping):
            raise ExperimentError(f"models[{i}]", m, "must be a table", f)
        for k in m:
            if k not in _MODEL_KEYS:
                raise ExperimentError(f"models[{i}].{k}", m[k], "unknown key; valid: "
                                      + ", ".join(_MODEL_KEYS), f)
        if "name" not in m:
            raise ExperimentError(f"models[{i}].name", None, "is required; one of "
                                  + ", ".join(registry.available()), f)
        try:
            registry.get(m["name"])
        except ParameterError:
            raise ExperimentError(f"models[{i}].name", m["name"], "must be one of "
                                  + ", ".join(registry.available()), f) from None
        params = m.get("params", {})
        if not isinstance(params, Mapping):
            raise ExperimentError(f"models[{i}].params", params, "must be a table of the "
                                  "model's parameters", f)
        models.append(ModelOverlay(
            name=m["name"], params=dict(params), label=m.get("label"),
            metric=m.get("metric", "throughput_norm"),
            sim_metric=m.get("sim_metric", "goodput_norm"), variants=m.get("variants")))
    return Experiment(
        name=d["name"], scenario=dict(d["scenario"]), sweep=sweep,
        variants=d.get("variants", ["newreno"]), models=models, seeds=seeds,
        base_seed=d.get("base_seed", 1), level=d.get("level", 0.95),
        metrics=d.get("metrics"), description=d.get("description", ""), source=source)


def load(path: str | Path, progress: Callable[[int, int], None] | None = None, *,
         check: bool = True) -> Experiment:
    """Read and check an experiment file (TOML). Errors name the file, the key and what is
    valid; every point is expanded and validated before anything runs (``progress(done,
    total)`` follows the points). ``check=False`` leaves the points to :func:`validate`
    (which :func:`~lossytcp.experiments.run` calls, sharing the work with its plan)."""
    import tomllib

    p = Path(path)
    try:
        if p.is_dir():
            raise ExperimentError("(file)", str(p), "is a directory, not an experiment file",
                                  p)
        text = p.read_bytes().decode("utf-8")
    except OSError as e:
        raise ExperimentError("(file)", str(p), f"cannot be read: {e.strerror}", p) from None
    except UnicodeDecodeError as e:
        raise ExperimentError("(file)", str(p), f"is not a text (UTF-8) TOML file: byte "
                              f"{e.object[e.start]:#04x} at offset {e.start}", p) from None
    try:
        d = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError("(syntax)", str(p), f"is not valid TOML: {e}", p) from None
    exp = from_dict(d, str(p))
    if check:
        validate(exp, progress)
    return exp


def validate(exp: Experiment, progress: Callable[[int, int], None] | None = None,
             cache: dict[str, Mapping[str, Any]] | None = None) -> None:
    """Expand every point at its first seed and evaluate nothing: bad scenario values, bad
    placeholders and unknown model parameters fail here, naming the key. An experiment
    passes once (it is immutable): checking it again costs nothing. ``progress(done,
    total)`` follows the points; ``cache`` keeps each point's scenario (see
    :meth:`Experiment.run_spec`)."""
    if not isinstance(exp, Experiment):
        raise ParameterError("experiment", exp, "must be an Experiment (experiments.load(FILE) "
                             "or experiments.Experiment(...))")
    if exp.__dict__.get("_validated"):
        return
    points = exp.points()
    for n, point in enumerate(points):
        if progress and n % 1000 == 0:
            progress(n, len(points))
        exp.run_spec(point, exp.base_seed, cache)
        if not exp.models:
            continue
        from .. import models  # (imports scipy: only when there is a model to check)

        for i, m in enumerate(exp.models):
            if not m.covers(point.variant):
                continue
            kw = exp.model_params(m, point)
            try:
                models.get(m.name).params(**kw)
            except ParameterError as e:
                key = f"models[{i}].params.{e.name}"
                raise ExperimentError(key, e.value, f"{e.valid} (at point {point.id}; give "
                                      f"models[{i}].variants to restrict the overlay)",
                                      exp.source) from None
            except TypeError as e:
                raise ExperimentError(f"models[{i}].params", kw, str(e), exp.source) from None
    if progress:
        progress(len(points), len(points))
    object.__setattr__(exp, "_validated", True)
