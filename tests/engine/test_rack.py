"""``rack``: RFC 8985 §6's RACK loss detection as Linux 6.x runs it (``tcp_rack_advance()``,
``tcp_rack_detect_loss()``, ``tcp_rack_mark_lost()``'s reordering timer in 4 ms jiffies,
``tcp_rack_reo_timeout()``): a segment is lost once one sent after it is delivered and
RACK.rtt plus the reordering window has passed since it left. The rules with hand-derived
times are unit tests in ``crates/lossytcp-sim/src/tcp/rack.rs``; here whole runs where the
engine without RACK waits for its retransmission timer and with it recovers at once.
"""

from __future__ import annotations

import pytest
from test_tlp import TAIL, retransmitted

from lossytcp import scenario as s
from lossytcp import simulate
from lossytcp.errors import ParameterError
from lossytcp.sim import build_scenario

pytest.importorskip("lossytcp._sim")

# TAIL is test_tlp.py's path: 10 Mb/s (0.8 ms per 1000-byte packet, 0.032 ms per 40-byte
# ACK), 100 ms RTT, IW 4 (all four segments leave at 0), a 4-segment transfer, RFC 6298's 1 s
# RTO floor. Segment k's ACK comes back at 0.8 (k + 1) + 100.032 ms; the first, 100.832 ms, is
# the min RTT and the first SRTT.


def test_the_reordering_timer_recovers_a_hole_with_too_few_sacks_above_it() -> None:
    # Segment 1 of 0..3 is lost: two duplicate ACKs (SACKs of 2 and 3, at 102.432 and
    # 103.232 ms), fewer than DupThresh, and nothing new to send: without RACK the RTO
    # (100.832 + 1000 ms) retransmits it. With RACK: one or two SACKed, no reordering seen,
    # so the reordering window is min_rtt / 4 = 25.208 ms (under SRTT); at 103.232 ms
    # segment 3 (sent at 0, after 1 by sequence) gives RACK.rtt 103.232 ms and 1 has
    # 103.232 + 25.208 - 103.232 = 25.208 ms left: the timer is (25.208 + 2) ms rounded up
    # to 4 ms jiffies, 28 ms, at 131.232 ms, where 1 is marked lost, recovery starts and 1
    # leaves again; its ACK ends the transfer 100.832 ms later.
    drops = {"kind": "drops", "seqs": [1]}
    off = simulate("sack", channel=drops, **TAIL)
    on = simulate("sack", channel=drops, rack=True, **TAIL)
    assert retransmitted(off) == [(1.100832, 1)]
    assert (off.timeouts, off.fast_retransmits) == (1, 0)
    assert retransmitted(on) == [(0.131232, 1)]
    assert (on.timeouts, on.fast_retransmits) == (0, 1)
    assert on.completion_time_s == 0.232064
    assert (on.rack_lost, on.rack_lost_retransmissions) == (1, 0)
    assert (off.rack_lost, off.rack_lost_retransmissions) == (0, 0)


def test_a_tail_probes_sack_marks_the_hole_below_it_lost() -> None:
    # Segments 2 and 3 are lost; with TLP the probe (3 again) leaves at 305.632 ms
    # (test_tlp.py) and is SACKed at 406.464 ms: a duplicate ACK that without RACK marks
    # nothing, so the RTO restarted by the probe fires at 1305.632 ms. With RACK: the probe
    # was retransmitted but its RTT (100.832 ms) is not below the min RTT, so RACK.rtt =
    # 100.832 ms, RACK.xmit_ts = 305.632 ms; 2, sent at 0, has 100.832 + 25.208 - 406.464
    # < 0 left: lost at once, recovery starts on that ACK and 2 leaves at 406.464 ms; the
    # transfer ends at 406.464 + 100.832 ms.
    drops = {"kind": "drops", "seqs": [2, 3]}
    off = simulate("sack", channel=drops, tlp=True, **TAIL)
    on = simulate("sack", channel=drops, tlp=True, rack=True, **TAIL)
    assert retransmitted(off) == [(0.305632, 3), (1.305632, 2)]
    assert off.timeouts == 1
    assert retransmitted(on) == [(0.305632, 3), (0.406464, 2)]
    assert (on.timeouts, on.fast_retransmits, on.tlps) == (0, 1, 1)
    assert on.completion_time_s == 0.507296


