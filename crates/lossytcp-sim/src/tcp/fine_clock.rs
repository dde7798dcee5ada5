//! Vegas's fine-grained clock (Brakmo & Peterson 1995, Section 3.1; ns-2 2.35 tcp-vegas.cc):
//! the send time and transmission count of every segment in the window, RTT samples taken
//! from them with the real clock instead of coarse ticks, BaseRTT (the smallest RTT seen) and
//! the fine timeout that lets a duplicate ACK retransmit early. Both halves of Vegas read it,
//! the window rule (`cc::vegas`) and the retransmission rule (`recovery::vegas`), so it lives
//! in the shared sender state rather than in either plugin.
//!
//! Times are seconds since the first transmission, as f64, because the ns2 profile has to
//! reproduce ns-2's arithmetic on `vegastime()`, including its quirks (see `ns2`).

use crate::time::Time;

/// A send-time slot that holds no transmission (ns-2's `-1.0`).
const NONE: f64 = -1.0;

#[derive(Clone, Debug)]
pub struct FineClock {
    /// Reproduce ns-2 2.35's bookkeeping exactly: the ring is cleared only for ACK ranges
    /// that do not wrap around it, segment 0's send time (0.0) never gives a sample, sending
    /// segment 0 clears the ring, and the time origin moves when a send starts from segment 0.
    ns2: bool,
    /// `firstsent_`: when the first segment went out (the origin of all times below).
    origin: Option<Time>,
    /// The time of the event being processed.
    now: Time,
    /// Per segment `seq % len`: latest send time and number of transmissions
    /// (`v_sendtime_`, `v_transmits_`; ns-2 sizes them by the advertised window).
    sent_at: Vec<f64>,
    transmits: Vec<u32>,
    first_ack_seen: bool,
    /// `v_baseRTT_`: the smallest RTT measured.
    pub base_rtt: f64,
    /// `v_sa_` (8 x smoothed RTT) and `v_sd_` (4 x mean deviation), as in 4.4BSD.
    sa: f64,
    sd: f64,
    /// `v_timeout_`: the fine-grained retransmission timeout.
    pub timeout: f64,
    /// Samples since the last once-per-RTT decision (`v_sumRTT_`, `v_cntRTT_`).
    sum: f64,
    count: u32,
}

impl FineClock {
    pub fn new(window: u32, ns2: bool) -> Self {
        let n = window.max(1) as usize;
        Self {
            ns2,
            origin: None,
            now: Time::ZERO,
            sent_at: vec![NONE; n],
            transmits: vec![0; n],
            first_ack_seen: false,
            // tcp-vegas.cc reset(): no sample yet
            base_rtt: 1e9,
            sa: 0.0,
            sd: 0.0,
            timeout: 1000.0,
            sum: 0.0,
            count: 0,
        }
    }

    /// Sets the time of the event being processed.
    pub fn at(&mut self, now: Time) {
        self.now = now;
    }

    /// `vegastime()`: seconds since the first transmission.
    pub fn now(&self) -> f64 {
        self.since_origin(self.now)
    }

    fn since_origin(&self, t: Time) -> f64 {
        match self.origin {
            Some(o) => t.since(o).as_secs(),
            None => t.as_secs(),
        }
    }

    fn slot(&self, seq: u64) -> usize {
        (seq % self.sent_at.len() as u64) as usize
    }

    /// A round of sending starts with `snd_nxt` next. ns-2's send_much() sets `firstsent_`
    /// whenever `t_seqno_ == 0`, also after a timeout that goes back to segment 0.
    pub fn sending_from(&mut self, snd_nxt: u64) {
        if snd_nxt == 0 && (self.ns2 || self.origin.is_none()) {
            self.origin = Some(self.now);
        }
    }

    /// Segment `seq` is transmitted now.
    pub fn record(&mut self, seq: u64) {
        if self.ns2 && seq == 0 {
            // tcp-vegas.cc output(): segment 0 (re)allocates both arrays.
            self.sent_at.fill(NONE);
            self.transmits.fill(0);
        }
        let i = self.slot(seq);
        self.sent_at[i] = self.now();
        self.transmits[i] += 1;
    }

    pub fn send_time(&self, seq: u64) -> f64 {
        self.sent_at[self.slot(seq)]
    }

    pub fn transmissions(&self, seq: u64) -> u32 {
        self.transmits[self.slot(seq)]
    }

    /// `vegas_expire()`: segment `seq` has waited a fine timeout since it was last sent. An
    /// empty slot counts from time -1 in ns-2 (so it has expired); the rfc profile never
    /// retransmits a segment it has no send time for.
    pub fn expired(&self, seq: u64) -> bool {
        let sent = self.send_time(seq);
        if sent == NONE && !self.ns2 {
            return false;
        }
        self.now() - sent >= self.timeout
    }

    /// Every ACK, duplicate or not: the first one seeds the estimator with the time since the
    /// first transmission (tcp-vegas.cc recv(), `firstrecv_ < 0`).
    pub fn on_ack_arrival(&mut self) {
        if !self.first_ack_seen {
            self.first_ack_seen = true;
            let rtt = self.now();
            self.base_rtt = rtt;
            self.sa = 8.0 * rtt;
            self.sd = rtt;
            self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
        }
    }

