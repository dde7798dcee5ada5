//! NewReno, RFC 6582: fast recovery lasts until everything outstanding at the loss is
//! acknowledged; each partial ACK retransmits the next hole.
//!
//! Partial-ACK window: RFC 6582 §3.2 step 5 deflates cwnd by the newly acknowledged amount
//! and adds back one segment. ns-2's `Agent/TCP/Newreno` (default `partial_window_deflation_
//! 0`) instead drops the inflation entirely, leaving cwnd = ssthresh: the behaviour of paper
//! 000 Table III, selected by the ns-2 profile.

use crate::config::Profile;
use crate::tcp::cc::Growth;
use crate::tcp::recovery::reno::enter_fast_recovery;
use crate::tcp::recovery::AckVerdict;
use crate::tcp::state::SenderState;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    partial_acks: u32,
}

impl NewReno {
    pub fn on_dupack(&mut self, s: &mut SenderState, g: &Growth) -> bool {
        let started = enter_fast_recovery(s, g);
        if started {
            self.partial_acks = 0;
        }
        started
    }

    pub fn on_new_ack(&mut self, s: &mut SenderState, newly: u64) -> AckVerdict {
        if !s.in_recovery {
            return AckVerdict::NORMAL;
        }
        let recover = s.recover.expect("in recovery after a loss event");
        if s.snd_una >= recover {
            // §3.2 step 3 (full ACK): exit with cwnd = ssthresh.
            s.in_recovery = false;
            s.cwnd = s.ssthresh;
            return AckVerdict {
                // ns-2 2.35 tcp-newreno.cc recv() also calls recv_newack_helper() ->
                // opencwnd() here (8 -> 8.125, as Reno), but paper 000 Table III, which
                // tests/paper000_tables.rs pins in this profile, has W = 4 exactly on this ACK;
                // until that is settled the ns2 profile keeps cwnd = ssthresh (ns2/README.md).
                grow: false,
                restart_timer: true,
            };
        }
        // §3.2 step 5 (partial ACK): retransmit the first unacknowledged segment.
        s.retransmit_now.push(s.snd_una);
        self.partial_acks += 1;
        match s.profile {
            Profile::Rfc => {
                s.cwnd = (s.cwnd - newly as f64 + 1.0).max(1.0);
                // "For the first partial ACK ... also reset the retransmit timer" (Impatient).
                AckVerdict {
                    grow: false,
                    restart_timer: self.partial_acks == 1,
                }
            }
            Profile::Ns2 => {
                s.cwnd = s.ssthresh;
                AckVerdict {
                    grow: false,
                    restart_timer: true,
                }
            }
        }
    }

    pub fn on_timeout(&mut self, s: &mut SenderState) {
        s.in_recovery = false;
        self.partial_acks = 0;
    }
}
