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
//! transmission-complete event, so they evolve exactly as in real time. This needs a queue
//! discipline that decides at arrival (DropTail, RED: `queue/mod.rs`, which also says what a
//! dequeue-time discipline would need).

use std::collections::VecDeque;

use crate::channel::Channel;
use crate::config::LinkConfig;
use crate::delay::{Delay, DelayConfig};
use crate::frame::Frame;
use crate::queue::{Backlog, DropReason, Queue, QueueConfig, Verdict};
use crate::rng::{Rng, Stream};
use crate::time::{Dur, Time};

/// Streaming counters (constant memory whatever the simulated time).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    /// Packets admitted to transmission (those still waiting at the end included).
    pub transmitted: u64,
    pub bytes_transmitted: u64,
    pub channel_drops: u64,
    /// Queue drops: RED's early drops, and forced ones (full buffer, or RED's certain drop).
    pub early_drops: u64,
    pub forced_drops: u64,
    /// Transmission time booked past the end of the run (set by [`Link::finish`]).
    pub busy_beyond_end_ns: u64,
    /// Integral of the waiting packets over time, in packet-ns: each admitted packet adds
    /// its wait, known at admission.
    pub queue_packet_ns: u64,
    /// RED: the sum of its average over time, in packet-seconds (the average holds its
    /// value between arrivals), and the arrival of the last change.
    pub red_avg_area: f64,
    pub red_avg_since: Time,
}

impl LinkStats {
    pub fn queue_drops(&self) -> u64 {
        self.early_drops + self.forced_drops
    }
}

pub struct Link {
    pub rate_bps: f64,
    delay: Delay,
    channel: Channel,
    protect_retransmissions: bool,
    queue: Queue,
    /// `Some(n)` for a DropTail queue of n waiting packets without a byte limit.
    packet_limit: Option<usize>,
    /// Start times and sizes of the packets waiting in the queue (all later than "now").
    waiting: VecDeque<(Time, u32)>,
    waiting_bytes: u64,
    /// When the last accepted packet finishes serialisation.
    busy_until: Time,
    /// Serialisation time of the last packet size seen: sizes rarely change on a link.
    tx_time: (u32, Dur),
    pub stats: LinkStats,
}

/// What becomes of a packet handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It reaches the far end at this time.
    Arrives(Time),
    /// The channel loses it (at the end of its transmission).
    Lost,
    /// The queue refuses it.
    Dropped(DropReason),
}

impl Link {
    /// `slot` is the link's slot, the step of a slot-advanced channel.
    pub fn new(cfg: &LinkConfig, seed: u64, index: usize, slot: Dur) -> Self {
        let queue_cfg = cfg
            .queue_config()
            .expect("Scenario::check: every link has a queue");
        // RED's automatic weight uses the link's delay (ns-2's `link_->delay()`); a
        // semi-Markov delay has none, so its shortest state stands for it.
        let delay_s = match &cfg.delay {
            DelayConfig::Fixed { delay_s } => *delay_s,
            DelayConfig::SemiMarkov { delay_s, .. } => {
                delay_s.iter().copied().fold(f64::INFINITY, f64::min)
            }
        };
        Self {
            rate_bps: cfg.rate_bps,
            delay: Delay::build(&cfg.delay, Rng::derive(seed, Stream::Delay, index as u64)),
            channel: Channel::build(
                &cfg.channel,
                Rng::derive(seed, Stream::Channel, index as u64),
                slot,
            ),
            protect_retransmissions: cfg.protect_retransmissions,
            queue: Queue::build(
                &queue_cfg,
                cfg.rate_bps,
                delay_s,
                Rng::derive(seed, Stream::Queue, index as u64),
            ),
            packet_limit: match queue_cfg {
                QueueConfig::DropTail {
                    packets: Some(n),
                    bytes: None,
                } => Some(n),
                _ => None,
            },
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            busy_until: Time::ZERO,
            tx_time: (0, Dur::ZERO),
            stats: LinkStats::default(),
        }
    }

