//! SACK-based loss recovery, RFC 6675, in segments.
//!
//! The scoreboard covers `[snd_una, snd_max)`. In recovery, sending is governed by `pipe`
//! (§4 SetPipe) against cwnd, and what to send by NextSeg (§4); the optional rescue
//! retransmission (NextSeg rule 4) is not implemented.
//!
//! After a timeout the RFC profile keeps the scoreboard and go-back-N skips SACKed segments
//! (§5.1); the ns-2 profile clears it, as `Agent/TCP/Sack1` does.
//!
//! The ns-2 profile follows ns-2 2.35's `Agent/TCP/Sack1` (tcp-sack1.cc, 1996), which counts
//! the pipe instead of computing it. At the fast retransmit, `pipe_` is set to
//! `maxseq_ - highest_ack_ - numdupacks_`. In recovery every ACK does `--pipe_`, a partial
//! ACK a second time, and every send (but the fast retransmit itself, sent by `output()`)
//! does `++pipe_`. `send_much()` sends while `pipe_ < int(cwnd_)`: first the scoreboard's
//! `GetNextRetran()` (the lowest segment neither SACKed nor retransmitted, below the highest
//! SACKed one), else new data within the receiver's window. Outside recovery every new ACK
//! clears the scoreboard, and after a timeout duplicate ACKs are ignored until a new ACK
//! (`timeout_`). The ACK that triggers the fast retransmit sends nothing else (`send_much()`
//! only `if (dupacks_ == 0)` outside recovery). Not modelled: the scoreboard's detection of lost retransmissions.

use std::collections::VecDeque;

use crate::config::Profile;
use crate::tcp::cc::Growth;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::{LossKind, SenderState};

#[derive(Clone, Debug, Default)]
pub struct Sack {
    /// `sacked[i]` is segment `base + i`; `base` follows `snd_una`.
    sacked: VecDeque<bool>,
    base: u64,
    /// One past the highest SACKed segment.
    high_sacked: u64,
    /// Highest segment retransmitted in this recovery (HighRxt), if any.
    high_rxt: Option<u64>,
    recovery_point: u64,
    /// ns2 profile: `retran[i]` is segment `base + i` retransmitted in this recovery.
    retran: VecDeque<bool>,
    /// ns2 profile: tcp-sack1.cc's `pipe_`.
    pipe_count: i64,
    /// ns2 profile: tcp-sack1.cc's `timeout_` (duplicate ACKs ignored after a timeout).
    after_timeout: bool,
    /// The last ACK's SACK blocks marked a segment not SACKed before (scoreboard.cc
    /// CheckUpdate()).
    changed: bool,
    /// ns2 profile: this ACK made the fast retransmit; nothing else goes out on it.
    hold_sends: bool,
}

impl Sack {
    fn align(&mut self, snd_una: u64) {
        while self.base < snd_una {
            self.sacked.pop_front();
            self.retran.pop_front();
            self.base += 1;
        }
    }

    fn clear_scoreboard(&mut self, snd_una: u64) {
        self.sacked.clear();
        self.retran.clear();
        self.base = snd_una;
        self.high_sacked = 0;
    }

    fn mark_retran(&mut self, seq: u64) {
        let i = (seq - self.base) as usize;
        if self.retran.len() <= i {
            self.retran.resize(i + 1, false);
        }
        self.retran[i] = true;
    }

    fn is_retran(&self, seq: u64) -> bool {
        seq >= self.base
            && self
                .retran
                .get((seq - self.base) as usize)
                .copied()
                .unwrap_or(false)
    }

    /// ns-2 Sack1 outside recovery counts a duplicate ACK only if its SACK blocks changed the
    /// scoreboard (`if (scb_->CheckUpdate()) { ++dupacks_ ... send_one() }`), and none
    /// while `timeout_`.
    pub fn ns2_ignores_dupack(&self, s: &SenderState) -> bool {
        s.profile == Profile::Ns2 && !s.in_recovery && (self.after_timeout || !self.changed)
    }

