//! Retransmission timeout: an estimator that smooths the RTT (RFC 6298's, or ns-2's tick-based
//! one), the rule that turns it into a timeout (the estimate, or a fixed value), and
//! exponential backoff with a cap. Which estimator and rule a flow uses is decided once, when
//! the sender is built.

mod ns2_ticks;
mod rfc6298;

pub use ns2_ticks::Ns2Ticks;
pub use rfc6298::Rfc6298;

use crate::time::{Dur, Time};

/// Timer settings shared by every estimator.
#[derive(Clone, Debug)]
pub struct RttConfig {
    /// RFC 6298 §2.4's lower bound (1 s there; 200 ms in Linux and in the papers' ns-2 runs).
    pub min_rto: Dur,
    /// RFC 6298 §2.5's optional upper bound (at least 60 s).
    pub max_rto: Dur,
    /// RFC 6298 §2.1's RTO before the first measurement (1 s; ns-2's `rtxcur_init_` 3 s).
    pub initial_rto: Dur,
    /// Clock granularity G (RFC 6298 §2.3); ns-2's `tcpTick_`.
    pub granularity: Dur,
    /// Largest backoff multiplier: RFC 6298 §5.5 doubles on every expiry; 64 is ns-2's cap,
    /// 1 switches backoff off.
    pub max_backoff: u32,
    pub estimator: EstimatorKind,
    pub rule: RtoRule,
}