    /// Packets waiting at `now`, the one in transmission excluded.
    ///
    /// Tie order when a packet arrives at the instant the link finishes a transmission and
    /// the next waiting packet starts: ns-2 runs the arrival first (its event was scheduled a
    /// propagation delay earlier; the dequeue event only a transmission time earlier, and its
    /// scheduler runs ties in insertion order), so the arrival still sees that packet in the
    /// queue, and so does the engine. A single NewReno flow through a 10-packet DropTail
    /// queue then matches ns-2 send for send over 60 s (`queue-limit` 11, see
    /// queue/droptail.rs), where the other order keeps one more packet at such ties (35377
    /// sends against ns-2's 35021).
    pub fn queue_len(&mut self, now: Time) -> usize {
        while let Some(&(s, size)) = self.waiting.front() {
            if s >= now {
                break;
            }
            self.waiting.pop_front();
            if self.packet_limit.is_none() {
                self.waiting_bytes -= u64::from(size);
            }
        }
        self.waiting.len()
    }

    /// The queue's decision, from the backlog at `now` (kept out of `send`'s hot path).
    #[inline(never)]
    fn admit(&mut self, now: Time, busy: bool, size: u32) -> Verdict {
        let packets = self.queue_len(now);
        let backlog = Backlog {
            packets,
            bytes: self.waiting_bytes,
            idle_since: (!busy).then_some(self.busy_until),
        };
        match &mut self.queue {
            Queue::DropTail(q) => q.admit(&backlog, size),
            Queue::Red(q) => {
                // The average held its value since the last arrival.
                let s = &mut self.stats;
                s.red_avg_area += q.average_packets() * (now - s.red_avg_since).as_secs();
                s.red_avg_since = now;
                q.admit(now, &backlog, size)
            }
        }
    }

    #[cold]
    fn refuse(&mut self, r: DropReason) -> Fate {
        match r {
            DropReason::Early => self.stats.early_drops += 1,
            DropReason::Forced => self.stats.forced_drops += 1,
        }
        Fate::Dropped(r)
    }

    /// When the packet just admitted starts transmission (leaves the queue).
    pub fn last_start(&self) -> Time {
        Time(self.busy_until.0 - self.tx_time.1 .0)
    }

    /// Fraction of `[0, end]` the link spent transmitting (after [`Link::finish`]).
    pub fn utilization(&self, end: Time) -> f64 {
        if end == Time::ZERO {
            return 0.0;
        }
        let booked = self.stats.bytes_transmitted as f64 * 8.0 / self.rate_bps;
        (booked - self.stats.busy_beyond_end_ns as f64 * 1e-9) / end.as_secs()
    }

    /// See [`Delay::trace_states`].
    pub fn trace_delay(&mut self) {
        self.delay.trace_states();
    }
    pub fn take_delay_trace(&mut self) -> Vec<(f64, u32)> {
        self.delay.take_trace()
    }
    /// RED's average in packets of its mean size (`None`: not a RED queue).
    pub fn red_average_packets(&self) -> Option<f64> {
        self.queue.red_average_packets()
    }

    pub fn send<F: Frame>(&mut self, now: Time, p: &F) -> Fate {
        let size = p.size_bytes();
        // A transmission ending exactly now still holds the link for this arrival, as a
        // waiting packet starting now is still queued for it (see `queue_len`): ns-2 runs
        // the arrival before the link's resume event, so the packet joins the queue and a
        // second arrival at the same instant finds it waiting. (Not after a transmission
        // of no duration, which holds nothing: before the first one, `tx_time` is zero.)
        let busy = self.busy_until > now || (self.busy_until == now && self.tx_time.1 > Dur::ZERO);
        let verdict = match self.packet_limit {
            // The common case, a DropTail queue counted in packets: no backlog to build.
            Some(limit) => {
                if busy && self.queue_len(now) >= limit {
                    Verdict::Drop(DropReason::Forced)
                } else {
                    Verdict::Admit
                }
            }
            None => self.admit(now, busy, size),
        };
        if let Verdict::Drop(r) = verdict {
            return self.refuse(r);
        }
        let start = if busy {
            self.waiting.push_back((self.busy_until, size));
            if self.packet_limit.is_none() {
                // (A DropTail queue in packets never asks for its bytes.)
                self.waiting_bytes += u64::from(size);
            }
            self.stats.queue_packet_ns += (self.busy_until - now).0;
            self.busy_until
        } else {
            now
        };
        if self.tx_time.0 != size {
            self.tx_time = (size, Dur::transmission(size, self.rate_bps));
        }
        self.busy_until = start + self.tx_time.1;
        self.stats.transmitted += 1;
        self.stats.bytes_transmitted += u64::from(size);
        let mut lost = self.channel.lost(start, p);
        if lost && self.protect_retransmissions && p.is_retransmission() {
            // The channel state still moved; only this packet is spared.
            lost = false;
        }
        if lost {
            self.stats.channel_drops += 1;
            return Fate::Lost;
        }
        Fate::Arrives(self.busy_until + self.delay.at(start))
    }

