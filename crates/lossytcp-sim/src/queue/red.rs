//! Random Early Detection (Floyd & Jacobson 1993) as ns-2 2.35's `Queue/RED` implements it
//! (queue/red.cc, defaults in tcl/lib/ns-default.tcl, checked on Debian's `ns` 2.35).
//!
//! Per arriving packet, `REDQueue::enque()`:
//! 1. if the queue was idle, pretend `m = int(ptc x idle time)` packets arrived to an
//!    empty queue meanwhile (ptc = link capacity in mean-sized packets per second; ns-2
//!    2.35 uses `idle_pktsize_` instead only with `cautious_ == 3`, off by default);
//! 2. `estimator()`: avg <- avg (1 - w_q)^(m+1) + w_q q, q the queue (packets or bytes)
//!    before this packet, multiplied out one factor at a time as red.cc does;
//! 3. `count` (packets) and `count_bytes` since the last drop grow by this packet;
//! 4. with avg >= min_th and q > 1: the first such arrival only restarts the count
//!    (`old`); later ones are dropped early with the probability of `calculate_p_new()`
//!    corrected by `modify_p()` for the count; with `use_mark_p_` off an average above
//!    max_th (2 max_th when gentle) is a forced drop instead;
//! 5. q >= limit: a forced drop (of the arriving packet: `drop_tail_`, the default).
//!
//! The packet in transmission is not in q (ns-2's `q_->length()`), and the idle time runs
//! from the end of the last transmission (`REDQueue::deque()` finding the queue empty).
//! With `queue_in_bytes_` (ns-2's default) q, avg, the thresholds (x mean_pktsize_) and the
//! limit (x mean_pktsize_) are in bytes. Adaptive RED, `cautious_`, ECN marking and the
//! drop-front/random victims are not modelled (ns-2's defaults leave them off; a victim
//! other than the arriving packet would need dequeue-time decisions, see `queue/mod.rs`).

use super::RedConfig;
use super::{Backlog, DropReason, Verdict};
use crate::rng::{Ns2Mrg, Rng};
use crate::time::Time;

pub struct Red {
    // Parameters as REDQueue::reset() / initialize_params() leave them (ns-2's edp_).
    q_w: f64,
    /// Thresholds and hard limit in the queue's unit (bytes with `queue_in_bytes`).
    th_min: f64,
    th_max: f64,
    limit: u64,
    max_p: f64,
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    /// Mean-sized packets per second the link can carry (`edp_.ptc`).
    ptc: f64,
    mean_pktsize: u32,
    gentle: bool,
    wait: bool,
    bytes: bool,
    qib: bool,
    use_mark_p: bool,
    // State (ns-2's edv_).
    ave: f64,
    count: i64,
    count_bytes: i64,
    old: bool,
    /// An idle period during which a packet arrived and was dropped: red.cc cleared `idle_`
    /// at that arrival, so later arrivals of the same idle period see no idle time.
    idle_spent: Option<Time>,
    draws: Draws,
}

/// Where the early-drop test's uniforms come from.
enum Draws {
    Engine(Rng),
    /// ns-2's default generator (`RedConfig::ns2_seed`), tested as red.cc does: `u <= p`.
    Ns2(Ns2Mrg),
}

impl Draws {
    fn below(&mut self, p: f64) -> bool {
        match self {
            // ns-2 drops when u <= p with u in (0, 1); this uniform is in [0, 1).
            Draws::Engine(r) => r.uniform() < p,
            Draws::Ns2(g) => g.uniform() <= p,
        }
    }
}

/// Automatic parameters of `REDQueue::initialize_params()`: (w_q, min_th, max_th), the
/// thresholds in packets.
pub fn resolve(cfg: &RedConfig, rate_bps: f64, delay_s: f64) -> (f64, f64, f64) {
    let ptc = rate_bps / (8.0 * f64::from(cfg.mean_packet_size_bytes));
    // q_weight_ = -1: "the default RTT is assumed to be three times the link delay and
    // transmission delay, if this gives a default RTT greater than 100 ms".
    let q_w = cfg.w_q.unwrap_or_else(|| {
        let rtt = (3.0 * (delay_s + 1.0 / ptc)).max(0.1);
        1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
    });
    // thresh_ = 0: 5 packets, or half the target queue (targetdelay_ x ptc) if larger.
    let th_min = cfg.min_th.unwrap_or_else(|| {
        let target = cfg.target_delay_s * ptc;
        if 5.0 < target / 2.0 {
            target / 2.0
        } else {
            5.0
        }
    });
    let th_max = cfg.max_th.unwrap_or(3.0 * th_min);
    (q_w, th_min, th_max)
}

