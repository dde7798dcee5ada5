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
    /// Best, second and third choice, in order of age.
    s: [Sample; 3],
}

impl MaxFilter {
    /// The window's maximum (0 before any sample).
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forgets everything: `v` at `t` is all there is.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Takes the measurement `v` at time `t` into a window of length `win`.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
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
        let mut f = MaxFilter::default();
        // Rounds 0..=9: a peak of 10 at round 2, then 5s.
        for (t, v) in [(0, 4.0), (1, 6.0), (2, 10.0), (3, 5.0), (4, 5.0), (5, 5.0)] {
            f.update(10, t, v);
        }
        assert_eq!(f.get(), 10.0);
        for t in 6..=12 {
            f.update(10, t, 5.0);
        }
        assert_eq!(
            f.get(),
            10.0,
            "round 12: the peak (round 2) is 10 rounds old"
        );
        f.update(10, 13, 5.0);
        assert_eq!(
            f.get(),
            5.0,
            "round 13: it aged out, a 5 of its later half is best"
        );
        // A new higher sample takes over at once; a lower one never does before aging.
        f.update(10, 14, 7.0);
        assert_eq!(f.get(), 7.0);
        f.update(10, 15, 6.0);
        assert_eq!(f.get(), 7.0);
    }

    #[test]
    fn decreasing_samples_hand_over_to_the_best_successor() {
        let mut f = MaxFilter::default();
        for t in 0..40u64 {
            f.update(10, t, 100.0 - t as f64);
        }
        // The true windowed max of [29, 39] is 71 (round 29); the three-sample filter keeps
        // a successor from within the window, never one older than it.
        let got = f.get();
        assert!((61.0..=71.0).contains(&got), "{got}");
    }
}
