//! A windowed running maximum kept in three samples (Kathleen Nichols' algorithm, as Linux's
//! `lib/win_minmax.c` and ns-3's / QUIC's `WindowedFilter` keep BBR's bottleneck bandwidth):
//! the best sample of the window and the best of its later quarter and half, so that when
//! the best one ages out of the window a good successor is at hand. Time is any monotone
//! count (BBR: packet-timed rounds).

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

#[derive(Clone, Debug, Default)]
pub struct MaxFilter {
    /// Best, second and third choice, in order of age (their values never increase).
    s: [Sample; 3],
    /// Up to this time none of the window's rules of time can apply to these samples: a
    /// sample below all three changes nothing until then (most of BBR's, on most ACKs).
    quiet_until: u64,
    /// Up to this time a sample below the best meets no rule of time but the half's: the
    /// window's end, or the quarter's rule while there is no second choice (`quiet_until`
    /// then).
    below_best_until: u64,
    /// The window's length (one per filter: the times above are of it).
    win: u64,
}

impl MaxFilter {
    /// An empty filter over a window of `win` (0 before any sample).
    pub fn new(win: u64) -> Self {
        Self {
            win,
            ..Self::default()
        }
    }

    /// The window's maximum (0 before any sample).
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forgets everything: `v` at `t` is all there is.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
        // (No rule of time applies at the samples' own time.)
        self.quiet_until = t;
        self.below_best_until = t;
    }

    /// Takes the measurement `v` at time `t` into the window; returns the window's maximum.
    /// (BBR asks [`Self::quiet`], then takes the sample.)
    #[cfg(test)]
    pub fn update(&mut self, t: u64, v: f64) -> f64 {
        self.update_may_change(t, v);
        self.s[0].v
    }

    /// [`Self::update`], false if the window's maximum stayed as it was (its shortcut: a
    /// sample below all three, with no rule of time due, changes nothing at all).
    #[cfg(test)]
    pub fn update_may_change(&mut self, t: u64, v: f64) -> bool {
        !self.quiet(t, v) && self.take_and_settle(t, v)
    }

    /// The shortcut of [`Self::update_may_change`]: the sample `v` at time `t` changes
    /// nothing (below all three samples, with no rule of time due). A caller with tests of
    /// its own before taking a sample can ask this first, as most samples end here.
    #[inline]
    pub fn quiet(&self, t: u64, v: f64) -> bool {
        v < self.s[2].v && t <= self.quiet_until
    }

    /// [`Self::take`] then [`Self::settle`] of a sample that is not [`Self::quiet`]. True if
    /// the maximum changed (its bits): most samples that get here only become a second or
    /// third choice, and the caller's work on a new estimate can be skipped. The samples
    /// [`Self::takes_in_place`] answers inline, the rest out of line.
    #[inline]
    pub fn take_and_settle(&mut self, t: u64, v: f64) -> bool {
        debug_assert!(!self.quiet(t, v), "a quiet sample taken");
        if self.takes_in_place(t, v) {
            self.take_in_place(t, v);
            return false;
        }
        self.take_and_settle_rest(t, v)
    }

    /// Whether a sample that is not [`Self::quiet`] only replaces values: most of them (BBR's
    /// on a lossy path: 1927 of 2802 in 20 s) are below the second choice, of the time the
    /// third choice was taken at, with no rule of time due but the half's:
    /// [`Self::take_and_settle_rest`]'s first case would make the sample the third choice,
    /// at the third choice's own time, so no time changes and `settle` would find what it
    /// found. So does a sample not below the second choice when the second is of that time
    /// too (it becomes both). The maximum stays (the sample is below it). And a sample equal
    /// to all three, of their time (a steady rate: every sample of a lossless path's round),
    /// starts the window over as it was: only `settle`'s times are set again. (Always
    /// inlined: BBR's calm ACK must make no call.)
    #[inline(always)]
    pub fn takes_in_place(&self, t: u64, v: f64) -> bool {
        let s = &self.s;
        (t == s[2].t && v < s[0].v && t <= self.below_best_until && (v < s[1].v || t == s[1].t))
            || (t == s[0].t && v.to_bits() == s[0].v.to_bits() && s[2] == s[0])
    }

    /// Takes a sample [`Self::takes_in_place`] said yes to (checked against the rules in
    /// debug builds).
    #[inline(always)]
    pub fn take_in_place(&mut self, t: u64, v: f64) {
        debug_assert!(!self.quiet(t, v) && self.takes_in_place(t, v));
        #[cfg(debug_assertions)]
        let mut full = self.clone();
        if v >= self.s[0].v {
            // (All three samples are `(t, v)`: the third equal to the best means all are, as
            // times never decrease and values never increase. What `settle` sets for three
            // samples of one time.)
            self.quiet_until = t.saturating_add(self.win / 4);
            self.below_best_until = self.quiet_until;
        } else {
            if v >= self.s[1].v {
                self.s[1].v = v;
            }
            self.s[2].v = v;
        }
        #[cfg(debug_assertions)]
        {
            let changed = full.take_and_settle_rest(t, v);
            debug_assert!(!changed);
            debug_assert_eq!(
                (self.s, self.quiet_until, self.below_best_until),
                (full.s, full.quiet_until, full.below_best_until),
                "a sample taken in place unlike the rules"
            );
        }
    }

    /// [`Self::take_and_settle`] of the other samples, out of line.
    #[inline(never)]
    fn take_and_settle_rest(&mut self, t: u64, v: f64) -> bool {
        let win = self.win;
        let before = self.s[0].v;
        if t <= self.below_best_until && v < before {
            // Below the best, with neither the window's end nor the quarter's rule due: the
            // sample becomes the second and third choice (if not below the second) or the
            // third. [`Self::take`]'s rules: no reset (the best has not aged out, and the
            // others are no older); a sample not below the third choice is taken as it; one
            // below it got past the shortcut only with a rule of time due, the half's (the
            // only one left, with a third choice as old as the second), which takes it as the
            // third choice; and once it is, the half's rule would take it again.
            #[cfg(debug_assertions)]
            let mut full = self.clone();
            let val = Sample { t, v };
            if v >= self.s[1].v {
                self.s[1] = val;
            }
            self.s[2] = val;
            self.settle(win);
            #[cfg(debug_assertions)]
            {
                full.take(win, t, v);
                full.settle(win);
                debug_assert_eq!(
                    (self.s, self.quiet_until, self.below_best_until),
                    (full.s, full.quiet_until, full.below_best_until),
                    "a sample below the best taken unlike the rules"
                );
            }
            return false;
        }
        self.take(win, t, v);
        self.settle(win);
        self.s[0].v.to_bits() != before.to_bits()
    }

    /// `quiet_until` for the samples now: the first of the rules of time in [`Self::take`]
    /// to come due is the quarter's (with no second choice), else the half's (no third),
    /// else the window's end, which the reset's (the third choice's age) never precedes.
    fn settle(&mut self, win: u64) {
        let s = &self.s;
        let (rule, below_best) = if s[1].t == s[0].t {
            (win / 4, win / 4)
        } else if s[2].t == s[1].t {
            (win / 2, win)
        } else {
            (win, win)
        };
        self.quiet_until = s[0].t.saturating_add(rule);
        self.below_best_until = s[0].t.saturating_add(below_best);
    }

    /// [`Self::update`]'s rules.
    fn take(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        // A new maximum, or nothing of the window left: start over.
        if v >= self.s[0].v || t - self.s[2].t > win {
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        let dt = t - self.s[0].t;
        if dt > win {
            // The best aged out: the second and third move up (twice, if the second is
            // out of the window too).
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].t > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a second choice: take one from the second
            // quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window without a third choice: take one from the later half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_maximum_of_the_last_window() {
        let mut f = MaxFilter::new(10);
        // Rounds 0..=9: a peak of 10 at round 2, then 5s.
        for (t, v) in [(0, 4.0), (1, 6.0), (2, 10.0), (3, 5.0), (4, 5.0), (5, 5.0)] {
            f.update(t, v);
        }
        assert_eq!(f.get(), 10.0);
        for t in 6..=12 {
            f.update(t, 5.0);
        }
        assert_eq!(
            f.get(),
            10.0,
            "round 12: the peak (round 2) is 10 rounds old"
        );
        f.update(13, 5.0);
        assert_eq!(
            f.get(),
            5.0,
            "round 13: it aged out, a 5 of its later half is best"
        );
        // A new higher sample takes over at once; a lower one never does before aging.
        f.update(14, 7.0);
        assert_eq!(f.get(), 7.0);
        f.update(15, 6.0);
        assert_eq!(f.get(), 7.0);
    }

    /// The shortcuts for a sample below all three or below the best (`quiet_until`,
    /// `below_best_until`) leave the filter as its rules would, and say whether the maximum
    /// changed, on random walks of rounds and rates (plateaus, drops, repeats).
    #[test]
    fn the_quiet_shortcut_changes_nothing_the_rules_would_not() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for win in [1u64, 4, 10, 17] {
            let (mut fast, mut full) = (MaxFilter::new(win), MaxFilter::new(win));
            let (mut t, mut level) = (0u64, 100.0);
            for _ in 0..20_000 {
                let r = next();
                t += u64::from(r % 7 == 0) + u64::from(r % 97 == 0) * 3;
                if r % 53 == 0 {
                    level = 50.0 + (next() % 100) as f64;
                }
                let v = level - (next() % 40) as f64 * 0.5;
                let before = fast.get();
                let changed = fast.update_may_change(t, v);
                let b = full.take(win, t, v);
                full.settle(win);
                let a = fast.get();
                assert_eq!((a, fast.s), (b, full.s), "win {win}, round {t}, sample {v}");
                assert_eq!(
                    changed,
                    a.to_bits() != before.to_bits(),
                    "round {t}, sample {v}"
                );
            }
        }
    }

    #[test]
    fn decreasing_samples_hand_over_to_the_best_successor() {
        let mut f = MaxFilter::new(10);
        for t in 0..40u64 {
            f.update(t, 100.0 - t as f64);
        }
        // The true windowed max of [29, 39] is 71 (round 29); the three-sample filter keeps
        // a successor from within the window, never one older than it.
        let got = f.get();
        assert!((61.0..=71.0).contains(&got), "{got}");
    }
}
