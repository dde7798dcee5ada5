//! The SACK scoreboards: which segments of `[snd_una, snd_max)` the receiver reported
//! holding, segment by segment (ns-2's Sack1, `sack1.rs`) or as runs (RFC 6675, `sack.rs`).

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

/// The same knowledge as [`Scoreboard`] kept as the runs of SACKed segments, for RFC 6675's
/// queries: IsLost, SetPipe and NextSeg each become a walk over the runs (one per hole the
/// receiver reported) instead of over every outstanding segment, which made each ACK and
/// each send in recovery cost O(window).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackedRuns {
    /// `[start, end)`, ascending, disjoint and not adjacent, all at or above `base`. A
    /// vector, not a deque: the walks from the top and the indexed merges run on every ACK
    /// and send in recovery, forgetting from the front once per advance of snd_una.
    runs: Vec<(u64, u64)>,
    base: u64,
    /// One past the highest SACKed segment (kept when `align` forgets it).
    high_sacked: u64,
    /// Counts the merges that changed the runs otherwise than by growing a top run that
    /// held DupThresh segments: an answer kept with it and with snd_una holds while both
    /// stand, up to `top_grown` (`align` changes the runs only when snd_una moves past
    /// `base`).
    generation: u64,
    /// Segments the merges added to a top run that already held DupThresh segments: each
    /// moves the lost limit, which lies in that run, up by one and changes nothing below it
    /// (see [`SackedRuns::top_grown`]).
    top_grown: u64,
    /// The DupThresh-th highest SACKed segment, if that many are SACKed (see
    /// [`SackedRuns::lost_limit`]). Kept by the merge and `align`, the two that change the
    /// runs, as Linux keeps its `lost_out` and `sacked_out`: RFC 6675's SetPipe and NextSeg,
    /// and the sampling senders' loss marking, ask for it on every ACK and send.
    lost_limit: Option<u64>,
    /// A mark (HighRxt + 1 in a recovery, else 0) and the SACKed segments in `[base, mark)`
    /// (see [`SackedRuns::sacked_below_mark`]), kept alike.
    mark: u64,
    sacked_below_mark: u64,
}

