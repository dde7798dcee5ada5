"""The link emulator measured by itself with its UDP probe (real time, a few seconds per run):
the rate it achieves and the delay it adds at 10 Mb/s within 5% of the configured values,
and the channels' loss statistics within confidence bounds of the configured chains, as
the engine's own channel tests check them (crates/lossytcp-sim/tests/channel_stats.rs).
Each run also checks its own accuracy report (the emulator refuses what it cannot hold)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lossytcp.emulate import probe

pytestmark = pytest.mark.usefixtures("emulator")

RATE = 10e6
RTT = 0.04


def _runs(lost: np.ndarray) -> np.ndarray:
    """Lengths of the runs of consecutive losses."""
    x = np.concatenate([[0], lost.astype(np.int8), [0]])
    d = np.diff(x)
    return np.flatnonzero(d == -1) - np.flatnonzero(d == 1)


def _lost(res) -> np.ndarray:
    """The channel's decisions on the probe's transmissions, in order."""
    return res.forward.channel_outcomes("udp")


def test_the_link_achieves_its_rate_at_10_mbps(held):
    # 15 Mb/s offered to a 10 Mb/s link: it is busy from the first packet on, and the
    # receiver sees what it achieves.
    res = held(probe, rate_bps=RATE, packet_size_bytes=1500, probe_rate_bps=15e6, rtt_s=RTT,
                duration_s=2.0, queue=2000)
    assert res.accuracy["ok"], res.accuracy
    got = res.received_rate_bps(1500)
    assert abs(got / RATE - 1) < 0.05, got
    fwd = res.links[0]
    assert abs(fwd["achieved_rate_bps"] / RATE - 1) < 0.05, fwd
    assert fwd["back_to_back_pairs"] > 1000
    # Packets are written when the model says they arrive, to within the bound.
    assert fwd["lateness"]["p99_s"] < res.accuracy["max_lateness_s"]


def test_the_delay_is_the_configured_one_and_bernoulli_losses_have_their_rate(held):
    # Below the link rate no packet waits: one way is a transmission (1.2 ms) and half the
    # round trip; the kernel's own send and receive paths are in the measurement.
    p = 0.05
    res = held(probe, rate_bps=RATE, packet_size_bytes=500, probe_rate_bps=4e6, rtt_s=RTT,
                duration_s=3.0, channel=f"bernoulli:p={p}")
    assert res.accuracy["ok"], res.accuracy
    want = RTT / 2 + 500 * 8 / RATE
    delay = res.delay_s
    assert abs(np.mean(delay) / want - 1) < 0.05, (np.mean(delay), want)
    assert abs(np.median(delay) / want - 1) < 0.05
    lost = _lost(res)
    n = len(lost)
    assert n > 2500
    se = math.sqrt(p * (1 - p) / n)
    assert abs(lost.mean() - p) < 4 * se, (lost.mean(), se)
    # What the receiver got is what the channel let through.
    assert len(res.seq) == n - lost.sum()


@pytest.mark.parametrize("advance", ["transmission", "slot"])
def test_gilbert_elliott_loss_rate_and_bursts(advance, held):
    # pi_B = a / (a + b) = 0.0476, bursts of 1 / b = 5 transmissions when the chain steps
    # once per packet. Stepped per slot, packets 2 slots apart see the chain after 2 steps
    # (lambda^2, lambda = 1 - a - b): the same rate, shorter bursts.
    a, b = 0.01, 0.2
    res = held(probe, rate_bps=4e6, packet_size_bytes=200, probe_rate_bps=2e6, rtt_s=RTT,
                duration_s=4.0, channel=f"ge:alpha={a},beta={b},advance={advance}")
    assert res.accuracy["ok"], res.accuracy
    lost = _lost(res)
    n = len(lost)
    assert n > 4000
    pi = a / (a + b)
    # The mean of a stationary two-state chain: variance inflated by (1 + lam) / (1 - lam),
    # lam its correlation per packet; one step's (the larger) also bounds the slot case,
    # whose packets are about two steps apart as the senders' real timing has it.
    lam = 1 - a - b
    se = math.sqrt(pi * (1 - pi) / n * (1 + lam) / (1 - lam))
    assert abs(lost.mean() - pi) < 4 * se, (lost.mean(), pi, se)
    runs = _runs(lost)
    if advance == "transmission":
        # Bursts are geometric with mean 1 / b and sd sqrt(1 - b) / b.
        se_b = math.sqrt(1 - b) / b / math.sqrt(len(runs))
        assert abs(runs.mean() - 1 / b) < 4 * se_b, (runs.mean(), se_b, len(runs))
    else:
        # Two steps per packet: P(B -> B) = pi + (1 - pi) lam^2, mean burst 1 / (1 - that).
        stay = pi + (1 - pi) * (1 - a - b) ** 2
        assert runs.mean() < 1 / b
        assert abs(runs.mean() - 1 / (1 - stay)) < 0.35 * (1 / (1 - stay)), runs.mean()


def test_a_trace_channel_is_replayed_outcome_for_outcome(tmp_path, held):
    # The same outcomes, per transmission, as the engine's trace channel gives them.
    pattern = np.array([0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0], dtype=bool)
    f = tmp_path / "outcomes.txt"
    f.write_text("".join("1\n" if x else "0\n" for x in pattern))
    res = held(probe, rate_bps=RATE, packet_size_bytes=500, probe_rate_bps=2e6, rtt_s=RTT,
                duration_s=1.0, channel=f"trace:file={f}")
    lost = _lost(res)
    assert len(lost) > 400
    assert (lost == np.resize(pattern, len(lost))).all()


@pytest.mark.slow
def test_the_other_channels_delays_and_queues(held):
    """Two-state (continuous time), burst, the semi-Markov delay and RED, 4 s each."""
    # Two-state: Bad 10% of the time, losing everything; periods of 0.45 s and 0.05 s.
    res = held(probe, rate_bps=RATE, packet_size_bytes=500, probe_rate_bps=4e6, rtt_s=RTT,
                duration_s=4.0, channel="twostate:good=450ms,bad=50ms,dist=fixed")
    lost = _lost(res)
    assert abs(lost.mean() - 0.1) < 0.03, lost.mean()
    # Fixed periods: each Bad period is one run of 50 ms of packets (1 ms apart).
    runs = _runs(lost)
    assert abs(np.median(runs) - 50) <= 2, runs
    # Burst: p = 0.002 per packet, then everything for 30 ms.
    res = held(probe, rate_bps=RATE, packet_size_bytes=500, probe_rate_bps=4e6, rtt_s=RTT,
                duration_s=4.0, channel="burst:p=0.002,hold=30ms")
    # Exactly the channel's rule, in the packets' own start times (the sender's real timing
    # decides how many fall in a hold): every packet starting within 30 ms of a burst's
    # first is lost.
    f = res.forward
    m = f.admitted & f.is_kind("udp")
    lost, start = _lost(res), f.start_ns[m]
    first = np.flatnonzero(np.diff(np.concatenate([[0], lost.astype(np.int8)])) == 1)
    assert len(first) >= 2
    for i in first:
        end = start[i] + 30_000_000
        inside = (start >= start[i]) & (start < end)
        assert lost[inside].all()
    # Paper 001's semi-Markov delay: each datagram's delay is one of the states' (plus its
    # transmission and the kernel's path), the shortest state the most visited by time.
    states = (0.058056, 0.060383, 0.081911)
    res = held(probe, rate_bps=RATE, packet_size_bytes=500, probe_rate_bps=2e6, duration_s=4.0,
                rtt_s=None, delay={"kind": "semi_markov", "rtt_s": list(states),
                                   "H": [[0.1, 0.33, 0.57], [0.30, 0.12, 0.58],
                                         [0.165, 0.36, 0.475]],
                                   "excess_mean_s": [0.1067, 0.1183, 0.0042]})
    extra = res.delay_s - 500 * 8 / RATE
    nearest = np.min(np.abs(extra[:, None] - np.array(states)[None, :]), axis=1)
    assert np.median(nearest) < 0.5e-3 and (nearest < 2e-3).mean() > 0.98
    # RED (ns-2's defaults, in packets): a saturating probe meets early drops.
    res = held(probe, rate_bps=RATE, packet_size_bytes=1000, probe_rate_bps=12e6, rtt_s=RTT,
                duration_s=3.0, queue="red:packets=50")
    fwd = res.links[0]
    assert fwd["early_drops"] > 0 and fwd["forced_drops"] >= 0
    assert res.accuracy["ok"], res.accuracy
