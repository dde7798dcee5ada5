//! Segment-numbered packets, as ns-2's one-way TCP agents: data segment `seq` counts packets
//! from 0; an ACK carries `ack`, the next segment the receiver expects (so `ack - 1` is ns-2's
//! "highest in-order seqno"), and up to three SACK blocks `[start, end)`.

pub type FlowId = u32;
pub type LinkId = usize;

pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A UDP datagram of a constant-bit-rate or on/off source (`flow` is the source).
    Udp {
        seq: u64,
    },
    Data {
        seq: u64,
        retransmission: bool,
    },
    Ack {
        ack: u64,
        sack: [(u64, u64); MAX_SACK_BLOCKS],
        n_sack: u8,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: FlowId,
    /// The connection's generation in its flow slot: a finite transfer's slot is reused by
    /// later transfers, and a late packet of a retired connection must not reach its
    /// successor (long-lived flows and UDP sources keep 0).
    pub conn: u32,
    pub size_bytes: u32,
    /// Index of the next hop on the flow's path in the packet's direction.
    pub hop: u16,
    pub kind: Kind,
}

impl Packet {
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        match &self.kind {
            Kind::Ack { sack, n_sack, .. } => &sack[..*n_sack as usize],
            Kind::Data { .. } | Kind::Udp { .. } => &[],
        }
    }
}

/// Why a copy of a data segment was lost: the ground truth a loss-cause classifier is
/// judged against (paper 003's Ideal-LP knows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    /// Lost on a link's channel (a wireless error).
    Channel,
    /// Dropped early by RED.
    QueueEarly,
    /// Dropped by a full queue (or RED's certain drop).
    QueueForced,
}

impl LossCause {
    /// Congestion, as opposed to a channel error.
    pub fn is_queue(self) -> bool {
        matches!(self, LossCause::QueueEarly | LossCause::QueueForced)
    }
}

/// Read-only ground truth about a flow's segments, kept by the simulator (not by the
/// sender): the cause of the last drop of `seq`, `None` when no copy of it was dropped (or
/// it is no longer in the window the simulator remembers, twice the maximum window).
pub trait LossTruth {
    fn cause(&self, seq: u64) -> Option<LossCause>;
}
