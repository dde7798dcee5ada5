"""Westwood+ cross-check data (issue 10): ns-2 2.35's ``Agent/TCP/Linux`` with ``select_ca
westwood`` and ns-3 3.37's ``TcpWestwood`` (ProtocolType WestwoodPlus), the reference of
test_westwood.py.

Cases (``CASES``): paper 003's single wireless link, RTT 100 ms, 1500 B packets, delayed
ACKs, a DropTail queue of one bandwidth-delay product, a receive window of 1000 segments,
100 s: 10 Mb/s at PER 0.001, 0.01, 0.05, 5 Mb/s at 0.01, 2 Mb/s at 0.001 and 0.05
(Bernoulli, per transmission), and 10 Mb/s without channel loss (congestion only). Seeds
1-20 on every side; each side draws its own channel realization.

Written into ``westwood/``:

* ``ns2.csv``: per seed, ns-2's Linux agent running Westwood+ with a SACK receiver
  (``Agent/TCPSink/Sack1/DelAck``: the agent's only loss detection short of a timeout), the
  same without SACK (``Agent/TCPSink/DelAck``), and Linux's Reno module with SACK (a control:
  the same agent and recovery without Westwood's estimator).
* ``ns3.csv``: per seed, ns-3's Westwood+ and, as a control, its NewReno, from
  ``bench/ns3/lossytcp-bench`` (classic recovery, no SACK, ``DelAckCount 2``, delayed-ACK
  timer 0.1 s as ns-2's and the engine's).
* ``replays.json``: one 30 s ns-2 run per (case, receiver) of ``REPLAYS``, seed 1: the fate of
  each of its data transmissions and its send trace, for the engine to replay.
* ``cases.json``: the cases, seeds and settings.

    python tests/reference/make_westwood.py [--only ns2|ns3|replays] [--table]

``--table`` prints the comparison of ns2/README.md ("Westwood+ and ns-2's Linux agent") from
the stored data and fresh engine runs: per case and metric the means with 95% intervals,
Welch's t-test with Holm's correction over the four metrics of a case, and test_grid.py's
acceptance rule. Needs ``ns`` on PATH (Debian ns2) and, for ns-3, ``libns3-dev``
(``bench/ns3/build.sh``); the tests that read the data need neither. About 25 minutes
on two shared cores, ns-3 the most of it.
"""

from __future__ import annotations

import argparse
import base64
import csv
import json
import math
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "python"))

from lossytcp.ns2.linux import linux_link_trace, linux_name, simulate_linux  # noqa: E402

OUT = HERE / "westwood"
SEEDS = tuple(range(1, 21))
DURATION_S = 100.0
SIZE_B = 1500
RTT_S = 0.1
#: Path and sender settings shared by every case and every simulator.
COMMON = dict(rtt_s=RTT_S, packet_size_bytes=SIZE_B, window=1000, delayed_ack=True,
              duration_s=DURATION_S, min_rto_s=0.2, initial_rto_s=1.0)
#: case -> (rate, Bernoulli PER or None for no channel loss)
CASES: dict[str, tuple[float, float | None]] = {
    "10M-p0.001": (10e6, 0.001),
    "10M-p0.01": (10e6, 0.01),
    "10M-p0.05": (10e6, 0.05),
    "5M-p0.01": (5e6, 0.01),
    "2M-p0.001": (2e6, 0.001),
    "2M-p0.05": (2e6, 0.05),
    "10M-congestion": (10e6, None),
}
#: ns-2 senders: (module, SACK receiver)
NS2_SENDERS = (("westwood", True), ("westwood", False), ("reno", True))
#: ns-3 congestion controls of bench/ns3/lossytcp-bench.cc
NS3_CCS = ("westwoodplus", "newreno")
METRICS = ("goodput_norm", "timeouts", "fast_retransmits", "retransmissions", "packets_sent")
REPLAYS = ("10M-p0.01", "2M-p0.05", "10M-congestion")
REPLAY_S = 30.0
NS3 = ROOT / "bench" / "ns3" / "lossytcp-bench"


def bdp_packets(rate_bps: float) -> int:
    """Paper 003's queue: one bandwidth-delay product, whole packets, rounded up."""
    return math.ceil(rate_bps * RTT_S / (8 * SIZE_B))


def case_kwargs(case: str) -> dict:
    """simulate()'s keywords for a case (the engine's and ns-2's)."""
    rate, per = CASES[case]
    return {**COMMON, "rate_bps": rate, "queue_packets": bdp_packets(rate),
            "channel": "none" if per is None else f"bernoulli:p={per}"}


