//! Losses supplied by the user: a per-transmission outcome list (e.g. from a Jakes fading
//! trace), or exact segment numbers to drop (scenario tests, Fall & Floyd).

use crate::packet::{Kind, Packet};
use std::collections::BTreeSet;

pub struct Trace {
    lost: Vec<bool>,
    next: usize,
}

impl Trace {
    pub fn new(lost: Vec<bool>) -> Self {
        Self { lost, next: 0 }
    }
    /// Outcomes repeat cyclically once the trace is exhausted.
    pub fn lost(&mut self) -> bool {
        let l = self.lost[self.next];
        self.next = (self.next + 1) % self.lost.len();
        l
    }
}

pub struct Drops {
    pending: BTreeSet<u64>,
}

impl Drops {
    pub fn new(seqs: &[u64]) -> Self {
        Self { pending: seqs.iter().copied().collect() }
    }
    /// Drops the first transmission of each listed data segment; ACKs always pass.
    pub fn lost(&mut self, pkt: &Packet) -> bool {
        match pkt.kind {
            Kind::Data { seq, .. } => self.pending.remove(&seq),
            Kind::Ack { .. } => false,
        }
    }
}
