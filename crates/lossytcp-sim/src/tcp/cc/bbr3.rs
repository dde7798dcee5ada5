//! BBRv3 as Google's Linux `net/ipv4/tcp_bbr.c` (github.com/google/bbr, branch v3,
//! `BBR_VERSION 3`) and draft-ietf-ccwg-bbr define it: BBR v1's model (BtlBw and RTprop,
//! pacing at gain x bandwidth, a window of gain x BDP) bounded by what losses say of the path.
//!
//! * **Bounds.** `bw_hi` (the max of the delivery-rate samples over the last one or two
//!   ProbeBW cycles) and `inflight_hi` (the flight at which probing last met more than
//!   `loss_thresh` = 2% loss) are long-term upper bounds; `bw_lo` and `inflight_lo`
//!   short-term lower bounds, cut to beta = 0.7 of themselves (never below what the last round
//!   delivered) at the end of each round with a loss while the flow is not probing, and
//!   forgotten when it probes again (REFILL) or leaves ProbeRTT. The bandwidth in use is
//!   min(bw_hi, bw_lo); the window is capped by inflight_hi (less 15% headroom while
//!   cruising) and inflight_lo.
//! * **Startup** paces at 2.77 (4 ln 2) and keeps a window of 2 BDP; it ends on three rounds
//!   without 25% more bandwidth, or at the end of a round of fast recovery with at least six
//!   loss marking events and a loss rate above 2% (`inflight_hi` is then the BDP or the
//!   round's delivered volume).
//! * **ProbeBW** is four phases: DOWN (pacing 0.91) until the flight is below both the BDP and
//!   inflight_hi less its headroom; CRUISE (1.0) until it is time to probe, after a random
//!   2-3 s or after min(63, BDP) rounds (Reno coexistence); REFILL (1.0) for one round, the
//!   lower bounds reset; UP (pacing 1.25, window gain 2.25), raising inflight_hi by a slope
//!   that doubles each round, until the loss rate goes above 2% (inflight_hi = the flight at
//!   the loss), the bandwidth plateaus, or the flight reaches an inflight_hi that was too high
//!   last time; then DOWN again.
//! * **ProbeRTT** comes when no RTT sample has matched the 5 s minimum: the window is held at
//!   half the BDP (at least 4) for 200 ms and a round.
//!
//! Not modelled, and why: ECN (the engine's queues do not mark; `bbr_can_use_ecn()` is false
//! on such a path, so every ECN branch of the reference is dead there too) and Protective
//! Load Balancing (ECN-driven); `bbr_skb_marked_lost()`'s per-segment check of the loss rate
//! (the engine reports losses per ACK: the same check runs on each ACK's rate sample, whose
//! `lost` and `tx_in_flight` are the per-segment ones of the segment it delivers, so
//! `inflight_hi` is the flight of the delivered segment rather than of the exact lost prefix
//! `bbr_inflight_hi_from_lost_skb()` solves for); TLP's loss-probe recovery event (the
//! engine has no tail loss probe); the app-limited fast path (a CPU shortcut); the
//! `is_ack_delayed` filter of RTT samples (the engine's receiver does not flag them).
//! `is_cwnd_limited` is the flight before the ACK filling the window.
//!
//! Arithmetic as in [`super::bbr`]: rates in segments per second, gains as Linux's in 1/256
//! (startup 710/256, drain 88/256, down 232/256, the 2% threshold 5/256, beta 180/256,
//! headroom 38/256), integer windows.
//!
//! Pacing as BBR v1's, with the same `bbr_pacing_burst` (one parameter of both plugins):
//! by default Linux's TSO bursts, whose size v3 gives the kernel itself through its
//! `tso_segs` hook (`bbr_tso_segs()`, in place of `tcp_tso_autosize()`): the window's
//! `bbr_tso_segs_goal()` with the device's `gso_max_size` (64 KB, a TUN device's too), so one
//! burst is [`Bbr3::tso_goal`] segments; `segment` paces one segment at a time.

use super::bbr::Mode;
use super::bbr_shared::{
    ceil_u64, init_pacing_rate, kept_window, packets_in_net_at_edt, saved_cwnd, set_pacing_rate,
    AckAggregation, HoldStep, PacingBurst, ProbeRttHold, INIT_CWND, PACING_BURST,
};
use super::{CaEvent, Growth};
use crate::rng::{Rng, Stream};
use crate::tcp::params::Param;
use crate::tcp::view::{Conn, SenderView, Window};
use crate::tcp::{AckCtx, CaState, CongestionKind, Cut};
use crate::time::{Dur, Time};

