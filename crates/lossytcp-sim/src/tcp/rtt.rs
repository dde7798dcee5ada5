//! Retransmission timeout: RFC 6298's estimator, ns-2's tick-based one, or a fixed RTO;
//! exponential backoff with a cap.

use crate::config::Profile;
use crate::time::Dur;

#[derive(Clone, Debug)]
pub struct RttConfig {
    pub min_rto: Dur,
    pub max_rto: Dur,
    pub initial_rto: Dur,
    pub granularity: Dur,
    pub fixed_rto: Option<Dur>,
    pub max_backoff: u32,
    pub profile: Profile,
    /// Paper 001 eq. (2) (`RtoEstimator::LastSample`, rfc profile): RTO = max(latest
    /// sample, G, RTO_min) instead of RFC 6298's SRTT + max(G, 4 RTTVAR).
    pub last_sample: bool,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RttConfig,
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    /// ns-2 state: srtt scaled by 8 and rttvar by 4, both in ticks (tcp.cc's t_srtt_, t_rttvar_).
    ns2_srtt: i64,
    ns2_rttvar: i64,
    ns2_rtxcur: f64,
    backoff: u32,
    /// ns-2's `boot_time_ = Random::uniform(tcpTick_)`: the phase of the agent's tick clock,
    /// as a fraction of a tick (set by the simulator from the flow's own random stream).
    tick_phase: f64,
    /// `compute_rto()` cached: the timer is re-armed on nearly every ACK, the inputs change
    /// only on a sample or a backoff.
    rto: Dur,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        let ns2_rtxcur = cfg.initial_rto.as_secs();
        let mut e = Self {
            cfg,
            srtt: 0.0,
            rttvar: 0.0,
            has_sample: false,
            ns2_srtt: 0,
            ns2_rttvar: 0,
            ns2_rtxcur,
            backoff: 1,
            tick_phase: 0.0,
            rto: Dur::ZERO,
        };
        e.rto = e.compute_rto();
        e
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.has_sample.then(|| Dur::from_secs(self.srtt))
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The ns-2 tick clock's phase in [0, 1) of a tick (see `sample_sent`).
    pub fn set_tick_phase(&mut self, phase: f64) {
        self.tick_phase = phase;
    }

    /// A valid RTT measurement of a segment sent at `sent`, acknowledged at `now`. The rfc
    /// profile takes `now - sent` as it is. The ns2 profile counts, as ns-2 2.35 tcp.cc
    /// rtt_update() without timestamps does, the ticks of the agent's clock that elapsed:
    /// `sendtime = now - tao + boot_time_; tickoff = fmod(sendtime, tcpTick_);
    /// t_rtt_ = int((tao + tickoff) / tcpTick_)`, at least 1. (`sample()` instead rounds,
    /// ns-2's rule with the timestamp option: `int(tao / tcpTick_ + 0.5)`.)
    pub fn sample_sent(&mut self, sent: crate::time::Time, now: crate::time::Time) {
        let tao = now.since(sent);
        match self.cfg.profile {
            Profile::Rfc => self.sample(tao),
            Profile::Ns2 => {
                let tick = self.cfg.granularity.as_secs().max(1e-9);
                let tao_s = tao.as_secs();
                let sendtime = sent.as_secs() + self.tick_phase * tick;
                let tickoff = sendtime % tick;
                let t_rtt = (((tao_s + tickoff) / tick) as i64).max(1);
                self.backoff = 1;
                self.ns2_update_ticks(t_rtt);
                self.has_sample = true;
                self.rto = self.compute_rto();
            }
        }
    }