    /// In ns-2 Sack1's recovery (for the sender's RTT rule): a partial ACK.
    pub fn is_partial(&self, s: &SenderState, ack: u64) -> bool {
        s.in_recovery && ack < self.recovery_point
    }

    fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.base
            && self
                .sacked
                .get((seq - self.base) as usize)
                .copied()
                .unwrap_or(false)
    }

    pub fn on_sack_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)]) {
        self.changed = false;
        self.hold_sends = false;
        if s.profile == Profile::Ns2 && self.after_timeout {
            return; // tcp-sack1.cc recv(): no UpdateScoreBoard() while timeout_
        }
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
                self.changed |= !self.sacked[i];
                self.sacked[i] = true;
            }
            self.high_sacked = self.high_sacked.max(end);
        }
    }

    /// §4 IsLost: at least DupThresh SACKed segments above `seq`.
    fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        let mut n = 0u32;
        for q in (seq + 1)..self.high_sacked {
            if self.is_sacked(q) {
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
            if self.is_sacked(q) {
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

    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        self.align(s.snd_una);
        if s.profile == Profile::Ns2 {
            return self.ns2_on_dupack(s, g);
        }
        if s.in_recovery || !s.may_start_recovery() {
            return false;
        }
        // §5 step 4: DupThresh duplicates, or the first unacknowledged segment IsLost.
        if s.dupacks < s.dupthresh && !self.is_lost(s.snd_una, s.dupthresh) {
            return false;
        }
        s.ssthresh = g.ssthresh_on_loss(s);
        // RFC 6675 §5 step 4.2: cwnd = ssthresh; ns-2 Sack1 slowdown(CLOSE_CWND_HALF):
        // windowd() / 2 with its fraction, not floored at 2.
        s.cwnd = s.halved_window(s.ssthresh);
        s.note_loss(LossKind::FastRetransmit);
        s.in_recovery = true;
        self.recovery_point = s.snd_max;
        // (4.3): retransmit the first segment presumed dropped, outside the pipe check.
        s.retransmit_now.push(s.snd_una);
        self.high_rxt = Some(s.snd_una);
        true
    }

    /// tcp-sack1.cc recv() (not in recovery, a duplicate ACK) and dupack_action().
    fn ns2_on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        if s.in_recovery {
            self.pipe_count -= 1; // every ACK in fast recovery: --pipe_
            return false;
        }
        if self.after_timeout || s.dupacks != s.dupthresh || !s.may_start_recovery() {
            return false;
        }
        // pipe_ = maxseq_ - highest_ack_ - numdupacks_, with maxseq_ = snd_max - 1 and
        // highest_ack_ = snd_una - 1.
        self.pipe_count = s.flight() as i64 - i64::from(s.dupthresh);
        s.ssthresh = g.ssthresh_on_loss(s);
        s.cwnd = s.halved_window(s.ssthresh);
        s.note_loss(LossKind::FastRetransmit);
        s.in_recovery = true;
        self.recovery_point = s.snd_max;
        self.mark_retran(s.snd_una);
        s.retransmit_now.push(s.snd_una);
        // recv() outside fast recovery calls send_much() only `if (dupacks_ == 0)`: the ACK
        // that triggers dupack_action() sends the retransmission (output()) and nothing else,
        // even when pipe_ < int(cwnd_) (small windows: flight - 3 < flight / 2).
        self.hold_sends = true;
        true
    }

    pub fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        self.align(s.snd_una);
        if s.profile == Profile::Ns2 {
            if !s.in_recovery {
                // recv(): a new ACK outside recovery clears the scoreboard and timeout_.
                self.clear_scoreboard(s.snd_una);
                self.after_timeout = false;
                return AckVerdict::NORMAL;
            }
            self.pipe_count -= 1;
            if s.snd_una >= self.recovery_point {
                // Recovery over: newack() only, no opencwnd(); cwnd_ stays where the fast
                // retransmit put it.
                s.in_recovery = false;
                self.clear_scoreboard(s.snd_una);
                // `recover_ = 0`: dupack_action()'s guard `highest_ack_ > recover_` holds
                // again at once, so three duplicate ACKs for a segment sent during this
                // recovery start a new one (only a timeout's `recover_ = maxseq_` stays).
                s.recover = None;
                return AckVerdict {
                    grow: false,
                    restart_timer: true,
                };
            }
            // Partial ACK (partial_ack_ off): --pipe_ once more, newtimer(), t_backoff_ = 1.
            self.pipe_count -= 1;
            return AckVerdict {
                grow: false,
                restart_timer: true,
            };
        }
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        if s.snd_una >= self.recovery_point {
            // §5.1 exit: recovery ends once RecoveryPoint is acknowledged.
            s.in_recovery = false;
            self.high_rxt = None;
            return AckVerdict {
                grow: false,
                restart_timer: true,
            };
        }
        AckVerdict {
            grow: false,
            restart_timer: true,
        }
    }

    pub fn on_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.high_rxt = None;
        if s.profile == Profile::Ns2 {
            // Sack1TcpAgent::timeout(): fastrecov_ = FALSE, timeout_ = TRUE, scoreboard
            // cleared.
            self.clear_scoreboard(s.snd_una);
            self.after_timeout = true;
            self.hold_sends = false;
        }
    }

    pub fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        self.align(s.snd_una);
        if s.profile == Profile::Ns2 {
            return self.ns2_next_segment(s);
        }
        if !s.in_recovery {
            // Go-back-N after a timeout skips what the receiver already holds (§5.1).
            while s.snd_nxt < s.snd_max && self.is_sacked(s.snd_nxt) {
                s.snd_nxt += 1;
            }
            return s.next_in_window();
        }
        if (s.cwnd.floor() as u64) <= self.pipe(s) {
            return None;
        }
        let lowest = self.high_rxt.map_or(s.snd_una, |h| h + 1).max(s.snd_una);
        // Rule 1: the lowest unSACKed segment above HighRxt that IsLost.
        for q in lowest..self.high_sacked {
            if !self.is_sacked(q) && self.is_lost(q, s.dupthresh) {
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
        for q in lowest..self.high_sacked {
            if !self.is_sacked(q) {
                self.high_rxt = Some(q);
                return Some(q);
            }
        }
        None
    }

    /// tcp-sack1.cc send_much(): outside recovery the window rule (no skipping: the
    /// scoreboard is empty there); in recovery while `pipe_ < int(cwnd_)`, GetNextRetran()
    /// first, else new data within `highest_ack_ + wnd_`.
    fn ns2_next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        if !s.in_recovery {
            return s.next_in_window();
        }
        if self.hold_sends || self.pipe_count >= s.cwnd.floor() as i64 {
            return None;
        }
        let wnd_end = s.snd_una + u64::from(s.max_window);
        let rexmit =
            (s.snd_una..self.high_sacked).find(|&q| !self.is_sacked(q) && !self.is_retran(q));
        if let Some(q) = rexmit {
            if q >= wnd_end {
                return None;
            }
            self.mark_retran(q);
            self.pipe_count += 1;
            return Some(q);
        }
        if s.snd_max < wnd_end && s.snd_max < s.limit {
            let q = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            self.pipe_count += 1;
            return Some(q);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{Growth, Reno};

    fn state_with_flight(n: u64) -> SenderState {
        let mut s = SenderState::new(1, 100, 3, Profile::Rfc, u64::MAX);
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
        let g = Growth::Reno(Reno);
        let mut r = Sack::default();
        r.on_sack_blocks(&s, &[(2, 5)]);
        s.dupacks = 3;
        assert!(r.on_dupack(&mut s, &g));
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
