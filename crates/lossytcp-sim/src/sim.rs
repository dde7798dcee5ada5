//! The simulation: links, flows and traffic wired by a scenario, driven by the event heap.
//!
//! Flow slots: the scenario's long-lived flows occupy slots `0..flows.len()` (so a flow's
//! id is its index, as `flow_drops` channels name it); each traffic entry's finite
//! transfers take further slots, reused once a transfer is retired. A reused slot starts a
//! new connection generation (`Flow::conn`, carried by every packet), so a late packet of a
//! retired connection still crosses the links it is on but is discarded at its end, never
//! delivered to the successor (`is_current`). UDP sources are traffic entries themselves:
//! their packets carry the entry's index.

use std::collections::VecDeque;

mod oracle;
mod qtrace;
mod traffic;

pub use oracle::Oracle;

use crate::config::{AppConfig, DelayConfig, Profile, Scenario, TcpConfig, TrafficConfig, Variant};
use crate::link::{Fate, Link};
use crate::metrics::{FlowReport, LinkReport, RunReport};
use crate::packet::{FlowId, Kind, LinkId, LossCause, Packet};
use crate::queue::DropReason;
use crate::sched::Scheduler;
use crate::tcp::cc::{Growth, GrowthImpl};
use crate::tcp::pair::{fits, with_pair, FromGrowthImpl, FromRecoveryImpl};
use crate::tcp::receiver::{AckOut, RxAction};
use crate::tcp::recovery::{Recovery, RecoveryImpl};
use crate::tcp::variant::preset;
use crate::tcp::{LossKind, LossTruth, Receiver, Segment, Sender, SenderConfig};
use crate::time::{Dur, Time};
use crate::topology::Routes;
use qtrace::QueueTracer;
use traffic::{Entry, Generator};

/// How a packet was lost, for the counters (the oracle keeps only the cause).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loss {
    Channel,
    Queue(DropReason),
}

impl Loss {
    fn cause(self) -> LossCause {
        match self {
            Loss::Channel => LossCause::Channel,
            Loss::Queue(_) => LossCause::Queue,
        }
    }
}

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
    /// A transfer of traffic entry `k` arrives (Poisson).
    TransferArrival(u32),
    /// UDP source (traffic entry) `k` sends its next packet.
    UdpSend(u32),
    /// Traffic entry `k` starts.
    TrafficStart(u32),
    /// A packet (in the in-flight slab) forwarded ahead of time along a chain of links (see
    /// `chained`) was lost there: it is booked at the time of the loss.
    Dropped(u32, Loss),
}

struct Flow<G: Growth, R: Recovery> {
    forward: Vec<LinkId>,
    reverse: Vec<LinkId>,
    sender: Sender<G, R>,
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
    /// Connection generation of this slot (see the module documentation).
    conn: u32,
    /// False for a retired transfer's slot waiting for reuse.
    live: bool,
    /// `None` for the scenario's own flows; the traffic entry of a transfer.
    entry: Option<u32>,
    /// A transfer's size in bytes (for bytes delivered).
    bytes: Option<u64>,
}

impl<G: FromGrowthImpl, R: FromRecoveryImpl> Flow<G, R> {
    /// A fresh connection.
    #[allow(clippy::too_many_arguments)]
    fn new(
        variant: Variant,
        tcp: &TcpConfig,
        limit: u64,
        forward: Vec<LinkId>,
        reverse: Vec<LinkId>,
        start: Time,
        capacity_pps: f64,
        entry: Option<u32>,
        bytes: Option<u64>,
    ) -> Self {
        let cfg = preset(variant, tcp);
        // Simulation::new checked that every flow's pair is (G, R).
        let sender = Sender::with_plugins(
            &cfg,
            G::from_impl(GrowthImpl::new(&cfg.growth)).expect("the simulation's growth plugin"),
            R::from_impl(RecoveryImpl::new(&cfg.recovery)).expect("the simulation's recovery"),
            limit,
        );
        let mut receiver = Receiver::new(sender.wants_sack(), tcp.delayed_ack);
        if tcp.profile == Profile::Ns2 && sender.wants_sack() {
            receiver = receiver.with_ns2_blocks();
        }
        let sack_block_bytes = sender.sack_block_bytes();
        Flow {
            forward,
            reverse,
            sender,
            receiver,
            packet_size: tcp.packet_size_bytes,
            ack_size: tcp.ack_size_bytes,
            sack_block_bytes,
            delack_interval: Dur::from_secs(tcp.delack_interval_s),
            delack_gen: 0,
            timer_at: None,
            timer_armed: None,
            pace_at: None,
            start,
            oracle: Oracle::new(tcp.max_window),
            report: FlowReport {
                capacity_pps,
                ..FlowReport::default()
            },
            finite: limit != u64::MAX,
            last_window: (f64::NAN, f64::NAN, f64::NAN),
            conn: 0,
            live: true,
            entry,
            bytes,
        }
    }

