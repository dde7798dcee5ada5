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
//! Named variants are presets of these ([`variant::preset`]).

pub mod cc;
pub mod config;
pub mod fine_clock;
pub mod loss_class;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod state;
pub mod variant;

pub use config::{Compat, DelayGrowth, SenderConfig};
pub use receiver::Receiver;
pub use sender::{Segment, Sender};
pub use state::{LossEvent, LossKind, SenderState};

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
    /// The delivery-rate sample of this ACK (draft-cheng-iccrg-delivery-rate-estimation).
    pub rate: Option<RateSample>,
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
