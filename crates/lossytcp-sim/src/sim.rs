//! The simulation: the event loop over the network (`sim/net.rs`: links, the event heap,
//! packets in flight) and the endpoints that send and receive on it (`sim/endpoint.rs`),
//! each kind in its own module: TCP connections (`sim/tcp.rs`) and UDP sources
//! (`sim/udp.rs`).

mod endpoint;
mod net;
mod oracle;
mod qtrace;
mod tcp;
mod traffic;
mod udp;

pub use oracle::Oracle;

use crate::config::{AppConfig, Scenario, TcpConfig, TrafficConfig, Variant};
use crate::metrics::RunReport;
use crate::packet::{LinkId, Packet};
use crate::tcp::cc::{Growth, GrowthImpl};
use crate::tcp::pair::{fits, with_pair, FromGrowthImpl, FromRecoveryImpl};
use crate::tcp::recovery::{Recovery, RecoveryImpl};
use crate::tcp::variant::preset;
use crate::tcp::SenderConfig;
use crate::time::{Dur, Time};
use endpoint::Endpoint;
pub(crate) use endpoint::Loss;
use net::{Beside, Hop, Net, Owner};
use tcp::{Tcp, TcpTimer};
use udp::{Udp, UdpTimer};

pub(crate) enum Event {
    /// The packet (an index into the in-flight slab) reached the end of hop `packet.hop` of
    /// its route. Keeping packets out of the heap keeps heap entries small.
    Arrive(u32),
    /// The earliest packet in the link's pipe arrives. On a link whose delay is fixed,
    /// arrivals leave in the order they entered, so they wait in a FIFO and the heap holds
    /// one entry per busy link instead of one per packet in flight.
    PipeHead(LinkId),
    /// A packet (in the in-flight slab) forwarded ahead of time along a chain of links (see
    /// `Net::chained`) was lost there: it is booked at the time of the loss.
    Dropped(u32, Loss),
    /// A timer of the TCP connections or of a transfer source.
    Tcp(TcpTimer),
    /// A timer of a UDP source.
    Udp(UdpTimer),
}

// Heap entries stay at 32 bytes: an event is 16.
const _: () = assert!(std::mem::size_of::<Event>() == 16);

/// Forward-path capacity in data packets per second of this size.
fn capacity_pps(sc: &Scenario, forward: &[LinkId], packet_size: u32) -> f64 {
    forward
        .iter()
        .map(|&l| sc.links[l].rate_bps / (8.0 * f64::from(packet_size)))
        .fold(f64::INFINITY, f64::min)
}

