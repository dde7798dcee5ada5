"""The variant registry: every named TCP variant and every plugin parameter, as the engine
declares them.

Each sender plugin declares its parameters once, in its own Rust file (``declare_params!``:
name, unit, default, range, one line of doc), and the engine's registry
(``crates/lossytcp-sim/src/tcp/variant.rs``) names every variant with its plugins'
parameters and its counterparts in ns-2, ns-3 and Linux. The engine exports both
(``_sim.registry_json()``); this module reads that export once and everything else that
accepts a variant is built from it: the scenario's schema and validation
(:class:`lossytcp.scenario.Tcp` has one field per parameter), :func:`lossytcp.simulate`'s
keywords, the command line's flags, the TOML keys and the README's knob table
(:func:`knob_table`). Adding a variant or a parameter is a change to the engine only.

>>> VARIANTS[:4]
('oldtahoe', 'tahoe', 'reno', 'newreno')
>>> PARAMS["vegas_alpha"].default, PARAMS["vegas_alpha"].variants
(1, ('vegas',))
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import _validate as v
from ._sim import registry_json
from .errors import ParameterError

__all__ = ["CLASSIFYING_VARIANTS", "PARAMS", "REGISTRY", "VARIANTS", "Param", "Variant",
           "check_params", "engine_name", "keywords_doc", "knob_table", "resolved"]


@dataclass(frozen=True)
class Param:
    """One plugin parameter as its plugin declares it."""

    name: str
    unit: str
    type: str               # "bool", "int", "float" or "choice"
    default: Any
    doc: str
    variants: tuple[str, ...]
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    max_open: bool = False
    choices: tuple[str, ...] = ()
    at_most: str | None = None
    ns2: str | None = None
    ns3: str | None = None

    @property
    def range_text(self) -> str:
        """The valid values in words."""
        if self.type == "bool":
            return "True or False"
        if self.type == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.type == "int":
            return f"an integer in [{_num(self.min)}, {_num(self.max)}]"
        lo = "(" if self.min_open else "["
        hi = ")" if self.max_open else "]"
        return f"a finite number in {lo}{_num(self.min)}, {_num(self.max)}{hi}"

    def validate(self, value: object) -> Any:
        """The value, checked against the declaration (type and range)."""
        if self.type == "bool":
            return v.boolean(self.name, value)
        if self.type == "choice":
            return v.choice(self.name, value, self.choices)
        valid = "must be " + self.range_text
        if self.type == "int":
            try:
                return v.integer(self.name, value, int(self.min), int(self.max))  # type: ignore[arg-type]
            except ParameterError:
                raise ParameterError(self.name, value, valid) from None
        x = v._as_float(self.name, value, valid)
        lo, hi = float(self.min), float(self.max)  # type: ignore[arg-type]
        if x < lo or x > hi or (self.min_open and x == lo) or (self.max_open and x == hi):
            raise ParameterError(self.name, value, valid)
        return x

    @property
    def flag(self) -> str:
        """The command line's flag: the name without its unit suffix (``--westwood-tau``),
        the unit written in the value instead (``500ms``)."""
        base = self.name[:-2] if self.unit == "s" and self.name.endswith("_s") else self.name
        return "--" + base.replace("_", "-")

    def parse_flag(self, text: str) -> Any:
        """A flag's text as the value (units parsed for times)."""
        from . import units
        flag = self.flag[2:]
        if self.unit == "s":
            return units.time_s(text, flag)
        if self.type == "int":
            try:
                return int(text)
            except ValueError:
                raise ParameterError(self.name, text, "must be " + self.range_text) from None
        if self.type == "float":
            try:
                return float(text)
            except ValueError:
                raise ParameterError(self.name, text, "must be " + self.range_text) from None
        if self.type == "bool":
            low = text.lower()
            if low in ("true", "false"):
                return low == "true"
            raise ParameterError(self.name, text, "must be true or false")
        return text

    def default_text(self) -> str:
        if self.type == "bool":
            return "true" if self.default else "false"
        if self.type == "choice":
            return str(self.default)
        x = float(self.default)
        num = f"{x:g}" if self.type == "float" else str(int(x))
        if self.unit == "s":
            return f"{x * 1e3:g}ms" if 0 < x < 1 else f"{num}s"
        return num + (f" {self.unit}" if self.unit else "")


@dataclass(frozen=True)
class Variant:
    """One named variant: its names, what it is, its plugins' parameters and its
    counterparts in the tools the engine is checked against."""

    name: str
    engine: str
    summary: str
    params: tuple[str, ...]
    ns2: Mapping[str, Any] | None
    ns3: Mapping[str, Any] | None
    linux: Mapping[str, Any] | None
    classifies_losses: bool
    refuses_limited_transmit: str | None
    #: Its recovery reads SACK blocks (its receiver sends them).
    sack_blocks: bool


