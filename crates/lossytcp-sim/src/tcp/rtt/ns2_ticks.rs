//! ns-2 2.35's estimator (tcp.cc rtt_update(), rtt_timeout(), rtt_backoff()) without the
//! timestamp option: samples counted in ticks of the agent's clock (`tcpTick_`, our
//! granularity G), SRTT and RTTVAR in fixed point (x8 and x4 ticks), RTO = (SRTT + 4
//! RTTVAR) rounded down to a tick, clamped to `minrto_` before the backoff (`rfc2988_`), and
//! at least two ticks.

use crate::time::{Dur, Time};

use super::RttConfig;

#[derive(Clone, Debug)]
pub struct Ns2Ticks {
    /// `t_srtt_` (x8 ticks) and `t_rttvar_` (x4 ticks).
    srtt: i64,
    rttvar: i64,
    /// `t_rtxcur_` in seconds: the RTO without backoff and clamps.
    rtxcur: f64,
    /// SRTT in seconds as the last sample left it (the report's; rtt_backoff() restarting
    /// `t_srtt_` does not clear it).
    srtt_s: f64,
    has_sample: bool,
    /// `boot_time_ / tcpTick_`: the phase of the agent's tick clock in [0, 1) of a tick.
    tick_phase: f64,
    tick_s: f64,
}

impl Ns2Ticks {
    pub fn new(c: &RttConfig, tick_phase: f64) -> Self {
        Self {
            srtt: 0,
            rttvar: 0,
            rtxcur: c.initial_rto.as_secs(),
            srtt_s: 0.0,
            has_sample: false,
            tick_phase,
            // ns-2 refuses a zero tick; a configuration without one counts in nanoseconds.
            tick_s: c.granularity.as_secs().max(1e-9),
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.has_sample.then(|| Dur::from_secs(self.srtt_s))
    }

    /// A measurement given as a duration: rounded to ticks, ns-2's rule with the timestamp
    /// option (`int(tao / tcpTick_ + 0.5)`).
    pub fn sample(&mut self, rtt: Dur) {
        let t_rtt = ((rtt.as_secs() / self.tick_s + 0.5) as i64).max(1);
        self.update(t_rtt);
    }

    /// A measurement of a segment sent at `sent`, acknowledged at `now`, counted as ns-2
    /// counts it without timestamps: the ticks of the agent's clock that elapsed,
    /// `sendtime = now - tao + boot_time_; tickoff = fmod(sendtime, tcpTick_);
    /// t_rtt_ = int((tao + tickoff) / tcpTick_)`, at least 1.
    pub fn sample_sent(&mut self, sent: Time, now: Time) {
        let tao_s = now.since(sent).as_secs();
        let sendtime = sent.as_secs() + self.tick_phase * self.tick_s;
        let tickoff = sendtime % self.tick_s;
        let t_rtt = (((tao_s + tickoff) / self.tick_s) as i64).max(1);
        self.update(t_rtt);
    }

    /// The fixed-point update of rtt_update() from a sample of `t_rtt` ticks.
    fn update(&mut self, t_rtt: i64) {
        if self.has_sample && self.srtt != 0 {
            let mut delta = t_rtt - (self.srtt >> 3);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.rttvar >> 2;
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = t_rtt << 3;
            self.rttvar = t_rtt << 1;
        }
        self.rtxcur = (((self.rttvar << 3) + self.srtt) >> 3) as f64 * self.tick_s;
        self.srtt_s = (self.srtt as f64 / 8.0) * self.tick_s;
        self.has_sample = true;
    }

    /// rtt_timeout() with `rfc2988_`: clamp to minrto before the backoff, then two ticks.
    pub fn rto_s(&self, c: &RttConfig, backoff: u32) -> f64 {
        let t = self.rtxcur.max(c.min_rto.as_secs()) * f64::from(backoff);
        t.max(2.0 * c.granularity.as_secs())
    }

    /// rtt_backoff(): far into backoff (beyond 8), fold SRTT into the variance and restart it.
    pub fn on_backoff(&mut self, backoff: u32) {
        if backoff > 8 {
            self.rttvar += self.srtt >> 3;
            self.srtt = 0;
        }
    }

    #[cfg(test)]
    pub fn rtxcur(&self) -> f64 {
        self.rtxcur
    }
}
