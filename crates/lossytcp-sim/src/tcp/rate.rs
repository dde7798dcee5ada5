//! The send log and delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation-02,
//! as Linux's tcp_rate.c implements it), in segments.
//!
//! Every transmission records, in its segment's slot of a ring, the connection's delivery
//! state at that moment: `delivered` (segments delivered so far), `delivered_time` (when that
//! count last grew), `first_sent_time` (the send time of the segment that started the current
//! sampling interval) and whether the sender was application-limited. When an ACK newly
//! delivers segments (cumulatively or by SACK), the most recently sent of them yields a rate
//! sample: the segments delivered since it was sent over the longer of its send interval and
//! its ACK interval (the longer one, so neither ACK compression nor a send burst inflates it).

use crate::packet::MAX_SACK_BLOCKS;
use crate::time::{Dur, Time};

/// One delivery-rate sample (draft §3.3 "rs").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Segments delivered over the interval.
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed).
    pub interval: Dur,
    /// `delivered / interval`, segments per second.
    pub delivery_rate: f64,
    /// The sample's segment was sent while the sender was application-limited: its rate is a
    /// lower bound of the path's (BBR keeps it only if it raises the max).
    pub is_app_limited: bool,
    /// The connection's delivered count when the segment was sent.
    pub prior_delivered: u64,
    /// The sample segment's RTT, if it was transmitted once (Karn).
    pub rtt: Option<Dur>,
    /// Segments in flight just after the sample's segment was sent (BBRv3's `tx_in_flight`;
    /// 0 unless the plugin wants it, `Growth::wants_tx_in_flight`).
    pub tx_in_flight: u64,
    /// Segments marked lost since the sample's segment was sent (BBRv3's `rs->lost`; 0 unless
    /// the plugin wants it, as `tx_in_flight`).
    pub lost: u64,
}

/// The connection's delivery accounting, in segments (Linux's `tp->delivered`, `tp->lost`,
/// `sacked_out`, `lost_out`, `retrans_out`), kept by the send log of a sender that samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    /// Segments delivered so far (cumulatively acknowledged or SACKed, each once).
    pub delivered: u64,
    /// Segments marked lost so far (by the recovery plugin's loss detection or a timeout).
    pub lost: u64,
    /// Outstanding segments SACKed.
    pub sacked_out: u64,
    /// Outstanding segments marked lost and not delivered.
    pub lost_out: u64,
    /// Segments marked lost, retransmitted, and not delivered.
    pub retrans_out: u64,
    /// `C.app_limited` (draft §3.4): 0, or the delivered count beyond which the sender is no
    /// longer application-limited.
    pub app_limited: u64,
}

