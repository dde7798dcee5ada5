//! Window growth and what a congestion event cuts the window to: the "congestion control" axis
//! of a variant (ns-3's TcpCongestionOps).
//!
//! A plugin implements [`Growth`]; the sender calls its hooks at the moments their doc comments
//! name, with an [`AckCtx`] (the clock, the RTT sample, acknowledged and delivered counts, the
//! delivery-rate sample). [`GrowthImpl`] dispatches by enum, so the per-ACK path has neither
//! allocation nor virtual call; adding a plugin is a file, a variant of [`GrowthConfig`] and a
//! line in each of the two `match`es below.

mod bbr;
mod bbr3;
mod bbr_shared;
mod cubic;
mod minmax;
mod reno;
mod vegas;
mod westwood;

pub use bbr::{Bbr, BbrParams, Mode as BbrMode};
pub use bbr3::{Bbr3, Bbr3Params, Phase as Bbr3Phase};
pub use cubic::{Cubic, CubicParams, CubicRules, CubicSlowStart};
pub use reno::{
    Halving, LinuxReno, LinuxSlowStart, Reno, RenoLinux, RenoParams, RenoRules, RenoRulesParams,
    UndoState,
};
pub use vegas::{Vegas, VegasGrowthParams, VegasParams};
pub use westwood::{
    Estimator as WestwoodEstimator, Westwood, WestwoodFilterParams, WestwoodParams,
    WestwoodPlusParams,
};

use super::view::{Conn, Window};
use super::{AckCtx, CongestionKind, Cut};
use crate::time::Dur;

/// Congestion-avoidance events the sender reports to its growth plugin (Linux's
/// `cwnd_event()` and `set_state()` moments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// Fast recovery starts, after the cut was taken (Linux: `TCP_CA_Recovery`).
    EnterRecovery,
    /// Fast recovery ended: the ACK covering the recovery point (Linux's
    /// `CA_EVENT_COMPLETE_CWR`).
    ExitRecovery,
    /// The retransmission timer expired, after the cut was taken (Linux: `CA_EVENT_LOSS`,
    /// `TCP_CA_Loss`).
    Timeout,
    /// All the data outstanding at the last timeout is acknowledged (Linux leaves
    /// `TCP_CA_Loss` for `TCP_CA_Open`).
    LossRecovered,
    /// New data leaves with nothing in flight, `idle` after the previous transmission
    /// (Linux's `CA_EVENT_TX_START`; the first transmission too, with `idle` zero).
    TxStart { idle: Dur },
    /// The last congestion event's loss was spurious: the first ACK to cover the segment
    /// it retransmitted echoes the timestamp of a copy sent before the retransmission (RFC
    /// 3522's Eifel detection, `SenderConfig::eifel`), or, after a timeout, F-RTO's probe
    /// with new data finds the originals delivered (RFC 5682, `SenderConfig::frto`). The
    /// plugin restores what the cut took (Linux's `undo_cwnd()` in
    /// `tcp_undo_cwnd_reduction()`, RFC 9438 §4.9). After a timeout the sender also ends
    /// its go-back-N and resumes with new data (RFC 4015 §3.2; the sender's
    /// `undo_timeout`); after a fast retransmit the recovery ends, its inflation dropped
    /// (Linux reopens likewise; the sender's `eifel_detect`). DSACK-based detection
    /// (RFC 2883, RFC 3708) is not implemented.
    Undo,
}

pub trait Growth {
    /// Every arriving ACK, new or duplicate, before the sender acts on it (ACK-rate
    /// estimators: Westwood's bandwidth samples, BBR's model).
    fn on_ack_arrival(&mut self, _s: &Conn, _ctx: &AckCtx) {}

