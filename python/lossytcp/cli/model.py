"""``lossytcp model NAME --param value ... [--json]``: evaluate one registered model.

The flags of each model come from its parameter dataclass, so a new model needs no CLI code:
a field's unit suffix is dropped from its flag and selects the unit parser (``rate_bps`` ->
``--rate 2Mbps``, ``rtt_s`` -> ``--rtt 20ms``, ``packet_size_bytes`` -> ``--packet-size 500B``,
``timeout_s`` -> ``--timeout 500ms``); other fields keep their name with dashes
(``dupack_threshold`` -> ``--dupack-threshold``). Vector and matrix parameters take entries
separated by commas, matrix rows by semicolons (``abrupt-rtt --rtt 58ms,60ms,82ms --H
"0.1,0.33,0.57;0.3,0.12,0.58;0.165,0.36,0.475"``). ``lossytcp model list [--json]`` lists the
models.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import typing
from typing import Any

from .. import units
from ..errors import ParameterError

_UNIT_SUFFIXES = ("_bps", "_per_s", "_s", "_bytes")
#: What a value of each unit suffix looks like on the command line (in --help).
_UNIT_WORDS = {"_bps": "a rate: 2Mbps, 500kbps", "_per_s": "per second: 2/s",
               "_s": "a time: 500ms, 1.5s", "_bytes": "a size: 500B, 1.5kB"}


def available() -> list[str]:
    from ..models import available as names  # imports every model (and scipy): on demand

    return names()


def get(name: str) -> Any:
    from ..models import get as model

    return model(name)


def flag_for_field(name: str) -> str:
    for suf in _UNIT_SUFFIXES:
        if name.endswith(suf) and len(name) > len(suf):
            name = name[: -len(suf)]
            break
    return "--" + name.replace("_", "-")


def _vector(field_name: str, text: str) -> tuple:
    """``100ms,500ms`` -> (0.1, 0.5); ``0.1,0.9;0.5,0.5`` (rows split by ';') -> a matrix.
    Each entry is parsed by the field's unit suffix (``rtt_s``: times with units)."""
    def row(r: str) -> tuple:
        items = [x.strip() for x in r.split(",")]
        if not all(items):
            raise ParameterError(field_name, text, "must be entries separated by ',' (rows of "
                                 "a matrix by ';'), e.g. 100ms,500ms or 0.1,0.9;0.5,0.5")
        return tuple(units.parse_for_field(field_name, x) for x in items)

    if ";" in text:
        return tuple(row(r) for r in text.split(";"))
    return row(text)


def _boolean(field_name: str, text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "yes", "1", "on"):
        return True
    if t in ("false", "no", "0", "off"):
        return False
    raise ParameterError(field_name, text, "must be true or false")


def _converter(field_name: str, hint: Any):
    """A function text -> value for one dataclass field, by type (vectors and matrices,
    booleans), then by unit suffix, then by number type."""
    args = set(typing.get_args(hint)) or {hint}
    optional = type(None) in args
    if tuple in args or any(typing.get_origin(a) is tuple for a in args):
        base = lambda t: _vector(field_name, t)  # noqa: E731
    elif bool in args:
        base = lambda t: _boolean(field_name, t)  # noqa: E731
    elif any(field_name.endswith(s) for s in _UNIT_SUFFIXES):
        base = lambda t: units.parse_for_field(field_name, t)  # noqa: E731
    elif int in args and float not in args:
        def base(t: str) -> int:
            try:
                return int(t)
            except ValueError:
                raise ParameterError(field_name, t, "must be an integer") from None
    elif float in args:
        base = lambda t: units.parse_for_field(field_name, t)  # noqa: E731
    else:
        base = str

    def convert(text: str):
        if optional and text.lower() in ("none", "null", ""):
            return None
        return base(text)

    return convert


def _model_parser(name: str) -> tuple[argparse.ArgumentParser, dict[str, str]]:
    model = get(name)
    p = argparse.ArgumentParser(prog=f"lossytcp model {model.name}",
                                description=f"{model.summary}. {model.citation}")
    dests: dict[str, str] = {}
    for f in dataclasses.fields(model.params_type):
        flag = flag_for_field(f.name)
        required = (f.default is dataclasses.MISSING
                    and f.default_factory is dataclasses.MISSING)
        if required:
            helptext = "required"
        elif f.default is None:
            helptext = "default: not set"
        else:
            helptext = f"default {units.format_for_field(f.name, f.default)}"
        unit = next((u for suf, u in _UNIT_WORDS.items() if f.name.endswith(suf)), None)
        if unit:
            helptext += f" ({unit})"
        if "tuple" in str(f.type):
            helptext += "; entries separated by ',', matrix rows by ';'"
        p.add_argument(flag, dest=f.name, required=required, metavar="VALUE",
                       type=str, help=helptext)
        dests[f.name] = flag
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    from . import plain_parser

    return plain_parser(p), dests


def json_safe(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def result_dict(name: str, params: Any, result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"model": get(name).name}
    out.update(result.as_dict())
    if "throughput_per_rtt" not in out and isinstance(getattr(params, "rtt_s", None),
                                                      (int, float)):
        out["throughput_per_rtt"] = result.throughput_pps * params.rtt_s
    out.setdefault("timeout_probability", None)
    return {k: json_safe(v) for k, v in out.items()}


def run(args: argparse.Namespace) -> int:
    if args.name in ("list", "ls"):
        extra = [x for x in args.params if x != "--json"]
        if extra:
            raise ParameterError("list", " ".join(extra), "takes only --json")
        if "--json" in args.params:
            print(json.dumps([{"name": n, "summary": get(n).summary,
                               "citation": get(n).citation, "aliases": list(get(n).aliases)}
                              for n in available()], indent=2))
            return 0
        for n in available():
            m = get(n)
            print(f"{n:16s} {m.summary}")
        return 0
    model = get(args.name)
    parser, dests = _model_parser(args.name)
    ns = parser.parse_args(args.params)
    hints = typing.get_type_hints(model.params_type)
    kwargs = {}
    for field_name in dests:
        text = getattr(ns, field_name)
        if text is not None:
            kwargs[field_name] = _converter(field_name, hints[field_name])(text)
    params = model.params(**kwargs)
    result = model(params)
    out = result_dict(args.name, params, result)
    if ns.json:
        print(json.dumps(out, indent=2))
    else:
        width = max(len(k) for k in out)
        for k, val in out.items():
            shown = f"{val:.6g}" if isinstance(val, float) else str(val)
            print(f"{k:<{width}}  {shown}")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "model", help="evaluate an analytical model",
        description="Evaluate a registered analytical model; 'lossytcp model list' lists them, "
                    "'lossytcp model NAME --help' shows a model's parameters.",
        add_help=True,
    )
    p.add_argument("name", help="model name (e.g. packet-train, aqm-renewal, mathis, pftk) or "
                                "'list' [--json]")
    p.add_argument("params", nargs=argparse.REMAINDER,
                   help="--param value ... [--json]; units as in simulate")
    p.set_defaults(func=run)
