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
//! The kernel's response to reordering ([`Reordering`], each part an option of its own, off
//! by default): the reordering degree `tp->reordering` that reordered deliveries raise
//! (`tcp_check_sack_reordering()`), read where DupThresh is read; RACK's window widened in
//! steps of min_rtt/4 by DSACKs (`tcp_rack_update_reo_wnd()`); and what
//! `tcp_try_undo_partial()` needs of RACK's record (the retransmissions in flight, the
//! episode's first retransmission) and the sender's growth needs of it (the segments each
//! ACK delivered, whether it SACKed new data: `tcp_may_raise_cwnd()`). Not modelled: SACK
//! reordering counted after a timeout as well (Linux skips it in the loss state without an
//! undo marker); and the degree carried across connections by the route's metrics.

use std::collections::VecDeque;

use super::linux_clock;
use super::rate::SendLog;
use crate::time::{Dur, Time};
/// Linux's `TCP_TIMEOUT_MIN_US` (2 ms), added to the reordering timeout before it is
/// rounded up to jiffies (`tcp_rack_mark_lost()`).
const TIMEOUT_MIN_US: u64 = 2_000;
/// Linux's `sysctl_tcp_max_reordering` (300): the reordering degree's cap.
const MAX_REORDERING: u32 = 300;
/// Linux's `TCP_RACK_RECOVERY_THRESH` (16): recoveries a widened window persists over.
const RECOVERY_THRESH: u32 = 16;
/// Linux's cap on `reo_wnd_steps` (a u8).
const MAX_STEPS: u32 = 0xFF;

/// Which parts of the kernel's response to reordering are modelled (the sender's
/// `reordering`, `rack_reo_wnd` and `partial_undo` options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reordering {
    /// `tp->reordering`, raised by reordered deliveries (`tcp_check_sack_reordering()`).
    pub degree: bool,
    /// RACK's window widened by DSACKs (`tcp_rack_update_reo_wnd()`).
    pub dsack_window: bool,
}