crate::declare_params! {
    /// BBRv3's parameters (Linux tcp_bbr.c v3's constants, draft-ietf-ccwg-bbr's names).
    pub struct Bbr3Params {
        /// Startup's pacing gain (Linux bbr_startup_pacing_gain: 4 ln 2 = 2.77, as 710/256).
        startup_pacing_gain: f64 = Param::float("bbr3_startup_pacing_gain", "", 710.0 / 256.0, 1.0, 10.0),
        /// Startup's and Drain's window gain (Linux bbr_startup_cwnd_gain: 2).
        startup_cwnd_gain: f64 = Param::float("bbr3_startup_cwnd_gain", "", 2.0, 1.0, 10.0),
        /// ProbeBW's window gain, 0.25 more in UP (Linux bbr_cwnd_gain: 2).
        cwnd_gain: f64 = Param::float("bbr3_cwnd_gain", "", 2.0, 1.0, 10.0),
        /// Loss rate of a round (lost / in flight) above which probing went too far (Linux bbr_loss_thresh: 2%, as 5/256).
        loss_thresh: f64 = Param::float("bbr3_loss_thresh", "", 5.0 / 256.0, 0.0, 1.0).open_min().open_max(),
        /// Share of bw_lo and inflight_lo kept at the end of a round with losses (draft BBRBeta 0.7; Linux 1 - bbr_beta, 180/256).
        beta: f64 = Param::float("bbr3_beta", "", 180.0 / 256.0, 0.0, 1.0).open_min(),
        /// Loss marking events in a round of recovery that, with the loss rate above the threshold, end Startup (Linux bbr_full_loss_cnt: 6; 0: never).
        full_loss_cnt: u32 = Param::int("bbr3_full_loss_cnt", "events", 6, 0, 15),
        /// Share of inflight_hi left unused while cruising (Linux bbr_inflight_headroom: 15%, as 38/256).
        inflight_headroom: f64 = Param::float("bbr3_inflight_headroom", "", 38.0 / 256.0, 0.0, 1.0).open_max(),
        /// Most packet-timed rounds between bandwidth probes (Linux bbr_bw_probe_max_rounds: 63).
        bw_probe_max_rounds: u32 = Param::int("bbr3_bw_probe_max_rounds", "rounds", 63, 1, 255),
        /// Shortest wait between bandwidth probes (Linux bbr_bw_probe_base_us: 2 s).
        probe_wait_base_s: f64 = Param::float("bbr3_probe_wait_base_s", "s", 2.0, 0.0, 1000.0),
        /// Random extra wait between bandwidth probes, uniform below this (Linux bbr_bw_probe_rand_us: 1 s).
        probe_wait_rand_s: f64 = Param::float("bbr3_probe_wait_rand_s", "s", 1.0, 0.0, 1000.0),
        /// Time without a new minimum RTT after which ProbeRTT comes (Linux bbr_probe_rtt_win_ms: 5 s).
        probe_rtt_win_s: f64 = Param::float("bbr3_probe_rtt_win_s", "s", 5.0, 0.001, 1000.0),
        /// Time ProbeRTT holds the window (Linux bbr_probe_rtt_mode_ms: 200 ms; 0: no ProbeRTT).
        probe_rtt_s: f64 = Param::float("bbr3_probe_rtt_s", "s", 0.2, 0.0, 100.0),
        /// ProbeRTT's window as a share of the BDP (Linux bbr_probe_rtt_cwnd_gain: 0.5).
        probe_rtt_cwnd_gain: f64 = Param::float("bbr3_probe_rtt_cwnd_gain", "", 0.5, 0.0, 10.0),
        /// Length of the RTprop min filter (Linux bbr_min_rtt_win_sec: 10 s).
        min_rtt_win_s: f64 = Param::float("bbr3_min_rtt_win_s", "s", 10.0, 0.001, 1000.0),
        /// Linux's ACK-aggregation allowance in the window (extra_acked).
        extra_acked: bool = Param::flag("bbr3_extra_acked", true),
        /// Departures in Linux's TSO bursts (default) or one segment at a time (ns-3's TcpBbr).
        pacing_burst: PacingBurst = PACING_BURST,
    }
}

/// ProbeBW's phases (Linux's `cycle_idx`, `enum bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// What the ACKs arriving now say of the bandwidth probing (`enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// Linux's gains in 1/256.
const UP_GAIN: f64 = 320.0 / 256.0;
const DOWN_GAIN: f64 = 232.0 / 256.0;
const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// bbr_bw_probe_cwnd_gain: UP's window gain is cwnd_gain + 1/4.
const UP_CWND_EXTRA: f64 = 0.25;
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// bbr_cwnd_min_target.
const CWND_MIN: u64 = 4;
const PACING_MARGIN: f64 = 0.01;
/// bbr_bw_probe_rand_rounds: rounds_since_probe starts at 0 or 1.
const PROBE_RAND_ROUNDS: u64 = 2;
/// GSO_LEGACY_MAX_SIZE, MAX_TCP_HEADER, sysctl_tcp_min_tso_segs, bbr_tso_rtt_shift.
const GSO_MAX_BYTES: f64 = 65536.0;
const MAX_TCP_HEADER: f64 = 320.0;
const MIN_TSO_SEGS: u64 = 2;
const TSO_RTT_SHIFT: u32 = 9;
/// Unset bounds (Linux's ~0U).
const NO_BOUND: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Bbr3 {
    p: Bbr3Params,
    rng: Rng,
    initialized: bool,
    pub(crate) mode: Mode,
    pub(crate) phase: Phase,
    ack_phase: AckPhase,
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Dur>,
    probe_rtt_min_stamp: Time,
    probe_rtt_hold: ProbeRttHold,
    next_rtt_delivered: u64,
    round_start: bool,
    rounds_since_probe: u32,
    cycle_mstamp: Time,
    prev_ca_state: CaState,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw_cnt: u32,
    full_bw: f64,
    has_seen_rtt: bool,
    prior_cwnd: f64,
    init_cwnd: u64,
    delivered_mstamp: Time,
    /// The delivery rate of this ACK's sample (`ctx->sample_bw`), 0 without one.
    sample_bw: f64,
    // The model's bounds.
    bw_hi: [f64; 2],
    pub(crate) bw_lo: f64,
    bw_latest: f64,
    pub(crate) inflight_lo: u64,
    pub(crate) inflight_hi: u64,
    inflight_latest: u64,
    // Loss rounds.
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    loss_events_in_round: u32,
    undo_bw_lo: f64,
    undo_inflight_lo: u64,
    undo_inflight_hi: u64,
    // Probing.
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    bw_probe_up_rounds: u32,
    probe_wait: Dur,
    stopped_risky_probe: bool,
    prev_probe_too_high: bool,
    bw_probe_samples: bool,
    aggregation: AckAggregation,
}

impl Bbr3 {
    pub fn new(p: Bbr3Params, seed: u64) -> Self {
        Self {
            p,
            rng: Rng::derive(seed, Stream::Plugin, 0),
            initialized: false,
            mode: Mode::Startup,
            phase: Phase::Up,
            ack_phase: AckPhase::Init,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt_hold: ProbeRttHold::default(),
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            cycle_mstamp: Time::ZERO,
            prev_ca_state: CaState::Open,
            idle_restart: false,
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.startup_cwnd_gain,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw_cnt: 0,
            full_bw: 0.0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            init_cwnd: INIT_CWND,
            delivered_mstamp: Time::ZERO,
            sample_bw: 0.0,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_lo: NO_BOUND,
            inflight_hi: NO_BOUND,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            loss_events_in_round: 0,
            undo_bw_lo: 0.0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_probe_up_cnt: NO_BOUND,
            bw_probe_up_acks: 0,
            bw_probe_up_rounds: 0,
            probe_wait: Dur::ZERO,
            stopped_risky_probe: false,
            prev_probe_too_high: false,
            bw_probe_samples: false,
            aggregation: AckAggregation::default(),
        }
    }