pub struct Simulation<G: Growth = GrowthImpl, R: Recovery = RecoveryImpl> {
    net: Net,
    tcp: Tcp<G, R>,
    udp: Udp,
}

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
        let routes = crate::limits::check_scenario(sc)?;
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
        // Two routes per flow and transfer source, one per UDP source, numbered in a u16.
        let n_routes = 2 * sc.flows.len()
            + sc.traffic
                .iter()
                .map(|t| if t.is_tcp() { 2 } else { 1 })
                .sum::<usize>();
        if n_routes > usize::from(u16::MAX) + 1 {
            return Err(format!(
                "the scenario needs {n_routes} routes (two per flow and transfer source, one \
                 per UDP source); at most 65536 are supported"
            ));
        }
        let mut net = Net::new(sc, &routes);
        let mut tcp = Tcp::new(sc.trace.sends, sc.trace.window);
        let mut udp = Udp::default();
        for (i, f) in sc.flows.iter().enumerate() {
            let limit = match f.app {
                AppConfig::Bulk => u64::MAX,
                AppConfig::Transfer { bytes } => {
                    bytes.div_ceil(u64::from(f.tcp.packet_size_bytes)).max(1)
                }
            };
            let (forward, reverse) = routes.flows[i].clone();
            let capacity = capacity_pps(sc, &forward, f.tcp.packet_size_bytes);
            let label = (i as i64, -1);
            let data = net.add_route(forward, Owner::Tcp, label);
            let acks = net.add_route(reverse, Owner::Tcp, label);
            let start = Time::from_secs(f.start_s);
            let ev = tcp.add_flow(
                f.variant,
                &f.tcp,
                limit,
                (data, acks),
                start,
                capacity,
                f.label.clone(),
                sc.seed,
            );
            net.sched.schedule(start, ev);
            net.unfinished += 1;
        }
        for (k, t) in sc.traffic.iter().enumerate() {
            let (forward, reverse) = routes.traffic[k].clone();
            let label = (-1, k as i64);
            let ev = if t.is_tcp() {
                let data = net.add_route(forward, Owner::Tcp, label);
                let acks = net.add_route(reverse, Owner::Tcp, label);
                tcp.add_source(k, t, (data, acks), sc.seed)
            } else {
                let route = net.add_route(forward, Owner::Udp, label);
                udp.add(k, t, route, sc.seed)
            };
            net.sched.schedule(Time::from_secs(t.start_s()), ev);
            net.unfinished += 1;
        }
        Ok(Simulation { net, tcp, udp })
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
            let events = self.net.events;
            if events >= next_poll {
                next_poll = events + POLL_EVENTS;
                let now = self.net.sched.now();
                if now.since(mark.0) >= ZENO_MIN_ADVANCE {
                    mark = (now, events);
                } else if events - mark.1 >= ZENO_EVENTS {
                    return Err(RunError::NoProgress {
                        at_s: now.as_secs(),
                        events: events - mark.1,
                    });
                }
                if !poll(now) {
                    return Err(RunError::Cancelled {
                        at_s: now.as_secs(),
                    });
                }
            }
            if let Some(at) = self.net.earliest_inline_head() {
                if at > self.net.end {
                    break;
                }
                let ev = self.net.pop_inline_head();
                self.net.sched.advance(at);
                self.net.events += 1;
                match ev {
                    Beside::Head(l) => {
                        let p = self.net.pipe_head(l);
                        self.arrive(at, p);
                    }
                    Beside::Pace(f) => self.tcp.on_pace(at, f, &mut self.net),
                }
                if self.net.all_finished() {
                    break;
                }
                continue;
            }
            let Some((now, ev)) = self.net.sched.pop_until(self.net.end) else {
                break;
            };
            self.net.events += 1;
            self.dispatch(now, ev);
            if self.net.all_finished() {
                break;
            }
        }
        Ok(self.finish())
    }

    /// Hands an event to the network or to the endpoint it belongs to.
    #[inline]
    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::Arrive(i) => {
                let p = self.net.unpark(i);
                self.arrive(now, p)
            }
            Event::PipeHead(l) => {
                let p = self.net.pipe_head(l);
                self.arrive(now, p)
            }
            Event::Dropped(i, loss) => {
                let p = self.net.unpark(i);
                self.lost(&p, loss)
            }
            Event::Tcp(t) => self.tcp.on_timer(now, t, &mut self.net),
            Event::Udp(t) => self.udp.on_timer(now, t, &mut self.net),
        }
    }

    /// A packet reached the end of a hop: it goes on, or to its endpoint.
    #[inline]
    fn arrive(&mut self, now: Time, p: Packet) {
        match self.net.arrive(now, p) {
            Hop::Forwarded => {}
            Hop::Delivered(p) => match self.net.route(&p).owner {
                Owner::Tcp => self.tcp.on_packet(now, p, &mut self.net),
                Owner::Udp => self.udp.on_packet(now, p, &mut self.net),
            },
            Hop::Lost(p, loss) => self.lost(&p, loss),
        }
    }

    fn lost(&mut self, p: &Packet, loss: Loss) {
        match self.net.route(p).owner {
            Owner::Tcp => self.tcp.on_loss(p, loss),
            Owner::Udp => self.udp.on_loss(p, loss),
        }
    }

    fn finish(mut self) -> RunReport {
        let net = &mut self.net;
        let end = net.sched.now().min(net.end).max(if net.all_finished() {
            Time::ZERO
        } else {
            net.end
        });
        let mut traffic = vec![None; self.tcp.n_sources() + self.udp.len()];
        let flows = self.tcp.finish(end, &mut traffic);
        self.udp.finish(end, &mut traffic);
        let (links, queue_trace) = net.finish(end);
        RunReport {
            flows,
            links,
            traffic: traffic
                .into_iter()
                .map(|r| r.expect("every traffic entry reports"))
                .collect(),
            queue_trace,
            events: net.events,
            simulated_s: end.as_secs(),
        }
    }
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
        assert!(chained.net.any_chained);
        let mut plain = AnyPair::new(&sc).unwrap();
        plain.net.any_chained = false;
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
    fn events_beside_the_heap_keep_the_heap_order() {
        // SACK: pipe heads only; BBR: its pacing timers too, one per departure.
        for v in ["sack", "bbr"] {
            let json = CHAIN.replace(r#""variant": "sack""#, &format!(r#""variant": "{v}""#));
            let sc = Scenario::from_json(&json).expect("scenario");
            let inline = AnyPair::new(&sc).unwrap();
            assert!(inline.net.inline_heads);
            let mut heap = AnyPair::new(&sc).unwrap();
            heap.net.inline_heads = false;
            let a = serde_json::to_string(&inline.run().unwrap()).unwrap();
            let b = serde_json::to_string(&heap.run().unwrap()).unwrap();
            assert_eq!(a, b, "{v}");
            let v: serde_json::Value = serde_json::from_str(&a).unwrap();
            let f = &v["flows"][0];
            assert!(f["queue_drops"].as_u64().unwrap() > 0, "{f}");
            assert!(f["channel_losses"].as_u64().unwrap() > 0, "{f}");
        }
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
        // Transmission rounds to 0 ns and nothing propagates: the flow spins at t = 0. The
        // range checks refuse such a link (limits.rs); the guard behind them is tested here.
        crate::limits::SKIP.with(|s| s.set(true));
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
        crate::limits::SKIP.with(|s| s.set(false));
        let back = Scenario::from_json(&serde_json::to_string(&sc).unwrap()).unwrap();
        assert!(crate::limits::check_scenario(&back)
            .unwrap_err()
            .contains("1 ns"));
        assert!(run(&back).unwrap_err().contains("1 ns"));
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
