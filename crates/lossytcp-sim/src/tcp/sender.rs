//! The TCP sender: shared ACK/timeout mechanics around the growth and recovery plugins.

use crate::config::{Profile, RtoEstimator, RttSampling, TcpConfig, Variant};
use crate::tcp::cc::Growth;
use crate::tcp::fine_clock::FineClock;
use crate::tcp::recovery::Recovery;
use crate::tcp::rtt::{RttConfig, RttEstimator};
use crate::tcp::state::{LossEvent, LossKind, SenderState};
use crate::tcp::variant;
use crate::time::{Dur, Time};

/// A data segment the sender wants on the wire now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub retransmission: bool,
}

/// Send time and retransmission mark of the latest transmission of each segment in the
/// window (Karn's rule), in a ring indexed by `seq & mask`.
#[derive(Clone, Debug)]
struct SendLog {
    seq: Vec<u64>,
    at: Vec<Time>,
    /// First transmission of `seq` (for `RtoEstimator::LastSample`'s timestamp samples).
    first: Vec<Time>,
    retx: Vec<bool>,
    mask: u64,
}

impl SendLog {
    fn new(window: u32) -> Self {
        let n = (u64::from(window) + 2).next_power_of_two() as usize;
        Self {
            seq: vec![u64::MAX; n],
            at: vec![Time::ZERO; n],
            first: vec![Time::ZERO; n],
            retx: vec![false; n],
            mask: n as u64 - 1,
        }
    }
    fn record(&mut self, seq: u64, at: Time, retx: bool) {
        let i = (seq & self.mask) as usize;
        let retx = retx || self.seq[i] == seq && self.retx[i];
        if self.seq[i] != seq {
            self.first[i] = at;
        }
        self.seq[i] = seq;
        self.at[i] = at;
        self.retx[i] = retx;
    }
    /// Send time of `seq` if it was transmitted exactly once.
    fn clean_send_time(&self, seq: u64) -> Option<Time> {
        let i = (seq & self.mask) as usize;
        (self.seq[i] == seq && !self.retx[i]).then_some(self.at[i])
    }
    /// First send time of `seq`, retransmitted or not.
    fn first_send_time(&self, seq: u64) -> Option<Time> {
        let i = (seq & self.mask) as usize;
        (self.seq[i] == seq).then_some(self.first[i])
    }
}

pub struct Sender {
    pub state: SenderState,
    growth: Growth,
    recovery: Recovery,
    rtt: RttEstimator,
    sampling: RttSampling,
    /// Paper 001's timer (`RtoEstimator::LastSample`) assumes the timestamp option: every new
    /// ACK gives a sample. On a path that loses nothing (the only one it is accepted on) the
    /// ACK is always the original's, whose echoed timestamp is its first send time.
    timestamp_samples: bool,
    log: SendLog,
    /// Per-window sampling: the timed segment and when it was sent.
    timed: Option<(u64, Time)>,
    rto_deadline: Option<Time>,
    /// RFC 3042 limited transmit on the first DupThresh - 1 duplicate ACKs.
    limited_transmit: bool,
    /// ns-2 `delay_growth_`: the ACK of segment 0 sets cwnd to the initial window.
    delay_growth: bool,
    /// Vegas tests `delay_growth_` at another ACK (see on_ack).
    vegas: bool,
    initial_window: f64,
    /// Duplicate ACKs since the last new ACK. Unlike `state.dupacks` a loss event does not
    /// clear it: ns-2's `dupacks_` is reset only by `newack()`, and `send_one()` is gated on it.
    dup_run: u32,
}

impl Sender {
    pub fn new(variant: Variant, cfg: &TcpConfig, limit: u64) -> Self {
        let (growth, recovery) = variant::build(variant, cfg.vegas);
        let mut rtt = RttEstimator::new(RttConfig {
            min_rto: Dur::from_secs(cfg.min_rto_s),
            max_rto: Dur::from_secs(cfg.max_rto_s),
            initial_rto: Dur::from_secs(cfg.initial_rto_s),
            granularity: Dur::from_secs(cfg.granularity_s),
            fixed_rto: cfg.fixed_rto_s.map(Dur::from_secs),
            max_backoff: cfg.max_backoff,
            profile: cfg.profile,
            last_sample: cfg.rto_estimator == RtoEstimator::LastSample,
        });
        let sampling = match cfg.profile {
            Profile::Ns2 => RttSampling::PerWindow,
            Profile::Rfc => cfg.rtt_sampling,
        };
        let mut state = SenderState::new(
            cfg.initial_window,
            cfg.max_window,
            cfg.dupack_threshold,
            cfg.profile,
            limit,
        );
        state.partial_window_deflation = cfg.partial_window_deflation_on();
        state.recovery_exit_growth = cfg.recovery_exit_growth_on();
        state.timer_every_partial_ack = cfg.timer_every_partial_ack_on();
        let vegas = variant == Variant::Vegas;
        rtt.set_tick_phase(
            cfg.tick_phase
                .unwrap_or_else(|| variant::ns2_tick_phase(variant)),
        );
        if vegas {
            state.fine = Some(FineClock::new(cfg.max_window, cfg.profile == Profile::Ns2));
        }
        Self {
            state,
            growth,
            recovery,
            rtt,
            sampling,
            timestamp_samples: cfg.rto_estimator == RtoEstimator::LastSample,
            log: SendLog::new(cfg.max_window),
            timed: None,
            rto_deadline: None,
            // Vegas has its own rule for the first duplicate ACKs (ns-2's Vegas never calls
            // send_one()); the Python front refuses limited_transmit=True for it.
            limited_transmit: cfg.limited_transmit_on() && !vegas,
            delay_growth: cfg.delay_growth_on(),
            vegas,
            initial_window: f64::from(cfg.initial_window),
            dup_run: 0,
        }
    }

