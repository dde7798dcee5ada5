//! Standard TCP growth, RFC 5681 §3.1: slow start below ssthresh, congestion avoidance above,
//! and the halving on a congestion event. Counted per ACK (no byte counting), as ns-2's agents
//! and the papers' models do.

use super::Growth;
use crate::tcp::state::SenderState;
use crate::tcp::{AckCtx, CongestionKind, Cut};

/// How a congestion event halves the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Halving {
    /// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS); a fast retransmit continues
    /// from ssthresh (§3.2 step 6).
    #[default]
    Rfc5681,
    /// ns-2 2.35 tcp.cc slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF) with
    /// `precision_reduce_` (a C++ default, no Tcl binding): from window() = min(cwnd, wnd),
    /// `ssthresh_ = max(int(int(window) / 2), 2)` and `cwnd_ = windowd() / 2` unrounded: cwnd
    /// keeps the fraction (11.306 -> 5.653, seen in ns-2's cwnd_ trace) and below a window
    /// of 4 is under ssthresh.
    Ns2Slowdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RenoParams {
    pub halving: Halving,
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    p: RenoParams,
}

impl Reno {
    pub fn new(p: RenoParams) -> Self {
        Self { p }
    }

    /// RFC 5681 eq. (4), or ns-2's half of the window.
    pub fn ssthresh_on_loss(&self, s: &SenderState) -> f64 {
        let base = match self.p.halving {
            Halving::Rfc5681 => s.flight() as f64,
            Halving::Ns2Slowdown => s.cwnd.min(f64::from(s.max_window)).floor(),
        };
        (base / 2.0).floor().max(2.0)
    }

    /// The window a fast retransmit continues from, before any inflation.
    pub fn halved_window(&self, s: &SenderState, ssthresh: f64) -> f64 {
        match self.p.halving {
            Halving::Rfc5681 => ssthresh,
            Halving::Ns2Slowdown => s.cwnd.min(f64::from(s.max_window)) / 2.0,
        }
    }
}

impl Growth for Reno {
    fn on_ack(&mut self, s: &mut SenderState, _ctx: &AckCtx) {
        if s.cwnd < s.ssthresh {
            // RFC 5681 eq. (2): one segment per ACK in slow start.
            s.cwnd += 1.0;
        } else {
            // RFC 5681 eq. (3): about one segment per RTT.
            s.cwnd += 1.0 / s.cwnd;
        }
    }

    fn on_congestion_event(&mut self, s: &SenderState, kind: CongestionKind, _: &AckCtx) -> Cut {
        let ssthresh = self.ssthresh_on_loss(s);
        let cwnd = match kind {
            CongestionKind::FastRetransmit => self.halved_window(s, ssthresh),
            // RFC 5681 §3.1: after a timeout cwnd is the loss window, one segment.
            CongestionKind::Timeout => 1.0,
        };
        Cut { ssthresh, cwnd }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> AckCtx {
        AckCtx::default()
    }

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.ssthresh = 4.0;
        let mut g = Reno::default();
        for _ in 0..3 {
            g.on_ack(&mut s, &ctx());
        }
        assert_eq!(s.cwnd, 4.0);
        g.on_ack(&mut s, &ctx());
        assert_eq!(s.cwnd, 4.25, "paper 000 Table II: 4 -> 4.25");
    }

    #[test]
    fn ssthresh_is_half_the_flight_at_least_two() {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        let mut g = Reno::default();
        s.snd_max = 8;
        let fr = CongestionKind::FastRetransmit;
        assert_eq!(
            g.on_congestion_event(&s, fr, &ctx()),
            Cut {
                ssthresh: 4.0,
                cwnd: 4.0
            }
        );
        s.snd_max = 3;
        let to = g.on_congestion_event(&s, CongestionKind::Timeout, &ctx());
        assert_eq!((to.ssthresh, to.cwnd), (2.0, 1.0));
    }

    #[test]
    fn ns2_halves_the_window_without_the_floor_of_two() {
        // ns-2 slowdown(): window 3 -> halfwin = 1.5, ssthresh_ = max(int(1.5), 2) = 2,
        // cwnd_ = 1.5; window 9.7 -> 4.85 and ssthresh 4; the receiver's window caps it.
        let mut g = Reno::new(RenoParams {
            halving: Halving::Ns2Slowdown,
        });
        for (cwnd, ssthresh, half) in [
            (3.0, 2.0, 1.5),
            (9.7, 4.0, 4.85),
            (2.0, 2.0, 1.0),
            (80.0, 32.0, 32.0),
        ] {
            let mut s = SenderState::new(1, 64, 3, u64::MAX);
            s.cwnd = cwnd;
            let cut = g.on_congestion_event(&s, CongestionKind::FastRetransmit, &ctx());
            assert_eq!((cut.ssthresh, cut.cwnd), (ssthresh, half));
        }
    }
}
