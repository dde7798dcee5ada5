"""Regenerate the ns-2 2.35 reference data in this directory (``make reference``).

Two data sets, both produced by ``lossytcp.ns2`` (the generated Tcl scripts run by ``ns``):

* ``grid.csv`` / ``grid_cases.json``: per-seed metrics for a grid of scenarios, variants x
  channels x paths x seeds (``cases()`` below), 100 simulated seconds each, ns-2's timer
  settings (10 ms tick, 200 ms minimum RTO, 1 s initial RTO); ``grid_plain.csv`` the same
  with ns-2's limited transmit and delayed first-ACK growth off (``PLAIN``).
* ``fall_floyd/<variant>-<k>drops.csv``: the sender's send trace (time, segment,
  retransmission flag) for Fall & Floyd's experiment: 10 Mb/s, one-way delay 50 ms,
  1000 B packets, window 16, segments 40 .. 40+k-1 lost once, k = 1..4, for Tahoe, Reno,
  NewReno (``Agent/TCP/Newreno``), SACK (``Agent/TCP/Sack1``) and Vegas
  (``Agent/TCP/Vegas``), 6 s. ns-2's defaults;
  and again in ``fall_floyd/plain/`` with two ns-2 extras switched off, limited transmit
  (``singledup_ 0``) and delayed cwnd growth on the first ACK (``delay_growth_ false``),
  which isolates the recovery algorithms themselves.

    python tests/reference/make_reference.py [--only grid|fall-floyd]

Needs ``ns`` on PATH (Debian package ns2); the tests that read these files do not.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from lossytcp import ns2  # noqa: E402

SEEDS = (1, 2, 3, 4, 5)
DURATION_S = 100.0
TIMERS = dict(granularity_s=0.01, min_rto_s=0.2, initial_rto_s=1.0)
PATHS = {
    "2M-20ms": dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20),
    "10M-100ms": dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=64),
}
CHANNELS = {
    "bern-0.001": "bernoulli:p=0.001",
    "bern-0.02": "bernoulli:p=0.02",
    "ge-slot": "ge:alpha=0.01,beta=0.2,advance=slot",
    "twostate": "twostate:good=1s,bad=50ms",
    "burst": "burst:p=0.01,hold=50ms",
}
VARIANTS = ("oldtahoe", "tahoe", "reno", "newreno", "sack")
METRICS = ("goodput_norm", "throughput_norm", "packets_sent", "retransmissions",
           "channel_losses", "timeouts", "fast_retransmits", "timeout_fraction")

FF = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=16, duration_s=6.0,
          granularity_s=0.01, min_rto_s=1.0, initial_rto_s=3.0, seed=1)
FF_VARIANTS = ("tahoe", "reno", "newreno", "sack", "vegas")
FF_FIRST = 40
#: ns-2 extras switched off for the plain sets (the engine: limited_transmit=False,
#: delay_growth=False).
PLAIN = {"singledup_": 0, "delay_growth_": "false"}


def cases() -> list[dict]:
    out = []
    for path, pk in PATHS.items():
        for ch, spec in CHANNELS.items():
            for v in VARIANTS:
                out.append({"case": f"{v}/{path}/{ch}", "variant": v,
                            "kwargs": {**pk, "channel": spec, "duration_s": DURATION_S,
                                       **TIMERS}})
    return out


def make_grid() -> None:
    cs = cases()
    (HERE / "grid_cases.json").write_text(json.dumps(
        {"seeds": SEEDS, "metrics": METRICS, "ns2": "2.35 (Debian ns2)", "plain": PLAIN,
         "cases": cs}, indent=1) + "\n")
    for name, settings in (("grid.csv", None), ("grid_plain.csv", PLAIN)):
        _grid(cs, HERE / name, settings)


def _grid(cs: list[dict], out: Path, settings: dict | None) -> None:
    t0 = time.time()
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "seed", *METRICS])
        for i, c in enumerate(cs):
            for s in SEEDS:
                r = ns2.simulate_ns2(c["variant"], seed=s, agent_settings=settings,
                                     **c["kwargs"])
                w.writerow([c["case"], s, *(repr(r.metric(m)) for m in METRICS)])
            print(f"{out.name} [{i + 1}/{len(cs)}] {c['case']} ({time.time() - t0:.0f} s)",
                  flush=True)


def make_fall_floyd() -> None:
    for sub, settings in (("", None), ("plain", PLAIN)):
        _fall_floyd_set(HERE / "fall_floyd" / sub, settings)
    (HERE / "fall_floyd" / "scenario.json").write_text(json.dumps(
        {**FF, "first_drop": FF_FIRST, "variants": FF_VARIANTS, "plain": PLAIN}, indent=1) + "\n")


def _fall_floyd_set(d: Path, settings: dict | None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for v in FF_VARIANTS:
        for k in range(1, 5):
            seqs = "+".join(str(s) for s in range(FF_FIRST, FF_FIRST + k))
            rep, trace = ns2.run_drops(v, channel=f"drops:seq={seqs}", agent_settings=settings,
                                       **FF)
            with open(d / f"{v}-{k}drops.csv", "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["time_s", "seq", "retransmission"])
                for t, s, rx in trace:
                    w.writerow([f"{t:.9f}", s, int(rx)])
            print(f"fall-floyd {d.name} {v} {k} drops: {len(trace)} sends, timeouts "
                  f"{rep.timeouts}, fast retransmits {rep.fast_retransmits}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=["grid", "fall-floyd"], default=None)
    a = ap.parse_args(argv)
    if a.only in (None, "fall-floyd"):
        make_fall_floyd()
    if a.only in (None, "grid"):
        make_grid()
    return 0


if __name__ == "__main__":
    sys.exit(main())
