"""ns-3 3.37 reference data for ``tests/reference/ns3/test_ns3.py``: each case below run by
``lossytcp.ns3`` (the program of ``lossytcp crosscheck ns3``) for seeds 1-10, the quantities
that command judges stored per seed in ``reference.json`` with the ns-3 version and the
program's source digest. The engine's side is recomputed by the test.

    .venv/bin/python tests/reference/ns3/make_ns3.py        # ~2 min, needs libns3-dev
    .venv/bin/python tests/reference/ns3/make_ns3.py CASE   # that case only, the rest kept
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "python"))

from lossytcp import ns3  # noqa: E402
from lossytcp.cli.crosscheck_ns3 import ns3_observation  # noqa: E402

OUT = HERE / "reference.json"
SEEDS = list(range(1, 11))
VARIANTS = ("newreno", "sack", "cubic", "bbr")
PATH = {"rate_bps": 10e6, "rtt_s": 0.1, "packet_size_bytes": 1000, "window": 100_000,
        "duration_s": 30.0}
#: name -> simulate() keywords besides PATH.
CASES = {
    # Random losses at 0.1% on a queue of 100 packets (under the BDP of 125).
    "bernoulli": {"channel": "bernoulli:p=0.001", "queue_packets": 100},
    # Bursts: Gilbert-Elliott per packet time, 1% of the slots bad, bursts of 10 on average.
    "ge": {"channel": "ge:alpha=0.001,beta=0.1,advance=slot", "queue_packets": 100},
    # No channel loss, a queue of 1000: only what the senders themselves overflow.
    "clean": {"channel": "none", "queue_packets": 1000},
    # No channel loss, RTT 40 ms (BDP 50) and a DropTail of 35: the slow-start overshoot
    # leaves SACKed data above holes when a recovery ends, which once made the engine's SACK
    # "cut" its window upward (a retransmission storm; see recovery/sack.rs flight_size).
    "overflow": {"channel": "none", "queue_packets": 35, "rtt_s": 0.04, "window": 1000},
}


def kwargs(variant: str, case: str) -> dict:
    return {**PATH, **CASES[case], **ns3.ENGINE_AS_NS3.get(variant, {})}


def main(only: list[str]) -> int:
    version = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True,
                             text=True, check=True).stdout.strip()
    unknown = sorted(set(only) - set(CASES))
    if unknown:
        sys.exit(f"unknown case(s) {unknown}: the cases are {sorted(CASES)}")
    kept = json.loads(OUT.read_text())["runs"] if only and OUT.exists() else []
    rows = [r for r in kept if r["case"] not in only]
    for v in VARIANTS:
        for case in only or CASES:
            kw = kwargs(v, case)
            per_seed = []
            for s in SEEDS:
                rep = ns3.simulate_ns3(v, seed=s, **kw)
                obs = ns3_observation(rep, kw["rate_bps"])
                per_seed.append({k.metric: x for k, x in obs.items()})
            rows.append({"variant": v, "case": case, "seeds": SEEDS, "ns3": per_seed})
            print(v, case, "done", flush=True)
    OUT.write_text(json.dumps({
        "ns3_version": version,
        "program_sha256": ns3.source_digest(),
        "path": PATH, "cases": CASES,
        "runs": sorted(rows, key=lambda r: (VARIANTS.index(r["variant"]),
                                            list(CASES).index(r["case"])))}, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
