"""The ns-2 script generator: structure without ns, channel statistics and metrics with ns.

Expected values come from the channels' laws (stationary loss pi_B = alpha/(alpha+beta),
P(lost | previous lost) per step count, geometric burst lengths), not from the code.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lossytcp.errors import ParameterError
from lossytcp.ns2 import (
    Ns2Unsupported,
    build_script,
    parse_link_fates,
    parse_send_trace,
    run_drops,
    run_script,
    simulate_ns2,
)
from lossytcp.ns2.script import _runs_from_losses, runs_from_drop_counts

HAVE_NS = shutil.which("ns") is not None
needs_ns = pytest.mark.skipif(not HAVE_NS, reason="ns-2 (Debian package ns2) not installed")
TICK = dict(granularity_s=0.01)


# --- without ns ---------------------------------------------------------------------------

@pytest.mark.parametrize("variant,sender,sink", [
    ("oldtahoe", "Agent/TCP", "Agent/TCPSink"), ("tahoe", "Agent/TCP", "Agent/TCPSink"),
    ("reno", "Agent/TCP/Reno", "Agent/TCPSink"), ("newreno", "Agent/TCP/Newreno", "Agent/TCPSink"),
    ("sack", "Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
])
def test_agent_mapping_and_settings(variant: str, sender: str, sink: str) -> None:
    s = build_script(variant, window=37, initial_window=3, dupack_threshold=5, min_rto_s=0.3,
                     max_rto_s=40.0, initial_rto_s=2.5, granularity_s=0.05,
                     packet_size_bytes=777, rate_bps=3e6, rtt_s=0.06, queue_packets=123).text
    assert f"set tcp [new {sender}]" in s
    assert f"set sink [new {sink}]" in s
    for line in ["$tcp set window_ 37", "$tcp set windowInit_ 3", "$tcp set numdupacks_ 5",
                 "$tcp set minrto_ 0.3", "$tcp set maxrto_ 40.0", "$tcp set rtxcur_init_ 2.5",
                 "$tcp set tcpTick_ 0.05", "$tcp set packetSize_ 777",
                 "$tcp set useHeaders_ false", "$tcp set syn_ false",
                 "$ns duplex-link $n0 $n1 3000000.0 0.03 DropTail",
                 # 123 waiting packets: ns-2's limit_ counts the one in transmission too
                 "$ns queue-limit $n0 $n1 124", "$ns link-lossmodel $em_fwd $n0 $n1"]:
        assert line in s, line
    assert ("$tcp set noFastRetrans_ true" in s) == (variant == "oldtahoe")


def test_delayed_ack_and_fixed_rto() -> None:
    s = build_script("sack", delayed_ack=True, fixed_rto_s=0.5, backoff=False, **TICK).text
    assert "new Agent/TCPSink/Sack1/DelAck" in s
    assert "$tcp set minrto_ 0.5" in s and "$tcp set maxrto_ 0.5" in s


@pytest.mark.parametrize("kw,param", [
    (dict(protect_retransmissions=True), "protect_retransmissions"),
    (dict(fixed_rto_s=1.0), "fixed_rto_s"),
    (dict(backoff=False), "backoff"),
    (dict(max_backoff=8), "max_backoff"),
    (dict(transfer_bytes=100_000), "transfer_bytes"),
    (dict(slot_model=True, fixed_rto_s=0.5), "slot_model"),
    (dict(delay=dict(rtt_s=[0.02, 0.1], H=[[0, 1], [1, 0]], excess_mean_s=[0.0, 0.0]),
          channel="burst:p=0.01,hold=10ms"), "delay"),
])
def test_unsupported_features_name_the_parameter(kw: dict, param: str) -> None:
    with pytest.raises(Ns2Unsupported) as e:
        build_script("newreno", **{**TICK, **kw})
    assert e.value.name == param


def test_bad_input_is_rejected_before_any_work() -> None:
    with pytest.raises(ParameterError) as e:
        build_script("newreno", granularity_s=0.0)
    assert e.value.name == "granularity_s"
    with pytest.raises(ParameterError) as e:
        build_script("cubic", **TICK)
    assert e.value.name == "variant"
    with pytest.raises(ParameterError) as e:
        build_script("vegas", vegas_alpha=4, **TICK)
    assert e.value.name == "vegas_alpha"
    with pytest.raises(ParameterError) as e:
        build_script("newreno", channel="ge:alpha=2,beta=0.1", **TICK)
    assert e.value.name == "channel.alpha"


def test_vegas_maps_to_ns2_vegas_with_its_thresholds() -> None:
    text = build_script("vegas", vegas_alpha=2, vegas_beta=4, vegas_gamma=2, **TICK).text
    assert "set tcp [new Agent/TCP/Vegas]" in text
    assert "set sink [new Agent/TCPSink]" in text
    for line in ("$tcp set v_alpha_ 2", "$tcp set v_beta_ 4", "$tcp set v_gamma_ 2"):
        assert line in text
    assert "v_alpha_" not in build_script("newreno", **TICK).text


def test_channel_model_choice() -> None:
    kinds = {
        "none": "none", "bernoulli:p=0.1": "bernoulli",
        "ge:alpha=0.1,beta=0.2,advance=transmission": "ge-runs",
        "ge:alpha=0.1,beta=0.2,advance=slot": "ge-slot",
        "ge:alpha=0.1,beta=0.2,advance=transmission,loss_good=0.01": "ge",
        "ge:alpha=0.1,beta=0.2,idle_reset=50ms": "ge",
        "burst:p=0.01,hold=10ms": "burst", "twostate:good=1s,bad=50ms": "two_state",
    }
    for spec, kind in kinds.items():
        assert build_script("newreno", channel=spec, **TICK).channel_kind == kind, spec


@pytest.mark.parametrize("bits", ["0", "1", "0011101000", "1110", "0101010", "0000"])
def test_runs_cover_a_loss_sequence_exactly(bits: str) -> None:
    lost = [c == "1" for c in bits]
    rebuilt = "".join("0" * g + "1" * b for g, b in _runs_from_losses(lost))
    assert rebuilt == bits


def test_drop_positions_become_runs() -> None:
    assert runs_from_drop_counts([3, 4, 9]) == [(3, 1), (0, 1), (4, 1)]
    with pytest.raises(ParameterError):
        runs_from_drop_counts([2, 2])


# --- with ns ------------------------------------------------------------------------------

def _fates(tmp_path: Path, channel: str, duration_s: float, **kw) -> np.ndarray:
    tr = tmp_path / "link.tr"
    sc = build_script("newreno", channel=channel, duration_s=duration_s, trace_file=str(tr),
                      **{**TICK, **kw})
    run_script(sc)
    fates = parse_link_fates(tr.read_text())
    return np.array([(t, lost) for t, _, lost in fates], dtype=float)


def _burst_stats(lost: np.ndarray) -> tuple[float, float]:
    """Loss fraction and P(lost | previous lost)."""
    prev = lost[:-1] > 0
    return float(lost.mean()), float(lost[1:][prev].mean())


@needs_ns
def test_ge_per_transmission_statistics(tmp_path: Path) -> None:
    # A fixed window of 1 with no timeouts would stall; window 20 at 2 Mb/s keeps the link
    # busy. Per transmission: P(loss) = pi_B, P(loss | loss) = 1 - beta.
    alpha, beta = 0.02, 0.25
    f = _fates(tmp_path, f"ge:alpha={alpha},beta={beta},advance=transmission", 120.0,
               window=1000)
    lost = f[:, 1]
    n = lost.size
    p, pll = _burst_stats(lost)
    pib = alpha / (alpha + beta)
    # mixing makes the variance ~ (1+lambda)/(1-lambda) times binomial, lambda = 1-a-b
    lam = 1 - alpha - beta
    se = math.sqrt(pib * (1 - pib) / n * (1 + lam) / (1 - lam))
    assert abs(p - pib) < 4 * se, (p, pib, n)
    n_ll = int((lost[:-1] > 0).sum())
    assert abs(pll - (1 - beta)) < 4 * math.sqrt(beta * (1 - beta) / n_ll), (pll, n_ll)


@needs_ns
def test_ge_per_slot_statistics_follow_the_gap(tmp_path: Path) -> None:
    # Per slot: between starts n slots apart, P(loss | loss) = pi_B + (1 - pi_B) lambda^n.
    alpha, beta = 0.02, 0.25
    f = _fates(tmp_path, f"ge:alpha={alpha},beta={beta},advance=slot", 150.0, window=1000)
    t, lost = f[:, 0], f[:, 1]
    slot = 500 * 8 / 2e6
    gaps = np.rint(np.diff(t) / slot).astype(int)
    pib, lam = alpha / (alpha + beta), 1 - alpha - beta
    assert abs(lost.mean() - pib) < 0.2 * pib
    checked = 0
    for n in np.unique(gaps):
        sel = (gaps == n) & (lost[:-1] > 0)
        if sel.sum() < 300:
            continue
        expect = pib + (1 - pib) * lam**n
        got = lost[1:][sel].mean()
        assert abs(got - expect) < 4 * math.sqrt(expect * (1 - expect) / sel.sum()), (n, got)
        checked += 1
    assert checked >= 1


@needs_ns
def test_bernoulli_and_burst_loss_rates(tmp_path: Path) -> None:
    lost = _fates(tmp_path, "bernoulli:p=0.03", 60.0, window=1000)[:, 1]
    assert abs(lost.mean() - 0.03) < 4 * math.sqrt(0.03 * 0.97 / lost.size)
    # Independence: P(loss | loss) is p too.
    p, pll = _burst_stats(lost)
    assert abs(pll - 0.03) < 4 * math.sqrt(0.03 * 0.97 / (lost[:-1] > 0).sum())
    # Burst: a busy link sends hold/slot packets per hold; each trigger (prob p outside
    # holds) loses ceil(hold/slot) consecutive packets.
    f = _fates(tmp_path, "burst:p=0.01,hold=10ms", 60.0, window=1000)
    lost = f[:, 1] > 0
    starts = np.flatnonzero(lost & ~np.r_[False, lost[:-1]])
    ends = np.flatnonzero(lost & ~np.r_[lost[1:], False])
    lengths = ends - starts + 1
    assert np.median(lengths) == math.ceil(0.010 / (500 * 8 / 2e6))


@needs_ns
def test_metrics_are_consistent_with_each_other() -> None:
    r = simulate_ns2("newreno", channel="bernoulli:p=0.01", duration_s=40.0, window=20,
                     **TICK)
    # every transmission is either received, lost on the channel, or still in the pipe,
    # which holds at most a window
    assert 0 <= r.packets_sent - r.packets_received - r.channel_losses <= 20
    assert r.retransmissions >= r.channel_losses - 20
    assert r.packets_delivered <= r.packets_received
    assert r.fast_retransmits >= 0 and r.timeouts >= 0


@needs_ns
def test_drops_hit_the_listed_first_transmissions() -> None:
    rep, trace = run_drops("newreno", channel="drops:seq=20+21+30", duration_s=3.0, **TICK)
    assert rep.channel_losses == 3
    rtx = sorted({s for _, s, rx in trace if rx})
    assert rtx == [20, 21, 30]
    assert rep.timeouts + rep.fast_retransmits >= 1


@needs_ns
def test_send_trace_parser_matches_packet_count(tmp_path: Path) -> None:
    tr = tmp_path / "t.tr"
    sc = build_script("tahoe", duration_s=5.0, trace_file=str(tr), **TICK)
    rep, _ = run_script(sc)
    trace = parse_send_trace(tr.read_text())
    assert len(trace) == rep.packets_sent
    assert [s for _, s, _ in trace[:5]] == [0, 1, 2, 3, 4]


# --- the crosscheck command ---------------------------------------------------------------

class _Fake:
    def __init__(self, **m: float) -> None:
        self.m = m

    def metric(self, name: str) -> float:
        return self.m.get(name, math.nan)


def test_compare_verdict_uses_two_standard_errors_of_the_difference() -> None:
    from lossytcp.cli.crosscheck import compare

    a = [_Fake(goodput_norm=x) for x in (0.50, 0.52, 0.48, 0.51, 0.49)]
    # mean 0.50, s.e. sqrt(0.00025/5) = 0.00707 on each side -> 2 s.e. of the difference 0.02
    near = [_Fake(goodput_norm=x + 0.015) for x in (0.50, 0.52, 0.48, 0.51, 0.49)]
    far = [_Fake(goodput_norm=x + 0.025) for x in (0.50, 0.52, 0.48, 0.51, 0.49)]
    (r,) = compare(a, near, ("goodput_norm",))
    assert r["verdict"] == "agree"
    assert r["diff_se"] == pytest.approx(math.sqrt(2 * 0.00025 / 5))
    (r,) = compare(a, far, ("goodput_norm",))
    assert r["verdict"] == "DIFFER"
    (r,) = compare(a[:1], far[:1], ("goodput_norm",))
    assert r["verdict"] == "n/a"  # one seed: no standard error, no verdict
    (r,) = compare(a, far, ("spurious_timeouts",))
    assert r["verdict"] == "n/a"


def test_crosscheck_without_ns_names_the_install_command(monkeypatch, capsys) -> None:
    from lossytcp.cli import main

    monkeypatch.setenv("LOSSYTCP_NS", "ns-not-installed-here")
    assert main(["crosscheck", "ns2", "--duration", "1s", "--seeds", "1"]) == 3
    out = capsys.readouterr().out
    assert "apt-get install ns2" in out


def test_crosscheck_refuses_what_ns2_cannot_express(capsys, monkeypatch) -> None:
    if not HAVE_NS:
        pytest.skip("needs ns on PATH to get past the install check")
    import lossytcp.sim
    from lossytcp.cli import main

    def no_run(*a, **k):
        raise AssertionError("refused only after the engine had run")

    monkeypatch.setattr(lossytcp.sim, "simulate", no_run)

    assert main(["crosscheck", "ns2", "--protect-retransmissions", "--duration", "1s",
                 "--seeds", "2"]) == 2
    assert "protect_retransmissions" in capsys.readouterr().err


@needs_ns
def test_crosscheck_json_end_to_end(capsys, tmp_path: Path) -> None:
    pytest.importorskip("lossytcp._sim")
    import json

    from lossytcp.cli import main

    keep = tmp_path / "kept.tcl"
    main(["crosscheck", "ns2", "--channel", "bernoulli:p=0.01", "--duration", "20s",
          "--seeds", "3", "--json", "--keep-script", str(keep)])
    out = json.loads(capsys.readouterr().out)
    rows = {r["metric"]: r for r in out["metrics"]}
    assert set(rows) >= {"goodput_norm", "timeouts", "channel_losses"}
    assert 0.5 < rows["goodput_norm"]["ns2"] <= 1.0
    assert rows["goodput_norm"]["verdict"] in ("agree", "DIFFER")
    assert keep.exists() and "Agent/TCP/Newreno" in keep.read_text()
    assert (tmp_path / "kept-seed2.tcl").exists()


@needs_ns
def test_semi_markov_delay_switches_the_link_delay(tmp_path: Path) -> None:
    # Two states alternating (H = [[0,1],[1,0]]), RTTs 20 ms and 200 ms, holding exactly
    # T_i (no excess): the sender's RTT samples must show both states.
    from dataclasses import replace

    delay = dict(rtt_s=[0.02, 0.2], H=[[0.0, 1.0], [1.0, 0.0]], excess_mean_s=[0.0, 0.0])
    sc = build_script("newreno", delay=delay, duration_s=4.0, window=4, **TICK)
    probe = "\n".join(f'$ns at {0.05 * i:.2f} {{puts "DELAY [$fwd_link set delay_]"}}'
                      for i in range(1, 60))
    sc = replace(sc, text=sc.text.replace("$ns run", probe + "\n$ns run"))
    _, out = run_script(sc)
    seen = {float(ln.split()[1]) for ln in out.splitlines() if ln.startswith("DELAY")}
    assert seen == {0.02, 0.2}


@needs_ns
def test_semi_markov_delay_with_exponential_excess_runs() -> None:
    # Holding times T_i + Exp(V_i) draw from the delay stream inside the Tcl proc that
    # switches states (it failed with an undeclared global before): paper 001's parameters.
    delay = dict(rtt_s=[0.058056, 0.060383, 0.081911],
                 H=[[0.1, 0.33, 0.57], [0.30, 0.12, 0.58], [0.165, 0.36, 0.475]],
                 excess_mean_s=[0.1067, 0.1183, 0.0042])
    r = simulate_ns2("reno", seed=1, rate_bps=9.68e6, packet_size_bytes=1000, window=60,
                     delay=delay, duration_s=20.0, **TICK)
    assert r.packets_delivered > 1000


@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_runs_rebuild_any_loss_sequence(lost: list[bool]) -> None:
    runs = _runs_from_losses(lost)
    rebuilt = [x for g, b in runs for x in [False] * g + [True] * b]
    assert rebuilt == lost
    # every run but possibly the first starts with a delivered packet (LossyTcp/Runs relies
    # on it: only "assign 0 B" may drop the packet that called read)
    assert all(g >= 1 for g, _ in runs[1:])


def test_agent_settings_are_applied_last_and_checked() -> None:
    s = build_script("reno", agent_settings={"singledup_": 0, "delay_growth_": "false"},
                     **TICK).text
    assert s.index("$tcp set singledup_ 0") > s.index("$tcp set window_")
    assert "$tcp set singledup_ 1" not in s
    with pytest.raises(ParameterError):
        build_script("reno", agent_settings={"window_; exec rm": 1}, **TICK)
    with pytest.raises(ParameterError):
        build_script("reno", agent_settings={"window_": "[exec ls]"}, **TICK)


@needs_ns
def test_ge_lossy_states_packet_by_packet(tmp_path: Path) -> None:
    # Stepped per transmission, the state sequence does not depend on TCP at all, so the loss
    # fraction is pi_G * loss_good + pi_B * loss_bad whatever the sender does.
    a, b, lg, lb = 0.05, 0.2, 0.05, 0.6
    lost = _fates(tmp_path, f"ge:alpha={a},beta={b},advance=transmission,loss_good={lg},"
                  f"loss_bad={lb}", 60.0, window=1000)[:, 1]
    pib = a / (a + b)
    expect = (1 - pib) * lg + pib * lb
    lam = 1 - a - b
    se = math.sqrt(expect * (1 - expect) / lost.size * (1 + lam) / (1 - lam))
    assert abs(lost.mean() - expect) < 4 * se, (lost.mean(), expect, lost.size)


@needs_ns
def test_ack_channel_loses_acks_not_data() -> None:
    r = simulate_ns2("newreno", ack_channel="bernoulli:p=0.2", duration_s=30.0, **TICK)
    assert r.channel_losses == 0
    # about one ACK in five lost: one ACK per received data packet
    assert abs(r.ack_channel_losses / r.packets_received - 0.2) < 0.02