def test_a_lost_retransmission_goes_again_without_the_timer() -> None:
    # 30 segments, IW 20 (all at 0), window 40; segment 0 lost, and its fast retransmission
    # too (the channel's second drop of 0). The SACKs of 1..19 arrive 0.8 ms apart from
    # 101.632 ms; the third (103.232 ms; with one or two SACKed RACK waited min_rtt / 4)
    # starts recovery and 0 leaves again. Cut to cwnd 10, the recovery sends new data once
    # the pipe falls below it: segment 20 at 109.632 ms, SACKed a round trip later,
    # 109.632 + 100.832 = 210.464 ms. In recovery the reordering window is 0, and the
    # retransmission left 107.232 ms before, more than RACK.rtt (100.832 ms): lost, sent
    # again on that ACK, and its ACK ends the transfer (30 segments) at 312.096 ms. The
    # `sack` variant's RFC 6675 alone waits for the RTO (103.232 + 1000 ms).
    kw = dict(TAIL, initial_window=20, window=40, transfer_bytes=30_000)
    drops = {"kind": "drops", "seqs": [0, 0]}
    off = simulate("sack", channel=drops, **kw)
    on = simulate("sack", channel=drops, rack=True, **kw)
    assert retransmitted(off)[:2] == [(0.103232, 0), (1.103232, 0)]
    assert (off.timeouts, off.completion_time_s) == (1, 1.204064)
    assert retransmitted(on)[:2] == [(0.103232, 0), (0.210464, 0)]
    assert (on.timeouts, on.fast_retransmits) == (0, 1)
    assert (on.rack_lost, on.rack_lost_retransmissions) == (2, 1)
    assert on.completion_time_s == 0.312096


def test_rack_is_refused_where_it_has_no_meaning() -> None:
    with pytest.raises(ParameterError) as e:
        s.Tcp(rack=True, profile="ns2")
    assert str(e.value) == ("parameter 'rack' = True is invalid: is RFC 8985's loss detection as "
                            "Linux runs it; ns-2 2.35's agents (profile='ns2') have none")
    with pytest.raises(ParameterError, match="'rack' = True is invalid: detects losses from what "
                       "SACK blocks deliver .* which newreno's receiver does not send"):
        build_scenario("newreno", rack=True)


def test_rack_off_leaves_the_scenario_as_it_was() -> None:
    assert build_scenario("sack", rack=False) == build_scenario("sack")
    assert build_scenario("sack", rack=True)["flows"][0]["tcp"]["rack"] is True


def test_ns2_and_ns3_report_the_rack_counters_as_not_observed() -> None:
    from lossytcp.ns2.run import NOT_OBSERVABLE as NS2
    from lossytcp.ns3 import NOT_OBSERVABLE as NS3
    from lossytcp.sim import METRICS, RACK_METRICS

    assert set(RACK_METRICS) <= set(NS2) & set(NS3) & set(METRICS)


def test_crosscheck_linux_runs_the_engine_with_rack_and_judges_its_lost_retransmissions() -> None:
    from lossytcp.cli.crosscheck_linux import LINUX_JUDGED
    from lossytcp.emulate.linux import engine_config
    from lossytcp.emulate.report import NOT_OBSERVABLE

    for v in ("sack", "cubic", "bbr"):
        assert engine_config(packet_size_bytes=1500, window=100, variant=v)["rack"] is True
    assert "rack_lost_retransmissions" in set(LINUX_JUDGED) - set(NOT_OBSERVABLE)
    assert "rack_lost" in NOT_OBSERVABLE and "rack_lost" not in LINUX_JUDGED


def test_a_timeout_counts_the_retransmission_it_finds_in_flight() -> None:
    # Linux's TCPLostRetransmit counts a retransmission in flight that a timeout marks lost
    # as it counts RACK's (tcp_mark_skb_lost()). Segment 0 of 0..3 lost: its third SACK
    # (103.232 ms, three SACKed: window 0) marks it lost and it leaves again; that
    # retransmission is lost too and nothing is sent after it (the transfer is 4 segments),
    # so RACK has nothing to judge it by: the RTO (103.232 + 1000 ms) finds it in flight.
    drops = {"kind": "drops", "seqs": [0, 0]}
    r = simulate("sack", channel=drops, rack=True, **TAIL)
    assert retransmitted(r) == [(0.103232, 0), (1.103232, 0)]
    assert (r.timeouts, r.fast_retransmits) == (1, 1)
    assert (r.rack_lost, r.rack_lost_retransmissions) == (1, 1)
    assert r.completion_time_s == 1.204064
