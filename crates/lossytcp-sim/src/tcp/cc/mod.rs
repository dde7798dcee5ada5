//! Window growth and the ssthresh policy on loss: the "congestion control" axis of a variant.

mod reno;

pub use reno::Reno;

use super::state::SenderState;

/// Enum dispatch: no allocation or virtual call on the per-ACK path.
#[derive(Clone, Debug)]
pub enum Growth {
    Reno(Reno),
}

impl Growth {
    /// Fires for every ACK that advances `snd_una` outside loss recovery.
    pub fn on_ack(&mut self, s: &mut SenderState, newly_acked: u64) {
        match self {
            Growth::Reno(g) => g.on_ack(s, newly_acked),
        }
    }
    /// The ssthresh to adopt on a loss event (timeout or fast retransmit).
    pub fn ssthresh_on_loss(&self, s: &SenderState) -> f64 {
        match self {
            Growth::Reno(g) => g.ssthresh_on_loss(s),
        }
    }
}
