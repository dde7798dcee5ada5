"""``eifel_undo``: RFC 3522's Eifel detection of spurious retransmissions (the RFC 7323
timestamp echo of the first ACK that covers a congestion event's retransmission) and the
growth plugin's undo of the cut (``CaEvent::Undo``: CUBIC's RFC 9438 §4.9 / Linux
``tcp_undo_cwnd_reduction()``, BBR's ``bbr_undo_cwnd()``).

The path is paper 001's: nothing is lost, but the delay jumps between 50 ms and 1 s (a
semi-Markov delay whose state fixes each packet's delay at its send time), so every timeout
is spurious (the engine's oracle says so). Eifel sees the ones whose original arrives before
the retransmission; where a retransmission sent in the fast state overtakes its original, the
echo is the retransmission's and Eifel (rightly, by its rule) says nothing. Measured (60 s,
seeds 1-3, CUBIC): windows restored after 13/17, 14/19, 11/12 timeouts with it, 0 without;
goodput_norm 0.701 vs 0.664, 0.659 vs 0.599, 0.694 vs 0.625.
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


@pytest.mark.parametrize("variant", ["sack", "newreno", "bbr"])
def test_senders_without_a_window_to_restore_run_as_without_it(variant: str) -> None:
    # Reno's growth has no undo; BBR's undo resets its full-pipe search, which on this path
    # (its pipe long full) changes nothing.
    off = simulate(variant=variant, seed=1, trace_sends=True, **SPIKES)
    on = simulate(variant=variant, seed=1, trace_sends=True, eifel_undo=True, **SPIKES)
    assert on.as_dict() == off.as_dict()
    assert on.send_trace == off.send_trace


def test_it_is_off_unless_asked_for_and_named_in_the_scenario_only_then() -> None:
    # Scenarios (and run keys) of everything else stay what they were.
    assert "eifel_undo" not in build_scenario("cubic")["flows"][0]["tcp"]
    assert build_scenario("cubic", eifel_undo=True)["flows"][0]["tcp"]["eifel_undo"] is True