    pub fn wants_sack(&self) -> bool {
        self.recovery.wants_sack()
    }
    /// Bytes each SACK block adds to an ACK. ns-2 tcp-sink.cc Sacker::append_ack():
    /// `ch->size() += sack_index * 8` (two 4-byte edges per block, no option kind/length
    /// bytes or padding). The rfc profile keeps ACKs at their configured size.
    pub fn sack_block_bytes(&self) -> u32 {
        if self.state.profile == Profile::Ns2 && self.wants_sack() {
            8
        } else {
            0
        }
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// All the application's data is acknowledged.
    pub fn done(&self) -> bool {
        self.state.snd_una >= self.state.limit
    }

    fn arm_timer(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    fn transmit(&mut self, now: Time, seq: u64, retransmission: bool, out: &mut Vec<Segment>) {
        self.log.record(seq, now, retransmission);
        if let Some(c) = &mut self.state.fine {
            c.record(seq);
        }
        if retransmission {
            // Karn: a retransmission spoils any timing in flight for that segment. ns-2's
            // output() leaves `rtt_active_` alone on retransmissions: timing ends only at a
            // fast retransmit or timeout (`reset_rtx_timer()`, see on_ack and on_timeout).
            if self.state.profile != Profile::Ns2 && self.timed.is_some_and(|(t, _)| seq <= t) {
                self.timed = None;
            }
        } else if self.sampling == RttSampling::PerWindow && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer when a segment is sent and none is running.
            self.arm_timer(now);
        }
        out.push(Segment {
            seq,
            retransmission,
        });
    }

    fn send_pending(&mut self, now: Time, out: &mut Vec<Segment>) {
        let urgent = std::mem::take(&mut self.state.retransmit_now);
        for seq in urgent {
            // Vegas may "retransmit" a segment never sent when a stale slot of its fine clock
            // says it expired (ns-2 does); it is then new data, and the regular send of the
            // same segment that follows is the retransmission, as ns-2's counters have it.
            let retx = seq < self.state.snd_max;
            self.state.snd_max = self.state.snd_max.max(seq + 1);
            self.transmit(now, seq, retx, out);
        }
        let mut budget = self.recovery.burst_cap(&self.state).unwrap_or(u32::MAX);
        if budget > 0 {
            if let Some(c) = &mut self.state.fine {
                c.sending_from(self.state.snd_nxt);
            }
        }
        while budget > 0 {
            let high = self.state.snd_max;
            let Some(seq) = self.recovery.next_segment(&mut self.state) else {
                break;
            };
            self.transmit(now, seq, seq < high, out);
            budget -= 1;
        }
    }

    /// RFC 3042 limited transmit, as ns-2 tcp.cc `send_one()`: one segment if the receiver's
    /// window allows it and it lies within cwnd + the duplicate ACKs so far. ns-2's condition
    /// `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` with `highest_ack_ = snd_una - 1` (ns-2
    /// ACKs name the last segment received) compares a double: cwnd is not truncated here.
    fn send_one(&mut self, now: Time, out: &mut Vec<Segment>) {
        let s = &mut self.state;
        let seq = s.snd_nxt;
        let in_rwnd = seq < s.snd_una + u64::from(s.max_window);
        let in_cwnd = seq as f64 <= (s.snd_una as f64 - 1.0) + s.cwnd + f64::from(self.dup_run);
        if in_rwnd && in_cwnd && seq < s.limit {
            s.snd_nxt += 1;
            let retx = seq < s.snd_max;
            s.snd_max = s.snd_max.max(s.snd_nxt);
            self.transmit(now, seq, retx, out);
        }
    }

    fn clock_at(&mut self, now: Time) {
        if let Some(c) = &mut self.state.fine {
            c.at(now);
        }
    }

    /// Sends the initial window.
    pub fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.clock_at(now);
        self.send_pending(now, out);
    }

