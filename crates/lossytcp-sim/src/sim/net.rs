//! The network half of the event loop: links, the event heap, packets in flight and their
//! routes. It moves packets hop by hop and hands each one back when its path is over or it
//! is lost; what a packet means is its endpoint's business (`sim/endpoint.rs`).

use std::collections::VecDeque;

use super::qtrace::QueueTracer;
use super::tcp::TcpTimer;
use super::{Event, Loss};
use crate::config::Scenario;
use crate::link::{Fate, Link};
use crate::metrics::LinkReport;
use crate::packet::{FlowId, LinkId, Packet};
use crate::sched::Scheduler;
use crate::time::{Dur, Time};
use crate::topology::Routes;

/// Beyond this many pending events beside the heap a linear scan per event costs more than
/// the heap.
const MAX_INLINE_HEADS: usize = 64;

/// An event kept beside the heap (see `Net::inline`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Beside {
    /// A link's PipeHead.
    Head(LinkId),
    /// A TCP sender's pacing timer (`TcpTimer::Pace`): one event per departure of a paced
    /// flow, as frequent as a packet's hop.
    Pace(FlowId),
}

/// The events kept beside the heap (`Net::inline`), earliest first, in a ring of
/// `MAX_INLINE_HEADS` slots: the next one leaves from the front, and a new one, nearly
/// always among the latest (a pipe's next arrival, a paced flow's next departure), goes in
/// from the back after a comparison or two. (Kept latest first in a vector, the next one
/// was popped from the end, but a new one travelled past every entry to the front: on
/// bench/senders.py's `two-hop` BBR moved 2-3 entries per event.)
struct BesideRing {
    /// In `Net` itself, not boxed: one pointer fewer to load per event (boxed, NewReno's
    /// `two-hop` cost 8.5 instructions per packet more).
    slots: [(u128, Beside); MAX_INLINE_HEADS],
    /// Events taken and events inserted since the start, wrapping: the events waiting are
    /// `start..end`, the earliest in slot `start % MAX_INLINE_HEADS`. (Counters rather than a
    /// slot and a length: taking one is one store.)
    start: usize,
    end: usize,
}

// A power of two: a slot's index wraps with a mask, and no bounds check remains.
const _: () = assert!(MAX_INLINE_HEADS.is_power_of_two());

impl BesideRing {
    fn new() -> Self {
        BesideRing {
            slots: [(0, Beside::Pace(0)); MAX_INLINE_HEADS],
            start: 0,
            end: 0,
        }
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.end.wrapping_sub(self.start)
    }

    /// The slot of the `i`-th event from the start (`i` may be past the end).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        self.start.wrapping_add(i) % MAX_INLINE_HEADS
    }

    #[inline(always)]
    fn first_key(&self) -> Option<u128> {
        (self.start != self.end).then(|| self.slots[self.start % MAX_INLINE_HEADS].0)
    }

    #[inline(always)]
    fn pop_first(&mut self) -> Beside {
        debug_assert!(self.len() > 0, "the earliest head");
        let ev = self.slots[self.start % MAX_INLINE_HEADS].1;
        self.start = self.start.wrapping_add(1);
        ev
    }

    /// Inserts `(key, ev)` in order (there is room; keys are distinct): a few events, an
    /// insertion-sort step from the back; more, a binary search, then the later ones move
    /// back one slot.
    #[inline(always)]
    fn insert(&mut self, key: u128, ev: Beside) {
        let n = self.len();
        let mut i = n;
        if n <= 8 {
            while i > 0 {
                let prev = self.slots[self.slot(i - 1)];
                if prev.0 < key {
                    break;
                }
                self.slots[self.slot(i)] = prev;
                i -= 1;
            }
        } else {
            let (mut lo, mut hi) = (0, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.slots[self.slot(mid)].0 < key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            i = lo;
            for j in (i..n).rev() {
                self.slots[self.slot(j + 1)] = self.slots[self.slot(j)];
            }
        }
        self.slots[self.slot(i)] = (key, ev);
        self.end = self.end.wrapping_add(1);
    }
}

/// The kind of endpoint that owns the packets of a route (see `Simulation::deliver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Owner {
    Tcp,
    Udp,
}

/// A path through the links, as packets carry it (`Packet::route`).
pub(super) struct Route {
    pub links: Vec<LinkId>,
    pub owner: Owner,
    /// (flow, traffic entry) the queue trace names a packet on this route by; -1 for none.
    pub label: (i64, i64),
}

/// What became of a packet at the end of a hop.
pub(super) enum Hop {
    /// It went on to the next link of its path.
    Forwarded,
    /// It reached the end of its path.
    Delivered(Packet),
    /// It was lost at once on the next link (a loss in the future is an event of its own).
    Lost(Packet, Loss),
}

