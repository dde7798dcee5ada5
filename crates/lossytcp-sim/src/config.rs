//! The declarative scenario: what the Python front validates and hands to the engine.
//!
//! Everything here is plain data (serde), so a scenario can be stored, hashed and replayed.
//! Ranges are checked at the Python boundary first (errors in the user's terms);
//! [`Scenario::check`] re-checks the structural invariants the engine relies on and the same
//! ranges (`limits.rs`), so a scenario reaching the engine another way is refused too: an
//! error, never a panic or a run without end.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::channel::TraceBits;
// The parts' own configuration types, re-exported: a scenario embeds them in its links.
pub use crate::channel::{Advance, ChannelConfig, FlowDrop, HoldingDist};
pub use crate::delay::DelayConfig;
pub use crate::queue::{QueueConfig, RedConfig};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub seed: u64,
    /// Simulated time to run; a run also ends early once every finite transfer is complete
    /// (and every traffic entry has finished, see [`TrafficConfig`]).
    pub duration_s: f64,
    /// Node names. Optional: when given (or when any link names its endpoints) every link
    /// has endpoints, and flows and traffic may name a source and a destination node
    /// instead of explicit link paths (see `topology.rs` for the routing rule).
    #[serde(default)]
    pub nodes: Vec<String>,
    pub links: Vec<LinkConfig>,
    /// Long-lived TCP flows and single finite transfers, each with its own report.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Generated load: Poisson arrivals of finite TCP transfers, UDP constant-bit-rate and
    /// exponential on/off sources; one aggregate report per entry.
    #[serde(default)]
    pub traffic: Vec<TrafficConfig>,
    #[serde(default)]
    pub trace: TraceConfig,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Record (time, seq, is_retransmission) for every data transmission of every flow.
    #[serde(default)]
    pub sends: bool,
    /// Record (time, cwnd, ssthresh, rto) whenever one of them changes.
    #[serde(default)]
    pub window: bool,
    /// Record (time, state) whenever a link's semi-Markov delay enters a state (the states
    /// are drawn as packets start transmission, so the trace ends at the last one).
    #[serde(default)]
    pub delay: bool,
    /// Record one link's queue (arrivals, drops, departures, RED's average) during a time
    /// window, so that memory stays bounded whatever the simulated time.
    #[serde(default)]
    pub queue: Option<QueueTraceConfig>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueTraceConfig {
    /// Index of the link whose queue is traced.
    pub link: usize,
    pub from_s: f64,
    pub to_s: f64,
    /// At most this many records (a safety bound on memory for a wide window).
    #[serde(default = "queue_trace_max_records")]
    pub max_records: usize,
}

fn queue_trace_max_records() -> usize {
    1_000_000
}

/// One direction of a link: serialisation at `rate_bps`, a queue in front of it, a channel
/// deciding each packet's fate when it starts transmission, then propagation.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Endpoints (node names), required when the scenario has nodes.
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
    pub rate_bps: f64,
    pub delay: DelayConfig,
    /// Legacy: a DropTail queue holding this many packets besides the one in transmission.
    /// Give either this or `queue`.
    #[serde(default)]
    pub queue_packets: Option<usize>,
    #[serde(default)]
    pub queue: Option<QueueConfig>,
    #[serde(default)]
    pub channel: ChannelConfig,
    /// Retransmitted data packets are never lost on the channel (paper 000's assumption).
    #[serde(default)]
    pub protect_retransmissions: bool,
    /// The slot of a channel stepped per slot (`advance = slot`) is the transmission time of
    /// this many bytes on this link. `None`: the largest data packet any flow or traffic
    /// entry sends across the link; on a link that carries only ACKs, the largest ACK.
    /// (A Gilbert-Elliott channel's own `slot_s` overrides both.)
    #[serde(default)]
    pub slot_bytes: Option<u32>,
}

