//! The channels' configuration: plain data (serde), read by `Channel::build` and embedded
//! in a scenario's links (`config::LinkConfig`), in the emulator's links too.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::TraceBits;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Advance {
    /// One step of the chain per packet transmission (paper 000's literal text).
    Transmission,
    /// One step per packet-time slot of the link, idle or busy (fading evolves in time).
    Slot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldingDist {
    Exp,
    Fixed,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChannelConfig {
    #[default]
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        alpha: f64,
        beta: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
        advance: Advance,
        #[serde(default)]
        idle_reset_s: Option<f64>,
        /// Seconds per slot for `advance = slot`; the engine fills in the link's data-packet
        /// time when absent.
        #[serde(default)]
        slot_s: Option<f64>,
    },
    TwoState {
        good_s: f64,
        bad_s: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one")]
        loss_bad: f64,
        dist: HoldingDist,
    },
    Burst {
        p: f64,
        hold_s: f64,
    },
    /// Outcomes, `true` = lost, repeated cyclically when exhausted: one per transmission, or
    /// (`advance = slot`) one per packet-time slot of the link, so that idle slots (a
    /// timeout) move through the trace as a fade moves on in time. Given inline (`lost`) or
    /// as a file of `0`/`1` characters (`file`, whitespace ignored), which is read once,
    /// streamed and packed one bit per outcome (a 100 MB trace costs 12.5 MB).
    Trace {
        #[serde(default)]
        lost: Vec<bool>,
        #[serde(default)]
        file: Option<String>,
        #[serde(default = "per_transmission")]
        advance: Advance,
        /// The outcomes of `file` once read ([`Scenario::load_traces`]).
        #[serde(skip)]
        loaded: Option<Arc<TraceBits>>,
    },
    /// Drop the first transmission of each listed data segment, of whichever flow sends it
    /// first; a segment listed k times loses its first k transmissions (exact-loss
    /// scenario tests).
    Drops {
        seqs: Vec<u64>,
    },
    /// The same, each entry naming its flow (an index into the scenario's `flows`).
    FlowDrops {
        drops: Vec<FlowDrop>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowDrop {
    pub flow: u32,
    pub seq: u64,
}

fn one() -> f64 {
    1.0
}

fn per_transmission() -> Advance {
    Advance::Transmission
}
