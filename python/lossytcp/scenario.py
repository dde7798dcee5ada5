"""Scenarios as typed, validated plain data: the one place their ranges are checked.

A :class:`Scenario` is a topology (a single link, a chain of hops, paper 003's two-hop
wired + wireless path, paper 002's dumbbell, or nodes and links listed one by one), the TCP
flows on it, the generated traffic (constant bit rate, exponential on/off, Poisson arrivals of
finite transfers), a seed and a duration. Every class validates its fields when it is built
and raises :class:`~lossytcp.errors.ParameterError` naming the parameter (with its place:
``links[2].queue.max_th``), the value and the valid range; the scenario then checks what spans
several objects (routes, the clock's floors). What passes is what the engine runs:
:meth:`Scenario.engine` gives the engine's JSON (the schema of ``crates/lossytcp-sim``'s
``config.rs``), and the engine's own ``Scenario::check`` only re-checks structure.

Scenarios round-trip through plain dictionaries and TOML (:meth:`Scenario.to_toml`,
:meth:`Scenario.from_toml`)::

    seed = 1
    duration_s = 2000.0

    [topology]
    kind = "dumbbell"
    senders = 30
    queue = {kind = "red", packets = 150}

    [tcp]                       # every flow's and transfer's TCP, unless it says otherwise
    packet_size_bytes = 500
    window = 20

    [[flows]]
    variant = "tahoe"
    src = "A1"
    dst = "D1"

    [[traffic]]
    kind = "transfers"
    src = "A2"
    dst = "D2"
    arrival_rate_per_s = 0.5
    size = {kind = "fixed", bytes = 100000}

Numbers are in the unit of their name; a channel, a queue or a traffic source may also be
written as the command line's spec string (``channel = "bernoulli:p=0.01"``, ``queue =
"red:packets=100,min_th=5,max_th=15,max_p=0.1"``, ``queue = 50``). Builders for the seeds'
shapes: :func:`single_link`, :func:`two_hop`, :func:`dumbbell`, and whole scenarios
:func:`paper002_scenario2`, :func:`paper003_two_hop`, :func:`paper003_friendliness`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from . import _validate as v
from . import variants as _variants
from .errors import ParameterError

#: Every variant's name, and the loss-classifying ones (paper 003), from the engine's registry.
VARIANTS = _variants.VARIANTS
CLASSIFYING_VARIANTS = _variants.CLASSIFYING_VARIANTS

#: The engine's clock ticks in nanoseconds: nothing that must take time may take less.
CLOCK_RESOLUTION_S = 1e-9
TICKS_PER_S = 1_000_000_000

MAX_QUEUE_PACKETS = 10_000_000
MAX_BYTES = 2**63 - 1
#: Most transfers of one source open at once (the engine's bound; a source without its own
#: max_concurrent has this one).
MAX_CONCURRENT = 1_000_000


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


class Record:
    """Base of immutable records: ``@record`` (a dataclass without generated equality, repr
    or frozen setters) subclasses get equality, hashing, repr and immutability from the
    methods here. Code generated per dataclass costs about a millisecond per method at import,
    which for the scenario's thirty classes was most of the command line's start-up."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        # The dataclass's __init__ sets each field once; after that the record is frozen.
        if name in self.__dict__:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.compare)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.__class__, self._key()))

    def __repr__(self) -> str:
        parts = ", ".join(f"{f.name}={getattr(self, f.name)!r}"
                          for f in fields(self) if f.repr)  # type: ignore[arg-type]
        return f"{type(self).__name__}({parts})"


def _unknown_field(cls: type, name: str, value: object) -> ParameterError:
    import difflib

    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return ParameterError(name, value, f"is not a field of {cls.__name__}{hint}; its fields "
                          "are " + ", ".join(names))


