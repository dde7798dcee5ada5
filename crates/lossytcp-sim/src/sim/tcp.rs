//! TCP connections as endpoints: the scenario's long-lived flows and single transfers, and
//! the finite transfers that transfer sources open on Poisson arrivals.
//!
//! Flow slots: the scenario's long-lived flows occupy slots `0..n_flows` (so a flow's id is
//! its index, as `flow_drops` channels name it); each transfer source's connections take
//! further slots, reused once a transfer is retired. A reused slot starts a new connection
//! generation (`Flow::conn`, carried by every packet), so a late packet of a retired
//! connection still crosses the links it is on but is discarded at its end, never
//! delivered to the successor (`is_current`).

use super::endpoint::{DropCounts, Endpoint, Loss};
use super::net::Net;
use super::oracle::Oracle;
use super::traffic::Entry;
use super::Event;
use crate::app::{Arrivals, Sizes};
use crate::config::{Profile, TcpConfig, TrafficConfig, Variant};
use crate::metrics::{FlowReport, TrafficReport};
use crate::packet::{FlowId, Kind, LinkId, LossCause, Packet};
use crate::rng::{Rng, Stream};
use crate::tcp::cc::{Growth, GrowthImpl};
use crate::tcp::pair::{FromGrowthImpl, FromRecoveryImpl};
use crate::tcp::receiver::{AckOut, RxAction};
use crate::tcp::recovery::{Recovery, RecoveryImpl};
use crate::tcp::variant::preset;
use crate::tcp::{LossKind, LossTruth, Receiver, Segment, SegmentSink, Sender};
use crate::time::{Dur, Time};

/// The timers of TCP connections and transfer sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TcpTimer {
    /// A long-lived flow (or single transfer) starts.
    Start(FlowId),
    Rto(FlowId),
    /// The sender's pacing timer.
    Pace(FlowId),
    /// The receiver's delayed-ACK timer of that generation.
    DelAck(FlowId, u64),
    /// Transfer source `s` (its index among the sources) starts.
    SourceStart(u32),
    /// A transfer of source `s` arrives (Poisson).
    Arrival(u32),
}

