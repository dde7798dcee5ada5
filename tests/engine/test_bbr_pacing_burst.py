"""BBR's departures per segment (ns-3, the default) or in Linux's TSO bursts
(``bbr_pacing_burst='tso'``): ``tcp_tso_autosize()``'s segments, about 1 ms of the pacing
rate and at least 2, leave back to back and the next burst waits burst / rate.

On a 50 Mb/s, 20 ms path (4167 segments/s of 1500 B) the kernel's BBR, run through
``lossytcp emulate`` (2026-11-27, 2 seeds), wrote 3.9 segments per burst on average to the
TUN device, 2-3 us apart; the engine's ``tso`` bursts are the same size by construction.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lossytcp import ParameterError, simulate

pytest.importorskip("lossytcp._sim")

PATH = dict(rate_bps=50e6, rtt_s=0.02, packet_size_bytes=1500, window=1000, duration_s=10,
            seed=1)


def bursts(report) -> list[int]:
    """Sizes of the groups of segments sent at the same instant (steady state: after 2 s)."""
    at = Counter(t for t, _, _ in report.send_trace if t > 2.0)
    return [at[t] for t in sorted(at)]


def test_the_default_is_per_segment_and_unchanged() -> None:
    default = simulate(variant="bbr", trace_sends=True, **PATH)
    segment = simulate(variant="bbr", trace_sends=True, bbr_pacing_burst="segment", **PATH)
    assert default == segment
    assert default.send_trace == segment.send_trace
    # One segment per pacing wake-up: ACK-clocked pairs aside, nothing leaves in groups.
    assert Counter(bursts(default)).most_common(1)[0][0] == 1


def test_tso_bursts_are_linux_sized_and_cost_fewer_events() -> None:
    seg = simulate(variant="bbr", trace_sends=True, **PATH)
    tso = simulate(variant="bbr", trace_sends=True, bbr_pacing_burst="tso", **PATH)
    sizes = Counter(bursts(tso))
    # About 1 ms of 4167 segments/s at ProbeBW's gains 0.75-1.25 (x 0.99): 3 to 5 segments.
    common = sizes.most_common(1)[0][0]
    assert common == 4, sizes
    assert sum(n for s, n in sizes.items() if 3 <= s <= 5) > 0.8 * sum(sizes.values()), sizes
    # The same goodput, fewer events per packet (one pacing timer per burst).
    assert tso.goodput_norm == pytest.approx(seg.goodput_norm, abs=0.01)
    assert tso.events / tso.packets_sent < 0.85 * seg.events / seg.packets_sent


def test_a_bad_burst_mode_is_refused_by_name() -> None:
    with pytest.raises(ParameterError, match="bbr_pacing_burst"):
        simulate(variant="bbr", bbr_pacing_burst="gso", **PATH)