def record(cls: type) -> Any:
    """The dataclass decorator of records (see :class:`Record`), whose constructor refuses
    an unknown or missing field with a :class:`ParameterError` naming it and the fields
    there are (``Link(delay_s=...)``: "did you mean delay?"), not a TypeError."""
    cls = dataclass(eq=False, repr=False)(cls)
    init = cls.__init__
    names = [f.name for f in fields(cls) if f.init]  # type: ignore[arg-type]
    index = {n: i for i, n in enumerate(names)}
    required = [f.name for f in fields(cls)  # type: ignore[arg-type]
                if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        n = len(args)
        if n > len(names):
            raise ParameterError(cls.__name__, args, f"takes at most {len(names)} values "
                                 "in order (" + ", ".join(names) + f"), not {n}")
        for k in kwargs:
            i = index.get(k)
            if i is None:
                raise _unknown_field(cls, k, kwargs[k])
            if i < n:
                raise ParameterError(k, kwargs[k], "is given twice (in order and by name)")
        for k in required:
            if index[k] >= n and k not in kwargs:
                raise ParameterError(k, None, f"is required by {cls.__name__}")
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    return cls


def _path(prefix: str, name: str) -> str:
    if not prefix:
        return name
    return prefix + ("" if name.startswith("[") else ".") + name


def _is_default(f: dataclasses.Field, value: object) -> bool:
    if f.default is not dataclasses.MISSING:
        return value == f.default
    if f.default_factory is not dataclasses.MISSING:
        return value == f.default_factory()
    return False


def _plain(x: Any) -> Any:
    """Plain data (dicts, lists, numbers, strings, bools) for TOML and JSON."""
    if isinstance(x, _Data):
        return x.to_dict()
    if isinstance(x, (list, tuple)):
        return [_plain(y) for y in x]
    if isinstance(x, Mapping):
        return {k: _plain(y) for k, y in x.items()}
    return x


class _Data(Record):
    """Shared plumbing of the scenario's dataclasses: building from plain data (unknown keys
    and missing required ones refused, nested values parsed) and back."""

    #: ``kind`` in plain data (tagged unions, as serde's ``#[serde(tag = "kind")]``).
    KIND: ClassVar[str | None] = None
    #: field -> parser of its plain value (a nested object, a spec string, ...).
    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Any:
        what = cls.KIND or cls.__name__
        if not isinstance(data, Mapping):
            raise ParameterError(path or what, data, f"must be a table of {what}'s fields")
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        extra = {"kind"} if cls.KIND else set()
        for k in data:
            if k not in names and k not in extra:
                raise ParameterError(_path(path, str(k)), data[k],
                                     f"is not a field of {what}; its fields are "
                                     + ", ".join(names))
        if cls.KIND and "kind" in data and data["kind"] != cls.KIND:
            raise ParameterError(_path(path, "kind"), data["kind"], f"must be {cls.KIND!r}")
        missing = [f.name for f in fields(cls)  # type: ignore[arg-type]
                   if f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING and f.name not in data]
        if missing:
            raise ParameterError(path or what, dict(data), f"needs {', '.join(missing)}")
        kw = {}
        for k, x in data.items():
            if k == "kind":
                continue
            parse = cls.NESTED.get(k)
            kw[k] = parse(x, _path(path, k)) if parse is not None else x
        with v.where(path):
            return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, defaults left out (what :meth:`from_dict` reads back into an equal
        object)."""
        out: dict[str, Any] = {"kind": self.KIND} if self.KIND else {}
        for f in fields(self):  # type: ignore[arg-type]
            x = getattr(self, f.name)
            if x is None or _is_default(f, x):
                continue
            out[f.name] = _plain(x)
        return out


def _tagged(table: Mapping[str, type], what: str, spec: Callable[[str, str], Any] | None = None,
            shorthand: Callable[[Any, str], Any] | None = None) -> Callable[[Any, str], Any]:
    """A parser of a tagged union: an object of one of the classes, a table with ``kind``, a
    spec string, or a shorthand (a number for a queue)."""
    classes = tuple(table.values())

    def parse(x: Any, path: str) -> Any:
        if isinstance(x, classes):
            return x
        if isinstance(x, str) and spec is not None:
            return spec(x, path)
        if shorthand is not None and not isinstance(x, (Mapping, str)):
            return shorthand(x, path)
        if not isinstance(x, Mapping) or "kind" not in x:
            raise ParameterError(path, x, f"must be a {what}: a table with kind = one of "
                                 + ", ".join(repr(k) for k in table)
                                 + (" or a spec string" if spec else ""))
        kind = x["kind"]
        cls = None
        if isinstance(kind, str):
            key = kind.lower().replace("-", "_")
            cls = table.get(key) or next((c for k, c in table.items()
                                          if k.replace("-", "_") == key), None)
        if cls is None:
            raise ParameterError(_path(path, "kind"), kind,
                                 "must be one of " + ", ".join(repr(k) for k in table))
        return cls.from_dict({**x, "kind": cls.KIND}, path)

    return parse


# ----------------------------------------------------------------------------------- delays
@record
class FixedDelay(_Data):
    """A constant one-way propagation delay."""

    KIND = "fixed"
    delay_s: float = 0.0

    def __post_init__(self) -> None:
        _set(self, "delay_s", v.duration("delay_s", self.delay_s))

    def engine(self) -> dict[str, Any]:
        return {"kind": "fixed", "delay_s": self.delay_s}


@record
class SemiMarkovDelay(_Data):
    """Paper 001 §3.1's RTT process: M states of delay ``rtt_s[i]``, embedded transition
    matrix ``H``, holding time in state i of ``rtt_s[i]`` + Exp(mean ``excess_mean_s[i]``). A
    packet's delay is fixed when it starts transmission."""

    KIND = "semi_markov"
    rtt_s: tuple[float, ...]
    H: tuple[tuple[float, ...], ...]
    excess_mean_s: tuple[float, ...]

    def __post_init__(self) -> None:
        t = v.vector("rtt_s", self.rtt_s, positive_entries=True)
        if t.max() > v.MAX_TIME_S:
            raise ParameterError("rtt_s", self.rtt_s, f"entries must be <= {v.MAX_TIME_S:g} s")
        h = v.stochastic_matrix("H", self.H)
        if h.shape[0] != t.size:
            raise ParameterError("H", self.H, f"must be {t.size}x{t.size} like rtt_s")
        ex = v.vector("excess_mean_s", self.excess_mean_s, t.size, non_negative_entries=True)
        if ex.max() > v.MAX_TIME_S:
            raise ParameterError("excess_mean_s", self.excess_mean_s,
                                 f"entries must be <= {v.MAX_TIME_S:g} s")
        _set(self, "rtt_s", tuple(t.tolist()))
        _set(self, "H", tuple(tuple(r) for r in h.tolist()))
        _set(self, "excess_mean_s", tuple(ex.tolist()))

    def engine(self) -> dict[str, Any]:
        return {"kind": "semi_markov", "delay_s": list(self.rtt_s),
                "h": [list(r) for r in self.H], "excess_mean_s": list(self.excess_mean_s)}


def _delay(x: Any, path: str) -> FixedDelay | SemiMarkovDelay:
    if isinstance(x, (FixedDelay, SemiMarkovDelay)):
        return x
    if isinstance(x, Mapping) and "kind" not in x and set(x) <= {"rtt_s", "H", "excess_mean_s"}:
        return SemiMarkovDelay.from_dict(x, path)   # simulate()'s delay= dict
    if not isinstance(x, Mapping) and not isinstance(x, (str, bytes)):
        with v.where(path):
            return FixedDelay(delay_s=x)
    return _tagged({"fixed": FixedDelay, "semi_markov": SemiMarkovDelay}, "delay")(x, path)


def delay_from_text(text: str, path: str = "delay") -> SemiMarkovDelay:
    """A semi-Markov delay written as in a scenario file, the TOML inline table of
    ``[topology] delay = {...}`` (``kind = "semi_markov"`` may be left out), e.g.
    ``{rtt_s = [0.04, 0.32], H = [[0, 1], [1, 0]], excess_mean_s = [3, 3]}``: the command
    line's ``--delay``, parsed by the scenario's own delay parser."""
    import tomllib

    try:
        x = tomllib.loads(f"d = {text}")["d"]
    except tomllib.TOMLDecodeError as e:
        raise ParameterError(path, text, "must be a TOML inline table as in a scenario file, "
                             '{kind = "semi_markov", rtt_s = [...], H = [[...]], '
                             f"excess_mean_s = [...]}} ({e})") from None
    d = _delay(x, path)
    if not isinstance(d, SemiMarkovDelay):
        raise ParameterError(path, text, "must be a semi-Markov delay (rtt_s, H, "
                             "excess_mean_s); a fixed round trip is --rtt")
    return d


# --------------------------------------------------------------------------------- channels
@record
class NoChannel(_Data):
    """A lossless channel."""

    KIND = "none"

    def engine(self) -> dict[str, Any]:
        return {"kind": "none"}


@record
class Bernoulli(_Data):
    """Independent losses with probability ``p``."""

    KIND = "bernoulli"
    p: float

    def __post_init__(self) -> None:
        _set(self, "p", v.probability("p", self.p))

    def engine(self) -> dict[str, Any]:
        return {"kind": "bernoulli", "p": self.p}


@record
class GilbertElliott(_Data):
    """Paper 000's two-state chain: Good -> Bad w.p. ``alpha``, Bad -> Good w.p. ``beta`` per
    step; ``advance`` = ``slot`` (a step per packet-time slot, idle or not) or
    ``transmission`` (a step per packet sent); ``idle_reset_s``: after an idle gap longer than
    this the state is drawn afresh; ``slot_s`` overrides the link's packet time as the slot."""

    KIND = "gilbert_elliott"
    alpha: float
    beta: float
    loss_good: float = 0.0
    loss_bad: float = 1.0
    advance: str = "slot"
    idle_reset_s: float | None = None
    slot_s: float | None = None

    def __post_init__(self) -> None:
        for k in ("alpha", "beta", "loss_good", "loss_bad"):
            _set(self, k, v.probability(k, getattr(self, k)))
        if self.alpha + self.beta == 0:
            raise ParameterError("alpha", self.alpha, "alpha and beta cannot both be 0")
        _set(self, "advance", v.choice("advance", self.advance, ["slot", "transmission"]))
        if self.idle_reset_s is not None:
            _set(self, "idle_reset_s", v.duration("idle_reset_s", self.idle_reset_s,
                                                  open_low=True))
        if self.slot_s is not None:
            _set(self, "slot_s", v.duration("slot_s", self.slot_s, lo=CLOCK_RESOLUTION_S))

    def engine(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "gilbert_elliott", "alpha": self.alpha,
                               "beta": self.beta, "loss_good": self.loss_good,
                               "loss_bad": self.loss_bad, "advance": self.advance}
        if self.idle_reset_s is not None:
            out["idle_reset_s"] = self.idle_reset_s
        if self.slot_s is not None:
            out["slot_s"] = self.slot_s
        return out


@record
class TwoState(_Data):
    """Paper 003's two-state channel in continuous time: Good and Bad periods of mean
    ``good_s`` and ``bad_s`` (``dist`` exp or fixed), a packet lost with the loss probability
    of the state it starts in. Each period must last at least one packet time of its link
    (checked by the scenario): the engine walks the periods one by one."""

    KIND = "two_state"
    good_s: float
    bad_s: float
    loss_good: float = 0.0
    loss_bad: float = 1.0
    dist: str = "exp"

    def __post_init__(self) -> None:
        for k in ("good_s", "bad_s"):
            _set(self, k, v.duration(k, getattr(self, k), open_low=True))
        for k in ("loss_good", "loss_bad"):
            _set(self, k, v.probability(k, getattr(self, k)))
        _set(self, "dist", v.choice("dist", self.dist, ["exp", "fixed"]))

    def engine(self) -> dict[str, Any]:
        return {"kind": "two_state", "good_s": self.good_s, "bad_s": self.bad_s,
                "loss_good": self.loss_good, "loss_bad": self.loss_bad, "dist": self.dist}


@record
class Burst(_Data):
    """Paper 002 Scenario I's DropTail stand-in: Good -> Bad w.p. ``p`` per packet, Bad drops
    everything for ``hold_s``."""

    KIND = "burst"
    p: float
    hold_s: float

    def __post_init__(self) -> None:
        _set(self, "p", v.probability("p", self.p))
        _set(self, "hold_s", v.duration("hold_s", self.hold_s, open_low=True))

    def engine(self) -> dict[str, Any]:
        return {"kind": "burst", "p": self.p, "hold_s": self.hold_s}


@record
class TraceChannel(_Data):
    """Outcomes given per transmission (``advance = transmission``) or per packet-time slot
    (``slot``): ``1`` lost, ``0`` delivered. From a ``file`` of those characters (whitespace
    ignored; the engine reads it once, packed one bit per outcome) or an inline ``lost`` list.
    A trace shorter than the run wraps around: outcome ``i`` is outcome ``i mod n``."""

    KIND = "trace"
    file: str | None = None
    lost: tuple[bool, ...] | None = None
    advance: str = "transmission"

    def __post_init__(self) -> None:
        if (self.file is None) == (self.lost is None):
            raise ParameterError("file", self.file, "give a trace file or a lost list "
                                 "(one, not both)")
        if self.file is not None:
            _set(self, "file", check_trace_file("file", self.file))
        else:
            lost = self.lost
            if isinstance(lost, (str, bytes)) or not isinstance(lost, Iterable):
                raise ParameterError("lost", lost, "must be a list of True (lost) / False")
            lost = tuple(lost)
            if not lost:
                raise ParameterError("lost", lost, "must hold at least one outcome")
            for i, x in enumerate(lost):
                v.boolean(f"lost[{i}]", x)
            _set(self, "lost", tuple(bool(x) for x in lost))
        _set(self, "advance", v.choice("advance", self.advance, ["transmission", "slot"]))

    def engine(self) -> dict[str, Any]:
        src: dict[str, Any] = ({"file": self.file} if self.file is not None
                               else {"lost": list(self.lost or ())})
        return {"kind": "trace", **src, "advance": self.advance}


@record
class Drops(_Data):
    """The first transmission of each listed data segment is lost; a segment listed k times
    loses its first k transmissions (exact scenarios)."""

    KIND = "drops"
    seqs: tuple[int, ...]

    def __post_init__(self) -> None:
        seqs = self.seqs
        if isinstance(seqs, (str, bytes)) or not isinstance(seqs, Iterable):
            raise ParameterError("seqs", seqs, "must be a list of segment numbers")
        out = [v.integer(f"seqs[{i}]", s, 0, 2**64 - 1) for i, s in enumerate(seqs)]
        if not out:
            raise ParameterError("seqs", seqs, "must list at least one segment number")
        _set(self, "seqs", tuple(sorted(out)))

    def engine(self) -> dict[str, Any]:
        return {"kind": "drops", "seqs": list(self.seqs)}


@record
class FlowDrops(_Data):
    """:class:`Drops` naming the flow as well: the first transmission of segment ``seqs[i]``
    of flow ``flow`` (an index into the scenario's expanded flows) is lost."""

    KIND = "flow_drops"
    flow: int
    seqs: tuple[int, ...]

    def __post_init__(self) -> None:
        _set(self, "flow", v.integer("flow", self.flow, 0, 2**32 - 1))
        _set(self, "seqs", Drops(self.seqs).seqs)

    def engine(self) -> dict[str, Any]:
        return {"kind": "flow_drops", "drops": [{"flow": self.flow, "seq": s}
                                                for s in self.seqs]}


Channel = (NoChannel | Bernoulli | GilbertElliott | TwoState | Burst | TraceChannel | Drops
           | FlowDrops)
CHANNELS: dict[str, type] = {"none": NoChannel, "bernoulli": Bernoulli,
                             "gilbert_elliott": GilbertElliott, "ge": GilbertElliott,
                             "two_state": TwoState, "twostate": TwoState, "burst": Burst,
                             "trace": TraceChannel, "drops": Drops, "flow_drops": FlowDrops}


def _channel_spec(text: str, path: str) -> Channel:
    from .spec import channel_from_spec

    return channel_from_spec(text, path)


channel = _tagged(CHANNELS, "channel", _channel_spec)


def regular_file(name: str, path: Path) -> None:
    """Refuse what is not a regular file before opening it: opening a named pipe blocks
    until someone writes to it (issue 24: a trace from a FIFO hung forever), a device may
    never end."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError as e:
        raise ParameterError(name, str(path), f"must be a readable file ({e.strerror or e})"
                             ) from None
    if not stat.S_ISREG(mode):
        what = ("a directory" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
                else "not a regular file")
        raise ParameterError(name, str(path), f"is {what}: give a file of '0'/'1' outcomes")


def check_trace_file(name: str, file: object) -> str:
    """The absolute path of a readable trace file holding only '0', '1' and whitespace, and
    at least one outcome. Read in 1 MiB chunks as bytes, so a 100 MB trace costs neither
    memory nor a decoding error (any byte but those is refused, naming its offset)."""
    if not isinstance(file, (str, Path)) or not str(file):
        raise ParameterError(name, file, "must be the path of a trace file")
    path = Path(file).expanduser()
    regular_file(name, path)
    outcomes = 0
    offset = 0
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                rest = chunk.translate(None, b"01 \t\n\r\x0b\x0c")
                if rest:
                    bad = next(i for i, b in enumerate(chunk) if b not in b"01 \t\n\r\x0b\x0c")
                    raise ParameterError(
                        name, str(file), f"must hold one '0' (delivered) or '1' (lost) per "
                        f"outcome; byte {chunk[bad]:#04x} at offset {offset + bad} is neither")
                outcomes += chunk.count(b"0") + chunk.count(b"1")
                offset += len(chunk)
    except OSError as e:
        raise ParameterError(name, str(file),
                             f"must be a readable file ({e.strerror or e})") from None
    if not outcomes:
        raise ParameterError(name, str(file), "must hold at least one outcome ('0' or '1')")
    return str(path.resolve())


def trace_outcomes(ch: Mapping[str, Any] | TraceChannel) -> list[bool]:
    """The outcomes of a trace channel (engine form or typed), ``True`` = lost."""
    if isinstance(ch, TraceChannel):
        ch = ch.engine()
    if ch.get("lost"):
        return [bool(x) for x in ch["lost"]]
    data = Path(ch["file"]).read_bytes()
    return [b == 0x31 for b in data if b in (0x30, 0x31)]


# ----------------------------------------------------------------------------------- queues
@record
class DropTail(_Data):
    """A FIFO dropping arrivals when full: ``packets`` waiting besides the one in
    transmission (ns-2's ``limit_``), and optionally at most ``bytes`` bytes waiting."""

    KIND = "droptail"
    packets: int = 1000
    bytes: int | None = None

    def __post_init__(self) -> None:
        _set(self, "packets", v.integer("packets", self.packets, 0, MAX_QUEUE_PACKETS))
        if self.bytes is not None:
            _set(self, "bytes", v.integer("bytes", self.bytes, 0, MAX_BYTES))

    def engine_fields(self) -> dict[str, Any]:
        if self.bytes is None:
            return {"queue_packets": self.packets}   # the engine's legacy form
        return {"queue": {"kind": "droptail", "packets": self.packets, "bytes": self.bytes}}


@record
class Red(_Data):
    """Random Early Detection as ns-2 2.35's ``Queue/RED`` implements Floyd & Jacobson 1993:
    ``packets`` the physical limit, ``min_th``/``max_th`` the thresholds of the average queue
    (ns-2's ``thresh_``/``maxthresh_``, in packets), ``max_p`` the drop probability at
    ``max_th`` (ns-2's ``1/linterm_``), ``w_q`` the averaging weight (``q_weight_``),
    ``gentle`` (probability rising to 1 at 2 ``max_th``), ``wait`` (space drops apart),
    ``bytes`` (``bytes_``: drop probability scaled by packet size), ``queue_in_bytes``
    (``queue_in_bytes_``), ``mean_packet_size_bytes`` (``mean_pktsize_``), ``use_mark_p``
    (``use_mark_p_``) and ``target_delay_s`` (``targetdelay_``, for the automatic
    thresholds). Left out, a parameter takes ns-2 2.35's default (tcl/lib/ns-default.tcl:
    automatic thresholds and weight, max_p 0.1, gentle, wait, bytes and queue_in_bytes on,
    500 B, use_mark_p on, 5 ms).

    ``ns2_seed``: draw the early-drop test's uniforms (red.cc ``drop_early()``, one per packet
    tested) from ns-2 2.35's default generator, L'Ecuyer's MRG32k3a after ``$defaultRNG seed
    ns2_seed``, instead of the engine's own stream: an integer in [1, 2^31 - 2] (rng.cc
    refuses others), or ``"run"`` for ``lossytcp.ns2.ns2_seed(seed)`` of each run's seed,
    the value the scripts of :mod:`lossytcp.ns2` give ns-2 (so ``crosscheck ns2``, a sweep
    over seeds, ``simulate_seeds`` and an experiment's ``engine_scenario`` keep independent
    runs; a fixed integer gives every seed the same draws). ns-2 has one such generator for
    all its queues and agents, the engine one per queue: the engine makes ns-2's drops where
    this queue is ns-2's only consumer after time 0 (one RED queue, no finite transfers,
    whose agents draw as they start) and the flows have ns-2's tick phases
    (``lossytcp.ns2.rng.with_ns2_draws``). None: the engine's stream."""

    KIND = "red"
    packets: int
    min_th: float | None = None
    max_th: float | None = None
    max_p: float | None = None
    w_q: float | None = None
    gentle: bool | None = None
    wait: bool | None = None
    bytes: bool | None = None
    queue_in_bytes: bool | None = None
    mean_packet_size_bytes: int | None = None
    use_mark_p: bool | None = None
    target_delay_s: float | None = None
    ns2_seed: int | str | None = None

    def __post_init__(self) -> None:
        _set(self, "packets", v.integer("packets", self.packets, 1, MAX_QUEUE_PACKETS))
        for k in ("min_th", "max_th"):
            x = getattr(self, k)
            if x is not None:
                _set(self, k, v.in_range(k, x, 0, self.packets))
        if self.min_th is not None and self.max_th is not None and self.max_th <= self.min_th:
            raise ParameterError("max_th", self.max_th, f"must be > min_th = {self.min_th}")
        if self.max_p is not None:
            _set(self, "max_p", v.probability("max_p", self.max_p, open_low=True))
        if self.w_q is not None:
            _set(self, "w_q", v.probability("w_q", self.w_q, open_low=True))
        for k in ("gentle", "wait", "bytes", "queue_in_bytes", "use_mark_p"):
            _set(self, k, v.optional_boolean(k, getattr(self, k), "ns-2's default"))
        if self.target_delay_s is not None:
            _set(self, "target_delay_s", v.duration("target_delay_s", self.target_delay_s,
                                                    open_low=True))
        if self.mean_packet_size_bytes is not None:
            _set(self, "mean_packet_size_bytes",
                 v.integer("mean_packet_size_bytes", self.mean_packet_size_bytes, 1, 65535))
        if self.ns2_seed is not None and self.ns2_seed != NS2_SEED_RUN:
            valid = f"must be an integer in [1, {NS2_SEED_MAX}] or {NS2_SEED_RUN!r}"
            if isinstance(self.ns2_seed, str):
                raise ParameterError("ns2_seed", self.ns2_seed, valid)
            try:
                _set(self, "ns2_seed", v.integer("ns2_seed", self.ns2_seed, 1, NS2_SEED_MAX))
            except ParameterError:
                raise ParameterError("ns2_seed", self.ns2_seed, valid) from None

    def engine_fields(self) -> dict[str, Any]:
        q: dict[str, Any] = {"kind": "red", "packets": self.packets}
        for f in fields(self):
            x = getattr(self, f.name)
            if f.name != "packets" and x is not None:
                q[f.name] = x
        return {"queue": q}


#: ns-2 2.35's seeds (tools/rng.cc ``set_seed()``: 0 < seed < 2^31 - 1, MAXINT).
NS2_SEED_MAX = 2**31 - 2
#: ``Red.ns2_seed``: ns-2's seed derived from each run's seed.
NS2_SEED_RUN = "run"

Queue = DropTail | Red


def resolve_ns2_seeds(engine: dict[str, Any]) -> dict[str, Any]:
    """An engine scenario's RED queues with ``ns2_seed = "run"`` get ns-2's seed of the
    scenario's ``seed`` (``lossytcp.ns2.ns2_seed``), in place; returns ``engine``."""
    links = engine.get("links")
    for lk in links if isinstance(links, list) else []:
        q = lk.get("queue") if isinstance(lk, dict) else None
        if isinstance(q, dict) and q.get("ns2_seed") == NS2_SEED_RUN:
            from .ns2.script import ns2_seed

            q["ns2_seed"] = ns2_seed(int(engine["seed"]))
    return engine


def draws_from_ns2_rng(engine: Mapping[str, Any]) -> bool:
    """Whether a RED queue of an engine scenario draws from ns-2's generator: its seed may
    follow the run's (``"run"``, resolved by :meth:`Scenario.engine`), so a scenario built for
    one seed is rebuilt for another, not only given the other ``seed``."""
    links = engine.get("links")
    return any(isinstance(lk.get("queue"), Mapping) and "ns2_seed" in lk["queue"]
               for lk in (links if isinstance(links, list) else []) if isinstance(lk, Mapping))
QUEUES: dict[str, type] = {"droptail": DropTail, "drop_tail": DropTail, "red": Red}


def _queue_spec(text: str, path: str) -> Queue:
    from .spec import queue_from_spec

    return queue_from_spec(text, path)


def _queue_number(x: Any, path: str) -> DropTail:
    with v.where(path, {"packets": ""}):
        return DropTail(packets=x)


queue = _tagged(QUEUES, "queue", _queue_spec, _queue_number)


# ------------------------------------------------------------------------------------ links
@record
class Link(_Data):
    """One direction of a link from node ``src`` to node ``dst``: a queue, serialisation at
    ``rate_bps``, a channel deciding each packet's fate as it starts transmission, then the
    propagation ``delay``. ``protect_retransmissions``: retransmitted data is never lost on the
    channel (paper 000's assumption). ``slot_bytes``: the packet size whose transmission time
    is the slot of a slot-stepped channel (default: the data packets crossing it)."""

    rate_bps: float
    delay: FixedDelay | SemiMarkovDelay = field(default_factory=FixedDelay)
    queue: DropTail | Red = field(default_factory=DropTail)
    channel: Channel = field(default_factory=NoChannel)
    protect_retransmissions: bool = False
    src: str | None = None
    dst: str | None = None
    slot_bytes: int | None = None

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        _set(self, "delay", _delay(self.delay, "delay"))
        _set(self, "queue", queue(self.queue, "queue"))
        _set(self, "channel", channel(self.channel, "channel"))
        _set(self, "protect_retransmissions",
             v.boolean("protect_retransmissions", self.protect_retransmissions))
        for k in ("src", "dst"):
            x = getattr(self, k)
            if x is not None and (not isinstance(x, str) or not x):
                raise ParameterError(k, x, "must be a node's name")
        if self.slot_bytes is not None:
            _set(self, "slot_bytes", v.integer("slot_bytes", self.slot_bytes, 1, 65535))

    def engine(self, named: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if named:
            out.update({"from": self.src, "to": self.dst})
        out.update({"rate_bps": self.rate_bps, **self.queue.engine_fields(),
                    "delay": self.delay.engine(), "channel": self.channel.engine(),
                    "protect_retransmissions": self.protect_retransmissions})
        if self.slot_bytes is not None:
            out["slot_bytes"] = self.slot_bytes
        return out


Link.NESTED = {"delay": _delay, "queue": queue, "channel": channel}


@record
class Hop(_Data):
    """One hop of a chain, used in both directions: ``rate_bps``, one-way ``delay_s``, the
    queue, and the channel of the data direction."""

    rate_bps: float
    delay_s: float
    queue: DropTail | Red = field(default_factory=DropTail)
    channel: Channel = field(default_factory=NoChannel)

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        _set(self, "delay_s", v.duration("delay_s", self.delay_s))
        _set(self, "queue", queue(self.queue, "queue"))
        _set(self, "channel", channel(self.channel, "channel"))


Hop.NESTED = {"queue": queue, "channel": channel}


# -------------------------------------------------------------------------------------- TCP
def _with_plugin_params(cls: type) -> type:
    """Adds one field per plugin parameter of the engine's registry (None: the variant's
    default), before the dataclass is made: the parameters are declared in the engine only."""
    for name in _variants.PARAMS:
        cls.__annotations__[name] = "Any"
        setattr(cls, name, None)
    return cls


def _with_sender_options(cls: type) -> type:
    """Adds one field per sender-wide option of the engine's registry (False for a switch,
    None for a tristate: the profile's default): the options are declared in the engine
    only."""
    for name, o in _variants.OPTIONS.items():
        cls.__annotations__[name] = "bool | None"
        setattr(cls, name, o.unset)
    return cls


@record
@_with_plugin_params
@_with_sender_options
class Tcp(_Data):
    """A TCP sender's and receiver's settings (everything but the variant): sizes in bytes,
    windows in packets, timers in seconds. ``min_rto_s`` and ``initial_rto_s`` left out are
    0.2 s and 1 s; with ``fixed_rto_s`` (a constant timeout instead of RFC 6298's estimator)
    they do not apply and may not be given. The sender-wide options (``limited_transmit``,
    ``eifel_undo``, ...: :data:`lossytcp.variants.OPTIONS`) are fields too, declared by the
    engine: the knobs None for the profile's default, the switches False; see
    :func:`lossytcp.simulate`. Each variant's plugin parameters (``vegas_alpha``,
    ``cubic_beta``, ...: :data:`lossytcp.variants.PARAMS`) are fields too, None for the
    variant's default; a parameter the flow's variant does not take is refused."""

    packet_size_bytes: int = 500
    ack_size_bytes: int = 40
    window: int = 20
    initial_window: int = 1
    dupack_threshold: int = 3
    min_rto_s: float | None = None
    max_rto_s: float = 60.0
    initial_rto_s: float | None = None
    granularity_s: float = 0.0
    fixed_rto_s: float | None = None
    backoff: bool = True
    max_backoff: int | None = None      # 64 with backoff
    rtt_sampling: str = "per_ack"
    rto_estimator: str = "rfc6298"
    delayed_ack: bool = False
    profile: str = "rfc"
    tick_phase: float | None = None

    #: The profile's knobs (the tristate options: None, the profile's default).
    KNOBS: ClassVar[tuple[str, ...]] = tuple(k for k, o in _variants.OPTIONS.items()
                                             if o.kind == "tristate")
    MIN_RTO_DEFAULT: ClassVar[float] = 0.2
    INITIAL_RTO_DEFAULT: ClassVar[float] = 1.0

    def __post_init__(self) -> None:
        _set(self, "packet_size_bytes",
             v.integer("packet_size_bytes", self.packet_size_bytes, 1, 65535))
        _set(self, "ack_size_bytes", v.integer("ack_size_bytes", self.ack_size_bytes, 0, 65535))
        _set(self, "window", v.integer("window", self.window, 1, 1_000_000))
        _set(self, "initial_window", v.integer("initial_window", self.initial_window, 1,
                                               1_000_000))
        if self.initial_window > self.window:
            raise ParameterError("initial_window", self.initial_window,
                                 f"must be <= window = {self.window} (the window caps it)")
        _set(self, "dupack_threshold",
             v.integer("dupack_threshold", self.dupack_threshold, 1, 1_000_000))
        if self.min_rto_s is not None:
            _set(self, "min_rto_s", v.duration("min_rto_s", self.min_rto_s))
        _set(self, "max_rto_s", v.duration("max_rto_s", self.max_rto_s, open_low=True))
        if self.max_rto_s < self.min_rto:
            raise ParameterError("max_rto_s", self.max_rto_s,
                                 f"must be >= min_rto_s = {self.min_rto}")
        _set(self, "granularity_s", v.duration("granularity_s", self.granularity_s))
        if self.granularity_s > self.max_rto_s:
            raise ParameterError("granularity_s", self.granularity_s,
                                 f"must be <= max_rto_s = {self.max_rto_s}: RFC 6298's RTO is "
                                 "at least G and at most the maximum, so a larger G would be "
                                 "cut to the maximum")
        if self.initial_rto_s is not None:
            _set(self, "initial_rto_s",
                 v.duration("initial_rto_s", self.initial_rto_s, open_low=True))
        if self.fixed_rto_s is not None:
            _set(self, "fixed_rto_s", v.duration("fixed_rto_s", self.fixed_rto_s,
                                                 open_low=True))
            for k in ("min_rto_s", "initial_rto_s"):
                if getattr(self, k) is not None:
                    raise ParameterError(k, getattr(self, k), "does not apply with "
                                         f"fixed_rto_s = {self.fixed_rto_s} (a constant "
                                         "timeout replaces the estimator); leave it out")
            if self.fixed_rto_s > self.max_rto_s:
                raise ParameterError("fixed_rto_s", self.fixed_rto_s,
                                     f"must be <= max_rto_s = {self.max_rto_s} (the cap "
                                     "would shorten it)")
        elif self.initial_rto < self.min_rto:
            given = "" if self.initial_rto_s is not None else "(the default) "
            raise ParameterError("initial_rto_s", self.initial_rto,
                                 f"{given}must be >= min_rto_s = {self.min_rto}: the minimum "
                                 "applies to every timeout, the first one too")
        if self.initial_rto > self.max_rto_s and self.fixed_rto_s is None:
            raise ParameterError("initial_rto_s", self.initial_rto,
                                 f"must be <= max_rto_s = {self.max_rto_s}")
        _set(self, "backoff", v.boolean("backoff", self.backoff))
        if self.max_backoff is not None:
            _set(self, "max_backoff", v.integer("max_backoff", self.max_backoff, 1, 2**20))
            if not self.backoff:
                raise ParameterError("max_backoff", self.max_backoff, "applies to backoff "
                                     "only: with backoff=False every timeout waits one RTO; "
                                     "leave it out")
        _set(self, "rtt_sampling", v.choice("rtt_sampling", self.rtt_sampling,
                                            ["per_ack", "per_window"]))
        _set(self, "delayed_ack", v.boolean("delayed_ack", self.delayed_ack))
        for k, o in _variants.OPTIONS.items():
            _set(self, k, o.validate(getattr(self, k)))
        _set(self, "profile", v.choice("profile", self.profile, ["rfc", "ns2"]))
        _set(self, "rto_estimator", v.choice("rto_estimator", self.rto_estimator,
                                             ["rfc6298", "last_sample", "linux"]))
        if self.rto_estimator != "rfc6298" and (self.profile != "rfc"
                                                or self.fixed_rto_s is not None
                                                or self.rtt_sampling != "per_ack"):
            raise ParameterError("rto_estimator", self.rto_estimator,
                                 "is a rule of the rfc profile's estimator: it needs "
                                 "profile='rfc', rtt_sampling='per_ack' and no fixed_rto_s")
        options = {n: getattr(self, n) for n in _variants.OPTIONS}
        for k, o in _variants.OPTIONS.items():
            o.check_profile(options[k], self.profile)
            o.check_needs(options[k], options)
        for k, p in _variants.PARAMS.items():
            if getattr(self, k) is not None:
                _set(self, k, p.validate(getattr(self, k)))
        if self.tick_phase is not None:
            if self.profile != "ns2":
                raise ParameterError("tick_phase", self.tick_phase, "is the phase of ns-2's "
                                     "tick clock: it needs profile='ns2'")
            _set(self, "tick_phase", v.probability("tick_phase", self.tick_phase,
                                                   open_high=True))

    @property
    def min_rto(self) -> float:
        return self.MIN_RTO_DEFAULT if self.min_rto_s is None else self.min_rto_s

    @property
    def initial_rto(self) -> float:
        return self.INITIAL_RTO_DEFAULT if self.initial_rto_s is None else self.initial_rto_s

    @property
    def params(self) -> dict[str, Any]:
        """The plugin parameters given (not None), by name."""
        return {k: getattr(self, k) for k in _variants.PARAMS if getattr(self, k) is not None}

    def check_variant(self, variant: str) -> None:
        """What depends on the variant: the plugin parameters it takes (and their relations),
        and its own rules (Vegas's for the first duplicate ACKs)."""
        _variants.check_params(variant, self.params)
        info = _variants.variant(variant)
        why = info.refuses_limited_transmit
        if why is not None and self.limited_transmit:
            raise ParameterError("limited_transmit", self.limited_transmit, why)
        for k, o in _variants.OPTIONS.items():
            o.check_variant(getattr(self, k), variant)

    def engine(self) -> dict[str, Any]:
        return {
            "packet_size_bytes": self.packet_size_bytes, "ack_size_bytes": self.ack_size_bytes,
            "max_window": self.window, "initial_window": self.initial_window,
            "dupack_threshold": self.dupack_threshold, "min_rto_s": self.min_rto,
            "max_rto_s": self.max_rto_s, "initial_rto_s": self.initial_rto,
            "granularity_s": self.granularity_s, "fixed_rto_s": self.fixed_rto_s,
            "max_backoff": (self.max_backoff or 64) if self.backoff else 1,
            "rtt_sampling": self.rtt_sampling, "delayed_ack": self.delayed_ack,
            # The knobs here and the switches last: the engine's JSON as it was when each was
            # written by hand.
            "profile": self.profile, **self._options("tristate"),
            "params": self.params, "tick_phase": self.tick_phase,
            **({} if self.rto_estimator == "rfc6298" else {"rto_estimator": self.rto_estimator}),
            **self._options("switch"),
        }

    def _options(self, kind: str) -> dict[str, Any]:
        """The sender-wide options of this kind as the engine's JSON carries them."""
        return {k: x for o in _variants.OPTIONS.values() if o.kind == kind
                for k, x in o.engine(getattr(self, o.name)).items()}


def _tcp(x: Any, path: str) -> Tcp:
    return x if isinstance(x, Tcp) else Tcp.from_dict(x, path)


# ------------------------------------------------------------------------------------ flows
@record
class Bulk(_Data):
    """A persistent sender (FTP): always data to send."""

    KIND = "bulk"

    def engine(self) -> dict[str, Any]:
        return {"kind": "bulk"}


@record
class Transfer(_Data):
    """One finite transfer of ``bytes``; the flow reports its completion time."""

    KIND = "transfer"
    bytes: int

    def __post_init__(self) -> None:
        _set(self, "bytes", v.integer("bytes", self.bytes, 1, MAX_BYTES))

    def engine(self) -> dict[str, Any]:
        return {"kind": "transfer", "bytes": self.bytes}


_app = _tagged({"bulk": Bulk, "transfer": Transfer}, "application")


@record
class Flow(_Data):
    """A TCP flow from node ``src`` to node ``dst`` (the topology's default path when left
    out), or along explicit link paths ``forward``/``reverse`` (indices into the expanded
    links). ``count`` identical flows start ``stagger_s`` apart from ``start_s``; ``label``
    names them in reports."""

    variant: str = "newreno"
    tcp: Tcp = field(default_factory=Tcp)
    app: Bulk | Transfer = field(default_factory=Bulk)
    src: str | None = None
    dst: str | None = None
    forward: tuple[int, ...] | None = None
    reverse: tuple[int, ...] | None = None
    start_s: float = 0.0
    count: int = 1
    stagger_s: float = 0.01
    label: str | None = None

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "variant", v.choice("variant", self.variant, VARIANTS))
        _set(self, "tcp", _tcp(self.tcp, "tcp"))
        self.tcp.check_variant(self.variant)
        _set(self, "app", _app(self.app, "app"))
        for k in ("src", "dst", "label"):
            x = getattr(self, k)
            if x is not None and (not isinstance(x, str) or not x):
                raise ParameterError(k, x, "must be a non-empty name")
        if (self.forward is None) != (self.reverse is None):
            raise ParameterError("forward", self.forward, "give forward and reverse together")
        if self.forward is not None:
            if self.src is not None or self.dst is not None:
                raise ParameterError("forward", self.forward,
                                     "give either src/dst (routed) or forward/reverse paths")
            for k in ("forward", "reverse"):
                p = getattr(self, k)
                if isinstance(p, (str, bytes)) or not isinstance(p, Iterable):
                    raise ParameterError(k, p, "must be a list of link indices")
                p = tuple(v.integer(f"{k}[{i}]", x, 0, 10**9) for i, x in enumerate(p))
                if not p:
                    raise ParameterError(k, p, "must name at least one link")
                _set(self, k, p)
        _set(self, "start_s", v.duration("start_s", self.start_s))
        # 10,000 identical flows on one path: 65,535 took over 20 s to build and run for
        # half a simulated second (found by the fuzz test).
        _set(self, "count", v.integer("count", self.count, 1, 10_000))
        _set(self, "stagger_s", v.duration("stagger_s", self.stagger_s))

    def expand(self) -> list[Flow]:
        """The ``count`` flows this entry stands for, one each, started ``stagger_s`` apart."""
        if self.count == 1:
            return [self]
        return [dataclasses.replace(self, count=1, start_s=self.start_s + i * self.stagger_s,
                                    label=self.label if self.label is None
                                    else f"{self.label}{i + 1}")
                for i in range(self.count)]


Flow.NESTED = {"tcp": _tcp, "app": _app}


# ---------------------------------------------------------------------------------- traffic
@record
class FixedSize(_Data):
    KIND = "fixed"
    bytes: int

    def __post_init__(self) -> None:
        _set(self, "bytes", v.integer("bytes", self.bytes, 1, MAX_BYTES))

    def engine(self) -> dict[str, Any]:
        return {"kind": "fixed", "bytes": self.bytes}


@record
class ExpSize(_Data):
    KIND = "exp"
    mean_bytes: float

    def __post_init__(self) -> None:
        _set(self, "mean_bytes", v.in_range("mean_bytes", self.mean_bytes, 1, MAX_BYTES))

    def engine(self) -> dict[str, Any]:
        return {"kind": "exp", "mean_bytes": self.mean_bytes}


@record
class ParetoSize(_Data):
    """Pareto sizes of the given mean; ``shape`` > 1 for the mean to exist."""

    KIND = "pareto"
    mean_bytes: float
    shape: float = 1.5

    def __post_init__(self) -> None:
        _set(self, "mean_bytes", v.in_range("mean_bytes", self.mean_bytes, 1, MAX_BYTES))
        x = v.in_range("shape", self.shape, 0, 1000)
        if x <= 1:
            raise ParameterError("shape", self.shape, "must be > 1 (the mean is infinite "
                                 "otherwise)")
        _set(self, "shape", x)

    def engine(self) -> dict[str, Any]:
        return {"kind": "pareto", "mean_bytes": self.mean_bytes, "shape": self.shape}


def _size(x: Any, path: str) -> FixedSize | ExpSize | ParetoSize:
    if not isinstance(x, (Mapping, str, FixedSize, ExpSize, ParetoSize)):
        with v.where(path, {"bytes": ""}):
            return FixedSize(bytes=x)
    return _tagged({"fixed": FixedSize, "exp": ExpSize, "pareto": ParetoSize},
                   "size distribution")(x, path)


def _check_window(obj: Any) -> None:
    if obj.stop_s is not None:
        _set(obj, "stop_s", v.duration("stop_s", obj.stop_s))
        if obj.stop_s <= obj.start_s:
            raise ParameterError("stop_s", obj.stop_s, f"must be > start_s = {obj.start_s}")


def _endpoints(obj: Any) -> None:
    for k in ("src", "dst", "label"):
        x = getattr(obj, k)
        if x is not None and (not isinstance(x, str) or not x):
            raise ParameterError(k, x, "must be a non-empty name")


@record
class Cbr(_Data):
    """A UDP constant-bit-rate source as ns-2's ``Application/Traffic/CBR``:
    ``packet_size_bytes`` packets at ``rate_bps`` from ``start_s`` to ``stop_s`` (the end of
    the run if left out); ``random`` jitters each interval (ns-2's ``random_``)."""

    KIND = "cbr"
    rate_bps: float
    src: str | None = None
    dst: str | None = None
    packet_size_bytes: int = 1000
    random: bool = False
    start_s: float = 0.0
    stop_s: float | None = None
    label: str | None = None

    def __post_init__(self) -> None:
        _set(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        _set(self, "random", v.boolean("random", self.random))
        _set(self, "packet_size_bytes",
             v.integer("packet_size_bytes", self.packet_size_bytes, 1, 65535))
        _set(self, "start_s", v.duration("start_s", self.start_s))
        _check_window(self)
        _endpoints(self)
        if self.packet_size_bytes * 8 / self.rate_bps > v.MAX_TIME_S:
            raise ParameterError("rate_bps", self.rate_bps, "sends less than a packet in "
                                 f"{v.MAX_TIME_S:g} s")

    def engine(self) -> dict[str, Any]:
        return {"kind": "cbr", "src": self.src, "dst": self.dst, "rate_bps": self.rate_bps,
                "packet_size_bytes": self.packet_size_bytes, "random": self.random,
                "start_s": self.start_s, "stop_s": self.stop_s}


@record
class OnOff(_Data):
    """A UDP exponential on/off source as ns-2's ``Application/Traffic/Exponential``: at
    ``rate_bps`` during exponential on periods of mean ``on_s``, silent during exponential off
    periods of mean ``off_s``."""

    KIND = "onoff"
    rate_bps: float
    src: str | None = None
    dst: str | None = None
    packet_size_bytes: int = 1000
    on_s: float = 0.5
    off_s: float = 0.5
    start_s: float = 0.0
    stop_s: float | None = None
    label: str | None = None

    def __post_init__(self) -> None:
        _set(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        _set(self, "packet_size_bytes",
             v.integer("packet_size_bytes", self.packet_size_bytes, 1, 65535))
        for k in ("on_s", "off_s"):
            _set(self, k, v.duration(k, getattr(self, k), open_low=True))
        _set(self, "start_s", v.duration("start_s", self.start_s))
        _check_window(self)
        _endpoints(self)

    def engine(self) -> dict[str, Any]:
        return {"kind": "onoff", "src": self.src, "dst": self.dst, "rate_bps": self.rate_bps,
                "packet_size_bytes": self.packet_size_bytes, "on_s": self.on_s,
                "off_s": self.off_s, "start_s": self.start_s, "stop_s": self.stop_s}


@record
class Transfers(_Data):
    """Finite TCP transfers arriving as a Poisson process of ``arrival_rate_per_s``, sizes
    from ``size``; at most ``max_concurrent`` open at a time (arrivals beyond are refused and
    counted, as paper 002's 0-20 downloads per node; left out: no cap but the engine's,
    :data:`MAX_CONCURRENT`) and ``max_transfers`` arrivals in all."""

    KIND = "transfers"
    arrival_rate_per_s: float
    size: FixedSize | ExpSize | ParetoSize
    max_concurrent: int | None = None
    src: str | None = None
    dst: str | None = None
    max_transfers: int | None = None
    variant: str = "newreno"
    tcp: Tcp = field(default_factory=Tcp)
    start_s: float = 0.0
    stop_s: float | None = None
    label: str | None = None

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "arrival_rate_per_s",
             v.in_range("arrival_rate_per_s", self.arrival_rate_per_s, 0, 1e6))
        if self.arrival_rate_per_s <= 0:
            raise ParameterError("arrival_rate_per_s", self.arrival_rate_per_s,
                                 "must be > 0 arrivals per second")
        _set(self, "size", _size(self.size, "size"))
        if self.max_concurrent is not None:
            _set(self, "max_concurrent", v.integer("max_concurrent", self.max_concurrent, 1,
                                                   MAX_CONCURRENT))
        if self.max_transfers is not None:
            _set(self, "max_transfers", v.integer("max_transfers", self.max_transfers, 1, 10**12))
        _set(self, "variant", v.choice("variant", self.variant, VARIANTS))
        _set(self, "tcp", _tcp(self.tcp, "tcp"))
        self.tcp.check_variant(self.variant)
        _set(self, "start_s", v.duration("start_s", self.start_s))
        _check_window(self)
        _endpoints(self)

    def engine(self) -> dict[str, Any]:
        return {"kind": "transfers", "src": self.src, "dst": self.dst,
                "arrival_rate_per_s": self.arrival_rate_per_s, "size": self.size.engine(),
                "max_concurrent": self.max_concurrent or MAX_CONCURRENT,
                "max_transfers": self.max_transfers,
                "variant": _variants.engine_name(self.variant),
                "tcp": self.tcp.engine(), "start_s": self.start_s, "stop_s": self.stop_s}


Transfers.NESTED = {"size": _size, "tcp": _tcp}
Traffic = Cbr | OnOff | Transfers
TRAFFIC: dict[str, type] = {"cbr": Cbr, "onoff": OnOff, "transfers": Transfers}


def _traffic_spec(text: str, path: str) -> Traffic:
    from .spec import traffic_from_spec

    return traffic_from_spec(text, path)


traffic = _tagged(TRAFFIC, "traffic source", _traffic_spec)


# ------------------------------------------------------------------------------- topologies
@dataclass
class Net:
    """A topology expanded: its nodes, its directed links (each with the names the user gave
    its rate and channel, for errors), the default path's endpoints, and whether the engine's
    legacy form (explicit link paths, no nodes) expresses it."""

    nodes: list[str]
    links: list[Link]
    names: list[tuple[str, str]]
    default_src: str
    default_dst: str
    legacy: bool
    #: For ``--cross-traffic``: (src, dst) pairs that generated load runs between.
    cross_pairs: list[tuple[str, str]]

    @functools.cached_property
    def out_links(self) -> dict[str, list[tuple[int, str]]]:
        """Each node's outgoing (link index, far end), in index order: :func:`route`'s
        adjacency, built once (a dumbbell of thousands of senders routes a flow per pair)."""
        out: dict[str, list[tuple[int, str]]] = {}
        for i, lk in enumerate(self.links):
            out.setdefault(lk.src, []).append((i, lk.dst))
        return out


def _duplex(a: str, b: str, rate_bps: float, delay: Any, q: Any, fwd_channel: Any,
            rev_channel: Any) -> list[Link]:
    return [Link(rate_bps=rate_bps, delay=delay, queue=q, channel=fwd_channel, src=a, dst=b),
            Link(rate_bps=rate_bps, delay=delay, queue=q, channel=rev_channel, src=b, dst=a)]


@record
class SingleLink(_Data):
    """One link each way between S and D (simulate()'s default): ``rate_bps``, a two-way
    propagation delay ``rtt_s`` split evenly (or, with ``delay``, paper 001's semi-Markov
    process on the data direction and none on the ACK direction), the ``queue`` in both
    directions, ``channel`` on the data direction, ``ack_channel`` on the ACK direction."""

    KIND = "single"
    rate_bps: float = 2e6
    rtt_s: float | None = None          # 0.02 s, unless a semi-Markov delay replaces it
    delay: SemiMarkovDelay | None = None
    queue: DropTail | Red = field(default_factory=DropTail)
    channel: Channel = field(default_factory=NoChannel)
    ack_channel: Channel = field(default_factory=NoChannel)
    protect_retransmissions: bool = False

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "rate_bps", v.positive("rate_bps", self.rate_bps))
        if self.delay is not None:
            d = _delay(self.delay, "delay")
            if not isinstance(d, SemiMarkovDelay):
                raise ParameterError("delay", self.delay, "must be a semi-Markov delay "
                                     "(rtt_s, H, excess_mean_s); a fixed one is rtt_s")
            _set(self, "delay", d)
            if self.rtt_s is not None:
                raise ParameterError("rtt_s", self.rtt_s, "give either rtt_s or delay: the "
                                     "semi-Markov delay replaces the fixed round trip")
        else:
            _set(self, "rtt_s", v.duration("rtt_s", 0.02 if self.rtt_s is None
                                           else self.rtt_s))
        for k, parse in (("queue", queue), ("channel", channel), ("ack_channel", channel)):
            _set(self, k, parse(getattr(self, k), k))
        _set(self, "protect_retransmissions",
             v.boolean("protect_retransmissions", self.protect_retransmissions))

    def chain(self) -> Chain:
        return Chain(hops=(Hop(rate_bps=self.rate_bps, delay_s=(self.rtt_s or 0.0) / 2,
                               queue=self.queue,
                               channel=self.channel),),
                     ack_channel=self.ack_channel, delay=self.delay,
                     protect_retransmissions=self.protect_retransmissions)

    def expand(self) -> Net:
        net = self.chain().expand()
        net.names = [("rate_bps", "channel"), ("rate_bps", "ack_channel")]
        return net

    def overrides(self) -> dict[str, str]:
        return {"rate": "rate_bps", "rtt": "rtt_s", "delay": "delay", "queue": "queue",
                "channel": "channel", "ack_channel": "ack_channel",
                "protect_retransmissions": "protect_retransmissions"}


SingleLink.NESTED = {"delay": _delay, "queue": queue, "channel": channel,
                     "ack_channel": channel}


@record
class Chain(_Data):
    """A chain of hops S -> N1 -> ... -> D, each used in both directions (simulate()'s
    ``hops``). ACKs return over the same hops; ``ack_channel`` sits on the hop leaving D.
    ``delay``: paper 001's semi-Markov process on the first data hop (the ACK direction then
    has no propagation delay)."""

    KIND = "chain"
    hops: tuple[Hop, ...]
    ack_channel: Channel = field(default_factory=NoChannel)
    delay: SemiMarkovDelay | None = None
    protect_retransmissions: bool = False

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        hops = self.hops
        if isinstance(hops, (str, bytes, Mapping)) or not isinstance(hops, Iterable):
            raise ParameterError("hops", hops, "must be a non-empty list of hops")
        hops = tuple(hops)
        if not hops:
            raise ParameterError("hops", hops, "must be a non-empty list of hops")
        out = []
        for i, h in enumerate(hops):
            out.append(h if isinstance(h, Hop) else Hop.from_dict(h, f"hops[{i}]"))
        _set(self, "hops", tuple(out))
        _set(self, "ack_channel", channel(self.ack_channel, "ack_channel"))
        if self.delay is not None:
            d = _delay(self.delay, "delay")
            if not isinstance(d, SemiMarkovDelay):
                raise ParameterError("delay", self.delay, "must be a semi-Markov delay")
            _set(self, "delay", d)
            for i, h in enumerate(self.hops):
                if h.delay_s:
                    raise ParameterError(f"hops[{i}].delay_s", h.delay_s, "must be 0 with a "
                                         "semi-Markov delay, which gives the whole round "
                                         "trip (a hop's delay would be ignored)")
        _set(self, "protect_retransmissions",
             v.boolean("protect_retransmissions", self.protect_retransmissions))

    def node_names(self) -> list[str]:
        n = len(self.hops)
        return ["S", *(f"N{i}" for i in range(1, n)), "D"]

    def expand(self) -> Net:
        nodes = self.node_names()
        n = len(self.hops)
        if self.delay is not None:
            fwd_d: list[Any] = [self.delay] + [FixedDelay(0.0)] * (n - 1)
            rev_d: list[Any] = [FixedDelay(0.0)] * n
        else:
            fwd_d = rev_d = [FixedDelay(h.delay_s) for h in self.hops]
        links = [Link(rate_bps=h.rate_bps, delay=d, queue=h.queue, channel=h.channel,
                      protect_retransmissions=self.protect_retransmissions,
                      src=nodes[i], dst=nodes[i + 1])
                 for i, (h, d) in enumerate(zip(self.hops, fwd_d, strict=True))]
        names = [(f"hops[{i}].rate_bps", f"hops[{i}].channel") for i in range(n)]
        for k in range(n):   # ACKs cross the hops backwards, the ACK channel on the first
            i = n - 1 - k
            h = self.hops[i]
            links.append(Link(rate_bps=h.rate_bps, delay=rev_d[i], queue=h.queue,
                              channel=self.ack_channel if k == 0 else NoChannel(),
                              src=nodes[i + 1], dst=nodes[i]))
            names.append((f"hops[{i}].rate_bps", "ack_channel" if k == 0 else ""))
        return Net(nodes=nodes, links=links, names=names, default_src="S", default_dst="D",
                   legacy=True, cross_pairs=[("S", "D")])

    def overrides(self) -> dict[str, str]:
        return {"delay": "delay", "ack_channel": "ack_channel",
                "protect_retransmissions": "protect_retransmissions"}


Chain.NESTED = {"ack_channel": channel, "delay": _delay}


@record
class TwoHop(_Data):
    """Paper 003 Fig. 1: S -(sn_rate_bps, sn_delay_s)- N -(nd_rate_bps, nd_delay_s)- D, the
    N-D hop wireless: ``channel`` on N -> D only, ``ack_channel`` on D -> N. ``queue`` on every
    link (paper 003 sizes queues to the bandwidth-delay product). Cross traffic goes S -> N,
    over the wired hop (paper 003 Fig. 2's wired cross traffic)."""

    KIND = "two-hop"
    sn_rate_bps: float = 10e6
    sn_delay_s: float = 0.05
    nd_rate_bps: float = 10e6
    nd_delay_s: float = 1e-5
    queue: DropTail | Red = field(default_factory=lambda: DropTail(84))
    channel: Channel = field(default_factory=NoChannel)
    ack_channel: Channel = field(default_factory=NoChannel)

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        for k in ("sn_rate_bps", "nd_rate_bps"):
            _set(self, k, v.positive(k, getattr(self, k)))
        for k in ("sn_delay_s", "nd_delay_s"):
            _set(self, k, v.duration(k, getattr(self, k)))
        for k, parse in (("queue", queue), ("channel", channel), ("ack_channel", channel)):
            _set(self, k, parse(getattr(self, k), k))

    def expand(self) -> Net:
        q = self.queue
        links = [*_duplex("S", "N", self.sn_rate_bps, FixedDelay(self.sn_delay_s), q,
                          NoChannel(), NoChannel()),
                 *_duplex("N", "D", self.nd_rate_bps, FixedDelay(self.nd_delay_s), q,
                          self.channel, self.ack_channel)]
        names = [("sn_rate_bps", ""), ("sn_rate_bps", ""), ("nd_rate_bps", "channel"),
                 ("nd_rate_bps", "ack_channel")]
        return Net(nodes=["S", "N", "D"], links=links, names=names, default_src="S",
                   default_dst="D", legacy=False, cross_pairs=[("S", "N")])

    def overrides(self) -> dict[str, str]:
        return {"queue": "queue", "channel": "channel", "ack_channel": "ack_channel"}


TwoHop.NESTED = {"queue": queue, "channel": channel, "ack_channel": channel}


@record
class Dumbbell(_Data):
    """Paper 002 Scenario II (Fig. 8): senders A1..An -> B -> C -> D1..Dn. The bottleneck B-C
    (``bottleneck_rate_bps``, ``bottleneck_delay_s``, ``queue`` and ``channel`` on B -> C);
    access links A_i-B and C-D_i of ``access_rate_bps`` with ``access_queue``, the senders in
    ``len(access_delays_s)`` equal consecutive groups, group g's access links (both sides)
    with one-way delay ``access_delays_s[g]``. The default path is A1 -> D1; cross traffic
    runs A_i -> D_i for every other i."""

    KIND = "dumbbell"
    senders: int = 30
    access_rate_bps: float = 90e6
    access_delays_s: tuple[float, ...] = (0.01, 0.03, 0.05)
    access_queue: DropTail | Red = field(default_factory=DropTail)
    bottleneck_rate_bps: float = 15e6
    bottleneck_delay_s: float = 0.1
    queue: DropTail | Red = field(default_factory=lambda: DropTail(150))
    channel: Channel = field(default_factory=NoChannel)

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "senders", v.integer("senders", self.senders, 1, 10_000))
        for k in ("access_rate_bps", "bottleneck_rate_bps"):
            _set(self, k, v.positive(k, getattr(self, k)))
        d = self.access_delays_s
        if isinstance(d, (str, bytes)) or not isinstance(d, Iterable):
            d = (d,)
        d = tuple(v.duration(f"access_delays_s[{i}]", x) for i, x in enumerate(d))
        if not d or self.senders % len(d):
            raise ParameterError("access_delays_s", self.access_delays_s,
                                 f"must give one delay per group, the {self.senders} senders "
                                 "split into equal groups")
        _set(self, "access_delays_s", d)
        _set(self, "bottleneck_delay_s", v.duration("bottleneck_delay_s",
                                                    self.bottleneck_delay_s))
        for k, parse in (("access_queue", queue), ("queue", queue), ("channel", channel)):
            _set(self, k, parse(getattr(self, k), k))

    def expand(self) -> Net:
        n = self.senders
        per_group = n // len(self.access_delays_s)
        nodes = [f"A{i}" for i in range(1, n + 1)] + ["B", "C"] + [f"D{i}"
                                                                    for i in range(1, n + 1)]
        links: list[Link] = []
        names: list[tuple[str, str]] = []
        for i in range(1, n + 1):
            d = FixedDelay(self.access_delays_s[(i - 1) // per_group])
            links += _duplex(f"A{i}", "B", self.access_rate_bps, d, self.access_queue,
                             NoChannel(), NoChannel())
            names += [("access_rate_bps", "")] * 2
        links += _duplex("B", "C", self.bottleneck_rate_bps, FixedDelay(self.bottleneck_delay_s),
                         self.queue, self.channel, NoChannel())
        names += [("bottleneck_rate_bps", "channel"), ("bottleneck_rate_bps", "")]
        for i in range(1, n + 1):
            d = FixedDelay(self.access_delays_s[(i - 1) // per_group])
            links += _duplex("C", f"D{i}", self.access_rate_bps, d, self.access_queue,
                             NoChannel(), NoChannel())
            names += [("access_rate_bps", "")] * 2
        return Net(nodes=nodes, links=links, names=names, default_src="A1", default_dst="D1",
                   legacy=False, cross_pairs=[(f"A{i}", f"D{i}") for i in range(2, n + 1)])

    def overrides(self) -> dict[str, str]:
        return {"queue": "queue", "channel": "channel"}


Dumbbell.NESTED = {"access_queue": queue, "queue": queue, "channel": channel}


@record
class Network(_Data):
    """Nodes and directed links listed one by one (each link naming ``src`` and ``dst``).
    Flows and traffic are routed statically over the fewest hops, the lowest link index
    breaking ties (as the engine routes)."""

    KIND = "network"
    nodes: tuple[str, ...]
    links: tuple[Link, ...]

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        nodes = self.nodes
        if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
            raise ParameterError("nodes", nodes, "must be a list of node names")
        nodes = tuple(nodes)
        if len(nodes) < 2:
            raise ParameterError("nodes", nodes, "must name at least two nodes")
        for i, n in enumerate(nodes):
            if not isinstance(n, str) or not n:
                raise ParameterError(f"nodes[{i}]", n, "must be a non-empty name")
        dup = next((n for i, n in enumerate(nodes) if n in nodes[:i]), None)
        if dup is not None:
            raise ParameterError("nodes", nodes, f"names {dup!r} twice")
        _set(self, "nodes", nodes)
        links = self.links
        if isinstance(links, (str, bytes, Mapping)) or not isinstance(links, Iterable):
            raise ParameterError("links", links, "must be a list of links")
        out = []
        for i, lk in enumerate(links):
            lk = lk if isinstance(lk, Link) else Link.from_dict(lk, f"links[{i}]")
            for k in ("src", "dst"):
                x = getattr(lk, k)
                if x not in nodes:
                    raise ParameterError(f"links[{i}].{k}", x, "must be one of the nodes "
                                         + ", ".join(nodes))
            if lk.src == lk.dst:
                raise ParameterError(f"links[{i}].dst", lk.dst, "must differ from src")
            out.append(lk)
        if not out:
            raise ParameterError("links", links, "must list at least one link")
        _set(self, "links", tuple(out))

    def expand(self) -> Net:
        names = [(f"links[{i}].rate_bps", f"links[{i}].channel") for i in range(len(self.links))]
        return Net(nodes=list(self.nodes), links=list(self.links), names=names,
                   default_src=self.nodes[0], default_dst=self.nodes[-1], legacy=False,
                   cross_pairs=[(self.nodes[0], self.nodes[-1])])

    def overrides(self) -> dict[str, str]:
        return {}


def _links(x: Any, path: str) -> tuple[Link, ...]:
    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise ParameterError(path, x, "must be a list of links")
    return tuple(lk if isinstance(lk, Link) else Link.from_dict(lk, f"{path}[{i}]")
                 for i, lk in enumerate(x))


def _hops(x: Any, path: str) -> tuple[Hop, ...]:
    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise ParameterError(path, x, "must be a list of hops")
    return tuple(h if isinstance(h, Hop) else Hop.from_dict(h, f"{path}[{i}]")
                 for i, h in enumerate(x))


Network.NESTED = {"links": _links}
Chain.NESTED = {**Chain.NESTED, "hops": _hops}

Topology = SingleLink | Chain | TwoHop | Dumbbell | Network
TOPOLOGIES: dict[str, type] = {"single": SingleLink, "chain": Chain, "two-hop": TwoHop,
                               "dumbbell": Dumbbell, "network": Network}
topology = _tagged(TOPOLOGIES, "topology")


def route(net: Net, src: str, dst: str) -> list[int] | None:
    """Link indices from ``src`` to ``dst`` over the fewest hops, the lowest link index
    breaking ties (breadth first, links tried in index order), or None."""
    if src == dst:
        return None
    out = net.out_links
    prev: dict[str, tuple[str, int]] = {}
    frontier = [src]
    seen = {src}
    while frontier and dst not in seen:
        nxt = []
        for node in frontier:
            for i, to in out.get(node, ()):
                if to not in seen:
                    seen.add(to)
                    prev[to] = (node, i)
                    nxt.append(to)
        frontier = nxt
    if dst not in prev:
        return None
    path = []
    node = dst
    while node != src:
        node, i = prev[node]
        path.append(i)
    return path[::-1]


# ---------------------------------------------------------------------------------- tracing
@record
class QueueTrace(_Data):
    """The queue of ``link`` (an index, or ``"B->C"``) traced from ``from_s`` to ``to_s``:
    time, length, RED average, arrivals and drops with their flow."""

    link: int | str
    from_s: float = 0.0
    to_s: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.link, str):
            a, sep, b = self.link.partition("->")
            if not sep or not a.strip() or not b.strip():
                raise ParameterError("link", self.link, "must be a link index or 'A->B'")
            _set(self, "link", f"{a.strip()}->{b.strip()}")
        else:
            _set(self, "link", v.integer("link", self.link, 0, 10**9))
        _set(self, "from_s", v.duration("from_s", self.from_s))
        _set(self, "to_s", v.duration("to_s", self.to_s))
        if self.to_s <= self.from_s:
            raise ParameterError("to_s", self.to_s, f"must be > from_s = {self.from_s}")


@record
class Tracing(_Data):
    """Optional traces: every data transmission (``sends``), the window whenever it changes
    (``window``), every state a link's semi-Markov delay enters (``delay``: per link, in its
    report's ``delay_trace``), a queue over a bounded time window (``queue``)."""

    sends: bool = False
    window: bool = False
    delay: bool = False
    queue: QueueTrace | None = None

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {
        "queue": lambda x, p: x if isinstance(x, QueueTrace) else QueueTrace.from_dict(x, p)}

    def __post_init__(self) -> None:
        _set(self, "sends", v.boolean("sends", self.sends))
        _set(self, "window", v.boolean("window", self.window))
        _set(self, "delay", v.boolean("delay", self.delay))


# --------------------------------------------------------------------------------- scenario
def _seq(x: Any, path: str, parse: Callable[[Any, str], Any], what: str) -> tuple[Any, ...]:
    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise ParameterError(path, x, f"must be a list of {what}")
    return tuple(parse(y, f"{path}[{i}]") for i, y in enumerate(x))


def _flow(x: Any, path: str) -> Flow:
    return x if isinstance(x, Flow) else Flow.from_dict(x, path)


@record
class Scenario(_Data):
    """A whole run: topology, flows, traffic, seed, duration, traces. Built, it is valid:
    every field in its range, every flow and source routed, every duration above the engine's
    floors (a packet takes at least the clock's 1 ns to transmit; a timer lasts at least one
    packet time of its path's slowest link; a two-state channel's periods last at least one
    packet time of their link)."""

    topology: Topology = field(default_factory=SingleLink)
    flows: tuple[Flow, ...] = field(default_factory=lambda: (Flow(),))
    traffic: tuple[Traffic, ...] = ()
    seed: int = 1
    duration_s: float = 100.0
    trace: Tracing = field(default_factory=Tracing)

    NESTED: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __post_init__(self) -> None:
        _set(self, "topology", topology(self.topology, "topology"))
        _set(self, "flows", _seq(self.flows, "flows", _flow, "flows"))
        if not self.flows:
            raise ParameterError("flows", self.flows, "must list at least one flow")
        _set(self, "traffic", _seq(self.traffic, "traffic", traffic, "traffic sources"))
        _set(self, "seed", v.integer("seed", self.seed, 0, 2**64 - 1))
        _set(self, "duration_s", v.duration("duration_s", self.duration_s, open_low=True))
        if not isinstance(self.trace, Tracing):
            _set(self, "trace", Tracing.from_dict(self.trace, "trace"))
        net = self.topology.expand()
        _set(self, "_net", net)
        self._check_network(net)

    # -- cross-object checks
    def _check_network(self, net: Net) -> None:
        all_flows = self.all_flows()
        sizes = [f.tcp.packet_size_bytes for f in all_flows]
        sizes += [t.packet_size_bytes if not isinstance(t, Transfers) else t.tcp.packet_size_bytes
                  for t in self.traffic]
        smallest, largest = min(sizes), max(sizes)
        for i, f in enumerate(self.flows):
            last = f.start_s + (f.count - 1) * f.stagger_s
            if last >= self.duration_s:
                k, x = (f"flows[{i}].start_s", f.start_s) if f.count == 1 else (
                    f"flows[{i}].count", f.count)
                raise ParameterError(k, x, f"starts a flow at {last:g} s, not before "
                                     f"duration_s = {self.duration_s:g}: it would start after "
                                     "the run ends")
        for i, t in enumerate(self.traffic):
            if t.start_s >= self.duration_s:
                raise ParameterError(f"traffic[{i}].start_s", t.start_s,
                                     f"must be < duration_s = {self.duration_s:g}: the source "
                                     "would start after the run ends")
        # A packet takes at least one tick of the engine's clock: below, transmissions round to
        # zero time and a flow can loop forever at one instant (issue 13's zero-RTT livelock).
        for lk, (rate_name, channel_name) in zip(net.links, net.names, strict=True):
            limit = float(smallest * 8 * TICKS_PER_S)   # bits per tick: 8e9 x bytes, exactly
            if lk.rate_bps > limit:
                raise ParameterError(
                    rate_name, lk.rate_bps,
                    f"must be <= {limit:.6g} bit/s: a {smallest}-byte packet must take at "
                    "least the engine's clock resolution (1 ns) to transmit")
            if lk.rate_bps < 1.0:
                raise ParameterError(rate_name, lk.rate_bps, "must be >= 1 bit/s")
            if not isinstance(lk.channel, NoChannel) and any(
                    f.tcp.rto_estimator == "last_sample" for f in all_flows):
                # Its samples are timed from each segment's first transmission (the timestamp
                # echo of a path that loses nothing): a lost original would be mistimed.
                raise ParameterError(channel_name, lk.channel, "must be 'none' with "
                                     "rto_estimator='last_sample' (paper 001's lossless timer)")
            if isinstance(lk.channel, FlowDrops) and lk.channel.flow >= len(all_flows):
                raise ParameterError(f"{channel_name}.flow", lk.channel.flow,
                                     f"must name one of the {len(all_flows)} flows (0-based)")
            q = lk.queue
            # the link's own fields are named after its rate's place (links[2].rate_bps)
            place = rate_name.rpartition(".")[0]
            place = f"{place}." if place and place.startswith("links") else ""
            if isinstance(q, DropTail) and q.bytes is not None and q.bytes < largest:
                raise ParameterError(
                    f"{place}queue.bytes", q.bytes,
                    f"must be >= {largest} B, the largest packet: a packet is admitted only "
                    "if the bytes waiting and its own fit, so a smaller limit drops every "
                    "packet that size (for no waiting room, give packets=0)")
            if isinstance(lk.delay, SemiMarkovDelay):
                pt = smallest * 8 / lk.rate_bps
                for i, (t, x) in enumerate(zip(lk.delay.rtt_s, lk.delay.excess_mean_s,
                                               strict=True)):
                    if t + x < pt:
                        raise ParameterError(
                            f"{place}delay.rtt_s[{i}]", t,
                            f"with excess_mean_s[{i}] = {x:g}, a state lasts {t + x:.6g} s "
                            f"on average: it must be >= {pt:.6g} s, one packet time of its "
                            "link (packets see the delay only as they start, and the engine "
                            "walks every state in between)")
            if isinstance(lk.channel, TwoState):
                pt = smallest * 8 / lk.rate_bps
                for k in ("good_s", "bad_s"):
                    if getattr(lk.channel, k) < pt:
                        raise ParameterError(
                            f"{channel_name}.{k}", getattr(lk.channel, k),
                            f"must be >= {pt:.6g} s, one packet time of its link: the engine "
                            "walks the channel's periods one by one, and a period shorter "
                            "than a packet is seen by no packet")
        self._check_endpoints(net)

    def all_flows(self) -> list[Flow]:
        return [g for f in self.flows for g in f.expand()]

    def _check_endpoints(self, net: Net) -> None:
        n_links = len(net.links)
        for i, f in enumerate(self.all_flows()):
            where = f"flows[{i}]"
            if f.forward is not None:
                for k in ("forward", "reverse"):
                    bad = next((x for x in getattr(f, k) if x >= n_links), None)
                    if bad is not None:
                        raise ParameterError(f"{where}.{k}", getattr(f, k),
                                             f"names link {bad}; there are {n_links}")
                fwd, rev = list(f.forward), list(f.reverse or ())
                both = sorted(set(fwd) & set(rev))
                if both:
                    raise ParameterError(f"{where}.reverse", f.reverse,
                                         f"sends the ACKs over link {both[0]}, which carries "
                                         "the data: a link has one direction, so the ACKs "
                                         "need the links back")
            else:
                src, dst = f.src or net.default_src, f.dst or net.default_dst
                fwd, rev = self._route(net, where, src, dst), self._route(net, where, dst, src)
            self._check_timers(net, where, f.tcp, fwd)
            del rev
        for i, t in enumerate(self.traffic):
            src, dst = t.src or net.default_src, t.dst or net.default_dst
            path = self._route(net, f"traffic[{i}]", src, dst)
            if isinstance(t, Transfers):
                self._route(net, f"traffic[{i}]", dst, src)
                self._check_timers(net, f"traffic[{i}]", t.tcp, path)

    @staticmethod
    def _route(net: Net, where: str, src: str, dst: str) -> list[int]:
        for k, node in (("src", src), ("dst", dst)):
            if node not in net.nodes:
                raise ParameterError(f"{where}.{k}", node,
                                     "must be one of the nodes " + ", ".join(net.nodes))
        if src == dst:
            raise ParameterError(f"{where}.dst", dst, "must differ from src")
        path = route(net, src, dst)
        if path is None:
            raise ParameterError(f"{where}.dst", dst, f"cannot be reached from {src}")
        return path

    @staticmethod
    def _check_timers(net: Net, where: str, tcp: Tcp, path: list[int]) -> None:
        # A timer shorter than one packet's transmission on the path's slowest link expires
        # before the segment it guards can have left it; with Karn's rule it then never gets
        # a sample and fires every few nanoseconds (issue 13: 156 million timeouts in 10 s).
        slow = min(path, key=lambda i: net.links[i].rate_bps)
        slowest = net.links[slow].rate_bps
        pt = tcp.packet_size_bytes * 8 / slowest
        defaults = {f.name: f.default for f in fields(Tcp)}
        for k in ("fixed_rto_s", "initial_rto_s", "max_rto_s"):
            x = getattr(tcp, k)
            if x is None and k == "initial_rto_s" and tcp.fixed_rto_s is None:
                x = tcp.initial_rto
            if x is not None and x < pt and getattr(tcp, k) == defaults[k]:
                # The timer is the default one: the rate is what was chosen (issue 24:
                # --rate 1bps blamed initial_rto_s).
                raise ParameterError(
                    net.names[slow][0], slowest,
                    f"too slow for the TCP timers: a {tcp.packet_size_bytes}-byte packet "
                    f"takes {pt:.6g} s on this link, longer than {k} = {x:g} s (the default), "
                    "and a timer shorter than one transmission expires before its segment "
                    "can leave; raise the rate or lengthen the timers")
            if x is not None and x < pt:
                raise ParameterError(
                    f"{where}.tcp.{k}" if where.startswith("traffic") else k, x,
                    f"must be >= {pt:.6g} s, one packet's transmission time on the path's "
                    "slowest link: a shorter timer expires before its segment can leave")

    # -- the engine's form
    @property
    def net(self) -> Net:
        return self._net  # type: ignore[attr-defined]

    def engine(self, seed: int | None = None) -> dict[str, Any]:
        """The engine's JSON scenario (a dict), for this scenario's seed or ``seed``."""
        net = self.net
        flows = self.all_flows()
        legacy = net.legacy and not self.traffic and (
            self.trace.queue is None or isinstance(self.trace.queue.link, int))
        if seed is not None:
            seed = v.integer("seed", seed, 0, 2**64 - 1)
        out: dict[str, Any] = {"seed": self.seed if seed is None else seed,
                               "duration_s": self.duration_s}
        if not legacy:
            out["nodes"] = list(net.nodes)
        out["links"] = [lk.engine(named=not legacy) for lk in net.links]
        resolve_ns2_seeds(out)
        out["flows"] = [self._flow_engine(net, f, legacy) for f in flows]
        if self.traffic:
            out["traffic"] = [self._traffic_engine(net, t) for t in self.traffic]
        trace: dict[str, Any] = {"sends": self.trace.sends, "window": self.trace.window}
        if self.trace.delay:
            trace["delay"] = True
        if self.trace.queue is not None:
            q = self.trace.queue
            trace["queue"] = {"link": self._link_index(net, q.link), "from_s": q.from_s,
                              "to_s": q.to_s}
        out["trace"] = trace
        return out

    @staticmethod
    def _link_index(net: Net, link: int | str) -> int:
        if isinstance(link, int):
            if link >= len(net.links):
                raise ParameterError("trace.queue.link", link,
                                     f"must be < {len(net.links)}, the number of links")
            return link
        a, _, b = link.partition("->")
        for i, lk in enumerate(net.links):
            if lk.src == a and lk.dst == b:
                return i
        raise ParameterError("trace.queue.link", link, "names no link of the topology")

    @staticmethod
    def _flow_engine(net: Net, f: Flow, legacy: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": _variants.engine_name(f.variant)}
        src, dst = f.src or net.default_src, f.dst or net.default_dst
        if f.forward is not None:
            out.update({"forward": list(f.forward), "reverse": list(f.reverse or ())})
        elif legacy:
            out.update({"forward": route(net, src, dst), "reverse": route(net, dst, src)})
        else:
            out.update({"src": src, "dst": dst})
        out.update({"tcp": f.tcp.engine(), "app": f.app.engine()})
        if f.start_s:
            out["start_s"] = f.start_s
        return out

    @staticmethod
    def _traffic_engine(net: Net, t: Traffic) -> dict[str, Any]:
        out = t.engine()
        out["src"] = t.src or net.default_src
        out["dst"] = t.dst or net.default_dst
        return out

    # -- labels for reports
    def flow_labels(self) -> list[str]:
        out = []
        for i, f in enumerate(self.all_flows()):
            out.append(f.label if f.label is not None else f"{f.variant}{i + 1}")
        return out

    def traffic_labels(self) -> list[str]:
        return [t.label or f"{t.KIND}{i + 1}" for i, t in enumerate(self.traffic)]

    # -- plain data and TOML
    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Scenario:
        if not isinstance(data, Mapping):
            raise ParameterError(path or "scenario", data, "must be a table")
        data = dict(data)
        tcp_defaults = data.pop("tcp", None)
        if tcp_defaults is not None:
            if not isinstance(tcp_defaults, Mapping):
                raise ParameterError("tcp", tcp_defaults, "must be a table of TCP settings")
            Tcp.from_dict(tcp_defaults, "tcp")   # its errors named tcp.*

            def with_tcp(entries: Any, kinds: tuple[str, ...] | None) -> Any:
                if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries,
                                                                                 Iterable):
                    return entries
                out = []
                for e in entries:
                    if isinstance(e, Mapping) and (kinds is None or e.get("kind") in kinds):
                        own = e.get("tcp", {})
                        if isinstance(own, Mapping):
                            e = {**e, "tcp": {**tcp_defaults, **own}}
                    out.append(e)
                return out

            if "flows" in data:
                data["flows"] = with_tcp(data["flows"], None)
            else:
                data["flows"] = [{"tcp": dict(tcp_defaults)}]
            if "traffic" in data:
                data["traffic"] = with_tcp(data["traffic"], ("transfers",))
        return super().from_dict(data, path)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.seed != 1:
            out["seed"] = self.seed
        out["duration_s"] = self.duration_s
        out["topology"] = self.topology.to_dict()
        tcps = [f.tcp for f in self.flows] + [t.tcp for t in self.traffic
                                               if isinstance(t, Transfers)]
        shared = tcps[0] if all(t == tcps[0] for t in tcps) else None
        if shared is not None and shared != Tcp():
            out["tcp"] = shared.to_dict()
        flows = []
        for f in self.flows:
            d = f.to_dict()
            if shared is not None:
                d.pop("tcp", None)
            flows.append(d)
        out["flows"] = flows
        if self.traffic:
            tr = []
            for t in self.traffic:
                d = t.to_dict()
                if shared is not None:
                    d.pop("tcp", None)
                tr.append(d)
            out["traffic"] = tr
        if self.trace != Tracing():
            out["trace"] = self.trace.to_dict()
        return out

    def to_toml(self, comment: str = "") -> str:
        from .scenario_toml import dumps

        return dumps(self.to_dict(), comment)

    @classmethod
    def from_toml(cls, text: str, *, base_dir: str | Path | None = None) -> Scenario:
        """A scenario from TOML text; trace files named relative to ``base_dir``."""
        from .scenario_toml import loads

        data = loads(text)
        if base_dir is not None:
            data = _rebase_files(data, Path(base_dir))
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """A scenario from a TOML file (trace files relative to the file's folder)."""
        p = Path(path).expanduser()
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ParameterError("scenario", str(path), f"must be a readable TOML file ({e})"
                                 ) from None
        from .scenario_toml import loads

        if not loads(text):
            # An empty file would run the default scenario as if it were this one.
            raise ParameterError("scenario", str(path), "is empty: a scenario file sets at "
                                 "least its topology or flows (see examples/scenarios/)")
        return cls.from_toml(text, base_dir=p.parent)

    def save(self, path: str | Path, comment: str = "") -> None:
        """Write the scenario as TOML to ``path`` (a directory or an unwritable place is a
        :class:`ParameterError` naming ``path``)."""
        if not isinstance(path, (str, Path)) or not str(path):
            raise ParameterError("path", path, "must be the path of a file to write")
        p = Path(path).expanduser()
        if p.is_dir():
            raise ParameterError("path", str(path), "is a directory; give a file name")
        text = self.to_toml(comment)
        try:
            p.write_text(text, encoding="utf-8")
        except OSError as e:
            raise ParameterError("path", str(path), f"cannot be written ({e.strerror or e})"
                                 ) from None

    def replace(self, **changes: Any) -> Scenario:
        """A copy with some fields changed (validated as a new scenario)."""
        for k, x in changes.items():
            if k not in {f.name for f in fields(self)}:  # type: ignore[arg-type]
                raise _unknown_field(type(self), k, x)
        return dataclasses.replace(self, **changes)


Scenario.NESTED = {"topology": topology,
                   "flows": lambda x, p: _seq(x, p, _flow, "flows"),
                   "traffic": lambda x, p: _seq(x, p, traffic, "traffic sources"),
                   "trace": lambda x, p: x if isinstance(x, Tracing) else Tracing.from_dict(x, p)}


def _rebase_files(data: Any, base: Path) -> Any:
    """Trace files in plain data, made relative to ``base`` (a TOML file's folder)."""
    if isinstance(data, Mapping):
        out = {k: _rebase_files(x, base) for k, x in data.items()}
        if out.get("kind") == "trace" and isinstance(out.get("file"), str):
            f = Path(out["file"]).expanduser()
            out["file"] = str(f if f.is_absolute() else base / f)
        return out
    if isinstance(data, list):
        return [_rebase_files(x, base) for x in data]
    if isinstance(data, str) and data.strip().startswith("trace:"):
        kind, _, rest = data.partition(":")
        items = []
        for item in rest.split(","):
            k, eq, val = item.partition("=")
            if k.strip() == "file" and eq:
                f = Path(val.strip()).expanduser()
                item = f"file={f if f.is_absolute() else base / f}"
            items.append(item)
        return kind + ":" + ",".join(items)
    return data


# --------------------------------------------------------------------------------- builders
def single_link(**kw: Any) -> SingleLink:
    """:class:`SingleLink` (simulate()'s default path)."""
    return SingleLink(**kw)


def two_hop(**kw: Any) -> TwoHop:
    """:class:`TwoHop`, paper 003 Fig. 1's wired + wireless path."""
    return TwoHop(**kw)


def dumbbell(**kw: Any) -> Dumbbell:
    """:class:`Dumbbell`, paper 002 Scenario II's network."""
    return Dumbbell(**kw)


def bdp_packets(rate_bps: float, rtt_s: float, packet_size_bytes: int) -> int:
    """The bandwidth-delay product in packets, rounded up (at least 1)."""
    return max(1, math.ceil(rate_bps * rtt_s / (8 * packet_size_bytes)))


def paper002_scenario2(queue_kind: str = "red", *, variant: str = "tahoe",
                       arrival_rate_per_s: float = 0.5, duration_s: float = 2000.0,
                       seed: int = 1) -> Scenario:
    """Paper 002 Scenario II (Kaj & Olsen, Figs. 13-14): the 30-sender dumbbell, a 15 Mb/s
    100 ms bottleneck with a 150-packet RED or DropTail queue (RED with ns-2 2.35's defaults:
    the paper gives no RED parameters), 90 Mb/s access links in groups of 10 with one-way
    delays 10/30/50 ms; a persistent FTP A1 -> D1 (measured), and every other sender A_i
    downloading 100 KB files to D_i on Poisson arrivals at ``arrival_rate_per_s`` each, at most
    20 at a time. 500 B packets, window 20, an ACK per packet (b = 1), 2000 s."""
    kind = v.choice("queue_kind", queue_kind, ["red", "droptail"])
    q: DropTail | Red = Red(packets=150) if kind == "red" else DropTail(150)
    tcp = Tcp(packet_size_bytes=500, window=20)
    net = Dumbbell(queue=q)
    traffic = tuple(Transfers(src=f"A{i}", dst=f"D{i}", arrival_rate_per_s=arrival_rate_per_s,
                              size=FixedSize(100_000), max_concurrent=20, variant=variant,
                              tcp=tcp, label=f"web{i}")
                    for i in range(2, net.senders + 1))
    return Scenario(topology=net, flows=(Flow(variant=variant, tcp=tcp, src="A1", dst="D1",
                                              label="ftp"),),
                    traffic=traffic, seed=seed, duration_s=duration_s)


def paper003_two_hop(*, sn_rate_bps: float = 10e6, nd_rate_bps: float = 10e6,
                     channel: Any = None, cross_traffic: bool = False,
                     duration_s: float = 1000.0, seed: int = 1) -> Scenario:
    """Paper 003 (Martignon) Fig. 1-2: S -(10 Mb/s, 50 ms)- N -(10 Mb/s, 0.01 ms)- D, the
    N-D hop wireless with ``channel`` (default: the correlated two-state channel, mean Good
    1 s, mean Bad 50 ms, everything lost in Bad), queues sized to the bandwidth-delay
    product, one NewReno flow S -> D with 1500 B packets and delayed ACKs; with
    ``cross_traffic``, a 5 Mb/s exponential on/off source S -> N on the wired hop."""
    rtt = 2 * (0.05 + 1e-5)
    q = DropTail(bdp_packets(min(sn_rate_bps, nd_rate_bps), rtt, 1500))
    ch = TwoState(good_s=1.0, bad_s=0.05) if channel is None else channel
    net = TwoHop(sn_rate_bps=sn_rate_bps, nd_rate_bps=nd_rate_bps, queue=q, channel=ch)
    tcp = Tcp(packet_size_bytes=1500, window=1000, delayed_ack=True)
    traffic: tuple[Traffic, ...] = ()
    if cross_traffic:
        traffic = (OnOff(src="S", dst="N", rate_bps=5e6, packet_size_bytes=1500, on_s=0.5,
                         off_s=0.5, label="cross"),)
    return Scenario(topology=net, flows=(Flow(variant="newreno", tcp=tcp, label="tcp"),),
                    traffic=traffic, seed=seed, duration_s=duration_s)


def paper003_friendliness(n: int = 2, m: int = 3, *, variant_n: str = "newreno",
                          variant_m: str = "newreno", duration_s: float = 1000.0,
                          seed: int = 1) -> Scenario:
    """Paper 003 Fig. 7: ``n`` flows of ``variant_n`` and ``m`` of ``variant_m`` sharing one
    error-free 10 Mb/s link, RTT 100 ms, a queue of one bandwidth-delay product, 1500 B
    packets, delayed ACKs; flows started 10 ms apart. (NewReno-LP and Westwood-NR, the
    paper's ``variant_n``, come with their own issue; until then both groups default to
    NewReno, whose Jain index the paper gives as 0.9995.)"""
    n = v.integer("n", n, 0, 10_000)
    m = v.integer("m", m, 0, 10_000)
    if n + m == 0:
        raise ParameterError("n", n, "n + m must be at least 1")
    tcp = Tcp(packet_size_bytes=1500, window=1000, delayed_ack=True)
    link = SingleLink(rate_bps=10e6, rtt_s=0.1, queue=DropTail(bdp_packets(10e6, 0.1, 1500)))
    flows = []
    if n:
        flows.append(Flow(variant=variant_n, tcp=tcp, count=n, label="n"))
    if m:
        flows.append(Flow(variant=variant_m, tcp=tcp, count=m, start_s=n * 0.01, label="m"))
    return Scenario(topology=link, flows=tuple(flows), seed=seed, duration_s=duration_s)


def with_cross_traffic(sc: Scenario, sources: Sequence[Traffic]) -> Scenario:
    """``sc`` with its traffic replaced by ``sources``, each source without endpoints placed
    on every pair of the topology's cross-traffic pairs (the dumbbell's other senders)."""
    out: list[Traffic] = []
    for s in sources:
        if s.src is not None or s.dst is not None:
            out.append(s)
            continue
        pairs = sc.net.cross_pairs
        for a, b in pairs:
            label = s.label if len(pairs) == 1 or s.label is None else f"{s.label}-{a}"
            out.append(dataclasses.replace(s, src=a, dst=b, label=label))
    return sc.replace(traffic=tuple(out))