    /// `bbr_max_bw()`: the upper bound, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// `bbr_bw()`: the bandwidth in use, the upper bound capped by the lower one.
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// `bbr_init()`, at the first transmission or ACK.
    fn init(&mut self, w: &mut Window, now: Time) {
        self.initialized = true;
        self.init_cwnd = (w.cwnd() as u64).min(0x7f);
        w.set_ssthresh(f64::INFINITY);
        self.next_rtt_delivered = w.delivered();
        self.min_rtt = w.min_rtt();
        self.probe_rtt_min = w.min_rtt();
        self.min_rtt_stamp = now;
        self.probe_rtt_min_stamp = now;
        self.init_pacing_rate(w);
        self.refresh_burst(w);
        self.aggregation.start(now);
        // Loss rounds start after the first full flight is acknowledged.
        self.loss_round_delivered = w.delivered() + 1;
    }

    /// `bbr_init_pacing_rate_from_rtt()`: startup gain x cwnd / srtt (1 ms before a sample).
    fn init_pacing_rate(&mut self, w: &mut Window) {
        self.has_seen_rtt |= init_pacing_rate(w, self.p.startup_pacing_gain, PACING_MARGIN);
    }

    fn set_pacing_rate(&mut self, w: &mut Window, bw: f64, gain: f64) {
        let rate = bw * gain * (1.0 - PACING_MARGIN);
        let startup = self.p.startup_pacing_gain;
        set_pacing_rate(
            w,
            rate,
            &mut self.has_seen_rtt,
            self.full_bw_reached,
            startup,
            PACING_MARGIN,
        );
    }

    /// `bbr_tso_segs_goal()` of v3: about 1 ms of the pacing rate plus an allowance that
    /// halves for every 512 us of RTprop, at least two segments.
    fn tso_goal(&self, s: &impl SenderView) -> u64 {
        let mss = f64::from(s.segment_bytes());
        let mut bytes = (s.pacing_rate().unwrap_or(0.0) * mss / 1024.0).floor();
        if let Some(m) = self.min_rtt {
            let r = (m.0 / 1000) >> TSO_RTT_SHIFT;
            if r < 32 {
                bytes += GSO_MAX_BYTES / f64::from(1u32 << r);
            }
        }
        let bytes = bytes.min(GSO_MAX_BYTES - 1.0 - MAX_TCP_HEADER);
        ((bytes / mss) as u64).max(MIN_TSO_SEGS)
    }

    /// With Linux's TSO bursts, the sender's burst: `bbr_tso_segs()`, the same as
    /// [`Self::tso_goal`] on a 64 KB GSO device (its inputs, the rate and RTprop, change only
    /// where this is called: at the start, on ACKs and on a restart from idle).
    fn refresh_burst(&self, w: &mut Window) {
        if self.p.pacing_burst == PacingBurst::Tso {
            let segs = self.tso_goal(w).min(u64::from(u32::MAX)) as u32;
            w.set_pacing_burst(Some(segs));
        }
    }

