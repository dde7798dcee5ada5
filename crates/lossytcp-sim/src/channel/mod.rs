//! Channel error models: each decides, when a packet starts transmission on a link, whether
//! it is lost. Channels know nothing of TCP beyond the packet they are shown.

mod bernoulli;
mod burst;
mod config;
mod gilbert_elliott;
mod trace;
mod two_state_time;

pub use bernoulli::Bernoulli;
pub use burst::Burst;
pub use config::{Advance, ChannelConfig, FlowDrop, HoldingDist};
pub use gilbert_elliott::GilbertElliott;
pub use trace::{Drops, Trace, TraceBits};
pub use two_state_time::TwoStateTime;

use std::sync::Arc;

use crate::frame::Frame;
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// Enum dispatch keeps the per-packet path free of allocation and virtual calls.
pub enum Channel {
    Perfect,
    Bernoulli(Bernoulli),
    GilbertElliott(GilbertElliott),
    TwoStateTime(TwoStateTime),
    Burst(Burst),
    Trace(Trace),
    Drops(Drops),
}

impl Channel {
    /// `slot` is the link's data-packet transmission time (the slot of `advance = slot`).
    pub fn build(cfg: &ChannelConfig, rng: Rng, slot: Dur) -> Channel {
        match cfg {
            ChannelConfig::None => Channel::Perfect,
            ChannelConfig::Bernoulli { p } => Channel::Bernoulli(Bernoulli::new(*p, rng)),
            ChannelConfig::GilbertElliott {
                alpha,
                beta,
                loss_good,
                loss_bad,
                advance,
                idle_reset_s,
                slot_s,
            } => Channel::GilbertElliott(GilbertElliott::new(
                *alpha,
                *beta,
                *loss_good,
                *loss_bad,
                *advance,
                idle_reset_s.map(Dur::from_secs),
                slot_s.map(Dur::from_secs).unwrap_or(slot),
                rng,
            )),
            ChannelConfig::TwoState {
                good_s,
                bad_s,
                loss_good,
                loss_bad,
                dist,
            } => Channel::TwoStateTime(TwoStateTime::new(
                Dur::from_secs(*good_s),
                Dur::from_secs(*bad_s),
                *loss_good,
                *loss_bad,
                *dist,
                rng,
            )),
            ChannelConfig::Burst { p, hold_s } => {
                Channel::Burst(Burst::new(*p, Dur::from_secs(*hold_s), rng))
            }
            ChannelConfig::Trace {
                lost,
                advance,
                loaded,
                ..
            } => {
                // A file's outcomes are read before the run (Simulation::new).
                let bits = loaded
                    .clone()
                    .unwrap_or_else(|| Arc::new(TraceBits::from_bools(lost)));
                Channel::Trace(Trace::new(bits, *advance, slot))
            }
            ChannelConfig::Drops { seqs } => {
                Channel::Drops(Drops::new(seqs.iter().map(|&s| (None, s))))
            }
            ChannelConfig::FlowDrops { drops } => {
                Channel::Drops(Drops::new(drops.iter().map(|d| (Some(d.flow), d.seq))))
            }
        }
    }

    /// Decides the fate of `pkt`, which starts transmission at `now`.
    #[inline]
    pub fn lost<F: Frame>(&mut self, now: Time, pkt: &F) -> bool {
        match self {
            Channel::Perfect => false,
            Channel::Bernoulli(c) => c.lost(),
            Channel::GilbertElliott(c) => c.lost(now),
            Channel::TwoStateTime(c) => c.lost(now),
            Channel::Burst(c) => c.lost(now),
            Channel::Trace(c) => c.lost(now),
            Channel::Drops(c) => c.lost(pkt.segment()),
        }
    }
}
