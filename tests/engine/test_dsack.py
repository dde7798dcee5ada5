"""``dsack``: RFC 2883's DSACK (the receiver reports a duplicate segment in the first SACK
block) and the undo it allows (RFC 3708's detection: every retransmission of a loss episode
reported a duplicate; Linux's ``undo_retrans`` and ``tcp_try_undo_loss()`` /
``tcp_try_undo_dsack()``). The sender's and receiver's exact steps are unit tests in
``crates/lossytcp-sim/src/tcp/sender.rs`` and ``receiver.rs``; here the runs.
"""

from __future__ import annotations

import pytest
from test_eifel_undo import SPIKES, restored
from test_frto import WINDOW_LOST

from lossytcp import simulate
from lossytcp.errors import ParameterError

pytest.importorskip("lossytcp._sim")

# 10 Mb/s (0.8 ms per 1000-byte packet, 0.032 ms per 40-byte ACK), 100 ms RTT, IW 4, and a
# first RTO of 95 ms: the timer expires before the first ACK (at 100.832 ms), nothing is lost.
EARLY_TIMER = dict(rate_bps=1e7, rtt_s=0.1, packet_size_bytes=1000, window=20,
                   initial_window=4, min_rto_s=0.001, initial_rto_s=0.095, duration_s=0.25,
                   trace_window=True, trace_sends=True)


def test_dsack_undoes_a_spurious_timeout_when_its_last_retransmission_is_reported() -> None:
    # By hand. At 95 ms the timer fires: cwnd 1, ssthresh max(4 / 2, 2) = 2, 0 sent again.
    # The originals' ACKs arrive at 100.832 + 0.8 k ms: slow start to 2, then congestion
    # avoidance (2.5, 2.9, 3.2448), while go-back-N resends 1, 2 (at 100.832) and 3 (at
    # 101.632). Every copy arrives: the four retransmissions come back as DSACKs, the last
    # (3's, on the link 102.432-103.232 behind 1 and 2, 50 ms each way, its ACK 0.032 ms) at
    # 203.264 ms: undo_retrans reaches 0, and Reno's undo restores cwnd max(3.2448, 4) = 4 and
    # the initial ssthresh, 64 windows of 20. The next ACK (5, at 204.064 ms) slow-starts to
    # 5, where without DSACK congestion avoidance makes 3.553 with ssthresh 2.
    off = simulate("sack", **EARLY_TIMER)
    on = simulate("sack", dsack=True, **EARLY_TIMER)
    for r in (off, on):
        assert (r.timeouts, r.spurious_timeouts, r.retransmissions) == (1, 1, 4)
        assert [s[1] for s in r.send_trace if s[2]] == [0, 1, 2, 3]
    w_on = [(round(t, 6), round(c, 4), s) for t, c, s, _ in on.window_trace[:9]]
    w_off = [(round(t, 6), round(c, 4), s) for t, c, s, _ in off.window_trace[:9]]
    assert w_on[:6] == w_off[:6] == [
        (0.0, 4.0, 1280.0), (0.095, 1.0, 2.0), (0.100832, 2.0, 2.0), (0.101632, 2.5, 2.0),
        (0.102432, 2.9, 2.0), (0.103232, 3.2448, 2.0)]
    assert w_on[6:8] == [(0.203264, 4.0, 1280.0), (0.204064, 5.0, 1280.0)]
    assert w_off[6] == (0.204064, 3.553, 2.0)
    assert (on.undos_dsack, on.undos) == (1, 1) and off.undos == 0


def test_a_networks_report_sums_its_flows_undos() -> None:
    # Two flows on EARLY_TIMER's link, each with its own spurious first timeout undone.
    from lossytcp import run
    from lossytcp import scenario as s

    tcp = s.Tcp(packet_size_bytes=1000, window=20, initial_window=4, min_rto_s=0.001,
                initial_rto_s=0.095, dsack=True)
    sc = s.Scenario(topology=s.SingleLink(rate_bps=1e7, rtt_s=0.1, queue=s.DropTail(1000)),
                    flows=(s.Flow(variant="sack", tcp=tcp), s.Flow(variant="sack", tcp=tcp)),
                    duration_s=0.5)
    r = run(sc)
    assert [(f.timeouts, f.undos_dsack, f.undos) for f in r.flows] == [(1, 1, 1), (1, 1, 1)]
    assert (r.metric("undos_dsack"), r.metric("undos"), r.metric("undos_frto")) == (2, 2, 0)


