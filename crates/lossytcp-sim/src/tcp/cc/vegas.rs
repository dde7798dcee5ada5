//! TCP Vegas's window rule (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance
//! on a Global Internet", IEEE JSAC 1995, Sections 3.2-3.3), as ns-2 2.35's
//! `Agent/TCP/Vegas` (tcp-vegas.cc) applies it.
//!
//! Once per RTT (when the segment sent at the last decision is acknowledged) Vegas compares
//! the rate it expects, window / BaseRTT, with the rate it achieved, segments sent in the
//! last RTT / measured RTT, and converts the difference into segments queued in the network:
//! `diff = (expected - actual) x BaseRTT`. In congestion avoidance it adds about one segment
//! over the next RTT if `diff < alpha`, removes one if `diff > beta`, else holds. Slow start
//! doubles the window only every other RTT and ends (ssthresh = 2, cwnd cut by 1/8) once
//! `diff > gamma`. The increase is spread over the ACKs of the RTT and only while the window
//! is in use (`cwnd - outstanding <= 2`).
//!
//! The cuts are here too: a timeout halves ssthresh as Reno does (ns-2:
//! slowdown(CLOSE_SSTHRESH_HALF)) and restarts from two segments (`v_slowstart_`); a fast
//! retransmission cuts the window to 3/4 (1/2 for a segment already retransmitted, 2 for a
//! window of 3 or less). When a fast retransmission cuts at all is the retransmission rule's
//! decision (`recovery::vegas`).

use super::{CaEvent, Growth, Halving, Reno, RenoParams, UndoState};
use crate::tcp::params::Param;
use crate::tcp::view::{Conn, SenderView, Window};
use crate::tcp::{AckCtx, CongestionKind, Cut};

