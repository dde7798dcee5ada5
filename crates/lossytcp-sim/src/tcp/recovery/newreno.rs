//! NewReno, RFC 6582: fast recovery lasts until everything outstanding at the loss is
//! acknowledged; each partial ACK retransmits the next hole.
//!
//! Partial-ACK window: RFC 6582 §3.2 step 5 deflates cwnd by the newly acknowledged amount
//! and adds back one segment, and the full ACK sets cwnd = ssthresh. ns-2 2.35's
//! `Agent/TCP/Newreno` deflates the same way by default (`partial_window_deflation_ 1`) but
//! keeps the window in two parts, `cwnd_` and the inflation `dupwnd_` (window = cwnd_ +
//! dupwnd_), and the split shows on exit, where ns-2 drops `dupwnd_` and keeps `cwnd_`, which
//! the deflation may have cut below ssthresh. Derived from tcp-newreno.cc partialnewack():
//! with D newly acknowledged segments, if dupwnd_ > D: dupwnd_ -= D - 1; else: cwnd_ -= D -
//! dupwnd_, dupwnd_ = 1; then cwnd_ >= 1. Both branches give window' = window - D + 1 (RFC
//! 6582), the second moves the cut into cwnd_. Here `base` is ns-2's cwnd_ and `s.cwnd -
//! base` its dupwnd_. Without deflation (`partial_window_deflation_ 0`, the ns-2 of paper 000
//! Table III) a partial ACK drops the inflation entirely, leaving cwnd = ssthresh.

use super::reno::{dupack, enter_fast_recovery};
use super::{AckVerdict, DupAck, PartialAckTiming, Recovery};
use crate::tcp::state::SenderState;
use crate::tcp::Cut;

/// How partial ACKs and the full ACK set the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PartialAckWindow {
    /// RFC 6582 §3.2 steps 3 and 5.
    #[default]
    Rfc6582,
    /// ns-2 2.35's cwnd_ / dupwnd_ split, with or without `partial_window_deflation_`.
    Ns2 { deflation: bool },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NewRenoParams {
    pub window: PartialAckWindow,
    /// The ACK ending recovery also opens cwnd (ns-2: recv_newack_helper() -> opencwnd()).
    pub exit_growth: bool,
    /// Restart the retransmission timer on every partial ACK (RFC 6582 §4 "Slow-but-Steady";
    /// ns-2 `newreno_changes1_ 0`), not the first one only ("Impatient", RFC 6582 §3.2 step
    /// 5; ns-2 2.35's default).
    pub timer_every_partial_ack: bool,
    /// At most this many segments per ACK besides the partial-ACK retransmission while in
    /// recovery: ns-2 tcp-newreno.cc recv() calls `send_much(0, 0, 2)` from the fast
    /// retransmit to the full ACK or a timeout (`newreno_changes_ 0`). Matters after a
    /// partial ACK that covers many segments, when the deflated window would release a burst.
    pub max_burst: Option<u32>,
    /// ns-2's partialnewack() takes no RTT sample and ends the timing once the timed segment
    /// is covered.
    pub ns2_partial_ack_timing: bool,
    /// ns-2's timeout during recovery halves the window without the inflation and restarts
    /// the duplicate ACK count (see `RenoRecoveryParams::ns2_timeout`).
    pub ns2_timeout: bool,
}

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    p: NewRenoParams,
    partial_acks: u32,
    /// The window without the dupack inflation (ns-2's cwnd_).
    base: f64,
}

impl NewReno {
    pub fn new(p: NewRenoParams) -> Self {
        Self {
            p,
            ..Self::default()
        }
    }

    fn is_partial(&self, s: &SenderState, ack: u64) -> bool {
        s.in_recovery && s.recover.is_some_and(|r| ack < r)
    }
}

impl Recovery for NewReno {
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        dupack(s)
    }

    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        self.base = enter_fast_recovery(s, cut);
        self.partial_acks = 0;
    }

    #[inline]
    fn partial_ack_timing(&self, s: &SenderState, ack: u64) -> PartialAckTiming {
        if self.p.ns2_partial_ack_timing && self.is_partial(s, ack) {
            PartialAckTiming::EndTimingIfCovered
        } else {
            PartialAckTiming::Sample
        }
    }

    #[inline]
    fn burst_cap(&self, s: &SenderState) -> Option<u32> {
        self.p.max_burst.filter(|_| s.in_recovery)
    }

    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, newly: u64) -> AckVerdict {
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        let recover = s.recover.expect("in recovery after a loss event");
        if s.snd_una >= recover {
            // §3.2 step 3 (full ACK): exit with cwnd = ssthresh; ns-2 keeps its cwnd_, which
            // equals ssthresh unless a partial ACK deflated it below.
            s.in_recovery = false;
            s.cwnd = match self.p.window {
                PartialAckWindow::Rfc6582 => s.ssthresh,
                PartialAckWindow::Ns2 { .. } => self.base,
            };
            return AckVerdict {
                grow: self.p.exit_growth,
                restart_timer: true,
                exited: true,
            };
        }
        // §3.2 step 5 (partial ACK): retransmit the first unacknowledged segment.
        s.retransmit_now.push(s.snd_una);
        self.partial_acks += 1;
        match self.p.window {
            PartialAckWindow::Rfc6582 => {
                s.cwnd = (s.cwnd - newly as f64 + 1.0).max(1.0);
            }
            PartialAckWindow::Ns2 { deflation: true } => {
                // tcp-newreno.cc partialnewack(), partial_window_deflation_ 1.
                let d = newly as f64;
                let mut dupwnd = s.cwnd - self.base;
                if dupwnd > d {
                    dupwnd -= d - 1.0;
                } else {
                    self.base -= d - dupwnd;
                    dupwnd = 1.0;
                }
                self.base = self.base.max(1.0);
                s.cwnd = self.base + dupwnd;
            }
            PartialAckWindow::Ns2 { deflation: false } => {
                // tcp-newreno.cc recv(): `if (partial_window_deflation_ == 0) dupwnd_ = 0;`
                s.cwnd = self.base;
            }
        }
        AckVerdict {
            grow: false,
            restart_timer: self.partial_acks == 1 || self.p.timer_every_partial_ack,
            exited: false,
        }
    }

    fn on_timeout(&mut self, s: &mut SenderState) -> bool {
        if self.p.ns2_timeout && s.in_recovery {
            s.cwnd = self.base;
        }
        s.in_recovery = false;
        self.partial_acks = 0;
        self.p.ns2_timeout
    }
}
