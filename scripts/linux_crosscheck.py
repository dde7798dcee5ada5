"""The kernel's TCP against the engine and the models: the comparison tables of
``python/lossytcp/emulate/README.md`` (issue 23).

    sudo .venv/bin/python scripts/linux_crosscheck.py [--duration 20] [--seeds 2] \
        [--rates 2e6,5e6,10e6] [--cc reno,cubic] [--out results.json]

Per congestion control, channel (Bernoulli p = 1%, Gilbert-Elliott alpha 0.002, beta 0.3
per transmission: bursts of 3.3, 0.66% lost), rate and seed: the kernel's transfer through
the emulator (RTT 40 ms, 1500 B packets, a 50-packet DropTail), then the engine on the
kernel run's own losses in two configurations, and PFTK and the square-root law at the
channel's loss-event rate the kernel saw (runs of consecutive channel losses per data
transmission), the window bounded by what the path holds (BDP + queue), b = 1 (Linux grows
by segments acked), lossytcp.emulate.linux.model_predictions:

* ``engine`` -- the engine's closest Linux-like configuration (lossytcp.emulate.linux: sack,
  IW10, delayed ACKs, limited transmit, RTO = SRTT + max(200 ms, 4 RTTVAR));
* ``per-segment`` -- the same without delayed ACKs: one ACK per segment, so the engine's
  per-ACK window growth equals Linux's per-segment growth (the control run that measures
  how much of the difference that one mechanism makes);
* ``rfc5681`` (reno) -- RFC 5681's window count instead of Linux's, the control for it;
* ``no_prr`` (reno, cubic) -- without RFC 6937's rate reduction in fast recovery (cwnd =
  ssthresh from the start of recovery, RFC 6675), the control for PRR;
* ``rack`` and ``no_rack`` (SACK variants) -- with and without RACK's time-based loss
  detection (RFC 8985 §6, the engine's ``rack``; Linux's default, ``tcp_recovery = 1``),
  whatever ``engine_config`` sets: each the other's control.

CUBIC and BBR: the kernel's against the engine's ``cubic`` (with Linux's rules and HyStart,
lossytcp.emulate.linux.LINUX_KNOBS) and ``bbr``, and the models. Real time: duration x runs,
plus a few seconds each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

CHANNELS = {"bernoulli 1%": "bernoulli:p=0.01",
            "GE bursts": "ge:alpha=0.002,beta=0.3,advance=transmission"}


def run(cc: str, channel: str, rate: float, seed: int, duration: float, wd: Path) -> dict:
    import pickle

    from lossytcp.emulate import emulate

    r = emulate(cc, rate_bps=rate, rtt_s=0.04, packet_size_bytes=1500, queue=50,
                channel=channel, duration_s=duration, seed=seed, log_dir=wd)
    # The kernel run kept (its fate logs are in wd): `--replay` runs the engine on it again.
    (wd / "report.pkl").write_bytes(pickle.dumps(r))
    return engine_rows(r, cc, channel, rate, seed)


def engine_rows(r, cc: str, channel: str, rate: float, seed: int) -> dict:
    """The row of kernel run ``r``: its metrics, the models, the engine's replays."""
    from lossytcp.emulate import replay_in_engine
    from lossytcp.emulate.linux import ENGINE_VARIANT, loss_event_rate, model_predictions
    from lossytcp.scenario import VARIANTS
    from lossytcp.variants import variant as variant_info

    row = {"cc": cc, "channel": channel, "rate_bps": rate, "seed": seed,
           "kernel": {m: r.metric(m) for m in ("goodput_norm", "packets_sent",
                                               "retransmissions", "channel_losses",
                                               "queue_drops", "timeouts",
                                               "fast_retransmits",
                                               "rack_lost_retransmissions")},
           "loss_probes": r.loss_probes, "srtt_s": r.srtt_s, "min_rtt_s": r.min_rtt_s,
           "accuracy": {k: r.accuracy.get(k) for k in ("ok", "rate_error", "delay_error",
                                                        "cpu_fraction")},
           "lateness_p99_s": r.links[0]["lateness"]["p99_s"]}
    row["loss_rate"] = (r.channel_losses + r.queue_drops) / max(r.packets_sent, 1)
    row["loss_event_rate"] = loss_event_rate(r)
    row["loss_event_rate_all"] = loss_event_rate(r, channel_only=False)
    row["models"] = model_predictions(r)
    variant = ENGINE_VARIANT.get(cc)
    if variant in VARIANTS:
        runs = [("engine", {}), ("per-segment", {"delayed_ack": False})]
        if "reno_rules" in variant_info(variant).params:
            # the control for the engine's Linux window: RFC 5681's count, the default
            runs.append(("rfc5681", {"reno_rules": "rfc5681"}))
        if variant in ("sack", "cubic"):
            # the control for PRR (tcp_cwnd_reduction(); BBR has none): RFC 6675's cwnd =
            # ssthresh from the recovery's start
            runs.append(("no_prr", {"prr": False}))
        if variant in ("sack", "cubic", "bbr"):
            # (without rack its refinements, the kernel's reordering response, are off too;
            # no_reord is the control for that response)
            reord = dict.fromkeys(("reordering", "rack_reo_wnd", "partial_undo"), False)
            runs += [("rack", {"rack": True}), ("no_rack", {"rack": False, **reord}),
                     ("no_reord", reord)]
        for label, kw in runs:
            s = replay_in_engine(r, variant, **kw)
            row[label] = {m: s.metric(m) for m in row["kernel"]}
    return row


