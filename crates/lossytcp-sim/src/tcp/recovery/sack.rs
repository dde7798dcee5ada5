//! SACK-based loss recovery, RFC 6675, in segments.
//!
//! The scoreboard covers `[snd_una, snd_max)`. In recovery, sending is governed by `pipe`
//! (§4 SetPipe) against cwnd, and what to send by NextSeg (§4); the optional rescue
//! retransmission (NextSeg rule 4) is not implemented. After a timeout the scoreboard is kept
//! and go-back-N skips SACKed segments (§5.1). ns-2's `Agent/TCP/Sack1` is `sack1.rs`.
//!
//! RFC 6675 finds a lost retransmission only by the timer. Linux finds it from the SACK
//! blocks (`tcp_mark_lost_retrans()` before RACK, RFC 8985's time order since): a
//! retransmission is lost once a segment sent after it is SACKed while it is not. With that
//! detection on (`Sack::linux()`, CUBIC's and BBR's recovery, as Linux pairs them) such a
//! segment leaves the pipe and is sent again before anything else; the `sack` variant keeps
//! RFC 6675 alone.

use std::collections::VecDeque;

use super::scoreboard::SackedRuns;
use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::{CaState, LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Debug, Default)]
pub struct Sack {
    board: SackedRuns,
    /// Highest segment retransmitted in this recovery (HighRxt), if any.
    high_rxt: Option<u64>,
    recovery_point: u64,
    /// Detect lost retransmissions from the SACK blocks (see the module doc).
    detect_lost_retransmissions: bool,
    /// This recovery's retransmissions in flight, in the order sent, each with snd_max when
    /// it left (Linux's `ack_seq`): a SACKed segment at or above it was sent after it.
    rexmits: VecDeque<(u64, u64)>,
    /// The first of them's mark (u64::MAX with none; 0 until the first ACK with blocks):
    /// the blocks of an ACK that SACK nothing at or above it find no retransmission lost.
    rexmits_mark: u64,
    /// Retransmissions found lost, to send again first (out of the pipe meanwhile).
    lost_again: Vec<u64>,
    /// The same, not yet reported to the sender's accounting (`Recovery::take_relost`).
    relost: Vec<u64>,
    /// RFC 6937's rate reduction in recovery (see [`Sack::with_prr`]).
    prr_on: bool,
    prr: Prr,
    /// RACK's verdicts decide (see [`Sack::with_rack`]).
    rack: bool,
    /// Every segment below this one not SACKed and not retransmitted since was marked lost
    /// by RACK (`Recovery::rack_lost`).
    rack_upto: u64,
    /// What the last NextSeg in recovery knew when it sent new data (see
    /// [`Sack::after_new_data`]).
    new_data: Option<NewDataMemo>,
    /// The ACK being processed sends no retransmission (`Recovery::hold_retransmissions`):
    /// NextSeg's rules 1 and 3 and the lost retransmissions wait; rule 2, new data, does not.
    held: bool,
    /// This ACK's blocks found a retransmission lost (PRR's, cleared with its state on
    /// entering a recovery; beside the other flags rather than in [`Prr`], where it took a
    /// word of its own).
    prr_relost_now: bool,
    /// With RACK: HighRxt of the recovery that ended (or was undone), whose retransmissions
    /// may still be in flight. Linux marks a retransmission on the segment
    /// (`TCPCB_SACKED_RETRANS`), not on the episode: it outlives the recovery, and
    /// `tcp_xmit_retransmit_queue()` sends again only segments marked lost and not
    /// retransmitted since. A recovery that starts while they are in flight (RACK starts one
    /// as soon as the last ends if a segment is still marked lost, `tcp_time_to_recover()`)
    /// takes this HighRxt up ([`Recovery::enter`]) instead of retransmitting them again.
    /// Kept as HighRxt + 1, 0 for none (the plugin's size stays within the recovery enum's
    /// bound).
    rxt_carry: u64,
}

/// What a segment of new data adds to SetPipe: one, but nothing with DupThresh 0, where
/// (a) counts no original (see [`Sack::pipe_with`]).
fn new_in_pipe(s: &SenderState) -> u64 {
    u64::from(s.dupthresh > 0)
}

/// [`SenderState::next_in_window`] for SACK's open state, with cwnd converted to an
/// integer through i64: one instruction and a saturation test instead of the f64 -> u64
/// conversion's two ranges. The same window for every cwnd: NaN gives 0 either way, a
/// negative cwnd gives a negative i64 that the clamp at 0 takes to 0 (u64's `as`
/// saturates it to 0), and a cwnd at or above 2^63 saturates to i64::MAX, above
/// `max_window` as u64's value is. Only here (twice per segment a SACK sender sends
/// outside a recovery): the shared `usable_window` runs for NewReno too, on every segment,
/// and the bench counts what BBR saves against 1.3 times what NewReno saves.
#[inline(always)]
fn next_in_window_open(s: &mut SenderState) -> Option<u64> {
    let floor = (s.cwnd as i64).max(0) as u64;
    let window = floor.max(s.min_usable_window).min(u64::from(s.max_window));
    debug_assert_eq!(window, s.usable_window());
    s.next_in(window)
}

/// NextSeg's state after it sent new data (rule 2): the scoreboard's generation and growth
/// of its top run, snd_una (together they stand for the runs), snd_max then, and the pipe
/// with that segment. HighRxt and the lost retransmissions stand while it is kept: every
/// change of either drops it (see [`Sack::after_new_data`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NewDataMemo {
    generation: u64,
    top_grown: u64,
    snd_una: u64,
    snd_max: u64,
    pipe: u64,
    /// HighRxt then (for the debug check that it stands).
    #[cfg(debug_assertions)]
    high_rxt: Option<u64>,
}

/// RFC 6937 PRR's state, Linux's `tcp_sock` fields of the same names.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    /// cwnd when recovery started (RecoverFS in RFC 6937; Linux takes cwnd).
    prior_cwnd: u64,
    /// Segments delivered (cumulatively ACKed or newly SACKed) since then.
    delivered: u64,
    /// Segments sent since then, retransmissions and new data.
    out: u64,
    /// Segments this ACK's blocks newly SACKed, until the ACK's duplicate or new ACK
    /// processing takes them.
    sacked_now: u64,
    /// Below this every unSACKed segment was already counted lost (Linux's `lost_out`):
    /// what IsLost newly covers on an ACK is its `newly_lost`.
    lost_upto: u64,
}

impl Sack {
    /// RFC 6675 with Linux's detection of lost retransmissions.
    pub fn linux() -> Self {
        Self {
            detect_lost_retransmissions: true,
            ..Self::default()
        }
    }

    /// With RFC 6937's Proportional Rate Reduction in fast recovery, as Linux 6.x's
    /// tcp_cwnd_reduction(): entry keeps cwnd (only ssthresh is cut) and every ACK that
    /// delivers sets cwnd = pipe + sndcnt ([`Sack::prr_reduce`]); the exit sets cwnd =
    /// ssthresh (tcp_end_cwnd_reduction()). Without it cwnd = ssthresh from entry on (RFC
    /// 6675 §5 step 4.2).
    pub fn with_prr(mut self, on: bool) -> Self {
        self.prr_on = on;
        self
    }

