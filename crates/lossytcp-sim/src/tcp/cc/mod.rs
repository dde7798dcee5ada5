//! Window growth and the ssthresh policy on loss: the "congestion control" axis of a variant.

mod reno;
mod vegas;

pub use reno::Reno;
pub use vegas::{Vegas, VegasParams};

use super::state::SenderState;

/// Enum dispatch: no allocation or virtual call on the per-ACK path.
#[derive(Clone, Debug)]
pub enum Growth {
    Reno(Reno),
    Vegas(Vegas),
}

impl Growth {
    /// Fires for every ACK that advances `snd_una` outside loss recovery.
    pub fn on_ack(&mut self, s: &mut SenderState, newly_acked: u64) {
        match self {
            Growth::Reno(g) => g.on_ack(s, newly_acked),
            Growth::Vegas(g) => g.on_ack(s),
        }
    }
    /// The ssthresh to adopt on a loss event (timeout or fast retransmit). Vegas halves the
    /// window on a timeout as Reno does (ns-2: slowdown(CLOSE_SSTHRESH_HALF)); its duplicate
    /// ACK reaction is `recovery::vegas`'s.
    pub fn ssthresh_on_loss(&self, s: &SenderState) -> f64 {
        match self {
            Growth::Reno(g) => g.ssthresh_on_loss(s),
            Growth::Vegas(_) => Reno.ssthresh_on_loss(s),
        }
    }
}
