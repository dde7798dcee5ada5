//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use lossytcp_sim::config::*;
use lossytcp_sim::metrics::FlowReport;

pub const RATE_BPS: f64 = 10e6;
pub const ONE_WAY_S: f64 = 0.05;
pub const SIZE: u32 = 1000;

pub fn tcp(max_window: u32, profile: Profile) -> TcpConfig {
    TcpConfig {
        packet_size_bytes: SIZE,
        ack_size_bytes: 40,
        max_window,
        initial_window: 1,
        dupack_threshold: 3,
        min_rto_s: 1.0,
        max_rto_s: 60.0,
        initial_rto_s: 3.0,
        granularity_s: if profile == Profile::Ns2 { 0.01 } else { 0.0 },
        fixed_rto_s: None,
        max_backoff: 64,
        rtt_sampling: RttSampling::PerAck,
        rto_estimator: RtoEstimator::Rfc6298,
        delayed_ack: false,
        delack_interval_s: 0.1,
        profile,
        // The scenario tests reproduce the papers' TCP, which in the ns2 profile is the ns-2
        // NewReno of paper 000 Table III: without ns-2 2.35's limited transmit,
        // delay_growth_, partial window deflation and cwnd growth on the ACK ending recovery.
        limited_transmit: Some(false),
        delay_growth: Some(false),
        partial_window_deflation: if profile == Profile::Ns2 {
            Some(false)
        } else {
            None
        },
        recovery_exit_growth: Some(false),
        timer_every_partial_ack: None,
        params: Default::default(),
        tick_phase: None,
        eifel_undo: false,
        frto: false,
        dsack: false,
        tlp: false,
        rack: false,
        reordering: false,
        rack_reo_wnd: false,
        partial_undo: false,
        handshake_rtt: false,
        prr: false,
    }
}

pub fn link(channel: ChannelConfig) -> LinkConfig {
    LinkConfig {
        from: None,
        to: None,
        rate_bps: RATE_BPS,
        delay: DelayConfig::Fixed { delay_s: ONE_WAY_S },
        queue_packets: Some(1000),
        queue: None,
        channel,
        protect_retransmissions: false,
        slot_bytes: None,
    }
}

pub fn single_link(
    variant: Variant,
    channel: ChannelConfig,
    tcp: TcpConfig,
    app: AppConfig,
    duration_s: f64,
    seed: u64,
) -> Scenario {
    Scenario {
        seed,
        duration_s,
        nodes: Vec::new(),
        links: vec![link(channel), link(ChannelConfig::None)],
        flows: vec![FlowConfig {
            variant,
            src: None,
            dst: None,
            forward: vec![0],
            reverse: vec![1],
            tcp,
            app,
            start_s: 0.0,
            label: None,
        }],
        traffic: Vec::new(),
        trace: TraceConfig {
            sends: true,
            window: true,
            delay: false,
            queue: None,
        },
    }
}

/// Runs `variant` with the first transmissions of `drops` lost.
pub fn with_drops(
    variant: Variant,
    drops: &[u64],
    max_window: u32,
    profile: Profile,
    packets: u64,
) -> FlowReport {
    let sc = single_link(
        variant,
        ChannelConfig::Drops {
            seqs: drops.to_vec(),
        },
        tcp(max_window, profile),
        AppConfig::Transfer {
            bytes: packets * u64::from(SIZE),
        },
        100.0,
        1,
    );
    lossytcp_sim::run(&sc).unwrap().flows.remove(0)
}

/// Groups the send trace into bursts: sends closer together than a quarter RTT share a burst.
pub fn bursts(r: &FlowReport) -> Vec<(f64, Vec<u64>)> {
    let mut out: Vec<(f64, Vec<u64>)> = Vec::new();
    for &(t, seq, _) in &r.send_trace {
        match out.last_mut() {
            Some((t0, v)) if t - *t0 < 0.025 => v.push(seq),
            _ => out.push((t, vec![seq])),
        }
    }
    out
}

/// The bursts starting at the first transmission of `seq` as a retransmission.
pub fn bursts_from_retransmission(r: &FlowReport, seq: u64) -> Vec<Vec<u64>> {
    let t = r
        .send_trace
        .iter()
        .find(|&&(_, s, rx)| s == seq && rx)
        .expect("no retransmission")
        .0;
    bursts(r)
        .into_iter()
        .filter(|(t0, _)| *t0 >= t - 1e-9)
        .map(|(_, v)| v)
        .collect()
}

/// cwnd right after the last change at or before `t`.
pub fn cwnd_at(r: &FlowReport, t: f64) -> f64 {
    r.window_trace
        .iter()
        .take_while(|w| w.0 <= t + 1e-12)
        .last()
        .map(|w| w.1)
        .unwrap()
}
