//! Named variants as presets: a growth plugin and a recovery plugin, with the parameters of the
//! chosen profile (RFC, or ns-2 2.35's agents), resolved once from the scenario's flat
//! `TcpConfig`.

use super::cc::{
    Bbr3Params, BbrParams, CubicParams, GrowthConfig, Halving, RenoParams, RenoRules,
    RenoRulesParams, VegasGrowthParams, VegasParams, WestwoodEstimator, WestwoodFilterParams,
    WestwoodParams, WestwoodPlusParams,
};
use super::config::{Compat, DelayGrowth, FineClockMode, SenderConfig};
use super::loss_class::{ClassifierConfig, VegasPredictorParams};
use super::options::{
    DELAY_GROWTH, DSACK, EIFEL_UNDO, FRTO, HANDSHAKE_RTT, LIMITED_TRANSMIT, PARTIAL_UNDO,
    PARTIAL_WINDOW_DEFLATION, PRR, RACK, RACK_REO_WND, RECOVERY_EXIT_GROWTH, REORDERING,
    TIMER_EVERY_PARTIAL_ACK, TLP,
};
use super::params::{Kind, Param, Values};
use super::recovery::{
    NewRenoParams, PartialAckWindow, RecoveryConfig, RenoRecoveryParams, VegasRecoveryParams,
};
use super::rtt::{EstimatorKind, RtoRule, RttConfig};
use crate::config::{Profile, RtoEstimator, RttSampling, TcpConfig, Variant};
use crate::time::Dur;

/// The phase of ns-2 2.35's RTT tick clock, `boot_time_ / tcpTick_`, for a single agent in
/// the scripts `lossytcp.ns2` writes. TcpAgent::reset() draws `boot_time_ =
/// Random::uniform(tcpTick_)` from ns-2's default generator, which those scripts leave at
/// its fixed seed, and the reset every agent gets when the run starts makes the last draw:
/// the phase is the same in every run, whatever the seed. Vegas's delay_bind_init_all()
/// calls reset() once more, so its agent takes a later draw. Both read from the Debian
/// binary with gdb (the first argument of fmod() in the first rtt_update(): sendtime 0 plus
/// boot_time_): 0.0055588071598279961 s and 0.00014204660652803589 s at a 10 ms tick.
pub fn ns2_tick_phase(v: Variant) -> f64 {
    match v {
        Variant::Vegas => 0.014_204_660_652_803_59,
        Variant::OldTahoe
        | Variant::Tahoe
        | Variant::Reno
        | Variant::NewReno
        | Variant::Sack
        | Variant::NewRenoLp
        | Variant::IdealLp
        | Variant::WestwoodNr
        | Variant::WestwoodPlus
        | Variant::Cubic
        | Variant::Bbr
        | Variant::Bbr3 => 0.555_880_715_982_799_6,
    }
}

