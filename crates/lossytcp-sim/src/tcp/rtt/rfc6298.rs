//! RFC 6298's estimator: SRTT and RTTVAR smoothed in seconds, RTO = SRTT + max(G, 4 RTTVAR),
//! at least the minimum RTO; or Linux's rule on the same estimates, RTO = SRTT + max(G,
//! 4 RTTVAR, RTO_min).

use crate::time::Dur;

use super::RttConfig;

#[derive(Clone, Debug, Default)]
pub struct Rfc6298 {
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    /// Linux's rule: the minimum RTO is a floor of the variance term, not of the RTO
    /// (`tcp_set_rto()`: RTO = srtt + rttvar with rttvar >= tcp_rto_min).
    linux: bool,
}

impl Rfc6298 {
    /// Linux's rule (see the `linux` field); the smoothing is RFC 6298's.
    pub fn linux() -> Self {
        Self {
            linux: true,
            ..Self::default()
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.has_sample.then(|| Dur::from_secs(self.srtt))
    }

    pub fn sample(&mut self, rtt: Dur) {
        let r = rtt.as_secs();
        if !self.has_sample {
            // §2.2: the first measurement.
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        } else {
            // §2.3, alpha = 1/8, beta = 1/4 (RTTVAR first: it uses the old SRTT).
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
    }

    /// The RTO before backoff, in seconds.
    pub fn base_rto_s(&self, c: &RttConfig) -> f64 {
        if self.has_sample && self.linux {
            // Linux: SRTT + max(4 RTTVAR, RTO_min): a timer at least RTO_min beyond the RTT.
            self.srtt
                + (4.0 * self.rttvar)
                    .max(c.granularity.as_secs())
                    .max(c.min_rto.as_secs())
        } else if self.has_sample {
            // §2.3: RTO = SRTT + max(G, K*RTTVAR), K = 4; §2.4: at least the minimum.
            (self.srtt + (4.0 * self.rttvar).max(c.granularity.as_secs())).max(c.min_rto.as_secs())
        } else {
            // §2.1: before the first measurement.
            c.initial_rto.as_secs()
        }
    }
}
