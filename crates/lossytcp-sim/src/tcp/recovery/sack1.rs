//! ns-2 2.35's `Agent/TCP/Sack1` (tcp-sack1.cc, 1996): SACK recovery that counts the pipe
//! instead of computing it (RFC 6675 is `sack.rs`).
//!
//! At the fast retransmit `pipe_` is set to `maxseq_ - highest_ack_ - numdupacks_`. In
//! recovery every ACK does `--pipe_`, a partial ACK a second time, and every send (but the
//! fast retransmit itself, sent by `output()`) does `++pipe_`. `send_much()` sends while
//! `pipe_ < int(cwnd_)`: first the scoreboard's `GetNextRetran()` (the lowest segment neither
//! SACKed nor retransmitted, below the highest SACKed one), else new data within the
//! receiver's window. Outside recovery every new ACK clears the scoreboard, and after a
//! timeout duplicate ACKs are ignored until a new ACK (`timeout_`). The ACK that triggers the
//! fast retransmit sends nothing else (`send_much()` only `if (dupacks_ == 0)` outside
//! recovery). Not modelled: the scoreboard's detection of lost retransmissions.

use std::collections::VecDeque;

use super::scoreboard::Scoreboard;
use super::{AckVerdict, DupAck, PartialAckTiming, Recovery};
use crate::tcp::state::{LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Debug, Default)]
pub struct Sack1 {
    board: Scoreboard,
    /// `retran[i]` is segment `board.base() + i` retransmitted in this recovery.
    retran: VecDeque<bool>,
    recovery_point: u64,
    /// tcp-sack1.cc's `pipe_`.
    pipe: i64,
    /// tcp-sack1.cc's `timeout_`: duplicate ACKs ignored after a timeout.
    after_timeout: bool,
    /// The last ACK's SACK blocks marked a segment not SACKed before (CheckUpdate()).
    changed: bool,
    /// This ACK made the fast retransmit; nothing else goes out on it.
    hold_sends: bool,
}

impl Sack1 {
    fn align(&mut self, snd_una: u64) {
        for _ in self.board.base()..snd_una {
            self.retran.pop_front();
        }
        self.board.align(snd_una);
    }

    fn clear(&mut self, snd_una: u64) {
        self.board.clear(snd_una);
        self.retran.clear();
    }

    fn mark_retran(&mut self, seq: u64) {
        let i = (seq - self.board.base()) as usize;
        if self.retran.len() <= i {
            self.retran.resize(i + 1, false);
        }
        self.retran[i] = true;
    }

    fn is_retran(&self, seq: u64) -> bool {
        seq >= self.board.base()
            && self
                .retran
                .get((seq - self.board.base()) as usize)
                .copied()
                .unwrap_or(false)
    }
}

impl Recovery for Sack1 {
    fn wants_sack(&self) -> bool {
        true
    }

    #[inline]
    fn on_sack_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)]) {
        self.changed = false;
        self.hold_sends = false;
        if self.after_timeout {
            return; // recv(): no UpdateScoreBoard() while timeout_
        }
        self.changed = self.board.mark(s, blocks);
    }

    /// Outside recovery a duplicate ACK counts only if its SACK blocks changed the scoreboard
    /// (`if (scb_->CheckUpdate()) { ++dupacks_ ... send_one() }`), and none while `timeout_`.
    #[inline]
    fn counts_dupack(&self, s: &SenderState) -> bool {
        s.in_recovery || (!self.after_timeout && self.changed)
    }

    /// recv() (a duplicate ACK) and dupack_action().
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        self.align(s.snd_una);
        if s.in_recovery {
            self.pipe -= 1; // every ACK in fast recovery: --pipe_
            return DupAck::Nothing;
        }
        if self.after_timeout || s.dupacks != s.dupthresh || !s.may_start_recovery() {
            return DupAck::Nothing;
        }
        DupAck::Enter
    }

    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        // pipe_ = maxseq_ - highest_ack_ - numdupacks_, with maxseq_ = snd_max - 1 and
        // highest_ack_ = snd_una - 1.
        self.pipe = s.flight() as i64 - i64::from(s.dupthresh);
        if let Some(c) = cut {
            s.take(c);
        }
        s.note_loss(LossKind::FastRetransmit);
        s.in_recovery = true;
        self.recovery_point = s.snd_max;
        self.mark_retran(s.snd_una);
        s.retransmit_now.push(s.snd_una);
        // recv() outside fast recovery calls send_much() only `if (dupacks_ == 0)`: the ACK
        // that triggers dupack_action() sends the retransmission (output()) and nothing else,
        // even when pipe_ < int(cwnd_) (small windows: flight - 3 < flight / 2).
        self.hold_sends = true;
    }

    /// A partial ACK (partial_ack_ off) takes no RTT sample; recv() sets `t_backoff_ = 1`.
    #[inline]
    fn partial_ack_timing(&self, s: &SenderState, ack: u64) -> PartialAckTiming {
        if s.in_recovery && ack < self.recovery_point {
            PartialAckTiming::EndBackoff
        } else {
            PartialAckTiming::Sample
        }
    }

    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        self.align(s.snd_una);
        if !s.in_recovery {
            // recv(): a new ACK outside recovery clears the scoreboard and timeout_.
            self.clear(s.snd_una);
            self.after_timeout = false;
            return AckVerdict::NORMAL;
        }
        self.pipe -= 1;
        if s.snd_una >= self.recovery_point {
            // Recovery over: newack() only, no opencwnd(); cwnd_ stays where the fast
            // retransmit put it.
            s.in_recovery = false;
            self.clear(s.snd_una);
            // `recover_ = 0`: dupack_action()'s guard `highest_ack_ > recover_` holds again at
            // once, so three duplicate ACKs for a segment sent during this recovery start a new
            // one (only a timeout's `recover_ = maxseq_` stays).
            s.recover = None;
            return AckVerdict {
                grow: false,
                restart_timer: true,
                exited: true,
            };
        }
        // Partial ACK: --pipe_ once more, newtimer().
        self.pipe -= 1;
        AckVerdict {
            grow: false,
            restart_timer: true,
            exited: false,
        }
    }

    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
    /// Sack1TcpAgent::timeout(): `fastrecov_ = FALSE`, `timeout_ = TRUE`, scoreboard cleared.
    fn after_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.clear(s.snd_una);
        self.after_timeout = true;
        self.hold_sends = false;
    }

    /// send_much(): outside recovery the window rule (the scoreboard is empty there); in
    /// recovery while `pipe_ < int(cwnd_)`, GetNextRetran() first, else new data within
    /// `highest_ack_ + wnd_`.
    #[inline]
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        self.align(s.snd_una);
        if !s.in_recovery {
            return s.next_in_window();
        }
        if self.hold_sends || self.pipe >= s.cwnd.floor() as i64 {
            return None;
        }
        let wnd_end = s.snd_una + u64::from(s.max_window);
        let rexmit = (s.snd_una..self.board.high_sacked())
            .find(|&q| !self.board.is_sacked(q) && !self.is_retran(q));
        if let Some(q) = rexmit {
            if q >= wnd_end {
                return None;
            }
            self.mark_retran(q);
            self.pipe += 1;
            return Some(q);
        }
        if s.snd_max < wnd_end && s.snd_max < s.limit {
            let q = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            self.pipe += 1;
            return Some(q);
        }
        None
    }
}