struct Flow<G: Growth, R: Recovery> {
    /// Routes of the data segments and of the ACKs.
    data_route: u16,
    ack_route: u16,
    /// The data route's first link, taken from the net when the connection starts
    /// (`Tcp::on_start`): the pacing timer's segments go on it without the route's look-up.
    data_link: LinkId,
    /// The ACK route's first link, taken likewise: a pacing sender's receiver sends its
    /// ACKs on it (`Tcp::send_ack_inlined`).
    ack_link: LinkId,
    sender: Sender<G, R>,
    receiver: Receiver,
    packet_size: u32,
    ack_size: u32,
    /// The receiver keeps the data segments' timestamps for its echo (RFC 7323's TS.Recent)
    /// only when the sender reads the echo (its Eifel detection): without a reader nothing
    /// would see it. (Zeroing TSval too saved nothing measurable: a division by a constant.)
    timestamps: bool,
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
    /// The plugin phase and pacing rate last traced.
    last_phase: Option<&'static str>,
    last_pacing: f64,
    /// Connection generation of this slot (see the module documentation).
    conn: u32,
    /// False for a retired transfer's slot waiting for reuse.
    live: bool,
    /// `None` for the scenario's own flows; the source (index) of a transfer.
    source: Option<u32>,
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
        routes: (u16, u16),
        start: Time,
        capacity_pps: f64,
        source: Option<u32>,
        bytes: Option<u64>,
        seed: u64,
    ) -> Self {
        let mut cfg = preset(variant, tcp);
        cfg.seed = seed;
        // Simulation::new checked that every flow's pair is (G, R).
        let sender = Sender::with_plugins(
            &cfg,
            G::from_impl(GrowthImpl::new(&cfg.growth, cfg.seed))
                .expect("the simulation's growth plugin"),
            R::from_impl(RecoveryImpl::new(&cfg.recovery)).expect("the simulation's recovery"),
            limit,
        );
        let mut receiver = Receiver::new(sender.wants_sack(), tcp.delayed_ack);
        if tcp.profile == Profile::Ns2 && sender.wants_sack() {
            receiver = receiver.with_ns2_blocks();
        } else if crate::tcp::options::DSACK.on(tcp) && sender.wants_sack() {
            receiver = receiver.with_dsack();
        }
        let sack_block_bytes = sender.sack_block_bytes();
        let timestamps = sender.reads_timestamp_echo();
        Flow {
            data_route: routes.0,
            ack_route: routes.1,
            data_link: LinkId::MAX,
            ack_link: LinkId::MAX,
            sender,
            receiver,
            packet_size: tcp.packet_size_bytes,
            ack_size: tcp.ack_size_bytes,
            timestamps,
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
            last_phase: None,
            last_pacing: 0.0,
            conn: 0,
            live: true,
            source,
            bytes,
        }
    }

    /// Whether `p` belongs to the connection now in this slot.
    #[inline]
    fn is_current(&self, p: &Packet) -> bool {
        self.live && p.conn == self.conn
    }

    /// Schedules the sender's pacing timer when data waits for it.
    #[inline]
    fn sync_pacing(&mut self, fid: usize, net: &mut Net) {
        match self.sender.pacing_deadline() {
            Some(t) if self.pace_at != Some(t) => {
                self.pace_at = Some(t);
                net.schedule_pace(t, fid as FlowId);
            }
            Some(_) => {}
            None => self.pace_at = None,
        }
    }

    /// Keeps one heap entry per flow for its retransmission timer: the deadline moves on
    /// almost every ACK, so the heap is touched only when it moves earlier or the entry fires.
    /// Among events due at the same instant the timer runs in the place of its last arming,
    /// as if it had been scheduled then: ns-2 cancels and reinserts its timer at every
    /// restart, and its scheduler runs simultaneous events in insertion order.
    #[inline]
    fn sync_timer(&mut self, fid: usize, net: &mut Net) {
        let Some(d) = self.sender.rto_deadline() else {
            self.timer_armed = None;
            return;
        };
        let order = match self.timer_armed {
            // The common case (a paced departure leaves the deadline where it was): nothing
            // to take and, the entry being no later, nothing to schedule.
            Some((t, o)) if t == d => {
                if self.timer_at.is_some_and(|t| t <= d) {
                    return;
                }
                o
            }
            _ => {
                let o = net.sched.next_order();
                self.timer_armed = Some((d, o));
                o
            }
        };
        if self.timer_at.is_none_or(|t| d < t) {
            self.timer_at = Some(d);
            net.sched
                .schedule_at_order(d, order, Event::Tcp(TcpTimer::Rto(fid as FlowId)));
        }
    }

    /// Books the loss events the sender reported against the oracle's truth.
    #[cold]
    #[inline(never)]
    fn book_loss_events(&mut self) {
        for e in self.sender.drain_events() {
            let spurious = self.oracle.some_copy_survives(e.seq);
            let causes = &mut self.report.loss_causes;
            match (spurious, self.oracle.cause(e.seq)) {
                (false, Some(LossCause::Queue)) => causes.queue += 1,
                (false, Some(_)) => causes.channel += 1,
                _ => causes.none += 1,
            }
            match e.kind {
                LossKind::Timeout => {
                    self.report.timeouts += 1;
                    self.report.spurious_timeouts += u64::from(spurious);
                }
                LossKind::FastRetransmit => {
                    self.report.fast_retransmits += 1;
                    self.report.spurious_fast_retransmits += u64::from(spurious);
                }
            }
            // A classifier's verdict against the truth: the cause of the segment's last
            // dropped copy; a spurious detection (a copy survives) has none to judge.
            if let Some(predicted) = e.predicted {
                let truth = if spurious {
                    None
                } else {
                    self.oracle.cause(e.seq)
                };
                if let Some(t) = truth {
                    let c = &mut self.report.classification;
                    c.classified += 1;
                    match (predicted, t) {
                        (p, t) if p == t => c.correct += 1,
                        (LossCause::Channel, _) => c.congestion_called_wireless += 1,
                        _ => c.wireless_called_congestion += 1,
                    }
                }
            }
        }
    }

    /// The pacing timer's sends with the segments put on the wire as the sender sends them
    /// ([`Sender::on_pacing_timer_into`]) and, when they changed nothing else in the sender,
    /// the timers; returns whether they did not (the caller then takes `after_sender`'s
    /// remaining steps). Nothing else to do then: no loss events to book, nothing for the
    /// window, phase and pacing traces (they were brought up to date after the sender's
    /// last event), no completion (snd_una did not move).
    #[inline(always)]
    fn pace_into_wire(&mut self, now: Time, fid: FlowId, trace_sends: bool, net: &mut Net) -> bool {
        let (sender, mut wire) = self.split_wire(now, fid, trace_sends, net);
        if !sender.on_pacing_timer_into(now, &mut wire) {
            return false;
        }
        // A send moves the retransmission deadline only when none is set (RFC 6298 §5.1):
        // one set before stays, and its timer is in place (every event ends with
        // `sync_timer`), which would return at once. Whether one was set before is what
        // the last `sync_timer` recorded (it keeps `timer_armed` as the sender's deadline).
        if self.timer_armed.is_some() {
            debug_assert!(self.rto_timer_in_place());
        } else {
            self.sync_timer(fid as usize, net);
        }
        self.schedule_paced(fid, net);
        true
    }

    /// `sync_timer` would change nothing: the deadline's timer is armed and its entry is
    /// no later.
    fn rto_timer_in_place(&self) -> bool {
        let d = self.sender.rto_deadline();
        d.is_some()
            && self.timer_armed.map(|(t, _)| t) == d
            && self.timer_at.is_some_and(|t| Some(t) <= d)
    }

    /// [`Flow::pace_into_wire`] for a sender whose pacing timer sends into a buffer
    /// (`Sender::on_pacing_timer`, which said its sends changed nothing else), as
    /// `after_sender` would: the segments go out, then the timers. (One pass over the
    /// segments: the oracle's records are per segment, so booking a segment sent and a loss
    /// of it at once before the next one's ends the same as `after_sender`'s two passes.)
    #[inline]
    fn put_paced(
        &mut self,
        now: Time,
        fid: FlowId,
        out: &mut Vec<Segment>,
        trace_sends: bool,
        net: &mut Net,
    ) {
        debug_assert!(!self.sender.has_loss_events());
        let (_, mut wire) = self.split_wire(now, fid, trace_sends, net);
        for s in out.iter() {
            wire.put(*s);
        }
        out.clear();
        self.paced_timers(fid, net);
    }

    /// The timers after a pacing timer's sends that changed nothing else.
    #[inline(always)]
    fn paced_timers(&mut self, fid: FlowId, net: &mut Net) {
        self.sync_timer(fid as usize, net);
        self.schedule_paced(fid, net);
    }

    /// The next pacing wake-up, if the sender waits for one.
    #[inline(always)]
    fn schedule_paced(&mut self, fid: FlowId, net: &mut Net) {
        // `sync_pacing` after `on_pace` took the pending wake-up: any deadline is new.
        debug_assert!(self.pace_at.is_none());
        if let Some(t) = self.sender.pacing_deadline() {
            self.pace_at = Some(t);
            net.schedule_pace(t, fid);
        }
    }

    /// The sender, and the wire its segments go on at `now` (stamped with `now`'s TSval).
    #[inline(always)]
    fn split_wire<'a>(
        &'a mut self,
        now: Time,
        fid: FlowId,
        trace_sends: bool,
        net: &'a mut Net,
    ) -> (&'a mut Sender<G, R>, Wire<'a>) {
        let tsval = crate::packet::tsval(now);
        let wire = Wire {
            now,
            header: data_packet(
                fid,
                self.conn,
                self.packet_size,
                self.data_route,
                &NO_SEGMENT,
                tsval,
            ),
            link: self.data_link,
            trace_sends,
            oracle: &mut self.oracle,
            report: &mut self.report,
            net,
        };
        (&mut self.sender, wire)
    }

    /// Books segment `s` as sent: the oracle's record and the retransmission count.
    #[inline(always)]
    fn book_send(&mut self, s: &Segment) {
        book_send(&mut self.oracle, &mut self.report, s);
    }

    /// Sends segment `s` of this connection (stamped `tsval`), booking a loss at once.
    #[inline(always)]
    fn put_on_wire(&mut self, now: Time, fid: FlowId, s: Segment, tsval: u32, net: &mut Net) {
        let p = data_packet(fid, self.conn, self.packet_size, self.data_route, &s, tsval);
        // (The connection's own segment, just sent: `on_loss` would find it current.)
        if let Some(loss) = net.send(now, p) {
            self.on_own_loss(s.seq, loss);
        }
    }

    /// Books a loss of one of this connection's data segments.
    #[inline]
    fn on_own_loss(&mut self, seq: u64, loss: Loss) {
        book_own_loss(&mut self.oracle, &mut self.report, seq, loss);
    }

    /// New data delivered in order, in bytes.
    fn delivered_bytes(&self) -> u64 {
        let b = self.receiver.delivered * u64::from(self.packet_size);
        self.bytes.map_or(b, |n| b.min(n))
    }
}