    /// A valid RTT measurement (Karn's rule is the caller's: never from a retransmitted
    /// segment). RFC 6298 §5 (and ns-2's newack): a valid sample also ends the backoff.
    pub fn sample(&mut self, rtt: Dur) {
        self.backoff = 1;
        match self.cfg.profile {
            Profile::Rfc if self.cfg.last_sample => {
                // Paper 001 eq. (2): the RTO tracks the latest RTT exactly (kept in srtt).
                self.srtt = rtt.as_secs();
                self.rttvar = 0.0;
            }
            Profile::Rfc => {
                let r = rtt.as_secs();
                if !self.has_sample {
                    // RFC 6298 §2.2
                    self.srtt = r;
                    self.rttvar = r / 2.0;
                } else {
                    // RFC 6298 §2.3, alpha = 1/8, beta = 1/4
                    self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
                    self.srtt = 0.875 * self.srtt + 0.125 * r;
                }
            }
            Profile::Ns2 => self.ns2_update(rtt),
        }
        self.has_sample = true;
        self.rto = self.compute_rto();
    }

    /// ns-2 2.35 tcp.cc rtt_update without timestamps: the sample is counted in whole ticks
    /// (at least one) and the estimator runs in fixed point.
    fn ns2_update(&mut self, rtt: Dur) {
        let tick = self.cfg.granularity.as_secs().max(1e-9);
        let t_rtt = ((rtt.as_secs() / tick + 0.5) as i64).max(1);
        self.ns2_update_ticks(t_rtt);
    }

