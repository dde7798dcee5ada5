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

``--engine-tlp`` runs no kernel: it replays the engine side of the rows in ``--out`` without
and with ``tlp`` (the Tail Loss Probe; ``crosscheck linux``'s configuration otherwise) and
prints them against the kernel's columns. A row that stored its ``t0_s`` is replayed at it;
the older rows (docs/data/linux_beyond_rtt-2026-11-27.jsonl) did not store it, so their
engine runs at each start time of ``--t0-grid`` on the row's delay process (same seed) and
is averaged over them (the path is lossless: every loss is the queue's, nothing else of the
kernel's run is replayed); the alignments that reproduce the row's stored engine columns
exactly are reported as a check of the replay.

    .venv/bin/python scripts/linux_beyond_rtt.py --engine-tlp \\
        --out docs/data/linux_beyond_rtt-2026-11-27.jsonl

``--engine-reord [JSON]`` runs no kernel either: each row with a ``t0_s`` replayed with the
engine's model of the kernel's reordering response (``reordering``, ``rack_reo_wnd``,
``partial_undo``) off, each alone and all on, against the kernel's columns and counters:

    .venv/bin/python scripts/linux_beyond_rtt.py --out \\
        docs/data/linux_beyond_rtt-2026-11-27b.jsonl \\
        --engine-reord docs/data/linux_beyond_rtt_reord-2026-11-27.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from lossytcp.emulate import emulate, replay_in_engine
from lossytcp.emulate.linux import engine_variant
from lossytcp.figures.modern import rtt_jump_link

KERNEL_COUNTERS = ("TCPTimeouts", "TCPSpuriousRTOs", "TCPLossUndo", "TCPFullUndo",
                   "TCPPartialUndo", "TCPDSACKUndo", "TCPDSACKRecv", "TCPDSACKOldSent",
                   "TCPDSACKIgnoredNoUndo", "TCPLossProbes", "TCPSackRecovery",
                   "TCPSACKReorder", "TCPTSReorder", "TCPSackRecoveryFail",
                   "TCPLossProbeRecovery")
ENGINE = ("goodput_norm", "timeouts", "spurious_timeouts", "fast_retransmits",
          "spurious_fast_retransmits", "retransmissions", "undos", "undos_frto", "undos_dsack",
          "undos_eifel_timeout", "undos_eifel_fast_retransmit", "tlps", "tlp_recoveries")
#: The metrics the rows of 2026-11-27 stored for the engine (before ``tlps``).
STORED = ENGINE[:-2]


def one(cc: str, high: float, seed: int, duration: float, logs: Path,
        sample_interval_s: float = 0.01) -> dict:
    d = logs / f"{cc}-{high * 1000:.0f}-{seed}"
    rep = emulate(cc, **rtt_jump_link(high), duration_s=duration, seed=seed, log_dir=d,
                  sample_interval_s=sample_interval_s)
    t0, end = rep.raw["tcp"]["t0_s"], rep.raw["tcp"]["t0_s"] + rep.elapsed_s
    # The TCP_INFO samples beside the fate logs (cwnd, pacing rate, flight per sample).
    (d / "samples.json").write_text(json.dumps(rep.samples))
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


def engine_at(cc: str, high: float, seed: int, t0: float, duration: float, **extra):
    """The engine in ``crosscheck linux``'s configuration on the row's path, started at
    ``t0`` on the delay process's clock (as ``emulate.linux.replay`` starts it), lossless
    channels."""
    from lossytcp.emulate.linux import engine_config
    from lossytcp.sim import _run, build_scenario

    v = engine_variant(cc)
    link = rtt_jump_link(high)
    kw = dict(**link, duration_s=duration, seed=seed,
              **{**engine_config(packet_size_bytes=link["packet_size_bytes"], window=None,
                                 variant=v), **extra})
    sc = build_scenario(v, **kw)
    sc["flows"][0]["start_s"] = t0
    sc["duration_s"] = t0 + duration
    return _run(sc, v)


def engine_tlp(rows: list[dict], grid: list[float], duration: float) -> None:
    """The engine without and with ``tlp`` against the kernel's columns (see the module
    documentation): per (cc, RTT high) the means over the seeds, and paired over the seeds
    (Student's t, n - 1 degrees of freedom) the engine's goodput gap to the kernel without
    and with TLP."""
    from scipy import stats

    cols = ("goodput_norm", "timeouts", "spurious_timeouts", "tlps", "tlp_recoveries",
            "retransmissions", "fast_retransmits")
    per = {}
    exact = 0
    for r in rows:
        t0s = [r["t0_s"]] if r.get("t0_s") is not None else grid
        runs = {tlp: [engine_at(r["cc"], r["high"], r["seed"], t0, duration, tlp=tlp)
                      for t0 in t0s] for tlp in (False, True)}
        stored = [t0 for t0, x in zip(t0s, runs[False], strict=True)
                  if all(abs(x.metric(k) - r["engine"][k]) < 1e-9 for k in STORED)]
        exact += bool(stored)
        per[(r["cc"], r["high"], r["seed"])] = (
            {tlp: {c: float(np.mean([x.metric(c) for x in runs[tlp]])) for c in cols}
             for tlp in runs}, r["kernel"], stored)
    print(f"{exact} of {len(rows)} rows: some start time of the grid reproduces every stored "
          "engine metric exactly")
    print("| cc (engine) | RTT high | goodput k / e / e+tlp | timeouts k / e / e+tlp (e's "
          "spurious) | TLPs k / e+tlp | TLP recoveries k / e+tlp | retransmissions k / e / "
          "e+tlp | fast recoveries k / e / e+tlp | goodput e - k, e+tlp - k, e+tlp - e "
          "(paired t p) |")
    print("|---|---:|---|---|---|---|---|---|---|")
    for cc in dict.fromkeys(k[0] for k in per):
        for high in sorted({k[1] for k in per if k[0] == cc}):
            ks = [k for k in per if k[:2] == (cc, high)]

            def e(tlp: bool, c: str, ks: list = ks) -> list[float]:
                return [per[k][0][tlp][c] for k in ks]

            def kern(c: str, ks: list = ks) -> list[float]:
                return [float(per[k][1][c]) for k in ks]

            def three(kc: str, c: str, fmt: str) -> str:
                return " / ".join(format(float(np.mean(x)), fmt)
                                  for x in (kern(kc), e(False, c), e(True, c)))

            gaps = []
            g = {tlp: np.array(e(tlp, "goodput_norm")) for tlp in (False, True)}
            for d in (g[False] - np.array(kern("goodput_norm")),
                      g[True] - np.array(kern("goodput_norm")), g[True] - g[False]):
                p = stats.ttest_1samp(d, 0.0).pvalue if len(d) > 1 and d.std() > 0 else np.nan
                gaps.append(f"{d.mean():+.4f} (p {p:.2f})")
            print(f"| {cc} ({engine_variant(cc)}) | {high * 1000:.0f} ms "
                  f"| {three('goodput_norm', 'goodput_norm', '.3f')} "
                  f"| {three('TCPTimeouts', 'timeouts', '.2f')} "
                  f"({np.mean(e(False, 'spurious_timeouts')):.2f} / "
                  f"{np.mean(e(True, 'spurious_timeouts')):.2f}) "
                  f"| {np.mean(kern('TCPLossProbes')):.1f} / {np.mean(e(True, 'tlps')):.1f} "
                  f"| {np.mean(kern('TCPLossProbeRecovery')):.1f} / "
                  f"{np.mean(e(True, 'tlp_recoveries')):.2f} "
                  f"| {three('retransmissions', 'retransmissions', '.0f')} "
                  f"| {three('TCPSackRecovery', 'fast_retransmits', '.1f')} "
                  f"| {', '.join(gaps)} |")


def by_path(rows: list[dict]):
    """The rows by (cc, RTT high), in the order of the ccs and by RTT."""
    for cc in dict.fromkeys(r["cc"] for r in rows):
        for high in sorted({r["high"] for r in rows if r["cc"] == cc}):
            yield cc, high, [r for r in rows if r["cc"] == cc and r["high"] == high]


#: The kernel's response to reordering (the engine's options), each alone and together.
REORD = ("reordering", "rack_reo_wnd", "partial_undo")
REORD_VARIANTS = {"none": (), **{o: (o,) for o in REORD}, "all": REORD}
#: The engine's columns of the replay, and the kernel's counters beside them.
REORD_ENGINE = ("goodput_norm", "retransmissions", "fast_retransmits", "timeouts",
                "queue_drops", "reordering_events", "reordering_degree", "rack_reo_wnd_steps",
                "undos_partial", "undos_dsack", "undos_frto")


def engine_reord(rows: list[dict], duration: float, out: Path | None) -> None:
    """Each stored kernel run (rows with ``t0_s``) replayed in the engine with the kernel's
    reordering response off (``none``: crosscheck linux's configuration before it), each part
    alone and all of it (``all``, crosscheck linux's now); engine minus kernel per cc, paired
    over the runs (Student's t, Holm over goodput and retransmissions)."""
    from scipy import stats

    res = []
    for r in rows:
        if r.get("t0_s") is None:
            continue
        row = {k: r[k] for k in ("cc", "high", "seed", "t0_s", "kernel")}
        for name, on in REORD_VARIANTS.items():
            x = engine_at(r["cc"], r["high"], r["seed"], r["t0_s"], duration,
                          **{o: o in on for o in REORD})
            row[name] = {k: x.metric(k) if k != "queue_drops" else x.queue_drops
                         for k in REORD_ENGINE}
        res.append(row)
        print(f"{r['cc']} {r['high']} {r['seed']}: " + ", ".join(
            f"{n} {row[n]['goodput_norm']:.3f}/{row[n]['retransmissions']:.0f}"
            for n in REORD_VARIANTS) + f"; kernel {r['kernel']['goodput_norm']:.3f}/"
            f"{r['kernel']['retransmissions']}", flush=True)
    if out is not None:
        out.write_text(json.dumps(res, indent=1) + "\n")

    print("| cc | RTT high | goodput k / " + " / ".join(REORD_VARIANTS) + " | retransmissions k "
          "/ " + " / ".join(REORD_VARIANTS) + " | reordering events k / none / all | partial "
          "undos k / all | DSACK undos k / none / all | fast recoveries k / none / all | "
          "degree / steps (all) |")
    print("|---|---:|---|---|---|---|---|---|---|")
    for cc, high, rs in by_path(res):

        def m(side: str, c: str, rs: list = rs) -> float:
            return float(np.mean([kernel_metric(r, c) if side == "kernel" else r[side][c]
                                  for r in rs]))

        def cols(c: str, fmt: str, sides: tuple = ("kernel", *REORD_VARIANTS)) -> str:
            return " / ".join(format(m(s, c), fmt) for s in sides)

        print(f"| {cc} | {high * 1000:.0f} ms | {cols('goodput_norm', '.3f')} "
              f"| {cols('retransmissions', '.0f')} "
              f"| {cols('reordering_events', '.0f', ('kernel', 'none', 'all'))} "
              f"| {cols('undos_partial', '.1f', ('kernel', 'all'))} "
              f"| {cols('undos_dsack', '.1f', ('kernel', 'none', 'all'))} "
              f"| {cols('fast_retransmits', '.1f', ('kernel', 'none', 'all'))} "
              f"| {m('all', 'reordering_degree'):.0f} / {m('all', 'rack_reo_wnd_steps'):.1f} |")
    print("\nEngine minus kernel, paired over the runs of each cc (Student's t; Holm over the "
          "two metrics within each comparison):\n")
    print("| cc | metric | none - k (p, Holm) | all - k (p, Holm) | all - none (p, Holm) |")
    print("|---|---|---|---|---|")
    for cc in [*dict.fromkeys(r["cc"] for r in res), "all"]:
        rs = [r for r in res if cc in (r["cc"], "all")]
        cells: dict[str, list[str]] = {}
        for a, b in (("none", "kernel"), ("all", "kernel"), ("all", "none")):
            ps, ds = [], []
            for c in ("goodput_norm", "retransmissions"):
                d = np.array([r[a][c] - (kernel_metric(r, c) if b == "kernel" else r[b][c])
                              for r in rs])
                ds.append(d)
                ps.append(stats.ttest_1samp(d, 0.0).pvalue if d.std() > 0 else np.nan)
            order = np.argsort(ps)
            holm = np.empty(2)
            run = 0.0
            for i, j in enumerate(order):
                run = max(run, min(1.0, (2 - i) * ps[j]))
                holm[j] = run
            for c, d, p, h in zip(("goodput_norm", "retransmissions"), ds, ps, holm,
                                  strict=True):
                fmt = "+.4f" if c == "goodput_norm" else "+.0f"
                cells.setdefault(c, []).append(f"{d.mean():{fmt}} (p {p:.3f}, {h:.3f})")
        for c, v in cells.items():
            print(f"| {cc} | {c} | {' | '.join(v)} |")


#: What --compare-reord tests, engine (``all``) against kernel, and the kernel's counter for
#: each.
COMPARED = ("goodput_norm", "retransmissions", "fast_retransmits", "undos_partial",
            "reordering_events")


def kernel_metric(r: dict, m: str) -> float:
    """The kernel's value of engine metric ``m`` in replay row ``r``."""
    kk = r["kernel"]
    return float({"reordering_events": kk["TCPSACKReorder"] + kk["TCPTSReorder"],
                  "undos_partial": kk["TCPPartialUndo"], "undos_dsack": kk["TCPDSACKUndo"],
                  "fast_retransmits": kk["TCPSackRecovery"],
                  "timeouts": kk["TCPTimeouts"]}.get(m, kk.get(m, np.nan)))


def holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment of ``ps`` (NaN left as is, not counted)."""
    idx = [i for i, p in enumerate(ps) if not np.isnan(p)]
    out = [np.nan] * len(ps)
    run = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: ps[i])):
        run = max(run, min(1.0, (len(idx) - rank) * ps[i]))
        out[i] = run
    return out


def _side_value(a: list[dict], b: list[dict], side: str, which: str, i: int, m: str) -> float:
    """Metric ``m`` of run ``i``: the kernel's, or the engine's ``side`` before (``a``) or
    after (``b``)."""
    if which == "kernel":
        return kernel_metric(a[i], m)
    return float((a if which == "before" else b)[i][side][m])


def compare_reord(before: Path, after: Path, side: str = "all") -> None:
    """Two --engine-reord results of the same kernel rows (``side``: the configuration
    compared, crosscheck linux's ``all``): per cc and over all runs, for each metric of
    ``COMPARED``, engine minus kernel before and after and after minus before, paired over
    the runs (Student's t; Holm over the metrics within each column)."""
    from scipy import stats

    a = json.loads(before.read_text())
    b = json.loads(after.read_text())
    keys = [(r["cc"], r["high"], r["seed"]) for r in a]
    if keys != [(r["cc"], r["high"], r["seed"]) for r in b]:
        raise SystemExit(f"{before} and {after} hold different runs")
    print(f"before: {before}, after: {after} (engine '{side}'); p, Holm-adjusted p\n")
    print("| cc | metric | kernel | before | after | before - k | after - k | after - before |")
    print("|---|---|---:|---:|---:|---|---|---|")
    for cc in [*dict.fromkeys(k[0] for k in keys), "all"]:
        sel = [i for i, k in enumerate(keys) if cc in (k[0], "all")]
        cols: dict[str, list[tuple[float, float]]] = {}
        for name, x, y in (("bk", "before", "kernel"), ("ak", "after", "kernel"),
                           ("ab", "after", "before")):
            res = []
            for m in COMPARED:
                d = np.array([_side_value(a, b, side, x, i, m) - _side_value(a, b, side, y, i, m)
                              for i in sel])
                p = stats.ttest_1samp(d, 0.0).pvalue if d.std() > 0 else np.nan
                res.append((float(d.mean()), float(p)))
            adj = holm([p for _, p in res])
            cols[name] = [(d, p, h) for (d, p), h in zip(res, adj, strict=True)]
        for j, m in enumerate(COMPARED):
            fmt = "+.4f" if m == "goodput_norm" else "+.1f"
            def mean(which: str, m: str = m, sel: list[int] = sel) -> float:
                return float(np.mean([_side_value(a, b, side, which, i, m) for i in sel]))

            cells = [f"{cols[n][j][0]:{fmt}} (p {cols[n][j][1]:.3f}, {cols[n][j][2]:.3f})"
                     for n in ("bk", "ak", "ab")]
            vfmt = ".4f" if m == "goodput_norm" else ".1f"
            print(f"| {cc} | {m} | {mean('kernel'):{vfmt}} | {mean('before'):{vfmt}} "
                  f"| {mean('after'):{vfmt}} | {' | '.join(cells)} |")


def table(rows: list[dict]) -> None:
    """Means over the seeds; k: kernel, e: engine (crosscheck linux's configuration), x: the
    engine with eifel_undo as well."""
    print("| cc (engine) | RTT high | goodput k / e / x | timeouts k / e / x (spurious: k's "
          "F-RTO, e's true) | TLPs k | undos k Loss+Full+Partial+DSACK | undos e frto+dsack "
          "/ x | DSACKs recv k | retransmissions k / e / x | queue drops k / e / x "
          "| fast recoveries k / e / x |")
    print("|---|---:|---|---|---:|---|---|---:|---|---|---|")
    for cc, high, rs in by_path(rows):
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
    ap.add_argument("--sample-interval", type=float, default=0.01,
                    help="TCP_INFO sampling interval of the kernel runs, s [%(default)s]")
    ap.add_argument("--engine-tlp", action="store_true",
                    help="no kernel runs: the engine side of --out's rows without and with "
                         "tlp, against the kernel's columns")
    ap.add_argument("--t0-grid", default="0:0.5:0.01",
                    help="start:stop:step of the start times for rows without t0_s [%(default)s]")
    ap.add_argument("--engine-reord", type=Path, nargs="?", const=None, default=False,
                    metavar="JSON",
                    help="no kernel runs: --out's rows replayed with the engine's reordering "
                         "response off, each part alone and all on (rows written to JSON)")
    ap.add_argument("--compare-reord", type=Path, nargs=2, metavar=("BEFORE", "AFTER"),
                    help="no runs: two --engine-reord results of the same rows compared "
                         "(engine 'all' against the kernel, before and after)")
    a = ap.parse_args()
    if a.compare_reord:
        compare_reord(*a.compare_reord)
        return
    logs = a.logs or a.out.with_suffix(".logs")
    rows = [json.loads(x) for x in a.out.read_text().splitlines()] if a.out.exists() else []
    if a.engine_reord is not False:
        engine_reord(rows, a.duration, a.engine_reord)
        return
    if a.engine_tlp:
        start, stop, step = (float(x) for x in a.t0_grid.split(":"))
        engine_tlp(rows, [float(x) for x in np.arange(start, stop, step)], a.duration)
        return
    done = {(r["cc"], r["high"], r["seed"]) for r in rows}
    for cc in a.cc.split(","):
        for high in (float(x) for x in a.highs.split(",")):
            for seed in range(1, a.seeds + 1):
                if (cc, high, seed) in done:
                    continue
                row = one(cc, high, seed, a.duration, logs, a.sample_interval)
                rows.append(row)
                with a.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{cc} {high} {seed}: kernel {row['kernel']['goodput_norm']:.3f} "
                      f"engine {row['engine']['goodput_norm']:.3f}", flush=True)
    table(rows)


if __name__ == "__main__":
    main()
