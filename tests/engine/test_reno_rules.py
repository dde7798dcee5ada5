"""``reno_rules``: the Reno family's window by RFC 5681 (per ACK, the default, as ns-2) or by
Linux's reno module (the segments each ACK delivers, ssthresh = cwnd / 2), which ``crosscheck
linux`` runs for the kernel's ``reno``."""

from __future__ import annotations

import pytest

import lossytcp
from lossytcp.emulate.linux import engine_config
from lossytcp.errors import ParameterError
from lossytcp.ns2 import Ns2Unsupported, build_script
from lossytcp.ns3 import ns3_arguments

#: 10 Mb/s, RTT 40 ms, IW10, delayed ACKs, a queue that never fills: slow start alone.
LOSSLESS = dict(rate_bps=10e6, rtt_s=0.04, packet_size_bytes=500, window=100_000,
                queue="droptail:packets=100000", initial_window=10, delayed_ack=True,
                duration_s=0.17, seed=1)


def _first_window_of_each_round(report: lossytcp.SimReport) -> list[float]:
    """cwnd after the first ACK of each round trip: a round's ACKs come back together,
    rounds are apart by the idle rest of the RTT (more than 5 ms here)."""
    out, last = [], None
    for t, c, _, _ in report.window_trace[1:]:
        if last is None or t - last > 0.005:
            out.append(c)
        last = t
    return out


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_linux_rules_double_the_window_per_round_trip_with_delayed_acks(variant: str) -> None:
    # By hand, 500 B at 10 Mb/s (0.4 ms a packet), 40 B ACKs: the first ACK (of segments 0
    # and 1) comes back at 40 + 0.8 + 0.032 = 40.832 ms, and each round trip delivers the
    # previous window W. Linux adds the W delivered segments (10 -> 20 -> 40 -> 80), seen
    # after the next round's first ACK (+2): 12, 22, 42, 82. RFC 5681 adds one per ACK, W / 2
    # of them: 1.5 times per round (10 -> 15 -> 22 -> 33), +1 at the next first ACK.
    linux = lossytcp.simulate(variant, reno_rules="linux", trace_window=True, **LOSSLESS)
    rfc = lossytcp.simulate(variant, trace_window=True, **LOSSLESS)
    assert linux.window_trace[1][:2] == [0.040832, 12.0]
    assert _first_window_of_each_round(linux) == [12.0, 22.0, 42.0, 82.0]
    assert _first_window_of_each_round(rfc) == [11.0, 16.0, 23.0, 34.0]
    assert rfc == lossytcp.simulate(variant, reno_rules="rfc5681", trace_window=True,
                                    **LOSSLESS), "the declared default is the engine's"


def test_the_first_slow_start_overshoots_as_the_kernels() -> None:
    # python/lossytcp/emulate/README.md, "Where the queue's drops come from": on a fixed
    # 40 ms, 10 Mb/s, 1000 B path with a DropTail of 100 (a 150-packet pipe) the kernel's
    # Reno dropped 152-155 packets in its first second (3 seeds); crosscheck linux's engine
    # with RFC 5681's count 76, twice fewer. A doubling slow start overshoots the pipe by
    # about the pipe.
    kw = {**engine_config(packet_size_bytes=1000, window=None, variant="sack"),
          "rate_bps": 10e6, "rtt_s": 0.04, "packet_size_bytes": 1000,
          "queue": "droptail:packets=100", "duration_s": 1.0, "seed": 1}
    assert kw["reno_rules"] == "linux"
    assert 150 <= lossytcp.simulate("sack", **kw).queue_drops <= 156
    assert lossytcp.simulate("sack", **{**kw, "reno_rules": "rfc5681"}).queue_drops == 76


def test_reno_rules_is_refused_where_it_does_not_apply() -> None:
    with pytest.raises(ParameterError, match="reno_rules"):
        lossytcp.simulate("cubic", reno_rules="linux", duration_s=1.0)
    with pytest.raises(ParameterError, match="reno_rules"):
        lossytcp.simulate("sack", reno_rules="bsd", duration_s=1.0)


def test_ns3_runs_its_linux_reno_and_ns2_has_no_counterpart() -> None:
    kw = dict(duration_s=1.0, seed=1)
    args, _ = ns3_arguments("sack", {**kw, "reno_rules": "linux"})
    assert "--cc=ns3::TcpLinuxReno" in args
    args, _ = ns3_arguments("newreno", kw)
    assert "--cc=ns3::TcpNewReno" in args
    with pytest.raises(Ns2Unsupported, match="reno_rules"):
        build_script("sack", reno_rules="linux", granularity_s=0.01, duration_s=1.0)
