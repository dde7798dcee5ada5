//! lossytcp-sim: a packet-level discrete-event simulator of TCP over lossy, bursty,
//! delay-varying links. Pure Rust; the Python bindings live in `lossytcp-py`.
//!
//! A run is a [`config::Scenario`] (links, flows, seed, duration) turned into a
//! [`metrics::RunReport`] by [`sim::run`]. The same scenario and seed give bit-identical
//! reports on every machine.

pub mod app;
pub mod channel;
pub mod config;
pub mod delay;
pub mod frame;
pub mod limits;
pub mod link;
pub mod metrics;
pub mod packet;
pub mod queue;
pub mod rng;
pub mod sched;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod topology;

pub use config::Scenario;
pub use metrics::RunReport;
pub use sim::{run, run_polled, RunError};
