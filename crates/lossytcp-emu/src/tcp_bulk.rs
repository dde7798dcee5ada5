//! The kernel's TCP: a bulk transfer from the sender's namespace to the receiver's, the
//! congestion control chosen per socket (TCP_CONGESTION), the segment size clamped to the
//! emulated packet size (TCP_MAXSEG), TCP_INFO sampled at a fixed interval, and the
//! namespace's TCP counters (/proc/thread-self/net/netstat and snmp: the namespace holds
//! this one connection, so they are its own) read before and after.

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::netns::{await_listening, End, RECEIVER_ADDR};
use crate::sys;

const PORT: u16 = 5001;

/// `struct tcp_info` of linux/tcp.h, as far as `tcpi_snd_wnd` (Linux 5.4); older kernels
/// fill a prefix and the rest reads as zero.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub flags: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
}

fn tcp_info(fd: i32) -> io::Result<TcpInfo> {
    let mut i = TcpInfo::default();
    sys::getsockopt_into(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut i)?;
    Ok(i)
}

/// TCP_INFO samples, one column per field (engine-like names and units: segments, s, b/s).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Samples {
    pub t_s: Vec<f64>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt_s: Vec<f64>,
    pub rttvar_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    pub min_rtt_s: Vec<f64>,
    pub unacked: Vec<u32>,
    pub lost: Vec<u32>,
    pub total_retrans: Vec<u32>,
    pub data_segs_out: Vec<u32>,
    pub delivered: Vec<u32>,
    pub delivery_rate_bps: Vec<f64>,
    pub pacing_rate_bps: Vec<f64>,
    pub ca_state: Vec<u8>,
    /// Bytes the receiver had read by then.
    pub bytes_received: Vec<u64>,
}

impl Samples {
    fn push(&mut self, t_s: f64, i: &TcpInfo, received: u64) {
        self.t_s.push(t_s);
        self.cwnd.push(i.snd_cwnd);
        self.ssthresh.push(i.snd_ssthresh);
        self.srtt_s.push(f64::from(i.rtt) * 1e-6);
        self.rttvar_s.push(f64::from(i.rttvar) * 1e-6);
        self.rto_s.push(f64::from(i.rto) * 1e-6);
        self.min_rtt_s.push(f64::from(i.min_rtt) * 1e-6);
        self.unacked.push(i.unacked);
        self.lost.push(i.lost);
        self.total_retrans.push(i.total_retrans);
        self.data_segs_out.push(i.data_segs_out);
        self.delivered.push(i.delivered);
        self.delivery_rate_bps.push(i.delivery_rate as f64 * 8.0);
        self.pacing_rate_bps.push(i.pacing_rate as f64 * 8.0);
        self.ca_state.push(i.ca_state);
        self.bytes_received.push(received);
    }
}

/// The kernel's last word on the connection (at the end of the transfer).
#[derive(Clone, Debug, Serialize)]
pub struct Final {
    pub snd_mss: u32,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_s: f64,
    pub min_rtt_s: f64,
    pub rto_s: f64,
    pub total_retrans: u32,
    pub data_segs_out: u32,
    pub segs_out: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub bytes_acked: u64,
    pub delivered: u32,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    /// TCPI_OPT_* bits: 1 timestamps, 2 SACK, 4 window scaling, 8 ECN.
    pub options: u8,
}

