//! Standard TCP growth, RFC 5681 §3.1: slow start below ssthresh, congestion avoidance above,
//! and the halving on a congestion event. Counted per ACK (no byte counting), as ns-2's agents
//! and the papers' models do.

use super::{CaEvent, Growth};
use crate::tcp::params::Param;
use crate::tcp::view::{Conn, SenderView, Window};
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

crate::param_choice! {
    /// Whose rules the Reno family's window follows.
    pub enum RenoRules {
        /// RFC 5681: one segment per ACK in slow start, ssthresh = FlightSize / 2.
        Rfc5681 = "rfc5681",
        /// Linux's `tcp_reno_cong_avoid()` and `tcp_reno_ssthresh()`: the segments each ACK
        /// delivers, an integer window, ssthresh = cwnd / 2 ([`LinuxReno`]).
        Linux = "linux",
    }
}

crate::declare_params! {
    /// The Reno family's window rules.
    pub struct RenoRulesParams {
        /// `rfc5681` (RFC 5681, counted per ACK as ns-2 does) or `linux` (Linux's reno
        /// module: the segments each ACK delivers, ssthresh = cwnd / 2; `crosscheck linux` runs it).
        rules: RenoRules = Param::choice("reno_rules", RenoRules::WORDS, "rfc5681"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RenoParams {
    pub halving: Halving,
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    p: RenoParams,
    undo: UndoState,
}

/// The Reno family's window by Linux's reno module (`RenoRules::Linux`): [`LinuxReno`]'s
/// count, `tcp_reno_ssthresh()`'s cut, `tcp_reno_undo_cwnd()`'s undo. A plugin of its own,
/// so that [`Reno`]'s per-ACK growth, the hot path of ns-2's and the papers' runs, tests
/// nothing for it.
#[derive(Clone, Debug, Default)]
pub struct RenoLinux {
    undo: UndoState,
    linux: LinuxReno,
}

impl Growth for RenoLinux {
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        self.linux.on_ack(w, ctx);
    }

    /// `tcp_reno_ssthresh()`, max(cwnd / 2, 2) on the whole-segment window, with
    /// `snd_cwnd_cnt` cleared; a timeout that interrupts a fast recovery keeps its ssthresh
    /// (`tcp_enter_loss()` asks the module only outside one).
    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.undo.save(s);
        self.linux.reset();
        let ssthresh = match kind {
            CongestionKind::Timeout if s.in_recovery() => s.ssthresh(),
            _ => ((s.cwnd() as u64) >> 1).max(2) as f64,
        };
        let cwnd = match kind {
            CongestionKind::FastRetransmit => ssthresh,
            CongestionKind::Timeout => 1.0,
        };
        Cut { ssthresh, cwnd }
    }

    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        if ev == CaEvent::Undo {
            self.undo.undo(w);
        }
    }
}

/// What a loss episode's cut replaced, kept to undo it when the loss proves spurious
/// ([`CaEvent::Undo`]). Linux saves `prior_cwnd` and `prior_ssthresh =
/// tcp_current_ssthresh()` when an episode starts (tcp_enter_loss(), tcp_enter_recovery(),
/// tcp_init_cwnd_reduction()); tcp_undo_cwnd_reduction() then sets cwnd from the module's
/// `undo_cwnd()` (`tcp_reno_undo_cwnd()`: max(cwnd, prior_cwnd), the one Reno, Westwood+ and
/// Vegas use) and raises ssthresh back to prior_ssthresh.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UndoState {
    /// (prior_cwnd, prior_ssthresh) of the episode under way, until undone.
    prior: Option<(f64, f64)>,
}