impl Accounting {
    /// Linux's `tcp_packets_in_flight()`: segments believed in the network, out of
    /// `outstanding` (snd_max - snd_una).
    pub fn in_flight(&self, outstanding: u64) -> u64 {
        (outstanding + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// Draft §3.4: the sender has nothing to send although the window allows it, with
    /// `in_flight` segments in flight.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    seq: u64,
    sent_at: Time,
    /// The segment's first transmission (kept by a log that does not sample, the one that
    /// reads it).
    first_sent_at: Time,
    /// Transmitted more than once (Karn).
    retransmitted: bool,
    /// What a sampling log marked it: [`SACKED`], [`LOST`], [`LOST_RETRANSMITTED`]. One
    /// byte, so that a delivery tests the three at once: on most of them none is set.
    marks: u8,
    /// In flight just after this transmission, and the connection's lost count then (kept
    /// only for a reader: `SendLog::tx_in_flight`).
    tx_in_flight: u64,
    tx_lost: u64,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    app_limited: bool,
}

impl Slot {
    /// What orders the transmissions for a rate sample (draft §3.3: the most recently sent
    /// of the segments an ACK delivers): the delivered count then, and the send time.
    #[inline(always)]
    fn key(&self) -> (u64, Time) {
        (self.delivered, self.sent_at)
    }
}

/// Already delivered by a SACK block: a later cumulative ACK does not count it again.
const SACKED: u8 = 1;
/// Marked lost (and not delivered since).
const LOST: u8 = 2;
/// Retransmitted after it was marked lost (counted in `retrans_out`).
const LOST_RETRANSMITTED: u8 = 4;

const EMPTY: Slot = Slot {
    seq: u64::MAX,
    sent_at: Time::ZERO,
    first_sent_at: Time::ZERO,
    retransmitted: false,
    marks: 0,
    tx_in_flight: 0,
    tx_lost: 0,
    delivered: 0,
    delivered_time: Time::ZERO,
    first_sent_time: Time::ZERO,
    app_limited: false,
};

/// `later - earlier`, for times the log knows to be in that order: the log's times are
/// the run's clock when it records them, which only moves on (a segment's send time
/// follows the interval's start it records, and precedes the ACK that delivers it; the
/// delivery time only grows). Without `Time::since`'s saturation: an instruction or two
/// fewer in each rate sample.
#[inline(always)]
fn elapsed(later: Time, earlier: Time) -> Dur {
    debug_assert!(later >= earlier, "{later:?} before {earlier:?}");
    Dur(later.0 - earlier.0)
}

/// The send log of the segments in the window, with the connection's delivery state.
///
/// Delivery-rate sampling costs a few hundred instructions per ACK, about a tenth of a
/// Reno sender's per-packet work: it runs only for the plugins that read the samples
/// (`Growth::wants_rate_samples`). Send times for Karn's rule are always kept.
#[derive(Clone, Debug)]
pub struct SendLog {
    slots: Vec<Slot>,
    mask: u64,
    sampling: bool,
    /// Record each transmission's flight and loss count for `RateSample::tx_in_flight` and
    /// `RateSample::lost` (about a tenth of a send's bookkeeping, read only by BBRv3).
    tx_in_flight: bool,
    /// `C.delivered_time`, `C.first_sent_time` (`C.delivered` is in the sender's
    /// [`Accounting`], which every method that reads or changes it is handed: the sender's
    /// plugins read it in place, with no copy to keep up to date after each change).
    delivered_time: Time,
    first_sent_time: Time,
    /// The candidate sample of the ACK being processed: its segment's slot.
    best: Option<usize>,
    /// The SACK ranges the last walk covered (Linux's `recv_sack_cache`): each of their
    /// segments is SACKed in its slot since (or was never in it) until the cumulative ACK
    /// passes it, so the next walk skips them; behind a hole every ACK repeats the blocks of
    /// the one before it.
    sack_cache: [(u64, u64); MAX_SACK_BLOCKS],
    /// How many of `sack_cache` hold ranges.
    sack_cached: usize,
    /// One past the highest segment sent more than once (0 for none): the segments at and
    /// above it left once each, in order (see [`SendLog::on_cumulative_ack`]).
    resent_below: u64,
}

impl SendLog {
    /// A ring for a window of `window` segments; `sampling` keeps the delivery state.
    pub fn new(window: u32, sampling: bool) -> Self {
        let n = (u64::from(window) + 2).next_power_of_two() as usize;
        Self {
            slots: vec![EMPTY; n],
            mask: n as u64 - 1,
            sampling,
            tx_in_flight: true,
            delivered_time: Time::ZERO,
            first_sent_time: Time::ZERO,
            best: None,
            sack_cache: [(0, 0); MAX_SACK_BLOCKS],
            sack_cached: 0,
            resent_below: 0,
        }
    }

    #[inline]
    fn slot(&self, seq: u64) -> &Slot {
        &self.slots[(seq & self.mask) as usize]
    }

    /// Whether the delivery state is kept (see the type's doc).
    pub fn sampling(&self) -> bool {
        self.sampling
    }

    /// Samples leave `tx_in_flight` and `lost` at 0: their reader is not there.
    pub fn skip_tx_in_flight(&mut self) {
        self.tx_in_flight = false;
    }

    /// What a transmission records for `RateSample::tx_in_flight` and `lost`: in flight once
    /// it is out (new data is not outstanding yet, a retransmission is), and the loss count.
    #[inline]
    fn tx_state(&self, acct: &Accounting, outstanding: u64, retransmission: bool) -> (u64, u64) {
        if !self.tx_in_flight {
            return (0, 0);
        }
        let in_flight = acct.in_flight(outstanding) + u64::from(!retransmission);
        (in_flight, acct.lost)
    }

    /// Segment `seq` is transmitted at `at`; `outstanding` segments (snd_max - snd_una) were
    /// outstanding before. (`acct` is the sender's, as in every method that takes one.)
    #[inline]
    pub fn on_send(
        &mut self,
        seq: u64,
        at: Time,
        retransmission: bool,
        outstanding: u64,
        acct: &mut Accounting,
    ) {
        let i = (seq & self.mask) as usize;
        if !self.sampling {
            let slot = &mut self.slots[i];
            let same = slot.seq == seq;
            slot.retransmitted = retransmission || same && slot.retransmitted;
            if !same {
                slot.first_sent_at = at;
            }
            slot.seq = seq;
            slot.sent_at = at;
            return;
        }
        if outstanding == 0 {
            // Draft §3.2 (Linux: `!tp->packets_out`): a send with nothing outstanding starts
            // a new interval.
            self.first_sent_time = at;
            self.delivered_time = at;
        }
        if self.slots[i].seq != seq {
            // A first transmission (the common case): nothing of the slot's last segment
            // carries over but what is never read: `tx_in_flight` and `tx_lost` without their
            // reader (samples give 0), and the first send time (read only from a log that
            // does not sample). A retransmission finds its slot holding it (every segment
            // below snd_max was sent, and the ring outlasts the window), so what left once
            // leaves here, in order: see `resent_below`.
            debug_assert!(!retransmission, "{seq} resent without its slot");
            let (delivered_time, first_sent_time) = (self.delivered_time, self.first_sent_time);
            let tx_wanted = self.tx_in_flight;
            let slot = &mut self.slots[i];
            slot.seq = seq;
            slot.sent_at = at;
            slot.retransmitted = retransmission;
            slot.marks = 0;
            if tx_wanted {
                // (`tx_state()`'s, written out: through it the sender's code measured 9
                // instructions more per packet.)
                slot.tx_in_flight = acct.in_flight(outstanding) + u64::from(!retransmission);
                slot.tx_lost = acct.lost;
            }
            slot.delivered = acct.delivered;
            slot.delivered_time = delivered_time;
            slot.first_sent_time = first_sent_time;
            slot.app_limited = acct.app_limited != 0;
            return;
        }
        self.on_resend(i, at, retransmission, outstanding, acct);
    }

    /// [`SendLog::on_send`] of a segment whose slot holds its earlier transmission: what it
    /// was marked (lost, SACKed, retransmitted) carries over.
    #[cold]
    fn on_resend(
        &mut self,
        i: usize,
        at: Time,
        retransmission: bool,
        outstanding: u64,
        acct: &mut Accounting,
    ) {
        let old = self.slots[i];
        self.resent_below = self.resent_below.max(old.seq + 1);
        let lost = old.marks & LOST != 0;
        let was_lost_retransmitted = old.marks & LOST_RETRANSMITTED != 0;
        // A retransmission of a segment marked lost is back in the network (retrans_out).
        let lost_retransmitted = lost && (retransmission || was_lost_retransmitted);
        if lost_retransmitted && !was_lost_retransmitted {
            acct.retrans_out += 1;
        }
        // (In flight once this one is out: a retransmission is outstanding, and in flight
        // either as not lost or through retrans_out.)
        let (tx_in_flight, tx_lost) = self.tx_state(acct, outstanding, retransmission);
        self.slots[i] = Slot {
            seq: old.seq,
            sent_at: at,
            first_sent_at: old.first_sent_at,
            retransmitted: retransmission || old.retransmitted,
            marks: old.marks & (SACKED | LOST)
                | if lost_retransmitted {
                    LOST_RETRANSMITTED
                } else {
                    0
                },
            tx_in_flight,
            tx_lost,
            delivered: acct.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: acct.app_limited != 0,
        };
    }

    /// A sampling sender's recovery marks segment `seq` lost (once until it is delivered);
    /// true if newly marked. SACKed segments are not lost.
    pub fn mark_lost(&mut self, seq: u64, acct: &mut Accounting) -> bool {
        let i = (seq & self.mask) as usize;
        let s = &mut self.slots[i];
        if s.seq != seq || s.marks & (SACKED | LOST) != 0 {
            return false;
        }
        s.marks |= LOST;
        acct.lost += 1;
        acct.lost_out += 1;
        true
    }

    /// The recovery found the retransmission of `seq` lost: it leaves the network again
    /// (`retrans_out`) and counts as lost once more.
    pub fn mark_relost(&mut self, seq: u64, acct: &mut Accounting) {
        let s = &mut self.slots[(seq & self.mask) as usize];
        if s.seq == seq && s.marks & LOST_RETRANSMITTED != 0 {
            s.marks &= !LOST_RETRANSMITTED;
            acct.retrans_out -= 1;
            acct.lost += 1;
        }
    }

    /// A timeout: every outstanding segment not SACKed is lost, and no retransmission is in
    /// the network any more (Linux `tcp_timeout_mark_lost()`).
    pub fn mark_all_lost(&mut self, snd_una: u64, snd_max: u64, acct: &mut Accounting) {
        for q in snd_una..snd_max {
            self.mark_lost(q, acct);
            let s = &mut self.slots[(q & self.mask) as usize];
            if s.seq == q && s.marks & LOST_RETRANSMITTED != 0 {
                s.marks &= !LOST_RETRANSMITTED;
                acct.retrans_out -= 1;
            }
        }
    }

    /// A timeout found spurious (Linux's `tcp_undo_cwnd_reduction(sk, true)`): the
    /// outstanding segments are lost no more. Their retransmissions stay in `retrans_out`
    /// (original and copy may both be in the network), and `lost`, the count so far, keeps
    /// them as Linux's `tp->lost` does.
    pub fn unmark_lost(&mut self, snd_una: u64, snd_max: u64, acct: &mut Accounting) {
        for q in snd_una..snd_max {
            let s = &mut self.slots[(q & self.mask) as usize];
            if s.seq == q && s.marks & LOST != 0 {
                s.marks &= !LOST;
                acct.lost_out -= 1;
            }
        }
    }

    /// Send time of `seq` if it was transmitted exactly once (Karn's rule).
    pub fn clean_send_time(&self, seq: u64) -> Option<Time> {
        let s = self.slot(seq);
        (s.seq == seq && !s.retransmitted).then_some(s.sent_at)
    }

    /// The latest send time of `seq` and whether it was ever sent again (RACK's
    /// `tcp_skb_timestamp_us()` and `TCPCB_EVER_RETRANS`), if the log holds it.
    pub fn last_send(&self, seq: u64) -> Option<(Time, bool)> {
        let s = self.slot(seq);
        (s.seq == seq).then_some((s.sent_at, s.retransmitted))
    }

    /// First send time of `seq`, retransmitted or not (the echo of a timestamp option on a
    /// path that loses nothing).
    pub fn first_send_time(&self, seq: u64) -> Option<Time> {
        debug_assert!(!self.sampling, "a sampling log keeps no first send time");
        let s = self.slot(seq);
        (s.seq == seq).then_some(s.first_sent_at)
    }

    /// Segment `seq` is delivered now (by the cumulative ACK, or `by_sack`); counts it once.
    pub fn on_delivered(
        &mut self,
        seq: u64,
        now: Time,
        by_sack: bool,
        acct: &mut Accounting,
    ) -> bool {
        self.deliver(seq, now, by_sack, acct)
    }

    /// A cumulative ACK from `old_una` to `ack`: `on_delivered(q, now, false)` for each of its
    /// segments, in order, where `sacked` (ascending, disjoint) holds runs of segments
    /// SACKed in their slots (runs, or parts of them, outside `[old_una, ack)` are skipped):
    /// a run leaves the scoreboard at once instead of slot by slot. (In a SACK recovery the
    /// ACK that fills the lowest hole passes the run above it, tens of segments.) Their
    /// slots keep their SACK mark: nothing reads a slot below snd_una. Returns the segments
    /// newly delivered.
    #[inline(never)]
    pub fn on_cumulative_ack(
        &mut self,
        old_una: u64,
        ack: u64,
        sacked: &[(u64, u64)],
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        // Most cumulative ACKs outside a recovery, the first deliveries of their ACK (no
        // candidate yet): no outstanding segment is marked (the accounting counts every
        // SACKed, lost and lost-retransmitted one) and none of the ACK's was sent twice.
        // One or two segments (an ACK per segment, or a delayed ACK) in few registers,
        // more and the rest out of line: no register saved on this path.
        if acct.sacked_out | acct.lost_out | acct.retrans_out == 0
            && self.resent_below <= old_una
            && self.best.is_none()
        {
            let i = match ack - old_una {
                1 => (old_una & self.mask) as usize,
                2 => {
                    let lo = (old_una & self.mask) as usize;
                    let hi = ((ack - 1) & self.mask) as usize;
                    if self.slots[lo].key() == self.slots[hi].key() {
                        lo
                    } else {
                        hi
                    }
                }
                _ => return self.deliver_in_order_long(old_una, ack, now, acct),
            };
            return self.deliver_in_order(old_una, ack, now, acct, i);
        }
        self.deliver_cumulative(old_una, ack, sacked, now, acct)
    }

    /// [`SendLog::on_cumulative_ack`] segment by segment, its runs of SACKed segments at
    /// once.
    #[inline(never)]
    fn deliver_cumulative(
        &mut self,
        old_una: u64,
        ack: u64,
        sacked: &[(u64, u64)],
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        let mut newly = 0;
        let mut q = old_una;
        for &(s, e) in sacked {
            if s >= ack {
                break;
            }
            if e <= q {
                continue;
            }
            while q < s {
                newly += u64::from(self.on_delivered(q, now, false, acct));
                q += 1;
            }
            let e = e.min(ack);
            #[cfg(debug_assertions)]
            for x in q..e {
                let slot = self.slot(x);
                debug_assert!(
                    slot.seq == x && slot.marks & SACKED != 0,
                    "{x} is not SACKed in its slot"
                );
            }
            acct.sacked_out -= e - q;
            q = e;
        }
        while q < ack {
            newly += u64::from(self.on_delivered(q, now, false, acct));
            q += 1;
        }
        newly
    }

    /// [`SendLog::on_cumulative_ack`] of segments `[old_una, ack)` (at least one) that
    /// are unmarked and left once each, in order, with no candidate before them: what
    /// `on_delivered` does to each of them, in one step. Their slots change in nothing (a
    /// delivery without marks writes only the connection's state), each counts as
    /// delivered, and the sample's candidate is the first of them (in the order delivered)
    /// with the highest [`Slot::key`]: sent in order, their keys ascend, so it is the
    /// lowest of those that share the top segment's key (a TSO burst's segments leave
    /// together), slot `i`, which the caller found.
    #[inline(always)]
    fn deliver_in_order(
        &mut self,
        old_una: u64,
        ack: u64,
        now: Time,
        acct: &mut Accounting,
        i: usize,
    ) -> u64 {
        debug_assert!(old_una < ack && self.best.is_none());
        // (`deliver`'s choice, segment by segment, on slots it would find unmarked.)
        #[cfg(debug_assertions)]
        let want = (old_una..ack).fold(None, |best: Option<usize>, q| {
            let i = (q & self.mask) as usize;
            let slot = &self.slots[i];
            debug_assert!(slot.seq == q && slot.marks == 0 && !slot.retransmitted);
            match best {
                Some(b) if slot.key() <= self.slots[b].key() => best,
                _ => Some(i),
            }
        });
        self.best = Some(i);
        let newly = ack - old_una;
        acct.delivered += newly;
        self.delivered_time = now;
        #[cfg(debug_assertions)]
        debug_assert_eq!(self.best, want);
        newly
    }

    /// [`SendLog::deliver_in_order`] of three segments or more: the lowest of them that
    /// shares the top segment's key.
    #[inline(never)]
    fn deliver_in_order_long(
        &mut self,
        old_una: u64,
        ack: u64,
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        let mut q = ack - 1;
        let mut i = (q & self.mask) as usize;
        let top = self.slots[i].key();
        while q > old_una {
            let j = ((q - 1) & self.mask) as usize;
            if self.slots[j].key() != top {
                break;
            }
            (q, i) = (q - 1, j);
        }
        self.deliver_in_order(old_una, ack, now, acct, i)
    }

    /// [`SendLog::on_delivered`], always in line: `on_sack_news` has its own copy for SACKs,
    /// so that the sender's out-of-line one, called for cumulative ACKs only, is compiled
    /// for `by_sack` false (measured: an instruction more per cumulatively acknowledged
    /// segment otherwise, 2 per packet for BBR on a path without losses).
    #[inline(always)]
    fn deliver(&mut self, seq: u64, now: Time, by_sack: bool, acct: &mut Accounting) -> bool {
        let i = (seq & self.mask) as usize;
        let s = &mut self.slots[i];
        if s.seq != seq {
            return false;
        }
        let marks = s.marks;
        if marks != 0 {
            if marks & SACKED != 0 {
                if !by_sack {
                    // Cumulatively acknowledged after its SACK: it leaves the scoreboard.
                    // (SACKED excludes the other two marks.)
                    acct.sacked_out -= 1;
                    s.marks = 0;
                }
                return false;
            }
            if marks & LOST != 0 {
                acct.lost_out -= 1;
            }
            if marks & LOST_RETRANSMITTED != 0 {
                acct.retrans_out -= 1;
            }
            s.marks = 0;
        }
        if by_sack {
            s.marks = SACKED;
            acct.sacked_out += 1;
        }
        let key = (s.delivered, s.sent_at);
        acct.delivered += 1;
        self.delivered_time = now;
        // Draft §3.3: the sample comes from the most recently sent segment delivered. The
        // slot is kept by index: nothing is sent before the ACK's sample is taken.
        if self.best.is_none_or(|b| {
            let b = &self.slots[b];
            key > (b.delivered, b.sent_at)
        }) {
            self.best = Some(i);
        }
        true
    }

    /// The SACK blocks of an ACK, clipped to `[lo, hi)` (above its cumulative ACK, below
    /// snd_max): `on_delivered(q, now, true)` for each of their segments, except those the
    /// previous ACK's walk covered (a second call on them changes nothing: a SACKed segment
    /// stays SACKed until the cumulative ACK passes it). Returns the segments newly delivered.
    #[inline]
    pub fn on_sack_blocks(
        &mut self,
        blocks: &[(u64, u64)],
        lo: u64,
        hi: u64,
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        if blocks.is_empty() {
            return 0;
        }
        self.walk_sack_blocks(blocks, (lo, hi), now, acct)
    }

    /// [`SendLog::on_sack_blocks`] of blocks clipped to `[lo, hi)`.
    fn walk_sack_blocks(
        &mut self,
        blocks: &[(u64, u64)],
        (lo, hi): (u64, u64),
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        let (prev, n_prev) = (self.sack_cache, self.sack_cached);
        let prev = &prev[..n_prev];
        let mut newly = 0;
        let mut n = 0;
        for &(start, end) in blocks {
            let (start, end) = (start.max(lo), end.min(hi));
            let mut q = start;
            'walk: while q < end {
                // Past the covered range holding q, or up to the next one.
                let mut stop = end;
                for &(cs, ce) in prev {
                    if cs <= q && q < ce {
                        q = ce;
                        continue 'walk;
                    }
                    if cs > q {
                        stop = stop.min(cs);
                    }
                }
                for x in q..stop {
                    newly += u64::from(self.on_delivered(x, now, true, acct));
                }
                q = stop;
            }
            if start < end && n < MAX_SACK_BLOCKS {
                self.sack_cache[n] = (start, end);
                n += 1;
            }
        }
        self.sack_cached = n;
        newly
    }

    /// The segments an ACK's SACK blocks newly SACK, as ranges its scoreboard found
    /// (`Recovery::on_sack_blocks_news`), clipped to those above its cumulative ACK `lo`:
    /// `on_delivered(q, now, true)` for each, in order, as [`SendLog::on_sack_blocks`] would
    /// find them (every other segment of the blocks is SACKed in its slot already, or was
    /// never in it). Returns the segments newly delivered.
    #[inline(never)]
    pub fn on_sack_news(
        &mut self,
        news: &[(u64, u64)],
        lo: u64,
        now: Time,
        acct: &mut Accounting,
    ) -> u64 {
        // The usual news of an ACK behind a hole: the one segment that just arrived above it
        // (without the general walk's frame, which costs more than the delivery itself).
        if let [(a, b)] = *news {
            if a >= lo && b == a + 1 {
                return u64::from(self.deliver(a, now, true, acct));
            }
        }
        self.walk_news(news, lo, now, acct)
    }

    /// [`SendLog::on_sack_news`] of any news.
    #[inline(never)]
    fn walk_news(&mut self, news: &[(u64, u64)], lo: u64, now: Time, acct: &mut Accounting) -> u64 {
        let mut newly = 0;
        for &(a, b) in news {
            for q in a.max(lo)..b {
                newly += u64::from(self.deliver(q, now, true, acct));
            }
        }
        newly
    }

    /// The rate sample of the ACK whose deliveries were just reported, if any; `min_rtt`
    /// invalidates intervals shorter than the path's RTT (ACK compression, as Linux does).
    /// `rtt` is [`SendLog::pending_rtt`] at `now`, which the sender asked for first (for
    /// its RTT sample): not computed twice.
    pub fn take_sample(
        &mut self,
        min_rtt: Option<Dur>,
        now: Time,
        rtt: Option<Dur>,
        acct: &mut Accounting,
    ) -> Option<RateSample> {
        debug_assert_eq!(rtt, self.pending_rtt(now));
        let p = &self.slots[self.best.take()?];
        // (Draft §3.4's `C.app_limited != 0` left to the comparison: at 0 the store
        // changes nothing.)
        if acct.delivered > acct.app_limited {
            acct.app_limited = 0;
        }
        self.first_sent_time = p.sent_at;
        let send_elapsed = elapsed(p.sent_at, p.first_sent_time);
        let ack_elapsed = elapsed(self.delivered_time, p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        if interval == Dur::ZERO || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        let delivered = acct.delivered - p.delivered;
        Some(RateSample {
            delivered,
            interval,
            // As `delivered as f64 / interval.as_secs()`, through i64: one conversion
            // instruction each where u64 takes several (both below 2^63).
            delivery_rate: delivered as i64 as f64 / (interval.0 as i64 as f64 * 1e-9),
            is_app_limited: p.app_limited,
            prior_delivered: p.delivered,
            rtt,
            // (Both left unwritten in the slots without their reader.)
            tx_in_flight: if self.tx_in_flight { p.tx_in_flight } else { 0 },
            lost: if self.tx_in_flight {
                acct.lost - p.tx_lost
            } else {
                0
            },
        })
    }

    /// The RTT of the segment the pending sample comes from, if it was sent once.
    pub fn pending_rtt(&self, now: Time) -> Option<Dur> {
        self.best
            .map(|b| &self.slots[b])
            .filter(|b| !b.retransmitted)
            .map(|b| elapsed(now, b.sent_at))
    }
}

/// A sampling send log with the accounting a sender keeps beside it (for tests): the log's
/// methods without the accounting argument.
#[cfg(test)]
pub(crate) struct AccountedLog {
    pub log: SendLog,
    pub acct: Accounting,
}

#[cfg(test)]
impl AccountedLog {
    pub fn new(window: u32) -> Self {
        Self {
            log: SendLog::new(window, true),
            acct: Accounting::default(),
        }
    }
    pub fn on_send(&mut self, seq: u64, at: Time, retransmission: bool, outstanding: u64) {
        let acct = &mut self.acct;
        self.log.on_send(seq, at, retransmission, outstanding, acct);
    }
    pub fn on_delivered(&mut self, seq: u64, now: Time, by_sack: bool) -> bool {
        self.log.on_delivered(seq, now, by_sack, &mut self.acct)
    }
    pub fn on_sack_blocks(&mut self, blocks: &[(u64, u64)], lo: u64, hi: u64, now: Time) -> u64 {
        self.log.on_sack_blocks(blocks, lo, hi, now, &mut self.acct)
    }
    pub fn on_sack_news(&mut self, news: &[(u64, u64)], lo: u64, now: Time) -> u64 {
        self.log.on_sack_news(news, lo, now, &mut self.acct)
    }
    pub fn take_sample(&mut self, min_rtt: Option<Dur>, now: Time) -> Option<RateSample> {
        let rtt = self.log.pending_rtt(now);
        self.log.take_sample(min_rtt, now, rtt, &mut self.acct)
    }
    pub fn accounting(&self) -> Accounting {
        self.acct
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn a_window_acked_one_by_one_samples_the_ack_rate() {
        // Four segments sent at 0, 1, 2, 3 ms with nothing in flight before the first; ACKs
        // at 100, 110, 120, 130 ms. The ACK of segment 2 at 120 ms: sent at 2 ms when one
        // segment had been delivered... none had: delivered 0 at its send, first_sent 0 ms.
        let mut log = AccountedLog::new(8);
        for q in 0..4 {
            log.on_send(q, ms(q), false, q);
        }
        let mut samples = Vec::new();
        for q in 0..4 {
            let now = ms(100 + 10 * q);
            assert!(log.on_delivered(q, now, false));
            samples.push(log.take_sample(None, now).unwrap());
        }
        // Segment 0: 1 delivered; send_elapsed 0, ack_elapsed = 100 - 0 = 100 ms.
        assert_eq!(samples[0].delivered, 1);
        assert_eq!(samples[0].interval, Dur::from_secs(0.1));
        // Segment 1: delivered 0 at its send (delivered_time 0), now 2 delivered; first_sent
        // moved to segment 0's send (0 ms): send_elapsed 1 ms, ack_elapsed 110 ms -> 2/0.11.
        assert_eq!(samples[1].delivered, 2);
        assert_eq!(samples[1].interval, Dur::from_secs(0.11));
        assert!((samples[1].delivery_rate - 2.0 / 0.11).abs() < 1e-9);
        // Segment 3: 4 delivered in 130 ms.
        assert_eq!(samples[3].delivered, 4);
        assert_eq!(samples[3].interval, Dur::from_secs(0.13));
        assert_eq!(samples[3].rtt, Some(Dur::from_secs(0.127)));
    }

    #[test]
    fn the_next_window_measures_over_one_round() {
        // Round 1: segments 0-1 sent at 0 ms, acked at 100 and 101 ms; each ACK releases one
        // segment (2 at 100 ms, 3 at 101 ms), acked at 200 and 201 ms.
        let mut log = AccountedLog::new(8);
        log.on_send(0, ms(0), false, 0);
        log.on_send(1, ms(0), false, 1);
        assert!(log.on_delivered(0, ms(100), false));
        log.take_sample(None, ms(100));
        log.on_send(2, ms(100), false, 1);
        assert!(log.on_delivered(1, ms(101), false));
        log.take_sample(None, ms(101));
        log.on_send(3, ms(101), false, 1);
        assert!(log.on_delivered(2, ms(200), false));
        let s = log.take_sample(None, ms(200)).unwrap();
        // Segment 2 was sent when 1 segment was delivered (at 100 ms); now 3: 2 segments in
        // max(send 100 - 0, ack 200 - 100) = 100 ms.
        assert_eq!((s.delivered, s.prior_delivered), (2, 1));
        assert_eq!(s.interval, Dur::from_secs(0.1));
        assert_eq!(s.delivery_rate, 20.0);
    }

    #[test]
    fn sacked_segments_count_once_and_retransmissions_give_no_rtt() {
        let mut log = AccountedLog::new(8);
        for q in 0..4 {
            log.on_send(q, ms(q), false, q);
        }
        // Segment 0 lost; 1-3 SACKed at 100-102 ms.
        for q in 1..4 {
            assert!(log.on_delivered(q, ms(99 + q), true));
            log.take_sample(None, ms(99 + q));
        }
        log.on_send(0, ms(102), true, 4);
        // The cumulative ACK covering 0-3 delivers only segment 0.
        let newly: Vec<bool> = (0..4)
            .map(|q| log.on_delivered(q, ms(150), false))
            .collect();
        assert_eq!(newly, vec![true, false, false, false]);
        let s = log.take_sample(None, ms(150)).unwrap();
        assert_eq!(
            s.delivered, 1,
            "3 delivered when the retransmission was sent, 4 now"
        );
        assert_eq!(s.rtt, None, "Karn: no RTT from a retransmission");
        assert_eq!(log.acct.delivered, 4);
    }

    #[test]
    fn app_limited_marks_samples_until_the_bubble_is_delivered() {
        let mut log = AccountedLog::new(8);
        log.on_send(0, ms(0), false, 0);
        log.acct.mark_app_limited(1); // nothing more to send: delivered 0 + 1 in flight
        log.on_send(1, ms(5), false, 1);
        assert!(log.on_delivered(0, ms(100), false));
        assert!(!log.take_sample(None, ms(100)).unwrap().is_app_limited);
        assert!(log.on_delivered(1, ms(105), false));
        let s = log.take_sample(None, ms(105)).unwrap();
        assert!(s.is_app_limited, "sent while application-limited");
        log.on_send(2, ms(105), false, 0);
        assert!(log.on_delivered(2, ms(205), false));
        assert!(!log.take_sample(None, ms(205)).unwrap().is_app_limited);
    }

    #[test]
    fn intervals_shorter_than_min_rtt_are_discarded() {
        let mut log = AccountedLog::new(8);
        log.on_send(0, ms(0), false, 0);
        assert!(log.on_delivered(0, ms(40), false));
        assert!(log
            .take_sample(Some(Dur::from_secs(0.05)), ms(40))
            .is_none());
    }

    /// A small deterministic generator for the randomised tests: `rnd(n)` in 0..n.
    fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |n| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        }
    }

    /// Sends new segments on every log until 60 are out above `una`.
    fn fill_window(logs: &mut [&mut AccountedLog], una: u64, max: &mut u64, now: Time) {
        while *max < una + 60 {
            for log in logs.iter_mut() {
                log.on_send(*max, now, false, *max - una);
            }
            *max += 1;
        }
    }

    #[test]
    fn sack_news_deliver_as_the_segments_one_by_one() {
        // One log takes each ACK's news through on_sack_news (one-segment news by its short
        // path, the rest by the walk), the other segment by segment: the same counts, the
        // same accounting, the same sample, news below the cumulative ACK clipped.
        let (mut a, mut b) = (AccountedLog::new(64), AccountedLog::new(64));
        let mut rnd = lcg(777);
        let (mut una, mut max) = (0u64, 0u64);
        for step in 0..2000u64 {
            let now = ms(step);
            fill_window(&mut [&mut a, &mut b], una, &mut max, now);
            let ack = if rnd(4) == 0 { una + rnd(8) } else { una };
            let mut news = Vec::new();
            for _ in 0..rnd(3) {
                let s = una + rnd(60);
                let len = if rnd(2) == 0 { 1 } else { 1 + rnd(5) };
                news.push((s, (s + len).min(max)));
            }
            let (mut na, mut nb) = (0, 0);
            for q in una..ack {
                na += u64::from(a.on_delivered(q, now, false));
                nb += u64::from(b.on_delivered(q, now, false));
            }
            na += a.on_sack_news(&news, ack, now);
            for &(s, e) in &news {
                for q in s.max(ack)..e {
                    nb += u64::from(b.on_delivered(q, now, true));
                }
            }
            assert_eq!(na, nb, "step {step}");
            assert_eq!(a.accounting(), b.accounting(), "step {step}");
            assert_eq!(a.take_sample(None, now), b.take_sample(None, now));
            una = ack;
        }
    }

    #[test]
    fn a_cumulative_ack_passes_sacked_runs_as_the_segments_one_by_one() {
        // One log takes each cumulative ACK through on_cumulative_ack with the runs of what
        // is SACKed (some starting below the old cumulative ACK or ending above the new one,
        // as a scoreboard not yet aligned has them; sometimes only part of what is SACKed,
        // as a caller may pass), the other segment by segment: the same counts, the same
        // accounting, the same sample.
        let (mut a, mut b) = (AccountedLog::new(64), AccountedLog::new(64));
        let mut rnd = lcg(4242);
        let (mut una, mut max) = (0u64, 0u64);
        let mut sacked = std::collections::BTreeSet::new();
        for step in 0..3000u64 {
            let now = ms(step);
            fill_window(&mut [&mut a, &mut b], una, &mut max, now);
            let ack = if rnd(3) == 0 { una + rnd(40) } else { una };
            // The runs of the SACKed segments from a little below una.
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for &q in sacked.range(una.saturating_sub(3)..) {
                match runs.last_mut() {
                    Some(r) if r.1 == q => r.1 += 1,
                    _ => runs.push((q, q + 1)),
                }
            }
            if rnd(4) == 0 && !runs.is_empty() {
                runs.remove(rnd(runs.len() as u64) as usize);
            }
            let (mut na, mut nb) = (0, 0);
            if ack > una {
                na += a.log.on_cumulative_ack(una, ack, &runs, now, &mut a.acct);
            }
            for q in una..ack {
                nb += u64::from(b.on_delivered(q, now, false));
            }
            let mut news = Vec::new();
            for _ in 0..rnd(3) {
                let s = una + rnd(60);
                news.push((s, (s + 1 + rnd(4)).min(max)));
            }
            na += a.on_sack_news(&news, ack, now);
            for &(s, e) in &news {
                for q in s.max(ack)..e {
                    nb += u64::from(b.on_delivered(q, now, true));
                    sacked.insert(q);
                }
            }
            assert_eq!(na, nb, "step {step}");
            assert_eq!(a.accounting(), b.accounting(), "step {step}");
            assert_eq!(a.take_sample(None, now), b.take_sample(None, now));
            una = ack;
            sacked = sacked.split_off(&una);
        }
    }

    #[test]
    fn a_cumulative_ack_of_segments_sent_once_in_order_samples_as_one_by_one() {
        // Segments leave in bursts of one to four at one instant (their sample keys tie,
        // their flights differ: the sample must come from the same one), and cumulative
        // ACKs take one to six at a time, mostly with nothing marked or sent twice (the
        // one-step path), sometimes after a loss marked and a retransmission (the
        // segment-by-segment path until the cumulative ACK passes them). The other log
        // takes each segment by itself: the same counts, accounting and sample.
        let (mut a, mut b) = (AccountedLog::new(64), AccountedLog::new(64));
        let mut rnd = lcg(777);
        let (mut una, mut max) = (0u64, 0u64);
        let mut resent_and_lost = 0;
        for step in 0..4000u64 {
            let now = ms(step);
            while max < una + 40 {
                for _ in 0..1 + rnd(4) {
                    a.on_send(max, now, false, max - una);
                    b.on_send(max, now, false, max - una);
                    max += 1;
                }
            }
            if rnd(50) == 0 {
                let q = una + rnd(max - una);
                a.log.mark_lost(q, &mut a.acct);
                b.log.mark_lost(q, &mut b.acct);
                a.on_send(q, now, true, max - una);
                b.on_send(q, now, true, max - una);
                resent_and_lost += 1;
            }
            let ack = (una + 1 + rnd(6)).min(max);
            let na = a.log.on_cumulative_ack(una, ack, &[], now, &mut a.acct);
            let nb: u64 = (una..ack)
                .map(|q| u64::from(b.on_delivered(q, now, false)))
                .sum();
            assert_eq!(na, nb, "step {step}");
            assert_eq!(a.accounting(), b.accounting(), "step {step}");
            assert_eq!(
                a.take_sample(None, now),
                b.take_sample(None, now),
                "step {step}"
            );
            una = ack;
        }
        assert!(resent_and_lost > 50, "{resent_and_lost}");
    }

    #[test]
    fn sack_walks_skip_what_the_previous_ack_covered_with_the_same_result() {
        // Two logs of one window with holes, fed the same ACKs: one walks every segment of
        // every block, the other through on_sack_blocks. Blocks grow, repeat, reorder and
        // fall below the cumulative ACK; both must agree on every count and sample.
        let (mut a, mut b) = (AccountedLog::new(64), AccountedLog::new(64));
        let mut rnd = lcg(12345);
        let (mut una, mut max) = (0u64, 0u64);
        for step in 0..2000u64 {
            let now = ms(step);
            fill_window(&mut [&mut a, &mut b], una, &mut max, now);
            let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
            for blk in blocks.iter_mut().take(rnd(4) as usize) {
                let s = una + rnd(60);
                *blk = (s, s + 1 + rnd(20));
            }
            let ack = if rnd(5) == 0 { una + rnd(10) } else { una };
            let (mut na, mut nb) = (0, 0);
            for q in una..ack {
                na += u64::from(a.on_delivered(q, now, false));
                nb += u64::from(b.on_delivered(q, now, false));
            }
            for &(s, e) in &blocks {
                for q in s.max(ack)..e.min(max) {
                    na += u64::from(a.on_delivered(q, now, true));
                }
            }
            nb += b.on_sack_blocks(&blocks, ack, max, now);
            assert_eq!(na, nb, "step {step}");
            assert_eq!(a.accounting(), b.accounting(), "step {step}");
            assert_eq!(a.take_sample(None, now), b.take_sample(None, now));
            una = ack;
        }
    }
}
