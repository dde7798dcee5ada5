//! The interface between the event loop and the traffic it carries.
//!
//! The loop (`sim.rs`, with the links in `sim/net.rs`) knows packets only as routes and
//! hops. Everything else belongs to a kind of endpoint: TCP connections (`sim/tcp.rs`,
//! long-lived flows and the connections transfer sources open), UDP sources (`sim/udp.rs`).
//! Each kind implements [`Endpoint`]: it sends packets on routes it was given, takes them
//! back when they reach the end of their route or are lost, and gets its own timers back
//! when they are due. Another kind of traffic (a kernel socket, a new generator) is another
//! implementation: its routes' `Owner`, an `Event` variant for its timers, and the arms that
//! hand it those (`Simulation::dispatch`, `arrive`, `lost`); the loop and the network stay
//! as they are.

use super::net::Net;
use crate::metrics::{FlowReport, TrafficReport};
use crate::packet::{LossCause, Packet};
use crate::queue::DropReason;
use crate::time::Time;

/// How a packet was lost, for the counters (the oracle keeps only the cause).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loss {
    Channel,
    Queue(DropReason),
}

impl Loss {
    pub fn cause(self) -> LossCause {
        match self {
            Loss::Channel => LossCause::Channel,
            Loss::Queue(_) => LossCause::Queue,
        }
    }
}

/// A kind of endpoint, as the event loop drives it.
pub(super) trait Endpoint {
    /// What its timer events carry (`Event::Tcp`, `Event::Udp`).
    type Timer: Copy;
    /// One of its timers is due.
    fn on_timer(&mut self, now: Time, t: Self::Timer, net: &mut Net);
    /// One of its packets reached the end of its route.
    fn on_packet(&mut self, now: Time, p: Packet, net: &mut Net);
    /// One of its packets was lost on a link (on the wire or in a queue).
    fn on_loss(&mut self, p: &Packet, loss: Loss);
}

/// Reports that count their packets' losses by cause (a flow's, a traffic entry's).
pub(super) trait DropCounts {
    fn count_drop(&mut self, cause: Loss);
}

macro_rules! drop_counts {
    ($($report:ty),+) => {$(
        impl DropCounts for $report {
            fn count_drop(&mut self, cause: Loss) {
                match cause {
                    Loss::Channel => self.channel_losses += 1,
                    Loss::Queue(DropReason::Early) => {
                        self.early_drops += 1;
                        self.queue_drops += 1;
                    }
                    Loss::Queue(DropReason::Forced) => {
                        self.forced_drops += 1;
                        self.queue_drops += 1;
                    }
                }
            }
        }
    )+};
}

drop_counts!(FlowReport, TrafficReport);