    /// With RACK's loss detection (the sender's `rack`, RFC 8985 §6, Linux 6.x): the
    /// segments it marks lost count as lost beside those RFC 6675's IsLost finds (which
    /// RACK's window of zero in recovery, and once DupThresh segments are SACKed, always
    /// covers when nothing was reordered), a retransmission it marks lost goes again first,
    /// and recovery starts once a loss is proven rather than on DupThresh duplicate ACKs
    /// (Linux's `tcp_time_to_recover()` without the `!tcp_is_rack()` rule). Its own
    /// detection of lost retransmissions ([`Sack::linux`]) gives way to RACK's, as Linux's
    /// `tcp_mark_lost_retrans()` did.
    pub fn with_rack(mut self, on: bool) -> Self {
        self.rack = on;
        if on {
            self.detect_lost_retransmissions = false;
        }
        self
    }

    /// tcp_cwnd_reduction() on an ACK in recovery that delivered `delivered` segments
    /// (RFC 6937 §3's per-ACK step, with Linux's choice of the slow-start reduction bound,
    /// PRR-SSRB): `una_advanced`, the ACK moved snd_una. The pipe is RFC 6675's, Linux's
    /// tcp_packets_in_flight(), after the ACK marked its losses.
    #[inline(never)]
    fn prr_reduce(&mut self, s: &mut SenderState, delivered: u64, una_advanced: bool) {
        let lost_limit = self.lost_limit(s);
        let newly_lost = self.prr_newly_lost(s, lost_limit);
        let p = &mut self.prr;
        if delivered == 0 || p.prior_cwnd == 0 {
            return;
        }
        p.delivered += delivered;
        let pipe = self.pipe_with(s, lost_limit) as i64;
        let p = &mut self.prr;
        // Linux's snd_ssthresh is a whole number of segments.
        let ssthresh = s.ssthresh.max(0.0) as u64;
        let delta = ssthresh as i64 - pipe;
        let sndcnt = if delta < 0 {
            // §3: the pipe above ssthresh: send ssthresh/RecoverFS of what was delivered,
            // rounded up, less what was sent.
            let due = (ssthresh * p.delivered).div_ceil(p.prior_cwnd);
            due as i64 - p.out as i64
        } else {
            // PRR-SSRB: back up to ssthresh, by slow start (at most what was delivered and
            // not yet matched by a send, at least this ACK's delivery), one more on an ACK
            // that advances snd_una without a new loss.
            let mut n = (p.delivered as i64 - p.out as i64).max(delivered as i64);
            if una_advanced && !newly_lost {
                n += 1;
            }
            n.min(delta)
        };
        // "Force a fast retransmit upon entering fast recovery".
        let sndcnt = sndcnt.max(i64::from(p.out == 0));
        s.cwnd = (pipe + sndcnt) as f64;
    }

    /// Whether this ACK found a segment lost that was not before (Linux's `newly_lost`,
    /// `rs->losses`): IsLost reaching an unSACKed segment, or a retransmission found lost.
    fn prr_newly_lost(&mut self, s: &SenderState, lost_limit: Option<u64>) -> bool {
        let from = self.prr.lost_upto.max(s.snd_una);
        let to = lost_limit.unwrap_or(0);
        let mut newly = std::mem::take(&mut self.prr_relost_now);
        if to > from {
            newly |= self.board.sacked_in(from, to) < to - from;
            self.prr.lost_upto = to;
        }
        newly
    }

    /// The segments this ACK's blocks newly SACKed, taken once.
    fn take_sacked_now(&mut self) -> u64 {
        std::mem::take(&mut self.prr.sacked_now)
    }

    /// HighRxt, and the board's mark one above it for SetPipe's count of the segments
    /// retransmitted ([`Sack::pipe_with`]).
    fn set_high_rxt(&mut self, h: Option<u64>) {
        self.high_rxt = h;
        self.board.set_mark(h.map_or(0, |h| h + 1));
    }

    fn retransmitted(&mut self, q: u64, s: &SenderState) {
        if self.detect_lost_retransmissions {
            self.rexmits.push_back((q, s.snd_max));
            self.rexmits_mark = self.rexmits_mark.min(s.snd_max);
        }
    }

    fn forget_retransmissions(&mut self) {
        self.rexmits.clear();
        self.rexmits_mark = u64::MAX;
        self.lost_again.clear();
    }

    /// [`Recovery::on_sack_blocks`] of an ACK with blocks, calling `new` for what they newly
    /// SACK (see `SackedRuns::mark_reporting`). Most ACKs of a recovery only grow the top
    /// run of SACKed segments below the first retransmission's mark (so find no
    /// retransmission lost): answered here, with few registers, the rest out of line.
    /// (Two thirds of those ACKs carry one block: that case here, in few enough registers
    /// to need none saved, the rest in `mark_blocks_more`.)
    #[inline(never)]
    fn mark_blocks(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        mut new: impl FnMut(u64, u64),
    ) {
        if let [_] = blocks {
            if self.grew_top(s, blocks, &mut new) {
                return;
            }
        }
        self.mark_blocks_more(s, blocks, new);
    }

    /// The top run's growth ([`SackedRuns::grow_top`]) if it takes the blocks: reported to
    /// `new` and to PRR, and true.
    #[inline(always)]
    fn grew_top(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        new: &mut impl FnMut(u64, u64),
    ) -> bool {
        let Some((a, b)) = self.board.grow_top(s, blocks, self.rexmits_mark) else {
            return false;
        };
        if self.prr_on {
            self.prr.sacked_now = b - a;
        }
        new(a, b);
        true
    }

    /// [`Sack::mark_blocks`] of more than one block, or of one the top run's growth does
    /// not take.
    #[inline(never)]
    fn mark_blocks_more(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        mut new: impl FnMut(u64, u64),
    ) {
        // (A single block gets here after the top run's growth refused it: not offered again.)
        if blocks.len() > 1 && self.grew_top(s, blocks, &mut new) {
            return;
        }
        self.mark_blocks_general(s, blocks, new);
    }

    /// [`Sack::mark_blocks`] by the general merge.
    #[inline(never)]
    fn mark_blocks_general(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        mut new: impl FnMut(u64, u64),
    ) {
        if self.prr_on {
            let mut n = 0;
            self.board.mark_reporting(s, blocks, |a, b| {
                n += b - a;
                new(a, b);
            });
            self.prr.sacked_now = n;
        } else {
            self.board.mark_reporting(s, blocks, new);
        }
        // In fast recovery, and after a timeout while its retransmissions are out (Linux's
        // TCP_CA_Loss). A retransmission whose later-sent segments are SACKed while it is
        // not was lost.
        let high = self.board.high_sacked();
        if high <= self.rexmits_mark {
            return;
        }
        while let Some(&(q, mark)) = self.rexmits.front() {
            if mark >= high {
                break;
            }
            self.rexmits.pop_front();
            if q >= s.snd_una && !self.board.is_sacked(q) {
                self.lost_again.push(q);
                self.relost.push(q);
                self.prr_relost_now = true;
                // It goes again first: not NextSeg's remembered new data.
                self.new_data = None;
            }
        }
        self.rexmits_mark = self.rexmits.front().map_or(u64::MAX, |r| r.1);
    }

