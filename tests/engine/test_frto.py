"""``frto``: RFC 5682's F-RTO (the SACK-enhanced algorithm, as Linux's ``tcp_frto = 2``) and
the response to a spurious timeout it finds (the growth plugin's undo and no go-back-N, RFC
4015 §3.2, as Linux's ``tcp_try_undo_loss()``). The sender's exact steps are unit tests in
``crates/lossytcp-sim/src/tcp/sender.rs``; here the runs.

Paper 001's path (``test_eifel_undo.SPIKES``: nothing lost, the delay jumps between 50 ms and
1 s) makes every timeout spurious; a path losing a whole window makes one that is not.
"""

from __future__ import annotations

import pytest
from test_eifel_undo import SPIKES, restored

from lossytcp import simulate
from lossytcp.errors import ParameterError

pytest.importorskip("lossytcp._sim")


@pytest.mark.parametrize("variant", ["newreno", "sack", "cubic"])
def test_frto_undoes_the_spurious_timeouts_of_a_delay_spike(variant: str) -> None:
    # Measured (seed 1): windows restored after 11/11 timeouts with F-RTO, 0/19 without;
    # retransmissions 165 / 472 / 594 against 941 / 934 / 1076; goodput_norm 0.676 / 0.691
    # / 0.711 against 0.645 / 0.645 / 0.664.
    off = simulate(variant=variant, seed=1, trace_window=True, **SPIKES)
    on = simulate(variant=variant, seed=1, trace_window=True, frto=True, **SPIKES)
    for r in (off, on):
        assert r.timeouts > 10 and r.spurious_timeouts == r.timeouts, "all spurious"
    assert not any(restored(off))
    back = restored(on)
    assert all(back) and len(back) > 5, back
    # Every restored window is one F-RTO undo in the report (11 for each variant, seed 1),
    # and nothing else undoes.
    assert (on.undos_frto, on.undos) == (len(back), len(back)) == (11, 11)
    assert (on.undos_eifel_timeout, on.undos_eifel_fast_retransmit, on.undos_dsack) == (0, 0, 0)
    assert off.undos == 0
    assert on.retransmissions < 0.7 * off.retransmissions
    assert on.goodput_norm > off.goodput_norm


# A window of 10 on 1 Mb/s, 100 ms: segments 200-209 (one whole flight) are lost, so no
# duplicate ACK comes and the timer expires; the timeout is genuine.
WINDOW_LOST = dict(rate_bps=1e6, rtt_s=0.1, packet_size_bytes=1000, window=10, duration_s=10,
                   channel={"kind": "drops", "seqs": list(range(200, 210))})


def _after_timeout(r, within_s: float):
    w = r.window_trace
    i = next(i for i in range(1, len(w)) if w[i][1] == 1.0 and w[i - 1][1] > 1.0)
    t = w[i][0]
    return t, [(s[1], s[2]) for s in r.send_trace if t - 1e-9 <= s[0] <= t + within_s]


@pytest.mark.parametrize("variant", ["newreno", "sack", "cubic"])
def test_frto_falls_back_to_go_back_n_when_the_timeout_was_genuine(variant: str) -> None:
    off = simulate(variant=variant, trace_window=True, trace_sends=True, **WINDOW_LOST)
    on = simulate(variant=variant, trace_window=True, trace_sends=True, frto=True,
                  **WINDOW_LOST)
    for r in (off, on):
        assert (r.timeouts, r.spurious_timeouts, r.fast_retransmits) == (1, 0, 0)
    # Step 1 resends 200; its ACK (step 2b) lets out the one new segment the receiver's
    # window of 10 takes (210); the duplicate ACK it brings back (step 3a) hands over to
    # go-back-N from 201, one round trip later than without F-RTO.
    t_off, sent_off = _after_timeout(off, 0.2)
    t_on, sent_on = _after_timeout(on, 0.3)
    assert sent_off[:3] == [(200, True), (201, True), (202, True)]
    assert sent_on[:4] == [(200, True), (210, False), (201, True), (202, True)]
    # Nothing undone: the windows after the timeout are those without F-RTO.
    assert not any(restored(on))
    w_on = [x[1:] for x in on.window_trace if t_on <= x[0] <= t_on + 0.5]
    w_off = [x[1:] for x in off.window_trace if t_off <= x[0] <= t_off + 0.5]
    assert w_on[:4] == w_off[:4]
    assert on.packets_delivered < off.packets_delivered  # the round trip F-RTO costs here


# (``dsack``, ``test_dsack.py``, and ``tlp``, ``test_tlp.py``, are declared as ``frto`` is:
# the same checks.)
@pytest.mark.parametrize("knob", ["frto", "dsack", "tlp"])
def test_frto_is_a_boolean_named_in_errors(knob: str) -> None:
    with pytest.raises(ParameterError) as e:
        simulate("sack", **{knob: "yes"})
    assert e.value.name == knob


@pytest.mark.parametrize("knob", ["frto", "dsack", "tlp"])
def test_the_command_line_and_scenario_files_take_it(knob: str) -> None:
    from lossytcp import scenario as s
    from lossytcp.cli import build_parser
    from lossytcp.cli.simulate import build_scenario_from_args, scenario_from_args

    p = build_parser("simulate")
    flag = "--" + knob
    assert scenario_from_args(p.parse_args(["simulate", flag]))[knob] is True
    assert knob not in scenario_from_args(p.parse_args(["simulate"]))
    # (A SACK variant: dsack is refused for the default, NewReno, whose receiver sends no
    # blocks.)
    sc = build_scenario_from_args(p.parse_args(["simulate", "--variant", "sack", "--topology",
                                                "dumbbell", flag]))
    assert all(getattr(f.tcp, knob) for f in sc.all_flows())
    assert getattr(s.Tcp.from_dict({knob: True}), knob) is True
    with pytest.raises(ParameterError) as e:
        s.Tcp.from_dict({knob: 2}, "tcp")
    assert e.value.name == f"tcp.{knob}"
