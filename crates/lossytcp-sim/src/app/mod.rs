//! Applications that generate load: finite TCP transfers on Poisson arrivals
//! (`transfers.rs`) and UDP sources (`udp.rs`). Pure logic driven by the simulator with its
//! own random streams, so each generator can be tested on its statistics alone.

pub mod transfers;
pub mod udp;

pub use transfers::{Arrivals, Sizes};
pub use udp::UdpSource;
