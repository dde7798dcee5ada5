//! OldTahoe: losses are detected by the retransmission timer only; duplicate ACKs are ignored.

use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::SenderState;
use crate::tcp::Cut;

#[derive(Clone, Debug, Default)]
pub struct RtoOnly;

impl Recovery for RtoOnly {
    fn on_dupack(&mut self, _s: &mut SenderState) -> DupAck {
        DupAck::Nothing
    }
    /// Never called: no duplicate ACK starts a loss event.
    fn enter(&mut self, _s: &mut SenderState, _cut: Option<Cut>) {}
    #[inline]
    fn on_new_ack(&mut self, _s: &mut SenderState, _newly: u64) -> AckVerdict {
        AckVerdict::NORMAL
    }
    fn on_timeout(&mut self, _s: &mut SenderState) -> bool {
        false
    }
}
