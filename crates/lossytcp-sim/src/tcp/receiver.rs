//! The TCP sink: cumulative ACKs (next expected segment), optional delayed ACKs, optional
//! SACK blocks (RFC 2018: the first block holds the segment that triggered the ACK, then the
//! most recently reported others), or, for profile ns2, the blocks of ns-2 2.35's
//! `Agent/TCPSink/Sack1` ([`Ns2Sacker`]).

use crate::packet::{sack_offsets, SackOffsets, MAX_SACK_BLOCKS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    pub ack: u64,
    /// `sack[..n_sack]`, as the ACK packet carries them (offsets from `ack`): built once,
    /// in the receiver, and moved as they are (half the bytes of absolute blocks).
    pub sack: [SackOffsets; MAX_SACK_BLOCKS],
    /// A full word, not a byte: the ACK is copied whole, without a byte-wise tail.
    pub n_sack: u32,
    /// RFC 7323's TSecr: TS.Recent.
    pub tsecr: u32,
}

impl AckOut {
    /// Appends block `b` (there is room).
    #[inline(always)]
    fn push(&mut self, b: (u64, u64)) {
        self.sack[self.n_sack as usize] = sack_offsets(self.ack, b);
        self.n_sack += 1;
    }

    /// The blocks, absolute.
    #[cfg(test)]
    fn blocks(&self) -> Vec<(u64, u64)> {
        let p = crate::packet::Packet {
            flow: 0,
            conn: 0,
            size_bytes: 0,
            hop: 0,
            route: 0,
            kind: crate::packet::Kind::Ack {
                ack: self.ack,
                sack: self.sack,
                n_sack: self.n_sack as u8,
                tsecr: self.tsecr,
            },
        };
        p.sack_blocks().to_vec()
    }
}

/// ns-2 2.35's SACK sink (tcp-sink.cc `Sacker::append_ack`, `maxSackBlocks_ 3`, no D-SACK).
/// It remembers the blocks it reported, as reported, in a stack of three, newest first: a
/// segment beyond the cumulative ACK is reported in the block around it and pushed; the
/// others follow from the stack, in order, skipping (and forgetting) those the new block
/// covers, and stopping at one that reaches past the highest segment seen. A segment at or
/// below the cumulative ACK adds no block of its own but covers, and so forgets, every
/// remembered block below the first hole at or after it. When the cumulative ACK reaches
/// the highest segment seen, the stack is emptied. Unlike RFC 2018's receiver, an older
/// block falls out of the stack as soon as three newer blocks have been pushed, even where
/// some of those were merged into others since (a retransmission filling a hole then reports
/// fewer blocks: checked against ns-2's ACK sizes, 8 bytes a block, on 7367 ACKs of a SACK
/// flow over RED).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Ns2Sacker {
    /// `stack[..len]`, newest first: a fixed array, as ns-2's (no allocation or shifting
    /// of a heap vector on every ACK).
    stack: [(u64, u64); MAX_SACK_BLOCKS],
    len: usize,
}

impl Ns2Sacker {
    fn remove(&mut self, k: usize) {
        // Element by element: three at most, where copy_within calls memmove.
        for i in k + 1..self.len {
            self.stack[i - 1] = self.stack[i];
        }
        self.len -= 1;
    }

