"""``lossytcp crosscheck linux``: the kernel's TCP against the engine on the same losses.

For each seed the kernel's TCP runs through the link emulator (``lossytcp emulate``: the
engine's own queue, serialisation, channel and delay between two network namespaces), and
the engine runs the same path with the kernel run's own losses: the channel's decision for
each data transmission and each ACK, in transmission order, becomes the engine's
``trace:`` channel. Both senders face the same losses, so the comparison is of the TCPs
alone. The engine takes its closest Linux-like configuration (``lossytcp.emulate.linux``:
reno -> sack with IW10, delayed ACKs, limited transmit, RTO = SRTT + max(200 ms, 4 RTTVAR);
cubic -> cubic with Linux's rules and HyStart; bbr -> bbr paced per TSO burst as Linux's
internal pacing sends (``bbr_pacing_burst='tso'``, the engine's default); bbr3 -> bbr3,
only on a kernel whose ``bbr`` is Google's v3, refused by name elsewhere). Per metric: the
kernel's and the engine's means,
the seeds with identical values, a paired t-test of the differences, Holm-corrected over
the metrics (as ``crosscheck ns2 --paired``).

What cannot match by construction (RACK, PRR, undo, pacing and TSQ, timestamps, the
quick-ack heuristic, window autotuning) is listed under the table; a metric that differs
is expected there and says where the engine would need a ``linux`` profile. Each seed's
emulator accuracy is checked: a run whose accuracy did not hold is refused, not compared.

Exit codes (crosscheck's): 0 every judged metric agrees; 1 some metric differs; 2 bad input
(nothing was run); 3 this machine cannot emulate (the reference is missing); 4 the emulator
or the engine failed; 5 the emulator refused the rate or its accuracy did not hold; 130
interrupted.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from . import documented_parser
from ._verdicts import (
    EXIT_CRASH,
    EXIT_NO_REFERENCE,
    Quantity,
    exit_code,
    judge,
    print_verdicts,
    verdicts_json,
)
from .crosscheck import JUDGED
from .emulate import (
    EXIT_REFUSED,
    accuracy_lines,
    add_path_arguments,
    path_from_args,
)

#: Metrics judged: crosscheck's (the kernel exposes them all), and the undos the engine
#: models (``frto``, ``dsack`` in its configuration): all of them (the kernel's TCPLossUndo,
#: TCPFullUndo, TCPPartialUndo and TCPDSACKUndo) and F-RTO's (TCPSpuriousRTOs, which
#: tcp_try_undo_loss() counts beside TCPLossUndo), and the tail loss probes (``tlp``:
#: TCPLossProbes) and the losses they repaired (TCPLossProbeRecovery), and the retransmissions
#: found lost (``rack``: TCPLostRetransmit, which Linux counts for RACK's and a timeout's
#: marks alike, as the engine does), the partial undos (``partial_undo``: TCPPartialUndo) and
#: the reordering events (``reordering``: TCPSACKReorder + TCPTSReorder + TCPRenoReorder). Not
#: ``spurious_timeouts``: the kernel's are F-RTO's detections, the engine's its oracle's
#: truth; nor ``rack_lost``, which no kernel counter counts.
LINUX_JUDGED = (*JUDGED, "undos", "undos_frto", "undos_partial", "tlps", "tlp_recoveries",
                "rack_lost_retransmissions", "reordering_events")


def _differences_by_construction() -> list[str]:
    return [
        "by construction the kernel has no IsLost beside RACK (the engine's counts against "
        "the reordering degree); limits its queue per socket (TSQ); acks quickly after idle or "
        "reordering (quick-ack); tunes its receive window; see lossytcp.emulate.linux and "
        "its README",
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
    from ..emulate.linux import engine_config, engine_variant, kernel_cc
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
    engine = engine_config(packet_size_bytes=kw["packet_size_bytes"], window=kw["window"],
                           variant=variant)
    build_scenario(variant, **{k: x for k, x in kw.items()
                               if k not in ("window", "sample_interval_s", "max_lateness_s",
                                            "sysctls")},
                   **engine)
    keep = Path(a.keep_logs) if a.keep_logs else None
    kernel, sims, notes = [], [], []
    try:
        with run_progress(f"kernel {cc} and the engine's {variant}", len(seeds)) as progress, \
                tempfile.TemporaryDirectory(prefix="lossytcp-xlinux-") as tmp:
            for i, s in enumerate(seeds):
                d = (keep or Path(tmp)) / f"seed{s}"
                rep = emulate(kernel_cc(cc), seed=s, log_dir=d, **kw)
                kernel.append(rep)
                sims.append(replay_in_engine(rep, variant))
                notes.append(f"seed {s}: " + "; ".join(accuracy_lines(rep.accuracy, rep.links)))
                progress(i + 1, len(seeds))
    except EmulatorUnavailable as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_NO_REFERENCE
    except (EmulatorRefused, EmulatorInaccurate) as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_REFUSED
    except EmulatorError as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_CRASH

    def observe(reports: list[Any]) -> list[dict[Quantity, float]]:
        return [{Quantity("aggregate", "", m): r.metric(m) for m in LINUX_JUDGED}
                for r in reports]

    rows = judge(observe(sims), observe(kernel), ref_name="kernel", alpha=a.alpha,
                 paired=True)
    notes += _differences_by_construction()
    notes.append("kernel undos (Loss/Full/Partial/DSACK), DSACKs received, per seed: " + ", ".join(
        "/".join(str(k.counters.get(f"TcpExt.TCP{x}Undo", 0))
                 for x in ("Loss", "Full", "Partial", "DSACK"))
        + f" {k.counters.get('TcpExt.TCPDSACKRecv', 0)}" for k in kernel))
    if keep:
        notes.append(f"fate logs kept in {keep}")
    if a.json:
        print(json.dumps(verdicts_json(
            rows, cc=cc, engine_variant=variant, engine_config=engine, seeds=seeds, path=kw,
            alpha=a.alpha, correction="holm", paired=True, notes=notes,
            kernel=[json_safe(k.as_dict()) for k in kernel])))
    else:
        print_verdicts(rows, title=f"kernel {cc} vs the engine's {variant} on the kernel's "
                                   f"own losses, {len(seeds)} seed(s)",
                       ref_name="kernel", ref_label=f"Linux {cc}", paired=True,
                       alpha=a.alpha, notes=notes)
    return exit_code(rows)


def register(which: Any) -> None:
    """Adds ``linux`` to ``crosscheck``'s simulators."""
    q = documented_parser(which, "linux",
                          "the Linux kernel's TCP through the link emulator", __doc__)
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
