"""Channel spec strings, shared by the CLI and the Python API.

``KIND:key=value,key=value`` with units in values where they are times::

    none
    bernoulli:p=0.01
    ge:alpha=0.01,beta=0.2[,loss_good=0,loss_bad=1][,advance=slot|transmission][,idle_reset=50ms]
    twostate:good=1s,bad=50ms[,loss_good=0,loss_bad=1][,dist=exp|fixed]
    burst:p=0.01,hold=100ms
    trace:file=PATH[,advance=transmission|slot]
                             (one character per transmission, or per packet-time slot with
                              advance=slot: '1' lost, '0' delivered)
    drops:seq=15+16+17       (the first transmission of each listed segment is lost; a
                              segment listed k times loses its first k transmissions)

:func:`parse_channel` returns the engine's structured form; every error names the parameter,
the value and what is valid.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _validate as v
from .errors import ParameterError
from .units import time_s

_KEYS: dict[str, dict[str, bool]] = {  # kind -> {key: required}
    "none": {},
    "bernoulli": {"p": True},
    "ge": {"alpha": True, "beta": True, "loss_good": False, "loss_bad": False, "advance": False,
           "idle_reset": False},
    "twostate": {"good": True, "bad": True, "loss_good": False, "loss_bad": False, "dist": False},
    "burst": {"p": True, "hold": True},
    "trace": {"file": True, "advance": False},
    "drops": {"seq": True},
}


def _split(param: str, spec: str) -> tuple[str, dict[str, str]]:
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(param, spec, "must be a channel spec such as 'bernoulli:p=0.01'")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind in ("gilbert-elliott", "gilbert_elliott"):
        kind = "ge"
    if kind not in _KEYS:
        raise ParameterError(param, spec, "unknown channel kind; use one of " + ", ".join(_KEYS))
    opts: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in _KEYS[kind]:
            raise ParameterError(
                f"{param}.{key or item}", item,
                f"'{kind}' takes " + (", ".join(f"{k}=..." for k in _KEYS[kind]) or "no options"),
            )
        opts[key] = val.strip()
    missing = [k for k, req in _KEYS[kind].items() if req and k not in opts]
    if missing:
        needs = ", ".join(m + "=..." for m in missing)
        raise ParameterError(param, spec, f"'{kind}' needs {needs}")
    return kind, opts


def parse_channel(spec: str, param: str = "channel") -> dict[str, Any]:
    kind, o = _split(param, spec)

    def prob(key: str, default: float | None = None) -> float:
        if key not in o:
            assert default is not None
            return default
        return v.probability(f"{param}.{key}", _num(param, key, o[key]))

    def dur(key: str) -> float:
        return v.positive(f"{param}.{key}", time_s(o[key], f"{param}.{key}"))

    if kind == "none":
        return {"kind": "none"}
    if kind == "bernoulli":
        return {"kind": "bernoulli", "p": prob("p")}
    if kind == "ge":
        alpha, beta = prob("alpha"), prob("beta")
        if alpha + beta == 0:
            raise ParameterError(f"{param}.alpha", alpha, "alpha and beta cannot both be 0")
        out: dict[str, Any] = {
            "kind": "gilbert_elliott", "alpha": alpha, "beta": beta,
            "loss_good": prob("loss_good", 0.0), "loss_bad": prob("loss_bad", 1.0),
            "advance": v.choice(f"{param}.advance", o.get("advance", "slot"),
                                ["slot", "transmission"]),
        }
        if "idle_reset" in o:
            out["idle_reset_s"] = dur("idle_reset")
        return out
    if kind == "twostate":
        return {
            "kind": "two_state", "good_s": dur("good"), "bad_s": dur("bad"),
            "loss_good": prob("loss_good", 0.0), "loss_bad": prob("loss_bad", 1.0),
            "dist": v.choice(f"{param}.dist", o.get("dist", "exp"), ["exp", "fixed"]),
        }
    if kind == "burst":
        return {"kind": "burst", "p": prob("p"), "hold_s": dur("hold")}
    if kind == "trace":
        path = Path(o["file"]).expanduser()
        try:
            text = path.read_text()
        except OSError as e:
            raise ParameterError(f"{param}.file", o["file"],
                                 f"must be a readable file ({e.strerror})") from None
        chars = [c for c in text if not c.isspace()]
        bad = next((c for c in chars if c not in "01"), None)
        if bad is not None or not chars:
            raise ParameterError(f"{param}.file", o["file"],
                                 "must hold one '0' (delivered) or '1' (lost) per transmission")
        return {"kind": "trace", "lost": [c == "1" for c in chars],
                "advance": v.choice(f"{param}.advance", o.get("advance", "transmission"),
                                    ["transmission", "slot"])}
    # drops
    try:
        seqs = sorted(int(x) for x in o["seq"].split("+") if x.strip())
    except ValueError:
        raise ParameterError(f"{param}.seq", o["seq"],
                             "must be segment numbers joined by '+', e.g. 15+16") from None
    if not seqs or seqs[0] < 0:
        raise ParameterError(f"{param}.seq", o["seq"], "must list segment numbers >= 0")
    return {"kind": "drops", "seqs": seqs}


def _num(param: str, key: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ParameterError(f"{param}.{key}", text, "must be a number") from None
