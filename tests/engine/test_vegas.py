"""TCP Vegas in the engine: Brakmo & Peterson's claims on a clean path, the parameters'
validation, and invariants under random loss. (Its agreement with ns-2's Agent/TCP/Vegas,
send for send, is tests/reference/test_fall_floyd.py and test_bursts.py.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lossytcp
from lossytcp import ParameterError

PATH = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=400)
#: Bandwidth-delay product in packets over the base RTT: propagation, the data packet's
#: transmission and the 40-byte ACK's.
BASE_RTT_S = 0.1 + 1000 * 8 / 10e6 + 40 * 8 / 10e6
BDP = 10e6 / (1000 * 8) * BASE_RTT_S


@pytest.mark.parametrize("profile", ["rfc", "ns2"])
@pytest.mark.parametrize("alpha,beta", [(1, 3), (2, 4), (4, 8)])
def test_vegas_keeps_between_alpha_and_beta_segments_queued(profile: str, alpha: int,
                                                            beta: int) -> None:
    # Brakmo & Peterson 1995, Section 3.2: with no loss the window settles where the
    # difference between expected and actual rate is alpha..beta segments' worth, i.e. that
    # many segments wait in the bottleneck queue. Vegas rounds the difference to the nearest
    # segment and grows by 1/cwnd per ACK, so allow half a segment below and one above.
    r = lossytcp.simulate("vegas", **PATH, duration_s=60, profile=profile, vegas_alpha=alpha,
                          vegas_beta=beta, granularity_s=0.01 if profile == "ns2" else 0.0)
    queued = r.final_cwnd - BDP
    assert alpha - 0.5 <= queued <= beta + 1, f"{queued:.2f} segments queued"
    assert r.queue_drops == r.timeouts == r.fast_retransmits == 0


def test_vegas_avoids_the_losses_newreno_causes_at_a_small_queue() -> None:
    # Section 4: Vegas retransmits far less than Reno because it stops growing before the
    # queue overflows. A 20-packet queue holds beta = 3 easily; NewReno fills it until drops.
    vegas = lossytcp.simulate("vegas", **PATH, duration_s=60, queue_packets=20)
    newreno = lossytcp.simulate("newreno", **PATH, duration_s=60, queue_packets=20)
    assert vegas.queue_drops == 0 and vegas.retransmissions == 0
    assert newreno.queue_drops > 10
    assert vegas.goodput_norm > newreno.goodput_norm + 0.05


def test_slow_start_ends_when_gamma_segments_queue() -> None:
    # Section 3.3: slow start doubles every other RTT and ends once more than gamma segments
    # are queued, well before the queue overflows; a larger gamma stays longer in slow start.
    early = lossytcp.simulate("vegas", **PATH, duration_s=3, trace_window=True)
    late = lossytcp.simulate("vegas", **PATH, duration_s=3, trace_window=True, vegas_gamma=20)

    def end_of_slow_start(r: lossytcp.SimReport) -> tuple[float, float]:
        return next((t, cwnd) for t, cwnd, ssthresh, _ in r.window_trace if ssthresh == 2.0)

    (t1, w1), (t2, w2) = end_of_slow_start(early), end_of_slow_start(late)
    assert t1 < t2 and w1 < w2
    assert early.queue_drops == 0


def test_vegas_parameters_are_validated() -> None:
    with pytest.raises(ParameterError, match="'vegas_alpha' = 1.*vegas' only"):
        lossytcp.simulate("newreno", vegas_alpha=1)
    with pytest.raises(ParameterError, match="'vegas_alpha' = 5.*<= vegas_beta = 3"):
        lossytcp.simulate("vegas", vegas_alpha=5)
    with pytest.raises(ParameterError, match="'vegas_gamma' = -1"):
        lossytcp.simulate("vegas", vegas_gamma=-1)
    with pytest.raises(ParameterError, match="'limited_transmit' = True.*Vegas has its own"):
        lossytcp.simulate("vegas", limited_transmit=True)
    with pytest.raises(ParameterError, match="'tick_phase' = 0.5.*profile='ns2'"):
        lossytcp.simulate("vegas", tick_phase=0.5)
    with pytest.raises(ParameterError, match="'tick_phase' = 1"):
        lossytcp.simulate("vegas", tick_phase=1, profile="ns2")


@settings(max_examples=25, deadline=None)
@given(p=st.floats(0.0, 0.1), alpha=st.integers(0, 4), extra=st.integers(0, 4),
       gamma=st.integers(0, 4), seed=st.integers(1, 2**32), profile=st.sampled_from(["rfc", "ns2"]),
       window=st.integers(2, 64))
def test_vegas_invariants_under_random_loss(p: float, alpha: int, extra: int, gamma: int,
                                            seed: int, profile: str, window: int) -> None:
    r = lossytcp.simulate("vegas", rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500,
                          window=window, channel=f"bernoulli:p={p}", duration_s=10, seed=seed,
                          profile=profile, vegas_alpha=alpha, vegas_beta=alpha + extra,
                          vegas_gamma=gamma, granularity_s=0.01)
    again = lossytcp.simulate("vegas", rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500,
                              window=window, channel=f"bernoulli:p={p}", duration_s=10,
                              seed=seed, profile=profile, vegas_alpha=alpha,
                              vegas_beta=alpha + extra, vegas_gamma=gamma, granularity_s=0.01)
    assert r == again, "one seed fixes a run"
    assert 0 <= r.goodput_norm <= r.throughput_norm <= 1 + 1e-9
    assert r.packets_delivered <= r.packets_received <= r.packets_sent
    assert r.retransmissions <= r.packets_sent
    # Every segment lost on the channel was sent again, unless the run ended first.
    assert r.retransmissions >= r.channel_losses - window
    if profile == "rfc":
        # Vegas never goes below two segments: its cuts stop there, a timeout restarts there.
        assert r.final_cwnd >= 2
    else:
        # ns-2's Vegas can deflate to a window below one after a timeout (ns2/README.md,
        # rule 13) and then waits for its timer: it must not stay stuck.
        assert r.final_cwnd >= 0
        if r.final_cwnd < 1:
            later = lossytcp.simulate(
                "vegas", rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=window,
                channel=f"bernoulli:p={p}", duration_s=10 + r.final_rto_s + 1, seed=seed,
                profile=profile, vegas_alpha=alpha, vegas_beta=alpha + extra,
                vegas_gamma=gamma, granularity_s=0.01)
            assert later.packets_sent > r.packets_sent
    assert r.final_ssthresh >= 2


def test_cli_vegas_thresholds_reach_the_engine() -> None:
    import json
    import subprocess
    import sys

    def run(*flags: str) -> dict:
        out = subprocess.run(
            [sys.executable, "-m", "lossytcp", "simulate", "--variant", "vegas", "--rate",
             "10Mbps", "--rtt", "100ms", "--packet-size", "1000B", "--window", "400",
             "--duration", "40s", "--seeds", "1", "--json", *flags],
            capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    # The thresholds pass through: the CLI run is the library run with the same thresholds.
    assert run()["goodput_norm"]["mean"] > 0.85
    lib = lossytcp.simulate("vegas", **PATH, duration_s=40, vegas_alpha=4, vegas_beta=8)
    assert run("--vegas-alpha", "4", "--vegas-beta", "8")["packets_sent"]["mean"] == \
        lib.packets_sent
    bad = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--variant", "reno",
                          "--vegas-alpha", "2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "'vegas_alpha' = 2" in bad.stderr
    assert "Traceback" not in bad.stderr
