//! `lossytcp-emu`: the engine's link (queue, serialisation, channel, propagation delay: the
//! very code of `lossytcp-sim`) applied to real packets between two network namespaces
//! joined by TUN devices, with the Linux kernel's TCP (or a UDP probe) on both ends.
//!
//!     lossytcp-emu check             can this machine emulate? (root, TUN, namespaces)
//!     lossytcp-emu run CONFIG.json   one run; the report (JSON) on stdout
//!
//! CONFIG is `{"scenario": <an engine scenario of one link each way and one flow, as
//! lossytcp.build_scenario writes it>, "workload": {"kind": "tcp", "cc": "cubic",
//! "sample_interval_s": 0.01} | {"kind": "udp", "rate_bps": .., "packet_size_bytes": ..},
//! "log_dir": "...", "realtime": true, "preflight": true, "max_lateness_s": null,
//! "sysctls": {"net.ipv4.tcp_timestamps": "0"}}` (sysctls written in both namespaces).
//! The scenario's seed drives the links' channels, delays and queues exactly as in the
//! engine (link 0 carries data, link 1 ACKs); each packet's fate is logged to
//! `log_dir/{forward,reverse}.csv`.
//!
//! Exit codes: 0 the run's accuracy held; 5 it ran but the emulator's accuracy did not
//! hold (the report says which bound failed); 3 refused before running (the machine cannot
//! hold the rate now: preflight); 4 cannot emulate here (not root, no TUN, no namespaces);
//! 2 a bad configuration; 1 the workload failed; 130 interrupted (Ctrl-C, SIGTERM).

mod forward;
mod netns;
mod sys;
mod tcp_bulk;
mod udp_probe;
mod wire;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use lossytcp_sim::config::{LinkConfig, Scenario};
use lossytcp_sim::link::Link;
use lossytcp_sim::time::Dur;
use serde::{Deserialize, Serialize};

use forward::{Direction, DirectionReport, ForwarderStats};
use netns::{End, RECEIVER_ADDR, SENDER_ADDR};

const EXIT_BAD_CONFIG: i32 = 2;
const EXIT_REFUSED: i32 = 3;
const EXIT_CANNOT: i32 = 4;
const EXIT_INACCURATE: i32 = 5;
const EXIT_WORKLOAD: i32 = 1;
const EXIT_INTERRUPTED: i32 = 130;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn install_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Workload {
    Tcp {
        cc: String,
        #[serde(default = "sample_interval")]
        sample_interval_s: f64,
        /// The receiver's advertised window, clamped (TCP_WINDOW_CLAMP); none: autotuned.
        #[serde(default)]
        window_clamp_bytes: Option<u32>,
    },
    Udp {
        rate_bps: f64,
        packet_size_bytes: u32,
    },
}

fn sample_interval() -> f64 {
    0.01
}
fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    scenario: serde_json::Value,
    workload: Workload,
    #[serde(default)]
    log_dir: Option<String>,
    #[serde(default = "yes")]
    realtime: bool,
    #[serde(default = "yes")]
    preflight: bool,
    /// The bound on write lateness (p99); default 5% of half the shortest round trip.
    #[serde(default)]
    max_lateness_s: Option<f64>,
    /// Sysctls written in both namespaces before the run (`net.ipv4.tcp_timestamps` ->
    /// "0"): a new namespace starts from the kernel's defaults for the per-namespace TCP
    /// settings, not from the host's, so a control run must set them here.
    #[serde(default)]
    sysctls: std::collections::BTreeMap<String, String>,
}

/// The machine's capacity measured before the run.
#[derive(Serialize)]
struct Preflight {
    /// Timer wake-ups 0.5 ms ahead under the forwarder's scheduling: how late, p99 and max.
    timer_late_p99_s: f64,
    timer_late_max_s: f64,
    /// Packets per second the whole path (UDP sender, TUN, forwarder, TUN, receiver)
    /// carried on an instant link, against the rate it was offered.
    offered_pps: f64,
    carried_pps: f64,
    /// Packets per second the run needs (data at the link rate, one ACK per data packet).
    needed_pps: f64,
}

