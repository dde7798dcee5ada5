//! Tahoe: fast retransmit without fast recovery. On the DupThresh-th duplicate ACK, halve
//! ssthresh, drop cwnd to one segment and go back N from `snd_una`, as after a timeout
//! (4.3BSD-Tahoe; ns-2's `Agent/TCP`). Paper 000 Table II is its trace.

use crate::tcp::cc::Growth;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::{LossKind, SenderState};

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl Tahoe {
    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        if s.dupacks != s.dupthresh || !s.may_start_recovery() {
            return false;
        }
        s.ssthresh = g.ssthresh_on_loss(s);
        s.cwnd = 1.0;
        s.note_loss(LossKind::FastRetransmit);
        s.snd_nxt = s.snd_una;
        true
    }
    pub fn on_new_ack(&mut self, _s: &mut SenderState, _newly: u64) -> AckVerdict {
        AckVerdict::NORMAL
    }
    pub fn on_timeout(&mut self, _s: &mut SenderState) {}
}