impl Final {
    fn of(i: &TcpInfo) -> Final {
        Final {
            snd_mss: i.snd_mss,
            cwnd: i.snd_cwnd,
            ssthresh: i.snd_ssthresh,
            srtt_s: f64::from(i.rtt) * 1e-6,
            min_rtt_s: f64::from(i.min_rtt) * 1e-6,
            rto_s: f64::from(i.rto) * 1e-6,
            total_retrans: i.total_retrans,
            data_segs_out: i.data_segs_out,
            segs_out: i.segs_out,
            bytes_sent: i.bytes_sent,
            bytes_retrans: i.bytes_retrans,
            bytes_acked: i.bytes_acked,
            delivered: i.delivered,
            dsack_dups: i.dsack_dups,
            reord_seen: i.reord_seen,
            options: i.options,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TcpReport {
    pub cc: String,
    pub mss_clamp: u32,
    /// When the handshake completed (the transfer's time zero), s since the origin.
    pub t0_s: f64,
    pub connect_s: f64,
    pub duration_s: f64,
    pub bytes_written: u64,
    /// Bytes the receiver read within `duration_s` of t0, and in all.
    pub bytes_received: u64,
    pub bytes_received_total: u64,
    pub final_info: Final,
    /// Changes of the sender namespace's TCP counters over the transfer
    /// ("TcpExt.TCPTimeouts", "Tcp.RetransSegs", ...); zero changes left out.
    pub counters: BTreeMap<String, i64>,
    pub samples: Samples,
}

/// The sender namespace's counters: /proc/thread-self/net/netstat and snmp, "Group.Name".
fn counters() -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for file in ["netstat", "snmp"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/thread-self/net/{file}")) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            let [names, values] = pair else { continue };
            let (g, names) = names.split_once(':').unwrap_or(("", ""));
            let (_, values) = values.split_once(':').unwrap_or(("", ""));
            for (n, x) in names.split_whitespace().zip(values.split_whitespace()) {
                if let Ok(x) = x.parse::<i64>() {
                    out.insert(format!("{g}.{n}"), x);
                }
            }
        }
    }
    out
}

pub struct TcpSpec {
    pub cc: String,
    pub mss: u32,
    pub duration_ns: u64,
    pub sample_interval_ns: u64,
    /// TCP_WINDOW_CLAMP on the receiver, bytes.
    pub window_clamp: Option<u32>,
}

/// Runs the transfer; `origin` is the forwarder's time zero, `stop` ends it early (Ctrl-C).
pub fn run(
    sender: &End,
    receiver: &End,
    spec: TcpSpec,
    origin: u64,
    stop: &'static AtomicBool,
) -> Result<TcpReport, String> {
    let window_clamp = spec.window_clamp;
    let received = Arc::new(AtomicU64::new(0));
    let deadline = Arc::new(AtomicU64::new(u64::MAX));
    // The receiver: listening before the sender connects.
    let (listening_tx, listening) = std::sync::mpsc::channel();
    let rx = {
        let (received, deadline) = (received.clone(), deadline.clone());
        receiver.run(move || -> Result<(u64, u64), String> {
            let l = TcpListener::bind(SocketAddrV4::new(RECEIVER_ADDR, PORT))
                .map_err(|e| format!("receiver: bind: {e}"))?;
            if let Some(w) = window_clamp {
                // Inherited by the accepted connection: its SYN-ACK already advertises it.
                sys::setsockopt_int(
                    l.as_raw_fd(),
                    libc::IPPROTO_TCP,
                    libc::TCP_WINDOW_CLAMP,
                    w as i32,
                )
                .map_err(|e| format!("receiver: TCP_WINDOW_CLAMP {w}: {e}"))?;
            }
            let _ = listening_tx.send(());
            let (mut s, _) = l.accept().map_err(|e| format!("receiver: accept: {e}"))?;
            s.set_read_timeout(Some(Duration::from_millis(50))).ok();
            let mut buf = vec![0u8; 1 << 18];
            let (mut total, mut in_time) = (0u64, 0u64);
            loop {
                use std::io::Read;
                match s.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        total += n as u64;
                        received.store(total, Ordering::Relaxed);
                        if sys::now_ns() <= deadline.load(Ordering::Relaxed) {
                            in_time = total;
                        }
                    }
                    Err(e) if sys::is_timeout(&e) => {}
                    Err(_) => break,
                }
                if sys::now_ns()
                    > deadline
                        .load(Ordering::Relaxed)
                        .saturating_add(3_000_000_000)
                {
                    break;
                }
            }
            Ok((in_time, total))
        })
    };
    await_listening(&listening, "receiver")?;
    let TcpSpec {
        cc,
        mss,
        duration_ns,
        sample_interval_ns,
        ..
    } = spec;
    let cc2 = cc.clone();
    let (received2, deadline2) = (received.clone(), deadline.clone());
    let tx = sender.run(move || -> Result<(TcpReport, u64), String> {
        let sock = socket_for(&cc2, mss)?;
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: PORT.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(RECEIVER_ADDR).to_be(),
            },
            sin_zero: [0; 8],
        };
        let start = sys::now_ns();
        // SAFETY: addr is a valid sockaddr_in.
        let r = unsafe {
            libc::connect(
                sock.as_raw_fd(),
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        if r < 0 {
            return Err(format!("sender: connect: {}", io::Error::last_os_error()));
        }
        let begin = sys::now_ns();
        send_timeout(sock.as_raw_fd())?;
        let end = begin + duration_ns;
        deadline2.store(end, Ordering::Relaxed);
        let before = counters();
        let fd = sock.as_raw_fd();
        // The sampler: TCP_INFO at fixed instants from t0 (absolute deadlines, no drift).
        let done = Arc::new(AtomicBool::new(false));
        // The socket is closed under this lock (true once it is): a sample is never read
        // from a closed, or reused, descriptor.
        let closed = Arc::new(Mutex::new(false));
        let sampler = {
            let (done, closed, received) = (done.clone(), closed.clone(), received2.clone());
            std::thread::spawn(move || {
                let mut s = Samples::default();
                let mut k = 0u64;
                loop {
                    let at = begin + k * sample_interval_ns;
                    if at > end || done.load(Ordering::Relaxed) {
                        break;
                    }
                    sys::sleep_until(at);
                    let gate = closed.lock().unwrap_or_else(|e| e.into_inner());
                    if *gate {
                        break;
                    }
                    if let Ok(i) = tcp_info(fd) {
                        s.push(
                            (at - begin) as f64 * 1e-9,
                            &i,
                            received.load(Ordering::Relaxed),
                        );
                    }
                    drop(gate);
                    k += 1;
                }
                s
            })
        };
        let buf = vec![0x5au8; 1 << 16];
        let mut written = 0u64;
        while sys::now_ns() < end && !stop.load(Ordering::Relaxed) {
            // SAFETY: buf is valid; MSG_NOSIGNAL: a reset is an error, not SIGPIPE.
            let n = unsafe { libc::send(fd, buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL) };
            if n > 0 {
                written += n as u64;
            } else if n < 0 {
                let e = io::Error::last_os_error();
                if !matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) {
                    done.store(true, Ordering::Relaxed);
                    return Err(format!("sender: send: {e}"));
                }
            }
        }
        done.store(true, Ordering::Relaxed);
        // The final TCP_INFO and the close back to back: the kernel sends until the socket is
        // gone and every segment it sends crosses the emulator, so the counts of a TCP_INFO
        // read earlier (after the sampler's last sleep and the netstat read, up to 10 ms and
        // more on a loaded machine) missed the segments of that wait, which the fate log has.
        let info = {
            let mut gate = closed.lock().unwrap_or_else(|e| e.into_inner());
            let info = tcp_info(fd);
            // An abortive close (RST): the run ends now, not after a FIN exchange through a
            // lossy channel.
            let linger = libc::linger {
                l_onoff: 1,
                l_linger: 0,
            };
            let _ = sys::setsockopt_struct(fd, libc::SOL_SOCKET, libc::SO_LINGER, &linger);
            drop(sock);
            *gate = true;
            info
        };
        let samples = sampler.join().unwrap_or_default();
        let info = info.map_err(|e| format!("sender: TCP_INFO: {e}"))?;
        let after = counters();
        let delta = after
            .iter()
            .filter_map(|(k, &b)| {
                let d = b - before.get(k).copied().unwrap_or(0);
                (d != 0).then(|| (k.clone(), d))
            })
            .collect();
        Ok((
            TcpReport {
                cc: cc2,
                mss_clamp: mss,
                t0_s: (begin - origin) as f64 * 1e-9,
                connect_s: (begin - start) as f64 * 1e-9,
                duration_s: duration_ns as f64 * 1e-9,
                bytes_written: written,
                bytes_received: 0,
                bytes_received_total: 0,
                final_info: Final::of(&info),
                counters: delta,
                samples,
            },
            begin,
        ))
    });
    let sent = tx
        .recv()
        .map_err(|_| "sender: the namespace thread died".to_string())?;
    let (mut report, _) = match sent {
        Ok(x) => x,
        Err(e) => {
            // Unblock the receiver before giving up.
            deadline.store(0, Ordering::Relaxed);
            let _ = TcpStream::connect_timeout(
                &SocketAddrV4::new(RECEIVER_ADDR, PORT).into(),
                Duration::from_millis(100),
            );
            return Err(e);
        }
    };
    let (in_time, total) = rx
        .recv()
        .map_err(|_| "receiver: the namespace thread died".to_string())??;
    report.bytes_received = in_time;
    report.bytes_received_total = total;
    Ok(report)
}

/// A TCP socket with congestion control `cc` and the maximum segment size clamped to `mss`.
fn socket_for(cc: &str, mss: u32) -> Result<std::os::fd::OwnedFd, String> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain syscall.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(format!("sender: socket: {}", io::Error::last_os_error()));
    }
    // SAFETY: fd was just created and is owned here.
    let sock = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    sys::setsockopt_bytes(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_bytes()).map_err(
        |e| {
            let avail =
                std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
                    .unwrap_or_default();
            format!(
                "congestion control '{cc}' cannot be set ({e}); this kernel offers: {}",
                avail.trim()
            )
        },
    )?;
    sys::setsockopt_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, mss as i32)
        .map_err(|e| format!("sender: TCP_MAXSEG {mss}: {e}"))?;
    Ok(sock)
}

/// Blocking sends give up every 50 ms, so that the end of the transfer is on time (set
/// after the handshake: before it, this would also bound connect()).
fn send_timeout(fd: i32) -> Result<(), String> {
    let tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 50_000,
    };
    sys::setsockopt_struct(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, &tv)
        .map_err(|e| format!("sender: SO_SNDTIMEO: {e}"))
}