pub(super) struct Net {
    pub sched: Scheduler<Event>,
    pub links: Vec<Link>,
    routes: Vec<Route>,
    pub end: Time,
    pub events: u64,
    /// Endpoints with work left (flows not yet complete, traffic entries not finished): the
    /// run ends early when this reaches zero.
    pub unfinished: usize,
    in_flight: Vec<Packet>,
    free: Vec<u32>,
    /// Per link: packets propagating, in arrival order (FIFO links only).
    pipes: Vec<VecDeque<(Time, Packet)>>,
    fifo: Vec<bool>,
    /// Up to `MAX_INLINE_HEADS` pending PipeHead and pacing events wait here, as (key,
    /// event) with the key (time << 64 | order), instead of in the heap: a push and a pop
    /// saved per packet hop and per paced departure; more go to the heap. The order comes
    /// from the scheduler's counter, so events run in exactly the sequence the heap alone
    /// would give, whichever structure holds them.
    inline: BesideRing,
    pub inline_heads: bool,
    /// Links fed by a single FIFO link: every path through them comes from that link, and
    /// none starts there. A packet reaching the end of the feeding link at `at` goes on at
    /// once, `send(at, ...)` on this link, without an event of its own: the link sees its
    /// arrivals in the same order and at the same times as with one, because its feeder
    /// is FIFO and nothing else feeds it. (In a dumbbell the access links to the receivers
    /// and back to the senders: a third of the events.) Only for scenarios with a topology,
    /// so that every scenario written before keeps its event order and its bits.
    chained: Vec<bool>,
    pub any_chained: bool,
    qtrace: Option<QueueTracer>,
}

impl Net {
    pub fn new(sc: &Scenario, routes: &Routes) -> Net {
        let slot = slots(sc, routes);
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
        let fifo: Vec<bool> = sc
            .links
            .iter()
            .map(|l| matches!(l.delay, crate::delay::DelayConfig::Fixed { .. }))
            .collect();
        let chained = if routes.topology.is_some() {
            chained_links(routes, &fifo)
        } else {
            vec![false; sc.links.len()]
        };
        Net {
            sched: Scheduler::default(),
            links,
            routes: Vec::new(),
            end: Time::from_secs(sc.duration_s),
            events: 0,
            unfinished: 0,
            in_flight: Vec::new(),
            free: Vec::new(),
            pipes: (0..sc.links.len()).map(|_| VecDeque::new()).collect(),
            fifo,
            inline: BesideRing::new(),
            inline_heads: true,
            any_chained: chained.iter().any(|&c| c),
            chained,
            qtrace: sc.trace.queue.as_ref().map(QueueTracer::new),
        }
    }

    /// A route for packets of `owner` over `links`; its number for `Packet::route`.
    pub fn add_route(&mut self, links: Vec<LinkId>, owner: Owner, label: (i64, i64)) -> u16 {
        let id = u16::try_from(self.routes.len()).expect("Simulation::new counts the routes");
        self.routes.push(Route {
            links,
            owner,
            label,
        });
        id
    }

    #[inline]
    pub fn route(&self, p: &Packet) -> &Route {
        &self.routes[usize::from(p.route)]
    }

    /// Sends `p` (at hop 0) onto the first link of its route; `Some` if it is lost there at
    /// once, which the sender books.
    #[inline]
    pub fn send(&mut self, now: Time, p: Packet) -> Option<Loss> {
        let first = self.route(&p).links[0];
        self.enqueue(now, first, p)
    }

    /// What a `size`-byte packet sent now would take along route `route`, every link idle
    /// ([`Link::unloaded_time`], one link after the other).
    pub fn unloaded_time(&mut self, now: Time, route: u16, size: u32) -> Dur {
        let mut at = now;
        for i in 0..self.routes[usize::from(route)].links.len() {
            let l = self.routes[usize::from(route)].links[i];
            at = at + self.links[l].unloaded_time(at, size);
        }
        at - now
    }

    /// The first link of route `route`.
    pub fn first_link(&self, route: u16) -> LinkId {
        self.routes[usize::from(route)].links[0]
    }

    /// [`Net::send`] where the sender keeps `first`, the first link of `p`'s route: no
    /// look-up of the route per packet.
    #[inline]
    pub fn send_on(&mut self, now: Time, first: LinkId, p: Packet) -> Option<Loss> {
        debug_assert_eq!(first, self.route(&p).links[0]);
        self.enqueue(now, first, p)
    }

    /// `p` reached the end of hop `p.hop` of its route.
    #[inline]
    pub fn arrive(&mut self, now: Time, mut p: Packet) -> Hop {
        p.hop += 1;
        match self.route(&p).links.get(usize::from(p.hop)) {
            Some(&next) => match self.enqueue(now, next, p) {
                None => Hop::Forwarded,
                Some(loss) => Hop::Lost(p, loss),
            },
            None => Hop::Delivered(p),
        }
    }

    pub fn all_finished(&self) -> bool {
        self.unfinished == 0
    }

    /// The time of the inline event that runs before everything in the heap, if any.
    pub fn earliest_inline_head(&self) -> Option<Time> {
        let key = self.inline.first_key()?;
        match self.sched.peek_key() {
            Some((ht, ho)) if (u128::from(ht.0) << 64 | u128::from(ho)) < key => None,
            _ => Some(Time((key >> 64) as u64)),
        }
    }

    /// Takes the earliest inline event (after [`Net::earliest_inline_head`]).
    pub fn pop_inline_head(&mut self) -> Beside {
        self.inline.pop_first()
    }