def _load() -> tuple[dict[str, Variant], dict[str, Param]]:
    raw = json.loads(registry_json())
    params: dict[str, Param] = {}
    for p in raw["params"]:
        params[p["name"]] = Param(
            name=p["name"], unit=p["unit"], type=p["type"], default=p["default"],
            doc=p["doc"], variants=tuple(p["variants"]), min=p.get("min"), max=p.get("max"),
            min_open=p.get("min_open", False), max_open=p.get("max_open", False),
            choices=tuple(p.get("choices", ())), at_most=p["at_most"], ns2=p["ns2"],
            ns3=p["ns3"])
    variants = {
        x["name"]: Variant(name=x["name"], engine=x["engine"], summary=x["summary"],
                           params=tuple(x["params"]), ns2=x["ns2"], ns3=x["ns3"],
                           linux=x["linux"], classifies_losses=x["classifies_losses"],
                           refuses_limited_transmit=x["refuses_limited_transmit"],
                           sack_blocks=x["sack_blocks"])
        for x in raw["variants"]}
    return variants, params


REGISTRY, PARAMS = _load()
#: Every variant's name, in the registry's order.
VARIANTS: tuple[str, ...] = tuple(REGISTRY)
#: The senders that classify each loss (paper 003) and report their accuracy.
CLASSIFYING_VARIANTS: tuple[str, ...] = tuple(n for n, x in REGISTRY.items()
                                              if x.classifies_losses)


def variant(name: object) -> Variant:
    """The registry's entry of ``name`` (refused by name if there is none)."""
    return REGISTRY[v.choice("variant", name, VARIANTS)]


def engine_name(name: str) -> str:
    """The variant's name in the engine's JSON (``newreno-lp`` -> ``new_reno_lp``)."""
    return variant(name).engine


def check_params(name: str, given: Mapping[str, Any]) -> None:
    """Refuses parameters given (not None) that variant ``name`` does not take, and checks
    the ``at_most`` relations among the ones it does (defaults filling what is not given)."""
    var = variant(name)
    for k, x in given.items():
        if x is None:
            continue
        if k not in var.params:
            owners = PARAMS[k].variants
            which = ("variant " + repr(owners[0]) if len(owners) == 1 else
                     "variants " + ", ".join(repr(o) for o in owners))
            raise ParameterError(k, x, f"applies to {which} only, not '{name}'")
    values = resolved(name, given)
    for k in var.params:
        other = PARAMS[k].at_most
        if other is not None and values[k] > values[other]:
            raise ParameterError(k, values[k], f"must be <= {other} = {values[other]}")


def resolved(name: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of variant ``name``: the value given (not None) or the default."""
    return {k: given[k] if given.get(k) is not None else PARAMS[k].default
            for k in variant(name).params}


def _owners(p: Param) -> str:
    return ", ".join(f"`{o}`" for o in p.variants)


def _range_cell(p: Param) -> str:
    if p.type in ("bool", "choice"):
        return " / ".join(f"`{c}`" for c in (("true", "false") if p.type == "bool"
                                             else p.choices))
    lo = "(" if p.min_open else "["
    hi = ")" if p.max_open else "]"
    return f"{lo}{_num(p.min)}, {_num(p.max)}{hi}"


def _num(x: float | None) -> str:
    if x is None:
        return ""
    if float(x).is_integer() and abs(x) >= 1e5:
        return f"{float(x):.0e}".replace("e+0", "e").replace("e+", "e")
    return f"{x:g}"


def knob_table() -> str:
    """The README's table of plugin parameters (markdown), generated from the registry:
    ``tests/test_variants.py`` checks that the README holds the current one."""
    rows = ["| parameter | variants | default | range | unit | flag | meaning |",
            "|---|---|---|---|---|---|---|"]
    for p in PARAMS.values():
        default = p.default_text() if p.type in ("bool", "choice") else _num(p.default)
        rows.append(f"| `{p.name}` | {_owners(p)} | {default} | {_range_cell(p)} | "
                    f"{p.unit or ''} | `{p.flag}` | {p.doc} |")
    return "\n".join(rows) + "\n"


def keywords_doc(params: Iterable[Param] | None = None) -> str:
    """The plugin parameters as a paragraph of keyword documentation."""
    parts = []
    for p in params if params is not None else PARAMS.values():
        owners = ", ".join(repr(o) for o in p.variants)
        parts.append(f"``{p.name}`` ({owners} only; {p.range_text}, default "
                     f"{p.default_text()}): {p.doc.rstrip('.')}")
    return "; ".join(parts) + "."