impl UndoState {
    /// A congestion event, before its cut. A timeout that interrupts a fast recovery is part
    /// of that episode, whose prior state stays the one to restore (tcp_enter_loss() saves
    /// only outside recovery).
    pub fn save(&mut self, s: &impl SenderView) {
        if s.in_recovery() {
            return;
        }
        // tcp_current_ssthresh() outside a cwnd reduction: max(ssthresh, 3/4 cwnd), on the
        // whole-segment window.
        let c = s.cwnd() as u64;
        let three_quarters = ((c >> 1) + (c >> 2)) as f64;
        self.prior = Some((s.cwnd(), s.ssthresh().max(three_quarters)));
    }

    /// tcp_undo_cwnd_reduction() with tcp_reno_undo_cwnd(): cwnd = max(cwnd, prior_cwnd),
    /// ssthresh = max(ssthresh, prior_ssthresh). Once per episode; false if nothing was
    /// saved.
    pub fn undo(&mut self, w: &mut Window) -> bool {
        let Some((cwnd, ssthresh)) = self.prior.take() else {
            return false;
        };
        w.set_cwnd(w.cwnd().max(cwnd));
        w.set_ssthresh(w.ssthresh().max(ssthresh));
        true
    }
}

impl Reno {
    pub fn new(p: RenoParams) -> Self {
        Self {
            p,
            undo: UndoState::default(),
        }
    }

    /// RFC 5681 eq. (4), or ns-2's half of the window.
    pub fn ssthresh_on_loss(&self, s: &impl SenderView) -> f64 {
        let base = match self.p.halving {
            Halving::Rfc5681 => s.flight_size() as f64,
            Halving::Ns2Slowdown => s.cwnd().min(f64::from(s.max_window())).floor(),
        };
        (base / 2.0).floor().max(2.0)
    }

    /// The window a fast retransmit continues from, before any inflation.
    pub fn halved_window(&self, s: &impl SenderView, ssthresh: f64) -> f64 {
        match self.p.halving {
            Halving::Rfc5681 => ssthresh,
            Halving::Ns2Slowdown => s.cwnd().min(f64::from(s.max_window())) / 2.0,
        }
    }
}

impl Growth for Reno {
    fn on_ack(&mut self, w: &mut Window, _ctx: &AckCtx) {
        let cwnd = w.cwnd();
        if cwnd < w.ssthresh() {
            // RFC 5681 eq. (2): one segment per ACK in slow start.
            w.set_cwnd(cwnd + 1.0);
        } else {
            // RFC 5681 eq. (3): about one segment per RTT.
            w.set_cwnd(cwnd + 1.0 / cwnd);
        }
    }

    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.undo.save(s);
        let ssthresh = self.ssthresh_on_loss(s);
        let cwnd = match kind {
            CongestionKind::FastRetransmit => self.halved_window(s, ssthresh),
            // RFC 5681 §3.1: after a timeout cwnd is the loss window, one segment.
            CongestionKind::Timeout => 1.0,
        };
        Cut { ssthresh, cwnd }
    }

    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        if ev == CaEvent::Undo {
            self.undo.undo(w);
        }
    }
}

crate::param_choice! {
    /// Linux's slow start (`tcp_slow_start()`), of Westwood+'s growth.
    pub enum LinuxSlowStart {
        /// Linux >= 3.8: the segments each ACK delivers (two per delayed ACK).
        Acked = "acked",
        /// Linux 2.6.22 with `tcp_abc = 1`, which ns-2 2.35's `Agent/TCP/Linux` runs: one
        /// segment per ACK that delivers at least one.
        PerAck = "per_ack",
    }
}

/// Linux's growth, `tcp_reno_cong_avoid()` (the growth of Linux's Reno and of the modules that
/// borrow it, Westwood+ among them): an integer window; growth only while the window limits
/// the sender (`tcp_is_cwnd_limited()`: in slow start while cwnd < twice the flight, after it
/// while the flight fills cwnd); slow start adds the segments an ACK delivers, up to ssthresh
/// (`tcp_slow_start()`), and what is left goes to congestion avoidance, one segment per cwnd
/// segments delivered (`tcp_cong_avoid_ai()`). Counting segments rather than ACKs, it grows as
/// fast with delayed ACKs as without (RFC 3465's byte counting).
#[derive(Clone, Debug)]
pub struct LinuxReno {
    slow_start: LinuxSlowStart,
    /// `snd_cwnd_cnt`: segments delivered toward the next increment.
    cnt: u64,
}