/// The sender configuration of `variant` with the knobs of `t`.
pub fn preset(variant: Variant, t: &TcpConfig) -> SenderConfig {
    let ns2 = t.profile == Profile::Ns2;
    let vegas = variant == Variant::Vegas;
    let halving = if ns2 {
        Halving::Ns2Slowdown
    } else {
        Halving::Rfc5681
    };
    let values = &t.params;
    let growth = match variant {
        Variant::Vegas => GrowthConfig::Vegas(VegasGrowthParams {
            thresholds: VegasParams::from_values(values),
            halving,
        }),
        Variant::WestwoodNr => {
            let f = WestwoodFilterParams::from_values(values);
            GrowthConfig::Westwood(WestwoodParams {
                estimator: WestwoodEstimator::PerAck {
                    tau_s: f.tau_s,
                    m: f.m,
                },
                ..WestwoodParams::default()
            })
        }
        Variant::WestwoodPlus => GrowthConfig::Westwood(WestwoodParams {
            slow_start: WestwoodPlusParams::from_values(values).slow_start,
            ..WestwoodParams::plus()
        }),
        Variant::Cubic => GrowthConfig::Cubic(CubicParams::from_values(values)),
        Variant::Bbr => GrowthConfig::Bbr(BbrParams::from_values(values)),
        Variant::Bbr3 => GrowthConfig::Bbr3(Bbr3Params::from_values(values)),
        Variant::Reno | Variant::NewReno | Variant::Sack
            if RenoRulesParams::from_values(values).rules == RenoRules::Linux =>
        {
            GrowthConfig::RenoLinux
        }
        Variant::OldTahoe
        | Variant::Tahoe
        | Variant::Reno
        | Variant::NewReno
        | Variant::Sack
        | Variant::NewRenoLp
        | Variant::IdealLp => GrowthConfig::Reno(RenoParams { halving }),
    };
    let exit_growth = RECOVERY_EXIT_GROWTH.on(t);
    let recovery = match variant {
        Variant::OldTahoe => RecoveryConfig::RtoOnly,
        Variant::Tahoe => RecoveryConfig::Tahoe,
        Variant::Reno => RecoveryConfig::Reno(RenoRecoveryParams {
            exit_growth,
            ns2_timeout: ns2,
        }),
        Variant::NewReno
        | Variant::NewRenoLp
        | Variant::IdealLp
        | Variant::WestwoodNr
        | Variant::WestwoodPlus => RecoveryConfig::NewReno(NewRenoParams {
            window: if ns2 {
                PartialAckWindow::Ns2 {
                    deflation: PARTIAL_WINDOW_DEFLATION.on(t),
                }
            } else {
                PartialAckWindow::Rfc6582
            },
            exit_growth,
            timer_every_partial_ack: TIMER_EVERY_PARTIAL_ACK.on(t),
            max_burst: ns2.then_some(2),
            ns2_partial_ack_timing: ns2,
            ns2_timeout: ns2,
        }),
        Variant::Sack if ns2 => RecoveryConfig::Sack1,
        Variant::Sack => RecoveryConfig::Sack {
            prr: PRR.on(t),
            rack: RACK.on(t),
        },
        // Linux pairs CUBIC and BBR with SACK recovery that also finds lost retransmissions,
        // whatever the profile of the timers.
        Variant::Cubic => RecoveryConfig::SackLinux {
            prr: PRR.on(t),
            rack: RACK.on(t),
        },
        // tcp_cong_control(): a congestion control with its own cong_control (BBR) runs no
        // tcp_cwnd_reduction().
        Variant::Bbr | Variant::Bbr3 => RecoveryConfig::SackLinux {
            prr: false,
            rack: RACK.on(t),
        },
        // Brakmo & Peterson's Vegas changes both axes: the window rule and retransmission.
        Variant::Vegas => RecoveryConfig::Vegas(VegasRecoveryParams {
            zero_window_deflation: ns2,
            rto_backoff_at_fast_retransmit: ns2,
        }),
    };
    let rtt = RttConfig {
        min_rto: Dur::from_secs(t.min_rto_s),
        max_rto: Dur::from_secs(t.max_rto_s),
        initial_rto: Dur::from_secs(t.initial_rto_s),
        granularity: Dur::from_secs(t.granularity_s),
        max_backoff: t.max_backoff,
        estimator: match (ns2, t.rto_estimator) {
            (true, _) => EstimatorKind::Ns2Ticks {
                tick_phase: t.tick_phase.unwrap_or_else(|| ns2_tick_phase(variant)),
            },
            (false, RtoEstimator::Rfc6298) => EstimatorKind::Rfc6298,
            (false, RtoEstimator::LastSample) => EstimatorKind::LastSample,
            (false, RtoEstimator::Linux) => EstimatorKind::Linux,
        },
        rule: t
            .fixed_rto_s
            .map_or(RtoRule::Estimated, |x| RtoRule::Fixed(Dur::from_secs(x))),
    };
    let delay_growth = match (DELAY_GROWTH.on(t), vegas) {
        (false, _) => DelayGrowth::Off,
        (true, false) => DelayGrowth::AfterFirstAck,
        (true, true) => DelayGrowth::BeforeSecondAck,
    };
    let compat = if ns2 {
        Compat {
            ssthresh_starts_at_window: true,
            zero_window: true,
            timer_when_idle: true,
            sack_block_bytes: 8,
            delay_growth,
            // Vegas has its own rule for the first duplicate ACKs (ns-2's Vegas never calls
            // send_one()); the Python front refuses limited_transmit=True for it.
            limited_transmit: LIMITED_TRANSMIT.on(t) && !vegas,
            ns2_rtt_timing: true,
            hold_ssthresh_on_repeated_timeout: false,
            // tcp-vegas.cc has its own duplicate-ACK rules, without dupack_action()'s guard.
            first_segment_waits_for_timer: !vegas,
        }
    } else {
        Compat {
            delay_growth,
            limited_transmit: LIMITED_TRANSMIT.on(t) && !vegas,
            ..Compat::default()
        }
    };
    SenderConfig {
        growth,
        recovery,
        rtt,
        // ns-2's agents time one segment per window.
        sampling: if ns2 {
            RttSampling::PerWindow
        } else {
            t.rtt_sampling
        },
        compat,
        timestamps: t.rto_estimator == RtoEstimator::LastSample,
        eifel: EIFEL_UNDO.on(t),
        frto: FRTO.on(t),
        dsack: DSACK.on(t),
        tlp: TLP.on(t),
        rack: RACK.on(t),
        reordering: super::rack::Reordering {
            degree: REORDERING.on(t),
            dsack_window: RACK_REO_WND.on(t),
        },
        partial_undo: PARTIAL_UNDO.on(t),
        handshake_rtt: HANDSHAKE_RTT.on(t),
        max_window: t.max_window,
        initial_window: t.initial_window,
        dupthresh: t.dupack_threshold,
        segment_bytes: t.packet_size_bytes,
        seed: 0,
        fine_clock: vegas.then_some(if ns2 {
            FineClockMode::Ns2
        } else {
            FineClockMode::Exact
        }),
        classifier: match variant {
            Variant::NewRenoLp => Some(ClassifierConfig::VegasPredictor(
                VegasPredictorParams::from_values(values),
            )),
            Variant::IdealLp => Some(ClassifierConfig::Oracle),
            Variant::OldTahoe
            | Variant::Tahoe
            | Variant::Reno
            | Variant::NewReno
            | Variant::Sack
            | Variant::Vegas
            | Variant::WestwoodNr
            | Variant::WestwoodPlus
            | Variant::Cubic
            | Variant::Bbr
            | Variant::Bbr3 => None,
        },
    }
}