def pack(bits: list[bool]) -> str:
    raw = bytearray((len(bits) + 7) // 8)
    for i, b in enumerate(bits):
        if b:
            raw[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(raw)).decode()


def unpack(text: str, n: int) -> list[bool]:
    raw = base64.b64decode(text)
    return [bool(raw[i // 8] >> (i % 8) & 1) for i in range(n)]


def _write(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def make_ns2() -> None:
    rows = []
    for case in CASES:
        for cc, sack in NS2_SENDERS:
            for s in SEEDS:
                r = simulate_linux(cc, sack=sack, seed=s, **case_kwargs(case))
                rows.append({"case": case, "sim": linux_name(cc, sack), "seed": s,
                             **{m: r.metric(m) for m in METRICS}})
            print(f"ns-2 {case} {linux_name(cc, sack)}", flush=True)
    _write(OUT / "ns2.csv", rows)


def ns3_run(cc: str, case: str, seed: int) -> dict:
    """One run of the ns-3 twin (its JSON line)."""
    kw = case_kwargs(case)
    args = [str(NS3), f"--cc={cc}", f"--rate={kw['rate_bps']}", f"--rtt={RTT_S}",
            f"--size={SIZE_B}", f"--window={kw['window']}", f"--queue={kw['queue_packets']}",
            f"--duration={DURATION_S}", f"--channel={kw['channel']}", f"--seed={seed}",
            "--delack=2", "--delack-timeout=0.1"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def make_ns3() -> None:
    if subprocess.run(["sh", str(NS3.parent / "build.sh")]).returncode != 0:
        print(f"ns-3 not available: {OUT / 'ns3.csv'} kept as it is", file=sys.stderr)
        return
    rows = []
    for case in CASES:
        for cc in NS3_CCS:
            for s in SEEDS:
                r = ns3_run(cc, case, s)
                rows.append({"case": case, "sim": f"ns3-{cc}", "seed": s,
                             **{m: r[m] for m in METRICS}})
            print(f"ns-3 {case} {cc}", flush=True)
    _write(OUT / "ns3.csv", rows)


def make_replays() -> None:
    runs = []
    for case in REPLAYS:
        for sack in (True, False):
            kw = {**case_kwargs(case), "duration_s": REPLAY_S}
            rep, sends, fates = linux_link_trace("westwood", sack=sack, seed=1, **kw)
            runs.append({"case": case, "sim": linux_name("westwood", sack), "kwargs": kw,
                         "n_fates": len(fates), "fates": pack(fates),
                         "sends": [[round(t * 1e6), s, int(rx)] for t, s, rx in sends],
                         "timeouts": rep.timeouts, "fast_retransmits": rep.fast_retransmits})
            print(f"replay {case} {linux_name('westwood', sack)}: {len(sends)} sends, "
                  f"{sum(fates)} losses", flush=True)
    (OUT / "replays.json").write_text(json.dumps({"ns2": "2.35 (Debian ns2)", "seed": 1,
                                                  "runs": runs}) + "\n")


def write_cases() -> None:
    (OUT / "cases.json").write_text(json.dumps({
        "seeds": list(SEEDS), "metrics": list(METRICS),
        "cases": {c: case_kwargs(c) for c in CASES},
        "ns2": [linux_name(cc, sack) for cc, sack in NS2_SENDERS],
        "ns3": [f"ns3-{cc}" for cc in NS3_CCS],
        "ns3_settings": "bench/ns3/lossytcp-bench --delack=2 --delack-timeout=0.1 (classic "
                        "recovery, no SACK, no timestamps, min RTO 0.2 s, initial cwnd 1)",
    }, indent=1) + "\n")


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) or math.isinf(x) else f"{x:+.0%}"


def table() -> None:
    """The README tables: engine westwood-plus against each reference, per case and metric;
    then the controls (the same simulators without Westwood), goodput and timeouts."""
    sys.path.insert(0, str(HERE))
    from test_westwood import JUDGED, REFERENCES, comparison, engine_runs, load

    for csvname, sim in REFERENCES.values():
        data = load(csvname)
        print(f"\n### engine westwood-plus against {sim}\n")
        print("| case | metric | engine (95% CI) | reference (95% CI) | diff | Welch p (Holm) "
              "| rule |")
        print("|---|---|---:|---:|---:|---:|---|")
        for case in CASES:
            for row in comparison(engine_runs(case), data[case][sim], JUDGED):
                print(f"| {case} | {row['metric']} | {row['a']:.4g} ± {row['a_ci']:.2g} | "
                      f"{row['b']:.4g} ± {row['b_ci']:.2g} | {_pct(row['rel'])} | "
                      f"{row['p_holm']:.2g} | {'agrees' if row['ok'] else 'differs'} |")
    controls = (("sack", "ns2.csv", "linux-reno-sack"), ("newreno", "ns3.csv", "ns3-newreno"),
                ("westwood-plus", "ns2.csv", "linux-westwood-nosack"))
    print("\n### controls: goodput and timeouts (engine variant against reference)\n")
    print("| case | " + " | ".join(f"{v} vs {sim}" for v, _, sim in controls) + " |")
    print("|---|" + "---:|" * len(controls))
    for case in CASES:
        cells = []
        for variant, csvname, sim in controls:
            rows = comparison(engine_runs(case, variant), load(csvname)[case][sim],
                              ("goodput_norm", "timeouts"))
            g, t = rows
            cells.append(f"{g['a']:.3f} / {g['b']:.3f}; {t['a']:.3g} / {t['b']:.3g}")
        print(f"| {case} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["ns2", "ns3", "replays"])
    ap.add_argument("--table", action="store_true", help="print the README table and stop")
    a = ap.parse_args()
    if a.table:
        table()
        return
    OUT.mkdir(exist_ok=True)
    write_cases()
    if a.only in (None, "ns2"):
        make_ns2()
    if a.only in (None, "ns3"):
        make_ns3()
    if a.only in (None, "replays"):
        make_replays()


if __name__ == "__main__":
    main()
