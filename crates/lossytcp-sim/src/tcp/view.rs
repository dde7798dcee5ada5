//! What a growth plugin sees of its sender, and what it may change.
//!
//! A growth plugin owns the window: cwnd, ssthresh and, for a plugin that paces, the pacing
//! rate (and Vegas its fine-grained clock). Everything else of the sender — its sequence
//! numbers, the recovery state, the retransmission queue, the RTT estimator — belongs to the
//! sender and its recovery plugin. The hooks of [`super::cc::Growth`] therefore get a
//! [`Conn`] (read only) or a [`Window`] (read, and write what the plugin owns), never the
//! sender's state itself: both implement [`SenderView`], the reads.

use super::fine_clock::FineClock;
use super::rate::Accounting;
use super::state::{CaState, SenderState};
use crate::time::{Dur, Time};

/// What a plugin may read of its sender (Linux's `tcp_sock` fields a congestion control reads).
pub trait SenderView {
    #[doc(hidden)]
    fn state(&self) -> &SenderState;

    /// The time of the event the sender is handling (an ACK, a timer, a transmission).
    fn now(&self) -> Time {
        self.state().now
    }
    /// Oldest unacknowledged segment (SND.UNA).
    fn snd_una(&self) -> u64 {
        self.state().snd_una
    }
    /// Next segment to send.
    fn snd_nxt(&self) -> u64 {
        self.state().snd_nxt
    }
    /// One past the highest segment sent.
    fn snd_max(&self) -> u64 {
        self.state().snd_max
    }
    /// snd_max - snd_una: RFC 5681's FlightSize.
    fn flight(&self) -> u64 {
        self.state().flight()
    }
    /// The FlightSize a congestion event cuts (RFC 5681 eq. (4), RFC 6675 (4.2), RFC 9438
    /// §4.6), as the recovery plugin counts it: the flight, capped for a SACK sender at the
    /// window (SACKed data above an older hole has left the network, and counting it would
    /// let a loss raise the window; see `Recovery::flight_size`).
    fn flight_size(&self) -> u64 {
        self.flight()
    }
    /// Segments believed in the network: the flight less the SACKed and those marked lost,
    /// plus their retransmissions (Linux's `tcp_packets_in_flight()`; the flight for a
    /// sender that keeps no delivery accounting, see `Growth::wants_rate_samples`).
    fn in_flight(&self) -> u64 {
        self.state().acct.in_flight(self.state().flight())
    }
    fn cwnd(&self) -> f64 {
        self.state().cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.state().ssthresh
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.state().pacing_rate
    }
    /// The receiver's advertised window, segments.
    fn max_window(&self) -> u32 {
        self.state().max_window
    }
    /// The segments the application has made available (u64::MAX: a bulk sender).
    fn limit(&self) -> u64 {
        self.state().limit
    }
    /// Linux's congestion-avoidance state: open, in fast recovery, or recovering from a
    /// timeout.
    fn ca_state(&self) -> CaState {
        self.state().ca_state
    }
    /// In fast recovery.
    fn in_recovery(&self) -> bool {
        self.state().in_recovery
    }
    /// The smallest exact RTT sample so far.
    fn min_rtt(&self) -> Option<Dur> {
        self.state().min_rtt
    }
    /// The RTO estimator's smoothed RTT (None before the first sample).
    fn srtt(&self) -> Option<Dur> {
        self.state().srtt
    }
    /// The connection's delivery accounting: delivered and lost counts, SACKed, lost and
    /// retransmitted outstanding segments (zero unless the plugin wants rate samples).
    fn accounting(&self) -> Accounting {
        self.state().acct
    }
    /// Segments delivered so far (see [`SenderView::accounting`]).
    fn delivered(&self) -> u64 {
        self.state().acct.delivered
    }
    /// Vegas's fine-grained clock, if the sender keeps one.
    fn fine_clock(&self) -> Option<&FineClock> {
        self.state().fine.as_ref()
    }
    /// Bytes per segment (the data packet's size).
    fn segment_bytes(&self) -> u32 {
        self.state().segment_bytes
    }
    /// The initial window, segments.
    fn initial_window(&self) -> u32 {
        self.state().initial_window
    }
    /// The rate sampler counts the sender application-limited (draft §3.4).
    fn app_limited(&self) -> bool {
        self.state().acct.app_limited != 0
    }
    /// When pacing lets the next segment leave (Linux's earliest departure time).
    fn next_departure(&self) -> Time {
        self.state().next_send_at
    }
}

/// A read-only view of the sender.
#[derive(Clone, Copy)]
pub struct Conn<'a> {
    s: &'a SenderState,
    flight_size: u64,
}

impl<'a> Conn<'a> {
    pub(crate) fn new(s: &'a SenderState) -> Self {
        Self::with_flight_size(s, s.flight())
    }
    /// The view a congestion event gets: the FlightSize the recovery plugin counts.
    pub(crate) fn with_flight_size(s: &'a SenderState, flight_size: u64) -> Self {
        Self { s, flight_size }
    }
}

impl SenderView for Conn<'_> {
    #[inline]
    fn state(&self) -> &SenderState {
        self.s
    }
    fn flight_size(&self) -> u64 {
        self.flight_size
    }
}

/// The sender as a growth plugin may change it: its window, ssthresh and pacing rate.
pub struct Window<'a>(&'a mut SenderState);

impl<'a> Window<'a> {
    pub(crate) fn new(s: &'a mut SenderState) -> Self {
        Self(s)
    }

    #[inline]
    pub fn set_cwnd(&mut self, cwnd: f64) {
        self.0.cwnd = cwnd;
    }
    #[inline]
    pub fn set_ssthresh(&mut self, ssthresh: f64) {
        self.0.ssthresh = ssthresh;
    }
    /// Segments per second to pace at (None: ACK-clocked only).
    #[inline]
    pub fn set_pacing_rate(&mut self, rate: Option<f64>) {
        self.0.pacing_rate = rate;
    }
    /// Segments per pacing wake-up (None: one; see `SenderState::pacing_burst`).
    #[inline]
    pub fn set_pacing_burst(&mut self, burst: Option<u32>) {
        self.0.pacing_burst = burst;
    }
    /// Have the rate sampler treat the sender as application-limited until what is in flight
    /// now is delivered (Linux's `tp->app_limited = delivered + in_flight`, BBR's ProbeRTT).
    pub fn mark_app_limited(&mut self) {
        self.0.app_limited_request = true;
    }
    /// Vegas's fine-grained clock, to update its round's measurements.
    pub fn fine_clock_mut(&mut self) -> Option<&mut FineClock> {
        self.0.fine.as_mut()
    }
    /// The read-only view of the same sender.
    pub fn conn(&self) -> Conn<'_> {
        Conn::new(self.0)
    }
}

impl SenderView for Window<'_> {
    #[inline]
    fn state(&self) -> &SenderState {
        self.0
    }
}
