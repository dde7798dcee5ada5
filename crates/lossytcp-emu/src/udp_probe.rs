//! The emulator measuring itself: datagrams at a constant rate from the sender's namespace
//! to the receiver's, each carrying its sequence number and send time. Above the link rate
//! they show the rate the link achieves; below it, the one-way delay (one clock for both
//! namespaces) and the channel's loss pattern, packet by packet.

use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use crate::netns::{await_listening, End, RECEIVER_ADDR};
use crate::sys;
use crate::wire::PROBE_HEADER;

const PORT: u16 = 5002;
/// IPv4 and UDP headers.
const HEADERS: u32 = 28;

pub struct ProbeSpec {
    /// IP-level rate and packet size.
    pub rate_bps: f64,
    pub packet_size: u32,
    pub duration_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    pub rate_bps: f64,
    pub packet_size_bytes: u32,
    pub sent: u64,
    pub send_errors: u64,
    pub received: u64,
    /// When the first datagram was sent, s since the origin.
    pub t0_s: f64,
}

/// One received datagram: (sequence number, send time, receive time), ns since the origin.
pub type Reception = (u64, u64, u64);

pub fn run(
    sender: &End,
    receiver: &End,
    spec: ProbeSpec,
    origin: u64,
    stop: &'static AtomicBool,
) -> Result<(ProbeReport, Vec<Reception>), String> {
    if spec.packet_size < HEADERS + PROBE_HEADER as u32 {
        return Err(format!(
            "probe packets of {} bytes cannot hold the probe's header ({} bytes at least)",
            spec.packet_size,
            HEADERS + PROBE_HEADER as u32
        ));
    }
    let (ready_tx, ready) = std::sync::mpsc::channel();
    // When the sender has sent its last datagram (0: not yet).
    let sender_done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let done_rx = sender_done.clone();
    let rx = receiver.run(move || -> Result<Vec<Reception>, String> {
        let s = UdpSocket::bind(SocketAddrV4::new(RECEIVER_ADDR, PORT))
            .map_err(|e| format!("probe receiver: bind: {e}"))?;
        let _ = sys::setsockopt_int(
            std::os::fd::AsRawFd::as_raw_fd(&s),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            16 << 20,
        );
        s.set_read_timeout(Some(Duration::from_millis(50))).ok();
        let _ = ready_tx.send(());
        let mut out = Vec::new();
        let mut buf = vec![0u8; 65_536];
        let mut last = sys::now_ns();
        // Until the path is quiet: the sender has stopped and nothing has arrived for a
        // second (a queue drains back to back, a propagation delay is under a second).
        loop {
            let done = done_rx.load(Ordering::Relaxed);
            if done > 0 && sys::now_ns() > last.max(done) + 1_000_000_000 {
                break;
            }
            match s.recv(&mut buf) {
                Ok(n) if n >= PROBE_HEADER => {
                    last = sys::now_ns();
                    let t = last - origin;
                    let seq = u64::from_be_bytes(buf[..8].try_into().expect("8 bytes"));
                    let sent = u64::from_be_bytes(buf[8..16].try_into().expect("8 bytes"));
                    out.push((seq, sent, t));
                }
                Ok(_) => {}
                Err(e) if sys::is_timeout(&e) => {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Err(e) => return Err(format!("probe receiver: {e}")),
            }
        }
        Ok(out)
    });
    await_listening(&ready, "probe receiver")?;
    let ProbeSpec {
        rate_bps,
        packet_size,
        duration_ns,
    } = spec;
    let tx = sender.run(move || -> Result<ProbeReport, String> {
        // However the sender ends, the receiver learns it has.
        let _done = Done(sender_done);
        let s = UdpSocket::bind("0.0.0.0:0").map_err(|e| format!("probe sender: bind: {e}"))?;
        s.connect(SocketAddrV4::new(RECEIVER_ADDR, PORT))
            .map_err(|e| format!("probe sender: connect: {e}"))?;
        let gap = (f64::from(packet_size) * 8.0 / rate_bps * 1e9) as u64;
        let mut buf = vec![0u8; (packet_size - HEADERS) as usize];
        let begin = sys::now_ns();
        let end = begin + duration_ns;
        let (mut sent, mut errors) = (0u64, 0u64);
        let mut next = begin;
        while next < end && sys::now_ns() < end && !stop.load(Ordering::Relaxed) {
            // Every datagram due by now, then sleep to the next (absolute times: no drift).
            // A sender that cannot keep up ends on time all the same, its rate short.
            while next <= sys::now_ns() && next < end && sys::now_ns() < end {
                buf[..8].copy_from_slice(&sent.to_be_bytes());
                buf[8..16].copy_from_slice(&(sys::now_ns() - origin).to_be_bytes());
                match s.send(&buf) {
                    Ok(_) => sent += 1,
                    Err(_) => {
                        errors += 1;
                        sent += 1;
                    }
                }
                next += gap.max(1);
            }
            sys::sleep_until(next);
        }
        Ok(ProbeReport {
            rate_bps,
            packet_size_bytes: packet_size,
            sent,
            send_errors: errors,
            received: 0,
            t0_s: (begin - origin) as f64 * 1e-9,
        })
    });
    let mut report = tx
        .recv()
        .map_err(|_| "probe sender: the namespace thread died".to_string())??;
    let got = rx
        .recv()
        .map_err(|_| "probe receiver: the namespace thread died".to_string())??;
    report.received = got.len() as u64;
    Ok((report, got))
}

/// Marks the sender done when dropped.
struct Done(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.store(sys::now_ns(), Ordering::Relaxed);
    }
}