    /// After a timeout, a go-back-N retransmission found lost goes again, within the window
    /// (Linux retransmits what it marks lost in TCP_CA_Loss too).
    fn again_after_timeout(&mut self, s: &mut SenderState) -> Option<u64> {
        if s.ca_state != CaState::Loss || self.lost_again.is_empty() {
            return None;
        }
        if s.snd_nxt - s.snd_una >= s.usable_window() {
            return None;
        }
        while !self.lost_again.is_empty() {
            let q = self.lost_again.remove(0);
            if q >= s.snd_una && q < s.snd_nxt && !self.board.is_sacked(q) {
                self.retransmitted(q, s);
                return Some(q);
            }
        }
        None
    }

    /// §4 IsLost: at least DupThresh SACKed segments above `seq`.
    fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        self.board.kth_highest(dupthresh, seq + 1).is_some()
    }

    /// The segments at or above `snd_una` for which §4 IsLost holds are those below this
    /// (the DupThresh-th highest SACKed segment), if any.
    fn lost_limit(&self, s: &SenderState) -> Option<u64> {
        let limit = self.is_lost_limit(s);
        if self.rack_upto > s.snd_una {
            return Some(limit.map_or(self.rack_upto, |l| l.max(self.rack_upto)));
        }
        limit
    }

    /// RFC 6675's IsLost alone: the DupThresh-th highest SACKed segment at or above snd_una
    /// (the board keeps it, counting from its base, which follows snd_una).
    #[inline]
    fn is_lost_limit(&self, s: &SenderState) -> Option<u64> {
        let limit = self.board.lost_limit().filter(|&l| l >= s.snd_una);
        debug_assert_eq!(
            limit,
            self.board
                .kth_highest(s.dupthresh, s.snd_una.max(self.board.base()))
        );
        limit
    }

    /// §4 SetPipe: segments believed to be in the network, counted over the runs of SACKed
    /// segments rather than segment by segment.
    #[cfg(test)]
    fn pipe(&self, s: &SenderState) -> u64 {
        self.pipe_with(s, self.lost_limit(s))
    }

    /// [`Sack::pipe`] given `lost_limit(s)`, which NextSeg needs too. (Inlined into NextSeg,
    /// as before PRR called it as well.)
    #[inline(always)]
    fn pipe_with(&self, s: &SenderState, lost_limit: Option<u64>) -> u64 {
        let (una, max) = (s.snd_una, s.snd_max);
        // (a) not SACKed and not lost (fewer than DupThresh SACKed segments above it, never
        // with DupThresh 0): the original still in flight. Above the lost limit, the
        // DupThresh-th highest SACKed segment, exactly DupThresh segments are SACKed.
        let mut pipe = match (s.dupthresh, lost_limit) {
            (0, _) => 0,
            // (RACK's limit may lie lower, with more SACKed segments above it.)
            (_, Some(limit)) if self.rack => (max - limit) - self.board.sacked_in(limit, max),
            (k, Some(limit)) => (max - limit) - u64::from(k),
            (_, None) => (max - una) - self.board.sacked_in(una, max),
        };
        // (b) not SACKed, retransmitted in this recovery (at or below HighRxt) and not found
        // lost since: the board counts the SACKed segments below HighRxt + 1, its mark (none
        // lies at or above snd_max), from its base, which every caller aligned to snd_una.
        if let Some(h) = self.high_rxt {
            let to = (h + 1).min(max);
            if to > una {
                debug_assert_eq!(self.board.base(), una);
                pipe += (to - una) - self.board.sacked_below_mark();
                for (i, &q) in self.lost_again.iter().enumerate() {
                    if q >= una
                        && q < to
                        && !self.lost_again[..i].contains(&q)
                        && !self.board.is_sacked(q)
                    {
                        pipe -= 1;
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        debug_assert_eq!(pipe, self.pipe_by_definition(s));
        pipe
    }

    /// §4 SetPipe as written (the check of [`Sack::pipe_with`]).
    #[cfg(any(test, debug_assertions))]
    fn pipe_by_definition(&self, s: &SenderState) -> u64 {
        let (una, max) = (s.snd_una, s.snd_max);
        let mut pipe = 0;
        for q in una..max {
            if self.board.is_sacked(q) {
                continue;
            }
            let rack_lost = self.rack && q < self.rack_upto;
            if s.dupthresh > 0 && !self.is_lost(q, s.dupthresh) && !rack_lost {
                pipe += 1;
            }
            if self.high_rxt.is_some_and(|h| q <= h) && !self.lost_again.contains(&q) {
                pipe += 1;
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
        // Most ACKs of a path that loses little carry no blocks: nothing to mark (the board
        // aligns to snd_una at its next use) and no retransmission found lost (HighSACKed
        // stands, and every retransmission sent since left with snd_max at or above it).
        if !blocks.is_empty() {
            self.mark_blocks(s, blocks, |_, _| {});
        }
    }

    /// The runs know what a block newly SACKs: they are the scoreboard, in segments.
    fn reports_sack_news(&self) -> bool {
        true
    }

    fn on_sack_blocks_news(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        news: &mut Vec<(u64, u64)>,
    ) {
        if !blocks.is_empty() {
            self.mark_blocks(s, blocks, |a, b| news.push((a, b)));
        }
    }

    #[inline]
    fn sacked_runs(&self) -> &[(u64, u64)] {
        self.board.runs()
    }

    #[inline]
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        self.board.align(s.snd_una);
        // Most duplicate ACKs of a lossy path arrive in a recovery, where without PRR they
        // change nothing: no call for them.
        if s.in_recovery && !self.prr_on {
            return DupAck::Nothing;
        }
        self.on_dupack_general(s)
    }

    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        // (Taken up first: PRR's pipe counts those retransmissions in flight.)
        let carried = self.rack && self.take_up_retransmissions_in_flight(s);
        if self.prr_on {
            // tcp_init_cwnd_reduction(): ssthresh is cut, cwnd kept as prior_cwnd until
            // this ACK's reduction, which counts the segments it SACKed (and forces the
            // fast retransmission out: nothing sent yet).
            self.prr = Prr {
                prior_cwnd: s.cwnd.max(0.0) as u64,
                sacked_now: self.prr.sacked_now,
                ..Prr::default()
            };
            self.prr_relost_now = false;
            if let Some(c) = cut {
                s.ssthresh = c.ssthresh;
            }
            let n = self.take_sacked_now();
            self.prr_reduce(s, n, false);
            self.prr.out = 1;
        } else if let Some(c) = cut {
            // §5 step 4.2: ssthresh and cwnd from the cut (RFC 5681: cwnd = ssthresh).
            s.take(c);
        }
        s.note_loss(LossKind::FastRetransmit);
        s.in_recovery = true;
        self.recovery_point = s.snd_max;
        self.new_data = None;
        if carried {
            // snd_una goes now only if it was found lost again and not yet resent (the
            // fast retransmission); if its retransmission is in flight nothing is forced
            // out, and PRR's first send is still to come (`prr_out` 0).
            if let Some(i) = self.lost_again.iter().position(|&q| q == s.snd_una) {
                self.lost_again.remove(i);
                s.retransmit_now.push(s.snd_una);
            } else if self.prr_on {
                self.prr.out = 0;
            }
            return;
        }
        // (4.3): retransmit the first segment presumed dropped, outside the pipe check.
        s.retransmit_now.push(s.snd_una);
        self.set_high_rxt(Some(s.snd_una));
        self.forget_retransmissions();
        self.retransmitted(s.snd_una, s);
    }

    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, newly: u64) -> AckVerdict {
        if !s.in_recovery {
            self.board.align(s.snd_una);
            return AckVerdict::NORMAL;
        }
        // (The verdict built here: its constant parts stay known to the inlined caller.)
        let exited = self.on_new_ack_in_recovery(s, newly);
        AckVerdict {
            grow: false,
            restart_timer: true,
            exited,
        }
    }

    /// §4 IsLost holds for every segment with DupThresh SACKed segments above it: below the
    /// DupThresh-th highest SACKed segment. That one lies in the top run of SACKed segments
    /// once the run holds DupThresh: then the run's start, as nothing between is left to
    /// mark lost (in a recovery each ACK moves the limit up the growing top run, and the
    /// sender would look at the segment it passed, SACKed, on every one).
    fn lost_below(&self, s: &SenderState) -> u64 {
        let limit = match (self.is_lost_limit(s), self.board.runs().last()) {
            (Some(l), Some(&(top_start, _))) => l.min(top_start),
            (l, _) => l.unwrap_or(0),
        };
        // (rack_upto stays 0 without RACK: no test on a sampling sender's every ACK.)
        limit.max(self.rack_upto)
    }

    #[cold]
    fn rack_lost(&mut self, s: &SenderState, seq: u64, retransmission: bool) {
        if seq < s.snd_una || seq >= s.snd_max || self.board.is_sacked(seq) {
            return;
        }
        // The pipe NextSeg memoised counts this segment in flight (a verdict of the
        // reordering timer changes no scoreboard generation).
        self.new_data = None;
        if retransmission && (s.in_recovery || s.ca_state == CaState::Loss) {
            // Sent again first, out of the pipe meanwhile (as a lost retransmission of
            // Sack::linux()'s own detection).
            self.lost_again.push(seq);
            self.relost.push(seq);
            self.prr_relost_now = true;
        } else if retransmission && seq < self.rxt_carry {
            // A retransmission of the recovery that ended, found lost in the open state: the
            // same, and the loss is proven (Linux's lost_out), which starts the next.
            self.lost_again.push(seq);
            self.relost.push(seq);
            self.prr_relost_now = true;
            self.rack_upto = self.rack_upto.max(seq + 1);
        } else {
            self.rack_upto = self.rack_upto.max(seq + 1);
        }
    }

    #[cold]
    fn forget_rack_marks(&mut self) {
        self.rack_upto = 0;
        self.new_data = None;
    }

    fn hold_retransmissions(&mut self, on: bool) {
        self.held = on;
    }

    #[cold]
    fn on_dupthresh_changed(&mut self, s: &SenderState) {
        self.board.relimit(s.dupthresh);
        self.new_data = None;
    }

    fn loss_proven(&self, s: &SenderState) -> bool {
        self.rack && self.rack_upto > s.snd_una
    }

    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
    fn after_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        // (A timeout marks every retransmission in flight lost: none is carried.)
        self.rxt_carry = 0;
        self.set_high_rxt(None);
        self.new_data = None;
        self.forget_retransmissions();
    }

    #[inline]
    fn take_relost(&mut self, out: &mut Vec<u64>) {
        // Almost always empty: no call into Vec::append's copy.
        if !self.relost.is_empty() {
            out.append(&mut self.relost);
        }
    }

    fn is_sacked(&self, s: &SenderState, seq: u64) -> Option<bool> {
        Some(seq >= s.snd_una && self.board.is_sacked(seq))
    }

    /// RFC 6675 (4.2) halves "FlightSize", which RFC 5681 defines, before SACK, as all that
    /// is not cumulatively acknowledged. Read so, a loss found while SACKed data sits above an
    /// older hole (a recovery that starts as the last one ends, a timeout during one) sets
    /// ssthresh above cwnd: the "cut" raises the window, the sender overruns the queue again
    /// and the next recovery starts from a larger flight still (a retransmission storm at
    /// 2.5 times the link rate, 0.61 of ns-3's goodput, on 10 Mb/s with a 35-packet DropTail).
    /// The flight is therefore capped at the window that limits sending: the flight itself
    /// whenever the window governs it (and without RFC 3042's limited-transmit segments, which
    /// RFC 5681 §3.2 excludes), cwnd when SACKed data inflates it, as Linux and ns-2 halve
    /// cwnd. (ns-3 halves RFC 6675's pipe, which also excludes the DupThresh SACKed segments
    /// of an ordinary fast retransmit: 16% below Mathis at p = 0.01 with a window of 15.)
    fn flight_size(&self, s: &SenderState) -> u64 {
        s.flight().min(s.usable_window())
    }

    #[inline(always)]
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        if !s.in_recovery && s.ca_state != CaState::Loss && s.snd_nxt >= s.snd_max {
            // New data in the window: what the general path below does in this state, kept
            // small enough to be inlined into the sender's loop (twice per segment sent).
            // (The board is not read: it aligns at its next use.)
            return next_in_window_open(s);
        }
        self.next_segment_general(s)
    }
}

