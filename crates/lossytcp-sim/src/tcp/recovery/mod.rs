//! What duplicate and partial ACKs do: the loss-recovery axis of a variant (ns-3's
//! TcpRecoveryOps).
//!
//! The sender counts duplicate ACKs (ns-3's TcpSocketBase role) and asks the plugin what each
//! means; when the plugin says a loss event starts, the sender has the window cut decided in
//! one place (the growth plugin) and hands the cut to [`Recovery::enter`]. From there the
//! plugin governs recovery through [`Recovery::on_new_ack`] until it reports the exit.
//! [`RecoveryImpl`] dispatches by enum: no allocation or virtual call per ACK.

mod newreno;
mod reno;
mod rto_only;
mod sack;
mod sack1;
mod scoreboard;
mod tahoe;
mod vegas;

pub use newreno::{NewReno, NewRenoParams, PartialAckWindow};
pub use reno::{Reno, RenoRecoveryParams};
pub use rto_only::RtoOnly;
pub use sack::Sack;
pub use sack1::Sack1;
pub use tahoe::Tahoe;
pub use vegas::{Vegas, VegasRecoveryParams};

use super::state::SenderState;
use super::Cut;

/// What a new cumulative ACK means for the window and the retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckVerdict {
    /// Apply the growth plugin (slow start / congestion avoidance) for this ACK.
    pub grow: bool,
    /// Restart the retransmission timer (RFC 6298 §5.3), if data remains outstanding.
    pub restart_timer: bool,
    /// This ACK ended recovery.
    pub exited: bool,
}

impl AckVerdict {
    pub const NORMAL: AckVerdict = AckVerdict {
        grow: true,
        restart_timer: true,
        exited: false,
    };
}

/// What a counted duplicate ACK means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAck {
    Nothing,
    /// A loss event starts now: cut the window and [`Recovery::enter`].
    Enter,
    /// A loss event starts without a cut (Vegas cuts once per window of data).
    EnterWithoutCut,
}

/// How a partial ACK feeds the RTT estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTiming {
    /// As any new ACK.
    Sample,
    /// No sample; the backoff ends (ns-2 tcp-sack1.cc recv(): `t_backoff_ = 1`).
    EndBackoff,
    /// No sample; timing ends, with the backoff, once the timed segment is covered (ns-2
    /// tcp-newreno.cc partialnewack(): `if (rtt_active_ && seqno >= rtt_seq_) { rtt_active_ =
    /// 0; t_backoff_ = 1; }`).
    EndTimingIfCovered,
}