/// A connection's wire: a segment put on it is booked (the oracle's record, the counts, the
/// send trace) and sent, as the sender hands it over ([`Sender::on_pacing_timer_into`]).
struct Wire<'a> {
    now: Time,
    /// The connection's data packet at `now`: each segment's is this one with its
    /// sequence number and retransmission flag.
    header: Packet,
    /// The route's first link.
    link: LinkId,
    trace_sends: bool,
    oracle: &'a mut Oracle,
    report: &'a mut FlowReport,
    net: &'a mut Net,
}

impl SegmentSink for Wire<'_> {
    /// What `after_sender` does for one segment: [`Flow::book_send`], the send trace,
    /// [`Flow::put_on_wire`].
    #[inline(always)]
    fn put(&mut self, s: Segment) {
        book_send(self.oracle, self.report, &s);
        self.report.packets_sent += 1;
        if self.trace_sends {
            trace_send(self.report, self.now, &s);
        }
        let mut p = self.header;
        if let Kind::Data {
            seq,
            retransmission,
            ..
        } = &mut p.kind
        {
            (*seq, *retransmission) = (s.seq, s.retransmission);
        }
        if let Some(loss) = self.net.send_on(self.now, self.link, p) {
            book_own_loss(self.oracle, self.report, s.seq, loss);
        }
    }
}

