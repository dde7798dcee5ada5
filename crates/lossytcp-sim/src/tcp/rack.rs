//! RACK: time-based loss detection (RFC 8985 §6) as Linux 6.x runs it
//! (`net/ipv4/tcp_recovery.c`): a segment is lost once a segment sent after it has been
//! delivered (cumulatively ACKed or SACKed) and more than the most recent RTT plus a
//! reordering window has passed since it left. It applies to retransmissions as to
//! originals, so a lost retransmission and a hole at the tail are found without the
//! retransmission timer.
//!
//! What Linux keeps per segment (its `tsorted_sent_queue`, the skb's send time and its
//! `TCPCB_*` bits) is kept here, so that the recovery plugin is told only the verdicts: the
//! sender's send log has every transmission's time, which RACK takes up when it next
//! decides ([`Rack::sync`]: nothing is added to the per-segment send path), the sender feeds
//! every ACK ([`Rack::on_ack`]), and hands the segments marked lost ([`Rack::take_marked`])
//! to its recovery plugin (`Recovery::rack_lost`). Times are Linux's: microseconds for the RTT, the reordering
//! window and what remains of it, and the reordering timer in whole jiffies of the one Linux
//! clock (`linux_clock`, HZ 250).
//!
//! Not modelled: the reordering window's growth on DSACKs (`tcp_rack_update_reo_wnd()`,
//! `reo_wnd_steps` stays 1; Linux counts a DSACK towards it only once reordering was seen,
//! which a FIFO path that drops never shows), and the reordering degree
//! (`tp->reordering`) that reordering raises: the dupthresh of the window's rule stays the
//! configured one.

use std::collections::VecDeque;

use super::linux_clock;
use super::rate::SendLog;
use crate::time::{Dur, Time};
/// Linux's `TCP_TIMEOUT_MIN_US` (2 ms), added to the reordering timeout before it is
/// rounded up to jiffies (`tcp_rack_mark_lost()`).
const TIMEOUT_MIN_US: u64 = 2_000;

/// What RACK knows of one outstanding segment (Linux's skb state).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The latest transmission's time (`skb->skb_mstamp_ns`).
    sent_at: Time,
    /// Sent more than once (`TCPCB_EVER_RETRANS`).
    ever_retransmitted: bool,
    /// A retransmission is in flight (`TCPCB_SACKED_RETRANS`).
    retransmission_out: bool,
    /// Marked lost (`TCPCB_LOST`), by RACK or by a timeout.
    lost: bool,
    /// SACKed (`TCPCB_SACKED_ACKED`).
    sacked: bool,
    /// Sent at all (a slot past snd_max is not).
    sent: bool,
}

/// A transmission found by [`Rack::sync`]: the segment, when, and whether it was a
/// retransmission.
type Found = (u64, Time, bool);

