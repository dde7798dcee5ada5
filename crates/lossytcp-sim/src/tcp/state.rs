//! The variables every variant shares, in segments (RFC 5681 names where they exist).

use crate::tcp::fine_clock::FineClock;
use crate::tcp::rate::Accounting;
use crate::tcp::Cut;
use crate::time::Dur;

/// Linux's congestion-avoidance states (`icsk_ca_state`) that the plugins may tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// No loss being recovered.
    Open,
    /// Fast recovery (DupThresh duplicate ACKs or SACK's loss detection).
    Recovery,
    /// After a retransmission timeout, until the data outstanding at the timeout is all
    /// acknowledged.
    Loss,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    Timeout,
    FastRetransmit,
}

/// A loss-detection event, reported so the simulator (which knows the truth) can tell
/// whether the segment was really lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossEvent {
    pub kind: LossKind,
    pub seq: u64,
    /// A loss classifier's verdict on it (`loss_class`), for the accuracy report.
    pub predicted: Option<crate::packet::LossCause>,
}

/// The sender's shared variables. The recovery plugins own most of them and work on them
/// directly; the growth plugins see them through [`super::view`] only.
#[derive(Clone, Debug)]
pub struct SenderState {
    /// Oldest unacknowledged segment (RFC 793 SND.UNA).
    pub(crate) snd_una: u64,
    /// Next segment to send; pulled back to `snd_una` by go-back-N after a timeout.
    pub(crate) snd_nxt: u64,
    /// One past the highest segment ever sent (HighData + 1).
    pub(crate) snd_max: u64,
    /// Congestion window in segments; fractional growth in congestion avoidance.
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: f64,
    /// Duplicate ACKs counted by the sender since the last new ACK or loss event.
    pub(crate) dupacks: u32,
    /// `snd_max` at the last loss event: RFC 6582's `recover` (+1), the bound a cumulative
    /// ACK must pass before a new fast retransmit.
    pub(crate) recover: Option<u64>,
    /// ns-2's `bugfix_ss_` exception: with only the first segment acknowledged
    /// (`highest_ack_ == 0`, our snd_una == 1) a fast retransmit is allowed whatever `recover`
    /// says (see `Compat::first_segment_waits_for_timer`).
    pub(crate) first_ack_exception: bool,
    pub(crate) in_recovery: bool,
    pub(crate) max_window: u32,
    pub(crate) dupthresh: u32,
    /// The smallest usable window: 1 segment (RFC), or 0 (ns-2, see `Compat::zero_window`).
    pub(crate) min_usable_window: u64,
    /// Segments the application has made available (u64::MAX for a bulk sender).
    pub(crate) limit: u64,
    /// Retransmissions recovery asked for, sent before anything else and outside the window
    /// (RFC 5681 §3.2 step 2: the fast retransmit does not wait for the window).
    pub(crate) retransmit_now: Vec<u64>,
    pub(crate) events: Vec<LossEvent>,
    /// Per-segment fine-grained timing, for the plugins that use it (Vegas).
    pub(crate) fine: Option<FineClock>,
    /// Segments per second a plugin that owns the window paces at (None: ACK-clocked only).
    pub(crate) pacing_rate: Option<f64>,
    /// Segments per pacing wake-up, sent back to back, with Linux's spacing of them (None:
    /// one segment per wake-up, 1 / rate apart).
    pub(crate) pacing_burst: Option<u32>,
    /// The smallest exact RTT sample so far (`AckCtx::rtt_sample`).
    pub(crate) min_rtt: Option<Dur>,
    /// The RTO estimator's smoothed RTT.
    pub(crate) srtt: Option<Dur>,
    /// Delivery accounting, kept for the plugins that sample delivery rates: the send log
    /// updates it in place (`rate::SendLog`, handed it on every change).
    pub(crate) acct: Accounting,
    pub(crate) ca_state: CaState,
    /// Bytes per segment and the initial window, for the plugins that reason in bytes.
    pub(crate) segment_bytes: u32,
    pub(crate) initial_window: u32,
    /// The time of the event the sender is handling.
    pub(crate) now: crate::time::Time,
    /// Pacing: the earliest time the next segment may leave (Linux's EDT).
    pub(crate) next_send_at: crate::time::Time,
    /// The growth plugin asks the rate sampler to treat the sender as application-limited
    /// (BBR's ProbeRTT); the sender applies it after the plugin's hook.
    pub(crate) app_limited_request: bool,
}