    /// An ACK arrived: `ack` is the next segment the receiver expects.
    pub fn on_ack(&mut self, now: Time, ack: u64, sack: &[(u64, u64)], out: &mut Vec<Segment>) {
        self.clock_at(now);
        let s = &mut self.state;
        if let Some(c) = &mut s.fine {
            c.on_ack_arrival();
        }
        let ack = ack.min(s.snd_max);
        self.recovery.on_sack_blocks(s, sack);
        if ack > s.snd_una {
            let newly = ack - s.snd_una;
            let old_una = s.snd_una;
            // tcp-vegas.cc recv() tests `last_ack_ == 0` before newack(): one ACK later than
            // tcp.cc does, and before the window rule.
            if self.delay_growth && self.vegas && old_una == 1 {
                s.cwnd = self.initial_window;
            }
            if self.recovery.ns2_partial_ack(s, ack) {
                if self.recovery.ns2_partial_ends_timing() {
                    // ns-2 tcp-newreno.cc partialnewack(): `if (rtt_active_ && seqno >=
                    // rtt_seq_) { rtt_active_ = 0; t_backoff_ = 1; }`: timing ends, no sample.
                    if self.timed.is_some_and(|(seq, _)| ack > seq) {
                        self.timed = None;
                        self.rtt.end_backoff();
                    }
                } else {
                    // tcp-sack1.cc recv(), partial ACK: `t_backoff_ = 1`, no sample.
                    self.rtt.end_backoff();
                }
            } else {
                match self.sampling {
                    RttSampling::PerAck => {
                        let sent = if self.timestamp_samples {
                            self.log.first_send_time(ack - 1)
                        } else {
                            self.log.clean_send_time(ack - 1)
                        };
                        if let Some(t) = sent {
                            self.rtt.sample(now - t);
                        }
                    }
                    RttSampling::PerWindow => {
                        if let Some((seq, t)) = self.timed {
                            if ack > seq {
                                self.rtt.sample_sent(t, now);
                                self.timed = None;
                            }
                        }
                    }
                }
            }
            s.snd_una = ack;
            s.snd_nxt = s.snd_nxt.max(ack);
            s.dupacks = 0;
            let verdict = self.recovery.on_new_ack(s, newly);
            if verdict.grow {
                self.growth.on_ack(s, newly);
            }
            if let Some(c) = &mut s.fine {
                c.on_new_ack(old_una, ack);
            }
            self.recovery.after_new_ack(s);
            self.dup_run = 0;
            // ns-2 tcp.cc recv(): `if (last_ack_ == 0 && delay_growth_) cwnd_ =
            // initial_window();` after the new ACK was processed. ns-2 numbers an ACK by the
            // last segment received in order, so its last_ack_ == 0 is our ack == 1.
            if self.delay_growth && !self.vegas && ack == 1 {
                s.cwnd = self.initial_window;
            }
            let idle = s.snd_una >= s.snd_max;
            if idle && !s.timer_runs_when_idle() {
                self.rto_deadline = None; // RFC 6298 §5.2
            } else if idle || verdict.restart_timer {
                self.arm_timer(now); // §5.3
            }
        } else if ack == s.snd_una && s.snd_una < s.snd_max && !self.recovery.ns2_ignores_dupack(s)
        {
            s.dupacks += 1;
            self.dup_run += 1;
            if self.recovery.on_dupack(s, &self.growth) {
                if self.recovery.ns2_backs_off_at_fast_retransmit(&self.state) {
                    self.rtt.back_off();
                }
                self.arm_timer(now);
                if self.state.profile == Profile::Ns2 {
                    self.timed = None; // reset_rtx_timer(1, 0): rtt_active_ = 0
                }
            }
            if self.limited_transmit
                && self.dup_run < self.state.dupthresh
                && !self.state.in_recovery
            {
                self.send_one(now, out);
            }
        }
        self.send_pending(now, out);
    }

    /// The retransmission timer fired at `now` (the caller checks the deadline).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.clock_at(now);
        self.rto_deadline = None;
        let s = &mut self.state;
        if s.snd_una >= s.snd_max && !s.timer_runs_when_idle() {
            return;
        }
        if self.recovery.ns2_timeout_prepare(s) {
            self.dup_run = 0;
        }
        // RFC 5681 §3.1 eq. (4) and the loss window of one segment; RFC 6298 §5.4-5.6.
        s.ssthresh = self.growth.ssthresh_on_loss(s);
        s.cwnd = 1.0;
        s.note_loss(LossKind::Timeout);
        s.snd_nxt = s.snd_una;
        self.recovery.on_timeout(s);
        self.rtt.back_off();
        self.timed = None;
        self.send_pending(now, out);
        if self.rto_deadline.is_none() && self.state.snd_una < self.state.snd_max {
            self.arm_timer(now);
        }
    }

    /// Loss events since the last call (the simulator classifies them as spurious or not).
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, LossEvent> {
        self.state.events.drain(..)
    }
}