impl Default for LinuxReno {
    fn default() -> Self {
        Self::new(LinuxSlowStart::Acked)
    }
}

impl LinuxReno {
    pub fn new(slow_start: LinuxSlowStart) -> Self {
        Self { slow_start, cnt: 0 }
    }

    /// `tcp_is_cwnd_limited()`: in slow start while cwnd is below twice the flight, after it
    /// while the flight fills cwnd (the flight before this ACK moved snd_una: Linux's
    /// packets_out of the last window).
    pub fn cwnd_limited(w: &Window, ctx: &AckCtx) -> bool {
        let cwnd = w.cwnd() as u64;
        let flight = w.flight() + ctx.newly_acked;
        if cwnd < w.ssthresh() as u64 {
            cwnd < 2 * flight
        } else {
            flight >= cwnd
        }
    }

    /// `tcp_slow_start()`: the window after slow start's share of `acked` delivered
    /// segments, and what is left of them for congestion avoidance.
    pub fn slow_start(&self, cwnd: u64, ssthresh: u64, acked: u64) -> (u64, u64) {
        let step = match self.slow_start {
            LinuxSlowStart::Acked => acked,
            // 2.6.22 tcp_slow_start() with tcp_abc = 1: one segment, the rest forgotten.
            LinuxSlowStart::PerAck => acked.min(1),
        };
        let grown = (cwnd + step).min(ssthresh);
        let left = match self.slow_start {
            LinuxSlowStart::Acked => acked - (grown - cwnd),
            LinuxSlowStart::PerAck => 0,
        };
        (grown, left)
    }

    /// `tcp_cong_avoid_ai()`: one segment per `w` segments delivered.
    pub fn cong_avoid_ai(&mut self, mut cwnd: u64, w: u64, acked: u64) -> u64 {
        let w = w.max(1);
        if self.cnt >= w {
            // Credits earned at a larger window, applied gently now.
            self.cnt = 0;
            cwnd += 1;
        }
        self.cnt += acked;
        if self.cnt >= w {
            let delta = self.cnt / w;
            self.cnt -= delta * w;
            cwnd += delta;
        }
        cwnd
    }

