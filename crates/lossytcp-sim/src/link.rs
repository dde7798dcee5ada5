//! One direction of a link: queue -> serialisation at the link rate -> channel -> propagation.
//!
//! A packet's channel fate and its propagation delay are both decided when it *starts*
//! transmission (paper 000's chain is embedded at packet starts; paper 001's delay is fixed
//! at send time).

use crate::channel::Channel;
use crate::config::LinkConfig;
use crate::delay::Delay;
use crate::packet::{Kind, Packet};
use crate::queue::DropTail;
use crate::rng::{Rng, Stream};
use crate::time::{Dur, Time};

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    pub transmitted: u64,
    pub channel_drops: u64,
    pub queue_drops: u64,
}

pub struct InTransmission {
    pub packet: Packet,
    pub lost: bool,
    pub delay: Dur,
}

pub struct Link {
    pub rate_bps: f64,
    delay: Delay,
    queue: DropTail,
    channel: Channel,
    protect_retransmissions: bool,
    current: Option<InTransmission>,
    pub stats: LinkStats,
}

pub enum Enqueued {
    /// The link was idle: transmission started and ends at this time.
    Started(Time),
    Queued,
    Dropped(Packet),
}

impl Link {
    /// `slot` is the link's data-packet time, the step of a slot-advanced channel.
    pub fn new(cfg: &LinkConfig, seed: u64, index: usize, slot: Dur) -> Self {
        Self {
            rate_bps: cfg.rate_bps,
            delay: Delay::build(&cfg.delay, Rng::derive(seed, Stream::Delay, index as u64)),
            queue: DropTail::new(cfg.queue_packets),
            channel: Channel::build(
                &cfg.channel,
                Rng::derive(seed, Stream::Channel, index as u64),
                slot,
            ),
            protect_retransmissions: cfg.protect_retransmissions,
            current: None,
            stats: LinkStats::default(),
        }
    }

    pub fn enqueue(&mut self, now: Time, p: Packet) -> Enqueued {
        if self.current.is_none() {
            return Enqueued::Started(self.begin(now, p));
        }
        match self.queue.push(p) {
            Ok(()) => Enqueued::Queued,
            Err(p) => {
                self.stats.queue_drops += 1;
                Enqueued::Dropped(p)
            }
        }
    }

    fn begin(&mut self, now: Time, p: Packet) -> Time {
        let mut lost = self.channel.lost(now, &p);
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
        let delay = self.delay.at(now);
        self.current = Some(InTransmission {
            packet: p,
            lost,
            delay,
        });
        self.stats.transmitted += 1;
        if lost {
            self.stats.channel_drops += 1;
        }
        now + Dur::transmission(p.size_bytes, self.rate_bps)
    }

    /// The packet in transmission has been serialised: hand it over, and start the next one
    /// (whose completion time is returned with it).
    pub fn finish(&mut self, now: Time) -> (InTransmission, Option<Time>) {
        let done = self.current.take().expect("finish() on an idle link");
        let next = self.queue.pop().map(|p| self.begin(now, p));
        (done, next)
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
}