    /// Pushes `b` on top; the oldest block falls out of a full stack.
    fn push(&mut self, b: (u64, u64)) {
        self.stack.copy_within(0..MAX_SACK_BLOCKS - 1, 1);
        self.stack[0] = b;
        self.len = (self.len + 1).min(MAX_SACK_BLOCKS);
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receiver {
    rcv_next: u64,
    /// The segments received above `rcv_next`, as maximal runs `[start, end)` in order
    /// (disjoint and not adjacent, all above `rcv_next`): a SACK block is one look-up, not a
    /// walk over its segments, which made every ACK cost O(window) behind a loss. A sorted
    /// vector, not a map: there are a few runs (one per hole), and a binary search over them
    /// costs a fraction of a B-tree's look-up, made several times per segment.
    out_of_order: Vec<(u64, u64)>,
    /// Segments whose blocks were reported most recently, newest first.
    recent: Vec<u64>,
    /// `Some`: ns-2's blocks instead of RFC 2018's.
    ns2: Option<Ns2Sacker>,
    /// RFC 2883's DSACK: the next ACK reports a duplicate segment first (RFC 2018 blocks).
    dsack: bool,
    /// The duplicate segment the next ACK reports (Linux's `rx_opt.dsack`: sent once).
    dsack_seg: Option<u64>,
    sack: bool,
    delayed: bool,
    /// A delayed ACK is owed (one in-order segment unacknowledged).
    pending: bool,
    /// RFC 7323 §4.3's TS.Recent and Last.ACK.sent.
    ts_recent: u32,
    last_ack_sent: u64,
    /// With ns-2's blocks, the ACK last sent while the next segment above the highest
    /// out-of-order run makes the same ACK with its first block one longer
    /// ([`Receiver::on_data`]), and that segment, `grow_at` (u64::MAX when there is none).
    grown: AckOut,
    grow_at: u64,
    pub received: u64,
    pub delivered: u64,
}

/// The run of `runs` (sorted, disjoint) holding `seq`, if any.
fn run_of(runs: &[(u64, u64)], seq: u64) -> Option<(u64, u64)> {
    let i = runs.partition_point(|&(start, _)| start <= seq);
    i.checked_sub(1)
        .map(|i| runs[i])
        .filter(|&(_, end)| seq < end)
}

/// What the receiver wants after a segment arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    Ack(AckOut),
    /// Hold the ACK: the caller arms the delayed-ACK timer.
    Delay,
}

impl Receiver {
    pub fn new(sack: bool, delayed: bool) -> Self {
        Self {
            rcv_next: 0,
            out_of_order: Vec::new(),
            recent: Vec::new(),
            ns2: None,
            dsack: false,
            dsack_seg: None,
            sack,
            delayed,
            pending: false,
            ts_recent: 0,
            last_ack_sent: 0,
            grown: AckOut {
                ack: 0,
                sack: [(0, 0); MAX_SACK_BLOCKS],
                n_sack: 0,
                tsecr: 0,
            },
            grow_at: u64::MAX,
            received: 0,
            delivered: 0,
        }
    }

    /// The timestamp `tsval` of data segment `seq`, before [`Receiver::on_data`] takes the
    /// segment: RFC 7323 §4.3 keeps it as TS.Recent, the value the next ACK echoes, if it is
    /// not older than TS.Recent and the segment starts at or below the last ACK sent (so a
    /// delayed ACK echoes the earlier of its segments, and an ACK that a hole's filling
    /// releases echoes the copy that filled it).
    pub fn on_timestamp(&mut self, seq: u64, tsval: u32) {
        if seq <= self.last_ack_sent && !crate::packet::ts_before(tsval, self.ts_recent) {
            self.ts_recent = tsval;
        }
    }

    /// SACK blocks as ns-2 2.35's `Agent/TCPSink/Sack1` builds them (profile ns2).
    pub fn with_ns2_blocks(mut self) -> Self {
        debug_assert!(self.sack, "ns-2's blocks are SACK blocks");
        self.ns2 = Some(Ns2Sacker::default());
        self
    }

    /// DSACK (RFC 2883) in RFC 2018's blocks.
    pub fn with_dsack(mut self) -> Self {
        debug_assert!(
            self.sack && self.ns2.is_none(),
            "DSACK needs RFC 2018 blocks"
        );
        self.dsack = true;
        self
    }

