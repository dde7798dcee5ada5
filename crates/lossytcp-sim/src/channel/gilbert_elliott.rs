//! The Gilbert-Elliott channel of paper 000 §II: Good -> Bad with probability alpha, Bad ->
//! Good with probability beta, per step; a packet in Good is lost with `loss_good`, in Bad
//! with `loss_bad` (0 and 1 in the paper).
//!
//! Where the chain steps is the modelling choice that matters:
//! * `Transmission`: once per packet sent, the paper's literal "embedded at the beginnings of
//!   packet transmissions". Idle time does not move the chain, so a long Bad run outlives RTO
//!   backoff and collapses every TCP.
//! * `Slot`: once per packet-time slot of the link, idle or not. Between two transmissions
//!   `n` slots apart the chain takes `n` steps, computed in closed form.
//! * `idle_reset`: after an idle gap longer than this, the state is drawn afresh from the
//!   stationary distribution (the packet-train model's assumption that trains see
//!   independent channel states).

use super::Advance;
use crate::rng::Rng;
use crate::time::{Dur, Time};

pub struct GilbertElliott {
    alpha: f64,
    beta: f64,
    loss_good: f64,
    loss_bad: f64,
    advance: Advance,
    idle_reset: Option<Dur>,
    slot: Dur,
    /// State at the last transmission; `None` before the first, which draws from stationarity.
    bad: Option<bool>,
    last_slot: u64,
    last_time: Time,
    rng: Rng,
}

/// x^n by squaring: exact IEEE products in a fixed order, so identical on every machine
/// (unlike `powi`, whose evaluation order the compiler may choose).
fn pow_u64(mut x: f64, mut n: u64) -> f64 {
    let mut acc = 1.0;
    while n > 0 {
        if n & 1 == 1 {
            acc *= x;
        }
        x *= x;
        n >>= 1;
    }
    acc
}

impl GilbertElliott {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        alpha: f64,
        beta: f64,
        loss_good: f64,
        loss_bad: f64,
        advance: Advance,
        idle_reset: Option<Dur>,
        slot: Dur,
        rng: Rng,
    ) -> Self {
        Self {
            alpha,
            beta,
            loss_good,
            loss_bad,
            advance,
            idle_reset,
            slot: if slot.0 == 0 { Dur(1) } else { slot },
            bad: None,
            last_slot: 0,
            last_time: Time::ZERO,
            rng,
        }
    }

    pub fn pi_bad(&self) -> f64 {
        self.alpha / (self.alpha + self.beta)
    }

    /// State after `n >= 1` steps from `bad`: P(Bad after n | start) = pi_B + (1{start=B} -
    /// pi_B) (1 - alpha - beta)^n, one uniform draw whatever n is.
    fn step_n(&mut self, bad: bool, n: u64) -> bool {
        if n == 1 {
            let p = if bad { 1.0 - self.beta } else { self.alpha };
            return self.rng.bernoulli(p);
        }
        let pi_b = self.pi_bad();
        let lam = pow_u64(1.0 - self.alpha - self.beta, n);
        let start = if bad { 1.0 } else { 0.0 };
        let p = (pi_b + (start - pi_b) * lam).clamp(0.0, 1.0);
        self.rng.bernoulli(p)
    }

    #[inline]
    pub fn lost(&mut self, now: Time) -> bool {
        let slot_now = now.0 / self.slot.0;
        let state = match self.bad {
            None => self.rng.bernoulli(self.pi_bad()),
            Some(prev) => {
                let idle_reset = self
                    .idle_reset
                    .is_some_and(|gap| now.since(self.last_time) > gap);
                if idle_reset {
                    self.rng.bernoulli(self.pi_bad())
                } else {
                    match self.advance {
                        Advance::Transmission => self.step_n(prev, 1),
                        Advance::Slot => {
                            // Two transmissions on one link start at least a slot apart, so n >= 1
                            // except for a slot override shorter than the packet time.
                            let n = slot_now.saturating_sub(self.last_slot);
                            if n == 0 {
                                prev
                            } else {
                                self.step_n(prev, n)
                            }
                        }
                    }
                }
            }
        };
        self.bad = Some(state);
        self.last_slot = slot_now;
        self.last_time = now;
        self.rng
            .bernoulli(if state { self.loss_bad } else { self.loss_good })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    fn run(advance: Advance, gap_slots: u64, n: usize, seed: u64) -> (f64, f64) {
        let slot = Dur(1_000_000);
        let mut ch = GilbertElliott::new(
            0.01,
            0.2,
            0.0,
            1.0,
            advance,
            None,
            slot,
            Rng::derive(seed, Stream::Channel, 0),
        );
        let mut lost = 0usize;
        let mut bursts = 0usize;
        let mut prev = false;
        for i in 0..n {
            let l = ch.lost(Time(i as u64 * gap_slots * slot.0));
            if l {
                lost += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn back_to_back_loss_rate_and_burst_match_the_chain() {
        // pi_B = 0.01/0.21 = 0.047619, mean burst 1/beta = 5 packets.
        let (rate, burst) = run(Advance::Transmission, 1, 2_000_000, 11);
        assert!((rate - 0.047619).abs() < 0.002, "loss rate {rate}");
        assert!((burst - 5.0).abs() < 0.15, "mean burst {burst}");
        let (rate_s, burst_s) = run(Advance::Slot, 1, 2_000_000, 12);
        assert!((rate_s - 0.047619).abs() < 0.002, "slot loss rate {rate_s}");
        assert!((burst_s - 5.0).abs() < 0.15, "slot mean burst {burst_s}");
    }

    #[test]
    fn slot_advance_decorrelates_over_idle_gaps() {
        // With 50 idle slots between packets, (1-a-b)^50 ~ 7e-6: consecutive packets are
        // nearly independent, so the mean run of losses is 1/(1 - pi_B) ~ 1.05.
        let (rate, burst) = run(Advance::Slot, 50, 400_000, 13);
        assert!((rate - 0.047619).abs() < 0.003, "loss rate {rate}");
        assert!((burst - 1.05).abs() < 0.03, "mean burst {burst}");
        // Per transmission the gaps do not matter: bursts stay 5 long.
        let (_, burst_t) = run(Advance::Transmission, 50, 400_000, 14);
        assert!((burst_t - 5.0).abs() < 0.3, "mean burst {burst_t}");
    }

    #[test]
    fn n_step_closed_form_equals_repeated_steps() {
        let mut ch = GilbertElliott::new(
            0.3,
            0.1,
            0.0,
            1.0,
            Advance::Slot,
            None,
            Dur(1),
            Rng::derive(1, Stream::Channel, 0),
        );
        // P(B after 3 | G) by the matrix product, by hand: a(1-b)^2 + (1-a)a(1-b) + (1-a)^2 a
        // ... computed through the 2x2 chain.
        let (a, b) = (0.3f64, 0.1f64);
        let mut pg = 1.0f64;
        let mut pb = 0.0f64;
        for _ in 0..3 {
            let ng = pg * (1.0 - a) + pb * b;
            let nb = pg * a + pb * (1.0 - b);
            pg = ng;
            pb = nb;
        }
        let pi_b = ch.pi_bad();
        let closed = pi_b + (0.0 - pi_b) * pow_u64(1.0 - a - b, 3);
        assert!((closed - pb).abs() < 1e-12);
        let _ = ch.step_n(false, 3);
    }
}