impl LinkConfig {
    /// The queue discipline: `queue`, or the legacy `queue_packets` DropTail.
    pub fn queue_config(&self) -> Option<QueueConfig> {
        match (&self.queue, self.queue_packets) {
            (Some(q), _) => Some(q.clone()),
            (None, Some(n)) => Some(QueueConfig::DropTail {
                packets: Some(n),
                bytes: None,
            }),
            (None, None) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    OldTahoe,
    Tahoe,
    Reno,
    NewReno,
    Sack,
    /// Brakmo & Peterson 1995, as ns-2 2.35's `Agent/TCP/Vegas`.
    Vegas,
    /// Paper 003: NewReno whose reaction to a loss follows the Vegas loss predictor.
    NewRenoLp,
    /// Paper 003's upper bound: NewReno told the true cause of each loss.
    IdealLp,
    /// Westwood (Mascolo et al. 2001) with NewReno's recovery, as paper 003's Westwood-NR.
    WestwoodNr,
    /// Linux's Westwood+ with NewReno's recovery.
    WestwoodPlus,
    /// RFC 9438 CUBIC with SACK recovery (RFC 6675).
    Cubic,
    /// BBR v1 (Cardwell et al. 2016, Linux tcp_bbr.c) with SACK recovery.
    Bbr,
    /// BBRv3 (Google's Linux tcp_bbr.c v3, draft-ietf-ccwg-bbr) with SACK recovery.
    Bbr3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// A sample from every ACK that newly acknowledges a segment sent only once (Karn).
    #[default]
    PerAck,
    /// One timed segment per window, as BSD and ns-2 (Karn: discarded if retransmitted).
    PerWindow,
}

/// How the rfc profile turns RTT samples into a retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 §2: SRTT + max(G, 4 RTTVAR), at least RTO_min.
    #[default]
    Rfc6298,
    /// Paper 001 §3.2.4 and eq. (2), `Y_i = max(T_i, G, RTO_min)`: the RTO is the latest RTT
    /// sample, at least G and RTO_min, with no smoothing and no variance term; every new ACK
    /// gives a sample (the paper assumes the timestamp option), timed from the acknowledged
    /// segment's first transmission, which on a path that loses nothing is the copy the
    /// receiver acknowledged (so the rule needs per-ACK sampling and lossless links). On a
    /// path whose delay is a function of the send time (the semi-Markov delay) the latest
    /// sample is the RTT of the state its segment was sent in, so the timer runs on the RTT of
    /// the previous state until the first segment sent in the new state is acknowledged: the
    /// paper's timer. Backoff as for RFC 6298 (`max_backoff`).
    LastSample,
    /// Linux's `tcp_set_rto()` on RFC 6298's estimates: RTO = SRTT + max(G, 4 RTTVAR,
    /// RTO_min), so the timer stays at least RTO_min beyond the RTT (RFC 6298's floors the
    /// RTO itself: with RTT ~ RTO_min it fires as soon as a queue delays an ACK).
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// RFC 5681 / 6582 / 6675 / 6298 behaviour.
    #[default]
    Rfc,
    /// ns-2 2.35 agents: tick-based RTO estimator, ssthresh from the window, NewReno without
    /// partial window deflation. Used to compare like with like in cross-checks.
    Ns2,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    pub packet_size_bytes: u32,
    pub ack_size_bytes: u32,
    /// Maximum (advertised) window in packets.
    pub max_window: u32,
    pub initial_window: u32,
    pub dupack_threshold: u32,
    pub min_rto_s: f64,
    pub max_rto_s: f64,
    pub initial_rto_s: f64,
    /// Timer granularity G of RFC 6298 (0 = exact).
    pub granularity_s: f64,
    /// A constant RTO of this many seconds instead of the estimator.
    pub fixed_rto_s: Option<f64>,
    /// Largest backoff multiplier (1 = no backoff; 64 = doubling capped at 64x).
    pub max_backoff: u32,
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    /// The rfc profile's RTO rule (RFC 6298 unless asked; ignored by a fixed RTO, refused
    /// with the ns2 profile, whose estimator is ns-2's).
    #[serde(default)]
    pub rto_estimator: RtoEstimator,
    #[serde(default)]
    pub delayed_ack: bool,
    #[serde(default = "delack_default")]
    pub delack_interval_s: f64,
    #[serde(default)]
    pub profile: Profile,
    /// [`crate::tcp::options::LIMITED_TRANSMIT`] (`None`: the profile's default, as for the
    /// four below).
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// [`crate::tcp::options::DELAY_GROWTH`].
    #[serde(default)]
    pub delay_growth: Option<bool>,
    /// [`crate::tcp::options::PARTIAL_WINDOW_DEFLATION`].
    #[serde(default)]
    pub partial_window_deflation: Option<bool>,
    /// [`crate::tcp::options::RECOVERY_EXIT_GROWTH`].
    #[serde(default)]
    pub recovery_exit_growth: Option<bool>,
    /// [`crate::tcp::options::TIMER_EVERY_PARTIAL_ACK`].
    #[serde(default)]
    pub timer_every_partial_ack: Option<bool>,
    /// The variant's plugin parameters given, by name (each plugin declares its own: see
    /// `tcp::params`); the rest take their declared defaults.
    #[serde(default)]
    pub params: crate::tcp::params::Values,
    /// ns2 profile: the phase of the agent's RTT tick clock, as a fraction of a tick in
    /// [0, 1) (ns-2's `boot_time_ / tcpTick_`). `None` = the phase ns-2 2.35 itself uses in
    /// the scripts `lossytcp.ns2` writes (see `variant::ns2_tick_phase`).
    #[serde(default)]
    pub tick_phase: Option<f64>,
    /// [`crate::tcp::options::EIFEL_UNDO`].
    #[serde(default)]
    pub eifel_undo: bool,
    /// [`crate::tcp::options::FRTO`].
    #[serde(default)]
    pub frto: bool,
    /// [`crate::tcp::options::DSACK`].
    #[serde(default)]
    pub dsack: bool,
    /// Tail Loss Probe (RFC 8985 §7, as Linux 6.x runs it): with SACK, in the open state, a
    /// probe segment (new data, else the last one sent again) at about two smoothed RTTs
    /// after the last transmission, before the retransmission timer; the RTO restarts from
    /// the probe, and a loss the probe repaired reduces the window once. SACK senders only.
    /// Off by default.
    #[serde(default)]
    pub tlp: bool,
    /// [`crate::tcp::options::PRR`].
    #[serde(default)]
    pub prr: bool,
    /// [`crate::tcp::options::RACK`].
    #[serde(default)]
    pub rack: bool,
    /// [`crate::tcp::options::REORDERING`].
    #[serde(default)]
    pub reordering: bool,
    /// [`crate::tcp::options::RACK_REO_WND`].
    #[serde(default)]
    pub rack_reo_wnd: bool,
    /// [`crate::tcp::options::PARTIAL_UNDO`].
    #[serde(default)]
    pub partial_undo: bool,
    /// [`crate::tcp::options::HANDSHAKE_RTT`].
    #[serde(default)]
    pub handshake_rtt: bool,
}

fn delack_default() -> f64 {
    0.1
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    Bulk,
    /// A finite transfer; the flow reports its completion time.
    Transfer {
        bytes: u64,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub variant: Variant,
    /// Source and destination nodes: the paths are routed (see `topology.rs`). Give either
    /// these or `forward` and `reverse`.
    #[serde(default)]
    pub src: Option<String>,
    #[serde(default)]
    pub dst: Option<String>,
    /// Link indices data crosses, in order.
    #[serde(default)]
    pub forward: Vec<usize>,
    /// Link indices ACKs cross, in order.
    #[serde(default)]
    pub reverse: Vec<usize>,
    pub tcp: TcpConfig,
    pub app: AppConfig,
    #[serde(default)]
    pub start_s: f64,
    /// A name carried into the flow's report.
    #[serde(default)]
    pub label: Option<String>,
}

/// Generated load; each entry has one aggregate report. Paths are routed from `src` to
/// `dst`, or given as link lists (`forward`; `reverse` for TCP's ACKs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficConfig {
    /// UDP at a constant bit rate, as ns-2's `Application/Traffic/CBR` over `Agent/UDP`: the
    /// first packet at `start_s`, then one every `packet_size x 8 / rate_bps` seconds
    /// (`random`: ns-2's `random_`, each interval jittered by U(-0.5, 0.5) of itself).
    Cbr {
        #[serde(default)]
        src: Option<String>,
        #[serde(default)]
        dst: Option<String>,
        #[serde(default)]
        forward: Vec<usize>,
        #[serde(default)]
        reverse: Vec<usize>,
        rate_bps: f64,
        packet_size_bytes: u32,
        #[serde(default)]
        random: bool,
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        stop_s: Option<f64>,
        #[serde(default)]
        label: Option<String>,
    },
    /// UDP exponential on/off, as ns-2's `Application/Traffic/Exponential`: bursts at
    /// `rate_bps` of round(Exp(on_s / interval)) packets (at least 1), separated by one
    /// interval plus an Exp(off_s) idle time; the first burst starts after an idle time.
    Onoff {
        #[serde(default)]
        src: Option<String>,
        #[serde(default)]
        dst: Option<String>,
        #[serde(default)]
        forward: Vec<usize>,
        #[serde(default)]
        reverse: Vec<usize>,
        rate_bps: f64,
        packet_size_bytes: u32,
        on_s: f64,
        off_s: f64,
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        stop_s: Option<f64>,
        #[serde(default)]
        label: Option<String>,
    },
    /// Finite TCP transfers arriving as a Poisson process: each arrival opens a new
    /// connection (unless `max_concurrent` are open: it is then refused and counted),
    /// which is retired when its last byte is acknowledged.
    Transfers {
        #[serde(default)]
        src: Option<String>,
        #[serde(default)]
        dst: Option<String>,
        #[serde(default)]
        forward: Vec<usize>,
        #[serde(default)]
        reverse: Vec<usize>,
        arrival_rate_per_s: f64,
        size: SizeConfig,
        /// Open transfers at most (one entry per source node gives a per-node cap).
        max_concurrent: usize,
        /// Arrivals at most; `None`: until `stop_s` or the end of the run.
        #[serde(default)]
        max_transfers: Option<u64>,
        variant: Variant,
        tcp: TcpConfig,
        #[serde(default)]
        start_s: f64,
        #[serde(default)]
        stop_s: Option<f64>,
        #[serde(default)]
        label: Option<String>,
    },
}

/// Where a flow's or traffic entry's packets go: routed between nodes, or explicit link
/// lists.
#[derive(Clone, Copy, Debug)]
pub struct PathSpec<'a> {
    pub src: Option<&'a str>,
    pub dst: Option<&'a str>,
    pub forward: &'a [usize],
    pub reverse: &'a [usize],
}

