//! Segment-numbered packets, as ns-2's one-way TCP agents: data segment `seq` counts packets
//! from 0; an ACK carries `ack`, the next segment the receiver expects (so `ack - 1` is ns-2's
//! "highest in-order seqno"), and up to three SACK blocks `[start, end)`.

pub type FlowId = u32;
pub type LinkId = usize;

pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
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
    pub size_bytes: u32,
    /// Index of the next hop on the flow's path in the packet's direction.
    pub hop: u16,
    pub kind: Kind,
}

impl Packet {
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        match &self.kind {
            Kind::Ack { sack, n_sack, .. } => &sack[..*n_sack as usize],
            Kind::Data { .. } => &[],
        }
    }
}

/// Why a packet did not arrive: ground truth that only the engine has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossCause {
    /// Lost on a link's channel (a wireless error).
    Channel,
    /// Dropped by a queue: an AQM's early drop or a full buffer (congestion).
    Queue,
}
