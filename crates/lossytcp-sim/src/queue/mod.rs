//! Queue disciplines: when a packet reaches a busy link, admit it or drop it, with a reason.
//!
//! Every discipline here decides at **enqueue time**, on what the link tells it about its
//! backlog at that instant ([`Backlog`]). That is what lets a FIFO link compute each
//! admitted packet's start of transmission at once and schedule only its arrival at the far
//! end (`link.rs`): no per-packet dequeue events.
//!
//! Room for dequeue-time disciplines (CoDel drops at the head, FQ picks which flow's packet
//! goes next): they cannot be served by start times fixed at arrival. Such a discipline
//! would be a third variant here whose `admit` only buffers, plus a `dequeue(now) ->
//! Option<(Packet, Verdict)>` hook called by a link running in event mode: a transmission-
//! complete event per packet that asks the queue for the next one (ns-2's `Queue::resume`,
//! ns-3's `QueueDisc::Dequeue`). The link would pick that mode from the discipline when it
//! is built, so FIFO links keep their single event per packet.
//!
//! Drop reasons follow ns-2's RED: **early** (a random drop of RED's, "unforced" in
//! red.cc) or **forced** (the buffer is full, or a deterministic drop by the average).

mod config;
mod droptail;
mod red;

pub use config::{QueueConfig, RedConfig};
pub use droptail::DropTail;
pub use red::Red;

use crate::rng::Rng;
use crate::time::Time;

/// Why a queue refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// RED's random drop (ns-2's "unforced" drop).
    Early,
    /// No room, or a drop the average forces with certainty.
    Forced,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    Drop(DropReason),
}

/// The link's state when a packet arrives.
#[derive(Clone, Copy, Debug)]
pub struct Backlog {
    /// Packets waiting, the one in transmission excluded (ns-2's `q_->length()`).
    pub packets: usize,
    /// Their bytes (ns-2's `q_->byteLength()`).
    pub bytes: u64,
    /// `Some(t)`: nothing is in transmission, and the link has been idle since `t` (the end
    /// of its last transmission, or the start of the run).
    pub idle_since: Option<Time>,
}

/// Enum dispatch keeps the per-packet path free of allocation and virtual calls.
pub enum Queue {
    DropTail(DropTail),
    Red(Box<Red>),
}

impl Queue {
    /// `rate_bps` and `delay_s` are the link's (RED derives its automatic parameters from
    /// them, as ns-2's `REDQueue::reset()` does from the link it is attached to).
    pub fn build(cfg: &QueueConfig, rate_bps: f64, delay_s: f64, rng: Rng) -> Queue {
        match cfg {
            QueueConfig::DropTail { packets, bytes } => {
                Queue::DropTail(DropTail::new(*packets, *bytes))
            }
            QueueConfig::Red(r) => Queue::Red(Box::new(Red::new(r, rate_bps, delay_s, rng))),
        }
    }

    /// Decides the fate of a packet of `size_bytes` arriving at `now`.
    #[inline]
    pub fn admit(&mut self, now: Time, backlog: &Backlog, size_bytes: u32) -> Verdict {
        match self {
            Queue::DropTail(q) => q.admit(backlog, size_bytes),
            Queue::Red(q) => q.admit(now, backlog, size_bytes),
        }
    }

    /// RED's average queue in packets of its mean size; `None` for other disciplines.
    pub fn red_average_packets(&self) -> Option<f64> {
        match self {
            Queue::DropTail(_) => None,
            Queue::Red(q) => Some(q.average_packets()),
        }
    }
}
