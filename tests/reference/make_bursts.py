"""ns-2 2.35 send traces for loss bursts: the reference of test_bursts.py.

Four fixed drop lists (several bursts of 1-6 consecutive segments, seeded draws written out
below so the data never depends on this script's random generator), 10 Mb/s, RTT 100 ms,
1000 B, window 64, tick 10 ms, minrto 0.2 s, rtxcur_init 1 s, 10 s, ns-2's defaults, for
Tahoe, Reno, NewReno, SACK (Sack1) and Vegas (20 s: it reaches list d's last segments later).
These reach what Fall & Floyd's single burst does not: several recoveries, timeouts during
fast recovery, partial ACKs covering many segments, Vegas's fine-grained retransmissions.

    python tests/reference/make_bursts.py      (needs ns on PATH)
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from lossytcp.ns2.run import run_drops

HERE = Path(__file__).resolve().parent / "fall_floyd" / "bursts"
SCENARIO = dict(rate_bps=1e7, rtt_s=0.1, packet_size_bytes=1000, window=64, duration_s=10.0,
                granularity_s=0.01, min_rto_s=0.2, initial_rto_s=1.0)
DROPS = {
    "a": [37, 38, 39, 65, 66, 67, 68, 73, 74, 75, 76, 77, 235, 236, 237, 238],
    "b": [33, 48, 49, 50, 91, 92, 93, 94, 95, 96, 162, 163, 164],
    "c": [57, 58, 59, 60, 61, 62, 84, 125, 126, 127, 207, 208, 209, 210],
    "d": [150, 195, 199, 200, 462, 463, 464, 468, 469, 470, 471, 472, 481, 482, 483, 484, 525,
          526, 527, 528, 529, 530, 531, 532, 556, 557, 558, 559, 560, 561, 614, 615, 616, 617,
          649, 650, 651, 652, 653, 654],
}
VARIANTS = ("tahoe", "reno", "newreno", "sack", "vegas")
#: Variants that need longer than ``duration_s`` to send every listed segment.
DURATION_S_BY_VARIANT = {"vegas": 20.0}


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    (HERE / "scenario.json").write_text(json.dumps(
        {**SCENARIO, "duration_s_by_variant": DURATION_S_BY_VARIANT, "drops": DROPS,
         "variants": list(VARIANTS)}, indent=1))
    for v in VARIANTS:
        for name, drops in DROPS.items():
            ch = "drops:seq=" + "+".join(map(str, drops))
            kw = {**SCENARIO, "duration_s": DURATION_S_BY_VARIANT.get(v, SCENARIO["duration_s"])}
            _, trace = run_drops(v, channel=ch, **kw)
            with open(HERE / f"{v}-{name}.csv", "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["time_s", "seq", "retransmission"])
                for t, s, rx in trace:
                    w.writerow([f"{t:.9f}", s, int(rx)])
            print(v, name, len(trace))


if __name__ == "__main__":
    main()
