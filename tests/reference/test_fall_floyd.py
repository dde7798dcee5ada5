"""Fall & Floyd's one-to-four-drops experiment: the engine's send trace against ns-2's.

Data: fall_floyd/<variant>-<k>drops.csv (ns-2 2.35's sender: time, segment, retransmission
flag) and fall_floyd/scenario.json, made by make_reference.py. The engine, with the 'ns2'
profile and the same drops (the first transmission of segments 40 .. 40+k-1), must send the
same segments at the same times (within 1 us) over the whole 6 s run.

Every case is currently xfail(strict): ns-2's Agent/TCP does not open cwnd on the first ACK
(delay_growth_), which shifts every later send by one RTT from the third packet on. The
ns2/README.md lists this and the later differences found with delay_growth_ off.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import lossytcp

HERE = Path(__file__).resolve().parent / "fall_floyd"
SC = json.loads((HERE / "scenario.json").read_text())
KW = {k: SC[k] for k in ("rate_bps", "rtt_s", "packet_size_bytes", "window", "duration_s",
                         "granularity_s", "min_rto_s", "initial_rto_s", "seed")}
GAP = "engine 'ns2' profile lacks ns-2's delay_growth_ (see ns2/README.md, 'Known gaps')"


def _ref(variant: str, k: int) -> list[tuple[float, int, bool]]:
    with open(HERE / f"{variant}-{k}drops.csv") as f:
        return [(float(r["time_s"]), int(r["seq"]), r["retransmission"] == "1")
                for r in csv.DictReader(f)]


def _first_difference(a: list, b: list) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x[1] != y[1] or x[2] != y[2] or abs(x[0] - y[0]) > 1e-6:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("variant", SC["variants"])
@pytest.mark.xfail(strict=True, reason=GAP)
def test_send_trace_matches_ns2(variant: str, k: int) -> None:
    seqs = "+".join(str(s) for s in range(SC["first_drop"], SC["first_drop"] + k))
    ours = lossytcp.simulate(variant, profile="ns2", channel=f"drops:seq={seqs}",
                             trace_sends=True, **KW).send_trace
    ref = _ref(variant, k)
    i = _first_difference([tuple(x) for x in ours], ref)
    assert i is None, f"first difference at send {i}: ns-2 {ref[i:i + 3]}, ours {ours[i:i + 3]}"


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("variant", SC["variants"])
def test_every_dropped_segment_is_resent_in_both(variant: str, k: int) -> None:
    drops = list(range(SC["first_drop"], SC["first_drop"] + k))
    seqs = "+".join(map(str, drops))
    ours = lossytcp.simulate(variant, profile="ns2", channel=f"drops:seq={seqs}",
                             trace_sends=True, **KW).send_trace
    for trace in (ours, _ref(variant, k)):
        resent = {s for _, s, rx in trace if rx}
        assert set(drops) <= resent
