//! Loss classifiers: at every loss detection (DupThresh duplicate ACKs or a timeout) a sender
//! with a classifier asks whether the loss was a wireless error or congestion, and reacts to
//! a wireless loss without halving (paper 003, Martignon, Section 2: TCP NewReno-LP).
//!
//! * [`VegasPredictor`]: Brakmo & Peterson's Vegas loss predictor, `V_P = (cwnd / RTT_min -
//!   cwnd / RTT) x RTT_min`, the segments the flow keeps queued in the network: `V_P >= beta`
//!   means congestion, `V_P <= alpha` a wireless loss, in between the previous verdict holds.
//!   RTT_min is the sender's smallest exact RTT sample (`SenderState::min_rtt`, the same
//!   measurement Westwood reads); RTT is the mean of the exact samples of the last complete
//!   round trip (as Vegas averages its fine-grained samples over an RTT), or of the current
//!   one before the first round completes. Exact samples are those of `AckCtx::rtt_sample`
//!   (Karn's rule, no timer ticks). Vegas's own growth plugin keeps ns-2's bookkeeping on its
//!   fine clock (`fine_clock`), quirks included, which a predictor on a NewReno sender must
//!   not inherit.
//! * `Classifier::Oracle`: the true cause of the lost segment, which only the engine knows: Ideal-LP,
//!   the upper bound of every predictor (paper 003, Section 5). It reads nothing else of the
//!   engine's truth: one question per loss detection, about the segment retransmitted.
//!
//! The reaction to a wireless verdict (Section 2): ssthresh = the current flight size; after
//! DupThresh duplicate ACKs cwnd = ssthresh + DupThresh and NewReno's fast recovery, after a
//! timeout cwnd = 1. A congestion verdict leaves the cut to the growth plugin (NewReno).

use super::params::Param;
use super::state::SenderState;
use super::{AckCtx, CongestionKind, Cut, LossTruth};
use crate::packet::LossCause;

