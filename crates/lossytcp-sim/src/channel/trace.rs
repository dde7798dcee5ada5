//! Losses supplied by the user: a per-transmission outcome list (e.g. from a Jakes fading
//! trace), or exact segment numbers to drop (scenario tests, Fall & Floyd).

use super::Advance;
use crate::time::{Dur, Time};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

/// Loss outcomes packed one bit per outcome, `1` = lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceBits {
    words: Vec<u64>,
    len: u64,
}

impl TraceBits {
    pub fn from_bools(lost: &[bool]) -> Self {
        let mut t = Self::default();
        for &l in lost {
            t.push(l);
        }
        t
    }

    /// Reads a trace file: one `0` (delivered) or `1` (lost) per outcome, ASCII whitespace
    /// ignored, anything else an error naming its byte offset. Streamed through a 64 KiB
    /// buffer, so memory is the packed outcomes alone.
    pub fn read(path: &str) -> Result<Self, String> {
        // Opening a named pipe blocks until someone writes to it, and a device may never end.
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(format!(
                    "trace file {path:?} is not a regular file (a named pipe, a device or a \
                     directory): give a file of '0'/'1' outcomes"
                ))
            }
            Err(e) => return Err(format!("trace file {path:?}: {e}")),
        }
        let mut f = std::fs::File::open(path).map_err(|e| format!("trace file {path:?}: {e}"))?;
        let mut t = Self::default();
        let mut buf = vec![0u8; 1 << 16];
        let mut offset = 0u64;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("trace file {path:?}: {e}")),
            };
            for (k, &b) in buf[..n].iter().enumerate() {
                match b {
                    b'0' => t.push(false),
                    b'1' => t.push(true),
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {}
                    _ => {
                        return Err(format!(
                            "trace file {path:?}: byte {b:#04x} at offset {} is neither '0' \
                             nor '1'",
                            offset + k as u64
                        ))
                    }
                }
            }
            offset += n as u64;
        }
        if t.len == 0 {
            return Err(format!("trace file {path:?} holds no outcome"));
        }
        Ok(t)
    }

    fn push(&mut self, lost: bool) {
        let (w, b) = ((self.len / 64) as usize, self.len % 64);
        if w == self.words.len() {
            self.words.push(0);
        }
        self.words[w] |= u64::from(lost) << b;
        self.len += 1;
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Outcome `i`, wrapping around: a trace shorter than the run repeats from its start.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        let i = i % self.len;
        (self.words[(i / 64) as usize] >> (i % 64)) & 1 == 1
    }
}

pub struct Trace {
    bits: Arc<TraceBits>,
    next: u64,
    advance: Advance,
    slot: Dur,
}

impl Trace {
    pub fn new(bits: Arc<TraceBits>, advance: Advance, slot: Dur) -> Self {
        assert!(
            !bits.is_empty(),
            "an empty trace (Scenario::check refuses it)"
        );
        Self {
            bits,
            next: 0,
            advance,
            slot: slot.max(Dur(1)),
        }
    }
    /// Outcomes repeat cyclically once the trace is exhausted.
    pub fn lost(&mut self, now: Time) -> bool {
        match self.advance {
            Advance::Transmission => {
                let l = self.bits.get(self.next);
                self.next = (self.next + 1) % self.bits.len();
                l
            }
            // The outcome of the slot the transmission starts in.
            Advance::Slot => self.bits.get(now.0 / self.slot.0),
        }
    }
}

pub struct Drops {
    /// (flow or any flow, segment) -> how many of its next transmissions to drop.
    pending: BTreeMap<(Option<u32>, u64), u32>,
    /// Whether any entry names a flow (else one lookup per packet suffices).
    by_flow: bool,
}

impl Drops {
    /// A segment listed k times loses its first k transmissions; an entry without a flow
    /// applies to whichever flow sends that segment first.
    pub fn new(entries: impl IntoIterator<Item = (Option<u32>, u64)>) -> Self {
        let mut pending = BTreeMap::new();
        let mut by_flow = false;
        for (f, s) in entries {
            by_flow |= f.is_some();
            *pending.entry((f, s)).or_insert(0) += 1;
        }
        Self { pending, by_flow }
    }
    fn take(&mut self, key: (Option<u32>, u64)) -> bool {
        match self.pending.get_mut(&key) {
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    self.pending.remove(&key);
                }
                true
            }
            None => false,
        }
    }
    /// The fate of a transmission carrying `segment`, `(flow, segment number)` of a data
    /// segment; ACKs and UDP datagrams (`None`) always pass.
    pub fn lost(&mut self, segment: Option<(u32, u64)>) -> bool {
        let Some((flow, seq)) = segment else {
            return false;
        };
        (self.by_flow && self.take((Some(flow), seq))) || self.take((None, seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_transmission_and_per_slot_outcomes() {
        let trace = Arc::new(TraceBits::from_bools(&[true, false, false, true]));
        let mut t = Trace::new(trace.clone(), Advance::Transmission, Dur(10));
        // Far-apart transmissions still take consecutive outcomes.
        let got: Vec<bool> = (0..6).map(|i| t.lost(Time(i * 1000))).collect();
        assert_eq!(got, vec![true, false, false, true, true, false]);
        let mut t = Trace::new(trace, Advance::Slot, Dur(10));
        // Slots 0, 3, 5 (= 1 mod 4), 8 (= 0): idle slots are skipped over.
        let got: Vec<bool> = [0u64, 35, 52, 80]
            .iter()
            .map(|&ns| t.lost(Time(ns)))
            .collect();
        assert_eq!(got, vec![true, true, false, true]);
    }

    #[test]
    fn drops_name_a_flow_or_any() {
        let data = |flow, seq| Some((flow, seq));
        let mut d = Drops::new([(Some(1), 5), (None, 7), (Some(1), 5)]);
        assert!(!d.lost(data(0, 5)), "flow 0's segment 5 is not listed");
        assert!(d.lost(data(1, 5)));
        assert!(d.lost(data(1, 5)), "listed twice: two transmissions");
        assert!(!d.lost(data(1, 5)));
        assert!(d.lost(data(2, 7)), "any flow: the first to send it");
        assert!(!d.lost(data(0, 7)));
    }

    #[test]
    fn a_file_is_read_packed_and_wraps_around() {
        let dir = std::env::temp_dir().join(format!("lossytcp-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.txt");
        // 130 outcomes over three words, lines and spaces between them.
        let outcomes: Vec<bool> = (0..130).map(|i| i % 3 == 0 || i == 129).collect();
        let text: String = outcomes
            .chunks(40)
            .map(|c| {
                c.iter()
                    .map(|&l| if l { "1 " } else { "0" })
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        std::fs::write(&path, text).unwrap();
        let bits = TraceBits::read(path.to_str().unwrap()).unwrap();
        assert_eq!(bits, TraceBits::from_bools(&outcomes));
        assert_eq!(bits.len(), 130);
        assert!(
            bits.get(129) && bits.get(130) && !bits.get(131) && !bits.get(132) && bits.get(133)
        );
        std::fs::write(&path, b"0101\xff1").unwrap();
        let e = TraceBits::read(path.to_str().unwrap()).unwrap_err();
        assert!(e.contains("0xff at offset 4"), "{e}");
        std::fs::write(&path, b" \n").unwrap();
        assert!(TraceBits::read(path.to_str().unwrap()).is_err());
        assert!(TraceBits::read(dir.join("missing").to_str().unwrap()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
