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
            raise TypeError(f"model '{self.name}' takes {self.params_type.__name__}, "
                            f"not {type(params).__name__}")
        return self.compute(params)


_REGISTRY: dict[str, Model] = {}


def register(model: Model) -> Model:
    for key in (model.name, *model.aliases):
        if key in _REGISTRY and _REGISTRY[key] is not model:
            raise RuntimeError(f"model name {key!r} registered twice")
        _REGISTRY[key] = model
    return model


def get(name: str) -> Model:
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
    base = dict(base or {})
    keys = list(axes)
    grids = [list(axes[k]) for k in keys]
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
