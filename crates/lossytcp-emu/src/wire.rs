//! What the emulator reads of a captured IPv4 packet: its size, and for TCP the flags,
//! sequence number and payload, enough to give the link the same [`Frame`] view the
//! engine's packets give (segment numbers for the `drops` channels, retransmissions for
//! `protect_retransmissions`) and to log each packet's kind with its fate.

use lossytcp_sim::frame::Frame;

/// What a packet is, for the fate log and the replay in the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TCP with SYN (the handshake).
    Syn,
    /// TCP carrying data (a FIN on data included).
    Data,
    /// TCP without data or SYN: an ACK, a window update, a bare FIN or RST.
    Ack,
    /// A datagram of the emulator's UDP probe.
    Udp,
    /// Anything else (ICMP, IPv6 neighbour traffic is not routed here).
    Other,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Syn => "syn",
            Kind::Data => "data",
            Kind::Ack => "ack",
            Kind::Udp => "udp",
            Kind::Other => "other",
        }
    }
}

/// A packet as read from a TUN device, parsed once.
#[derive(Clone, Copy, Debug)]
pub struct Captured {
    pub size: u32,
    pub kind: Kind,
    /// TCP sequence number relative to the stream's first data byte; UDP: the probe's
    /// sequence number.
    pub seq: u64,
    /// TCP payload bytes.
    pub payload: u32,
    /// Segment number (payload offset / full segment size) of a data packet.
    pub segment: Option<u64>,
    pub retransmission: bool,
}

impl Frame for Captured {
    fn size_bytes(&self) -> u32 {
        self.size
    }
    fn segment(&self) -> Option<(u32, u64)> {
        self.segment.map(|s| (0, s))
    }
    fn is_retransmission(&self) -> bool {
        self.retransmission
    }
}

/// One direction's TCP stream state: the initial sequence number and the highest byte
/// sent, so that a data packet is numbered as the engine numbers segments and a copy of
/// bytes sent before is a retransmission.
#[derive(Default)]
pub struct Stream {
    isn: Option<u32>,
    high: u64,
}

const SYN: u8 = 0x02;

/// The probe datagram's payload starts with its sequence number and send time.
pub const PROBE_HEADER: usize = 16;

impl Stream {
    /// Parses `pkt`; `full_segment` is the payload of a full-sized data packet (the packet
    /// size less its headers), which turns byte offsets into segment numbers.
    pub fn parse(&mut self, pkt: &[u8], packet_size: u32) -> Captured {
        let mut c = Captured {
            size: pkt.len() as u32,
            kind: Kind::Other,
            seq: 0,
            payload: 0,
            segment: None,
            retransmission: false,
        };
        if pkt.len() < 20 || pkt[0] >> 4 != 4 {
            return c;
        }
        let ihl = usize::from(pkt[0] & 0x0f) * 4;
        let total = usize::from(u16::from_be_bytes([pkt[2], pkt[3]])).min(pkt.len());
        c.size = total as u32;
        let l4 = &pkt[ihl.min(total)..total];
        match pkt[9] {
            6 if l4.len() >= 20 => {
                let seq = u32::from_be_bytes([l4[4], l4[5], l4[6], l4[7]]);
                let doff = usize::from(l4[12] >> 4) * 4;
                let flags = l4[13];
                let payload = l4.len().saturating_sub(doff) as u32;
                c.payload = payload;
                if flags & SYN != 0 {
                    c.kind = Kind::Syn;
                    self.isn = Some(seq);
                    return c;
                }
                let rel = self
                    .isn
                    .map_or(0, |isn| u64::from(seq.wrapping_sub(isn.wrapping_add(1))));
                c.seq = rel;
                if payload == 0 {
                    c.kind = Kind::Ack;
                    return c;
                }
                c.kind = Kind::Data;
                let end = rel + u64::from(payload);
                c.retransmission = end <= self.high;
                self.high = self.high.max(end);
                let full = packet_size.saturating_sub((ihl + doff) as u32).max(1);
                c.segment = Some(rel / u64::from(full));
            }
            17 if l4.len() >= 8 + PROBE_HEADER => {
                c.kind = Kind::Udp;
                let p = &l4[8..];
                c.seq = u64::from_be_bytes(p[..8].try_into().expect("8 bytes"));
            }
            _ => {}
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4/TCP packet: 20 + 32 header bytes (timestamps), `payload` data bytes.
    fn tcp(seq: u32, flags: u8, payload: usize) -> Vec<u8> {
        let total = 52 + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[20 + 4..20 + 8].copy_from_slice(&seq.to_be_bytes());
        p[20 + 12] = 8 << 4;
        p[20 + 13] = flags;
        p
    }

    #[test]
    fn segments_are_numbered_from_the_first_data_byte() {
        let mut s = Stream::default();
        let syn = s.parse(&tcp(1000, SYN, 0), 1500);
        assert_eq!(syn.kind, Kind::Syn);
        let ack = s.parse(&tcp(1001, 0x10, 0), 1500);
        assert_eq!((ack.kind, ack.size), (Kind::Ack, 52));
        let d0 = s.parse(&tcp(1001, 0x10, 1448), 1500);
        assert_eq!((d0.kind, d0.segment, d0.size), (Kind::Data, Some(0), 1500));
        let d1 = s.parse(&tcp(1001 + 1448, 0x10, 1448), 1500);
        assert_eq!(d1.segment, Some(1));
        assert!(!d1.retransmission);
        let again = s.parse(&tcp(1001, 0x10, 1448), 1500);
        assert_eq!(again.segment, Some(0));
        assert!(again.retransmission);
        // Sequence numbers wrap around 2^32.
        let mut s = Stream::default();
        s.parse(&tcp(u32::MAX - 10, SYN, 0), 1500);
        let d = s.parse(
            &tcp((u32::MAX - 9).wrapping_add(1448 * 3), 0x10, 1448),
            1500,
        );
        assert_eq!(d.segment, Some(3));
    }
}