#[derive(Serialize)]
struct Accuracy {
    ok: bool,
    problems: Vec<String>,
    max_lateness_s: f64,
    /// Forward link: the rate achieved over back-to-back packets against the configured.
    rate_error: Option<f64>,
    /// Mean added delay (write - arrival time) over the model's mean delay, forward link.
    delay_error: Option<f64>,
    /// The forwarder thread's CPU share and the headroom left (1 - share).
    cpu_fraction: f64,
    cpu_headroom: f64,
    /// Packets the kernel dropped at a TUN device before the forwarder read them.
    tun_drops: u64,
}

#[derive(Serialize)]
struct Report {
    ok: bool,
    interrupted: bool,
    refused: Option<String>,
    error: Option<String>,
    preflight: Option<Preflight>,
    accuracy: Option<Accuracy>,
    forwarder: Option<ForwarderStats>,
    links: Vec<DirectionReport>,
    tcp: Option<tcp_bulk::TcpReport>,
    udp: Option<udp_probe::ProbeReport>,
    log_dir: Option<String>,
}

impl Report {
    fn new() -> Report {
        Report {
            ok: false,
            interrupted: false,
            refused: None,
            error: None,
            preflight: None,
            accuracy: None,
            forwarder: None,
            links: Vec::new(),
            tcp: None,
            udp: None,
            log_dir: None,
        }
    }
}

