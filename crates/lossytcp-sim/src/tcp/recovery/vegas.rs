//! TCP Vegas's retransmission rule (Brakmo & Peterson 1995, Section 3.1), as ns-2 2.35's
//! `Agent/TCP/Vegas` (tcp-vegas.cc recv() and timeout()).
//!
//! * A duplicate ACK retransmits the first unacknowledged segment at once if it has waited
//!   longer than the fine timeout (`FineClock::expired`), else on the DupThresh-th one.
//! * The window shrinks only if it has not already been cut since that segment was sent:
//!   to 3/4 (to 1/2 if the segment was a retransmission, to 2 if the window was 3 or less),
//!   then inflates by the duplicate ACKs so far, and one segment per further duplicate ACK.
//! * The first one or two new ACKs after such a retransmission check the next segment's
//!   fine timeout and retransmit it if it expired, catching a second loss without waiting
//!   for three more duplicate ACKs.
//! * The ACK that ends it all deflates the window to the cut value and sets ssthresh = 2
//!   (Vegas uses ssthresh only to leave slow start).
//! * A timeout restarts from a window of two segments (the growth plugin's cut).
//! * Between the first and the DupThresh-th duplicate ACK nothing new is sent.

use super::{AckVerdict, DupAck, Recovery};
use crate::tcp::state::{LossKind, SenderState};
use crate::tcp::Cut;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VegasRecoveryParams {
    /// The deflation may leave a window below two segments, even of 0: ns-2's Vegas after a
    /// timeout records no cut (`v_newcwnd_ = 0`), yet a retransmission on the ACKs that follow
    /// sets `dupacks_` and a further duplicate ACK inflates, so the next new ACK deflates to
    /// a window of 0 and the sender waits for the timer. Off: at least two segments.
    pub zero_window_deflation: bool,
    /// ns-2's Vegas restarts the coarse timer at a fast retransmit with `reset_rtx_timer(1)`,
    /// whose default second argument backs the RTO off as a timeout would (tcp-vegas.cc).
    pub rto_backoff_at_fast_retransmit: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Vegas {
    p: VegasRecoveryParams,
    /// ns-2's `dupacks_` as Vegas keeps it: set to DupThresh after a retransmission, so that
    /// further duplicate ACKs inflate the window and the next new ACK deflates it.
    dupacks: u32,
    /// `v_worried_`: new ACKs still to check for an expired segment.
    worried: u64,
    /// `v_newcwnd_`: the cut window, before inflation.
    cut_window: f64,
    /// `t_cwnd_changed_`: fine time of the last cut.
    cut_at: f64,
    /// `last_cwnd_action_ == CWND_ACTION_TIMEOUT`: with `recover`, ns-2's `bugFix_` guard.
    after_timeout: bool,
}

/// The smallest window a deflation leaves, unless `zero_window_deflation`.
const MIN_DEFLATED: f64 = 2.0;

impl Vegas {
    pub fn new(p: VegasRecoveryParams) -> Self {
        Self {
            p,
            ..Self::default()
        }
    }

    /// New data waits while the duplicate ACKs are fewer than DupThresh (ns-2 recv():
    /// `if (dupacks_ == 0 || dupacks_ > numdupacks_ - 1) send_much(...)`).
    pub fn holds_new_data(&self, s: &SenderState) -> bool {
        self.dupacks > 0 && self.dupacks < s.dupthresh
    }
}

impl Recovery for Vegas {
    fn on_dupack(&mut self, s: &mut SenderState) -> DupAck {
        self.dupacks += 1;
        let una = s.snd_una;
        let Some(clock) = &s.fine else {
            return DupAck::Nothing;
        };
        if !clock.expired(una) && self.dupacks != s.dupthresh {
            if self.dupacks > s.dupthresh {
                s.cwnd += 1.0;
            }
            return DupAck::Nothing;
        }
        // ns-2 `bugFix_`: after a timeout, no fast retransmit until `recover` is passed.
        if self.after_timeout && !s.may_start_recovery() {
            return DupAck::Nothing;
        }
        // The window shrinks only if it was not cut since the segment was sent.
        if self.cut_at < clock.send_time(una) {
            DupAck::Enter
        } else {
            DupAck::EnterWithoutCut
        }
    }

    fn enter(&mut self, s: &mut SenderState, cut: Option<Cut>) {
        let una = s.snd_una;
        let (retransmitted, now) = match &s.fine {
            Some(c) => (c.transmissions(una) > 1, c.now()),
            None => (false, 0.0),
        };
        self.after_timeout = false;
        self.worried = (s.snd_nxt + 1 - una).min(2);
        if let Some(c) = &mut s.fine {
            c.back_off(retransmitted);
        }
        if let Some(c) = cut {
            self.cut_window = c.cwnd;
            s.ssthresh = c.ssthresh;
            s.cwnd = self.cut_window + f64::from(self.dupacks);
            self.cut_at = now;
        }
        s.note_loss(LossKind::FastRetransmit);
        s.retransmit_now.push(una);
        if !retransmitted {
            self.dupacks = s.dupthresh;
        }
    }

    #[inline]
    fn on_new_ack(&mut self, s: &mut SenderState, _newly: u64) -> AckVerdict {
        if self.dupacks > s.dupthresh && s.cwnd > self.cut_window {
            s.cwnd = if self.p.zero_window_deflation {
                self.cut_window
            } else {
                self.cut_window.max(MIN_DEFLATED)
            };
            s.ssthresh = 2.0;
        }
        self.dupacks = 0;
        AckVerdict::NORMAL
    }

    /// After the window rule and the fine clock have seen the new ACK: the first one or two
    /// new ACKs after a retransmission retransmit the next segment if its fine timeout expired.
    #[inline]
    fn after_new_ack(&mut self, s: &mut SenderState) {
        if self.worried == 0 {
            return;
        }
        self.worried -= 1;
        if s.fine.as_ref().is_some_and(|c| c.expired(s.snd_una)) {
            self.dupacks = s.dupthresh;
            s.retransmit_now.push(s.snd_una);
        } else {
            self.worried = 0;
        }
    }

    /// A timeout records no cut (`v_newcwnd_ = 0`); the growth plugin restarts the window.
    fn on_timeout(&mut self, s: &mut SenderState) -> bool {
        self.dupacks = 0;
        self.after_timeout = true;
        self.cut_window = 0.0;
        if let Some(c) = &s.fine {
            self.cut_at = c.now();
        }
        false
    }

    #[inline]
    fn burst_cap(&self, s: &SenderState) -> Option<u32> {
        self.holds_new_data(s).then_some(0)
    }

    fn backs_off_rto_at_fast_retransmit(&self) -> bool {
        self.p.rto_backoff_at_fast_retransmit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{Growth, Vegas as VegasGrowth, VegasGrowthParams};
    use crate::tcp::fine_clock::FineClock;
    use crate::tcp::view::Conn;
    use crate::tcp::{AckCtx, CongestionKind};
    use crate::time::{Dur, Time};

    /// A duplicate ACK as the sender handles it: the cut comes from Vegas's growth plugin.
    /// True when a retransmission started.
    fn dup(r: &mut Vegas, s: &mut SenderState) -> bool {
        let mut g = VegasGrowth::new(VegasGrowthParams::default());
        match r.on_dupack(s) {
            DupAck::Nothing => false,
            DupAck::Enter => {
                let c = g.on_congestion_event(
                    &Conn::new(s),
                    CongestionKind::FastRetransmit,
                    &AckCtx::default(),
                );
                r.enter(s, Some(c));
                true
            }
            DupAck::EnterWithoutCut => {
                r.enter(s, None);
                true
            }
        }
    }

    /// A timeout as the sender handles it.
    fn timeout(r: &mut Vegas, s: &mut SenderState) {
        let mut g = VegasGrowth::new(VegasGrowthParams::default());
        r.on_timeout(s);
        let c = g.on_congestion_event(&Conn::new(s), CongestionKind::Timeout, &AckCtx::default());
        s.take(c);
        r.after_timeout(s);
    }

    /// Segments 0..4 sent at 0 ms, 4..10 at 10 ms, the first ACK at 100 ms (fine timeout
    /// 150 ms). The last cut was at 0 ms.
    fn setup(cwnd: f64) -> SenderState {
        let mut s = SenderState::new(2, 64, 3, u64::MAX);
        let mut c = FineClock::new(64, false);
        c.sending_from(0);
        for q in 0..10 {
            if q == 4 {
                c.at(Time::ZERO + Dur::from_secs(0.01));
            }
            c.record(q);
        }
        c.at(Time::ZERO + Dur::from_secs(0.1));
        c.on_ack_arrival();
        s.fine = Some(c);
        s.cwnd = cwnd;
        s.snd_una = 4;
        s.snd_nxt = 10;
        s.snd_max = 10;
        s
    }

    fn at(s: &mut SenderState, secs: f64) {
        s.fine
            .as_mut()
            .unwrap()
            .at(Time::ZERO + Dur::from_secs(secs));
    }

    #[test]
    fn third_dupack_cuts_to_three_quarters_and_inflates() {
        let mut s = setup(8.0);
        let mut r = Vegas::default();
        at(&mut s, 0.1); // 90 ms since segment 4 was sent: not expired
        assert!(!dup(&mut r, &mut s));
        assert!(r.holds_new_data(&s));
        assert!(!dup(&mut r, &mut s));
        assert!(dup(&mut r, &mut s));
        assert_eq!(s.retransmit_now, vec![4]);
        assert_eq!(s.cwnd, 6.0 + 3.0, "8 - 8/4, inflated by three dupacks");
        assert!(!r.holds_new_data(&s));
        assert!(!dup(&mut r, &mut s));
        assert_eq!(s.cwnd, 10.0);
        r.on_new_ack(&mut s, 1);
        assert_eq!((s.cwnd, s.ssthresh), (6.0, 2.0));
    }

    #[test]
    fn an_expired_segment_goes_on_the_first_dupack() {
        let mut s = setup(8.0);
        let mut r = Vegas::default();
        at(&mut s, 0.17); // 160 ms > 150 ms
        assert!(dup(&mut r, &mut s));
        assert_eq!(s.retransmit_now, vec![4]);
        assert_eq!(s.cwnd, 6.0 + 1.0);
        assert_eq!(r.dupacks, 3, "a first retransmission jumps to DupThresh");
    }

    #[test]
    fn the_next_new_acks_retransmit_expired_segments() {
        let mut s = setup(8.0);
        let mut r = Vegas::default();
        at(&mut s, 0.17);
        dup(&mut r, &mut s);
        s.retransmit_now.clear();
        s.fine.as_mut().unwrap().record(4);
        at(&mut s, 0.27);
        s.snd_una = 5;
        r.on_new_ack(&mut s, 1);
        r.after_new_ack(&mut s);
        assert_eq!(
            s.retransmit_now,
            vec![5],
            "segment 5 waited 260 ms > 169 ms"
        );
        r.after_new_ack(&mut s);
        r.after_new_ack(&mut s);
        assert_eq!(
            s.retransmit_now,
            vec![5, 5],
            "two new ACKs are checked, not three"
        );
        assert_eq!(r.dupacks, 3);
    }

    #[test]
    fn no_second_cut_for_a_segment_sent_before_the_last_cut() {
        let mut s = setup(8.0);
        let mut r = Vegas::default();
        at(&mut s, 0.17);
        dup(&mut r, &mut s); // cut at 170 ms to 6
        s.snd_una = 5;
        r.on_new_ack(&mut s, 1);
        assert_eq!(
            s.cwnd, 7.0,
            "dupacks_ = DupThresh is not above it: no deflation"
        );
        dup(&mut r, &mut s);
        dup(&mut r, &mut s);
        assert!(dup(&mut r, &mut s), "segment 5 retransmitted");
        assert_eq!(
            s.cwnd, 7.0,
            "segment 5 was sent before the cut: no second cut"
        );
    }

    #[test]
    fn deflation_after_a_timeout_without_a_cut() {
        // A timeout records no cut (ns-2 `v_newcwnd_ = 0`); a new ACK then finds segment 4
        // expired and retransmits it (dupacks_ = 3), a duplicate ACK inflates (4 > 3), and
        // the next new ACK deflates: ns-2 to a window of 0, the rfc profile to two segments.
        for (zero_window_deflation, deflated) in [(true, 0.0), (false, 2.0)] {
            let mut s = setup(8.0);
            let mut r = Vegas::new(VegasRecoveryParams {
                zero_window_deflation,
                ..VegasRecoveryParams::default()
            });
            timeout(&mut r, &mut s);
            r.worried = 1;
            at(&mut s, 0.5);
            r.on_new_ack(&mut s, 1);
            r.after_new_ack(&mut s);
            assert_eq!(s.retransmit_now, vec![4]);
            s.fine.as_mut().unwrap().record(4);
            assert!(!dup(&mut r, &mut s));
            assert_eq!(s.cwnd, 3.0);
            r.on_new_ack(&mut s, 1);
            assert_eq!(
                (s.cwnd, s.ssthresh),
                (deflated, 2.0),
                "{zero_window_deflation}"
            );
        }
    }

    #[test]
    fn timeout_restarts_from_two_and_guards_fast_retransmit() {
        let mut s = setup(8.0);
        let mut r = Vegas::default();
        s.note_loss(LossKind::Timeout); // recover = snd_max = 10
        timeout(&mut r, &mut s);
        assert_eq!(s.cwnd, 2.0);
        at(&mut s, 1.0);
        for _ in 0..5 {
            assert!(!dup(&mut r, &mut s), "recover not passed");
        }
        s.snd_una = 11;
        s.snd_max = 12;
        r.on_new_ack(&mut s, 1);
        dup(&mut r, &mut s);
        dup(&mut r, &mut s);
        assert!(dup(&mut r, &mut s));
    }
}
