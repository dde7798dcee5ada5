"""BBRv3 (variant ``bbr3``) through the Python API: it runs, and what its design promises
over random loss holds against BBR v1 on the same path and losses.

BBRv3 bounds its flight by loss: a probe whose loss rate goes above 2% sets inflight_hi to the
flight at the loss, and every round with losses outside probing cuts bw_lo and inflight_lo
to 0.7 of themselves. BBR v1 ignores random loss until its long-term estimator sees 20%. So
on a 10 Mb/s, 100 ms path with Bernoulli loss above the threshold (5%) BBRv3 backs off to a
fraction of BBR v1's rate and sends a fraction of its retransmissions; below it (1%) it
keeps most of BBR v1's goodput. The bounds are checked seed by seed; the control run
(``bbr3_loss_thresh`` = 20%) shows the threshold is what makes the difference. Measured
(60 s, seeds 1-5, both paced in Linux's TSO bursts, their default): goodput_norm at 1% 0.752
(bbr3) vs 0.924 (bbr), at 5% 0.171 vs 0.808; retransmissions at 5% 763 vs 4460 (seed 1).
Per segment (``bbr_pacing_burst='segment'``) the means were 0.755 vs 0.927 and 0.128 vs 0.841.
BBR v1's goodput at 5% falls with the timeouts a seed draws (seeds 1-10, either pacing: 0.52
to 0.85 for 4 to 15 timeouts in 60 s), hence its bound of 0.7 rather than the 0.74-0.85 of
these five seeds.
"""

from __future__ import annotations

import pytest

from lossytcp import ParameterError, simulate

pytest.importorskip("lossytcp._sim")

PATH = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=1000, duration_s=60)
SEEDS = range(1, 6)


def run(variant: str, p: float, seed: int, **kw):
    return simulate(variant=variant, channel=f"bernoulli:p={p}", seed=seed, **{**PATH, **kw})


def test_bbr3_runs_and_cycles_through_its_probe_bw_phases() -> None:
    r = simulate(variant="bbr3", trace_window=True, seed=1, **{**PATH, "duration_s": 20})
    assert r.variant == "bbr3"
    assert r.retransmissions == 0 and r.goodput_norm > 0.9
    phases = [name for _, name in r.phase_trace]
    assert phases[:2] == ["startup", "drain"]
    for name in ("probe_bw:down", "probe_bw:cruise", "probe_bw:refill", "probe_bw:up",
                 "probe_rtt"):
        assert name in phases, phases
    # Deterministic: one seed fixes the run.
    again = simulate(variant="bbr3", trace_window=True, seed=1, **{**PATH, "duration_s": 20})
    assert again.phase_trace == r.phase_trace and again.packets_sent == r.packets_sent


@pytest.mark.parametrize("seed", SEEDS)
def test_above_the_2_percent_threshold_bbr3_backs_off_where_bbr_ignores_loss(seed: int) -> None:
    v1, v3 = run("bbr", 0.05, seed), run("bbr3", 0.05, seed)
    assert v1.goodput_norm > 0.7, "BBR v1 holds its rate through 5% random loss"
    assert v3.goodput_norm < 0.3 * v1.goodput_norm
    assert v3.retransmissions < 0.3 * v1.retransmissions


@pytest.mark.parametrize("seed", SEEDS)
def test_below_the_threshold_bbr3_keeps_most_of_bbrs_goodput(seed: int) -> None:
    v1, v3 = run("bbr", 0.01, seed), run("bbr3", 0.01, seed)
    assert v3.goodput_norm > 0.6 * v1.goodput_norm
    # And far more than it keeps at 5%: the response grows with the loss rate.
    assert v3.goodput_norm > 2.5 * run("bbr3", 0.05, seed).goodput_norm


def test_the_loss_threshold_is_what_makes_bbr3_back_off() -> None:
    for seed in (1, 2, 3):
        base = run("bbr3", 0.05, seed, duration_s=30)
        lax = run("bbr3", 0.05, seed, duration_s=30, bbr3_loss_thresh=0.2)
        assert lax.goodput_norm > 2 * base.goodput_norm, (seed, lax.goodput_norm,
                                                          base.goodput_norm)


def test_bbr3_knobs_are_its_own() -> None:
    with pytest.raises(ParameterError, match="bbr3_loss_thresh"):
        simulate(variant="bbr3", bbr3_loss_thresh=0.0, **PATH)
    with pytest.raises(ParameterError, match="bbr3_beta"):
        simulate(variant="bbr", bbr3_beta=0.5, **PATH)


def test_bbr3_is_refused_by_name_where_it_has_no_counterpart(tmp_path) -> None:
    from lossytcp.emulate.linux import engine_variant, kernel_cc
    from lossytcp.ns2.script import Ns2Unsupported, ns2_variant
    from lossytcp.ns3 import Ns3Unsupported, ns3_arguments

    with pytest.raises(Ns2Unsupported, match="bbr3.*no BBR of any version"):
        ns2_variant("bbr3")
    with pytest.raises(Ns3Unsupported, match="bbr3.*no ns-3 3.37 counterpart"):
        ns3_arguments("bbr3", PATH)
    # The kernel's bbr is v3 only where Google's tree's skb_marked_lost hook exists.
    v1 = tmp_path / "v1"
    v1.write_text("ffffffff8209b8b0 t bbr_lt_bw_sampling\nffffffff8209c170 t bbr_main\n")
    with pytest.raises(ParameterError, match="cc.*bbr3.*not BBRv3"):
        engine_variant("bbr3", kallsyms=v1)
    with pytest.raises(ParameterError, match="not BBRv3"):
        engine_variant("bbr3", kallsyms=tmp_path / "missing")
    v3 = tmp_path / "v3"
    v3.write_text("ffffffff8209b8b0 t bbr_skb_marked_lost\t[tcp_bbr]\n")
    assert engine_variant("bbr3", kallsyms=v3) == "bbr3"
    assert kernel_cc("bbr3") == "bbr" and kernel_cc("cubic") == "cubic"
