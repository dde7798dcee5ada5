//! UDP sources as endpoints: each traffic entry of kind `cbr` or `onoff` sends datagrams on
//! its route as its generator (`app::UdpSource`) times them, and counts those that arrive.
//! Its packets carry the source's index among the UDP sources as their flow.

use super::endpoint::{DropCounts, Endpoint, Loss};
use super::net::Net;
use super::traffic::Entry;
use super::Event;
use crate::app::UdpSource;
use crate::config::TrafficConfig;
use crate::metrics::TrafficReport;
use crate::packet::{FlowId, Kind, Packet};
use crate::rng::{Rng, Stream};
use crate::time::Time;

/// A UDP source's timers; the number is the source's index among the UDP sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum UdpTimer {
    /// The entry starts.
    Start(u32),
    /// The source sends its next packet.
    Send(u32),
}

struct Source {
    entry: Entry,
    gen: UdpSource,
    packet_size: u32,
    /// The next send time in f64 seconds, accumulated as ns-2 does.
    next_s: f64,
    seq: u64,
    route: u16,
}

#[derive(Default)]
pub(super) struct Udp {
    sources: Vec<Source>,
}

impl Udp {
    /// Adds traffic entry `index` (a `cbr` or `onoff` one) sending on `route`; the event
    /// that starts it (at its `start_s`).
    pub fn add(&mut self, index: usize, cfg: &TrafficConfig, route: u16, seed: u64) -> Event {
        let k = index as u64;
        let (gen, packet_size) = match cfg {
            TrafficConfig::Cbr {
                rate_bps,
                packet_size_bytes,
                random,
                ..
            } => (
                UdpSource::cbr(
                    *rate_bps,
                    *packet_size_bytes,
                    *random,
                    Rng::derive(seed, Stream::Source, k),
                ),
                *packet_size_bytes,
            ),
            TrafficConfig::Onoff {
                rate_bps,
                packet_size_bytes,
                on_s,
                off_s,
                ..
            } => (
                UdpSource::onoff(
                    *rate_bps,
                    *packet_size_bytes,
                    *on_s,
                    *off_s,
                    Rng::derive(seed, Stream::Source, k),
                ),
                *packet_size_bytes,
            ),
            TrafficConfig::Transfers { .. } => unreachable!("a transfer source is TCP's"),
        };
        self.sources.push(Source {
            entry: Entry::new(index, cfg),
            gen,
            packet_size,
            next_s: 0.0,
            seq: 0,
            route,
        });
        Event::Udp(UdpTimer::Start((self.sources.len() - 1) as u32))
    }

    pub fn len(&self) -> usize {
        self.sources.len()
    }

    fn schedule_send(&mut self, s: usize, at: Time, net: &mut Net) {
        if self.sources[s].entry.active_at(at) {
            net.sched.schedule(at, Event::Udp(UdpTimer::Send(s as u32)));
        }
        // A UDP source never finishes: its datagrams have no completion to wait for, so a
        // run with one lasts `duration_s` (packets in flight when it stopped still arrive).
    }

    fn send(&mut self, now: Time, s: usize, net: &mut Net) {
        let src = &mut self.sources[s];
        let p = Packet {
            flow: s as FlowId,
            conn: 0,
            size_bytes: src.packet_size,
            hop: 0,
            route: src.route,
            kind: Kind::Udp { seq: src.seq },
        };
        src.seq += 1;
        src.next_s += src.gen.next_gap_s();
        let next = Time::from_secs(src.next_s).max(now);
        src.entry.report.packets_sent += 1;
        if let Some(loss) = net.send(now, p) {
            self.on_loss(&p, loss);
        }
        self.schedule_send(s, next, net);
    }

    pub fn finish(&mut self, end: Time, out: &mut [Option<TrafficReport>]) {
        for s in &mut self.sources {
            s.entry.finish(end, out);
        }
    }
}

impl Endpoint for Udp {
    type Timer = UdpTimer;

    fn on_timer(&mut self, now: Time, t: UdpTimer, net: &mut Net) {
        match t {
            UdpTimer::Start(s) => {
                let src = &mut self.sources[s as usize];
                src.next_s = now.as_secs() + src.gen.first_gap_s();
                let at = Time::from_secs(src.next_s);
                self.schedule_send(s as usize, at, net);
            }
            UdpTimer::Send(s) => self.send(now, s as usize, net),
        }
    }

    fn on_packet(&mut self, _now: Time, p: Packet, _net: &mut Net) {
        let r = &mut self.sources[p.flow as usize].entry.report;
        r.packets_received += 1;
        r.bytes_delivered += u64::from(p.size_bytes);
    }

    fn on_loss(&mut self, p: &Packet, loss: Loss) {
        self.sources[p.flow as usize].entry.report.count_drop(loss);
    }
}