/// RACK's state (Linux's `tp->rack` and the per-segment bits it reads).
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// `slots[i]` is segment `base + i`; `base` follows snd_una.
    slots: VecDeque<Slot>,
    base: u64,
    /// Transmissions in the order sent (Linux's `tsorted_sent_queue`): a segment and its
    /// send time; an entry is stale once the segment is delivered or sent again.
    sent: VecDeque<(u64, Time)>,
    /// RACK.xmit_ts and RACK.end_seq (one past the segment): the most recently sent of the
    /// delivered segments (`rack.mstamp`, `rack.end_seq`); None before the first.
    latest: Option<(Time, u64)>,
    /// RACK.rtt, µs (`rack.rtt_us`): the RTT of the last segment that advanced RACK.
    rtt_us: u64,
    /// An ACK advanced RACK since the last detection (`rack.advanced`).
    advanced: bool,
    /// Reordering was seen (`tp->reord_seen`): a segment never retransmitted delivered below
    /// the highest SACKed one.
    reord_seen: bool,
    /// SACKed segments outstanding (`tp->sacked_out`).
    sacked_out: u64,
    /// One past the highest SACKed segment (`tcp_highest_sack_seq()`).
    high_sacked: u64,
    /// Segments marked lost since last taken: the segment, and whether it was a
    /// retransmission in flight (a lost retransmission).
    marked: Vec<(u64, bool)>,
    /// Retransmissions in flight marked lost, all told, by RACK or by a timeout (Linux's
    /// `TCPLostRetransmit`, which `tcp_mark_skb_lost()` counts for both).
    lost_retransmissions: u64,
    /// Segments RACK marked lost, all told.
    lost_marked: u64,
    /// The least RTT of a segment sent once and delivered (cumulatively or by SACK), µs:
    /// Linux's min RTT and SRTT take the SACKed segments' RTTs as well (`sack_rtt_us` in
    /// `tcp_ack_update_rtt()`) and start from the handshake's; the engine's flows start
    /// established and its estimators take cumulative ACKs, so RACK's window falls back on
    /// this where they have no sample yet, and the min RTT is the lower of the two.
    clean_min_rtt_us: Option<u64>,
    /// The reordering timer the ACK being processed asks for (the sender's to arm).
    pub reo_wait: Option<Dur>,
    /// Buffers reused: the transmissions a sync found, and the verdicts being handed over.
    found: Vec<Found>,
    pub handed: Vec<(u64, bool)>,
}

/// Microseconds, as Linux's `tcp_clock_us()` stamps.
fn us(t: Time) -> u64 {
    t.0 / 1_000
}

/// `tcp_skb_sent_after()`: `(t1, seq1)` was sent after `(t2, seq2)`, ties broken by sequence.
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// What the sender knows when RACK decides (`tcp_rack_reo_wnd()` reads these).
#[derive(Clone, Copy, Debug)]
pub struct RackCtx {
    pub now: Time,
    /// In fast recovery or after a timeout (Linux's `icsk_ca_state >= TCP_CA_Recovery`).
    pub recovering: bool,
    /// The minimum RTT seen (`tcp_min_rtt()`), if any sample was taken.
    pub min_rtt: Option<Dur>,
    pub srtt: Option<Dur>,
    /// The dupthresh (`tp->reordering`).
    pub dupthresh: u32,
}

