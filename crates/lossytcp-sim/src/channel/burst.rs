//! Paper 002 scenario I's DropTail stand-in: in Good each packet turns the channel Bad with
//! probability p (that packet is lost); Bad then drops everything for `hold`, a time longer
//! than the rest of the window but shorter than an RTT, so the rest of the loss round is lost.

use crate::rng::Rng;
use crate::time::{Dur, Time};

pub struct Burst {
    p: f64,
    hold: Dur,
    bad_until: Option<Time>,
    rng: Rng,
}

impl Burst {
    pub fn new(p: f64, hold: Dur, rng: Rng) -> Self {
        Self {
            p,
            hold,
            bad_until: None,
            rng,
        }
    }
    pub fn lost(&mut self, now: Time) -> bool {
        if let Some(t) = self.bad_until {
            if now < t {
                return true;
            }
            self.bad_until = None;
        }
        if self.rng.bernoulli(self.p) {
            self.bad_until = Some(now + self.hold);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn everything_inside_the_hold_is_dropped() {
        let mut ch = Burst::new(1.0, Dur(10), Rng::derive(1, Stream::Channel, 0));
        assert!(ch.lost(Time(0)));
        assert!(ch.lost(Time(9)));
        let mut ch = Burst::new(0.0, Dur(10), Rng::derive(1, Stream::Channel, 0));
        assert!(!ch.lost(Time(0)));
    }
}
