//! The Linux system calls the emulator needs, each wrapped to return `io::Result`: clocks,
//! network namespaces, TUN devices and their addresses, polling, scheduling, socket options.

use std::ffi::CString;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn clock(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; these clocks always exist on Linux.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC in ns: one clock for every namespace and thread of the process, so a
/// sender's timestamp and a receiver's are comparable.
pub fn now_ns() -> u64 {
    clock(libc::CLOCK_MONOTONIC)
}

/// CPU time the calling thread has used, in ns.
pub fn thread_cpu_ns() -> u64 {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Sleeps until `deadline_ns` on CLOCK_MONOTONIC (absolute, so no drift accumulates).
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: ts is a valid timespec.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if r != libc::EINTR {
            return;
        }
    }
}

/// Moves the calling thread (only it) into a new, anonymous network namespace. Nothing
/// names it, so nothing outlives the process: when its last thread, TUN device and socket
/// are gone (exit, a crash, SIGKILL) the kernel removes it with its devices.
pub fn unshare_net() -> io::Result<()> {
    // SAFETY: plain syscall.
    check(unsafe { libc::unshare(libc::CLONE_NEWNET) }).map(|_| ())
}

const IFNAMSIZ: usize = 16;
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq`: a name and a 24-byte union (an address, flags, an MTU or a queue length).
#[repr(C)]
struct IfReq {
    name: [u8; IFNAMSIZ],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> IfReq {
        let mut r = IfReq {
            name: [0; IFNAMSIZ],
            data: [0; 24],
        };
        let b = name.as_bytes();
        r.name[..b.len().min(IFNAMSIZ - 1)].copy_from_slice(&b[..b.len().min(IFNAMSIZ - 1)]);
        r
    }
    fn set_short(&mut self, x: libc::c_short) {
        self.data[..2].copy_from_slice(&x.to_ne_bytes());
    }
    fn short(&self) -> libc::c_short {
        libc::c_short::from_ne_bytes([self.data[0], self.data[1]])
    }
    fn set_int(&mut self, x: libc::c_int) {
        self.data[..4].copy_from_slice(&x.to_ne_bytes());
    }
    fn set_addr(&mut self, a: Ipv4Addr) {
        // struct sockaddr_in: family, port, address.
        self.data = [0; 24];
        self.data[..2].copy_from_slice(&(libc::AF_INET as libc::sa_family_t).to_ne_bytes());
        self.data[4..8].copy_from_slice(&a.octets());
    }
}

fn ioctl(fd: RawFd, req: libc::c_ulong, r: &mut IfReq) -> io::Result<()> {
    // SAFETY: r is a valid, correctly sized struct ifreq for these requests.
    check(unsafe { libc::ioctl(fd, req as _, r as *mut IfReq) }).map(|_| ())
}

/// Creates TUN device `name` (IP packets, no packet-information header) in the calling
/// thread's network namespace; the device lives as long as the returned descriptor.
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    let path = CString::new("/dev/net/tun").expect("no NUL");
    // SAFETY: path is a valid C string.
    let fd = check(unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) })?;
    // SAFETY: fd was just opened and is owned here.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut r = IfReq::new(name);
    r.set_short(IFF_TUN | IFF_NO_PI);
    ioctl(fd.as_raw_fd(), TUNSETIFF, &mut r)?;
    Ok(fd)
}

/// A socket to configure interfaces with, in the calling thread's namespace.
fn control_socket() -> io::Result<OwnedFd> {
    // SAFETY: plain syscall.
    let fd =
        check(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: fd was just created and is owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn set_up(s: RawFd, name: &str) -> io::Result<()> {
    let mut r = IfReq::new(name);
    ioctl(s, libc::SIOCGIFFLAGS as libc::c_ulong, &mut r)?;
    r.set_short(r.short() | (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short);
    ioctl(s, libc::SIOCSIFFLAGS as libc::c_ulong, &mut r)
}

/// Gives point-to-point interface `name` (in the calling thread's namespace) the address
/// `addr` with the other end at `peer` (the kernel adds the host route to it), an MTU and
/// a transmit queue length, and brings it and the loopback up.
pub fn configure_p2p(
    name: &str,
    addr: Ipv4Addr,
    peer: Ipv4Addr,
    mtu: u32,
    txqlen: u32,
) -> io::Result<()> {
    let s = control_socket()?;
    let s = s.as_raw_fd();
    let mut r = IfReq::new(name);
    r.set_addr(addr);
    ioctl(s, libc::SIOCSIFADDR as libc::c_ulong, &mut r)?;
    let mut r = IfReq::new(name);
    r.set_addr(Ipv4Addr::new(255, 255, 255, 255));
    ioctl(s, libc::SIOCSIFNETMASK as libc::c_ulong, &mut r)?;
    let mut r = IfReq::new(name);
    r.set_addr(peer);
    ioctl(s, libc::SIOCSIFDSTADDR as libc::c_ulong, &mut r)?;
    let mut r = IfReq::new(name);
    r.set_int(mtu as libc::c_int);
    ioctl(s, libc::SIOCSIFMTU as libc::c_ulong, &mut r)?;
    let mut r = IfReq::new(name);
    r.set_int(txqlen as libc::c_int);
    ioctl(s, libc::SIOCSIFTXQLEN as libc::c_ulong, &mut r)?;
    set_up(s, name)?;
    set_up(s, "lo")
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain fcntl on a descriptor we own.
    let flags = check(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    check(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) }).map(|_| ())
}

/// Runs the calling thread under SCHED_FIFO at `priority`: the forwarder sleeps most of
/// the time, and when a departure is due it must not wait behind the other sessions'
/// compilers on a shared machine.
pub fn set_realtime(priority: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: p is valid; pid 0 is the calling thread.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) }).map(|_| ())
}

/// The calling thread's timer slack: how late the kernel may fire its timers to batch
/// wake-ups (50 us by default, as much as a packet time at 240 Mb/s).
pub fn set_timer_slack_ns(ns: u64) -> io::Result<()> {
    // SAFETY: plain prctl.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) }).map(|_| ())
}

/// Waits until one of `fds` is readable or `timeout_ns` passes (None: no timeout); which
/// descriptors are readable.
pub fn poll_readable(fds: &[RawFd], timeout_ns: Option<u64>, ready: &mut [bool]) -> io::Result<()> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = timeout_ns.map(|t| libc::timespec {
        tv_sec: (t / 1_000_000_000) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    });
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: p and ts are valid for the call.
    let r = unsafe {
        libc::ppoll(
            p.as_mut_ptr(),
            p.len() as libc::nfds_t,
            tsp,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            ready.fill(false);
            return Ok(());
        }
        return Err(e);
    }
    for (x, q) in ready.iter_mut().zip(&p) {
        *x = q.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0;
    }
    Ok(())
}

/// One read; `Ok(None)` when nothing is waiting on a non-blocking descriptor.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: buf is valid for buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for buf.len() bytes.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

pub fn setsockopt_bytes(fd: RawFd, level: i32, opt: i32, value: &[u8]) -> io::Result<()> {
    // SAFETY: value is valid for its length.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            value.as_ptr().cast(),
            value.len() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

pub fn setsockopt_int(fd: RawFd, level: i32, opt: i32, value: i32) -> io::Result<()> {
    setsockopt_bytes(fd, level, opt, &value.to_ne_bytes())
}

/// A socket option whose value is a plain-old-data struct (`linger`, `timeval`).
pub fn setsockopt_struct<T: Copy>(fd: RawFd, level: i32, opt: i32, value: &T) -> io::Result<()> {
    // SAFETY: T is plain old data, valid for size_of::<T>() bytes.
    let bytes = unsafe {
        std::slice::from_raw_parts((value as *const T).cast::<u8>(), std::mem::size_of::<T>())
    };
    setsockopt_bytes(fd, level, opt, bytes)
}

/// An error a blocking call with a timeout returns when nothing happened yet.
pub fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Reads a socket option into `out` (a plain-old-data struct); the bytes the kernel wrote.
pub fn getsockopt_into<T>(fd: RawFd, level: i32, opt: i32, out: &mut T) -> io::Result<usize> {
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: out is valid for size_of::<T>() bytes and T is plain old data.
    check(unsafe { libc::getsockopt(fd, level, opt, (out as *mut T).cast(), &mut len) })?;
    Ok(len as usize)
}

pub fn is_root() -> bool {
    // SAFETY: plain syscall.
    unsafe { libc::geteuid() == 0 }
}
