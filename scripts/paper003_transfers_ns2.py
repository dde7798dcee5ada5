"""Paper 003's short transfers in ns-2 2.35 itself: what the paper's mean completion times
(0.79 s NewReno-LP, 0.81 s NewReno) correspond to, since the paper gives neither its ns-2
version nor its timers (``lossytcp.figures.paper003``'s docstring reads these numbers).

One 10,000 B transfer (7 segments of 1500 B, ``useHeaders_ false``) per run from NewReno
(``Agent/TCP/Newreno``, ns-2 has no NewReno-LP) to a delayed-ACK sink over a 5 Mb/s link,
50 ms each way, DropTail queues of 42 packets (one BDP), 5% independent losses on the data
direction (``ErrorModel``, per packet, its own RNG seeded with ``ns2_seed(seed)``); the
completion time is the sender's ``done`` (every segment acknowledged), as the engine's
``completion_time_s``. Setups: the 2004 ns-2's timers (``minrto_`` 1 s, ``rtxcur_init_``
6 s) with and without the SYN exchange (``syn_``, default since 2001) and with the sink
holding segment 0 for its timer (``SYN_immediate_ack_`` false: that knob arrived in 2010);
ns-2.35's own defaults (0.2 s, 3 s, segment 0 acknowledged at once); and 0.2 s with a 6 s
initial RTO (the defaults between October 2004 and 2006).

    python scripts/paper003_transfers_ns2.py [--runs 500] [--drops]

``--drops`` instead loses only the first transmission of one segment (0 to 6) per run and
prints ns-2's and the engine's completion times side by side (same timers, no SYN).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

#: name -> (syn_, minrto_, rtxcur_init_, SYN_immediate_ack_)
SETUPS = {
    "2004 timers, no SYN (the engine's ns2-2004)": (False, 1.0, 6.0, False),
    "2004 timers, SYN exchange (ns-2 of 2004)": (True, 1.0, 6.0, False),
    "0.2 s / 6 s, SYN exchange (ns-2 of 2005)": (True, 0.2, 6.0, False),
    "ns-2.35 defaults, no SYN": (False, 0.2, 3.0, True),
    "ns-2.35 defaults, SYN exchange": (True, 0.2, 3.0, True),
}


def completion(ns: str, script: str, seed: int) -> float:
    out = subprocess.run([ns, script, str(seed)], capture_output=True, text=True,
                         check=True).stdout
    return float(out.split()[1]) if out.startswith("done") else math.nan


def engine_drop(k: int) -> float:
    from lossytcp import _sim
    from lossytcp import scenario as s
    from lossytcp.figures import paper003 as P

    sc = P.single_link("newreno", 5e6, 0.1, s.Drops(seqs=(k,)), duration_s=300.0,
                       tcp=s.Tcp(**P.SETUPS["ns2-2004"]), app=s.Transfer(bytes=10_000))
    return json.loads(_sim.run_json(json.dumps(sc.engine(seed=1))))["flows"][0][
        "completion_time_s"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--drops", action="store_true")
    a = ap.parse_args()
    if a.runs < 2:
        ap.error(f"--runs = {a.runs}: must be >= 2 (a mean and its interval)")
    from lossytcp.ns2.run import find_ns
    from lossytcp.ns2.script import ns2_seed
    from lossytcp.ns2.transfers import RANDOM_LOSS, drop_list, transfer_script

    ns = find_ns()
    with tempfile.TemporaryDirectory() as d:
        if a.drops:
            for k in range(7):
                path = Path(d) / f"drop{k}.tcl"
                path.write_text(transfer_script(drop_list([k])))
                print(f"segment {k} lost once: ns-2 {completion(ns, str(path), 1):.4f} s, "
                      f"engine {engine_drop(k):.4f} s")
            return
        for name, (syn, min_rto, init, sia) in SETUPS.items():
            path = Path(d) / "run.tcl"
            path.write_text(transfer_script(RANDOM_LOSS, syn=syn, min_rto_s=min_rto,
                                            initial_rto_s=init, syn_immediate_ack=sia))
            with ThreadPoolExecutor(2) as ex:
                t = list(ex.map(completion, [ns] * a.runs, [str(path)] * a.runs,
                                [ns2_seed(s) for s in range(1, a.runs + 1)]))

            hw = stats.t.ppf(0.9875, len(t) - 1) * statistics.stdev(t) / math.sqrt(len(t))
            print(f"{name}: mean {statistics.mean(t):.3f} ± {hw:.3f} s (97.5%), "
                  f"{sum(x > 3 for x in t) / len(t):.1%} over 3 s", flush=True)


if __name__ == "__main__":
    main()
