//! RFC 6298 timer behaviour (backoff, Karn's rule) and RFC 6582's `recover` guard, driven
//! through exact loss patterns.

mod common;
use common::*;
use lossytcp_sim::config::{AppConfig, ChannelConfig, DelayConfig, LinkConfig, Profile, Variant};

#[test]
fn rto_backs_off_by_doubling_and_karn_skips_retransmitted_samples() {
    // The first segment is lost four times: RTOs at 3, 6, 12, 24 s after each send.
    let r = with_drops(Variant::NewReno, &[0, 0, 0, 0], 8, Profile::Rfc, 3);
    let sends: Vec<f64> = r
        .send_trace
        .iter()
        .filter(|x| x.1 == 0)
        .map(|x| x.0)
        .collect();
    let expect = [0.0, 3.0, 9.0, 21.0, 45.0];
    assert_eq!(sends.len(), 5);
    for (a, b) in sends.iter().zip(expect) {
        assert!((a - b).abs() < 1e-9, "{sends:?}");
    }
    assert_eq!(r.timeouts, 4);
    // Karn: the ACK of the retransmitted segment gives no sample; segments 1 and 2 do:
    // 0.1 s + 0.8 ms serialisation + 32 us for the ACK, and 2 waits 0.8 ms behind 1.
    let (s1, s2) = (0.100832, 0.101632);
    let srtt = r.srtt_s.expect("clean samples from segments 1-2");
    assert!(
        (srtt - (0.875 * s1 + 0.125 * s2)).abs() < 1e-9,
        "srtt {srtt}"
    );
}

#[test]
fn backoff_can_be_switched_off() {
    let mut t = tcp(8, Profile::Rfc);
    t.max_backoff = 1;
    let sc = single_link(
        Variant::NewReno,
        ChannelConfig::Drops {
            seqs: vec![0, 0, 0],
        },
        t,
        AppConfig::Transfer { bytes: 3000 },
        100.0,
        1,
    );
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    let sends: Vec<f64> = r
        .send_trace
        .iter()
        .filter(|x| x.1 == 0)
        .map(|x| x.0)
        .collect();
    assert_eq!(sends, vec![0.0, 3.0, 6.0, 9.0]);
}

#[test]
fn newreno_recover_guard_blocks_fast_retransmit_after_timeout() {
    // Window 16, segments 40-50 lost and the fast retransmission of 40 lost too: recovery
    // stalls until the RTO. Go-back-N then resends 51-55, which the receiver holds: their
    // duplicate ACKs must not start a second fast retransmit (RFC 6582 §4.1).
    let mut d: Vec<u64> = (40..51).collect();
    d.push(40);
    let r = with_drops(Variant::NewReno, &d, 16, Profile::Rfc, 200);
    assert_eq!(r.timeouts, 1, "{r:?}");
    assert_eq!(
        r.fast_retransmits, 1,
        "no fast retransmit after the timeout"
    );
    assert!(r.completion_time_s.is_some());
}

#[test]
fn spurious_timeout_is_recognised() {
    // A fixed RTO shorter than the RTT: every timeout fires while the segment is in flight.
    let mut t = tcp(4, Profile::Rfc);
    t.fixed_rto_s = Some(0.05);
    t.max_backoff = 1;
    let sc = single_link(
        Variant::NewReno,
        ChannelConfig::None,
        t,
        AppConfig::Transfer { bytes: 20_000 },
        100.0,
        1,
    );
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    assert!(r.timeouts > 0);
    assert_eq!(r.spurious_timeouts, r.timeouts);
    assert_eq!(r.channel_losses, 0);
}

#[test]
fn same_seed_same_run_different_seed_different_run() {
    let sc = |seed| {
        single_link(
            Variant::Sack,
            ChannelConfig::GilbertElliott {
                alpha: 0.01,
                beta: 0.2,
                loss_good: 0.0,
                loss_bad: 1.0,
                advance: lossytcp_sim::config::Advance::Slot,
                idle_reset_s: None,
                slot_s: None,
            },
            tcp(20, Profile::Rfc),
            AppConfig::Bulk,
            200.0,
            seed,
        )
    };
    let digest = |seed| serde_json::to_string(&lossytcp_sim::run(&sc(seed)).unwrap()).unwrap();
    assert_eq!(digest(7), digest(7));
    assert_ne!(digest(7), digest(8));
}

/// The ACK of a retransmitted hole gives no RTT sample, even when it also covers segments
/// sent once (Karn's rule for the whole ACK, RFC 6298 §3): otherwise the sample measures the
/// recovery. Issue 9: NewReno, delayed ACKs, 5 Mb/s, RTT 100 ms, a 42-packet queue: slow
/// start overshoots to ~127 segments and loses ~60 in one window; with samples from partial
/// ACKs the RTO grew from 0.24 s to 1.5 s during the recovery, the Impatient timer then fired
/// with 228 segments outstanding, ssthresh = 114 made the next slow start overshoot as badly,
/// and the run collapsed into 88 timeouts every 2.3 s (goodput 0.47).
#[test]
fn partial_acks_give_no_rtt_sample_and_newreno_with_delayed_acks_does_not_collapse() {
    let mut t = tcp(1000, Profile::Rfc);
    t.packet_size_bytes = 1500;
    t.min_rto_s = 0.2;
    t.initial_rto_s = 1.0;
    t.delayed_ack = true;
    let link = |queue_packets| LinkConfig {
        from: None,
        to: None,
        rate_bps: 5e6,
        delay: DelayConfig::Fixed { delay_s: 0.05 },
        queue_packets: Some(queue_packets),
        queue: None,
        channel: ChannelConfig::None,
        protect_retransmissions: false,
        slot_bytes: None,
    };
    let mut sc = single_link(
        Variant::NewReno,
        ChannelConfig::None,
        t,
        AppConfig::Bulk,
        200.0,
        1,
    );
    sc.links = vec![link(42), link(42)];
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    let goodput = r.packets_delivered as f64 / r.elapsed_s / r.capacity_pps;
    assert!(goodput > 0.95, "goodput {goodput}: {r:?}");
    assert!(r.timeouts <= 2, "{} timeouts", r.timeouts);
    // The first recovery's RTO stays near the path's: no sample from its partial ACKs.
    let first_loss = r
        .window_trace
        .iter()
        .position(|w| w.2 < 1000.0)
        .expect("a loss");
    let rto_in_recovery = r.window_trace[first_loss..first_loss + 50]
        .iter()
        .map(|w| w.3)
        .fold(0.0, f64::max);
    assert!(
        rto_in_recovery < 0.5,
        "RTO {rto_in_recovery} during recovery: {:?}",
        &r.window_trace[first_loss - 3..first_loss + 50]
    );
}
