//! Reno: fast retransmit and fast recovery, RFC 5681 §3.2. The first new ACK ends recovery,
//! so a second loss in the same window needs another fast retransmit or a timeout.

use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::{LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RenoRecoveryParams {
    /// The ACK that ends fast recovery also opens cwnd: ns-2's recv() ->
    /// recv_newack_helper() -> opencwnd() after cwnd_ went back to ssthresh_ (8 -> 8.125).
    /// RFC 5681 §3.2 step 6 sets cwnd and stops.
    pub exit_growth: bool,
    /// ns-2 tcp-reno.cc RenoTcpAgent::timeout(): `dupwnd_ = 0; dupacks_ = 0;` before the
    /// window is halved, so a timeout during fast recovery halves cwnd_ without the dupack
    /// inflation (matters with a window-based halving), and the duplicate ACK count since
    /// the last new ACK restarts.
    pub ns2_timeout: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    p: RenoRecoveryParams,
    /// The window without the dupack inflation (ns-2's cwnd_ during recovery).
    base: f64,
}

impl Reno {
    pub fn new(p: RenoRecoveryParams) -> Self {
        Self { p, base: 0.0 }
    }
}

/// RFC 5681 §3.2 steps 1 and 4, shared with NewReno: the DupThresh-th duplicate ACK starts
/// recovery (if `recover` allows, RFC 6582 §3.2 step 1); in recovery each further one
/// inflates cwnd by a segment.
pub(super) fn dupack(s: &mut SenderState) -> DupAck {
    if s.in_recovery {
        s.cwnd += 1.0;
        return DupAck::Nothing;
    }
    if s.dupacks == s.dupthresh && s.may_start_recovery() {
        DupAck::Enter
    } else {
        DupAck::Nothing
    }
}

/// Steps 2-3: ssthresh from the cut, retransmit, cwnd = the cut's window + DupThresh.
/// Returns the uninflated window.
pub(super) fn enter_fast_recovery(s: &mut SenderState, cut: Option<Cut>) -> f64 {
    let c = cut.unwrap_or(Cut {
        ssthresh: s.ssthresh,
        cwnd: s.cwnd,
    });
    s.ssthresh = c.ssthresh;
    s.cwnd = c.cwnd + f64::from(s.dupthresh);
    s.note_loss(LossKind::FastRetransmit);
    s.dupacks = s.dupthresh;
    s.in_recovery = true;
    s.retransmit_now.push(s.snd_una);
    c.cwnd
}

impl Recovery for Reno {
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        dupack(s)
    }
    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        self.base = enter_fast_recovery(s, cut);
    }
    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        // Step 6: deflate the window on the first new ACK.
        s.in_recovery = false;
        s.cwnd = self.base;
        AckVerdict {
            grow: self.p.exit_growth,
            restart_timer: true,
            exited: true,
        }
    }
    fn on_timeout(&mut self, s: &mut SenderState) -> bool {
        if self.p.ns2_timeout && s.in_recovery {
            s.cwnd = self.base;
        }
        s.in_recovery = false;
        self.p.ns2_timeout
    }
}