/// The segment in [`Wire::header`], replaced by each one put on the wire.
const NO_SEGMENT: Segment = Segment {
    seq: 0,
    retransmission: false,
};

/// A SYN's and a SYN-ACK's size with Linux's options (MSS, SACK-permitted, timestamps,
/// window scale): 20 + 40 bytes.
const HANDSHAKE_BYTES: u32 = 60;

/// Connection `fid`'s (generation `conn`'s) data segment `s` on `route`, stamped `tsval`.
#[inline(always)]
fn data_packet(
    fid: FlowId,
    conn: u32,
    size_bytes: u32,
    route: u16,
    s: &Segment,
    tsval: u32,
) -> Packet {
    Packet {
        flow: fid,
        conn,
        size_bytes,
        hop: 0,
        route,
        kind: Kind::Data {
            seq: s.seq,
            retransmission: s.retransmission,
            tsval,
        },
    }
}

/// Books segment `s` as sent: the oracle's record and the retransmission count.
#[inline(always)]
fn book_send(oracle: &mut Oracle, report: &mut FlowReport, s: &Segment) {
    oracle.on_send(s.seq);
    report.retransmissions += u64::from(s.retransmission);
}

/// Books a loss of one of a connection's data segments.
#[inline]
fn book_own_loss(oracle: &mut Oracle, report: &mut FlowReport, seq: u64, loss: Loss) {
    oracle.on_drop(seq, loss.cause());
    report.count_drop(loss);
}

/// The send trace's record of segment `s` sent at `now`. Out of line: inlined, the trace's
/// time in f64 was computed on every pacing wake-up, traced or not.
#[cold]
#[inline(never)]
fn trace_send(report: &mut FlowReport, now: Time, s: &Segment) {
    report
        .send_trace
        .push((now.as_secs(), s.seq, s.retransmission));
}

/// A traffic entry of kind `transfers`: finite TCP transfers on Poisson arrivals.
struct Source {
    entry: Entry,
    arrivals: Arrivals,
    sizes: Sizes,
    max_concurrent: usize,
    max_transfers: Option<u64>,
    variant: Variant,
    tcp: Box<TcpConfig>,
    /// Routes of its connections' data and ACKs.
    routes: (u16, u16),
    /// Open connections, and the flow slots of retired ones, ready for reuse.
    active: usize,
    free: Vec<FlowId>,
    /// No more arrivals will come (the cap or `stop_s` was reached).
    arrivals_done: bool,
    /// Seeds each transfer's sender plugins.
    plugin_seeds: Rng,
}

/// The plugin-seed streams of transfer sources are numbered from here; a scenario's own flow
/// `i` takes stream `i`.
const PLUGIN_SEEDS_OF_SOURCES: u64 = 1 << 40;

pub(super) struct Tcp<G: Growth = GrowthImpl, R: Recovery = RecoveryImpl> {
    flows: Vec<Flow<G, R>>,
    /// The scenario's long-lived flows are slots `0..n_flows` of `flows`.
    n_flows: usize,
    sources: Vec<Source>,
    out: Vec<Segment>,
    trace_sends: bool,
    trace_window: bool,
}

impl<G: FromGrowthImpl, R: FromRecoveryImpl> Tcp<G, R> {
    pub fn new(trace_sends: bool, trace_window: bool) -> Self {
        Tcp {
            flows: Vec::new(),
            n_flows: 0,
            sources: Vec::new(),
            out: Vec::new(),
            trace_sends,
            trace_window,
        }
    }

    /// Adds a long-lived flow (or single transfer of `limit` segments) of the scenario;
    /// the event that starts it.
    #[allow(clippy::too_many_arguments)]
    pub fn add_flow(
        &mut self,
        variant: Variant,
        tcp: &TcpConfig,
        limit: u64,
        routes: (u16, u16),
        start: Time,
        capacity_pps: f64,
        label: Option<String>,
        scenario_seed: u64,
    ) -> Event {
        debug_assert_eq!(
            self.n_flows,
            self.flows.len(),
            "flows come before transfers"
        );
        let i = self.flows.len() as u64;
        let seed = Rng::derive(scenario_seed, Stream::Plugin, i).next_u64();
        let mut flow = Flow::new(
            variant,
            tcp,
            limit,
            routes,
            start,
            capacity_pps,
            None,
            None,
            seed,
        );
        flow.report.label = label;
        self.flows.push(flow);
        self.n_flows += 1;
        Event::Tcp(TcpTimer::Start((self.flows.len() - 1) as FlowId))
    }