fn print(report: &Report) {
    let text = serde_json::to_string(report).expect("serialisable");
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

fn fail(code: i32, msg: String) -> i32 {
    let mut r = Report::new();
    r.error = Some(msg);
    print(&r);
    code
}

/// Why this machine cannot emulate, if it cannot.
fn cannot_emulate() -> Option<String> {
    if !sys::is_root() {
        return Some("the emulator needs root (network namespaces and TUN devices)".into());
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some("/dev/net/tun is absent: load the tun module (modprobe tun)".into());
    }
    let probe = std::thread::spawn(|| -> Result<(), String> {
        sys::unshare_net().map_err(|e| format!("cannot create a network namespace: {e}"))?;
        sys::open_tun("ltcpcheck").map_err(|e| format!("cannot create a TUN device: {e}"))?;
        Ok(())
    });
    match probe.join() {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e),
        Err(_) => Some("the namespace check panicked".into()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = match args.get(1).map(String::as_str) {
        Some("check") => match cannot_emulate() {
            None => {
                println!("{{\"ok\": true}}");
                0
            }
            Some(why) => {
                println!("{}", serde_json::json!({"ok": false, "reason": why}));
                EXIT_CANNOT
            }
        },
        Some("run") if args.len() == 3 => run(&args[2]),
        _ => {
            eprintln!("usage: lossytcp-emu check | lossytcp-emu run CONFIG.json");
            EXIT_BAD_CONFIG
        }
    };
    std::process::exit(code);
}

/// The transmission time of `bytes` on `link`, the slot of its slot-stepped channels (as
/// the engine's `slots`: data packets on the data link, ACKs on the ACK link).
fn slot(link: &LinkConfig, bytes: u32) -> Dur {
    let b = link.slot_bytes.unwrap_or(bytes);
    Dur::transmission(b, link.rate_bps).max(Dur(1))
}

fn min_delay_s(link: &LinkConfig) -> f64 {
    use lossytcp_sim::config::DelayConfig;
    match &link.delay {
        DelayConfig::Fixed { delay_s } => *delay_s,
        DelayConfig::SemiMarkov { delay_s, .. } => {
            delay_s.iter().copied().fold(f64::INFINITY, f64::min)
        }
    }
}

/// The delay the lateness bound is a share of: half the shortest round trip the path can
/// have, plus a data packet's transmission. On a fixed symmetric path that is the one-way
/// delay; a semi-Markov delay puts the whole round trip on the data link and none on the
/// ACK link, and 5% of the data link's delay alone would let the two directions' lateness
/// add up to 10% of the round trip. Its shortest state is the strictest: where the delay
/// jumps up, the same lateness is a smaller share of it.
fn bound_delay_s(links: &[LinkConfig], packet_size: u32) -> f64 {
    0.5 * (min_delay_s(&links[0]) + min_delay_s(&links[1]))
        + Dur::transmission(packet_size, links[0].rate_bps).as_secs()
}

fn run(path: &str) -> i32 {
    install_signals();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return fail(EXIT_BAD_CONFIG, format!("config {path}: {e}")),
    };
    let cfg: Config = match serde_json::from_str(&text) {
        Ok(c) => c,
        Err(e) => return fail(EXIT_BAD_CONFIG, format!("config: {e}")),
    };
    let sc = match Scenario::from_json(&cfg.scenario.to_string())
        .and_then(|s| lossytcp_sim::limits::check_scenario(&s).map(|_| s))
    {
        Ok(s) => s,
        Err(e) => return fail(EXIT_BAD_CONFIG, e),
    };
    let single = sc.links.len() == 2
        && sc.flows.len() == 1
        && sc.traffic.is_empty()
        && sc.flows[0].forward == [0]
        && sc.flows[0].reverse == [1];
    if !single {
        return fail(
            EXIT_BAD_CONFIG,
            "the emulator runs one link each way with one flow (simulate()'s single link): \
             links[0] carries data, links[1] ACKs"
                .into(),
        );
    }
    if let Some(why) = cannot_emulate() {
        return fail(EXIT_CANNOT, why);
    }
    let tcp = &sc.flows[0].tcp;
    let (packet_size, ack_size) = (tcp.packet_size_bytes, tcp.ack_size_bytes);
    if !(68..=65_535).contains(&packet_size) {
        return fail(
            EXIT_BAD_CONFIG,
            format!(
                "packet_size_bytes = {packet_size}: real packets need 68..65535 bytes (the MTU)"
            ),
        );
    }
    let one_way = bound_delay_s(&sc.links, packet_size);
    // The accuracy figure: the delay within 5%, here for 99% of the packets.
    let max_late = cfg.max_lateness_s.unwrap_or((0.05 * one_way).max(100e-6));
    let mut report = Report::new();
    report.log_dir = cfg.log_dir.clone();

    let sysctls: Vec<(String, String)> = cfg.sysctls.clone().into_iter().collect();
    let spawn = |name, addr, peer| End::spawn(name, addr, peer, packet_size, &sysctls);
    let (sender, tun_a) = match spawn("ltcp0", SENDER_ADDR, RECEIVER_ADDR) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CANNOT, format!("sender namespace: {e}")),
    };
    let (receiver, tun_b) = match spawn("ltcp1", RECEIVER_ADDR, SENDER_ADDR) {
        Ok(x) => x,
        Err(e) => return fail(EXIT_CANNOT, format!("receiver namespace: {e}")),
    };
    use std::os::fd::AsRawFd;
    let (a, b) = (tun_a.as_raw_fd(), tun_b.as_raw_fd());
    for fd in [a, b] {
        if let Err(e) = sys::set_nonblocking(fd) {
            return fail(EXIT_CANNOT, format!("TUN: {e}"));
        }
    }
    let data_rate = sc.links[0].rate_bps;
    let needed_pps = 2.0 * data_rate / (8.0 * f64::from(packet_size));
    if cfg.preflight {
        let p = match preflight(
            &sender,
            &receiver,
            a,
            b,
            packet_size,
            needed_pps,
            cfg.realtime,
        ) {
            Ok(p) => p,
            Err(e) => return fail(EXIT_WORKLOAD, format!("preflight: {e}")),
        };
        let mut refused = Vec::new();
        if p.carried_pps < 2.0 * p.needed_pps {
            refused.push(format!(
                "the path carries {:.0} packets/s on this machine now, and {:.0} b/s with {} B \
                 packets needs {:.0} (data and ACKs) with a 2x margin: lower the rate or use \
                 larger packets",
                p.carried_pps,
                data_rate,
                packet_size,
                2.0 * p.needed_pps
            ));
        }
        if p.timer_late_p99_s > max_late {
            refused.push(format!(
                "timers fire {:.0} us late (p99), beyond the {:.0} us this path's delays allow \
                 (5% of {:.1} ms one way): the machine is too loaded for this delay now",
                p.timer_late_p99_s * 1e6,
                max_late * 1e6,
                one_way * 1e3
            ));
        }
        report.preflight = Some(p);
        if !refused.is_empty() {
            report.refused = Some(refused.join("; "));
            print(&report);
            return EXIT_REFUSED;
        }
    }
    if STOP.load(Ordering::Relaxed) {
        report.interrupted = true;
        print(&report);
        return EXIT_INTERRUPTED;
    }

    let links = [
        Link::new(&sc.links[0], sc.seed, 0, slot(&sc.links[0], packet_size)),
        Link::new(&sc.links[1], sc.seed, 1, slot(&sc.links[1], ack_size)),
    ];
    let [fwd, rev] = links;
    let mut dirs = [
        Direction::new("forward", fwd, a, b, packet_size),
        Direction::new("reverse", rev, b, a, packet_size),
    ];
    let drops_before = tun_drops(&sender, &receiver);
    let origin = sys::now_ns();
    let duration_ns = (sc.duration_s * 1e9) as u64;
    let done = AtomicBool::new(false);
    let realtime = cfg.realtime;
    let (stats, result) = std::thread::scope(|s| {
        let dirs = &mut dirs;
        let done = &done;
        let fwd = s.spawn(move || forward::run(dirs, origin, done, realtime));
        let result: Result<(), String> = match &cfg.workload {
            Workload::Tcp {
                cc,
                sample_interval_s,
                window_clamp_bytes,
            } => {
                let spec = tcp_bulk::TcpSpec {
                    cc: cc.clone(),
                    // The emulated packet is the IP packet: the kernel takes its TCP options
                    // (timestamps) out of this clamp itself.
                    mss: packet_size - 40,
                    duration_ns,
                    sample_interval_ns: ((sample_interval_s * 1e9) as u64).max(1_000_000),
                    window_clamp: *window_clamp_bytes,
                };
                tcp_bulk::run(&sender, &receiver, spec, origin, &STOP).map(|r| report.tcp = Some(r))
            }
            Workload::Udp {
                rate_bps,
                packet_size_bytes,
            } => {
                let spec = udp_probe::ProbeSpec {
                    rate_bps: *rate_bps,
                    packet_size: *packet_size_bytes,
                    duration_ns,
                };
                udp_probe::run(&sender, &receiver, spec, origin, &STOP).map(|(r, got)| {
                    report.udp = Some(r);
                    if let Some(d) = &cfg.log_dir {
                        let _ = write_receptions(d, &got);
                    }
                })
            }
        };
        done.store(true, Ordering::SeqCst);
        (fwd.join().expect("the forwarder does not panic"), result)
    });
    let drops_after = tun_drops(&sender, &receiver);
    report.links = dirs.iter().map(Direction::report).collect();
    if let Some(d) = &cfg.log_dir {
        for dir in &dirs {
            if let Err(e) = write_log(d, dir) {
                report.error = Some(format!("writing the fate log: {e}"));
            }
        }
    }
    let acc = accuracy(
        &report.links,
        &stats,
        max_late,
        drops_after.saturating_sub(drops_before),
    );
    report.forwarder = Some(stats);
    report.interrupted = STOP.load(Ordering::Relaxed);
    let code = match result {
        Err(e) => {
            report.error = Some(e);
            EXIT_WORKLOAD
        }
        Ok(()) if report.interrupted => EXIT_INTERRUPTED,
        Ok(()) if !acc.ok => EXIT_INACCURATE,
        Ok(()) => 0,
    };
    report.ok = code == 0;
    report.accuracy = Some(acc);
    print(&report);
    code
}

