"""The engine's SACK (profile 'ns2') against ns-2 2.35's Sack1 under random losses, send for
send.

Data: fall_floyd/sack_traces/, made by make_sack_traces.py: the grid's sack/2M-20ms scenario
(plain) on ns-2's own Bernoulli losses of grid seeds 2 and 3 and on one fixed drop list.
Each case revealed a Sack1 rule (see the script's docstring); the engine must send the same
segments with the same retransmission flags at the same times (within 1 us).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import lossytcp

HERE = Path(__file__).resolve().parent / "fall_floyd" / "sack_traces"
SC = json.loads((HERE / "scenario.json").read_text())
KW = {k: v for k, v in SC.items() if k != "cases"}


def _ref(path: Path) -> list[tuple[float, int, bool]]:
    with open(path) as f:
        return [(float(r["time_s"]), int(r["seq"]), r["retransmission"] == "1")
                for r in csv.DictReader(f)]


@pytest.mark.parametrize("name", sorted(SC["cases"]))
def test_sack_send_trace_matches_ns2(name: str) -> None:
    case = SC["cases"][name]
    rep = lossytcp.simulate("sack", profile="ns2", trace_sends=True,
                            duration_s=case["duration_s"],
                            channel="drops:seq=" + "+".join(map(str, case["drops"])), **KW)
    ours = [(float(t), int(s), bool(rx)) for t, s, rx in rep.send_trace]
    ref = _ref(HERE / f"{name}.csv")
    for i, (x, y) in enumerate(zip(ours, ref, strict=False)):
        if x[1] != y[1] or x[2] != y[2] or abs(x[0] - y[0]) > 1e-6:
            raise AssertionError(f"first difference at send {i}: ns-2 {ref[i:i + 3]}, "
                                 f"ours {ours[i:i + 3]}")
    assert len(ours) == len(ref), f"{len(ours)} sends, ns-2 {len(ref)}"
