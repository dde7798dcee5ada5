//! Tahoe: fast retransmit without fast recovery. On the DupThresh-th duplicate ACK, halve
//! ssthresh, drop cwnd to one segment and go back N from `snd_una`, as after a timeout
//! (4.3BSD-Tahoe; ns-2's `Agent/TCP`). Paper 000 Table II is its trace.

use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::{LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl Recovery for Tahoe {
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        if s.dupacks == s.dupthresh && s.may_start_recovery() {
            DupAck::Enter
        } else {
            DupAck::Nothing
        }
    }
    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        if let Some(c) = cut {
            s.ssthresh = c.ssthresh;
        }
        // Slow start from one segment, whatever window the cut would continue from.
        s.cwnd = 1.0;
        s.note_loss(LossKind::FastRetransmit);
        s.snd_nxt = s.snd_una;
    }
    #[inline]
    fn on_new_ack(&mut self, _s: &mut SenderState, _newly: u64) -> AckVerdict {
        AckVerdict::NORMAL
    }
    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
}