    /// Adds traffic entry `index` (of kind `transfers`) opening connections on `routes`;
    /// the event that starts it (at its `start_s`).
    pub fn add_source(
        &mut self,
        index: usize,
        cfg: &TrafficConfig,
        routes: (u16, u16),
        seed: u64,
    ) -> Event {
        let TrafficConfig::Transfers {
            arrival_rate_per_s,
            size,
            max_concurrent,
            max_transfers,
            variant,
            tcp,
            ..
        } = cfg
        else {
            unreachable!("a UDP source is not TCP's");
        };
        let k = index as u64;
        self.sources.push(Source {
            entry: Entry::new(index, cfg),
            arrivals: Arrivals::new(*arrival_rate_per_s, Rng::derive(seed, Stream::Arrivals, k)),
            sizes: Sizes::new(size, Rng::derive(seed, Stream::Sizes, k)),
            max_concurrent: *max_concurrent,
            max_transfers: *max_transfers,
            variant: *variant,
            tcp: Box::new(tcp.clone()),
            routes,
            active: 0,
            free: Vec::new(),
            arrivals_done: *max_transfers == Some(0),
            plugin_seeds: Rng::derive(seed, Stream::Plugin, PLUGIN_SEEDS_OF_SOURCES + k),
        });
        Event::Tcp(TcpTimer::SourceStart((self.sources.len() - 1) as u32))
    }

    pub fn n_sources(&self) -> usize {
        self.sources.len()
    }

    #[inline(never)]
    fn send_ack(&mut self, now: Time, fid: usize, a: AckOut, net: &mut Net) {
        self.send_ack_inlined::<false>(now, fid, a, net);
    }

    /// [`Tcp::send_ack`], inlined into the data segment's path for the senders that pace
    /// (their plugins own the window), which ACK every segment out of order at once.
    /// `ON_LINK`: sent on the ACK route's first link as kept (`Flow::ack_link`), without
    /// the route's look-up.
    #[inline(always)]
    fn send_ack_inlined<const ON_LINK: bool>(
        &mut self,
        now: Time,
        fid: usize,
        a: AckOut,
        net: &mut Net,
    ) {
        let f = &mut self.flows[fid];
        f.report.acks_sent += 1;
        let p = Packet {
            flow: fid as FlowId,
            conn: f.conn,
            size_bytes: f.ack_size + f.sack_block_bytes * a.n_sack,
            hop: 0,
            route: f.ack_route,
            kind: Kind::Ack {
                ack: a.ack,
                sack: a.sack,
                n_sack: a.n_sack as u8,
                tsecr: a.tsecr,
            },
        };
        let fate = if ON_LINK {
            net.send_on(now, f.ack_link, p)
        } else {
            net.send(now, p)
        };
        if let Some(loss) = fate {
            self.on_loss(&p, loss);
        }
    }

    fn on_delack(&mut self, now: Time, fid: FlowId, generation: u64, net: &mut Net) {
        let f = &mut self.flows[fid as usize];
        if f.delack_gen != generation || !f.live {
            return;
        }
        if let Some(a) = f.receiver.on_delack_timer() {
            self.send_ack(now, fid as usize, a, net);
        }
    }

    fn on_start(&mut self, now: Time, fid: FlowId, net: &mut Net) {
        let f = &mut self.flows[fid as usize];
        f.data_link = net.first_link(f.data_route);
        f.ack_link = net.first_link(f.ack_route);
        if f.sender.wants_handshake_rtt() {
            // The SYN out on the data route, the SYN-ACK back on the ACK route, both idle.
            let rtt = net.unloaded_time(now, f.data_route, HANDSHAKE_BYTES)
                + net.unloaded_time(now, f.ack_route, HANDSHAKE_BYTES);
            f.sender.handshake_rtt_sample(rtt);
        }
        let mut out = std::mem::take(&mut self.out);
        self.flows[fid as usize].sender.start(now, &mut out);
        self.after_sender(now, fid as usize, &mut out, net);
        self.out = out;
    }

    fn on_source_start(&mut self, now: Time, s: usize, net: &mut Net) {
        let at = Time::from_secs(now.as_secs() + self.sources[s].arrivals.next_gap_s());
        self.schedule_arrival(s, at, net);
    }

