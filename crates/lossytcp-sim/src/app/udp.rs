//! UDP sources as ns-2 2.35's traffic generators (tools/cbr_traffic.cc, tools/expoo.cc,
//! tools/trafgen.cc) sending through `Agent/UDP`:
//!
//! * **CBR**: `start()` sends at once, then every `interval = packetSize_ x 8 / rate_`
//!   seconds; with `random_` each interval is `interval x (1 + U(-0.5, 0.5))`.
//! * **Exponential on/off**: `init()` sets `interval` as for CBR and the mean burst to
//!   `burst_time_ / interval` packets; `next_interval()`, when the current burst is used up,
//!   draws the next burst's length `int(Exp(mean burst) + 0.5)` (at least 1) and adds an
//!   idle time `Exp(idle_time_)` to the interval. `start()` asks `next_interval()` before
//!   the first packet, so a source begins with an idle period (interval + Exp(idle_time_)),
//!   and consecutive bursts are separated by interval + Exp(idle_time_). The mean rate is
//!   about rate x burst / (burst + idle).
//!
//! Times are accumulated in f64 seconds as ns-2 does (`now + t`), so a long CBR run does not
//! drift by nanosecond rounding.

use crate::rng::Rng;

pub enum UdpSource {
    Cbr {
        interval_s: f64,
        random: bool,
        rng: Rng,
    },
    OnOff {
        interval_s: f64,
        burst_mean_packets: f64,
        off_mean_s: f64,
        /// Packets left in the current burst (ns-2's `rem_`).
        rem: u64,
        rng: Rng,
    },
}

impl UdpSource {
    pub fn cbr(rate_bps: f64, packet_size_bytes: u32, random: bool, rng: Rng) -> Self {
        UdpSource::Cbr {
            interval_s: interval(rate_bps, packet_size_bytes),
            random,
            rng,
        }
    }

    pub fn onoff(rate_bps: f64, packet_size_bytes: u32, on_s: f64, off_s: f64, rng: Rng) -> Self {
        let interval_s = interval(rate_bps, packet_size_bytes);
        UdpSource::OnOff {
            interval_s,
            burst_mean_packets: on_s / interval_s,
            off_mean_s: off_s,
            rem: 0,
            rng,
        }
    }

    /// Seconds from `start()` to the first packet.
    pub fn first_gap_s(&mut self) -> f64 {
        match self {
            UdpSource::Cbr { .. } => 0.0,
            UdpSource::OnOff { .. } => self.next_gap_s(),
        }
    }

    /// Seconds from a packet to the next (ns-2's `next_interval()`).
    pub fn next_gap_s(&mut self) -> f64 {
        match self {
            UdpSource::Cbr {
                interval_s,
                random,
                rng,
            } => {
                let mut t = *interval_s;
                if *random {
                    t += *interval_s * (rng.uniform() - 0.5);
                }
                t
            }
            UdpSource::OnOff {
                interval_s,
                burst_mean_packets,
                off_mean_s,
                rem,
                rng,
            } => {
                let mut t = *interval_s;
                if *rem == 0 {
                    *rem = ((rng.exponential(*burst_mean_packets) + 0.5) as u64).max(1);
                    t += rng.exponential(*off_mean_s);
                }
                *rem -= 1;
                t
            }
        }
    }
}

/// ns-2: `(double)(size_ << 3) / (double)rate_`.
fn interval(rate_bps: f64, packet_size_bytes: u32) -> f64 {
    f64::from(packet_size_bytes) * 8.0 / rate_bps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn cbr_sends_at_start_then_every_interval() {
        let mut s = UdpSource::cbr(2e6, 1000, false, Rng::derive(1, Stream::Source, 0));
        assert_eq!(s.first_gap_s(), 0.0);
        assert!((0..5).all(|_| s.next_gap_s() == 0.004));
        let mut s = UdpSource::cbr(2e6, 1000, true, Rng::derive(1, Stream::Source, 0));
        let gaps: Vec<f64> = (0..100_000).map(|_| s.next_gap_s()).collect();
        assert!(gaps.iter().all(|&g| (0.002..0.006).contains(&g)));
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        // U(0.002, 0.006): sd 1.15e-3, of the mean 3.7e-6: 5 sigma.
        assert!((mean - 0.004).abs() < 1.9e-5, "{mean}");
    }

    #[test]
    fn onoff_bursts_and_idle_times_follow_ns2() {
        // 1000 B at 2 Mb/s: interval 4 ms; on 0.5 s = 125 packets on average; off 0.5 s.
        let (on, off) = (0.5, 0.5);
        let mut s = UdpSource::onoff(2e6, 1000, on, off, Rng::derive(2, Stream::Source, 0));
        let first = s.first_gap_s();
        assert!(
            first >= 0.004,
            "a source starts with an idle period: {first}"
        );
        let mut bursts = Vec::new();
        let mut idles = Vec::new();
        let mut len = 1u64; // the first packet opens the first burst
        let mut total_s = first;
        let mut packets = 1u64;
        for _ in 0..2_000_000 {
            let g = s.next_gap_s();
            total_s += g;
            packets += 1;
            if g == 0.004 {
                len += 1;
            } else {
                bursts.push(len as f64);
                idles.push(g - 0.004);
                len = 1;
            }
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        // Burst length N = max(1, int(X + 0.5)), X ~ Exp(mu = 125): E[int(X + 0.5)] =
        // sum_k P(X >= k - 0.5) = e^(-0.5/mu) / (1 - e^(-1/mu)), and the floor adds
        // P(X < 0.5) = 1 - e^(-0.5/mu).
        let b = mean(&bursts);
        let mu = 125.0f64;
        let want_b = (-0.5 / mu).exp() / (1.0 - (-1.0 / mu).exp()) + 1.0 - (-0.5 / mu).exp();
        // sd of the mean ~ 125 / sqrt(16000) ~ 1: 5 sigma.
        assert!(
            (b - want_b).abs() < 5.0,
            "{b} vs {want_b} over {} bursts",
            bursts.len()
        );
        let i = mean(&idles);
        assert!(
            (i - off).abs() < 5.0 * off / (idles.len() as f64).sqrt(),
            "{i}"
        );
        // The long-run rate is rate x (burst time) / (burst time + interval + idle).
        let rate = packets as f64 * 8000.0 / total_s;
        let want = 2e6 * (b * 0.004) / (b * 0.004 + 0.004 + off);
        assert!((rate - want).abs() / want < 0.01, "{rate} vs {want}");
    }
}
