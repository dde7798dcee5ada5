//! Fall & Floyd (1996), "Simulation-based comparisons of Tahoe, Reno and SACK TCP": one to
//! four packets dropped from one window, for Tahoe, Reno, NewReno and SACK. The window is 16
//! and the drops start at segment 40, once the window is full.

mod common;
use common::*;
use lossytcp_sim::config::{Profile, Variant};

fn drops(k: u64) -> Vec<u64> {
    (40..40 + k).collect()
}

fn first_rtx(r: &lossytcp_sim::metrics::FlowReport, seq: u64) -> f64 {
    r.send_trace
        .iter()
        .find(|x| x.1 == seq && x.2)
        .map(|x| x.0)
        .expect("never retransmitted")
}

/// Time at which every dropped segment has been retransmitted at least once, in RTTs after
/// the first retransmission.
fn rtts_to_repair(r: &lossytcp_sim::metrics::FlowReport, k: u64) -> f64 {
    let t0 = first_rtx(r, 40);
    let last = (40..40 + k).map(|s| first_rtx(r, s)).fold(0.0, f64::max);
    (last - t0) / (2.0 * ONE_WAY_S)
}

#[test]
fn tahoe_slow_starts_once_whatever_the_number_of_drops() {
    for k in 1..=4 {
        let r = with_drops(Variant::Tahoe, &drops(k), 16, Profile::Rfc, 200);
        assert_eq!((r.fast_retransmits, r.timeouts), (1, 0), "{k} drops");
        assert!(r.completion_time_s.is_some());
        // Go-back-N from one segment: k drops need about log2(k) + 1 rounds.
        assert!(
            rtts_to_repair(&r, k) < 3.2,
            "{k} drops: {}",
            rtts_to_repair(&r, k)
        );
    }
}

#[test]
fn reno_handles_one_drop_and_times_out_on_three() {
    let r = with_drops(Variant::Reno, &drops(1), 16, Profile::Rfc, 200);
    assert_eq!((r.fast_retransmits, r.timeouts), (1, 0));
    assert_eq!(r.retransmissions, 1);
    // Two drops: the partial ACK ends recovery; the second loss needs its own fast
    // retransmit (cwnd halved twice) or a timeout, never both fixed by one.
    let r = with_drops(Variant::Reno, &drops(2), 16, Profile::Rfc, 200);
    assert!(r.fast_retransmits + r.timeouts >= 2, "{r:?}");
    for k in [3, 4] {
        let r = with_drops(Variant::Reno, &drops(k), 16, Profile::Rfc, 200);
        assert_eq!(r.timeouts, 1, "{k} drops: Reno waits for the RTO");
    }
}

#[test]
fn newreno_repairs_one_drop_per_rtt_without_timeout() {
    for profile in [Profile::Rfc, Profile::Ns2] {
        for k in 1..=4 {
            let r = with_drops(Variant::NewReno, &drops(k), 16, profile, 200);
            assert_eq!(
                (r.fast_retransmits, r.timeouts),
                (1, 0),
                "{k} drops {profile:?}"
            );
            assert_eq!(r.retransmissions, k, "only the lost segments are resent");
            let rtts = rtts_to_repair(&r, k);
            assert!(
                (rtts - (k - 1) as f64).abs() < 0.2,
                "{k} drops: {rtts} RTTs"
            );
        }
    }
}

#[test]
fn sack_repairs_all_drops_within_one_rtt() {
    for k in 1..=4 {
        let r = with_drops(Variant::Sack, &drops(k), 16, Profile::Rfc, 200);
        assert_eq!((r.fast_retransmits, r.timeouts), (1, 0), "{k} drops");
        assert_eq!(r.retransmissions, k, "only the lost segments are resent");
        // Every hole is resent within about one RTT of the first: as soon as pipe (RFC 6675
        // §4) falls below cwnd = 8, which takes the duplicate ACKs of the next round when the
        // window went out in two slow-start bursts.
        let rtts = rtts_to_repair(&r, k);
        assert!(rtts < 1.05, "{k} drops: took {rtts} RTTs");
    }
}

#[test]
fn oldtahoe_ignores_dupacks_and_waits_for_the_timer() {
    let r = with_drops(Variant::OldTahoe, &drops(1), 16, Profile::Rfc, 200);
    assert_eq!((r.fast_retransmits, r.timeouts), (0, 1));
}
