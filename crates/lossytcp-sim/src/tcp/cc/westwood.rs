//! TCP Westwood: Reno's probing, but after a loss the window is set from an end-to-end
//! estimate of the bandwidth the flow obtains, `ssthresh = BWE x RTT_min` (in segments),
//! instead of halving it. Two estimators:
//!
//! * **Westwood** (Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood: Bandwidth
//!   Estimation for Enhanced Transport over Wireless Links", MobiCom 2001), the
//!   estimator of the UCLA code paper 003 ran as "Westwood-NR" (with NewReno's recovery):
//!   a sample per ACK, `b_k = d_k / (t_k - t_{k-1})`, `d_k` the segments it acknowledges (a
//!   duplicate ACK counts one delivered segment, and the cumulative ACK that follows counts
//!   only what the duplicates did not), low-pass filtered by the discretised first-order
//!   filter (Tustin) with time-varying coefficients, `BWE_k = a_k BWE_{k-1} + (1 - a_k)
//!   (b_k + b_{k-1}) / 2`, `a_k = (2 tau - D_k) / (2 tau + D_k)`, `D_k = t_k - t_{k-1}`, and
//!   the paper's virtual null samples: when `tau / m` passes without an ACK the filter is fed a
//!   sample of 0 (so the ACK stream is sampled at least at the Nyquist rate of the cut-off
//!   `1 / tau`). We take tau = 0.5 s and m = 2 (`WestwoodParams`): a cut-off of 2 Hz averages
//!   over about five RTTs of paper 003's 100 ms paths, so the estimate follows a change of fair
//!   share within a second or two yet smooths the per-RTT burstiness; m = 2 is the Nyquist
//!   minimum. Wang et al. 2002's adaptive estimator (ABSE), which the paper cites, adapts the
//!   sampling interval and the filter to the measured congestion; its rules are not
//!   reproduced here (see the variant's documentation).
//!   On DupThresh duplicate ACKs `ssthresh = max(2, BWE x RTT_min)` and `cwnd = min(cwnd,
//!   ssthresh)`; on a timeout the same ssthresh and `cwnd = 1`.
//! * **Westwood+** (Linux `net/ipv4/tcp_westwood.c`; ns-3's TcpWestwoodPlus, ns-2's
//!   `Agent/TCP/Linux` with `select_ca westwood`): the acknowledged segments are summed over
//!   an RTT (at least 50 ms) and one sample per RTT is filtered twice by a 7/8 EWMA (anti
//!   ACK-compression). A fast retransmit halves as Reno (`tcp_reno_ssthresh`) and at the end
//!   of recovery `cwnd = ssthresh = max(2, BWE x RTT_min)` (CA_EVENT_COMPLETE_CWR); a timeout
//!   sets `ssthresh = max(2, BWE x RTT_min)` (CA_EVENT_LOSS) and RTT_min is re-measured from
//!   the next sample, unless it interrupts a fast recovery or repeats (tcp_enter_loss() then
//!   keeps ssthresh). It grows as Linux's Reno does (`tcp_reno_cong_avoid()`, counting the
//!   segments each ACK delivers: `cc::LinuxReno`), not per ACK. Linux counts in bytes per
//!   jiffy with integer division; here segments per second in floating point, so the estimate
//!   is not truncated.
//!
//! RTT_min: Westwood reads the sender's smallest exact RTT sample (`SenderState::min_rtt`);
//! Westwood+ keeps Linux's own, which a timeout resets.

use super::CaEvent;
use super::{Growth, LinuxReno, LinuxSlowStart, Reno, UndoState};
use crate::tcp::params::Param;
use crate::tcp::view::{Conn, SenderView, Window};
use crate::tcp::{AckCtx, CongestionKind, Cut};
use crate::time::{Dur, Time};

crate::declare_params! {
    /// Westwood-NR's bandwidth filter (Mascolo et al. 2001).
    pub struct WestwoodFilterParams {
        /// Time constant of the bandwidth filter (cut-off frequency 1 / tau).
        tau_s: f64 = Param::float("westwood_tau_s", "s", 0.5, 1e-3, 1e3),
        /// Virtual null samples per time constant without ACKs (Nyquist: >= 2).
        m: f64 = Param::float("westwood_m", "", 2.0, 2.0, 1e3),
    }
}

