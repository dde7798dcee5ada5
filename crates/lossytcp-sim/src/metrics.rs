//! Per-flow counters (streaming: constant memory whatever the simulated time) and the
//! optional traces, which are off by default.

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowReport {
    /// Data transmissions by the sender, retransmissions included.
    pub packets_sent: u64,
    pub retransmissions: u64,
    /// Data packets lost on a channel / dropped by a full queue.
    pub channel_losses: u64,
    pub queue_drops: u64,
    /// Data packets arriving at the receiver, duplicates included (throughput).
    pub packets_received: u64,
    /// Segments delivered in order for the first time (goodput).
    pub packets_delivered: u64,
    pub acks_sent: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Loss detections whose segment had in fact arrived or was still in flight.
    pub spurious_timeouts: u64,
    pub spurious_fast_retransmits: u64,
    /// A loss classifier's verdicts (paper 003), for the senders that have one.
    pub classification: Classification,
    /// Seconds over which the rates are measured: from the flow's start to the end of the run,
    /// or to its completion for a finite transfer.
    pub elapsed_s: f64,
    pub completion_time_s: Option<f64>,
    /// Bottleneck capacity of the forward path in data packets per second.
    pub capacity_pps: f64,
    pub final_cwnd: f64,
    pub final_ssthresh: f64,
    pub final_rto_s: f64,
    pub srtt_s: Option<f64>,
    /// (time_s, seq, is_retransmission) per data transmission, when traced.
    pub send_trace: Vec<(f64, u64, bool)>,
    /// (time_s, cwnd, ssthresh, rto_s) whenever one of them changes, when traced.
    pub window_trace: Vec<(f64, f64, f64, f64)>,
}

/// Loss events a classifier judged, against their true causes (paper 003 Section 4: accuracy =
/// correct classifications / loss events). Spurious detections, whose segment was not lost,
/// have no cause and are left out.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Classification {
    pub classified: u64,
    pub correct: u64,
    /// Queue drops the classifier called wireless losses (the unfriendly error).
    pub congestion_called_wireless: u64,
    /// Channel losses the classifier called congestion (the costly error).
    pub wireless_called_congestion: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkReport {
    pub transmitted: u64,
    pub channel_drops: u64,
    pub queue_drops: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RunReport {
    pub flows: Vec<FlowReport>,
    pub links: Vec<LinkReport>,
    pub events: u64,
    pub simulated_s: f64,
}