/// `calculate_p_new()`: the drop probability for the average alone.
pub fn base_probability(ave: f64, th_max: f64, gentle: bool, v: [f64; 4], max_p: f64) -> f64 {
    let [v_a, v_b, v_c, v_d] = v;
    let p = if gentle && ave >= th_max {
        // from max_p at max_th to 1 at 2 max_th
        v_c * ave + v_d
    } else if !gentle && ave >= th_max {
        1.0
    } else {
        (v_a * ave + v_b) * max_p
    };
    p.min(1.0)
}

/// `modify_p()`: spreads drops out by the count since the last drop ("uniform instead of
/// geometric inter-drop periods"), and in byte mode scales by the packet's size.
pub fn count_probability(
    p: f64,
    count: i64,
    count_bytes: i64,
    bytes: bool,
    mean_pktsize: u32,
    wait: bool,
    size: u32,
) -> f64 {
    // red.cc: count1 = (double) (count_bytes / mean_pktsize), an integer division.
    let count1 = if bytes {
        (count_bytes / i64::from(mean_pktsize)) as f64
    } else {
        count as f64
    };
    let mut p = if wait {
        if count1 * p < 1.0 {
            0.0
        } else if count1 * p < 2.0 {
            p / (2.0 - count1 * p)
        } else {
            1.0
        }
    } else if count1 * p < 1.0 {
        p / (1.0 - count1 * p)
    } else {
        1.0
    };
    if bytes && p < 1.0 {
        p = p * f64::from(size) / f64::from(mean_pktsize);
    }
    p.min(1.0)
}

impl Red {
    pub fn new(cfg: &RedConfig, rate_bps: f64, delay_s: f64, rng: Rng) -> Self {
        let (q_w, th_min_pkts, th_max_pkts) = resolve(cfg, rate_bps, delay_s);
        let mean = f64::from(cfg.mean_packet_size_bytes);
        let (th_min, th_max) = if cfg.queue_in_bytes {
            (th_min_pkts * mean, th_max_pkts * mean)
        } else {
            (th_min_pkts, th_max_pkts)
        };
        let mut th_diff = th_max - th_min;
        if th_diff == 0.0 {
            th_diff = 1.0; // red.cc's guard against equal thresholds
        }
        let max_p = cfg.max_p;
        let (v_c, v_d) = if cfg.gentle {
            ((1.0 - max_p) / th_max, 2.0 * max_p - 1.0)
        } else {
            (0.0, 0.0)
        };
        let limit = cfg.packets as u64
            * if cfg.queue_in_bytes {
                u64::from(cfg.mean_packet_size_bytes)
            } else {
                1
            };
        Self {
            q_w,
            th_min,
            th_max,
            limit,
            max_p,
            v_a: 1.0 / th_diff,
            v_b: -th_min / th_diff,
            v_c,
            v_d,
            ptc: rate_bps / (8.0 * mean),
            mean_pktsize: cfg.mean_packet_size_bytes,
            gentle: cfg.gentle,
            wait: cfg.wait,
            bytes: cfg.bytes,
            qib: cfg.queue_in_bytes,
            use_mark_p: cfg.use_mark_p,
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_spent: None,
            draws: match cfg.ns2_seed {
                Some(seed) => Draws::Ns2(Ns2Mrg::seeded(seed)),
                None => Draws::Engine(rng),
            },
        }
    }

    /// The average queue in RED's unit (bytes with `queue_in_bytes`), ns-2's `ave_`.
    pub fn average(&self) -> f64 {
        self.ave
    }

    /// The average in packets of the mean size, the unit the thresholds are given in.
    pub fn average_packets(&self) -> f64 {
        if self.qib {
            self.ave / f64::from(self.mean_pktsize)
        } else {
            self.ave
        }
    }

    pub fn weight(&self) -> f64 {
        self.q_w
    }

    /// (min_th, max_th) in RED's unit.
    pub fn thresholds(&self) -> (f64, f64) {
        (self.th_min, self.th_max)
    }