/// The reordering response's state (Linux's `tp->reordering`, `tp->rack.reo_wnd_steps`,
/// `reo_wnd_persist`, `dsack_seen`, `last_delivered`, and the delivered count they read).
#[derive(Clone, Debug, Default)]
struct Response {
    on: Reordering,
    /// `tp->reordering`, segments (starts at the configured DupThresh, Linux's
    /// `sysctl_tcp_reordering`).
    degree: u32,
    /// The configured DupThresh (a timeout brings the degree back down to it).
    initial: u32,
    /// The degree changed since the sender last read it.
    degree_changed: bool,
    /// Reordering events, all told (Linux's TCPSACKReorder + TCPTSReorder).
    events: u64,
    /// The highest degree reached.
    max_degree: u32,
    /// `rack.reo_wnd_steps` (1 to 255): the window is this many quarters of the min RTT.
    steps: u32,
    /// `rack.reo_wnd_persist`: recoveries the widened window still lasts.
    persist: u32,
    /// `rack.dsack_seen`: a DSACK arrived after reordering was seen; the next ACK that
    /// delivers widens the window, unless less than a round passed since it last did.
    dsack_seen: bool,
    /// `rack.last_delivered`: the delivered count when the window last widened.
    last_delivered: u64,
    /// `tp->delivered`: segments delivered (cumulatively or by SACK), DSACKed ones included.
    delivered: u64,
}

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
    /// The delivered count when it was last sent (`skb->tx.delivered`), for the window's
    /// round test.
    tx_delivered: u64,
    /// Marked lost by RACK's detection, which takes it off the transmissions it walks
    /// (`tcp_rack_detect_loss()`: `list_del_init(&skb->tcp_tsorted_anchor)`) until it is
    /// sent again.
    rack_marked: bool,
    /// Marked lost by RACK, then not lost any more by an undo (`tcp_undo_cwnd_reduction(sk,
    /// true)` clears `TCPCB_LOST` and leaves the segment off `tsorted_sent_queue`): in
    /// flight, and RACK never finds it lost again until it is sent again (see
    /// [`Rack::lowest_spared`]).
    spared: bool,
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
    /// Verdicts that waited for spared segments below them ([`Rack::lowest_spared`]), all
    /// told.
    deferred: u64,
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
    /// The response to reordering (all off by default).
    resp: Response,
    /// The lowest segment that a delivery of this ACK found reordered, by SACK and by
    /// cumulative ACK (`state->reord` and `tcp_clean_rtx_queue()`'s `reord`).
    reord_low: (Option<u64>, Option<u64>),
    /// Of the segments this ACK delivered, the delivered count when the most recently sent
    /// left (the rate sample's `prior_delivered`; 0: none).
    prior_delivered: (Option<(Time, u64)>, u64),
    /// The current loss episode's first retransmission (`tp->retrans_stamp`), once armed.
    retrans_stamp: Option<Option<Time>>,
    /// Segments the ACK being processed newly SACKed (Linux's `FLAG_DATA_SACKED` when any).
    newly_sacked: u64,
    /// `resp.delivered` when [`Rack::take_delivered`] was last asked.
    delivered_told: u64,
    /// One past the highest segment an undo spared (0: none; see [`Rack::lowest_spared`]).
    spared_hi: u64,
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

    /// RACK with the parts of the kernel's response to reordering `on` asks for, the
    /// reordering degree starting at `dupthresh`.
    pub fn with_response(on: Reordering, dupthresh: u32) -> Self {
        Self {
            resp: Response {
                on,
                degree: dupthresh,
                initial: dupthresh,
                max_degree: dupthresh,
                steps: 1,
                ..Response::default()
            },
            ..Self::default()
        }
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
            // Sent again: back on the walked transmissions (`tcp_update_skb_after_send()`).
            slot.rack_marked = false;
            slot.spared = false;
            slot.sent_at = t;
            slot.sent = true;
            slot.tx_delivered = self.resp.delivered;
            if again {
                slot.ever_retransmitted = true;
                slot.retransmission_out = true;
                if let Some(stamp @ None) = &mut self.retrans_stamp {
                    *stamp = Some(t);
                }
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
    fn delivered(&mut self, seq: u64, now: Time, min_rtt_us: u64, prior_high: u64, sack: bool) {
        let Some(slot) = self.slot(seq).copied() else {
            return;
        };
        if !slot.sent {
            return;
        }
        if !slot.ever_retransmitted && seq < prior_high {
            self.reord_seen = true;
            let low = if sack {
                &mut self.reord_low.0
            } else {
                &mut self.reord_low.1
            };
            *low = Some(low.map_or(seq, |l| l.min(seq)));
        }
        self.resp.delivered += 1;
        // tcp_rate_skb_delivered(): the sample's prior_delivered is the most recently sent
        // delivered segment's.
        if self
            .prior_delivered
            .0
            .is_none_or(|(t, q)| sent_after(slot.sent_at, seq, t, q))
        {
            self.prior_delivered = (Some((slot.sent_at, seq)), slot.tx_delivered);
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
        self.newly_sacked = 0;
        for &(a, b) in blocks {
            for q in a.max(ack).max(self.base)..b.min(top) {
                let Some(slot) = self.slot(q) else { break };
                if slot.sacked || !slot.sent {
                    continue;
                }
                slot.sacked = true;
                self.sacked_out += 1;
                self.newly_sacked += 1;
                self.high_sacked = self.high_sacked.max(q + 1);
                self.delivered(q, now, min_rtt_us, prior_high, true);
            }
        }
        // The degree, from what the blocks delivered: at the end of tcp_sacktag_write_queue().
        if let Some(low) = self.reord_low.0.take() {
            self.check_reordering(low);
        }
        while self.base < ack {
            if let Some(slot) = self.slots.front().copied() {
                if slot.sacked {
                    self.sacked_out -= 1;
                } else {
                    self.delivered(self.base, now, min_rtt_us, prior_high, false);
                }
                self.slots.pop_front();
            }
            self.base += 1;
        }
        // ... and from what the cumulative ACK delivered: tcp_clean_rtx_queue()'s.
        if let Some(low) = self.reord_low.1.take() {
            self.check_reordering(low);
        }
        if self.resp.on.dsack_window {
            self.update_reo_wnd();
        }
        self.prior_delivered = (None, 0);
    }

    /// `tcp_highest_sack_seq()`: one past the highest SACKed segment, snd_una when none is.
    fn fack(&self) -> u64 {
        if self.sacked_out == 0 {
            self.base
        } else {
            self.high_sacked.max(self.base)
        }
    }

    /// `tcp_check_sack_reordering()`: `low` was delivered after segments above it up to the
    /// highest SACKed one: an event of reordering, and the degree rises to that distance
    /// (at most `MAX_REORDERING`) if it is the larger.
    fn check_reordering(&mut self, low: u64) {
        let fack = self.fack();
        if low >= fack {
            return;
        }
        let r = &mut self.resp;
        if r.on.degree {
            let metric = u32::try_from(fack - low).unwrap_or(u32::MAX);
            if metric > r.degree {
                r.degree = metric.min(MAX_REORDERING);
                r.max_degree = r.max_degree.max(r.degree);
                r.degree_changed = true;
            }
        }
        r.events += 1;
        self.reord_seen = true;
    }

    /// `tcp_rack_update_reo_wnd()`, on every ACK: a DSACK seen widens the window by one step
    /// on the first ACK that delivers a segment sent a round after the last widening (its
    /// `prior_delivered` not below `last_delivered`), and the width then persists over
    /// `RECOVERY_THRESH` recoveries; once they are spent it is one step again.
    fn update_reo_wnd(&mut self) {
        let prior = self.prior_delivered.1;
        if self.prior_delivered.0.is_none() || prior == 0 {
            return;
        }
        let r = &mut self.resp;
        if prior < r.last_delivered {
            r.dsack_seen = false;
        }
        if r.dsack_seen {
            r.steps = (r.steps + 1).min(MAX_STEPS);
            r.dsack_seen = false;
            r.last_delivered = r.delivered;
            r.persist = RECOVERY_THRESH;
        } else if r.persist == 0 {
            r.steps = 1;
        }
    }

    /// A DSACK of `[start, end)` (`tcp_dsack_seen()` and the DSACK part of
    /// `tcp_sacktag_one()`): the duplicate counts as delivered; seen after reordering, and
    /// not the probe's (`probe`, Linux's `FLAG_DSACK_TLP`), it asks for a wider window; a
    /// duplicate of a SACKed segment that was retransmitted is reordering as well (the
    /// original arrived after all).
    pub fn on_dsack(&mut self, start: u64, end: u64, probe: bool) {
        // (Without the response RACK reads no DSACK, as before it was modelled.)
        if self.resp.on == Reordering::default() {
            return;
        }
        self.resp.delivered += end.saturating_sub(start);
        if self.reord_seen && !probe {
            self.resp.dsack_seen = true;
        }
        let low = (start.max(self.base)..end).find(|&q| {
            self.slots
                .get((q - self.base) as usize)
                .is_some_and(|s| s.sacked && s.ever_retransmitted)
        });
        if let Some(q) = low {
            self.check_reordering(q);
        }
    }

    /// A recovery ended without an undo (`tcp_try_undo_recovery()`): one fewer for the
    /// widened window to persist over. The episode's first retransmission is kept: Linux
    /// clears `retrans_stamp` on the next ACK it handles in the open state
    /// ([`Rack::on_open_ack`]), or when the next recovery starts with nothing retransmitted
    /// outstanding ([`Rack::arm_retrans_stamp_recovery`]); a recovery that starts on the
    /// ACK that ended this one, its retransmissions still in flight, keeps it.
    pub fn on_recovery_end(&mut self) {
        let r = &mut self.resp;
        r.persist = r.persist.saturating_sub(1);
    }

    /// An ACK that `tcp_fastretrans_alert()` handles in the open state (it SACKs, or is a
    /// duplicate): step D clears `retrans_stamp`.
    pub fn on_open_ack(&mut self) {
        self.retrans_stamp = None;
    }

    /// A recovery undone by DSACKs (`tcp_try_undo_dsack()`): the widened window persists
    /// over one more.
    pub fn on_dsack_undo(&mut self) {
        let r = &mut self.resp;
        r.persist = (r.persist + 1).min(RECOVERY_THRESH);
        self.retrans_stamp = None;
    }

    /// The reordering degree, if it changed since last asked (the sender's DupThresh).
    pub fn take_degree(&mut self) -> Option<u32> {
        std::mem::take(&mut self.resp.degree_changed).then_some(self.resp.degree)
    }

    /// Segments delivered since last asked (Linux's `tcp_newly_delivered()`, the
    /// `acked_sacked` its window grows by): each SACKed or cumulatively ACKed once, when it
    /// first is, and the DSACKed duplicates (counted only with the response on).
    pub fn take_delivered(&mut self) -> u64 {
        let d = self.resp.delivered - self.delivered_told;
        self.delivered_told = self.resp.delivered;
        d
    }

    /// `tcp_may_raise_cwnd()`'s test for an ACK that does not advance snd_una: it SACKed
    /// new data (`FLAG_DATA_SACKED`) and the reordering degree is above the configured
    /// DupThresh (`tp->reordering > sysctl_tcp_reordering`), so the window grows on it as on
    /// a cumulative ACK.
    pub fn raises_cwnd_on_sack(&self) -> bool {
        let r = &self.resp;
        self.newly_sacked > 0 && r.on.degree && r.degree > r.initial
    }

    /// Reordering events (TCPSACKReorder + TCPTSReorder), the highest reordering degree, and
    /// RACK's window steps now.
    pub fn reordering_counts(&self) -> (u64, u32, u32) {
        let r = &self.resp;
        (r.events, r.max_degree, r.steps.max(1))
    }

    /// A loss episode starts (`tcp_enter_recovery()`, `tcp_enter_loss()`): its first
    /// retransmission will be `tp->retrans_stamp`.
    /// (Kept when armed: Linux clears `retrans_stamp` only once nothing retransmitted is
    /// outstanding, `tcp_retrans_stamp_cleanup()`.)
    pub fn arm_retrans_stamp(&mut self) {
        if self.retrans_stamp.is_none() {
            self.retrans_stamp = Some(None);
        }
    }

    /// A fast recovery starts (`tcp_enter_recovery()`): `tcp_retrans_stamp_cleanup()` forgets
    /// the stamp unless a retransmission is outstanding (`tcp_any_retrans_done()`: one in
    /// flight, or snd_una was ever sent again), then the episode's first retransmission
    /// sets it if none is kept.
    pub fn arm_retrans_stamp_recovery(&mut self) {
        let head_resent = self
            .slots
            .front()
            .is_some_and(|s| s.sent && s.ever_retransmitted);
        if !(head_resent || self.retrans_out() > 0) {
            self.retrans_stamp = None;
        }
        self.arm_retrans_stamp();
    }

    /// The episode's first retransmission, if one left.
    pub fn retrans_stamp(&self) -> Option<Time> {
        self.retrans_stamp.flatten()
    }

    /// Retransmissions in flight (`tp->retrans_out`): sent again, neither delivered nor
    /// marked lost since.
    pub fn retrans_out(&self) -> u64 {
        self.slots
            .iter()
            .filter(|s| s.retransmission_out && !s.sacked)
            .count() as u64
    }

    /// `tcp_try_undo_partial()`'s reordering check: the hole at `prior_una` was filled by the
    /// original (the ACK echoes a timestamp older than the episode's first retransmission),
    /// which counts as reordering from it to the highest SACKed segment (TCPTSReorder).
    pub fn delayed_fill(&mut self, prior_una: u64) {
        let fack = self.fack();
        if prior_una < fack {
            self.check_reordering(prior_una);
        }
    }

    /// The episode's partial undo (`tcp_undo_cwnd_reduction(sk, true)`): nothing is lost
    /// any more, and RACK judges again on the next ACK (`rack.advanced = 1`).
    pub fn undo_partial(&mut self) {
        self.unmark_lost();
        self.advanced = true;
        self.retrans_stamp = None;
    }

    /// `tcp_rack_reo_wnd()`: none while no reordering was seen, in recovery or once
    /// dupthresh segments are SACKed (RFC 8985 §6.2 step 4); else a quarter of the minimum
    /// RTT, at most SRTT. µs.
    fn reo_wnd_us(&self, c: &RackCtx) -> u64 {
        // (With `reordering` on, the sender's DupThresh in `c` is the degree: it takes the
        // degree before it builds the context.)
        debug_assert!(!self.resp.on.degree || c.dupthresh == self.resp.degree);
        if !self.reord_seen && (c.recovering || self.sacked_out >= u64::from(c.dupthresh)) {
            return 0;
        }
        let own = self.clean_min_rtt_us;
        let min_rtt = match (c.min_rtt.map(|d| d.0 / 1_000), own) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let srtt = c.srtt.map(|d| d.0 / 1_000).or(own);
        let steps = u64::from(self.resp.steps.max(1));
        min_rtt
            .map_or(u64::MAX, |m| (m >> 2) * steps)
            .min(srtt.unwrap_or(0))
    }

    /// `tcp_rack_detect_loss()` (RFC 8985 §6.2 step 5): walks the transmissions in the order
    /// sent, those before RACK.xmit_ts, and marks lost each whose RACK.rtt plus reordering
    /// window has passed since it left; the rest wait. Returns the longest wait, µs (0: none).
    fn detect(&mut self, c: &RackCtx) -> u64 {
        let Some((xmit, end)) = self.latest else {
            return 0;
        };
        let reo_wnd = self.reo_wnd_us(c);
        let spared = self.lowest_spared();
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
            if remaining <= 0 && spared.is_some_and(|low| low < seq) {
                // Linux marks it, and it alone; the recovery takes a verdict as every
                // segment below it lost (`Recovery::rack_lost`), the spared ones too, which
                // are in flight. It waits, on the walked transmissions, until they are
                // delivered (or a timeout marks everything).
                self.deferred += 1;
                i += 1;
                continue;
            }
            if remaining <= 0 {
                let retransmission = slot.retransmission_out;
                slot.rack_marked = true;
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
    pub fn on_timeout(&mut self, open: bool) {
        // tcp_enter_loss(): a timeout in the open state (Open or Disorder) with DupThresh
        // segments SACKed says the degree was overestimated: back to the configured one.
        let r = &mut self.resp;
        if r.on.degree && open && self.sacked_out >= u64::from(r.initial) && r.degree > r.initial {
            r.degree = r.initial;
            r.degree_changed = true;
        }
        self.arm_retrans_stamp();
        for s in &mut self.slots {
            if s.sent && !s.sacked {
                s.lost = true;
                self.lost_retransmissions += u64::from(s.retransmission_out);
                s.retransmission_out = false;
            }
        }
    }

    /// A spurious timeout undone: what it marked lost is in flight again
    /// (`tcp_undo_cwnd_reduction(sk, true)`). What RACK had marked stays off the walked
    /// transmissions: spared.
    pub fn unmark_lost(&mut self) {
        for (i, s) in self.slots.iter_mut().enumerate() {
            if s.lost && s.rack_marked {
                s.spared = true;
                self.spared_hi = self.spared_hi.max(self.base + i as u64 + 1);
            }
            s.lost = false;
            s.rack_marked = false;
        }
    }

    /// The lowest segment an undo spared that is still outstanding, neither SACKed nor
    /// marked lost since (by a timeout), if any. Linux's RACK marks lost exactly the
    /// segments its walk finds; a later verdict above a spared segment leaves the spared
    /// one in flight. The recovery plugins take RACK's verdicts as a limit below which
    /// every segment not SACKed is lost (`Recovery::rack_lost`), which would count the
    /// spared segments lost as well: on paper 001's path, after a partial undo at a drop
    /// of the RTT, the next verdict (two segments of the overtaken flight) took some 57
    /// segments in flight out of the pipe and retransmitted them, and BBR's recovery
    /// window fell to the flight that remained. Such a verdict waits instead
    /// ([`Rack::detect`]), until the spared segments are delivered.
    fn lowest_spared(&mut self) -> Option<u64> {
        if self.spared_hi <= self.base {
            self.spared_hi = 0;
            return None;
        }
        let n = (self.spared_hi - self.base) as usize;
        let low = self
            .slots
            .iter()
            .take(n)
            .position(|s| s.spared && !s.sacked && !s.lost)
            .map(|i| self.base + i as u64);
        if low.is_none() {
            self.spared_hi = 0;
        }
        low
    }

    /// Verdicts that waited for segments an undo spared, all told.
    pub fn deferred(&self) -> u64 {
        self.deferred
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
            Self::with(Rack::new())
        }
        fn with(r: Rack) -> Self {
            Self {
                r,
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

    fn response(degree: bool, dsack_window: bool) -> Flow {
        Flow::with(Rack::with_response(
            Reordering {
                degree,
                dsack_window,
            },
            3,
        ))
    }

    #[test]
    fn the_reordering_degree_is_the_distance_a_delivery_was_overtaken_by() {
        // Segments 0-9 sent 1 ms apart. 5, 6, 7 SACKed: no reordering (nothing delivered
        // below the highest SACKed segment yet). Then 1 is SACKed: never retransmitted,
        // below 8 (one past the highest SACKed): the degree is 8 - 1 = 7 segments (more
        // than the initial 3). Then the cumulative ACK of 8: 0, 2, 3, 4 delivered below
        // 8, the lowest 0; nothing SACKed is left, so the highest SACKed point is snd_una,
        // 8: the degree is 8 - 0 = 8. Two events (TCPSACKReorder).
        let mut f = sent_1ms_apart(10);
        let r = &mut f.r;
        r.resp = response(true, false).r.resp;
        let m = Some(Dur(40_000_000));
        r.on_ack(ms(45.0), 0, &[(5, 8)], m);
        assert_eq!((r.take_degree(), r.reordering_counts()), (None, (0, 3, 1)));
        r.on_ack(ms(46.0), 0, &[(1, 2), (5, 8)], m);
        assert_eq!(r.take_degree(), Some(7));
        assert_eq!(r.take_degree(), None);
        r.on_ack(ms(47.0), 8, &[], m);
        assert_eq!(r.take_degree(), Some(8));
        assert_eq!(r.reordering_counts(), (2, 8, 1));
        // The degree is the dupthresh of RACK's zero window (the sender's context carries
        // it): 2 segments SACKed (8 and 9) are fewer than 8, so the window stays a quarter
        // of the min RTT even had no reordering been seen: 38 ms / 4 (segment 7's RTT,
        // sent at 7 ms, SACKed at 45).
        r.reord_seen = false;
        r.on_ack(ms(48.0), 8, &[(8, 10)], m);
        let c = RackCtx {
            dupthresh: 8,
            ..ctx(ms(48.0), false)
        };
        assert_eq!(r.reo_wnd_us(&c), 9_500);
        // A timeout with fewer than 3 SACKed keeps the degree; one in the open state with 3
        // SACKed brings it back to 3 (tcp_enter_loss()); without the option nothing of this
        // is kept.
        r.on_timeout(true);
        assert_eq!(r.take_degree(), None);
        f.send(10, 10.0);
        f.r.on_ack(ms(50.0), 8, &[(8, 11)], m);
        f.r.on_timeout(false);
        assert_eq!(f.r.take_degree(), None);
        f.r.on_timeout(true);
        assert_eq!(f.r.take_degree(), Some(3));
        let mut off = sent_1ms_apart(10);
        off.r.on_ack(ms(46.0), 0, &[(1, 2), (5, 8)], m);
        assert_eq!(off.r.take_degree(), None);
    }

    #[test]
    fn dsacks_widen_the_window_once_a_round_and_it_persists_16_recoveries() {
        let m = Some(Dur(40_000_000));
        let mut f = response(false, true);
        for q in 0..10 {
            f.send(q, q as f64);
        }
        // 3 SACKed, then 1 below it: reordering seen (two segments delivered).
        f.r.on_ack(ms(45.0), 0, &[(3, 4)], m);
        f.r.on_ack(ms(46.0), 0, &[(1, 2), (3, 4)], m);
        assert!(f.r.reord_seen);
        // A DSACK before any reordering would not count; this one does (and counts as a
        // delivery: 3). Segment 10 leaves with delivered = 3.
        f.r.on_dsack(0, 1, false);
        f.send(10, 47.0);
        f.send(11, 47.5);
        // The ACK delivering 10 (prior_delivered 3, not below last_delivered 0): one step
        // more, min_rtt/4 x 2 = 20 ms (SRTT 40 ms); last_delivered = 4.
        f.r.on_ack(ms(88.0), 0, &[(1, 2), (3, 4), (10, 11)], m);
        assert_eq!(f.r.reordering_counts().2, 2);
        assert_eq!(f.r.reo_wnd_us(&ctx(ms(88.0), false)), 20_000);
        // Another DSACK, but the ACK delivering 11 (sent with delivered = 3 < 4, within
        // the round of the last step) drops it: still 2 steps.
        f.r.on_dsack(0, 1, false);
        f.r.on_ack(ms(89.0), 0, &[(1, 2), (3, 4), (10, 12)], m);
        assert_eq!(f.r.reordering_counts().2, 2);
        // The probe's DSACK (FLAG_DSACK_TLP) does not count either; a DSACK then a segment
        // sent after the step: 3 steps, 30 ms, capped by an SRTT of 25 ms.
        f.r.on_dsack(0, 1, true);
        f.send(12, 90.0);
        f.r.on_ack(ms(131.0), 0, &[(1, 2), (3, 4), (10, 13)], m);
        assert_eq!(f.r.reordering_counts().2, 2);
        f.r.on_dsack(0, 1, false);
        f.send(13, 132.0);
        f.r.on_ack(ms(173.0), 0, &[(1, 2), (3, 4), (10, 14)], m);
        assert_eq!(f.r.reordering_counts().2, 3);
        assert_eq!(f.r.reo_wnd_us(&ctx(ms(173.0), false)), 30_000);
        let short = RackCtx {
            srtt: Some(Dur(25_000_000)),
            ..ctx(ms(173.0), false)
        };
        assert_eq!(f.r.reo_wnd_us(&short), 25_000);
        // The width persists over 16 recoveries ended without an undo (a DSACK undo adds
        // one back, but not past 16: none here); after them the next delivering ACK resets
        // it to 1.
        f.r.on_dsack_undo();
        let mut t = 174.0;
        for end in 1..=16 {
            f.r.on_recovery_end();
            f.send(14 + end, t);
            t += 41.0;
            f.r.on_ack(ms(t), 0, &[(1, 2), (3, 4), (10, 15 + end)], m);
            let want = if end < 16 { 3 } else { 1 };
            assert_eq!(f.r.reordering_counts().2, want, "after {end} recoveries");
        }
    }

    #[test]
    fn a_verdict_above_segments_an_undo_spared_waits_for_them() {
        // 0..5 sent at 0..4 ms, 5..9 at 20..23 ms, 9 at 80 ms. 5 SACKed at 60 ms (RACK.rtt
        // 40 ms, window 10 ms): 0..4 are lost. A partial undo unmarks them; Linux's walk
        // no longer holds them, so they are not lost again, and they are in flight.
        let mut f = Flow::new();
        for q in 0..5 {
            f.send(q, q as f64);
        }
        for q in 5..9 {
            f.send(q, 15.0 + q as f64);
        }
        f.send(9, 80.0);
        let m = Some(Dur(40_000_000));
        f.r.on_ack(ms(60.0), 0, &[(5, 6)], m);
        f.r.mark_lost(&ctx(ms(60.0), false));
        assert_eq!(
            marked(&mut f.r),
            (0..5).map(|q| (q, false)).collect::<Vec<_>>()
        );
        f.r.undo_partial();
        // 9 SACKed at 120 ms: RACK.rtt 40 ms, and 6, 7, 8 left 98-100 ms ago. Linux marks
        // them alone; the recovery would take every segment below 9 as lost, 0..4 too:
        // they wait while 0..4 are outstanding.
        f.r.on_ack(ms(120.0), 0, &[(5, 6), (9, 10)], m);
        assert_eq!(f.r.mark_lost(&ctx(ms(120.0), false)), None);
        assert!(marked(&mut f.r).is_empty());
        assert_eq!(f.r.deferred(), 3);
        // 0..4 delivered (RACK.rtt then theirs, 121-117 ms: nothing is old enough); a
        // segment sent at 90 ms SACKed at 130 ms (RACK.rtt 40 ms): 6, 7, 8 are lost now.
        f.r.on_ack(ms(121.0), 5, &[(5, 6), (9, 10)], m);
        f.r.mark_lost(&ctx(ms(121.0), false));
        assert!(marked(&mut f.r).is_empty());
        f.send(10, 90.0);
        f.r.on_ack(ms(130.0), 6, &[(9, 11)], m);
        f.r.mark_lost(&ctx(ms(130.0), false));
        assert_eq!(marked(&mut f.r), vec![(6, false), (7, false), (8, false)]);
        assert_eq!(f.r.deferred(), 3);
    }

    #[test]
    fn the_episode_s_first_retransmission_and_the_retransmissions_in_flight() {
        // Armed at the recovery's start, the stamp is the first retransmission's send time
        // (50 ms), not the second's; retransmissions in flight: both, then one once 0 is
        // SACKed; the stamp is kept when armed again.
        let mut f = sent_1ms_apart(5);
        f.r.arm_retrans_stamp();
        assert_eq!(f.r.retrans_stamp(), None);
        f.send(0, 50.0);
        f.send(1, 51.0);
        assert_eq!(f.r.retrans_stamp(), Some(ms(50.0)));
        assert_eq!(f.r.retrans_out(), 2);
        f.r.on_ack(ms(60.0), 0, &[(0, 1)], Some(Dur(40_000_000)));
        assert_eq!(f.r.retrans_out(), 1);
        f.r.arm_retrans_stamp();
        assert_eq!(f.r.retrans_stamp(), Some(ms(50.0)));
        f.r.undo_partial();
        assert_eq!(f.r.retrans_stamp(), None);
        assert!(f.r.advanced);
    }

    #[test]
    fn a_recovery_that_starts_with_retransmissions_out_keeps_the_first_one_s_stamp() {
        // 0 and 1 sent again at 50 and 51 ms; the recovery ends and the next starts with
        // both in flight: tcp_retrans_stamp_cleanup() keeps the stamp (50 ms). Once 0 and 1
        // are acknowledged nothing retransmitted is outstanding: the next recovery's stamp
        // is its own first retransmission's (62 ms).
        let mut f = sent_1ms_apart(5);
        f.r.arm_retrans_stamp_recovery();
        f.send(0, 50.0);
        f.send(1, 51.0);
        f.r.on_recovery_end();
        f.r.arm_retrans_stamp_recovery();
        assert_eq!(f.r.retrans_stamp(), Some(ms(50.0)));
        f.r.on_ack(ms(61.0), 2, &[], Some(Dur(40_000_000)));
        f.r.on_recovery_end();
        f.r.arm_retrans_stamp_recovery();
        assert_eq!(f.r.retrans_stamp(), None);
        f.send(3, 62.0);
        assert_eq!(f.r.retrans_stamp(), Some(ms(62.0)));
        // An ACK handled in the open state forgets it (tcp_fastretrans_alert()'s step D).
        f.r.on_open_ack();
        assert_eq!(f.r.retrans_stamp(), None);
    }
}
