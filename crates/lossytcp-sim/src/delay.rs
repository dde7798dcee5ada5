//! Propagation delay of a link: fixed, or the semi-Markov process of paper 001 §3.1.
//!
//! The semi-Markov process has M states with delays T_i; on entering state i it stays for
//! T_i + Exp(mean V_i) (so a state lasts at least one of its own delays), then moves to j with
//! probability H[i][j]. A packet's delay is the state's delay when it *starts transmission*,
//! so a drop in delay lets later packets overtake earlier ones, as on a real path.

use serde::{Deserialize, Serialize};

use crate::rng::Rng;
use crate::time::{Dur, Time};

/// A link's propagation delay.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DelayConfig {
    Fixed {
        delay_s: f64,
    },
    /// Paper 001 §3.1: M states with delays T_i, embedded transition matrix H, holding time in
    /// state i of T_i + Exp(mean V_i). A packet's delay is fixed when it starts transmission.
    SemiMarkov {
        delay_s: Vec<f64>,
        h: Vec<Vec<f64>>,
        excess_mean_s: Vec<f64>,
    },
}

pub enum Delay {
    Fixed(Dur),
    SemiMarkov(SemiMarkov),
}

impl Delay {
    pub fn build(cfg: &DelayConfig, rng: Rng) -> Delay {
        match cfg {
            DelayConfig::Fixed { delay_s } => Delay::Fixed(Dur::from_secs(*delay_s)),
            DelayConfig::SemiMarkov {
                delay_s,
                h,
                excess_mean_s,
            } => Delay::SemiMarkov(SemiMarkov::new(delay_s, h, excess_mean_s, rng)),
        }
    }
    /// Record (entry time, state) at every state the semi-Markov process enters from now on
    /// (a fixed delay has none).
    pub fn trace_states(&mut self) {
        if let Delay::SemiMarkov(s) = self {
            s.trace = Some(Vec::new());
        }
    }
    pub fn take_trace(&mut self) -> Vec<(f64, u32)> {
        match self {
            Delay::SemiMarkov(s) => s.trace.take().unwrap_or_default(),
            Delay::Fixed(_) => Vec::new(),
        }
    }
    #[inline]
    pub fn at(&mut self, now: Time) -> Dur {
        match self {
            Delay::Fixed(d) => *d,
            Delay::SemiMarkov(s) => s.delay_at(now),
        }
    }
}

pub struct SemiMarkov {
    delay: Vec<Dur>,
    h: Vec<Vec<f64>>,
    excess_mean_s: Vec<f64>,
    state: usize,
    until: Time,
    started: bool,
    rng: Rng,
    /// Visits and time spent per state, for tests of the process itself.
    pub visits: Vec<u64>,
    pub time_in_state: Vec<Dur>,
    trace: Option<Vec<(f64, u32)>>,
}

/// Stationary distribution of the embedded chain H, by iterating the lazy chain (I + H)/2,
/// which has the same stationary law and is aperiodic even when H is not.
pub fn embedded_stationary(h: &[Vec<f64>]) -> Vec<f64> {
    let m = h.len();
    let mut pi = vec![1.0 / m as f64; m];
    for _ in 0..10_000 {
        let mut next = vec![0.0; m];
        for i in 0..m {
            next[i] += 0.5 * pi[i];
            for j in 0..m {
                next[j] += 0.5 * pi[i] * h[i][j];
            }
        }
        let diff: f64 = next.iter().zip(&pi).map(|(a, b)| (a - b).abs()).sum();
        pi = next;
        if diff < 1e-15 {
            break;
        }
    }
    pi
}

impl SemiMarkov {
    pub fn new(delay_s: &[f64], h: &[Vec<f64>], excess_mean_s: &[f64], rng: Rng) -> Self {
        let m = delay_s.len();
        Self {
            delay: delay_s.iter().map(|&d| Dur::from_secs(d)).collect(),
            h: h.to_vec(),
            excess_mean_s: excess_mean_s.to_vec(),
            state: 0,
            until: Time::ZERO,
            started: false,
            rng,
            visits: vec![0; m],
            time_in_state: vec![Dur::ZERO; m],
            trace: None,
        }
    }

