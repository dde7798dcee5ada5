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
        let ns = (s * 1e9).round();
        if ns >= u64::MAX as f64 {
            Dur(u64::MAX)
        } else {
            Dur(ns as u64)
        }
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