    /// An ACK that advanced `snd_una` and that the recovery plugin lets open the window
    /// (outside recovery, and at the exit of recovery where its rule says so).
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx);

    /// A loss was detected (`kind`) and the window is to be cut: returns the new ssthresh and
    /// the window to continue from. Called once per congestion event, before the recovery
    /// plugin enters recovery (fast retransmit) or the sender goes back to `snd_una`
    /// (timeout), while `s` still holds the window at the loss (and, at a timeout,
    /// `s.in_recovery()` whether it interrupted a fast recovery). Not called for a repeated
    /// timeout of the same segment where the sender holds ssthresh (RFC 5681 §3.1).
    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, ctx: &AckCtx) -> Cut;

    /// The window a timeout restarts from (RFC 5681's loss window, one segment).
    fn restart_window(&self) -> f64 {
        1.0
    }

    /// The plugin reads `AckCtx::rtt_sample` (or the view's `min_rtt`): the sender measures
    /// the exact RTT of every ACK for it even when the RTO estimator times one segment per
    /// window.
    fn wants_rtt_samples(&self) -> bool {
        self.wants_rate_samples()
    }

    /// The plugin reads `AckCtx::rate`, `AckCtx::losses`, `AckCtx::prior_in_flight` and the
    /// view's delivery accounting, and `AckCtx::newly_delivered` counts SACKed segments: the
    /// sender then keeps the delivery state per segment (not free: see `rate::SendLog`).
    fn wants_rate_samples(&self) -> bool {
        self.owns_window()
    }

    /// Of a plugin that wants rate samples: it reads `RateSample::tx_in_flight` and
    /// `RateSample::lost` (Linux's `rs->tx_in_flight` and `rs->lost`: BBRv3's loss-bounded
    /// probing; BBR v1 reads neither). Otherwise the send log does not record the flight and
    /// the loss count at each transmission, and both are 0 in the samples.
    fn wants_tx_in_flight(&self) -> bool {
        false
    }

    /// A congestion-avoidance event (see [`CaEvent`] for when each fires).
    fn on_event(&mut self, _w: &mut Window, _ev: CaEvent) {}

    /// The plugin's own state in a word or two (BBR's mode), recorded in the flow's
    /// `phase_trace` when windows are traced.
    fn phase(&self) -> Option<&'static str> {
        None
    }

    /// The plugin hears of [`CaEvent::TxStart`] (checked once per transmission otherwise).
    fn wants_tx_start(&self) -> bool {
        false
    }

    /// A plugin that owns cwnd and the pacing rate outright (ns-3's `CongControl`, Linux's
    /// `cong_control`, BBR's shape) returns true: the sender then calls
    /// [`Growth::cong_control`] on every ACK instead of [`Growth::on_ack`], and the recovery
    /// plugin's window changes are the plugin's to override there.
    fn owns_window(&self) -> bool {
        false
    }

    /// Every ACK, after the recovery plugin acted, for a plugin that owns the window: set
    /// cwnd and the pacing rate from the context's rate sample.
    fn cong_control(&mut self, _w: &mut Window, _ctx: &AckCtx) {}
}

/// Which growth plugin, with its parameters.
#[derive(Clone, Debug)]
pub enum GrowthConfig {
    Reno(RenoParams),
    /// The Reno family by Linux's reno module (`reno_rules = "linux"`).
    RenoLinux,
    Cubic(CubicParams),
    Bbr(BbrParams),
    Bbr3(Bbr3Params),
    Vegas(VegasGrowthParams),
    Westwood(WestwoodParams),
}

#[derive(Clone, Debug)]
pub enum GrowthImpl {
    Reno(Reno),
    RenoLinux(RenoLinux),
    Cubic(Cubic),
    Bbr(Bbr),
    Bbr3(Bbr3),
    Vegas(Vegas),
    Westwood(Westwood),
}

macro_rules! dispatch {
    ($self:ident, $g:ident => $e:expr) => {
        match $self {
            GrowthImpl::Reno($g) => $e,
            GrowthImpl::RenoLinux($g) => $e,
            GrowthImpl::Cubic($g) => $e,
            GrowthImpl::Bbr($g) => $e,
            GrowthImpl::Bbr3($g) => $e,
            GrowthImpl::Vegas($g) => $e,
            GrowthImpl::Westwood($g) => $e,
        }
    };
}

impl GrowthImpl {
    /// The plugin `c` names; `seed` seeds the random choices of one that makes any.
    pub fn new(c: &GrowthConfig, seed: u64) -> Self {
        match c {
            GrowthConfig::Reno(p) => GrowthImpl::Reno(Reno::new(*p)),
            GrowthConfig::RenoLinux => GrowthImpl::RenoLinux(RenoLinux::default()),
            GrowthConfig::Cubic(p) => GrowthImpl::Cubic(Cubic::new(*p)),
            GrowthConfig::Bbr(p) => GrowthImpl::Bbr(Bbr::new(*p, seed)),
            GrowthConfig::Bbr3(p) => GrowthImpl::Bbr3(Bbr3::new(*p, seed)),
            GrowthConfig::Vegas(p) => GrowthImpl::Vegas(Vegas::new(*p)),
            GrowthConfig::Westwood(p) => GrowthImpl::Westwood(Westwood::new(*p)),
        }
    }
}

impl Growth for GrowthImpl {
    #[inline]
    fn on_ack_arrival(&mut self, s: &Conn, ctx: &AckCtx) {
        dispatch!(self, g => g.on_ack_arrival(s, ctx))
    }
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        dispatch!(self, g => g.on_ack(w, ctx))
    }
    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, ctx: &AckCtx) -> Cut {
        dispatch!(self, g => g.on_congestion_event(s, kind, ctx))
    }
    fn restart_window(&self) -> f64 {
        dispatch!(self, g => g.restart_window())
    }
    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        dispatch!(self, g => g.on_event(w, ev))
    }
    #[inline]
    fn wants_tx_start(&self) -> bool {
        dispatch!(self, g => g.wants_tx_start())
    }
    fn phase(&self) -> Option<&'static str> {
        dispatch!(self, g => g.phase())
    }
    fn wants_rtt_samples(&self) -> bool {
        dispatch!(self, g => g.wants_rtt_samples())
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, g => g.wants_rate_samples())
    }
    fn wants_tx_in_flight(&self) -> bool {
        dispatch!(self, g => g.wants_tx_in_flight())
    }
    #[inline]
    fn owns_window(&self) -> bool {
        dispatch!(self, g => g.owns_window())
    }
    fn cong_control(&mut self, w: &mut Window, ctx: &AckCtx) {
        dispatch!(self, g => g.cong_control(w, ctx))
    }
}