    /// RFC 2883 §4 (Linux's `tcp_dsack_set()`): duplicate `seq` is reported in the first
    /// block of the next ACK. A duplicate above `rcv_next` also makes its run the most
    /// recent, so the second block is the one holding it (§4's rule, as Linux's
    /// `tcp_sack_new_ofo_skb()` after `tcp_data_queue_ofo()` finds a duplicate).
    /// One below goes on the list too, where `make_ack` skips and forgets it: a list not
    /// empty is what sends `make_ack` to the blocks, so an ACK without any pays no DSACK test.
    #[cold]
    fn note_duplicate(&mut self, seq: u64) {
        self.dsack_seg = Some(seq);
        self.recent.retain(|&s| s != seq);
        self.recent.insert(0, seq);
    }

    pub fn rcv_next(&self) -> u64 {
        self.rcv_next
    }

    /// The run of out-of-order segments holding `seq`, if any.
    fn run_of(&self, seq: u64) -> Option<(u64, u64)> {
        run_of(&self.out_of_order, seq)
    }

    /// Records `seq` (above `rcv_next`) as received: whether it was new, and the run that
    /// holds it now.
    fn insert_out_of_order(&mut self, seq: u64) -> (bool, (u64, u64)) {
        let runs = &mut self.out_of_order;
        // Behind a hole nearly every segment extends the highest run (new data above every
        // hole): no search for it.
        if let Some(last) = runs.last_mut() {
            if last.1 == seq {
                last.1 += 1;
                return (true, *last);
            }
        }
        // runs[..i] start at or below seq.
        let i = runs.partition_point(|&(start, _)| start <= seq);
        if i > 0 && seq < runs[i - 1].1 {
            return (false, runs[i - 1]);
        }
        let joins_prev = i > 0 && runs[i - 1].1 == seq;
        let joins_next = i < runs.len() && runs[i].0 == seq + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                runs[i - 1].1 = runs[i].1;
                runs.remove(i);
                (true, runs[i - 1])
            }
            (true, false) => {
                runs[i - 1].1 = seq + 1;
                (true, runs[i - 1])
            }
            (false, true) => {
                runs[i].0 = seq;
                (true, runs[i])
            }
            (false, false) => {
                runs.insert(i, (seq, seq + 1));
                (true, (seq, seq + 1))
            }
        }
    }

    /// `Sacker::append_ack()` for the segment `old` just received, found in `run` (or (0,
    /// 0)), a duplicate if `dup`. `ABOVE`: `old` is new and above `rcv_next` (`run` holds it), so
    /// that the tests of the other cases are known (asserted in debug builds): it has a
    /// block of its own, and segments are held above the cumulative ACK.
    #[inline(always)]
    fn ns2_blocks_of<const ABOVE: bool>(&mut self, out: &mut AckOut, run: (u64, u64), dup: bool) {
        let Some(sk) = self.ns2.as_mut() else {
            return;
        };
        // The ACK goes out as the segment arrives (only an in-order segment's is delayed).
        let own = ABOVE || run.1 > 0;
        // ns-2's seqno = next_ - 1, -1 before the first in-order segment: compare shifted.
        let acked = self.rcv_next; // seqno + 1

        // ns-2's `maxseen_`, the highest segment received, is not kept: every segment below
        // rcv_next was received and every one received above it is held, so maxseen_ is at
        // or above the cumulative ACK exactly when a run is held, and maxseen_ + 1 is the
        // end of the highest run (rcv_next when none is). ns-2 clips blocks there: a block
        // of its own ends at or below it, and so does the ACK (hence no clipping below).
        let held = !self.out_of_order.is_empty();
        let seen_end = self.out_of_order.last().map_or(acked, |&(_, end)| end);
        debug_assert!(!ABOVE || (run.1 > 0 && held));
        if !ABOVE && !held && sk.len > 0 {
            sk.len = 0;
        } else if ABOVE || held || dup {
            let recent = if !own {
                // at or below the cumulative ACK: no block of its own (left edge 0); the
                // first segment not received from it is rcv_next
                (0, acked)
            } else {
                // `old` was received above rcv_next: `[old, right)` is the end of its run,
                // and the block reaches back to the run's start (the last hole below it)
                let (left, end) = run;
                debug_assert!(run_of(&self.out_of_order, end - 1) == Some(run) && left > acked);
                debug_assert!(end <= seen_end);
                out.push(run);
                run
            };
            // ns-2 stops at a remembered block that reaches past the highest segment seen;
            // none does: each ended at or below maxseen_ + 1 when pushed, and maxseen_ only
            // grows.
            debug_assert!(sk.stack[..sk.len].iter().all(|&(_, r)| r <= seen_end));
            // Nearly always the segment grew the run whose block is on top: ns-2 forgets
            // that block and pushes the new one, which here replaces it in place.
            let mut k = 0;
            let top = sk.stack[0];
            let replaced = own && sk.len > 0 && recent.0 <= top.0 && recent.1 >= top.1;
            if replaced {
                sk.stack[0] = recent;
                k = 1;
            }
            while (out.n_sack as usize) < MAX_SACK_BLOCKS && k < sk.len {
                let (l, r) = sk.stack[k];
                if recent.0 <= l && recent.1 >= r {
                    sk.remove(k);
                    continue;
                }
                out.push((l, r));
                k += 1;
            }
            if own && !replaced {
                sk.push(recent);
            }
        }
    }

    /// Inlined with ns-2's blocks into its two callers: an ACK then costs no call (measured
    /// -14 instructions per packet for every variant on `same` and `fast`, -38 for BBR on
    /// `two-hop`); RFC 2018's blocks, long and not built on a path that loses nothing,
    /// stay out of line.
    /// `run` and `dup` are ns-2's `old` (`Sacker::append_ack()`): the run of out-of-order
    /// segments that holds the segment just received, or empty (0, 0) when it was at or
    /// below `rcv_next` (or for the delayed-ACK timer, which only an in-order segment arms);
    /// and whether it was a duplicate.
    #[inline(always)]
    fn make_ack(&mut self, run: (u64, u64), dup: bool) -> AckOut {
        let mut out = self.ack_without_blocks();
        if self.sack {
            if self.ns2.is_some() {
                // Not the segment above the highest run, new (see on_data).
                self.grow_at = u64::MAX;
                self.ns2_blocks_of::<false>(&mut out, run, dup);
            } else if !self.recent.is_empty() {
                self.rfc2018_blocks(&mut out);
            }
        }
        out
    }

    /// The ACK sent now, before its SACK blocks.
    #[inline(always)]
    fn ack_without_blocks(&mut self) -> AckOut {
        self.last_ack_sent = self.rcv_next;
        AckOut {
            ack: self.rcv_next,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            n_sack: 0,
            tsecr: self.ts_recent,
        }
    }

    /// RFC 2018's blocks (with RFC 2883's DSACK first).
    #[inline(never)]
    fn rfc2018_blocks(&mut self, out: &mut AckOut) {
        // Filtered in place: no allocation per ACK (and no work on the ACKs of a path
        // with nothing out of order).
        let mut first = 0;
        if let Some(d) = self.dsack_seg.take() {
            // The DSACK block stands apart: the run holding it follows even when it is
            // the same single segment (RFC 2883 §4, Linux's separate duplicate_sack).
            out.push((d, d + 1));
            first = 1;
        }
        let mut kept = 0;
        for i in 0..self.recent.len() {
            let s = self.recent[i];
            if s < self.rcv_next {
                continue;
            }
            let Some(b) = self.run_of(s) else {
                continue;
            };
            if out.sack[first..out.n_sack as usize].contains(&sack_offsets(out.ack, b)) {
                continue;
            }
            self.recent[kept] = s;
            kept += 1;
            if (out.n_sack as usize) < MAX_SACK_BLOCKS {
                out.push(b);
            }
        }
        self.recent.truncate(kept.min(2 * MAX_SACK_BLOCKS));
    }

    /// [`Receiver::on_data`]'s ACK for ns-2's SACK sink when the segment just received was
    /// new and above `rcv_next`, in `run` now (behind a hole, nearly every segment): made
    /// at once, without `on_data`'s tests of the cases it is not (a duplicate, DSACK, RFC
    /// 2018's list of recent blocks, a delayed ACK).
    #[inline(always)]
    fn ns2_ack_above(&mut self, run: (u64, u64)) -> AckOut {
        self.pending = false;
        let mut out = self.ack_without_blocks();
        self.ns2_blocks_of::<true>(&mut out, run, false);
        // The run reported first is now on top of ns-2's stack (replaced or pushed).
        self.grow_at = if self.out_of_order.last() == Some(&run) {
            self.grown = out;
            run.1
        } else {
            u64::MAX
        };
        out
    }

    /// A data segment arrived.
    ///
    /// Behind a hole nearly every segment is the one just above the highest run of
    /// out-of-order segments, and with ns-2's blocks its ACK is then the last one with the
    /// first block one longer, when that ACK was made by the segment before it (`grow_at`):
    /// the same cumulative ACK and TS.Recent (the segment is above the last ACK sent), the
    /// first block that run, now on top of ns-2's stack, grown in place; and the same blocks
    /// after it: a remembered block ends at most one past the highest segment received when
    /// it was pushed, so at or below this segment, and the grown block covers (and ns-2
    /// forgets) none that the run's last block did not. Any other arrival drops the kept
    /// ACK. A debug build checks each such ACK and the receiver against the full path.
    #[inline(never)]
    pub fn on_data(&mut self, seq: u64) -> RxAction {
        if seq == self.grow_at {
            return RxAction::Ack(self.grow_top(seq));
        }
        self.on_data_full(seq)
    }

    /// [`Receiver::on_data`] for the segment `grow_at`.
    #[inline(always)]
    fn grow_top(&mut self, seq: u64) -> AckOut {
        #[cfg(debug_assertions)]
        let full = {
            let mut r = self.clone();
            r.grow_at = u64::MAX;
            let a = r.on_data_full(seq);
            (a, r)
        };
        self.received += 1;
        self.grow_at = seq + 1;
        if let Some(top) = self.out_of_order.last_mut() {
            top.1 = seq + 1;
        }
        if let Some(sk) = self.ns2.as_mut() {
            sk.stack[0].1 = seq + 1;
        }
        self.grown.sack[0].1 = self.grown.sack[0].1.wrapping_add(1);
        #[cfg(debug_assertions)]
        assert_eq!((&full.0, &full.1), (&RxAction::Ack(self.grown), &*self));
        self.grown
    }

    /// [`Receiver::on_data`]'s full path.
    #[inline(never)]
    fn on_data_full(&mut self, seq: u64) -> RxAction {
        self.received += 1;
        let in_order = seq == self.rcv_next;
        let had_gap = !self.out_of_order.is_empty();
        // Acker::update(): a duplicate is below the cumulative ACK or seen before (for
        // ns-2's blocks; a segment above rcv_next is a duplicate when it is not newly
        // inserted below)
        let mut dup = seq < self.rcv_next;
        // The out-of-order run now holding `seq`, if it went into one.
        let mut run = (0, 0);
        if in_order {
            self.rcv_next += 1;
            self.delivered += 1;
            // (No call into the map when it is empty, as it is on a path that loses nothing.)
            let joined = if had_gap && self.out_of_order[0].0 == self.rcv_next {
                Some(self.out_of_order.remove(0).1)
            } else {
                None
            };
            if let Some(end) = joined {
                self.delivered += end - self.rcv_next;
                self.rcv_next = end;
            }
        } else if seq > self.rcv_next {
            let (inserted, r) = self.insert_out_of_order(seq);
            if inserted && self.ns2.is_some() {
                return RxAction::Ack(self.ns2_ack_above(r));
            }
            dup = !inserted;
            run = r;
            if dup && self.dsack {
                self.note_duplicate(seq);
            }
            if inserted && self.sack && self.ns2.is_none() {
                // Kept short by make_ack's RFC 2018 blocks; only they need to know which
                // blocks are recent (ns-2's blocks keep their own stack, and make_ack never
                // trims this list for them: kept, it grew with every out-of-order segment of
                // the run).
                self.recent.retain(|&s| s != seq);
                self.recent.insert(0, seq);
            }
        } else if self.dsack {
            // Below rcv_next: a duplicate.
            self.note_duplicate(seq);
        }
        // RFC 5681 §4.2: ACK at once for out-of-order data or data that fills a gap; otherwise
        // every second full-sized segment, or when the delayed-ACK timer fires.
        if self.delayed && in_order && !had_gap {
            if self.pending {
                self.pending = false;
                return RxAction::Ack(self.make_ack(run, dup));
            }
            self.pending = true;
            // The kept ACK needs a run above rcv_next: there was none (had_gap).
            debug_assert_eq!(self.grow_at, u64::MAX);
            return RxAction::Delay;
        }
        self.pending = false;
        RxAction::Ack(self.make_ack(run, dup))
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self) -> Option<AckOut> {
        if self.pending {
            self.pending = false;
            // Armed only by an in-order segment, new (ns-2's `old` at or below rcv_next).
            Some(self.make_ack((0, 0), false))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(a: RxAction) -> AckOut {
        match a {
            RxAction::Ack(x) => x,
            RxAction::Delay => panic!("expected an ACK"),
        }
    }

    /// Segment `seq` with timestamp `ts` arrives.
    fn data(r: &mut Receiver, seq: u64, ts: u32) -> RxAction {
        r.on_timestamp(seq, ts);
        r.on_data(seq)
    }

    #[test]
    fn the_echo_is_ts_recent_as_rfc_7323_keeps_it() {
        // §4.3: a delayed ACK echoes the earlier of its two segments.
        let mut r = Receiver::new(true, true);
        assert_eq!(data(&mut r, 0, 10), RxAction::Delay);
        assert_eq!(ack(data(&mut r, 1, 11)).tsecr, 10);
        // Segment 2 is late; 3 arrives (out of order: ACK at once, echoing TS.Recent, not
        // 3's, which starts beyond the last ACK sent).
        let mut r = Receiver::new(true, false);
        ack(data(&mut r, 0, 10));
        ack(data(&mut r, 1, 11));
        assert_eq!(ack(data(&mut r, 3, 13)).tsecr, 11);
        // The original of 2 fills the hole: its timestamp, older than a retransmission's.
        assert_eq!(ack(data(&mut r, 2, 12)).tsecr, 12);
        // The retransmission of 2 comes after: a duplicate whose newer timestamp is kept
        // (it starts at or below the last ACK sent).
        assert_eq!(ack(data(&mut r, 2, 50)).tsecr, 50);
        // An older copy never moves TS.Recent back.
        assert_eq!(ack(data(&mut r, 4, 40)).tsecr, 50);
    }

    #[test]
    fn cumulative_acks_and_dupacks() {
        let mut r = Receiver::new(false, false);
        assert_eq!(ack(r.on_data(0)).ack, 1);
        assert_eq!(ack(r.on_data(2)).ack, 1);
        assert_eq!(ack(r.on_data(3)).ack, 1);
        assert_eq!(ack(r.on_data(1)).ack, 4);
        assert_eq!(r.delivered, 4);
        assert_eq!(
            ack(r.on_data(1)).ack,
            4,
            "a duplicate segment is acked again"
        );
        assert_eq!(r.received, 5);
    }

    #[test]
    fn sack_blocks_newest_first() {
        let mut r = Receiver::new(true, false);
        r.on_data(0);
        let a = ack(r.on_data(2));
        assert_eq!(&a.blocks()[..], &[(2, 3)]);
        let a = ack(r.on_data(5));
        assert_eq!(&a.blocks()[..], &[(5, 6), (2, 3)]);
        let a = ack(r.on_data(3));
        assert_eq!(&a.blocks()[..], &[(2, 4), (5, 6)]);
        let a = ack(r.on_data(8));
        let a2 = ack(r.on_data(10));
        assert_eq!(a.n_sack, 3);
        assert_eq!(&a2.blocks()[..], &[(10, 11), (8, 9), (2, 4)]);
        let a = ack(r.on_data(1));
        assert_eq!(a.ack, 4);
        assert_eq!(&a.blocks()[..], &[(10, 11), (8, 9), (5, 6)]);
    }

    #[test]
    fn dsack_reports_a_duplicate_first_once_and_its_run_second() {
        let mut r = Receiver::new(true, false).with_dsack();
        for q in [0, 1, 2] {
            r.on_data(q);
        }
        // Below rcv_next (RFC 2883 §4.1's example): the DSACK block alone, then nothing.
        assert_eq!(blocks(ack(r.on_data(1))), vec![(1, 2)]);
        assert_eq!(blocks(ack(r.on_data(3))), vec![]);
        // Above it (§4.2): 5-6 and 8 held, 5 again: the DSACK, then the run holding it, then
        // the other; a single-segment run is repeated after its DSACK.
        for q in [5, 6, 8] {
            r.on_data(q);
        }
        assert_eq!(blocks(ack(r.on_data(5))), vec![(5, 6), (5, 7), (8, 9)]);
        assert_eq!(blocks(ack(r.on_data(8))), vec![(8, 9), (8, 9), (5, 7)]);
        assert_eq!(blocks(ack(r.on_data(9))), vec![(8, 10), (5, 7)]);
        // Without the option the same duplicates report nothing new.
        let mut r = Receiver::new(true, false);
        for q in [0, 1, 2] {
            r.on_data(q);
        }
        assert_eq!(blocks(ack(r.on_data(1))), vec![]);
    }

    #[test]
    fn delayed_acks_every_second_segment_and_at_once_out_of_order() {
        let mut r = Receiver::new(false, true);
        assert_eq!(r.on_data(0), RxAction::Delay);
        assert_eq!(ack(r.on_data(1)).ack, 2);
        assert_eq!(r.on_data(2), RxAction::Delay);
        assert_eq!(r.on_delack_timer().map(|a| a.ack), Some(3));
        assert_eq!(r.on_delack_timer(), None);
        assert_eq!(ack(r.on_data(4)).ack, 3, "out of order: immediate");
        assert_eq!(ack(r.on_data(3)).ack, 5, "fills the gap: immediate");
    }

    fn blocks(a: AckOut) -> Vec<(u64, u64)> {
        a.blocks()
    }

    #[test]
    fn ns2_sack_sink_keeps_no_list_of_recent_blocks() {
        // Its blocks come from its own stack: a run with a hole that never fills (segment 0
        // lost for good) must not grow the RFC 2018 list at every out-of-order segment.
        let mut r = Receiver::new(true, false).with_ns2_blocks();
        for seq in 1..2_000 {
            r.on_data(seq);
        }
        assert!(r.recent.is_empty());
        let mut rfc = Receiver::new(true, false);
        for seq in 1..2_000 {
            rfc.on_data(seq);
        }
        assert!(
            rfc.recent.len() <= 3,
            "RFC 2018's list stays at the reported blocks"
        );
    }

    #[test]
    fn ns2_sack_sink_forgets_blocks_pushed_out_of_its_stack() {
        // Worked through tcp-sink.cc Sacker::append_ack() by hand.
        let mut r = Receiver::new(true, false).with_ns2_blocks();
        r.on_data(0);
        assert_eq!(blocks(ack(r.on_data(2))), [(2, 3)]);
        assert_eq!(blocks(ack(r.on_data(5))), [(5, 6), (2, 3)]);
        // 3 extends (2, 3): the stale (2, 3) is covered and forgotten
        assert_eq!(blocks(ack(r.on_data(3))), [(2, 4), (5, 6)]);
        assert_eq!(blocks(ack(r.on_data(8))), [(8, 9), (2, 4), (5, 6)]);
        // a fourth block pushes (5, 6) out of the stack of three; RFC 2018's receiver
        // would still report it after the retransmission below
        assert_eq!(blocks(ack(r.on_data(10))), [(10, 11), (8, 9), (2, 4)]);
        let a = ack(r.on_data(1));
        assert_eq!(a.ack, 4);
        assert_eq!(blocks(a), [(10, 11), (8, 9)]);
        // in-order segments forget the blocks they reach
        assert_eq!(blocks(ack(r.on_data(4))), [(10, 11), (8, 9)]);
        r.on_data(6);
        assert_eq!(blocks(ack(r.on_data(7))), [(10, 11)]);
        // everything up to the highest segment seen: no blocks, the stack emptied
        assert_eq!(blocks(ack(r.on_data(9))), []);
        assert_eq!(blocks(ack(r.on_data(5))), []);
        assert_eq!(blocks(ack(r.on_data(12))), [(12, 13)]);
    }

    #[test]
    fn ns2_sack_sink_blocks_from_the_run_found_on_arrival() {
        // Worked through tcp-sink.cc Sacker::append_ack() by hand: the highest run grown
        // (the receiver's fast path), a duplicate inside a run, a run grown downwards.
        let mut r = Receiver::new(true, false).with_ns2_blocks();
        r.on_data(0);
        assert_eq!(blocks(ack(r.on_data(2))), [(2, 3)]);
        assert_eq!(blocks(ack(r.on_data(3))), [(2, 4)]);
        assert_eq!(
            blocks(ack(r.on_data(3))),
            [(2, 4)],
            "a duplicate reports its run"
        );
        assert_eq!(blocks(ack(r.on_data(6))), [(6, 7), (2, 4)]);
        assert_eq!(blocks(ack(r.on_data(7))), [(6, 8), (2, 4)]);
        let a = ack(r.on_data(1));
        assert_eq!((a.ack, blocks(a)), (4, vec![(6, 8)]));
        assert_eq!(blocks(ack(r.on_data(5))), [(5, 8)]);
        let a = ack(r.on_data(4));
        assert_eq!((a.ack, blocks(a)), (8, vec![]));
    }

    #[test]
    fn ns2_grown_ack_is_the_full_paths() {
        // The kept ACK grown by the segment above the highest run (on_data) against the
        // full path on every segment, the whole receiver compared after each: random
        // losses, retransmissions of holes, duplicates below and above rcv_next, and the
        // delayed-ACK timer.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut rnd = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for delayed in [false, true] {
            let mut fast = Receiver::new(true, delayed).with_ns2_blocks();
            let mut full = fast.clone();
            let (mut next, mut holes, mut grown) = (0, Vec::new(), 0);
            for _ in 0..50_000 {
                let r = rnd(100);
                let seq = if r < 4 && !holes.is_empty() {
                    holes.swap_remove(rnd(holes.len() as u64) as usize)
                } else if r < 6 {
                    rnd(next + 1)
                } else {
                    next += 1;
                    if rnd(100) < 6 {
                        holes.push(next - 1);
                        continue;
                    }
                    next - 1
                };
                grown += u32::from(seq == fast.grow_at);
                assert_eq!(fast.on_data(seq), full.on_data_full(seq), "segment {seq}");
                assert_eq!(fast, full, "segment {seq}");
                if rnd(10) == 0 {
                    assert_eq!(fast.on_delack_timer(), full.on_delack_timer());
                }
            }
            assert!(grown > 20_000, "{grown} ACKs grown");
        }
    }

    #[test]
    fn ns2_sack_sink_first_segment_lost() {
        let mut r = Receiver::new(true, false).with_ns2_blocks();
        assert_eq!(blocks(ack(r.on_data(1))), [(1, 2)]);
        assert_eq!(blocks(ack(r.on_data(2))), [(1, 3)]);
        // the hole filled up to the highest segment seen: no blocks
        let a = ack(r.on_data(0));
        assert_eq!((a.ack, blocks(a)), (3, vec![]));
    }
}
