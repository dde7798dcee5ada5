"""Spec strings, shared by the command line, the Python API and scenario files.

``KIND:key=value,key=value``, times with their unit (``hold=100ms``), each key at most once.

Channels::

    none
    bernoulli:p=0.01
    ge:alpha=0.01,beta=0.2[,loss_good=0,loss_bad=1][,advance=slot|transmission][,idle_reset=50ms]
    twostate:good=1s,bad=50ms[,loss_good=0,loss_bad=1][,dist=exp|fixed]
    burst:p=0.01,hold=100ms
    trace:file=PATH[,advance=transmission|slot]
                             (one character per transmission, or per packet-time slot with
                              advance=slot: '1' lost, '0' delivered, whitespace ignored; a
                              trace shorter than the run wraps around to its start)
    drops:seq=15+16+17[,flow=1]
                             (the first transmission of each listed segment is lost; a
                              segment listed k times loses its first k transmissions; with
                              flow, only that flow's segments, flows counted from 0)

Queues (``--queue``; a bare number is a DropTail of that many packets)::

    50
    droptail:packets=50[,bytes=75000]
    red:packets=100[,min_th=5,max_th=15,max_p=0.1,w_q=0.002,gentle=true,wait=true,bytes=false,
        queue_in_bytes=false,mean_packet_size=500B,ns2_seed=run]   (left out: ns-2 2.35's
        defaults, which count the queue, the thresholds and the limit in units of
        mean_packet_size bytes; bytes=false,queue_in_bytes=false is Floyd & Jacobson's packet
        mode; ns2_seed=N|run draws the early-drop test from ns-2's generator seeded N, or as
        lossytcp.ns2 seeds ns-2 for each run: see lossytcp.scenario.Red)

Traffic (``--cross-traffic``)::

    cbr:rate=2Mbps[,size=1000B,start=0s,stop=10s]
    onoff:rate=2Mbps,on=500ms,off=500ms[,size=1000B,start=..,stop=..]
    web:arrival=2/s,size=100KB[,max=20,total=500,dist=fixed|exp|pareto,shape=1.5,
        variant=newreno,start=..,stop=..]      (Poisson arrivals of finite TCP transfers)

Each parser returns the typed object of :mod:`lossytcp.scenario`, which validates it; every
error names the parameter as the user wrote it (``channel.hold``), the value and what is
valid. :func:`parse_channel` gives a channel in the engine's JSON form.
"""

from __future__ import annotations

from typing import Any

from . import _validate as v
from . import units
from .errors import ParameterError

_CHANNEL_KEYS: dict[str, dict[str, bool]] = {  # kind -> {key: required}
    "none": {},
    "bernoulli": {"p": True},
    "ge": {"alpha": True, "beta": True, "loss_good": False, "loss_bad": False, "advance": False,
           "idle_reset": False},
    "twostate": {"good": True, "bad": True, "loss_good": False, "loss_bad": False, "dist": False},
    "burst": {"p": True, "hold": True},
    "trace": {"file": True, "advance": False},
    "drops": {"seq": True, "flow": False},
}
_CHANNEL_ALIASES = {"gilbert-elliott": "ge", "gilbert_elliott": "ge", "two_state": "twostate",
                    "two-state": "twostate"}

_QUEUE_KEYS: dict[str, dict[str, bool]] = {
    "droptail": {"packets": True, "bytes": False},
    "red": {"packets": True, "min_th": False, "max_th": False, "max_p": False, "w_q": False,
            "gentle": False, "wait": False, "bytes": False, "queue_in_bytes": False,
            "mean_packet_size": False, "ns2_seed": False},
}

_TRAFFIC_KEYS: dict[str, dict[str, bool]] = {
    "cbr": {"rate": True, "size": False, "start": False, "stop": False},
    "onoff": {"rate": True, "on": False, "off": False, "size": False, "start": False,
              "stop": False},
    "web": {"arrival": True, "size": True, "max": False, "total": False, "dist": False,
            "shape": False, "variant": False, "start": False, "stop": False},
}


