//! Channel statistics over many seeds: the measured loss rate and mean burst length fall
//! within a confidence band (4 standard errors of the across-seed mean) of the configured
//! values.

use lossytcp_sim::channel::Channel;
use lossytcp_sim::config::{Advance, ChannelConfig, HoldingDist};
use lossytcp_sim::frame::Frame;
use lossytcp_sim::rng::{Rng, Stream};
use lossytcp_sim::time::{Dur, Time};

/// A channel sees a packet through [`Frame`] only: these statistics need nothing else.
struct Segment;

impl Frame for Segment {
    fn size_bytes(&self) -> u32 {
        500
    }
    fn segment(&self) -> Option<(u32, u64)> {
        Some((0, 0))
    }
    fn is_retransmission(&self) -> bool {
        false
    }
}

const PKT: Segment = Segment;

/// (loss rate, mean burst length) of `n` transmissions `gap` apart.
fn measure(cfg: &ChannelConfig, seed: u64, n: u64, gap: Dur, slot: Dur) -> (f64, f64) {
    let mut ch = Channel::build(cfg, Rng::derive(seed, Stream::Channel, 0), slot);
    let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
    for i in 0..n {
        let l = ch.lost(Time(i * gap.0), &PKT);
        lost += u64::from(l);
        bursts += u64::from(l && !prev);
        prev = l;
    }
    (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
}

fn band(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, 4.0 * (var / n).sqrt())
}

fn check(cfg: ChannelConfig, gap: Dur, slot: Dur, rate: f64, burst: f64) {
    let runs: Vec<(f64, f64)> = (1..=30)
        .map(|s| measure(&cfg, s, 100_000, gap, slot))
        .collect();
    let (m, w) = band(&runs.iter().map(|r| r.0).collect::<Vec<_>>());
    assert!(
        (m - rate).abs() < w.max(1e-4),
        "{cfg:?}: loss rate {m} +- {w}, expected {rate}"
    );
    let (b, wb) = band(&runs.iter().map(|r| r.1).collect::<Vec<_>>());
    assert!(
        (b - burst).abs() < wb.max(1e-3),
        "{cfg:?}: mean burst {b} +- {wb}, expected {burst}"
    );
}

#[test]
fn bernoulli() {
    let p = 0.03;
    // Runs of losses are geometric: mean 1 / (1 - p).
    check(
        ChannelConfig::Bernoulli { p },
        Dur(1000),
        Dur(1000),
        p,
        1.0 / (1.0 - p),
    );
}

#[test]
fn gilbert_elliott_back_to_back_both_advances() {
    let (a, b) = (0.01, 0.2);
    for advance in [Advance::Transmission, Advance::Slot] {
        let cfg = ChannelConfig::GilbertElliott {
            alpha: a,
            beta: b,
            loss_good: 0.0,
            loss_bad: 1.0,
            advance,
            idle_reset_s: None,
            slot_s: None,
        };
        check(cfg, Dur(1000), Dur(1000), a / (a + b), 1.0 / b);
    }
}

#[test]
fn gilbert_elliott_slot_advance_over_idle_gaps() {
    // Packets 3 slots apart: the chain takes 3 steps between them. P(B -> B in 3 steps) =
    // pi_B + pi_G (1-a-b)^3, so a run of losses lasts 1 / (1 - that) packets on average.
    let (a, b) = (0.05, 0.3);
    let pi_b = a / (a + b);
    let stay = pi_b + (1.0 - pi_b) * (1.0f64 - a - b).powi(3);
    let cfg = ChannelConfig::GilbertElliott {
        alpha: a,
        beta: b,
        loss_good: 0.0,
        loss_bad: 1.0,
        advance: Advance::Slot,
        idle_reset_s: None,
        slot_s: None,
    };
    check(cfg, Dur(3000), Dur(1000), pi_b, 1.0 / (1.0 - stay));
}

#[test]
fn gilbert_elliott_idle_reset_makes_separated_packets_independent() {
    let (a, b) = (0.01, 0.2);
    let pi_b = a / (a + b);
    let cfg = ChannelConfig::GilbertElliott {
        alpha: a,
        beta: b,
        loss_good: 0.0,
        loss_bad: 1.0,
        advance: Advance::Transmission,
        idle_reset_s: Some(1e-6),
        slot_s: None,
    };
    // 2 us apart, reset after 1 us: every packet draws a fresh stationary state.
    check(cfg, Dur(2000), Dur(1000), pi_b, 1.0 / (1.0 - pi_b));
}

#[test]
fn two_state_in_time_and_burst_dropper() {
    // Good 100 ms, Bad 5 ms (exponential), packets every 1 ms: the Bad fraction of time
    // is 5/105 and a Bad period covers 5 packets on average (memoryless: 1/(1-e^{-1/5})).
    let cfg = ChannelConfig::TwoState {
        good_s: 0.1,
        bad_s: 0.005,
        loss_good: 0.0,
        loss_bad: 1.0,
        dist: HoldingDist::Exp,
    };
    let burst = 1.0 / (1.0 - (-1.0f64 / 5.0).exp());
    check(cfg, Dur::from_secs(0.001), Dur(1000), 5.0 / 105.0, burst);
    // Burst dropper: p per packet in Good starts a 4.5 ms hold; packets 1 ms apart: each
    // hold drops exactly 5 packets; a cycle is 5 lost + Geometric(p) good ones (mean (1-p)/p).
    // A hold can start right after the last one ends, so runs of losses are 5 x
    // Geometric(1-p) long: mean 5 / (1 - p).
    let p = 0.01;
    let cfg = ChannelConfig::Burst { p, hold_s: 0.0045 };
    let good = (1.0 - p) / p;
    check(
        cfg,
        Dur::from_secs(0.001),
        Dur(1000),
        5.0 / (5.0 + good),
        5.0 / (1.0 - p),
    );
}