crate::declare_params! {
    /// Westwood+'s growth.
    pub struct WestwoodPlusParams {
        /// Linux's slow start: `acked` (Linux >= 3.8, the segments each ACK delivers) or
        /// `per_ack` (2.6.22 with tcp_abc = 1, as ns-2's Agent/TCP/Linux).
        slow_start: LinuxSlowStart = Param::choice("westwood_slow_start", LinuxSlowStart::WORDS, "acked"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimator {
    /// Mascolo et al. 2001: per-ACK samples, Tustin filter with cut-off `1 / tau_s`, a virtual
    /// null sample after `tau_s / m` without ACKs.
    PerAck { tau_s: f64, m: f64 },
    /// Linux's Westwood+: per-RTT samples, two 7/8 EWMAs.
    PerRtt,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodParams {
    pub estimator: Estimator,
    /// Westwood+'s slow start (Linux's, current or 2.6.22's).
    pub slow_start: LinuxSlowStart,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        Self {
            estimator: Estimator::PerAck { tau_s: 0.5, m: 2.0 },
            slow_start: LinuxSlowStart::Acked,
        }
    }
}

impl WestwoodParams {
    pub fn plus() -> Self {
        Self {
            estimator: Estimator::PerRtt,
            slow_start: LinuxSlowStart::Acked,
        }
    }
}

/// Linux: an RTT window is at least 50 ms (TCP_WESTWOOD_RTT_MIN).
const PLUS_MIN_WINDOW: Dur = Dur(50_000_000);
/// Linux's RTT before the first sample (TCP_WESTWOOD_INIT_RTT, 20 s).
const PLUS_INIT_RTT: Dur = Dur(20_000_000_000);

#[derive(Clone, Debug)]
pub struct Westwood {
    p: WestwoodParams,
    /// Westwood's growth: ns-2's per-ACK Reno (the UCLA code's base agent).
    reno: Reno,
    /// Westwood+'s: Linux's tcp_reno_cong_avoid().
    linux: LinuxReno,
    /// The bandwidth estimate, segments per second.
    bwe: f64,
    /// Segments reported by duplicate ACKs, not yet by a cumulative ACK (`accounted`).
    accounted: u64,
    // Per-ACK estimator: previous sample, time of the previous sample, segments of ACKs
    // that arrived at the same instant.
    prev_sample: f64,
    last_at: Option<Time>,
    pending: u64,
    // Per-RTT estimator (Linux's names).
    bw_ns_est: f64,
    bk: u64,
    rtt_win_sx: Time,
    rtt: Dur,
    rtt_min: Dur,
    reset_rtt_min: bool,
    undo: UndoState,
}

impl Westwood {
    pub fn new(p: WestwoodParams) -> Self {
        Self {
            p,
            reno: Reno::default(),
            linux: LinuxReno::new(p.slow_start),
            bwe: 0.0,
            accounted: 0,
            prev_sample: 0.0,
            last_at: None,
            pending: 0,
            bw_ns_est: 0.0,
            bk: 0,
            rtt_win_sx: Time::ZERO,
            rtt: PLUS_INIT_RTT,
            rtt_min: PLUS_INIT_RTT,
            reset_rtt_min: true,
            undo: UndoState::default(),
        }
    }

    /// The bandwidth estimate, segments per second.
    pub fn estimate(&self) -> f64 {
        self.bwe
    }

    /// Segments this ACK reports delivered (Mascolo §2.3; Linux westwood_acked_count()).
    fn acked_count(&mut self, newly_acked: u64) -> u64 {
        if newly_acked == 0 {
            self.accounted += 1;
            return 1;
        }
        if newly_acked > 1 {
            // A delayed or cumulative ACK after duplicates: those already counted part of it.
            if self.accounted >= newly_acked {
                self.accounted -= newly_acked;
                return 1;
            }
            let d = newly_acked - self.accounted;
            self.accounted = 0;
            return d;
        }
        1
    }

    fn tustin(&mut self, sample: f64, dt: f64, tau: f64) {
        let a = (2.0 * tau - dt) / (2.0 * tau + dt);
        self.bwe = a * self.bwe + (1.0 - a) * (sample + self.prev_sample) / 2.0;
        self.prev_sample = sample;
    }

    fn per_ack(&mut self, now: Time, d: u64, tau: f64, m: f64) {
        let Some(mut last) = self.last_at else {
            // The first ACK starts the clock; its segments form no rate yet.
            self.last_at = Some(now);
            return;
        };
        let step = Dur::from_secs(tau / m);
        while now.since(last) > step {
            self.tustin(0.0, step.as_secs(), tau);
            last += step;
        }
        let dt = now.since(last);
        if dt == Dur::ZERO {
            self.pending += d;
            return;
        }
        let d = d + std::mem::take(&mut self.pending);
        self.tustin(d as f64 / dt.as_secs(), dt.as_secs(), tau);
        self.last_at = Some(now);
    }

    fn per_rtt(&mut self, now: Time, d: u64, rtt_sample: Option<Dur>) {
        // westwood_update_window(): close the window once an RTT (>= 50 ms) has passed.
        let delta = now.since(self.rtt_win_sx);
        if self.rtt > Dur::ZERO && delta > self.rtt.max(PLUS_MIN_WINDOW) {
            let sample = self.bk as f64 / delta.as_secs();
            if self.bw_ns_est == 0.0 && self.bwe == 0.0 {
                self.bw_ns_est = sample;
                self.bwe = sample;
            } else {
                self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
                self.bwe = (7.0 * self.bwe + self.bw_ns_est) / 8.0;
            }
            self.bk = 0;
            self.rtt_win_sx = now;
        }
        self.bk += d;
        // update_rtt_min() runs before this ACK's RTT sample is taken (tcp_ack() calls the
        // in-ACK event before tcp_clean_rtx_queue() -> pkts_acked()).
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
        if let Some(r) = rtt_sample {
            self.rtt = r;
        }
    }

    /// `max(2, BWE x RTT_min)` in whole segments.
    fn bw_rtt_min(&self, s: &impl SenderView) -> f64 {
        let rtt_min = match self.p.estimator {
            Estimator::PerAck { .. } => s.min_rtt().unwrap_or(Dur::ZERO),
            Estimator::PerRtt => self.rtt_min,
        };
        (self.bwe * rtt_min.as_secs()).floor().max(2.0)
    }
}

impl Growth for Westwood {
    fn on_ack_arrival(&mut self, _s: &Conn, ctx: &AckCtx) {
        let d = self.acked_count(ctx.newly_acked);
        match self.p.estimator {
            Estimator::PerAck { tau_s, m } => self.per_ack(ctx.now, d, tau_s, m),
            Estimator::PerRtt => self.per_rtt(ctx.now, d, ctx.rtt_sample),
        }
    }

    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        match self.p.estimator {
            Estimator::PerAck { .. } => self.reno.on_ack(w, ctx),
            Estimator::PerRtt => self.linux.on_ack(w, ctx),
        }
    }

    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.undo.save(s);
        self.linux.reset();
        let est = self.bw_rtt_min(s);
        match (self.p.estimator, kind) {
            (Estimator::PerAck { .. }, CongestionKind::FastRetransmit) => Cut {
                ssthresh: est,
                cwnd: s.cwnd().min(est),
            },
            (Estimator::PerRtt, CongestionKind::FastRetransmit) => {
                // tcp_reno_ssthresh(): max(cwnd >> 1, 2) on the whole-segment window.
                let half = ((s.cwnd() as u64) >> 1).max(2) as f64;
                Cut {
                    ssthresh: half,
                    cwnd: half,
                }
            }
            // tcp_enter_loss(): a timeout that interrupts a fast recovery keeps its ssthresh
            // and raises no CA_EVENT_LOSS (RTT_min is kept).
            (Estimator::PerRtt, CongestionKind::Timeout) if s.in_recovery() => Cut {
                ssthresh: s.ssthresh(),
                cwnd: 1.0,
            },
            (_, CongestionKind::Timeout) => {
                if self.p.estimator == Estimator::PerRtt {
                    self.reset_rtt_min = true;
                }
                Cut {
                    ssthresh: est,
                    cwnd: 1.0,
                }
            }
        }
    }

    /// Westwood+: CA_EVENT_COMPLETE_CWR sets `cwnd = ssthresh = BWE x RTT_min`. An undo is
    /// Linux's `tcp_reno_undo_cwnd()` (tcp_westwood.c's `undo_cwnd`): the estimate plays no
    /// part, and RTT_min stays re-measured after a timeout (CA_EVENT_LOSS's reset is not
    /// undone). A fast recovery found spurious still ends with COMPLETE_CWR's window, as in
    /// Linux, where tcp_end_cwnd_reduction() follows the undo at the recovery's end.
    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        if ev == CaEvent::ExitRecovery && self.p.estimator == Estimator::PerRtt {
            let est = self.bw_rtt_min(w);
            w.set_ssthresh(est);
            w.set_cwnd(est);
        }
        if ev == CaEvent::Undo {
            self.undo.undo(w);
        }
    }

    fn wants_rtt_samples(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::state::SenderState;

    fn ack(ms: f64, newly: u64, rtt_ms: Option<f64>) -> AckCtx {
        AckCtx {
            now: Time::ZERO + Dur::from_secs(ms / 1000.0),
            rtt_sample: rtt_ms.map(|r| Dur::from_secs(r / 1000.0)),
            newly_acked: newly,
            newly_delivered: newly,
            ..AckCtx::default()
        }
    }

    #[test]
    fn per_ack_estimate_on_a_known_ack_stream() {
        // ACKs of 2 segments every 20 ms (100 segments/s), tau = 0.5 s, no gap long enough
        // for a virtual sample (tau / m = 250 ms). By hand: the first ACK starts the clock;
        // then b = 100 each time, a = (1 - 0.02) / (1 + 0.02) = 0.98 / 1.02.
        let mut w = Westwood::new(WestwoodParams::default());
        let s = SenderState::new(1, 100, 3, u64::MAX);
        w.on_ack_arrival(&Conn::new(&s), &ack(0.0, 2, None));
        assert_eq!(w.estimate(), 0.0);
        let a = 0.98 / 1.02;
        let mut want: f64 = 0.0;
        let mut prev = 0.0;
        for k in 1..=50 {
            w.on_ack_arrival(&Conn::new(&s), &ack(20.0 * k as f64, 2, None));
            want = a * want + (1.0 - a) * (100.0 + prev) / 2.0;
            prev = 100.0;
            assert!(
                (w.estimate() - want).abs() < 1e-9,
                "ack {k}: {}",
                w.estimate()
            );
        }
        // The step response of the filter: after 1 s it has closed 1 - a^49 = 86% of the gap.
        assert!(
            (w.estimate() - (100.0 - 98.0 * a.powi(49))).abs() < 0.5,
            "{}",
            w.estimate()
        );
        // A silence of 600 ms: two virtual null samples (250 ms each), then the ACK 100 ms
        // after the second with its own sample of 2 / 0.1 = 20 segments/s.
        let before = w.estimate();
        w.on_ack_arrival(&Conn::new(&s), &ack(1000.0 + 600.0, 2, None));
        let a2 = (1.0 - 0.25) / (1.0 + 0.25);
        let mut e = a2 * before + (1.0 - a2) * (0.0 + 100.0) / 2.0;
        e = a2 * e + (1.0 - a2) * 0.0;
        let a3 = (1.0 - 0.1) / (1.0 + 0.1);
        e = a3 * e + (1.0 - a3) * (20.0 + 0.0) / 2.0;
        assert!((w.estimate() - e).abs() < 1e-9, "{} vs {e}", w.estimate());
    }

    #[test]
    fn duplicate_acks_count_once() {
        let mut w = Westwood::new(WestwoodParams::default());
        // Three duplicates count one segment each; the cumulative ACK of 5 that follows counts
        // only the 2 they did not; one of 2 after 3 more duplicates counts 1.
        assert_eq!([0, 0, 0, 5].map(|n| w.acked_count(n)), [1, 1, 1, 2]);
        assert_eq!([0, 0, 0, 2].map(|n| w.acked_count(n)), [1, 1, 1, 1]);
        assert_eq!(w.accounted, 1);
        assert_eq!(w.acked_count(4), 3);
    }

    #[test]
    fn ssthresh_is_bandwidth_times_rtt_min() {
        let mut w = Westwood::new(WestwoodParams::default());
        w.bwe = 250.0;
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.min_rtt = Some(Dur::from_secs(0.1));
        s.cwnd = 40.0;
        let fr = w.on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        assert_eq!((fr.ssthresh, fr.cwnd), (25.0, 25.0));
        s.cwnd = 20.0;
        let fr = w.on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        assert_eq!((fr.ssthresh, fr.cwnd), (25.0, 20.0), "cwnd only shrinks");
        let to = w.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &AckCtx::default());
        assert_eq!((to.ssthresh, to.cwnd), (25.0, 1.0));
        w.bwe = 0.0;
        let to = w.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &AckCtx::default());
        assert_eq!(to.ssthresh, 2.0, "at least two segments");
    }

    #[test]
    fn an_undo_restores_the_window_not_the_estimate() {
        // Westwood+ at cwnd 40, ssthresh 30, with BWE x RTT_min = 250/s x 0.1 s = 25: a
        // timeout sets ssthresh 25 (CA_EVENT_LOSS) and cwnd 1; found spurious,
        // tcp_reno_undo_cwnd() restores cwnd 40 and prior_ssthresh = max(30, 20 + 10) = 30.
        // RTT_min is still re-measured from the next sample (not undone).
        for p in [WestwoodParams::plus(), WestwoodParams::default()] {
            let mut w = Westwood::new(p);
            w.bwe = 250.0;
            w.rtt_min = Dur::from_secs(0.1);
            w.reset_rtt_min = false;
            let mut s = SenderState::new(1, 100, 3, u64::MAX);
            s.min_rtt = Some(Dur::from_secs(0.1));
            s.cwnd = 40.0;
            s.ssthresh = 30.0;
            let to =
                w.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &AckCtx::default());
            assert_eq!((to.ssthresh, to.cwnd), (25.0, 1.0));
            s.take(to);
            s.cwnd = 2.0;
            w.on_event(&mut Window::new(&mut s), CaEvent::Undo);
            assert_eq!((s.cwnd, s.ssthresh), (40.0, 30.0), "{p:?}");
            assert_eq!(w.reset_rtt_min, p.estimator == Estimator::PerRtt);
            assert_eq!(w.estimate(), 250.0);
            // Nothing left to undo.
            s.cwnd = 3.0;
            w.on_event(&mut Window::new(&mut s), CaEvent::Undo);
            assert_eq!(s.cwnd, 3.0);
        }
    }

    #[test]
    fn westwood_plus_samples_once_per_rtt_with_two_ewmas() {
        let mut w = Westwood::new(WestwoodParams::plus());
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.cwnd = 30.0;
        // RTT 100 ms; 3 segments acknowledged every 10 ms. The window opened at 0 closes at
        // the first ACK more than 100 ms later (110 ms): 30 segments (10..100 ms) in 110 ms.
        w.on_ack_arrival(&Conn::new(&s), &ack(0.0, 0, Some(100.0)));
        assert_eq!(w.accounted, 1, "a duplicate at first");
        w.accounted = 0;
        w.bk = 0;
        for k in 1..=11 {
            w.on_ack_arrival(&Conn::new(&s), &ack(10.0 * k as f64, 3, Some(100.0)));
        }
        let first = 30.0 / 0.11;
        assert!((w.estimate() - first).abs() < 1e-9, "{}", w.estimate());
        assert_eq!(w.rtt_min, Dur::from_secs(0.1));
        // The next window (110..220 ms): 3 segments at 120, ..., 220 ms -> 33 in 110 ms.
        for k in 12..=22 {
            w.on_ack_arrival(&Conn::new(&s), &ack(10.0 * k as f64, 3, Some(100.0)));
        }
        let sample = 33.0 / 0.11;
        let ns = (7.0 * first + sample) / 8.0;
        let want = (7.0 * first + ns) / 8.0;
        assert!(
            (w.estimate() - want).abs() < 1e-9,
            "{} vs {want}",
            w.estimate()
        );
        // Fast retransmit: Reno's half; recovery exit: BWE x RTT_min.
        let fr = w.on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        assert_eq!(fr.ssthresh, 15.0);
        w.on_event(&mut Window::new(&mut s), CaEvent::ExitRecovery);
        assert_eq!(
            (s.cwnd, s.ssthresh),
            ((want * 0.1).floor(), (want * 0.1).floor())
        );
    }
}