    /// Schedules source `s`'s next transfer arrival, or marks its arrivals over.
    fn schedule_arrival(&mut self, s: usize, at: Time, net: &mut Net) {
        let src = &mut self.sources[s];
        if src.entry.active_at(at) {
            net.sched
                .schedule(at, Event::Tcp(TcpTimer::Arrival(s as u32)));
        } else {
            src.arrivals_done = true;
            self.check_source_finished(s, net);
        }
    }

    /// A transfer source is finished when its arrivals are over and no transfer is open.
    fn check_source_finished(&mut self, s: usize, net: &mut Net) {
        let src = &mut self.sources[s];
        if src.arrivals_done && src.active == 0 && !src.entry.finished {
            src.entry.finished = true;
            net.unfinished -= 1;
        }
    }

    /// A Poisson arrival: open a connection for a new transfer (or refuse it at the cap).
    fn on_arrival(&mut self, now: Time, s: usize, net: &mut Net) {
        let src = &mut self.sources[s];
        let e = &mut src.entry;
        let arrived = e.report.transfers_started + e.report.transfers_refused + 1;
        let next = Time::from_secs(now.as_secs() + src.arrivals.next_gap_s());
        let more = src.max_transfers.is_none_or(|m| arrived < m);
        if !more {
            src.arrivals_done = true;
        }
        let opened = if src.active >= src.max_concurrent {
            e.report.transfers_refused += 1;
            None
        } else {
            let bytes = src.sizes.draw();
            let limit = bytes.div_ceil(u64::from(src.tcp.packet_size_bytes)).max(1);
            src.active += 1;
            e.report.transfers_started += 1;
            // Per-transfer capacity is not reported; the entry reports goodput in b/s.
            let flow = Flow::new(
                src.variant,
                &src.tcp,
                limit,
                src.routes,
                now,
                0.0,
                Some(s as u32),
                Some(bytes),
                src.plugin_seeds.next_u64(),
            );
            Some((flow, src.free.pop()))
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
            self.on_start(now, fid, net);
        }
        if more {
            self.schedule_arrival(s, next, net);
        } else {
            self.check_source_finished(s, net);
        }
    }

    /// A transfer is complete: its counters go to its source, its slot waits for reuse.
    fn retire(&mut self, fid: usize, net: &mut Net) {
        let f = &mut self.flows[fid];
        f.live = false;
        f.timer_at = None;
        f.timer_armed = None;
        f.pace_at = None;
        let report = std::mem::take(&mut f.report);
        let (delivered, bytes) = (f.receiver.delivered, f.delivered_bytes());
        let s = f.source.expect("a transfer") as usize;
        let src = &mut self.sources[s];
        src.entry.absorb(&report, delivered, bytes);
        src.entry.report.transfers_completed += 1;
        if let Some(c) = report.completion_time_s {
            src.entry.completion.add(c);
        }
        src.active -= 1;
        src.free.push(fid as FlowId);
        self.check_source_finished(s, net);
    }