    #[inline]
    fn schedule_pipe_head(&mut self, at: Time, link: LinkId) {
        self.schedule_beside(at, Beside::Head(link));
    }

    /// Schedules flow `fid`'s pacing timer (`TcpTimer::Pace`) at `at`.
    #[inline]
    pub fn schedule_pace(&mut self, at: Time, fid: FlowId) {
        self.schedule_beside(at, Beside::Pace(fid));
    }

    #[inline(always)]
    fn schedule_beside(&mut self, at: Time, ev: Beside) {
        if self.inline_heads && self.inline.len() < MAX_INLINE_HEADS {
            let order = self.sched.next_order();
            self.inline
                .insert(u128::from(at.0) << 64 | u128::from(order), ev);
        } else {
            let ev = match ev {
                Beside::Head(link) => Event::PipeHead(link),
                Beside::Pace(fid) => Event::Tcp(TcpTimer::Pace(fid)),
            };
            self.sched.schedule(at, ev);
        }
    }

    /// The packet at the head of link `l`'s pipe, which arrives now.
    pub fn pipe_head(&mut self, l: LinkId) -> Packet {
        let (_, p) = self.pipes[l]
            .pop_front()
            .expect("a pipe event with an empty pipe");
        if let Some(&(next, _)) = self.pipes[l].front() {
            self.schedule_pipe_head(next, l);
        }
        p
    }

    fn enqueue(&mut self, now: Time, link: LinkId, p: Packet) -> Option<Loss> {
        let fate = self.links[link].send(now, &p);
        if self.qtrace.as_ref().is_some_and(|t| t.wants(link, now)) {
            self.trace_queue(now, link, &p, fate);
        }
        match fate {
            Fate::Arrives(at) => {
                // (Past the end of the run the arrival never happens: nothing to forward.)
                if self.any_chained && at <= self.end {
                    if let Some(&next) = self.route(&p).links.get(usize::from(p.hop) + 1) {
                        if self.chained[next] {
                            let mut q = p;
                            q.hop += 1;
                            return self.enqueue(at, next, q);
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
                None
            }
            Fate::Lost => self.lost(now, p, Loss::Channel),
            Fate::Dropped(r) => self.lost(now, p, Loss::Queue(r)),
        }
    }

    /// A packet lost at `at`: returned to be booked now, or booked when it happens if it
    /// was forwarded ahead of time along a chain of links.
    fn lost(&mut self, at: Time, p: Packet, cause: Loss) -> Option<Loss> {
        if at > self.sched.now() {
            let i = self.park(p);
            self.sched.schedule(at, Event::Dropped(i, cause));
            None
        } else {
            Some(cause)
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

    /// Takes back the packet an event named.
    #[inline]
    pub fn unpark(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.in_flight[i as usize]
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
        let (flow, traffic) = self.routes[usize::from(p.route)].label;
        if let Some(t) = self.qtrace.as_mut() {
            t.record(now, p, fate, before, red, dequeue, flow, traffic);
        }
    }

    /// The links' reports over `[0, end]`, and the queue trace.
    pub fn finish(&mut self, end: Time) -> (Vec<LinkReport>, Option<crate::metrics::QueueTrace>) {
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
        (links, self.qtrace.take().map(|t| t.out))
    }
}

/// Links whose every path comes from one FIFO link and none starts (see `Net::chained`).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_beside_the_heap_gives_its_events_earliest_first() {
        // Against a sorted list, through many wraps of the ring, with few events (the
        // insertion-sort step) and many (the binary search), new keys late and early.
        let mut rng = crate::rng::Rng::derive(7, crate::rng::Stream::Queue, 0);
        let mut ring = BesideRing::new();
        let mut reference: Vec<(u128, Beside)> = Vec::new();
        let mut order = 0u64;
        let mut longest = 0;
        for step in 0..20_000 {
            let target = if (step / 500) % 2 == 0 {
                4
            } else {
                MAX_INLINE_HEADS
            };
            let insert = reference.len() < MAX_INLINE_HEADS
                && (reference.is_empty()
                    || rng.next_u64() % target as u64 >= reference.len() as u64 / 2);
            if insert {
                order += 1;
                let t = reference.first().map_or(0, |&(k, _)| (k >> 64) as u64);
                let key = u128::from(t + rng.next_u64() % 1000) << 64 | u128::from(order);
                let ev = Beside::Pace(order as FlowId);
                ring.insert(key, ev);
                let i = reference.partition_point(|&(k, _)| k < key);
                reference.insert(i, (key, ev));
            } else {
                assert_eq!(ring.first_key(), Some(reference[0].0));
                assert_eq!(ring.pop_first(), reference.remove(0).1);
            }
            assert_eq!(ring.len(), reference.len());
            longest = longest.max(ring.len());
        }
        assert!(
            longest > 8 && order > 10 * MAX_INLINE_HEADS as u64,
            "{longest} {order}"
        );
        while let Some(k) = ring.first_key() {
            assert_eq!(k, reference[0].0);
            assert_eq!(ring.pop_first(), reference.remove(0).1);
        }
        assert!(reference.is_empty());
    }
}
