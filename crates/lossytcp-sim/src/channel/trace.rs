//! Losses supplied by the user: a per-transmission outcome list (e.g. from a Jakes fading
//! trace), or exact segment numbers to drop (scenario tests, Fall & Floyd).

use crate::config::Advance;
use crate::packet::{Kind, Packet};
use crate::time::{Dur, Time};
use std::collections::BTreeMap;

pub struct Trace {
    lost: Vec<bool>,
    next: usize,
    advance: Advance,
    slot: Dur,
}

impl Trace {
    pub fn new(lost: Vec<bool>, advance: Advance, slot: Dur) -> Self {
        Self {
            lost,
            next: 0,
            advance,
            slot: slot.max(Dur(1)),
        }
    }
    /// Outcomes repeat cyclically once the trace is exhausted.
    pub fn lost(&mut self, now: Time) -> bool {
        match self.advance {
            Advance::Transmission => {
                let l = self.lost[self.next];
                self.next = (self.next + 1) % self.lost.len();
                l
            }
            // The outcome of the slot the transmission starts in.
            Advance::Slot => self.lost[((now.0 / self.slot.0) % self.lost.len() as u64) as usize],
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_transmission_and_per_slot_outcomes() {
        let trace = vec![true, false, false, true];
        let mut t = Trace::new(trace.clone(), Advance::Transmission, Dur(10));
        // Far-apart transmissions still take consecutive outcomes.
        let got: Vec<bool> = (0..6).map(|i| t.lost(Time(i * 1000))).collect();
        assert_eq!(got, vec![true, false, false, true, true, false]);
        let mut t = Trace::new(trace, Advance::Slot, Dur(10));
        // Slots 0, 3, 5 (= 1 mod 4), 8 (= 0): idle slots are skipped over.
        let got: Vec<bool> = [0u64, 35, 52, 80]
            .iter()
            .map(|&ns| t.lost(Time(ns)))
            .collect();
        assert_eq!(got, vec![true, true, false, true]);
    }
}
