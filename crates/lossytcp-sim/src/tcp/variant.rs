//! Named variants as presets: a growth plugin and a recovery plugin, with the parameters of the
//! chosen profile (RFC, or ns-2 2.35's agents), resolved once from the scenario's flat
//! `TcpConfig`.

use super::cc::{
    GrowthConfig, Halving, RenoParams, VegasGrowthParams, WestwoodEstimator, WestwoodParams,
};
use super::config::{Compat, DelayGrowth, FineClockMode, SenderConfig};
use super::loss_class::{ClassifierConfig, VegasPredictorParams};
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
        _ => 0.555_880_715_982_799_6,
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
    let growth = match variant {
        Variant::Vegas => GrowthConfig::Vegas(VegasGrowthParams {
            thresholds: t.vegas,
            halving,
        }),
        Variant::WestwoodNr => GrowthConfig::Westwood(WestwoodParams {
            estimator: WestwoodEstimator::PerAck {
                tau_s: t.westwood.tau_s,
                m: t.westwood.m,
            },
            ..WestwoodParams::default()
        }),
        Variant::WestwoodPlus => GrowthConfig::Westwood(WestwoodParams {
            slow_start: t.westwood.slow_start,
            ..WestwoodParams::plus()
        }),
        _ => GrowthConfig::Reno(RenoParams { halving }),
    };
    let exit_growth = t.recovery_exit_growth_on();
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
                    deflation: t.partial_window_deflation_on(),
                }
            } else {
                PartialAckWindow::Rfc6582
            },
            exit_growth,
            timer_every_partial_ack: t.timer_every_partial_ack_on(),
            max_burst: ns2.then_some(2),
            ns2_partial_ack_timing: ns2,
            ns2_timeout: ns2,
        }),
        Variant::Sack if ns2 => RecoveryConfig::Sack1,
        Variant::Sack => RecoveryConfig::Sack,
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
        },
        rule: t
            .fixed_rto_s
            .map_or(RtoRule::Estimated, |x| RtoRule::Fixed(Dur::from_secs(x))),
    };
    let delay_growth = match (t.delay_growth_on(), vegas) {
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
            limited_transmit: t.limited_transmit_on() && !vegas,
            ns2_rtt_timing: true,
            hold_ssthresh_on_repeated_timeout: false,
            // tcp-vegas.cc has its own duplicate-ACK rules, without dupack_action()'s guard.
            first_segment_waits_for_timer: !vegas,
        }
    } else {
        Compat {
            delay_growth,
            limited_transmit: t.limited_transmit_on() && !vegas,
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
        max_window: t.max_window,
        initial_window: t.initial_window,
        dupthresh: t.dupack_threshold,
        fine_clock: vegas.then_some(if ns2 {
            FineClockMode::Ns2
        } else {
            FineClockMode::Exact
        }),
        classifier: match variant {
            Variant::NewRenoLp => Some(ClassifierConfig::VegasPredictor(VegasPredictorParams {
                alpha: t.lp.alpha,
                beta: t.lp.beta,
            })),
            Variant::IdealLp => Some(ClassifierConfig::Oracle),
            _ => None,
        },
    }
}
