//! Random streams: one per component, derived from (run seed, component tag, index).
//!
//! xoshiro256++ seeded through SplitMix64. Written out here rather than taken from a crate so
//! that a run's bits can never change under a dependency upgrade: the same seed gives the same
//! losses on every machine and every build. Deriving each component's stream from its own
//! identity (not from a shared generator) means adding a flow never changes another flow's
//! losses.

/// Component tags, so streams of different kinds never collide.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Stream {
    Channel = 1,
    Delay = 2,
    Flow = 3,
    Queue = 4,
    AckChannel = 5,
    /// Arrival times of a traffic entry's transfers.
    Arrivals = 6,
    /// Sizes of a traffic entry's transfers.
    Sizes = 7,
    /// A UDP source's on/off periods or jitter.
    Source = 8,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn derive(seed: u64, tag: Stream, index: u64) -> Rng {
        let mut st = seed;
        let a = splitmix64(&mut st);
        let mut st = a ^ (tag as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let b = splitmix64(&mut st);
        let mut st = b ^ index.wrapping_mul(0xA076_1D64_78BD_642F);
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            *x = splitmix64(&mut st);
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`; consumes no randomness when `p` is 0 or 1, so a
    /// deterministic channel state does not shift the stream.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.uniform() < p
        }
    }

    /// Exponential with the given mean (inverse transform on (0, 1]).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        if mean <= 0.0 {
            return 0.0;
        }
        -mean * (1.0 - self.uniform()).ln()
    }

    /// Pareto with this scale (minimum) and shape, by inverse transform on (0, 1] (ns-2's
    /// `ParetoRandomVariable`: scale / u^(1/shape)).
    pub fn pareto(&mut self, scale: f64, shape: f64) -> f64 {
        scale / (1.0 - self.uniform()).powf(1.0 / shape)
    }

    /// Index drawn from a discrete distribution given by non-negative weights summing to 1.
    pub fn categorical(&mut self, probs: &[f64]) -> usize {
        let u = self.uniform();
        let mut acc = 0.0;
        for (i, p) in probs.iter().enumerate() {
            acc += p;
            if u < acc {
                return i;
            }
        }
        // Rounding can leave the sum a hair below 1: fall back to the last positive entry.
        probs.iter().rposition(|&p| p > 0.0).unwrap_or(0)
    }
}

/// ns-2 2.35's default random generator (tools/rng.cc, `RNG` without `OLD_RNG`): L'Ecuyer's
/// MRG32k3a combined multiple-recursive generator (L'Ecuyer, "Good parameters and
/// implementations for combined multiple recursive random number generators", Operations
/// Research 47(1), 1999), in the floating-point arithmetic of its reference implementation,
/// which every IEEE double machine runs exactly (products stay below 2^53).
///
/// Only for replaying ns-2's random draws: `$defaultRNG seed s` sets all six state words to
/// `s`, and `Random::uniform()` is then [`Ns2Mrg::uniform`]; RED's drop test is one such
/// draw per `drop_early()`.
#[derive(Clone, Debug)]
pub struct Ns2Mrg {
    c: [f64; 6],
}

impl Ns2Mrg {
    const M1: f64 = 4_294_967_087.0;
    const M2: f64 = 4_294_944_443.0;
    const A12: f64 = 1_403_580.0;
    const A13N: f64 = 810_728.0;
    const A21: f64 = 527_612.0;
    const A23N: f64 = 1_370_589.0;

    /// The state after `$defaultRNG seed seed` (ns-2 accepts 1 <= seed < 2^31 - 1).
    pub fn seeded(seed: u32) -> Self {
        Self {
            c: [f64::from(seed); 6],
        }
    }

    /// One component's recurrence on its three words: x_n = (a x_{n-k} - a_n x_{n-3}) mod m,
    /// k the word `lag` places before the newest.
    fn component(w: &mut [f64], a: f64, lag: usize, an: f64, m: f64) -> f64 {
        let mut p = a * w[lag] - an * w[0];
        p -= (p / m).trunc() * m;
        if p < 0.0 {
            p += m;
        }
        w.rotate_left(1);
        w[2] = p;
        p
    }

    /// `RNG::U01()`: uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        let (first, second) = self.c.split_at_mut(3);
        let p1 = Self::component(first, Self::A12, 1, Self::A13N, Self::M1);
        let p2 = Self::component(second, Self::A21, 2, Self::A23N, Self::M2);
        let norm = 1.0 / (Self::M1 + 1.0);
        if p1 > p2 {
            (p1 - p2) * norm
        } else {
            (p1 - p2 + Self::M1) * norm
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::derive(7, Stream::Channel, 0);
        let mut b = Rng::derive(7, Stream::Channel, 0);
        let mut c = Rng::derive(7, Stream::Channel, 1);
        let mut d = Rng::derive(7, Stream::Delay, 0);
        let va: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        let vd: Vec<u64> = (0..4).map(|_| d.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_ne!(va, vd);
    }

    #[test]
    fn uniform_mean_and_range() {
        let mut r = Rng::derive(1, Stream::Flow, 0);
        let n = 200_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let u = r.uniform();
            assert!((0.0..1.0).contains(&u));
            sum += u;
        }
        let mean = sum / n as f64;
        // Standard error of the mean is sqrt(1/12/n) ~ 6.5e-4: 5 sigma.
        assert!((mean - 0.5).abs() < 3.3e-3, "mean {mean}");
    }

    #[test]
    fn exponential_mean() {
        let mut r = Rng::derive(3, Stream::Delay, 0);
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        // sd of the mean = 2/sqrt(n) ~ 4.5e-3: 5 sigma.
        assert!((mean - 2.0).abs() < 0.023, "mean {mean}");
    }

    #[test]
    fn ns2_generator_gives_ns2s_draws() {
        // `$defaultRNG seed 12345`, then `$defaultRNG next-random` five times on Debian's ns
        // 2.35 (31-bit integers int(2^31 u)): 272754307 684032738 663971912 1773492633
        // 475946620. And the tick phase of ns-2's first TCP agent (variant.rs) is the second
        // draw of the stream seeded 1.
        let mut g = Ns2Mrg::seeded(12345);
        let got: Vec<u64> = (0..5)
            .map(|_| (g.uniform() * 2_147_483_648.0) as u64)
            .collect();
        assert_eq!(
            got,
            [272754307, 684032738, 663971912, 1773492633, 475946620]
        );
        let mut g = Ns2Mrg::seeded(1);
        g.uniform();
        assert_eq!(g.uniform(), 0.555_880_715_982_799_6);
    }
}
