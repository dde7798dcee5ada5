"""``lossytcp crosscheck linux``: the kernel's TCP against the engine on the same losses.

For each seed the kernel's TCP runs through the link emulator (``lossytcp emulate``: the
engine's own queue, serialisation, channel and delay between two network namespaces), and
the engine runs the same path with the kernel run's own losses: the channel's decision for
each data transmission and each ACK, in transmission order, becomes the engine's
``trace:`` channel. Both senders face the same losses, so the comparison is of the TCPs
alone. The engine takes its closest Linux-like configuration (``lossytcp.emulate.linux``:
reno -> sack with IW10, delayed ACKs, limited transmit, RTO = SRTT + max(200 ms, 4 RTTVAR);
cubic and bbr once the engine has them). Per metric: the kernel's and the engine's means,
the seeds with identical values, a paired t-test of the differences, Holm-corrected over
the metrics (as ``crosscheck ns2 --paired``).

What cannot match by construction (RACK-TLP, PRR, undo, pacing and TSQ, timestamps, the
quick-ack heuristic, window autotuning) is listed under the table; a metric that differs
is expected there and says where the engine would need a ``linux`` profile. Each seed's
emulator accuracy is checked: a run whose accuracy did not hold is refused, not compared.

Exit codes: 0 every judged metric agrees; 1 some metric differs; 2 bad input (nothing was
run); 3 this machine cannot emulate; 4 the emulator or the engine failed; 5 the emulator
refused the rate or its accuracy did not hold; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from .crosscheck import EXIT_AGREE, EXIT_DIFFER, JUDGED, compare_paired
from .emulate import (
    EXIT_FAILED,
    EXIT_REFUSED,
    EXIT_UNAVAILABLE,
    accuracy_lines,
    add_path_arguments,
    path_from_args,
)

#: Metrics judged: crosscheck's, less what the kernel does not expose.
LINUX_JUDGED = tuple(m for m in JUDGED if m != "spurious_fast_retransmits")


def _differences_by_construction() -> list[str]:
    return [
        "by construction the kernel detects losses by time (RACK) and probes a lost tail "
        "(TLP) where the engine counts duplicate ACKs and times out; recovers with PRR; "
        "undoes spurious reductions (F-RTO, DSACK); paces (TSQ, BBR); acks quickly after "
        "idle or reordering (quick-ack); tunes its receive window; see "
        "lossytcp.emulate.linux",
    ]


def run(a: argparse.Namespace) -> int:
    from ..emulate import (
        EmulatorError,
        EmulatorInaccurate,
        EmulatorRefused,
        EmulatorUnavailable,
        emulate,
        replay_in_engine,
    )
    from ..emulate.linux import engine_config, engine_variant
    from ..experiments.stats import check_level
    from ..sim import build_scenario
    from ._progress import run_progress
    from .simulate import json_safe, seeds_from_args

    kw = path_from_args(a)
    cc = kw.pop("cc")
    variant = engine_variant(cc)
    seeds = seeds_from_args(a, 3)
    check_level(a.alpha, "alpha")
    # Bad input fails here, before any run: the engine side's scenario is built once.
    engine = engine_config(packet_size_bytes=kw["packet_size_bytes"], window=kw["window"])
    build_scenario(variant, **{k: x for k, x in kw.items()
                               if k not in ("window", "sample_interval_s", "max_lateness_s")},
                   **engine)
    keep = Path(a.keep_logs) if a.keep_logs else None
    kernel, sims, notes = [], [], []
    try:
        with run_progress(f"kernel {cc} and the engine's {variant}", len(seeds)) as progress, \
                tempfile.TemporaryDirectory(prefix="lossytcp-xlinux-") as tmp:
            for i, s in enumerate(seeds):
                d = (keep or Path(tmp)) / f"seed{s}"
                rep = emulate(cc, seed=s, log_dir=d, **kw)
                kernel.append(rep)
                sims.append(replay_in_engine(rep, variant))
                notes.append(f"seed {s}: " + "; ".join(accuracy_lines(rep.accuracy, rep.links)))
                progress(i + 1, len(seeds))
    except EmulatorUnavailable as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_UNAVAILABLE
    except (EmulatorRefused, EmulatorInaccurate) as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_REFUSED
    except EmulatorError as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_FAILED
    rows = compare_paired(sims, kernel, metrics=LINUX_JUDGED, alpha=a.alpha)
    for r in rows:
        r["kernel"] = r.pop("ns2")
        r["engine"] = r.pop("lossytcp")
    notes += _differences_by_construction()
    notes.append("kernel-only counters: loss probes (TLP) "
                 + ", ".join(str(k.loss_probes) for k in kernel) + " per seed")
    code = EXIT_DIFFER if any(r["verdict"] == "DIFFER" for r in rows) else EXIT_AGREE
    if a.json:
        print(json.dumps(json_safe({
            "cc": cc, "engine_variant": variant, "engine_config": engine, "seeds": seeds,
            "path": kw, "alpha": a.alpha, "correction": "holm", "paired": True,
            "metrics": rows, "notes": notes, "exit_code": code,
            "kernel": [k.as_dict() for k in kernel]})))
        return code
    from rich.console import Console
    from rich.table import Table

    from .crosscheck import _fmt, _p

    con = Console()
    if not con.is_terminal:
        con = Console(width=max(con.width, 130))
    t = Table(title=f"kernel {cc} vs the engine's {variant} on the kernel's own losses, "
                    f"{len(seeds)} seed(s) (paired t-test, Holm, family alpha {a.alpha:g})")
    for col in ("metric", "kernel", "engine", "mean diff (engine - kernel)",
                "identical seeds", "p (Holm)", "verdict"):
        t.add_column(col, justify="left" if col == "metric" else "right", no_wrap=True)
    for r in rows:
        t.add_row(r["metric"], _fmt(r["kernel"]), _fmt(r["engine"]), _fmt(r["diff"]),
                  f"{r['identical_seeds']}/{r['seeds']}", _p(r["p_holm"]), r["verdict"])
    con.print(t)
    for n in notes:
        con.print(f"note: {n}")
    if keep:
        con.print(f"fate logs kept in {keep}")
    return code


def register(which: Any) -> None:
    """Adds ``linux`` to ``crosscheck``'s simulators."""
    doc = __doc__.split("\n\n")
    q = which.add_parser("linux", help="the Linux kernel's TCP through the link emulator",
                         description="\n\n".join(doc[1:-1]), epilog=doc[-1],
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    add_path_arguments(q, cc="reno", duration="10s")
    seeds = q.add_mutually_exclusive_group()
    seeds.add_argument("--seeds", type=int, default=3, help="seeds 1..N [3]")
    seeds.add_argument("--seed", type=int, default=None, help="this one seed only")
    q.add_argument("--keep-logs", default=None, metavar="DIR",
                   help="keep each seed's fate logs and replay traces there")
    q.add_argument("--alpha", type=float, default=0.05,
                   help="family-wise significance level over the judged metrics [0.05]")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=run)
