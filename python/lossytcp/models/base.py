"""The one call shape every analytical model shares.

A model is a module that defines

* a frozen dataclass of parameters, units in the field names, whose ``__post_init__`` validates
  every field with :mod:`lossytcp._validate` (so bad input fails before any work starts, with a
  message naming the parameter, the value and the valid range);
* a frozen dataclass result deriving from :class:`ModelResult`;
* a private ``_compute(params) -> result``;

and registers itself with :func:`register`. The public function validates and then calls the
private implementation, so every model rejects bad input the same way (the scipy.stats pattern).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ParameterError


@dataclass(frozen=True)
class ModelResult:
    """Base of every model's result.

    ``throughput_pps`` is delivered packets per second; ``throughput_norm`` divides it by the
    link capacity in packets per second where the model defines one (``None`` otherwise).
    Subclasses add the model's own outputs as further fields.
    """

    throughput_pps: float
    throughput_norm: float | None

    def as_dict(self) -> dict[str, Any]:
        """Scalar outputs (arrays and nested structures are left out) for tables and JSON."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, (int, float, str, bool)) or v is None:
                out[f.name] = v
        return out

    def __repr__(self) -> str:
        parts = []
        for k, v in self.as_dict().items():
            parts.append(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True)
class Model:
    """A registered model: its name, parameter class and computation."""

    name: str
    params_type: type
    compute: Callable[[Any], ModelResult]
    summary: str
    citation: str
    aliases: tuple[str, ...] = field(default=())

    def params(self, **kwargs: Any) -> Any:
        names = {f.name for f in dataclasses.fields(self.params_type)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ParameterError(
                unknown[0], kwargs[unknown[0]],
                f"is not a parameter of model '{self.name}'; its parameters are "
                + ", ".join(sorted(names)),
            )
        return self.params_type(**kwargs)

    def __call__(self, params: Any = None, /, **kwargs: Any) -> ModelResult:
        if params is None:
            params = self.params(**kwargs)
        elif kwargs:
            params = dataclasses.replace(params, **kwargs)
        elif not isinstance(params, self.params_type):
            raise ParameterError("params", params, f"model '{self.name}' takes "
                                 f"{self.params_type.__name__} or keyword parameters")
        return self.compute(params)


_REGISTRY: dict[str, Model] = {}


def _guard_init(cls: type, model_name: str) -> None:
    """Makes the parameter class refuse missing, unknown and repeated arguments with a
    :class:`ParameterError` naming them (Python's own TypeError names no range and reads as a
    crash), however it is called: ``Model.params``, ``dataclasses.replace`` or a model's
    function (``mathis(rtt_s=0.1)``)."""
    if getattr(cls.__init__, "_lossytcp_guarded", False):
        return
    init = cls.__init__
    params = [f for f in dataclasses.fields(cls) if f.init]
    names = [f.name for f in params]
    required = [f.name for f in params
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise ParameterError(model_name, args, f"takes at most {len(names)} positional "
                                 f"parameters: {', '.join(names)}")
        positional = names[:len(args)]
        for k in kwargs:
            if k not in names:
                raise ParameterError(k, kwargs[k], f"is not a parameter of model "
                                     f"'{model_name}'; its parameters are "
                                     + ", ".join(sorted(names)))
            if k in positional:
                raise ParameterError(k, kwargs[k], "is given twice (by position and by name)")
        missing = [r for r in required if r not in kwargs and r not in positional]
        if missing:
            raise ParameterError(missing[0], None, f"is required: model '{model_name}' needs "
                                 + ", ".join(required))
        init(self, *args, **kwargs)

    __init__._lossytcp_guarded = True  # type: ignore[attr-defined]
    __init__.__doc__ = init.__doc__
    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[method-assign]


def register(model: Model) -> Model:
    for key in (model.name, *model.aliases):
        if key in _REGISTRY and _REGISTRY[key] is not model:
            raise RuntimeError(f"model name {key!r} registered twice")
        _REGISTRY[key] = model
    _guard_init(model.params_type, model.name)
    return model


def get(name: str) -> Model:
    if not isinstance(name, str):
        raise ParameterError("model", name, "must be one of " + ", ".join(available()))
    key = name.lower().replace("_", "-")
    if key not in _REGISTRY:
        raise ParameterError("model", name, "must be one of " + ", ".join(available()))
    return _REGISTRY[key]


def available() -> list[str]:
    return sorted({m.name for m in _REGISTRY.values()})


def evaluate(name: str, **kwargs: Any) -> ModelResult:
    return get(name)(**kwargs)


def sweep(name: str, base: Mapping[str, Any] | None = None, **axes: Iterable[Any]):
    """Evaluate model ``name`` over the Cartesian product of ``axes``.

    ``base`` holds the fixed parameters; each keyword names a parameter and gives its values.
    Returns a pandas DataFrame with one row per point: the swept parameters then the result's
    scalar outputs. All points are validated before the first is computed.
    """
    import pandas as pd

    model = get(name)
    if base is not None and not isinstance(base, Mapping):
        raise ParameterError("base", base, "must be a dict of the fixed parameters")
    base = dict(base or {})
    keys = list(axes)
    grids = []
    for k in keys:
        values = axes[k]
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
            raise ParameterError(k, values, "is an axis of the sweep: give a list of values "
                                 f"(a fixed value goes in base: base={{'{k}': ...}})")
        grid = list(values)
        if not grid:
            raise ParameterError(k, values, "is an axis of the sweep: give at least one value")
        clash = k in base
        if clash:
            raise ParameterError(k, values, "is both fixed in base and swept; give it once")
        grids.append(grid)
    points = [model.params(**{**base, **dict(zip(keys, combo, strict=True))})
              for combo in itertools.product(*grids)]
    rows = []
    for p in points:
        res = model(p)
        row = {k: getattr(p, k) for k in keys}
        row.update(res.as_dict())
        rows.append(row)
    return pd.DataFrame(rows)


def norm_or_none(throughput_pps: float, capacity_pps: float | None) -> float | None:
    if capacity_pps is None or not math.isfinite(capacity_pps) or capacity_pps <= 0:
        return None
    return throughput_pps / capacity_pps
