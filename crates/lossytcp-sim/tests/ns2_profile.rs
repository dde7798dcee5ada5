//! The ns-2 2.35 agent extras of `profile = ns2`: limited transmit (RFC 3042, ns-2
//! `singledup_ 1`) and `delay_growth_`. Expected values come from RFC 3042's rules and from
//! ns-2 2.35 runs (tests/reference/fall_floyd, made by tests/reference/make_reference.py).

mod common;
use common::*;
use lossytcp_sim::config::{AppConfig, ChannelConfig, Profile, Variant};
use lossytcp_sim::metrics::FlowReport;

fn run(
    variant: Variant,
    drop: &[u64],
    max_window: u32,
    profile: Profile,
    lt: Option<bool>,
    dg: Option<bool>,
) -> FlowReport {
    let mut tcp = tcp(max_window, profile);
    tcp.limited_transmit = lt;
    tcp.delay_growth = dg;
    let sc = single_link(
        variant,
        ChannelConfig::Drops {
            seqs: drop.to_vec(),
        },
        tcp,
        AppConfig::Transfer {
            bytes: 200 * u64::from(SIZE),
        },
        20.0,
        1,
    );
    lossytcp_sim::run(&sc).unwrap().flows.remove(0)
}

/// Sends before the first retransmission of `seq`.
fn before_retransmission(r: &FlowReport, seq: u64) -> Vec<(f64, u64, bool)> {
    r.send_trace
        .iter()
        .take_while(|&&(_, s, rx)| !(s == seq && rx))
        .copied()
        .collect()
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_dupacks() {
    for variant in [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
    ] {
        let off = run(variant, &[40], 64, Profile::Ns2, Some(false), Some(false));
        let on = run(variant, &[40], 64, Profile::Ns2, Some(true), Some(false));
        let a = before_retransmission(&off, 40);
        let b = before_retransmission(&on, 40);
        // RFC 3042 §2: the first and second duplicate ACKs each release one previously unsent
        // segment, and nothing else changes before the fast retransmit.
        assert_eq!(b.len(), a.len() + 2, "{variant:?}");
        assert_eq!(&b[..a.len()], &a[..], "{variant:?}");
        let high = a.iter().map(|x| x.1).max().unwrap();
        let extra: Vec<u64> = b[a.len()..].iter().map(|x| x.1).collect();
        assert_eq!(extra, vec![high + 1, high + 2], "{variant:?}");
        assert!(
            b[a.len()..].iter().all(|x| !x.2),
            "new data, not retransmissions"
        );
        // One per duplicate ACK: the dupacks of 41 and 42 arrive one packet time apart
        // (1000 B at 10 Mb/s = 0.8 ms), and the retransmission of 40 comes on the third.
        let (t1, t2) = (b[a.len()].0, b[a.len() + 1].0);
        assert!((t2 - t1 - 0.0008).abs() < 1e-9, "{t1} {t2}");
        let trx = on.send_trace.iter().find(|x| x.1 == 40 && x.2).unwrap().0;
        assert!((trx - t2 - 0.0008).abs() < 1e-9);
        // cwnd is not touched by limited transmit (RFC 3042 §2: "MUST NOT be changed").
        assert_eq!(cwnd_at(&on, t2), cwnd_at(&off, t2), "{variant:?}");
    }
}

#[test]
fn limited_transmit_respects_the_receivers_window() {
    // Window 16 reached before the loss: the whole advertised window is in flight, so the
    // duplicate ACKs may not release anything (RFC 3042 §2, ns-2 send_one(): t_seqno_ <=
    // highest_ack_ + wnd_).
    let off = run(
        Variant::Reno,
        &[40],
        16,
        Profile::Ns2,
        Some(false),
        Some(false),
    );
    let on = run(
        Variant::Reno,
        &[40],
        16,
        Profile::Ns2,
        Some(true),
        Some(false),
    );
    assert_eq!(
        before_retransmission(&on, 40),
        before_retransmission(&off, 40)
    );
}

#[test]
fn profile_defaults() {
    // rfc: no limited transmit, no delay_growth_ unless asked for.
    let rfc = run(Variant::Reno, &[40], 64, Profile::Rfc, None, None);
    let rfc_off = run(
        Variant::Reno,
        &[40],
        64,
        Profile::Rfc,
        Some(false),
        Some(false),
    );
    assert_eq!(rfc.send_trace, rfc_off.send_trace);
    let rfc_lt = run(Variant::Reno, &[40], 64, Profile::Rfc, Some(true), None);
    assert_eq!(
        before_retransmission(&rfc_lt, 40).len(),
        before_retransmission(&rfc, 40).len() + 2
    );
    // ns2: both on.
    let ns2 = run(Variant::Reno, &[40], 64, Profile::Ns2, None, None);
    let ns2_on = run(
        Variant::Reno,
        &[40],
        64,
        Profile::Ns2,
        Some(true),
        Some(true),
    );
    assert_eq!(ns2.send_trace, ns2_on.send_trace);
}

#[test]
fn delay_growth_keeps_the_initial_window_after_the_first_ack() {
    // ns-2 2.35, Fall & Floyd scenario (10 Mb/s, 100 ms, 1000 B, windowInit_ 1), defaults:
    // segment 0 at 0, 1 at 0.100832 s (the ACK of 0 leaves cwnd at 1), 2 and 3 at 0.201664 s.
    let r = run(
        Variant::Tahoe,
        &[],
        16,
        Profile::Ns2,
        Some(true),
        Some(true),
    );
    let first: Vec<(u64, f64)> = r.send_trace.iter().take(4).map(|x| (x.1, x.0)).collect();
    let ns2 = [(0, 0.0), (1, 0.100832), (2, 0.201664), (3, 0.201664)];
    for ((s, t), (s2, t2)) in first.iter().zip(ns2) {
        assert_eq!(*s, s2);
        assert!((t - t2).abs() < 1e-9, "segment {s} at {t}, ns-2 {t2}");
    }
    // Without it the ACK of 0 opens cwnd to 2: segments 1 and 2 leave together.
    let r = run(
        Variant::Tahoe,
        &[],
        16,
        Profile::Ns2,
        Some(true),
        Some(false),
    );
    assert!((r.send_trace[1].0 - 0.100832).abs() < 1e-9);
    assert!((r.send_trace[2].0 - 0.100832).abs() < 1e-9);
}

#[test]
fn fast_retransmit_and_recovery_exit_follow_ns2s_cwnd_trace() {
    // ns-2 2.35 Agent/TCP/Reno with its defaults, 10 Mb/s, 100 ms, 1000 B, window 64, tick
    // 10 ms, minrto 0.2 s, rtxcur_init 1 s, first transmissions of 10 and 72 lost. Its cwnd_
    // trace (`$tcp trace cwnd_`): 5.653 at the fast retransmit of 72 (1.41405 s: windowd() / 2
    // of 11.306, the fraction kept), 5.830 on the ACK that ends recovery (1.51488 s: 5.653 +
    // 1 / 5.653), then 6.001, 6.168, 6.330.
    let mut tcp = tcp(64, Profile::Ns2);
    tcp.limited_transmit = None;
    tcp.delay_growth = None;
    tcp.partial_window_deflation = None;
    tcp.recovery_exit_growth = None;
    tcp.timer_every_partial_ack = None;
    tcp.min_rto_s = 0.2;
    tcp.initial_rto_s = 1.0;
    let sc = single_link(
        Variant::Reno,
        ChannelConfig::Drops { seqs: vec![10, 72] },
        tcp,
        AppConfig::Transfer {
            bytes: 300 * u64::from(SIZE),
        },
        1.6,
        1,
    );
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    let t72 = r.send_trace.iter().find(|x| x.1 == 72 && x.2).unwrap().0;
    assert!((t72 - 1.41405).abs() < 1e-5, "{t72}");
    // Right after the fast retransmit the window is cwnd_ + 3 duplicate ACKs.
    assert!(
        (cwnd_at(&r, t72) - (5.653 + 3.0)).abs() < 5e-4,
        "{}",
        cwnd_at(&r, t72)
    );
    for (t, w) in [
        (1.51488, 5.830),
        (1.51968, 6.001),
        (1.52048, 6.168),
        (1.52128, 6.330),
    ] {
        assert!(
            (cwnd_at(&r, t + 1e-7) - w).abs() < 5e-4,
            "at {t}: {}",
            cwnd_at(&r, t + 1e-7)
        );
    }
}

#[test]
fn sack_fast_retransmit_ack_sends_only_the_retransmission() {
    // tcp-sack1.cc recv() outside fast recovery calls send_much() only `if (dupacks_ == 0)`:
    // the third duplicate ACK sends the retransmission and nothing else. Here (window 5) 40
    // is lost twice, and after the timeout's slow start 51 is lost with so few segments out
    // that pipe_ = flight - 3 < int(cwnd_ / 2); the next ACK (not this one) sends new data.
    let r = run(
        Variant::Sack,
        &[40, 40, 51],
        5,
        Profile::Ns2,
        Some(false),
        Some(false),
    );
    let i = r.send_trace.iter().position(|x| x.1 == 51 && x.2).unwrap();
    let t = r.send_trace[i].0;
    assert!(
        r.send_trace.iter().filter(|x| x.0 == t).count() == 1,
        "{:?}",
        &r.send_trace[i.saturating_sub(3)..i + 4]
    );
    assert!(r.send_trace[i + 1].0 > t);
}

#[test]
fn sack_recovery_exit_lifts_the_recover_guard() {
    // tcp-sack1.cc recv(): the ACK that ends fast recovery sets `recover_ = 0`, so
    // dupack_action()'s `highest_ack_ > recover_` holds at once. 81 is the first segment sent
    // during the recovery of 40 (the recovery point): its three duplicate ACKs start a second
    // recovery instead of waiting for the timer (which the NewReno guard would do).
    let r = run(
        Variant::Sack,
        &[40, 81],
        64,
        Profile::Ns2,
        Some(false),
        Some(false),
    );
    assert_eq!((r.fast_retransmits, r.timeouts), (2, 0));
    let ns2_guard = run(
        Variant::NewReno,
        &[40, 81],
        64,
        Profile::Ns2,
        Some(false),
        Some(false),
    );
    assert_eq!(ns2_guard.timeouts, 1);
}

#[test]
fn ns2_timing_survives_retransmissions_below_the_timed_segment() {
    // ns-2 tcp.cc output() leaves rtt_active_ alone on retransmissions; timing ends only at a
    // fast retransmit or a timeout (reset_rtx_timer()). Losses 49-62 and 93-98 (ns-2's burst
    // seed 2): 99 is sent as new data during the recovery of 49, timed, and acknowledged only
    // after 93-98 are retransmitted: a sample of about 2.8 RTTs that lifts the RTO above
    // min_rto (ns-2: 28 ticks, t_srtt_ 99, t_rttvar_ 24). Per-segment Karn would drop it.
    let drops: Vec<u64> = (49..=62).chain(93..=98).collect();
    let mut cfg = tcp(64, Profile::Ns2);
    cfg.min_rto_s = 0.2;
    cfg.initial_rto_s = 1.0;
    cfg.limited_transmit = Some(false);
    let sc = single_link(
        Variant::Sack,
        ChannelConfig::Drops { seqs: drops },
        cfg,
        AppConfig::Transfer {
            bytes: 200 * u64::from(SIZE),
        },
        20.0,
        1,
    );
    let r = lossytcp_sim::run(&sc).unwrap().flows.remove(0);
    let max_rto = r.window_trace.iter().map(|w| w.3).fold(0.0, f64::max);
    let after = r.window_trace.iter().filter(|w| w.0 > 0.9).map(|w| w.3);
    assert!(after.fold(0.0, f64::max) > 0.3, "max rto {max_rto}");
}

/// The first segment lost, initial window 2, limited transmit on: segments 1, 2 and 3 each
/// bring a duplicate ACK. ns-2 2.35 (tcp.cc reset() `recover_ = 0`; dupack_action()'s guard
/// `highest_ack_ > recover_ || (bugfix_ss_ && highest_ack_ == 0)` with `highest_ack_ == -1`)
/// starts no recovery on the third and waits for its timer; a run of ns-2 with this path
/// (scripts/paper003_transfers_ns2.py --drops) retransmits segment 0 at its initial RTO, 6 s.
/// RFC 6582 §3.2 initialises `recover` to the ISN, so the RFC sender fast-retransmits.
#[test]
fn a_lost_first_segment_waits_for_the_timer_in_ns2_and_is_fast_retransmitted_in_rfc() {
    for variant in [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
    ] {
        let mut reports = Vec::new();
        for profile in [Profile::Ns2, Profile::Rfc] {
            let mut t = tcp(64, profile);
            t.initial_window = 2;
            t.limited_transmit = Some(true);
            t.initial_rto_s = 6.0;
            let sc = single_link(
                variant,
                ChannelConfig::Drops { seqs: vec![0] },
                t,
                AppConfig::Transfer {
                    bytes: 7 * u64::from(SIZE),
                },
                100.0,
                1,
            );
            reports.push(lossytcp_sim::run(&sc).unwrap().flows.remove(0));
        }
        let (ns2, rfc) = (&reports[0], &reports[1]);
        let first_retx = |r: &FlowReport| r.send_trace.iter().find(|x| x.1 == 0 && x.2).unwrap().0;
        assert_eq!((ns2.timeouts, ns2.fast_retransmits), (1, 0), "{variant:?}");
        assert!((first_retx(ns2) - 6.0).abs() < 1e-9, "{variant:?}");
        assert_eq!((rfc.timeouts, rfc.fast_retransmits), (0, 1), "{variant:?}");
        assert!(first_retx(rfc) < 1.0, "{variant:?}");
    }
}
