//! The variables every variant shares, in segments (RFC 5681 names where they exist).

use crate::config::Profile;
use crate::tcp::fine_clock::FineClock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    Timeout,
    FastRetransmit,
}

/// A loss-detection event, reported so the simulator (which knows the truth) can tell
/// whether the segment was really lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossEvent {
    pub kind: LossKind,
    pub seq: u64,
}

#[derive(Clone, Debug)]
pub struct SenderState {
    /// Oldest unacknowledged segment (RFC 793 SND.UNA).
    pub snd_una: u64,
    /// Next segment to send; pulled back to `snd_una` by go-back-N after a timeout.
    pub snd_nxt: u64,
    /// One past the highest segment ever sent (HighData + 1).
    pub snd_max: u64,
    /// Congestion window in segments; fractional growth in congestion avoidance.
    pub cwnd: f64,
    pub ssthresh: f64,
    pub dupacks: u32,
    /// `snd_max` at the last loss event: RFC 6582's `recover` (+1), the bound a cumulative
    /// ACK must pass before a new fast retransmit.
    pub recover: Option<u64>,
    pub in_recovery: bool,
    pub max_window: u32,
    pub dupthresh: u32,
    pub profile: Profile,
    /// Segments the application has made available (u64::MAX for a bulk sender).
    pub limit: u64,
    /// Retransmissions recovery asked for, sent before anything else and outside the window
    /// (RFC 5681 §3.2 step 2: the fast retransmit does not wait for the window).
    pub retransmit_now: Vec<u64>,
    pub events: Vec<LossEvent>,
    /// TcpConfig::partial_window_deflation, resolved (NewReno partial ACKs).
    pub partial_window_deflation: bool,
    /// ns-2's cwnd_ at the start of fast recovery: slowdown(CLOSE_CWND_HALF) sets it to
    /// `int(window() / 2)`, which the `ssthresh_ >= 2` floor does not touch.
    pub recovery_base: f64,
    /// TcpConfig::recovery_exit_growth, resolved (the ACK ending fast recovery opens cwnd).
    pub recovery_exit_growth: bool,
    /// TcpConfig::timer_every_partial_ack, resolved (NewReno's Slow-but-Steady timer).
    pub timer_every_partial_ack: bool,
    /// Per-segment fine-grained timing, for the variants that use it (Vegas).
    pub fine: Option<FineClock>,
}

impl SenderState {
    pub fn new(
        initial_window: u32,
        max_window: u32,
        dupthresh: u32,
        profile: Profile,
        limit: u64,
    ) -> Self {
        Self {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: initial_window as f64,
            ssthresh: match profile {
                // RFC 5681 §3.1: "arbitrarily high".
                Profile::Rfc => f64::from(max_window).max(2.0) * 64.0,
                // ns-2 resets every agent when the run starts (Simulator run -> node reset),
                // and TcpAgent::reset() sets `ssthresh_ = int(wnd_)`, whatever the script
                // set before (seen in ns-2's ssthresh_ trace: 1024 -> 16 at time 0).
                // Vegas is in congestion avoidance from the window on; Reno's growth only
                // changes beyond the window, where it does not limit sending.
                Profile::Ns2 => f64::from(max_window),
            },
            dupacks: 0,
            recover: None,
            in_recovery: false,
            max_window,
            dupthresh,
            profile,
            limit,
            retransmit_now: Vec::new(),
            events: Vec::new(),
            partial_window_deflation: true,
            recovery_base: 0.0,
            recovery_exit_growth: false,
            timer_every_partial_ack: false,
            fine: None,
        }
    }

    /// RFC 5681 eq. (4)'s FlightSize, in segments.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The window that limits sending: min(cwnd, advertised window), whole segments; at least
    /// one in the rfc profile. ns-2's window() is `int(cwnd_)` with no floor: its Vegas can
    /// deflate to a window of 0 and then waits for the timer.
    pub fn usable_window(&self) -> u64 {
        // `as` truncates (= floor for cwnd >= 0, and NaN or negatives give 0): f64::floor is a
        // libm call on baseline x86-64 and this runs for every segment sent.
        let w = self.cwnd as u64;
        let w = if self.profile == Profile::Rfc {
            w.max(1)
        } else {
            w
        };
        w.min(u64::from(self.max_window))
    }

    /// Nothing is outstanding but the application has more: RFC 6298 §5.2 stops the timer,
    /// ns-2's newtimer() restarts it on every new ACK (after newack() `t_seqno_ > seqno`
    /// always holds), so a sender whose window is 0 times out.
    pub fn timer_runs_when_idle(&self) -> bool {
        self.profile == Profile::Ns2 && self.snd_una < self.limit
    }

    /// RFC 6582 §3.2 step 1 (and ns-2's `bugfix_`): after a loss event, a new one may start
    /// only once a cumulative ACK covers more than `recover`.
    pub fn may_start_recovery(&self) -> bool {
        self.recover.is_none_or(|r| self.snd_una > r)
    }

    /// The window-limited next segment: what every variant but SACK-in-recovery sends.
    pub fn next_in_window(&mut self) -> Option<u64> {
        if self.snd_nxt < self.snd_una + self.usable_window() && self.snd_nxt < self.limit {
            let s = self.snd_nxt;
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            Some(s)
        } else {
            None
        }
    }

    /// The cwnd a fast retransmit leaves before any inflation: ssthresh for RFC 5681; ns-2
    /// 2.35 tcp.cc slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF) with `precision_reduce_`
    /// (a C++ default, no Tcl binding): `halfwin = windowd() / 2` unrounded,
    /// `ssthresh_ = max(int(halfwin), 2)`, `cwnd_ = halfwin`: cwnd keeps the fraction (11.306
    /// -> 5.653, seen in ns-2's cwnd_ trace) and below a window of 4 is under ssthresh.
    /// Call before cwnd changes.
    pub fn halved_window(&self, ssthresh: f64) -> f64 {
        match self.profile {
            Profile::Rfc => ssthresh,
            Profile::Ns2 => self.cwnd.min(f64::from(self.max_window)) / 2.0,
        }
    }

    /// The part of a loss reaction every variant shares: record it and remember `recover`.
    pub fn note_loss(&mut self, kind: LossKind) {
        self.events.push(LossEvent {
            kind,
            seq: self.snd_una,
        });
        self.recover = Some(self.snd_max);
        self.dupacks = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::Reno;

    #[test]
    fn ns2_halves_the_window_without_the_floor_of_two() {
        // ns-2 slowdown(): window 3 -> halfwin = 1.5, ssthresh_ = max(int(1.5), 2) = 2,
        // cwnd_ = 1.5; window 9.7 -> 4.85 and ssthresh 4; the receiver's window caps it.
        for (cwnd, ssthresh, half) in [
            (3.0, 2.0, 1.5),
            (9.7, 4.0, 4.85),
            (2.0, 2.0, 1.0),
            (80.0, 32.0, 32.0),
        ] {
            let mut s = SenderState::new(1, 64, 3, Profile::Ns2, u64::MAX);
            s.cwnd = cwnd;
            let th = Reno.ssthresh_on_loss(&s);
            assert_eq!(th, ssthresh);
            assert_eq!(s.halved_window(th), half);
        }
        // RFC 5681 §3.2 step 2-3: cwnd follows ssthresh.
        let mut s = SenderState::new(1, 64, 3, Profile::Rfc, u64::MAX);
        s.cwnd = 3.0;
        s.snd_max = 3;
        assert_eq!(s.halved_window(2.0), 2.0);
    }
}
