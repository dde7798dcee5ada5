//! Run-time state of the scenario's traffic entries: the generators, the connections a
//! transfer entry has open, and the entry's streaming report.

use crate::app::{Arrivals, Sizes, UdpSource};
use crate::config::{TcpConfig, TrafficConfig, Variant};
use crate::metrics::{FlowReport, Histogram, TrafficReport};
use crate::packet::{FlowId, LinkId};
use crate::rng::{Rng, Stream};
use crate::time::Time;

pub(super) enum Generator {
    Transfers {
        arrivals: Arrivals,
        sizes: Sizes,
        max_concurrent: usize,
        max_transfers: Option<u64>,
        variant: Variant,
        tcp: Box<TcpConfig>,
        /// Open connections, and the flow slots of retired ones, ready for reuse.
        active: usize,
        free: Vec<FlowId>,
        /// No more arrivals will come (the cap or `stop_s` was reached).
        arrivals_done: bool,
        /// Seeds each transfer's sender plugins.
        plugin_seeds: Rng,
    },
    Udp {
        source: UdpSource,
        packet_size: u32,
        /// The next send time in f64 seconds, accumulated as ns-2 does.
        next_s: f64,
        seq: u64,
    },
}

/// The plugin-seed streams of traffic entries are numbered from here; a scenario's own flow
/// `i` takes stream `i`.
pub(super) const PLUGIN_SEEDS_OF_ENTRIES: u64 = 1 << 40;

pub(super) struct Entry {
    pub start: Time,
    pub stop: Option<Time>,
    pub forward: Vec<LinkId>,
    pub reverse: Vec<LinkId>,
    pub gen: Generator,
    pub report: TrafficReport,
    pub completion: Histogram,
    /// Counted in the simulation's `unfinished` until this is set.
    pub finished: bool,
}

impl Entry {
    pub fn new(
        index: usize,
        cfg: &TrafficConfig,
        forward: Vec<LinkId>,
        reverse: Vec<LinkId>,
        seed: u64,
    ) -> Entry {
        let k = index as u64;
        let gen = match cfg {
            TrafficConfig::Cbr {
                rate_bps,
                packet_size_bytes,
                random,
                ..
            } => Generator::Udp {
                source: UdpSource::cbr(
                    *rate_bps,
                    *packet_size_bytes,
                    *random,
                    Rng::derive(seed, Stream::Source, k),
                ),
                packet_size: *packet_size_bytes,
                next_s: 0.0,
                seq: 0,
            },
            TrafficConfig::Onoff {
                rate_bps,
                packet_size_bytes,
                on_s,
                off_s,
                ..
            } => Generator::Udp {
                source: UdpSource::onoff(
                    *rate_bps,
                    *packet_size_bytes,
                    *on_s,
                    *off_s,
                    Rng::derive(seed, Stream::Source, k),
                ),
                packet_size: *packet_size_bytes,
                next_s: 0.0,
                seq: 0,
            },
            TrafficConfig::Transfers {
                arrival_rate_per_s,
                size,
                max_concurrent,
                max_transfers,
                variant,
                tcp,
                ..
            } => Generator::Transfers {
                arrivals: Arrivals::new(
                    *arrival_rate_per_s,
                    Rng::derive(seed, Stream::Arrivals, k),
                ),
                sizes: Sizes::new(size, Rng::derive(seed, Stream::Sizes, k)),
                max_concurrent: *max_concurrent,
                max_transfers: *max_transfers,
                variant: *variant,
                tcp: Box::new(tcp.clone()),
                active: 0,
                free: Vec::new(),
                arrivals_done: *max_transfers == Some(0),
                plugin_seeds: Rng::derive(seed, Stream::Plugin, PLUGIN_SEEDS_OF_ENTRIES + k),
            },
        };
        Entry {
            start: Time::from_secs(cfg.start_s()),
            stop: cfg.stop_s().map(Time::from_secs),
            forward,
            reverse,
            gen,
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

    /// The final report over `[start, end]`.
    pub fn finish(&mut self, end: Time) -> TrafficReport {
        let mut r = std::mem::take(&mut self.report);
        r.completion_time_s = self.completion.summary();
        let elapsed = (end - self.start).as_secs();
        r.elapsed_s = elapsed;
        r.goodput_bps = if elapsed > 0.0 {
            r.bytes_delivered as f64 * 8.0 / elapsed
        } else {
            0.0
        };
        r
    }
}