/// Transfer sizes in bytes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeConfig {
    Fixed {
        bytes: u64,
    },
    Exp {
        mean_bytes: f64,
    },
    /// Pareto with this mean and shape (> 1): scale = mean (shape - 1) / shape, as ns-2's
    /// `ParetoRandomVariable`.
    Pareto {
        mean_bytes: f64,
        shape: f64,
    },
}

impl TrafficConfig {
    pub fn path(&self) -> PathSpec<'_> {
        match self {
            TrafficConfig::Cbr {
                src,
                dst,
                forward,
                reverse,
                ..
            }
            | TrafficConfig::Onoff {
                src,
                dst,
                forward,
                reverse,
                ..
            }
            | TrafficConfig::Transfers {
                src,
                dst,
                forward,
                reverse,
                ..
            } => PathSpec {
                src: src.as_deref(),
                dst: dst.as_deref(),
                forward,
                reverse,
            },
        }
    }
    pub fn kind_name(&self) -> &'static str {
        match self {
            TrafficConfig::Cbr { .. } => "cbr",
            TrafficConfig::Onoff { .. } => "onoff",
            TrafficConfig::Transfers { .. } => "transfers",
        }
    }
    pub fn label(&self) -> Option<&str> {
        match self {
            TrafficConfig::Cbr { label, .. }
            | TrafficConfig::Onoff { label, .. }
            | TrafficConfig::Transfers { label, .. } => label.as_deref(),
        }
    }
    pub fn start_s(&self) -> f64 {
        match self {
            TrafficConfig::Cbr { start_s, .. }
            | TrafficConfig::Onoff { start_s, .. }
            | TrafficConfig::Transfers { start_s, .. } => *start_s,
        }
    }
    pub fn stop_s(&self) -> Option<f64> {
        match self {
            TrafficConfig::Cbr { stop_s, .. }
            | TrafficConfig::Onoff { stop_s, .. }
            | TrafficConfig::Transfers { stop_s, .. } => *stop_s,
        }
    }
    /// TCP entries need an ACK path.
    pub fn is_tcp(&self) -> bool {
        matches!(self, TrafficConfig::Transfers { .. })
    }
    /// Data packet size (the largest, for TCP the segment size).
    pub fn packet_size_bytes(&self) -> u32 {
        match self {
            TrafficConfig::Cbr {
                packet_size_bytes, ..
            }
            | TrafficConfig::Onoff {
                packet_size_bytes, ..
            } => *packet_size_bytes,
            TrafficConfig::Transfers { tcp, .. } => tcp.packet_size_bytes,
        }
    }
}

