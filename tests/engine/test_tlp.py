"""``tlp``: RFC 8985 §7's Tail Loss Probe, with Linux 6.x's timing (``tcp_schedule_loss_probe()``:
2 SRTT + 200 ms with one segment out, + 2 ms with more, in 4 ms jiffies, never after the RTO),
probe (``tcp_send_loss_probe()``: new data, else the last segment again; the RTO restarts from
it) and episode end (``tcp_process_tlp_ack()``). The sender's exact steps, the DSACK and
duplicate-ACK endings and the window after a repaired loss, are unit tests in
``crates/lossytcp-sim/src/tcp/sender.rs``; here the runs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from lossytcp import simulate

pytest.importorskip("lossytcp._sim")

# 10 Mb/s (0.8 ms per 1000-byte packet, 0.032 ms per 40-byte ACK), 100 ms RTT, IW 4, a
# transfer of four segments and RFC 6298's 1 s RTO floor. Segment k's ACK comes back at
# 0.8 (k + 1) + 100.032 ms: samples 100.832, 101.632, 102.432 ms give SRTT 100.832, then
# 100.932, then 101.1195 ms (RFC 6298 §2.3).
TAIL = dict(rate_bps=1e7, rtt_s=0.1, packet_size_bytes=1000, window=20, initial_window=4,
            min_rto_s=1.0, transfer_bytes=4000, duration_s=5, trace_sends=True)


def retransmitted(r) -> list[tuple[float, int]]:
    """(time rounded to the engine's nanosecond, segment) of every retransmission."""
    return [(round(t, 9), seq) for t, seq, retx in r.send_trace if retx]


def test_a_lost_last_segment_is_probed_at_two_srtt_plus_the_delayed_ack_allowance() -> None:
    # The last segment (3) is lost. After segment 2's ACK (102.432 ms) one segment is out:
    # PTO = 2 x 101.1195 + 200 = 402.239 ms, 404 ms in 4 ms jiffies, under the RTO (1 s):
    # the probe, segment 3 again, leaves at 506.432 ms; it arrives and its ACK ends the
    # transfer at 506.432 + 100.832 = 607.264 ms. Without TLP the RTO fires at
    # 102.432 + 1000 ms, a timeout, and the transfer ends 596 ms later.
    drops = {"kind": "drops", "seqs": [3]}
    off = simulate("sack", channel=drops, **TAIL)
    on = simulate("sack", channel=drops, tlp=True, **TAIL)
    assert retransmitted(off) == [(1.102432, 3)]
    assert (off.timeouts, off.tlps) == (1, 0)
    assert off.completion_time_s == 1.203264
    assert on.srtt_s == 0.1011195
    assert retransmitted(on) == [(0.506432, 3)]
    assert (on.timeouts, on.fast_retransmits, on.tlps, on.tlp_recoveries) == (0, 0, 1, 0)
    assert on.completion_time_s == 0.607264 and on.retransmissions == 1


def test_two_lost_segments_are_probed_at_two_srtt_plus_2ms_but_a_sack_alone_ends_nothing() -> None:
    # Segments 2 and 3 are lost. After segment 1's ACK (101.632 ms) two are out: PTO =
    # 2 x 100.932 + 2 = 203.864 ms, 204 ms in jiffies: the probe (segment 3) leaves at
    # 305.632 ms and the RTO restarts from it. Its SACK is a single duplicate ACK: without
    # RACK (RFC 8985 §6, Linux's default loss detection: the `rack` option, off here, and
    # test_rack.py) nothing marks 2 lost, so the timer expires at 1305.632 ms, 204 ms later
    # than without the probe.
    drops = {"kind": "drops", "seqs": [2, 3]}
    off = simulate("sack", channel=drops, **TAIL)
    on = simulate("sack", channel=drops, tlp=True, **TAIL)
    assert retransmitted(off)[0] == (1.101632, 2)
    assert retransmitted(on)[:2] == [(0.305632, 3), (1.305632, 2)]
    assert (on.timeouts, on.tlps, on.tlp_recoveries) == (1, 1, 0)


@pytest.mark.parametrize("variant", ["sack", "cubic", "bbr"])
def test_probes_answer_the_delay_spikes_before_the_timer(variant: str) -> None:
    # Paper 001's spikes (50 ms <-> 1 s, nothing lost): some spikes that timed out are now
    # answered by a probe. Seed 1, measured: timeouts 30 -> 23 / 23 / 21 with 18 / 17 / 17
    # probes; nothing was lost, so no episode ends as a repaired loss.
    from test_eifel_undo import SPIKES

    off = simulate(variant, seed=1, **SPIKES)
    on = simulate(variant, seed=1, tlp=True, **SPIKES)
    assert off.tlps == 0 and on.tlps > 10
    assert on.timeouts <= off.timeouts - 7
    assert on.tlp_recoveries == 0


# (Refused with the ns2 profile and for a variant without SACK blocks as ``dsack`` is:
# test_dsack.py's two refusal tests take both knobs.)


@pytest.mark.parametrize("sim", ["ns2", "ns3"])
def test_crosscheck_refuses_tlp_where_the_simulator_has_none(sim: str) -> None:
    p = subprocess.run([sys.executable, "-m", "lossytcp", "crosscheck", sim, "--variant",
                        "sack", "--tlp", "--duration", "1s"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "'tlp'" in p.stderr and "Traceback" not in p.stderr


def test_ns2_and_ns3_report_the_tlp_counters_as_not_observed() -> None:
    from lossytcp.ns2.run import NOT_OBSERVABLE as NS2
    from lossytcp.ns3 import NOT_OBSERVABLE as NS3
    from lossytcp.sim import METRICS, TLP_METRICS

    assert set(TLP_METRICS) <= set(NS2) & set(NS3) & set(METRICS)


def test_crosscheck_linux_runs_the_engine_with_tlp_and_judges_it_against_the_kernel() -> None:
    from lossytcp.cli.crosscheck_linux import LINUX_JUDGED
    from lossytcp.emulate.linux import engine_config
    from lossytcp.emulate.report import NOT_OBSERVABLE

    for v in ("sack", "cubic", "bbr"):
        assert engine_config(packet_size_bytes=1500, window=100, variant=v)["tlp"] is True
    assert {"tlps", "tlp_recoveries"} <= set(LINUX_JUDGED) - set(NOT_OBSERVABLE)
