//! The SACK scoreboard both SACK recoveries keep: which segments of `[snd_una, snd_max)` the
//! receiver reported holding.

use std::collections::VecDeque;

use crate::tcp::state::SenderState;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// `sacked[i]` is segment `base + i`; `base` follows `snd_una` (lazily: see `align`).
    sacked: VecDeque<bool>,
    base: u64,
    /// One past the highest SACKed segment.
    high_sacked: u64,
}

impl Scoreboard {
    pub fn base(&self) -> u64 {
        self.base
    }

    pub fn high_sacked(&self) -> u64 {
        self.high_sacked
    }

    /// Forgets the segments below `snd_una`.
    pub fn align(&mut self, snd_una: u64) {
        while self.base < snd_una {
            self.sacked.pop_front();
            self.base += 1;
        }
    }

    pub fn clear(&mut self, snd_una: u64) {
        self.sacked.clear();
        self.base = snd_una;
        self.high_sacked = 0;
    }

    /// Marks the blocks (clipped to the outstanding data); true when a segment not SACKed
    /// before was marked (ns-2 scoreboard.cc CheckUpdate()).
    pub fn mark(&mut self, s: &SenderState, blocks: &[(u64, u64)]) -> bool {
        let mut changed = false;
        for &(start, end) in blocks {
            let start = start.max(s.snd_una);
            let end = end.min(s.snd_max);
            if start >= end {
                continue;
            }
            let need = (end - self.base) as usize;
            if self.sacked.len() < need {
                self.sacked.resize(need, false);
            }
            for q in start..end {
                let i = (q - self.base) as usize;
                changed |= !self.sacked[i];
                self.sacked[i] = true;
            }
            self.high_sacked = self.high_sacked.max(end);
        }
        changed
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.base
            && self
                .sacked
                .get((seq - self.base) as usize)
                .copied()
                .unwrap_or(false)
    }
}
