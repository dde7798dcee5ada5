//! Standard TCP growth, RFC 5681 §3.1: slow start below ssthresh, congestion avoidance above.
//! Counted per ACK (no byte counting), as ns-2's agents and the papers' models do.

use crate::config::Profile;
use crate::tcp::state::SenderState;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl Reno {
    pub fn on_ack(&mut self, s: &mut SenderState, _newly_acked: u64) {
        if s.cwnd < s.ssthresh {
            // RFC 5681 eq. (2): one segment per ACK in slow start.
            s.cwnd += 1.0;
        } else {
            // RFC 5681 eq. (3): about one segment per RTT.
            s.cwnd += 1.0 / s.cwnd;
        }
    }

    pub fn ssthresh_on_loss(&self, s: &SenderState) -> f64 {
        let base = match s.profile {
            // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS).
            Profile::Rfc => s.flight() as f64,
            // ns-2 slowdown(): half of window() = min(cwnd, wnd), truncated to whole segments.
            Profile::Ns2 => s.cwnd.min(f64::from(s.max_window)).floor(),
        };
        (base / 2.0).floor().max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut s = SenderState::new(1, 100, 3, Profile::Rfc, u64::MAX);
        s.ssthresh = 4.0;
        let mut g = Reno;
        for _ in 0..3 {
            g.on_ack(&mut s, 1);
        }
        assert_eq!(s.cwnd, 4.0);
        g.on_ack(&mut s, 1);
        assert_eq!(s.cwnd, 4.25, "paper 000 Table II: 4 -> 4.25");
    }

    #[test]
    fn ssthresh_is_half_the_flight_at_least_two() {
        let mut s = SenderState::new(1, 100, 3, Profile::Rfc, u64::MAX);
        s.snd_max = 8;
        assert_eq!(Reno.ssthresh_on_loss(&s), 4.0);
        s.snd_max = 3;
        assert_eq!(Reno.ssthresh_on_loss(&s), 2.0);
    }
}