    /// A new cumulative ACK moved `snd_una` from `old_una` to `una`: take a sample from the
    /// newest segment it covers if that was sent once, and forget the covered segments.
    pub fn on_new_ack(&mut self, old_una: u64, una: u64) {
        let last = una - 1; // ns-2 names an ACK by the last segment received in order
        let sent = self.send_time(last);
        let transmits = self.transmissions(last);
        self.forget(old_una, una);
        let valid = if self.ns2 {
            sent != 0.0 // segment 0 is sent at vegastime 0 and never timed
        } else {
            sent != NONE
        };
        if !(valid && transmits == 1) {
            return;
        }
        let rtt = self.now() - sent;
        self.sum += rtt;
        self.count += 1;
        if rtt > 0.0 {
            self.base_rtt = self.base_rtt.min(rtt);
            // 4.4BSD's estimator on the fine clock, then Vegas's 1/16 margin.
            let mut n = rtt - self.sa / 8.0;
            self.sa += n;
            n = n.abs() - self.sd / 4.0;
            self.sd += n;
            self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
            self.timeout += self.timeout / 16.0;
        }
    }

    fn forget(&mut self, old_una: u64, una: u64) {
        let n = self.sent_at.len();
        let mut range = una - old_una;
        let mut k = self.slot(old_una);
        if self.ns2 {
            // tcp-vegas.cc walks k from (oldack + 1) % n while k <= seqno % n: a range that
            // wraps around the ring clears nothing, and its slots keep counting transmissions.
            let end = self.slot(una - 1);
            while k <= end && range > 0 {
                self.sent_at[k] = NONE;
                self.transmits[k] = 0;
                k = (k + 1) % n;
                range -= 1;
            }
        } else {
            for _ in 0..range.min(n as u64) {
                self.sent_at[k] = NONE;
                self.transmits[k] = 0;
                k = (k + 1) % n;
            }
        }
    }

    /// The mean of the samples since the last call, if any (and starts a new round).
    pub fn take_round_mean(&mut self) -> Option<f64> {
        let mean = (self.count > 0).then(|| self.sum / f64::from(self.count));
        self.sum = 0.0;
        self.count = 0;
        mean
    }

    /// The fine timeout after a fast retransmission: doubled if the segment had been
    /// retransmitted before, else 1/8 longer (tcp-vegas.cc recv(), duplicate ACK).
    pub fn back_off(&mut self, retransmitted_before: bool) {
        if retransmitted_before {
            self.timeout *= 2.0;
        } else {
            self.timeout += self.timeout / 8.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    fn at(c: &mut FineClock, ms: u64) {
        c.at(Time::ZERO + Dur::from_secs(ms as f64 / 1000.0));
    }

    #[test]
    fn first_ack_seeds_the_estimator_and_segment_zero_is_never_timed_in_ns2() {
        let mut c = FineClock::new(8, true);
        c.sending_from(0);
        c.record(0);
        at(&mut c, 1);
        c.record(1);
        at(&mut c, 100);
        c.on_ack_arrival();
        assert_eq!(c.base_rtt, 0.1);
        assert!(
            (c.timeout - 0.15).abs() < 1e-12,
            "((8 rtt)/4 + rtt)/2 = 1.5 rtt"
        );
        c.on_new_ack(0, 1);
        assert_eq!(
            c.take_round_mean(),
            None,
            "sent at vegastime 0.0: no sample"
        );
        at(&mut c, 102);
        c.on_new_ack(1, 2);
        assert!((c.take_round_mean().unwrap() - 0.101).abs() < 1e-12);
        assert_eq!(c.take_round_mean(), None, "a new round starts empty");
    }

    #[test]
    fn ns2_keeps_slots_of_an_ack_range_that_wraps_the_ring() {
        let mut c = FineClock::new(4, true);
        c.sending_from(0);
        for s in 0..4 {
            c.record(s);
        }
        at(&mut c, 50);
        c.on_new_ack(0, 3); // slots 0..=2 cleared
        assert_eq!(c.transmissions(2), 0);
        c.record(4);
        c.record(5);
        c.on_new_ack(3, 6); // slots 3, 0, 1: wraps, nothing cleared
        assert_eq!(c.transmissions(3), 1);
        c.record(7); // slot 3 again
        assert_eq!(c.transmissions(7), 2, "counted as a retransmission by ns-2");
        let mut r = FineClock::new(4, false);
        r.sending_from(0);
        for s in 0..6 {
            if s == 4 {
                r.on_new_ack(0, 3);
            }
            r.record(s);
        }
        r.on_new_ack(3, 6);
        r.record(7);
        assert_eq!(r.transmissions(7), 1);
    }

    #[test]
    fn expiry_and_backoff() {
        let mut c = FineClock::new(8, false);
        c.sending_from(0);
        c.record(0);
        at(&mut c, 100);
        c.on_ack_arrival(); // timeout 0.15
        c.record(1);
        at(&mut c, 249);
        assert!(!c.expired(1));
        at(&mut c, 251);
        assert!(c.expired(1));
        assert!(
            !c.expired(5),
            "never sent: no fine timeout in the rfc profile"
        );
        c.back_off(false);
        assert!((c.timeout - 0.16875).abs() < 1e-12);
        c.back_off(true);
        assert!((c.timeout - 0.3375).abs() < 1e-12);
    }
}