impl SackedRuns {
    pub fn base(&self) -> u64 {
        self.base
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// While `generation` and snd_una stand, the runs changed only by growing the top run,
    /// which held DupThresh (the lost limit's) segments before each growth, by this many
    /// segments in all since: the lost limit moved up as many, and no run below the top
    /// one, nor the top run's start, changed.
    pub fn top_grown(&self) -> u64 {
        self.top_grown
    }

    pub fn high_sacked(&self) -> u64 {
        self.high_sacked
    }

    /// The runs, ascending, disjoint and not adjacent (those below snd_una until `align`
    /// forgets them).
    #[inline]
    pub fn runs(&self) -> &[(u64, u64)] {
        &self.runs
    }

    /// Forgets the segments below `snd_una`.
    #[inline]
    // (Collapsing the inner test into the match would send the common case, the first hole
    // not yet filled, to `forget_below`.)
    #[allow(clippy::collapsible_match)]
    pub fn align(&mut self, snd_una: u64) {
        if snd_una <= self.base {
            return;
        }
        self.base = snd_una;
        // Most ACKs: nothing SACKed (and so no lost limit, nothing below the mark), or the
        // first hole not yet filled.
        match self.runs.first_mut() {
            None => {}
            Some(r) if r.1 > snd_una => {
                if r.0 < snd_una {
                    let forgotten = snd_una - r.0;
                    r.0 = snd_una;
                    self.forgot(forgotten, snd_una);
                }
            }
            Some(_) => self.forget_below(snd_una),
        }
    }

    /// `align`'s rarer half, kept out of line so that `align` stays small enough to inline
    /// into the sender's per-ACK path.
    #[inline(never)]
    fn forget_below(&mut self, snd_una: u64) {
        // The runs end in ascending order too: those wholly below snd_una lead.
        let below = self.runs.partition_point(|r| r.1 <= snd_una);
        let mut forgotten: u64 = self.runs.drain(..below).map(|(s, e)| e - s).sum();
        if let Some(r) = self.runs.first_mut() {
            if r.0 < snd_una {
                forgotten += snd_una - r.0;
                r.0 = snd_una;
            }
        }
        self.forgot(forgotten, snd_una);
    }

    /// The counters after `align` forgot `forgotten` SACKed segments, all below the new
    /// base `snd_una`. The DupThresh highest SACKed segments are all left if the lost limit
    /// is at or above it, else fewer than DupThresh are left.
    fn forgot(&mut self, forgotten: u64, snd_una: u64) {
        if self.lost_limit.is_some_and(|l| l < snd_una) {
            self.lost_limit = None;
        }
        if self.mark <= snd_una {
            self.sacked_below_mark = 0;
        } else {
            self.sacked_below_mark -= forgotten;
        }
    }

    /// The counters after the merge found `[a, b)` newly SACKed, which it reports to `new`.
    #[inline(always)]
    fn report(&mut self, a: u64, b: u64, new: &mut impl FnMut(u64, u64)) {
        if a < self.mark {
            self.sacked_below_mark += b.min(self.mark) - a;
        }
        new(a, b);
    }

    /// Marks the blocks (clipped to the outstanding data), calling `new(a, b)` for each
    /// range `[a, b)` no run held before, in the order of the blocks and ascending within
    /// each.
    #[inline]
    pub fn mark_reporting(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        mut new: impl FnMut(u64, u64),
    ) {
        self.align(s.snd_una);
        // (Set by any change of the runs but a top run of DupThresh growing.)
        let mut grew = false;
        // (Kept in a register through the blocks, stored once.)
        let mut high = self.high_sacked;
        for &(start, end) in blocks {
            let start = start.max(s.snd_una);
            let end = end.min(s.snd_max);
            if start >= end {
                continue;
            }
            high = high.max(end);
            // An ACK's newest block mostly starts in the top run (segments arriving in order
            // above the highest hole): it touches no other run (those below end before the
            // top run's start, not adjacent to it), so it grows the top run, no search.
            if let Some(&(top_start, top_end)) = self.runs.last() {
                if top_start <= start && start <= top_end {
                    if end > top_end {
                        let top = self.runs.len() - 1;
                        self.runs[top].1 = end;
                        // Nothing new below the mark: HighRxt lies below the highest
                        // SACKed segment, the top run's end, or is snd_una, below it.
                        debug_assert!(top_end >= self.mark);
                        new(top_end, end);
                        // The lost limit lies in the top run once it holds DupThresh;
                        // if it did before, it moves up by what the run grew.
                        let k = u64::from(s.dupthresh.max(1));
                        if top_end - top_start >= k {
                            self.top_grown += end - top_end;
                            self.lost_limit = Some(end - k);
                        } else {
                            grew = true;
                        }
                    }
                    continue;
                }
            }
            // Its older blocks repeat runs below, mostly the next one down.
            if let Some(&(rs, re)) = self.runs.len().checked_sub(2).map(|i| &self.runs[i]) {
                if rs <= start && end <= re {
                    continue;
                }
            }
            // The runs touching [start, end) (overlapping or adjacent) merge with it.
            let first = self.runs.partition_point(|r| r.1 < start);
            // Most blocks repeat what earlier ACKs reported.
            if self
                .runs
                .get(first)
                .is_some_and(|&(rs, re)| rs <= start && end <= re)
            {
                continue;
            }
            let mut last = first;
            let (mut lo, mut hi) = (start, end);
            // The block's segments from `q` on are not yet known to be in a run.
            let mut q = start;
            while last < self.runs.len() && self.runs[last].0 <= end {
                let (rs, re) = self.runs[last];
                if rs > q {
                    self.report(q, rs, &mut new);
                }
                q = q.max(re);
                lo = lo.min(rs);
                hi = hi.max(re);
                last += 1;
            }
            if q < end {
                self.report(q, end, &mut new);
            }
            grew = true;
            if last == first {
                self.runs.insert(first, (lo, hi));
            } else {
                self.runs[first] = (lo, hi);
                // Usually the block grows one run (the hole before it filled less often).
                if last > first + 1 {
                    self.runs.drain(first + 1..last);
                }
            }
        }
        self.high_sacked = high;
        if grew {
            self.generation += 1;
            self.lost_limit = self.kth_highest(s.dupthresh, self.base);
        }
    }

    /// [`SackedRuns::mark_reporting`] of the blocks of most ACKs in a recovery: the first
    /// grows a top run that holds DupThresh segments (the next segments above the holes
    /// arrived), the others repeat runs (mostly the top one or the one below it), and
    /// HighSACKed stays at or below `high_limit`. Then it marks them, with nothing to search
    /// but the runs below the top one from the top down, and returns the range newly
    /// SACKed; otherwise (None) it changes nothing. (Out of `mark_reporting`'s loop, its
    /// caller keeps it free of that loop's registers.)
    #[inline(always)]
    pub fn grow_top(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        high_limit: u64,
    ) -> Option<(u64, u64)> {
        // (Aligned: snd_una has not moved past the base since the last merge or send.)
        if s.snd_una > self.base {
            return None;
        }
        let (&(start, end), rest) = blocks.split_first()?;
        let (start, end) = (start.max(s.snd_una), end.min(s.snd_max));
        let n = self.runs.len();
        let &(top_start, top_end) = self.runs.last()?;
        // (start <= top_end < end: the block is not empty.)
        if start < top_start || start > top_end || end <= top_end {
            return None;
        }
        let k = u64::from(s.dupthresh.max(1));
        if top_end - top_start < k || end > high_limit {
            return None;
        }
        // HighSACKed is the top run's end while there is one (`align` forgets a run only
        // with every run below it).
        debug_assert_eq!(self.high_sacked, top_end);
        for &(a, b) in rest {
            let (a, b) = (a.max(s.snd_una), b.min(s.snd_max));
            if a >= b || (top_start <= a && b <= end) {
                continue;
            }
            if !self.below_top_holds(a, b) {
                return None;
            }
        }
        #[cfg(debug_assertions)]
        let (mut merged, mut news) = (self.clone(), Vec::new());
        #[cfg(debug_assertions)]
        merged.mark_reporting(s, blocks, |a, b| news.push((a, b)));
        self.runs[n - 1].1 = end;
        self.top_grown += end - top_end;
        self.lost_limit = Some(end - k);
        self.high_sacked = end;
        // (Nothing new below the mark, HighRxt + 1: see `mark_reporting`.)
        #[cfg(debug_assertions)]
        {
            debug_assert_eq!(*self, merged);
            debug_assert_eq!(news, [(top_end, end)]);
        }
        Some((top_end, end))
    }

    /// Whether a run below the top one holds all of `[a, b)` (a block that repeats what an
    /// earlier ACK reported). Mostly the next run down; with three holes or more the
    /// receiver's third block repeats the one below that (RFC 2018 reports the most recent
    /// blocks), which the merge's search would find at several times the cost.
    #[inline(always)]
    fn below_top_holds(&self, a: u64, b: u64) -> bool {
        let Some((_, below)) = self.runs.split_last() else {
            return false;
        };
        // (Ascending and disjoint: once a run ends below `b`, so do all under it.)
        for &(rs, re) in below.iter().rev() {
            if re < b {
                return false;
            }
            if rs <= a {
                return true;
            }
        }
        false
    }

    /// The DupThresh-th highest SACKed segment at or above `base`, if there are that many
    /// (`kth_highest(s.dupthresh, base)`, DupThresh as the last merge had it): RFC 6675
    /// IsLost holds exactly for the segments below it.
    #[inline]
    pub fn lost_limit(&self) -> Option<u64> {
        self.lost_limit
    }

    /// DupThresh changed (the sender's reordering degree, `tp->reordering`): the lost limit
    /// again, from the runs as they stand (a merge recomputes it only when it grows them).
    pub fn relimit(&mut self, dupthresh: u32) {
        self.lost_limit = self.kth_highest(dupthresh, self.base);
    }

    /// Sets the mark of [`SackedRuns::sacked_below_mark`] (0 for none).
    pub fn set_mark(&mut self, mark: u64) {
        self.mark = mark;
        self.sacked_below_mark = self.sacked_in_from_below(self.base, mark);
    }

    /// The SACKed segments in `[base, mark)`.
    #[inline]
    pub fn sacked_below_mark(&self) -> u64 {
        debug_assert_eq!(
            self.sacked_below_mark,
            self.sacked_in_from_below(self.base, self.mark)
        );
        self.sacked_below_mark
    }

    /// The run holding `seq`, if any.
    fn run_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.runs.partition_point(|r| r.1 <= seq);
        self.runs.get(i).copied().filter(|r| r.0 <= seq)
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        seq >= self.base && self.run_of(seq).is_some()
    }

