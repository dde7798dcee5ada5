//! Losses supplied by the user: a per-transmission outcome list (e.g. from a Jakes fading
//! trace), or exact segment numbers to drop (scenario tests, Fall & Floyd).

use crate::packet::{Kind, Packet};
use std::collections::BTreeMap;

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
    /// Segment -> how many of its next transmissions to drop.
    pending: BTreeMap<u64, u32>,
}

impl Drops {
    /// A segment listed k times loses its first k transmissions.
    pub fn new(seqs: &[u64]) -> Self {
        let mut pending = BTreeMap::new();
        for &s in seqs {
            *pending.entry(s).or_insert(0) += 1;
        }
        Self { pending }
    }
    /// ACKs always pass.
    pub fn lost(&mut self, pkt: &Packet) -> bool {
        let Kind::Data { seq, .. } = pkt.kind else {
            return false;
        };
        match self.pending.get_mut(&seq) {
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    self.pending.remove(&seq);
                }
                true
            }
            None => false,
        }
    }
}