    fn on_rto(&mut self, now: Time, fid: FlowId, net: &mut Net) {
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
                self.after_sender(now, fid as usize, &mut out, net);
                self.out = out;
            }
            _ => f.sync_timer(fid as usize, net),
        }
    }

    /// The pacing timer of flow `fid` (kept beside the heap, see `Net::schedule_pace`):
    /// inlined into the event loop for the senders that pace on every departure (their
    /// plugins own the window), called for the others, whose loop stays as it was.
    #[inline(always)]
    pub fn on_pace(&mut self, now: Time, fid: FlowId, net: &mut Net) {
        if self.flows[fid as usize].sender.owns_window() {
            self.on_pace_inlined(now, fid, net);
        } else {
            self.on_pace_called(now, fid, net);
        }
    }

    #[inline(never)]
    fn on_pace_called(&mut self, now: Time, fid: FlowId, net: &mut Net) {
        self.on_pace_inlined(now, fid, net);
    }

    #[inline(always)]
    fn on_pace_inlined(&mut self, now: Time, fid: FlowId, net: &mut Net) {
        let f = &mut self.flows[fid as usize];
        // (A retired transfer's slot has no pending wake-up: `retire` clears it.)
        debug_assert!(f.live || f.pace_at.is_none());
        if f.pace_at != Some(now) {
            return; // superseded, or a retired transfer's
        }
        f.pace_at = None;
        if f.sender.paces_into_sink() {
            if !f.pace_into_wire(now, fid, self.trace_sends, net) {
                self.after_wire_sends(now, fid as usize, net);
            }
            return;
        }
        let out = &mut self.out;
        if f.sender.on_pacing_timer(now, out) {
            f.put_paced(now, fid, out, self.trace_sends, net);
            return;
        }
        let mut out = std::mem::take(out);
        self.after_sender(now, fid as usize, &mut out, net);
        self.out = out;
    }

    /// Puts the sender's segments on the wire and books what the sender reported.
    fn after_sender(&mut self, now: Time, fid: usize, out: &mut Vec<Segment>, net: &mut Net) {
        let trace_sends = self.trace_sends;
        let f = &mut self.flows[fid];
        if f.sender.has_loss_events() {
            f.book_loss_events();
        }
        for s in out.iter() {
            f.book_send(s);
        }
        f.report.packets_sent += out.len() as u64;
        if trace_sends {
            let t = now.as_secs();
            let sends = out.iter().map(|s| (t, s.seq, s.retransmission));
            f.report.send_trace.extend(sends);
        }
        self.note_state(now, fid, net);
        let f = &mut self.flows[fid];
        let tsval = crate::packet::tsval(now);
        for s in out.iter() {
            f.put_on_wire(now, fid as FlowId, *s, tsval, net);
        }
        out.clear();
        self.sync_timers(fid, net);
    }

    /// [`Tcp::after_sender`] after a pacing timer whose segments are on the wire
    /// ([`Flow::pace_into_wire`]) and whose sends changed more in the sender (a
    /// `CaEvent::TxStart`): what is left of it, as after a sender that sent nothing.
    /// (The state's traces and the completion follow the sends here, not precede them as in
    /// `after_sender`: neither reads nor changes what the wire does.)
    #[cold]
    #[inline(never)]
    fn after_wire_sends(&mut self, now: Time, fid: usize, net: &mut Net) {
        self.after_quiet_sender(now, fid, net, false);
    }

    /// [`Tcp::after_sender`] when the sender sent nothing (a paced sender's ACKs, whose
    /// segments the pacing timer sends). (Inlined into the ACK's path, as when it had no
    /// other caller.) `pacing_unchanged`: the sender said its pacing deadline is as it was
    /// (`Sender::on_ack_echo`), and so is the pacing timer that the last event set for it.
    #[inline(always)]
    fn after_quiet_sender(&mut self, now: Time, fid: usize, net: &mut Net, pacing_unchanged: bool) {
        let f = &mut self.flows[fid];
        if f.sender.has_loss_events() {
            f.book_loss_events();
        }
        self.note_state(now, fid, net);
        self.sync_timers_but(fid, net, pacing_unchanged);
    }

    /// The sender's state after its work, sent or not: the window trace, completion.
    #[inline(always)]
    fn note_state(&mut self, now: Time, fid: usize, net: &mut Net) {
        let trace_window = self.trace_window;
        let f = &mut self.flows[fid];
        if trace_window {
            let st = &f.sender.state;
            let w = (st.cwnd, st.ssthresh, f.sender.rto().as_secs());
            if w != f.last_window {
                f.last_window = w;
                f.report.window_trace.push((now.as_secs(), w.0, w.1, w.2));
            }
            let phase = f.sender.phase();
            if phase != f.last_phase {
                f.last_phase = phase;
                if let Some(p) = phase {
                    f.report.phase_trace.push((now.as_secs(), p));
                }
            }
            let bps = f.sender.pacing_rate().unwrap_or(0.0) * 8.0 * f64::from(f.packet_size);
            if bps != f.last_pacing {
                f.last_pacing = bps;
                f.report.pacing_trace.push((now.as_secs(), bps));
            }
        }
        if f.finite && f.report.completion_time_s.is_none() && f.sender.done() {
            f.report.completion_time_s = Some((now - f.start).as_secs());
            if f.source.is_none() {
                net.unfinished -= 1;
            }
        }
    }

    /// The timers after the sender's work; a complete transfer retires.
    #[inline(always)]
    fn sync_timers(&mut self, fid: usize, net: &mut Net) {
        self.sync_timers_but(fid, net, false);
    }

    /// [`Tcp::sync_timers`]; `pacing_unchanged`: the sender said its pacing deadline is as
    /// it was, and so is the pacing timer the last event set for it, which needs no look.
    #[inline(always)]
    fn sync_timers_but(&mut self, fid: usize, net: &mut Net, pacing_unchanged: bool) {
        let f = &mut self.flows[fid];
        debug_assert!(!pacing_unchanged || f.pace_at == f.sender.pacing_deadline());
        f.sync_timer(fid, net);
        if !pacing_unchanged && (f.sender.state.pacing_rate.is_some() || f.pace_at.is_some()) {
            f.sync_pacing(fid, net);
        }
        if f.source.is_some() && f.report.completion_time_s.is_some() {
            self.retire(fid, net);
        }
    }

    /// The long-lived flows' reports over `[0, end]`; the transfer sources' in their places
    /// in `traffic` (transfers still open count in their source's report).
    pub fn finish(&mut self, end: Time, traffic: &mut [Option<TrafficReport>]) -> Vec<FlowReport> {
        for fid in self.n_flows..self.flows.len() {
            let f = &mut self.flows[fid];
            if f.live {
                let report = std::mem::take(&mut f.report);
                let s = f.source.expect("transfer slot") as usize;
                let (d, b) = (f.receiver.delivered, f.delivered_bytes());
                self.sources[s].entry.absorb(&report, d, b);
            }
        }
        for src in &mut self.sources {
            src.entry.finish(end, traffic);
        }
        self.flows[..self.n_flows]
            .iter_mut()
            .map(|f| {
                let mut r = std::mem::take(&mut f.report);
                r.elapsed_s = match r.completion_time_s {
                    Some(c) => c,
                    None => (end - f.start).as_secs(),
                };
                r.packets_delivered = f.receiver.delivered;
                r.undos = f.sender.undos();
                (r.tlps, r.tlp_recoveries) = f.sender.tlps();
                (r.rack_lost, r.rack_lost_retransmissions) = f.sender.rack_counts();
                (
                    r.reordering_events,
                    r.reordering_degree,
                    r.rack_reo_wnd_steps,
                ) = f.sender.reordering_counts();
                r.final_cwnd = f.sender.state.cwnd;
                r.final_ssthresh = f.sender.state.ssthresh;
                r.final_rto_s = f.sender.rto().as_secs();
                r.srtt_s = f.sender.srtt().map(|d| d.as_secs());
                r
            })
            .collect()
    }
}

