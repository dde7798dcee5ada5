//! The TCP sender: what every variant shares (ACK processing, duplicate-ACK counting, the
//! retransmission timer, RTT timing, the send log with delivery-rate samples, pacing), around
//! the growth and recovery plugins.

use super::cc::{CaEvent, Growth, GrowthImpl};
use super::config::{DelayGrowth, FineClockMode, SenderConfig};
use super::fine_clock::FineClock;
use super::linux_clock;
use super::loss_class::{wireless_cut, Classifier};
use super::rack::{Rack, RackCtx};
use super::rate::SendLog;
use super::recovery::{DupAck, PartialAckTiming, Recovery, RecoveryImpl};
use super::rtt::RttEstimator;
use super::state::{CaState, LossEvent, LossKind, SenderState};
use super::view::{Conn, Window};
use super::{AckCtx, CongestionKind, Cut, LossTruth};
use crate::config::RttSampling;
use crate::metrics::Undos;
use crate::packet::LossCause;
use crate::time::{Dur, Time};

/// A data segment the sender wants on the wire now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub retransmission: bool,
}

/// Where the sender's segments go as it sends them: a buffer the caller empties afterwards
/// (`Vec<Segment>`), or, for the pacing timer ([`Sender::on_pacing_timer_into`]), the
/// caller's wire itself.
pub trait SegmentSink {
    fn put(&mut self, s: Segment);
}

impl SegmentSink for Vec<Segment> {
    #[inline(always)]
    fn put(&mut self, s: Segment) {
        self.push(s);
    }
}

/// RFC 3522 §2's state: the segment the last congestion event retransmits first, and
/// RetransmitTS, the timestamp of that retransmission once it left.
#[derive(Clone, Copy, Debug)]
struct EifelProbe {
    seq: u64,
    retransmit_ts: Option<u32>,
    /// A timeout is part of the episode (a spurious one ends its go-back-N).
    timeout: bool,
}

/// F-RTO's state after a timeout (RFC 5682 §3, the SACK-enhanced algorithm; Linux's
/// `tp->frto` and `high_seq`).
#[derive(Clone, Copy, Debug)]
struct Frto {
    /// RecoveryPoint: the highest segment sent (+1) at the timeout, then at step 2b.
    high: u64,
    /// Step 2b sent new data; the next ACKs decide (step 3).
    probing: bool,
}

/// The DSACK-based undo's state of a loss episode (Linux's `undo_marker` and `undo_retrans`,
/// set by `tcp_init_undo()` at the episode's start).
#[derive(Clone, Copy, Debug)]
struct DsackUndo {
    /// snd_una when the episode began: DSACKs of segments below it are of older episodes.
    marker: u64,
    /// The episode's retransmissions not yet proved duplicates by a DSACK; -1 before the
    /// first (Linux's `tp->retrans_out ? : -1`, nothing in flight at the start), so an
    /// episode without a retransmission is never undone by DSACK.
    retrans: i64,
}

/// A tail loss probe's episode (RFC 8985 §7.4; Linux's `tlp_high_seq` and `tlp_retrans`):
/// at most one probe is outstanding until the episode ends (`process_tlp_ack`).
#[derive(Clone, Copy, Debug)]
struct TlpEpisode {
    /// snd_max (+1 of the highest segment sent) once the probe left.
    high: u64,
    /// The probe retransmitted the last segment (rather than sending new data).
    retrans: bool,
}

/// Linux's `TCP_RTO_MIN` (HZ / 5): with one segment outstanding the probe waits this much
/// more than 2 SRTT, for the receiver's delayed ACK (`tcp_schedule_loss_probe()`).
const TLP_ONE_SEGMENT_EXTRA: Dur = Dur(200_000_000);
/// Linux's `TCP_TIMEOUT_MIN_US` (2 ms since Linux 6.7; before it `TCP_TIMEOUT_MIN`, two
/// jiffies): the extra with more than one segment outstanding.
const TLP_EXTRA: Dur = Dur(2_000_000);
/// Linux's `TCP_TIMEOUT_INIT` (1 s, RFC 6298 §2.1): the probe timeout before any RTT sample.
const TLP_NO_RTT: Dur = Dur(1_000_000_000);

/// `tcp_packet_delayed()`'s test on Linux's timestamp clock, milliseconds (the kernel's TSval
/// is `tcp_time_stamp_ms()` unless the route asks for microseconds): the echo `tsecr` (the
/// engine's RFC 7323 clock, microseconds) lies in an earlier millisecond than `t`, the
/// episode's first retransmission. (Measured back from `t` on the wrapping clock.)
fn echo_ms_before(tsecr: u32, t: Time) -> bool {
    let t_us = (t.0 / 1_000) as i64;
    let back_us = i64::from(crate::packet::tsval(t).wrapping_sub(tsecr) as i32);
    (t_us - back_us).div_euclid(1_000) < t_us.div_euclid(1_000)
}

/// The plugins are type parameters, so a growth or recovery plugin of another crate (or of a
/// test) plugs in without touching the engine; the simulator uses the enum-dispatched sets of
/// this crate's plugins.
pub struct Sender<G: Growth = GrowthImpl, R: Recovery = RecoveryImpl> {
    pub state: SenderState,
    growth: G,
    recovery: R,
    classifier: Option<Classifier>,
    rtt: RttEstimator,
    sampling: RttSampling,
    compat: super::Compat,
    log: SendLog,
    /// Per-window sampling: the timed segment and when it was sent.
    timed: Option<(u64, Time)>,
    /// The highest segment ever retransmitted (for Karn's rule on cumulative ACKs).
    max_retransmitted: Option<u64>,
    /// `snd_una` at the last timeout: a timeout of the same segment again is a repeated one.
    last_timeout_seq: Option<u64>,
    rto_deadline: Option<Time>,
    /// Data waits for the pacing timer.
    paced_out: bool,
    /// The pacing rate and the gap between segments it gives.
    pace_gap: (f64, Dur),
    /// The segment the window released but pacing held back (sent first next time).
    held: Option<Segment>,
    /// Segments of the current pacing burst still to leave in this send pass
    /// (`SenderState::pacing_burst`; 0 when pacing per segment).
    burst_left: u32,
    /// How late the burst started (Linux's `credit`: time the sender owes less gap for).
    burst_credit: Dur,
    /// Measure `AckCtx::rtt_sample` on every ACK (see its doc).
    exact_rtt: bool,
    /// `SenderConfig::timestamps`.
    timestamps: bool,
    initial_window: f64,
    /// Duplicate ACKs since the last new ACK. Unlike `state.dupacks` a loss event does not
    /// clear it: ns-2's `dupacks_` is reset only by `newack()` (and the timeouts of Reno and
    /// NewReno), and `send_one()` is gated on it.
    dup_run: u32,
    /// The growth plugin hears of `CaEvent::TxStart`.
    tx_start: bool,
    /// When the last segment left (for `CaEvent::TxStart`'s idle time).
    last_sent_at: Option<Time>,
    /// A `CaEvent::TxStart` reached the plugin since `on_pacing_timer` began.
    heard_tx_start: bool,
    /// Retransmissions the recovery found lost (a buffer reused every ACK).
    relost: Vec<u64>,
    /// Every unSACKed segment below this one has been marked lost in the send log (a sampling
    /// sender's loss marking, see `mark_losses`).
    marked_upto: u64,
    /// `SenderConfig::eifel`.
    eifel: bool,
    eifel_probe: Option<EifelProbe>,
    /// `SenderConfig::frto`.
    frto_on: bool,
    /// F-RTO watches the ACKs after a timeout.
    frto: Option<Frto>,
    /// `recover` before the last timeout, which an undo of it restores.
    recover_before_timeout: Option<u64>,
    /// The undos so far, by the detection that called for each.
    undos: Undos,
    /// `SenderConfig::dsack`.
    dsack_on: bool,
    /// The current episode's DSACK-based undo (None without `dsack_on`, and once undone).
    dsack_undo: Option<DsackUndo>,
    /// `eifel || dsack_on || tlp_on || rack`: what `undo_before_ack` has to do.
    undo_tests: bool,
    /// `tlp_on || rack`: timers to choose after an ACK (`ack_timers`).
    ack_timer_choice: bool,
    /// The ACK being processed only reported a duplicate (`undo_before_ack`).
    dsack_only: bool,
    /// Those ranges, of the ACK being processed (a buffer reused every ACK).
    sack_news: Vec<(u64, u64)>,
    /// `SenderConfig::tlp`, for a sender that reads SACK blocks (Linux probes only on SACK
    /// connections).
    tlp_on: bool,
    /// The timer's deadline (`rto_deadline`) is a loss probe's (Linux's
    /// `ICSK_TIME_LOSS_PROBE`, which shares the retransmission timer); `rto_behind_probe`
    /// is the RTO deadline it stands in front of.
    probe_armed: bool,
    rto_behind_probe: Option<Time>,
    /// The current probe's episode, if one is open.
    tlp: Option<TlpEpisode>,
    /// The last ACK SACKed data above snd_una: Linux's `TCP_CA_Disorder`, where no probe is
    /// scheduled.
    tlp_disorder: bool,
    /// The ACK being processed carries a DSACK of the probe (Linux's `FLAG_DSACK_TLP`).
    dsack_tlp: bool,
    /// snd_max before the ACK being processed (new data sent on it schedules a probe).
    tlp_high_before: u64,
    /// Probes sent, and episodes that ended as a loss the probe repaired.
    tlps: (u64, u64),
    /// RACK's loss detection (`SenderConfig::rack`, for a sender that reads SACK blocks).
    rack: Option<Box<Rack>>,
    /// The timer's deadline is RACK's reordering timer (Linux's `ICSK_TIME_REO_TIMEOUT`,
    /// which shares the retransmission timer as the probe's does), in front of the RTO
    /// deadline `rto_behind_probe`.
    reo_armed: bool,
    /// `SenderConfig::partial_undo`, with RACK.
    partial_undo: bool,
    /// `SenderConfig::handshake_rtt`: the simulator measures the handshake at the start.
    handshake_rtt: bool,
    /// The fast recovery's point (Linux's `high_seq`) while its partial undo is possible
    /// (`undo_marker` set: cleared by any undo and by the recovery's end).
    partial_high: Option<u64>,
    /// The ACK being processed was held by `tcp_try_undo_partial()`: the recovery plugin
    /// retransmits nothing until its sends are done (`Recovery::hold_retransmissions`).
    retransmissions_held: bool,
    /// The window grows as Linux's `tcp_cong_control()` grows it beside the reordering degree
    /// (`reordering`, a plugin that does not own the window): by the segments each ACK
    /// delivers (`tcp_newly_delivered()`: SACKed or cumulatively ACKed for the first time),
    /// and also on an ACK that only SACKs once the degree exceeds DupThresh
    /// (`tcp_may_raise_cwnd()`'s `FLAG_FORWARD_PROGRESS`), outside recovery.
    linux_growth: bool,
}

impl Sender {
    /// A sender whose application has `limit` segments (u64::MAX: a bulk sender), with the
    /// plugins `cfg` names.
    pub fn new(cfg: &SenderConfig, limit: u64) -> Self {
        Self::with_plugins(
            cfg,
            GrowthImpl::new(&cfg.growth, cfg.seed),
            RecoveryImpl::new(&cfg.recovery),
            limit,
        )
    }
}

/// Vegas's fine-grained clock, which a plugin that owns the window never has (asserted in
/// `with_plugins`): such a plugin's ACK and send paths leave the clock's tests out, as
/// `owns_window()` is a constant of the plugin type.
#[inline(always)]
fn fine_clock<'a>(
    growth: &impl Growth,
    fine: &'a mut Option<FineClock>,
) -> Option<&'a mut FineClock> {
    if growth.owns_window() {
        None
    } else {
        fine.as_mut()
    }
}

impl<G: Growth, R: Recovery> Sender<G, R> {
    /// A sender with the given plugins (`cfg.growth` and `cfg.recovery` are not read).
    pub fn with_plugins(cfg: &SenderConfig, growth: G, recovery: R, limit: u64) -> Self {
        let mut state = SenderState::new(cfg.initial_window, cfg.max_window, cfg.dupthresh, limit);
        state.segment_bytes = cfg.segment_bytes;
        let c = cfg.compat;
        if c.ssthresh_starts_at_window {
            state.ssthresh = f64::from(cfg.max_window);
        }
        if c.zero_window {
            state.min_usable_window = 0;
        }
        if c.first_segment_waits_for_timer {
            // may_start_recovery() then needs snd_una > 0: ns-2's recover_ = 0.
            state.recover = Some(0);
            state.first_ack_exception = true;
        }
        // Vegas's fine-grained clock times the segments of a window-clocked sender (only
        // Vegas's preset sets it): a plugin that owns the window (and paces) has none, and
        // its per-segment and per-ACK paths leave the clock's tests out.
        assert!(
            cfg.fine_clock.is_none() || !growth.owns_window(),
            "a fine-grained clock with a plugin that owns the window"
        );
        state.fine = cfg
            .fine_clock
            .map(|m| FineClock::new(cfg.max_window, m == FineClockMode::Ns2));
        let mut log = SendLog::new(cfg.max_window, growth.wants_rate_samples());
        if !growth.wants_tx_in_flight() {
            log.skip_tx_in_flight();
        }
        let recovery_wants_sack = recovery.wants_sack();
        let classifier = cfg.classifier.as_ref().map(Classifier::new);
        let tx_start = growth.wants_tx_start();
        let linux_growth =
            cfg.reordering.degree && cfg.rack && recovery_wants_sack && !growth.owns_window();
        let exact_rtt = cfg.sampling == RttSampling::PerAck
            || growth.wants_rtt_samples()
            || classifier
                .as_ref()
                .is_some_and(Classifier::wants_rtt_samples);
        Self {
            state,
            growth,
            recovery,
            classifier,
            rtt: RttEstimator::new(cfg.rtt.clone()),
            sampling: cfg.sampling,
            compat: c,
            log,
            timed: None,
            max_retransmitted: None,
            last_timeout_seq: None,
            rto_deadline: None,
            paced_out: false,
            pace_gap: (f64::NAN, Dur::ZERO),
            held: None,
            burst_left: 0,
            burst_credit: Dur::ZERO,
            exact_rtt,
            timestamps: cfg.timestamps,
            initial_window: f64::from(cfg.initial_window),
            dup_run: 0,
            tx_start,
            last_sent_at: None,
            heard_tx_start: false,
            relost: Vec::new(),
            marked_upto: 0,
            eifel: cfg.eifel,
            eifel_probe: None,
            frto_on: cfg.frto,
            frto: None,
            recover_before_timeout: None,
            undos: Undos::default(),
            dsack_on: cfg.dsack,
            dsack_undo: None,
            undo_tests: cfg.eifel || cfg.dsack || (cfg.tlp || cfg.rack) && recovery_wants_sack,
            ack_timer_choice: (cfg.tlp || cfg.rack) && recovery_wants_sack,
            dsack_only: false,
            sack_news: Vec::new(),
            tlp_on: cfg.tlp && recovery_wants_sack,
            probe_armed: false,
            rto_behind_probe: None,
            tlp: None,
            tlp_disorder: false,
            dsack_tlp: false,
            tlp_high_before: 0,
            tlps: (0, 0),
            rack: (cfg.rack && recovery_wants_sack)
                .then(|| Box::new(Rack::with_response(cfg.reordering, cfg.dupthresh))),
            reo_armed: false,
            partial_undo: cfg.partial_undo && cfg.rack && recovery_wants_sack,
            handshake_rtt: cfg.handshake_rtt,
            partial_high: None,
            retransmissions_held: false,
            linux_growth,
        }
    }

    pub fn wants_sack(&self) -> bool {
        self.recovery.wants_sack()
    }
    /// Bytes each SACK block adds to an ACK (see `Compat::sack_block_bytes`).
    pub fn sack_block_bytes(&self) -> u32 {
        if self.wants_sack() {
            self.compat.sack_block_bytes
        } else {
            0
        }
    }
    /// Whether the growth plugin owns the window (and paces): a constant of a concrete
    /// plugin type.
    #[inline(always)]
    pub fn owns_window(&self) -> bool {
        self.growth.owns_window()
    }

    /// The send log samples (it was made so for a plugin that wants rate samples): read
    /// from the plugin, a constant of its type, rather than from the log, so that the ACK
    /// path of each sender is compiled for its own case.
    #[inline(always)]
    fn samples(&self) -> bool {
        let on = self.growth.wants_rate_samples();
        debug_assert_eq!(on, self.log.sampling());
        on
    }