pub trait Recovery {
    /// The receiver must send SACK blocks (RFC 2018).
    fn wants_sack(&self) -> bool {
        false
    }
    /// Every ACK, before anything else, with its SACK blocks (possibly none).
    fn on_sack_blocks(&mut self, _s: &SenderState, _blocks: &[(u64, u64)]) {}
    /// Whether [`Recovery::on_sack_blocks_news`] reports what the blocks newly SACK (then a
    /// sender that samples delivery rates takes it from there rather than walking the
    /// blocks over its send log as well).
    fn reports_sack_news(&self) -> bool {
        false
    }
    /// [`Recovery::on_sack_blocks`], appending to `news` each range `[a, b)` of segments at
    /// or above `s.snd_una` that no earlier block SACKed, in the blocks' order and ascending
    /// within each (where [`Recovery::reports_sack_news`]).
    fn on_sack_blocks_news(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        _news: &mut Vec<(u64, u64)>,
    ) {
        self.on_sack_blocks(s, blocks);
    }
    /// The runs `[a, b)` of segments SACKed, ascending and disjoint, where
    /// [`Recovery::reports_sack_news`] (runs below snd_una may be left until the plugin's
    /// next ACK forgets them); empty otherwise.
    fn sacked_runs(&self) -> &[(u64, u64)] {
        &[]
    }
    /// Whether an ACK that does not advance `snd_una` while data is outstanding counts as a
    /// duplicate ACK (ns-2's Sack1 counts only those whose blocks changed the scoreboard).
    fn counts_dupack(&self, _s: &SenderState) -> bool {
        true
    }
    /// A counted duplicate ACK (`s.dupacks` already includes it).
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck;
    /// A loss event starts (after [`DupAck::Enter`], with the cut; after
    /// [`DupAck::EnterWithoutCut`], without): set the window, note the loss
    /// (`s.note_loss`) and ask for the retransmission.
    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>);
    /// An ACK that advanced `snd_una` (already moved).
    fn on_new_ack(&mut self, s: &mut SenderState, newly_acked: u64) -> AckVerdict;
    /// The same ACK, after the growth plugin and the fine clock saw it.
    fn after_new_ack(&mut self, _s: &mut SenderState) {}
    /// The retransmission timer expired, before the window is cut: undo any inflation the cut
    /// must not see (`s.in_recovery` still tells the growth plugin whether the timeout
    /// interrupted a recovery). Returns true when the sender's count of duplicate ACKs since
    /// the last new ACK restarts too (ns-2 RenoTcpAgent::timeout(): `dupacks_ = 0`).
    fn on_timeout(&mut self, s: &mut SenderState) -> bool;
    /// After the timeout's cut and go-back-N: leave recovery.
    fn after_timeout(&mut self, _s: &mut SenderState) {}
    /// The next segment to send, or `None` when the window is full.
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        s.next_in_window()
    }
    /// How many segments the ACK clock may release now besides `retransmit_now` (None: as
    /// many as the window allows).
    fn burst_cap(&self, _s: &SenderState) -> Option<u32> {
        None
    }
    /// The RTO backs off at a fast retransmit as at a timeout (ns-2's Vegas).
    fn backs_off_rto_at_fast_retransmit(&self) -> bool {
        false
    }
    /// How the ACK `ack` feeds the RTT estimator, asked before `snd_una` moves.
    fn partial_ack_timing(&self, _s: &SenderState, _ack: u64) -> PartialAckTiming {
        PartialAckTiming::Sample
    }
    /// Every segment below the returned one that is not SACKed is deemed lost by this
    /// plugin's loss detection (RFC 6675's IsLost), and every other segment it deems lost
    /// lies below it (it may stop short of its limit where the segments up to it are all
    /// SACKed); asked, after the ACK's processing, by a sender that keeps delivery
    /// accounting. The retransmissions it asks for are marked lost besides.
    fn lost_below(&self, _s: &SenderState) -> u64 {
        0
    }
    /// Retransmissions this plugin found lost since last asked (moved into `out`), for a
    /// sender that keeps delivery accounting.
    fn take_relost(&mut self, _out: &mut Vec<u64>) {}
    /// Whether the receiver has reported `seq` held (SACKed); None for a plugin that keeps
    /// no scoreboard through a timeout (F-RTO's SACK-enhanced rules read it).
    fn is_sacked(&self, _s: &SenderState, _seq: u64) -> Option<bool> {
        None
    }
    /// RACK (the sender's `rack`, [`crate::tcp::rack`]) marked `seq` lost; `retransmission`:
    /// a retransmission of it was in flight.
    fn rack_lost(&mut self, _s: &SenderState, _seq: u64, _retransmission: bool) {}
    /// RACK's marks are void: a partial undo unmarked every segment (Linux's
    /// `tcp_undo_cwnd_reduction(sk, true)`); RACK judges them again.
    fn forget_rack_marks(&mut self) {}
    /// This ACK's sends retransmit nothing (`on`), or may again: a partial ACK that
    /// Linux's `tcp_try_undo_partial()` holds returns before `tcp_fastretrans_alert()` asks
    /// for `REXMIT_LOST`, so `tcp_xmit_recovery()` sends no retransmission on it, only the
    /// new data `tcp_write_xmit()` sends as the window allows.
    fn hold_retransmissions(&mut self, _on: bool) {}
    /// The sender changed `s.dupthresh` (the reordering degree, `tp->reordering`, raised by
    /// reordered deliveries or brought back by a timeout): what IsLost covers changes with
    /// it, though the scoreboard does not.
    fn on_dupthresh_changed(&mut self, _s: &SenderState) {}
    /// A loss is proven (Linux's `lost_out`: RACK marked a segment lost that is not yet
    /// sent again), which starts a recovery with RACK.
    fn loss_proven(&self, _s: &SenderState) -> bool {
        false
    }
    /// The FlightSize a congestion event detected now halves (see
    /// `SenderView::flight_size`): RFC 5681's snd_max - snd_una unless the plugin knows
    /// better.
    fn flight_size(&self, s: &SenderState) -> u64 {
        s.flight()
    }
}

/// Which recovery plugin, with its parameters.
#[derive(Clone, Debug)]
pub enum RecoveryConfig {
    RtoOnly,
    Tahoe,
    Reno(RenoRecoveryParams),
    NewReno(NewRenoParams),
    /// RFC 6675; `prr`: with RFC 6937's rate reduction (see [`Sack::with_prr`]); `rack`:
    /// with RACK's loss detection (see [`Sack::with_rack`]).
    Sack {
        prr: bool,
        rack: bool,
    },
    /// RFC 6675 with Linux's detection of lost retransmissions (CUBIC's and BBR's).
    SackLinux {
        prr: bool,
        rack: bool,
    },
    /// ns-2 2.35's `Agent/TCP/Sack1`.
    Sack1,
    Vegas(VegasRecoveryParams),
}

// Held by value, one per sender. `Sack` is within clippy's bound in release builds; its
// debug-only fields (NextSeg's memo keeps HighRxt for a debug assertion) take it past.
#[cfg_attr(debug_assertions, allow(clippy::large_enum_variant))]
#[derive(Clone, Debug)]
pub enum RecoveryImpl {
    RtoOnly(RtoOnly),
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Sack1(Sack1),
    Vegas(Vegas),
}

