//! The simulation: links and flows wired by a scenario, driven by the event heap.

use std::collections::VecDeque;

use crate::config::{AppConfig, DelayConfig, Scenario};
use crate::link::{Fate, Link};
use crate::metrics::{FlowReport, LinkReport, RunReport};
use crate::packet::LossCause;
use crate::packet::{FlowId, Kind, LinkId, Packet};
use crate::sched::Scheduler;
use crate::tcp::receiver::{AckOut, RxAction};
use crate::tcp::variant::preset;
use crate::tcp::{LossKind, LossTruth, Receiver, Segment, Sender};
use crate::time::{Dur, Time};

enum Event {
    /// The packet (an index into the in-flight slab) reached the end of hop `packet.hop` of
    /// its path. Keeping packets out of the heap keeps heap entries small.
    Arrive(u32),
    /// The earliest packet in the link's pipe arrives. On a link whose delay is fixed,
    /// arrivals leave in the order they entered, so they wait in a FIFO and the heap holds
    /// one entry per busy link instead of one per packet in flight.
    PipeHead(LinkId),
    Rto(FlowId),
    /// The sender's pacing timer.
    Pace(FlowId),
    DelAck(FlowId, u64),
    Start(FlowId),
}

/// Ground truth about each segment in the window: copies sent and copies dropped, so a loss
/// detection can be judged spurious (some copy arrived or is still on its way).
struct Oracle {
    seq: Vec<u64>,
    sent: Vec<u32>,
    dropped: Vec<u32>,
    /// Why the latest dropped copy was dropped.
    cause: Vec<Option<LossCause>>,
    mask: u64,
}

impl Oracle {
    fn new(window: u32) -> Self {
        let n = (u64::from(window) * 2 + 4).next_power_of_two() as usize;
        Self {
            seq: vec![u64::MAX; n],
            sent: vec![0; n],
            dropped: vec![0; n],
            cause: vec![None; n],
            mask: n as u64 - 1,
        }
    }
    fn slot(&mut self, seq: u64) -> usize {
        let i = (seq & self.mask) as usize;
        if self.seq[i] != seq {
            self.seq[i] = seq;
            self.sent[i] = 0;
            self.dropped[i] = 0;
            self.cause[i] = None;
        }
        i
    }
    fn on_send(&mut self, seq: u64) {
        let i = self.slot(seq);
        self.sent[i] += 1;
    }
    fn on_drop(&mut self, seq: u64, cause: LossCause) {
        let i = (seq & self.mask) as usize;
        if self.seq[i] == seq {
            self.dropped[i] += 1;
            self.cause[i] = Some(cause);
        }
    }
    fn some_copy_survives(&self, seq: u64) -> bool {
        let i = (seq & self.mask) as usize;
        self.seq[i] == seq && self.sent[i] > self.dropped[i]
    }
}

impl LossTruth for Oracle {
    fn cause(&self, seq: u64) -> Option<LossCause> {
        let i = (seq & self.mask) as usize;
        if self.seq[i] == seq {
            self.cause[i]
        } else {
            None
        }
    }
}

struct Flow {
    forward: Vec<LinkId>,
    reverse: Vec<LinkId>,
    sender: Sender,
    receiver: Receiver,
    packet_size: u32,
    ack_size: u32,
    sack_block_bytes: u32,
    delack_interval: Dur,
    delack_gen: u64,
    timer_at: Option<Time>,
    /// The sender's retransmission deadline and the tie-breaking place of its last arming.
    timer_armed: Option<(Time, u64)>,
    /// The pending pacing event, if any.
    pace_at: Option<Time>,
    start: Time,
    oracle: Oracle,
    report: FlowReport,
    finite: bool,
    last_window: (f64, f64, f64),
}

