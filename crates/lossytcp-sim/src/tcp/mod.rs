//! TCP: a sender built from a window-growth plugin and a loss-recovery plugin, a receiver,
//! and the RTO estimator. Nothing here does I/O or owns a clock: the simulator calls in with
//! the current time and collects the segments to transmit (quinn-proto's shape).

pub mod cc;
pub mod fine_clock;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod state;
pub mod variant;

pub use receiver::Receiver;
pub use sender::{Segment, Sender};
pub use state::{LossEvent, LossKind, SenderState};
