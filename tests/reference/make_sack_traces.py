"""ns-2 2.35 SACK (Sack1) send traces under random losses: the reference of
test_sack_traces.py.

Scenario: the grid's sack/2M-20ms case (2 Mb/s, RTT 20 ms, 500 B, window 20), plain
(``singledup_ 0``, ``delay_growth_ false``). Two kinds of drop lists:

* ``grid-seed<N>``: ns-2's own Bernoulli(0.02) losses for grid seed N as ns-2 drew them
  when its Tcl seed was ``seed + 1`` (before ``lossytcp.ns2.ns2_seed`` scrambled it), read
  from its link trace (every lost data transmission; each one is the first k transmissions
  of its segment, so a drop list states them exactly). Those drop lists are kept in
  scenario.json and replayed with run_drops(), which gives the same send trace, so the data
  no longer depends on the seed mapping;
* ``list-<name>``: a fixed list replayed with run_drops().

Each fails without two Sack1 rules (ns2/README.md, Known gaps, item 9): the ACK that
triggers the fast retransmit sends nothing else (list-a at 0.715 s, grid-seed3 at 1.74 s),
and the ACK ending recovery sets ``recover_ = 0`` (grid-seed2 at 1.71 s).

    python tests/reference/make_sack_traces.py      (needs ns on PATH)
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from lossytcp.ns2.run import run_drops

HERE = Path(__file__).resolve().parent / "fall_floyd" / "sack_traces"
SCENARIO = dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20,
                granularity_s=0.01, min_rto_s=0.2, initial_rto_s=1.0,
                limited_transmit=False, delay_growth=False)
PLAIN = {"singledup_": 0, "delay_growth_": "false"}
#: ns-2's own losses of grid seeds 2 (10 s) and 3 (35 s) under the old seed mapping, kept in
#: scenario.json (see the docstring)
GRID = ("grid-seed2", "grid-seed3")
LISTS = {"list-a": ([14, 91, 123, 123, 149, 176, 199, 252, 275, 380, 456], 4.0)}


def _write(name: str, trace: list[tuple[float, int, bool]]) -> None:
    with open(HERE / f"{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time_s", "seq", "retransmission"])
        for t, s, rx in trace:
            w.writerow([f"{t:.9f}", s, int(rx)])


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    cases: dict[str, dict] = {}
    frozen = json.loads((HERE / "scenario.json").read_text())["cases"]
    for name in GRID:
        drops, dur = frozen[name]["drops"], frozen[name]["duration_s"]
        _, trace = run_drops("sack", channel="drops:seq=" + "+".join(map(str, drops)),
                             duration_s=dur, agent_settings=PLAIN, **SCENARIO)
        cases[name] = {"drops": drops, "duration_s": dur}
        _write(name, trace)
    for name, (drops, dur) in LISTS.items():
        _, trace = run_drops("sack", channel="drops:seq=" + "+".join(map(str, drops)),
                             duration_s=dur, agent_settings=PLAIN, **SCENARIO)
        cases[name] = {"drops": drops, "duration_s": dur}
        _write(name, trace)
    (HERE / "scenario.json").write_text(json.dumps({**SCENARIO, "cases": cases}, indent=1))
    for name in cases:
        print(name, len(cases[name]["drops"]), "drops")


if __name__ == "__main__":
    main()