pub struct Simulation {
    sched: Scheduler<Event>,
    links: Vec<Link>,
    flows: Vec<Flow>,
    end: Time,
    trace_sends: bool,
    trace_window: bool,
    events: u64,
    out: Vec<Segment>,
    in_flight: Vec<Packet>,
    free: Vec<u32>,
    /// Per link: packets propagating, in arrival order (FIFO links only).
    pipes: Vec<VecDeque<(Time, Packet)>>,
    fifo: Vec<bool>,
    /// With few FIFO links their pending PipeHead events wait here, as (time, order) per
    /// link, instead of in the heap: a push and a pop saved per packet. The order comes from
    /// the scheduler's counter, so events run in exactly the sequence the heap would give.
    heads: Vec<Option<(Time, u64)>>,
    /// Links whose PipeHead is pending in `heads`.
    head_links: Vec<LinkId>,
    inline_heads: bool,
}

/// Beyond this many FIFO links a linear scan per event costs more than the heap.
const MAX_INLINE_HEADS: usize = 8;

/// How often, in events, the run loop polls its caller (progress, cancellation) and checks
/// the Zeno guard: at tens of millions of events per second, a few times per millisecond.
pub const POLL_EVENTS: u64 = 4096;
/// The Zeno guard: this many events while simulated time moves by less than
/// [`ZENO_MIN_ADVANCE`] (over 16 events per simulated picosecond) is a loop in zero time
/// (zero transmission and propagation times, a timer of no length), never a simulation.
pub const ZENO_EVENTS: u64 = 1 << 24;
pub const ZENO_MIN_ADVANCE: Dur = Dur(1_000);

/// Why a run ended without a report.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The scenario is malformed.
    Invalid(String),
    /// The caller's poll asked the run to stop.
    Cancelled { at_s: f64 },
    /// The Zeno guard tripped: `events` events without simulated time moving 1 µs.
    NoProgress { at_s: f64, events: u64 },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Invalid(e) => write!(f, "{e}"),
            RunError::Cancelled { at_s } => write!(f, "cancelled at t = {at_s:.9} s"),
            RunError::NoProgress { at_s, events } => write!(
                f,
                "no progress in simulated time: {events} events within 1 µs at t = {at_s:.9} s \
                 (a loop in zero time: transmission, propagation or timer durations of zero?)"
            ),
        }
    }
}

