//! Ground truth about each segment in a flow's window: copies sent, copies dropped and the
//! cause of the last drop. It judges loss detections (spurious: some copy arrived or is
//! still on its way) and gives oracle senders and the report each loss's true cause.

use crate::packet::LossCause;
use crate::tcp::LossTruth;

/// One segment's record: its number (`u64::MAX`: none yet), copies sent and dropped.
#[derive(Clone, Copy)]
struct Record {
    seq: u64,
    sent: u32,
    dropped: u32,
    cause: Option<LossCause>,
}

const EMPTY: Record = Record {
    seq: u64::MAX,
    sent: 0,
    dropped: 0,
    cause: None,
};

pub struct Oracle {
    ring: Vec<Record>,
    mask: u64,
}

impl Oracle {
    /// Remembers the last `2 x window + 4` segments (rounded up to a power of two): more
    /// than a sender can have outstanding.
    pub fn new(window: u32) -> Self {
        let n = (u64::from(window) * 2 + 4).next_power_of_two() as usize;
        Self {
            ring: vec![EMPTY; n],
            mask: n as u64 - 1,
        }
    }

    /// Forgets everything (a new connection in a reused slot), keeping the allocation when
    /// the window fits.
    pub fn reset(&mut self, window: u32) {
        let n = (u64::from(window) * 2 + 4).next_power_of_two() as usize;
        if n != self.ring.len() {
            *self = Oracle::new(window);
        } else {
            self.ring.fill(EMPTY);
        }
    }

    /// The record of `seq`, if the ring still holds it.
    #[inline]
    fn get(&self, seq: u64) -> Option<&Record> {
        let r = &self.ring[(seq & self.mask) as usize];
        (r.seq == seq).then_some(r)
    }

    #[inline]
    pub fn on_send(&mut self, seq: u64) {
        let r = &mut self.ring[(seq & self.mask) as usize];
        if r.seq != seq {
            *r = Record { seq, ..EMPTY };
        }
        r.sent += 1;
    }

    pub fn on_drop(&mut self, seq: u64, cause: LossCause) {
        let r = &mut self.ring[(seq & self.mask) as usize];
        if r.seq == seq {
            r.dropped += 1;
            r.cause = Some(cause);
        }
    }

    pub fn some_copy_survives(&self, seq: u64) -> bool {
        self.get(seq).is_some_and(|r| r.sent > r.dropped)
    }
}

impl LossTruth for Oracle {
    fn cause(&self, seq: u64) -> Option<LossCause> {
        self.get(seq).and_then(|r| r.cause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_cause_of_the_last_drop() {
        let mut o = Oracle::new(4);
        o.on_send(7);
        assert_eq!(o.cause(7), None);
        o.on_drop(7, LossCause::Channel);
        assert_eq!(o.cause(7), Some(LossCause::Channel));
        assert!(!o.some_copy_survives(7));
        o.on_send(7);
        assert!(o.some_copy_survives(7));
        o.on_drop(7, LossCause::Queue);
        assert_eq!(o.cause(7), Some(LossCause::Queue));
        // A segment 16 later takes the same place (ring of 16) and starts afresh.
        o.on_send(23);
        assert_eq!(o.cause(7), None);
        assert_eq!(o.cause(23), None);
        // A drop of a segment no longer remembered is ignored.
        o.on_drop(7, LossCause::Queue);
        assert_eq!(o.cause(23), None);
        o.reset(4);
        assert_eq!(o.cause(23), None);
        assert!(!o.some_copy_survives(23));
    }
}
