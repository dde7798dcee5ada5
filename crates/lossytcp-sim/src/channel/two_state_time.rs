//! A two-state channel in continuous time (paper 003): Good and Bad periods with the given
//! mean durations, exponential or fixed; a packet's loss probability is that of the state in
//! which it starts transmission.

use super::HoldingDist;
use crate::rng::Rng;
use crate::time::{Dur, Time};

pub struct TwoStateTime {
    mean_good: Dur,
    mean_bad: Dur,
    loss_good: f64,
    loss_bad: f64,
    dist: HoldingDist,
    bad: bool,
    /// End of the current period.
    until: Time,
    started: bool,
    rng: Rng,
}

impl TwoStateTime {
    pub fn new(
        mean_good: Dur,
        mean_bad: Dur,
        loss_good: f64,
        loss_bad: f64,
        dist: HoldingDist,
        rng: Rng,
    ) -> Self {
        Self {
            mean_good,
            mean_bad,
            loss_good,
            loss_bad,
            dist,
            bad: false,
            until: Time::ZERO,
            started: false,
            rng,
        }
    }

    fn holding(&mut self, bad: bool) -> Dur {
        let mean = if bad { self.mean_bad } else { self.mean_good };
        match self.dist {
            HoldingDist::Fixed => mean,
            HoldingDist::Exp => Dur::from_secs(self.rng.exponential(mean.as_secs())).max(Dur(1)),
        }
    }

    /// Advances the alternating renewal process to `now` (lazily: no events while idle).
    fn state_at(&mut self, now: Time) -> bool {
        if !self.started {
            // Start in stationarity: state by time fraction, then a full period (for
            // exponential holding times the residual is again exponential).
            let g = self.mean_good.as_secs();
            let b = self.mean_bad.as_secs();
            self.bad = self.rng.uniform() < b / (g + b);
            let h = self.holding(self.bad);
            self.until = Time::ZERO + h;
            self.started = true;
        }
        while now >= self.until {
            self.bad = !self.bad;
            let h = self.holding(self.bad);
            self.until += h;
        }
        self.bad
    }

    pub fn lost(&mut self, now: Time) -> bool {
        let bad = self.state_at(now);
        self.rng
            .bernoulli(if bad { self.loss_bad } else { self.loss_good })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn fraction_of_time_bad_matches_means() {
        let mut ch = TwoStateTime::new(
            Dur::from_secs(1.0),
            Dur::from_secs(0.05),
            0.0,
            1.0,
            HoldingDist::Exp,
            Rng::derive(5, Stream::Channel, 0),
        );
        let n = 2_000_000u64;
        let step = Dur::from_secs(0.001);
        let lost = (0..n).filter(|&i| ch.lost(Time(i * step.0))).count();
        let frac = lost as f64 / n as f64;
        // 0.05/1.05 = 0.0476; ~1900 periods of each kind: relative sd ~ 3%.
        assert!((frac - 0.047619).abs() < 0.006, "bad fraction {frac}");
    }
}
