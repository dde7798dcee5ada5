//! OldTahoe: losses are detected by the retransmission timer only; duplicate ACKs are ignored.

use crate::tcp::cc::Growth;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::SenderState;

#[derive(Clone, Debug, Default)]
pub struct RtoOnly;

impl RtoOnly {
    pub fn on_dupack(&mut self, _s: &mut SenderState, _g: &Growth) -> bool {
        false
    }
    pub fn on_new_ack(&mut self, _s: &mut SenderState, _newly: u64) -> AckVerdict {
        AckVerdict::NORMAL
    }
    pub fn on_timeout(&mut self, _s: &mut SenderState) {}
}
