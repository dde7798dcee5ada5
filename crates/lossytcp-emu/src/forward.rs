//! The forwarder: packets read from one TUN device cross an engine [`Link`] (queue,
//! serialisation, channel, propagation: the same code the simulator runs) and are written
//! to the other device when the link says they arrive.
//!
//! Time is CLOCK_MONOTONIC in ns since the forwarder's origin, read when a packet is read;
//! the link decides at once (its FIFO start times make the packet's arrival known at
//! admission, `link.rs`), so the only real-time work is writing each packet at its arrival
//! time. How late that happens is measured for every packet ([`Lateness`]), with the
//! rate the link actually achieved over back-to-back packets and the forwarder's CPU use:
//! the emulator's accuracy is part of every result.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use lossytcp_sim::link::{Fate, Link};
use lossytcp_sim::queue::DropReason;
use lossytcp_sim::time::Time;
use serde::Serialize;

use crate::sys;
use crate::wire::{Captured, Stream};

/// What became of one packet handed to a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Delivered,
    /// Lost on the channel (after its transmission).
    Lost,
    /// Refused by the queue: RED's early drop, or a full buffer / RED's forced drop.
    Early,
    Forced,
    /// Not IPv4: not forwarded, never shown to the link.
    Ignored,
}

/// One packet's record, times in ns since the origin (`sent` 0: not written).
#[derive(Clone, Copy, Debug)]
pub struct Record {
    pub t_in: u64,
    pub packet: Captured,
    pub outcome: Outcome,
    /// Start and end of its transmission, its arrival time at the far end per the model.
    pub start: u64,
    pub tx_end: u64,
    pub due: u64,
    pub sent: u64,
}

/// One direction of the emulated path.
pub struct Direction {
    pub name: &'static str,
    link: Link,
    input: RawFd,
    output: RawFd,
    stream: Stream,
    packet_size: u32,
    /// Packets on their way: (arrival time, record index) with the bytes in `bytes`.
    pending: BinaryHeap<Reverse<(u64, usize)>>,
    bytes: Vec<Option<Vec<u8>>>,
    pub log: Vec<Record>,
    pub write_errors: u64,
}

impl Direction {
    pub fn new(
        name: &'static str,
        link: Link,
        input: RawFd,
        output: RawFd,
        packet_size: u32,
    ) -> Self {
        Direction {
            name,
            link,
            input,
            output,
            stream: Stream::default(),
            packet_size,
            pending: BinaryHeap::new(),
            bytes: Vec::new(),
            log: Vec::new(),
            write_errors: 0,
        }
    }

    fn take(&mut self, t_in: u64, pkt: &[u8]) {
        let packet = self.stream.parse(pkt, self.packet_size);
        let mut r = Record {
            t_in,
            packet,
            outcome: Outcome::Ignored,
            start: 0,
            tx_end: 0,
            due: 0,
            sent: 0,
        };
        let idx = self.log.len();
        // IPv6 (neighbour discovery, router solicitations) is no part of the experiment.
        if pkt.first().is_some_and(|b| b >> 4 == 4) {
            let fate = self.link.send(Time(t_in), &packet);
            let admitted = matches!(fate, Fate::Arrives(_) | Fate::Lost);
            if admitted {
                r.start = self.link.last_start().0;
                r.tx_end = r.start
                    + lossytcp_sim::time::Dur::transmission(packet.size, self.link.rate_bps).0;
            }
            r.outcome = match fate {
                Fate::Arrives(at) => {
                    r.due = at.0;
                    self.pending.push(Reverse((at.0, idx)));
                    Outcome::Delivered
                }
                Fate::Lost => Outcome::Lost,
                Fate::Dropped(DropReason::Early) => Outcome::Early,
                Fate::Dropped(DropReason::Forced) => Outcome::Forced,
            };
        }
        self.bytes
            .push((r.outcome == Outcome::Delivered).then(|| pkt.to_vec()));
        self.log.push(r);
    }

    /// The next arrival time, if a packet is on its way.
    fn next_due(&self) -> Option<u64> {
        self.pending.peek().map(|Reverse((t, _))| *t)
    }

