//! A sender's configuration, apart from its state (quinn-proto's shape): which plugins, with
//! which parameters. Every `Default` is the RFC behaviour; the ns-2 2.35 behaviour is a
//! different value of the same fields, chosen once by the preset ([`super::variant`]).

use super::cc::GrowthConfig;
use super::loss_class::ClassifierConfig;
use super::recovery::RecoveryConfig;
use super::rtt::RttConfig;
use crate::config::RttSampling;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub growth: GrowthConfig,
    pub recovery: RecoveryConfig,
    pub rtt: RttConfig,
    /// Which segments the RTO estimator is fed (RFC 6298 §3: every ACK of a segment sent once,
    /// or one timed segment per window as BSD and ns-2 do).
    pub sampling: RttSampling,
    /// Every new ACK gives a sample timed from the segment's first transmission, as the
    /// timestamp option's echo on a path that loses nothing (paper 001's timer, which needs a
    /// sample per ACK); otherwise Karn's rule.
    pub timestamps: bool,
    /// Eifel (RFC 3522): the first ACK covering a congestion event's retransmission tells
    /// from its timestamp echo whether the original arrived; if it did, the growth plugin
    /// hears `CaEvent::Undo`; a timeout found spurious also ends its go-back-N (RFC 4015).
    pub eifel: bool,
    /// F-RTO (RFC 5682, the SACK-enhanced algorithm as Linux's `tcp_frto = 2` runs it): after
    /// a timeout, new data probes whether the originals were only delayed; if so the
    /// timeout is undone as Eifel's is.
    pub frto: bool,
    /// DSACK-based undo (RFC 3708 detection, Linux's response): a DSACK block is taken out
    /// of the SACK information and counts the episode's retransmissions proved duplicates;
    /// when all are, the congestion response is undone.
    pub dsack: bool,
    /// Tail Loss Probe (RFC 8985 §7 with Linux's timing and response, the sender's
    /// `schedule_probe` / `on_probe_timer` / `process_tlp_ack`); SACK senders only.
    pub tlp: bool,
    /// RACK's time-based loss detection (RFC 8985 §6 as Linux 6.x, [`super::rack`]); SACK
    /// senders only (the recovery plugin takes its verdicts).
    pub rack: bool,
    /// The kernel's response to reordering beside RACK ([`super::rack::Reordering`]: the
    /// reordering degree, the window widened by DSACKs); read only with `rack`.
    pub reordering: super::rack::Reordering,
    /// Linux's `tcp_try_undo_partial()` (needs `rack`): see
    /// [`super::options::PARTIAL_UNDO`].
    pub partial_undo: bool,
    /// The connection's handshake gives the first RTT sample: see
    /// [`super::options::HANDSHAKE_RTT`].
    pub handshake_rtt: bool,
    pub compat: Compat,
    /// The receiver's advertised window, segments.
    pub max_window: u32,
    /// RFC 5681 §3.1 IW, segments.
    pub initial_window: u32,
    /// RFC 5681 §3.2 DupThresh.
    pub dupthresh: u32,
    /// Keep Vegas's per-segment fine clock (`fine_clock`), for the plugins that read it.
    pub fine_clock: Option<FineClockMode>,
    /// Ask a loss classifier at every loss detection and spare the window on a wireless
    /// verdict (paper 003's NewReno-LP and Ideal-LP).
    pub classifier: Option<ClassifierConfig>,
    /// Bytes per segment (the plugins that reason in bytes: BBR's send quantum).
    pub segment_bytes: u32,
    /// Seeds the random choices of a plugin that makes any (BBR's gain-cycle phase): one
    /// stream per flow, so a run stays a function of its seed.
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FineClockMode {
    /// Exact bookkeeping of every segment's send time.
    Exact,
    /// ns-2 2.35 tcp-vegas.cc's bookkeeping, quirks included (see `FineClock`).
    Ns2,
}

