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

The sender-wide options (every variant's, not a plugin's: the profile's knobs such as
``limited_transmit``, None for the profile's default, and the switches ``eifel_undo``,
``frto``, ``dsack``, ``tlp``) are declared once as well, in
``crates/lossytcp-sim/src/tcp/options.rs``,
with their default per profile, the profile that refuses a value, what the variant must have
for the option to be on (its receiver's SACK blocks), their counterparts in ns-2, ns-3 and
Linux and their value in the engine's Linux-like configuration; :data:`OPTIONS` reads them, and
the same places are built from them (:func:`option_table` for the README), as are the
cross-checks' refusals (:func:`refuse_options_without`) and
:func:`lossytcp.emulate.linux.engine_config`.

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

__all__ = ["CLASSIFYING_VARIANTS", "OPTIONS", "PARAMS", "REGISTRY", "VARIANTS", "Option",
           "Param", "Variant", "check_params", "engine_name", "keywords_doc", "knob_table",
           "option_table", "options_doc", "refuse_options_without", "resolved"]


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


@dataclass(frozen=True)
class Option:
    """One sender-wide option as the engine declares it (``tcp/options.rs``)."""

    name: str
    doc: str
    #: "switch" (off unless given; in the engine's JSON only when on) or "tristate" (None:
    #: the profile's default; always in the engine's JSON, null for the default).
    kind: str
    #: The value when not given, by profile.
    default: Mapping[str, bool]
    #: ``{"profile", "value", "why"}``: a value a profile refuses.
    refused: Mapping[str, Any] | None
    #: ``{"what", "why"}``: what the variant must have when the option is on.
    requires: Mapping[str, str] | None
    #: Another option that must be on with it (it refines that one).
    needs: str | None
    ns2: str | None
    ns3: str | None
    linux: str | None
    #: Its value in the engine's configuration closest to Linux's TCP
    #: (:func:`lossytcp.emulate.linux.engine_config`); None: the rfc profile's default.
    as_linux: bool | None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def unset(self) -> bool | None:
        """The ``Tcp`` field's and simulate()'s keyword's value when not given."""
        return False if self.kind == "switch" else None

    def validate(self, value: object) -> bool | None:
        """The value, checked (a switch True or False; a tristate None as well)."""
        if self.kind == "switch":
            return v.boolean(self.name, value)
        return v.optional_boolean(self.name, value,
                                  "the profile's default, see help(lossytcp.simulate)")

    def check_profile(self, value: bool | None, profile: str) -> None:
        """Refuses the value the profile refuses, with the declared reason."""
        r = self.refused
        if r is not None and profile == r["profile"] and value is not None \
                and value == r["value"]:
            raise ParameterError(self.name, value, r["why"])

    def check_variant(self, value: bool | None, name: str) -> None:
        """Refuses the option on for a variant that lacks what it requires."""
        if not value or self.requires is None:
            return
        has, what = _REQUIREMENTS[self.requires["what"]]
        if not has(variant(name)):
            owners = ", ".join(n for n, x in REGISTRY.items() if has(x))
            raise ParameterError(self.name, value, f"{self.requires['why']}, which {name}'s "
                                 f"receiver does not send: a variant with {what} ({owners}), "
                                 f"or {self.name}=False")

    def check_needs(self, value: bool | None, values: Mapping[str, Any]) -> None:
        """Refuses the option on without the option it refines."""
        if value and self.needs is not None and not values.get(self.needs):
            raise ParameterError(self.name, value, f"refines {self.needs}: it needs "
                                 f"{self.needs}=True")

    def engine(self, value: bool | None) -> dict[str, bool | None]:
        """The option in the engine's JSON: a switch only when on (so scenarios, and run
        keys, without it stay as they were), a tristate always."""
        if self.kind == "switch":
            return {self.name: True} if value else {}
        return {self.name: value}

    def default_text(self) -> str:
        d = {k: "on" if x else "off" for k, x in self.default.items()}
        return d["rfc"] if d["rfc"] == d["ns2"] else f"{d['rfc']} for 'rfc', {d['ns2']} for 'ns2'"


#: What an option may require of the variant: the test on its registry entry, and the
#: words naming it in the refusal.
_REQUIREMENTS: dict[str, tuple[Any, str]] = {
    "sack_blocks": (lambda x: x.sack_blocks, "SACK recovery"),
}


def _load_options(raw: list[Mapping[str, Any]]) -> dict[str, Option]:
    out = {}
    for o in raw:
        if o["requires"] is not None and o["requires"]["what"] not in _REQUIREMENTS:
            raise RuntimeError(f"option {o['name']} requires {o['requires']['what']!r}, which "
                               "lossytcp.variants cannot check: add it to _REQUIREMENTS")
        out[o["name"]] = Option(name=o["name"], doc=o["doc"], kind=o["kind"],
                                default=o["default"], refused=o["refused"],
                                requires=o["requires"], needs=o.get("needs"), ns2=o["ns2"],
                                ns3=o["ns3"],
                                linux=o["linux"], as_linux=o["as_linux"])
    return out


def _load() -> tuple[dict[str, Variant], dict[str, Param], dict[str, Option]]:
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
    return variants, params, _load_options(raw["options"])


REGISTRY, PARAMS, OPTIONS = _load()
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


def refuse_options_without(tool: str, given: Mapping[str, Any], error: type[ParameterError],
                           label: str) -> None:
    """Raises ``error`` naming the first option in ``given`` (an engine TCP config or
    simulate()'s keywords), a switch on or a knob given, that has no counterpart in ``tool``
    (``"ns2"`` or ``"ns3"``); ``label`` names the tool in the message."""
    for o in OPTIONS.values():
        x = given.get(o.name)
        if (x if o.kind == "switch" else x is not None) and getattr(o, tool) is None:
            how = "off" if o.kind == "switch" else "out (the profile's default)"
            raise error(o.name, x, f"has no {label} counterpart; leave it {how} to "
                        "cross-check")


def options_doc() -> str:
    """The sender-wide options as a paragraph of keyword documentation."""
    return "; ".join(f"``{o.name}`` (default {o.default_text()}): {o.doc.rstrip('.')}"
                     for o in OPTIONS.values()) + "."


def option_table() -> str:
    """The README's table of sender-wide options (markdown), generated from the registry:
    ``tests/test_variants.py`` checks that the README holds the current one."""
    rows = ["| option | default | flag | ns-2 | ns-3 | Linux | as Linux | meaning |",
            "|---|---|---|---|---|---|---|---|"]
    for o in OPTIONS.values():
        flag = f"`{o.flag}`" if o.kind == "switch" else f"`{o.flag}` `true` or `false`"
        as_linux = "" if o.as_linux is None else ("on" if o.as_linux else "off")
        rows.append(f"| `{o.name}` | {o.default_text()} | {flag} | {o.ns2 or 'none'} | "
                    f"{o.ns3 or 'none'} | {o.linux or 'none'} | {as_linux} | {o.doc} |")
    return "\n".join(rows) + "\n"
