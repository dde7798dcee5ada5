//! What BBR v1 ([`super::bbr`]) and BBRv3 ([`super::bbr3`]) share of Linux's `tcp_bbr.c`.

use crate::tcp::AckCtx;
use crate::time::{Dur, Time};

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