impl<G: FromGrowthImpl, R: FromRecoveryImpl> Endpoint for Tcp<G, R> {
    type Timer = TcpTimer;

    fn on_timer(&mut self, now: Time, t: TcpTimer, net: &mut Net) {
        match t {
            TcpTimer::Start(f) => self.on_start(now, f, net),
            TcpTimer::Rto(f) => self.on_rto(now, f, net),
            TcpTimer::Pace(f) => self.on_pace(now, f, net),
            TcpTimer::DelAck(f, g) => self.on_delack(now, f, g, net),
            TcpTimer::SourceStart(s) => self.on_source_start(now, s as usize, net),
            TcpTimer::Arrival(s) => self.on_arrival(now, s as usize, net),
        }
    }

    fn on_packet(&mut self, now: Time, p: Packet, net: &mut Net) {
        let fid = p.flow as usize;
        if !self.flows[fid].is_current(&p) {
            let s = self.flows[fid].source.expect("only transfers retire") as usize;
            self.sources[s].entry.report.stale_packets += 1;
            return;
        }
        match p.kind {
            Kind::Data { seq, tsval, .. } => {
                let f = &mut self.flows[fid];
                f.report.packets_received += 1;
                if f.timestamps {
                    f.receiver.on_timestamp(seq, tsval);
                }
                match f.receiver.on_data(seq) {
                    RxAction::Ack(a) if f.sender.owns_window() => {
                        self.send_ack_inlined::<true>(now, fid, a, net)
                    }
                    RxAction::Ack(a) => self.send_ack(now, fid, a, net),
                    RxAction::Delay => {
                        f.delack_gen += 1;
                        let at = now + f.delack_interval;
                        let t = TcpTimer::DelAck(fid as FlowId, f.delack_gen);
                        net.sched.schedule(at, Event::Tcp(t));
                    }
                }
            }
            Kind::Ack { ack, tsecr, .. } => {
                let mut out = std::mem::take(&mut self.out);
                let f = &mut self.flows[fid];
                let held = f.sender.on_ack_echo(
                    now,
                    ack,
                    &p.sack_blocks(),
                    Some(tsecr),
                    &f.oracle,
                    &mut out,
                );
                if out.is_empty() {
                    self.after_quiet_sender(now, fid, net, held);
                } else {
                    self.after_sender(now, fid, &mut out, net);
                }
                self.out = out;
            }
            Kind::Udp { .. } => unreachable!("a datagram on a TCP route"),
        }
    }

    /// Books a lost data segment with its flow (and its oracle), or with its source when
    /// it is a late one of a retired connection. ACK losses are counted per link only.
    fn on_loss(&mut self, p: &Packet, loss: Loss) {
        let Kind::Data { seq, .. } = p.kind else {
            return;
        };
        let f = &mut self.flows[p.flow as usize];
        if f.is_current(p) {
            f.on_own_loss(seq, loss);
        } else {
            let s = f.source.expect("only transfers retire") as usize;
            self.sources[s].entry.report.count_drop(loss);
        }
    }
}