impl Default for RttConfig {
    /// RFC 6298's values.
    fn default() -> Self {
        Self {
            min_rto: Dur::from_secs(1.0),
            max_rto: Dur::from_secs(60.0),
            initial_rto: Dur::from_secs(1.0),
            granularity: Dur::ZERO,
            max_backoff: 64,
            estimator: EstimatorKind::Rfc6298,
            rule: RtoRule::Estimated,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EstimatorKind {
    Rfc6298,
    /// RFC 6298's smoothing with Linux's rule: the minimum RTO floors the variance term.
    Linux,
    /// Paper 001 eq. (2): `Y = max(T, G, RTO_min)`, T the latest sample, no smoothing and no
    /// variance term (`config::RtoEstimator::LastSample`).
    LastSample,
    /// ns-2 2.35's, with the phase of the agent's tick clock in [0, 1) of a tick.
    Ns2Ticks {
        tick_phase: f64,
    },
}

/// Where the timeout comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RtoRule {
    /// The estimator's RTO.
    Estimated,
    /// A constant (paper 004's T0, paper 000's coarse and fine timers), times the backoff; the
    /// estimator still measures SRTT for the report.
    Fixed(Dur),
}

#[derive(Clone, Debug)]
enum Estimator {
    Rfc6298(Rfc6298),
    Ns2Ticks(Ns2Ticks),
    LastSample(Option<Dur>),
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RttConfig,
    est: Estimator,
    backoff: u32,
    /// The RTO to arm now, cached: the timer is re-armed on nearly every ACK, the inputs change
    /// only on a sample or a backoff.
    rto: Dur,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        let est = match cfg.estimator {
            EstimatorKind::Rfc6298 => Estimator::Rfc6298(Rfc6298::default()),
            EstimatorKind::Linux => Estimator::Rfc6298(Rfc6298::linux()),
            EstimatorKind::LastSample => Estimator::LastSample(None),
            EstimatorKind::Ns2Ticks { tick_phase } => {
                Estimator::Ns2Ticks(Ns2Ticks::new(&cfg, tick_phase))
            }
        };
        let mut e = Self {
            cfg,
            est,
            backoff: 1,
            rto: Dur::ZERO,
        };
        e.rto = e.compute_rto();
        e
    }

    pub fn srtt(&self) -> Option<Dur> {
        match &self.est {
            Estimator::Rfc6298(e) => e.srtt(),
            Estimator::Ns2Ticks(e) => e.srtt(),
            Estimator::LastSample(t) => *t,
        }
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// A valid RTT measurement (Karn's rule is the caller's: never from a retransmitted
    /// segment). RFC 6298 §5 (and ns-2's newack()): a valid sample also ends the backoff.
    pub fn sample(&mut self, rtt: Dur) {
        match &mut self.est {
            Estimator::Rfc6298(e) => e.sample(rtt),
            Estimator::Ns2Ticks(e) => e.sample(rtt),
            Estimator::LastSample(t) => *t = Some(rtt),
        }
        self.backoff = 1;
        self.rto = self.compute_rto();
    }

    /// A valid measurement of a segment sent at `sent`, acknowledged at `now` (ns-2 counts the
    /// ticks of its clock in between; RFC 6298 takes the difference).
    pub fn sample_sent(&mut self, sent: Time, now: Time) {
        match &mut self.est {
            Estimator::Rfc6298(e) => e.sample(now.since(sent)),
            Estimator::Ns2Ticks(e) => e.sample_sent(sent, now),
            Estimator::LastSample(t) => *t = Some(now.since(sent)),
        }
        self.backoff = 1;
        self.rto = self.compute_rto();
    }

    /// The timeout to arm now, backoff included.
    pub fn rto(&self) -> Dur {
        self.rto
    }

    fn compute_rto(&self) -> Dur {
        let c = &self.cfg;
        let b = f64::from(self.backoff);
        let secs = match (c.rule, &self.est) {
            (RtoRule::Fixed(t), _) => t.as_secs() * b,
            (RtoRule::Estimated, Estimator::Rfc6298(e)) => e.base_rto_s(c) * b,
            (RtoRule::Estimated, Estimator::Ns2Ticks(e)) => e.rto_s(c, self.backoff),
            (RtoRule::Estimated, Estimator::LastSample(t)) => {
                let base = match t {
                    // Paper 001 eq. (2): Y = max(T, G, RTO_min); G is a floor, not added.
                    Some(t) => t
                        .as_secs()
                        .max(c.granularity.as_secs())
                        .max(c.min_rto.as_secs()),
                    None => c.initial_rto.as_secs(),
                };
                base * b
            }
        };
        Dur::from_secs(secs.min(c.max_rto.as_secs()))
    }

    /// ns-2's partial ACKs (tcp-newreno.cc partialnewack(), tcp-sack1.cc recv()) end the
    /// backoff (`t_backoff_ = 1`) without a sample.
    pub fn end_backoff(&mut self) {
        if self.backoff != 1 {
            self.backoff = 1;
            self.rto = self.compute_rto();
        }
    }

    /// RFC 6298 §5.5: double the RTO on expiry, up to the configured cap.
    pub fn back_off(&mut self) {
        if self.backoff < self.cfg.max_backoff {
            self.backoff = (self.backoff * 2).min(self.cfg.max_backoff);
        }
        if let (Estimator::Ns2Ticks(e), RtoRule::Estimated) = (&mut self.est, self.cfg.rule) {
            e.on_backoff(self.backoff);
        }
        self.rto = self.compute_rto();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;

    #[derive(Clone, Copy, PartialEq)]
    enum Profile {
        Rfc,
        Ns2,
    }

    fn cfg(profile: Profile) -> RttConfig {
        RttConfig {
            estimator: match profile {
                Profile::Rfc => EstimatorKind::Rfc6298,
                Profile::Ns2 => EstimatorKind::Ns2Ticks { tick_phase: 0.0 },
            },
            ..RttConfig::default()
        }
    }

    fn with_phase(mut c: RttConfig, phase: f64) -> RttConfig {
        c.estimator = EstimatorKind::Ns2Ticks { tick_phase: phase };
        c
    }

    fn rtxcur(e: &RttEstimator) -> f64 {
        match &e.est {
            Estimator::Ns2Ticks(n) => n.rtxcur(),
            Estimator::Rfc6298(_) | Estimator::LastSample(_) => unreachable!(),
        }
    }

    #[test]
    fn rfc6298_first_and_second_samples() {
        let mut c = cfg(Profile::Rfc);
        c.min_rto = Dur::ZERO;
        let mut e = RttEstimator::new(c);
        assert_eq!(e.rto(), Dur::from_secs(1.0), "§2.1 initial RTO");
        e.sample(Dur::from_secs(0.1));
        // srtt 0.1, rttvar 0.05 -> RTO 0.1 + 4*0.05 = 0.3
        assert!((e.rto().as_secs() - 0.3).abs() < 1e-9);
        e.sample(Dur::from_secs(0.3));
        // rttvar = 0.75*0.05 + 0.25*|0.1-0.3| = 0.0875; srtt = 0.875*0.1 + 0.125*0.3 = 0.125
        assert!((e.rto().as_secs() - (0.125 + 4.0 * 0.0875)).abs() < 1e-9);
    }

    #[test]
    fn rfc6298_minimum_granularity_and_maximum() {
        let mut c = cfg(Profile::Rfc);
        c.granularity = Dur::from_secs(0.5);
        let mut e = RttEstimator::new(c.clone());
        e.sample(Dur::from_secs(0.01));
        assert_eq!(e.rto(), Dur::from_secs(1.0), "§2.4 RTO rounded up to 1 s");
        c.min_rto = Dur::ZERO;
        let mut e = RttEstimator::new(c);
        e.sample(Dur::from_secs(0.01));
        // 4*rttvar = 0.02 < G = 0.5: RTO = srtt + G
        assert!((e.rto().as_secs() - 0.51).abs() < 1e-9);
    }

    #[test]
    fn backoff_doubles_to_the_cap_and_a_sample_resets_it() {
        let mut e = RttEstimator::new(cfg(Profile::Rfc));
        e.sample(Dur::from_secs(0.1)); // RTO = max(1 s min, 0.3) = 1 s
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.backoff(), 64);
        assert_eq!(e.rto(), Dur::from_secs(60.0), "capped by max RTO");
        e.sample(Dur::from_secs(0.1));
        assert_eq!(e.rto(), Dur::from_secs(1.0));
        let mut c = cfg(Profile::Rfc);
        c.max_backoff = 1;
        let mut e = RttEstimator::new(c);
        e.back_off();
        assert_eq!(e.rto(), Dur::from_secs(1.0), "backoff switched off");
    }

    #[test]
    fn fixed_rto_ignores_samples() {
        let mut c = cfg(Profile::Rfc);
        c.rule = RtoRule::Fixed(Dur::from_secs(0.5));
        c.max_backoff = 1;
        let mut e = RttEstimator::new(c);
        e.sample(Dur::from_secs(3.0));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_secs(0.5));
    }

    #[test]
    fn last_sample_rto_is_paper_001_eq_2() {
        let mut c = cfg(Profile::Rfc);
        c.min_rto = Dur::from_secs(0.05);
        c.estimator = EstimatorKind::LastSample;
        let mut e = RttEstimator::new(c.clone());
        assert_eq!(
            e.rto(),
            Dur::from_secs(1.0),
            "initial RTO before any sample"
        );
        e.sample(Dur::from_secs(0.5));
        e.sample(Dur::from_secs(0.1));
        // No memory of the 0.5 s sample and no variance term: Y = max(T, G, RTO_min).
        assert_eq!(e.rto(), Dur::from_secs(0.1));
        e.sample(Dur::from_secs(0.02));
        assert_eq!(e.rto(), Dur::from_secs(0.05), "RTO_min");
        c.granularity = Dur::from_secs(0.2);
        let mut e = RttEstimator::new(c);
        e.sample(Dur::from_secs(0.1));
        assert_eq!(e.rto(), Dur::from_secs(0.2), "G is a floor, not added");
        // Backoff: expiries at Y, 3Y, 7Y, ..., 127Y, then every 64Y (six doublings).
        let mut total = 0.0;
        let mut expiries = vec![];
        for _ in 0..8 {
            total += e.rto().as_secs();
            expiries.push((total / 0.2_f64).round() as i64);
            e.back_off();
        }
        assert_eq!(expiries, [1, 3, 7, 15, 31, 63, 127, 191]);
    }

    #[test]
    fn ns2_tick_estimator() {
        let mut c = cfg(Profile::Ns2);
        c.granularity = Dur::from_secs(0.01);
        c.min_rto = Dur::from_secs(0.2);
        c.initial_rto = Dur::from_secs(3.0);
        let mut e = RttEstimator::new(c);
        assert_eq!(e.rto(), Dur::from_secs(3.0));
        // 0.1 s = 10 ticks: srtt 80 (x8), rttvar 20 (x4); rtxcur = (160 + 80) >> 3 = 30 ticks.
        e.sample(Dur::from_secs(0.1));
        assert!((e.rto().as_secs() - 0.3).abs() < 1e-9, "{:?}", e.rto());
    }

    #[test]
    fn ns2_samples_count_tick_crossings_of_the_agents_clock() {
        let mut c = cfg(Profile::Ns2);
        c.granularity = Dur::from_secs(0.01);
        // A constant 22.4 ms RTT on a 10 ms tick: 2 ticks when the send falls in the first
        // 7.6 ms of a tick, 3 otherwise (3 crossings), so 3 with probability 0.24 over send
        // times spread evenly; ns-2 2.35 printed 2 3 2 3 2 2 2 2 3 for this case (README).
        let mut threes = 0;
        let n = 10_000;
        for k in 0..n {
            let mut e = RttEstimator::new(with_phase(c.clone(), 0.37));
            let sent = Time::from_secs(1.0 + k as f64 * 0.0123457);
            e.sample_sent(sent, sent + Dur::from_secs(0.0224));
            // First sample: rtxcur = ((t << 1 << 3) + (t << 3)) >> 3 = 3t ticks.
            let t = (rtxcur(&e) / 0.01 / 3.0).round() as i64;
            assert!(t == 2 || t == 3, "{t}");
            threes += (t == 3) as u32;
        }
        let frac = f64::from(threes) / n as f64;
        assert!((frac - 0.24).abs() < 0.02, "{frac}");
        // The phase shifts the clock: a send 1 ms into a tick of the simulator's clock is
        // 1 + 9.9 = 10.9 ms into the agent's with phase 0.99 (wrapped to 0.9 ms).
        let mut e = RttEstimator::new(with_phase(c.clone(), 0.99));
        let sent = Time::from_secs(2.001);
        e.sample_sent(sent, sent + Dur::from_secs(0.0224));
        assert!((rtxcur(&e) - 0.06).abs() < 1e-9, "2 ticks: {}", rtxcur(&e));
        let mut e = RttEstimator::new(with_phase(c.clone(), 0.0));
        let sent = Time::from_secs(2.008);
        e.sample_sent(sent, sent + Dur::from_secs(0.0224));
        assert!((rtxcur(&e) - 0.09).abs() < 1e-9, "3 ticks: {}", rtxcur(&e));
    }

    #[test]
    fn rfc_sample_sent_is_the_plain_difference() {
        let mut a = RttEstimator::new(cfg(Profile::Rfc));
        let mut b = RttEstimator::new(cfg(Profile::Rfc));
        a.sample_sent(Time::from_secs(1.0), Time::from_secs(1.25));
        b.sample(Dur::from_secs(0.25));
        assert_eq!(a.rto(), b.rto());
    }
}
