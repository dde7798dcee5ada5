//! One direction of a link: queue -> serialisation at the link rate -> channel -> propagation.
//!
//! A packet's channel fate and its propagation delay are both decided when it *starts*
//! transmission (paper 000's chain is embedded at packet starts; paper 001's delay is fixed
//! at send time).
//!
//! A FIFO link needs no events of its own: when a packet is handed over, the time it will
//! start (when the packets ahead of it are through) and so its arrival at the far end are
//! already known. Only the arrival is scheduled, which halves the events per packet. The
//! channel and the delay process are asked in start-time order, as they would be by a
//! transmission-complete event, so they evolve exactly as in real time.

use std::collections::VecDeque;

use crate::channel::Channel;
use crate::config::LinkConfig;
use crate::delay::Delay;
use crate::packet::{Kind, Packet};
use crate::rng::{Rng, Stream};
use crate::time::{Dur, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    pub transmitted: u64,
    pub channel_drops: u64,
    pub queue_drops: u64,
}

pub struct Link {
    pub rate_bps: f64,
    delay: Delay,
    channel: Channel,
    protect_retransmissions: bool,
    /// Packets the queue holds besides the one in transmission (ns-2's `limit_` semantics).
    limit: usize,
    /// Start times of the packets waiting in the queue (all later than "now").
    waiting: VecDeque<Time>,
    /// When the last accepted packet finishes serialisation.
    busy_until: Time,
    /// Serialisation time of the last packet size seen: sizes rarely change on a link.
    tx_time: (u32, Dur),
    pub stats: LinkStats,
}

/// What becomes of a packet handed to the link.
pub enum Fate {
    /// It reaches the far end at this time.
    Arrives(Time),
    /// The channel loses it (at the end of its transmission).
    Lost,
    /// The queue is full.
    QueueDrop,
}

impl Link {
    /// `slot` is the link's data-packet time, the step of a slot-advanced channel.
    pub fn new(cfg: &LinkConfig, seed: u64, index: usize, slot: Dur) -> Self {
        Self {
            rate_bps: cfg.rate_bps,
            delay: Delay::build(&cfg.delay, Rng::derive(seed, Stream::Delay, index as u64)),
            channel: Channel::build(
                &cfg.channel,
                Rng::derive(seed, Stream::Channel, index as u64),
                slot,
            ),
            protect_retransmissions: cfg.protect_retransmissions,
            limit: cfg.queue_packets,
            waiting: VecDeque::new(),
            busy_until: Time::ZERO,
            tx_time: (0, Dur::ZERO),
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting at `now`, the one in transmission excluded.
    pub fn queue_len(&mut self, now: Time) -> usize {
        while self.waiting.front().is_some_and(|&s| s <= now) {
            self.waiting.pop_front();
        }
        self.waiting.len()
    }

    pub fn send(&mut self, now: Time, p: &Packet) -> Fate {
        let start = if self.busy_until > now {
            if self.queue_len(now) >= self.limit {
                self.stats.queue_drops += 1;
                return Fate::QueueDrop;
            }
            self.waiting.push_back(self.busy_until);
            self.busy_until
        } else {
            now
        };
        if self.tx_time.0 != p.size_bytes {
            self.tx_time = (p.size_bytes, Dur::transmission(p.size_bytes, self.rate_bps));
        }
        self.busy_until = start + self.tx_time.1;
        self.stats.transmitted += 1;
        let mut lost = self.channel.lost(start, p);
        if lost && self.protect_retransmissions {
            if let Kind::Data {
                retransmission: true,
                ..
            } = p.kind
            {
                // The channel state still moved; only this packet is spared.
                lost = false;
            }
        }
        if lost {
            self.stats.channel_drops += 1;
            return Fate::Lost;
        }
        Fate::Arrives(self.busy_until + self.delay.at(start))
    }
}