impl Rack {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, seq: u64) -> Option<&mut Slot> {
        let i = seq.checked_sub(self.base)? as usize;
        self.slots.get_mut(i)
    }

    /// Takes up the transmissions since the last call from the send log (which holds every
    /// outstanding segment's latest send time): a segment whose time changed was sent again
    /// (a retransmission now in flight, `TCPCB_SACKED_RETRANS`); the new ones join the
    /// transmissions in the order sent (by time, then sequence, `tcp_skb_sent_after()`).
    pub fn sync(&mut self, log: &SendLog, snd_una: u64, snd_max: u64) {
        if self.base < snd_una {
            self.forget_below(snd_una);
        }
        let top = self.base + self.slots.len() as u64;
        if top < snd_max {
            self.slots
                .resize((snd_max - self.base) as usize, Slot::default());
        }
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let seq = self.base + i as u64;
            let Some((t, retransmitted)) = log.last_send(seq) else {
                continue;
            };
            if slot.sent && slot.sent_at == t {
                continue;
            }
            let again = slot.sent || retransmitted;
            slot.sent_at = t;
            slot.sent = true;
            if again {
                slot.ever_retransmitted = true;
                slot.retransmission_out = true;
            }
            self.found.push((seq, t, again));
        }
        self.found.sort_unstable_by_key(|&(seq, t, _)| (t, seq));
        for (seq, t, _) in self.found.drain(..) {
            self.sent.push_back((seq, t));
        }
    }

    /// Forgets the segments below `snd_una` (a cumulative ACK RACK did not see: none but
    /// after a timeout's undo).
    fn forget_below(&mut self, snd_una: u64) {
        while self.base < snd_una {
            if self.slots.pop_front().is_some_and(|s| s.sacked) {
                self.sacked_out -= 1;
            }
            self.base += 1;
        }
    }

    /// `tcp_rack_advance()`: a segment newly delivered (RFC 8985 §6.2 step 2): RACK.rtt is
    /// its RTT, unless it was retransmitted and the RTT is below the minimum RTT (the ACK may
    /// be the original's); RACK.xmit_ts moves to it if it was sent after the one recorded.
    fn advance(&mut self, seq: u64, now: Time, min_rtt_us: u64) {
        let Some(&slot) = self.slots.get((seq - self.base) as usize) else {
            return;
        };
        let rtt_us = us(now) - us(slot.sent_at);
        if !slot.ever_retransmitted {
            self.clean_min_rtt_us = Some(self.clean_min_rtt_us.map_or(rtt_us, |m| m.min(rtt_us)));
        }
        if slot.ever_retransmitted && rtt_us < min_rtt_us {
            return;
        }
        self.advanced = true;
        self.rtt_us = rtt_us;
        if self
            .latest
            .is_none_or(|(t, end)| sent_after(slot.sent_at, seq + 1, t, end))
        {
            self.latest = Some((slot.sent_at, seq + 1));
        }
    }

    /// A segment delivered now: reordering is seen when one never retransmitted arrives
    /// below the highest SACKed segment (`tcp_check_sack_reordering()`), and RACK advances.
    fn delivered(&mut self, seq: u64, now: Time, min_rtt_us: u64, prior_high: u64) {
        let Some(slot) = self.slot(seq) else {
            return;
        };
        if !slot.sent {
            return;
        }
        if !slot.ever_retransmitted && seq < prior_high {
            self.reord_seen = true;
        }
        self.advance(seq, now, min_rtt_us);
    }

    /// An ACK: `[old_una, ack)` cumulatively acknowledged and `blocks` SACKed (without a
    /// DSACK). The SACKed segments advance RACK first, then the cumulatively acknowledged
    /// ones not SACKed before, as `tcp_sacktag_write_queue()` then `tcp_clean_rtx_queue()`.
    pub fn on_ack(&mut self, now: Time, ack: u64, blocks: &[(u64, u64)], min_rtt: Option<Dur>) {
        let own = self.clean_min_rtt_us.unwrap_or(u64::MAX);
        let min_rtt_us = min_rtt.map_or(u64::MAX, |d| d.0 / 1_000).min(own);
        let prior_high = self.high_sacked;
        let top = self.base + self.slots.len() as u64;
        for &(a, b) in blocks {
            for q in a.max(ack).max(self.base)..b.min(top) {
                let Some(slot) = self.slot(q) else { break };
                if slot.sacked || !slot.sent {
                    continue;
                }
                slot.sacked = true;
                self.sacked_out += 1;
                self.high_sacked = self.high_sacked.max(q + 1);
                self.delivered(q, now, min_rtt_us, prior_high);
            }
        }
        while self.base < ack {
            if let Some(slot) = self.slots.front().copied() {
                if slot.sacked {
                    self.sacked_out -= 1;
                } else {
                    self.delivered(self.base, now, min_rtt_us, prior_high);
                }
                self.slots.pop_front();
            }
            self.base += 1;
        }
    }

    /// `tcp_rack_reo_wnd()`: none while no reordering was seen, in recovery or once
    /// dupthresh segments are SACKed (RFC 8985 §6.2 step 4); else a quarter of the minimum
    /// RTT, at most SRTT. µs.
    fn reo_wnd_us(&self, c: &RackCtx) -> u64 {
        if !self.reord_seen && (c.recovering || self.sacked_out >= u64::from(c.dupthresh)) {
            return 0;
        }
        let own = self.clean_min_rtt_us;
        let min_rtt = match (c.min_rtt.map(|d| d.0 / 1_000), own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let srtt = c.srtt.map(|d| d.0 / 1_000).or(own);
        min_rtt.map_or(u64::MAX, |m| m >> 2).min(srtt.unwrap_or(0))
    }

    /// `tcp_rack_detect_loss()` (RFC 8985 §6.2 step 5): walks the transmissions in the order
    /// sent, those before RACK.xmit_ts, and marks lost each whose RACK.rtt plus reordering
    /// window has passed since it left; the rest wait. Returns the longest wait, µs (0: none).
    fn detect(&mut self, c: &RackCtx) -> u64 {
        let Some((xmit, end)) = self.latest else {
            return 0;
        };
        let reo_wnd = self.reo_wnd_us(c);
        let mut wait = 0;
        let mut i = 0;
        while i < self.sent.len() {
            let (seq, t) = self.sent[i];
            let live = seq >= self.base
                && self
                    .slots
                    .get((seq - self.base) as usize)
                    .is_some_and(|s| s.sent_at == t && !s.sacked);
            if !live {
                if i == 0 {
                    self.sent.pop_front();
                } else {
                    i += 1;
                }
                continue;
            }
            let slot = &mut self.slots[(seq - self.base) as usize];
            // Marked lost and not yet sent again: nothing to detect.
            if slot.lost && !slot.retransmission_out {
                i += 1;
                continue;
            }
            if !sent_after(xmit, end, t, seq + 1) {
                break;
            }
            let elapsed = us(c.now) - us(t);
            let remaining = (self.rtt_us + reo_wnd) as i64 - elapsed as i64;
            if remaining <= 0 {
                let retransmission = slot.retransmission_out;
                slot.lost = true;
                slot.retransmission_out = false;
                self.lost_marked += 1;
                self.lost_retransmissions += u64::from(retransmission);
                self.marked.push((seq, retransmission));
                self.sent.remove(i);
            } else {
                wait = wait.max(remaining as u64);
                i += 1;
            }
        }
        wait
    }

    /// `tcp_rack_mark_lost()` after an ACK: detection if the ACK advanced RACK; returns the
    /// reordering timer to arm, if segments wait (`usecs_to_jiffies(wait +
    /// TCP_TIMEOUT_MIN_US)`, the caller caps it at the RTO).
    pub fn mark_lost(&mut self, c: &RackCtx) -> Option<Dur> {
        if !std::mem::take(&mut self.advanced) {
            return None;
        }
        let wait = self.detect(c);
        (wait > 0).then(|| linux_clock::round_up(Dur((wait + TIMEOUT_MIN_US) * 1_000)))
    }

    /// `tcp_rack_reo_timeout()`'s detection: the reordering timer fired.
    pub fn on_reo_timeout(&mut self, c: &RackCtx) {
        self.detect(c);
    }

    /// The transmission of `seq` just recorded was a tail loss probe: Linux sends it with
    /// `__tcp_retransmit_skb()`, which leaves it out of `retrans_out` (no
    /// `TCPCB_SACKED_RETRANS`): not a retransmission RACK or a timeout can find lost again.
    pub fn on_probe(&mut self, seq: u64) {
        if let Some(s) = self.slot(seq) {
            s.retransmission_out = false;
        }
    }

    /// The segments marked lost since last asked, each with whether it was a retransmission
    /// in flight, into `handed`.
    pub fn take_marked(&mut self) {
        self.handed.append(&mut self.marked);
    }

    /// A timeout marks every segment not SACKed lost, retransmissions in flight included
    /// (`tcp_enter_loss()`; Linux 6.x's `tcp_timeout_mark_lost()` spares the segments sent
    /// within RACK.rtt, except the head, which the engine's go-back-N does not: all of
    /// them).
    pub fn on_timeout(&mut self) {
        for s in &mut self.slots {
            if s.sent && !s.sacked {
                s.lost = true;
                self.lost_retransmissions += u64::from(s.retransmission_out);
                s.retransmission_out = false;
            }
        }
    }

    /// A spurious timeout undone: what it marked lost is in flight again
    /// (`tcp_undo_cwnd_reduction(sk, true)`).
    pub fn unmark_lost(&mut self) {
        for s in &mut self.slots {
            s.lost = false;
        }
    }

    /// Segments RACK marked lost, and retransmissions in flight marked lost by RACK or a
    /// timeout (TCPLostRetransmit).
    pub fn counts(&self) -> (u64, u64) {
        (self.lost_marked, self.lost_retransmissions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rate::Accounting;

    fn ms(x: f64) -> Time {
        Time((x * 1e6).round() as u64)
    }

    fn ctx(now: Time, recovering: bool) -> RackCtx {
        RackCtx {
            now,
            recovering,
            min_rtt: Some(Dur(40_000_000)),
            srtt: Some(Dur(40_000_000)),
            dupthresh: 3,
        }
    }

    /// RACK beside the sender's send log, as the sender keeps them.
    struct Flow {
        r: Rack,
        log: SendLog,
        snd_max: u64,
    }

    impl Flow {
        fn new() -> Self {
            Self {
                r: Rack::new(),
                log: SendLog::new(64, false),
                snd_max: 0,
            }
        }
        /// Sends `seq` at `t` (again if it was sent before); RACK takes it up.
        fn send(&mut self, seq: u64, t: f64) {
            let again = seq < self.snd_max;
            let mut acct = Accounting::default(); // (a log that does not sample)
            self.log.on_send(seq, ms(t), again, 0, &mut acct);
            self.snd_max = self.snd_max.max(seq + 1);
            self.r.sync(&self.log, self.r.base, self.snd_max);
        }
    }

    /// Segments 0..n sent 1 ms apart from t = 0.
    fn sent_1ms_apart(n: u64) -> Flow {
        let mut f = Flow::new();
        for q in 0..n {
            f.send(q, q as f64);
        }
        f
    }

    fn marked(r: &mut Rack) -> Vec<(u64, bool)> {
        r.take_marked();
        std::mem::take(&mut r.handed)
    }

    #[test]
    fn a_segment_is_lost_once_one_sent_a_reordering_window_later_is_delivered() {
        // Min RTT 40 ms, one segment SACKed: reo_wnd = 40 / 4 = 10 ms. Segments 0, 1, 2 sent
        // at 0, 9 and 10 ms; 0 is lost. 1 SACKed at 49 ms: RACK.rtt 40 ms, so 0 has 40 + 10
        // - 49 = 1 ms left: it waits, and the reordering timer is (1 + 2) ms rounded up to
        // jiffies, 4 ms. 2 (sent reo_wnd after 0) SACKed at 50 ms: 40 + 10 - 50 = 0 left:
        // lost (Linux's `remaining <= 0`), and nothing waits.
        let mut f = Flow::new();
        for (q, t) in [(0, 0.0), (1, 9.0), (2, 10.0)] {
            f.send(q, t);
        }
        let r = &mut f.r;
        r.on_ack(ms(49.0), 0, &[(1, 2)], Some(Dur(40_000_000)));
        assert_eq!(r.mark_lost(&ctx(ms(49.0), false)), Some(Dur(4_000_000)));
        assert!(marked(r).is_empty());
        r.on_ack(ms(50.0), 0, &[(1, 3)], Some(Dur(40_000_000)));
        assert_eq!(r.mark_lost(&ctx(ms(50.0), false)), None);
        assert_eq!(marked(r), vec![(0, false)]);
        assert_eq!(r.counts(), (1, 0));
        // No new delivery: no detection (`rack.advanced` clear).
        assert_eq!(r.mark_lost(&ctx(ms(60.0), false)), None);
    }

    #[test]
    fn the_reordering_window() {
        let mut f = sent_1ms_apart(10);
        let r = &mut f.r;
        // No reordering seen: none in recovery, a quarter of the min RTT in the open state.
        assert_eq!(r.reo_wnd_us(&ctx(ms(0.0), true)), 0);
        assert_eq!(r.reo_wnd_us(&ctx(ms(0.0), false)), 10_000);
        // ... at most SRTT.
        let short = RackCtx {
            srtt: Some(Dur(8_000_000)),
            ..ctx(ms(0.0), false)
        };
        assert_eq!(r.reo_wnd_us(&short), 8_000);
        // None once DupThresh segments are SACKed.
        r.on_ack(ms(50.0), 0, &[(5, 7)], None);
        assert_eq!(r.reo_wnd_us(&ctx(ms(0.0), false)), 10_000);
        r.on_ack(ms(50.0), 0, &[(5, 8)], None);
        assert_eq!(r.reo_wnd_us(&ctx(ms(0.0), false)), 0);
        // Segment 2, never retransmitted, delivered below the highest SACKed one (8):
        // reordering, and from then on a quarter of the min RTT even in recovery.
        r.on_ack(ms(51.0), 0, &[(2, 3), (5, 8)], None);
        assert!(r.reord_seen);
        assert_eq!(r.reo_wnd_us(&ctx(ms(0.0), true)), 10_000);
    }

    #[test]
    fn the_reordering_timer_marks_what_waited() {
        // One SACK (segment 1 at 41 ms): 0 has 40 + 10 - 41 = 9 ms left; the timer is (9 + 2)
        // ms rounded up to jiffies: 12 ms, at 53 ms. At 50 ms 0 would still wait (0 left is
        // lost, 1 ms is not); at 53 ms it is lost.
        let mut f = sent_1ms_apart(4);
        let r = &mut f.r;
        r.on_ack(ms(41.0), 0, &[(1, 2)], Some(Dur(40_000_000)));
        assert_eq!(r.mark_lost(&ctx(ms(41.0), false)), Some(Dur(12_000_000)));
        let mut early = r.clone();
        early.on_reo_timeout(&ctx(ms(49.0), false));
        assert!(marked(&mut early).is_empty());
        r.on_reo_timeout(&ctx(ms(53.0), false));
        assert_eq!(marked(r), vec![(0, false)]);
    }

    #[test]
    fn a_lost_retransmission_is_found_by_time() {
        // 0 lost, retransmitted at 50 ms in recovery (reo_wnd 0); segment 5, new data sent
        // at 51 ms, SACKed at 91 ms: RACK.rtt 40 ms, the retransmission left 41 ms before:
        // 40 + 0 - 41 < 0, lost again: a lost retransmission (TCPLostRetransmit), which only
        // the RTO finds without RACK; and 4, sent at 4 ms and never SACKed, lost as well (in
        // the order sent). Sent again, the retransmission is judged again.
        let mut f = sent_1ms_apart(5);
        f.r.on_ack(ms(43.0), 0, &[(1, 4)], Some(Dur(40_000_000)));
        assert_eq!(f.r.mark_lost(&ctx(ms(43.0), false)), None);
        assert_eq!(marked(&mut f.r), vec![(0, false)]);
        f.send(0, 50.0);
        f.send(5, 51.0);
        let r = &mut f.r;
        r.on_ack(ms(91.0), 0, &[(1, 4), (5, 6)], Some(Dur(40_000_000)));
        assert_eq!(r.mark_lost(&ctx(ms(91.0), true)), None);
        assert_eq!(marked(r), vec![(4, false), (0, true)]);
        assert_eq!(r.counts(), (3, 1));
        f.send(0, 92.0);
        assert!(f.r.slots[0].retransmission_out);
        f.r.on_ack(ms(132.0), 6, &[], Some(Dur(40_000_000)));
        assert_eq!(f.r.mark_lost(&ctx(ms(132.0), true)), None);
        assert!(marked(&mut f.r).is_empty());
    }

    #[test]
    fn a_retransmission_acked_sooner_than_the_min_rtt_does_not_advance() {
        // 0 retransmitted at 50 ms and SACKed at 60 ms: 10 ms is less than the min RTT, so
        // the ACK may be the original's (tcp_rack_advance()): RACK stays where it was.
        let mut f = sent_1ms_apart(3);
        f.send(0, 50.0);
        let r = &mut f.r;
        r.on_ack(ms(60.0), 0, &[(0, 1)], Some(Dur(40_000_000)));
        assert_eq!(r.latest, None);
        assert!(!r.advanced);
    }
}
