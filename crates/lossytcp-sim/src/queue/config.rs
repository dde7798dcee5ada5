//! The queue disciplines' configuration: plain data (serde), read by `Queue::build` and
//! embedded in a scenario's links (`config::LinkConfig`), in the emulator's links too.

use serde::{Deserialize, Serialize};

/// Queue disciplines that decide when a packet arrives (see `queue/mod.rs`). Sizes count
/// the packets (or bytes) waiting, the one in transmission excluded.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// Drop the arriving packet when the waiting room is full: `packets` waiting packets
    /// and/or `bytes` waiting bytes (the arriving packet's own bytes included).
    /// ns-2's `Queue/DropTail` with `limit_ = packets + 1` (ns-2 counts the packet in
    /// transmission, see `queue/droptail.rs`).
    #[serde(rename = "droptail")]
    DropTail {
        #[serde(default)]
        packets: Option<usize>,
        #[serde(default)]
        bytes: Option<u64>,
    },
    /// Floyd & Jacobson's RED as ns-2 2.35's `Queue/RED` (queue/red.cc), ns-2's defaults.
    Red(RedConfig),
}

/// ns-2 2.35's `Queue/RED` parameters; every default is ns-2's (tcl/lib/ns-default.tcl,
/// checked on the Debian binary). Thresholds are in packets (of `mean_packet_size_bytes`
/// when the queue is measured in bytes).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Hard limit in packets waiting, the one in transmission excluded (`limit_`; with
    /// `queue_in_bytes`, `packets x mean_packet_size_bytes` bytes). ns-2: 50.
    #[serde(default = "red_limit")]
    pub packets: usize,
    /// `bytes_`: the count since the last drop is in bytes and the drop probability scales
    /// with the packet's size. ns-2: true.
    #[serde(default = "yes")]
    pub bytes: bool,
    /// `queue_in_bytes_`: the queue, its average and the thresholds are measured in bytes.
    /// ns-2: true.
    #[serde(default = "yes")]
    pub queue_in_bytes: bool,
    /// `thresh_`; `None` (ns-2's 0): automatic, max(5, target_delay x C / 2) packets.
    #[serde(default)]
    pub min_th: Option<f64>,
    /// `maxthresh_`; `None` (ns-2's 0): automatic, 3 x min_th.
    #[serde(default)]
    pub max_th: Option<f64>,
    /// 1 / `linterm_`. ns-2: 0.1.
    #[serde(default = "red_max_p")]
    pub max_p: f64,
    /// `q_weight_`; `None` (ns-2's -1): automatic, 1 - exp(-1 / (10 RTT C)) with RTT =
    /// max(0.1 s, 3 (delay + 1/C)) and C the link's capacity in mean-sized packets/s.
    #[serde(default)]
    pub w_q: Option<f64>,
    /// `gentle_`: the drop probability rises from max_p to 1 between max_th and 2 max_th.
    /// ns-2: true.
    #[serde(default = "yes")]
    pub gentle: bool,
    /// `wait_`: spread drops out (uniform inter-drop counts with a wait). ns-2: true.
    #[serde(default = "yes")]
    pub wait: bool,
    /// `mean_pktsize_`. ns-2: 500.
    #[serde(default = "red_mean_packet")]
    pub mean_packet_size_bytes: u32,
    /// `use_mark_p_`: with it (ns-2 2.35's default, true) an average above max_th (2 max_th
    /// when gentle) is not a forced drop: the packet goes through the early-drop test, whose
    /// probability is then 1 (an early drop). Off: Floyd & Jacobson's forced drop.
    #[serde(default = "yes")]
    pub use_mark_p: bool,
    /// `targetdelay_`, used by the automatic min_th. ns-2: 0.005 s.
    #[serde(default = "red_target_delay")]
    pub target_delay_s: f64,
    /// Draw the early-drop test's uniforms from ns-2 2.35's default generator seeded with
    /// this value (`$defaultRNG seed N`, the scripts of `lossytcp.ns2` use
    /// `ns2_seed(seed)`) instead of the engine's stream: on a path where this queue is the
    /// only consumer of ns-2's default generator, the engine then makes ns-2's drops, which
    /// is how the RED replays compare the two packet by packet. `None`: the engine's stream.
    #[serde(default)]
    pub ns2_seed: Option<u32>,
}

impl Default for RedConfig {
    fn default() -> Self {
        Self {
            packets: red_limit(),
            bytes: true,
            queue_in_bytes: true,
            min_th: None,
            max_th: None,
            max_p: red_max_p(),
            w_q: None,
            gentle: true,
            wait: true,
            mean_packet_size_bytes: red_mean_packet(),
            use_mark_p: true,
            target_delay_s: red_target_delay(),
            ns2_seed: None,
        }
    }
}

fn red_limit() -> usize {
    50
}
fn yes() -> bool {
    true
}
fn red_max_p() -> f64 {
    0.1
}
fn red_mean_packet() -> u32 {
    500
}
fn red_target_delay() -> f64 {
    0.005
}