    pub fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        if !Self::cwnd_limited(w, ctx) {
            return;
        }
        let mut cwnd = w.cwnd() as u64;
        let ssthresh = w.ssthresh() as u64;
        let mut acked = ctx.newly_delivered;
        if cwnd < ssthresh {
            (cwnd, acked) = self.slow_start(cwnd, ssthresh, acked);
        }
        if acked > 0 {
            cwnd = self.cong_avoid_ai(cwnd, cwnd, acked);
        }
        w.set_cwnd(cwnd as f64);
    }

    /// A loss: Linux clears `snd_cwnd_cnt` when it enters recovery or loss.
    pub fn reset(&mut self) {
        self.cnt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::state::SenderState;

    fn ctx() -> AckCtx {
        AckCtx::default()
    }

    /// Linux's rules: a delayed ACK of two segments opens the window by two in slow start
    /// (RFC 5681's rule: by one), congestion avoidance adds one per cwnd segments delivered,
    /// and the cut halves the whole-segment window, not the flight.
    #[test]
    fn linux_rules_count_segments_and_halve_the_window() {
        let two = AckCtx {
            newly_acked: 2,
            newly_delivered: 2,
            ..ctx()
        };
        let mut s = SenderState::new(10, 1000, 3, u64::MAX);
        s.ssthresh = 14.0;
        // 10 segments out (cwnd-limited), one delayed ACK of 2: 10 -> 12 (RFC 5681: 11).
        s.snd_max = 10;
        s.snd_una = 2;
        let mut g = RenoLinux::default();
        g.on_ack(&mut Window::new(&mut s), &two);
        assert_eq!(s.cwnd, 12.0);
        let mut rfc = SenderState::new(10, 1000, 3, u64::MAX);
        (rfc.ssthresh, rfc.snd_max, rfc.snd_una) = (14.0, 10, 2);
        Reno::default().on_ack(&mut Window::new(&mut rfc), &two);
        assert_eq!(rfc.cwnd, 11.0);
        // Up to ssthresh, the rest to congestion avoidance (14 needs 14 delivered per step):
        // 12 + 2 = 14 from the first two of three ACKs, then 2 + 2 credits of 14.
        s.snd_max = 20;
        g.on_ack(&mut Window::new(&mut s), &two);
        assert_eq!(s.cwnd, 14.0);
        for _ in 0..6 {
            g.on_ack(&mut Window::new(&mut s), &two);
        }
        assert_eq!(s.cwnd, 14.0, "12 of 14 segments credited");
        g.on_ack(&mut Window::new(&mut s), &two);
        assert_eq!(s.cwnd, 15.0, "the 14th: one segment more");
        // Not limited by the window (flight 5 of cwnd 15, in congestion avoidance): no growth.
        s.snd_una = s.snd_max - 3;
        g.on_ack(&mut Window::new(&mut s), &two);
        assert_eq!(s.cwnd, 15.0);
        // The cut: cwnd 15.7 -> ssthresh = cwnd = 7 (tcp_reno_ssthresh on 15), whatever the
        // flight (RFC 5681: half the flight, here 3 -> 2).
        s.cwnd = 15.7;
        let fr = g.on_congestion_event(&Conn::new(&s), CongestionKind::FastRetransmit, &ctx());
        assert_eq!((fr.ssthresh, fr.cwnd), (7.0, 7.0));
        let rfc_cut = Reno::default().on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &ctx(),
        );
        assert_eq!(rfc_cut.ssthresh, 2.0);
        // A timeout during a fast recovery keeps the recovery's ssthresh.
        s.take(fr);
        s.in_recovery = true;
        let to = g.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &ctx());
        assert_eq!((to.ssthresh, to.cwnd), (7.0, 1.0));
    }

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.ssthresh = 4.0;
        let mut g = Reno::default();
        for _ in 0..3 {
            g.on_ack(&mut Window::new(&mut s), &ctx());
        }
        assert_eq!(s.cwnd, 4.0);
        g.on_ack(&mut Window::new(&mut s), &ctx());
        assert_eq!(s.cwnd, 4.25, "paper 000 Table II: 4 -> 4.25");
    }

    #[test]
    fn ssthresh_is_half_the_flight_at_least_two() {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        let mut g = Reno::default();
        s.snd_max = 8;
        let fr = CongestionKind::FastRetransmit;
        assert_eq!(
            g.on_congestion_event(&Conn::new(&s), fr, &ctx()),
            Cut {
                ssthresh: 4.0,
                cwnd: 4.0
            }
        );
        s.snd_max = 3;
        let to = g.on_congestion_event(&Conn::new(&s), CongestionKind::Timeout, &ctx());
        assert_eq!((to.ssthresh, to.cwnd), (2.0, 1.0));
    }

    /// Window `cwnd`, `ssthresh` and `flight` segments out, then `kind`'s cut taken.
    fn cut_at(g: &mut Reno, s: &mut SenderState, at: (f64, f64, u64), kind: CongestionKind) {
        (s.cwnd, s.ssthresh, s.snd_max) = (at.0, at.1, s.snd_una + at.2);
        let cut = g.on_congestion_event(&Conn::new(s), kind, &ctx());
        s.take(cut);
    }

    #[test]
    fn an_undo_restores_the_window_and_ssthresh_of_before_the_episode() {
        use CongestionKind::{FastRetransmit as Fr, Timeout as To};
        let undo = |g: &mut Reno, s: &mut SenderState| {
            g.on_event(&mut Window::new(s), CaEvent::Undo);
            (s.cwnd, s.ssthresh)
        };
        // Congestion avoidance at cwnd 20.5, ssthresh 12, 20 in flight; a timeout cuts to
        // ssthresh 10, cwnd 1, and the window grows back to 3 before the timeout is found
        // spurious: tcp_reno_undo_cwnd() gives max(3, 20.5); prior_ssthresh =
        // max(12, 20 / 2 + 20 / 4 = 15).
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        let mut g = Reno::default();
        cut_at(&mut g, &mut s, (20.5, 12.0, 20), To);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 10.0));
        s.cwnd = 3.0;
        assert_eq!(undo(&mut g, &mut s), (20.5, 15.0));
        // Once per episode.
        (s.cwnd, s.ssthresh) = (2.0, 2.0);
        assert_eq!(undo(&mut g, &mut s), (2.0, 2.0));
        // A window grown past the prior one and a higher ssthresh are kept (the maxima).
        cut_at(&mut g, &mut s, (8.0, 40.0, 8), Fr);
        assert_eq!((s.cwnd, s.ssthresh), (4.0, 4.0));
        s.cwnd = 9.0;
        assert_eq!(undo(&mut g, &mut s), (9.0, 40.0));
        // A timeout inside a fast recovery belongs to its episode: the recovery's prior
        // state (cwnd 16, ssthresh max(5, 12)) is what an undo restores.
        cut_at(&mut g, &mut s, (16.0, 5.0, 16), Fr);
        s.in_recovery = true;
        let at = (s.cwnd, s.ssthresh, 16);
        cut_at(&mut g, &mut s, at, To);
        s.in_recovery = false;
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 8.0));
        assert_eq!(undo(&mut g, &mut s), (16.0, 12.0));
    }

    #[test]
    fn linux_growth_counts_delivered_segments_while_the_window_limits() {
        let mut g = LinuxReno::default();
        let mut s = SenderState::new(1, 1000, 3, u64::MAX);
        s.cwnd = 10.0;
        s.ssthresh = 12.0;
        s.snd_una = 100;
        s.snd_max = 108; // 10 in flight before an ACK of 2
        let ack = |n: u64| AckCtx {
            newly_acked: n,
            newly_delivered: n,
            ..AckCtx::default()
        };
        // Slow start: +2 to 12 (ssthresh), nothing left over.
        g.on_ack(&mut Window::new(&mut s), &ack(2));
        assert_eq!(s.cwnd, 12.0);
        // Congestion avoidance: 12 delivered segments per increment, delayed ACKs or not.
        s.snd_max = 110; // flight 10 + 2 = 12 fills cwnd
        for _ in 0..5 {
            g.on_ack(&mut Window::new(&mut s), &ack(2));
        }
        assert_eq!(s.cwnd, 12.0, "10 of 12 credits");
        g.on_ack(&mut Window::new(&mut s), &ack(2));
        assert_eq!(s.cwnd, 13.0, "12 delivered: one more segment");
        // Slow start across ssthresh: the rest goes to congestion avoidance.
        let mut s2 = SenderState::new(1, 1000, 3, u64::MAX);
        let mut g2 = LinuxReno::default();
        s2.cwnd = 9.0;
        s2.ssthresh = 10.0;
        s2.snd_max = 9;
        s2.snd_una = 3;
        g2.on_ack(&mut Window::new(&mut s2), &ack(3));
        assert_eq!((s2.cwnd, g2.cnt), (10.0, 2));
        // Not window-limited (flight 4 of cwnd 13): no growth.
        s.snd_una = 200;
        s.snd_max = 202;
        g.on_ack(&mut Window::new(&mut s), &ack(2));
        assert_eq!(s.cwnd, 13.0);
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
            let cut = g.on_congestion_event(&Conn::new(&s), CongestionKind::FastRetransmit, &ctx());
            assert_eq!((cut.ssthresh, cut.cwnd), (ssthresh, half));
        }
    }
}
