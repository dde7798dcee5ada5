"""The engine's profile 'ns2' against ns-2 2.35 on ns-2's own random losses, send for send.

Data: replays.json, made by make_replays.py: for each variant and each channel kind, one
30-second ns-2 run (its defaults, seed 1) with the channel's fate for each of its data
transmissions, and digests of its send trace. The engine replays those fates through a
``trace:`` channel (one outcome per transmission, in order), so both senders face the same
losses for as long as they send the same packets; they must send the same segments with the
same retransmission flags at the same microsecond for the whole run. This separates the
sender (checked exactly here) from the channel models (checked in law by test_ns2_tcl.py and
in effect by test_grid.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from make_replays import digests, unpack

import lossytcp

HERE = Path(__file__).resolve().parent
DATA = json.loads((HERE / "replays.json").read_text())


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["case"] for c in DATA["cases"]])
def test_engine_sends_what_ns2_sends_on_the_same_losses(case: dict, tmp_path: Path) -> None:
    fates = unpack(case["fates"], case["n_fates"])
    outcomes = tmp_path / "fates.txt"
    outcomes.write_text("".join("1\n" if x else "0\n" for x in fates))
    kw = {**case["kwargs"], "channel": f"trace:file={outcomes}"}
    rep = lossytcp.simulate(case["variant"], seed=DATA["seed"], profile="ns2",
                            trace_sends=True, **kw)
    ours = digests([(float(t), int(s), bool(rx)) for t, s, rx in rep.send_trace])
    block = DATA["block"]
    for i, (a, b) in enumerate(zip(ours, case["digests"], strict=False)):
        if a != b:
            raise AssertionError(
                f"first difference within sends {i * block}..{(i + 1) * block - 1}; see it "
                f"with lossytcp.ns2.compare_send_traces({case['variant']!r}, seed=1, "
                f"**{case['kwargs']!r})")
    assert len(rep.send_trace) == case["n_sends"]


def test_the_replays_contain_losses_of_every_kind() -> None:
    # Timeouts and multiple losses per window are where senders differ: make sure the stored
    # runs have plenty of losses and that the bursty channels lose runs of packets.
    for c in DATA["cases"]:
        fates = unpack(c["fates"], c["n_fates"])
        assert sum(fates) >= 20, c["case"]
        if c["case"].endswith(("burst", "twostate")):
            runs = sum(1 for a, b in zip(fates, fates[1:], strict=False) if a and b)
            assert runs >= 10, c["case"]