/// The sender-wide rules in which ns-2 2.35's `Agent/TCP` family differs from the RFCs (the
/// rules of one plugin are that plugin's parameters). `Default` is the RFCs'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compat {
    /// ssthresh before the first loss: RFC 5681 §3.1 "arbitrarily high"; ns-2 resets every
    /// agent when the run starts and TcpAgent::reset() sets `ssthresh_ = int(wnd_)`.
    pub ssthresh_starts_at_window: bool,
    /// ns-2's window() is `int(cwnd_)` with no floor: a window below one segment sends
    /// nothing and waits for the timer. RFC senders always may send one segment.
    pub zero_window: bool,
    /// ns-2's newtimer() restarts the timer on every new ACK, even with nothing outstanding
    /// (RFC 6298 §5.2 stops it), so a sender whose window is 0 times out.
    pub timer_when_idle: bool,
    /// Bytes each SACK block adds to an ACK. ns-2 tcp-sink.cc Sacker::append_ack():
    /// `ch->size() += sack_index * 8` (two 4-byte edges per block, no option kind/length or
    /// padding). The RFC profile keeps ACKs at their configured size.
    pub sack_block_bytes: u32,
    pub delay_growth: DelayGrowth,
    /// RFC 3042 limited transmit, as ns-2 tcp.cc `send_one()` (ns-2's `singledup_` 1).
    pub limited_transmit: bool,
    /// ns-2's timing of its one RTT segment per window: output() leaves `rtt_active_` alone
    /// on a retransmission, and `reset_rtx_timer()` at a fast retransmit ends the timing. RFC
    /// 6298 §3 (Karn): a retransmission of the timed segment spoils the sample.
    pub ns2_rtt_timing: bool,
    /// RFC 5681 §3.1: "when a TCP sender detects segment loss using the retransmission timer
    /// and the given segment has already been retransmitted by way of the retransmission timer
    /// at least once, the value of ssthresh is held constant". ns-2's slowdown() halves again
    /// at every expiry (to 2, from a window of 1).
    pub hold_ssthresh_on_repeated_timeout: bool,
    /// ns-2's agents start with `recover_ = 0` (tcp.cc reset()) and fast-retransmit only if
    /// `highest_ack_ > recover_ || (bugfix_ss_ && highest_ack_ == 0)` (dupack_action() in
    /// tcp.cc, tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc): while the first segment is
    /// unacknowledged (`highest_ack_ == -1`) duplicate ACKs start no recovery and the sender
    /// waits for its timer. RFC 6582 §3.2 initialises `recover` to the initial send sequence
    /// number, which the SYN's ACK already covers, so an RFC sender fast-retransmits it.
    /// With it, ns-2's timeout() rule for the same case: a timeout before any ACK sets the
    /// initial window that `delay_growth_` restores to one segment (`wnd_init_ = 1`).
    pub first_segment_waits_for_timer: bool,
}

impl Default for Compat {
    fn default() -> Self {
        Self {
            ssthresh_starts_at_window: false,
            zero_window: false,
            timer_when_idle: false,
            sack_block_bytes: 0,
            delay_growth: DelayGrowth::Off,
            limited_transmit: false,
            ns2_rtt_timing: false,
            hold_ssthresh_on_repeated_timeout: true,
            first_segment_waits_for_timer: false,
        }
    }
}

/// ns-2's `delay_growth_`: an early ACK resets cwnd to the initial window instead of opening
/// it (the SYN exchange's ACK, in a sender that has no SYN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayGrowth {
    Off,
    /// tcp.cc recv(): `if (last_ack_ == 0 && delay_growth_) cwnd_ = initial_window();` after
    /// the new ACK was processed (ns-2 numbers ACKs by the last segment received in order, so
    /// its `last_ack_ == 0` is our ack == 1).
    AfterFirstAck,
    /// tcp-vegas.cc recv() tests `last_ack_ == 0` before newack(): one ACK later than tcp.cc,
    /// and before the window rule.
    BeforeSecondAck,
}
