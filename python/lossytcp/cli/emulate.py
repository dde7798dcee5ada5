"""``lossytcp emulate``: the kernel's own TCP over the engine's link, in real time.

A bulk transfer between two network namespaces joined by TUN devices, through the link
emulator (``crates/lossytcp-emu``): the engine's queue, serialisation, channel and delay, with
the same flags and spec strings as ``lossytcp simulate`` and the run's seed. The congestion
control is the kernel's (``--cc``, set per socket); the segment size is clamped to the
packet size; TCP_INFO is sampled every ``--sample-interval``. The metrics carry simulate's
names; the emulator's own accuracy (packets written late, the rate it achieved, its CPU
share) is reported with them, and a rate the machine cannot hold now is refused before
the run. Needs root, /dev/net/tun and network namespaces.

Exit codes: 0 success; 2 bad input; 3 this machine cannot emulate (not root, no TUN, not
built); 4 the emulator failed; 5 refused (the machine cannot hold the rate) or the run's
accuracy did not hold (--allow-inaccurate reports it anyway); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .. import units
from ..errors import ParameterError
from . import documented_parser

EXIT_OK, EXIT_BAD_INPUT, EXIT_UNAVAILABLE, EXIT_FAILED, EXIT_REFUSED = 0, 2, 3, 4, 5


def add_path_arguments(p: argparse.ArgumentParser, cc: str = "cubic",
                       duration: str = "30s") -> None:
    """The emulated path's flags (shared with ``crosscheck linux``)."""
    from .simulate import DELAY_HELP

    p.add_argument("--cc", default=cc,
                   help=f"the kernel's congestion control, e.g. reno, cubic, bbr [{cc}]")
    p.add_argument("--rate", default="10Mbps", help="link rate [10Mbps]")
    p.add_argument("--rtt", default=None, help="two-way propagation delay [40ms]")
    p.add_argument("--delay", default=None, metavar="TABLE", help=DELAY_HELP)
    p.add_argument("--packet-size", default="1500B",
                   help="IP packet size, the interfaces' MTU [1500B]")
    p.add_argument("--window", type=int, default=None,
                   help="clamp the receiver's window to this many segments [kernel autotuning]")
    p.add_argument("--channel", default="none",
                   help="data-direction channel, simulate's spec strings, e.g. "
                        "ge:alpha=0.01,beta=0.2 [none]")
    p.add_argument("--ack-channel", default="none", help="ACK-direction channel [none]")
    p.add_argument("--queue", default=None,
                   help="queue: packets of a DropTail, droptail:packets=50 or red:... [1000]")
    p.add_argument("--duration", default=duration, help=f"real time per run [{duration}]")
    p.add_argument("--sample-interval", default="10ms", help="TCP_INFO sampling [10ms]")
    p.add_argument("--max-lateness", default=None,
                   help="accuracy bound on how late packets are written (p99) [5%% of the "
                        "one-way delay]")
    p.add_argument("--sysctl", action="append", default=None, metavar="NAME=VALUE",
                   help="a network-namespace sysctl set in both of the emulator's namespaces "
                        "(repeatable), e.g. net.ipv4.tcp_timestamps=0: they start from the "
                        "kernel's defaults, not the host's [none]")


def path_from_args(a: argparse.Namespace) -> dict[str, Any]:
    """emulate() keywords of the flags, units parsed (seed excluded)."""
    from ..scenario import delay_from_text
    from .simulate import _size

    kw: dict[str, Any] = dict(
        cc=a.cc, rate_bps=units.rate_bps(a.rate, "rate"),
        packet_size_bytes=_size(a.packet_size, "packet-size"), window=a.window,
        channel=a.channel, ack_channel=a.ack_channel,
        duration_s=units.time_s(a.duration, "duration"),
        sample_interval_s=units.time_s(a.sample_interval, "sample-interval"))
    if a.delay is None:
        kw["rtt_s"] = units.time_s(a.rtt or "40ms", "rtt")
    elif a.rtt is not None:
        raise ParameterError("rtt", a.rtt, "give either --rtt or --delay: the semi-Markov "
                             "delay replaces the fixed round trip")
    else:
        d = delay_from_text(a.delay, "delay")
        kw["delay"] = {"rtt_s": list(d.rtt_s), "H": [list(r) for r in d.H],
                       "excess_mean_s": list(d.excess_mean_s)}
    if a.queue is not None:
        kw["queue"] = a.queue
    if a.max_lateness is not None:
        kw["max_lateness_s"] = units.time_s(a.max_lateness, "max-lateness")
    if a.sysctl:
        pairs = [x.partition("=") for x in a.sysctl]
        bad = [x for x, (_, eq, _) in zip(a.sysctl, pairs, strict=True) if not eq]
        if bad:
            raise ParameterError("sysctl", bad[0], "must be NAME=VALUE, e.g. "
                                 "net.ipv4.tcp_timestamps=0")
        kw["sysctls"] = {k.strip(): val.strip() for k, _, val in pairs}
    return kw


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return "nan" if not math.isfinite(x) else f"{x:.6g}"
    return str(x)


