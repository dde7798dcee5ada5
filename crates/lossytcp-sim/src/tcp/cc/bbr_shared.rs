//! What BBR v1 ([`super::bbr`]) and BBRv3 ([`super::bbr3`]) share of Linux's `tcp_bbr.c`.

use crate::tcp::params::Param;
use crate::tcp::view::{SenderView, Window};
use crate::tcp::{AckCtx, CongestionKind, Cut};
use crate::time::{Dur, Time};

crate::param_choice! {
    /// How the sender spaces BBR's departures (v1 and v3 alike).
    pub enum PacingBurst {
        /// One segment per pacing wake-up, 1 / rate apart (ns-3's TcpSocketBase).
        Segment = "segment",
        /// Linux's (the default): one TSO/GSO packet per wake-up, of the segments the
        /// plugin's `tcp_tso_autosize()` gives (about 1 ms of the rate and at least 2,
        /// at most 64 KB), back to back, the next departure `tcp_update_skb_after_send()`'s
        /// burst length / rate later.
        Tso = "tso",
    }
}

/// `bbr_pacing_burst`, one parameter that BBR v1 and BBRv3 both take (the registry admits a
/// name two plugins declare identically): Linux's kernel paces both the same way.
pub(crate) const PACING_BURST: Param = Param::choice("bbr_pacing_burst", PacingBurst::WORDS, "tso");

/// Linux's TCP_INIT_CWND: the window before any RTT sample.
pub(crate) const INIT_CWND: u64 = 10;
/// Linux's nominal RTT before any sample (bbr_init_pacing_rate_from_rtt).
pub(crate) const NOMINAL_RTT: Dur = Dur(1_000_000);

/// ceil() of a non-negative number without libm's call (this runs on every ACK).
#[inline]
pub(crate) fn ceil_u64(x: f64) -> u64 {
    // Through i64: one instruction each way on x86-64, where u64 takes several.
    let i = x as i64;
    (i + i64::from((i as f64) < x)) as u64
}

/// extra_acked's epoch reset and cap of 100 ms of bandwidth.
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
const EXTRA_ACKED_MAX: Dur = Dur(100_000_000);

/// `bbr_update_ack_aggregation()`'s state: the most data acknowledged beyond the bandwidth
/// estimate over an epoch, kept as the max of two windows of some rounds each, added to the
/// window to keep sending through the silences of aggregated ACKs.
#[derive(Clone, Debug, Default)]
pub(crate) struct AckAggregation {
    epoch_start: Time,
    epoch_acked: u64,
    extra: [u64; 2],
    win_rounds: u32,
    win_idx: usize,
}

