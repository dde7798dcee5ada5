//! TCP: a sender built from plugins, a receiver, and the RTO estimator. Nothing here does I/O
//! or owns a clock: the simulator calls in with the current time and collects the segments to
//! transmit (quinn-proto's shape).
//!
//! A sender is four parts, chosen once when it is built ([`SenderConfig`]):
//! * a **growth** plugin ([`cc::Growth`]): how the window grows and what a congestion event
//!   cuts it to (Reno, Vegas, ...), or, for a plugin that owns the window outright (BBR's
//!   shape), cwnd and the pacing rate on every ACK;
//! * a **recovery** plugin ([`recovery::Recovery`]): what duplicate and partial ACKs do once
//!   the sender has counted them (RTO only, Tahoe, Reno, NewReno, SACK, ...);
//! * an **RTT estimator** and timeout rule ([`rtt`]);
//! * a **compatibility** struct ([`Compat`]) for the sender-wide rules in which ns-2 2.35's
//!   agents differ from the RFCs.
//!
//! Named variants are presets of these ([`variant::preset`]); a loss classifier
//! ([`loss_class`]) may override the cut at each loss (paper 003's NewReno-LP and Ideal-LP).
//!
//! # One ACK, in order
//! [`Sender::on_ack`]: the send log records what the ACK delivers and builds the [`AckCtx`]
//! (exact RTT sample by Karn's rule for the whole ACK, acknowledged and delivered counts, a
//! delivery-rate sample and the in-flight count before the ACK for plugins that ask);
//! `Growth::on_ack_arrival`; the recovery plugin sees the SACK blocks; then either a new ACK
//! (RTT estimator fed by the sampling rule, `Recovery::on_new_ack` decides growth and timer,
//! the recovery exit event, `Growth::on_ack`) or a duplicate the sender counts
//! (`Recovery::on_dupack`; on a loss event the one cut, `Growth::on_congestion_event` or the
//! classifier's, goes to `Recovery::enter`, then the recovery entry event); a sampling
//! sender marks what its recovery now deems lost (`AckCtx::losses`); a window-owning plugin's
//! `Growth::cong_control`; then sending, paced if the plugin set a rate. A timeout:
//! `Recovery::on_timeout`, the cut, go-back-N, `Recovery::after_timeout`, the timeout event.
//!
//! # What a plugin sees
//! Growth plugins see the sender through [`view`]: a read-only [`view::Conn`] or a
//! [`view::Window`] that may change cwnd, ssthresh and the pacing rate and nothing else;
//! [`cc::CaEvent`] reports recovery entry and exit, timeouts, the end of a timeout's
//! recovery, transmissions that restart an idle flow and (with Eifel detection on) a loss
//! found spurious, to undo. Recovery plugins own the
//! loss-recovery state and work on [`SenderState`] directly.
//!
//! # Adding a sender
//! A growth plugin is a file in `cc/` implementing [`cc::Growth`] (only `on_ack` and
//! `on_congestion_event` are required), a variant of `cc::GrowthConfig` and of
//! `cc::GrowthImpl` with one line in each of its two `match`es; likewise a recovery plugin in
//! `recovery/`. Its parameters are declared once, in its own file, with
//! [`declare_params!`](crate::declare_params!) (name, unit, default, range, one line of doc).
//! A named variant is a `config::Variant`, its entry in the registry
//! ([`variant::VARIANTS`]: user-facing name, summary, the parameter declarations of its
//! plugins, its ns-2 / ns-3 / Linux counterparts) and its line in [`variant::preset`]; every
//! `match` over variants is exhaustive, so the compiler lists what else needs it. The Python
//! front reads the registry from the engine (`lossytcp.variants`): its schema, keywords,
//! flags, TOML keys and README table follow with no change. It then runs on the
//! enum-dispatched plugin sets; for the simulator's monomorphised path add its types to
//! `pair.rs` (`concrete!` and `with_pair!`). A plugin of another crate, or of a test, needs
//! none of that: `Sender::with_plugins` takes any `Growth` and `Recovery`.

pub mod cc;
pub mod config;
pub mod fine_clock;
pub mod linux_clock;
pub mod loss_class;
pub mod options;
pub mod pair;
pub mod params;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod state;
pub mod variant;
pub mod view;

pub use config::{Compat, DelayGrowth, SenderConfig};
pub use receiver::Receiver;
pub use sender::{Segment, SegmentSink, Sender};
pub use state::{CaState, LossEvent, LossKind, SenderState};

use crate::packet::LossCause;
use crate::time::{Dur, Time};
use rate::RateSample;

/// What an arriving ACK told the sender: the context every growth hook receives.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckCtx {
    pub now: Time,
    /// An exact RTT measured on this ACK: from the newest segment it newly delivers, if that
    /// was transmitted once (Karn). Measured when the RTO estimator samples every ACK or the
    /// growth plugin asks for it (`Growth::wants_rtt_samples`), whatever rule the estimator
    /// follows.
    pub rtt_sample: Option<Dur>,
    /// Segments this ACK newly acknowledged cumulatively (0 for a duplicate ACK).
    pub newly_acked: u64,
    /// Segments newly delivered: cumulatively acknowledged or SACKed for the first time (SACKed
    /// ones are counted for growth plugins that want rate samples; for the others this is
    /// `newly_acked`).
    pub newly_delivered: u64,
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation);
    /// None when the ACK delivers nothing or its interval is not valid (Linux's
    /// `rs->delivered < 0`).
    pub rate: Option<RateSample>,
    /// Segments in flight before this ACK (`view::SenderView::in_flight`; Linux's
    /// `rs->prior_in_flight`). Kept for plugins that want rate samples.
    pub prior_in_flight: u64,
    /// Segments this ACK's processing marked lost (Linux's `rs->losses`). Kept for plugins
    /// that want rate samples.
    pub losses: u64,
}

/// What detected a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// DupThresh duplicate ACKs (or SACK / Vegas's fine timeout): fast retransmit.
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
}

/// A congestion event's outcome, decided in one place (the growth plugin, or a loss
/// classifier that overrides it): the new ssthresh and the window the sender continues from
/// (before any recovery inflation). RFC 5681 continues from ssthresh after a fast retransmit
/// and from one segment after a timeout; ns-2 2.35's slowdown() keeps the unrounded half
/// window, which can differ from ssthresh, hence two numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    pub ssthresh: f64,
    pub cwnd: f64,
}

/// The engine's knowledge of what happened to the segments a sender sent. Senders never see it,
/// except an oracle plugin documented as such (Ideal-LP), through this one question.
pub trait LossTruth {
    /// Why the latest copy of `seq` that was dropped was dropped; `None` if no copy of it was
    /// dropped (a loss detection for it is spurious).
    fn cause(&self, seq: u64) -> Option<LossCause>;
}

/// For callers (tests, tools) without ground truth.
pub struct NoTruth;

impl LossTruth for NoTruth {
    fn cause(&self, _seq: u64) -> Option<LossCause> {
        None
    }
}
