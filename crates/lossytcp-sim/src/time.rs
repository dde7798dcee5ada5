//! Simulated time as integer nanoseconds.
//!
//! Integer time makes event ordering exact and runs bit-identical across machines; a u64 of
//! nanoseconds covers 584 years of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub fn from_secs(s: f64) -> Time {
        Time(Dur::from_secs(s).0)
    }
    pub fn as_secs(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero (validated upstream).
    pub fn from_secs(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            return Dur(0);
        }
        let x = s * 1e9;
        if x >= u64::MAX as f64 {
            return Dur(u64::MAX);
        }
        // f64::round, half away from zero, without its libm call (baseline x86-64 has no
        // rounding instruction; this runs on every RTT sample): truncate, then compare the
        // fraction, which `x - i` gives exactly (below 2^52 both share the exponent range;
        // above it x is integral and the fraction 0).
        let i = x as u64;
        Dur(if x - i as f64 >= 0.5 { i + 1 } else { i })
    }
    pub fn as_secs(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time to serialise `bytes` at `rate_bps`, rounded to the nearest nanosecond.
    pub fn transmission(bytes: u32, rate_bps: f64) -> Dur {
        Dur::from_secs(bytes as f64 * 8.0 / rate_bps)
    }
    pub fn mul_f64(self, k: f64) -> Dur {
        Dur::from_secs(self.as_secs() * k)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Time {
    type Output = Dur;
    fn sub(self, o: Time) -> Dur {
        self.since(o)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_secs_rounds_half_away_from_zero_as_f64_round() {
        let mut x = 1.234_567_891e-3_f64;
        for k in 0..200_000u64 {
            let s = x * (1.0 + k as f64 * 1e-7);
            let want = (s * 1e9).round() as u64;
            assert_eq!(Dur::from_secs(s).0, want, "{s:e}");
            x = f64::from_bits(x.to_bits() + 7919);
        }
        for s in [
            0.5e-9,
            1.5e-9,
            2.5e-9,
            2.0f64.powi(52) * 1e-9 + 0.5e-9,
            1e10,
            1.8e10,
            0.0,
        ] {
            assert_eq!(Dur::from_secs(s).0, (s * 1e9).round() as u64, "{s:e}");
        }
        assert_eq!(Dur::from_secs(1e300), Dur(u64::MAX));
        assert_eq!(Dur::from_secs(-1.0), Dur(0));
    }
}
