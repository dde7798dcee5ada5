//! Losses supplied by the user: a per-transmission outcome list (e.g. from a Jakes fading
//! trace), or exact segment numbers to drop (scenario tests, Fall & Floyd).

use crate::config::Advance;
use crate::packet::{FlowId, Kind, Packet};
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
    /// (flow or any flow, segment) -> how many of its next transmissions to drop.
    pending: BTreeMap<(Option<FlowId>, u64), u32>,
    /// Whether any entry names a flow (else one lookup per packet suffices).
    by_flow: bool,
}

impl Drops {
    /// A segment listed k times loses its first k transmissions; an entry without a flow
    /// applies to whichever flow sends that segment first.
    pub fn new(entries: impl IntoIterator<Item = (Option<FlowId>, u64)>) -> Self {
        let mut pending = BTreeMap::new();
        let mut by_flow = false;
        for (f, s) in entries {
            by_flow |= f.is_some();
            *pending.entry((f, s)).or_insert(0) += 1;
        }
        Self { pending, by_flow }
    }
    fn take(&mut self, key: (Option<FlowId>, u64)) -> bool {
        match self.pending.get_mut(&key) {
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    self.pending.remove(&key);
                }
                true
            }
            None => false,
        }
    }
    /// ACKs and UDP datagrams always pass.
    pub fn lost(&mut self, pkt: &Packet) -> bool {
        let Kind::Data { seq, .. } = pkt.kind else {
            return false;
        };
        (self.by_flow && self.take((Some(pkt.flow), seq))) || self.take((None, seq))
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

    #[test]
    fn drops_name_a_flow_or_any() {
        let data = |flow, seq| Packet {
            flow,
            conn: 0,
            size_bytes: 1000,
            hop: 0,
            kind: Kind::Data {
                seq,
                retransmission: false,
            },
        };
        let mut d = Drops::new([(Some(1), 5), (None, 7), (Some(1), 5)]);
        assert!(!d.lost(&data(0, 5)), "flow 0's segment 5 is not listed");
        assert!(d.lost(&data(1, 5)));
        assert!(d.lost(&data(1, 5)), "listed twice: two transmissions");
        assert!(!d.lost(&data(1, 5)));
        assert!(d.lost(&data(2, 7)), "any flow: the first to send it");
        assert!(!d.lost(&data(0, 7)));
    }
}