crate::declare_params! {
    /// Vegas's thresholds, in segments queued in the network (ns-2: `v_alpha_ 1`, `v_beta_ 3`,
    /// `v_gamma_ 1`).
    pub struct VegasParams {
        /// Segments queued below which congestion avoidance adds one segment per RTT.
        alpha: u32 = Param::int("vegas_alpha", "segments", 1, 0, 1_000_000)
            .at_most("vegas_beta")
            .ns2("v_alpha_"),
        /// Segments queued above which congestion avoidance removes one segment per RTT.
        beta: u32 = Param::int("vegas_beta", "segments", 3, 0, 1_000_000).ns2("v_beta_"),
        /// Segments queued above which slow start ends.
        gamma: u32 = Param::int("vegas_gamma", "segments", 1, 0, 1_000_000).ns2("v_gamma_"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct VegasGrowthParams {
    pub thresholds: VegasParams,
    /// How a timeout halves ssthresh.
    pub halving: Halving,
}

/// Vegas always restarts from two segments after a timeout (ns-2 `v_slowstart_`).
const RESTART_WINDOW: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    halving: Reno,
    /// `v_begseq_`: the decision is due when the ACK reaches this segment.
    begseq: u64,
    /// `v_begtime_`: fine time of the last decision.
    begtime: f64,
    /// `v_incr_`: added to cwnd on each ACK until the next decision.
    incr: f64,
    /// `v_inc_flag_`: slow start grows in every other RTT only.
    grow_this_rtt: bool,
    undo: UndoState,
}

impl Vegas {
    pub fn new(p: VegasGrowthParams) -> Self {
        Self {
            p: p.thresholds,
            halving: Reno::new(RenoParams { halving: p.halving }),
            begseq: 0,
            begtime: 0.0,
            incr: 0.0,
            grow_this_rtt: true,
            undo: UndoState::default(),
        }
    }
}

impl Growth for Vegas {
    fn on_ack(&mut self, w: &mut Window, _ctx: &AckCtx) {
        let (snd_una, snd_nxt) = (w.snd_una(), w.snd_nxt());
        let (mut cwnd, mut ssthresh) = (w.cwnd(), w.ssthresh());
        let Some(clock) = w.fine_clock_mut() else {
            return;
        };
        // ns-2 numbers ACKs and t_seqno_ so that `t_seqno_ - last_ack_` is the flight + 1.
        let in_use = (snd_nxt + 1 - snd_una) as f64;
        if snd_una > self.begseq {
            let now = clock.now();
            let rtt = clock.take_round_mean().unwrap_or(now - self.begtime);
            let sent_in_rtt = snd_nxt as f64 - self.begseq as f64;
            if rtt > 0.0 {
                // A lone segment in flight measures the path without queueing.
                if rtt < clock.base_rtt || sent_in_rtt <= 1.0 {
                    clock.base_rtt = rtt;
                }
                let base = clock.base_rtt;
                let actual = sent_in_rtt / rtt;
                let expected = in_use / base;
                // C's int(): truncation toward zero.
                let diff = ((expected - actual) * base + 0.5) as i64;
                if cwnd < ssthresh {
                    self.grow_this_rtt = !self.grow_this_rtt;
                    if !self.grow_this_rtt {
                        self.incr = 0.0;
                    } else if diff > i64::from(self.p.gamma) {
                        // Leave slow start a little below the window that queued gamma.
                        ssthresh = 2.0;
                        cwnd -= cwnd / 8.0;
                        cwnd = cwnd.max(2.0);
                        self.incr = 0.0;
                    } else {
                        self.incr = 1.0;
                    }
                } else if diff > i64::from(self.p.beta) {
                    cwnd = (cwnd - 1.0).max(2.0);
                    self.incr = 0.0;
                } else if diff < i64::from(self.p.alpha) {
                    self.incr = 1.0 / cwnd;
                } else {
                    self.incr = 0.0;
                }
            }
            self.begseq = snd_nxt;
            self.begtime = now;
        }
        // The slow-start increment stops at ssthresh even within the RTT.
        if self.incr == 1.0 && cwnd >= ssthresh {
            self.incr = 0.0;
        }
        if self.incr > 0.0 && cwnd - in_use <= 2.0 {
            cwnd += self.incr;
        }
        w.set_cwnd(cwnd);
        w.set_ssthresh(ssthresh);
    }

    fn restart_window(&self) -> f64 {
        RESTART_WINDOW
    }

    /// An undo is Linux's for Vegas (tcp_vegas.c): `tcp_reno_undo_cwnd()`, and the return
    /// to TCP_CA_Open restarts the measurement (`vegas_enable()`: the next decision comes
    /// one RTT of fresh samples later, from the segment sent next). ns-2's Vegas has no undo.
    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        if ev != CaEvent::Undo || !self.undo.undo(w) {
            return;
        }
        self.begseq = w.snd_nxt();
        self.incr = 0.0;
        if let Some(c) = w.fine_clock_mut() {
            self.begtime = c.now();
        }
    }

    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.undo.save(s);
        match kind {
            CongestionKind::Timeout => Cut {
                ssthresh: self.halving.ssthresh_on_loss(s),
                cwnd: RESTART_WINDOW,
            },
            CongestionKind::FastRetransmit => {
                // ns-2 window(): whole segments, capped by the receiver's window.
                let win = s.cwnd().min(f64::from(s.max_window())) as u32;
                let retransmitted = s
                    .fine_clock()
                    .is_some_and(|c| c.transmissions(s.snd_una()) > 1);
                let cut = if win <= 3 {
                    2
                } else if retransmitted {
                    win >> 1
                } else {
                    win - (win >> 2)
                };
                Cut {
                    ssthresh: s.ssthresh(),
                    cwnd: f64::from(cut),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::fine_clock::FineClock;
    use crate::tcp::state::SenderState;
    use crate::time::{Dur, Time};

    const P: VegasGrowthParams = VegasGrowthParams {
        thresholds: VegasParams {
            alpha: 1,
            beta: 3,
            gamma: 1,
        },
        halving: Halving::Rfc5681,
    };

    fn state(cwnd: f64, ssthresh: f64, snd_una: u64) -> SenderState {
        let mut s = SenderState::new(2, 100, 3, u64::MAX);
        s.snd_una = snd_una;
        s.cwnd = cwnd;
        s.ssthresh = ssthresh;
        s.fine = Some(FineClock::new(100, false));
        s
    }

    /// One decision: `sent` segments went out in the last RTT of `rtt_s`, BaseRTT `base_s`.
    fn decide(g: &mut Vegas, s: &mut SenderState, sent: u64, rtt_s: f64, base_s: f64) {
        g.begseq = s.snd_una;
        s.snd_una += 1;
        s.snd_nxt = g.begseq + sent;
        let c = s.fine.as_mut().unwrap();
        c.base_rtt = base_s;
        c.at(Time::ZERO + Dur::from_secs(g.begtime + rtt_s));
        g.on_ack(&mut Window::new(s), &AckCtx::default());
    }

    #[test]
    fn congestion_avoidance_holds_between_alpha_and_beta() {
        // 9 in use over BaseRTT 100 ms: expected 90/s; 9 sent in 112.5 ms: actual 80/s,
        // diff = 10/s x 0.1 s = 1 segment queued: between alpha = 1 and beta = 3, hold.
        let mut s = state(10.0, 2.0, 100);
        let mut g = Vegas::new(P);
        decide(&mut g, &mut s, 9, 0.1125, 0.1);
        assert_eq!(g.incr, 0.0);
        // diff = 0 (no queue): grow by 1/cwnd per ACK while the window is in use.
        let mut s = state(10.0, 2.0, 100);
        decide(&mut g, &mut s, 9, 0.1, 0.1);
        assert_eq!(g.incr, 0.1);
        // 9 sent in 200 ms: diff = 45/s x 0.1 s = 4.5 -> 5 > beta: one segment less.
        let mut s = state(10.0, 2.0, 100);
        decide(&mut g, &mut s, 9, 0.2, 0.1);
        assert_eq!(s.cwnd, 9.0);
        assert_eq!(g.incr, 0.0);
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_ends_above_gamma() {
        let mut s = state(4.0, 1e9, 10);
        let mut g = Vegas::new(P);
        decide(&mut g, &mut s, 3, 0.1, 0.1);
        assert_eq!(g.incr, 0.0, "first RTT after the start: hold");
        decide(&mut g, &mut s, 3, 0.1, 0.1);
        assert_eq!(g.incr, 1.0, "next RTT: double");
        assert_eq!(
            s.cwnd, 5.0,
            "one segment per ACK while the window is in use"
        );
        decide(&mut g, &mut s, 3, 0.1, 0.1);
        // 15 in use, 15 sent in 300 ms: diff = 100/s x 0.1 s = 10 > gamma: leave slow
        // start with cwnd cut by an eighth.
        s.cwnd = 16.0;
        decide(&mut g, &mut s, 15, 0.3, 0.1);
        assert_eq!(s.ssthresh, 2.0);
        assert_eq!(s.cwnd, 14.0);
    }

    #[test]
    fn an_undo_restores_the_window_and_restarts_the_measurement() {
        // Congestion avoidance at cwnd 12, ssthresh 6, 12 in flight from segment 100, growing
        // (incr 1/12). A timeout: ssthresh 6 (RFC 5681 half the flight), cwnd 2. Found
        // spurious: tcp_reno_undo_cwnd() gives cwnd 12 and prior_ssthresh max(6, 6 + 3) = 9;
        // vegas_enable(): the next decision waits for the segments sent from now on.
        let mut s = state(12.0, 6.0, 100);
        s.snd_max = 112;
        s.snd_nxt = 112;
        let mut g = Vegas::new(P);
        g.incr = 1.0 / 12.0;
        let to = g.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &AckCtx::default());
        assert_eq!((to.ssthresh, to.cwnd), (6.0, 2.0));
        s.take(to);
        s.snd_una = 101;
        s.snd_nxt = 112;
        s.fine
            .as_mut()
            .unwrap()
            .at(Time::ZERO + Dur::from_secs(2.5));
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!((s.cwnd, s.ssthresh), (12.0, 9.0));
        assert_eq!((g.begseq, g.begtime, g.incr), (112, 2.5, 0.0));
        // Once: nothing more to restore, and the measurement is left alone.
        s.cwnd = 3.0;
        g.begseq = 115;
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!((s.cwnd, g.begseq), (3.0, 115));
    }

    #[test]
    fn increase_waits_while_the_window_is_not_in_use() {
        let mut s = state(10.0, 2.0, 100);
        let mut g = Vegas::new(P);
        decide(&mut g, &mut s, 5, 0.1, 0.1); // 5 in use: cwnd - 5 > 2
        assert_eq!(g.incr, 0.1);
        assert_eq!(s.cwnd, 10.0);
    }
}
