"""CUBIC with Linux's HyStart (``cubic_slow_start='hystart'``) in a whole run, against the
kernel. The exit's exact ACK is derived by hand from ``hystart_update()`` in the unit tests
of ``crates/lossytcp-sim/src/tcp/cc/cubic.rs``; here the run ``crosscheck linux`` makes.

Kernel side (Linux 6.18, ``lossytcp emulate --cc cubic --rate 10Mbps --rtt 40ms
--packet-size 1000B --queue 100 --duration 3s --sample-interval 2ms --json``, seeds 1-3,
accuracy held): ``TcpExt.TCPHystartTrainDetect`` 1 at ``TCPHystartTrainCwnd`` 68, ssthresh
first finite (68) between the 0.146 s and 0.148 s samples; the first retransmission at
1.62 s after cwnd reached 159; 8 queue drops in 3 s. When the engine started HyStart's
rounds at the ACK where cwnd reached 16 (mid-flight) it left slow start at 144, 0.218 s,
and the queue dropped 8 packets between 0.3 and 0.6 s (none after, to 2 s).
"""

from __future__ import annotations

import pytest

from lossytcp import simulate
from lossytcp.emulate.linux import engine_config

pytest.importorskip("lossytcp._sim")


def fixed_path(duration_s: float) -> object:
    kw = engine_config(packet_size_bytes=1000, window=None, variant="cubic")
    return simulate("cubic", rate_bps=10e6, rtt_s=0.04, packet_size_bytes=1000,
                    queue_packets=100, duration_s=duration_s, seed=1, trace_window=True, **kw)


def test_hystart_leaves_slow_start_where_the_kernel_does() -> None:
    r = fixed_path(3.0)
    w = r.window_trace
    ssthresh0 = w[0][2]
    t, cwnd, ssthresh, _ = next(x for x in w if x[2] != ssthresh0)
    assert (cwnd, ssthresh) == (68.0, 68.0)
    assert 0.146 <= t <= 0.148
    # Nothing lost in slow start: the first loss comes from CUBIC's convex growth, at the
    # kernel's time and window.
    t_loss, _, _, _ = next(x for x in w if x[0] > t and x[2] != ssthresh)
    assert t_loss == pytest.approx(1.62, abs=0.01)
    assert max(x[1] for x in w if x[0] < t_loss) == 159.0
    assert r.queue_drops == 8