    /// `bbr_bdp()`: ceil(bw x RTprop x gain); the initial window before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.init_cwnd,
            Some(m) => ceil_u64(bw * m.as_secs() * gain),
        }
    }

    /// `bbr_quantization_budget()` of v3: room for three bursts, at least 4, and 2 more while
    /// probing up.
    fn quantization_budget(&self, s: &impl SenderView, cwnd: u64) -> u64 {
        let mut cwnd = cwnd.max(3 * self.tso_goal(s)).max(CWND_MIN);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight()`.
    fn inflight(&self, s: &impl SenderView, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(s, self.bdp(bw, gain))
    }

    /// `bbr_target_inflight()`: the BDP, unless losses cut the window below it.
    fn target_inflight(&self, s: &impl SenderView) -> u64 {
        self.inflight(s, self.bw(), 1.0).min(s.cwnd() as u64)
    }

    /// `bbr_packets_in_net_at_edt()`.
    fn packets_in_net_at_edt(&self, s: &impl SenderView, now: Time, inflight_now: u64) -> u64 {
        let burst = if self.pacing_gain > 1.0 {
            self.tso_goal(s)
        } else {
            0
        };
        packets_in_net_at_edt(s, now, inflight_now, self.bw(), burst)
    }

    /// `bbr_probe_rtt_cwnd()`: half the BDP, at least 4.
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), self.p.probe_rtt_cwnd_gain)
            .max(CWND_MIN)
    }

    /// `bbr_save_cwnd()`.
    fn save_cwnd(&mut self, cwnd: f64) {
        let fresh = self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt;
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, fresh);
    }

    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = NO_BOUND;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.loss_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// `bbr_note_loss()`: this round is a loss round.
    fn note_loss(&mut self, s: &impl SenderView) {
        if !self.loss_in_round {
            self.loss_round_delivered = s.delivered();
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    // ------------------------------------------------------------- delivery signals
    /// `bbr_update_round_start()`.
    fn update_round_start(&mut self, s: &impl SenderView, ctx: &AckCtx) {
        self.round_start = false;
        if let Some(rs) = ctx.rate {
            if rs.prior_delivered >= self.next_rtt_delivered {
                self.next_rtt_delivered = s.delivered();
                self.round_start = true;
            }
        }
    }

    /// `bbr_update_latest_delivery_signals()`.
    fn update_latest_delivery_signals(&mut self, s: &impl SenderView, ctx: &AckCtx) {
        self.loss_round_start = false;
        let Some(rs) = ctx.rate.filter(|_| ctx.newly_delivered > 0) else {
            return;
        };
        self.bw_latest = self.bw_latest.max(self.sample_bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = s.delivered();
            self.loss_round_start = true;
        }
    }

    /// `bbr_advance_latest_delivery_signals()`: a new loss round starts from this sample.
    fn advance_latest_delivery_signals(&mut self, ctx: &AckCtx) {
        if self.loss_round_start {
            self.bw_latest = self.sample_bw;
            self.inflight_latest = ctx.rate.map_or(0, |r| r.delivered);
        }
    }

    /// `bbr_update_congestion_signals()`: the bandwidth upper bound, and once per loss round
    /// the lower bounds.
    fn update_congestion_signals(&mut self, w: &Window, ctx: &AckCtx) {
        let Some(rs) = ctx.rate.filter(|_| ctx.newly_delivered > 0) else {
            return;
        };
        if !rs.is_app_limited || self.sample_bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(self.sample_bw);
        }
        self.loss_in_round |= ctx.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(w);
        self.loss_in_round = false;
    }

    /// `bbr_adapt_lower_bounds()`: outside probing, a round with losses cuts bw_lo and
    /// inflight_lo to beta of themselves, not below what the round delivered.
    fn adapt_lower_bounds(&mut self, s: &impl SenderView) {
        if self.is_probing_bandwidth() || !self.loss_in_round {
            return;
        }
        if self.bw_lo == f64::INFINITY {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == NO_BOUND {
            self.inflight_lo = s.cwnd() as u64;
        }
        let beta = self.p.beta;
        self.bw_lo = self.bw_latest.max(self.bw_lo * beta);
        self.inflight_lo = self
            .inflight_latest
            .max((self.inflight_lo as f64 * beta) as u64);
    }

    /// `bbr_is_inflight_too_high()`: the sample's losses exceed the threshold share of what
    /// was in flight when its segment left.
    fn is_inflight_too_high(&self, ctx: &AckCtx) -> bool {
        ctx.rate.is_some_and(|rs| {
            rs.lost > 0
                && rs.tx_in_flight > 0
                && rs.lost > (rs.tx_in_flight as f64 * self.p.loss_thresh) as u64
        })
    }

    // ---------------------------------------------------------------- upper bounds
    /// `bbr_handle_inflight_too_high()`: once per probe, inflight_hi becomes the flight at
    /// the loss (at least beta of the target) and the probe ends.
    fn handle_inflight_too_high(&mut self, s: &impl SenderView, ctx: &AckCtx) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if let Some(rs) = ctx.rate.filter(|r| !r.is_app_limited) {
            let floor = (self.target_inflight(s) as f64 * self.p.beta) as u64;
            self.inflight_hi = rs.tx_in_flight.max(floor);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_probe_down(s, ctx.now);
        }
    }

    /// Linux's `tp->is_cwnd_limited`, as the flight before the ACK filling the window.
    fn cwnd_limited(w: &Window, ctx: &AckCtx) -> bool {
        ctx.prior_in_flight as f64 >= w.cwnd()
    }

    /// `bbr_raise_inflight_hi_slope()`: each round of UP doubles the growth of inflight_hi.
    fn raise_inflight_hi_slope(&mut self, cwnd: f64) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (cwnd as u64 / growth).max(1);
    }

    /// `bbr_probe_inflight_hi_upward()`.
    fn probe_inflight_hi_upward(&mut self, w: &Window, ctx: &AckCtx) {
        if !Self::cwnd_limited(w, ctx) || (w.cwnd() as u64) < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += ctx.newly_delivered;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(w.cwnd());
        }
    }

    /// `bbr_adapt_upper_bounds()`; true if it decided a phase change.
    fn adapt_upper_bounds(&mut self, w: &Window, ctx: &AckCtx) -> bool {
        let app_limited = ctx.rate.is_some_and(|r| r.is_app_limited);
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The probe's samples are over: forget the previous cycle's bandwidth.
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !app_limited && self.bw_hi[1] > 0.0 {
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
            // The last probe reached inflight_hi without too many losses: probe again.
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill(w, 0);
                return true;
            }
        }
        if self.is_inflight_too_high(ctx) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(w, ctx);
            }
        } else {
            if self.inflight_hi == NO_BOUND {
                return false;
            }
            // Resilience to random loss: any phase that shows a higher flight is safe
            // raises the bound.
            if let Some(rs) = ctx.rate {
                self.inflight_hi = self.inflight_hi.max(rs.tx_in_flight);
            }
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(w, ctx);
            }
        }
        false
    }

    // ---------------------------------------------------------------- the cycle
    /// `bbr_pick_probe_wait()`: 0 or 1 rounds already counted, and 2-3 s of wall clock.
    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = (self.rng.next_u64() % PROBE_RAND_ROUNDS) as u32;
        let rand_us = (self.p.probe_wait_rand_s * 1e6) as u64;
        let extra_us = if rand_us == 0 {
            0
        } else {
            self.rng.next_u64() % rand_us
        };
        self.probe_wait = Dur::from_secs(self.p.probe_wait_base_s) + Dur(extra_us * 1_000);
    }

    /// `bbr_start_bw_probe_refill()`.
    fn start_probe_refill(&mut self, s: &impl SenderView, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = s.delivered();
        self.phase = Phase::Refill;
    }

    /// `bbr_start_bw_probe_up()`.
    fn start_probe_up(&mut self, s: &impl SenderView, now: Time) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = s.delivered();
        self.cycle_mstamp = now;
        self.reset_full_bw();
        self.full_bw = self.sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(s.cwnd());
    }

    /// `bbr_start_bw_probe_down()`: a new cycle, its probe at a random time ahead.
    fn start_probe_down(&mut self, s: &impl SenderView, now: Time) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = NO_BOUND;
        self.pick_probe_wait();
        self.cycle_mstamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = s.delivered();
        self.phase = Phase::Down;
    }

    /// `bbr_start_bw_probe_cruise()`.
    fn start_probe_cruise(&mut self) {
        if self.inflight_lo != NO_BOUND {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// `bbr_inflight_with_headroom()`: inflight_hi less 15%, at least 4.
    fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == NO_BOUND {
            return NO_BOUND;
        }
        let headroom = ((self.inflight_hi as f64 * self.p.inflight_headroom) as u64).max(1);
        self.inflight_hi.saturating_sub(headroom).max(CWND_MIN)
    }

    /// `bbr_check_time_to_probe_bw()` (the ECN re-probe left out).
    fn check_time_to_probe_bw(&mut self, s: &impl SenderView, now: Time) -> bool {
        let rounds = u64::from(self.p.bw_probe_max_rounds).min(self.target_inflight(s));
        if now > self.cycle_mstamp + self.probe_wait || u64::from(self.rounds_since_probe) >= rounds
        {
            self.start_probe_refill(s, 0);
            return true;
        }
        false
    }

    /// `bbr_update_cycle_phase()`: cruise, refill, probe up or drain.
    fn update_cycle_phase(&mut self, w: &Window, ctx: &AckCtx) {
        if !self.full_bw_reached || self.adapt_upper_bounds(w, ctx) || self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(w, ctx.now, ctx.prior_in_flight);
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(w, ctx.now);
            }
            Phase::Refill => {
                if self.round_start {
                    // A round of refilling: the samples now reflect what probing sends.
                    self.bw_probe_samples = true;
                    self.start_probe_up(w, ctx.now);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if Self::cwnd_limited(w, ctx) && w.cwnd() as u64 >= self.inflight_hi {
                    // inflight_hi limits the growth: no plateau to judge.
                    self.reset_full_bw();
                    self.full_bw = self.sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(w, ctx.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(w, ctx.now) {
                    return;
                }
                let bdp = self.inflight(w, self.max_bw(), 1.0);
                if inflight <= self.inflight_with_headroom() && inflight <= bdp {
                    self.start_probe_cruise();
                }
            }
        }
    }

    // ---------------------------------------------------------------- startup, drain
    /// `bbr_handle_queue_too_high_in_startup()`.
    fn handle_queue_too_high_in_startup(&mut self, s: &impl SenderView) {
        self.full_bw_reached = true;
        let bdp = self.inflight(s, self.max_bw(), 1.0);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }

    /// `bbr_check_loss_too_high_in_startup()`: at the end of a round of recovery, six loss
    /// events and a loss rate over the threshold end Startup.
    fn check_loss_too_high_in_startup(&mut self, w: &Window, ctx: &AckCtx) {
        if self.full_bw_reached {
            return;
        }
        if ctx.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.p.full_loss_cnt > 0
            && self.loss_round_start
            && w.ca_state() == CaState::Recovery
            && self.loss_events_in_round >= self.p.full_loss_cnt
            && self.is_inflight_too_high(ctx)
        {
            self.handle_queue_too_high_in_startup(w);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `bbr_check_full_bw_reached()` of v3: on this ACK's sample, not the max filter.
    fn check_full_bw_reached(&mut self, ctx: &AckCtx) {
        if self.full_bw_now || ctx.rate.is_some_and(|r| r.is_app_limited) {
            return;
        }
        if self.sample_bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = self.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `bbr_check_drain()`.
    fn check_drain(&mut self, w: &mut Window, now: Time) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            let target = self.inflight(w, self.max_bw(), 1.0);
            w.set_ssthresh(target as f64);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(w, now, w.in_flight())
                <= self.inflight(w, self.max_bw(), 1.0)
        {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(w, now);
        }
    }

    // ---------------------------------------------------------------- ProbeRTT
    /// `bbr_exit_probe_rtt()`.
    fn exit_probe_rtt(&mut self, s: &impl SenderView, now: Time) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(s, now);
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_probe_rtt_done()`.
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Time) {
        if !self.probe_rtt_hold.over(now) {
            return;
        }
        self.probe_rtt_min_stamp = now;
        w.set_cwnd(w.cwnd().max(self.prior_cwnd));
        self.exit_probe_rtt(w, now);
    }

    /// `bbr_update_min_rtt()` of v3: a 5 s minimum times ProbeRTT, a 10 s one is RTprop.
    fn update_min_rtt(&mut self, w: &mut Window, ctx: &AckCtx) {
        let now = ctx.now;
        let probe_rtt_expired =
            now > self.probe_rtt_min_stamp + Dur::from_secs(self.p.probe_rtt_win_s);
        if let Some(rtt) = ctx.rtt_sample {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + Dur::from_secs(self.p.min_rtt_win_s);
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if self.p.probe_rtt_s > 0.0
            && probe_rtt_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w.cwnd());
            self.probe_rtt_hold.reset();
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = w.delivered();
        }
        if self.mode == Mode::ProbeRtt {
            w.mark_app_limited();
            let (target, hold) = (self.probe_rtt_cwnd(), Dur::from_secs(self.p.probe_rtt_s));
            match self
                .probe_rtt_hold
                .step(w.in_flight(), target, now, hold, self.round_start)
            {
                HoldStep::Started => self.next_rtt_delivered = w.delivered(),
                HoldStep::Check => self.check_probe_rtt_done(w, now),
                HoldStep::Wait => {}
            }
        }
        if ctx.rate.is_some_and(|r| r.delivered > 0) {
            self.idle_restart = false;
        }
    }

    // ---------------------------------------------------------------- control
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.p.startup_pacing_gain, self.p.startup_cwnd_gain),
            Mode::Drain => (DRAIN_GAIN, self.p.startup_cwnd_gain),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (UP_GAIN, self.p.cwnd_gain + UP_CWND_EXTRA),
                Phase::Down => (DOWN_GAIN, self.p.cwnd_gain),
                Phase::Cruise | Phase::Refill => (1.0, self.p.cwnd_gain),
            },
            Mode::ProbeRtt => (1.0, 1.0),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// `bbr_set_cwnd()` of v3: toward the target without v1's packet conservation.
    fn set_cwnd(&mut self, w: &mut Window, ctx: &AckCtx, bw: f64, gain: f64) {
        let acked = ctx.newly_delivered;
        let mut cwnd = w.cwnd();
        if acked > 0 {
            let mut target = self.bdp(bw, gain);
            if self.p.extra_acked {
                target += self.aggregation.cwnd(bw);
            }
            let target = self.quantization_budget(w, target) as f64;
            if self.full_bw_reached {
                cwnd = (cwnd + acked as f64).min(target);
            } else if cwnd < target || cwnd < (2 * self.init_cwnd) as f64 {
                cwnd += acked as f64;
            }
            cwnd = cwnd.max(CWND_MIN as f64);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd() as f64);
        }
        w.set_cwnd(cwnd);
    }

    /// `bbr_bound_cwnd_for_inflight_model()`.
    fn bound_cwnd_for_inflight_model(&self, w: &mut Window) {
        let mut cap = NO_BOUND;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        let cap = cap.min(self.inflight_lo).max(CWND_MIN);
        if (cap as f64) < w.cwnd() {
            w.set_cwnd(cap as f64);
        }
    }
}