impl FlowConfig {
    pub fn path(&self) -> PathSpec<'_> {
        PathSpec {
            src: self.src.as_deref(),
            dst: self.dst.as_deref(),
            forward: &self.forward,
            reverse: &self.reverse,
        }
    }
}

impl Scenario {
    pub fn from_json(s: &str) -> Result<Scenario, String> {
        let mut sc: Scenario = serde_json::from_str(s).map_err(|e| format!("scenario: {e}"))?;
        sc.check()?;
        sc.load_traces()?;
        Ok(sc)
    }

    /// Whether some trace channel names a file not read yet.
    pub fn has_unloaded_traces(&self) -> bool {
        self.links.iter().any(|l| {
            matches!(
                &l.channel,
                ChannelConfig::Trace {
                    file: Some(_),
                    loaded: None,
                    ..
                }
            )
        })
    }

    /// Reads every trace file (once; a file named by several links is read for each).
    pub fn load_traces(&mut self) -> Result<(), String> {
        for (i, l) in self.links.iter_mut().enumerate() {
            if let ChannelConfig::Trace {
                file: Some(path),
                loaded,
                ..
            } = &mut l.channel
            {
                if loaded.is_none() {
                    let bits = TraceBits::read(path).map_err(|e| format!("links[{i}]: {e}"))?;
                    *loaded = Some(Arc::new(bits));
                }
            }
        }
        Ok(())
    }

