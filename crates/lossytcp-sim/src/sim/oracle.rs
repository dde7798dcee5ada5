//! Ground truth about each segment in a flow's window: copies sent, copies dropped and the
//! cause of the last drop. It judges loss detections (spurious: some copy arrived or is
//! still on its way) and gives oracle senders and the report each loss's true cause.

use crate::packet::LossCause;
use crate::tcp::LossTruth;

pub struct Oracle {
    seq: Vec<u64>,
    sent: Vec<u32>,
    dropped: Vec<u32>,
    cause: Vec<Option<LossCause>>,
    mask: u64,
}

impl Oracle {
    /// Remembers the last `2 x window + 4` segments (rounded up to a power of two): more
    /// than a sender can have outstanding.
    pub fn new(window: u32) -> Self {
        let n = (u64::from(window) * 2 + 4).next_power_of_two() as usize;
        Self {
            seq: vec![u64::MAX; n],
            sent: vec![0; n],
            dropped: vec![0; n],
            cause: vec![None; n],
            mask: n as u64 - 1,
        }
    }

    /// Forgets everything (a new connection in a reused slot), keeping the allocation when
    /// the window fits.
    pub fn reset(&mut self, window: u32) {
        let n = (u64::from(window) * 2 + 4).next_power_of_two() as usize;
        if n != self.seq.len() {
            *self = Oracle::new(window);
        } else {
            self.seq.fill(u64::MAX);
        }
    }

    #[inline]
    fn slot(&mut self, seq: u64) -> usize {
        let i = (seq & self.mask) as usize;
        if self.seq[i] != seq {
            self.seq[i] = seq;
            self.sent[i] = 0;
            self.dropped[i] = 0;
            self.cause[i] = None;
        }
        i
    }

    #[inline]
    pub fn on_send(&mut self, seq: u64) {
        let i = self.slot(seq);
        self.sent[i] += 1;
    }

    pub fn on_drop(&mut self, seq: u64, cause: LossCause) {
        let i = (seq & self.mask) as usize;
        if self.seq[i] == seq {
            self.dropped[i] += 1;
            self.cause[i] = Some(cause);
        }
    }

    pub fn some_copy_survives(&self, seq: u64) -> bool {
        let i = (seq & self.mask) as usize;
        self.seq[i] == seq && self.sent[i] > self.dropped[i]
    }
}

impl LossTruth for Oracle {
    fn cause(&self, seq: u64) -> Option<LossCause> {
        let i = (seq & self.mask) as usize;
        if self.seq[i] == seq {
            self.cause[i]
        } else {
            None
        }
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
