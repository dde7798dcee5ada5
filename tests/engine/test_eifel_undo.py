"""``eifel_undo``: RFC 3522's Eifel detection of spurious retransmissions (the RFC 7323
timestamp echo of the first ACK that covers a congestion event's retransmission) and the
growth plugin's undo of the cut (``CaEvent::Undo``: CUBIC's RFC 9438 §4.9 / Linux
``tcp_undo_cwnd_reduction()``, ``tcp_reno_undo_cwnd()`` for the Reno family, BBR's
``bbr_undo_cwnd()``); a timeout found spurious also ends its go-back-N (RFC 4015's response).
F-RTO (``frto``) is ``test_frto.py``.

The path is paper 001's: nothing is lost, but the delay jumps between 50 ms and 1 s (a
semi-Markov delay whose state fixes each packet's delay at its send time), so every timeout
is spurious (the engine's oracle says so). Eifel sees the ones whose original arrives before
the retransmission; where a retransmission sent in the fast state overtakes its original, the
echo is the retransmission's and Eifel (rightly, by its rule) says nothing. Measured (60 s,
seeds 1-3, CUBIC): windows restored after 11/11, 12/12, 6/6 timeouts with it, 0 without
(fewer timeouts with it: the undone ones send no go-back-N); goodput_norm 0.691 vs 0.664,
0.635 vs 0.599, 0.675 vs 0.625.
"""

from __future__ import annotations

import pytest

from lossytcp import build_scenario, simulate

pytest.importorskip("lossytcp._sim")

SPIKES = dict(rate_bps=2e6, packet_size_bytes=500, window=100, duration_s=60,
              delay=dict(rtt_s=[0.05, 1.0], H=[[0, 1], [1, 0]], excess_mean_s=[3.0, 0.3]))


def restored(r, within_s: float = 3.0) -> list[bool]:
    """For each timeout (cwnd falls to 1): whether cwnd and ssthresh are back to at least
    their values before it within ``within_s``."""
    w = r.window_trace
    out = []
    for i in range(1, len(w)):
        if w[i][1] == 1.0 and w[i - 1][1] > 1.0:
            t, cwnd, ssthresh = w[i][0], w[i - 1][1], w[i - 1][2]
            out.append(any(x[1] >= cwnd and x[2] >= ssthresh
                           for x in w[i:] if x[0] <= t + within_s))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cubic_undoes_the_spurious_timeouts_eifel_sees(seed: int) -> None:
    off = simulate(variant="cubic", seed=seed, trace_window=True, **SPIKES)
    on = simulate(variant="cubic", seed=seed, trace_window=True, eifel_undo=True, **SPIKES)
    for r in (off, on):
        assert r.timeouts > 10 and r.spurious_timeouts == r.timeouts, "all spurious"
    assert not any(restored(off))
    back = restored(on)
    assert sum(back) >= 0.5 * len(back), back
    assert on.goodput_norm > off.goodput_norm


@pytest.mark.parametrize(("variant", "fast_undos"), [("sack", 10), ("newreno", 0)])
def test_the_reno_family_undoes_too_and_stops_go_back_n(variant: str, fast_undos: int) -> None:
    # tcp_reno_undo_cwnd(): every timeout Eifel finds spurious is undone, and the go-back-N
    # of the original window ends (RFC 4015). Measured (seed 1): restored 11/11 (0/19 off),
    # retransmissions 326 vs 934 (sack) and 165 vs 941 (newreno), goodput_norm 0.694 vs
    # 0.645 and 0.676 vs 0.645.
    off = simulate(variant=variant, seed=1, trace_window=True, **SPIKES)
    on = simulate(variant=variant, seed=1, trace_window=True, eifel_undo=True, **SPIKES)
    assert not any(restored(off))
    assert all(restored(on)) and len(restored(on)) > 5
    # The report counts them (seed 1): the 11 timeouts whose windows came back, and for SACK
    # 10 spurious fast retransmits as well (none of NewReno's 4 fast retransmits).
    assert (on.undos_eifel_timeout, on.undos_eifel_fast_retransmit) == (11, fast_undos)
    assert on.undos == 11 + fast_undos and (on.undos_frto, on.undos_dsack) == (0, 0)
    assert off.undos == 0
    assert on.retransmissions < off.retransmissions
    assert on.goodput_norm > off.goodput_norm


def test_bbr_keeps_its_window_but_its_spurious_timeouts_send_no_go_back_n() -> None:
    # BBR's undo resets its full-pipe search (its window is its own on every ACK); what
    # changes is RFC 4015's response: 86 retransmissions instead of 1073 (seed 1), goodput
    # much the same (0.661 vs 0.655; seed 2 0.607 vs 0.610).
    off = simulate(variant="bbr", seed=1, **SPIKES)
    on = simulate(variant="bbr", seed=1, eifel_undo=True, **SPIKES)
    assert on.retransmissions < 0.2 * off.retransmissions
    assert on.goodput_norm == pytest.approx(off.goodput_norm, rel=0.05)


def test_it_is_off_unless_asked_for_and_named_in_the_scenario_only_then() -> None:
    # Scenarios (and run keys) of everything else stay what they were.
    for knob in ("eifel_undo", "frto", "dsack", "tlp"):
        assert knob not in build_scenario("cubic")["flows"][0]["tcp"]
        assert build_scenario("cubic", **{knob: True})["flows"][0]["tcp"][knob] is True
