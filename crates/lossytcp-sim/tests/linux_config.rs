//! The Linux-config options of `crosscheck linux`'s engine, each driven through an exact loss
//! pattern on the shared test path (10 Mb/s, 50 ms each way, 1000-byte segments, an idle
//! ACK link), with the value Linux's source gives derived by hand.

mod common;
use common::*;
use lossytcp_sim::config::*;
use lossytcp_sim::metrics::FlowReport;

/// A SACK sender with Linux's timer constants (RTO = SRTT + max(200 ms, 4 RTTVAR), 1 s before
/// any sample) and IW10, the first transmissions of `drops` lost.
fn linux_sack(drops: &[u64], edit: impl FnOnce(&mut TcpConfig)) -> FlowReport {
    let mut t = tcp(1000, Profile::Rfc);
    t.initial_window = 10;
    t.min_rto_s = 0.2;
    t.granularity_s = 0.2;
    t.initial_rto_s = 1.0;
    edit(&mut t);
    let sc = single_link(
        Variant::Sack,
        ChannelConfig::Drops {
            seqs: drops.to_vec(),
        },
        t,
        AppConfig::Bulk,
        2.0,
        1,
    );
    lossytcp_sim::run(&sc).unwrap().flows.remove(0)
}

/// The first retransmission's send time.
fn first_retransmission_s(f: &FlowReport) -> f64 {
    f.send_trace
        .iter()
        .find(|s| s.2)
        .expect("a retransmission")
        .0
}

/// The initial window is lost whole: nothing comes back, and the timer decides. Linux's
/// active open has measured the SYN's round trip (`tcp_ack_update_rtt()` from
/// `tcp_rcv_synsent_state_process()`): a 60-byte SYN and SYN-ACK at 10 Mb/s, 48 us each, on
/// 50 ms each way, R = 100.096 ms. `tcp_rtt_estimator()`'s first sample sets srtt = R and
/// mdev = R/2 (x4 in `rttvar`, floored at TCP_RTO_MIN): rttvar = max(2R, 200 ms) = 200.192
/// ms, and `__tcp_set_rto()` gives srtt + rttvar = 300.288 ms. Started established without
/// that sample, the engine waits the initial RTO, 1 s (RFC 6298 2.1).
#[test]
fn the_handshake_rtt_sets_the_first_rto_as_linux_s_active_open() {
    let iw: Vec<u64> = (0..10).collect();
    let with = linux_sack(&iw, |t| t.handshake_rtt = true);
    let without = linux_sack(&iw, |_| {});
    let r = 0.1 + 2.0 * 60.0 * 8.0 / RATE_BPS;
    let rto = r + (2.0 * r).max(0.2);
    assert!(
        (first_retransmission_s(&with) - rto).abs() < 1e-6,
        "{}",
        first_retransmission_s(&with)
    );
    assert!((first_retransmission_s(&without) - 1.0).abs() < 1e-6);
    assert_eq!((with.timeouts, without.timeouts), (1, 1));
}
