"""``prr``: RFC 6937's Proportional Rate Reduction as Linux 6.x's ``tcp_cwnd_reduction()``, in
SACK fast recovery. The per-ACK windows of RFC 6937 section 5's examples, the slow-start
bound (PRR-SSRB) and the forced fast retransmission are unit tests in
``crates/lossytcp-sim/src/tcp/recovery/sack.rs``; here the runs and the refusals.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lossytcp import scenario as s
from lossytcp import simulate
from lossytcp.errors import ParameterError
from lossytcp.sim import build_scenario

pytest.importorskip("lossytcp._sim")

# 10 Mb/s (0.8 ms per 1000-byte packet, 0.032 ms per 40-byte ACK), 100 ms RTT, a first flight
# of 20 segments (IW 20 under a receiver window of 40) whose segment 0 is lost, one ACK per
# segment: segment k's duplicate ACK (SACKing k) arrives at 0.8 (k + 1) + 100.032 ms, and the
# third (k = 3) starts recovery with cwnd 20, ssthresh 10: RFC 6937 section 5's first example.
FIRST_LOST = dict(rate_bps=1e7, rtt_s=0.1, packet_size_bytes=1000, window=40,
                  initial_window=20, delayed_ack=False, limited_transmit=False,
                  duration_s=0.3, trace_sends=True, trace_window=True,
                  channel={"kind": "drops", "seqs": [0]})
DUPACKS_MS = [0.8 * (k + 1) + 100.032 for k in range(3, 20)]


def sends_per_ack(r) -> list[int]:
    """Segments sent at each of the duplicate ACKs of segments 3..19."""
    at = Counter(round(t * 1e6) for t, _, _ in r.send_trace)
    return [at.get(round(ms * 1e3), 0) for ms in DUPACKS_MS]


def test_prr_spreads_the_reduction_over_the_recovery() -> None:
    # By hand (pipe: the segments in flight, the lost 0 out, its retransmission in): on
    # segment 3's ACK pipe 16 > ssthresh 10, sndcnt = ceil(10 x 1 / 20) - 0 = 1, the
    # retransmission of 0; then ceil(10 x prr_delivered / 20) - prr_out, one new segment
    # every other ACK while the pipe falls by one per two ACKs, to 10 at segment 15's ACK
    # (PRR-SSRB's min(delta = 0, ...) = 0); then one per ACK (pipe 9, delta 1), cwnd 10.
    # RFC 6675 alone (cwnd = ssthresh = 10 at once) is silent until the pipe is below 10
    # (segment 11's ACK), then sends one per ACK.
    on = simulate("sack", prr=True, **FIRST_LOST)
    off = simulate("sack", **FIRST_LOST)
    assert sends_per_ack(on) == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1]
    assert sends_per_ack(off) == [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    for r in (on, off):
        assert (r.fast_retransmits, r.timeouts, r.retransmissions) == (1, 0, 1)
        # the same segments leave (0 again, then 20..28), PRR's earlier
        assert [q for _, q, _ in r.send_trace[20:30]] == [0, *range(20, 29)]
    # cwnd = pipe + sndcnt on every ACK that changes it: 17 at entry, down by one per two
    # ACKs; 10 (ssthresh) from segment 15's ACK through the exit (the retransmission's ACK
    # at 204.064 ms), where congestion avoidance takes over.
    w = [(round(t * 1e3, 3), c) for t, c, _, _ in on.window_trace[:10]]
    assert w == [(0.0, 20.0), (103.232, 17.0), (104.032, 16.0), (105.632, 15.0),
                 (107.232, 14.0), (108.832, 13.0), (110.432, 12.0), (112.032, 11.0),
                 (112.832, 10.0), (205.664, 10.1)]
    assert [(round(t * 1e3, 3), c) for t, c, _, _ in off.window_trace[:2]] == [
        (0.0, 20.0), (103.232, 10.0)]


def test_prr_is_off_by_default_and_in_the_scenario_only_when_on() -> None:
    assert "prr" not in build_scenario("sack")["flows"][0]["tcp"]
    assert build_scenario("cubic", prr=True)["flows"][0]["tcp"]["prr"] is True


@pytest.mark.parametrize("variant", ["bbr", "bbr3"])
def test_a_growth_that_owns_the_window_gets_no_prr(variant: str) -> None:
    # tcp_cong_control(): a congestion control with its own cong_control runs no
    # tcp_cwnd_reduction(); the option is accepted (the variant has SACK) and changes nothing.
    kw = dict(rate_bps=1e7, rtt_s=0.04, channel="bernoulli:p=0.01", duration_s=5, seed=3)
    on, off = simulate(variant, prr=True, **kw), simulate(variant, **kw)
    assert on.fast_retransmits > 0
    assert (on.packets_sent, on.goodput_norm) == (off.packets_sent, off.goodput_norm)


def test_cubic_reduces_proportionally_to_its_own_ssthresh() -> None:
    # The same loss under CUBIC: ssthresh 0.7 x 20 = 14. By hand: sndcnt = ceil(14 x
    # prr_delivered / 20) - prr_out = 1, 1, 1, 0, 1, 1, 0 (pipe 16, 16, 16, 16, 15, 15, 15);
    # at segment 10's ACK the pipe is 14 = ssthresh (PRR-SSRB, delta 0: nothing), then one
    # per ACK. Without PRR cwnd 14 at once: nothing until the pipe is below 14.
    on = simulate("cubic", prr=True, **FIRST_LOST)
    off = simulate("cubic", **FIRST_LOST)
    assert sends_per_ack(on) == [1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert sends_per_ack(off) == [1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    assert [(round(t * 1e3, 3), c) for t, c, _, _ in on.window_trace[:5]] == [
        (0.0, 20.0), (103.232, 17.0), (105.632, 16.0), (108.032, 15.0), (108.832, 14.0)]


def test_prr_is_refused_where_it_has_no_meaning() -> None:
    with pytest.raises(ParameterError) as e:
        s.Tcp(prr=True, profile="ns2")
    assert str(e.value) == ("parameter 'prr' = True is invalid: is RFC 6937's rate reduction; "
                            "ns-2 2.35's agents (profile='ns2') have none")
    with pytest.raises(ParameterError, match="'prr' = True is invalid: counts the segments "
                       "each ACK delivers by SACK, which newreno's receiver does not send"):
        build_scenario("newreno", prr=True)


def test_crosscheck_ns3_runs_prr_as_ns3s_prr_recovery_and_ns2_refuses_it() -> None:
    from lossytcp.ns2 import build_script
    from lossytcp.ns2.script import Ns2Unsupported
    from lossytcp.ns3 import ns3_arguments

    on, _ = ns3_arguments("sack", {"prr": True})
    off, _ = ns3_arguments("sack", {})
    assert "--recovery=ns3::TcpPrrRecovery" in on
    assert "--recovery=ns3::TcpClassicRecovery" in off
    assert [a for a in on if not a.startswith("--recovery")] == [
        a for a in off if not a.startswith("--recovery")]
    with pytest.raises(Ns2Unsupported, match="'prr' = True .*no ns-2 2.35 counterpart"):
        build_script("sack", prr=True)
