//! The TCP sink: cumulative ACKs (next expected segment), optional delayed ACKs, optional
//! SACK blocks (RFC 2018: the first block holds the segment that triggered the ACK, then the
//! most recently reported others).

use std::collections::BTreeSet;

use crate::packet::MAX_SACK_BLOCKS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    pub n_sack: u8,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    rcv_next: u64,
    out_of_order: BTreeSet<u64>,
    /// Segments whose blocks were reported most recently, newest first.
    recent: Vec<u64>,
    sack: bool,
    delayed: bool,
    /// A delayed ACK is owed (one in-order segment unacknowledged).
    pending: bool,
    pub received: u64,
    pub delivered: u64,
}

/// What the receiver wants after a segment arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    Ack(AckOut),
    /// Hold the ACK: the caller arms the delayed-ACK timer.
    Delay,
}

impl Receiver {
    pub fn new(sack: bool, delayed: bool) -> Self {
        Self {
            rcv_next: 0,
            out_of_order: BTreeSet::new(),
            recent: Vec::new(),
            sack,
            delayed,
            pending: false,
            received: 0,
            delivered: 0,
        }
    }

    pub fn rcv_next(&self) -> u64 {
        self.rcv_next
    }

    fn block_of(&self, seq: u64) -> (u64, u64) {
        let mut start = seq;
        while start > self.rcv_next && self.out_of_order.contains(&(start - 1)) {
            start -= 1;
        }
        let mut end = seq + 1;
        while self.out_of_order.contains(&end) {
            end += 1;
        }
        (start, end)
    }

    fn make_ack(&mut self) -> AckOut {
        let mut out = AckOut {
            ack: self.rcv_next,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            n_sack: 0,
        };
        if self.sack {
            let mut kept = Vec::with_capacity(self.recent.len());
            for &s in &self.recent {
                if s < self.rcv_next || !self.out_of_order.contains(&s) {
                    continue;
                }
                let b = self.block_of(s);
                if out.sack[..out.n_sack as usize].contains(&b) {
                    continue;
                }
                kept.push(s);
                if (out.n_sack as usize) < MAX_SACK_BLOCKS {
                    out.sack[out.n_sack as usize] = b;
                    out.n_sack += 1;
                }
            }
            kept.truncate(2 * MAX_SACK_BLOCKS);
            self.recent = kept;
        }
        out
    }

    /// A data segment arrived.
    pub fn on_data(&mut self, seq: u64) -> RxAction {
        self.received += 1;
        let in_order = seq == self.rcv_next;
        let had_gap = !self.out_of_order.is_empty();
        if in_order {
            self.rcv_next += 1;
            self.delivered += 1;
            while self.out_of_order.remove(&self.rcv_next) {
                self.rcv_next += 1;
                self.delivered += 1;
            }
        } else if seq > self.rcv_next && self.out_of_order.insert(seq) && self.sack {
            // Kept short by make_ack; only SACK needs to know which blocks are recent.
            self.recent.retain(|&s| s != seq);
            self.recent.insert(0, seq);
        }
        // RFC 5681 §4.2: ACK at once for out-of-order data or data that fills a gap; otherwise
        // every second full-sized segment, or when the delayed-ACK timer fires.
        if self.delayed && in_order && !had_gap {
            if self.pending {
                self.pending = false;
                return RxAction::Ack(self.make_ack());
            }
            self.pending = true;
            return RxAction::Delay;
        }
        self.pending = false;
        RxAction::Ack(self.make_ack())
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self) -> Option<AckOut> {
        if self.pending {
            self.pending = false;
            Some(self.make_ack())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(a: RxAction) -> AckOut {
        match a {
            RxAction::Ack(x) => x,
            RxAction::Delay => panic!("expected an ACK"),
        }
    }

    #[test]
    fn cumulative_acks_and_dupacks() {
        let mut r = Receiver::new(false, false);
        assert_eq!(ack(r.on_data(0)).ack, 1);
        assert_eq!(ack(r.on_data(2)).ack, 1);
        assert_eq!(ack(r.on_data(3)).ack, 1);
        assert_eq!(ack(r.on_data(1)).ack, 4);
        assert_eq!(r.delivered, 4);
        assert_eq!(
            ack(r.on_data(1)).ack,
            4,
            "a duplicate segment is acked again"
        );
        assert_eq!(r.received, 5);
    }

    #[test]
    fn sack_blocks_newest_first() {
        let mut r = Receiver::new(true, false);
        r.on_data(0);
        let a = ack(r.on_data(2));
        assert_eq!(&a.sack[..a.n_sack as usize], &[(2, 3)]);
        let a = ack(r.on_data(5));
        assert_eq!(&a.sack[..a.n_sack as usize], &[(5, 6), (2, 3)]);
        let a = ack(r.on_data(3));
        assert_eq!(&a.sack[..a.n_sack as usize], &[(2, 4), (5, 6)]);
        let a = ack(r.on_data(8));
        let a2 = ack(r.on_data(10));
        assert_eq!(a.n_sack, 3);
        assert_eq!(&a2.sack[..3], &[(10, 11), (8, 9), (2, 4)]);
        let a = ack(r.on_data(1));
        assert_eq!(a.ack, 4);
        assert_eq!(&a.sack[..a.n_sack as usize], &[(10, 11), (8, 9), (5, 6)]);
    }

    #[test]
    fn delayed_acks_every_second_segment_and_at_once_out_of_order() {
        let mut r = Receiver::new(false, true);
        assert_eq!(r.on_data(0), RxAction::Delay);
        assert_eq!(ack(r.on_data(1)).ack, 2);
        assert_eq!(r.on_data(2), RxAction::Delay);
        assert_eq!(r.on_delack_timer().map(|a| a.ack), Some(3));
        assert_eq!(r.on_delack_timer(), None);
        assert_eq!(ack(r.on_data(4)).ack, 3, "out of order: immediate");
        assert_eq!(ack(r.on_data(3)).ack, 5, "fills the gap: immediate");
    }
}