def accuracy_lines(acc: dict[str, Any], links: list[dict[str, Any]]) -> list[str]:
    """The emulator's accuracy in a few sentences."""
    out = []
    for lk in links:
        lat = lk.get("lateness") or {}
        if lat.get("packets"):
            line = (f"{lk['name']}: {lk['delivered']} packets written {lat['p50_s'] * 1e6:.0f} us "
                    f"late (median), {lat['p99_s'] * 1e6:.0f} us (p99), "
                    f"{lat['max_s'] * 1e6:.0f} us (max)")
            if lk.get("achieved_rate_bps"):
                line += (f"; rate achieved {lk['achieved_rate_bps'] / 1e6:.4f} Mb/s of "
                         f"{lk['configured_rate_bps'] / 1e6:.4f} over "
                         f"{lk['back_to_back_pairs']} back-to-back packets")
            out.append(line)
    if acc:
        de = acc.get("delay_error")
        out.append(f"added delay {de * 100:+.3f}% of the model's; forwarder CPU "
                   f"{acc['cpu_fraction'] * 100:.1f}% of a core (headroom "
                   f"{acc['cpu_headroom'] * 100:.0f}%)" if de is not None else
                   f"forwarder CPU {acc['cpu_fraction'] * 100:.1f}% of a core")
        out.append("accuracy held" if acc.get("ok") else
                   "ACCURACY DID NOT HOLD: " + "; ".join(acc.get("problems", [])))
    return out


def run(a: argparse.Namespace) -> int:
    from ..emulate import (
        EmulatorError,
        EmulatorInaccurate,
        EmulatorRefused,
        EmulatorUnavailable,
        emulate,
    )
    from ..sim import METRICS
    from ._progress import run_progress

    kw = path_from_args(a)
    if a.seed < 0:
        raise ParameterError("seed", a.seed, "must be >= 0")
    try:
        with run_progress(f"{kw['cc']}: emulating {kw['duration_s']:g} s in real time", 1) as pr:
            rep = emulate(seed=a.seed, log_dir=a.log_dir, allow_inaccurate=a.allow_inaccurate,
                          **kw)
            pr(1, 1)
    except EmulatorUnavailable as e:
        print(f"lossytcp emulate: {e}")
        return EXIT_UNAVAILABLE
    except EmulatorRefused as e:
        print(f"lossytcp emulate: {e}")
        return EXIT_REFUSED
    except EmulatorInaccurate as e:
        print(f"lossytcp emulate: {e} (--allow-inaccurate reports the run anyway)")
        return EXIT_REFUSED
    except EmulatorError as e:
        print(f"lossytcp emulate: {e}")
        return EXIT_FAILED
    if a.json:
        from .simulate import json_safe

        d = rep.as_dict()
        d["samples"] = rep.samples
        print(json.dumps(json_safe(d)))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    con = Console()
    t = Table(title=f"kernel {rep.cc}, seed {rep.seed}, {rep.elapsed_s:g} s after the handshake")
    t.add_column("metric")
    t.add_column("value", justify="right")
    from ..emulate.report import NOT_OBSERVABLE

    for m in METRICS:
        if m not in NOT_OBSERVABLE:
            t.add_row(m, _fmt(rep.metric(m)))
    for k in ("loss_probes", "srtt_s", "min_rtt_s", "final_cwnd", "final_ssthresh",
              "final_rto_s", "snd_mss"):
        t.add_row(k, _fmt(getattr(rep, k)))
    con.print(t)
    for line in accuracy_lines(rep.accuracy, rep.links):
        con.print(f"emulator: {line}")
    if a.log_dir:
        con.print(f"fate logs and TCP_INFO kept in {a.log_dir}")
    return EXIT_OK


def register(sub: Any) -> None:
    p = documented_parser(sub, "emulate",
                          "the kernel's TCP over the engine's link, in real time", __doc__)
    add_path_arguments(p)
    p.add_argument("--seed", type=int, default=1, help="the channel's and delay's seed [1]")
    p.add_argument("--log-dir", default=None,
                   help="keep the fate logs (forward.csv, reverse.csv) there")
    p.add_argument("--allow-inaccurate", action="store_true",
                   help="report a run whose emulator accuracy did not hold (marked)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
