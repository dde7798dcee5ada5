//! What a link and its parts (queue, channel, propagation delay) see of a packet: its size,
//! and for the replay channels the data segment it carries. Nothing else of the simulator
//! reaches them, so the engine's [`crate::packet::Packet`] and the emulator's captured IP
//! packets go through the same link code (`lossytcp-emu`).

/// A packet as a link sees it.
pub trait Frame {
    fn size_bytes(&self) -> u32;
    /// `(flow, segment)` of a TCP data segment, which the `drops` and `flow_drops` channels
    /// match; `None` for ACKs and datagrams.
    fn segment(&self) -> Option<(u32, u64)>;
    /// A retransmitted data segment (spared by a link's `protect_retransmissions`).
    fn is_retransmission(&self) -> bool;
}
