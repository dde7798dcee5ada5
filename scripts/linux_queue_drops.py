"""Where the kernel's queue drops on the ``beyond-rtt`` path come from: per downward RTT jump
(160 or 320 ms -> 40 ms), the window just before it and the queue's drops in the second
after it, in the kernel (TCP_INFO and the fate log) and in the engine replaying the run
(crosscheck linux's configuration, and controls: ``eifel_undo``, one ACK per segment, both).

A jump down lets new segments overtake the old flight, the sender sees reordering, and
whatever window it holds then must fit the low path: the 40 ms pipe (50 packets at
10 Mb/s, 1000 B) plus the 100-packet queue. ``--sysctl`` runs the kernel with a
network-namespace setting changed (a control run: e.g. ``net.ipv4.tcp_timestamps=0``
removes the timestamp undo). One JSON line per run is appended to ``--out``, then the
per-jump table and the totals are printed.

    sudo .venv/bin/python scripts/linux_queue_drops.py --cc cubic --high 0.16 --seeds 3 \\
        --duration 20 --out /tmp/qdrops.jsonl
    sudo .venv/bin/python scripts/linux_queue_drops.py --cc cubic --high 0.16 --seeds 3 \\
        --duration 20 --sysctl net.ipv4.tcp_timestamps=0 --out /tmp/qdrops.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from lossytcp.emulate import EmulatorInaccurate, emulate, replay_in_engine
from lossytcp.emulate.linux import engine_variant
from lossytcp.figures.modern import (
    RTT_JUMP_PACKET_BYTES,
    RTT_JUMP_QUEUE_PACKETS,
    RTT_JUMP_RATE_BPS,
    RTT_LOW_S,
    rtt_jump_link,
)

#: The low state's pipe: 40 ms at 10 Mb/s of 1000 B packets, plus the 100-packet queue.
LOW_PIPE_PACKETS = round(RTT_JUMP_RATE_BPS * RTT_LOW_S / (8 * RTT_JUMP_PACKET_BYTES)) \
    + RTT_JUMP_QUEUE_PACKETS
#: The engine's controls, beside crosscheck linux's configuration.
CONTROLS = {"engine": {}, "eifel": {"eifel_undo": True},
            "per_segment_ack": {"delayed_ack": False},
            "per_segment_ack_eifel": {"delayed_ack": False, "eifel_undo": True}}
AFTER_S = 1.0
#: The overlap after a jump down from 160 ms: old and new segments arrive together.
OVERLAP_S = 0.16


def _kernel_run(cc: str, high: float, seed: int, duration: float, sysctls: dict[str, str],
                d: Path) -> Any:
    for _ in range(3):
        try:
            return emulate(cc, **rtt_jump_link(high), rtt_s=None, duration_s=duration,
                           seed=seed, log_dir=d, sysctls=sysctls)
        except EmulatorInaccurate as e:
            print(f"inaccurate, run again: {e}", flush=True)
    raise SystemExit("three inaccurate runs: the machine is too loaded")


def _engine_drops_between(rep: Any, cc: str, a_s: float, b_s: float, **kw: Any) -> int:
    """The engine's queue drops between a_s and b_s after the kernel's time zero (replays
    cut at both ends: one seed fixes a run, so the shorter one is the longer's prefix)."""
    def upto(t: float) -> int:
        return 0 if t <= 0 else int(replay_in_engine(rep, engine_variant(cc), duration_s=t,
                                                     **kw).queue_drops)
    return upto(b_s) - upto(a_s)


def one(cc: str, high: float, seed: int, duration: float, sysctls: dict[str, str],
        label: str, logs: Path) -> dict[str, Any]:
    d = logs / f"{cc}-{high * 1000:.0f}-{seed}-{label}"
    rep = _kernel_run(cc, high, seed, duration, sysctls, d)
    t0 = float(rep.raw["tcp"]["t0_s"])
    fwd = rep.fates("forward")
    data = fwd.is_kind("data")
    drops_s = fwd.t_in_ns[data & fwd.is_outcome("forced")] * 1e-9 - t0
    sent_s = fwd.t_in_ns[data] * 1e-9 - t0
    resent = fwd.retransmission[data] == 1
    smp = {k: np.asarray(x, dtype=float) for k, x in rep.samples.items()}
    base = replay_in_engine(rep, engine_variant(cc), trace_window=True, trace_delay=True,
                            trace_sends=True)
    e_sent = np.array([(t - t0, r) for t, _, r in base.send_trace])
    win = np.array([(t - t0, c) for t, c, _, _ in base.window_trace])
    pace = np.array([(t - t0, r) for t, r in base.pacing_trace]) if base.pacing_trace else None
    downs = [t - t0 for t, state in base.delay_trace
             if state == 0 and 0.3 < t - t0 < duration - AFTER_S]
    jumps = []
    for tj in downs:
        i = max(int(np.searchsorted(smp["t_s"], tj)) - 1, 0)
        after = (smp["t_s"] >= tj) & (smp["t_s"] < tj + AFTER_S)
        j = max(int(np.searchsorted(win[:, 0], tj)) - 1, 0)
        jump = {"t_s": round(tj, 3),
                "kernel_cwnd": float(smp["cwnd"][i]),
                "kernel_drops": int(((drops_s >= tj) & (drops_s < tj + AFTER_S)).sum()),
                "kernel_max_pacing_bps": float(smp["pacing_rate_bps"][after].max(initial=0)),
                # What the sender spent the overlap on: new data or retransmissions.
                "kernel_new_overlap": int(((sent_s >= tj) & (sent_s < tj + OVERLAP_S)
                                           & ~resent).sum()),
                "kernel_retx_overlap": int(((sent_s >= tj) & (sent_s < tj + OVERLAP_S)
                                            & resent).sum()),
                "engine_cwnd": float(win[j, 1]),
                "engine_drops": _engine_drops_between(rep, cc, tj, tj + AFTER_S)}
        o = (e_sent[:, 0] >= tj) & (e_sent[:, 0] < tj + OVERLAP_S)
        jump["engine_new_overlap"] = int((o & (e_sent[:, 1] == 0)).sum())
        jump["engine_retx_overlap"] = int((o & (e_sent[:, 1] == 1)).sum())
        if pace is not None:
            m = (pace[:, 0] >= tj) & (pace[:, 0] < tj + AFTER_S)
            jump["engine_max_pacing_bps"] = float(pace[m, 1].max(initial=0))
        jumps.append(jump)
    row: dict[str, Any] = {
        "cc": cc, "high": high, "seed": seed, "duration_s": duration, "label": label,
        "sysctls": sysctls, "t0_s": t0,
        "kernel": {"goodput_norm": rep.goodput_norm, "retransmissions": rep.retransmissions,
                   "queue_drops": rep.queue_drops, "fast_retransmits": rep.fast_retransmits,
                   "undos": rep.undos, "snd_mss": rep.snd_mss,
                   "slow_start_exit_cwnd": float(smp["ssthresh"][smp["ssthresh"] < 1e6][0])
                   if (smp["ssthresh"] < 1e6).any() else None},
        "counters": rep.counters,
        "lateness_p99_us": max(lk["lateness"]["p99_s"] for lk in rep.links) * 1e6,
        "rate_error": rep.accuracy.get("rate_error"), "jumps": jumps}
    for name, kw in CONTROLS.items():
        sim = base if not kw else replay_in_engine(rep, engine_variant(cc), **kw)
        row[name] = {"queue_drops": sim.queue_drops, "goodput_norm": sim.goodput_norm,
                     "retransmissions": sim.retransmissions, "undos": sim.undos}
    return row


def table(rows: list[dict[str, Any]]) -> None:
    print("| cc | RTT high | run | seed | jump at | side | cwnd | new / retransmitted in "
          f"{OVERLAP_S * 1000:.0f} ms | max pacing (1 s), Mb/s | drops (1 s) |")
    print("|---|---:|---|---:|---:|---|---:|---|---:|---:|")
    for r in rows:
        for j in r["jumps"]:
            for side in ("kernel", "engine"):
                print(f"| {r['cc']} | {r['high'] * 1000:.0f} ms | {r['label']} | {r['seed']} "
                      f"| {j['t_s']:.2f} s | {side} | {j[f'{side}_cwnd']:.0f} "
                      f"| {j.get(f'{side}_new_overlap', '-')} / "
                      f"{j.get(f'{side}_retx_overlap', '-')} "
                      f"| {j.get(f'{side}_max_pacing_bps', 0) / 1e6:.1f} "
                      f"| {j[f'{side}_drops']} |")
    for cc, label in dict.fromkeys((r["cc"], r["label"]) for r in rows):
        rs = [r for r in rows if (r["cc"], r["label"]) == (cc, label)]
        js = [j for r in rs for j in r["jumps"]]
        k = sum(r["kernel"]["queue_drops"] for r in rs)
        excess = {side: sum(max(j[f"{side}_cwnd"] - LOW_PIPE_PACKETS, 0) for j in js)
                  for side in ("kernel", "engine")}
        print(f"{cc}, {label}: kernel {k} queue drops, {sum(j['kernel_drops'] for j in js)} in the "
              f"second after a jump down; excess of its windows over {LOW_PIPE_PACKETS} at "
              f"those jumps {excess['kernel']:.0f}; engine replays: "
              + ", ".join(f"{n} {sum(r[n]['queue_drops'] for r in rs)}" for n in CONTROLS)
              + f" (after a jump {sum(j['engine_drops'] for j in js)}, excess "
              f"{excess['engine']:.0f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default="cubic")
    ap.add_argument("--high", type=float, default=0.16)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--sysctl", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--logs", type=Path, default=None,
                    help="keep the fate logs there [a directory beside --out]")
    a = ap.parse_args()
    sysctls = dict(x.split("=", 1) for x in a.sysctl)
    label = ",".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in sysctls.items()) or "default"
    logs = a.logs or a.out.with_suffix(".logs")
    rows = [json.loads(x) for x in a.out.read_text().splitlines()] if a.out.exists() else []
    done = {(r["cc"], r["high"], r["seed"], r["label"]) for r in rows}
    pending = [s for s in range(1, a.seeds + 1) if (a.cc, a.high, s, label) not in done]
    rows += [_kept(a.out, one(a.cc, a.high, s, a.duration, sysctls, label, logs))
             for s in pending]
    table(rows)


def _kept(out: Path, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` appended to ``out`` at once (an interrupted series resumes after it)."""
    with out.open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(f"{row['cc']} {row['high']} {row['seed']} {row['label']}: kernel "
          f"{row['kernel']['queue_drops']} drops, engine {row['engine']['queue_drops']}",
          flush=True)
    return row


if __name__ == "__main__":
    main()
