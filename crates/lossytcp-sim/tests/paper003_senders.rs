//! Paper 003's senders on exact scenarios: the loss classifiers' verdicts against the truth the
//! engine knows, and the reactions that follow.

mod common;
use common::*;
use lossytcp_sim::config::*;
use lossytcp_sim::metrics::FlowReport;

/// 10 Mb/s, RTT 100 ms, 1000 B: a queue of `queue` packets and a channel.
fn run(variant: Variant, channel: ChannelConfig, queue: usize, seed: u64) -> FlowReport {
    let mut t = tcp(1000, Profile::Rfc);
    t.min_rto_s = 0.2;
    t.delayed_ack = true;
    let mut sc = single_link(variant, channel, t, AppConfig::Bulk, 200.0, seed);
    sc.links[0].queue_packets = Some(queue);
    sc.trace = TraceConfig::default();
    lossytcp_sim::run(&sc).unwrap().flows.remove(0)
}

fn goodput(r: &FlowReport) -> f64 {
    r.packets_delivered as f64 / r.elapsed_s / r.capacity_pps
}

#[test]
fn the_oracle_is_always_right_and_the_predictor_mostly() {
    // Random losses on a path with a queue of one BDP (125 packets): both kinds occur.
    let ch = ChannelConfig::Bernoulli { p: 0.002 };
    let ideal = run(Variant::IdealLp, ch.clone(), 125, 1);
    let c = ideal.classification;
    assert!(c.classified > 50, "{c:?}");
    assert_eq!(c.correct, c.classified, "the oracle: {c:?}");
    let lp = run(Variant::NewRenoLp, ch.clone(), 125, 1);
    let c = lp.classification;
    assert!(c.classified > 50, "{c:?}");
    let accuracy = c.correct as f64 / c.classified as f64;
    assert!(accuracy > 0.7, "paper 003: accuracy > 70%: {c:?}");
    assert_eq!(
        c.correct + c.congestion_called_wireless + c.wireless_called_congestion,
        c.classified
    );
    // NewReno has no classifier: nothing classified.
    let nr = run(Variant::NewReno, ch, 125, 1);
    assert_eq!(nr.classification.classified, 0);
    assert!(
        goodput(&ideal) > goodput(&nr),
        "{} vs {}",
        goodput(&ideal),
        goodput(&nr)
    );
    assert!(
        goodput(&lp) > goodput(&nr),
        "{} vs {}",
        goodput(&lp),
        goodput(&nr)
    );
}

#[test]
fn congestion_only_gives_newreno_and_wireless_only_spares_the_window() {
    // No channel loss, a small queue: every loss is a queue drop; Ideal-LP is NewReno.
    let ideal = run(Variant::IdealLp, ChannelConfig::None, 30, 2);
    let nr = run(Variant::NewReno, ChannelConfig::None, 30, 2);
    assert!(ideal.queue_drops > 0);
    assert_eq!(
        ideal.classification.correct,
        ideal.classification.classified
    );
    assert_eq!(
        ideal.packets_sent, nr.packets_sent,
        "same reactions, same run"
    );
    assert_eq!(ideal.packets_delivered, nr.packets_delivered);
    // Drops by the channel only, queue never full: Ideal-LP never halves.
    let t = tcp(40, Profile::Rfc);
    let mut sc = single_link(
        Variant::IdealLp,
        ChannelConfig::Drops {
            seqs: vec![300, 600, 900],
        },
        t,
        AppConfig::Bulk,
        30.0,
        1,
    );
    sc.trace.window = true;
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    assert_eq!(r.fast_retransmits, 3);
    assert_eq!(r.classification.correct, 3);
    // After each recovery cwnd is the flight at the loss (the window, 40), not half of it.
    let min_after_first_loss = r
        .window_trace
        .iter()
        .skip_while(|w| w.2 > 1000.0)
        .map(|w| w.2)
        .fold(f64::INFINITY, f64::min);
    assert!(
        min_after_first_loss >= 39.0,
        "ssthresh {min_after_first_loss}"
    );
}

#[test]
fn westwood_sets_ssthresh_from_its_bandwidth_estimate() {
    // Channel losses only on a 10 Mb/s, 100 ms path (BDP 125): Westwood's ssthresh after a
    // loss is near the BDP where NewReno halves.
    let ch = ChannelConfig::Bernoulli { p: 0.001 };
    for v in [Variant::WestwoodNr, Variant::WestwoodPlus] {
        let w = run(v, ch.clone(), 1000, 3);
        let nr = run(Variant::NewReno, ch.clone(), 1000, 3);
        assert!(
            goodput(&w) > goodput(&nr),
            "{v:?}: {} vs NewReno {}",
            goodput(&w),
            goodput(&nr)
        );
    }
}