/// The ns-2 2.35 agents a variant maps to (`lossytcp.ns2`).
#[derive(Clone, Copy, Debug)]
pub struct Ns2Agent {
    pub sender: &'static str,
    pub receiver: &'static str,
    /// Agent variables the mapping sets besides the scenario's.
    pub settings: &'static [(&'static str, &'static str)],
}

/// The ns-3 3.37 socket a variant maps to (`lossytcp crosscheck ns3`).
#[derive(Clone, Copy, Debug)]
pub struct Ns3Socket {
    /// `TcpL4Protocol::SocketType`.
    pub congestion_ops: &'static str,
    /// `TcpL4Protocol::RecoveryType`.
    pub recovery: &'static str,
    /// `TcpSocketBase::Sack`.
    pub sack: bool,
}

/// The Linux congestion control (and SACK setting) a variant stands for, for the emulation
/// that runs the kernel's own over the same channels.
#[derive(Clone, Copy, Debug)]
pub struct LinuxSocket {
    pub congestion_control: &'static str,
    pub sack: bool,
}

/// A named variant as the rest of the project knows it: the one registry every list of
/// variants, every per-variant parameter and every counterpart in another tool comes from.
#[derive(Clone, Copy, Debug)]
pub struct VariantInfo {
    pub variant: Variant,
    /// The name users write (`newreno-lp`); the scenario JSON's is serde's (`new_reno_lp`).
    pub name: &'static str,
    /// One line: what it is.
    pub summary: &'static str,
    /// The parameters its plugins declare.
    pub params: &'static [&'static [Param]],
    pub ns2: Option<Ns2Agent>,
    pub ns3: Option<Ns3Socket>,
    pub linux: Option<LinuxSocket>,
    /// It classifies each loss (paper 003) and reports the verdicts' accuracy.
    pub classifies_losses: bool,
    /// Why it refuses RFC 3042 limited transmit, if it does.
    pub refuses_limited_transmit: Option<&'static str>,
}

const fn plain(
    variant: Variant,
    name: &'static str,
    summary: &'static str,
    ns2: Option<Ns2Agent>,
) -> VariantInfo {
    VariantInfo {
        variant,
        name,
        summary,
        params: &[],
        ns2,
        ns3: None,
        linux: None,
        classifies_losses: false,
        refuses_limited_transmit: None,
    }
}

