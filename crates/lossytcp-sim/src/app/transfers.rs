//! Finite transfers: Poisson arrivals and their sizes.
//!
//! Paper 002 Scenario II: 100 KB downloads on Poisson arrivals, 0-20 open per node; paper
//! 003: 500 transfers of 10 KB. Each arrival becomes a new TCP connection (sim.rs).

use crate::config::SizeConfig;
use crate::rng::Rng;

/// Gaps between arrivals of a Poisson process.
pub struct Arrivals {
    mean_gap_s: f64,
    rng: Rng,
}

impl Arrivals {
    pub fn new(rate_per_s: f64, rng: Rng) -> Self {
        Self {
            mean_gap_s: 1.0 / rate_per_s,
            rng,
        }
    }
    /// Seconds to the next arrival: Exp(1 / rate).
    pub fn next_gap_s(&mut self) -> f64 {
        self.rng.exponential(self.mean_gap_s)
    }
}

/// Transfer sizes in bytes (at least one).
pub struct Sizes {
    cfg: SizeConfig,
    rng: Rng,
}

impl Sizes {
    pub fn new(cfg: &SizeConfig, rng: Rng) -> Self {
        Self {
            cfg: cfg.clone(),
            rng,
        }
    }
    pub fn draw(&mut self) -> u64 {
        let x = match self.cfg {
            SizeConfig::Fixed { bytes } => return bytes,
            SizeConfig::Exp { mean_bytes } => self.rng.exponential(mean_bytes),
            // ns-2's ParetoRandomVariable: scale = avg (shape - 1) / shape.
            SizeConfig::Pareto { mean_bytes, shape } => {
                self.rng.pareto(mean_bytes * (shape - 1.0) / shape, shape)
            }
        };
        (x.round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    fn rng(i: u64) -> Rng {
        Rng::derive(11, Stream::Sizes, i)
    }

    #[test]
    fn poisson_gaps_have_the_rate_and_no_memory() {
        let mut a = Arrivals::new(4.0, rng(0));
        let gaps: Vec<f64> = (0..200_000).map(|_| a.next_gap_s()).collect();
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        // sd of the mean 0.25 / sqrt(n) = 5.6e-4: 5 sigma.
        assert!((mean - 0.25).abs() < 2.8e-3, "{mean}");
        // Exponential: P(gap > 0.5) = e^-2 = 0.1353 (binomial sd 7.6e-4).
        let tail = gaps.iter().filter(|&&g| g > 0.5).count() as f64 / n;
        assert!((tail - (-2.0f64).exp()).abs() < 3.8e-3, "{tail}");
        // Consecutive gaps uncorrelated.
        let cov = gaps
            .windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / n;
        assert!(cov.abs() / (0.25 * 0.25) < 0.012, "{cov}");
    }

    #[test]
    fn size_distributions_have_their_means() {
        let mut s = Sizes::new(&SizeConfig::Fixed { bytes: 100_000 }, rng(1));
        assert!((0..10).all(|_| s.draw() == 100_000));
        let n = 200_000;
        let mut s = Sizes::new(
            &SizeConfig::Exp {
                mean_bytes: 10_000.0,
            },
            rng(2),
        );
        let mean = (0..n).map(|_| s.draw() as f64).sum::<f64>() / n as f64;
        // sd of the mean 10000 / sqrt(n) = 22: 5 sigma.
        assert!((mean - 10_000.0).abs() < 112.0, "{mean}");
        // Pareto shape 2.5: finite variance (mean 10000, sd 14142): scale 6000, minimum
        // 6000, mean within 5 sigma (158).
        let mut s = Sizes::new(
            &SizeConfig::Pareto {
                mean_bytes: 10_000.0,
                shape: 2.5,
            },
            rng(3),
        );
        let xs: Vec<u64> = (0..n).map(|_| s.draw()).collect();
        assert!(xs.iter().all(|&x| x >= 6000));
        let mean = xs.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - 10_000.0).abs() < 160.0, "{mean}");
        // P(X > 2 scale) = 2^-2.5.
        let tail = xs.iter().filter(|&&x| x > 12_000).count() as f64 / n as f64;
        assert!((tail - 2f64.powf(-2.5)).abs() < 0.004, "{tail}");
    }
}
