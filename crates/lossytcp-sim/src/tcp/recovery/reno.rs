//! Reno: fast retransmit and fast recovery, RFC 5681 §3.2. The first new ACK ends recovery,
//! so a second loss in the same window needs another fast retransmit or a timeout.

use crate::tcp::cc::Growth;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::{LossKind, SenderState};

#[derive(Clone, Debug, Default)]
pub struct Reno;

/// RFC 5681 §3.2 steps 2-4, shared with NewReno: returns true when recovery started.
pub(super) fn enter_fast_recovery(s: &mut SenderState, g: &Growth) -> bool {
    if s.in_recovery {
        // Step 4: each further duplicate ACK inflates cwnd by one segment.
        s.cwnd += 1.0;
        return false;
    }
    if s.dupacks != s.dupthresh || !s.may_start_recovery() {
        return false;
    }
    // Step 2: ssthresh = max(FlightSize / 2, 2); step 3: retransmit, cwnd = ssthresh + 3.
    s.ssthresh = g.ssthresh_on_loss(s);
    s.recovery_base = s.halved_window(s.ssthresh);
    s.cwnd = s.recovery_base + f64::from(s.dupthresh);
    s.note_loss(LossKind::FastRetransmit);
    s.dupacks = s.dupthresh;
    s.in_recovery = true;
    s.retransmit_now.push(s.snd_una);
    true
}

impl Reno {
    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        enter_fast_recovery(s, g)
    }
    pub fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        if s.in_recovery {
            // Step 6: deflate the window on the first new ACK.
            s.in_recovery = false;
            // ns-2 keeps cwnd_ (= recovery_base) and drops dupwnd_; RFC: ssthresh.
            s.cwnd = s.recovery_base;
            return AckVerdict {
                // ns-2 recv() -> recv_newack_helper() -> opencwnd() on the ACK that ends
                // recovery, after cwnd_ went back to ssthresh_ (dupwnd_ = 0): 8 -> 8.125.
                grow: s.recovery_exit_growth,
                restart_timer: true,
            };
        }
        AckVerdict::NORMAL
    }
    pub fn on_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
    }
}
