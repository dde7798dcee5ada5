"""Fall & Floyd's one-to-four-drops experiment: the engine's send trace against ns-2's.

Data (make_reference.py): fall_floyd/<variant>-<k>drops.csv, ns-2 2.35's sender with its
defaults (limited transmit ``singledup_ 1``, ``delay_growth_ true``: the engine's ns2 profile
defaults), and fall_floyd/plain/<variant>-<k>drops.csv, the same with both off, compared with
``simulate(limited_transmit=False, delay_growth=False)``. 10 Mb/s, RTT 100 ms, 1000 B,
window 16, the first transmission of segments 40 .. 40+k-1 lost, 6 s. The engine (profile
'ns2', same drops) must send the same segments, with the same retransmission flags, at the
same times (within 1 us), for the whole run.

Known differences (python/lossytcp/ns2/README.md, "Known gaps") would be strict xfails in
PLAIN_GAPS / DEFAULT_GAPS, so that a fix shows up as a failure asking for the mark to go;
there are none left: every variant matches both flavours. SACK does in the ns2 profile
because that profile runs ns-2's 1996 Sack1 rules (its counted pipe_); the rfc profile keeps
RFC 6675, checked by the crate's own tests.
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

PLAIN_GAPS: dict = {}
#: With ns-2's defaults (limited transmit, delay_growth_) the same recovery gaps remain.
DEFAULT_GAPS: dict = {}


def _ref(path: Path) -> list[tuple[float, int, bool]]:
    with open(path) as f:
        return [(float(r["time_s"]), int(r["seq"]), r["retransmission"] == "1")
                for r in csv.DictReader(f)]


def _ours(variant: str, k: int, plain: bool = False) -> list[tuple[float, int, bool]]:
    seqs = "+".join(str(s) for s in range(SC["first_drop"], SC["first_drop"] + k))
    extras = {"limited_transmit": False, "delay_growth": False} if plain else {}
    rep = lossytcp.simulate(variant, profile="ns2", channel=f"drops:seq={seqs}",
                            trace_sends=True, **KW, **extras)
    return [(float(t), int(s), bool(rx)) for t, s, rx in rep.send_trace]


def _assert_same(ours: list, ref: list) -> None:
    for i, (x, y) in enumerate(zip(ours, ref, strict=False)):
        if x[1] != y[1] or x[2] != y[2] or abs(x[0] - y[0]) > 1e-6:
            raise AssertionError(f"first difference at send {i}: ns-2 {ref[i:i + 3]}, "
                                 f"ours {ours[i:i + 3]}")
    assert len(ours) == len(ref), f"{len(ours)} sends, ns-2 {len(ref)}"


def _params(gaps: dict):
    for v in SC["variants"]:
        for k in (1, 2, 3, 4):
            reason = gaps.get((v, k))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(v, k, id=f"{v}-{k}drops", marks=marks)


@pytest.mark.parametrize("variant,k", list(_params(PLAIN_GAPS)))
def test_send_trace_matches_ns2_without_its_extras(variant: str, k: int) -> None:
    _assert_same(_ours(variant, k, plain=True),
                 _ref(HERE / "plain" / f"{variant}-{k}drops.csv"))


@pytest.mark.parametrize("variant,k", list(_params(DEFAULT_GAPS)))
def test_send_trace_matches_ns2_defaults(variant: str, k: int) -> None:
    _assert_same(_ours(variant, k), _ref(HERE / f"{variant}-{k}drops.csv"))


@pytest.mark.parametrize("variant,k", list(_params({})))
def test_every_dropped_segment_is_resent_in_both(variant: str, k: int) -> None:
    drops = set(range(SC["first_drop"], SC["first_drop"] + k))
    for trace in (_ours(variant, k), _ref(HERE / "plain" / f"{variant}-{k}drops.csv")):
        resent = [s for _, s, rx in trace if rx and s in drops]
        assert set(resent) == drops