    /// The time a `size`-byte packet starting now would take across an idle link:
    /// serialisation at the rate and the delay its start meets (a connection's handshake
    /// segments, which the engine does not send). Draws nothing the packets do not: the
    /// delay process only advances to `now`.
    pub fn unloaded_time(&mut self, now: Time, size: u32) -> Dur {
        Dur::transmission(size, self.rate_bps) + self.delay.at(now)
    }

    /// Clips the time integrals at the end of the run: what was booked at admission for
    /// times after `end` (waits and transmissions still to come) is taken back.
    pub fn finish(&mut self, end: Time) {
        let s = &mut self.stats;
        for &(start, _) in &self.waiting {
            if start > end {
                let beyond = (start - end).0;
                s.queue_packet_ns -= beyond;
            }
        }
        if self.busy_until > end {
            s.busy_beyond_end_ns = (self.busy_until - end).0;
        }
        if let Some(ave) = self.queue.red_average_packets() {
            if end > s.red_avg_since {
                s.red_avg_area += ave * (end - s.red_avg_since).as_secs();
                s.red_avg_since = end;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChannelConfig;

    fn link(queue: QueueConfig) -> Link {
        let cfg = LinkConfig {
            from: None,
            to: None,
            rate_bps: 1e6,
            delay: DelayConfig::Fixed { delay_s: 0.01 },
            queue_packets: None,
            queue: Some(queue),
            channel: ChannelConfig::None,
            protect_retransmissions: false,
            slot_bytes: None,
        };
        Link::new(&cfg, 1, 0, Dur(1))
    }

    /// A datagram: all a link knows of a packet is the [`Frame`] view.
    struct Datagram(u32);

    impl Frame for Datagram {
        fn size_bytes(&self) -> u32 {
            self.0
        }
        fn segment(&self) -> Option<(u32, u64)> {
            None
        }
        fn is_retransmission(&self) -> bool {
            false
        }
    }

    fn udp(size: u32) -> Datagram {
        Datagram(size)
    }

    #[test]
    fn a_burst_fills_the_waiting_room_then_drops() {
        // ns-2's experiment in queue/droptail.rs, in the engine's terms: 10 packets at once
        // into an idle link with 4 waiting places keep 5 (one on the wire).
        let mut l = link(QueueConfig::DropTail {
            packets: Some(4),
            bytes: None,
        });
        let fates: Vec<Fate> = (0..10).map(|_| l.send(Time(0), &udp(500))).collect();
        // 500 B at 1 Mb/s = 4 ms each, 10 ms of propagation.
        for (k, f) in fates.iter().take(5).enumerate() {
            assert_eq!(
                *f,
                Fate::Arrives(Time::from_secs(0.004 * (k + 1) as f64 + 0.01))
            );
        }
        assert!(fates[5..]
            .iter()
            .all(|f| *f == Fate::Dropped(DropReason::Forced)));
        assert_eq!(l.stats.forced_drops, 5);
        // Packet 2 starts at 8 ms: an arrival at that instant still finds it waiting (ns-2's
        // tie order), one a nanosecond later finds two places free.
        assert_eq!(l.queue_len(Time::from_secs(0.008)), 3);
        assert_eq!(l.queue_len(Time(8_000_001)), 2);
    }

    #[test]
    fn time_integrals_are_clipped_at_the_end() {
        let mut l = link(QueueConfig::DropTail {
            packets: Some(10),
            bytes: None,
        });
        for _ in 0..3 {
            l.send(Time(0), &udp(500));
        }
        // Waits 0, 4 and 8 ms; transmissions 12 ms. Clipped at 6 ms: the third packet's
        // wait counts 6 ms, the second's 4, and the link was busy all 6 ms.
        l.finish(Time::from_secs(0.006));
        assert_eq!(l.stats.queue_packet_ns, 10_000_000);
        assert!((l.utilization(Time::from_secs(0.006)) - 1.0).abs() < 1e-12);
        assert_eq!(l.stats.transmitted, 3);
    }
}
