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
  ssthresh from the start of recovery, RFC 6675), the control for PRR.

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
    from lossytcp.emulate import emulate, replay_in_engine
    from lossytcp.emulate.linux import ENGINE_VARIANT, loss_event_rate, model_predictions
    from lossytcp.scenario import VARIANTS
    from lossytcp.variants import variant as variant_info

    r = emulate(cc, rate_bps=rate, rtt_s=0.04, packet_size_bytes=1500, queue=50,
                channel=channel, duration_s=duration, seed=seed, log_dir=wd)
    row = {"cc": cc, "channel": channel, "rate_bps": rate, "seed": seed,
           "kernel": {m: r.metric(m) for m in ("goodput_norm", "packets_sent",
                                               "retransmissions", "channel_losses",
                                               "queue_drops", "timeouts",
                                               "fast_retransmits")},
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
        for label, kw in runs:
            s = replay_in_engine(r, variant, **kw)
            row[label] = {m: s.metric(m) for m in row["kernel"]}
    return row


def table(rows: list[dict]) -> str:
    """Markdown: means over seeds of goodput (normalised) and loss detections."""
    keys = sorted({(r["cc"], r["channel"], r["rate_bps"]) for r in rows},
                  key=lambda k: (k[0], k[1], k[2]))
    out = ["| cc | channel | Mb/s | kernel goodput | engine | per-segment | RFC 5681 count | "
           "no PRR | PFTK | Mathis | kernel FR / TO / TLP | engine FR / TO | emulator p99 "
           "late, rate err |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
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
        pf = [r["models"].get("pftk", float("nan")) for r in rs]
        ma = [r["models"].get("mathis", float("nan")) for r in rs]
        det = (f"{mean([r['kernel']['fast_retransmits'] for r in rs])} / "
               f"{mean([r['kernel']['timeouts'] for r in rs])} / "
               f"{mean([float(r['loss_probes']) for r in rs])}")
        edet = (f"{mean([r['engine']['fast_retransmits'] for r in rs if 'engine' in r])} / "
                f"{mean([r['engine']['timeouts'] for r in rs if 'engine' in r])}")
        acc = (f"{max(r['lateness_p99_s'] for r in rs) * 1e6:.0f} us, "
               f"{max(abs(r['accuracy']['rate_error'] or 0) for r in rs) * 100:.2f}%")
        out.append(f"| {cc} | {name.get(ch, ch)} | {rate / 1e6:g} | {mean(k)} | {mean(e)} | "
                   f"{mean(s)} | {mean(rfc)} | {mean(nop)} | {mean(pf)} | {mean(ma)} | {det} | "
                   f"{edet} | {acc} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--rates", default="2e6,5e6,10e6")
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--out", default=None, help="also write every row as JSON there")
    a = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="lossytcp-linux-") as tmp:
        for cc in a.cc.split(","):
            for ch in CHANNELS.values():
                for rate in (float(x) for x in a.rates.split(",")):
                    for seed in range(1, a.seeds + 1):
                        wd = Path(tmp) / f"{cc}-{len(rows)}"
                        rows.append(run(cc, ch, rate, seed, a.duration, wd))
                        k = rows[-1]["kernel"]["goodput_norm"]
                        print(f"{cc} {ch} {rate:g} seed {seed}: kernel {k:.3f}",
                              file=sys.stderr)
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