    /// Structural checks the engine relies on (ranges are the Python front's job, but a
    /// scenario built by hand in Rust must still fail cleanly). Endpoints, routes and
    /// explicit paths are checked where they are resolved, `topology::Routes::resolve`,
    /// when a simulation is built (the topology reads this configuration, not the reverse).
    pub fn check(&self) -> Result<(), String> {
        let finite_pos = |name: &str, x: f64| {
            if x.is_finite() && x > 0.0 {
                Ok(())
            } else {
                Err(format!("{name} = {x} must be finite and > 0"))
            }
        };
        let prob = |name: &str, x: f64| {
            if (0.0..=1.0).contains(&x) {
                Ok(())
            } else {
                Err(format!("{name} = {x} must be in [0, 1]"))
            }
        };
        finite_pos("duration_s", self.duration_s)?;
        if self.flows.is_empty() && self.traffic.is_empty() {
            return Err("a scenario needs at least one flow or traffic entry".into());
        }
        for (i, l) in self.links.iter().enumerate() {
            finite_pos(&format!("links[{i}].rate_bps"), l.rate_bps)?;
            match &l.delay {
                DelayConfig::Fixed { delay_s } => {
                    if !(delay_s.is_finite() && *delay_s >= 0.0) {
                        return Err(format!("links[{i}].delay_s = {delay_s} must be >= 0"));
                    }
                }
                DelayConfig::SemiMarkov {
                    delay_s,
                    h,
                    excess_mean_s,
                } => {
                    let m = delay_s.len();
                    if m == 0 || h.len() != m || excess_mean_s.len() != m {
                        return Err(format!("links[{i}]: semi-Markov delay needs M states, an MxM H and M excess means"));
                    }
                    for row in h {
                        if row.len() != m || (row.iter().sum::<f64>() - 1.0).abs() > 1e-6 {
                            return Err(format!(
                                "links[{i}]: every row of H must have M entries summing to 1"
                            ));
                        }
                        for &x in row {
                            prob("H entry", x)?;
                        }
                    }
                }
            }
            match &l.channel {
                ChannelConfig::None
                | ChannelConfig::Drops { .. }
                | ChannelConfig::FlowDrops { .. } => {}
                ChannelConfig::Bernoulli { p } => prob("p", *p)?,
                ChannelConfig::GilbertElliott {
                    alpha,
                    beta,
                    loss_good,
                    loss_bad,
                    ..
                } => {
                    prob("alpha", *alpha)?;
                    prob("beta", *beta)?;
                    prob("loss_good", *loss_good)?;
                    prob("loss_bad", *loss_bad)?;
                    if *alpha + *beta <= 0.0 {
                        return Err("alpha + beta must be > 0".into());
                    }
                }
                ChannelConfig::TwoState {
                    good_s,
                    bad_s,
                    loss_good,
                    loss_bad,
                    ..
                } => {
                    finite_pos("good_s", *good_s)?;
                    finite_pos("bad_s", *bad_s)?;
                    prob("loss_good", *loss_good)?;
                    prob("loss_bad", *loss_bad)?;
                }
                ChannelConfig::Burst { p, hold_s } => {
                    prob("p", *p)?;
                    finite_pos("hold_s", *hold_s)?;
                }
                ChannelConfig::Trace { lost, file, .. } => match (lost.is_empty(), file) {
                    (true, None) => {
                        return Err("trace channel needs at least one outcome".into());
                    }
                    (false, Some(_)) => {
                        return Err("trace channel: give either lost or file, not both".into());
                    }
                    _ => {}
                },
            }
            let name = format!("links[{i}]");
            match l.queue_config() {
                None => {
                    return Err(format!("{name} needs queue_packets or queue"));
                }
                Some(_) if l.queue.is_some() && l.queue_packets.is_some() => {
                    return Err(format!("{name}: give queue_packets or queue, not both"));
                }
                Some(q) => check_queue(&name, &q)?,
            }
            if l.slot_bytes == Some(0) {
                return Err(format!("{name}.slot_bytes must be > 0"));
            }
            if let ChannelConfig::FlowDrops { drops } = &l.channel {
                if let Some(d) = drops.iter().find(|d| d.flow as usize >= self.flows.len()) {
                    return Err(format!(
                        "{name}: flow_drops names flow {}, but there are {} flows",
                        d.flow,
                        self.flows.len()
                    ));
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            check_tcp(&format!("flows[{i}]"), f.variant, &f.tcp)?;
            if !(f.start_s.is_finite() && f.start_s >= 0.0) {
                return Err(format!("flows[{i}].start_s = {} must be >= 0", f.start_s));
            }
        }
        for (i, t) in self.traffic.iter().enumerate() {
            check_traffic(&format!("traffic[{i}]"), t)?;
        }
        if let Some(q) = &self.trace.queue {
            if q.link >= self.links.len() {
                return Err(format!(
                    "trace.queue.link = {} names no link (there are {})",
                    q.link,
                    self.links.len()
                ));
            }
            if !(q.from_s.is_finite() && q.to_s.is_finite() && q.from_s <= q.to_s) {
                return Err(format!(
                    "trace.queue: from_s = {} and to_s = {} must be finite with from_s <= to_s",
                    q.from_s, q.to_s
                ));
            }
        }
        Ok(())
    }
}

fn check_tcp(name: &str, variant: Variant, t: &TcpConfig) -> Result<(), String> {
    let finite_pos = |what: &str, x: f64| {
        if x.is_finite() && x > 0.0 {
            Ok(())
        } else {
            Err(format!("{name}.{what} = {x} must be finite and > 0"))
        }
    };
    if t.packet_size_bytes == 0 || t.max_window == 0 || t.initial_window == 0 {
        return Err(format!(
            "{name}: packet size, window and initial window must be > 0"
        ));
    }
    if t.dupack_threshold == 0 || t.max_backoff == 0 {
        return Err(format!(
            "{name}: dupack threshold and max backoff must be >= 1"
        ));
    }
    finite_pos("max_rto_s", t.max_rto_s)?;
    finite_pos("initial_rto_s", t.initial_rto_s)?;
    if let Some(x) = t.fixed_rto_s {
        finite_pos("fixed_rto_s", x)?;
    }
    if let Some(x) = t.tick_phase {
        if !(0.0..1.0).contains(&x) {
            return Err(format!("{name}: tick_phase = {x} must be in [0, 1)"));
        }
    }
    crate::tcp::variant::check_params(&format!("{name}.tcp"), variant, &t.params)?;
    crate::tcp::options::check(&format!("{name}.tcp"), variant, t)?;
    Ok(())
}

fn check_queue(name: &str, q: &QueueConfig) -> Result<(), String> {
    match q {
        QueueConfig::DropTail { packets, bytes } => {
            if packets.is_none() && bytes.is_none() {
                return Err(format!(
                    "{name}.queue: a DropTail queue needs packets and/or bytes"
                ));
            }
        }
        QueueConfig::Red(r) => {
            let bad = |what: &str, x: f64, range: &str| {
                Err(format!("{name}.queue.{what} = {x} must be {range}"))
            };
            if !(r.max_p > 0.0 && r.max_p <= 1.0) {
                return bad("max_p", r.max_p, "in (0, 1]");
            }
            if let Some(w) = r.w_q {
                if !(w > 0.0 && w <= 1.0) {
                    return bad("w_q", w, "in (0, 1]");
                }
            }
            for (what, x) in [("min_th", r.min_th), ("max_th", r.max_th)] {
                if let Some(x) = x {
                    if !(x.is_finite() && x > 0.0) {
                        return bad(what, x, "finite and > 0 (or null: automatic)");
                    }
                }
            }
            if let (Some(lo), Some(hi)) = (r.min_th, r.max_th) {
                if lo >= hi {
                    return bad("max_th", hi, &format!("> min_th = {lo}"));
                }
            }
            if r.mean_packet_size_bytes == 0 {
                return Err(format!("{name}.queue.mean_packet_size_bytes must be > 0"));
            }
            if !(r.target_delay_s.is_finite() && r.target_delay_s >= 0.0) {
                return bad("target_delay_s", r.target_delay_s, ">= 0");
            }
            if let Some(s) = r.ns2_seed {
                // rng.cc refuses a seed <= 0 or >= MAXINT (2^31 - 1)
                if s == 0 || s >= 0x7fff_ffff {
                    return bad("ns2_seed", f64::from(s), "in [1, 2147483646]");
                }
            }
        }
    }
    Ok(())
}

fn check_traffic(name: &str, t: &TrafficConfig) -> Result<(), String> {
    let pos = |what: &str, x: f64| {
        if x.is_finite() && x > 0.0 {
            Ok(())
        } else {
            Err(format!("{name}.{what} = {x} must be finite and > 0"))
        }
    };
    let start = t.start_s();
    if !(start.is_finite() && start >= 0.0) {
        return Err(format!("{name}.start_s = {start} must be >= 0"));
    }
    if let Some(stop) = t.stop_s() {
        if !(stop.is_finite() && stop >= start) {
            return Err(format!(
                "{name}.stop_s = {stop} must be >= start_s = {start}"
            ));
        }
    }
    if t.packet_size_bytes() == 0 {
        return Err(format!("{name}: packet_size_bytes must be > 0"));
    }
    match t {
        TrafficConfig::Cbr { rate_bps, .. } => pos("rate_bps", *rate_bps)?,
        TrafficConfig::Onoff {
            rate_bps,
            on_s,
            off_s,
            ..
        } => {
            pos("rate_bps", *rate_bps)?;
            pos("on_s", *on_s)?;
            if !(off_s.is_finite() && *off_s >= 0.0) {
                return Err(format!("{name}.off_s = {off_s} must be >= 0"));
            }
        }
        TrafficConfig::Transfers {
            arrival_rate_per_s,
            size,
            max_concurrent,
            tcp,
            variant,
            ..
        } => {
            pos("arrival_rate_per_s", *arrival_rate_per_s)?;
            if *max_concurrent == 0 {
                return Err(format!("{name}.max_concurrent must be >= 1"));
            }
            match size {
                SizeConfig::Fixed { bytes } => {
                    if *bytes == 0 {
                        return Err(format!("{name}.size.bytes must be > 0"));
                    }
                }
                SizeConfig::Exp { mean_bytes } => pos("size.mean_bytes", *mean_bytes)?,
                SizeConfig::Pareto { mean_bytes, shape } => {
                    pos("size.mean_bytes", *mean_bytes)?;
                    if !(shape.is_finite() && *shape > 1.0) {
                        return Err(format!(
                            "{name}.size.shape = {shape} must be > 1 (a finite mean)"
                        ));
                    }
                }
            }
            check_tcp(name, *variant, tcp)?;
        }
    }
    Ok(())
}
