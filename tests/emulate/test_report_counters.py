"""The kernel's counters under the engine's metric names (``emulate.report.from_emulator``),
on a hand-made emulator result: no emulator or kernel needed."""

from __future__ import annotations

import math

from lossytcp.emulate.report import NOT_OBSERVABLE, from_emulator

HEADER = "t_in_ns,kind,size,seq,segment,retransmission,outcome,start_ns,tx_end_ns,due_ns,sent_ns"


def _raw(tmp_path, counters):
    # Two data segments inside the measured second, the second a retransmission, and one
    # ACK back: the fate logs' columns as the emulator writes them.
    (tmp_path / "forward.csv").write_text(
        HEADER + "\n"
        "1000000000,data,1500,0,0,0,delivered,1,2,3,1500000000\n"
        "1100000000,data,1500,1448,1,1,delivered,1,2,3,1600000000\n")
    (tmp_path / "reverse.csv").write_text(
        HEADER + "\n1200000000,ack,52,0,-1,0,delivered,1,2,3,1300000000\n")
    final = {"cwnd": 10, "ssthresh": 7, "rto_s": 0.2, "srtt_s": 0.1, "min_rtt_s": 0.1,
             "snd_mss": 1448}
    return {"log_dir": str(tmp_path),
            "tcp": {"cc": "cubic", "final_info": final, "counters": counters, "t0_s": 1.0,
                    "duration_s": 1.0, "bytes_received": 2 * 1448}}


def test_partial_undos_and_reordering_events_come_from_their_kernel_counters(tmp_path):
    c = {"TcpExt.TCPPartialUndo": 4, "TcpExt.TCPDSACKUndo": 1, "TcpExt.TCPSACKReorder": 193,
         "TcpExt.TCPTSReorder": 209, "TcpExt.TCPRenoReorder": 2}
    r = from_emulator(_raw(tmp_path, c), seed=1, rate_bps=1e7, packet_size_bytes=1500)
    assert (r.packets_sent, r.retransmissions) == (2, 1)
    # TCPPartialUndo is the engine's undos_partial, and counted in undos as the engine does.
    assert (r.metric("undos_partial"), r.metric("undos")) == (4, 5)
    # Every way Linux counts a reordering event (SACK, timestamps, Reno's dupacks).
    assert r.metric("reordering_events") == 193 + 209 + 2
    # The degree at its highest and RACK's window steps have no kernel counter: NaN, and
    # named as such, so that crosscheck linux never judges them.
    for m in ("reordering_degree", "rack_reo_wnd_steps"):
        assert math.isnan(r.metric(m)) and m in NOT_OBSERVABLE


def test_no_counter_is_zero_not_missing(tmp_path):
    r = from_emulator(_raw(tmp_path, {}), seed=1, rate_bps=1e7, packet_size_bytes=1500)
    assert (r.metric("undos_partial"), r.metric("reordering_events")) == (0, 0)