    /// `estimator()`: `m` multiplications by 1 - w_q, then the new sample.
    fn estimate(&mut self, q: f64, m: u64) {
        let mut ave = self.ave;
        for _ in 0..m {
            ave *= 1.0 - self.q_w;
            if ave == 0.0 {
                break; // stays 0: the rest of a long idle period changes nothing
            }
        }
        self.ave = ave + self.q_w * q;
    }

    /// `drop_early()`: a uniform draw against the count-corrected probability.
    fn drop_early(&mut self, size: u32) -> bool {
        let p1 = base_probability(
            self.ave,
            self.th_max,
            self.gentle,
            [self.v_a, self.v_b, self.v_c, self.v_d],
            self.max_p,
        );
        let p = count_probability(
            p1,
            self.count,
            self.count_bytes,
            self.bytes,
            self.mean_pktsize,
            self.wait,
            size,
        );
        if self.draws.below(p) {
            self.count = 0;
            self.count_bytes = 0;
            true
        } else {
            false
        }
    }

    pub fn admit(&mut self, now: Time, b: &Backlog, size: u32) -> Verdict {
        let m = match b.idle_since {
            Some(t) if self.idle_spent != Some(t) => (self.ptc * (now - t).as_secs()) as u64,
            _ => 0,
        };
        let qlen = if self.qib { b.bytes } else { b.packets as u64 };
        self.estimate(qlen as f64, m + 1);
        self.count += 1;
        self.count_bytes += i64::from(size);
        let mut early = false;
        let mut forced = false;
        if self.ave >= self.th_min && qlen > 1 {
            let beyond = if self.gentle {
                self.ave >= 2.0 * self.th_max
            } else {
                self.ave >= self.th_max
            };
            if !self.use_mark_p && beyond {
                forced = true;
            } else if !self.old {
                // The average has just crossed min_th (or the queue just became non-empty
                // above it): restart the count.
                self.count = 1;
                self.count_bytes = i64::from(size);
                self.old = true;
            } else if self.drop_early(size) {
                early = true;
            }
        } else {
            self.old = false;
        }
        if qlen >= self.limit {
            forced = true;
        }
        let verdict = if forced {
            // ns1_compat_ off: a forced drop restarts the count too.
            self.count = 0;
            self.count_bytes = 0;
            Verdict::Drop(DropReason::Forced)
        } else if early {
            Verdict::Drop(DropReason::Early)
        } else {
            Verdict::Admit
        };
        if verdict != Verdict::Admit {
            self.idle_spent = b.idle_since;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    fn packet_mode(min_th: f64, max_th: f64, w_q: f64) -> RedConfig {
        RedConfig {
            packets: 100,
            bytes: false,
            queue_in_bytes: false,
            min_th: Some(min_th),
            max_th: Some(max_th),
            w_q: Some(w_q),
            ..RedConfig::default()
        }
    }

    fn red(cfg: &RedConfig) -> Red {
        Red::new(cfg, 4e6, 0.01, Rng::derive(1, Stream::Queue, 0))
    }

    fn busy(packets: usize) -> Backlog {
        Backlog {
            packets,
            bytes: packets as u64 * 500,
            idle_since: None,
        }
    }

    #[test]
    fn automatic_parameters_follow_initialize_params() {
        // Paper 002's bottleneck: 15 Mb/s, 100 ms, ns-2's defaults (mean packet 500 B).
        // ptc = 15e6 / 4000 = 3750; RTT = 3 (0.1 + 1/3750) = 0.3008 s;
        // w_q = 1 - exp(-1 / (10 x 0.3008 x 3750)); min_th = 0.005 x 3750 / 2 = 9.375.
        let (w, lo, hi) = resolve(&RedConfig::default(), 15e6, 0.1);
        assert!((w - 8.864855275436678e-05).abs() < 1e-18, "{w}");
        assert_eq!((lo, hi), (9.375, 28.125));
        // A slow link: the 5-packet floor and the 100 ms RTT floor.
        let (w, lo, hi) = resolve(&RedConfig::default(), 1e6, 0.001);
        let ptc = 250.0;
        assert_eq!(w, 1.0 - (-1.0_f64 / (10.0 * 0.1 * ptc)).exp());
        assert_eq!((lo, hi), (5.0, 15.0));
        // Byte mode scales thresholds and the limit by the mean packet size.
        let r = Red::new(
            &RedConfig::default(),
            15e6,
            0.1,
            Rng::derive(1, Stream::Queue, 0),
        );
        assert_eq!(r.thresholds(), (9.375 * 500.0, 28.125 * 500.0));
        assert_eq!(r.limit, 50 * 500);
    }

    #[test]
    fn average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut r = red(&packet_mode(50.0, 100.0, 0.002));
        r.admit(Time(1), &busy(10), 500);
        assert!((r.average() - 0.02).abs() < 1e-15);
        r.admit(Time(2), &busy(10), 500);
        // 0.02 x 0.998 + 0.02
        assert!((r.average() - 0.03996).abs() < 1e-15);
        for _ in 0..5000 {
            r.admit(Time(3), &busy(10), 500);
        }
        // 10 (1 - 0.998^5002)
        let want = 10.0 * (1.0 - 0.998_f64.powi(5002));
        assert!((r.average() - want).abs() < 1e-9, "{}", r.average());
    }

    #[test]
    fn idle_time_decays_the_average_as_m_empty_arrivals() {
        let mut r = red(&packet_mode(50.0, 100.0, 0.002));
        r.ave = 5.0;
        // 4 Mb/s, 500 B: ptc = 1000 packets/s; idle 99.5 ms: m = int(99.5) = 99, so the
        // average takes 100 factors of 0.998 and the empty queue's sample.
        let idle = Backlog {
            packets: 0,
            bytes: 0,
            idle_since: Some(Time::from_secs(1.0)),
        };
        assert_eq!(r.admit(Time::from_secs(1.0995), &idle, 500), Verdict::Admit);
        assert_eq!(
            r.average(),
            4.0928340234421405,
            "5 x 0.998^100, multiplied out"
        );
        // A second arrival of the same idle period (the first went onto the wire, so the
        // link is busy now) takes one factor only.
        r.admit(Time::from_secs(1.1), &busy(0), 500);
        assert_eq!(r.average(), 4.0928340234421405 * 0.998);
    }

    #[test]
    fn drop_probability_from_the_average() {
        let v = |lo: f64, hi: f64, max_p: f64| {
            [
                1.0 / (hi - lo),
                -lo / (hi - lo),
                (1.0 - max_p) / hi,
                2.0 * max_p - 1.0,
            ]
        };
        let p = |ave, gentle| base_probability(ave, 15.0, gentle, v(5.0, 15.0, 0.1), 0.1);
        assert_eq!(p(5.0, true), 0.0);
        assert!((p(10.0, true) - 0.05).abs() < 1e-15);
        assert!((p(14.0, false) - 0.09).abs() < 1e-15);
        // Above max_th: gentle rises from max_p to 1 at 2 max_th; otherwise 1 at once.
        assert!((p(15.0, true) - 0.1).abs() < 1e-15);
        assert!((p(20.0, true) - 0.4).abs() < 1e-15);
        assert_eq!(p(30.0, true), 1.0);
        assert_eq!(p(40.0, true), 1.0);
        assert_eq!(p(15.0, false), 1.0);
    }

    #[test]
    fn count_spreads_the_drops_out() {
        let p = 0.05;
        let c = |count, wait| count_probability(p, count, 0, false, 500, wait, 500);
        // wait: nothing below 1/p arrivals since the last drop, then p / (2 - count p).
        assert_eq!(c(1, true), 0.0);
        assert_eq!(c(19, true), 0.0);
        assert!((c(20, true) - 0.05).abs() < 1e-15);
        assert!((c(30, true) - 0.1).abs() < 1e-15);
        assert_eq!(c(40, true), 1.0);
        // no wait: p / (1 - count p).
        assert!((c(10, false) - 0.1).abs() < 1e-15);
        assert_eq!(c(20, false), 1.0);
        // Byte mode: the count in mean-sized packets (integer division: 12345 / 500 = 24),
        // then scaled by size / mean: 0.05 / (2 - 1.2) x 1000 / 500.
        let b = count_probability(p, 0, 12345, true, 500, true, 1000);
        assert!((b - 0.125).abs() < 1e-15, "{b}");
        // 40-byte packets in byte mode: 499 bytes since the last drop count as 0 packets.
        assert_eq!(count_probability(0.9, 0, 499, true, 500, true, 40), 0.0);
    }

    #[test]
    fn crossing_min_th_restarts_the_count_then_drops_follow_it() {
        // w_q = 1: the average is the queue seen on arrival.
        let mut r = red(&packet_mode(5.0, 15.0, 1.0));
        for _ in 0..10 {
            assert_eq!(r.admit(Time(1), &busy(2), 500), Verdict::Admit);
        }
        assert_eq!(r.count, 10);
        // First arrival at avg 10: `old` is set and the count restarts at 1, no draw.
        let state = |r: &Red| match &r.draws {
            Draws::Engine(g) => g.clone().next_u64(),
            Draws::Ns2(_) => unreachable!(),
        };
        let before = state(&r);
        assert_eq!(r.admit(Time(2), &busy(10), 500), Verdict::Admit);
        assert_eq!(r.count, 1);
        assert!(r.old);
        assert_eq!(state(&r), before);
        // p_b = 0.05 with wait: no drop before count x p_b reaches 1 (count 20), a certain
        // one at count 40: the early drop comes within arrivals 20..=40 and resets count.
        let mut dropped_at = None;
        for k in 2..=40 {
            if r.admit(Time(3), &busy(10), 500) == Verdict::Drop(DropReason::Early) {
                dropped_at = Some(k);
                break;
            }
        }
        let k = dropped_at.expect("a drop by count 40");
        assert!((20..=40).contains(&k), "{k}");
        assert_eq!(r.count, 0);
        // Falling below min_th clears `old`.
        r.admit(Time(4), &busy(1), 500);
        assert!(!r.old);
    }

    #[test]
    fn forced_drops_when_full_or_beyond_the_gentle_region() {
        // A full buffer: forced, whatever the average.
        let mut cfg = packet_mode(5.0, 15.0, 0.002);
        cfg.packets = 8;
        let mut r = red(&cfg);
        assert_eq!(
            r.admit(Time(1), &busy(8), 500),
            Verdict::Drop(DropReason::Forced)
        );
        assert_eq!(r.admit(Time(1), &busy(7), 500), Verdict::Admit);
        // Average beyond 2 max_th: ns-2 2.35's use_mark_p_ makes it an early drop with
        // probability 1 ...
        let mut r = red(&packet_mode(5.0, 15.0, 1.0));
        r.admit(Time(1), &busy(40), 500); // crosses min_th: count restarts
        assert_eq!(
            r.admit(Time(1), &busy(40), 500),
            Verdict::Drop(DropReason::Early)
        );
        // ... without it, Floyd & Jacobson's forced drop.
        let mut cfg = packet_mode(5.0, 15.0, 1.0);
        cfg.use_mark_p = false;
        let mut r = red(&cfg);
        assert_eq!(
            r.admit(Time(1), &busy(40), 500),
            Verdict::Drop(DropReason::Forced)
        );
        // Non-gentle: beyond max_th already.
        cfg.gentle = false;
        let mut r = red(&cfg);
        assert_eq!(
            r.admit(Time(1), &busy(20), 500),
            Verdict::Drop(DropReason::Forced)
        );
        assert_eq!(r.admit(Time(1), &busy(12), 500), Verdict::Admit);
    }

    #[test]
    fn an_empty_queue_is_never_dropped_early() {
        // q <= 1 packet: no early drop whatever the average (red.cc's `qlen > 1`).
        let mut r = red(&packet_mode(5.0, 15.0, 0.5));
        r.ave = 100.0;
        r.old = true;
        assert_eq!(r.admit(Time(1), &busy(1), 500), Verdict::Admit);
        assert!(!r.old);
    }

    #[test]
    fn early_drop_rate_matches_the_count_corrected_probability() {
        // Average pinned at 10 (w_q = 1, queue 10): p_b = 0.05, and with wait the k-th
        // arrival after a drop is dropped with probability modify_p(p_b, k). The long-run
        // drop rate is one over the mean gap that hazard gives.
        let mut r = red(&packet_mode(5.0, 15.0, 1.0));
        let n = 400_000;
        let mut drops = 0u64;
        for _ in 0..n {
            if r.admit(Time(1), &busy(10), 500) != Verdict::Admit {
                drops += 1;
            }
        }
        // Exact mean gap: sum over k of P(gap >= k) with the hazard of modify_p.
        let mut survive = 1.0;
        let mut mean_gap = 0.0;
        for count in 1..=60 {
            mean_gap += survive;
            survive *= 1.0 - count_probability(0.05, count, 0, false, 500, true, 500);
        }
        let rate = drops as f64 / n as f64;
        let want = 1.0 / mean_gap;
        assert!((rate - want).abs() / want < 0.02, "{rate} vs {want}");
    }
}