const fn ns2(sender: &'static str, receiver: &'static str) -> Option<Ns2Agent> {
    Some(Ns2Agent {
        sender,
        receiver,
        settings: &[],
    })
}

const NS2_SINK: &str = "Agent/TCPSink";

/// Every named variant, in the order users see them.
pub static VARIANTS: &[VariantInfo] = &[
    plain(
        Variant::OldTahoe,
        "oldtahoe",
        "Reno's window growth, losses found by the retransmission timer only",
        Some(Ns2Agent {
            sender: "Agent/TCP",
            receiver: NS2_SINK,
            settings: &[("noFastRetrans_", "true")],
        }),
    ),
    plain(
        Variant::Tahoe,
        "tahoe",
        "fast retransmit, then slow start from one segment",
        ns2("Agent/TCP", NS2_SINK),
    ),
    VariantInfo {
        params: &[RenoRulesParams::PARAMS],
        ..plain(
            Variant::Reno,
            "reno",
            "RFC 5681: fast retransmit and fast recovery",
            ns2("Agent/TCP/Reno", NS2_SINK),
        )
    },
    VariantInfo {
        ns3: Some(Ns3Socket {
            congestion_ops: "ns3::TcpNewReno",
            recovery: "ns3::TcpClassicRecovery",
            sack: false,
        }),
        linux: Some(LinuxSocket {
            congestion_control: "reno",
            sack: false,
        }),
        params: &[RenoRulesParams::PARAMS],
        ..plain(
            Variant::NewReno,
            "newreno",
            "RFC 6582: fast recovery that stays through partial ACKs",
            ns2("Agent/TCP/Newreno", NS2_SINK),
        )
    },
    VariantInfo {
        ns3: Some(Ns3Socket {
            congestion_ops: "ns3::TcpNewReno",
            recovery: "ns3::TcpClassicRecovery",
            sack: true,
        }),
        linux: Some(LinuxSocket {
            congestion_control: "reno",
            sack: true,
        }),
        params: &[RenoRulesParams::PARAMS],
        ..plain(
            Variant::Sack,
            "sack",
            "RFC 6675: SACK-based loss recovery with a SACK receiver",
            ns2("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
        )
    },
    VariantInfo {
        params: &[VegasParams::PARAMS],
        refuses_limited_transmit: Some(
            "Vegas has its own rule for the first duplicate ACKs (nothing new is sent until \
             the DupThresh-th, as in ns-2's Agent/TCP/Vegas); leave it None or False",
        ),
        ..plain(
            Variant::Vegas,
            "vegas",
            "Brakmo & Peterson 1995 as ns-2's Agent/TCP/Vegas: window from expected vs \
             actual rate, fine-grained retransmission",
            ns2("Agent/TCP/Vegas", NS2_SINK),
        )
    },
    VariantInfo {
        params: &[VegasPredictorParams::PARAMS],
        classifies_losses: true,
        ..plain(
            Variant::NewRenoLp,
            "newreno-lp",
            "paper 003: NewReno whose reaction to each loss follows the Vegas loss predictor",
            None,
        )
    },
    VariantInfo {
        classifies_losses: true,
        ..plain(
            Variant::IdealLp,
            "ideal-lp",
            "paper 003: NewReno told the true cause of each loss (the bound of any predictor)",
            None,
        )
    },
    VariantInfo {
        params: &[WestwoodFilterParams::PARAMS],
        ..plain(
            Variant::WestwoodNr,
            "westwood-nr",
            "Westwood (Mascolo et al. 2001) with NewReno's recovery: ssthresh = BWE x RTT_min",
            None,
        )
    },
    VariantInfo {
        params: &[WestwoodPlusParams::PARAMS],
        linux: Some(LinuxSocket {
            congestion_control: "westwood",
            sack: false,
        }),
        ..plain(
            Variant::WestwoodPlus,
            "westwood-plus",
            "Linux's Westwood+ with NewReno's recovery: per-RTT bandwidth estimate",
            None,
        )
    },
    VariantInfo {
        params: &[CubicParams::PARAMS],
        ns3: Some(Ns3Socket {
            congestion_ops: "ns3::TcpCubic",
            recovery: "ns3::TcpClassicRecovery",
            sack: true,
        }),
        linux: Some(LinuxSocket {
            congestion_control: "cubic",
            sack: true,
        }),
        ..plain(
            Variant::Cubic,
            "cubic",
            "RFC 9438 CUBIC (or Linux's tcp_cubic.c rules) with SACK recovery, HyStart++",
            None,
        )
    },
    VariantInfo {
        params: &[BbrParams::PARAMS],
        ns3: Some(Ns3Socket {
            congestion_ops: "ns3::TcpBbr",
            recovery: "ns3::TcpClassicRecovery",
            sack: true,
        }),
        linux: Some(LinuxSocket {
            congestion_control: "bbr",
            sack: true,
        }),
        ..plain(
            Variant::Bbr,
            "bbr",
            "BBR v1 (Cardwell et al. 2016) as Linux's tcp_bbr.c: paced at the bottleneck \
             bandwidth model, SACK recovery",
            None,
        )
    },
    // No counterpart anywhere: ns-2 2.35 has no BBR, ns-3 3.37 only v1 (TcpBbr), and the
    // kernels it is checked against load v1 as `bbr` (v3 lives in Google's tree).
    VariantInfo {
        params: &[Bbr3Params::PARAMS],
        ..plain(
            Variant::Bbr3,
            "bbr3",
            "BBRv3 as Google's Linux tcp_bbr.c v3: BBR's model bounded by loss (2% threshold, \
             inflight_hi/lo, bw_lo), ProbeBW DOWN/CRUISE/REFILL/UP, SACK recovery",
            None,
        )
    },
];

impl Variant {
    /// The variant's entry in [`VARIANTS`].
    pub fn info(self) -> &'static VariantInfo {
        let i = match self {
            Variant::OldTahoe => 0,
            Variant::Tahoe => 1,
            Variant::Reno => 2,
            Variant::NewReno => 3,
            Variant::Sack => 4,
            Variant::Vegas => 5,
            Variant::NewRenoLp => 6,
            Variant::IdealLp => 7,
            Variant::WestwoodNr => 8,
            Variant::WestwoodPlus => 9,
            Variant::Cubic => 10,
            Variant::Bbr => 11,
            Variant::Bbr3 => 12,
        };
        &VARIANTS[i]
    }

    /// Every parameter its plugins declare.
    pub fn params(self) -> impl Iterator<Item = &'static Param> {
        self.info().params.iter().flat_map(|g| g.iter())
    }

    /// Its recovery reads SACK blocks, in either profile (so its receiver sends them, and the
    /// Tcp options built on them, `dsack`, apply); `preset()`'s recovery, checked by a test.
    pub fn reads_sack_blocks(self) -> bool {
        match self {
            Variant::Sack | Variant::Cubic | Variant::Bbr | Variant::Bbr3 => true,
            Variant::OldTahoe
            | Variant::Tahoe
            | Variant::Reno
            | Variant::NewReno
            | Variant::Vegas
            | Variant::NewRenoLp
            | Variant::IdealLp
            | Variant::WestwoodNr
            | Variant::WestwoodPlus => false,
        }
    }
}