fn accuracy(
    links: &[DirectionReport],
    fwd: &ForwarderStats,
    max_late: f64,
    tun_drops: u64,
) -> Accuracy {
    let mut problems = Vec::new();
    for l in links {
        if l.lateness.packets > 0 && l.lateness.p99_s > max_late {
            problems.push(format!(
                "{}: packets written {:.0} us after their arrival time (p99), bound {:.0} us",
                l.name,
                l.lateness.p99_s * 1e6,
                max_late * 1e6
            ));
        }
        if l.write_errors > 0 {
            problems.push(format!(
                "{}: {} writes to the TUN device failed",
                l.name, l.write_errors
            ));
        }
    }
    let f = &links[0];
    let rate_error = f
        .achieved_rate_bps
        .filter(|_| f.back_to_back_pairs >= 100)
        .map(|r| r / f.configured_rate_bps - 1.0);
    if let Some(e) = rate_error {
        if e.abs() > 0.05 {
            problems.push(format!(
                "forward: the link achieved {:.4} Mb/s over back-to-back packets against {:.4} \
                 configured ({:+.1}%)",
                f.achieved_rate_bps.unwrap_or(0.0) / 1e6,
                f.configured_rate_bps / 1e6,
                e * 100.0
            ));
        }
    }
    let delay_error = (f.delivered > 0)
        .then(|| f.actual_delay_mean_s / f.model_delay_mean_s - 1.0)
        .filter(|x| x.is_finite());
    if fwd.cpu_fraction > 0.5 {
        problems.push(format!(
            "the forwarder used {:.0}% of a core: too close to saturation to trust its timing",
            fwd.cpu_fraction * 100.0
        ));
    }
    if tun_drops > 0 {
        problems.push(format!(
            "{tun_drops} packets were dropped at a TUN device before the forwarder read them"
        ));
    }
    Accuracy {
        ok: problems.is_empty(),
        problems,
        max_lateness_s: max_late,
        rate_error,
        delay_error,
        cpu_fraction: fwd.cpu_fraction,
        cpu_headroom: 1.0 - fwd.cpu_fraction,
        tun_drops,
    }
}

