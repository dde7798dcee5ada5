//! RFC 6298's estimator: SRTT and RTTVAR smoothed in seconds, RTO = SRTT + max(G, 4 RTTVAR),
//! at least the minimum RTO.

use crate::time::Dur;

use super::RttConfig;

#[derive(Clone, Debug, Default)]
pub struct Rfc6298 {
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
}

impl Rfc6298 {
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
        if self.has_sample {
            // §2.3: RTO = SRTT + max(G, K*RTTVAR), K = 4; §2.4: at least the minimum.
            (self.srtt + (4.0 * self.rttvar).max(c.granularity.as_secs())).max(c.min_rto.as_secs())
        } else {
            // §2.1: before the first measurement.
            c.initial_rto.as_secs()
        }
    }
}