impl Growth for Bbr3 {
    fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) {}

    /// `bbr_ssthresh()` (fast recovery) and `tcp_enter_loss()` (timeout): the window is not
    /// cut at a fast retransmit; the bounds are saved for an undo.
    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.save_cwnd(s.cwnd());
        if s.ca_state() == CaState::Open {
            // At the start of a loss episode (Linux calls bbr_ssthresh() then only).
            self.undo_bw_lo = self.bw_lo;
            self.undo_inflight_lo = self.inflight_lo;
            self.undo_inflight_hi = self.inflight_hi;
        }
        kept_window(s, kind)
    }

    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        match ev {
            CaEvent::TxStart { .. } if !self.initialized => {
                let now = w.now();
                self.init(w, now);
            }
            CaEvent::TxStart { .. } if w.app_limited() => {
                // `bbr_cwnd_event(CA_EVENT_TX_START)`: restarting from idle.
                self.idle_restart = true;
                self.aggregation.start(w.now());
                if self.mode == Mode::ProbeBw {
                    let bw = self.bw();
                    self.set_pacing_rate(w, bw, 1.0);
                    self.refresh_burst(w);
                } else if self.mode == Mode::ProbeRtt {
                    let now = w.now();
                    self.check_probe_rtt_done(w, now);
                }
            }
            CaEvent::Timeout => {
                // `bbr_set_state(TCP_CA_Loss)`: look for a full pipe afresh; the window of
                // before the timeout is the lower bound to cut from.
                self.prev_ca_state = CaState::Loss;
                self.reset_full_bw();
                if !self.is_probing_bandwidth() && self.inflight_lo == NO_BOUND {
                    self.inflight_lo = (w.cwnd().max(self.prior_cwnd)) as u64;
                }
            }
            CaEvent::LossRecovered => {
                // `bbr_exit_loss_recovery()`.
                w.set_cwnd(w.cwnd().max(self.prior_cwnd));
            }
            CaEvent::Undo => {
                // `bbr_undo_cwnd()`: the bounds of before the losses, a fresh look for a
                // full pipe, and the window saved at the event.
                self.reset_full_bw();
                self.loss_in_round = false;
                self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
                self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
                self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
                w.set_cwnd(self.prior_cwnd);
            }
            CaEvent::TxStart { .. } | CaEvent::EnterRecovery | CaEvent::ExitRecovery => {}
        }
    }

    fn wants_tx_in_flight(&self) -> bool {
        true
    }

    fn owns_window(&self) -> bool {
        true
    }

    fn wants_tx_start(&self) -> bool {
        true
    }

    fn phase(&self) -> Option<&'static str> {
        Some(match (self.mode, self.phase) {
            (Mode::Startup, _) => "startup",
            (Mode::Drain, _) => "drain",
            (Mode::ProbeRtt, _) => "probe_rtt",
            (Mode::ProbeBw, Phase::Up) => "probe_bw:up",
            (Mode::ProbeBw, Phase::Down) => "probe_bw:down",
            (Mode::ProbeBw, Phase::Cruise) => "probe_bw:cruise",
            (Mode::ProbeBw, Phase::Refill) => "probe_bw:refill",
        })
    }

    /// `bbr_main()` of v3.
    fn cong_control(&mut self, w: &mut Window, ctx: &AckCtx) {
        if !self.initialized {
            self.init(w, ctx.now);
        }
        if ctx.newly_delivered > 0 {
            self.delivered_mstamp = ctx.now;
        }
        if ctx.losses > 0 {
            // `bbr_skb_marked_lost()`, which Linux calls as the ACK marks them.
            self.note_loss(w);
        }
        self.update_round_start(w, ctx);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
        }
        self.sample_bw = ctx.rate.map_or(0.0, |r| r.delivery_rate);
        self.update_latest_delivery_signals(w, ctx);
        // bbr_update_model().
        self.update_congestion_signals(w, ctx);
        if self.p.extra_acked {
            let threshold_rounds = if self.full_bw_reached { 5 } else { 1 };
            let bw = self.bw();
            let cwnd = w.cwnd() as u64;
            self.aggregation.update(
                ctx,
                self.round_start,
                threshold_rounds,
                self.delivered_mstamp,
                bw,
                cwnd,
            );
        }
        self.check_loss_too_high_in_startup(w, ctx);
        self.check_full_bw_reached(ctx);
        self.check_drain(w, ctx.now);
        self.update_cycle_phase(w, ctx);
        self.update_min_rtt(w, ctx);
        self.update_gains();
        let bw = self.bw();
        let (pacing, cwnd_gain) = (self.pacing_gain, self.cwnd_gain);
        self.set_pacing_rate(w, bw, pacing);
        self.refresh_burst(w);
        self.set_cwnd(w, ctx, bw, cwnd_gain);
        self.bound_cwnd_for_inflight_model(w);
        self.advance_latest_delivery_signals(ctx);
        self.prev_ca_state = w.ca_state();
        self.loss_in_cycle |= ctx.rate.is_some_and(|r| r.lost > 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rate::RateSample;
    use crate::tcp::state::SenderState;

    /// A sender with `flight` segments out, nothing delivered, cwnd 100, srtt 100 ms.
    fn state(flight: u64) -> SenderState {
        let mut s = SenderState::new(10, 100_000, 3, u64::MAX);
        s.segment_bytes = 1000;
        s.srtt = Some(Dur::from_secs(0.1));
        s.min_rtt = Some(Dur::from_secs(0.1));
        s.cwnd = 100.0;
        s.snd_max = flight;
        s.snd_nxt = flight;
        s
    }

    /// One ACK at `t_s` delivering `n` segments at `rate` segments/s, the sample's segment
    /// sent when `prior_delivered` were delivered, with `flight` in flight before it;
    /// `losses` marked lost by it, `lost` lost since the sample's segment left with
    /// `tx_in_flight` in flight.
    #[allow(clippy::too_many_arguments)]
    fn ack(
        g: &mut Bbr3,
        s: &mut SenderState,
        t_s: f64,
        n: u64,
        prior_delivered: u64,
        rate: f64,
        flight: u64,
        (losses, lost, tx_in_flight): (u64, u64, u64),
    ) {
        s.acct.delivered += n;
        s.snd_una = s.acct.delivered;
        s.snd_max = s.snd_una + flight;
        s.snd_nxt = s.snd_max;
        let ctx = AckCtx {
            now: Time::from_secs(t_s),
            rtt_sample: Some(Dur::from_secs(0.1)),
            newly_acked: n,
            newly_delivered: n,
            rate: Some(RateSample {
                delivered: n.max(10),
                interval: Dur::from_secs(10.0 / rate),
                delivery_rate: rate,
                is_app_limited: false,
                prior_delivered,
                rtt: Some(Dur::from_secs(0.1)),
                tx_in_flight,
                lost,
            }),
            prior_in_flight: flight,
            losses,
        };
        g.cong_control(&mut Window::new(s), &ctx);
    }

    /// Round `k` (100 ms each): one ACK delivering 10 segments, no loss.
    fn round(g: &mut Bbr3, s: &mut SenderState, k: u64, rate: f64, flight: u64) {
        let t = 0.1 * (k + 1) as f64;
        let prior = s.acct.delivered;
        ack(g, s, t, 10, prior, rate, flight, (0, 0, 0));
    }

    /// Five rounds of Startup doubling the rate, then a round of fast recovery: `events`
    /// ACKs each marking one loss, the last of them ending the loss round with `lost` of
    /// 100 in flight lost.
    fn startup_then_losses(events: u64, lost: u64) -> Bbr3 {
        let mut g = Bbr3::new(Bbr3Params::default(), 1);
        let mut s = state(100);
        for (k, r) in [100.0, 200.0, 400.0, 800.0, 1600.0].iter().enumerate() {
            round(&mut g, &mut s, k as u64, *r, 100);
        }
        assert_eq!(g.mode, Mode::Startup);
        s.ca_state = CaState::Recovery;
        let start = s.acct.delivered;
        for i in 0..events {
            // The first loss opens a loss round that ends with the ACK of a segment sent
            // after it (prior_delivered past the delivered count at the first loss).
            let last = i + 1 == events;
            let prior = if last { start + 1 } else { start - 5 };
            let sample = if last { (1, lost, 100) } else { (1, 0, 0) };
            ack(
                &mut g,
                &mut s,
                0.6 + 0.001 * i as f64,
                1,
                prior,
                1600.0,
                100,
                sample,
            );
        }
        g
    }

    #[test]
    fn startup_ends_on_six_loss_events_in_a_round_above_two_percent() {
        // tcp_bbr.c v3 bbr_check_loss_too_high_in_startup(): >= bbr_full_loss_cnt (6)
        // events and lost > tx_in_flight x 5/256 (2 of 100; 1 is not above 1.95).
        let g = startup_then_losses(6, 2);
        assert!(g.full_bw_reached);
        // Drain, and on through ProbeBW's DOWN to CRUISE on the same ACK: the flight (100)
        // is below the BDP and inflight_hi's headroom.
        assert_eq!((g.mode, g.phase), (Mode::ProbeBw, Phase::Cruise));
        // inflight_hi: the BDP (1600/s x 100 ms = 160; v3's quantization budget is a floor
        // of three bursts, not an addition) or the round's delivered volume (10), the more.
        assert_eq!(g.inflight_hi, 160);
        for (events, lost) in [(5, 5), (6, 1), (6, 0)] {
            let g = startup_then_losses(events, lost);
            assert_eq!(g.mode, Mode::Startup, "{events} events, {lost} lost");
            assert_eq!(g.inflight_hi, NO_BOUND);
        }
    }

    /// A flow in ProbeBW's `phase` at 1000 segments/s and 100 ms, bounds unset.
    fn probing(phase: Phase) -> (Bbr3, SenderState) {
        let mut g = Bbr3::new(Bbr3Params::default(), 1);
        let mut s = state(100);
        g.init(&mut Window::new(&mut s), Time::ZERO);
        g.full_bw_reached = true;
        g.mode = Mode::ProbeBw;
        g.phase = phase;
        g.bw_hi = [1000.0, 0.0];
        g.probe_wait = Dur::from_secs(2.5);
        s.acct.delivered = 1000;
        g.next_rtt_delivered = 1000;
        g.loss_round_delivered = 1000;
        (g, s)
    }

    #[test]
    fn a_loss_rate_above_two_percent_while_probing_up_sets_inflight_hi_to_the_flight_at_it() {
        let (mut g, mut s) = probing(Phase::Up);
        g.bw_probe_samples = true;
        // 3 of the 150 in flight when the sample's segment left: above 150 x 5/256 = 2.9.
        ack(&mut g, &mut s, 1.0, 1, 990, 1000.0, 140, (1, 3, 150));
        assert_eq!(g.inflight_hi, 150);
        assert!(g.prev_probe_too_high);
        assert_eq!(g.phase, Phase::Down, "the probe ends at once");
        assert!(
            s.cwnd <= 150.0,
            "the window is capped by inflight_hi: {}",
            s.cwnd
        );
        // Two of 150 is not too many: inflight_hi only rises to a flight shown safe.
        let (mut g, mut s) = probing(Phase::Up);
        g.bw_probe_samples = true;
        g.inflight_hi = 120;
        ack(&mut g, &mut s, 1.0, 1, 990, 1000.0, 140, (1, 2, 150));
        assert_eq!((g.inflight_hi, g.phase), (150, Phase::Up));
        // Losses from samples that do not reflect the probe (CRUISE) leave it alone.
        let (mut g, mut s) = probing(Phase::Cruise);
        ack(&mut g, &mut s, 1.0, 1, 990, 1000.0, 100, (1, 3, 150));
        assert_eq!(g.inflight_hi, NO_BOUND);
    }

    #[test]
    fn probe_bw_cycles_down_cruise_refill_up_with_v3_gains() {
        let mut g = Bbr3::new(Bbr3Params::default(), 7);
        let mut s = state(100);
        // Startup at 1000 segments/s: full after three rounds without 25% growth.
        let mut k = 0;
        let mut phases: Vec<(u64, &str, f64, f64)> = Vec::new();
        while k < 120 {
            // The flight follows the mode: 250 in Startup, then one BDP.
            let flight = if g.full_bw_reached { 100 } else { 250 };
            let rate = if k < 4 {
                250.0 * (k + 1) as f64
            } else {
                1000.0
            };
            round(&mut g, &mut s, k, rate, flight);
            let name = g.phase().unwrap();
            if phases.last().is_none_or(|p| p.1 != name) {
                phases.push((k, name, g.pacing_gain, g.cwnd_gain));
            }
            k += 1;
        }
        let names: Vec<&str> = phases.iter().map(|p| p.1).collect();
        assert_eq!(
            &names[..7],
            &[
                "startup",
                "drain",
                // DOWN ends on the ACK that began it: the flight is below the BDP.
                "probe_bw:cruise",
                "probe_bw:refill",
                "probe_bw:up",
                "probe_bw:down",
                "probe_bw:cruise"
            ],
            "{phases:?}"
        );
        let gains = |n: &str| {
            phases
                .iter()
                .find(|p| p.1 == n)
                .map(|p| (p.2, p.3))
                .unwrap()
        };
        assert_eq!(gains("startup"), (710.0 / 256.0, 2.0));
        assert_eq!(gains("probe_bw:down"), (232.0 / 256.0, 2.0));
        assert_eq!(gains("probe_bw:cruise"), (1.0, 2.0));
        assert_eq!(gains("probe_bw:refill"), (1.0, 2.0));
        assert_eq!(gains("probe_bw:up"), (1.25, 2.25));
        // REFILL lasts one round; UP until three rounds without 25% more bandwidth; the
        // probe comes 2-3 s after DOWN began (at 100 ms per round, 20-30 rounds); DOWN
        // again for one round (its flight at once below the BDP).
        let at = |i: usize| phases[i].0;
        assert_eq!(at(4) - at(3), 1);
        assert_eq!(at(5) - at(4), 3);
        assert_eq!(at(6) - at(5), 1);
        let wait = at(3) - at(2);
        assert!((20..=30).contains(&wait), "{wait} rounds {phases:?}");
        // An RTT sample equal to the minimum does not refresh it (tcp_bbr.c: `<`): ProbeRTT
        // 5 s after the first sample.
        let probe_rtt = phases.iter().find(|p| p.1 == "probe_rtt").unwrap();
        assert_eq!((probe_rtt.0, probe_rtt.2, probe_rtt.3), (51, 1.0, 1.0));
    }

    #[test]
    fn the_probe_wait_is_random_between_two_and_three_seconds() {
        let waits: Vec<f64> = (0..200)
            .map(|seed| {
                let mut g = Bbr3::new(Bbr3Params::default(), seed);
                g.pick_probe_wait();
                assert!(g.rounds_since_probe < 2);
                g.probe_wait.as_secs()
            })
            .collect();
        assert!(waits.iter().all(|w| (2.0..3.0).contains(w)), "{waits:?}");
        let below = waits.iter().filter(|&&w| w < 2.5).count();
        assert!((70..130).contains(&below), "{below} of 200 below 2.5 s");
        // The same seed draws the same wait.
        let mut a = Bbr3::new(Bbr3Params::default(), 3);
        let mut b = Bbr3::new(Bbr3Params::default(), 3);
        a.pick_probe_wait();
        b.pick_probe_wait();
        assert_eq!(a.probe_wait, b.probe_wait);
    }

    #[test]
    fn a_loss_round_cuts_the_lower_bounds_by_beta_and_a_probe_resets_them() {
        let (mut g, mut s) = probing(Phase::Cruise);
        g.cycle_mstamp = Time::from_secs(0.5);
        // A loss, then the ACK that ends its round: bw_lo and inflight_lo from the model
        // (1000/s, and cwnd, 101 after the first ACK) cut to 180/256 of it, above what the
        // round delivered (10 segments at 500/s).
        ack(&mut g, &mut s, 1.0, 1, 990, 500.0, 90, (1, 1, 100));
        assert_eq!((g.bw_lo, g.inflight_lo), (f64::INFINITY, NO_BOUND));
        assert_eq!(s.cwnd, 101.0);
        let prior = s.acct.delivered;
        ack(&mut g, &mut s, 1.1, 10, prior, 500.0, 90, (0, 0, 90));
        assert_eq!(g.bw_lo, 1000.0 * 180.0 / 256.0);
        assert_eq!(g.inflight_lo, 71);
        assert_eq!(g.bw(), g.bw_lo, "the bandwidth in use is the lower bound");
        assert!(s.cwnd <= 71.0, "{}", s.cwnd);
        // Another loss round: 71 x 180/256 = 49.9.
        ack(&mut g, &mut s, 1.2, 1, prior, 500.0, 60, (1, 1, 60));
        let prior = s.acct.delivered;
        ack(&mut g, &mut s, 1.3, 10, prior, 500.0, 50, (0, 0, 50));
        assert_eq!(g.inflight_lo, 49);
        // A round without losses keeps them; the probe (REFILL, after the 2.5 s wait)
        // forgets them.
        let prior = s.acct.delivered;
        ack(&mut g, &mut s, 1.4, 10, prior, 500.0, 40, (0, 0, 40));
        assert_eq!(g.inflight_lo, 49);
        let prior = s.acct.delivered;
        ack(&mut g, &mut s, 3.1, 10, prior, 500.0, 40, (0, 0, 40));
        assert_eq!(g.phase, Phase::Refill);
        assert_eq!((g.bw_lo, g.inflight_lo), (f64::INFINITY, NO_BOUND));
    }

    #[test]
    fn an_undo_restores_the_bounds_and_the_window_of_before_the_losses() {
        // bbr_undo_cwnd(): bw_lo, inflight_lo and inflight_hi at least as at the congestion
        // event (bbr_ssthresh() saved them), the window saved then, a new search for a full
        // pipe.
        let (mut g, mut s) = probing(Phase::Cruise);
        g.inflight_hi = 150;
        g.inflight_lo = 120;
        g.bw_lo = 900.0;
        g.on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        // The losses cut the bounds; the window fell.
        (g.inflight_hi, g.inflight_lo, g.bw_lo) = (100, 80, 600.0);
        g.full_bw_now = true;
        s.cwnd = 60.0;
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!((g.inflight_hi, g.inflight_lo, g.bw_lo), (150, 120, 900.0));
        assert_eq!(s.cwnd, 100.0, "the window at the event");
        assert!(!g.full_bw_now && g.full_bw == 0.0);
    }

    #[test]
    fn probe_rtt_holds_half_the_bdp_every_five_seconds() {
        let (mut g, mut s) = probing(Phase::Cruise);
        g.probe_wait = Dur::from_secs(100.0);
        // RTT samples above the 100 ms minimum: ProbeRTT once 5 s pass without a match.
        let mut t = 0.1;
        let mut entered = None;
        while t < 6.0 {
            let prior = s.acct.delivered;
            let ctx_rtt = if t < 0.15 { 0.1 } else { 0.12 };
            s.acct.delivered += 10;
            s.snd_una = s.acct.delivered;
            s.snd_max = s.snd_una + 100;
            let ctx = AckCtx {
                now: Time::from_secs(t),
                rtt_sample: Some(Dur::from_secs(ctx_rtt)),
                newly_acked: 10,
                newly_delivered: 10,
                rate: Some(RateSample {
                    delivered: 10,
                    interval: Dur::from_secs(0.01),
                    delivery_rate: 1000.0,
                    is_app_limited: false,
                    prior_delivered: prior,
                    rtt: None,
                    tx_in_flight: 100,
                    lost: 0,
                }),
                prior_in_flight: 100,
                losses: 0,
            };
            g.cong_control(&mut Window::new(&mut s), &ctx);
            if g.mode == Mode::ProbeRtt && entered.is_none() {
                entered = Some(t);
                // Half of 1000/s x 100 ms.
                assert_eq!(s.cwnd, 50.0);
            }
            t += 0.1;
        }
        let e = entered.expect("ProbeRTT");
        assert!((5.0..5.3).contains(&e), "entered at {e}");
    }
}