impl Sack {
    /// [`Recovery::on_new_ack`] in recovery (out of the open state's inlined path): whether
    /// the ACK ends it.
    #[inline(never)]
    fn on_new_ack_in_recovery(&mut self, s: &mut SenderState, newly: u64) -> bool {
        // Delivered: the cumulatively ACKed segments not SACKed before (the scoreboard
        // still holds them), and what the blocks newly SACKed.
        let delivered = if self.prr_on {
            let old_una = s.snd_una - newly;
            newly - self.board.sacked_in(old_una, s.snd_una) + self.take_sacked_now()
        } else {
            0
        };
        self.board.align(s.snd_una);
        let exited = s.snd_una >= self.recovery_point;
        if exited {
            // §5.1 exit: recovery ends once RecoveryPoint is acknowledged.
            s.in_recovery = false;
            if self.rack {
                // (Its retransmissions in flight, and those found lost and not yet sent
                // again, are the next recovery's too: see `rxt_carry`.)
                self.rxt_carry = self.high_rxt.map_or(0, |h| h + 1);
            } else {
                self.forget_retransmissions();
            }
            self.set_high_rxt(None);
            self.new_data = None;
            if self.prr_on {
                // RFC 6937 §3 / tcp_end_cwnd_reduction(): the reduction ends at ssthresh.
                s.cwnd = s.ssthresh;
            }
        } else if self.prr_on {
            self.prr_reduce(s, delivered, true);
        }
        exited
    }

