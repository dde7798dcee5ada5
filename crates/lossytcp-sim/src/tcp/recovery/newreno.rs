//! NewReno, RFC 6582: fast recovery lasts until everything outstanding at the loss is
//! acknowledged; each partial ACK retransmits the next hole.
//!
//! Partial-ACK window: RFC 6582 §3.2 step 5 deflates cwnd by the newly acknowledged amount
//! and adds back one segment. ns-2 2.35's `Agent/TCP/Newreno` does the same by default
//! (`partial_window_deflation_ 1`) but keeps the window in two parts, `cwnd_` and the
//! inflation `dupwnd_` (window = cwnd_ + dupwnd_), and the split shows on exit, where ns-2
//! drops `dupwnd_` and keeps `cwnd_`, which the deflation may have cut below ssthresh. Derived
//! from tcp-newreno.cc partialnewack(): with D newly acknowledged segments,
//! if dupwnd_ > D: dupwnd_ -= D - 1; else: cwnd_ -= D - dupwnd_, dupwnd_ = 1; then
//! cwnd_ >= 1. Both branches give window' = window - D + 1 (RFC 6582), the second moves the
//! cut into cwnd_. Here `base` is ns-2's cwnd_ and `s.cwnd - base` its dupwnd_.
//! Without deflation (`partial_window_deflation_ 0`, the ns-2 of paper 000 Table III) a
//! partial ACK drops the inflation entirely, leaving cwnd = ssthresh.

use crate::config::Profile;
use crate::tcp::cc::Growth;
use crate::tcp::recovery::reno::enter_fast_recovery;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::SenderState;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    partial_acks: u32,
    /// ns-2's cwnd_ during recovery (the window without the dupack inflation).
    base: f64,
}

impl NewReno {
    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        let started = enter_fast_recovery(s, g);
        if started {
            self.partial_acks = 0;
            self.base = s.recovery_base;
        }
        started
    }

    /// ns-2's cwnd_ during recovery: the window without the dupack inflation.
    pub fn uninflated(&self) -> f64 {
        self.base
    }

    /// The ACK `ack` would be a partial ACK (checked before the sender takes an RTT sample:
    /// ns-2's partialnewack() takes none).
    pub fn is_partial(&self, s: &SenderState, ack: u64) -> bool {
        s.in_recovery && s.recover.is_some_and(|r| ack < r)
    }

    pub fn on_new_ack(&mut self, s: &mut SenderState, newly: u64) -> AckVerdict {
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        let recover = s.recover.expect("in recovery after a loss event");
        if s.snd_una >= recover {
            // §3.2 step 3 (full ACK): exit with cwnd = ssthresh; ns-2 keeps its cwnd_, which
            // equals ssthresh unless a partial ACK deflated it below.
            s.in_recovery = false;
            s.cwnd = match s.profile {
                Profile::Rfc => s.ssthresh,
                Profile::Ns2 => self.base,
            };
            return AckVerdict {
                // ns-2 tcp-newreno.cc recv(): recv_newack_helper() -> opencwnd() on this ACK.
                grow: s.recovery_exit_growth,
                restart_timer: true,
            };
        }
        // §3.2 step 5 (partial ACK): retransmit the first unacknowledged segment.
        s.retransmit_now.push(s.snd_una);
        self.partial_acks += 1;
        match (s.profile, s.partial_window_deflation) {
            (Profile::Rfc, _) => {
                s.cwnd = (s.cwnd - newly as f64 + 1.0).max(1.0);
            }
            (Profile::Ns2, true) => {
                // ns-2 tcp-newreno.cc partialnewack(), partial_window_deflation_ 1.
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
            (Profile::Ns2, false) => {
                // tcp-newreno.cc recv(): `if (partial_window_deflation_ == 0) dupwnd_ = 0;`
                s.cwnd = self.base;
            }
        }
        AckVerdict {
            grow: false,
            // RFC 6582 "Impatient" and ns-2's newreno_changes1_ (1 in 2.35): only the first
            // partial ACK restarts the timer (partialnewack_helper(): newtimer() once).
            restart_timer: self.partial_acks == 1 || s.timer_every_partial_ack,
        }
    }

    pub fn on_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.partial_acks = 0;
    }
}