/// Transmit drops of both TUN devices (/proc/thread-self/net/dev seen from each end).
fn tun_drops(sender: &End, receiver: &End) -> u64 {
    let read = || -> u64 {
        let text = std::fs::read_to_string("/proc/thread-self/net/dev").unwrap_or_default();
        text.lines()
            .filter_map(|l| l.trim_start().strip_prefix("ltcp"))
            .filter_map(|l| l.split_once(':'))
            .filter_map(|(_, v)| v.split_whitespace().nth(11)?.parse::<u64>().ok())
            .sum()
    };
    let a = sender.run(read).recv().unwrap_or(0);
    let b = receiver.run(read).recv().unwrap_or(0);
    a + b
}

/// Timer precision and the path's packet capacity, measured before the run on an instant
/// link (no rate, no delay, no loss).
fn preflight(
    sender: &End,
    receiver: &End,
    a: i32,
    b: i32,
    packet_size: u32,
    needed_pps: f64,
    realtime: bool,
) -> Result<Preflight, String> {
    let timer = std::thread::spawn(move || {
        if realtime {
            let _ = sys::set_realtime(50);
        }
        let _ = sys::set_timer_slack_ns(1_000);
        let mut late: Vec<u64> = (0..200)
            .map(|_| {
                let at = sys::now_ns() + 500_000;
                sys::sleep_until(at);
                sys::now_ns() - at
            })
            .collect();
        late.sort_unstable();
        (late[197] as f64 * 1e-9, late[199] as f64 * 1e-9)
    })
    .join()
    .map_err(|_| "the timer probe panicked".to_string())?;
    let instant: LinkConfig = serde_json::from_value(serde_json::json!({
        "rate_bps": 1e12, "delay": {"kind": "fixed", "delay_s": 0.0},
        "queue": {"kind": "droptail", "packets": 1_000_000}}))
    .expect("a valid link");
    let mut dirs = [
        Direction::new(
            "forward",
            Link::new(&instant, 0, 0, Dur(1)),
            a,
            b,
            packet_size,
        ),
        Direction::new(
            "reverse",
            Link::new(&instant, 0, 1, Dur(1)),
            b,
            a,
            packet_size,
        ),
    ];
    let offered = 3.0 * needed_pps;
    let origin = sys::now_ns();
    let done = AtomicBool::new(false);
    let probe = std::thread::scope(|s| {
        let (dirs, done) = (&mut dirs, &done);
        let f = s.spawn(move || forward::run(dirs, origin, done, realtime));
        let spec = udp_probe::ProbeSpec {
            rate_bps: offered * 8.0 * f64::from(packet_size),
            packet_size,
            duration_ns: 300_000_000,
        };
        let r = udp_probe::run(sender, receiver, spec, origin, &STOP);
        done.store(true, Ordering::SeqCst);
        let _ = f.join();
        r
    })?;
    // Datagrams carried per second, from the first send to the last reception (each went
    // through both TUN devices once).
    let got = &probe.1;
    let span = match (got.iter().map(|r| r.1).min(), got.iter().map(|r| r.2).max()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 * 1e-9,
        _ => f64::INFINITY,
    };
    let carried = got.len() as f64 / span;
    Ok(Preflight {
        timer_late_p99_s: timer.0,
        timer_late_max_s: timer.1,
        offered_pps: offered,
        carried_pps: carried,
        needed_pps,
    })
}