    /// [`Recovery::enter`] with RACK while the last recovery's retransmissions (HighRxt
    /// `rxt_carry`) reach snd_una: they stay retransmitted (HighRxt is kept, and so are
    /// those found lost and not yet sent again), as Linux's `tcp_xmit_retransmit_queue()`
    /// skips a segment whose retransmission is in flight (`TCPCB_SACKED_RETRANS`) whatever
    /// the episode; `tcp_enter_recovery()` itself retransmits nothing. False (nothing
    /// done): no such retransmission, the entry of RFC 6675 (4.3).
    #[cold]
    fn take_up_retransmissions_in_flight(&mut self, s: &SenderState) -> bool {
        let carry = std::mem::take(&mut self.rxt_carry);
        let Some(h) = carry.checked_sub(1).filter(|&h| h >= s.snd_una) else {
            return false;
        };
        self.board.align(s.snd_una);
        self.set_high_rxt(Some(h));
        self.new_data = None;
        self.lost_again.retain(|&q| q >= s.snd_una);
        true
    }

    /// [`Recovery::on_dupack`] out of a recovery, or with PRR (the board aligned).
    #[inline(never)]
    fn on_dupack_general(&mut self, s: &mut SenderState) -> DupAck {
        if s.in_recovery && self.prr_on {
            let n = self.take_sacked_now();
            self.prr_reduce(s, n, false);
        }
        // With RACK as Linux: no RFC 6582 guard (a loss right above the last recovery's
        // point starts the next, tcp_fastretrans_alert()), only none during a timeout's.
        let guarded = if self.rack {
            s.ca_state == CaState::Loss
        } else {
            !s.may_start_recovery()
        };
        if s.in_recovery || guarded {
            return DupAck::Nothing;
        }
        // §5 step 4: DupThresh duplicates, or the first unacknowledged segment IsLost; with
        // RACK a loss proven, not the count.
        let lost = self.is_lost(s.snd_una, s.dupthresh) || self.loss_proven(s);
        if !lost && (self.rack || s.dupacks < s.dupthresh) {
            return DupAck::Nothing;
        }
        DupAck::Enter
    }

    /// [`Recovery::next_segment`] in a recovery or after a timeout: in a recovery mostly
    /// answered from what the last call remembered, with few registers, the rest out of
    /// line.
    #[inline(never)]
    fn next_segment_general(&mut self, s: &mut SenderState) -> Option<u64> {
        // (A remembered answer stands only with the same snd_una, to which the board was
        // aligned when it was taken.)
        if s.in_recovery {
            if let Some(q) = self.after_new_data(s) {
                return q;
            }
        }
        self.board.align(s.snd_una);
        self.next_segment_full(s)
    }

    /// [`Sack::next_segment_general`] without a remembered answer.
    #[inline(never)]
    fn next_segment_full(&mut self, s: &mut SenderState) -> Option<u64> {
        if !s.in_recovery {
            if let Some(q) = self.again_after_timeout(s) {
                return Some(q);
            }
            // Go-back-N after a timeout skips what the receiver already holds (§5.1).
            if s.snd_nxt < s.snd_max {
                s.snd_nxt = self.board.next_unsacked(s.snd_nxt).min(s.snd_max);
            }
            let q = s.next_in_window()?;
            if q < s.snd_max && s.ca_state == CaState::Loss {
                self.retransmitted(q, s);
            }
            return Some(q);
        }
        let lost_limit = self.lost_limit(s);
        // floor(cwnd) <= pipe, compared as f64 (pipe + 1 is exact there, and an i64 converts
        // in one instruction): neither f64::floor's libm call on baseline x86-64 nor the
        // saturating f64 -> u64 conversion; NaN and negative windows send nothing either way.
        let pipe = self.pipe_with(s, lost_limit);
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN included
        let window_full = !(s.cwnd >= (pipe + 1) as i64 as f64);
        if window_full {
            return None;
        }
        let high = s.snd_max;
        let q = self.next_in_recovery(s, lost_limit);
        // (Counted with PRR only: a sender without it keeps NextSeg's code as it was.)
        if self.prr_on && q.is_some() {
            self.prr.out += 1;
        }
        // (Not while held: rule 1 was not asked, so the memo's premise does not hold.)
        self.new_data = (q == Some(high) && !self.held).then_some(NewDataMemo {
            generation: self.board.generation(),
            top_grown: self.board.top_grown(),
            snd_una: s.snd_una,
            snd_max: s.snd_max,
            pipe: pipe + new_in_pipe(s),
            #[cfg(debug_assertions)]
            high_rxt: self.high_rxt,
        });
        q
    }

    /// NextSeg in recovery right after one that sent new data, when nothing has changed
    /// since but that send and the growth of the top run of SACKed segments (the same
    /// snd_una and HighRxt, no retransmission found lost; the ACKs of a recovery's flight
    /// above its holes): rule 1 still finds no segment, and the pipe is the last one plus
    /// the segment sent, less the segments the top run grew by. A paced sender asks twice
    /// per wake-up (the burst's segment, then the one pacing holds back), and its ACKs
    /// between wake-ups mostly SACK the next segments above the holes; the full path would
    /// walk the runs again. None: not that case (the full path decides).
    #[inline(always)]
    fn after_new_data(&mut self, s: &mut SenderState) -> Option<Option<u64>> {
        let m = self.new_data?;
        let same = m.generation == self.board.generation()
            && m.snd_una == s.snd_una
            && m.snd_max == s.snd_max;
        if !same {
            return None;
        }
        debug_assert_eq!(self.board.base(), s.snd_una);
        // Not compared: HighRxt moves only where the memo is dropped (entering and leaving
        // a recovery, a timeout) or replaced by none (rules 1 and 3 send a retransmission,
        // below snd_max), and none is kept with a lost retransmission pending (the full
        // path sends those first) or after one is found (`mark_blocks` and `rack_lost`
        // drop it).
        #[cfg(debug_assertions)]
        debug_assert!(m.high_rxt == self.high_rxt && self.lost_again.is_empty());
        // Each segment the top run grew by since moved the lost limit, which lay in that
        // run (it held DupThresh segments, see `SackedRuns::top_grown`), up by one: one
        // original less in flight by SetPipe's (a), (b) unchanged (nothing SACKed below
        // HighRxt + 1, which lies below the run's start). Rule 1 still fails: when it
        // failed, the lowest unSACKed segment above HighRxt lay at or above the lost
        // limit, so above the top run (it is not SACKed); it still does. RACK's limit and
        // DupThresh 0 count otherwise: the full path.
        let grown = self.board.top_grown() - m.top_grown;
        if grown != 0 && (self.rack || s.dupthresh == 0) {
            return None;
        }
        let pipe = m.pipe - grown;
        #[cfg(debug_assertions)]
        {
            let lost_limit = self.lost_limit(s);
            debug_assert_eq!(pipe, self.pipe_with(s, lost_limit));
            let lowest = self.high_rxt.map_or(s.snd_una, |h| h + 1).max(s.snd_una);
            let first = self.board.next_unsacked(lowest);
            debug_assert!(
                first >= self.board.high_sacked() || lost_limit.is_none_or(|l| first >= l),
                "rule 1 would send {first}"
            );
        }
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN included, as the full path
        if !(s.cwnd >= (pipe + 1) as i64 as f64) {
            return Some(None);
        }
        // Rule 2, as `next_in_recovery`; where it fails rule 3 may apply: the full path.
        if !(s.snd_max < s.limit && s.snd_max < s.snd_una + u64::from(s.max_window)) {
            return None;
        }
        let q = s.snd_max;
        s.snd_max += 1;
        s.snd_nxt = s.snd_max;
        if self.prr_on {
            self.prr.out += 1;
        }
        // (In place: the memo's generation and snd_una stay as they are, unwritten.)
        if let Some(memo) = &mut self.new_data {
            memo.snd_max = s.snd_max;
            memo.top_grown = self.board.top_grown();
            memo.pipe = pipe + new_in_pipe(s);
        }
        Some(Some(q))
    }

