//! What duplicate and partial ACKs do: the loss-recovery axis of a variant.
//!
//! Hooks and when they fire:
//! * `on_sack_blocks`: every ACK, before anything else, with its SACK blocks (may be empty).
//! * `on_dupack`: an ACK that does not advance `snd_una` while data is outstanding;
//!   `SenderState::dupacks` already counts it.
//! * `on_new_ack`: an ACK that advanced `snd_una` (already moved); returns what the sender
//!   should do with the window and the timer.
//! * `after_new_ack`: the same ACK, after the growth plugin and the fine clock saw it.
//! * `on_timeout`: after the sender's common RTO reaction (ssthresh, cwnd = 1, go-back-N).
//! * `next_segment`: the next segment to send, or `None` when the window is full.

mod newreno;
mod reno;
mod rto_only;
mod sack;
mod tahoe;
mod vegas;

pub use newreno::NewReno;
pub use reno::Reno;
pub use rto_only::RtoOnly;
pub use sack::Sack;
pub use tahoe::Tahoe;
pub use vegas::Vegas;

use super::cc::Growth;
use super::state::SenderState;
use crate::config::Profile;

/// What a new cumulative ACK means for the window and the retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckVerdict {
    /// Apply the growth plugin (slow start / congestion avoidance) for this ACK.
    pub grow: bool,
    /// Restart the retransmission timer (RFC 6298 §5.3), if data remains outstanding.
    pub restart_timer: bool,
}

impl AckVerdict {
    pub const NORMAL: AckVerdict = AckVerdict {
        grow: true,
        restart_timer: true,
    };
}

#[derive(Clone, Debug)]
pub enum Recovery {
    RtoOnly(RtoOnly),
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Vegas(Vegas),
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            Recovery::RtoOnly($r) => $e,
            Recovery::Tahoe($r) => $e,
            Recovery::Reno($r) => $e,
            Recovery::NewReno($r) => $e,
            Recovery::Sack($r) => $e,
            Recovery::Vegas($r) => $e,
        }
    };
}

impl Recovery {
    pub fn on_sack_blocks(&mut self, s: &SenderState, blocks: &[(u64, u64)]) {
        if let Recovery::Sack(r) = self {
            r.on_sack_blocks(s, blocks);
        }
    }
    /// Returns true when a loss event started (the sender restarts its timer).
    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        dispatch!(self, r => r.on_dupack(s, g))
    }
    pub fn on_new_ack(&mut self, s: &mut SenderState, newly_acked: u64) -> AckVerdict {
        dispatch!(self, r => r.on_new_ack(s, newly_acked))
    }
    pub fn after_new_ack(&mut self, s: &mut SenderState) {
        if let Recovery::Vegas(r) = self {
            r.after_new_ack(s);
        }
    }
    pub fn on_timeout(&mut self, s: &mut SenderState) {
        dispatch!(self, r => r.on_timeout(s))
    }
    pub fn next_segment(&mut self, s: &mut SenderState) -> Option<u64> {
        match self {
            Recovery::Sack(r) => r.next_segment(s),
            _ => s.next_in_window(),
        }
    }
    /// How many segments the ACK clock may release now besides `retransmit_now` (None: as
    /// many as the window allows).
    /// * ns-2 tcp-newreno.cc recv(): while `dupacks_ > numdupacks_ - 1` (from the fast
    ///   retransmit to the full ACK or a timeout) the ACK clock calls `send_much(0, 0, 2)`:
    ///   at most two segments per ACK besides the partial-ACK retransmission
    ///   (`newreno_changes_ 0`, the default). Matters after a partial ACK that covers many
    ///   segments, when the deflated window would release a burst. ns2 profile only.
    /// * Vegas sends nothing new on the first DupThresh - 1 duplicate ACKs (both profiles).
    pub fn burst_cap(&self, s: &SenderState) -> Option<u32> {
        match self {
            Recovery::NewReno(_) if s.profile == Profile::Ns2 && s.in_recovery => Some(2),
            Recovery::Vegas(r) if r.holds_new_data(s) => Some(0),
            _ => None,
        }
    }
    /// ns-2's Vegas restarts the coarse timer at a fast retransmit with `reset_rtx_timer(1)`,
    /// whose default second argument backs the RTO off as a timeout would (tcp-vegas.cc).
    pub fn ns2_backs_off_at_fast_retransmit(&self, s: &SenderState) -> bool {
        matches!(self, Recovery::Vegas(_)) && s.profile == Profile::Ns2
    }
    /// ns-2 tcp-reno.cc RenoTcpAgent::timeout(): `dupwnd_ = 0; dupacks_ = 0;` before
    /// TcpAgent::timeout() halves the window, so a timeout during fast recovery halves
    /// cwnd_ without the dupack inflation (Reno and NewReno; ns2 profile only, the rfc
    /// profile halves FlightSize). Returns true when ns-2 also clears `dupacks_`.
    pub fn ns2_timeout_prepare(&self, s: &mut SenderState) -> bool {
        if s.profile != Profile::Ns2 {
            return false;
        }
        match self {
            Recovery::Reno(_) => {
                if s.in_recovery {
                    s.cwnd = s.recovery_base;
                }
                true
            }
            Recovery::NewReno(r) => {
                if s.in_recovery {
                    s.cwnd = r.uninflated();
                }
                true
            }
            _ => false,
        }
    }
    /// ns-2 2.35's NewReno takes no RTT sample from a partial ACK (partialnewack()).
    pub fn ns2_partial_ack(&self, s: &SenderState, ack: u64) -> bool {
        match self {
            Recovery::NewReno(r) => s.profile == Profile::Ns2 && r.is_partial(s, ack),
            Recovery::Sack(r) => s.profile == Profile::Ns2 && r.is_partial(s, ack),
            _ => false,
        }
    }
    /// A duplicate ACK ns-2's Sack1 does not count (see Sack::ns2_ignores_dupack).
    pub fn ns2_ignores_dupack(&self, s: &SenderState) -> bool {
        match self {
            Recovery::Sack(r) => r.ns2_ignores_dupack(s),
            _ => false,
        }
    }
    /// ns-2's Sack1 keeps timing a segment across partial ACKs (no newack()); NewReno's
    /// partialnewack() ends the timing once the timed segment is covered.
    pub fn ns2_partial_ends_timing(&self) -> bool {
        !matches!(self, Recovery::Sack(_))
    }
    pub fn wants_sack(&self) -> bool {
        matches!(self, Recovery::Sack(_))
    }
}