    /// The first segment at or after `seq` not SACKed.
    pub fn next_unsacked(&self, seq: u64) -> u64 {
        if seq < self.base {
            return seq;
        }
        // NextSeg asks from above HighRxt, in recovery mostly in or above the top run: no
        // search there.
        match self.runs.last() {
            Some(&(s, e)) if seq >= s => seq.max(e),
            _ => self.run_of(seq).map_or(seq, |r| r.1),
        }
    }

    /// SACKed segments in `[from, to)` (`from` at or above `base`).
    pub fn sacked_in(&self, from: u64, to: u64) -> u64 {
        let mut n = 0;
        for &(s, e) in self.runs.iter().rev() {
            if e <= from {
                break;
            }
            let (s, e) = (s.max(from), e.min(to));
            if s < e {
                n += e - s;
            }
        }
        n
    }

    /// [`SackedRuns::sacked_in`] walking up from the lowest run: the cheaper one for a
    /// range near the bottom of the scoreboard.
    pub fn sacked_in_from_below(&self, from: u64, to: u64) -> u64 {
        let mut n = 0;
        for &(s, e) in &self.runs {
            if s >= to {
                break;
            }
            let (s, e) = (s.max(from), e.min(to));
            if s < e {
                n += e - s;
            }
        }
        n
    }