impl Simulation {
    pub fn new(sc: &Scenario) -> Result<Simulation, String> {
        sc.check()?;
        if sc.has_unloaded_traces() {
            let mut sc = sc.clone();
            sc.load_traces()?;
            return Simulation::new(&sc);
        }
        // A slot-advanced channel steps once per data-packet time of the first flow using it.
        let mut slot = vec![Dur(1); sc.links.len()];
        for f in sc.flows.iter().rev() {
            for &l in &f.forward {
                slot[l] =
                    Dur::transmission(f.tcp.packet_size_bytes, sc.links[l].rate_bps).max(Dur(1));
            }
        }
        let links = sc
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| Link::new(l, sc.seed, i, slot[i]))
            .collect();
        let mut flows = Vec::with_capacity(sc.flows.len());
        let mut sched = Scheduler::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let limit = match f.app {
                AppConfig::Bulk => u64::MAX,
                AppConfig::Transfer { bytes } => {
                    bytes.div_ceil(u64::from(f.tcp.packet_size_bytes)).max(1)
                }
            };
            let sender = Sender::new(&preset(f.variant, &f.tcp), limit);
            let receiver = Receiver::new(sender.wants_sack(), f.tcp.delayed_ack);
            let sack_block_bytes = sender.sack_block_bytes();
            let capacity_pps = f
                .forward
                .iter()
                .map(|&l| sc.links[l].rate_bps / (8.0 * f64::from(f.tcp.packet_size_bytes)))
                .fold(f64::INFINITY, f64::min);
            let start = Time::from_secs(f.start_s);
            sched.schedule(start, Event::Start(i as FlowId));
            flows.push(Flow {
                forward: f.forward.clone(),
                reverse: f.reverse.clone(),
                sender,
                receiver,
                packet_size: f.tcp.packet_size_bytes,
                ack_size: f.tcp.ack_size_bytes,
                sack_block_bytes,
                delack_interval: Dur::from_secs(f.tcp.delack_interval_s),
                delack_gen: 0,
                timer_at: None,
                timer_armed: None,
                pace_at: None,
                start,
                oracle: Oracle::new(f.tcp.max_window),
                report: FlowReport {
                    capacity_pps,
                    ..FlowReport::default()
                },
                finite: limit != u64::MAX,
                last_window: (f64::NAN, f64::NAN, f64::NAN),
            });
        }
        let fifo: Vec<bool> = sc
            .links
            .iter()
            .map(|l| matches!(l.delay, DelayConfig::Fixed { .. }))
            .collect();
        let inline_heads = fifo.iter().filter(|&&f| f).count() <= MAX_INLINE_HEADS;
        Ok(Simulation {
            sched,
            links,
            flows,
            end: Time::from_secs(sc.duration_s),
            trace_sends: sc.trace.sends,
            trace_window: sc.trace.window,
            events: 0,
            out: Vec::new(),
            in_flight: Vec::new(),
            free: Vec::new(),
            pipes: (0..sc.links.len()).map(|_| VecDeque::new()).collect(),
            fifo,
            heads: vec![None; sc.links.len()],
            head_links: Vec::new(),
            inline_heads,
        })
    }

    /// Runs to the end of the scenario (or until every flow is a finished transfer).
    pub fn run(self) -> Result<RunReport, RunError> {
        self.run_polled(&mut |_| true)
    }

    /// [`Simulation::run`], looking up from the work every [`POLL_EVENTS`] events: `poll`
    /// gets the simulated time (for progress) and returns false to cancel the run (Ctrl-C
    /// in Python). The Zeno guard ends a run that makes no progress in simulated time.
    pub fn run_polled(mut self, poll: &mut dyn FnMut(Time) -> bool) -> Result<RunReport, RunError> {
        let mut next_poll = POLL_EVENTS;
        // (time, events) when simulated time last moved by ZENO_MIN_ADVANCE.
        let mut mark = (Time::ZERO, 0u64);
        loop {
            if self.events >= next_poll {
                next_poll = self.events + POLL_EVENTS;
                let now = self.sched.now();
                if now.since(mark.0) >= ZENO_MIN_ADVANCE {
                    mark = (now, self.events);
                } else if self.events - mark.1 >= ZENO_EVENTS {
                    return Err(RunError::NoProgress {
                        at_s: now.as_secs(),
                        events: self.events - mark.1,
                    });
                }
                if !poll(now) {
                    return Err(RunError::Cancelled {
                        at_s: now.as_secs(),
                    });
                }
            }
            if let Some((at, k)) = self.earliest_inline_head() {
                if at > self.end {
                    break;
                }
                let l = self.head_links.swap_remove(k);
                self.heads[l] = None;
                self.sched.advance(at);
                self.events += 1;
                self.pipe_head(at, l);
                if self.all_finished() {
                    break;
                }
                continue;
            }
            let Some((now, ev)) = self.sched.pop_until(self.end) else {
                break;
            };
            self.events += 1;
            match ev {
                Event::Arrive(i) => {
                    let p = self.in_flight[i as usize];
                    self.free.push(i);
                    self.on_arrive(now, p)
                }
                Event::PipeHead(l) => self.pipe_head(now, l),
                Event::Rto(f) => self.on_rto(now, f),
                Event::Pace(f) => self.on_pace(now, f),
                Event::DelAck(f, g) => self.on_delack(now, f, g),
                Event::Start(f) => self.on_start(now, f),
            }
            if self.all_finished() {
                break;
            }
        }
        Ok(self.finish())
    }

    /// The inline PipeHead (time, index in `head_links`) that runs before everything in the
    /// heap, if any.
    fn earliest_inline_head(&self) -> Option<(Time, usize)> {
        let mut best: Option<(Time, u64, usize)> = None;
        for (k, &l) in self.head_links.iter().enumerate() {
            if let Some((t, o)) = self.heads[l] {
                if best.is_none_or(|(bt, bo, _)| (t, o) < (bt, bo)) {
                    best = Some((t, o, k));
                }
            }
        }
        let (t, o, k) = best?;
        match self.sched.peek_key() {
            Some(h) if h < (t, o) => None,
            _ => Some((t, k)),
        }
    }

    fn schedule_pipe_head(&mut self, at: Time, link: LinkId) {
        if self.inline_heads {
            self.heads[link] = Some((at, self.sched.next_order()));
            self.head_links.push(link);
        } else {
            self.sched.schedule(at, Event::PipeHead(link));
        }
    }

    fn pipe_head(&mut self, now: Time, l: LinkId) {
        let (_, p) = self.pipes[l]
            .pop_front()
            .expect("a pipe event with an empty pipe");
        if let Some(&(next, _)) = self.pipes[l].front() {
            self.schedule_pipe_head(next, l);
        }
        self.on_arrive(now, p)
    }

    fn all_finished(&self) -> bool {
        self.flows
            .iter()
            .all(|f| f.finite && f.report.completion_time_s.is_some())
    }

    fn enqueue(&mut self, now: Time, link: LinkId, p: Packet) {
        match self.links[link].send(now, &p) {
            Fate::Arrives(at) if self.fifo[link] => {
                let pipe = &mut self.pipes[link];
                let was_empty = pipe.is_empty();
                pipe.push_back((at, p));
                if was_empty {
                    self.schedule_pipe_head(at, link);
                }
            }
            Fate::Arrives(at) => {
                let i = match self.free.pop() {
                    Some(i) => {
                        self.in_flight[i as usize] = p;
                        i
                    }
                    None => {
                        self.in_flight.push(p);
                        (self.in_flight.len() - 1) as u32
                    }
                };
                self.sched.schedule(at, Event::Arrive(i));
            }
            Fate::Lost => self.on_drop(p, true),
            Fate::QueueDrop => self.on_drop(p, false),
        }
    }

    fn on_drop(&mut self, p: Packet, channel: bool) {
        if let Kind::Data { seq, .. } = p.kind {
            let f = &mut self.flows[p.flow as usize];
            f.oracle.on_drop(
                seq,
                if channel {
                    LossCause::Channel
                } else {
                    LossCause::Queue
                },
            );
            if channel {
                f.report.channel_losses += 1;
            } else {
                f.report.queue_drops += 1;
            }
        }
    }

    fn on_arrive(&mut self, now: Time, mut p: Packet) {
        let fid = p.flow as usize;
        p.hop += 1;
        let path = match p.kind {
            Kind::Data { .. } => &self.flows[fid].forward,
            Kind::Ack { .. } => &self.flows[fid].reverse,
        };
        if let Some(&next) = path.get(p.hop as usize) {
            self.enqueue(now, next, p);
            return;
        }
        match p.kind {
            Kind::Data { seq, .. } => {
                let f = &mut self.flows[fid];
                f.report.packets_received += 1;
                match f.receiver.on_data(seq) {
                    RxAction::Ack(a) => self.send_ack(now, fid, a),
                    RxAction::Delay => {
                        f.delack_gen += 1;
                        let at = now + f.delack_interval;
                        self.sched
                            .schedule(at, Event::DelAck(fid as FlowId, f.delack_gen));
                    }
                }
            }
            Kind::Ack { ack, .. } => {
                let mut out = std::mem::take(&mut self.out);
                let f = &mut self.flows[fid];
                f.sender
                    .on_ack(now, ack, p.sack_blocks(), &f.oracle, &mut out);
                self.after_sender(now, fid, &mut out);
                self.out = out;
            }
        }
    }

    fn send_ack(&mut self, now: Time, fid: usize, a: AckOut) {
        let f = &mut self.flows[fid];
        f.report.acks_sent += 1;
        let p = Packet {
            flow: fid as FlowId,
            size_bytes: f.ack_size + f.sack_block_bytes * u32::from(a.n_sack),
            hop: 0,
            kind: Kind::Ack {
                ack: a.ack,
                sack: a.sack,
                n_sack: a.n_sack,
            },
        };
        let first = f.reverse[0];
        self.enqueue(now, first, p);
    }

    fn on_delack(&mut self, now: Time, fid: FlowId, generation: u64) {
        let f = &mut self.flows[fid as usize];
        if f.delack_gen != generation {
            return;
        }
        if let Some(a) = f.receiver.on_delack_timer() {
            self.send_ack(now, fid as usize, a);
        }
    }

    fn on_start(&mut self, now: Time, fid: FlowId) {
        let mut out = std::mem::take(&mut self.out);
        self.flows[fid as usize].sender.start(now, &mut out);
        self.after_sender(now, fid as usize, &mut out);
        self.out = out;
    }

    fn on_rto(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        if f.timer_at != Some(now) {
            return; // superseded by an earlier deadline
        }
        f.timer_at = None;
        match f.sender.rto_deadline() {
            Some(d) if d <= now => {
                let mut out = std::mem::take(&mut self.out);
                let f = &mut self.flows[fid as usize];
                f.sender.on_timeout(now, &f.oracle, &mut out);
                self.after_sender(now, fid as usize, &mut out);
                self.out = out;
            }
            _ => self.sync_timer(fid as usize),
        }
    }

    fn on_pace(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        if f.pace_at != Some(now) {
            return; // superseded
        }
        f.pace_at = None;
        let mut out = std::mem::take(&mut self.out);
        self.flows[fid as usize]
            .sender
            .on_pacing_timer(now, &mut out);
        self.after_sender(now, fid as usize, &mut out);
        self.out = out;
    }

    /// Schedules the sender's pacing timer when data waits for it.
    fn sync_pacing(&mut self, fid: usize) {
        let f = &mut self.flows[fid];
        match f.sender.pacing_deadline() {
            Some(t) if f.pace_at != Some(t) => {
                f.pace_at = Some(t);
                self.sched.schedule(t, Event::Pace(fid as FlowId));
            }
            Some(_) => {}
            None => f.pace_at = None,
        }
    }

    /// Keeps one heap entry per flow for its retransmission timer: the deadline moves on
    /// almost every ACK, so the heap is touched only when it moves earlier or the entry fires.
    /// Among events due at the same instant the timer runs in the place of its last arming,
    /// as if it had been scheduled then: ns-2 cancels and reinserts its timer at every
    /// restart, and its scheduler runs simultaneous events in insertion order.
    fn sync_timer(&mut self, fid: usize) {
        let f = &mut self.flows[fid];
        let Some(d) = f.sender.rto_deadline() else {
            f.timer_armed = None;
            return;
        };
        let order = match f.timer_armed {
            Some((t, o)) if t == d => o,
            _ => {
                let o = self.sched.next_order();
                f.timer_armed = Some((d, o));
                o
            }
        };
        if f.timer_at.is_none_or(|t| d < t) {
            f.timer_at = Some(d);
            self.sched
                .schedule_at_order(d, order, Event::Rto(fid as FlowId));
        }
    }

    /// Puts the sender's segments on the wire and books what the sender reported.
    fn after_sender(&mut self, now: Time, fid: usize, out: &mut Vec<Segment>) {
        {
            let f = &mut self.flows[fid];
            let mut events = std::mem::take(&mut f.report.send_trace);
            for e in f.sender.drain_events() {
                let spurious = f.oracle.some_copy_survives(e.seq);
                match e.kind {
                    LossKind::Timeout => {
                        f.report.timeouts += 1;
                        f.report.spurious_timeouts += u64::from(spurious);
                    }
                    LossKind::FastRetransmit => {
                        f.report.fast_retransmits += 1;
                        f.report.spurious_fast_retransmits += u64::from(spurious);
                    }
                }
                // A classifier's verdict against the truth: the cause of the segment's last
                // dropped copy; a spurious detection (a copy survives) has none to judge.
                if let Some(predicted) = e.predicted {
                    let truth = if spurious {
                        None
                    } else {
                        f.oracle.cause(e.seq)
                    };
                    if let Some(t) = truth {
                        let c = &mut f.report.classification;
                        c.classified += 1;
                        match (predicted, t) {
                            (p, t) if p == t => c.correct += 1,
                            (LossCause::Channel, _) => c.congestion_called_wireless += 1,
                            _ => c.wireless_called_congestion += 1,
                        }
                    }
                }
            }
            for s in out.iter() {
                f.oracle.on_send(s.seq);
                f.report.packets_sent += 1;
                f.report.retransmissions += u64::from(s.retransmission);
                if self.trace_sends {
                    events.push((now.as_secs(), s.seq, s.retransmission));
                }
            }
            f.report.send_trace = events;
            if self.trace_window {
                let st = &f.sender.state;
                let w = (st.cwnd, st.ssthresh, f.sender.rto().as_secs());
                if w != f.last_window {
                    f.last_window = w;
                    f.report.window_trace.push((now.as_secs(), w.0, w.1, w.2));
                }
            }
            if f.finite && f.report.completion_time_s.is_none() && f.sender.done() {
                f.report.completion_time_s = Some((now - f.start).as_secs());
            }
        }
        let first = self.flows[fid].forward[0];
        let size = self.flows[fid].packet_size;
        for s in out.drain(..) {
            let p = Packet {
                flow: fid as FlowId,
                size_bytes: size,
                hop: 0,
                kind: Kind::Data {
                    seq: s.seq,
                    retransmission: s.retransmission,
                },
            };
            self.enqueue(now, first, p);
        }
        self.sync_timer(fid);
        if self.flows[fid].sender.state.pacing_rate.is_some() || self.flows[fid].pace_at.is_some() {
            self.sync_pacing(fid);
        }
    }

    fn finish(mut self) -> RunReport {
        let end = self.sched.now().min(self.end).max(if self.all_finished() {
            Time::ZERO
        } else {
            self.end
        });
        let flows = self
            .flows
            .iter_mut()
            .map(|f| {
                let mut r = std::mem::take(&mut f.report);
                r.elapsed_s = match r.completion_time_s {
                    Some(c) => c,
                    None => (end - f.start).as_secs(),
                };
                r.packets_delivered = f.receiver.delivered;
                r.final_cwnd = f.sender.state.cwnd;
                r.final_ssthresh = f.sender.state.ssthresh;
                r.final_rto_s = f.sender.rto().as_secs();
                r.srtt_s = f.sender.srtt().map(|d| d.as_secs());
                r
            })
            .collect();
        let links = self
            .links
            .iter()
            .map(|l| LinkReport {
                transmitted: l.stats.transmitted,
                channel_drops: l.stats.channel_drops,
                queue_drops: l.stats.queue_drops,
            })
            .collect();
        RunReport {
            flows,
            links,
            events: self.events,
            simulated_s: end.as_secs(),
        }
    }
}

