//! BBR's state machine through the engine on a clean path: 10 Mb/s, 50 ms each way, 1000-byte
//! segments (1250 segments/s, BDP 126 segments with the serialisation), a queue of 1000 that
//! Startup cannot overflow, no losses. What Cardwell et al. 2016 and tcp_bbr.c promise there:
//! Startup finds the bandwidth and ends; Drain empties the queue it built; ProbeBW cycles;
//! ProbeRTT comes every 10 s (RTprop is never undercut on a path whose delay is constant),
//! holds 4 segments for 200 ms and one round, and gives the window back.

mod common;
use common::*;
use lossytcp_sim::config::*;
use lossytcp_sim::metrics::RunReport;

const RATE_SEGS: f64 = RATE_BPS / (8.0 * SIZE as f64);

fn run() -> RunReport {
    let mut sc = single_link(
        Variant::Bbr,
        ChannelConfig::None,
        tcp(2000, Profile::Rfc),
        AppConfig::Bulk,
        32.0,
        1,
    );
    sc.trace.queue = Some(QueueTraceConfig {
        link: 0,
        from_s: 0.0,
        to_s: 4.0,
        max_records: 100_000,
    });
    lossytcp_sim::run(&sc).unwrap()
}

/// Segments waiting in the queue at `t` (the queue trace's admitted records still queued).
fn queue_at(r: &RunReport, t: f64) -> usize {
    let q = r.queue_trace.as_ref().unwrap();
    (0..q.t_s.len())
        .filter(|&i| {
            q.event[i] == "admit" && q.t_s[i] <= t && q.dequeue_s[i].is_some_and(|d| d > t)
        })
        .count()
}

fn pacing_at(f: &lossytcp_sim::metrics::FlowReport, t: f64) -> f64 {
    f.pacing_trace
        .iter()
        .take_while(|p| p.0 <= t + 1e-12)
        .last()
        .unwrap()
        .1
        / (8.0 * SIZE as f64)
}

#[test]
fn startup_drain_probe_bw_and_probe_rtt_every_ten_seconds() {
    let r = run();
    let f = &r.flows[0];
    assert_eq!((f.retransmissions, f.queue_drops), (0, 0), "a clean path");
    let modes: Vec<(f64, &str)> = f
        .phase_trace
        .iter()
        .map(|&(t, p)| (t, p.split(':').next().unwrap()))
        .collect();
    // Collapse the ProbeBW phases: the sequence of modes.
    let mut seq: Vec<(f64, &str)> = Vec::new();
    for m in modes {
        if seq.last().is_none_or(|l| l.1 != m.1) {
            seq.push(m);
        }
    }
    let names: Vec<&str> = seq.iter().map(|m| m.1).collect();
    assert_eq!(
        names,
        [
            "startup",
            "drain",
            "probe_bw",
            "probe_rtt",
            "probe_bw",
            "probe_rtt",
            "probe_bw",
            "probe_rtt",
            "probe_bw"
        ]
    );

    // Startup ended with the bandwidth found: Drain paces at 88/256 of it, 1% under.
    let t_drain = seq[1].0;
    let bw = pacing_at(f, t_drain) / (88.0 / 256.0 * 0.99);
    assert!(
        (bw / RATE_SEGS - 1.0).abs() < 0.01,
        "BtlBw {bw} vs {RATE_SEGS}"
    );
    // It built a queue (the window is 2.89 BDP); Drain empties it: it ends once the flight
    // is one BDP plus the send quanta Linux budgets for (3 x 2 segments, rounded up to even),
    // so what still waits is about that budget.
    assert!(queue_at(&r, t_drain) > 100, "{}", queue_at(&r, t_drain));
    let t_probe_bw = seq[2].0;
    assert!(
        queue_at(&r, t_probe_bw) <= 10,
        "{}",
        queue_at(&r, t_probe_bw)
    );

    // ProbeRTT: 10 s after RTprop was last set (the exit of the previous one), strictly
    // after it at the next ACK; at most 4 segments for 200 ms from when the flight got
    // there, and one round; the window given back after.
    let mut last_set = None;
    for k in [3, 5, 7] {
        let (enter, exit) = (seq[k].0, seq[k + 1].0);
        if let Some(t) = last_set {
            let due: f64 = t + 10.0;
            assert!(
                enter > due && enter < due + 0.02,
                "ProbeRTT at {enter}, due {due}"
            );
        }
        assert!(
            (0.2..0.2 + 2.0 * 0.1 + 0.1).contains(&(exit - enter)),
            "ProbeRTT {enter} -> {exit}"
        );
        let inside: Vec<f64> = f
            .window_trace
            .iter()
            .filter(|w| w.0 >= enter && w.0 < exit)
            .map(|w| w.1)
            .collect();
        assert!(inside.iter().all(|&c| c == 4.0), "{inside:?}");
        let before = cwnd_at(f, enter - 1e-6);
        assert!(
            cwnd_at(f, exit) >= before,
            "window back: {} vs {before}",
            cwnd_at(f, exit)
        );
        last_set = Some(exit);
    }
    // The first one comes 10 s after the first RTT sample.
    assert!((seq[3].0 - 10.1).abs() < 0.02, "{}", seq[3].0);

    // ProbeBW: the window is 2 BDP plus the budget, the gain cycle paces at 5/4, 3/4 and 1
    // of the estimate.
    let mid = (seq[2].0 + seq[3].0) / 2.0;
    let bdp = (RATE_SEGS * 0.100832).ceil();
    let cwnd = cwnd_at(f, mid);
    assert!(
        (2.0 * bdp + 6.0..=2.0 * bdp + 10.0).contains(&cwnd),
        "cwnd {cwnd}"
    );
    let gains: std::collections::BTreeSet<String> = f
        .phase_trace
        .iter()
        .filter(|p| p.1.starts_with("probe_bw"))
        .map(|p| p.1.to_string())
        .collect();
    assert_eq!(gains.len(), 3, "{gains:?}");
    assert!(f.packets_delivered as f64 > 0.93 * RATE_SEGS * 32.0);
}
