"""The simulator through its Python API: validation, determinism, channels, baselines."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lossytcp
from lossytcp import ParameterError, simulate, simulate_seeds

pytest.importorskip("lossytcp._sim")

FIG3 = dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20)


@pytest.mark.parametrize(
    ("kwargs", "name", "fragment"),
    [
        (dict(rate_bps=-1), "rate_bps", "> 0"),
        (dict(rate_bps=float("nan")), "rate_bps", "> 0"),
        (dict(window=0), "window", "[1,"),
        (dict(channel="bernoulli:p=1.5"), "channel.p", "[0, 1]"),
        (dict(channel="ge:alpha=0.1"), "channel", "beta"),
        (dict(channel="ge:alpha=0.1,beta=0.2,advance=sometimes"), "channel.advance", "'slot'"),
        (dict(channel="wifi:p=0.1"), "channel", "unknown channel kind"),
        (dict(channel="burst:p=0.1,hold=-5ms"), "channel.hold", "> 0"),
        (dict(delay={"rtt_s": [0.1, 0.2], "H": [[0.5, 0.6], [1, 0]], "excess_mean_s": [0, 0]}),
         "delay.H[0]", "sum to 1"),
        (dict(max_rto_s=0.1, min_rto_s=1.0), "max_rto_s", ">= min_rto_s"),
        (dict(slot_model=True), "fixed_rto_s", "T0"),
        (dict(colour="red"), "colour", "not a parameter"),
        (dict(seed=-3), "seed", "integer"),
    ],
)
def test_bad_input_names_parameter_value_and_range(kwargs, name, fragment):
    with pytest.raises(ParameterError) as e:
        simulate("newreno", **kwargs)
    assert e.value.name == name
    assert fragment in str(e.value)


def test_unknown_variant_is_rejected():
    with pytest.raises(ParameterError, match="'variant' = 'vegas2'.*oldtahoe"):
        simulate("vegas2")


def test_lossless_link_is_window_limited_then_full():
    # Window 20 > BDP 10 (+1): the link is the bottleneck and stays busy after slow start.
    r = simulate("newreno", **FIG3, duration_s=50)
    assert r.channel_losses == 0 and r.timeouts == 0 and r.retransmissions == 0
    assert 0.97 < r.goodput_norm <= 1.0
    # Window 5 < BDP: throughput = W / RTT, with RTT = 20 ms + 2 ms serialisation (+ ACK).
    r = simulate("newreno", **{**FIG3, "window": 5}, duration_s=50)
    rtt = 0.02 + 500 * 8 / 2e6 + 40 * 8 / 2e6
    assert r.goodput_pps == pytest.approx(5 / rtt, rel=0.01)


def test_same_seed_is_bit_identical_and_seeds_differ():
    kw = dict(**FIG3, channel="ge:alpha=0.01,beta=0.2", duration_s=100)
    a, b, c = simulate("sack", seed=3, **kw), simulate("sack", seed=3, **kw), simulate(
        "sack", seed=4, **kw)
    assert a == b
    assert a.packets_sent != c.packets_sent


def test_bernoulli_loss_fraction_matches_p_for_every_variant():
    kw = dict(**FIG3, channel="bernoulli:p=0.05", duration_s=200, seed=11)
    rates = [simulate(v, **kw) for v in ("tahoe", "sack")]
    fr = [r.channel_losses / r.packets_sent for r in rates]
    assert all(abs(f - 0.05) < 0.004 for f in fr)


def test_gilbert_elliott_loss_rate_and_burst_through_the_engine():
    # With advance=transmission the chain steps once per packet sent, so the lost fraction of
    # transmissions is pi_B whatever TCP does (burst statistics: the Rust channel tests).
    alpha, beta = 0.02, 0.25
    pi_b = alpha / (alpha + beta)
    fr = []
    for seed in range(1, 9):
        r = simulate("sack", **FIG3, channel=f"ge:alpha={alpha},beta={beta},advance=transmission",
                     duration_s=300, seed=seed)
        fr.append(r.channel_losses / r.packets_sent)
    m, s = np.mean(fr), np.std(fr, ddof=1) / math.sqrt(len(fr))
    assert abs(m - pi_b) < max(4 * s, 0.004), (m, pi_b, s)


def test_slot_model_one_packet_per_slot_without_loss():
    slot = 1024 * 8 / 1.5e6
    r = simulate("tahoe", rate_bps=1.5e6, packet_size_bytes=1024, window=6, slot_model=True,
                 fixed_rto_s=100 * slot, duration_s=2000 * slot)
    # Every slot carries a packet once the window is open (slow start from 1 costs a few).
    assert r.packets_received >= 2000 - 10
    assert r.goodput_norm == pytest.approx(1.0, abs=0.006)


def test_finite_transfer_reports_completion_time():
    r = simulate("newreno", **FIG3, transfer_bytes=50_000, duration_s=100)
    assert r.packets_delivered == 100
    # Slow start from 1 over an RTT of ~22 ms: about 5 RTTs to open to the BDP, then ~2 ms
    # per packet.
    assert 0.15 < r.completion_time_s < 0.5
    assert r.elapsed_s == r.completion_time_s


def test_semi_markov_delay_reorders_and_causes_spurious_events():
    # Paper 001 Section 6.3's process: delay drops let later packets overtake (dupacks),
    # delay spikes fire the timer early. Neither loses a packet.
    delay = {"rtt_s": [0.058056, 0.060383, 0.081911],
             "H": [[0.1, 0.33, 0.57], [0.30, 0.12, 0.58], [0.165, 0.36, 0.475]],
             "excess_mean_s": [0.1067, 0.1183, 0.0042]}
    r = simulate("newreno", rate_bps=1210 * 8000, packet_size_bytes=1000, window=60,
                 delay=delay, duration_s=200, min_rto_s=0.0, granularity_s=0.0)
    assert r.channel_losses == 0 and r.queue_drops == 0
    assert r.fast_retransmits > 0 and r.spurious_fast_retransmits == r.fast_retransmits
    assert r.spurious_timeouts == r.timeouts


def test_delay_trace_gives_the_semi_markov_states_without_changing_the_run():
    delay = {"rtt_s": [0.058056, 0.060383, 0.081911],
             "H": [[0.1, 0.33, 0.57], [0.30, 0.12, 0.58], [0.165, 0.36, 0.475]],
             "excess_mean_s": [0.1067, 0.1183, 0.0042]}
    kw = dict(rate_bps=1210 * 8000, packet_size_bytes=1000, window=60, delay=delay,
              duration_s=200, min_rto_s=0.0, granularity_s=0.0)
    traced, plain = simulate("reno", trace_delay=True, **kw), simulate("reno", **kw)
    assert plain.delay_trace == [] and traced.as_dict() == plain.as_dict()
    t, state = np.array(traced.delay_trace).T
    assert t[0] == 0.0 and set(state) == {0, 1, 2}
    hold = np.diff(t)
    rtt = np.array(delay["rtt_s"])[state[:-1].astype(int)]
    assert (hold >= rtt - 1e-9).all()          # a visit lasts at least its own delay
    # Mean excess over the delay, per state: E[V_i] (about 800 visits each; state 2's
    # 4.2 ms mean is the tightest).
    for i, v in enumerate(delay["excess_mean_s"]):
        assert np.mean(hold[state[:-1] == i] - delay["rtt_s"][i]) == pytest.approx(v, rel=0.15)
    with pytest.raises(ParameterError, match="trace_delay"):
        simulate("reno", trace_delay="yes", **kw)


def test_protected_retransmissions_are_never_lost():
    r = simulate("tahoe", **FIG3, channel="bernoulli:p=0.3", protect_retransmissions=True,
                 duration_s=50, trace_sends=True)
    # Every loss is a first transmission: lost packets <= new packets sent.
    assert r.channel_losses <= r.packets_sent - r.retransmissions


@pytest.mark.parametrize("p", [0.001, 0.003, 0.01, 0.02])
def test_newreno_bernoulli_within_mathis_band(p):
    """Mathis et al. 1997: B = (MSS/RTT) sqrt(3/(2p)) (C = 1.22 for an ACK per packet).

    The formula models congestion avoidance only (no timeouts, no slow start) and is known to
    hold within a factor of about two where timeouts are rare (p <= 2%); the window (large
    here) and the link rate must not bind. We accept the simulated goodput within [0.6, 1.4]
    of the formula: below it the simulator's timeouts and NewReno's slower multi-loss
    recovery, above it loss events that take several losses at once (one halving).
    """
    rtt = 0.1
    rate = 100e6
    r = simulate_seeds(3, "newreno", rate_bps=rate, rtt_s=rtt, packet_size_bytes=1000,
                       window=10_000, channel=f"bernoulli:p={p}", duration_s=300)
    # RTT as the sender sees it: propagation + serialisation of data and ACK.
    rtt_eff = rtt + 1000 * 8 / rate + 40 * 8 / rate
    mathis = math.sqrt(1.5 / p) / rtt_eff
    ratio = r.mean("goodput_pps") / mathis
    assert 0.6 < ratio < 1.4, ratio


def test_runs_release_the_gil():
    kw = dict(**FIG3, channel="bernoulli:p=0.01", duration_s=1500)
    t = time.perf_counter()
    simulate("sack", **kw)
    one = time.perf_counter() - t
    ticks = 0
    stop = threading.Event()

    def spin():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    th = threading.Thread(target=spin)
    th.start()
    simulate("sack", **kw)
    stop.set()
    th.join()
    # Had the GIL been held, the spinning thread would have been starved for the whole run.
    assert ticks > 1000 or one < 0.05


def test_cli_json_has_the_documented_keys():
    out = subprocess.run(
        [sys.executable, "-m", "lossytcp", "simulate", "--variant", "newreno", "--rate", "2Mbps",
         "--rtt", "20ms", "--packet-size", "500B", "--window", "20", "--channel",
         "ge:alpha=0.01,beta=0.2,advance=slot", "--duration", "100s", "--seeds", "3", "--json"],
        capture_output=True, text=True, check=True,
    )
    d = json.loads(out.stdout)
    assert out.stderr == ""   # no progress bar off a terminal
    for k in ("goodput_norm", "throughput_norm", "timeouts", "fast_retransmits",
              "timeout_fraction"):
        assert set(d[k]) == {"mean", "ci95"}
    assert 0 < d["goodput_norm"]["mean"] < 1


def test_cli_bad_input_is_a_clear_error_not_a_traceback():
    out = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--rate", "fast"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "parameter 'rate' = 'fast'" in out.stderr
    assert "Traceback" not in out.stderr


def test_version_and_exports():
    assert lossytcp.__version__
    assert "goodput_norm" in lossytcp.METRICS


def test_chain_of_links_bottleneck_and_rtt():
    # 10 Mb/s then 1 Mb/s, 10 + 20 ms one way: the 1 Mb/s hop bounds the capacity, and a
    # window of 2 is window-limited: 2 packets per RTT with RTT = 60 ms + serialisation.
    hops = [{"rate_bps": 10e6, "delay_s": 0.01}, {"rate_bps": 1e6, "delay_s": 0.02}]
    r = simulate("newreno", hops=hops, packet_size_bytes=500, window=2, duration_s=30)
    assert r.capacity_pps == pytest.approx(250.0)
    rtt = 0.06 + 500 * 8 / 10e6 + 500 * 8 / 1e6 + 40 * 8 / 1e6 + 40 * 8 / 10e6
    assert r.goodput_pps == pytest.approx(2 / rtt, rel=0.01)
    # A lossy last hop loses packets; the loss shows in the flow's counters.
    lossy = [hops[0], {**hops[1], "channel": "bernoulli:p=0.05"}]
    r = simulate("sack", hops=lossy, packet_size_bytes=500, window=20, duration_s=60)
    assert abs(r.channel_losses / r.packets_sent - 0.05) < 0.015


def test_hops_exclude_the_single_link_parameters():
    with pytest.raises(ParameterError, match="either hops or rate_bps"):
        simulate("newreno", hops=[{"rate_bps": 1e6, "delay_s": 0.01}], rate_bps=2e6)
    with pytest.raises(ParameterError) as e:
        simulate("newreno", hops=[{"rate_bps": 1e6}])
    assert e.value.name == "hops[0]"


def test_trace_channel_per_transmission_or_per_slot(tmp_path):
    """Every other outcome lost. Per transmission, exactly half the transmissions are lost
    whatever the timing. Per slot (the Rust tests pin the indexing down), the outcome is that
    of the slot a transmission starts in, so idle slots skip outcomes."""
    f = tmp_path / "t.txt"
    f.write_text("10" * 500)
    slot = 500 * 8 / 2e6
    kw = dict(rate_bps=2e6, packet_size_bytes=500, window=4, slot_model=True,
              fixed_rto_s=10 * slot, duration_s=400 * slot)
    per_tx = simulate("tahoe", channel=f"trace:file={f}", **kw)
    assert abs(per_tx.channel_losses - per_tx.packets_sent / 2) <= 1
    per_slot = simulate("tahoe", channel=f"trace:file={f},advance=slot", **kw)
    assert per_slot.packets_sent > 0 and per_slot != per_tx
    with pytest.raises(ParameterError) as e:
        simulate("tahoe", channel=f"trace:file={f},advance=sometimes", **kw)
    assert e.value.name == "channel.advance"


def test_simulate_seeds_reports_progress_and_keeps_seed_order():
    calls = []
    kw = dict(channel="bernoulli:p=0.01", duration_s=20.0)
    summary = lossytcp.simulate_seeds(4, "reno", threads=2,
                                      progress=lambda d, t: calls.append((d, t)), **kw)
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    alone = [lossytcp.simulate("reno", seed=s, **kw).packets_sent for s in (1, 2, 3, 4)]
    assert [r.packets_sent for r in summary.reports] == alone


def test_simulate_seeds_checks_everything_before_the_first_run():
    calls = []
    with pytest.raises(lossytcp.ParameterError, match="window"):
        lossytcp.simulate_seeds(3, "reno", window=0, progress=lambda d, t: calls.append(d))
    assert calls == []
