//! The one Linux clock the engine's Linux-like rules count in: `jiffies` at `CONFIG_HZ` of the
//! kernel `crosscheck linux` runs against (Linux 6.18 with `CONFIG_HZ=250`, so a jiffy is
//! 4 ms). The Tail Loss Probe's timeout and CUBIC's `linux` rules (`bictcp_update()`'s t,
//! its once-per-jiffy and HZ/32 tests, the one-second delay filter of `cubictcp_acked()`) both
//! read this clock, as both read `tcp_jiffies32` in the kernel; with two clocks the engine
//! would be two different kernels at once.
//!
//! The kernel's jiffies start at an arbitrary phase; here they start at the simulation's time
//! zero, so the engine's rounding is one of the phases a kernel run can have.

use crate::time::{Dur, Time};

/// `CONFIG_HZ` of the reference kernel (distributions ship 100, 250, 300 or 1000; Debian and
/// Ubuntu's generic kernels 250).
pub const HZ: u64 = 250;

/// One jiffy.
pub const JIFFY: Dur = Dur(1_000_000_000 / HZ);

/// `tcp_jiffies32` at `t`: whole jiffies since time zero.
pub fn jiffies(t: Time) -> u64 {
    t.0 / JIFFY.0
}

/// `usecs_to_jiffies()` of a duration the kernel keeps in microseconds: truncated to whole
/// microseconds, then rounded up to whole jiffies.
pub fn usecs_to_jiffies(d: Dur) -> u64 {
    (d.0 / 1000).div_ceil(JIFFY.0 / 1000)
}

/// `d` rounded up to whole jiffies, as a duration (a timer the kernel arms in jiffies).
pub fn round_up(d: Dur) -> Dur {
    Dur(d.0.div_ceil(JIFFY.0) * JIFFY.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jiffy_is_4_ms_and_rounding_follows_the_kernel() {
        assert_eq!(JIFFY, Dur(4_000_000));
        assert_eq!(jiffies(Time(3_999_999)), 0);
        assert_eq!(jiffies(Time(4_000_000)), 1);
        // usecs_to_jiffies(): 100 ms is 25 jiffies, one microsecond more is 26, and the
        // nanoseconds below a microsecond are not kept by the kernel.
        assert_eq!(usecs_to_jiffies(Dur(100_000_000)), 25);
        assert_eq!(usecs_to_jiffies(Dur(100_001_000)), 26);
        assert_eq!(usecs_to_jiffies(Dur(100_000_999)), 25);
        assert_eq!(usecs_to_jiffies(Dur::ZERO), 0);
        assert_eq!(round_up(Dur(201_000_000)), Dur(204_000_000));
        assert_eq!(round_up(Dur(200_000_000)), Dur(200_000_000));
    }
}