/// Checks a scenario's parameter values for `variant` against its plugins' declarations.
pub fn check_params(owner: &str, variant: Variant, values: &Values) -> Result<(), String> {
    let specs: Vec<&Param> = variant.params().collect();
    super::params::check(owner, variant.info().name, values, &specs)
}

fn param_json(p: &Param, variants: Vec<&'static str>) -> serde_json::Value {
    use serde_json::json;
    let (kind, range) = match p.kind {
        Kind::Bool => ("bool", json!({})),
        Kind::Int { min, max } => ("int", json!({"min": min, "max": max})),
        Kind::Float {
            min,
            max,
            min_open,
            max_open,
        } => (
            "float",
            json!({"min": min, "max": max, "min_open": min_open, "max_open": max_open}),
        ),
        Kind::Choice(c) => ("choice", json!({ "choices": c })),
    };
    let mut out = json!({
        "name": p.name, "unit": p.unit, "type": kind, "default": p.default.value(),
        "doc": p.doc, "at_most": p.at_most, "ns2": p.ns2, "ns3": p.ns3, "variants": variants,
    });
    if let (Some(o), Some(r)) = (out.as_object_mut(), range.as_object()) {
        o.extend(r.clone());
    }
    out
}

/// The registry as JSON, for the Python front (`lossytcp.variants`): every variant with its
/// names, summary, parameters and counterparts, and every parameter's declaration with the
/// variants that take it.
pub fn registry_json() -> String {
    use serde_json::json;
    let variants: Vec<_> = VARIANTS
        .iter()
        .map(|v| {
            json!({
                "name": v.name,
                "engine": serde_json::to_value(v.variant).expect("a unit variant"),
                "summary": v.summary,
                "params": v.variant.params().map(|p| p.name).collect::<Vec<_>>(),
                "ns2": v.ns2.map(|a| json!({
                    "sender": a.sender, "receiver": a.receiver,
                    "settings": a.settings.iter().copied()
                        .collect::<std::collections::BTreeMap<_, _>>(),
                })),
                "ns3": v.ns3.map(|s| json!({
                    "congestion_ops": s.congestion_ops, "recovery": s.recovery, "sack": s.sack,
                })),
                "linux": v.linux.map(|l| json!({
                    "congestion_control": l.congestion_control, "sack": l.sack,
                })),
                "classifies_losses": v.classifies_losses,
                "refuses_limited_transmit": v.refuses_limited_transmit,
                "sack_blocks": v.variant.reads_sack_blocks(),
            })
        })
        .collect();
    let mut params: Vec<(&'static Param, Vec<&'static str>)> = Vec::new();
    for v in VARIANTS {
        for p in v.variant.params() {
            match params.iter_mut().find(|(q, _)| q.name == p.name) {
                Some((_, owners)) => owners.push(v.name),
                None => params.push((p, vec![v.name])),
            }
        }
    }
    let params: Vec<_> = params.into_iter().map(|(p, o)| param_json(p, o)).collect();
    json!({
        "variants": variants, "params": params, "options": super::options::options_json(),
    })
    .to_string()
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn the_sack_flag_is_what_the_recovery_plugin_reads() {
        use crate::config::{Profile, TcpConfig};
        use crate::tcp::recovery::{Recovery, RecoveryImpl};
        for profile in [Profile::Rfc, Profile::Ns2] {
            let t: TcpConfig = serde_json::from_value(serde_json::json!({
                "packet_size_bytes": 1000, "ack_size_bytes": 40, "max_window": 20,
                "initial_window": 1, "dupack_threshold": 3, "min_rto_s": 1.0,
                "max_rto_s": 60.0, "initial_rto_s": 3.0, "granularity_s": 0.0,
                "fixed_rto_s": null, "max_backoff": 64, "profile": profile,
            }))
            .expect("a TCP configuration");
            for v in VARIANTS {
                let recovery = RecoveryImpl::new(&preset(v.variant, &t).recovery);
                assert_eq!(
                    v.variant.reads_sack_blocks(),
                    recovery.wants_sack(),
                    "{} in the {profile:?} profile",
                    v.name
                );
            }
        }
    }

    #[test]
    fn every_variant_has_its_own_entry() {
        for (i, v) in VARIANTS.iter().enumerate() {
            assert!(
                std::ptr::eq(v.variant.info(), &VARIANTS[i]),
                "{} is entry {i}",
                v.name
            );
        }
    }

    #[test]
    fn parameter_names_are_unique_and_their_defaults_valid() {
        let mut seen = std::collections::BTreeMap::new();
        for v in VARIANTS {
            for p in v.variant.params() {
                if let Some(q) = seen.insert(p.name, *p) {
                    assert_eq!(q, *p, "{} declared twice differently", p.name);
                }
                assert!(
                    p.admit(&p.default.value()).is_some(),
                    "{}'s default",
                    p.name
                );
                assert!(!p.doc.is_empty(), "{} has no doc", p.name);
                assert!(check_params("t", v.variant, &Values::new()).is_ok());
            }
        }
    }

    #[test]
    fn the_export_names_variants_and_parameters() {
        let r: serde_json::Value = serde_json::from_str(&registry_json()).unwrap();
        let vegas = &r["variants"][5];
        assert_eq!(vegas["name"], "vegas");
        assert_eq!(vegas["engine"], "vegas");
        assert_eq!(vegas["params"][0], "vegas_alpha");
        assert_eq!(r["variants"][6]["engine"], "new_reno_lp");
        let alpha = r["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "vegas_alpha")
            .unwrap();
        assert_eq!(alpha["ns2"], "v_alpha_");
        assert_eq!(alpha["at_most"], "vegas_beta");
        assert_eq!(alpha["min"], 0);
        assert_eq!(alpha["variants"][0], "vegas");
    }
}
