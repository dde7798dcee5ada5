"""The kernel's TCP against the engine on the ``beyond-rtt`` path (paper 001's abrupt RTT
changes: figures.modern's two-state semi-Markov round trip, RTT_LOW_S and a high one, each
held its RTT plus Exp(RTT_HOLD_S); 10 Mb/s, 1000 B, a 100-packet DropTail), where timeouts
and fast retransmits can be spurious and the undo machinery acts.

Each seed runs the kernel through the emulator (``lossytcp.emulate``, the delay drawn from
the seed on the emulator's clock) and the engine on the same delay process (its flow
started at the kernel's time zero) and the kernel run's own losses, in ``crosscheck
linux``'s configuration (``frto``, ``dsack``) and, as the control for the kernel's
timestamp undo (``tcp_packet_delayed()``), the same with ``eifel_undo``. One JSON line per
run is appended to ``--out`` (runs already there are skipped), then the table is printed.

    sudo .venv/bin/python scripts/linux_beyond_rtt.py --cc reno,cubic,bbr --highs 0.16,0.32 \\
        --seeds 3 --duration 20 --out /tmp/beyond.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from lossytcp.emulate import emulate, replay_in_engine
from lossytcp.emulate.linux import engine_variant
from lossytcp.figures.modern import rtt_jump_delay

KERNEL_COUNTERS = ("TCPTimeouts", "TCPSpuriousRTOs", "TCPLossUndo", "TCPFullUndo",
                   "TCPPartialUndo", "TCPDSACKUndo", "TCPDSACKRecv", "TCPDSACKOldSent",
                   "TCPDSACKIgnoredNoUndo", "TCPLossProbes", "TCPSackRecovery",
                   "TCPSACKReorder", "TCPTSReorder", "TCPSackRecoveryFail",
                   "TCPLossProbeRecovery")
ENGINE = ("goodput_norm", "timeouts", "spurious_timeouts", "fast_retransmits",
          "spurious_fast_retransmits", "retransmissions", "undos", "undos_frto", "undos_dsack",
          "undos_eifel_timeout", "undos_eifel_fast_retransmit")


def one(cc: str, high: float, seed: int, duration: float, logs: Path) -> dict:
    d = logs / f"{cc}-{high * 1000:.0f}-{seed}"
    rep = emulate(cc, rate_bps=10e6, packet_size_bytes=1000, queue=100, delay=rtt_jump_delay(high),
                  duration_s=duration, seed=seed, log_dir=d)
    t0, end = rep.raw["tcp"]["t0_s"], rep.raw["tcp"]["t0_s"] + rep.elapsed_s
    row = {"cc": cc, "high": high, "seed": seed,
           "kernel": {"goodput_norm": rep.goodput_norm, "retransmissions": rep.retransmissions,
                      "queue_drops": rep.queue_drops,
                      **{k: rep.counters.get(f"TcpExt.{k}", 0) for k in KERNEL_COUNTERS}},
           # Enough to replay the kept fate logs again (another engine) without the kernel.
           "t0_s": t0, "log_dir": str(d), "counters": rep.counters,
           "lateness_p99_us": max(lk["lateness"]["p99_s"] for lk in rep.links) * 1e6,
           "rate_error": rep.accuracy.get("rate_error")}
    for name, extra in (("engine", {}), ("engine_eifel", {"eifel_undo": True})):
        sim = replay_in_engine(rep, engine_variant(cc), trace_delay=True, **extra)
        row[name] = {k: sim.metric(k) for k in ENGINE}
        row[name]["queue_drops"] = sim.queue_drops
        if name == "engine":
            row["jumps"] = sum(t0 < t < end for t, _ in sim.delay_trace)
    return row


def table(rows: list[dict]) -> None:
    """Means over the seeds; k: kernel, e: engine (crosscheck linux's configuration), x: the
    engine with eifel_undo as well."""
    print("| cc (engine) | RTT high | goodput k / e / x | timeouts k / e / x (spurious: k's "
          "F-RTO, e's true) | TLPs k | undos k Loss+Full+Partial+DSACK | undos e frto+dsack "
          "/ x | DSACKs recv k | retransmissions k / e / x | queue drops k / e / x "
          "| fast recoveries k / e / x |")
    print("|---|---:|---|---|---:|---|---|---:|---|---|---|")
    for cc in dict.fromkeys(r["cc"] for r in rows):
        for high in sorted({r["high"] for r in rows if r["cc"] == cc}):
            rs = [r for r in rows if r["cc"] == cc and r["high"] == high]

            def m(side: str, k: str, rs: list[dict] = rs) -> float:
                return float(np.mean([r[side][k] for r in rs]))

            def kex(k_key: str, e_key: str, fmt: str) -> str:
                return " / ".join(format(x, fmt) for x in (
                    m("kernel", k_key), m("engine", e_key), m("engine_eifel", e_key)))

            undo = [m("kernel", f"TCP{x}Undo") for x in ("Loss", "Full", "Partial", "DSACK")]
            print(f"| {cc} ({engine_variant(cc)}) | {high * 1000:.0f} ms "
                  f"| {kex('goodput_norm', 'goodput_norm', '.3f')} "
                  f"| {kex('TCPTimeouts', 'timeouts', '.1f')} "
                  f"({m('kernel', 'TCPSpuriousRTOs'):.1f} / {m('engine', 'spurious_timeouts'):.1f}"
                  f" / {m('engine_eifel', 'spurious_timeouts'):.1f}) "
                  f"| {m('kernel', 'TCPLossProbes'):.1f} "
                  f"| {'+'.join(f'{x:.1f}' for x in undo)} = {sum(undo):.1f} "
                  f"| {m('engine', 'undos_frto'):.1f}+{m('engine', 'undos_dsack'):.1f} = "
                  f"{m('engine', 'undos'):.1f} / {m('engine_eifel', 'undos'):.1f} "
                  f"| {m('kernel', 'TCPDSACKRecv'):.1f} "
                  f"| {kex('retransmissions', 'retransmissions', '.0f')} "
                  f"| {kex('queue_drops', 'queue_drops', '.0f')} "
                  f"| {kex('TCPSackRecovery', 'fast_retransmits', '.1f')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--highs", default="0.16,0.32")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--logs", type=Path, default=None,
                    help="keep the fate logs there [a directory beside --out]")
    a = ap.parse_args()
    logs = a.logs or a.out.with_suffix(".logs")
    rows = [json.loads(x) for x in a.out.read_text().splitlines()] if a.out.exists() else []
    done = {(r["cc"], r["high"], r["seed"]) for r in rows}
    for cc in a.cc.split(","):
        for high in (float(x) for x in a.highs.split(",")):
            for seed in range(1, a.seeds + 1):
                if (cc, high, seed) in done:
                    continue
                row = one(cc, high, seed, a.duration, logs)
                rows.append(row)
                with a.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{cc} {high} {seed}: kernel {row['kernel']['goodput_norm']:.3f} "
                      f"engine {row['engine']['goodput_norm']:.3f}", flush=True)
    table(rows)


if __name__ == "__main__":
    main()
