"""BBR's departures in Linux's TSO bursts (``bbr_pacing_burst='tso'``, the default of ``bbr``
and ``bbr3``): the segments of one TSO/GSO packet, about 1 ms of the pacing rate and at least
2, leave back to back and the next burst waits burst / rate; or one segment per departure as
ns-3's TcpBbr (``'segment'``, what ``crosscheck ns3`` runs).

On a 50 Mb/s, 20 ms path (4167 segments/s of 1500 B) the kernel's BBR, run through
``lossytcp emulate`` (2026-11-27, 2 seeds), wrote 3.9 segments per burst on average to the
TUN device, 2-3 us apart; the engine's ``tso`` bursts are the same size by construction
(v1: ``tcp_tso_autosize()``; v3: its own ``bbr_tso_segs()``, the same 1 ms of the rate at
this RTT).
"""

from __future__ import annotations

from collections import Counter

import pytest

from lossytcp import ParameterError, simulate
from lossytcp.variants import PARAMS, variant

pytest.importorskip("lossytcp._sim")

PATH = dict(rate_bps=50e6, rtt_s=0.02, packet_size_bytes=1500, window=1000, duration_s=10,
            seed=1)
BBRS = ("bbr", "bbr3")


def bursts(report) -> list[int]:
    """Sizes of the groups of segments sent at the same instant (steady state: after 2 s)."""
    at = Counter(t for t, _, _ in report.send_trace if t > 2.0)
    return [at[t] for t in sorted(at)]


@pytest.mark.parametrize("name", BBRS)
def test_the_default_is_linuxs_tso_bursts(name: str) -> None:
    assert "bbr_pacing_burst" in variant(name).params
    assert PARAMS["bbr_pacing_burst"].default == "tso"
    assert set(PARAMS["bbr_pacing_burst"].variants) == set(BBRS)
    default = simulate(variant=name, trace_sends=True, **PATH)
    tso = simulate(variant=name, trace_sends=True, bbr_pacing_burst="tso", **PATH)
    assert default == tso
    assert default.send_trace == tso.send_trace


@pytest.mark.parametrize("name", BBRS)
def test_segment_paces_one_segment_per_departure(name: str) -> None:
    seg = simulate(variant=name, trace_sends=True, bbr_pacing_burst="segment", **PATH)
    # One segment per pacing wake-up: nothing leaves in groups.
    assert set(bursts(seg)) == {1}


@pytest.mark.parametrize("name", BBRS)
def test_tso_bursts_are_linux_sized_and_cost_fewer_events(name: str) -> None:
    seg = simulate(variant=name, trace_sends=True, bbr_pacing_burst="segment", **PATH)
    tso = simulate(variant=name, trace_sends=True, **PATH)
    sizes = Counter(bursts(tso))
    # About 1 ms of 4167 segments/s at ProbeBW's gains 0.75-1.25 (x 0.99): 3 to 5 segments.
    common = sizes.most_common(1)[0][0]
    assert common == 4, sizes
    assert sum(n for s, n in sizes.items() if 3 <= s <= 5) > 0.8 * sum(sizes.values()), sizes
    # The same goodput, fewer events per packet (one pacing timer per burst).
    assert tso.goodput_norm == pytest.approx(seg.goodput_norm, abs=0.01)
    assert tso.events / tso.packets_sent < 0.85 * seg.events / seg.packets_sent


@pytest.mark.parametrize("name", BBRS)
def test_a_bad_burst_mode_is_refused_by_name(name: str) -> None:
    with pytest.raises(ParameterError, match="bbr_pacing_burst"):
        simulate(variant=name, bbr_pacing_burst="gso", **PATH)