    fn enter(&mut self, state: usize, at: Time) {
        self.state = state;
        let hold =
            self.delay[state] + Dur::from_secs(self.rng.exponential(self.excess_mean_s[state]));
        let hold = hold.max(Dur(1));
        self.visits[state] += 1;
        self.time_in_state[state] = self.time_in_state[state] + hold;
        self.until = at + hold;
        if let Some(t) = self.trace.as_mut() {
            t.push((at.as_secs(), state as u32));
        }
    }

    pub fn delay_at(&mut self, now: Time) -> Dur {
        if !self.started {
            // Start in time-stationarity: state i with probability proportional to
            // pi_i * E[X_i], pi the embedded chain's stationary law.
            let pi = embedded_stationary(&self.h);
            let w: Vec<f64> = (0..pi.len())
                .map(|i| pi[i] * (self.delay[i].as_secs() + self.excess_mean_s[i]))
                .collect();
            let total: f64 = w.iter().sum();
            let probs: Vec<f64> = w.iter().map(|x| x / total).collect();
            let s = self.rng.categorical(&probs);
            self.started = true;
            self.enter(s, Time::ZERO);
        }
        while now >= self.until {
            // (Borrowing the row, not cloning it: a clone per state change was most of the
            // cost of a fast process, issue 24.)
            let next = self.rng.categorical(&self.h[self.state]);
            let at = self.until;
            self.enter(next, at);
        }
        self.delay[self.state]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    fn paper_001() -> SemiMarkov {
        let h = vec![
            vec![0.1, 0.33, 0.57],
            vec![0.30, 0.12, 0.58],
            vec![0.165, 0.36, 0.475],
        ];
        SemiMarkov::new(
            &[0.058056, 0.060383, 0.081911],
            &h,
            &[0.1067, 0.1183, 0.0042],
            Rng::derive(9, Stream::Delay, 0),
        )
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn state_frequencies_and_holding_times_match_the_process() {
        let mut s = paper_001();
        let end = Time::from_secs(20_000.0);
        s.delay_at(end);
        let pi = embedded_stationary(&s.h);
        let visits: u64 = s.visits.iter().sum();
        for i in 0..3 {
            let freq = s.visits[i] as f64 / visits as f64;
            // ~190k visits: sd of a frequency < 0.0012.
            assert!(
                (freq - pi[i]).abs() < 0.006,
                "state {i}: {freq} vs {}",
                pi[i]
            );
            let mean_hold = s.time_in_state[i].as_secs() / s.visits[i] as f64;
            let expect = s.delay[i].as_secs() + s.excess_mean_s[i];
            assert!(
                (mean_hold - expect).abs() / expect < 0.02,
                "state {i}: hold {mean_hold} vs {expect}"
            );
        }
    }

    #[test]
    fn the_state_trace_is_the_process_itself() {
        let mut traced = Delay::SemiMarkov(paper_001());
        let mut plain = Delay::SemiMarkov(paper_001());
        traced.trace_states();
        let mut t = Time::ZERO;
        let mut changes_seen = Vec::new();
        while t < Time::from_secs(100.0) {
            let d = traced.at(t);
            assert_eq!(d, plain.at(t), "tracing changed the delay at {t:?}");
            changes_seen.push((t.as_secs(), d));
            t += Dur::from_secs(0.001);
        }
        let trace = traced.take_trace();
        let Delay::SemiMarkov(s) = &traced else {
            unreachable!()
        };
        assert_eq!(trace.len() as u64, s.visits.iter().sum::<u64>());
        assert_eq!(trace[0].0, 0.0);
        for w in trace.windows(2) {
            // A visit lasts at least its own delay.
            let (t0, i) = w[0];
            assert!(w[1].0 - t0 >= s.delay[i as usize].as_secs() - 1e-9);
        }
        // The delay sampled every ms is the state's delay the trace gives for that time.
        for (t, d) in changes_seen.iter().step_by(97) {
            let k = trace.partition_point(|e| e.0 <= *t) - 1;
            assert_eq!(s.delay[trace[k].1 as usize], *d);
        }
        assert!(traced.take_trace().is_empty() && plain.take_trace().is_empty());
    }

    #[test]
    fn stationary_of_a_periodic_chain() {
        let pi = embedded_stationary(&[vec![0.0, 1.0], vec![1.0, 0.0]]);
        assert!((pi[0] - 0.5).abs() < 1e-12);
    }
}
