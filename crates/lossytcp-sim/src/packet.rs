//! Segment-numbered packets, as ns-2's one-way TCP agents: data segment `seq` counts packets
//! from 0; an ACK carries `ack`, the next segment the receiver expects (so `ack - 1` is ns-2's
//! "highest in-order seqno"), and up to three SACK blocks `[start, end)`.

pub type FlowId = u32;
pub type LinkId = usize;

pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A UDP datagram of a constant-bit-rate or on/off source (`flow` is the source).
    Udp { seq: u64 },
    Data {
        seq: u64,
        retransmission: bool,
        /// RFC 7323's TSval: the send time in microseconds, modulo 2^32.
        tsval: u32,
    },
    Ack {
        ack: u64,
        /// SACK blocks `[start, end)` as offsets from `ack` (blocks lie within a window of
        /// it: above it, or below for a DSACK block, two's complement): a packet of 56 bytes
        /// instead of 80, copied on every hop.
        sack: [SackOffsets; MAX_SACK_BLOCKS],
        n_sack: u8,
        /// RFC 7323's TSecr: the TSval the receiver echoes (TS.Recent).
        tsecr: u32,
    },
}

/// RFC 7323's timestamp clock: microseconds, modulo 2^32 (it wraps after 71 minutes;
/// [`ts_before`] compares as RFC 7323 §5.2 does).
pub fn tsval(t: crate::time::Time) -> u32 {
    (t.0 / 1_000) as u32
}

/// `a` is earlier than `b` on the wrapping timestamp clock.
pub fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: FlowId,
    /// The connection's generation in its flow slot: a finite transfer's slot is reused by
    /// later transfers, and a late packet of a retired connection must not reach its
    /// successor (long-lived flows and UDP sources keep 0).
    pub conn: u32,
    pub size_bytes: u32,
    /// Index of the link the packet is on (or reaches next) along its route.
    pub hop: u16,
    /// The route it travels, a number the simulation gives each path (`sim/net.rs`); it
    /// fits beside `hop` in the packet's padding.
    pub route: u16,
    pub kind: Kind,
}

impl Packet {
    /// An ACK's SACK blocks (none for other packets).
    pub fn sack_blocks(&self) -> SackBlocks {
        if let Kind::Ack {
            ack, sack, n_sack, ..
        } = &self.kind
        {
            // All three decoded at once, without a loop over n (the slice ends at n: what
            // lies beyond is the receiver's unused (0, 0)); an ACK without blocks, NewReno's
            // every ACK, decodes none.
            if *n_sack > 0 {
                return SackBlocks {
                    blocks: sack.map(|(a, b)| (off(*ack, a), off(*ack, b))),
                    n: usize::from(*n_sack),
                };
            }
        }
        SackBlocks {
            blocks: [(0, 0); MAX_SACK_BLOCKS],
            n: 0,
        }
    }
}

/// `ack` moved by `offset`, a signed 32-bit distance (an RFC 2883 DSACK block lies below).
#[inline(always)]
fn off(ack: u64, offset: u32) -> u64 {
    ack.wrapping_add(i64::from(offset as i32) as u64)
}

/// A SACK block `[start, end)` as a packet carries it: offsets from its ACK.
pub type SackOffsets = (u32, u32);

/// Block `b` of an ACK of `ack` as carried in the packet.
#[inline(always)]
pub fn sack_offsets(ack: u64, (a, b): (u64, u64)) -> SackOffsets {
    let reach = |x: u64| i32::try_from(x.wrapping_sub(ack) as i64).is_ok();
    debug_assert!(reach(a) && reach(b), "a SACK block beyond reach");
    (a.wrapping_sub(ack) as u32, b.wrapping_sub(ack) as u32)
}

/// Decoded SACK blocks; derefs to the slice a sender takes.
#[derive(Clone, Copy, Debug)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    n: usize,
}

impl std::ops::Deref for SackBlocks {
    type Target = [(u64, u64)];
    fn deref(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n]
    }
}

impl crate::frame::Frame for Packet {
    #[inline]
    fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
    #[inline]
    fn segment(&self) -> Option<(u32, u64)> {
        match self.kind {
            Kind::Data { seq, .. } => Some((self.flow, seq)),
            _ => None,
        }
    }
    #[inline]
    fn is_retransmission(&self) -> bool {
        matches!(
            self.kind,
            Kind::Data {
                retransmission: true,
                ..
            }
        )
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

// A packet is copied on every hop and kept in pipes and the in-flight slab: `route` took
// padding, not space.
const _: () = assert!(std::mem::size_of::<Packet>() == 56);