    /// RFC 6675 NextSeg with the window open, in recovery.
    #[inline(always)]
    fn next_in_recovery(&mut self, s: &mut SenderState, lost_limit: Option<u64>) -> Option<u64> {
        if self.held {
            return self.new_segment(s);
        }
        // A retransmission found lost goes again first (Linux retransmits its lost
        // segments in order, this one among them).
        while !self.lost_again.is_empty() {
            let q = self.lost_again.remove(0);
            if q >= s.snd_una && !self.board.is_sacked(q) {
                self.retransmitted(q, s);
                return Some(q);
            }
        }
        let lowest = self.high_rxt.map_or(s.snd_una, |h| h + 1).max(s.snd_una);
        let high_sacked = self.board.high_sacked();
        // The lowest unSACKed segment above HighRxt, for rules 1 and 3.
        let first = self.board.next_unsacked(lowest);
        // Rule 1: the lowest unSACKed segment above HighRxt that IsLost (below the
        // DupThresh-th highest SACKed segment, itself below HighSACKed).
        if first < high_sacked && lost_limit.is_some_and(|l| first < l) {
            self.set_high_rxt(Some(first));
            self.retransmitted(first, s);
            return Some(first);
        }
        // Rule 2: new data, within the receiver's window.
        if let Some(q) = self.new_segment(s) {
            return Some(q);
        }
        // Rule 3: any unSACKed segment above HighRxt below the highest SACKed one. Not with
        // RACK: Linux 6.x's tcp_xmit_retransmit_queue() sends only segments marked lost.
        if first < high_sacked && !self.rack {
            self.set_high_rxt(Some(first));
            self.retransmitted(first, s);
            return Some(first);
        }
        None
    }

