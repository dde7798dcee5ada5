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
    /// Retransmissions found lost, to send again first (out of the pipe meanwhile).
    lost_again: Vec<u64>,
    /// The same, not yet reported to the sender's accounting (`Recovery::take_relost`).
    relost: Vec<u64>,
}

impl Sack {
    /// RFC 6675 with Linux's detection of lost retransmissions.
    pub fn linux() -> Self {
        Self {
            detect_lost_retransmissions: true,
            ..Self::default()
        }
    }

    fn retransmitted(&mut self, q: u64, s: &SenderState) {
        if self.detect_lost_retransmissions {
            self.rexmits.push_back((q, s.snd_max));
        }
    }

    fn forget_retransmissions(&mut self) {
        self.rexmits.clear();
        self.lost_again.clear();
    }

    /// [`Recovery::on_sack_blocks`] of an ACK with blocks, calling `new` for what they newly
    /// SACK (see `SackedRuns::mark_reporting`).
    #[inline(never)]
    fn mark_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)], new: impl FnMut(u64, u64)) {
        self.board.mark_reporting(s, blocks, new);
        // In fast recovery, and after a timeout while its retransmissions are out (Linux's
        // TCP_CA_Loss).
        if !self.detect_lost_retransmissions || self.rexmits.is_empty() {
            return;
        }
        // A retransmission whose later-sent segments are SACKed while it is not was lost.
        let high = self.board.high_sacked();
        while let Some(&(q, mark)) = self.rexmits.front() {
            if mark >= high {
                break;
            }
            self.rexmits.pop_front();
            if q >= s.snd_una && !self.board.is_sacked(q) {
                self.lost_again.push(q);
                self.relost.push(q);
            }
        }
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
        self.board.kth_highest(s.dupthresh, s.snd_una)
    }

    /// §4 SetPipe: segments believed to be in the network, counted over the runs of SACKed
    /// segments rather than segment by segment.
    #[cfg(test)]
    fn pipe(&self, s: &SenderState) -> u64 {
        self.pipe_with(s, self.lost_limit(s))
    }

    /// [`Sack::pipe`] given `lost_limit(s)`, which NextSeg needs too.
    fn pipe_with(&self, s: &SenderState, lost_limit: Option<u64>) -> u64 {
        let (una, max) = (s.snd_una, s.snd_max);
        // (a) not SACKed and not lost (fewer than DupThresh SACKed segments above it, never
        // with DupThresh 0): the original still in flight. Above the lost limit, the
        // DupThresh-th highest SACKed segment, exactly DupThresh segments are SACKed.
        let mut pipe = match (s.dupthresh, lost_limit) {
            (0, _) => 0,
            (k, Some(limit)) => (max - limit) - u64::from(k),
            (_, None) => (max - una) - self.board.sacked_in(una, max),
        };
        // (b) not SACKed, retransmitted in this recovery (at or below HighRxt) and not found
        // lost since: near snd_una, counted from the lowest run up.
        if let Some(h) = self.high_rxt {
            let to = (h + 1).min(max);
            if to > una {
                pipe += (to - una) - self.board.sacked_in_from_below(una, to);
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
            if s.dupthresh > 0 && !self.is_lost(q, s.dupthresh) {
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
        self.forget_retransmissions();
        self.retransmitted(s.snd_una, s);
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
            self.forget_retransmissions();
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
        self.board
            .kth_highest(s.dupthresh, s.snd_una.max(self.board.base()))
            .unwrap_or(0)
    }

    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
    fn after_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.high_rxt = None;
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

    #[inline]
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        self.board.align(s.snd_una);
        if !s.in_recovery && s.ca_state != CaState::Loss && s.snd_nxt >= s.snd_max {
            // New data in the window: what the general path below does in this state, kept
            // small enough to be inlined into the sender's loop (twice per segment sent).
            return s.next_in_window();
        }
        self.next_segment_general(s)
    }
}

impl Sack {
    fn next_segment_general(&mut self, s: &mut SenderState) -> Option<u64> {
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
            self.high_rxt = Some(first);
            self.retransmitted(first, s);
            return Some(first);
        }
        // Rule 2: new data, within the receiver's window.
        if s.snd_max < s.limit && s.snd_max < s.snd_una + u64::from(s.max_window) {
            let q = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            return Some(q);
        }
        // Rule 3: any unSACKed segment above HighRxt below the highest SACKed one.
        if first < high_sacked {
            self.high_rxt = Some(first);
            self.retransmitted(first, s);
            return Some(first);
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

#[cfg(test)]
mod pipe_tests {
    use super::*;
    use crate::rng::{Rng, Stream};

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
            };
            for _ in 0..400 {
                let span = s.snd_max - s.snd_una + 2;
                let blocks: Vec<(u64, u64)> = (0..rng.next_u64() % 4)
                    .map(|_| {
                        let a = s.snd_una + 1 + rng.next_u64() % span;
                        (a, a + 1 + rng.next_u64() % 5)
                    })
                    .collect();
                r.on_sack_blocks(&s, &blocks);
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
        use crate::tcp::rate::SendLog;
        use crate::time::Time;
        let (mut walk, mut fed) = (SendLog::new(64, true), SendLog::new(64, true));
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