@pytest.mark.parametrize(("variant", "undos"), [("sack", 11), ("cubic", 12)])
def test_dsack_undoes_the_spurious_timeouts_of_a_delay_spike(variant: str, undos: int) -> None:
    # Paper 001's delay jumps (nothing lost): without F-RTO every timeout's go-back-N
    # resends the window, and when all of an episode's retransmissions come back as DSACKs
    # the cut is undone. Measured (seed 1): 11 of 17 windows restored within 3 s (0 of 19
    # without), goodput_norm 0.698 vs 0.645 (sack), 0.700 vs 0.664 (cubic; its 12th undo is
    # a spurious fast retransmit's).
    off = simulate(variant=variant, seed=1, trace_window=True, **SPIKES)
    on = simulate(variant=variant, seed=1, trace_window=True, dsack=True, **SPIKES)
    assert not any(restored(off)) and off.undos == 0
    assert sum(restored(on)) == 11
    assert (on.undos_dsack, on.undos) == (undos, undos)
    assert on.goodput_norm > off.goodput_norm + 0.03


@pytest.mark.parametrize("variant", ["sack", "cubic"])
def test_a_genuine_loss_is_not_undone_and_nothing_changes(variant: str) -> None:
    # A whole window lost (a genuine timeout): no copy arrives twice, no DSACK is sent.
    off = simulate(variant=variant, trace_window=True, trace_sends=True, **WINDOW_LOST)
    on = simulate(variant=variant, trace_window=True, trace_sends=True, dsack=True,
                  **WINDOW_LOST)
    assert on.undos == 0 and on.timeouts == 1
    assert (on.window_trace, on.send_trace) == (off.window_trace, off.send_trace)


def test_random_losses_leave_no_episode_all_duplicates() -> None:
    # 2% Bernoulli losses (seed 1): 3 of the 18 timeouts are spurious, but each episode also
    # retransmitted a segment really lost, so none is undone and the run is the same.
    kw = dict(channel="bernoulli:p=0.02", duration_s=100, seed=1, rate_bps=2e6, rtt_s=0.1,
              window=50)
    off = simulate("sack", **kw)
    on = simulate("sack", dsack=True, **kw)
    assert (on.timeouts, on.spurious_timeouts, on.undos) == (18, 3, 0)
    assert on.goodput_norm == off.goodput_norm


@pytest.mark.parametrize("knob", ["dsack", "tlp"])
def test_ns2s_sink_sends_no_dsack_so_the_ns2_profile_refuses_it(knob: str) -> None:
    # (The knob's other checks, with frto's, are test_frto.py's and test_eifel_undo.py's.
    # ``tlp``, RFC 8985's probe, has no ns-2 2.35 counterpart either.)
    with pytest.raises(ParameterError) as e:
        simulate("sack", profile="ns2", **{knob: True})
    assert e.value.name == knob and "ns-2" in str(e.value)


@pytest.mark.parametrize("knob", ["dsack", "tlp"])
@pytest.mark.parametrize("variant", ["newreno", "reno", "westwood-plus", "vegas"])
def test_a_variant_whose_receiver_sends_no_sack_blocks_refuses_dsack(variant: str,
                                                                      knob: str) -> None:
    # Its receiver has no block to report a duplicate in (and Linux probes a tail on SACK
    # connections only, tcp_is_sack()): refused by name before any run, rather than
    # accepted and silently doing nothing.
    with pytest.raises(ParameterError) as e:
        simulate(variant, duration_s=1, **{knob: True})
    assert e.value.name == knob and variant in str(e.value) and "sack, cubic" in str(e.value)