    /// The fixed-point update of tcp.cc rtt_update() from a sample of `t_rtt` ticks.
    fn ns2_update_ticks(&mut self, t_rtt: i64) {
        let tick = self.cfg.granularity.as_secs().max(1e-9);
        if self.has_sample && self.ns2_srtt != 0 {
            let mut delta = t_rtt - (self.ns2_srtt >> 3);
            self.ns2_srtt += delta;
            if self.ns2_srtt <= 0 {
                self.ns2_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.ns2_rttvar >> 2;
            self.ns2_rttvar += delta;
            if self.ns2_rttvar <= 0 {
                self.ns2_rttvar = 1;
            }
        } else {
            self.ns2_srtt = t_rtt << 3;
            self.ns2_rttvar = t_rtt << 1;
        }
        self.ns2_rtxcur = (((self.ns2_rttvar << 3) + self.ns2_srtt) >> 3) as f64 * tick;
        self.srtt = (self.ns2_srtt as f64 / 8.0) * tick;
        self.rttvar = (self.ns2_rttvar as f64 / 4.0) * tick;
    }

    /// The timeout to arm now, backoff included.
    pub fn rto(&self) -> Dur {
        self.rto
    }

    fn compute_rto(&self) -> Dur {
        let c = &self.cfg;
        let b = self.backoff as f64;
        let secs = if let Some(t) = c.fixed_rto {
            t.as_secs() * b
        } else {
            match c.profile {
                Profile::Rfc if c.last_sample && self.has_sample => {
                    // Paper 001 eq. (2): Y = max(T, G, RTO_min).
                    self.srtt
                        .max(c.granularity.as_secs())
                        .max(c.min_rto.as_secs())
                        * b
                }
                Profile::Rfc => {
                    let base = if self.has_sample {
                        // RFC 6298 §2.3: RTO = SRTT + max(G, K*RTTVAR), K = 4; §2.4 minimum.
                        (self.srtt + (4.0 * self.rttvar).max(c.granularity.as_secs()))
                            .max(c.min_rto.as_secs())
                    } else {
                        c.initial_rto.as_secs()
                    };
                    base * b
                }
                Profile::Ns2 => {
                    // tcp.cc rtt_timeout with rfc2988_: clamp to minrto before the backoff.
                    let t = self.ns2_rtxcur.max(c.min_rto.as_secs()) * b;
                    t.max(2.0 * c.granularity.as_secs())
                }
            }
        };
        Dur::from_secs(secs.min(c.max_rto.as_secs()))
    }

    /// ns-2 tcp-newreno.cc partialnewack(): an ACK covering the timed segment ends the
    /// backoff (`t_backoff_ = 1`) without a sample.
    pub fn end_backoff(&mut self) {
        if self.backoff != 1 {
            self.backoff = 1;
            self.rto = self.compute_rto();
        }
    }

    /// RFC 6298 §5.5: double the RTO on expiry, up to the configured cap (64 = ns-2's).
    pub fn back_off(&mut self) {
        if self.backoff < self.cfg.max_backoff {
            self.backoff = (self.backoff * 2).min(self.cfg.max_backoff);
        }
        if self.cfg.profile == Profile::Ns2 && self.backoff > 8 && self.cfg.fixed_rto.is_none() {
            // ns-2 rtt_backoff: far into backoff, fold srtt into the variance and restart it.
            self.ns2_rttvar += self.ns2_srtt >> 3;
            self.ns2_srtt = 0;
        }
        self.rto = self.compute_rto();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(profile: Profile) -> RttConfig {
        RttConfig {
            min_rto: Dur::from_secs(1.0),
            max_rto: Dur::from_secs(60.0),
            initial_rto: Dur::from_secs(1.0),
            granularity: Dur::from_secs(0.0),
            fixed_rto: None,
            max_backoff: 64,
            profile,
            last_sample: false,
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
        c.fixed_rto = Some(Dur::from_secs(0.5));
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
        c.last_sample = true;
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
        use crate::time::Time;
        let mut c = cfg(Profile::Ns2);
        c.granularity = Dur::from_secs(0.01);
        // A constant 22.4 ms RTT on a 10 ms tick: 2 ticks when the send falls in the first
        // 7.6 ms of a tick, 3 otherwise (3 crossings), so 3 with probability 0.24 over send
        // times spread evenly; ns-2 2.35 printed 2 3 2 3 2 2 2 2 3 for this case (README).
        let mut threes = 0;
        let n = 10_000;
        for k in 0..n {
            let mut e = RttEstimator::new(c.clone());
            e.set_tick_phase(0.37);
            let sent = Time::from_secs(1.0 + k as f64 * 0.0123457);
            e.sample_sent(sent, sent + Dur::from_secs(0.0224));
            // First sample: rtxcur = ((t << 1 << 3) + (t << 3)) >> 3 = 3t ticks.
            let t = (e.ns2_rtxcur / 0.01 / 3.0).round() as i64;
            assert!(t == 2 || t == 3, "{t}");
            threes += (t == 3) as u32;
        }
        let frac = f64::from(threes) / n as f64;
        assert!((frac - 0.24).abs() < 0.02, "{frac}");
        // The phase shifts the clock: a send 1 ms into a tick of the simulator's clock is
        // 1 + 9.9 = 10.9 ms into the agent's with phase 0.99 (wrapped to 0.9 ms).
        let mut e = RttEstimator::new(c.clone());
        e.set_tick_phase(0.99);
        let sent = Time::from_secs(2.001);
        e.sample_sent(sent, sent + Dur::from_secs(0.0224));
        assert!(
            (e.ns2_rtxcur - 0.06).abs() < 1e-9,
            "2 ticks: {}",
            e.ns2_rtxcur
        );
        let mut e = RttEstimator::new(c.clone());
        e.set_tick_phase(0.0);
        let sent = Time::from_secs(2.008);
        e.sample_sent(sent, sent + Dur::from_secs(0.0224));
        assert!(
            (e.ns2_rtxcur - 0.09).abs() < 1e-9,
            "3 ticks: {}",
            e.ns2_rtxcur
        );
    }

    #[test]
    fn rfc_sample_sent_is_the_plain_difference() {
        use crate::time::Time;
        let mut a = RttEstimator::new(cfg(Profile::Rfc));
        let mut b = RttEstimator::new(cfg(Profile::Rfc));
        a.set_tick_phase(0.5);
        a.sample_sent(Time::from_secs(1.0), Time::from_secs(1.25));
        b.sample(Dur::from_secs(0.25));
        assert_eq!(a.rto(), b.rto());
    }
}
