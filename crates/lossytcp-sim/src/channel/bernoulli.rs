//! Independent losses with probability p per packet.

use crate::rng::Rng;

pub struct Bernoulli {
    p: f64,
    rng: Rng,
}

impl Bernoulli {
    pub fn new(p: f64, rng: Rng) -> Self {
        Self { p, rng }
    }
    #[inline]
    pub fn lost(&mut self) -> bool {
        self.rng.bernoulli(self.p)
    }
}