def split(param: str, spec: object, table: dict[str, dict[str, bool]], what: str,
          example: str, aliases: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """``kind`` and ``{key: text}`` of a spec string; unknown kinds and keys, repeated keys
    and missing required keys refused."""
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError(param, spec, f"must be a {what} spec such as {example!r}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    kind = (aliases or {}).get(kind, kind)
    if kind not in table:
        raise ParameterError(param, spec, f"unknown {what} kind; use one of " + ", ".join(table))
    opts: dict[str, str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in table[kind]:
            raise ParameterError(
                f"{param}.{key or item}", item,
                f"'{kind}' takes " + (", ".join(f"{k}=..." for k in table[kind]) or "no options"),
            )
        if key in opts:
            raise ParameterError(f"{param}.{key}", spec, f"gives {key} twice; give it once")
        opts[key] = val.strip()
    missing = [k for k, req in table[kind].items() if req and k not in opts]
    if missing:
        needs = ", ".join(m + "=..." for m in missing)
        raise ParameterError(param, spec, f"'{kind}' needs {needs}")
    return kind, opts


def _num(param: str, key: str, text: str) -> float:
    return units.number(text, f"{param}.{key}")


def _int(param: str, key: str, text: str) -> int:
    x = _num(param, key, text)
    return v.integer(f"{param}.{key}", x, 0)


def _bool(param: str, key: str, text: str) -> bool:
    # The README's rule for switches: true or false, never yes/no/on/off/1/0 (a spelling
    # one reader takes for "on" another takes for a number).
    t = text.strip().lower()
    if t == "true":
        return True
    if t == "false":
        return False
    raise ParameterError(f"{param}.{key}", text, "must be true or false")


def _time(param: str, key: str, text: str) -> float:
    return units.time_s(text, f"{param}.{key}")


def channel_from_spec(spec: object, param: str = "channel") -> Any:
    """A channel spec string -> a channel of :mod:`lossytcp.scenario`, validated."""
    from . import scenario as s

    kind, o = split(param, spec, _CHANNEL_KEYS, "channel", "bernoulli:p=0.01",
                    _CHANNEL_ALIASES)
    # Fields of the typed channel named as the spec names them, for errors.
    rename = {"good_s": "good", "bad_s": "bad", "hold_s": "hold", "idle_reset_s": "idle_reset",
              "seqs": "seq", "lost": "file"}
    kw: dict[str, Any] = {}
    for key, text in o.items():
        if key in ("advance", "dist", "file"):
            kw[key] = text
        elif key in ("good", "bad", "hold", "idle_reset"):
            kw[key + "_s"] = _time(param, key, text)
        elif key == "seq":
            parts = [x.strip() for x in text.split("+")]
            if not all(parts):
                raise ParameterError(f"{param}.seq", text,
                                     "must be segment numbers joined by '+', e.g. 15+16")
            try:
                kw["seqs"] = [int(x) for x in parts]
            except ValueError:
                raise ParameterError(f"{param}.seq", text,
                                     "must be segment numbers joined by '+', e.g. 15+16"
                                     ) from None
        else:
            kw[key] = _num(param, key, text)
    cls = {"none": s.NoChannel, "bernoulli": s.Bernoulli, "ge": s.GilbertElliott,
           "twostate": s.TwoState, "burst": s.Burst, "trace": s.TraceChannel,
           "drops": s.Drops}[kind]
    if kind == "drops" and "flow" in kw:
        kw["flow"] = v.integer(f"{param}.flow", kw["flow"], 0, 2**32 - 1)
        cls = s.FlowDrops
    with v.where(param, rename):
        return cls(**kw)


def parse_channel(spec: object, param: str = "channel") -> dict[str, Any]:
    """A channel spec string (or the engine's dict form) -> the engine's JSON form,
    validated. A trace channel names its file (the engine reads it); use
    :func:`lossytcp.scenario.trace_outcomes` for the outcomes themselves."""
    from . import scenario as s

    return s.channel(spec, param).engine()


def queue_from_spec(spec: object, param: str = "queue") -> Any:
    """``50``, ``droptail:packets=50[,bytes=...]`` or ``red:packets=..[,...]`` -> a queue of
    :mod:`lossytcp.scenario`, validated."""
    from . import scenario as s

    if isinstance(spec, str) and spec.strip() and ":" not in spec:
        text = spec.strip()
        try:
            n = int(text)
        except ValueError:
            raise ParameterError(param, spec, "must be a number of packets (a DropTail queue) "
                                 "or a spec such as 'red:packets=100,min_th=5,max_th=15,"
                                 "max_p=0.1'") from None
        with v.where(param, {"packets": ""}):
            return s.DropTail(packets=n)
    kind, o = split(param, spec, _QUEUE_KEYS, "queue", "droptail:packets=50",
                    {"drop_tail": "droptail", "drop-tail": "droptail"})
    kw: dict[str, Any] = {}
    for key, text in o.items():
        if key == "packets":
            kw[key] = _int(param, key, text)
        elif key == "bytes" and kind == "droptail":
            kw[key] = int(v.integer(f"{param}.bytes",
                                    units.size_bytes(text, f"{param}.bytes"), 0))
        elif key in ("gentle", "wait", "bytes", "queue_in_bytes"):
            kw[key] = _bool(param, key, text)
        elif key == "ns2_seed":
            # checked by Red: an integer, or "run" (ns-2's seed from each run's seed)
            kw[key] = text.strip() if not text.strip().lstrip("+-").isdigit() else int(text)
        elif key == "mean_packet_size":
            kw["mean_packet_size_bytes"] = v.integer(
                f"{param}.{key}", units.size_bytes(text, f"{param}.{key}"), 1)
        else:
            kw[key] = _num(param, key, text)
    cls = s.DropTail if kind == "droptail" else s.Red
    with v.where(param, {"mean_packet_size_bytes": "mean_packet_size"}):
        return cls(**kw)


def traffic_from_spec(spec: object, param: str = "cross-traffic") -> Any:
    """``cbr:rate=2Mbps``, ``onoff:rate=2Mbps,on=500ms,off=500ms`` or
    ``web:arrival=2/s,size=100KB,max=20`` -> a traffic source of :mod:`lossytcp.scenario`
    without endpoints (the topology places it), validated."""
    from . import scenario as s

    kind, o = split(param, spec, _TRAFFIC_KEYS, "traffic", "cbr:rate=2Mbps")
    kw: dict[str, Any] = {}
    rename = {"rate_bps": "rate", "packet_size_bytes": "size", "on_s": "on", "off_s": "off",
              "start_s": "start", "stop_s": "stop", "arrival_rate_per_s": "arrival",
              "max_concurrent": "max", "max_transfers": "total"}
    for key in ("start", "stop"):
        if key in o:
            kw[key + "_s"] = _time(param, key, o[key])
    if kind in ("cbr", "onoff"):
        kw["rate_bps"] = units.rate_bps(o["rate"], f"{param}.rate")
        if "size" in o:
            kw["packet_size_bytes"] = v.integer(f"{param}.size",
                                                units.size_bytes(o["size"], f"{param}.size"), 1)
        if kind == "onoff":
            for key in ("on", "off"):
                if key in o:
                    kw[key + "_s"] = _time(param, key, o[key])
            with v.where(param, rename):
                return s.OnOff(**kw)
        with v.where(param, rename):
            return s.Cbr(**kw)
    # web: Poisson arrivals of finite TCP transfers
    kw["arrival_rate_per_s"] = units.per_s(o["arrival"], f"{param}.arrival")
    size = units.size_bytes(o["size"], f"{param}.size")
    dist = v.choice(f"{param}.dist", o.get("dist", "fixed"), ["fixed", "exp", "pareto"])
    if "shape" in o and dist != "pareto":
        raise ParameterError(f"{param}.shape", o["shape"], "applies to dist=pareto only")
    with v.where(f"{param}.size", {"bytes": "", "mean_bytes": ""}):
        if dist == "fixed":
            kw["size"] = s.FixedSize(bytes=v.integer("bytes", size, 1))
        elif dist == "exp":
            kw["size"] = s.ExpSize(mean_bytes=size)
        else:
            shape = _num(param, "shape", o["shape"]) if "shape" in o else 1.5
            kw["size"] = s.ParetoSize(mean_bytes=size, shape=shape)
    if "max" in o:
        kw["max_concurrent"] = _int(param, "max", o["max"])
    if "total" in o:
        kw["max_transfers"] = _int(param, "total", o["total"])
    if "variant" in o:
        kw["variant"] = o["variant"]
    with v.where(param, rename):
        return s.Transfers(**kw)
