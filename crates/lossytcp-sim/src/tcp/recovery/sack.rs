//! SACK-based loss recovery, RFC 6675, in segments.
//!
//! The scoreboard covers `[snd_una, snd_max)`. In recovery, sending is governed by `pipe`
//! (§4 SetPipe) against cwnd, and what to send by NextSeg (§4); the optional rescue
//! retransmission (NextSeg rule 4) is not implemented. After a timeout the scoreboard is kept
//! and go-back-N skips SACKed segments (§5.1). ns-2's `Agent/TCP/Sack1` is `sack1.rs`.

use super::scoreboard::Scoreboard;
use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::{LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Debug, Default)]
pub struct Sack {
    board: Scoreboard,
    /// Highest segment retransmitted in this recovery (HighRxt), if any.
    high_rxt: Option<u64>,
    recovery_point: u64,
}

impl Sack {
    /// §4 IsLost: at least DupThresh SACKed segments above `seq`.
    fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        let mut n = 0u32;
        for q in (seq + 1)..self.board.high_sacked() {
            if self.board.is_sacked(q) {
                n += 1;
                if n >= dupthresh {
                    return true;
                }
            }
        }
        false
    }

    /// §4 SetPipe: segments believed to be in the network.
    fn pipe(&self, s: &SenderState) -> u64 {
        // One pass from the top, counting SACKed segments above each one, keeps this O(window).
        let mut pipe = 0;
        let mut sacked_above = 0u32;
        for q in (s.snd_una..s.snd_max).rev() {
            if self.board.is_sacked(q) {
                sacked_above += 1;
                continue;
            }
            if sacked_above < s.dupthresh {
                pipe += 1; // (a) not lost: original still in flight
            }
            if self.high_rxt.is_some_and(|h| q <= h) {
                pipe += 1; // (b) retransmitted in this recovery
            }
        }
        pipe
    }
}

impl Recovery for Sack {
    fn wants_sack(&self) -> bool {
        true
    }

    #[inline]
    fn on_sack_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)]) {
        self.board.mark(s, blocks);
    }

    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        self.board.align(s.snd_una);
        if s.in_recovery || !s.may_start_recovery() {
            return DupAck::Nothing;
        }
        // §5 step 4: DupThresh duplicates, or the first unacknowledged segment IsLost.
        if s.dupacks < s.dupthresh && !self.is_lost(s.snd_una, s.dupthresh) {
            return DupAck::Nothing;
        }
        DupAck::Enter
    }

    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        // §5 step 4.2: ssthresh and cwnd from the cut (RFC 5681: cwnd = ssthresh).
        if let Some(c) = cut {
            s.take(c);
        }
        s.note_loss(LossKind::FastRetransmit);
        s.in_recovery = true;
        self.recovery_point = s.snd_max;
        // (4.3): retransmit the first segment presumed dropped, outside the pipe check.
        s.retransmit_now.push(s.snd_una);
        self.high_rxt = Some(s.snd_una);
    }

    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        self.board.align(s.snd_una);
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        let exited = s.snd_una >= self.recovery_point;
        if exited {
            // §5.1 exit: recovery ends once RecoveryPoint is acknowledged.
            s.in_recovery = false;
            self.high_rxt = None;
        }
        AckVerdict {
            grow: false,
            restart_timer: true,
            exited,
        }
    }

    /// §4 IsLost holds for every segment with DupThresh SACKed segments above it: below the
    /// DupThresh-th highest SACKed segment.
    fn lost_below(&self, s: &SenderState) -> u64 {
        let mut n = 0u32;
        let mut q = self.board.high_sacked();
        while q > s.snd_una.max(self.board.base()) {
            q -= 1;
            if self.board.is_sacked(q) {
                n += 1;
                if n >= s.dupthresh {
                    return q;
                }
            }
        }
        0
    }

    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
    fn after_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.high_rxt = None;
    }

    #[inline]
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        self.board.align(s.snd_una);
        if !s.in_recovery {
            // Go-back-N after a timeout skips what the receiver already holds (§5.1).
            while s.snd_nxt < s.snd_max && self.board.is_sacked(s.snd_nxt) {
                s.snd_nxt += 1;
            }
            return s.next_in_window();
        }
        if (s.cwnd.floor() as u64) <= self.pipe(s) {
            return None;
        }
        let lowest = self.high_rxt.map_or(s.snd_una, |h| h + 1).max(s.snd_una);
        let high_sacked = self.board.high_sacked();
        // Rule 1: the lowest unSACKed segment above HighRxt that IsLost.
        for q in lowest..high_sacked {
            if !self.board.is_sacked(q) && self.is_lost(q, s.dupthresh) {
                self.high_rxt = Some(q);
                return Some(q);
            }
        }
        // Rule 2: new data, within the receiver's window.
        if s.snd_max < s.limit && s.snd_max < s.snd_una + u64::from(s.max_window) {
            let q = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            return Some(q);
        }
        // Rule 3: any unSACKed segment above HighRxt below the highest SACKed one.
        for q in lowest..high_sacked {
            if !self.board.is_sacked(q) {
                self.high_rxt = Some(q);
                return Some(q);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{Growth, Reno};
    use crate::tcp::view::Conn;
    use crate::tcp::{AckCtx, CongestionKind};

    fn state_with_flight(n: u64) -> SenderState {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.snd_max = n;
        s.snd_nxt = n;
        s.cwnd = n as f64;
        s
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let s = state_with_flight(10);
        let mut r = Sack::default();
        r.on_sack_blocks(&s, &[(2, 4)]);
        assert!(!r.is_lost(0, 3), "two SACKed above: not yet lost");
        r.on_sack_blocks(&s, &[(5, 6)]);
        assert!(r.is_lost(0, 3));
        assert!(r.is_lost(1, 3));
        assert!(!r.is_lost(4, 3), "only one SACKed segment above 4");
    }

    #[test]
    fn pipe_and_nextseg_follow_rfc6675() {
        // Segments 0..10 outstanding; 0 and 1 lost; 2..10 SACKed by 8 duplicate ACKs... here
        // only 2, 3, 4 have been SACKed when recovery starts.
        let mut s = state_with_flight(10);
        let mut r = Sack::default();
        r.on_sack_blocks(&s, &[(2, 5)]);
        s.dupacks = 3;
        assert_eq!(r.on_dupack(&mut s), DupAck::Enter);
        let cut = Reno::default().on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        r.enter(&mut s, Some(cut));
        assert_eq!(s.ssthresh, 5.0);
        assert_eq!(s.cwnd, 5.0);
        assert_eq!(s.retransmit_now, vec![0]);
        // pipe: 0 lost but retransmitted (1), 1 lost (0), 5..9 in flight (5) = 6 >= cwnd 5.
        assert_eq!(r.pipe(&s), 6);
        assert_eq!(r.next_segment(&mut s), None);
        // Two more SACKs: 5 and 6 arrive.
        r.on_sack_blocks(&s, &[(2, 7)]);
        // pipe: 0 rxt (1), 1 lost (0), 7..9 (3) -> 4 < 5: rule 1 sends segment 1.
        assert_eq!(r.pipe(&s), 4);
        assert_eq!(r.next_segment(&mut s), Some(1));
        assert_eq!(r.pipe(&s), 5);
        assert_eq!(r.next_segment(&mut s), None);
        r.on_sack_blocks(&s, &[(2, 8)]);
        // pipe 4 again: no lost segment left above HighRxt = 1, so rule 2 sends new data 10.
        assert_eq!(r.next_segment(&mut s), Some(10));
    }
}
