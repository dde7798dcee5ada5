//! What every traffic entry of a scenario keeps, whatever it generates (UDP datagrams,
//! `sim/udp.rs`; TCP transfers, `sim/tcp.rs`): its active time and its streaming report.

use crate::config::TrafficConfig;
use crate::metrics::{FlowReport, Histogram, TrafficReport};
use crate::time::Time;

pub(super) struct Entry {
    /// The entry's place in the scenario's `traffic` (and in the report's).
    pub index: usize,
    pub start: Time,
    pub stop: Option<Time>,
    pub report: TrafficReport,
    pub completion: Histogram,
    /// Counted in the network's `unfinished` until this is set.
    pub finished: bool,
}

impl Entry {
    pub fn new(index: usize, cfg: &TrafficConfig) -> Entry {
        Entry {
            index,
            start: Time::from_secs(cfg.start_s()),
            stop: cfg.stop_s().map(Time::from_secs),
            report: TrafficReport {
                kind: cfg.kind_name(),
                label: cfg.label().map(str::to_owned),
                ..TrafficReport::default()
            },
            completion: Histogram::default(),
            finished: false,
        }
    }

    /// Whether a send or an arrival at `at` is still within the entry's active time.
    pub fn active_at(&self, at: Time) -> bool {
        self.stop.is_none_or(|s| at <= s)
    }

    /// Adds a retired (or, at the end of the run, a still open) connection's counters.
    pub fn absorb(&mut self, f: &FlowReport, delivered: u64, delivered_bytes: u64) {
        let r = &mut self.report;
        r.packets_sent += f.packets_sent;
        r.packets_received += f.packets_received;
        r.packets_delivered += delivered;
        r.bytes_delivered += delivered_bytes;
        r.retransmissions += f.retransmissions;
        r.timeouts += f.timeouts;
        r.fast_retransmits += f.fast_retransmits;
        r.channel_losses += f.channel_losses;
        r.early_drops += f.early_drops;
        r.forced_drops += f.forced_drops;
        r.queue_drops += f.queue_drops;
        r.loss_causes.add(&f.loss_causes);
    }

    /// The final report over `[start, end]`, in its place in `out`.
    pub fn finish(&mut self, end: Time, out: &mut [Option<TrafficReport>]) {
        let mut r = std::mem::take(&mut self.report);
        r.completion_time_s = self.completion.summary();
        let elapsed = (end - self.start).as_secs();
        r.elapsed_s = elapsed;
        r.goodput_bps = if elapsed > 0.0 {
            r.bytes_delivered as f64 * 8.0 / elapsed
        } else {
            0.0
        };
        out[self.index] = Some(r);
    }
}