    /// The send log delivers what the recovery's scoreboard reports an ACK's blocks newly
    /// SACK (a sampling log, and `Recovery::reports_sack_news`): one pass over the blocks
    /// where the log's own walk would be a second. A constant of the pair, as `samples`.
    #[inline(always)]
    fn sack_news_on(&self) -> bool {
        self.samples() && self.recovery.reports_sack_news()
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }
    /// Whether the sender reads the ACKs' timestamp echo (only Eifel detection does; the
    /// `timestamps` RTT option times segments from the send log).
    pub fn reads_timestamp_echo(&self) -> bool {
        self.eifel || self.partial_undo
    }
    /// When the pacing timer must call [`Sender::on_pacing_timer`], if data waits for it.
    pub fn pacing_deadline(&self) -> Option<Time> {
        self.paced_out.then_some(self.state.next_send_at)
    }
    /// The growth plugin's own state (`Growth::phase`).
    pub fn phase(&self) -> Option<&'static str> {
        self.growth.phase()
    }
    /// Segments per second the sender paces at, if it paces.
    pub fn pacing_rate(&self) -> Option<f64> {
        self.state.pacing_rate
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    /// The window reductions undone so far, by cause.
    pub fn undos(&self) -> Undos {
        self.undos
    }
    /// Tail loss probes sent, and the episodes that ended as a loss the probe repaired.
    pub fn tlps(&self) -> (u64, u64) {
        self.tlps
    }
    /// All the application's data is acknowledged.
    pub fn done(&self) -> bool {
        self.state.snd_una >= self.state.limit
    }

    /// Segments RACK marked lost, and retransmissions in flight marked lost by RACK or a
    /// timeout (Linux's TCPLostRetransmit); zeros without `rack`.
    pub fn rack_counts(&self) -> (u64, u64) {
        self.rack.as_ref().map_or((0, 0), |r| r.counts())
    }
    /// Reordering events (Linux's TCPSACKReorder + TCPTSReorder), the highest reordering
    /// degree and RACK's window steps at the end; zeros without `rack`.
    pub fn reordering_counts(&self) -> (u64, u32, u32) {
        self.rack
            .as_ref()
            .map_or((0, 0, 0), |r| r.reordering_counts())
    }

    fn arm_timer(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.rto());
        self.probe_armed = false;
        self.reo_armed = false;
    }

    /// Out of line, as LLVM left it before `transmit_from_pass`: with the pacing plugins'
    /// calls gone it inlines it everywhere, which speeds up every sender alike (NewReno -17
    /// instructions per packet on bench/senders.py's `two-hop`); the window-clocked senders'
    /// code is kept as it was.
    #[inline(never)]
    fn transmit<O: SegmentSink>(&mut self, now: Time, seq: u64, retransmission: bool, out: &mut O) {
        self.transmit_inlined(now, seq, retransmission, out);
    }

    /// [`Sender::transmit`] from `send_allowed`: inlined for the plugins that own the window
    /// (they pace: each pacing wake-up sends the segment held back and the next of its TSO
    /// burst, two calls per wake-up in BBR's regime), called as before for the others,
    /// whose code stays as it was (`owns_window()` is a constant of the concrete pair).
    #[inline(always)]
    fn transmit_from_pass<O: SegmentSink>(
        &mut self,
        now: Time,
        seq: u64,
        retransmission: bool,
        out: &mut O,
    ) {
        if self.growth.owns_window() {
            self.transmit_inlined(now, seq, retransmission, out);
        } else {
            self.transmit(now, seq, retransmission, out);
        }
    }

    /// A segment goes out: the send log, the timers' and pacing's bookkeeping.
    #[inline(always)]
    fn transmit_inlined<O: SegmentSink>(
        &mut self,
        now: Time,
        seq: u64,
        retransmission: bool,
        out: &mut O,
    ) {
        // Outstanding before this send (new data has already moved snd_max past it).
        let before = if retransmission {
            self.state.snd_max
        } else {
            seq
        };
        let outstanding = before.saturating_sub(self.state.snd_una);
        if self.tx_start && outstanding == 0 && !retransmission {
            let idle = self.last_sent_at.map_or(Dur::ZERO, |t| now - t);
            self.growth
                .on_event(&mut Window::new(&mut self.state), CaEvent::TxStart { idle });
            self.heard_tx_start = true;
        }
        self.last_sent_at = Some(now);
        self.log
            .on_send(seq, now, retransmission, outstanding, &mut self.state.acct);
        if let Some(c) = &mut self.state.fine {
            c.record(seq);
        }
        if retransmission {
            if self.eifel_probe.is_some() {
                self.eifel_retransmitted(now, seq);
            }
            self.max_retransmitted = Some(self.max_retransmitted.map_or(seq, |m| m.max(seq)));
            if let Some(u) = &mut self.dsack_undo {
                // tcp_retransmit_skb(): undo_retrans counts from 0 at the first.
                u.retrans = u.retrans.max(0) + 1;
            }
            // Karn: a retransmission spoils any timing in flight for that segment (ns-2 ends
            // the timing only at a fast retransmit or timeout, see `Compat::ns2_rtt_timing`).
            if !self.compat.ns2_rtt_timing && self.timed.is_some_and(|(t, _)| seq <= t) {
                self.timed = None;
            }
        } else if self.sampling == RttSampling::PerWindow && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1: start the timer when a segment is sent and none is running.
            self.arm_timer(now);
        }
        if let Some(rate) = self.state.pacing_rate {
            if rate != self.pace_gap.0 {
                // The rate changes on most ACKs of a pacing plugin; the gap is kept while not.
                self.pace_gap = (rate, Dur::from_secs(1.0 / rate));
            }
            if self.state.pacing_burst.is_none() {
                self.state.next_send_at = self.state.next_send_at.max(now) + self.pace_gap.1;
            } else {
                self.advance_burst(now);
            }
        }
        out.put(Segment {
            seq,
            retransmission,
        });
    }

    /// The retransmission of `seq` at `now` may be the one Eifel's probe times. Out of line:
    /// inlined into the pacing path, LLVM computed its timestamp on every wake-up, before
    /// the loop of sends, whether a retransmission went or not.
    #[cold]
    #[inline(never)]
    fn eifel_retransmitted(&mut self, now: Time, seq: u64) {
        if let Some(p) = &mut self.eifel_probe {
            if p.seq == seq && p.retransmit_ts.is_none() {
                p.retransmit_ts = Some(crate::packet::tsval(now));
            }
        }
    }

    /// Linux's departure time after one segment of a TSO burst: `tcp_update_skb_after_send()`
    /// advances `tcp_wstamp_ns` by the packet's length over the rate, less
    /// min(length / 2, credit) where credit is how far the clock had run past the departure
    /// time ("OS jitter"). Taken per segment with the credit spent greedily, the burst's
    /// total is the kernel's for the whole packet: N gaps less min(N gaps / 2, credit).
    fn advance_burst(&mut self, now: Time) {
        let gap = self.pace_gap.1;
        if self.burst_credit == Dur::ZERO {
            // (Nothing to take off: a wake-up on time, most bursts.)
            self.state.next_send_at = self.state.next_send_at.max(now) + gap;
        } else {
            let cut = self.burst_credit.min(Dur(gap.0 / 2));
            self.burst_credit = Dur(self.burst_credit.0 - cut.0);
            self.state.next_send_at = self.state.next_send_at.max(now) + Dur(gap.0 - cut.0);
        }
        self.burst_left = self.burst_left.saturating_sub(1);
    }

    /// Pacing allows a segment now.
    fn may_send(&mut self, now: Time) -> bool {
        if self.burst_left > 0 {
            return true;
        }
        if now >= self.state.next_send_at {
            if let Some(burst) = self.state.pacing_burst {
                // tcp_pacing_check() passed: one TSO packet leaves whole.
                self.burst_left = burst;
                self.burst_credit = now - self.state.next_send_at;
            }
            return true;
        }
        self.paced_out = true;
        false
    }

    /// [`Sender::send_pending`] where all `send_allowed` would do is find the segment pacing
    /// held back not yet due (a paced sender's ACK between departures): that outcome, and
    /// true; false (nothing done) otherwise.
    fn held_back(&mut self, now: Time) -> bool {
        if self.held.is_none() || now >= self.state.next_send_at {
            return false;
        }
        if !self.state.retransmit_now.is_empty() {
            return false;
        }
        self.burst_left = 0;
        self.paced_out = true;
        true
    }

    fn send_pending(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.send_allowed(now, out);
    }

    /// What the window, the recovery plugin and pacing allow now.
    fn send_allowed(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.send_allowed_inlined(now, out);
    }

    /// [`Sender::send_allowed`], inlined into the pacing timer's path: a paced sender's
    /// every departure comes through it, the ACKs and the other senders call it out of line.
    #[inline(always)]
    fn send_allowed_inlined<O: SegmentSink>(&mut self, now: Time, out: &mut O) {
        self.paced_out = false;
        // A TSO packet is built in one tcp_write_xmit() pass: what the window cut short of
        // the burst waits for the next departure time.
        self.burst_left = 0;
        let paced = self.state.pacing_rate.is_some();
        let mut i = 0;
        while let Some(&seq) = self.state.retransmit_now.get(i) {
            if paced && !self.may_send(now) {
                self.state.retransmit_now.drain(..i);
                return;
            }
            i += 1;
            // Vegas may "retransmit" a segment never sent when a stale slot of its fine clock
            // says it expired (ns-2 does); it is then new data, and the regular send of the
            // same segment that follows is the retransmission, as ns-2's counters have it.
            let retx = seq < self.state.snd_max;
            self.state.snd_max = self.state.snd_max.max(seq + 1);
            self.transmit_from_pass(now, seq, retx, out);
        }
        self.state.retransmit_now.clear();
        if let Some(h) = self.held {
            if !self.may_send(now) {
                return;
            }
            if self.rack.is_some() && !h.retransmission && self.state.in_recovery {
                if self.send_held_after_retransmission(now, h, out) {
                    return;
                }
            } else {
                self.held = None;
                self.transmit_from_pass(now, h.seq, h.retransmission, out);
            }
        }
        let mut budget = self.recovery.burst_cap(&self.state).unwrap_or(u32::MAX);
        if budget > 0 {
            if let Some(c) = fine_clock(&self.growth, &mut self.state.fine) {
                c.sending_from(self.state.snd_nxt);
            }
        }
        while budget > 0 {
            let high = self.state.snd_max;
            let Some(seq) = self.recovery.next_segment(&mut self.state) else {
                break;
            };
            if paced && !self.may_send(now) {
                self.held = Some(Segment {
                    seq,
                    retransmission: seq < high,
                });
                return;
            }
            self.transmit_from_pass(now, seq, seq < high, out);
            budget -= 1;
        }
        let s = &self.state;
        if self.log.sampling() && s.snd_nxt >= s.limit && (s.flight() as f64) < s.cwnd {
            // Draft-cheng §3.4: the window has room the application does not fill.
            self.state.acct.mark_app_limited(s.flight());
        }
    }

    /// The new segment `held` that pacing held back, with RACK in recovery: a retransmission
    /// due now leaves before it, as Linux's pacing wake-up runs `tcp_xmit_retransmit_queue()`
    /// before `tcp_write_xmit()` (`tcp_tsq_write()`). Sent after it at the same instant,
    /// the retransmission would be taken as sent first (RACK breaks a tie of send times by
    /// sequence, `tcp_skb_sent_after()`) and marked lost once the new segment, ahead of it
    /// on the path, is SACKed. Returns true when pacing ends the pass.
    #[cold]
    #[inline(never)]
    fn send_held_after_retransmission<O: SegmentSink>(
        &mut self,
        now: Time,
        held: Segment,
        out: &mut O,
    ) -> bool {
        let high = self.state.snd_max;
        let next = self.recovery.next_segment(&mut self.state);
        if let Some(q) = next.filter(|&q| q < high) {
            self.transmit_from_pass(now, q, true, out);
            if !self.may_send(now) {
                return true;
            }
            self.held = None;
            self.transmit_from_pass(now, held.seq, false, out);
            return false;
        }
        self.held = None;
        self.transmit_from_pass(now, held.seq, false, out);
        if let Some(q) = next {
            // New data again: after the held segment.
            if !self.may_send(now) {
                self.held = Some(Segment {
                    seq: q,
                    retransmission: false,
                });
                return true;
            }
            self.transmit_from_pass(now, q, false, out);
        }
        false
    }

    /// RFC 3042 limited transmit, as ns-2 tcp.cc `send_one()`: one segment if the receiver's
    /// window allows it and it lies within cwnd + the duplicate ACKs so far. ns-2's condition
    /// `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` with `highest_ack_ = snd_una - 1` (ns-2
    /// ACKs name the last segment received) compares a double: cwnd is not truncated here.
    ///
    /// A paced sender's segment that pacing held back is the send head (the window released
    /// it, `snd_nxt` is past it): limited transmit sends it, not the one after it, so that
    /// new data never leaves out of order (a receiver would see reordering the path never
    /// made, and the segment could be marked lost and retransmitted spuriously).
    fn send_one(&mut self, now: Time, out: &mut Vec<Segment>) {
        let s = &mut self.state;
        let head = self.held.map_or(s.snd_nxt, |h| h.seq);
        let in_rwnd = head < s.snd_una + u64::from(s.max_window);
        let in_cwnd = head as f64 <= (s.snd_una as f64 - 1.0) + s.cwnd + f64::from(self.dup_run);
        if !(in_rwnd && in_cwnd && head < s.limit) {
            return;
        }
        if let Some(h) = self.held.take() {
            self.transmit(now, h.seq, h.retransmission, out);
            return;
        }
        s.snd_nxt += 1;
        let retx = head < s.snd_max;
        s.snd_max = s.snd_max.max(s.snd_nxt);
        self.transmit(now, head, retx, out);
    }

    fn clock_at(&mut self, now: Time) {
        self.state.now = now;
        if let Some(c) = fine_clock(&self.growth, &mut self.state.fine) {
            c.at(now);
        }
    }

    /// Whether the connection takes its handshake's RTT sample
    /// ([`Sender::handshake_rtt_sample`]) before it starts.
    pub fn wants_handshake_rtt(&self) -> bool {
        self.handshake_rtt
    }

    /// The handshake's round trip `rtt`, measured before the first segment as Linux's active
    /// open measures the SYN's (`tcp_ack_update_rtt()` from `tcp_rcv_synsent_state_process()`):
    /// the first sample of SRTT, RTTVAR and the RTO, and the minimum RTT (`tcp_min_rtt()`,
    /// which `bbr_init()` takes as RTprop). Not a sample of the send log: it times no segment.
    pub fn handshake_rtt_sample(&mut self, rtt: Dur) {
        debug_assert_eq!(self.state.snd_max, 0, "the handshake comes before the data");
        self.rtt.sample(rtt);
        self.state.srtt = self.rtt.srtt();
        self.state.note_min_rtt(rtt);
    }

    /// Sends the initial window.
    pub fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.clock_at(now);
        self.send_pending(now, out);
        if self.tlp_on {
            self.set_xmit_timer(now, false, 0);
        }
    }

    /// The pacing timer fired: send what pacing held back. Returns whether the growth plugin
    /// heard of nothing (no `CaEvent::TxStart`): then the sends changed nothing the sender
    /// reports but the segments themselves (its window, RTO, phase, pacing rate, loss events
    /// and completion are as they were), which the simulator's pacing path relies on.
    pub fn on_pacing_timer(&mut self, now: Time, out: &mut Vec<Segment>) -> bool {
        if !self.tlp_on {
            return self.on_pacing_timer_into(now, out);
        }
        self.clock_at(now);
        self.heard_tx_start = false;
        let high_before = self.state.snd_max;
        self.send_pending(now, out);
        self.set_xmit_timer(now, false, high_before);
        !self.heard_tx_start
    }

    /// Whether [`Sender::on_pacing_timer_into`] may take the pacing timer: without TLP, whose
    /// timer is re-armed after the sends.
    pub fn paces_into_sink(&self) -> bool {
        !self.tlp_on
    }

    /// [`Sender::on_pacing_timer`] (when [`Sender::paces_into_sink`]) with each segment handed
    /// to `out` as it is sent: the simulator's wire, without a buffer between them. The sends
    /// read nothing that the wire changes (no loss event can arise in them: only an ACK or a
    /// timeout starts a recovery), so they decide what they decided with the buffer.
    #[inline(always)]
    pub fn on_pacing_timer_into<O: SegmentSink>(&mut self, now: Time, out: &mut O) -> bool {
        debug_assert!(self.paces_into_sink());
        self.clock_at(now);
        self.heard_tx_start = false;
        self.send_allowed_inlined(now, out);
        debug_assert!(!self.has_loss_events());
        !self.heard_tx_start
    }

    /// The window cut of a congestion event, decided in one place: the loss classifier's, if
    /// the sender has one and it calls the loss wireless, else the growth plugin's. Returns
    /// the classifier's verdict too, for the loss event.
    /// `flight_size`: the recovery plugin's FlightSize when the loss was detected (before a
    /// timeout resets its scoreboard).
    fn congestion_event(
        &mut self,
        kind: CongestionKind,
        flight_size: u64,
        ctx: &AckCtx,
        truth: &dyn LossTruth,
    ) -> (Cut, Option<LossCause>) {
        let verdict = self
            .classifier
            .as_mut()
            .map(|c| c.classify(&self.state, truth));
        let cut = match verdict {
            Some(LossCause::Channel) => wireless_cut(&self.state, kind),
            _ => self.growth.on_congestion_event(
                &Conn::with_flight_size(&self.state, flight_size),
                kind,
                ctx,
            ),
        };
        (cut, verdict)
    }

    /// Attaches the classifier's verdict to the loss event just noted.
    fn note_verdict(&mut self, verdict: Option<LossCause>) {
        if let (Some(v), Some(e)) = (verdict, self.state.events.last_mut()) {
            e.predicted = Some(v);
        }
    }

    /// Karn's rule for a cumulative ACK (RFC 6298 §3): an ACK that newly acknowledges a
    /// retransmitted segment is ambiguous as a whole. Its newest segment may have been sent
    /// once, but it arrived long before: the ACK comes now because a retransmission filled
    /// the hole below it, so `now - send time` measures the recovery, not the path. (Linux
    /// discards such samples likewise: FLAG_RETRANS_DATA_ACKED in tcp_clean_rtx_queue().)
    fn unambiguous(&self, old_una: u64, ack: u64) -> bool {
        self.max_retransmitted.is_none_or(|m| m < old_una)
            || !(old_una..ack).any(|q| self.log.clean_send_time(q).is_none())
    }

    /// Records the deliveries of an ACK in the send log; returns the context for the plugins.
    /// (Inlined into both copies of the ACK path, `ack_after_undo`'s, as when it had one.)
    #[inline(always)]
    fn deliveries(&mut self, now: Time, old_una: u64, ack: u64, sack: &[(u64, u64)]) -> AckCtx {
        if !self.samples() {
            let rtt_sample = if self.timestamps {
                (ack > old_una)
                    .then(|| self.log.first_send_time(ack - 1).map(|t| now - t))
                    .flatten()
            } else {
                (self.exact_rtt && ack > old_una && self.unambiguous(old_una, ack))
                    .then(|| self.log.clean_send_time(ack - 1).map(|t| now - t))
                    .flatten()
            };
            if let Some(r) = rtt_sample {
                self.state.note_min_rtt(r);
            }
            return AckCtx {
                now,
                rtt_sample,
                newly_acked: ack - old_una,
                newly_delivered: ack - old_una,
                ..AckCtx::default()
            };
        }
        let mut newly_delivered = 0;
        if ack > old_una {
            // A recovery that keeps runs of SACKed segments (and so reports its news) has
            // them SACKed in the send log too, all but this ACK's news, which the log takes
            // after: with those above the cumulative ACK, its runs pass in O(1).
            // (News below the cumulative ACK are not SACKed in the log yet: with no runs
            // passed, it takes the segments one by one.)
            let sacked = self.recovery.sacked_runs();
            debug_assert!(sacked.is_empty() || self.sack_news_on());
            let sacked = if sack.is_empty() || self.sack_news.iter().all(|&(a, _)| a >= ack) {
                sacked
            } else {
                &[]
            };
            newly_delivered =
                self.log
                    .on_cumulative_ack(old_una, ack, sacked, now, &mut self.state.acct);
        }
        if !sack.is_empty() {
            newly_delivered += if self.sack_news_on() {
                self.log
                    .on_sack_news(&self.sack_news, ack, now, &mut self.state.acct)
            } else {
                let hi = self.state.snd_max;
                self.log
                    .on_sack_blocks(sack, ack, hi, now, &mut self.state.acct)
            };
        }
        // (Karn's test has nothing to look at on an ACK that acknowledges nothing new
        // cumulatively, nearly every ACK of a SACK recovery: `unambiguous` is true then.)
        let pending_rtt = self.log.pending_rtt(now);
        let rtt_sample = pending_rtt.filter(|_| ack == old_una || self.unambiguous(old_una, ack));
        if let Some(r) = rtt_sample {
            self.state.note_min_rtt(r);
        }
        let rate = self
            .log
            .take_sample(self.state.min_rtt, now, pending_rtt, &mut self.state.acct);
        AckCtx {
            now,
            rtt_sample,
            newly_acked: ack - old_una,
            newly_delivered,
            rate,
            ..AckCtx::default()
        }
    }

    /// A sampling sender marks in its send log the segments its recovery now deems lost (the
    /// retransmissions it asked for, and below the recovery plugin's `lost_below`), as
    /// Linux's scoreboard does before `cong_control()` sees the ACK. (Inlined into the ACK
    /// path as when it had no other caller than it: RACK's reordering timer calls it too.)
    #[inline(always)]
    fn mark_losses(&mut self) {
        let acct = &mut self.state.acct;
        for &q in &self.state.retransmit_now {
            self.log.mark_lost(q, acct);
        }
        let below = self.recovery.lost_below(&self.state);
        let acct = &mut self.state.acct;
        for q in self.marked_upto.max(self.state.snd_una)..below {
            self.log.mark_lost(q, acct);
        }
        self.marked_upto = self.marked_upto.max(below);
        self.recovery.take_relost(&mut self.relost);
        // (Read then cleared, not drained: a drain's set-up and tail move cost every ACK,
        // and the list is nearly always empty.)
        for &q in &self.relost {
            self.log.mark_relost(q, &mut self.state.acct);
        }
        self.relost.clear();
    }

    /// An ACK arrived: `ack` is the next segment the receiver expects. `truth` is the
    /// engine's ground truth, which only an oracle plugin may read.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        sack: &[(u64, u64)],
        truth: &dyn LossTruth,
        out: &mut Vec<Segment>,
    ) {
        self.on_ack_echo(now, ack, sack, None, truth, out);
    }

    /// RFC 3522 §3.2 (Eifel detection), on an ACK with timestamp echo `tsecr`: the first
    /// ACK covering the segment a congestion event retransmitted decides. If it echoes a
    /// timestamp older than the retransmission's (the original arrived), or that
    /// retransmission never left, the loss was spurious: the growth plugin undoes it.
    fn eifel_detect(&mut self, ack: u64, tsecr: Option<u32>) {
        let Some(p) = self.eifel_probe else {
            return;
        };
        if ack <= p.seq {
            return;
        }
        self.eifel_probe = None;
        let spurious = match (p.retransmit_ts, tsecr) {
            (None, _) => true,
            (Some(r), Some(e)) => crate::packet::ts_before(e, r),
            (Some(_), None) => false,
        };
        if !spurious {
            return;
        }
        if p.timeout {
            self.undos.eifel_timeout += 1;
        } else {
            self.undos.eifel_fast_retransmit += 1;
        }
        if p.timeout && self.state.ca_state == CaState::Loss {
            self.undo_timeout();
            return;
        }
        self.undo_recovery();
    }

    /// The response to a fast retransmit found spurious (by Eifel or DSACK; RFC 4015 has a
    /// response for timeouts only), or to an episode found spurious after its recovery
    /// ended: the growth plugin restores the congestion state, and a recovery still running
    /// ends with the undo, as Linux's tcp_try_undo_recovery() / tcp_try_undo_partial() /
    /// tcp_try_undo_dsack() with tcp_try_to_open() reopen the connection; left running,
    /// its window inflation would stack on the restored window.
    fn undo_recovery(&mut self) {
        let s = &mut self.state;
        if s.ca_state == CaState::Recovery {
            s.in_recovery = false;
            s.ca_state = CaState::Open;
            if !self.growth.owns_window() {
                // Without the duplicate ACKs' inflation (RFC 6582 §3.2 step 3's deflation,
                // Reno's and NewReno's exit): tcp_reno_undo_cwnd()'s max(cwnd, prior_cwnd)
                // reads Linux's cwnd, which PRR keeps uninflated.
                s.cwnd = s.cwnd.min(s.ssthresh);
            }
        }
        self.restore_congestion_state();
    }

    /// Every undo ends alike: no detection of the episode is left pending, and the growth
    /// plugin restores the congestion state it had before (`CaEvent::Undo`).
    fn restore_congestion_state(&mut self) {
        self.eifel_probe = None;
        self.dsack_undo = None;
        self.growth
            .on_event(&mut Window::new(&mut self.state), CaEvent::Undo);
    }

    /// A congestion event: time its first retransmission of snd_una. A probe still armed is
    /// for the same segment (an ACK covering it would have decided it): the episode's
    /// first retransmission stays the one compared (RetransmitTS, RFC 3522 §2). A timeout
    /// inside an episode (a fast recovery, or the loss state of an earlier timeout) arms no
    /// probe of its own: its spuriousness says nothing of the loss that started the
    /// episode, whose state an undo would restore (RFC 5682 §3 step 1 keeps F-RTO out of
    /// the same case).
    fn arm_eifel(&mut self, timeout: bool, new_episode: bool) {
        if !self.eifel {
            return;
        }
        match &mut self.eifel_probe {
            Some(p) => p.timeout |= timeout,
            None if !new_episode => {}
            None => {
                self.eifel_probe = Some(EifelProbe {
                    seq: self.state.snd_una,
                    retransmit_ts: None,
                    timeout,
                })
            }
        }
    }

    /// The response to a timeout found spurious (by Eifel or F-RTO), RFC 4015 §3.1-3.3 and
    /// Linux's tcp_try_undo_loss(): the growth plugin restores the congestion state
    /// (`CaEvent::Undo`); the segments the timeout marked lost are lost no more
    /// (tcp_undo_cwnd_reduction(sk, true)); and transmission resumes with new data, SND.NXT
    /// <- SND.MAX (RFC 4015 §3.2), so the go-back-N of the original window ends: what was
    /// not yet retransmitted is not. The sender is open again, with `recover` as before the
    /// timeout (its go-back-N duplicates, which RFC 6582's `recover` guards against, are
    /// not sent). RFC 4015 §3.5's reinitialisation of SRTT and RTTVAR from the spurious
    /// episode's RTT is not done, as Linux does not: the ACKs of the originals that are now
    /// never retransmitted give Karn-clean samples that RFC 6298 takes as they come.
    fn undo_timeout(&mut self) {
        let s = &mut self.state;
        s.snd_nxt = s.snd_max;
        s.recover = self.recover_before_timeout;
        s.ca_state = CaState::Open;
        if self.log.sampling() {
            self.log.unmark_lost(s.snd_una, s.snd_max, &mut s.acct);
            self.marked_upto = s.snd_una;
        }
        self.frto = None;
        if let Some(r) = self.rack.as_deref_mut() {
            r.unmark_lost();
        }
        self.restore_congestion_state();
    }

    /// A loss episode starts: DSACKs from now on may prove its retransmissions duplicates
    /// (Linux's tcp_init_undo()).
    fn arm_dsack(&mut self) {
        if self.dsack_on {
            self.dsack_undo = Some(DsackUndo {
                marker: self.state.snd_una,
                retrans: -1,
            });
        }
    }

    /// Linux's `tcp_init_undo()` at a fast recovery's start: `undo_retrans` counts the
    /// retransmissions still in flight (an earlier episode's, which RACK knows of) and the
    /// tail loss probe's, whose DSACKs may come later, not only this episode's.
    #[cold]
    fn count_retransmissions_in_flight(&mut self) {
        let (Some(u), Some(r)) = (&mut self.dsack_undo, self.rack.as_deref()) else {
            return;
        };
        let n = r.retrans_out() + u64::from(self.tlp.is_some_and(|t| t.retrans));
        if n > 0 {
            u.retrans = n as i64;
        }
    }

    /// RFC 2883 §4's test of an ACK's first block (Linux's tcp_check_dsack()): a DSACK lies
    /// below the cumulative ACK `ack`, or within the second block. If it is one, it reports
    /// a segment received twice, not new SACK information: the other blocks are returned,
    /// for the scoreboard and the send log, and the duplicate counts against the episode's
    /// retransmissions (RFC 3708 §2's detection). Below snd_una this is Linux's "dumb
    /// counting"; above it Linux also asks whether the segment was retransmitted, which a
    /// duplicate here always was (links do not duplicate packets).
    #[cold]
    #[inline(never)]
    fn take_dsack<'a>(&mut self, ack: u64, sack: &'a [(u64, u64)]) -> Option<&'a [(u64, u64)]> {
        let (start, end) = sack[0];
        let inside_second = sack
            .get(1)
            .is_some_and(|&(s1, e1)| s1 <= start && end <= e1);
        if start >= ack && !inside_second {
            return None;
        }
        // tcp_dsack_seen(): a one-segment DSACK ending at tlp_high_seq is the probe's.
        self.dsack_tlp = self.tlp.is_some_and(|t| t.high == end && end - start == 1);
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_dsack(start, end, self.dsack_tlp);
        }
        if let Some(u) = &mut self.dsack_undo {
            if u.retrans > 0 && end > u.marker {
                u.retrans = (u.retrans - (end - start) as i64).max(0);
            }
        }
        Some(&sack[1..])
    }

    /// Eifel's detection and DSACK's, on an ACK before it is processed (as Eifel's
    /// response, Linux's undo comes before the ACK's growth: tcp_fastretrans_alert() runs
    /// before tcp_cong_control()), and a probe episode's verdict (`tlp_before_ack`). Returns
    /// the SACK blocks without a DSACK.
    #[inline(never)]
    fn undo_before_ack<'a>(
        &mut self,
        ack: u64,
        sack: &'a [(u64, u64)],
        tsecr: Option<u32>,
    ) -> &'a [(u64, u64)] {
        if self.eifel {
            self.eifel_detect(ack, tsecr);
        }
        let rest = if self.dsack_on {
            let rest = sack.first().and_then(|_| self.take_dsack(ack, sack));
            // An ACK that only reports a duplicate is no duplicate ACK: it SACKs nothing new
            // (RFC 6675 §2's DupAck), and Linux's SACK senders count SACKed segments instead.
            self.dsack_only = rest.is_some_and(<[_]>::is_empty);
            rest.unwrap_or(sack)
        } else {
            sack
        };
        if self.tlp_on {
            self.tlp_before_ack(ack, rest);
        }
        if self.rack.is_some() {
            let s = &self.state;
            self.rack_on_ack(s.now, ack.min(s.snd_max).max(s.snd_una), rest, tsecr);
        }
        if !self.dsack_on {
            return rest;
        }
        // RFC 3708's response as Linux takes it, once every retransmission of the episode
        // was reported a duplicate (`undo_retrans` 0): after a timeout on an ACK that
        // advances snd_una (tcp_process_loss() -> tcp_try_undo_loss()), as a spurious
        // timeout's undo; in a fast recovery or after it (tcp_try_undo_dsack() /
        // tcp_try_undo_recovery()), as a spurious fast retransmit's.
        if self.dsack_undo.is_some_and(|u| u.retrans == 0) {
            let s = &self.state;
            match s.ca_state {
                CaState::Loss if ack.min(s.snd_max) <= s.snd_una => return rest,
                CaState::Loss => self.undo_timeout(),
                CaState::Recovery | CaState::Open => {
                    self.undo_recovery();
                    // tcp_try_undo_dsack(): RACK's widened window persists a recovery more.
                    if let Some(r) = self.rack.as_deref_mut() {
                        r.on_dsack_undo();
                    }
                }
            }
            self.partial_high = None;
            self.undos.dsack += 1;
        }
        rest
    }

    /// RFC 5682's F-RTO (the SACK-enhanced algorithm, §3, as Linux's tcp_process_loss()
    /// runs it with tcp_frto = 2), on an ACK after a timeout, before the ACK is processed.
    /// Returns true when step 2b's new segments are to go out once it is.
    fn frto_on_ack(&mut self, ack: u64, sack: &[(u64, u64)]) -> bool {
        let Some(f) = self.frto else {
            return false;
        };
        let s = &self.state;
        if s.ca_state != CaState::Loss {
            self.frto = None;
            return false;
        }
        let (una, ack) = (s.snd_una, ack.min(s.snd_max));
        let advanced = ack > una;
        let recovery = &self.recovery;
        // The SACK-enhanced rules need the scoreboard of before this ACK; a sender without
        // one (no SACK, or ns-2's Sack1, which clears it at a timeout) has only the
        // cumulative ACK and duplicate ACKs.
        let sack_enhanced = recovery.is_sacked(s, una).is_some();
        let newly_sacked = |q: u64| recovery.is_sacked(s, q) == Some(false);
        let log = &self.log;
        let once = |q: u64| q < f.high && log.clean_send_time(q).is_some();
        // Linux's FLAG_ORIG_SACK_ACKED: a segment sent before the timeout, never
        // retransmitted and not SACKed before, is now (S)ACKed: it was only delayed.
        // Without a scoreboard a cumulative ACK proves that only if it covers no
        // retransmission (Linux's non-SACK rule in tcp_clean_rtx_queue()).
        let original = |q: u64| once(q) && newly_sacked(q);
        let blocks = sack.iter().map(|&(a, b)| a.max(una)..b.min(s.snd_max));
        let by_ack = if sack_enhanced {
            (una..ack).any(original)
        } else {
            advanced && una < f.high && (una..ack).all(|q| log.clean_send_time(q).is_some())
        };
        if by_ack || blocks.clone().any(|mut r| r.any(original)) {
            // Step 3b (Linux takes it in step 2 too): the timeout was spurious.
            self.undos.frto += 1;
            self.undo_timeout();
            return false;
        }
        if f.probing {
            // Step 3a: a duplicate ACK, or SACKs of the new data only: the loss was real.
            if !advanced || blocks.clone().any(|mut r| r.any(newly_sacked)) {
                self.frto_fall_back(true);
            } else if ack >= f.high {
                self.frto = None;
            }
            return false;
        }
        if !advanced {
            // Step 2, SACK-enhanced: duplicate ACKs update the scoreboard; wait on.
            return false;
        }
        if ack >= f.high {
            // Step 2a: the retransmission's ACK covers RecoveryPoint: nothing to tell apart;
            // the ACK ends the loss state as any would.
            self.frto = None;
            return false;
        }
        // Step 2b: up to two new segments, if there are any and the receiver's window
        // takes them; otherwise conventional recovery.
        if s.new_segment_fits(ack) {
            self.frto = Some(Frto {
                high: s.snd_max,
                probing: true,
            });
            return true;
        }
        self.frto_fall_back(false);
        false
    }

    /// F-RTO gives way to conventional recovery: the go-back-N it held back resumes from
    /// snd_una, after step 3a with a window of at most three segments (RFC 5682 §3 step 3a;
    /// a plugin that owns the window keeps its own).
    fn frto_fall_back(&mut self, step_3a: bool) {
        self.frto = None;
        let s = &mut self.state;
        s.snd_nxt = s.snd_una;
        if step_3a && !self.growth.owns_window() {
            s.cwnd = s.cwnd.min(3.0);
        }
    }

    /// RFC 5682 step 2b: the new segments, sent whatever the flight (it still counts the
    /// original window the timeout deemed lost, which Linux's in-flight count leaves out).
    fn frto_send_new(&mut self, now: Time, out: &mut Vec<Segment>) {
        for _ in 0..2 {
            // A segment pacing held back is sent first: it is the lowest not yet sent.
            if let Some(h) = self.held.take() {
                self.transmit(now, h.seq, h.retransmission, out);
                continue;
            }
            let s = &mut self.state;
            if !s.new_segment_fits(s.snd_una) {
                return;
            }
            let seq = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            self.transmit(now, seq, false, out);
        }
    }

    /// [`Sender::on_ack`] with the ACK's timestamp echo (RFC 7323's TSecr), if it has one.
    /// Returns true when the ACK left the pacing deadline as it was (a paced sender's ACK
    /// between departures found the segment pacing held back not yet due), so that the
    /// caller's pacing timer needs no look.
    pub fn on_ack_echo(
        &mut self,
        now: Time,
        ack: u64,
        sack: &[(u64, u64)],
        tsecr: Option<u32>,
        truth: &dyn LossTruth,
        out: &mut Vec<Segment>,
    ) -> bool {
        self.clock_at(now);
        // (Eifel and DSACK behind one test: a sender with neither pays what it did.)
        let mut sack = sack;
        if self.undo_tests {
            sack = self.undo_before_ack(ack, sack, tsecr);
            // Linux's growth rules (which need RACK, hence `undo_tests`) take a copy of the
            // ACK path of their own: the other senders pay no test for them.
            if self.linux_growth {
                return self.on_ack_linux_growth(now, ack, sack, truth, out);
            }
        }
        self.ack_after_undo::<false>(now, ack, sack, truth, out)
    }

    /// [`Sender::on_ack_echo`] after the undo tests, with `linux_growth`.
    #[inline(never)]
    fn on_ack_linux_growth(
        &mut self,
        now: Time,
        ack: u64,
        sack: &[(u64, u64)],
        truth: &dyn LossTruth,
        out: &mut Vec<Segment>,
    ) -> bool {
        self.ack_after_undo::<true>(now, ack, sack, truth, out)
    }

    /// The ACK's processing after the undo tests; `LINUX_GROWTH` is `self.linux_growth`.
    #[inline(always)]
    fn ack_after_undo<const LINUX_GROWTH: bool>(
        &mut self,
        now: Time,
        ack: u64,
        sack: &[(u64, u64)],
        truth: &dyn LossTruth,
        out: &mut Vec<Segment>,
    ) -> bool {
        debug_assert_eq!(LINUX_GROWTH, self.linux_growth);
        let frto_new_data = self.frto.is_some() && self.frto_on_ack(ack, sack);
        if let Some(c) = fine_clock(&self.growth, &mut self.state.fine) {
            c.on_ack_arrival();
        }
        let ack = ack.min(self.state.snd_max);
        let old_una = self.state.snd_una;
        let sampling = self.samples();
        let sack_news_on = self.sack_news_on();
        // Linux's tcp_verify_left_out(): what is SACKed or marked lost is outstanding.
        debug_assert!(
            !sampling
                || self.state.acct.sacked_out + self.state.acct.lost_out <= self.state.flight(),
            "sacked_out {} + lost_out {} above the {} outstanding",
            self.state.acct.sacked_out,
            self.state.acct.lost_out,
            self.state.flight()
        );
        let prior_in_flight = self.state.acct.in_flight(self.state.flight());
        let lost_before = self.state.acct.lost;
        if sack_news_on && !sack.is_empty() {
            // The scoreboard first (nothing before `on_new_ack` reads it): the send log then
            // delivers what it reports new. (Without blocks it has nothing to do.)
            self.sack_news.clear();
            self.recovery
                .on_sack_blocks_news(&self.state, sack, &mut self.sack_news);
        }
        let mut ctx = self.deliveries(now, old_una, ack.max(old_una), sack);
        if sampling {
            ctx.prior_in_flight = prior_in_flight;
        }
        if LINUX_GROWTH {
            self.linux_delivered(&mut ctx);
        }
        self.growth.on_ack_arrival(&Conn::new(&self.state), &ctx);
        if !sack_news_on {
            self.recovery.on_sack_blocks(&self.state, sack);
        }
        if ack > old_una {
            self.on_new_ack(now, ack, &ctx);
            if self.rack.is_some() {
                self.rack_enter_on_new_ack(now, &ctx, truth);
            }
        } else if ack == old_una
            && old_una < self.state.snd_max
            && self.recovery.counts_dupack(&self.state)
        {
            self.on_dupack(now, &ctx, truth, out);
        }
        if LINUX_GROWTH && ack <= old_una {
            self.raise_on_sack(&ctx);
        }
        if sampling {
            self.mark_losses();
            ctx.losses = self.state.acct.lost - lost_before;
        }
        if let Some(c) = &mut self.classifier {
            c.on_ack(&self.state, &ctx);
        }
        if self.growth.owns_window() {
            self.growth
                .cong_control(&mut Window::new(&mut self.state), &ctx);
            // (Tested, then cleared only when set: nearly every ACK finds it clear.)
            if self.state.app_limited_request {
                self.state.app_limited_request = false;
                let in_flight = self.state.acct.in_flight(self.state.flight());
                self.state.acct.mark_app_limited(in_flight);
            }
            // (The plugins that pace own the window: the other senders skip the test.)
            if self.held_back(now) {
                self.ack_timers(now, ack > old_una);
                return true;
            }
        }
        if frto_new_data {
            self.frto_send_new(now, out);
        }
        self.send_pending(now, out);
        self.ack_timers(now, ack > old_una);
        false
    }

    /// The timers an ACK arms once its sends are done: RACK's reordering timer if it asked
    /// for one (`tcp_identify_packet_loss()` then clears `FLAG_SET_XMIT_TIMER`: no probe or
    /// RTO now), else the probe's or the RTO (`tcp_set_xmit_timer()`).
    #[inline]
    fn ack_timers(&mut self, now: Time, advanced: bool) {
        if self.ack_timer_choice {
            self.choose_ack_timer(now, advanced);
        }
    }

    #[cold]
    #[inline(never)]
    fn choose_ack_timer(&mut self, now: Time, advanced: bool) {
        // (The ACK's sends are done: a held partial ACK's hold ends with them.)
        if std::mem::take(&mut self.retransmissions_held) {
            self.recovery.hold_retransmissions(false);
        }
        if self.rack.is_some() && self.arm_reo_timer(now) {
            return;
        }
        if self.tlp_on {
            self.set_xmit_timer(now, advanced, self.tlp_high_before);
        }
    }

    /// (Inlined into both copies of the ACK path, `ack_after_undo`'s, as when it had one.)
    #[inline(always)]
    fn on_new_ack(&mut self, now: Time, ack: u64, ctx: &AckCtx) {
        let s = &mut self.state;
        let old_una = s.snd_una;
        if self.compat.delay_growth == DelayGrowth::BeforeSecondAck && old_una == 1 {
            s.cwnd = self.initial_window;
        }
        match self.recovery.partial_ack_timing(s, ack) {
            PartialAckTiming::Sample => match self.sampling {
                RttSampling::PerAck => {
                    if let Some(r) = ctx.rtt_sample {
                        self.rtt.sample(r);
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
            },
            PartialAckTiming::EndTimingIfCovered => {
                if self.timed.is_some_and(|(seq, _)| ack > seq) {
                    self.timed = None;
                    self.rtt.end_backoff();
                }
            }
            PartialAckTiming::EndBackoff => self.rtt.end_backoff(),
        }
        s.srtt = self.rtt.srtt();
        s.snd_una = ack;
        s.snd_nxt = s.snd_nxt.max(ack);
        s.dupacks = 0;
        if !s.retransmit_now.is_empty() {
            // Retransmissions pacing held, acknowledged since they were asked for (the
            // originals arrived late, as on a delay spike): Linux's acknowledged segment has
            // left the retransmission queue that `tcp_xmit_retransmit_queue()` walks, and is
            // neither sent again nor marked lost (which the send log's `lost_out`, counting
            // outstanding segments, would keep for good).
            s.retransmit_now.retain(|&q| q >= ack);
        }
        let verdict = self.recovery.on_new_ack(s, ack - old_una);
        if verdict.exited {
            s.ca_state = CaState::Open;
            self.growth
                .on_event(&mut Window::new(s), CaEvent::ExitRecovery);
            if self.rack.is_some() {
                self.rack_recovery_end();
            }
        } else if s.ca_state == CaState::Loss && s.recover.is_none_or(|r| s.snd_una >= r) {
            s.ca_state = CaState::Open;
            self.growth
                .on_event(&mut Window::new(s), CaEvent::LossRecovered);
            if self.rack.is_some() {
                self.rack_recovery_end();
            }
        }
        let s = &mut self.state;
        if verdict.grow && !self.growth.owns_window() {
            self.growth.on_ack(&mut Window::new(s), ctx);
        }
        if let Some(c) = fine_clock(&self.growth, &mut s.fine) {
            c.on_new_ack(old_una, ack);
        }
        self.recovery.after_new_ack(s);
        self.dup_run = 0;
        if self.compat.delay_growth == DelayGrowth::AfterFirstAck && ack == 1 {
            s.cwnd = self.initial_window;
        }
        let idle = s.snd_una >= s.snd_max;
        let timer_when_idle = self.compat.timer_when_idle && s.snd_una < s.limit;
        if idle && !timer_when_idle {
            self.rto_deadline = None; // RFC 6298 §5.2
            self.probe_armed = false;
        } else if idle || verdict.restart_timer {
            self.arm_timer(now); // §5.3
        }
    }

    /// (Inlined into both copies of the ACK path, `ack_after_undo`'s, as when it had one.)
    #[inline(always)]
    fn on_dupack(
        &mut self,
        now: Time,
        ctx: &AckCtx,
        truth: &dyn LossTruth,
        out: &mut Vec<Segment>,
    ) {
        if self.dsack_only {
            return;
        }
        self.state.dupacks += 1;
        self.dup_run += 1;
        match self.recovery.on_dupack(&mut self.state) {
            DupAck::Nothing => {}
            DupAck::Enter => self.enter_recovery(now, ctx, truth, true),
            DupAck::EnterWithoutCut => self.enter_recovery(now, ctx, truth, false),
        }
        if self.compat.limited_transmit
            && self.dup_run < self.state.dupthresh
            && !self.state.in_recovery
        {
            self.send_one(now, out);
        }
    }

    /// A loss event starts, with the growth plugin's cut (`cut`) or without one
    /// ([`DupAck::EnterWithoutCut`]): the recovery plugin enters.
    #[inline(never)]
    fn enter_recovery(&mut self, now: Time, ctx: &AckCtx, truth: &dyn LossTruth, cut: bool) {
        let (cut, verdict) = if cut {
            let fs = self.recovery.flight_size(&self.state);
            let (cut, v) = self.congestion_event(CongestionKind::FastRetransmit, fs, ctx, truth);
            self.arm_eifel(false, true);
            self.arm_dsack();
            if self.dsack_on && self.rack.is_some() {
                self.count_retransmissions_in_flight();
            }
            // tcp_enter_recovery() -> tcp_init_cwnd_reduction(): tlp_high_seq = 0.
            self.tlp = None;
            if self.partial_undo {
                self.arm_partial_undo();
            }
            (Some(cut), v)
        } else {
            (None, None)
        };
        self.recovery.enter(&mut self.state, cut);
        self.note_verdict(verdict);
        if self.state.in_recovery {
            self.state.ca_state = CaState::Recovery;
            self.growth
                .on_event(&mut Window::new(&mut self.state), CaEvent::EnterRecovery);
        }
        if self.recovery.backs_off_rto_at_fast_retransmit() {
            self.rtt.back_off();
        }
        self.arm_timer(now);
        if self.compat.ns2_rtt_timing {
            self.timed = None; // reset_rtx_timer(1, 0): rtt_active_ = 0
        }
    }

    /// The retransmission timer fired at `now` (the caller checks the deadline).
    pub fn on_timeout(&mut self, now: Time, truth: &dyn LossTruth, out: &mut Vec<Segment>) {
        self.clock_at(now);
        if self.probe_armed {
            self.on_probe_timer(now, out);
            return;
        }
        if self.reo_armed {
            self.on_reo_timer(now, truth, out);
            return;
        }
        self.rto_deadline = None;
        // tcp_retransmit_timer(): a timeout ends any probe episode.
        self.tlp = None;
        let s = &self.state;
        let timer_when_idle = self.compat.timer_when_idle && s.snd_una < s.limit;
        if s.snd_una >= s.snd_max && !timer_when_idle {
            return;
        }
        if self.compat.first_segment_waits_for_timer && s.snd_una == 0 {
            // tcp.cc timeout(): "First packet dropped, so don't use larger initial windows"
            // (`wnd_init_ = 1` when `highest_ack_ == -1`, with bugfix_ss_): the window that
            // delay_growth_ restores on the first ACK.
            self.initial_window = self.initial_window.min(1.0);
        }
        let again = self.last_timeout_seq == Some(s.snd_una);
        let repeated = self.compat.hold_ssthresh_on_repeated_timeout && again;
        // RFC 5682 §3 step 1 (Linux tcp_enter_loss()): F-RTO unless the timeout interrupts
        // a recovery, fast or after an earlier timeout, other than by timing out again.
        let frto = self.frto_on && (s.ca_state == CaState::Open || again);
        if s.ca_state == CaState::Open {
            self.recover_before_timeout = s.recover;
        }
        self.last_timeout_seq = Some(s.snd_una);
        let flight_size = self.recovery.flight_size(s);
        if self.recovery.on_timeout(&mut self.state) {
            self.dup_run = 0;
        }
        // RFC 5681 §3.1 eq. (4) and the loss window of one segment; RFC 6298 §5.4-5.6.
        let ctx = AckCtx {
            now,
            ..AckCtx::default()
        };
        let (cut, verdict) = if repeated {
            // The same segment timed out again: ssthresh held (RFC 5681 §3.1), no new loss
            // event for the growth plugin or a classifier.
            let held = Cut {
                ssthresh: self.state.ssthresh,
                cwnd: self.growth.restart_window(),
            };
            (held, None)
        } else {
            if self.state.ca_state == CaState::Open {
                self.arm_dsack();
            }
            self.arm_eifel(true, self.state.ca_state == CaState::Open);
            self.congestion_event(CongestionKind::Timeout, flight_size, &ctx, truth)
        };
        let s = &mut self.state;
        s.take(cut);
        s.note_loss(LossKind::Timeout);
        self.note_verdict(verdict);
        let s = &mut self.state;
        s.snd_nxt = s.snd_una;
        self.recovery.after_timeout(s);
        if let Some(r) = self.rack.as_deref_mut() {
            r.sync(&self.log, s.snd_una, s.snd_max);
            r.on_timeout(s.ca_state == CaState::Open);
            if let Some(d) = r.take_degree() {
                s.dupthresh = d;
                self.recovery.on_dupthresh_changed(s);
            }
        }
        self.partial_high = None;
        if self.log.sampling() {
            self.log.mark_all_lost(s.snd_una, s.snd_max, &mut s.acct);
            self.marked_upto = s.snd_max;
        }
        s.ca_state = CaState::Loss;
        self.growth.on_event(&mut Window::new(s), CaEvent::Timeout);
        self.rtt.back_off();
        self.timed = None;
        self.send_pending(now, out);
        // Step 1 done (snd_una went again): the rest of the window waits for step 2's
        // verdict instead of going back-N.
        self.frto = frto.then_some(Frto {
            high: self.state.snd_max,
            probing: false,
        });
        if frto {
            self.state.snd_nxt = self.state.snd_max;
        }
        if self.rto_deadline.is_none() && self.state.snd_una < self.state.snd_max {
            self.arm_timer(now);
        }
    }

    /// An ACK before it is processed, with its SACK blocks less any DSACK: Linux's
    /// `TCP_CA_Disorder` (SACKed data above snd_una) is noted, and a probe episode's ACK is
    /// judged where `tcp_ack()` judges it, after the scoreboard and before
    /// `tcp_fastretrans_alert()` and the window's growth.
    fn tlp_before_ack(&mut self, ack: u64, sack: &[(u64, u64)]) {
        let s = &self.state;
        self.tlp_high_before = s.snd_max;
        self.tlp_disorder = !sack.is_empty();
        if self.tlp.is_some() {
            self.process_tlp_ack(ack.min(s.snd_max), s.snd_una, !sack.is_empty());
        }
    }

    /// Linux's timer choice after an ACK or a send (RFC 8985 §7.2): an ACK that advanced
    /// snd_una schedules a probe (`tcp_set_xmit_timer()` -> `tcp_schedule_loss_probe(sk,
    /// true)`), and so does a send of new data (`tcp_write_xmit()` ->
    /// `tcp_schedule_loss_probe(sk, false)`, after `tcp_event_new_data_sent()` took the
    /// probe's timer back for the RTO); where no probe may be scheduled, the RTO stands.
    #[cold]
    #[inline(never)]
    fn set_xmit_timer(&mut self, now: Time, advanced: bool, high_before: u64) {
        let sent_new = self.state.snd_max > high_before;
        // (RACK's reordering timer waits on SACKed data: Linux's Disorder, where no probe
        // is scheduled.)
        if !(advanced || sent_new) || self.reo_armed {
            return;
        }
        if !self.schedule_probe(now, advanced && !sent_new) && self.probe_armed {
            self.rto_deadline = self.rto_behind_probe;
            self.probe_armed = false;
        }
    }

    /// `tcp_schedule_loss_probe()` (RFC 8985 §7.2, Linux 6.x's values): a SACK connection
    /// with data outstanding, in the open state (Linux's `TCP_CA_Open` or `TCP_CA_CWR`; the
    /// engine has no CWR state: its TLP response below returns to open at once, as
    /// `tcp_try_keep_open()` does, and Linux's `TCP_CA_Disorder`, SACKed data above snd_una,
    /// is an open sender whose last ACK carried SACK blocks) arms the probe timer at PTO =
    /// 2 SRTT plus `TLP_ONE_SEGMENT_EXTRA` with one segment outstanding, else plus
    /// `TLP_EXTRA` (1 s without an RTT sample), in whole jiffies, and no later than the RTO:
    /// a whole RTO from now after an ACK that advanced snd_una (`advancing_rto`), else the
    /// RTO deadline as it stands.
    fn schedule_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
        let s = &self.state;
        let outstanding = s.snd_max - s.snd_una;
        if outstanding == 0 || s.ca_state != CaState::Open || self.tlp_disorder {
            return false;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => {
                let extra = if outstanding == 1 {
                    TLP_ONE_SEGMENT_EXTRA
                } else {
                    TLP_EXTRA
                };
                linux_clock::round_up(Dur(2 * srtt.0 + extra.0))
            }
            None => TLP_NO_RTT,
        };
        let rto_at = if self.probe_armed {
            self.rto_behind_probe
        } else {
            self.rto_deadline
        };
        let rto_delta = if advancing_rto {
            Some(self.rtt.rto())
        } else {
            rto_at.filter(|&t| t > now).map(|t| t - now)
        };
        // (The engine's RTO is not in jiffies: the cap is its deadline itself.)
        let timeout = rto_delta.map_or(pto, |d| pto.min(d));
        self.rto_behind_probe = rto_at;
        self.rto_deadline = Some(now + timeout);
        self.probe_armed = true;
        true
    }

    /// The probe timer fired (`tcp_send_loss_probe()`, RFC 8985 §7.3): one segment, new
    /// data if there is any and the receiver's window takes it (whatever cwnd: Linux's
    /// `tcp_write_xmit(..., push_one = 2)`), else the highest segment sent, again; the RTO
    /// restarts from the probe. With an episode still open no probe leaves and the RTO
    /// stands as it was.
    #[cold]
    #[inline(never)]
    fn on_probe_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.probe_armed = false;
        self.rto_deadline = self.rto_behind_probe;
        let s = &mut self.state;
        if self.tlp.is_some() || s.snd_una >= s.snd_max {
            return;
        }
        let new_data = if let Some(h) = self.held.take() {
            // The send head pacing held back goes first.
            Some(h)
        } else if s.snd_nxt == s.snd_max && s.new_segment_fits(s.snd_una) {
            let seq = s.snd_max;
            s.snd_max += 1;
            s.snd_nxt = s.snd_max;
            Some(Segment {
                seq,
                retransmission: false,
            })
        } else {
            None
        };
        let retrans = match new_data {
            Some(h) => {
                self.transmit(now, h.seq, h.retransmission, out);
                h.retransmission
            }
            None => {
                // __tcp_retransmit_skb() directly, not tcp_retransmit_skb(): the probe is no
                // retransmission of a loss episode a DSACK could prove a duplicate.
                let episode = self.dsack_undo.take();
                self.transmit(now, self.state.snd_max - 1, true, out);
                self.dsack_undo = episode;
                if let Some(r) = self.rack.as_deref_mut() {
                    let s = &self.state;
                    r.sync(&self.log, s.snd_una, s.snd_max);
                    r.on_probe(s.snd_max - 1);
                }
                true
            }
        };
        self.tlp = Some(TlpEpisode {
            high: self.state.snd_max,
            retrans,
        });
        self.tlps.0 += 1;
        self.arm_timer(now);
    }

    /// An ACK during a probe episode (Linux's `tcp_process_tlp_ack()`, RFC 8985 §7.4): the
    /// episode ends when the ACK reaches the probe's snd_max. A probe of new data ends it
    /// there; so does a DSACK of the probe, or a duplicate ACK that SACKs nothing, which
    /// say the original arrived too. An ACK beyond it otherwise means the probe repaired a
    /// loss: the window is reduced once (`tcp_init_cwnd_reduction()`: the growth plugin's
    /// ssthresh, as at a fast retransmit; `tcp_end_cwnd_reduction()`: cwnd = ssthresh for a
    /// plugin that does not own its window; `CA_EVENT_COMPLETE_CWR`, the plugins'
    /// `CaEvent::ExitRecovery`) and the sender stays open.
    #[cold]
    #[inline(never)]
    fn process_tlp_ack(&mut self, ack: u64, old_una: u64, sacked: bool) {
        let Some(t) = self.tlp else {
            return;
        };
        let dsack_tlp = std::mem::take(&mut self.dsack_tlp);
        if ack < t.high {
            return;
        }
        if !t.retrans || dsack_tlp {
            self.tlp = None;
        } else if ack > t.high {
            self.tlp = None;
            self.tlps.1 += 1;
            let flight = self.recovery.flight_size(&self.state);
            let cut = self.growth.on_congestion_event(
                &Conn::with_flight_size(&self.state, flight),
                CongestionKind::FastRetransmit,
                &AckCtx {
                    now: self.state.now,
                    ..AckCtx::default()
                },
            );
            let s = &mut self.state;
            s.ssthresh = cut.ssthresh;
            if !self.growth.owns_window() {
                s.cwnd = cut.ssthresh;
            }
            self.growth
                .on_event(&mut Window::new(s), CaEvent::ExitRecovery);
        } else if ack == old_una && !sacked {
            self.tlp = None;
        }
    }

    /// What RACK reads of the sender (`tcp_rack_reo_wnd()`'s inputs).
    fn rack_ctx(&self, now: Time) -> RackCtx {
        let s = &self.state;
        RackCtx {
            now,
            recovering: s.ca_state != CaState::Open,
            min_rtt: s.min_rtt,
            srtt: self.rtt.srtt(),
            dupthresh: s.dupthresh,
        }
    }

    /// RACK on an ACK (`tcp_rack_advance()` for what it delivers, then
    /// `tcp_identify_packet_loss()` -> `tcp_rack_mark_lost()`), before the ACK's recovery
    /// decisions (RACK keeps its own record of what is SACKed): its verdicts go to the
    /// recovery plugin; the reordering timer it asks for is armed once the ACK's sends are
    /// done. (Run with the undo tests, on the path ACKs already take for them: the RTT
    /// estimators have not yet taken this ACK's sample.)
    #[cold]
    #[inline(never)]
    fn rack_on_ack(&mut self, now: Time, ack: u64, sack: &[(u64, u64)], tsecr: Option<u32>) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let s = &self.state;
        r.sync(&self.log, s.snd_una, s.snd_max);
        if self.partial_undo
            && s.ca_state == CaState::Open
            && (!sack.is_empty() || ack <= s.snd_una)
        {
            // (Step D of tcp_fastretrans_alert(), which a SACK or duplicate ACK reaches.)
            r.on_open_ack();
        }
        r.on_ack(now, ack, sack, s.min_rtt);
        // tcp_fastretrans_alert(): tcp_try_undo_partial() before tcp_identify_packet_loss().
        let hold = self.partial_undo && self.try_undo_partial(ack, tsecr);
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        // RACK's context once the degree this ACK's deliveries raised is the dupthresh
        // (tcp_sacktag_write_queue(), tcp_clean_rtx_queue() and tcp_try_undo_partial() all
        // run before tcp_identify_packet_loss()), with the state a partial undo may have
        // left.
        if let Some(d) = r.take_degree() {
            self.state.dupthresh = d;
            self.recovery.on_dupthresh_changed(&self.state);
        }
        if hold {
            // tcp_fastretrans_alert() returns before it asks for REXMIT_LOST.
            self.retransmissions_held = true;
            self.recovery.hold_retransmissions(true);
        } else {
            let c = self.rack_ctx(now);
            if let Some(r) = self.rack.as_deref_mut() {
                r.reo_wait = r.mark_lost(&c);
            }
        }
        self.rack_verdicts();
    }

    /// The window's growth counts what Linux's does: the segments this ACK delivered
    /// (`tcp_newly_delivered()`), not those it cumulatively acknowledged (a segment SACKed
    /// before counted then).
    #[cold]
    #[inline(never)]
    fn linux_delivered(&mut self, ctx: &mut AckCtx) {
        if let Some(r) = self.rack.as_deref_mut() {
            ctx.newly_delivered = r.take_delivered();
        }
    }

    /// `tcp_cong_control()` on an ACK that did not advance snd_una: outside recovery
    /// (Linux's `tcp_in_cwnd_reduction()`: CWR and Recovery reduce instead) the window grows
    /// by what it delivered if `tcp_may_raise_cwnd()` allows (it SACKed new data with the
    /// reordering degree above DupThresh: `FLAG_FORWARD_PROGRESS`).
    #[cold]
    #[inline(never)]
    fn raise_on_sack(&mut self, ctx: &AckCtx) {
        let s = &self.state;
        if s.in_recovery || s.ca_state == CaState::Recovery {
            return;
        }
        if self.rack.as_deref().is_some_and(Rack::raises_cwnd_on_sack) {
            self.growth.on_ack(&mut Window::new(&mut self.state), ctx);
        }
    }

    /// A fast recovery starts: its partial undo is possible until it ends or is undone
    /// (`tcp_init_undo()`), and its first retransmission will be the one the timestamp
    /// echoes are compared with.
    fn arm_partial_undo(&mut self) {
        self.partial_high = Some(self.state.snd_max);
        if let Some(r) = self.rack.as_deref_mut() {
            r.arm_retrans_stamp_recovery();
        }
    }

    /// A recovery (fast, or after a timeout) ended without an undo.
    #[cold]
    fn rack_recovery_end(&mut self) {
        self.partial_high = None;
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_recovery_end();
        }
    }

    /// Linux's `tcp_try_undo_partial()`, on an ACK in fast recovery that advances snd_una to
    /// `ack` short of the recovery point (one reaching it ends the recovery): if the ACK
    /// echoes a timestamp older than the episode's first retransmission (or none was sent
    /// yet: `tcp_packet_delayed()`), the hole was filled by a delayed original, which is
    /// reordering; with retransmissions still in flight nothing more is marked lost on this
    /// ACK (returns true), with none the recovery is undone: the window restored, the
    /// segments marked lost unmarked (`tcp_undo_cwnd_reduction(sk, true)`) and RACK made to
    /// judge them again.
    #[cold]
    #[inline(never)]
    fn try_undo_partial(&mut self, ack: u64, tsecr: Option<u32>) -> bool {
        let s = &self.state;
        let Some(high) = self.partial_high else {
            return false;
        };
        if s.ca_state != CaState::Recovery || ack <= s.snd_una || ack >= high {
            return false;
        }
        let Some(r) = self.rack.as_deref_mut() else {
            return false;
        };
        let delayed = match r.retrans_stamp() {
            None => true,
            Some(t) => tsecr.is_some_and(|e| echo_ms_before(e, t)),
        };
        if !delayed {
            return false;
        }
        r.delayed_fill(s.snd_una);
        if r.retrans_out() > 0 {
            return true;
        }
        r.undo_partial();
        self.partial_high = None;
        self.undos.partial += 1;
        self.undo_recovery();
        self.recovery.forget_rack_marks();
        let s = &mut self.state;
        if self.log.sampling() {
            self.log.unmark_lost(s.snd_una, s.snd_max, &mut s.acct);
            self.marked_upto = s.snd_una;
        }
        false
    }

    /// Hands RACK's verdicts to the recovery plugin; whether there were any.
    fn rack_verdicts(&mut self) -> bool {
        let Some(r) = self.rack.as_deref_mut() else {
            return false;
        };
        r.take_marked();
        let any = !r.handed.is_empty();
        for (q, retransmission) in r.handed.drain(..) {
            self.recovery.rack_lost(&self.state, q, retransmission);
        }
        any
    }

    /// An ACK that advanced snd_una in the open state while RACK proves a loss: Linux's
    /// `tcp_fastretrans_alert()` runs on it too (the ACK is "dubious": it SACKs, or the
    /// state is Disorder) and `tcp_time_to_recover()` starts the recovery.
    #[cold]
    #[inline(never)]
    fn rack_enter_on_new_ack(&mut self, now: Time, ctx: &AckCtx, truth: &dyn LossTruth) {
        let s = &self.state;
        if s.ca_state == CaState::Open
            && !s.in_recovery
            && s.snd_una < s.snd_max
            && self.recovery.loss_proven(s)
        {
            self.enter_recovery(now, ctx, truth, true);
        }
    }

    /// `tcp_rack_mark_lost()`'s timer: `inet_csk_reset_xmit_timer(ICSK_TIME_REO_TIMEOUT, ...,
    /// icsk_rto)`, no later than an RTO from now, in the place of the RTO or probe timer
    /// (remembered: it is re-armed when this one fires). Not when this ACK retransmitted
    /// snd_una: `tcp_xmit_retransmit_queue()` then re-arms the RTO over it. Returns whether
    /// it was armed.
    #[cold]
    #[inline(never)]
    fn arm_reo_timer(&mut self, now: Time) -> bool {
        let Some(wait) = self.rack.as_deref_mut().and_then(|r| r.reo_wait.take()) else {
            return false;
        };
        let s = &self.state;
        if s.snd_una >= s.snd_max || self.log.last_send(s.snd_una) == Some((now, true)) {
            return false;
        }
        if !self.reo_armed {
            self.rto_behind_probe = if self.probe_armed {
                self.rto_behind_probe
            } else {
                self.rto_deadline
            };
        }
        self.rto_deadline = Some(now + wait.min(self.rtt.rto()));
        self.probe_armed = false;
        self.reo_armed = true;
        true
    }

    /// RACK's reordering timer fired (`tcp_rack_reo_timeout()`): the segments whose window
    /// has passed are marked lost; if any were, an open sender starts a recovery (the cut and
    /// the retransmission of snd_una, `tcp_enter_recovery()`) and what the recovery allows
    /// is sent. The RTO is re-armed: from now if snd_una went again (the head's
    /// retransmission re-arms it in `tcp_xmit_retransmit_queue()`), else where it stood
    /// (`tcp_rearm_rto()`'s delta from the head's send).
    #[cold]
    #[inline(never)]
    fn on_reo_timer(&mut self, now: Time, truth: &dyn LossTruth, out: &mut Vec<Segment>) {
        self.reo_armed = false;
        self.rto_deadline = self.rto_behind_probe.map(|t| t.max(now));
        let c = self.rack_ctx(now);
        if let Some(r) = self.rack.as_deref_mut() {
            let s = &self.state;
            r.sync(&self.log, s.snd_una, s.snd_max);
            r.on_reo_timeout(&c);
        }
        if self.rack_verdicts() {
            let s = &self.state;
            if s.ca_state == CaState::Open && !s.in_recovery && self.recovery.loss_proven(s) {
                let ctx = AckCtx {
                    now,
                    ..AckCtx::default()
                };
                self.enter_recovery(now, &ctx, truth, true);
            }
            if self.log.sampling() {
                self.mark_losses();
            }
            let una = self.state.snd_una;
            let before = out.len();
            self.send_pending(now, out);
            if out[before..]
                .iter()
                .any(|g| g.seq == una && g.retransmission)
            {
                self.arm_timer(now);
            }
        }
        if self.rto_deadline.is_none() && self.state.snd_una < self.state.snd_max {
            self.arm_timer(now);
        }
    }

    /// Whether loss events wait for [`Sender::drain_events`].
    #[inline]
    pub fn has_loss_events(&self) -> bool {
        !self.state.events.is_empty()
    }

    /// Loss events since the last call (the simulator classifies them as spurious or not).
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, LossEvent> {
        self.state.events.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{GrowthConfig, Reno, RenoParams};
    use crate::tcp::recovery::{NewReno, NewRenoParams, RecoveryConfig, Sack};
    use crate::tcp::rtt::RttConfig;
    use crate::tcp::view::SenderView;
    use crate::tcp::{Compat, NoTruth};

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    pub(super) fn cfg(initial_window: u32) -> SenderConfig {
        SenderConfig {
            growth: GrowthConfig::Reno(RenoParams::default()),
            recovery: RecoveryConfig::Sack {
                prr: false,
                rack: false,
            },
            rtt: RttConfig::default(),
            sampling: RttSampling::PerAck,
            compat: Compat::default(),
            max_window: 16,
            initial_window,
            dupthresh: 3,
            fine_clock: None,
            classifier: None,
            timestamps: false,
            eifel: false,
            frto: false,
            dsack: false,
            tlp: false,
            rack: false,
            reordering: Default::default(),
            partial_undo: false,
            handshake_rtt: false,
            segment_bytes: 1000,
            seed: 0,
        }
    }

    /// Reno growth that records the context of every ACK and asks for every measurement.
    #[derive(Default)]
    struct Recorder {
        reno: Reno,
        seen: Vec<AckCtx>,
    }

    impl Growth for Recorder {
        fn on_ack_arrival(&mut self, _s: &Conn, ctx: &AckCtx) {
            self.seen.push(*ctx);
        }
        fn on_ack(&mut self, s: &mut Window, ctx: &AckCtx) {
            self.reno.on_ack(s, ctx);
        }
        fn on_congestion_event(&mut self, s: &Conn, k: CongestionKind, c: &AckCtx) -> Cut {
            self.reno.on_congestion_event(s, k, c)
        }
        fn wants_rate_samples(&self) -> bool {
            true
        }
    }

    fn sent(out: &mut Vec<Segment>) -> Vec<u64> {
        out.drain(..).map(|s| s.seq).collect()
    }

    #[test]
    fn growth_hooks_see_the_clock_rtt_acked_delivered_and_rate() {
        let c = cfg(4);
        let mut tx = Sender::with_plugins(&c, Recorder::default(), Sack::default(), u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), vec![0, 1, 2, 3]);
        // Segment 0 arrives: one delivered in 100 ms; slow start opens cwnd to 5.
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4, 5]);
        // Segment 1 was lost; segment 2 is SACKed: a duplicate ACK that delivers one.
        tx.on_ack(ms(101), 1, &[(2, 3)], &NoTruth, &mut out);
        let seen = &tx.growth.seen;
        assert_eq!(seen.len(), 2);
        let a = seen[0];
        assert_eq!(a.now, ms(100));
        assert_eq!(a.rtt_sample, Some(Dur::from_secs(0.1)));
        assert_eq!((a.newly_acked, a.newly_delivered), (1, 1));
        let r = a.rate.expect("a rate sample");
        // Sent with nothing delivered at time 0; one delivered over max(0, 100 ms).
        assert_eq!((r.delivered, r.interval), (1, Dur::from_secs(0.1)));
        assert_eq!(r.delivery_rate, 10.0);
        let b = seen[1];
        assert_eq!((b.newly_acked, b.newly_delivered), (0, 1));
        assert_eq!(b.rtt_sample, Some(Dur::from_secs(0.101)));
        let r = b.rate.expect("a rate sample");
        assert_eq!((r.delivered, r.interval), (2, Dur::from_secs(0.101)));
        assert_eq!(tx.state.min_rtt, Some(Dur::from_secs(0.1)));
    }

    fn seg(seq: u64, retransmission: bool) -> Segment {
        Segment {
            seq,
            retransmission,
        }
    }

    /// Reno growth with `recovery`, IW 8 in a window of 64, its first window sent at 0.
    fn started<R: Recovery>(recovery: R, frto: bool, eifel: bool) -> Sender<Reno, R> {
        let c = SenderConfig {
            max_window: 64,
            frto,
            eifel,
            ..cfg(8)
        };
        let mut tx = Sender::with_plugins(&c, Reno::default(), recovery, u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), (0..8).collect::<Vec<_>>());
        tx
    }

    /// A Reno/SACK sender, IW 8 in a window of 64, whose eight segments sent at 0 time out
    /// at 1.5 s: ssthresh 4 (half the flight), cwnd 1, segment 0 sent again (RFC 5682 step
    /// 1). With F-RTO the rest of the window waits for the first ACK.
    fn timed_out_reno(frto: bool, eifel: bool) -> Sender<Reno, Sack> {
        let mut tx = started(Sack::default(), frto, eifel);
        let mut out = Vec::new();
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        assert_eq!(out, vec![seg(0, true)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (1.0, 4.0));
        assert_eq!(tx.state.ca_state, CaState::Loss);
        tx
    }

    /// The initial ssthresh (64 windows of 64), which the first timeout's undo restores.
    const SSTHRESH0: f64 = 4096.0;

    #[test]
    fn frto_finds_a_delay_spike_spurious_undoes_the_timeout_and_sends_only_new_data() {
        let mut tx = timed_out_reno(true, false);
        let mut out = Vec::new();
        // The original of segment 0 arrives late: its ACK advances snd_una without
        // acknowledging anything sent once (0 went twice). Step 2b: two new segments,
        // not the go-back-N of 1 and 2.
        tx.on_ack(ms(1600), 1, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(8, false), seg(9, false)]);
        assert_eq!((tx.state.cwnd, tx.state.ca_state), (2.0, CaState::Loss));
        out.clear();
        // Segment 1's ACK: sent once, before the timeout: it was only delayed (step 3b).
        // Reno's undo: cwnd max(2, 8), ssthresh back to the initial one; this ACK's slow
        // start makes 9, and with 8 in flight (2-9) one new segment leaves.
        tx.on_ack(ms(1610), 2, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
        assert_eq!(out, vec![seg(10, false)]);
        out.clear();
        // The rest of the original window arrives: never sent again; slow start goes on.
        for k in 3..=9 {
            tx.on_ack(ms(1610 + k), k, &[], &NoTruth, &mut out);
        }
        assert!(out.iter().all(|s| !s.retransmission), "{out:?}");
        assert_eq!(sent(&mut out), (11..25).collect::<Vec<_>>());
        assert_eq!(tx.state.cwnd, 16.0);
        let events: Vec<LossKind> = tx.drain_events().map(|e| e.kind).collect();
        assert_eq!(events, vec![LossKind::Timeout]);
    }

    #[test]
    fn without_frto_the_same_acks_are_answered_by_go_back_n() {
        let mut tx = timed_out_reno(false, false);
        let mut out = Vec::new();
        tx.on_ack(ms(1600), 1, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(1, true), seg(2, true)]);
        out.clear();
        tx.on_ack(ms(1610), 2, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(3, true), seg(4, true)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (3.0, 4.0));
    }

    #[test]
    fn frto_falls_back_to_conventional_recovery_when_the_window_was_lost() {
        // Segments 0-7 were lost (an outage); the retransmission of 0 arrives.
        let mut tx = timed_out_reno(true, false);
        let mut out = Vec::new();
        tx.on_ack(ms(1600), 1, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(8, false), seg(9, false)]);
        out.clear();
        // The new segments arrive above the hole at 1: a duplicate ACK SACKing 8 (step 3a).
        // Go-back-N resumes from snd_una with cwnd min(2, 3): segments 1 and 2 again;
        // nothing is undone.
        tx.on_ack(ms(1700), 1, &[(8, 9)], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(1, true), seg(2, true)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (2.0, 4.0));
        assert_eq!(tx.state.ca_state, CaState::Loss);
        out.clear();
        // Conventional recovery from here: the next duplicate sends nothing (the window
        // is full), the ACK of 1 slow-starts as RFC 5681 has it, skipping the SACKed 8.
        tx.on_ack(ms(1701), 1, &[(8, 10)], &NoTruth, &mut out);
        assert!(out.is_empty());
        tx.on_ack(ms(1800), 2, &[(8, 10)], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(3, true), seg(4, true)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (3.0, 4.0));
    }

    #[test]
    fn frto_undoes_repeated_timeouts_to_the_state_of_before_the_first() {
        // The retransmission is delayed too and the timer expires again at 3.5 s: F-RTO
        // starts over (Linux: icsk_retransmits > 0), ssthresh held at 4.
        let mut tx = timed_out_reno(true, false);
        let mut out = Vec::new();
        tx.on_timeout(ms(3500), &NoTruth, &mut out);
        assert_eq!(out, vec![seg(0, true)]);
        out.clear();
        tx.on_ack(ms(3600), 1, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(8, false), seg(9, false)]);
        out.clear();
        tx.on_ack(ms(3610), 3, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
        assert_eq!(out, vec![seg(10, false), seg(11, false)]);
    }

    #[test]
    fn frto_sacks_of_originals_above_a_lost_retransmission_are_a_spurious_verdict() {
        // Segment 0 was lost twice (original and its retransmission); 1-7 were delayed and
        // arrive after the timeout: SACKed, never retransmitted (Linux's
        // FLAG_ORIG_SACK_ACKED): undone, and go-back-N never starts.
        let mut tx = timed_out_reno(true, false);
        let mut out = Vec::new();
        tx.on_ack(ms(1600), 0, &[(1, 2)], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!(tx.state.cwnd, 8.0);
        assert!(out.is_empty(), "eight in flight fill cwnd 8: {out:?}");
    }

    #[test]
    fn frto_without_sack_trusts_no_cumulative_ack_that_covers_the_retransmission() {
        // NewReno: after the timeout the ACK of 5 covers the retransmitted 0 and 1-4. With no
        // scoreboard nothing says 1-4 were not delivered before the timeout (Linux's non-SACK
        // rule): step 2b, not an undo. Segment 5 was lost: the new segments bring a duplicate
        // ACK (step 3a), and go-back-N resumes at 5. With SACK and no blocks before, the same
        // ACK would prove 1-4 delayed (they arrived after the timeout) and undo at once.
        let mut tx = started(NewReno::new(NewRenoParams::default()), true, false);
        let mut out = Vec::new();
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        out.clear();
        tx.on_ack(ms(1600), 5, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(8, false), seg(9, false)]);
        assert_eq!(tx.state.ca_state, CaState::Loss);
        out.clear();
        tx.on_ack(ms(1700), 5, &[], &NoTruth, &mut out);
        assert_eq!(out, vec![seg(5, true), seg(6, true)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (2.0, 4.0));
        let mut tx = timed_out_reno(true, false);
        tx.on_ack(ms(1600), 5, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
    }

    #[test]
    fn eifel_response_ends_the_go_back_n_of_a_spurious_timeout() {
        // RFC 4015 §3.2: the ACK echoing the original's timestamp (sent at 0) undoes the
        // timeout; SND.NXT <- SND.MAX: segments 8 and 9 (cwnd 8, + 1 by slow start, 7 in
        // flight), not 1 and 2.
        let mut tx = timed_out_reno(false, true);
        let mut out = Vec::new();
        let echo = Some(crate::packet::tsval(ms(0)));
        tx.on_ack_echo(ms(1600), 1, &[], echo, &NoTruth, &mut out);
        assert_eq!(out, vec![seg(8, false), seg(9, false)]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
        assert_eq!(tx.state.ca_state, CaState::Open);
    }

    #[test]
    fn eifel_ends_a_spurious_fast_recovery_with_the_undo() {
        // Segment 0 is only delayed (reordering): 1, 2, 3 arrive first and their duplicate
        // ACKs start a recovery (ssthresh = cwnd = 4 of 8). Then 0's original arrives: the
        // ACK of all of 0-3 echoes 0's timestamp (sent at 0), older than the retransmission
        // at 103 ms: spurious. The window of 8 comes back and the recovery ends: the ACK
        // opens cwnd by one more (9) and new data goes out, 4 in flight (4-7) + 5 new.
        let mut tx = started(Sack::default(), false, true);
        let mut out = Vec::new();
        for (k, hi) in [2u64, 3, 4].into_iter().enumerate() {
            tx.on_ack(ms(101 + k as u64), 0, &[(1, hi)], &NoTruth, &mut out);
        }
        assert!(tx.state.in_recovery);
        assert_eq!(out[0], seg(0, true));
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (4.0, 4.0));
        out.clear();
        let echo = Some(crate::packet::tsval(ms(0)));
        tx.on_ack_echo(ms(110), 4, &[], echo, &NoTruth, &mut out);
        assert!(!tx.state.in_recovery);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
        assert_eq!(sent(&mut out), vec![8, 9, 10, 11, 12]);
    }

    /// `started` with DSACK-based undo.
    fn started_dsack() -> Sender<Reno, Sack> {
        let mut tx = started(Sack::default(), false, false);
        (tx.dsack_on, tx.undo_tests) = (true, true);
        tx
    }

    /// Segment 0 is only delayed (reordering): 1, 2, 3 arrive first, and their three
    /// duplicate ACKs start a recovery, ssthresh = cwnd = 4 (half of 8), 0 retransmitted.
    fn reordered_into_recovery() -> Sender<Reno, Sack> {
        let mut tx = started_dsack();
        let mut out = Vec::new();
        for (k, hi) in [2u64, 3, 4].into_iter().enumerate() {
            tx.on_ack(ms(101 + k as u64), 0, &[(1, hi)], &NoTruth, &mut out);
        }
        assert_eq!(sent(&mut out), vec![0]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (4.0, 4.0));
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        tx
    }

    /// A Reno/SACK sender with RACK and the reordering degree (no DSACK window), the partial
    /// undo as `partial_undo` says, initial window `iw`.
    fn rack_reordering_sender(iw: u32, partial_undo: bool) -> Sender<Reno, Sack> {
        let c = SenderConfig {
            max_window: 64,
            rack: true,
            reordering: super::super::rack::Reordering {
                degree: true,
                dsack_window: false,
            },
            partial_undo,
            ..cfg(iw)
        };
        Sender::with_plugins(
            &c,
            Reno::default(),
            Sack::default().with_rack(true),
            u64::MAX,
        )
    }

    /// A Reno/SACK sender with RACK, the reordering degree and the partial undo, IW 8 sent at
    /// 0; segment 0 is only delayed: 1, 2, 3 are SACKed at 101-103 ms. At the third RACK's
    /// window is 0 (three SACKed, no reordering seen) and 0, sent with 1 at 0 but before it
    /// by sequence, has 103 + 0 - 103 = 0 ms left: lost; recovery, 0 sent again at 103 ms.
    fn rack_reordered_into_recovery() -> Sender<Reno, Sack> {
        let mut tx = rack_reordering_sender(8, true);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), (0..8).collect::<Vec<_>>());
        assert!(tx.reads_timestamp_echo());
        for (k, hi) in [2u64, 3, 4].into_iter().enumerate() {
            let t = ms(101 + k as u64);
            tx.on_ack_echo(t, 0, &[(1, hi)], Some(0), &NoTruth, &mut out);
        }
        assert_eq!(sent(&mut out), vec![0]);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        tx
    }

    #[test]
    fn a_partial_ack_echoing_the_delayed_original_undoes_the_recovery() {
        // The original 0 arrives at 110 ms: ACK 4 echoes its timestamp (0), older than the
        // retransmission's (103 ms): tcp_try_undo_partial(). Reordering from 0 to the
        // highest SACKed point (4, snd_una once 1-3 are acknowledged): degree 4 (one
        // TCPTSReorder); no retransmission left in flight (0's is acknowledged): undone,
        // ssthresh back to its initial value, the sender open, one partial undo.
        let mut tx = rack_reordered_into_recovery();
        let mut out = Vec::new();
        tx.on_ack_echo(ms(110), 4, &[], Some(0), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!(tx.state.ssthresh, SSTHRESH0);
        assert_eq!(tx.undos().partial, 1);
        assert_eq!(tx.state.dupthresh, 4);
        assert_eq!(tx.reordering_counts(), (1, 4, 1));
        // Had the retransmission filled the hole (its echo, 103 ms), nothing is undone.
        let mut tx = rack_reordered_into_recovery();
        tx.on_ack_echo(ms(110), 4, &[], Some(103_000), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!((tx.undos().partial, tx.state.dupthresh), (0, 3));
    }

    /// As [`rack_reordered_into_recovery`] with IW 12 and three segments delayed or lost:
    /// 3, 4, 5 SACKed at 101-103 ms; at the third RACK's window is 0 and 0, 1, 2 are lost;
    /// recovery, cwnd = ssthresh = 12 / 2 = 6, and 0 goes again at 103 ms (pipe 1 + 6-11 =
    /// 7). 6 SACKed at 104 ms: pipe 6, full; 7 at 105 ms: pipe 5, NextSeg retransmits 1.
    fn rack_two_retransmissions_out(partial_undo: bool) -> Sender<Reno, Sack> {
        let mut tx = rack_reordering_sender(12, partial_undo);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), (0..12).collect::<Vec<_>>());
        for (k, hi) in [4u64, 5, 6].into_iter().enumerate() {
            let t = ms(101 + k as u64);
            tx.on_ack_echo(t, 0, &[(3, hi)], Some(0), &NoTruth, &mut out);
        }
        assert_eq!(sent(&mut out), vec![0]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (6.0, 6.0));
        tx.on_ack_echo(ms(104), 0, &[(3, 7)], Some(0), &NoTruth, &mut out);
        assert!(out.is_empty());
        tx.on_ack_echo(ms(105), 0, &[(3, 8)], Some(0), &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![1]);
        tx
    }

    /// The traced case of crosscheck linux's BBR runs (Bernoulli 1%, a FIFO path), driven
    /// with Reno: a recovery ends on the ACK of a retransmission while a later segment's
    /// retransmission, sent in that recovery, is in flight and still marked lost, and RACK's
    /// proven loss starts the next recovery on the same ACK (`tcp_time_to_recover()`). IW 10
    /// sent at 0, one ACK per segment, RTT 100 ms, timestamps echoed. 0 is lost; 1-3 SACKed
    /// at 101-103 ms: RACK marks 0, recovery (point 10, cwnd = ssthresh = 5), 0 sent again
    /// at 103 ms, and lost again. 4-9 SACKed at 104-109 ms: new data 10-13 at 106-109 ms;
    /// 10 is lost. 11 SACKed at 207 ms: RACK finds 0's retransmission (103 ms) and 10 (106
    /// ms) lost; both go at 207 ms.
    fn rack_lost_retransmission_and_a_loss_above_the_point() -> Sender<Reno, Sack> {
        let mut tx = rack_reordering_sender(10, true);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), (0..10).collect::<Vec<_>>());
        for hi in 2..=10u64 {
            let t = 99 + hi;
            tx.on_ack_echo(ms(t), 0, &[(1, hi)], echo(t - 101), &NoTruth, &mut out);
        }
        assert_eq!(
            out,
            [
                seg(0, true),
                seg(10, false),
                seg(11, false),
                seg(12, false),
                seg(13, false)
            ]
        );
        out.clear();
        tx.on_ack_echo(
            ms(207),
            0,
            &[(11, 12), (1, 10)],
            echo(107),
            &NoTruth,
            &mut out,
        );
        assert_eq!(out, [seg(0, true), seg(10, true), seg(14, false)]);
        assert_eq!(tx.rack_counts().1, 1, "0's first retransmission");
        assert_eq!(tx.state.events.len(), 1);
        tx
    }

    fn echo(t_ms: u64) -> Option<u32> {
        Some(crate::packet::tsval(ms(t_ms)))
    }

    #[test]
    fn a_recovery_that_starts_as_one_ends_keeps_its_retransmissions_in_flight() {
        // 0's second retransmission is ACKed at 307 ms (ACK 10, 11 SACKed, echo 207 ms):
        // snd_una reaches the point, the recovery ends, and 10, marked lost, starts the next
        // at once (a second cut: ssthresh = cwnd = 2). 10's retransmission of 207 ms is in
        // flight (TCPCB_SACKED_RETRANS): tcp_xmit_retransmit_queue() sends it no more, and
        // the pipe (10's retransmission, 12-14) leaves nothing for new data. Before
        // (RFC 6675's entry), 10 went again at once.
        let mut tx = rack_lost_retransmission_and_a_loss_above_the_point();
        let mut out = Vec::new();
        tx.on_ack_echo(ms(307), 10, &[(11, 12)], echo(207), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!(tx.state.events.len(), 2);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (2.0, 2.0));
        assert!(out.is_empty(), "{out:?}");
        // 10's retransmission arrives: ACK 14 echoes 207 ms. The episode's first
        // retransmission is still 0's of 103 ms (tcp_enter_recovery() keeps retrans_stamp
        // while a retransmission is out, tcp_retrans_stamp_cleanup()): the echo is not older,
        // the hole was filled by the retransmission, not by a delayed original:
        // tcp_try_undo_partial() does nothing, no reordering is counted. Before, the stamp
        // was the spurious copy's (307 ms): a partial undo and a TSReorder event.
        tx.on_ack_echo(ms(308), 14, &[], echo(207), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!(tx.undos().partial, 0);
        assert_eq!(tx.reordering_counts(), (0, 3, 1));
        assert_eq!(sent(&mut out), vec![15]);
        // 10's last transmission is still the one of 207 ms.
        let times = |q: u64| {
            tx.log
                .last_send(q)
                .map(|(t, again)| (t.0 / 1_000_000, again))
        };
        assert_eq!(times(0), Some((207, true)));
        assert_eq!(times(10), Some((207, true)));
    }

    #[test]
    fn a_held_partial_ack_sends_new_data_but_no_retransmission() {
        // The original 0 arrives at 110 ms: ACK 1 echoes its timestamp (0), older than the
        // first retransmission (103 ms): reordering, degree 8 - 0 = 8; 1's retransmission is
        // still out, so tcp_try_undo_partial() holds: no undo, and tcp_fastretrans_alert()
        // returns before REXMIT_LOST. The pipe is 1's retransmission + 8-11 = 5 against cwnd
        // 6: one segment, new data (12; Linux's tcp_write_xmit(): packets_out 11 - sacked 5
        // - lost 2 + retrans 1 = 5 in flight), where NextSeg's rule 1 would retransmit 2
        // (lost, not yet sent again).
        let mut tx = rack_two_retransmissions_out(true);
        let mut out = Vec::new();
        tx.on_ack_echo(ms(110), 1, &[(3, 8)], Some(0), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!((tx.undos().partial, tx.state.dupthresh), (0, 8));
        assert_eq!(sent(&mut out), vec![12]);
        // The hold is that ACK's only: the next, 8 SACKed, retransmits 2 (pipe 1 + 9-12 = 5).
        tx.on_ack_echo(ms(111), 1, &[(3, 9)], Some(0), &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![2]);
        // Without partial_undo the same ACK holds nothing: 2 goes at once.
        let mut tx = rack_two_retransmissions_out(false);
        tx.on_ack_echo(ms(110), 1, &[(3, 8)], Some(0), &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![2]);
    }

    #[test]
    fn above_dupthresh_the_window_grows_on_sacks_outside_recovery() {
        // The partial undo at 110 ms (as above): degree 4, open; Reno's undo gives cwnd
        // max(4, 8) = 8, ssthresh its initial value, and the ACK's own growth (slow start,
        // RFC 5681: one per ACK) 9. At 111 ms an ACK SACKs 5 only (4 is late): no
        // cumulative progress, but the degree 4 exceeds DupThresh 3, so
        // tcp_may_raise_cwnd() takes FLAG_DATA_SACKED as progress: 10. One SACKed segment
        // is fewer than the degree: no recovery.
        let mut tx = rack_reordered_into_recovery();
        let mut out = Vec::new();
        tx.on_ack_echo(ms(110), 4, &[], Some(0), &NoTruth, &mut out);
        assert_eq!((tx.state.ca_state, tx.state.dupthresh), (CaState::Open, 4));
        assert_eq!(tx.state.cwnd, 9.0);
        tx.on_ack_echo(ms(111), 4, &[(5, 6)], Some(0), &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!(tx.state.cwnd, 10.0);
        // A duplicate of that ACK SACKs nothing new: no growth.
        tx.on_ack_echo(ms(112), 4, &[(5, 6)], Some(0), &NoTruth, &mut out);
        assert_eq!(tx.state.cwnd, 10.0);
        // In recovery the window is reduced instead (tcp_in_cwnd_reduction()): the SACKs
        // that enter it (3 at 101-103 ms, degree 3) grew nothing before it either.
        let tx = rack_reordered_into_recovery();
        assert_eq!((tx.state.cwnd, tx.state.dupthresh), (4.0, 3));
    }

    #[test]
    fn the_window_grows_by_what_each_ack_delivers_as_linux_counts_it() {
        // Linux's reno counting (tcp_slow_start(): the segments delivered) beside the
        // reordering degree. IW 8 at 0; 1 SACKed at 100 ms (degree 3: no growth on it);
        // at 101 ms ACK 2, the late 0 (a reordering of distance 2, below DupThresh):
        // tcp_newly_delivered() is 1 (1 was delivered when SACKed), so 8 -> 9, where the
        // cumulative count (2) gives 10 without reordering.
        for (reordering, cwnd) in [(true, 9.0), (false, 10.0)] {
            let c = SenderConfig {
                max_window: 64,
                rack: true,
                reordering: super::super::rack::Reordering {
                    degree: reordering,
                    dsack_window: false,
                },
                ..cfg(8)
            };
            let mut tx = Sender::with_plugins(
                &c,
                crate::tcp::cc::RenoLinux::default(),
                Sack::default().with_rack(true),
                u64::MAX,
            );
            let mut out = Vec::new();
            tx.start(ms(0), &mut out);
            tx.on_ack(ms(100), 0, &[(1, 2)], &NoTruth, &mut out);
            assert_eq!(tx.state.cwnd, 8.0);
            tx.on_ack(ms(101), 2, &[], &NoTruth, &mut out);
            assert_eq!(tx.state.cwnd, cwnd, "reordering {reordering}");
        }
    }

    #[test]
    fn dsack_of_the_only_retransmission_undoes_a_reordering_recovery() {
        let mut tx = reordered_into_recovery();
        let mut out = Vec::new();
        // The original 0 arrives: ACK 4, a partial ACK; 4-7 in flight fill cwnd 4.
        tx.on_ack(ms(110), 4, &[], &NoTruth, &mut out);
        assert!(out.is_empty());
        // Then the retransmission: its DSACK (below the ACK) proves the episode's one
        // retransmission a duplicate (undo_retrans 1 -> 0): the recovery ends and Reno's
        // undo gives max(min(4, ssthresh 4), 8) = 8, ssthresh back to its initial value;
        // 4 in flight, so 8-11 go out. The block is no SACK information: the scoreboard
        // was not told of 0 (the cumulative ACK had passed it anyway).
        tx.on_ack(ms(111), 4, &[(0, 1)], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (8.0, SSTHRESH0));
        assert_eq!(sent(&mut out), vec![8, 9, 10, 11]);
        assert_eq!(tx.undos().dsack, 1);
        assert_eq!(tx.undos().eifel_fast_retransmit + tx.undos().frto, 0);
        // Slow start goes on from the restored window: ACK 5 makes 9, two more go out.
        tx.on_ack(ms(200), 5, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.cwnd, 9.0);
        assert_eq!(sent(&mut out), vec![12, 13]);
        // Further DSACK-only ACKs are no duplicate ACKs: three of them start no recovery.
        for k in 0..3 {
            tx.on_ack(ms(201 + k), 5, &[(0, 1)], &NoTruth, &mut out);
        }
        assert_eq!((tx.state.dupacks, tx.state.ca_state), (0, CaState::Open));
        assert!(out.is_empty());
        assert_eq!(tx.undos().dsack, 1);
    }

    #[test]
    fn without_dsack_the_same_ack_changes_nothing_and_a_lost_retransmission_keeps_the_cut() {
        // The same ACKs without the option: the retransmission's duplicate only repeats the
        // ACK of 4 (no blocks), a duplicate ACK inside the recovery: cwnd stays 4.
        let mut tx = reordered_into_recovery();
        (tx.dsack_on, tx.undo_tests, tx.dsack_undo) = (false, false, None);
        let mut out = Vec::new();
        tx.on_ack(ms(110), 4, &[], &NoTruth, &mut out);
        tx.on_ack(ms(111), 4, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (4.0, 4.0));
        assert_eq!(tx.undos(), Undos::default());
        // With it, an episode with a genuine loss: 0 was only delayed, but 4 was lost
        // (5-7 SACKed above it, RFC 6675's IsLost) and is retransmitted too, with 8-10 (pipe
        // 1 of cwnd 4); the DSACK of 0 leaves one retransmission unproved (undo_retrans
        // 2 -> 1): no undo, nothing sent (the block SACKs nothing new).
        let mut tx = reordered_into_recovery();
        tx.on_ack(ms(110), 4, &[(5, 8)], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4, 8, 9, 10]);
        tx.on_ack(ms(111), 4, &[(0, 1), (5, 8)], &NoTruth, &mut out);
        assert!(out.is_empty());
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        assert_eq!(tx.state.ssthresh, 4.0);
        assert_eq!(tx.undos().dsack, 0);
        // The retransmitted 4 arrives: the full ACK ends the recovery at ssthresh 4.
        tx.on_ack(ms(200), 8, &[], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (4.0, 4.0));
        assert_eq!(tx.undos().dsack, 0);
    }

    #[test]
    fn dsack_undoes_a_spurious_timeout_once_its_retransmission_proves_a_duplicate() {
        // The eight segments sent at 0 are delayed past the timeout at 1.5 s (cwnd 1,
        // ssthresh 4, 0 retransmitted). Their ACK (8) arrives with the DSACK of the
        // retransmitted 0, which proves the one retransmission a duplicate, on an ACK that
        // advances: the timeout is undone first (tcp_try_undo_loss() comes before the
        // ACK's tcp_cong_control()): Reno's max(1, 8) = 8 and the initial ssthresh; then
        // the ACK's slow start makes 9; nothing in flight, so 8-16 go out.
        let mut tx = started_dsack();
        let mut out = Vec::new();
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![0]);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (1.0, 4.0));
        tx.on_ack(ms(1600), 8, &[(0, 1)], &NoTruth, &mut out);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
        assert_eq!(sent(&mut out), (8..17).collect::<Vec<_>>());
        assert_eq!(tx.undos().dsack, 1);
        // The same without the DSACK (the retransmission filled a real hole): the cut stays.
        let mut tx = started_dsack();
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        out.clear();
        tx.on_ack(ms(1600), 8, &[], &NoTruth, &mut out);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (2.0, 4.0));
        assert_eq!(tx.undos().dsack, 0);
    }

    #[test]
    fn a_dsack_inside_the_second_block_is_taken_out_and_counted() {
        // RFC 2883 §4: the first block within the second is a DSACK even above the ACK.
        let mut tx = reordered_into_recovery();
        assert_eq!(tx.take_dsack(0, &[(2, 3), (1, 4)]), Some(&[(1, 4)][..]));
        assert_eq!(tx.dsack_undo.map(|u| u.retrans), Some(0));
        // Not a DSACK: above the ACK and not inside the next block, or alone above it.
        let mut tx = reordered_into_recovery();
        assert_eq!(tx.take_dsack(0, &[(5, 6), (1, 4)]), None);
        assert_eq!(tx.take_dsack(0, &[(1, 4)]), None);
        assert_eq!(tx.dsack_undo.map(|u| u.retrans), Some(1));
    }

    #[test]
    fn a_spurious_newreno_recovery_is_undone_without_its_inflation() {
        // NewReno, IW 8: segment 0 delayed, 1-7 arrive first. The third duplicate ACK
        // starts the recovery (ssthresh 4, cwnd 4 + 3) and four more inflate it to 11.
        // The ACK of all eight echoes 0's original: the recovery ends, its inflation goes
        // (cwnd 4), and the undo gives max(4, 8); this ACK's slow start makes 9.
        let mut tx = started(NewReno::new(NewRenoParams::default()), false, true);
        let mut out = Vec::new();
        for k in 1..=7 {
            tx.on_ack(ms(100 + k), 0, &[], &NoTruth, &mut out);
        }
        assert!(tx.state.in_recovery);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (11.0, 4.0));
        out.clear();
        let echo = Some(crate::packet::tsval(ms(0)));
        tx.on_ack_echo(ms(110), 8, &[], echo, &NoTruth, &mut out);
        assert!(!tx.state.in_recovery);
        assert_eq!((tx.state.cwnd, tx.state.ssthresh), (9.0, SSTHRESH0));
    }

    /// A plugin that owns the window (BBR's shape): a fixed window and pacing rate.
    struct FixedRate {
        cwnd: f64,
        rate: f64,
        cut: bool,
        burst: Option<u32>,
    }

    impl Growth for FixedRate {
        fn on_ack(&mut self, _s: &mut Window, _ctx: &AckCtx) {
            panic!("a plugin that owns the window gets cong_control, not on_ack");
        }
        fn on_congestion_event(&mut self, s: &Conn, _k: CongestionKind, _c: &AckCtx) -> Cut {
            self.cut = true;
            Cut {
                ssthresh: s.ssthresh(),
                cwnd: s.cwnd(),
            }
        }
        fn owns_window(&self) -> bool {
            true
        }
        fn cong_control(&mut self, s: &mut Window, ctx: &AckCtx) {
            assert!(ctx.rate.is_some() || ctx.newly_delivered == 0);
            s.set_cwnd(self.cwnd);
            s.set_pacing_rate(Some(self.rate));
            s.set_pacing_burst(self.burst);
        }
    }

    #[test]
    fn a_window_owning_plugin_paces_its_segments() {
        let c = cfg(4);
        let g = FixedRate {
            cwnd: 6.0,
            rate: 100.0,
            cut: false,
            burst: None,
        };
        let mut tx = Sender::with_plugins(&c, g, Sack::default(), u64::MAX);
        tx.state.pacing_rate = Some(100.0); // 10 ms per segment from the start
        let mut out = Vec::new();
        let mut times = Vec::new();
        tx.start(ms(0), &mut out);
        times.extend(out.drain(..).map(|s| (0, s.seq)));
        while let Some(t) = tx.pacing_deadline() {
            tx.on_pacing_timer(t, &mut out);
            times.extend(out.drain(..).map(|s| (t.0 / 1_000_000, s.seq)));
        }
        assert_eq!(times, vec![(0, 0), (10, 1), (20, 2), (30, 3)]);
        // The ACK of segment 0 at 100 ms: the plugin sets cwnd 6, so segments 4-6 may go,
        // one now and the others 10 ms apart.
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4]);
        assert_eq!(tx.state.cwnd, 6.0);
        assert_eq!(tx.pacing_deadline(), Some(ms(110)));
        tx.on_pacing_timer(ms(110), &mut out);
        assert_eq!(sent(&mut out), vec![5]);
        tx.on_pacing_timer(ms(120), &mut out);
        assert_eq!(sent(&mut out), vec![6]);
        assert_eq!(tx.pacing_deadline(), None, "the window is full");
        // Three SACKs of segments above the lost 1: a fast retransmit, cut by the plugin.
        for (k, hi) in [(2u64, 3u64), (2, 4), (2, 5)].iter().enumerate() {
            tx.on_ack(ms(130 + k as u64), 1, &[*hi], &NoTruth, &mut out);
        }
        assert!(tx.growth.cut);
        assert_eq!(tx.state.events.len(), 1);
    }

    /// Linux's TSO pacing: a burst leaves back to back, the next one burst / rate later; the
    /// window cutting a burst short does not let its rest out unpaced; a late start is
    /// credited up to half the burst's gap (tcp_update_skb_after_send()).
    #[test]
    fn tso_bursts_leave_back_to_back_and_are_spaced_by_burst_over_rate() {
        let c = cfg(4);
        let g = FixedRate {
            cwnd: 20.0,
            rate: 100.0,
            cut: false,
            burst: Some(3),
        };
        let mut tx = Sender::with_plugins(&c, g, Sack::default(), u64::MAX);
        tx.state.pacing_rate = Some(100.0);
        tx.state.pacing_burst = Some(3);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), vec![0, 1, 2], "one burst at once");
        assert_eq!(
            tx.pacing_deadline(),
            Some(ms(30)),
            "3 segments / 100 per s later"
        );
        tx.on_pacing_timer(ms(30), &mut out);
        assert_eq!(
            sent(&mut out),
            vec![3],
            "the initial window of 4 cuts the burst"
        );
        assert_eq!(tx.state.next_send_at, ms(40), "advanced by what left only");
        assert_eq!(tx.pacing_deadline(), None, "the window is full");
        // The ACK at 100 ms opens the window to 20: 60 ms late, so the burst's 30 ms of gap
        // is credited by half (15 ms).
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4, 5, 6]);
        assert_eq!(tx.pacing_deadline(), Some(ms(115)));
        tx.on_pacing_timer(ms(115), &mut out);
        assert_eq!(sent(&mut out), vec![7, 8, 9]);
        assert_eq!(tx.pacing_deadline(), Some(ms(145)), "on time: no credit");
    }

    /// With RACK, a retransmission due at a pacing wake-up leaves before the new segment
    /// pacing held back, as Linux's wake-up retransmits first (`tcp_tsq_write()`). Bursts of
    /// 2 every 20 ms (rate 100/s), cwnd 30: 0-1 at 0 ms, 2-3 at 20, ..., the third segment of
    /// each wake-up held for the next; ACKs 100 ms after each send. 2 and 6 are lost. At
    /// 140 ms 3-5 are SACKed: RACK's window is 0 with three SACKed, 2 (sent before 5) is
    /// lost: recovery, 2 goes at the 160 ms wake-up, before the held 16. At 160 ms 7 is
    /// SACKed: 6, sent at 60 ms with 7 but before it, is lost, while 17 is held. At the
    /// 180 ms wake-up 6 goes first, then 17: sent after 17 at the same instant, RACK (which
    /// breaks the tie by sequence) would take 6 as sent first and mark it lost again when
    /// 17's SACK arrives ahead of it on a FIFO path.
    #[test]
    fn with_rack_a_retransmission_leaves_before_the_held_new_segment() {
        let c = SenderConfig {
            max_window: 64,
            rack: true,
            ..cfg(30)
        };
        let g = FixedRate {
            cwnd: 30.0,
            rate: 100.0,
            cut: false,
            burst: Some(2),
        };
        let mut tx = Sender::with_plugins(&c, g, Sack::default().with_rack(true), u64::MAX);
        tx.state.pacing_rate = Some(100.0);
        tx.state.pacing_burst = Some(2);
        let mut out = Vec::new();
        let mut log = Vec::new();
        tx.start(ms(0), &mut out);
        log.push((0, sent(&mut out)));
        let mut wake =
            |tx: &mut Sender<FixedRate, Sack>, t: u64, log: &mut Vec<(u64, Vec<u64>)>| {
                assert_eq!(tx.pacing_deadline(), Some(ms(t)));
                // The simulator books the ACKs' loss events before the next event.
                tx.drain_events().for_each(drop);
                tx.on_pacing_timer(ms(t), &mut out);
                log.push((t, sent(&mut out)));
            };
        for t in [20, 40, 60, 80, 100] {
            wake(&mut tx, t, &mut log);
        }
        let mut acks = Vec::new();
        tx.on_ack(ms(100), 2, &[], &NoTruth, &mut acks);
        for t in [120, 140] {
            wake(&mut tx, t, &mut log);
        }
        tx.on_ack(ms(120), 2, &[(3, 4)], &NoTruth, &mut acks);
        tx.on_ack(ms(140), 2, &[(3, 5)], &NoTruth, &mut acks);
        tx.on_ack(ms(140), 2, &[(3, 6)], &NoTruth, &mut acks);
        assert_eq!(tx.state.ca_state, CaState::Recovery);
        wake(&mut tx, 160, &mut log);
        tx.on_ack(ms(160), 2, &[(7, 8), (3, 6)], &NoTruth, &mut acks);
        assert!(acks.is_empty(), "pacing holds every send for the wake-ups");
        wake(&mut tx, 180, &mut log);
        let expect: Vec<(u64, Vec<u64>)> = vec![
            (0, vec![0, 1]),
            (20, vec![2, 3]),
            (40, vec![4, 5]),
            (60, vec![6, 7]),
            (80, vec![8, 9]),
            (100, vec![10, 11]),
            (120, vec![12, 13]),
            (140, vec![14, 15]),
            (160, vec![2, 16]),
            (180, vec![6, 17]),
        ];
        assert_eq!(log, expect);
    }

    /// Reno/SACK with TLP, a receiver window of 4 and IW 4 (the RFC 6298 timer: RTO 1 s
    /// until samples say more), its first window sent at 0. No RTT sample yet: the probe
    /// timer stands at 1 s (TCP_TIMEOUT_INIT), capped at the RTO, also 1 s.
    fn tlp_sender(dsack: bool, limit: u64, min_rto: Dur) -> Sender<Reno, Sack> {
        let mut c = SenderConfig {
            max_window: 4,
            tlp: true,
            dsack,
            ..cfg(4)
        };
        c.rtt.min_rto = min_rto;
        let mut tx = Sender::with_plugins(&c, Reno::default(), Sack::default(), limit);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(sent(&mut out), (0..4.min(limit)).collect::<Vec<_>>());
        assert!(tx.probe_armed);
        assert_eq!(tx.rto_deadline(), Some(ms(1000)));
        tx
    }

    /// The window 0-3 sent at 0; segment 0's ACK at 100 ms (SRTT 100 ms, RTO max(1 s,
    /// 300 ms)) sends 4, the receiver's window full (1-4). The ACKs of 1-4 are lost (or 4
    /// too): the probe fires at 100 + 2 x 100 + 2 ms, rounded up to 4 ms jiffies (204),
    /// = 304 ms; no new data fits the receiver's window, so 4 goes again, and the RTO
    /// restarts from the probe: 304 + 1000 ms.
    fn probed(dsack: bool) -> Sender<Reno, Sack> {
        let mut tx = tlp_sender(dsack, u64::MAX, Dur::from_secs(1.0));
        let mut out = Vec::new();
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4]);
        assert_eq!(tx.srtt(), Some(Dur::from_secs(0.1)));
        assert!(tx.probe_armed);
        assert_eq!(tx.rto_deadline(), Some(ms(304)));
        tx.on_timeout(ms(304), &NoTruth, &mut out);
        assert_eq!(out, vec![seg(4, true)]);
        out.clear();
        assert!(!tx.probe_armed);
        assert_eq!(tx.rto_deadline(), Some(ms(1304)));
        assert_eq!(tx.tlps(), (1, 0));
        assert!(
            tx.drain_events().next().is_none(),
            "a probe is no loss event"
        );
        tx
    }

    #[test]
    fn tlp_probe_at_two_srtt_retransmits_the_last_segment_and_restarts_the_rto() {
        let tx = probed(false);
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!(tx.tlp.map(|t| (t.high, t.retrans)), Some((5, true)));
    }

    #[test]
    fn tlp_one_segment_outstanding_waits_for_a_delayed_ack_and_the_rto_caps_it() {
        // Two segments to send; segment 0's ACK at 100 ms leaves one outstanding: PTO = 2 x
        // 100 + 200 ms (TCP_RTO_MIN) = 400 ms, under the RTO of 1 s restarted by the ACK.
        let mut tx = tlp_sender(false, 2, Dur::from_secs(1.0));
        let mut out = Vec::new();
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert!(out.is_empty());
        assert_eq!(tx.rto_deadline(), Some(ms(500)));
        // No new data: the probe is segment 1 again.
        tx.on_timeout(ms(500), &NoTruth, &mut out);
        assert_eq!(out, vec![seg(1, true)]);
        assert_eq!(tx.rto_deadline(), Some(ms(1500)));
        // With no RTO floor the first sample gives RTO = 100 + 4 x 50 = 300 ms: the probe
        // would come after the RTO, so it comes at the RTO's time, 400 ms.
        let mut tx = tlp_sender(false, 2, Dur::ZERO);
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(tx.rto(), Dur::from_secs(0.3));
        assert_eq!(tx.rto_deadline(), Some(ms(400)));
    }

    #[test]
    fn tlp_new_data_goes_first_whatever_cwnd() {
        // A receiver window of 64 and IW 4: segment 0's ACK opens cwnd to 5 and sends 4
        // and 5, which fills it (1-5 out). The probe at 304 ms is the next new segment,
        // which the receiver's window takes though cwnd does not (push_one = 2).
        let mut c = SenderConfig {
            max_window: 64,
            tlp: true,
            ..cfg(4)
        };
        c.rtt.min_rto = Dur::from_secs(1.0);
        let mut tx = Sender::with_plugins(&c, Reno::default(), Sack::default(), u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        out.clear();
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![4, 5]);
        assert_eq!((tx.state.cwnd, tx.state.flight()), (5.0, 5));
        assert_eq!(tx.rto_deadline(), Some(ms(304)));
        tx.on_timeout(ms(304), &NoTruth, &mut out);
        assert_eq!(out, vec![seg(6, false)]);
        assert_eq!(tx.tlp.map(|t| (t.high, t.retrans)), Some((7, false)));
        assert_eq!(tx.rto_deadline(), Some(ms(1304)));
        out.clear();
        // A probe of new data: the ACK reaching it ends the episode, nothing reduced.
        tx.on_ack(ms(400), 7, &[], &NoTruth, &mut out);
        assert!(tx.tlp.is_none());
        assert_eq!(tx.tlps(), (1, 0));
        assert_eq!(tx.state.ssthresh, 256.0 * 16.0);
    }

    #[test]
    fn tlp_one_probe_per_episode_the_next_timer_restores_the_rto() {
        // The probe's ACK covers it (1-4 all arrived: without DSACK, an ACK of 5 that
        // advances snd_una says nothing yet). It is Karn-ambiguous (4 went twice): SRTT
        // stays 100 ms. Slow start sends 5-8; a probe is scheduled at 400 + 204 ms, but
        // when it fires the episode is still open: nothing is sent and the RTO, restarted
        // by the ACK at 400 ms, stands at 1400 ms.
        let mut tx = probed(false);
        let mut out = Vec::new();
        tx.on_ack(ms(400), 5, &[], &NoTruth, &mut out);
        assert_eq!(sent(&mut out), vec![5, 6, 7, 8]);
        assert_eq!(tx.srtt(), Some(Dur::from_secs(0.1)));
        assert!(tx.tlp.is_some());
        assert_eq!(tx.rto_deadline(), Some(ms(604)));
        tx.on_timeout(ms(604), &NoTruth, &mut out);
        assert!(out.is_empty());
        assert_eq!(tx.tlps(), (1, 0));
        assert_eq!((tx.probe_armed, tx.rto_deadline()), (false, Some(ms(1400))));
    }

    #[test]
    fn tlp_an_ack_beyond_the_probe_without_dsack_is_a_repaired_loss_cwnd_to_ssthresh() {
        // As above, then the ACK of 5 arrives at 650 ms: beyond tlp_high_seq (5) without a
        // DSACK, so the probe repaired a loss: Reno's ssthresh from the flight of 5-8
        // (RFC 5681: max(4 / 2, 2) = 2), cwnd = ssthresh (tcp_end_cwnd_reduction()), the
        // sender open; this ACK's congestion avoidance then makes 2 + 1/2.
        let mut tx = probed(false);
        let mut out = Vec::new();
        tx.on_ack(ms(400), 5, &[], &NoTruth, &mut out);
        out.clear();
        tx.on_ack(ms(650), 6, &[], &NoTruth, &mut out);
        assert_eq!(tx.tlps(), (1, 1));
        assert!(tx.tlp.is_none());
        assert_eq!(tx.state.ca_state, CaState::Open);
        assert_eq!((tx.state.ssthresh, tx.state.cwnd), (2.0, 2.5));
        assert!(tx.drain_events().next().is_none());
    }

    #[test]
    fn tlp_a_dsack_of_the_probe_ends_the_episode_without_a_window_change() {
        // With DSACK the receiver reports 4's second copy: the original was not lost.
        let mut tx = probed(true);
        let mut out = Vec::new();
        tx.on_ack(ms(400), 5, &[(4, 5)], &NoTruth, &mut out);
        assert!(tx.tlp.is_none());
        assert_eq!(sent(&mut out), vec![5, 6, 7, 8]);
        tx.on_ack(ms(650), 6, &[], &NoTruth, &mut out);
        assert_eq!(tx.tlps(), (1, 0));
        assert_eq!(tx.state.ssthresh, 256.0);
        assert_eq!(tx.undos(), Undos::default());
    }

    #[test]
    fn tlp_a_duplicate_ack_at_the_probe_ends_the_episode_without_a_window_change() {
        // The ACK of 5 comes first (the original of 4 arrived), then the probe's copy
        // gives a duplicate ACK with nothing SACKed: both arrived, no loss.
        let mut tx = probed(false);
        let mut out = Vec::new();
        tx.on_ack(ms(390), 5, &[], &NoTruth, &mut out);
        assert!(tx.tlp.is_some());
        tx.on_ack(ms(400), 5, &[], &NoTruth, &mut out);
        assert!(tx.tlp.is_none());
        tx.on_ack(ms(650), 6, &[], &NoTruth, &mut out);
        assert_eq!(tx.tlps(), (1, 0));
        assert_eq!(tx.state.ssthresh, 256.0);
    }

    #[test]
    fn tlp_off_the_same_acks_wait_for_the_rto() {
        let mut c = SenderConfig {
            max_window: 4,
            ..cfg(4)
        };
        c.rtt.min_rto = Dur::from_secs(1.0);
        let mut tx = Sender::with_plugins(&c, Reno::default(), Sack::default(), u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(tx.rto_deadline(), Some(ms(1100)));
        assert_eq!(tx.tlps(), (0, 0));
    }

    #[test]
    fn tlp_needs_sack_a_newreno_sender_never_probes() {
        let c = SenderConfig {
            max_window: 4,
            tlp: true,
            recovery: RecoveryConfig::NewReno(NewRenoParams::default()),
            ..cfg(4)
        };
        let mut tx = Sender::new(&c, u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert!(!tx.probe_armed);
        assert_eq!(tx.rto_deadline(), Some(ms(1100)));
    }
}

#[cfg(test)]
mod contract_tests {
    use super::*;
    use crate::tcp::recovery::Sack;
    use crate::tcp::view::SenderView;
    use crate::tcp::NoTruth;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    /// A window-owning plugin that holds cwnd at 8 and records what it is told.
    #[derive(Default)]
    struct Watcher {
        events: Vec<(CaEvent, CaState, u64)>,
        ctx: Vec<(AckCtx, u64, u64)>,
    }

    impl Growth for Watcher {
        fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) {}
        fn on_congestion_event(&mut self, s: &Conn, _k: CongestionKind, _c: &AckCtx) -> Cut {
            Cut {
                ssthresh: s.ssthresh(),
                cwnd: s.cwnd(),
            }
        }
        fn owns_window(&self) -> bool {
            true
        }
        fn wants_tx_start(&self) -> bool {
            true
        }
        fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
            self.events.push((ev, w.ca_state(), w.snd_una()));
        }
        fn cong_control(&mut self, w: &mut Window, ctx: &AckCtx) {
            w.set_cwnd(8.0);
            self.ctx.push((*ctx, w.in_flight(), w.delivered()));
        }
    }

    fn sender() -> Sender<Watcher, Sack> {
        let cfg = SenderConfig {
            max_window: 64,
            ..super::tests::cfg(8)
        };
        Sender::with_plugins(&cfg, Watcher::default(), Sack::default(), u64::MAX)
    }

    /// A sender with Eifel on that times out at 1.5 s (the eight segments sent at 0 and
    /// the ACK of none of them back): go-back-N retransmits segment 0 then.
    fn timed_out(eifel: bool) -> Sender<Watcher, Sack> {
        let cfg = SenderConfig {
            max_window: 64,
            eifel,
            ..super::tests::cfg(8)
        };
        let mut tx = Sender::with_plugins(&cfg, Watcher::default(), Sack::default(), u64::MAX);
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        assert_eq!(out[8].seq, 0, "{out:?}");
        assert!(out[8].retransmission);
        tx
    }

    fn undos(tx: &Sender<Watcher, Sack>) -> usize {
        tx.growth
            .events
            .iter()
            .filter(|e| e.0 == CaEvent::Undo)
            .count()
    }

    #[test]
    fn eifel_undoes_a_timeout_whose_first_ack_echoes_the_original() {
        // RFC 3522 §3.2: the first ACK covering the retransmitted segment decides. It echoes
        // the original's timestamp (sent at 0, before the retransmission at 1.5 s): the
        // timeout was spurious.
        let tsval = |t_ms: u64| crate::packet::tsval(ms(t_ms));
        let mut tx = timed_out(true);
        assert_eq!(
            tx.state.acct.lost_out, 8,
            "the timeout marks the window lost"
        );
        let mut out = Vec::new();
        tx.on_ack_echo(ms(1600), 1, &[], Some(tsval(0)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 1);
        // tcp_undo_cwnd_reduction(sk, true): the marks are gone, the count of losses stays;
        // with cwnd 8 and 7 in flight, new data only (RFC 4015's response).
        let a = tx.state.acct;
        assert_eq!((a.lost_out, a.lost), (0, 8));
        assert_eq!(
            out.iter()
                .map(|s| (s.seq, s.retransmission))
                .collect::<Vec<_>>(),
            vec![(8, false)]
        );
        assert_eq!(tx.growth.events.last().unwrap().0, CaEvent::Undo);
        // Decided once: later ACKs say nothing more.
        tx.on_ack_echo(ms(1601), 2, &[], Some(tsval(0)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 1);
        // It echoes the retransmission's (the original was lost): not spurious.
        let mut tx = timed_out(true);
        tx.on_ack_echo(ms(1600), 1, &[], Some(tsval(1500)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 0);
        // A duplicate ACK (it does not cover segment 0) decides nothing yet.
        let mut tx = timed_out(true);
        tx.on_ack_echo(ms(1550), 0, &[(1, 2)], Some(tsval(0)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 0);
        tx.on_ack_echo(ms(1600), 1, &[], Some(tsval(0)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 1);
        // Off (the default): never.
        let mut tx = timed_out(false);
        tx.on_ack_echo(ms(1600), 1, &[], Some(tsval(0)), &NoTruth, &mut out);
        assert_eq!(undos(&tx), 0);
    }

    #[test]
    fn a_partial_undo_reads_the_echo_in_linux_s_milliseconds() {
        // The first retransmission at 100.9 ms: an echo of 99.999 ms is an earlier
        // millisecond (a delayed original), one of 100.2 ms is not, though earlier; and
        // across the engine clock's wrap (2^32 us) the test holds the same.
        let t = Time(100_900_000);
        assert!(echo_ms_before(99_999, t));
        assert!(!echo_ms_before(100_200, t));
        assert!(!echo_ms_before(100_950, t));
        let wrap = Time((1u64 << 32) * 1_000 + 500_000);
        assert!(echo_ms_before(u32::MAX - 600, wrap));
        assert!(!echo_ms_before(200, wrap));
    }

    #[test]
    fn timestamps_compare_across_the_clock_wrap() {
        use crate::packet::ts_before;
        assert!(ts_before(1, 2) && !ts_before(2, 1) && !ts_before(5, 5));
        assert!(ts_before(u32::MAX - 10, 5), "5 follows the wrap");
    }

    /// Linux's active open measures the SYN's round trip before any data: BBR's RTprop
    /// (`bbr_init()` reads `tcp_min_rtt()`), RACK's and the rate samples' minimum start from
    /// it, and a first data ACK that takes longer (a full segment's serialisation, a delayed
    /// ACK) does not raise it; SRTT and the RTO are its first sample's.
    #[test]
    fn the_handshake_sample_is_the_minimum_rtt_a_longer_first_ack_keeps() {
        for handshake in [false, true] {
            let mut tx = sender();
            if handshake {
                tx.handshake_rtt_sample(ms(40) - Time::ZERO);
                assert_eq!(tx.srtt(), Some(ms(40) - Time::ZERO));
                assert_eq!(tx.state.min_rtt, Some(ms(40) - Time::ZERO));
            }
            let mut out = Vec::new();
            tx.start(ms(0), &mut out);
            tx.on_ack(ms(45), 1, &[], &NoTruth, &mut out);
            let min = if handshake { 40 } else { 45 };
            assert_eq!(
                tx.state.min_rtt,
                Some(ms(min) - Time::ZERO),
                "handshake {handshake}"
            );
        }
    }

    #[test]
    fn recovery_losses_and_in_flight_reach_the_plugin_as_linux_reports_them() {
        let mut tx = sender();
        let mut out = Vec::new();
        tx.start(ms(0), &mut out);
        assert_eq!(out.len(), 8, "segments 0-7");
        assert_eq!(
            tx.growth.events,
            vec![(CaEvent::TxStart { idle: Dur::ZERO }, CaState::Open, 0)]
        );
        out.clear();
        // Segment 1 is lost. The ACK of 0 releases 8; then 2, 3, 4 are SACKed.
        tx.on_ack(ms(100), 1, &[], &NoTruth, &mut out);
        assert_eq!(out.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![8]);
        for hi in 3..=5 {
            tx.on_ack(ms(98 + hi), 1, &[(2, hi)], &NoTruth, &mut out);
        }
        let ctx: Vec<(u64, u64, u64, u64, u64)> = tx
            .growth
            .ctx
            .iter()
            .map(|(c, f, d)| (c.newly_delivered, c.prior_in_flight, c.losses, *f, *d))
            .collect();
        // (delivered by the ACK, in flight before it, marked lost by it, in flight after
        // (before this ACK's sends), delivered so far). The third SACK starts recovery: RFC
        // 6675 deems segment 1 lost (three SACKed above it) and retransmits it.
        assert_eq!(
            ctx,
            vec![
                (1, 8, 0, 7, 1),
                (1, 8, 0, 7, 2),
                (1, 7, 0, 6, 3),
                (1, 6, 1, 4, 4),
            ]
        );
        assert_eq!(
            tx.growth.events[1..],
            [(CaEvent::EnterRecovery, CaState::Recovery, 1)]
        );
        assert_eq!(tx.state.acct.retrans_out, 1, "segment 1 went out again");
        // The retransmission arrives: everything up to 9 is acknowledged, recovery ends.
        tx.on_ack(ms(200), 9, &[], &NoTruth, &mut out);
        assert_eq!(
            tx.growth.events[2..],
            [(CaEvent::ExitRecovery, CaState::Open, 9)]
        );
        let a = tx.state.acct;
        assert_eq!(
            (a.delivered, a.lost, a.lost_out, a.retrans_out, a.sacked_out),
            (9, 1, 0, 0, 0)
        );
        // A timeout: everything outstanding is lost; the state is Loss until all of it is
        // acknowledged.
        let outstanding = tx.state.flight();
        tx.on_timeout(ms(1500), &NoTruth, &mut out);
        assert_eq!(tx.state.acct.lost, 1 + outstanding);
        assert_eq!(
            tx.growth.events[3..],
            [(CaEvent::Timeout, CaState::Loss, 9)]
        );
        let recover = tx.state.snd_max;
        tx.on_ack(ms(1600), recover, &[], &NoTruth, &mut out);
        // Nothing is left in flight: the next segment restarts the flow after 100 ms idle.
        assert_eq!(
            tx.growth.events[4..],
            [
                (CaEvent::LossRecovered, CaState::Open, recover),
                (
                    CaEvent::TxStart {
                        idle: Dur::from_secs(0.1)
                    },
                    CaState::Open,
                    recover
                )
            ]
        );
        assert_eq!(
            tx.growth.ctx.last().unwrap().0.losses,
            0,
            "timeouts mark at the timer"
        );
    }
}