/// Builds and runs a scenario.
pub fn run(sc: &Scenario) -> Result<RunReport, String> {
    run_polled(sc, &mut |_| true).map_err(|e| e.to_string())
}

/// Builds and runs a scenario, polling `poll` as [`Simulation::run_polled`] does.
pub fn run_polled(
    sc: &Scenario,
    poll: &mut dyn FnMut(Time) -> bool,
) -> Result<RunReport, RunError> {
    Simulation::new(sc)
        .map_err(RunError::Invalid)?
        .run_polled(poll)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three hops each way, SACK, delayed ACKs, a burst channel and a 10-packet queue: many
    /// simultaneous pipe heads, timers and drops.
    const CHAIN: &str = r#"{"seed": 3, "duration_s": 20.0, "links": [
        {"rate_bps": 1e7, "queue_packets": 1000, "delay": {"kind": "fixed", "delay_s": 0.005}, "channel": {"kind": "none"}},
        {"rate_bps": 2e6, "queue_packets": 10, "delay": {"kind": "fixed", "delay_s": 0.02}, "channel": {"kind": "burst", "p": 0.002, "hold_s": 0.05}},
        {"rate_bps": 1e7, "queue_packets": 1000, "delay": {"kind": "fixed", "delay_s": 0.005}, "channel": {"kind": "none"}},
        {"rate_bps": 1e7, "queue_packets": 1000, "delay": {"kind": "fixed", "delay_s": 0.005}, "channel": {"kind": "none"}},
        {"rate_bps": 2e6, "queue_packets": 10, "delay": {"kind": "fixed", "delay_s": 0.02}, "channel": {"kind": "none"}},
        {"rate_bps": 1e7, "queue_packets": 1000, "delay": {"kind": "fixed", "delay_s": 0.005}, "channel": {"kind": "none"}}],
      "flows": [{"variant": "sack", "forward": [0, 1, 2], "reverse": [3, 4, 5],
                 "tcp": {"packet_size_bytes": 500, "ack_size_bytes": 40, "max_window": 64,
                         "initial_window": 1, "dupack_threshold": 3, "min_rto_s": 0.2,
                         "max_rto_s": 60.0, "initial_rto_s": 1.0, "granularity_s": 0.0,
                         "fixed_rto_s": null, "max_backoff": 64, "rtt_sampling": "per_ack",
                         "delayed_ack": true, "profile": "rfc"},
                 "app": {"kind": "bulk"}}]}"#;

    #[test]
    fn pipe_heads_beside_the_heap_keep_the_heap_order() {
        let sc = Scenario::from_json(CHAIN).expect("scenario");
        let inline = Simulation::new(&sc).unwrap();
        assert!(inline.inline_heads);
        let mut heap = Simulation::new(&sc).unwrap();
        heap.inline_heads = false;
        let a = serde_json::to_string(&inline.run().unwrap()).unwrap();
        let b = serde_json::to_string(&heap.run().unwrap()).unwrap();
        assert_eq!(a, b);
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        let f = &v["flows"][0];
        assert!(f["queue_drops"].as_u64().unwrap() > 0, "{f}");
        assert!(f["channel_losses"].as_u64().unwrap() > 0, "{f}");
    }

    fn one_link(rate_bps: f64, delay_s: f64, packet: u32, ack: u32, duration_s: f64) -> Scenario {
        let link = format!(
            r#"{{"rate_bps": {rate_bps:e}, "queue_packets": 100, "channel": {{"kind": "none"}},
                 "delay": {{"kind": "fixed", "delay_s": {delay_s:e}}}}}"#
        );
        Scenario::from_json(&format!(
            r#"{{"seed": 1, "duration_s": {duration_s:e}, "links": [{link}, {link}],
              "flows": [{{"variant": "reno", "forward": [0], "reverse": [1],
                 "tcp": {{"packet_size_bytes": {packet}, "ack_size_bytes": {ack},
                         "max_window": 20, "initial_window": 1, "dupack_threshold": 3,
                         "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 1.0,
                         "granularity_s": 0.0, "fixed_rto_s": null, "max_backoff": 64}},
                 "app": {{"kind": "bulk"}}}}]}}"#
        ))
        .expect("scenario")
    }

    #[test]
    fn a_loop_in_zero_time_trips_the_zeno_guard() {
        // Transmission rounds to 0 ns and nothing propagates: the flow spins at t = 0.
        let sc = one_link(1e300, 0.0, 1, 0, 0.001);
        match run_polled(&sc, &mut |_| true) {
            Err(RunError::NoProgress { at_s, events }) => {
                assert_eq!(at_s, 0.0);
                assert!(events >= ZENO_EVENTS);
            }
            other => panic!("expected NoProgress, got {other:?}"),
        }
        assert!(run(&sc)
            .unwrap_err()
            .contains("no progress in simulated time"));
        // One nanosecond per packet is slow but moves on: 1 ms takes ~10^6 packets.
        let sc = one_link(8e9, 0.0, 1, 0, 0.001);
        let r = run(&sc).expect("progress");
        assert!(r.flows[0].packets_delivered > 900_000, "{:?}", r.flows[0]);
    }

    #[test]
    fn the_poll_sees_time_advance_and_can_cancel() {
        let sc = one_link(1e7, 0.01, 500, 40, 1000.0);
        let mut seen = Vec::new();
        let r = run_polled(&sc, &mut |t| {
            seen.push(t);
            seen.len() < 5
        });
        assert_eq!(seen.len(), 5);
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        match r {
            Err(RunError::Cancelled { at_s }) => assert_eq!(at_s, seen[4].as_secs()),
            other => panic!("expected Cancelled, got {other:?}"),
        }
        // A poll that never cancels changes nothing: the same report as an unpolled run.
        let short = one_link(1e7, 0.01, 500, 40, 5.0);
        let mut polls = 0;
        let a = run_polled(&short, &mut |_| {
            polls += 1;
            true
        })
        .unwrap();
        assert!(polls > 0);
        let b = run(&short).unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
    }
}