def run_retrying(cc: str, channel: str, rate: float, seed: int, duration: float, wd: Path,
                 attempts: int = 4) -> dict:
    """:func:`run`, again after a pause when the emulator's accuracy did not hold (the shared
    machine's load; the kernel run is then not used)."""
    import time

    from lossytcp.emulate import EmulatorInaccurate

    for attempt in range(attempts):
        try:
            return run(cc, channel, rate, seed, duration, wd / f"attempt{attempt}")
        except EmulatorInaccurate as e:
            if attempt == attempts - 1:
                raise
            print(f"{cc} {channel} {rate:g} seed {seed}: {e}; again in 30 s", file=sys.stderr)
            time.sleep(30)
    raise AssertionError("unreachable")


def table(rows: list[dict]) -> str:
    """Markdown: means over seeds of goodput (normalised) and loss detections."""
    keys = sorted({(r["cc"], r["channel"], r["rate_bps"]) for r in rows},
                  key=lambda k: (k[0], k[1], k[2]))
    out = ["| cc | channel | Mb/s | kernel goodput | engine | per-segment | RFC 5681 count | "
           "no PRR | RACK | no RACK | PFTK | Mathis | kernel FR / TO / TLP | engine FR / TO | "
           "RACK FR / TO | no RACK FR / TO | lost retransmissions k / RACK | emulator p99 "
           "late, rate err |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---|---|"]
    name = {v: k for k, v in CHANNELS.items()}

    def mean(xs: list[float]) -> str:
        xs = [x for x in xs if x == x]
        return f"{statistics.mean(xs):.3f}" if xs else "-"

    for cc, ch, rate in keys:
        rs = [r for r in rows if (r["cc"], r["channel"], r["rate_bps"]) == (cc, ch, rate)]
        k = [r["kernel"]["goodput_norm"] for r in rs]
        e = [r["engine"]["goodput_norm"] for r in rs if "engine" in r]
        s = [r["per-segment"]["goodput_norm"] for r in rs if "per-segment" in r]
        rfc = [r["rfc5681"]["goodput_norm"] for r in rs if "rfc5681" in r]
        nop = [r["no_prr"]["goodput_norm"] for r in rs if "no_prr" in r]
        rk = [r["rack"]["goodput_norm"] for r in rs if "rack" in r]
        nrk = [r["no_rack"]["goodput_norm"] for r in rs if "no_rack" in r]
        pf = [r["models"].get("pftk", float("nan")) for r in rs]
        ma = [r["models"].get("mathis", float("nan")) for r in rs]
        det = (f"{mean([r['kernel']['fast_retransmits'] for r in rs])} / "
               f"{mean([r['kernel']['timeouts'] for r in rs])} / "
               f"{mean([float(r['loss_probes']) for r in rs])}")
        def fr_to(label: str, rs: list[dict] = rs) -> str:
            return (f"{mean([r[label]['fast_retransmits'] for r in rs if label in r])} / "
                    f"{mean([r[label]['timeouts'] for r in rs if label in r])}")

        nan = float("nan")
        lost_rx = (f"{mean([r['kernel'].get('rack_lost_retransmissions', nan) for r in rs])}"
                   " / " + mean([r["rack"]["rack_lost_retransmissions"]
                                 for r in rs if "rack" in r]))
        acc = (f"{max(r['lateness_p99_s'] for r in rs) * 1e6:.0f} us, "
               f"{max(abs(r['accuracy']['rate_error'] or 0) for r in rs) * 100:.2f}%")
        out.append(f"| {cc} | {name.get(ch, ch)} | {rate / 1e6:g} | {mean(k)} | {mean(e)} | "
                   f"{mean(s)} | {mean(rfc)} | {mean(nop)} | {mean(rk)} | {mean(nrk)} | "
                   f"{mean(pf)} | {mean(ma)} | {det} | {fr_to('engine')} | {fr_to('rack')} | "
                   f"{fr_to('no_rack')} | {lost_rx} | {acc} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--rates", default="2e6,5e6,10e6")
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--out", default=None, help="also write every row as JSON there")
    ap.add_argument("--keep", default=None,
                    help="keep the kernel runs (fate logs, reports) in this directory")
    ap.add_argument("--replay", default=None,
                    help="no kernel run: the engine on the runs --keep kept there")
    a = ap.parse_args(argv)
    rows = []
    if a.replay:
        import pickle

        for p in sorted(Path(a.replay).glob("*/attempt*/report.pkl"),
                        key=lambda p: int(p.parent.parent.name.rsplit("-", 1)[1])):
            r = pickle.loads(p.read_bytes())
            rows.append(engine_rows(r, r.cc, r.path["channel"], r.path["rate_bps"], r.seed))
        if a.out:
            Path(a.out).write_text(json.dumps(rows, indent=1))
        print(table(rows))
        return 0
    with tempfile.TemporaryDirectory(prefix="lossytcp-linux-") as tmp_dir:
        tmp = a.keep or tmp_dir
        for cc in a.cc.split(","):
            for ch in CHANNELS.values():
                for rate in (float(x) for x in a.rates.split(",")):
                    for seed in range(1, a.seeds + 1):
                        wd = Path(tmp) / f"{cc}-{len(rows)}"
                        rows.append(run_retrying(cc, ch, rate, seed, a.duration, wd))
                        if a.out:   # as it goes: an interrupted series keeps what it ran
                            Path(a.out).write_text(json.dumps(rows, indent=1))
                        k = rows[-1]["kernel"]["goodput_norm"]
                        print(f"{cc} {ch} {rate:g} seed {seed}: kernel {k:.3f}",
                              file=sys.stderr)
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
