//! Reports: per-flow, per-link and per-traffic-entry counters (streaming: constant memory
//! whatever the simulated time) and the optional traces, which are off by default or bounded
//! to a time window.

use std::collections::BTreeMap;

use serde::Serialize;

/// True causes of a flow's detected losses (timeouts and fast retransmits): the last drop of
/// the segment was on a channel or in a queue, or no copy was lost (a spurious detection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LossCauses {
    pub channel: u64,
    pub queue: u64,
    pub none: u64,
}

impl LossCauses {
    pub fn add(&mut self, o: &LossCauses) {
        self.channel += o.channel;
        self.queue += o.queue;
        self.none += o.none;
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowReport {
    /// Data transmissions by the sender, retransmissions included.
    pub packets_sent: u64,
    pub retransmissions: u64,
    /// Data packets lost on a channel / dropped by a queue (early + forced).
    pub channel_losses: u64,
    pub queue_drops: u64,
    /// Queue drops by reason: RED's random (early) drops, and forced ones (full buffer).
    pub early_drops: u64,
    pub forced_drops: u64,
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
    /// Window reductions the sender undid, by what found them spurious.
    #[serde(flatten)]
    pub undos: Undos,
    /// Tail loss probes sent (Linux's TCPLossProbes) and the episodes that ended as a loss
    /// the probe repaired, with the window reduced (TCPLossProbeRecovery); `tlp` senders.
    pub tlps: u64,
    pub tlp_recoveries: u64,
    /// Segments RACK marked lost, and retransmissions in flight marked lost, by RACK or a
    /// timeout (Linux's TCPLostRetransmit); `rack` senders.
    pub rack_lost: u64,
    pub rack_lost_retransmissions: u64,
    /// Reordering events (Linux's TCPSACKReorder + TCPTSReorder), the highest reordering
    /// degree (`tp->reordering`, with `reordering`) and RACK's window steps at the end
    /// (with `rack_reo_wnd`); `rack` senders.
    pub reordering_events: u64,
    pub reordering_degree: u32,
    pub rack_reo_wnd_steps: u32,
    /// The true cause of every loss detection.
    pub loss_causes: LossCauses,
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
    pub label: Option<String>,
    /// (time_s, seq, is_retransmission) per data transmission, when traced.
    pub send_trace: Vec<(f64, u64, bool)>,
    /// (time_s, cwnd, ssthresh, rto_s) whenever one of them changes, when traced.
    pub window_trace: Vec<(f64, f64, f64, f64)>,
    /// (time_s, phase) whenever the sender's growth plugin changes its own state (BBR's
    /// mode and gain), when windows are traced.
    pub phase_trace: Vec<(f64, &'static str)>,
    /// (time_s, pacing rate in b/s of data packets, 0 when not pacing) whenever it changes,
    /// when windows are traced.
    pub pacing_trace: Vec<(f64, f64)>,
}

/// Congestion responses a sender undid (Linux's `tcp_undo_cwnd_reduction()`), by the
/// detection that found the loss spurious: Eifel's timestamp echo (RFC 3522) after a timeout
/// and after a fast retransmit (Linux's TCPLossUndo / TCPFullUndo by timestamps), F-RTO
/// (RFC 5682, Linux's TCPSpuriousRTOs) and DSACK (RFC 2883 / RFC 3708, Linux's
/// `undo_retrans` reaching 0). Flattened into the flow's report as `undos_*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Undos {
    #[serde(rename = "undos_eifel_timeout")]
    pub eifel_timeout: u64,
    #[serde(rename = "undos_eifel_fast_retransmit")]
    pub eifel_fast_retransmit: u64,
    #[serde(rename = "undos_frto")]
    pub frto: u64,
    #[serde(rename = "undos_dsack")]
    pub dsack: u64,
    /// Linux's `tcp_try_undo_partial()` (`partial_undo`; TCPPartialUndo).
    #[serde(rename = "undos_partial")]
    pub partial: u64,
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
    /// Packets admitted to transmission (including any still waiting when the run ended).
    pub transmitted: u64,
    pub bytes_transmitted: u64,
    pub channel_drops: u64,
    /// early + forced
    pub queue_drops: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    /// Fraction of the run the link was transmitting.
    pub utilization: f64,
    /// Time-average of the packets waiting, the one in transmission excluded.
    pub mean_queue_packets: f64,
    /// RED only: time-average of its average queue, in packets of its mean packet size (the
    /// unit of min_th / max_th; in byte mode RED's byte average / mean_packet_size_bytes).
    pub mean_red_avg: Option<f64>,
    /// With `trace.delay`: (entry time, state) of the link's semi-Markov delay.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delay_trace: Vec<(f64, u32)>,
}

/// Completion times in constant memory: exact count, mean, min and max; percentiles from a
/// log-bucketed histogram with 64 buckets per octave (a bucket's geometric middle is within
/// 0.55% of every value in it), at most a few thousand buckets whatever the count.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: BTreeMap<i32, u64>,
    n: u64,
    sum: f64,
    min: f64,
    max: f64,
}

const BUCKETS_PER_OCTAVE: f64 = 64.0;

impl Histogram {
    pub fn add(&mut self, x: f64) {
        let b = if x > 0.0 {
            (x.log2() * BUCKETS_PER_OCTAVE).floor() as i32
        } else {
            i32::MIN
        };
        *self.counts.entry(b).or_insert(0) += 1;
        if self.n == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.n += 1;
        self.sum += x;
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The nearest-rank q-quantile (the ceil(q n)-th smallest value), to within the bucket
    /// width; exact at the extremes.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank == self.n {
            return Some(self.max);
        }
        if rank == 1 {
            return Some(self.min);
        }
        let mut seen = 0;
        for (&b, &c) in &self.counts {
            seen += c;
            if seen >= rank {
                let mid = if b == i32::MIN {
                    0.0
                } else {
                    ((f64::from(b) + 0.5) / BUCKETS_PER_OCTAVE).exp2()
                };
                return Some(mid.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    pub fn summary(&self) -> Option<Quantiles> {
        (self.n > 0).then(|| Quantiles {
            count: self.n,
            mean: self.sum / self.n as f64,
            p50: self.quantile(0.5).expect("non-empty"),
            p90: self.quantile(0.9).expect("non-empty"),
            p99: self.quantile(0.99).expect("non-empty"),
            min: self.min,
            max: self.max,
        })
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Quantiles {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub min: f64,
    pub max: f64,
}

/// One traffic entry, all its packets or connections together.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TrafficReport {
    /// "cbr", "onoff" or "transfers".
    pub kind: &'static str,
    pub label: Option<String>,
    /// Data packets (UDP datagrams or TCP segments, retransmissions included) sent and
    /// arriving at their destination (duplicates included).
    pub packets_sent: u64,
    pub packets_received: u64,
    /// TCP: segments delivered in order for the first time.
    pub packets_delivered: u64,
    /// Bytes of new data delivered (UDP: bytes received).
    pub bytes_delivered: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub channel_losses: u64,
    pub queue_drops: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub loss_causes: LossCauses,
    pub transfers_started: u64,
    pub transfers_completed: u64,
    /// Arrivals refused because `max_concurrent` transfers were open.
    pub transfers_refused: u64,
    /// Packets of retired connections that reached the end of their path (discarded).
    pub stale_packets: u64,
    /// Completion times of the transfers completed (seconds from arrival to the last ACK).
    pub completion_time_s: Option<Quantiles>,
    /// bytes_delivered x 8 over the entry's active time (start_s to the end of the run).
    pub goodput_bps: f64,
    pub elapsed_s: f64,
}

/// Events at one link's queue during a time window, one column per field. `event`:
/// "admit" (queued or straight onto the wire), "lost" (admitted, then lost on the channel),
/// "early" / "forced" (dropped). The queue length at any instant t is the number of
/// admitted and lost records with `t_s <= t < dequeue_s`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueTrace {
    pub link: usize,
    pub t_s: Vec<f64>,
    pub event: Vec<&'static str>,
    /// "data", "ack" or "udp".
    pub packet: Vec<&'static str>,
    /// Index of the long-lived flow, or -1.
    pub flow: Vec<i64>,
    /// Index of the traffic entry, or -1.
    pub traffic: Vec<i64>,
    pub seq: Vec<u64>,
    /// Packets waiting when this one arrived (the one in transmission excluded).
    pub queue_packets: Vec<u32>,
    /// RED's average after this arrival, in packets of its mean size.
    pub red_avg: Vec<Option<f64>>,
    /// When an admitted packet starts transmission (leaves the queue).
    pub dequeue_s: Vec<Option<f64>>,
    /// The record limit was reached inside the window.
    pub truncated: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RunReport {
    pub flows: Vec<FlowReport>,
    pub links: Vec<LinkReport>,
    pub traffic: Vec<TrafficReport>,
    pub queue_trace: Option<QueueTrace>,
    pub events: u64,
    pub simulated_s: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_percentiles_within_the_bucket_width() {
        let mut h = Histogram::default();
        // 1..=10000 ms
        let xs: Vec<f64> = (1..=10_000).map(|i| i as f64 * 1e-3).collect();
        for &x in &xs {
            h.add(x);
        }
        let s = h.summary().unwrap();
        assert_eq!(s.count, 10_000);
        assert!((s.mean - 5.0005).abs() < 1e-9);
        assert_eq!((s.min, s.max), (0.001, 10.0));
        for (q, got) in [(0.5, s.p50), (0.9, s.p90), (0.99, s.p99)] {
            let exact = xs[(q * 10_000.0_f64).ceil() as usize - 1];
            assert!(
                (got - exact).abs() / exact < 0.0055,
                "q {q}: {got} vs {exact}"
            );
        }
        assert!(h.counts.len() < 64 * 14, "buckets bounded by the range");
        assert!(Histogram::default().summary().is_none());
        let mut one = Histogram::default();
        one.add(0.79);
        assert_eq!(one.quantile(0.5), Some(0.79));
    }
}
