//! The two ends of the emulated path: each a thread in its own new network namespace with
//! a TUN device (10.77.0.1 for the sender's end, 10.77.0.2 for the receiver's), running
//! whatever work it is handed, so that the sockets that work creates live in its namespace.
//!
//! The namespaces are anonymous (`unshare(CLONE_NEWNET)` on the thread, nothing mounted
//! under /var/run/netns): the kernel removes each, with its TUN device and sockets, when
//! its last reference goes, so an exit, Ctrl-C, a panic or SIGKILL all leave nothing behind
//! and there are no stale namespaces to sweep.

use std::io;
use std::net::Ipv4Addr;
use std::os::fd::OwnedFd;
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::sys;

pub const SENDER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
pub const RECEIVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);

type Job = Box<dyn FnOnce() + Send>;

/// A thread living in its own network namespace.
pub struct End {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl End {
    /// Starts the thread, moves it into a new namespace and creates its TUN device
    /// `name` there with address `addr`, peer `peer` and MTU `mtu`, and writes `sysctls`
    /// (dotted names, `net.ipv4.tcp_timestamps`) in that namespace; the device's descriptor.
    pub fn spawn(
        name: &str,
        addr: Ipv4Addr,
        peer: Ipv4Addr,
        mtu: u32,
        sysctls: &[(String, String)],
    ) -> io::Result<(End, OwnedFd)> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel::<io::Result<OwnedFd>>();
        let dev = name.to_string();
        let sysctls = sysctls.to_vec();
        let thread = std::thread::Builder::new()
            .name(format!("ns-{name}"))
            .spawn(move || {
                let setup = (|| {
                    sys::unshare_net()?;
                    let fd = sys::open_tun(&dev)?;
                    // Room for a window's worth of packets between the kernel and the
                    // forwarder; IPv6 (router solicitations) off, best effort.
                    sys::configure_p2p(&dev, addr, peer, mtu, 10_000)?;
                    let _ =
                        std::fs::write(format!("/proc/sys/net/ipv6/conf/{dev}/disable_ipv6"), "1");
                    for (k, v) in &sysctls {
                        write_sysctl(k, v)?;
                    }
                    Ok(fd)
                })();
                let ok = setup.is_ok();
                let _ = ready_tx.send(setup);
                if ok {
                    for job in rx {
                        job();
                    }
                }
            })?;
        let fd = ready
            .recv()
            .map_err(|_| io::Error::other("the namespace thread died during set-up"))??;
        Ok((
            End {
                jobs: Some(jobs),
                thread: Some(thread),
            },
            fd,
        ))
    }

    /// Runs `f` on this end's thread (in its namespace); its result when it is done.
    pub fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> mpsc::Receiver<R> {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.jobs
            .as_ref()
            .expect("jobs until dropped")
            .send(job)
            .expect("the namespace thread runs until dropped");
        rx
    }
}

/// Writes the sysctl `name` (dotted, under `net.`: the namespace's own) as `value` in the
/// calling thread's namespace and reads it back; an error names the setting.
pub fn write_sysctl(name: &str, value: &str) -> io::Result<()> {
    if !name.starts_with("net.") || name.contains("..") || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("sysctl {name}: only a network namespace's own settings (net.*)"),
        ));
    }
    let path = format!("/proc/sys/{}", name.replace('.', "/"));
    let fail = |e: io::Error| io::Error::new(e.kind(), format!("sysctl {name} = {value}: {e}"));
    std::fs::write(&path, value).map_err(fail)?;
    let got = std::fs::read_to_string(&path).map_err(fail)?;
    // The kernel prints vectors tab-separated; compare the words.
    if got.split_whitespace().ne(value.split_whitespace()) {
        return Err(fail(io::Error::other(format!("reads back {}", got.trim()))));
    }
    Ok(())
}

/// Waits (5 s at most) for a receiving job's word that it listens.
pub fn await_listening(ready: &mpsc::Receiver<()>, who: &str) -> Result<(), String> {
    ready
        .recv_timeout(std::time::Duration::from_secs(5))
        .map_err(|_| format!("{who}: not listening"))
}

impl Drop for End {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_sysctl;

    #[test]
    fn only_a_namespaces_own_sysctls_are_written() {
        // Refused before any file is touched: the host's settings stay out of reach.
        for name in [
            "kernel.panic",
            "net/../kernel/panic",
            "net..ipv4",
            "vm.swappiness",
        ] {
            let e = write_sysctl(name, "1").unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{name}");
            assert!(e.to_string().contains(name), "{e}");
        }
    }
}