impl AckAggregation {
    /// A new epoch from `now` (initialisation, restart after idle).
    pub(crate) fn start(&mut self, now: Time) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// One ACK: `window_rounds` rounds per window half, `delivered_at` when the ACK's
    /// delivery was recorded, `bw` the estimate in use, `cwnd` the cap of one sample.
    pub(crate) fn update(
        &mut self,
        ctx: &AckCtx,
        round_start: bool,
        window_rounds: u32,
        delivered_at: Time,
        bw: f64,
        cwnd: u64,
    ) {
        if ctx.newly_delivered == 0 || ctx.rate.is_none() {
            return;
        }
        if round_start {
            self.win_rounds = (self.win_rounds + 1).min(0x1f);
            if self.win_rounds >= window_rounds {
                self.win_rounds = 0;
                self.win_idx = 1 - self.win_idx;
                self.extra[self.win_idx] = 0;
            }
        }
        let epoch = delivered_at.since(self.epoch_start);
        let mut expected = (bw * epoch.as_secs()) as u64;
        if self.epoch_acked <= expected
            || self.epoch_acked + ctx.newly_delivered >= ACK_EPOCH_ACKED_RESET
        {
            self.epoch_acked = 0;
            self.epoch_start = delivered_at;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + ctx.newly_delivered).min(0xfffff);
        let extra = (self.epoch_acked - expected).min(cwnd);
        let slot = &mut self.extra[self.win_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd()`: the allowance, at most 100 ms of `bw`.
    pub(crate) fn cwnd(&self, bw: f64) -> u64 {
        let cap = (bw * EXTRA_ACKED_MAX.as_secs()) as u64;
        self.extra[0].max(self.extra[1]).min(cap)
    }
}

/// `bbr_init_pacing_rate_from_rtt()`: `gain` x cwnd / srtt (the srtt at least 1 us, the
/// nominal 1 ms before a sample), less the pacing `margin`; returns whether there was a
/// sample (BBR's `has_seen_rtt`).
pub(crate) fn init_pacing_rate(w: &mut Window, gain: f64, margin: f64) -> bool {
    let (rtt, seen) = match w.srtt() {
        Some(r) => (r.max(Dur(1_000)), true),
        None => (NOMINAL_RTT, false),
    };
    let bw = w.cwnd() / rtt.as_secs();
    w.set_pacing_rate(Some(bw * gain * (1.0 - margin)));
    seen
}

/// `bbr_set_pacing_rate()`: `rate` (segments per second, margin taken), never below the
/// current one until the pipe is full; the first RTT sample first re-initialises the rate
/// from it (`init_gain`, `margin`: [`init_pacing_rate`]'s).
pub(crate) fn set_pacing_rate(
    w: &mut Window,
    rate: f64,
    has_seen_rtt: &mut bool,
    full_bw_reached: bool,
    init_gain: f64,
    margin: f64,
) {
    if !*has_seen_rtt && w.srtt().is_some() {
        *has_seen_rtt |= init_pacing_rate(w, init_gain, margin);
    }
    if full_bw_reached || w.pacing_rate().is_none_or(|r| rate > r) {
        w.set_pacing_rate(Some(rate));
    }
}

/// `bbr_packets_in_net_at_edt()`: what of `inflight_now` will still be in the network when
/// the next paced segment leaves, at `bw` segments per second; `burst` (the send quantum)
/// counts on top while the pacing gain is above 1. (Always inlined: BBR's calm ACK makes
/// no call.)
#[inline(always)]
pub(crate) fn packets_in_net_at_edt(
    s: &impl SenderView,
    now: Time,
    inflight_now: u64,
    bw: f64,
    burst: u64,
) -> u64 {
    let wait = s.next_departure().since(now);
    // Nothing is delivered in no time (the product is 0, or NaN for an infinite rate);
    // paced sends usually leave now. Through i64: one instruction (counts below 2^63).
    let delivered_meanwhile = if wait == Dur::ZERO {
        0
    } else {
        (bw * wait.as_secs()) as i64 as u64
    };
    (inflight_now + burst).saturating_sub(delivered_meanwhile)
}

/// `bbr_save_cwnd()`: the last good window, to come back to after a recovery or ProbeRTT:
/// `cwnd` itself when the sender was open and not in ProbeRTT (`fresh`), else the larger.
#[inline]
pub(crate) fn saved_cwnd(prior: f64, cwnd: f64, fresh: bool) -> f64 {
    if fresh {
        cwnd
    } else {
        prior.max(cwnd)
    }
}

/// ProbeRTT's hold (the tail of `bbr_update_min_rtt()`): from the ACK on which the flight is
/// down to the ProbeRTT window, a fixed time and at least one round.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProbeRttHold {
    done_stamp: Option<Time>,
    round_done: bool,
}

/// What an ACK in ProbeRTT asks of its plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HoldStep {
    /// The hold starts now: a new round starts with it.
    Started,
    /// A round has passed since it started: see whether its time has too ([`ProbeRttHold::over`]).
    Check,
    /// Nothing to do yet.
    Wait,
}

impl ProbeRttHold {
    /// Entering ProbeRTT: no hold until the flight is down.
    pub(crate) fn reset(&mut self) {
        self.done_stamp = None;
    }

    /// One ACK in ProbeRTT, with the flight `in_flight`, the ProbeRTT window `target`, the
    /// hold's length `hold` and whether the ACK starts a round.
    pub(crate) fn step(
        &mut self,
        in_flight: u64,
        target: u64,
        now: Time,
        hold: Dur,
        round_start: bool,
    ) -> HoldStep {
        if self.done_stamp.is_none() && in_flight <= target {
            self.done_stamp = Some(now + hold);
            self.round_done = false;
            HoldStep::Started
        } else if self.done_stamp.is_some() {
            self.round_done |= round_start;
            if self.round_done {
                HoldStep::Check
            } else {
                HoldStep::Wait
            }
        } else {
            HoldStep::Wait
        }
    }

    /// `bbr_check_probe_rtt_done()`'s test: the hold started and its time has passed.
    pub(crate) fn over(&self, now: Time) -> bool {
        self.done_stamp.is_some_and(|d| now > d)
    }
}

/// BBR's window on a congestion event (`bbr_ssthresh()` leaves ssthresh, the model is not
/// cut): kept in fast recovery; after a timeout Linux's flight plus one, one segment here
/// (nothing is in flight once all is marked lost).
pub(crate) fn kept_window(s: &impl SenderView, kind: CongestionKind) -> Cut {
    let cwnd = match kind {
        CongestionKind::FastRetransmit => s.cwnd(),
        CongestionKind::Timeout => 1.0,
    };
    Cut {
        ssthresh: s.ssthresh(),
        cwnd,
    }
}
