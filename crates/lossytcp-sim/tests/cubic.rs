//! CUBIC through the engine, on an exact loss pattern: after one loss at a known window
//! W_max the window follows RFC 9438's cubic, `W_cubic(t) = C (t - K)^3 + W_max` with `K =
//! cbrt((W_max - cwnd_epoch) / C)`, at sample times across the concave and the convex region.
//!
//! The path: 100 Mb/s, 50 ms each way, 1000-byte segments (BDP 1250 segments), a queue of
//! 1000; segment 1000 is lost in slow start, so the loss is found at a window below the BDP
//! and the RTT stays at its propagation value: the only loss of the run.

mod common;
use common::*;
use lossytcp_sim::config::*;
use lossytcp_sim::metrics::FlowReport;
use lossytcp_sim::tcp::params::Value;

const RTT_S: f64 = 2.0 * ONE_WAY_S;

fn run(rules: &str) -> FlowReport {
    let mut t = tcp(5000, Profile::Rfc);
    t.params
        .insert("cubic_rules".into(), Value::Text(rules.into()));
    t.params
        .insert("cubic_slow_start".into(), Value::Text("reno".into()));
    let mut sc = single_link(
        Variant::Cubic,
        ChannelConfig::Drops { seqs: vec![1000] },
        t,
        AppConfig::Bulk,
        22.0,
        1,
    );
    for l in &mut sc.links {
        l.rate_bps = 100e6;
    }
    lossytcp_sim::run(&sc).unwrap().flows.remove(0)
}

/// (W_max, the window after the cut, the time the congestion-avoidance stage began).
fn the_loss(r: &FlowReport) -> (f64, f64, f64) {
    let w = &r.window_trace;
    let cut = w
        .iter()
        .position(|x| x.2 < 1e5)
        .expect("a loss sets ssthresh");
    let (w_max, ssthresh) = (w[cut - 1].1, w[cut].2);
    // The stage starts at the first ACK that grows the window past ssthresh.
    let start = w[cut..]
        .iter()
        .find(|x| x.1 > ssthresh)
        .expect("growth after recovery");
    (w_max, ssthresh, start.0)
}

fn follows_the_cubic(rules: &str, c: f64, tol: f64) {
    let r = run(rules);
    assert_eq!(
        (r.fast_retransmits, r.timeouts),
        (1, 0),
        "one loss, recovered by SACK"
    );
    let (w_max, cwnd_epoch, t0) = the_loss(&r);
    assert!(
        w_max > 900.0 && w_max < 1250.0,
        "W_max {w_max}: below the BDP"
    );
    let k = ((w_max - cwnd_epoch) / c).cbrt();
    // Samples from the stage's start through the plateau at K into the convex region.
    for tau in [
        0.5,
        2.0,
        4.0,
        6.0,
        8.0,
        k - 0.5,
        k,
        k + 0.5,
        10.0,
        11.0,
        12.0,
    ] {
        let want = c * (tau - k).powi(3) + w_max;
        // The window moves in ACK bursts (the flight takes part of each RTT on the wire):
        // within an RTT it leads and lags the curve by up to half an RTT of its growth.
        let slope = 3.0 * c * (tau - k).powi(2);
        let tol = tol + slope * RTT_S / 2.0;
        let got = cwnd_at(&r, t0 + tau);
        assert!(
            (got - want).abs() <= tol,
            "{rules}: t = {tau:.2} s: cwnd {got:.2}, W_cubic {want:.2} (W_max {w_max}, K {k:.3})"
        );
    }
}

#[test]
fn rfc9438_window_after_a_loss_follows_the_cubic() {
    // cwnd steps toward W_cubic(t + RTT) by (target - cwnd)/cwnd per ACK: a first-order lag
    // of one RTT behind a target one RTT ahead, so the window is on W_cubic(t) itself, within
    // the curvature over an RTT (C x 6 |t - K| x RTT^2 / 2 < 0.2 segment here), the ACK
    // clock's delay (the ACK rate is the window of an RTT ago: 0.2 segment) and its bursts.
    follows_the_cubic("rfc9438", 0.4, 0.5);
}

#[test]
fn linux_window_after_a_loss_follows_the_cubic_in_whole_segments() {
    // Linux's C is 41 x 10 / 1024 and its window a whole number of segments that grows by
    // one per `cnt` delivered, `cnt` recomputed at most once per jiffy.
    follows_the_cubic("linux", 410.0 / 1024.0, 1.5);
}