    /// The `k`-th highest SACKed segment at or above `floor`, if there are `k` (`k` >= 1):
    /// RFC 6675 IsLost holds exactly for the segments below it.
    pub fn kth_highest(&self, k: u32, floor: u64) -> Option<u64> {
        let mut left = u64::from(k.max(1));
        for &(s, e) in self.runs.iter().rev() {
            if e <= floor {
                break;
            }
            let len = e - s.max(floor);
            if len >= left {
                return Some(e - left);
            }
            left -= len;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, Stream};

    /// One random step of a flow: new data sent, maybe a cumulative ACK, and an ACK's blocks
    /// (up to three, some reaching below snd_una or past snd_max).
    fn random_step(rng: &mut Rng, s: &mut SenderState) -> Vec<(u64, u64)> {
        s.snd_max += rng.next_u64() % 8;
        if rng.uniform() < 0.3 {
            s.snd_una = (s.snd_una + rng.next_u64() % 6).min(s.snd_max);
        }
        let span = s.snd_max - s.snd_una + 4;
        (0..rng.next_u64() % 4)
            .map(|_| {
                let a = s.snd_una.saturating_sub(2) + rng.next_u64() % span;
                (a, a + 1 + rng.next_u64() % 6)
            })
            .collect()
    }

    /// Marks the blocks as `Sack` does: the top run's growth if that is all they do (debug
    /// builds check it against the merge), else the merge. Whether the growth answered.
    fn mark(
        runs: &mut SackedRuns,
        s: &SenderState,
        blocks: &[(u64, u64)],
        news: &mut Vec<(u64, u64)>,
    ) -> bool {
        if let Some((a, b)) = runs.grow_top(s, blocks, u64::MAX) {
            news.push((a, b));
            return true;
        }
        runs.mark_reporting(s, blocks, |a, b| news.push((a, b)));
        false
    }

    /// The runs answer every query as the segment-by-segment board does, over random blocks
    /// and advancing cumulative ACKs.
    #[test]
    fn runs_agree_with_the_segment_board() {
        for seed in 0..40 {
            let mut rng = Rng::derive(seed, Stream::Flow, 0);
            let mut s = SenderState::new(1, 1000, 3, u64::MAX);
            let (mut board, mut runs) = (Scoreboard::default(), SackedRuns::default());
            for _ in 0..300 {
                let blocks = random_step(&mut rng, &mut s);
                board.align(s.snd_una);
                let before: Vec<bool> =
                    (s.snd_una..s.snd_max).map(|q| board.is_sacked(q)).collect();
                board.mark(&s, &blocks);
                let mut news = Vec::new();
                mark(&mut runs, &s, &blocks, &mut news);
                // The news are the segments newly SACKed, each once, within their block.
                let mut reported: Vec<u64> = news.iter().flat_map(|&(a, b)| a..b).collect();
                let newly: Vec<u64> = (s.snd_una..s.snd_max)
                    .filter(|&q| board.is_sacked(q) && !before[(q - s.snd_una) as usize])
                    .collect();
                let in_order = reported.windows(2).all(|w| w[0] < w[1]);
                reported.sort_unstable();
                assert_eq!(reported, newly);
                assert!(in_order || blocks.len() > 1, "ascending within a block");
                assert_eq!(board.high_sacked(), runs.high_sacked());
                let (una, max) = (s.snd_una, s.snd_max);
                for q in una.saturating_sub(3)..max + 3 {
                    let want = q >= una && board.is_sacked(q);
                    assert_eq!(q >= una && runs.is_sacked(q), want, "seq {q}");
                    let from = q.max(una);
                    let next = (from..).find(|&x| !board.is_sacked(x)).unwrap();
                    assert_eq!(runs.next_unsacked(from), next);
                }
                for k in 1..5u32 {
                    let brute = (una..board.high_sacked())
                        .rev()
                        .filter(|&q| board.is_sacked(q))
                        .nth(k as usize - 1);
                    assert_eq!(runs.kth_highest(k, una), brute, "k {k}");
                }
                let a = una + rng.next_u64() % (max - una + 1);
                let b = a + rng.next_u64() % (max - a + 1);
                let brute = (a..b).filter(|&q| board.is_sacked(q)).count() as u64;
                assert_eq!(runs.sacked_in(a, b), brute);
                assert_eq!(runs.sacked_in_from_below(a, b), brute);
            }
        }
    }

    /// While the generation and snd_una stand, the runs changed only as `top_grown` says:
    /// the top run, which held DupThresh segments before, grew by that many segments, and
    /// the lost limit moved up as many; checked on the segment board through random blocks,
    /// half of them growing the top run as an ACK of a recovery's flight does.
    #[test]
    fn a_kept_generation_means_only_the_top_run_grew() {
        let (mut grown_checked, mut kept, mut by_growth) = (0, 0, 0);
        for seed in 0..40 {
            let mut rng = Rng::derive(seed, Stream::Flow, 2);
            let k = 1 + (seed % 4) as u32;
            let mut s = SenderState::new(1, 1000, k, u64::MAX);
            let (mut board, mut runs) = (Scoreboard::default(), SackedRuns::default());
            for _ in 0..400 {
                let mut blocks = random_step(&mut rng, &mut s);
                if rng.uniform() < 0.5 {
                    // The next segments above the highest SACKed one, the top block first.
                    let high = runs.high_sacked().max(s.snd_una);
                    let top = (
                        high.saturating_sub(rng.next_u64() % 3),
                        high + rng.next_u64() % 3,
                    );
                    blocks.insert(0, top);
                    s.snd_max = s.snd_max.max(top.1);
                }
                let una_before = s.snd_una;
                board.align(s.snd_una);
                let before = board.clone();
                // (Aligned to snd_una, as NextSeg has it when it keeps its answer.)
                runs.align(una_before);
                let (generation, top_grown) = (runs.generation(), runs.top_grown());
                let (limit, top) = (runs.lost_limit(), runs.runs.last().copied());
                let base = runs.base();
                board.mark(&s, &blocks);
                by_growth += usize::from(mark(&mut runs, &s, &blocks, &mut Vec::new()));
                if runs.generation() != generation || runs.base() != base {
                    continue;
                }
                kept += 1;
                let g = runs.top_grown() - top_grown;
                let grew = top.map_or(base..base, |(_, e)| e..e + g);
                for q in s.snd_una..s.snd_max + 2 {
                    let want = before.is_sacked(q) || grew.contains(&q);
                    assert_eq!(board.is_sacked(q), want, "seq {q}");
                }
                if g > 0 {
                    let (ts, te) = top.unwrap();
                    assert!(te - ts >= u64::from(k), "the top run held DupThresh");
                    assert_eq!(runs.lost_limit(), limit.map(|l| l + g));
                    grown_checked += 1;
                } else {
                    assert_eq!(runs.lost_limit(), limit);
                }
            }
        }
        assert!(
            grown_checked > 500 && kept > 1000 && by_growth > 500,
            "{grown_checked} {kept} {by_growth}"
        );
    }

    /// The counters the merge and `align` keep (the lost limit, the SACKed segments below
    /// the mark) equal their definitions on the segment board, through random blocks,
    /// cumulative ACKs with and without blocks, and marks moved as HighRxt moves (to
    /// snd_una + 1 on entering a recovery, past an unSACKed segment below the highest SACKed
    /// one on a retransmission, to 0 on leaving).
    #[test]
    fn counters_agree_with_the_segment_board() {
        let mut marks_checked = 0;
        for seed in 0..40 {
            let mut rng = Rng::derive(seed, Stream::Flow, 1);
            let k = (seed % 5) as u32;
            let mut s = SenderState::new(1, 1000, k, u64::MAX);
            let (mut board, mut runs) = (Scoreboard::default(), SackedRuns::default());
            let mut mark = 0;
            for _ in 0..400 {
                let blocks = random_step(&mut rng, &mut s);
                board.align(s.snd_una);
                board.mark(&s, &blocks);
                if blocks.is_empty() {
                    runs.align(s.snd_una);
                } else {
                    runs.mark_reporting(&s, &blocks, |_, _| {});
                }
                let una = s.snd_una;
                let holes: Vec<u64> = (una..board.high_sacked())
                    .filter(|&q| !board.is_sacked(q))
                    .collect();
                let u = rng.uniform();
                if u < 0.05 {
                    mark = 0;
                    runs.set_mark(mark);
                } else if u < 0.1 {
                    mark = una + 1;
                    runs.set_mark(mark);
                } else if u < 0.3 && !holes.is_empty() {
                    mark = holes[(rng.next_u64() % holes.len() as u64) as usize] + 1;
                    runs.set_mark(mark);
                }
                let sacked_desc = (una..board.high_sacked())
                    .rev()
                    .filter(|&q| board.is_sacked(q));
                let limit = sacked_desc.clone().nth(k.max(1) as usize - 1);
                assert_eq!(runs.lost_limit(), limit, "k {k}");
                let below = (una..mark).filter(|&q| board.is_sacked(q)).count() as u64;
                assert_eq!(runs.sacked_below_mark(), below, "mark {mark}");
                marks_checked += usize::from(below > 0);
            }
        }
        assert!(marks_checked > 500, "{marks_checked}");
    }
}