    /// Writes every packet due by `now`.
    fn deliver(&mut self, now: u64, origin: u64) {
        while let Some(&Reverse((due, idx))) = self.pending.peek() {
            if due > now {
                break;
            }
            self.pending.pop();
            let bytes = self.bytes[idx]
                .take()
                .expect("a pending packet keeps its bytes");
            // The packet reaches the far end's stack when the write starts: the write then
            // runs that stack's receive path (and what it sends in turn) on this thread, and
            // that time is the next packet's lateness, not this one's.
            self.log[idx].sent = sys::now_ns() - origin;
            if sys::write(self.output, &bytes).is_err() {
                self.write_errors += 1;
            }
        }
    }
}

/// How late packets were written against their arrival times, in seconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Lateness {
    pub packets: u64,
    pub mean_s: f64,
    pub p50_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
}

impl Lateness {
    pub fn of(mut late_ns: Vec<u64>) -> Lateness {
        if late_ns.is_empty() {
            return Lateness::default();
        }
        late_ns.sort_unstable();
        let q = |p: f64| late_ns[((late_ns.len() - 1) as f64 * p).round() as usize] as f64 * 1e-9;
        Lateness {
            packets: late_ns.len() as u64,
            mean_s: late_ns.iter().sum::<u64>() as f64 * 1e-9 / late_ns.len() as f64,
            p50_s: q(0.5),
            p99_s: q(0.99),
            max_s: *late_ns.last().expect("non-empty") as f64 * 1e-9,
        }
    }
}

/// A direction's counters and its measured accuracy.
#[derive(Clone, Debug, Serialize)]
pub struct DirectionReport {
    pub name: &'static str,
    pub packets_in: u64,
    pub ignored: u64,
    pub transmitted: u64,
    pub delivered: u64,
    pub channel_drops: u64,
    pub early_drops: u64,
    pub forced_drops: u64,
    pub bytes_delivered: u64,
    pub write_errors: u64,
    /// Writes after their arrival time.
    pub lateness: Lateness,
    /// The model's delay (arrival - read: queueing, transmission, propagation), mean, s.
    pub model_delay_mean_s: f64,
    /// The delay packets actually had inside the emulator (write - read), mean, s.
    pub actual_delay_mean_s: f64,
    /// Rate over back-to-back delivered packets from their write times (each packet's
    /// propagation delay taken off), and the packets it is measured on.
    pub achieved_rate_bps: Option<f64>,
    pub back_to_back_pairs: u64,
    pub configured_rate_bps: f64,
}

impl Direction {
    pub fn report(&self) -> DirectionReport {
        let mut r = DirectionReport {
            name: self.name,
            packets_in: self.log.len() as u64,
            ignored: 0,
            transmitted: 0,
            delivered: 0,
            channel_drops: 0,
            early_drops: 0,
            forced_drops: 0,
            bytes_delivered: 0,
            write_errors: self.write_errors,
            lateness: Lateness::default(),
            model_delay_mean_s: f64::NAN,
            actual_delay_mean_s: f64::NAN,
            achieved_rate_bps: None,
            back_to_back_pairs: 0,
            configured_rate_bps: self.link.rate_bps,
        };
        let mut late = Vec::new();
        let (mut model, mut actual) = (0u64, 0u64);
        let (mut pair_bits, mut pair_ns) = (0f64, 0i64);
        let mut prev: Option<&Record> = None;
        for x in &self.log {
            match x.outcome {
                Outcome::Ignored => r.ignored += 1,
                Outcome::Delivered | Outcome::Lost => r.transmitted += 1,
                Outcome::Early => r.early_drops += 1,
                Outcome::Forced => r.forced_drops += 1,
            }
            if x.outcome == Outcome::Lost {
                r.channel_drops += 1;
            }
            if x.outcome != Outcome::Delivered || x.sent == 0 {
                if matches!(x.outcome, Outcome::Lost) {
                    prev = None;
                }
                continue;
            }
            r.delivered += 1;
            r.bytes_delivered += u64::from(x.packet.size);
            late.push(x.sent.saturating_sub(x.due));
            model += x.due - x.t_in;
            actual += x.sent.saturating_sub(x.t_in);
            if let Some(p) = prev {
                if x.start == p.tx_end {
                    // Departure from the link = write time less propagation (due - tx_end).
                    let dep = x.sent as i64 - (x.due - x.tx_end) as i64;
                    let pdep = p.sent as i64 - (p.due - p.tx_end) as i64;
                    pair_bits += f64::from(x.packet.size) * 8.0;
                    pair_ns += dep - pdep;
                    r.back_to_back_pairs += 1;
                }
            }
            prev = Some(x);
        }
        if r.delivered > 0 {
            r.model_delay_mean_s = model as f64 * 1e-9 / r.delivered as f64;
            r.actual_delay_mean_s = actual as f64 * 1e-9 / r.delivered as f64;
        }
        if r.back_to_back_pairs >= 10 && pair_ns > 0 {
            r.achieved_rate_bps = Some(pair_bits / (pair_ns as f64 * 1e-9));
        }
        r.lateness = Lateness::of(late);
        r
    }
}