    /// Whether `p` belongs to the connection now in this slot.
    #[inline]
    fn is_current(&self, p: &Packet) -> bool {
        self.live && p.conn == self.conn
    }

    /// New data delivered in order, in bytes.
    fn delivered_bytes(&self) -> u64 {
        let b = self.receiver.delivered * u64::from(self.packet_size);
        self.bytes.map_or(b, |n| b.min(n))
    }
}

/// Forward-path capacity in data packets per second of this size.
fn capacity_pps(sc: &Scenario, forward: &[LinkId], packet_size: u32) -> f64 {
    forward
        .iter()
        .map(|&l| sc.links[l].rate_bps / (8.0 * f64::from(packet_size)))
        .fold(f64::INFINITY, f64::min)
}

pub struct Simulation<G: Growth = GrowthImpl, R: Recovery = RecoveryImpl> {
    sched: Scheduler<Event>,
    links: Vec<Link>,
    flows: Vec<Flow<G, R>>,
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
    /// Up to `MAX_INLINE_HEADS` pending PipeHead events wait here, as (key, link) with the
    /// key (time << 64 | order), sorted latest first so that the next one is the last,
    /// instead of in the heap: a push and a pop saved per packet hop; more go to the heap.
    /// The order comes from the scheduler's counter, so events run in exactly the sequence
    /// the heap alone would give, whichever structure holds them.
    inline: Vec<(u128, LinkId)>,
    inline_heads: bool,
    /// Links fed by a single FIFO link: every path through them comes from that link, and
    /// none starts there. A packet reaching the end of the feeding link at `at` goes on at
    /// once, `send(at, ...)` on this link, without an event of its own: the link sees its
    /// arrivals in the same order and at the same times as with one, because its feeder
    /// is FIFO and nothing else feeds it. (In a dumbbell the access links to the receivers
    /// and back to the senders: a third of the events.) Only for scenarios with a topology,
    /// so that every scenario written before keeps its event order and its bits.
    chained: Vec<bool>,
    any_chained: bool,
    /// The scenario's long-lived flows are slots `0..n_flows` of `flows`.
    n_flows: usize,
    traffic: Vec<Entry>,
    /// Flows not yet complete (bulk ones never are) plus traffic entries not finished: the
    /// run ends early when this reaches zero.
    unfinished: usize,
    qtrace: Option<QueueTracer>,
}

/// Beyond this many pending pipe heads a linear scan per event costs more than the heap.
const MAX_INLINE_HEADS: usize = 64;

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