fn write_log(dir: &str, d: &Direction) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/{}.csv", d.name))?);
    writeln!(
        f,
        "t_in_ns,kind,size,seq,segment,retransmission,outcome,start_ns,tx_end_ns,due_ns,sent_ns"
    )?;
    for r in &d.log {
        let outcome = serde_json::to_value(r.outcome).expect("serialisable");
        writeln!(
            f,
            "{},{},{},{},{},{},{},{},{},{},{}",
            r.t_in,
            r.packet.kind.name(),
            r.packet.size,
            r.packet.seq,
            r.packet.segment.map_or(-1, |s| s as i64),
            u8::from(r.packet.retransmission),
            outcome.as_str().unwrap_or("?"),
            r.start,
            r.tx_end,
            r.due,
            r.sent
        )?;
    }
    f.flush()
}

fn write_receptions(dir: &str, got: &[udp_probe::Reception]) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/probe.csv"))?);
    writeln!(f, "seq,sent_ns,received_ns")?;
    for (seq, s, r) in got {
        writeln!(f, "{seq},{s},{r}")?;
    }
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(json: serde_json::Value) -> LinkConfig {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_lateness_bound_is_a_share_of_half_the_shortest_round_trip() {
        // 8 Mb/s: a 1000 B packet takes 1 ms.
        let fixed = |d: f64| {
            link(serde_json::json!({"rate_bps": 8e6, "delay": {"kind": "fixed", "delay_s": d}}))
        };
        // RTT 40 ms split evenly: the one-way delay, as before semi-Markov paths were bounded.
        let b = bound_delay_s(&[fixed(0.02), fixed(0.02)], 1000);
        assert!((b - 0.021).abs() < 1e-12, "{b}");
        // Paper 001's delay: the round trip (40 ms or 320 ms) on the data link, none back;
        // bounded by its shortest state's half round trip, not by 40 ms one way.
        let sm = link(
            serde_json::json!({"rate_bps": 8e6, "delay": {"kind": "semi_markov",
            "delay_s": [0.32, 0.04], "h": [[0.0, 1.0], [1.0, 0.0]],
            "excess_mean_s": [3.0, 3.0]}}),
        );
        let b = bound_delay_s(&[sm, fixed(0.0)], 1000);
        assert!((b - 0.021).abs() < 1e-12, "{b}");
    }
}