/// What the forwarder measured of itself.
#[derive(Clone, Debug, Serialize)]
pub struct ForwarderStats {
    pub wall_s: f64,
    pub cpu_s: f64,
    /// CPU time / wall time of the forwarding thread.
    pub cpu_fraction: f64,
    pub realtime: bool,
    pub realtime_error: Option<String>,
}

/// Runs both directions until `stop` is set and nothing is on its way (or 2 s after
/// `stop`, whichever is first); `origin` is the time zero of the links.
pub fn run(
    dirs: &mut [Direction; 2],
    origin: u64,
    stop: &AtomicBool,
    realtime: bool,
) -> ForwarderStats {
    let rt = if realtime {
        sys::set_realtime(50).err().map(|e| e.to_string())
    } else {
        Some("not asked for".into())
    };
    let _ = sys::set_timer_slack_ns(1_000);
    let (wall0, cpu0) = (sys::now_ns(), sys::thread_cpu_ns());
    let fds = [dirs[0].input, dirs[1].input];
    let mut ready = [false; 2];
    let mut buf = vec![0u8; 65_536];
    let mut stop_at: Option<u64> = None;
    loop {
        let now = sys::now_ns() - origin;
        for d in dirs.iter_mut() {
            d.deliver(now, origin);
        }
        if stop.load(Ordering::Relaxed) {
            let s = *stop_at.get_or_insert(now);
            let empty = dirs.iter().all(|d| d.pending.is_empty());
            if empty || now > s + 2_000_000_000 {
                break;
            }
        }
        let next = dirs.iter().filter_map(Direction::next_due).min();
        // Wake at the next arrival; otherwise every 20 ms to look at the stop flag.
        let timeout = next.map_or(20_000_000, |t| {
            t.saturating_sub(sys::now_ns() - origin).min(20_000_000)
        });
        if sys::poll_readable(&fds, Some(timeout), &mut ready).is_err() {
            ready = [false; 2];
        }
        for (i, d) in dirs.iter_mut().enumerate() {
            if !ready[i] {
                continue;
            }
            while let Ok(Some(n)) = sys::read(d.input, &mut buf) {
                let t = sys::now_ns() - origin;
                d.take(t, &buf[..n]);
            }
        }
    }
    let wall = (sys::now_ns() - wall0) as f64 * 1e-9;
    let cpu = (sys::thread_cpu_ns() - cpu0) as f64 * 1e-9;
    ForwarderStats {
        wall_s: wall,
        cpu_s: cpu,
        cpu_fraction: if wall > 0.0 { cpu / wall } else { 0.0 },
        realtime: rt.is_none(),
        realtime_error: rt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    /// A pair of connected datagram sockets: packet boundaries kept, as a TUN device does,
    /// so the forwarder runs without root or devices.
    fn pair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: fds has room for the two descriptors.
        let r = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_DGRAM, 0, fds.as_mut_ptr()) };
        assert_eq!(r, 0);
        // SAFETY: both were just created and are owned here.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    /// An IPv4 datagram of `size` bytes.
    fn ipv4(size: usize) -> Vec<u8> {
        let mut p = vec![0u8; size];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(size as u16).to_be_bytes());
        p[9] = 17;
        p
    }

    fn link(json: serde_json::Value) -> Link {
        let cfg: lossytcp_sim::config::LinkConfig = serde_json::from_value(json).unwrap();
        Link::new(&cfg, 1, 0, lossytcp_sim::time::Dur(1))
    }

    #[test]
    fn a_burst_leaves_at_the_link_rate_after_the_delay() {
        // 8 Mb/s: a 1000 B packet takes 1 ms; 10 ms of propagation; a queue of 12 waiting.
        let (in_w, in_r) = pair();
        let (out_w, out_r) = pair();
        let (idle_w, idle_r) = pair();
        let (idle2_w, _idle2_r) = pair();
        let mut dirs = [
            Direction::new(
                "forward",
                link(serde_json::json!({"rate_bps": 8e6, "queue_packets": 12,
                    "delay": {"kind": "fixed", "delay_s": 0.01}})),
                in_r.as_raw_fd(),
                out_w.as_raw_fd(),
                1000,
            ),
            Direction::new(
                "reverse",
                link(serde_json::json!({"rate_bps": 8e6, "queue_packets": 5,
                    "delay": {"kind": "fixed", "delay_s": 0.01}})),
                idle_r.as_raw_fd(),
                idle2_w.as_raw_fd(),
                1000,
            ),
        ];
        for fd in [&in_r, &idle_r] {
            // As the TUN devices are: the forwarder reads until nothing is waiting.
            sys::set_nonblocking(fd.as_raw_fd()).unwrap();
        }
        let stop = AtomicBool::new(false);
        let origin = sys::now_ns();
        for _ in 0..16 {
            sys::write(in_w.as_raw_fd(), &ipv4(1000)).unwrap();
        }
        let stats = std::thread::scope(|s| {
            let h = s.spawn(|| run(&mut dirs, origin, &stop, false));
            std::thread::sleep(std::time::Duration::from_millis(100));
            stop.store(true, Ordering::SeqCst);
            h.join().unwrap()
        });
        drop(idle_w);
        let r = dirs[0].report();
        // One on the wire and twelve waiting: the last three are dropped.
        assert_eq!((r.packets_in, r.delivered, r.forced_drops), (16, 13, 3));
        assert!(stats.wall_s > 0.0 && stats.cpu_fraction < 1.0);
        // The model: arrivals 11, 12, ... 16 ms after the burst.
        let log = &dirs[0].log;
        for (k, x) in log
            .iter()
            .filter(|x| x.outcome == Outcome::Delivered)
            .enumerate()
        {
            assert_eq!(x.due - log[0].t_in, 11_000_000 + k as u64 * 1_000_000);
            assert!(x.sent >= x.due, "written before its arrival time");
        }
        // Written at those times, give or take the scheduler: what the report measures.
        assert_eq!(r.back_to_back_pairs, 12);
        let rate = r
            .achieved_rate_bps
            .expect("measured over back-to-back pairs");
        assert!((rate / 8e6 - 1.0).abs() < 0.5, "{rate}");
        let mut buf = [0u8; 2000];
        let mut got = 0;
        sys::set_nonblocking(out_r.as_raw_fd()).unwrap();
        while let Ok(Some(n)) = sys::read(out_r.as_raw_fd(), &mut buf) {
            assert_eq!(n, 1000);
            got += 1;
        }
        assert_eq!(got, 13);
    }

    #[test]
    fn lateness_quantiles() {
        let l = Lateness::of((1..=100).map(|x| x * 1000).collect());
        assert_eq!(l.packets, 100);
        assert!((l.p50_s - 51e-6).abs() < 1e-9 && (l.max_s - 100e-6).abs() < 1e-9);
        assert!((l.p99_s - 99e-6).abs() < 1e-9, "{}", l.p99_s);
    }
}