impl RecoveryImpl {
    pub fn new(c: &RecoveryConfig) -> Self {
        match c {
            RecoveryConfig::RtoOnly => RecoveryImpl::RtoOnly(RtoOnly),
            RecoveryConfig::Tahoe => RecoveryImpl::Tahoe(Tahoe),
            RecoveryConfig::Reno(p) => RecoveryImpl::Reno(Reno::new(*p)),
            RecoveryConfig::NewReno(p) => RecoveryImpl::NewReno(NewReno::new(*p)),
            RecoveryConfig::Sack { prr, rack } => {
                RecoveryImpl::Sack(Sack::default().with_prr(*prr).with_rack(*rack))
            }
            RecoveryConfig::SackLinux { prr, rack } => {
                RecoveryImpl::Sack(Sack::linux().with_prr(*prr).with_rack(*rack))
            }
            RecoveryConfig::Sack1 => RecoveryImpl::Sack1(Sack1::default()),
            RecoveryConfig::Vegas(p) => RecoveryImpl::Vegas(Vegas::new(*p)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            RecoveryImpl::RtoOnly($r) => $e,
            RecoveryImpl::Tahoe($r) => $e,
            RecoveryImpl::Reno($r) => $e,
            RecoveryImpl::NewReno($r) => $e,
            RecoveryImpl::Sack($r) => $e,
            RecoveryImpl::Sack1($r) => $e,
            RecoveryImpl::Vegas($r) => $e,
        }
    };
}

impl Recovery for RecoveryImpl {
    fn wants_sack(&self) -> bool {
        dispatch!(self, r => r.wants_sack())
    }
    #[inline]
    fn on_sack_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)]) {
        dispatch!(self, r => r.on_sack_blocks(s, blocks))
    }
    fn reports_sack_news(&self) -> bool {
        dispatch!(self, r => r.reports_sack_news())
    }
    #[inline]
    fn on_sack_blocks_news(
        &mut self,
        s: &SenderState,
        blocks: &[(u64, u64)],
        news: &mut Vec<(u64, u64)>,
    ) {
        dispatch!(self, r => r.on_sack_blocks_news(s, blocks, news))
    }
    #[inline]
    fn sacked_runs(&self) -> &[(u64, u64)] {
        dispatch!(self, r => r.sacked_runs())
    }
    #[inline]
    fn counts_dupack(&self, s: &SenderState) -> bool {
        dispatch!(self, r => r.counts_dupack(s))
    }
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        dispatch!(self, r => r.on_dupack(s))
    }
    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        dispatch!(self, r => r.enter(s, cut))
    }
    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, newly_acked: u64) -> AckVerdict {
        dispatch!(self, r => r.on_new_ack(s, newly_acked))
    }
    #[inline]
    fn after_new_ack(&mut self, s: &mut SenderState) {
        dispatch!(self, r => r.after_new_ack(s))
    }
    fn on_timeout(&mut self, s: &mut SenderState) -> bool {
        dispatch!(self, r => r.on_timeout(s))
    }
    fn after_timeout(&mut self, s: &mut SenderState) {
        dispatch!(self, r => r.after_timeout(s))
    }
    #[inline]
    fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        dispatch!(self, r => r.next_segment(s))
    }
    #[inline]
    fn burst_cap(&self, s: &SenderState) -> Option<u32> {
        dispatch!(self, r => r.burst_cap(s))
    }
    fn backs_off_rto_at_fast_retransmit(&self) -> bool {
        dispatch!(self, r => r.backs_off_rto_at_fast_retransmit())
    }
    #[inline]
    fn partial_ack_timing(&self, s: &SenderState, ack: u64) -> PartialAckTiming {
        dispatch!(self, r => r.partial_ack_timing(s, ack))
    }
    fn lost_below(&self, s: &SenderState) -> u64 {
        dispatch!(self, r => r.lost_below(s))
    }
    fn take_relost(&mut self, out: &mut Vec<u64>) {
        dispatch!(self, r => r.take_relost(out))
    }
    fn flight_size(&self, s: &SenderState) -> u64 {
        dispatch!(self, r => r.flight_size(s))
    }
    fn rack_lost(&mut self, s: &SenderState, seq: u64, retransmission: bool) {
        dispatch!(self, r => r.rack_lost(s, seq, retransmission))
    }
    fn forget_rack_marks(&mut self) {
        dispatch!(self, r => r.forget_rack_marks())
    }
    fn hold_retransmissions(&mut self, on: bool) {
        dispatch!(self, r => r.hold_retransmissions(on))
    }
    fn on_dupthresh_changed(&mut self, s: &SenderState) {
        dispatch!(self, r => r.on_dupthresh_changed(s))
    }
    fn loss_proven(&self, s: &SenderState) -> bool {
        dispatch!(self, r => r.loss_proven(s))
    }
    fn is_sacked(&self, s: &SenderState, seq: u64) -> Option<bool> {
        dispatch!(self, r => r.is_sacked(s, seq))
    }
}