impl SenderState {
    /// A sender before its first segment, with RFC 5681's initial ssthresh ("arbitrarily
    /// high": 64 receiver windows).
    pub fn new(initial_window: u32, max_window: u32, dupthresh: u32, limit: u64) -> Self {
        Self {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: f64::from(initial_window),
            ssthresh: f64::from(max_window).max(2.0) * 64.0,
            dupacks: 0,
            recover: None,
            first_ack_exception: false,
            in_recovery: false,
            max_window,
            dupthresh,
            min_usable_window: 1,
            limit,
            retransmit_now: Vec::new(),
            events: Vec::new(),
            fine: None,
            pacing_rate: None,
            pacing_burst: None,
            min_rtt: None,
            srtt: None,
            acct: Accounting::default(),
            ca_state: CaState::Open,
            segment_bytes: 1,
            initial_window,
            now: crate::time::Time::ZERO,
            next_send_at: crate::time::Time::ZERO,
            app_limited_request: false,
        }
    }

    /// RFC 5681 eq. (4)'s FlightSize, in segments.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The window that limits sending: min(cwnd, advertised window), whole segments, at
    /// least `min_usable_window`.
    pub fn usable_window(&self) -> u64 {
        // `as` truncates (= floor for cwnd >= 0, and NaN or negatives give 0): f64::floor is a
        // libm call on baseline x86-64 and this runs for every segment sent.
        (self.cwnd as u64)
            .max(self.min_usable_window)
            .min(u64::from(self.max_window))
    }

    /// A round-trip sample `r` lowers the connection's minimum RTT.
    #[inline(always)]
    pub fn note_min_rtt(&mut self, r: Dur) {
        if self.min_rtt.is_none_or(|m| r < m) {
            self.min_rtt = Some(r);
        }
    }

    /// RFC 6582 §3.2 step 1 (and ns-2's `bugfix_`): after a loss event, a new one may start
    /// only once a cumulative ACK covers more than `recover`.
    pub fn may_start_recovery(&self) -> bool {
        self.recover.is_none_or(|r| self.snd_una > r)
            || (self.first_ack_exception && self.snd_una == 1)
    }

    /// The window-limited next segment: what every variant but SACK-in-recovery sends.
    pub fn next_in_window(&mut self) -> Option<u64> {
        self.next_in(self.usable_window())
    }

    /// [`SenderState::next_in_window`] with the usable window `window` computed by the caller
    /// (SACK's NextSeg computes it more cheaply for the values it can meet).
    #[inline(always)]
    pub fn next_in(&mut self, window: u64) -> Option<u64> {
        if self.snd_nxt < self.snd_una + window && self.snd_nxt < self.limit {
            let s = self.snd_nxt;
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            Some(s)
        } else {
            None
        }
    }

    /// Whether a new segment (snd_max) is data the transfer has and the receiver's window
    /// takes above `una`, whatever the congestion window (F-RTO's step 2b).
    pub fn new_segment_fits(&self, una: u64) -> bool {
        self.snd_max < self.limit && self.snd_max < una + u64::from(self.max_window)
    }

    /// Takes a window cut as it stands: ssthresh and cwnd both from it.
    pub fn take(&mut self, cut: Cut) {
        self.ssthresh = cut.ssthresh;
        self.cwnd = cut.cwnd;
    }

    /// The part of a loss reaction every variant shares: record it and remember `recover`.
    pub fn note_loss(&mut self, kind: LossKind) {
        self.events.push(LossEvent {
            kind,
            seq: self.snd_una,
            predicted: None,
        });
        self.recover = Some(self.snd_max);
        self.dupacks = 0;
    }
}
