"""A congestion event never raises the window: after it, ssthresh and cwnd are at most the
window the sender had (RFC 5681 eq. (4), RFC 6675 (4.2), RFC 9438 §4.6 all cut). The
paths are the ones where SACKed data above an older hole made the engine's FlightSize
exceed cwnd (a recovery that starts as the last one ends, a timeout during recovery)."""

from __future__ import annotations

import itertools

import pytest

import lossytcp

PATHS = {
    # paper 002's question in `beyond-red`: one flow, 10 Mb/s, RTT 40 ms, DropTail of 35.
    "droptail35": dict(rate_bps=10e6, rtt_s=0.04, queue="droptail:packets=35",
                       packet_size_bytes=1000, window=1000, rto_estimator="linux"),
    "bursty": dict(rate_bps=10e6, rtt_s=0.1, queue="droptail:packets=50",
                   channel="ge:alpha=0.01,beta=0.2,advance=slot", window=1000),
}
SENDERS = {
    "sack": {},
    "cubic-rfc9438": dict(cubic_rules="rfc9438"),
    "cubic-linux": dict(cubic_rules="linux"),
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("sender", sorted(SENDERS))
def test_no_congestion_event_raises_the_window(path: str, sender: str) -> None:
    variant = sender.split("-")[0]
    r = lossytcp.simulate(variant, seed=3, duration_s=20.0, trace_window=True,
                          **PATHS[path], **SENDERS[sender])
    assert r.fast_retransmits + r.timeouts > 5, "the path must produce congestion events"
    cuts = 0
    for (_, cwnd0, ss0, _), (t, cwnd1, ss1, _) in itertools.pairwise(r.window_trace):
        if ss1 != ss0 and ss0 < 1e4:        # a new ssthresh: a congestion event (not the
            cuts += 1                       # initial slow start's unbounded one)
            assert ss1 <= cwnd0 + 1e-9, (t, cwnd0, ss0, ss1)
            assert cwnd1 <= cwnd0 + 1e-9, (t, cwnd0, cwnd1)
    assert cuts > 0
    # and no retransmission storm (it sent 3.2 packets per packet delivered on droptail35)
    assert r.packets_sent < 1.15 * r.packets_delivered, (r.packets_sent, r.packets_delivered)