    /// NextSeg's rule 2: a new segment, if the application and the receiver's window have
    /// one.
    #[inline(always)]
    fn new_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        if s.snd_max < s.limit && s.snd_max < s.snd_una + u64::from(s.max_window) {
            let q = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            return Some(q);
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

    /// One ACK to a PRR sender as the sender feeds it (blocks, then the duplicate or new
    /// ACK, entering recovery with `cut` when told to), then what the window releases:
    /// returns cwnd after the ACK and the segments sent.
    fn prr_ack(
        r: &mut Sack,
        s: &mut SenderState,
        ack: u64,
        blocks: &[(u64, u64)],
        cut: Cut,
    ) -> (f64, Vec<u64>) {
        r.on_sack_blocks(s, blocks);
        if ack > s.snd_una {
            let newly = ack - s.snd_una;
            s.snd_una = ack;
            s.dupacks = 0;
            r.on_new_ack(s, newly);
        } else {
            s.dupacks += 1;
            if r.on_dupack(s) == DupAck::Enter {
                r.enter(s, Some(cut));
            }
        }
        let cwnd = s.cwnd;
        let mut sent = std::mem::take(&mut s.retransmit_now);
        while let Some(q) = r.next_segment(s) {
            sent.push(q);
        }
        (cwnd, sent)
    }

    const HALF_OF_20: Cut = Cut {
        ssthresh: 10.0,
        cwnd: 10.0,
    };

    #[test]
    fn prr_sends_half_a_segment_per_ack_down_to_ssthresh_then_one_per_ack() {
        // RFC 6937 section 5's first example: cwnd 20, segment 0 of 0..20 lost, every
        // later segment SACKed by its own ACK; Reno's ssthresh 10. By hand (pipe excludes
        // 0 once IsLost, counts its retransmission): on entry (segment 3 SACKed) pipe 16 >
        // ssthresh, sndcnt = ceil(10 * 1 / 20) - 0 = 1, the retransmission; then ceil(10 *
        // prr_delivered / 20) - prr_out: 0, 1, 0, 1, ... with the pipe down one per two
        // ACKs, until it is 10 at prr_delivered 13 (sndcnt 0, PRR-SSRB's min(delta = 0));
        // from then on (pipe 9, delta 1) one segment per ACK, cwnd 10.
        let mut s = state_with_flight(20);
        let mut r = Sack::default().with_prr(true);
        let mut log = Vec::new();
        for k in 1..20u64 {
            let (cwnd, sent) = prr_ack(&mut r, &mut s, 0, &[(1, k + 1)], HALF_OF_20);
            log.push((cwnd, sent));
        }
        // Before recovery: nothing changes, nothing goes (no limited transmit here).
        assert_eq!(log[0], (20.0, vec![]));
        assert_eq!(log[1], (20.0, vec![]));
        assert_eq!(s.ssthresh, 10.0);
        let after: Vec<(f64, usize)> = log[2..].iter().map(|(c, v)| (*c, v.len())).collect();
        #[rustfmt::skip]
        let by_hand = vec![
            (17.0, 1), (16.0, 0), (16.0, 1), (15.0, 0), (15.0, 1), (14.0, 0), (14.0, 1),
            (13.0, 0), (13.0, 1), (12.0, 0), (12.0, 1), (11.0, 0), (10.0, 0),
            (10.0, 1), (10.0, 1), (10.0, 1), (10.0, 1),
        ];
        assert_eq!(after, by_hand);
        // What went: the retransmission first, then new data from 20 on.
        assert_eq!(log[2].1, vec![0]);
        assert_eq!(log[4].1, vec![20]);
        assert_eq!(r.prr.out, 1 + 5 + 4);
        // The retransmission's ACK covers everything but the new data 20..25: recovery
        // point 20 reached, cwnd = ssthresh (tcp_end_cwnd_reduction()).
        let (cwnd, _) = prr_ack(&mut r, &mut s, 20, &[], HALF_OF_20);
        assert!(!s.in_recovery);
        assert_eq!(cwnd, 10.0);
    }

    /// NextSeg's rule 3 (RFC 6675): with no new data to send, the lowest unSACKed segment
    /// above HighRxt and below HighSACKed goes although it is not lost. Of 0..10 (nothing
    /// more to send), 1-3 and 5 are SACKed: 0 is lost (three SACKed above it) and goes at
    /// entry; 4 is not (one above it) and RACK marked nothing. Linux 6.x sends only segments
    /// marked lost (`tcp_xmit_retransmit_queue()`): with RACK, nothing goes.
    #[test]
    fn rule_3_sends_a_segment_not_lost_only_without_rack() {
        for rack in [false, true] {
            let mut s = state_with_flight(10);
            s.limit = 10;
            let mut r = Sack::default().with_rack(rack);
            r.on_sack_blocks(&s, &[(5, 6), (1, 4)]);
            s.dupacks = 3;
            assert_eq!(r.on_dupack(&mut s), DupAck::Enter);
            r.enter(&mut s, None);
            assert_eq!(s.retransmit_now, [0]);
            let next = r.next_segment(&mut s);
            assert_eq!(next, (!rack).then_some(4), "rack {rack}");
        }
    }

    #[test]
    fn without_prr_the_window_is_ssthresh_from_entry() {
        // The same losses, RFC 6675 alone: cwnd 10 at once, and nothing but the
        // retransmission until the pipe falls below 10 (segment 10 SACKed).
        let mut s = state_with_flight(20);
        let mut r = Sack::default();
        let mut sent = Vec::new();
        for k in 1..20u64 {
            let (cwnd, v) = prr_ack(&mut r, &mut s, 0, &[(1, k + 1)], HALF_OF_20);
            assert_eq!(cwnd, if k < 3 { 20.0 } else { 10.0 });
            sent.push(v.len());
        }
        assert_eq!(
            sent,
            [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
        );
    }

    #[test]
    fn prr_slow_starts_back_to_ssthresh_after_a_burst_of_losses() {
        // 0..11 lost of 0..20, one ACK SACKs 11..20 (9 delivered): pipe 0, below ssthresh
        // 10. PRR-SSRB: sndcnt = min(delta 10, max(9 - 0, 9)) = 9: the retransmission of 0
        // and 1..9. The ACK of 0 (1 delivered, snd_una advances, no new loss): prr_delivered
        // 10, prr_out 9, sndcnt = min(delta 10 - 8, max(1, 1) + 1) = 2: 9 and 10. The ACK
        // of 1: delta 10 - 9 = 1, sndcnt = min(1, max(0, 1) + 1) = 1, new data 20.
        let mut s = state_with_flight(20);
        let mut r = Sack::default().with_prr(true);
        s.dupacks = 2;
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 0, &[(11, 20)], HALF_OF_20);
        assert!(s.in_recovery);
        assert_eq!((cwnd, sent), (9.0, (0..9).collect::<Vec<_>>()));
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 1, &[(11, 20)], HALF_OF_20);
        assert_eq!((cwnd, sent), (10.0, vec![9, 10]));
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 2, &[(11, 20)], HALF_OF_20);
        assert_eq!((cwnd, sent), (10.0, vec![20]));
        // A duplicate ACK that SACKs 20: no +1 (snd_una did not advance); delta 10 - 9.
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 2, &[(11, 21)], HALF_OF_20);
        assert_eq!((cwnd, sent), (10.0, vec![21]));
    }

    #[test]
    fn prr_forces_the_fast_retransmission_and_counts_only_deliveries() {
        // Entry on an ACK that SACKs nothing new (delivered 0): tcp_cwnd_reduction() leaves
        // cwnd as it was, the retransmission still goes (RFC 6675 4.3), and an ACK that
        // delivers nothing changes nothing.
        let mut s = state_with_flight(20);
        let mut r = Sack::default().with_prr(true);
        r.on_sack_blocks(&s, &[(1, 4)]);
        s.dupacks = 2;
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 0, &[(1, 4)], HALF_OF_20);
        assert_eq!(s.ssthresh, 10.0);
        assert_eq!(cwnd, 20.0, "prior_cwnd kept: nothing delivered");
        // The pipe (16 + the retransmission) leaves room under 20: three new segments.
        assert_eq!(sent, vec![0, 20, 21, 22]);
        let (cwnd, sent) = prr_ack(&mut r, &mut s, 0, &[(1, 4)], HALF_OF_20);
        assert_eq!((cwnd, sent), (20.0, vec![]));
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
    fn the_lost_limit_follows_a_changed_dupthresh() {
        // 2-4 and 6-8 SACKed (six): with DupThresh 3 IsLost covers what lies below 6, the
        // third highest; the reordering degree raised to 5 moves it to 3 (the fifth), to 8
        // (more than are SACKed) leaves nothing lost, and back to 3 restores 6. The
        // scoreboard itself does not change, so only the sender's word recomputes it.
        let mut s = state_with_flight(10);
        let mut r = Sack::default();
        r.on_sack_blocks(&s, &[(2, 5), (6, 9)]);
        assert_eq!(r.lost_limit(&s), Some(6));
        for (dupthresh, limit) in [(5, Some(3)), (8, None), (3, Some(6))] {
            s.dupthresh = dupthresh;
            r.on_dupthresh_changed(&s);
            assert_eq!(r.lost_limit(&s), limit, "DupThresh {dupthresh}");
        }
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

#[cfg(test)]
mod pipe_tests {
    use super::*;
    use crate::rng::{Rng, Stream};

    /// `Recovery::lost_below` as defined: below the DupThresh-th highest SACKed segment at
    /// or above snd_una (0 if fewer), or RACK's limit if higher.
    fn lost_below_by_definition(r: &Sack, s: &SenderState) -> u64 {
        let sacked: Vec<u64> = (s.snd_una..s.snd_max)
            .filter(|&q| r.board.is_sacked(q))
            .collect();
        let k = s.dupthresh.max(1) as usize;
        let limit = sacked.len().checked_sub(k).map_or(0, |i| sacked[i]);
        limit.max(r.rack_upto)
    }

    /// SetPipe counted over the runs (with NextSeg's lost limit) equals the definition
    /// segment by segment, through random SACK blocks, cumulative ACKs, retransmissions
    /// (found lost again, with Linux's detection) and new data.
    #[test]
    fn pipe_over_runs_equals_the_definition() {
        let (mut checked_in_recovery, mut relost) = (0, 0);
        for seed in 0..30 {
            let mut rng = Rng::derive(seed, Stream::Flow, 0);
            let mut s = SenderState::new(1, 1000, 1 + (seed % 4) as u32, u64::MAX);
            s.snd_max = 40;
            s.snd_nxt = 40;
            s.cwnd = 30.0;
            let mut r = if seed % 2 == 0 {
                Sack::linux()
            } else {
                Sack::default()
            }
            .with_rack(seed % 3 == 0);
            for _ in 0..400 {
                let span = s.snd_max - s.snd_una + 2;
                let blocks: Vec<(u64, u64)> = (0..rng.next_u64() % 4)
                    .map(|_| {
                        let a = s.snd_una + 1 + rng.next_u64() % span;
                        (a, a + 1 + rng.next_u64() % 5)
                    })
                    .collect();
                r.on_sack_blocks(&s, &blocks);
                if r.rack && rng.uniform() < 0.2 {
                    // RACK's verdicts: an original, or a retransmission in recovery.
                    let q = s.snd_una + rng.next_u64() % (s.snd_max - s.snd_una + 1);
                    r.rack_lost(&s, q, rng.uniform() < 0.3);
                }
                if rng.uniform() < 0.15 {
                    s.snd_una = (s.snd_una + rng.next_u64() % 4).min(s.snd_max);
                    r.on_new_ack(&mut s, 0);
                } else {
                    s.dupacks += 1;
                    if r.on_dupack(&mut s) == DupAck::Enter {
                        r.enter(&mut s, None);
                        s.retransmit_now.clear();
                    }
                }
                let mut found = Vec::new();
                r.take_relost(&mut found);
                relost += found.len();
                assert_eq!(r.pipe(&s), r.pipe_by_definition(&s));
                // Short of the definition by SACKed segments only.
                let (below, limit) = (r.lost_below(&s), lost_below_by_definition(&r, &s));
                assert!(below <= limit);
                assert!((below.max(s.snd_una)..limit).all(|q| r.board.is_sacked(q)));
                checked_in_recovery += usize::from(r.high_rxt.is_some());
                for _ in 0..rng.next_u64() % 4 {
                    if r.next_segment(&mut s).is_none() {
                        break;
                    }
                    assert_eq!(r.pipe(&s), r.pipe_by_definition(&s));
                }
            }
        }
        assert!(
            checked_in_recovery > 1000 && relost > 50,
            "{checked_in_recovery} {relost}"
        );
    }
}

#[cfg(test)]
mod lost_retransmission_tests {
    use super::*;

    #[test]
    fn a_retransmission_is_lost_once_a_later_sent_segment_is_sacked() {
        // 0..10 out; 0 lost; 1-3 SACKed: recovery, 0 retransmitted when snd_max was 10.
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.snd_max = 10;
        s.snd_nxt = 10;
        s.cwnd = 10.0;
        let mut r = Sack::linux();
        r.on_sack_blocks(&s, &[(1, 4)]);
        s.dupacks = 3;
        assert_eq!(r.on_dupack(&mut s), DupAck::Enter);
        r.enter(
            &mut s,
            Some(Cut {
                ssthresh: 7.0,
                cwnd: 7.0,
            }),
        );
        assert_eq!(s.retransmit_now, vec![0]);
        // New data 10, 11 goes out after it.
        s.retransmit_now.clear();
        s.snd_max = 12;
        s.snd_nxt = 12;
        // SACKs up to 9: sent before the retransmission, says nothing of it.
        r.on_sack_blocks(&s, &[(1, 10)]);
        assert!(r.lost_again.is_empty());
        // Segment 10, sent after it, is SACKed and 0 is not: the retransmission was lost.
        r.on_sack_blocks(&s, &[(1, 11)]);
        assert_eq!(r.lost_again, vec![0]);
        let mut relost = Vec::new();
        r.take_relost(&mut relost);
        assert_eq!(relost, vec![0]);
        // It leaves the pipe and goes again first.
        assert_eq!(r.next_segment(&mut s), Some(0));
        // RFC 6675 alone waits for the timer.
        let mut plain = Sack::default();
        plain.on_sack_blocks(&s, &[(1, 4)]);
        s.in_recovery = false;
        s.recover = None;
        assert_eq!(plain.on_dupack(&mut s), DupAck::Enter);
        plain.enter(
            &mut s,
            Some(Cut {
                ssthresh: 7.0,
                cwnd: 7.0,
            }),
        );
        plain.on_sack_blocks(&s, &[(1, 11)]);
        assert!(plain.lost_again.is_empty());
    }
    #[test]
    fn a_send_log_fed_the_scoreboard_news_delivers_as_its_own_walk_of_the_blocks() {
        // Two send logs of one window with holes, fed the same ACKs (blocks above the ACK, as
        // a packet carries them, that grow, repeat, reorder, overlap and reach past
        // snd_max): one walks the blocks itself, the other delivers what the scoreboard
        // reports newly SACKed. Counts, accounting and samples must agree.
        use crate::packet::MAX_SACK_BLOCKS;
        use crate::rng::{Rng, Stream};
        use crate::tcp::rate::AccountedLog;
        use crate::time::Time;
        let (mut walk, mut fed) = (AccountedLog::new(64), AccountedLog::new(64));
        let mut r = Sack::linux();
        let mut news = Vec::new();
        let mut rng = Rng::derive(7, Stream::Flow, 0);
        let mut rnd = |n: u64| rng.next_u64() % n;
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        for step in 0..3000u64 {
            // Segments of one burst share a send time and delivered count: ties for the
            // sample, which the order of delivery decides.
            let now = Time::from_secs((step / 3) as f64 * 1e-3);
            while s.snd_max < s.snd_una + 60 {
                walk.on_send(s.snd_max, now, false, s.snd_max - s.snd_una);
                fed.on_send(s.snd_max, now, false, s.snd_max - s.snd_una);
                s.snd_max += 1;
            }
            let ack = if rnd(5) == 0 {
                s.snd_una + rnd(10)
            } else {
                s.snd_una
            };
            let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
            let n = rnd(4) as usize;
            for blk in blocks.iter_mut().take(n) {
                let b = ack + rnd(62);
                *blk = (b, b + 1 + rnd(20));
            }
            news.clear();
            r.on_sack_blocks_news(&s, &blocks[..n], &mut news);
            let (mut nw, mut nf) = (0, 0);
            for q in s.snd_una..ack {
                nw += u64::from(walk.on_delivered(q, now, false));
                nf += u64::from(fed.on_delivered(q, now, false));
            }
            nw += walk.on_sack_blocks(&blocks[..n], ack, s.snd_max, now);
            nf += fed.on_sack_news(&news, ack, now);
            assert_eq!(nw, nf, "step {step}");
            assert_eq!(walk.accounting(), fed.accounting(), "step {step}");
            assert_eq!(walk.take_sample(None, now), fed.take_sample(None, now));
            s.snd_una = ack;
            s.snd_nxt = s.snd_max;
            let verdict = r.on_new_ack(&mut s, 0);
            assert!(!verdict.exited);
        }
    }
}