impl<G: FromGrowthImpl, R: FromRecoveryImpl> Simulation<G, R> {
    /// The simulation of `sc` on the plugin types `(G, R)`: the enum sets run any scenario,
    /// concrete types only one whose senders all use that pair (`tcp/pair.rs`).
    pub fn new(sc: &Scenario) -> Result<Self, String> {
        sc.check()?;
        if sc.has_unloaded_traces() {
            let mut sc = sc.clone();
            sc.load_traces()?;
            return Self::new(&sc);
        }
        if let Some((variant, _)) = senders(sc).find(|(v, t)| !fits::<G, R>(&preset(*v, t))) {
            return Err(format!(
                "{variant:?}: its plugins are not those the simulation was built for"
            ));
        }
        let routes = Routes::resolve(sc)?;
        let slot = slots(sc, &routes);
        let links = sc
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut link = Link::new(l, sc.seed, i, slot[i]);
                if sc.trace.delay {
                    link.trace_delay();
                }
                link
            })
            .collect();
        let mut flows = Vec::with_capacity(sc.flows.len());
        let mut sched = Scheduler::default();
        let mut unfinished = 0;
        for (i, f) in sc.flows.iter().enumerate() {
            let limit = match f.app {
                AppConfig::Bulk => u64::MAX,
                AppConfig::Transfer { bytes } => {
                    bytes.div_ceil(u64::from(f.tcp.packet_size_bytes)).max(1)
                }
            };
            let (forward, reverse) = routes.flows[i].clone();
            let capacity = capacity_pps(sc, &forward, f.tcp.packet_size_bytes);
            let start = Time::from_secs(f.start_s);
            sched.schedule(start, Event::Start(i as FlowId));
            let mut flow = Flow::new(
                f.variant, &f.tcp, limit, forward, reverse, start, capacity, None, None,
            );
            flow.report.label = f.label.clone();
            flows.push(flow);
            unfinished += 1;
        }
        let traffic: Vec<Entry> = sc
            .traffic
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let (fwd, rev) = routes.traffic[k].clone();
                Entry::new(k, t, fwd, rev, sc.seed)
            })
            .collect();
        for (k, e) in traffic.iter().enumerate() {
            sched.schedule(e.start, Event::TrafficStart(k as u32));
            unfinished += 1;
        }
        let fifo: Vec<bool> = sc
            .links
            .iter()
            .map(|l| matches!(l.delay, DelayConfig::Fixed { .. }))
            .collect();
        let chained = if routes.topology.is_some() {
            chained_links(&routes, &fifo)
        } else {
            vec![false; sc.links.len()]
        };
        Ok(Simulation {
            sched,
            links,
            n_flows: flows.len(),
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
            inline: Vec::with_capacity(MAX_INLINE_HEADS),
            inline_heads: true,
            any_chained: chained.iter().any(|&c| c),
            chained,
            traffic,
            unfinished,
            qtrace: sc.trace.queue.as_ref().map(QueueTracer::new),
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
            if let Some(at) = self.earliest_inline_head() {
                if at > self.end {
                    break;
                }
                let (_, l) = self.inline.pop().expect("the earliest head");
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
                Event::TransferArrival(k) => self.on_transfer_arrival(now, k as usize),
                Event::UdpSend(k) => self.on_udp_send(now, k as usize),
                Event::TrafficStart(k) => self.on_traffic_start(now, k as usize),
                Event::Dropped(i, cause) => {
                    let p = self.in_flight[i as usize];
                    self.free.push(i);
                    self.on_drop(p, cause)
                }
            }
            if self.all_finished() {
                break;
            }
        }
        Ok(self.finish())
    }

    /// The time of the inline PipeHead that runs before everything in the heap, if any.
    fn earliest_inline_head(&self) -> Option<Time> {
        let &(key, _) = self.inline.last()?;
        match self.sched.peek_key() {
            Some((ht, ho)) if (u128::from(ht.0) << 64 | u128::from(ho)) < key => None,
            _ => Some(Time((key >> 64) as u64)),
        }
    }

    #[inline]
    fn schedule_pipe_head(&mut self, at: Time, link: LinkId) {
        if self.inline_heads && self.inline.len() < MAX_INLINE_HEADS {
            let order = self.sched.next_order();
            let key = u128::from(at.0) << 64 | u128::from(order);
            // Latest first (the capacity is reserved). A few heads: an insertion-sort step
            // from the end; more: binary search and one block move.
            let v = &mut self.inline;
            let n = v.len();
            v.push((key, link));
            if n <= 8 {
                let mut i = n;
                while i > 0 && v[i - 1].0 < key {
                    v[i] = v[i - 1];
                    i -= 1;
                }
                v[i] = (key, link);
            } else {
                let i = v[..n].partition_point(|&(k, _)| k > key);
                if i < n {
                    v.copy_within(i..n, i + 1);
                    v[i] = (key, link);
                }
            }
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
        self.unfinished == 0
    }

    fn enqueue(&mut self, now: Time, link: LinkId, p: Packet) {
        let fate = self.links[link].send(now, &p);
        if self.qtrace.as_ref().is_some_and(|t| t.wants(link, now)) {
            self.trace_queue(now, link, &p, fate);
        }
        match fate {
            Fate::Arrives(at) => {
                // (Past the end of the run the arrival never happens: nothing to forward.)
                if self.any_chained && at <= self.end {
                    if let Some(next) = self.next_hop(&p) {
                        if self.chained[next] {
                            let mut q = p;
                            q.hop += 1;
                            self.enqueue(at, next, q);
                            return;
                        }
                    }
                }
                if self.fifo[link] {
                    let pipe = &mut self.pipes[link];
                    let was_empty = pipe.is_empty();
                    pipe.push_back((at, p));
                    if was_empty {
                        self.schedule_pipe_head(at, link);
                    }
                } else {
                    let i = self.park(p);
                    self.sched.schedule(at, Event::Arrive(i));
                }
            }
            Fate::Lost => self.lost(now, p, Loss::Channel),
            Fate::Dropped(r) => self.lost(now, p, Loss::Queue(r)),
        }
    }

    /// A packet lost at `at`: booked now, or when it happens if it was forwarded ahead of
    /// time along a chain of links.
    fn lost(&mut self, at: Time, p: Packet, cause: Loss) {
        if at > self.sched.now() {
            let i = self.park(p);
            self.sched.schedule(at, Event::Dropped(i, cause));
        } else {
            self.on_drop(p, cause);
        }
    }

    /// Keeps a packet in the in-flight slab; its index for an event.
    fn park(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.in_flight[i as usize] = p;
                i
            }
            None => {
                self.in_flight.push(p);
                (self.in_flight.len() - 1) as u32
            }
        }
    }

    /// The link after the one `p` is on (`p.hop`), if any.
    #[inline]
    fn next_hop(&self, p: &Packet) -> Option<LinkId> {
        let path = match p.kind {
            Kind::Data { .. } => &self.flows[p.flow as usize].forward,
            Kind::Ack { .. } => &self.flows[p.flow as usize].reverse,
            Kind::Udp { .. } => &self.traffic[p.flow as usize].forward,
        };
        path.get(p.hop as usize + 1).copied()
    }

    /// Books a lost data packet with its flow (and its oracle, unless the packet is a late
    /// one of a retired connection) or its UDP source. ACK losses are counted per link only.
    fn on_drop(&mut self, p: Packet, cause: Loss) {
        let report = match p.kind {
            Kind::Data { seq, .. } => {
                let f = &mut self.flows[p.flow as usize];
                if f.is_current(&p) {
                    f.oracle.on_drop(seq, cause.cause());
                    &mut f.report
                } else {
                    let e = f.entry.expect("only transfers retire") as usize;
                    let r = &mut self.traffic[e].report;
                    count_drop(
                        cause,
                        &mut r.channel_losses,
                        &mut r.early_drops,
                        &mut r.forced_drops,
                        &mut r.queue_drops,
                    );
                    return;
                }
            }
            Kind::Udp { .. } => {
                let r = &mut self.traffic[p.flow as usize].report;
                count_drop(
                    cause,
                    &mut r.channel_losses,
                    &mut r.early_drops,
                    &mut r.forced_drops,
                    &mut r.queue_drops,
                );
                return;
            }
            Kind::Ack { .. } => return,
        };
        count_drop(
            cause,
            &mut report.channel_losses,
            &mut report.early_drops,
            &mut report.forced_drops,
            &mut report.queue_drops,
        );
    }

    fn trace_queue(&mut self, now: Time, link: LinkId, p: &Packet, fate: Fate) {
        let l = &mut self.links[link];
        // The packet itself is in the waiting count when admitted to a busy link (a link
        // that is not busy has nothing waiting, so then the count is the others').
        let waiting = l.queue_len(now);
        let queued_behind = matches!(fate, Fate::Arrives(_) | Fate::Lost) && waiting > 0;
        let before = waiting - usize::from(queued_behind);
        let red = l.red_average_packets();
        let dequeue = l.last_start();
        let (flow, traffic) = match p.kind {
            Kind::Udp { .. } => (-1, p.flow as i64),
            _ => match self.flows[p.flow as usize].entry {
                None => (p.flow as i64, -1),
                Some(e) => (-1, e as i64),
            },
        };
        if let Some(t) = self.qtrace.as_mut() {
            t.record(now, p, fate, before, red, dequeue, flow, traffic);
        }
    }

    fn on_arrive(&mut self, now: Time, mut p: Packet) {
        let fid = p.flow as usize;
        p.hop += 1;
        let path = match p.kind {
            Kind::Data { .. } => &self.flows[fid].forward,
            Kind::Ack { .. } => &self.flows[fid].reverse,
            Kind::Udp { .. } => &self.traffic[fid].forward,
        };
        if let Some(&next) = path.get(p.hop as usize) {
            self.enqueue(now, next, p);
            return;
        }
        if let Kind::Udp { .. } = p.kind {
            let e = &mut self.traffic[fid];
            e.report.packets_received += 1;
            e.report.bytes_delivered += u64::from(p.size_bytes);
            return;
        }
        if !self.flows[fid].is_current(&p) {
            let e = self.flows[fid].entry.expect("only transfers retire") as usize;
            self.traffic[e].report.stale_packets += 1;
            return;
        }
        match p.kind {
            Kind::Udp { .. } => unreachable!("handled above"),
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
                    .on_ack(now, ack, &p.sack_blocks(), &f.oracle, &mut out);
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
            conn: f.conn,
            size_bytes: f.ack_size + f.sack_block_bytes * u32::from(a.n_sack),
            hop: 0,
            kind: Kind::Ack {
                ack: a.ack,
                sack: crate::packet::encode_sack(a.ack, &a.sack, a.n_sack),
                n_sack: a.n_sack,
            },
        };
        let first = f.reverse[0];
        self.enqueue(now, first, p);
    }

    fn on_delack(&mut self, now: Time, fid: FlowId, generation: u64) {
        let f = &mut self.flows[fid as usize];
        if f.delack_gen != generation || !f.live {
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

    fn on_traffic_start(&mut self, now: Time, k: usize) {
        let e = &mut self.traffic[k];
        match &mut e.gen {
            Generator::Transfers { arrivals, .. } => {
                let at = Time::from_secs(now.as_secs() + arrivals.next_gap_s());
                self.schedule_arrival(k, at);
            }
            Generator::Udp { source, next_s, .. } => {
                *next_s = now.as_secs() + source.first_gap_s();
                let at = Time::from_secs(*next_s);
                self.schedule_udp(k, at);
            }
        }
    }

    /// Schedules entry `k`'s next transfer arrival, or marks its arrivals over.
    fn schedule_arrival(&mut self, k: usize, at: Time) {
        let e = &mut self.traffic[k];
        if e.active_at(at) {
            self.sched.schedule(at, Event::TransferArrival(k as u32));
        } else {
            if let Generator::Transfers { arrivals_done, .. } = &mut e.gen {
                *arrivals_done = true;
            }
            self.check_entry_finished(k);
        }
    }

    fn schedule_udp(&mut self, k: usize, at: Time) {
        if self.traffic[k].active_at(at) {
            self.sched.schedule(at, Event::UdpSend(k as u32));
        } else {
            self.check_entry_finished(k);
        }
    }

    /// A transfer entry is finished when its arrivals are over and no transfer is open. A
    /// UDP source never is: its datagrams have no completion to wait for, so a run with one
    /// lasts `duration_s` (packets in flight when it stopped still arrive).
    fn check_entry_finished(&mut self, k: usize) {
        let e = &mut self.traffic[k];
        let done = match &e.gen {
            Generator::Udp { .. } => false,
            Generator::Transfers {
                arrivals_done,
                active,
                ..
            } => *arrivals_done && *active == 0,
        };
        if done && !e.finished {
            e.finished = true;
            self.unfinished -= 1;
        }
    }

    fn on_udp_send(&mut self, now: Time, k: usize) {
        let e = &mut self.traffic[k];
        let Generator::Udp {
            source,
            packet_size,
            next_s,
            seq,
        } = &mut e.gen
        else {
            unreachable!("UdpSend for a transfer entry");
        };
        let p = Packet {
            flow: k as FlowId,
            conn: 0,
            size_bytes: *packet_size,
            hop: 0,
            kind: Kind::Udp { seq: *seq },
        };
        *seq += 1;
        *next_s += source.next_gap_s();
        let next = Time::from_secs(*next_s).max(now);
        e.report.packets_sent += 1;
        let first = e.forward[0];
        self.enqueue(now, first, p);
        self.schedule_udp(k, next);
    }

    /// A Poisson arrival: open a connection for a new transfer (or refuse it at the cap).
    fn on_transfer_arrival(&mut self, now: Time, k: usize) {
        let e = &mut self.traffic[k];
        let Generator::Transfers {
            arrivals,
            sizes,
            max_concurrent,
            max_transfers,
            variant,
            tcp,
            active,
            free,
            arrivals_done,
        } = &mut e.gen
        else {
            unreachable!("TransferArrival for a UDP entry");
        };
        let arrived = e.report.transfers_started + e.report.transfers_refused + 1;
        let next = Time::from_secs(now.as_secs() + arrivals.next_gap_s());
        let more = max_transfers.is_none_or(|m| arrived < m);
        if !more {
            *arrivals_done = true;
        }
        let opened = if *active >= *max_concurrent {
            e.report.transfers_refused += 1;
            None
        } else {
            let bytes = sizes.draw();
            let limit = bytes.div_ceil(u64::from(tcp.packet_size_bytes)).max(1);
            *active += 1;
            e.report.transfers_started += 1;
            // Per-transfer capacity is not reported; the entry reports goodput in b/s.
            let flow = Flow::new(
                *variant,
                tcp,
                limit,
                e.forward.clone(),
                e.reverse.clone(),
                now,
                0.0,
                Some(k as u32),
                Some(bytes),
            );
            Some((flow, free.pop()))
        };
        if let Some((mut flow, reuse)) = opened {
            let fid = match reuse {
                Some(fid) => {
                    let old = &self.flows[fid as usize];
                    // A new generation: late packets of the old connection are discarded,
                    // its delayed-ACK and retransmission timer events ignored.
                    flow.conn = old.conn.wrapping_add(1);
                    flow.delack_gen = old.delack_gen + 1;
                    self.flows[fid as usize] = flow;
                    fid
                }
                None => {
                    self.flows.push(flow);
                    (self.flows.len() - 1) as FlowId
                }
            };
            self.on_start(now, fid);
        }
        if more {
            self.schedule_arrival(k, next);
        } else {
            self.check_entry_finished(k);
        }
    }

    /// A transfer is complete: its counters go to its entry, its slot waits for reuse.
    fn retire(&mut self, fid: usize) {
        let f = &mut self.flows[fid];
        f.live = false;
        f.timer_at = None;
        f.timer_armed = None;
        f.pace_at = None;
        let report = std::mem::take(&mut f.report);
        let (delivered, bytes) = (f.receiver.delivered, f.delivered_bytes());
        let k = f.entry.expect("a transfer") as usize;
        let e = &mut self.traffic[k];
        e.absorb(&report, delivered, bytes);
        e.report.transfers_completed += 1;
        if let Some(c) = report.completion_time_s {
            e.completion.add(c);
        }
        if let Generator::Transfers { active, free, .. } = &mut e.gen {
            *active -= 1;
            free.push(fid as FlowId);
        }
        self.check_entry_finished(k);
    }

    fn on_rto(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        if f.timer_at != Some(now) || !f.live {
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
        if f.pace_at != Some(now) || !f.live {
            return; // superseded, or a retired transfer's
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
            for e in f.sender.drain_events() {
                let spurious = f.oracle.some_copy_survives(e.seq);
                let causes = &mut f.report.loss_causes;
                match (spurious, f.oracle.cause(e.seq)) {
                    (false, Some(LossCause::Queue)) => causes.queue += 1,
                    (false, Some(_)) => causes.channel += 1,
                    _ => causes.none += 1,
                }
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
                f.report.retransmissions += u64::from(s.retransmission);
            }
            f.report.packets_sent += out.len() as u64;
            if self.trace_sends {
                let t = now.as_secs();
                let sends = out.iter().map(|s| (t, s.seq, s.retransmission));
                f.report.send_trace.extend(sends);
            }
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
                if f.entry.is_none() {
                    self.unfinished -= 1;
                }
            }
        }
        let first = self.flows[fid].forward[0];
        let size = self.flows[fid].packet_size;
        let conn = self.flows[fid].conn;
        for s in out.drain(..) {
            let p = Packet {
                flow: fid as FlowId,
                conn,
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
        let f = &self.flows[fid];
        if f.entry.is_some() && f.report.completion_time_s.is_some() {
            self.retire(fid);
        }
    }

    fn finish(mut self) -> RunReport {
        let end = self.sched.now().min(self.end).max(if self.all_finished() {
            Time::ZERO
        } else {
            self.end
        });
        // Transfers still open count in their entry's report.
        for fid in self.n_flows..self.flows.len() {
            let f = &mut self.flows[fid];
            if f.live {
                let report = std::mem::take(&mut f.report);
                let e = f.entry.expect("transfer slot") as usize;
                let (d, b) = (f.receiver.delivered, f.delivered_bytes());
                self.traffic[e].absorb(&report, d, b);
            }
        }
        let flows = self.flows[..self.n_flows]
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
        let span_ns = end.0 as f64;
        let per_ns = |x: f64| if span_ns > 0.0 { x / span_ns } else { 0.0 };
        let links = self
            .links
            .iter_mut()
            .map(|l| {
                l.finish(end);
                let s = &l.stats;
                LinkReport {
                    transmitted: s.transmitted,
                    bytes_transmitted: s.bytes_transmitted,
                    channel_drops: s.channel_drops,
                    queue_drops: s.queue_drops(),
                    early_drops: s.early_drops,
                    forced_drops: s.forced_drops,
                    utilization: l.utilization(end),
                    mean_queue_packets: per_ns(s.queue_packet_ns as f64),
                    mean_red_avg: l.red_average_packets().map(|_| {
                        if end > Time::ZERO {
                            s.red_avg_area / end.as_secs()
                        } else {
                            0.0
                        }
                    }),
                    delay_trace: l.take_delay_trace(),
                }
            })
            .collect();
        let traffic = self.traffic.iter_mut().map(|e| e.finish(end)).collect();
        RunReport {
            flows,
            links,
            traffic,
            queue_trace: self.qtrace.map(|t| t.out),
            events: self.events,
            simulated_s: end.as_secs(),
        }
    }
}

fn count_drop(cause: Loss, channel: &mut u64, early: &mut u64, forced: &mut u64, queue: &mut u64) {
    match cause {
        Loss::Channel => *channel += 1,
        Loss::Queue(DropReason::Early) => {
            *early += 1;
            *queue += 1;
        }
        Loss::Queue(DropReason::Forced) => {
            *forced += 1;
            *queue += 1;
        }
    }
}

/// Links whose every path comes from one FIFO link and none starts (see `Simulation::
/// chained`).
fn chained_links(routes: &Routes, fifo: &[bool]) -> Vec<bool> {
    let n = fifo.len();
    // None: no path seen; Some(None): a path starts here; Some(Some(f)): fed by f.
    let mut feeder: Vec<Option<Option<LinkId>>> = vec![None; n];
    let mut single = vec![true; n];
    let paths = routes
        .flows
        .iter()
        .chain(&routes.traffic)
        .flat_map(|(f, r)| [f, r]);
    for path in paths {
        for (k, &l) in path.iter().enumerate() {
            let from = (k > 0).then(|| path[k - 1]);
            match feeder[l] {
                None => feeder[l] = Some(from),
                Some(f) if f == from => {}
                Some(_) => single[l] = false,
            }
        }
    }
    (0..n)
        .map(|l| single[l] && matches!(feeder[l], Some(Some(f)) if fifo[f]))
        .collect()
}

/// The slot of each link's slot-stepped channels (see `LinkConfig::slot_bytes`): the
/// transmission time on that link of `slot_bytes`, by default of the largest data packet
/// crossing it (long-lived flows, transfers, UDP sources), on an ACK-only link of the
/// largest ACK. A property of the link and its traffic, not of the order flows are listed
/// in. (Before, the slot was the first flow's packet time, and 1 ns on ACK-only links.)
fn slots(sc: &Scenario, routes: &Routes) -> Vec<Dur> {
    let n = sc.links.len();
    let mut data = vec![0u32; n];
    let mut acks = vec![0u32; n];
    let mut mark = |fwd: &[LinkId], rev: &[LinkId], size: u32, ack: u32| {
        for &l in fwd {
            data[l] = data[l].max(size);
        }
        for &l in rev {
            acks[l] = acks[l].max(ack);
        }
    };
    for (f, (fwd, rev)) in sc.flows.iter().zip(&routes.flows) {
        mark(fwd, rev, f.tcp.packet_size_bytes, f.tcp.ack_size_bytes);
    }
    for (t, (fwd, rev)) in sc.traffic.iter().zip(&routes.traffic) {
        let ack = match t {
            crate::config::TrafficConfig::Transfers { tcp, .. } => tcp.ack_size_bytes,
            _ => 0,
        };
        mark(fwd, rev, t.packet_size_bytes(), ack);
    }
    sc.links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let bytes = l
                .slot_bytes
                .unwrap_or(if data[i] > 0 { data[i] } else { acks[i] });
            Dur::transmission(bytes, l.rate_bps).max(Dur(1))
        })
        .collect()
}

/// Builds and runs a scenario.
pub fn run(sc: &Scenario) -> Result<RunReport, String> {
    run_polled(sc, &mut |_| true).map_err(|e| e.to_string())
}

/// Builds and runs a scenario, polling `poll` as [`Simulation::run_polled`] does, on the
/// plugin types of its senders (see `tcp/pair.rs`).
pub fn run_polled(
    sc: &Scenario,
    poll: &mut dyn FnMut(Time) -> bool,
) -> Result<RunReport, RunError> {
    fn go<G: FromGrowthImpl, R: FromRecoveryImpl>(
        sc: &Scenario,
        poll: &mut dyn FnMut(Time) -> bool,
    ) -> Result<RunReport, RunError> {
        Simulation::<G, R>::new(sc)
            .map_err(RunError::Invalid)?
            .run_polled(poll)
    }
    with_pair!(&sender_configs(sc), go(sc, poll))
}

/// Every sender a scenario may build: its flows' and its transfer sources'.
fn senders(sc: &Scenario) -> impl Iterator<Item = (Variant, &TcpConfig)> {
    let flows = sc.flows.iter().map(|f| (f.variant, &f.tcp));
    let transfers = sc.traffic.iter().filter_map(|t| match t {
        TrafficConfig::Transfers { variant, tcp, .. } => Some((*variant, tcp)),
        _ => None,
    });
    flows.chain(transfers)
}

/// The configurations of every sender the scenario may build.
fn sender_configs(sc: &Scenario) -> Vec<SenderConfig> {
    senders(sc).map(|(v, t)| preset(v, t)).collect()
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

    /// A dumbbell with RED, long-lived flows, downloads and an on/off source: forwarding
    /// along chains of single-fed links ahead of time changes nothing but the event count.
    #[test]
    fn chained_links_change_nothing_but_the_events() {
        let tcp = r#"{"packet_size_bytes": 500, "ack_size_bytes": 40, "max_window": 20,
            "initial_window": 1, "dupack_threshold": 3, "min_rto_s": 0.2, "max_rto_s": 60.0,
            "initial_rto_s": 1.0, "granularity_s": 0.01, "fixed_rto_s": null,
            "max_backoff": 64, "delayed_ack": true, "profile": "ns2"}"#;
        let mut links = Vec::new();
        let mut duplex = |a: &str, b: &str, rate: f64, d: f64, q: &str, ch: &str| {
            for (x, y) in [(a, b), (b, a)] {
                links.push(format!(
                    r#"{{"from": "{x}", "to": "{y}", "rate_bps": {rate}, "queue": {q},
                       "delay": {{"kind": "fixed", "delay_s": {d}}}, "channel": {ch}}}"#
                ));
            }
        };
        let red = r#"{"kind": "red", "packets": 40, "bytes": false, "queue_in_bytes": false}"#;
        let dt = r#"{"kind": "droptail", "packets": 100}"#;
        let none = r#"{"kind": "none"}"#;
        duplex("B", "C", 2e6, 0.02, red, none);
        for i in 1..=4 {
            let ch = if i == 4 {
                r#"{"kind": "bernoulli", "p": 0.01}"#
            } else {
                none
            };
            duplex(&format!("A{i}"), "B", 2e7, 0.002 * i as f64, dt, none);
            duplex("C", &format!("D{i}"), 2e7, 0.002 * i as f64, dt, ch);
        }
        let sc = format!(
            r#"{{"seed": 4, "duration_s": 30.0, "links": [{}],
                "flows": [{{"variant": "new_reno", "src": "A1", "dst": "D1", "tcp": {tcp},
                            "app": {{"kind": "bulk"}}}},
                          {{"variant": "sack", "src": "A4", "dst": "D4", "tcp": {tcp},
                            "app": {{"kind": "bulk"}}, "start_s": 0.3}}],
                "traffic": [{{"kind": "transfers", "src": "A2", "dst": "D2",
                              "arrival_rate_per_s": 3.0,
                              "size": {{"kind": "exp", "mean_bytes": 20000}},
                              "max_concurrent": 5, "variant": "tahoe", "tcp": {tcp}}},
                            {{"kind": "onoff", "src": "A3", "dst": "D3", "rate_bps": 1e6,
                              "packet_size_bytes": 700, "on_s": 0.2, "off_s": 0.3}}],
                "trace": {{"queue": {{"link": 0, "from_s": 10.0, "to_s": 10.5}}}}}}"#,
            links.join(",")
        );
        let sc = Scenario::from_json(&sc).expect("scenario");
        let chained = AnyPair::new(&sc).unwrap();
        assert!(chained.any_chained);
        let mut plain = AnyPair::new(&sc).unwrap();
        plain.any_chained = false;
        let a = chained.run().expect("runs");
        let b = plain.run().expect("runs");
        assert!(a.events < b.events * 8 / 10, "{} vs {}", a.events, b.events);
        let strip = |r: &RunReport| {
            let mut v = serde_json::to_value(r).unwrap();
            v["events"] = serde_json::Value::Null;
            v
        };
        assert_eq!(strip(&a), strip(&b));
        assert!(a.links.iter().any(|l| l.channel_drops > 0));
        assert!(a.links[0].early_drops > 0);
    }

    /// The enum-dispatched simulation, which runs any scenario.
    type AnyPair = Simulation<GrowthImpl, RecoveryImpl>;

    fn pair_name<G, R>() -> &'static str {
        std::any::type_name::<(G, R)>()
    }

    #[test]
    fn monomorphised_runs_equal_the_enum_dispatched_ones() {
        // CHAIN's lossy three-hop path (burst channel, queue drops, delayed ACKs) with every
        // variant and both profiles; the mixed scenario of the test above takes the enum sets.
        let variants = [
            "old_tahoe",
            "tahoe",
            "reno",
            "new_reno",
            "sack",
            "vegas",
            "new_reno_lp",
            "ideal_lp",
            "westwood_nr",
            "westwood_plus",
        ];
        let mut pairs = Vec::new();
        for profile in ["rfc", "ns2"] {
            for v in variants {
                let json = CHAIN
                    .replace(r#""variant": "sack""#, &format!(r#""variant": "{v}""#))
                    .replace(r#""profile": "rfc""#, &format!(r#""profile": "{profile}""#));
                let sc = Scenario::from_json(&json).expect("scenario");
                let pair = with_pair!(&sender_configs(&sc), pair_name());
                assert_ne!(
                    pair,
                    pair_name::<GrowthImpl, RecoveryImpl>(),
                    "{v} ({profile})"
                );
                pairs.push(pair);
                let mono = serde_json::to_string(&run(&sc).unwrap()).unwrap();
                let any = serde_json::to_string(&AnyPair::new(&sc).unwrap().run().unwrap());
                assert_eq!(mono, any.unwrap(), "{v} ({profile})");
            }
        }
        pairs.sort();
        pairs.dedup();
        assert_eq!(
            pairs.len(),
            8,
            "every concrete pair is exercised: {pairs:?}"
        );
        // A simulation built for another pair refuses the scenario instead of running it.
        let sc = Scenario::from_json(CHAIN).unwrap();
        let wrong = Simulation::<crate::tcp::cc::Vegas, crate::tcp::recovery::Vegas>::new(&sc);
        assert!(wrong.is_err_and(|e| e.contains("Sack")));
    }

    #[test]
    fn pipe_heads_beside_the_heap_keep_the_heap_order() {
        let sc = Scenario::from_json(CHAIN).expect("scenario");
        let inline = AnyPair::new(&sc).unwrap();
        assert!(inline.inline_heads);
        let mut heap = AnyPair::new(&sc).unwrap();
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