crate::declare_params! {
    /// The Vegas predictor's thresholds, segments queued in the network (paper 003: 1 and 3).
    pub struct VegasPredictorParams {
        /// A loss is wireless at most this many segments queued (paper 003: 1).
        alpha: f64 = Param::float("lp_alpha", "segments", 1.0, 0.0, 1e6).at_most("lp_beta"),
        /// A loss is congestion from this many segments queued (paper 003: 3).
        beta: f64 = Param::float("lp_beta", "segments", 3.0, 0.0, 1e6),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassifierConfig {
    VegasPredictor(VegasPredictorParams),
    Oracle,
}

/// Mean of the exact RTT samples per round trip.
#[derive(Clone, Debug, Default)]
struct RoundRtt {
    /// The round ends when an ACK covers this segment.
    end: u64,
    sum: f64,
    count: u32,
    last_mean: Option<f64>,
}

impl RoundRtt {
    fn on_ack(&mut self, s: &SenderState, ctx: &AckCtx) {
        if let Some(r) = ctx.rtt_sample {
            self.sum += r.as_secs();
            self.count += 1;
        }
        if s.snd_una > self.end {
            if self.count > 0 {
                self.last_mean = Some(self.sum / f64::from(self.count));
            }
            self.sum = 0.0;
            self.count = 0;
            self.end = s.snd_nxt;
        }
    }

    fn mean(&self) -> Option<f64> {
        self.last_mean
            .or_else(|| (self.count > 0).then(|| self.sum / f64::from(self.count)))
    }
}

#[derive(Clone, Debug)]
pub struct VegasPredictor {
    p: VegasPredictorParams,
    round: RoundRtt,
    /// The verdict between the thresholds; congestion before any evidence.
    last: LossCause,
}

impl VegasPredictor {
    pub fn new(p: VegasPredictorParams) -> Self {
        Self {
            p,
            round: RoundRtt::default(),
            last: LossCause::Queue,
        }
    }

    /// `V_P`, if both RTTs are known.
    pub fn queued_segments(&self, s: &SenderState) -> Option<f64> {
        let rtt = self.round.mean()?;
        let min = s.min_rtt?.as_secs();
        (rtt > 0.0 && min > 0.0).then(|| (s.cwnd / min - s.cwnd / rtt) * min)
    }

    fn classify(&mut self, s: &SenderState) -> LossCause {
        if let Some(vp) = self.queued_segments(s) {
            if vp >= self.p.beta {
                self.last = LossCause::Queue;
            } else if vp <= self.p.alpha {
                self.last = LossCause::Channel;
            }
        }
        self.last
    }
}

#[derive(Clone, Debug)]
pub enum Classifier {
    VegasPredictor(VegasPredictor),
    Oracle,
}

impl Classifier {
    pub fn new(c: &ClassifierConfig) -> Self {
        match c {
            ClassifierConfig::VegasPredictor(p) => {
                Classifier::VegasPredictor(VegasPredictor::new(*p))
            }
            ClassifierConfig::Oracle => Classifier::Oracle,
        }
    }

    /// Every ACK (the predictor's RTT measurement).
    #[inline]
    pub fn on_ack(&mut self, s: &SenderState, ctx: &AckCtx) {
        if let Classifier::VegasPredictor(p) = self {
            p.round.on_ack(s, ctx);
        }
    }

    /// The verdict on the loss just detected, of segment `s.snd_una`.
    pub fn classify(&mut self, s: &SenderState, truth: &dyn LossTruth) -> LossCause {
        match self {
            Classifier::VegasPredictor(p) => p.classify(s),
            // A detection of a segment no copy of which was dropped (spurious) is treated as
            // congestion: the conservative, standard reaction.
            Classifier::Oracle => truth.cause(s.snd_una).unwrap_or(LossCause::Queue),
        }
    }

    /// The classifier wants every exact RTT sample.
    pub fn wants_rtt_samples(&self) -> bool {
        matches!(self, Classifier::VegasPredictor(_))
    }
}

/// Paper 003 Section 2's reaction to a wireless loss.
pub fn wireless_cut(s: &SenderState, kind: CongestionKind) -> Cut {
    let flight = (s.flight() as f64).max(1.0);
    Cut {
        ssthresh: flight.max(2.0),
        cwnd: match kind {
            // Recovery adds the DupThresh inflation: cwnd = ssthresh + 3.
            CongestionKind::FastRetransmit => flight,
            CongestionKind::Timeout => 1.0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Dur, Time};

    fn ack(now_ms: u64, rtt_ms: u64) -> AckCtx {
        AckCtx {
            now: Time(now_ms * 1_000_000),
            rtt_sample: Some(Dur::from_secs(rtt_ms as f64 / 1000.0)),
            newly_acked: 1,
            newly_delivered: 1,
            ..AckCtx::default()
        }
    }

    fn state(cwnd: f64, min_rtt_ms: u64) -> SenderState {
        let mut s = SenderState::new(1, 100, 3, u64::MAX);
        s.cwnd = cwnd;
        s.min_rtt = Some(Dur::from_secs(min_rtt_ms as f64 / 1000.0));
        s
    }

    /// One round of ACKs with the given RTT samples, closed by an ACK past its end.
    fn round(p: &mut VegasPredictor, s: &mut SenderState, rtts_ms: &[u64]) {
        for &r in rtts_ms {
            s.snd_una += 1;
            assert!(s.snd_una <= p.round.end);
            p.round.on_ack(s, &ack(0, r));
        }
        s.snd_una = p.round.end + 1;
        s.snd_nxt = s.snd_una + 100; // the next round ends 100 segments later
        p.round.on_ack(s, &AckCtx::default());
    }

    fn predictor(s: &mut SenderState) -> VegasPredictor {
        let mut p = VegasPredictor::new(VegasPredictorParams::default());
        s.snd_nxt = 100;
        s.snd_una = 1; // the first ACK closes the empty round before the data
        p.round.on_ack(s, &AckCtx::default());
        p
    }

    #[test]
    fn the_predictor_has_hysteresis_between_alpha_and_beta() {
        let mut s = state(20.0, 100);
        let mut p = predictor(&mut s);
        assert_eq!(p.classify(&s), LossCause::Queue, "no evidence: congestion");
        // RTT 105 ms: V_P = 20 (1 - 100/105) = 0.95 <= alpha: wireless.
        round(&mut p, &mut s, &[100, 110]);
        assert!((p.queued_segments(&s).unwrap() - 20.0 * (1.0 - 100.0 / 105.0)).abs() < 1e-12);
        assert_eq!(p.classify(&s), LossCause::Channel);
        // RTT 110 ms: V_P = 1.82, between the thresholds: the last verdict holds.
        round(&mut p, &mut s, &[110]);
        assert_eq!(p.classify(&s), LossCause::Channel);
        // RTT 120 ms: V_P = 3.33 >= beta: congestion, and it holds at 110 ms again.
        round(&mut p, &mut s, &[120, 120]);
        assert_eq!(p.classify(&s), LossCause::Queue);
        round(&mut p, &mut s, &[110]);
        assert_eq!(p.classify(&s), LossCause::Queue);
        // Exactly beta counts as congestion, exactly alpha as wireless.
        s.cwnd = 3.0 * 1.2 / 0.2; // V_P = cwnd (1 - 100/120) = 3
        round(&mut p, &mut s, &[120]);
        assert_eq!(p.classify(&s), LossCause::Queue);
        s.cwnd = 1.2 / 0.2; // V_P = 1
        assert_eq!(p.classify(&s), LossCause::Channel);
    }

    #[test]
    fn the_oracle_reads_the_cause_of_the_lost_segment() {
        struct Truth;
        impl LossTruth for Truth {
            fn cause(&self, seq: u64) -> Option<LossCause> {
                match seq {
                    7 => Some(LossCause::Channel),
                    8 => Some(LossCause::Queue),
                    _ => None,
                }
            }
        }
        let mut c = Classifier::new(&ClassifierConfig::Oracle);
        let mut s = state(10.0, 100);
        for (una, want) in [
            (7, LossCause::Channel),
            (8, LossCause::Queue),
            (9, LossCause::Queue),
        ] {
            s.snd_una = una;
            assert_eq!(c.classify(&s, &Truth), want, "segment {una}");
        }
    }

    #[test]
    fn a_wireless_loss_keeps_the_flight_as_ssthresh() {
        let mut s = state(30.0, 100);
        s.snd_una = 100;
        s.snd_max = 124;
        let fr = wireless_cut(&s, CongestionKind::FastRetransmit);
        assert_eq!((fr.ssthresh, fr.cwnd), (24.0, 24.0));
        let to = wireless_cut(&s, CongestionKind::Timeout);
        assert_eq!((to.ssthresh, to.cwnd), (24.0, 1.0));
    }
}
