"""A lost first segment, as ns-2 2.35's agents treat it (profile ``ns2``): the sends of ns-2
runs recorded below (NewReno, initial window 4, limited transmit, 1500 B, 5 Mb/s, 50 ms each
way, delayed ACKs, ``minrto_`` 1 s, ``rtxcur_init_`` 6 s, 20 segments; ``ErrorModel/List``
dropping transmissions 0, 1 and 7, i.e. segment 0, segment 1 and segment 1's first
retransmission), and the same run live when ``ns`` is installed.

The rules (tcp.cc, tcp-newreno.cc): ``recover_ = 0`` at reset, so duplicate ACKs of a lost first
segment start no recovery (``highest_ack_ > recover_`` fails at -1) and the sender waits for
its initial RTO; that timeout sets ``wnd_init_ = 1`` ("First packet dropped, so don't use larger
initial windows"), which ``delay_growth_`` restores on the first ACK; and with only segment 0
acknowledged (``bugfix_ss_ && highest_ack_ == 0``) three duplicate ACKs fast-retransmit even
inside the ``recover_`` guard.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from lossytcp import _sim
from lossytcp import scenario as s
from lossytcp.figures import paper003 as p3
from lossytcp.ns2.transfers import drop_list, transfer_script

# (time s, segment) of every data transmission ns-2 made, up to segment 19's first.
NS2_DELAY_GROWTH = [
    (0, 0), (0, 1), (0, 2), (0, 3), (0.107264, 4), (0.109664, 5), (6, 0), (6.102464, 1),
    (18.102464, 1), (18.204928, 6), (18.204928, 7), (18.309792, 8), (18.309792, 9),
    (18.414656, 10), (18.414656, 11), (18.51952, 12), (18.51952, 13), (18.51952, 14),
    (18.624384, 15), (18.624384, 16), (18.726784, 17), (18.729248, 18), (18.729248, 19)]
NS2_NO_DELAY_GROWTH = [
    (0, 0), (0, 1), (0, 2), (0, 3), (0.107264, 4), (0.109664, 5), (6, 0), (6.102464, 1),
    (6.102464, 2), (6.207328, 3), (6.309792, 4), (6.412256, 1), (6.51472, 6), (6.51472, 7),
    (6.619584, 8), (6.619584, 9), (6.724448, 10), (6.724448, 11), (6.829312, 12),
    (6.829312, 13), (6.829312, 14), (6.934176, 15), (6.934176, 16), (7.036576, 17),
    (7.03904, 18), (7.03904, 19)]
NS2_DONE_S = {True: 18.934112, False: 7.243904}

def _engine(delay_growth: bool) -> dict:
    tcp = dict(p3.SETUPS["ns2-2004"], initial_window=4, limited_transmit=True,
               delay_growth=delay_growth)
    sc = p3.single_link("newreno", 5e6, 0.1, s.Drops(seqs=(0, 1, 1)), duration_s=100.0,
                        tcp=s.Tcp(**tcp), app=s.Transfer(bytes=20 * 1500))
    doc = sc.engine(seed=1)
    doc["trace"] = {"sends": True, "window": False}
    return json.loads(_sim.run_json(json.dumps(doc)))["flows"][0]


def _sends(flow: dict, upto: int) -> list[tuple[float, int]]:
    return [(round(t, 6), seq) for t, seq, _ in flow["send_trace"]][:upto]


@pytest.mark.parametrize("delay_growth", [True, False])
def test_the_engine_sends_what_ns2_sent(delay_growth):
    want = NS2_DELAY_GROWTH if delay_growth else NS2_NO_DELAY_GROWTH
    flow = _engine(delay_growth)
    assert _sends(flow, len(want)) == [(float(t), k) for t, k in want]
    assert flow["completion_time_s"] == pytest.approx(NS2_DONE_S[delay_growth], abs=1e-6)
    # The first segment's loss times out; with delay_growth_ off the second loss is a fast
    # retransmit that only bugfix_ss_'s exception allows (recover_ covers segment 1).
    assert flow["timeouts"] == (2 if delay_growth else 1)
    assert flow["fast_retransmits"] == (0 if delay_growth else 1)


def test_the_rfc_sender_fast_retransmits_a_lost_first_segment():
    # RFC 6582 §3.2: recover starts at the ISN, which the SYN's ACK covers.
    tcp = dict(p3.SETUPS["ns2-2004"], profile="rfc", initial_window=4, limited_transmit=True)
    sc = p3.single_link("newreno", 5e6, 0.1, s.Drops(seqs=(0,)), duration_s=100.0,
                        tcp=s.Tcp(**tcp), app=s.Transfer(bytes=20 * 1500))
    flow = json.loads(_sim.run_json(json.dumps(sc.engine(seed=1))))["flows"][0]
    assert (flow["timeouts"], flow["fast_retransmits"]) == (0, 1)


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (Debian package ns2) not installed")
@pytest.mark.parametrize("delay_growth", [True, False])
def test_ns2_itself_still_sends_the_recorded_trace(tmp_path, delay_growth):
    trace = tmp_path / "out.tr"
    script = tmp_path / "run.tcl"
    script.write_text(transfer_script(drop_list([0, 1, 7]), segments=20, initial_window=4,
                                      delay_growth=delay_growth, trace_path=str(trace)))
    out = subprocess.run(["ns", str(script)], capture_output=True, text=True, timeout=60)
    done = float(re.search(r"done (\S+)", out.stdout).group(1))
    assert done == pytest.approx(NS2_DONE_S[delay_growth], abs=1e-6)
    rows = (ln.split() for ln in trace.read_text().splitlines())
    sends = [(float(f[1]), int(f[10])) for f in rows
             if f[0] == "+" and f[4] == "tcp" and f[2] == "0"]
    want = NS2_DELAY_GROWTH if delay_growth else NS2_NO_DELAY_GROWTH
    assert [(round(t, 6), k) for t, k in sends[:len(want)]] == [(float(t), k) for t, k in want]
