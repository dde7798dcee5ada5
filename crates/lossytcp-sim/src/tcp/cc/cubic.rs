//! CUBIC, RFC 9438 ("CUBIC for Fast and Long-Distance Networks", 2023): after a congestion
//! event the window follows the cubic `W_cubic(t) = C (t - K)^3 + W_max` of the time since
//! the congestion-avoidance stage began, concave up to the window of the last loss and convex
//! beyond it, never slower than a Reno flow would grow (the Reno-friendly region), and cuts
//! the window to `β_cubic` = 0.7 of itself at a loss.
//!
//! Two sets of rules (`cubic_rules`):
//!
//! * `rfc9438` (the default): the RFC's rules in floating point, segment units, each cited at
//!   the line enforcing it. Two choices the RFC leaves open: the window grows by the segments
//!   an ACK acknowledges (`(target - cwnd) / cwnd` per segment, so delayed ACKs do not halve
//!   the cubic curve; with one ACK per segment this is the RFC's per-ACK rule), and, as
//!   Linux, not while the application or the receiver's window, not cwnd, limits the flight
//!   (§5.8).
//! * `linux`: Linux's `net/ipv4/tcp_cubic.c` (`bictcp_update()`, `tcp_cong_avoid_ai()`), whose
//!   arithmetic differs: time in jiffies (`tcp::linux_clock`: HZ 250, 4 ms, the reference
//!   kernel's) and the cubic in units of 2^-10 s; C from `bic_scale` = round(C x 1024 / 10)
//!   (41: C = 0.4004) and β from round(β x 1024) (717); the RTT added to t is the minimum RTT
//!   (`delay_min`), not the smoothed one; an integer window grown by one segment per `cnt`
//!   delivered (`cnt` recomputed at most once per jiffy, and while cwnd is unchanged only
//!   once more than HZ / 32 jiffies have passed, 32 ms); at most 5% per RTT while W_max is
//!   unknown (`cnt` <= 20, after start-up and after a timeout, which forgets W_max); the
//!   Reno-friendly estimate `tcp_friendliness` grows one segment per cwnd x 15/8 delivered
//!   (α = 0.533) and has no switch to α = 1; ssthresh = cwnd x 717/1024 (the RFC's: the
//!   flight times β). K is computed with an exact cube root where Linux's table and one
//!   Newton step err by 0.2% on average.
//!
//! Slow start (`cubic_slow_start`): RFC 5681's (`reno`; Linux's counts every delivered segment
//! under the `linux` rules), HyStart++ (`hystart_pp`, RFC 9406, the RFC 9438 §4.10 SHOULD,
//! only in the first slow start), or Linux's HyStart (`hystart`, ACK trains and delay
//! increase, in every slow start with cwnd >= 16, Linux's default). Loss recovery is the
//! sender's SACK recovery (RFC 6675), as Linux pairs CUBIC with SACK; what the recovery does
//! to the window in between (PRR in Linux) is the recovery plugin's.

use super::{CaEvent, Growth, LinuxReno, LinuxSlowStart};
use crate::tcp::linux_clock::{jiffies, usecs_to_jiffies, HZ};
use crate::tcp::params::Param;
use crate::tcp::view::{Conn, SenderView, Window};
use crate::tcp::{AckCtx, CaState, CongestionKind, Cut};
use crate::time::{Dur, Time};

crate::param_choice! {
    /// Which rules CUBIC follows.
    pub enum CubicRules {
        /// RFC 9438, in floating point.
        Rfc9438 = "rfc9438",
        /// Linux's tcp_cubic.c arithmetic (see the module documentation).
        Linux = "linux",
    }
}

crate::param_choice! {
    /// CUBIC's slow start.
    pub enum CubicSlowStart {
        /// RFC 5681 (Linux's byte counting under the linux rules).
        Reno = "reno",
        /// HyStart++, RFC 9406.
        HystartPp = "hystart_pp",
        /// Linux's HyStart (Ha & Rhee 2011): ACK trains and delay increase.
        Hystart = "hystart",
    }
}

crate::declare_params! {
    /// CUBIC's parameters (RFC 9438 §4.1.1's constants; Linux's module parameters).
    pub struct CubicParams {
        /// C, the cubic's aggressiveness (RFC 9438 §4.1.1: 0.4; Linux bic_scale 41/1024 x 10).
        c: f64 = Param::float("cubic_c", "segments/s^3", 0.4, 0.0, 100.0)
            .open_min()
            .ns3("ns3::TcpCubic::C"),
        /// β_cubic, the share of the window kept at a congestion event (RFC 9438 §4.1.1:
        /// 0.7; Linux 717/1024).
        beta: f64 = Param::float("cubic_beta", "", 0.7, 0.0, 1.0)
            .open_min()
            .open_max()
            .ns3("ns3::TcpCubic::Beta"),
        /// Fast convergence: a flow whose window at a loss is below W_max releases more
        /// bandwidth (RFC 9438 §4.7; Linux fast_convergence).
        fast_convergence: bool = Param::flag("cubic_fast_convergence", true)
            .ns3("ns3::TcpCubic::FastConvergence"),
        /// The Reno-friendly region: never grow slower than Reno would (RFC 9438 §4.3; Linux
        /// tcp_friendliness).
        reno_friendly: bool = Param::flag("cubic_reno_friendly", true),
        /// Slow start: `reno` (RFC 5681), `hystart_pp` (RFC 9406 HyStart++) or `hystart`
        /// (Linux's HyStart).
        slow_start: CubicSlowStart = Param::choice("cubic_slow_start", CubicSlowStart::WORDS, "hystart_pp"),
        /// `rfc9438` (the RFC in floating point) or `linux` (tcp_cubic.c's integer arithmetic,
        /// minimum RTT, jiffies; see the variant's documentation).
        rules: CubicRules = Param::choice("cubic_rules", CubicRules::WORDS, "rfc9438"),
    }
}

/// RFC 9406 §4.3's constants.
mod hspp {
    use crate::time::Dur;
    pub const MIN_RTT_THRESH: Dur = Dur(4_000_000);
    pub const MAX_RTT_THRESH: Dur = Dur(16_000_000);
    pub const MIN_RTT_DIVISOR: u64 = 8;
    pub const N_RTT_SAMPLE: u32 = 8;
    pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
    pub const CSS_ROUNDS: u32 = 5;
    /// L for a sender that does not pace.
    pub const L: u64 = 8;
}

/// Linux HyStart's constants (tcp_cubic.c).
mod hs {
    use crate::time::Dur;
    pub const LOW_WINDOW: u64 = 16;
    pub const ACK_DELTA: Dur = Dur(2_000_000);
    pub const MIN_SAMPLES: u32 = 8;
    pub const DELAY_MIN: Dur = Dur(4_000_000);
    pub const DELAY_MAX: Dur = Dur(16_000_000);
    /// `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE) of `hystart_ack_delay()`.
    pub const GSO_MAX_BYTES: f64 = 65536.0;
}

/// Per-round minimum RTT, shared by HyStart++ and HyStart.
#[derive(Clone, Debug, Default)]
struct Rounds {
    /// The round ends when the cumulative ACK passes this segment (RFC 9406 `windowEnd`).
    end: u64,
    started: bool,
    last_min: Option<Dur>,
    current_min: Option<Dur>,
    samples: u32,
}

impl Rounds {
    /// A new round starts if the ACK covers the last one's end, the next ending at `next_end`;
    /// returns whether it did.
    fn update(&mut self, snd_una: u64, next_end: u64) -> bool {
        if self.started && snd_una <= self.end {
            return false;
        }
        self.restart(next_end);
        true
    }
    fn restart(&mut self, end: u64) {
        self.started = true;
        self.end = end;
        self.last_min = self.current_min.take();
        self.samples = 0;
    }
    fn sample(&mut self, rtt: Dur) {
        self.current_min = Some(self.current_min.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HsppPhase {
    SlowStart,
    /// Conservative slow start: the rounds it has lasted, the baseline minimum RTT.
    Css {
        rounds: u32,
        baseline: Dur,
    },
    Done,
}

/// The RFC rules' congestion-avoidance stage (RFC 9438 §4.1.2's variables).
#[derive(Clone, Copy, Debug)]
struct Epoch {
    t_epoch: Time,
    w_max: f64,
    k: f64,
    w_est: f64,
}

/// What a congestion event changed, kept for its undo (`CaEvent::Undo`).
#[derive(Clone, Copy, Debug)]
struct Prior {
    cwnd: f64,
    ssthresh: f64,
    w_max: f64,
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    after_timeout: bool,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    /// The state before the last congestion event.
    prior: Option<Prior>,
    // RFC 9438 state.
    /// W_max: the window before the last reduction (0: none yet, or forgotten).
    w_max: f64,
    /// cwnd_prior: the window when ssthresh was last set.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The next stage follows a timeout (§4.8: K = 0, W_max = cwnd_epoch).
    after_timeout: bool,
    hspp: HsppPhase,
    rounds: Rounds,
    // Linux state (struct bictcp), times in jiffies.
    linux: LinuxReno,
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: u64,
    origin: u64,
    k_units: u64,
    epoch_start: Option<u64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    delay_min: Option<Dur>,
    // Linux HyStart.
    found: bool,
    round_start: Time,
    last_ack: Time,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Self {
            p,
            prior: None,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            after_timeout: false,
            hspp: HsppPhase::SlowStart,
            rounds: Rounds::default(),
            linux: LinuxReno::new(LinuxSlowStart::Acked),
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin: 0,
            k_units: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delay_min: None,
            found: false,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
        }
    }

    /// The congestion event `p` was saved at was spurious. Linux (`tcp_undo_cwnd_reduction()`
    /// with CUBIC's `tcp_reno_undo_cwnd()`): cwnd back to at least the window at the event,
    /// ssthresh to at least `tcp_current_ssthresh()` then (the larger of ssthresh and 3/4 of
    /// cwnd); CUBIC's own state stays as the cut left it. RFC 9438 §4.9: the window,
    /// ssthresh, W_max, K and the stage (epoch, W_est) of before the event come back.
    fn undo(&mut self, w: &mut Window, p: Prior) {
        let ssthresh = match self.p.rules {
            CubicRules::Linux => p.ssthresh.max(0.75 * p.cwnd),
            CubicRules::Rfc9438 => {
                self.w_max = p.w_max;
                self.cwnd_prior = p.cwnd_prior;
                self.epoch = p.epoch;
                self.after_timeout = p.after_timeout;
                p.ssthresh
            }
        };
        w.set_cwnd(w.cwnd().max(p.cwnd));
        w.set_ssthresh(w.ssthresh().max(ssthresh));
    }

    /// α_cubic = 3 (1 - β) / (1 + β) (RFC 9438 §4.3, Figure 4's AIMD(α, β) friendliness).
    fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
    }

    /// W_max of the current stage (for tests and traces).
    pub fn w_max(&self) -> f64 {
        match self.p.rules {
            CubicRules::Rfc9438 => self.epoch.map_or(self.w_max, |e| e.w_max),
            CubicRules::Linux => self.last_max_cwnd as f64,
        }
    }

    /// K of the current stage, seconds.
    pub fn k(&self) -> Option<f64> {
        match self.p.rules {
            CubicRules::Rfc9438 => self.epoch.map(|e| e.k),
            CubicRules::Linux => self.epoch_start.map(|_| self.k_units as f64 / 1024.0),
        }
    }

    // ------------------------------------------------------------------ RFC 9438 rules
    /// §4.2: the RTT of `W_cubic(t + RTT)`, the smoothed RTT.
    fn rfc_rtt(s: &impl SenderView) -> f64 {
        s.srtt().or(s.min_rtt()).map_or(0.0, Dur::as_secs)
    }

    /// §4.2, §4.8 and §4.10: a congestion-avoidance stage begins.
    fn start_epoch(&mut self, now: Time, cwnd: f64) -> Epoch {
        let c = self.p.c;
        let (w_max, k) = if self.after_timeout || self.w_max <= cwnd {
            // §4.8 (after a timeout) and §4.10 (a slow start that ended without a loss, or
            // a window already at W_max): K = 0 and W_max = cwnd_epoch.
            (cwnd, 0.0)
        } else {
            // §4.2 Figure 2: K = cbrt((W_max - cwnd_epoch) / C).
            (self.w_max, ((self.w_max - cwnd) / c).cbrt())
        };
        self.after_timeout = false;
        self.w_max = w_max;
        Epoch {
            t_epoch: now,
            w_max,
            k,
            // §4.3: W_est = cwnd_epoch at the start of the stage.
            w_est: cwnd,
        }
    }

    fn rfc_congestion_avoidance(&mut self, w: &mut Window, ctx: &AckCtx, acked: f64) {
        let cwnd = w.cwnd();
        let e = match self.epoch {
            Some(e) => e,
            None => {
                let e = self.start_epoch(ctx.now, cwnd);
                self.epoch = Some(e);
                e
            }
        };
        let c = self.p.c;
        let t = ctx.now.since(e.t_epoch).as_secs();
        // §4.2 Figure 1.
        let w_cubic = |t: f64| c * (t - e.k).powi(3) + e.w_max;
        // §4.2: target = W_cubic(t + RTT), bounded to [cwnd, 1.5 cwnd].
        let target = w_cubic(t + Self::rfc_rtt(w)).clamp(cwnd, 1.5 * cwnd);
        let mut w_est = e.w_est;
        if self.p.reno_friendly {
            // §4.3 Figure 4; α_cubic becomes 1 once W_est reaches cwnd_prior.
            let alpha = if w_est >= self.cwnd_prior {
                1.0
            } else {
                self.alpha_cubic()
            };
            w_est += alpha * acked / cwnd;
        }
        let next = if self.p.reno_friendly && w_cubic(t) < w_est {
            // §4.3: the Reno-friendly region, cwnd = W_est.
            w_est
        } else {
            // §4.4 (concave, cwnd < W_max) and §4.5 (convex): (target - cwnd) / cwnd per
            // segment acknowledged.
            cwnd + (target - cwnd) * acked / cwnd
        };
        self.epoch = Some(Epoch { w_est, ..e });
        w.set_cwnd(next);
    }

    /// RFC 9438 §4.6 (a loss) and §4.8 (a timeout): W_max, ssthresh, cwnd.
    fn rfc_cut(&mut self, s: &Conn, kind: CongestionKind) -> Cut {
        let cwnd = s.cwnd();
        let beta = self.p.beta;
        // §4.7: fast convergence.
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + beta) / 2.0
        } else {
            cwnd
        };
        // §4.6 Figure 5: ssthresh = flight_size x β, cwnd_prior = cwnd, cwnd = max(ssthresh,
        // 2), ssthresh >= 2.
        let ssthresh = (s.flight_size() as f64 * beta).max(2.0);
        self.cwnd_prior = cwnd;
        self.epoch = None;
        // A loss detected by duplicate ACKs sets W_max for the stage that follows, even if
        // a timeout's slow start came before it; a timeout makes it §4.8's stage.
        self.after_timeout = kind == CongestionKind::Timeout;
        let cwnd = match kind {
            CongestionKind::FastRetransmit => ssthresh,
            // §4.8: "CUBIC follows Reno to reduce cwnd [RFC5681]": one segment.
            CongestionKind::Timeout => 1.0,
        };
        Cut { ssthresh, cwnd }
    }

    // ----------------------------------------------------------------------- Linux rules
    fn beta_1024(&self) -> u64 {
        (self.p.beta * 1024.0).round() as u64
    }
    fn bic_scale(&self) -> u64 {
        (self.p.c * 1024.0 / 10.0).round().max(1.0) as u64
    }

    /// `bictcp_update()`: recomputes `cnt`, segments per one-segment increase.
    fn linux_update(&mut self, now: Time, cwnd: u64, acked: u64) {
        let now_j = jiffies(now);
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time) <= HZ / 32 {
            return;
        }
        // At most once per jiffy; a reduction (epoch_start cleared) forces it.
        if self.epoch_start.is_none() || now_j != self.last_time {
            self.last_cwnd = cwnd;
            self.last_time = now_j;
            let epoch_start = match self.epoch_start {
                Some(e) => e,
                None => {
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k_units = 0;
                        self.origin = cwnd;
                    } else {
                        // K = cbrt((W_max - cwnd) x 0.1 s / (C x 0.1 s)) in 2^-10 s units:
                        // cube_factor = 2^40 / (bic_scale x 10).
                        let cube_factor = (1u64 << 40) / (self.bic_scale() * 10);
                        let x = (cube_factor * (self.last_max_cwnd - cwnd)) as f64;
                        self.k_units = x.cbrt() as u64;
                        self.origin = self.last_max_cwnd;
                    }
                    self.epoch_start = Some(now_j);
                    now_j
                }
            };
            // t = now - epoch_start + delay_min, in 2^-10 s.
            // usecs_to_jiffies() of the microseconds Linux keeps.
            let delay_j = self.delay_min.map_or(0, usecs_to_jiffies);
            let t = ((now_j.saturating_sub(epoch_start) + delay_j) << 10) / HZ;
            let offs = t.abs_diff(self.k_units);
            // delta = C x offs^3 in segments: (bic_scale x 10 x offs^3) >> 40.
            let cube = u128::from(self.bic_scale() * 10) * u128::from(offs).pow(3);
            let delta = (cube >> 40) as u64;
            let target = if t < self.k_units {
                self.origin.saturating_sub(delta)
            } else {
                self.origin + delta
            };
            self.cnt = if target > cwnd {
                cwnd / (target - cwnd)
            } else {
                100 * cwnd
            };
            // Without a known W_max, at most 5% per RTT.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        if self.p.reno_friendly {
            // beta_scale = 8 (1024 + beta) / 3 / (1024 - beta): one segment per
            // cwnd x beta_scale / 8 delivered.
            let b = self.beta_1024();
            let beta_scale = 8 * (1024 + b) / 3 / (1024 - b);
            let delta = (cwnd * beta_scale) >> 3;
            if delta > 0 {
                while self.ack_cnt > delta {
                    self.ack_cnt -= delta;
                    self.tcp_cwnd += 1;
                }
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        // At most one segment per two delivered: 1.5x per RTT.
        self.cnt = self.cnt.max(2);
    }

    fn linux_cut(&mut self, s: &Conn, kind: CongestionKind) -> Cut {
        if kind == CongestionKind::Timeout && s.in_recovery() {
            // tcp_enter_loss(): a timeout that interrupts a fast recovery does not ask the
            // congestion control for a new ssthresh.
            self.linux.reset();
            return Cut {
                ssthresh: s.ssthresh(),
                cwnd: 1.0,
            };
        }
        let cwnd = s.cwnd() as u64;
        let b = self.beta_1024();
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            cwnd * (1024 + b) / 2048
        } else {
            cwnd
        };
        let ssthresh = ((cwnd * b) / 1024).max(2) as f64;
        self.linux.reset();
        match kind {
            CongestionKind::FastRetransmit => Cut {
                ssthresh,
                cwnd: ssthresh,
            },
            CongestionKind::Timeout => Cut {
                ssthresh,
                cwnd: 1.0,
            },
        }
    }

    /// `cubictcp_state(TCP_CA_Loss)`: a timeout forgets everything (`bictcp_reset()`).
    fn linux_reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.origin = 0;
        self.k_units = 0;
        self.epoch_start = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.delay_min = None;
    }

    // ------------------------------------------------------------------------ slow start
    /// HyStart++ (RFC 9406 §4.2) on one ACK in slow start or CSS: the rounds, the RTT
    /// samples and the changes of phase (into CSS, back to slow start, on to congestion
    /// avoidance with ssthresh = cwnd).
    fn hystart_pp_detect(&mut self, w: &mut Window, ctx: &AckCtx) {
        let new_round = self.rounds.update(w.snd_una(), w.snd_nxt());
        if let Some(r) = ctx.rtt_sample {
            self.rounds.sample(r);
        }
        let enough = self.rounds.samples >= hspp::N_RTT_SAMPLE;
        match self.hspp {
            HsppPhase::SlowStart => {
                if let (true, Some(cur), Some(last)) =
                    (enough, self.rounds.current_min, self.rounds.last_min)
                {
                    // RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR,
                    // MAX_RTT_THRESH)); a delay increase of RttThresh enters CSS.
                    let thresh = Dur(last.0 / hspp::MIN_RTT_DIVISOR)
                        .clamp(hspp::MIN_RTT_THRESH, hspp::MAX_RTT_THRESH);
                    if cur >= last + thresh {
                        self.hspp = HsppPhase::Css {
                            rounds: 0,
                            baseline: cur,
                        };
                    }
                }
            }
            HsppPhase::Css { rounds, baseline } => {
                let rounds = rounds + u32::from(new_round);
                if enough && self.rounds.current_min.is_some_and(|m| m < baseline) {
                    // The RTT fell back below the baseline: the exit was spurious; resume.
                    self.hspp = HsppPhase::SlowStart;
                } else if rounds >= hspp::CSS_ROUNDS {
                    // CSS_ROUNDS rounds of CSS: congestion avoidance, ssthresh = cwnd.
                    w.set_ssthresh(w.cwnd());
                    self.hspp = HsppPhase::Done;
                } else {
                    self.hspp = HsppPhase::Css { rounds, baseline };
                }
            }
            HsppPhase::Done => {}
        }
    }

    /// `bictcp_hystart_reset()`: a round starts now and ends with the ACK of the data sent
    /// so far. Linux's end_seq is `snd_nxt`, which a timeout does not move back: the
    /// engine's `snd_max`.
    fn hystart_new_round(&mut self, w: &Window, now: Time) {
        self.rounds.restart(w.snd_max());
        self.round_start = now;
        self.last_ack = now;
    }

    /// Linux's HyStart (`hystart_update()`), on an ACK with an RTT sample in slow start.
    fn hystart(&mut self, w: &mut Window, now: Time, delay: Dur) {
        if self.found {
            return;
        }
        // hystart_update() restarts the round before its `hystart_low_window` test, so the
        // rounds follow the flights from the first ACK on: the first round with cwnd >= 16
        // starts with its flight's first ACK, not on the ACK that took cwnd to 16 (a round
        // begun mid-flight sees only the flight's tail as a train, and its minimum RTT
        // misses the flight's head, which is what the delay test compares).
        if !self.rounds.started || w.snd_una() > self.rounds.end {
            self.hystart_new_round(w, now);
        }
        if (w.cwnd() as u64) < hs::LOW_WINDOW {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        // ACK train: ACKs closely spaced for longer than delay_min / 2 (plus the GSO
        // cushion of hystart_ack_delay(), at most 1 ms; halved, SK_PACING_NONE, because the
        // sender does not pace). The cushion comes from sk_pacing_rate, which
        // tcp_update_pacing_rate() keeps even without pacing: segment x max(cwnd, flight) /
        // srtt, doubled (tcp_pacing_ss_ratio) below ssthresh / 2, x 1.2 (tcp_pacing_ca_ratio)
        // above.
        if now.since(self.last_ack) <= hs::ACK_DELTA {
            self.last_ack = now;
            let srtt = w.srtt().unwrap_or(delay).as_secs().max(1e-6);
            let ratio = if w.cwnd() < w.ssthresh() / 2.0 {
                2.0
            } else {
                1.2
            };
            let packets = w.cwnd().max(w.in_flight() as f64);
            let rate_bytes = ratio * packets * f64::from(w.segment_bytes()) / srtt;
            let cushion = Dur::from_secs((hs::GSO_MAX_BYTES * 4.0 / rate_bytes).min(1e-3));
            let threshold = Dur((delay_min + cushion).0 / 2);
            if now.since(self.round_start) > threshold {
                self.found = true;
            }
        }
        // Delay increase: the round's minimum RTT over delay_min + clamp(delay_min / 8).
        self.rounds.sample(delay);
        if self.rounds.samples > hs::MIN_SAMPLES {
            let thresh = Dur(delay_min.0 / 8).clamp(hs::DELAY_MIN, hs::DELAY_MAX);
            if self
                .rounds
                .current_min
                .is_some_and(|m| m > delay_min + thresh)
            {
                self.found = true;
            }
        }
        if self.found {
            w.set_ssthresh(w.cwnd());
        }
    }

    /// Linux rules: `cubictcp_acked()` ignores the ACK's RTT sample within a second (HZ
    /// jiffies) of the congestion-avoidance stage's start.
    fn discards_delay(&self, now: Time) -> bool {
        self.p.rules == CubicRules::Linux
            && self
                .epoch_start
                .is_some_and(|e| jiffies(now).saturating_sub(e) < HZ)
    }

    /// HyStart++ runs: the first slow start, until it hands over to congestion avoidance.
    fn hystart_pp_on(&self) -> bool {
        self.p.slow_start == CubicSlowStart::HystartPp && self.hspp != HsppPhase::Done
    }

    /// One ACK's growth in slow start; returns the segments left for congestion avoidance.
    fn slow_start(&mut self, w: &mut Window, ctx: &AckCtx) -> u64 {
        let acked = ctx.newly_delivered;
        if self.hystart_pp_on() {
            // RFC 9406 §4.2: cwnd += min(N, L x SMSS), a quarter of that in CSS.
            let grow = acked.min(hspp::L) as f64;
            let grow = match self.hspp {
                HsppPhase::Css { .. } => grow / hspp::CSS_GROWTH_DIVISOR,
                _ => grow,
            };
            w.set_cwnd(w.cwnd() + grow);
            return 0;
        }
        match self.p.rules {
            CubicRules::Rfc9438 => {
                // RFC 5681 eq. (2): at most one segment per ACK.
                w.set_cwnd(w.cwnd() + acked.min(1) as f64);
                0
            }
            CubicRules::Linux => {
                let (cwnd, left) =
                    self.linux
                        .slow_start(w.cwnd() as u64, w.ssthresh() as u64, acked);
                w.set_cwnd(cwnd as f64);
                left
            }
        }
    }
}

impl Growth for Cubic {
    fn on_ack_arrival(&mut self, _s: &Conn, ctx: &AckCtx) {
        let Some(delay) = ctx.rtt_sample else {
            return;
        };
        // cubictcp_acked(): no delay samples within a second of a stage's start (right
        // after a recovery), the minimum RTT otherwise (at least 1 us).
        if self.discards_delay(ctx.now) {
            return;
        }
        let delay = delay.max(Dur(1_000));
        if self.delay_min.is_none_or(|m| delay < m) {
            self.delay_min = Some(delay);
        }
    }

    fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        if w.cwnd() < w.ssthresh() {
            // The slow-start exit detectors watch every ACK of slow start.
            if self.hystart_pp_on() {
                self.hystart_pp_detect(w, ctx);
            } else if self.p.slow_start == CubicSlowStart::Hystart {
                // cubictcp_acked() returns before hystart_update() on a sample it discards.
                if let Some(r) = ctx.rtt_sample.filter(|_| !self.discards_delay(ctx.now)) {
                    self.hystart(w, ctx.now, r.max(Dur(1_000)));
                }
            }
        }
        if !LinuxReno::cwnd_limited(w, ctx) {
            // RFC 9438 §5.8 / tcp_is_cwnd_limited(): no growth the flight does not use.
            return;
        }
        let mut acked = ctx.newly_delivered;
        if w.cwnd() < w.ssthresh() {
            acked = self.slow_start(w, ctx);
            if acked == 0 {
                return;
            }
        }
        match self.p.rules {
            CubicRules::Rfc9438 => self.rfc_congestion_avoidance(w, ctx, acked as f64),
            CubicRules::Linux => {
                let cwnd = w.cwnd() as u64;
                self.linux_update(ctx.now, cwnd, acked);
                let next = self.linux.cong_avoid_ai(cwnd, self.cnt, acked);
                w.set_cwnd(next as f64);
            }
        }
    }

    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        // RFC 9406: a loss ends HyStart++ for good (it runs in the first slow start only).
        self.hspp = HsppPhase::Done;
        // The state of before a loss episode, not of a later cut inside it (Linux saves
        // prior_cwnd and prior_ssthresh when the episode starts, tcp_init_undo()).
        if s.ca_state() == CaState::Open {
            self.prior = Some(Prior {
                cwnd: s.cwnd(),
                ssthresh: s.ssthresh(),
                w_max: self.w_max,
                cwnd_prior: self.cwnd_prior,
                epoch: self.epoch,
                after_timeout: self.after_timeout,
            });
        }
        match self.p.rules {
            CubicRules::Rfc9438 => self.rfc_cut(s, kind),
            CubicRules::Linux => self.linux_cut(s, kind),
        }
    }

    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        match ev {
            CaEvent::Timeout => {
                if self.p.rules == CubicRules::Linux {
                    self.linux_reset();
                }
                // cubictcp_state(TCP_CA_Loss): HyStart looks for an exit again, in a round
                // that ends once all the data out at the timeout is acknowledged.
                self.found = false;
                if self.p.slow_start == CubicSlowStart::Hystart {
                    let now = w.now();
                    self.hystart_new_round(w, now);
                }
            }
            CaEvent::TxStart { idle } if idle > Dur::ZERO => {
                // RFC 9438 §5.8 / cubictcp_cwnd_event(CA_EVENT_TX_START): the idle time is
                // not part of t, so the stage's start moves forward by it (the use of t
                // saturates, so it cannot pass now).
                if let Some(e) = &mut self.epoch {
                    e.t_epoch += idle;
                }
                // Linux counts the idle time in jiffies, from lsndtime to now, and never
                // moves the start past now.
                if let Some(e) = &mut self.epoch_start {
                    let now = w.now();
                    let now_j = jiffies(now);
                    *e = (*e + (now_j - jiffies(Time(now.0 - idle.0)))).min(now_j);
                }
            }
            CaEvent::Undo => {
                if let Some(p) = self.prior.take() {
                    self.undo(w, p);
                }
            }
            CaEvent::TxStart { .. }
            | CaEvent::EnterRecovery
            | CaEvent::ExitRecovery
            | CaEvent::LossRecovered => {}
        }
    }

    fn wants_rtt_samples(&self) -> bool {
        true
    }

    fn wants_tx_start(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::state::SenderState;

    fn params(rules: CubicRules) -> CubicParams {
        CubicParams {
            slow_start: CubicSlowStart::Reno,
            rules,
            ..CubicParams::default()
        }
    }

    /// A sender in congestion avoidance: cwnd = ssthresh = `w`, `w` segments in flight.
    fn state(w: f64) -> SenderState {
        let mut s = SenderState::new(1, 10_000, 3, u64::MAX);
        s.cwnd = w;
        s.ssthresh = w;
        s.snd_una = 1000;
        s.snd_max = 1000 + w as u64;
        s.snd_nxt = s.snd_max;
        s.srtt = Some(Dur::from_secs(0.1));
        s
    }

    fn ack(t_s: f64) -> AckCtx {
        AckCtx {
            now: Time::from_secs(t_s),
            newly_acked: 1,
            newly_delivered: 1,
            ..AckCtx::default()
        }
    }

    const FR: CongestionKind = CongestionKind::FastRetransmit;

    #[test]
    fn a_loss_sets_w_max_and_cuts_to_beta_with_fast_convergence() {
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        let s = state(100.0);
        // §4.6: ssthresh = 0.7 x flight 100; §4.7: first loss, W_max = cwnd.
        let cut = g.on_congestion_event(&Conn::new(&s), FR, &ack(0.0));
        assert_eq!((cut.ssthresh, cut.cwnd, g.w_max()), (70.0, 70.0, 100.0));
        // A loss below W_max: fast convergence, W_max = 90 x (1 + 0.7) / 2.
        let s = state(90.0);
        let cut = g.on_congestion_event(&Conn::new(&s), FR, &ack(0.0));
        assert!((cut.ssthresh - 63.0).abs() < 1e-12);
        assert!((g.w_max() - 76.5).abs() < 1e-12);
        // Without it W_max is the window at the loss.
        let mut g = Cubic::new(CubicParams {
            fast_convergence: false,
            ..params(CubicRules::Rfc9438)
        });
        g.on_congestion_event(&Conn::new(&state(100.0)), FR, &ack(0.0));
        g.on_congestion_event(&Conn::new(&state(90.0)), FR, &ack(0.0));
        assert_eq!(g.w_max(), 90.0);
    }

    #[test]
    fn congestion_avoidance_steps_toward_w_cubic_one_rtt_ahead() {
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        g.on_congestion_event(&Conn::new(&state(100.0)), FR, &ack(0.0));
        let mut s = state(70.0);
        // The stage starts on the first ACK (t = 0): K = cbrt((100 - 70) / 0.4) = cbrt(75).
        // W_cubic(0) = 70 < W_est = 70 + 0.529/70: the Reno-friendly region, cwnd = W_est.
        g.on_ack(&mut Window::new(&mut s), &ack(5.0));
        let k = 75f64.cbrt();
        assert!((g.k().unwrap() - k).abs() < 1e-12);
        let alpha = 3.0 * 0.3 / 1.7;
        assert_eq!(s.cwnd, 70.0 + alpha / 70.0);
        // 1 s later: W_cubic(1) = 0.4 (1 - K)^3 + 100 = 83.30 > W_est: the concave region;
        // target = W_cubic(1 + srtt) = 84.52, capped at 1.5 cwnd; cwnd += (target - cwnd) /
        // cwnd.
        let w0 = s.cwnd;
        g.on_ack(&mut Window::new(&mut s), &ack(6.0));
        let target = 0.4 * (1.1 - k).powi(3) + 100.0;
        assert!(
            (s.cwnd - (w0 + (target - w0) / w0)).abs() < 1e-12,
            "{}",
            s.cwnd
        );
        // Far beyond K the target is capped at 1.5 cwnd (§4.2).
        let mut s = state(100.0);
        g.on_ack(&mut Window::new(&mut s), &ack(25.0));
        assert!((s.cwnd - (100.0 + 50.0 / 100.0)).abs() < 1e-12);
    }

    #[test]
    fn reno_friendly_region_follows_w_est() {
        // A small window on a long path: the cubic barely moves, Reno would; cwnd = W_est.
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        g.on_congestion_event(&Conn::new(&state(10.0)), FR, &ack(0.0));
        let mut s = state(7.0);
        let alpha = 3.0 * 0.3 / 1.7;
        let mut w_est = 7.0;
        for i in 0..50 {
            let cwnd = s.cwnd;
            s.snd_max = s.snd_una + cwnd.ceil() as u64; // the window limits the flight
            g.on_ack(&mut Window::new(&mut s), &ack(1.0 + 0.001 * f64::from(i)));
            // α_cubic until W_est reaches cwnd_prior (10), then Reno's 1.
            w_est += if w_est >= 10.0 { 1.0 } else { alpha } / cwnd;
            assert!(
                (s.cwnd - w_est).abs() < 1e-12,
                "ack {i}: {} vs {w_est}",
                s.cwnd
            );
        }
        assert!(w_est > 10.0, "the run reached the switch");
        // At cwnd_prior already: alpha is 1 from the first ACK.
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        g.on_congestion_event(&Conn::new(&state(10.0)), FR, &ack(0.0));
        let mut s = state(10.0);
        g.on_ack(&mut Window::new(&mut s), &ack(1.0));
        assert_eq!(s.cwnd, 10.1);
    }

    #[test]
    fn after_a_timeout_the_stage_starts_with_k_zero_at_its_own_window() {
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        g.on_congestion_event(&Conn::new(&state(100.0)), FR, &ack(0.0));
        let cut =
            g.on_congestion_event(&Conn::new(&state(80.0)), CongestionKind::Timeout, &ack(1.0));
        assert_eq!((cut.ssthresh, cut.cwnd), (56.0, 1.0));
        let mut s = state(56.0);
        g.on_ack(&mut Window::new(&mut s), &ack(3.0));
        // §4.8: K = 0, W_max = cwnd_epoch = 56.
        assert_eq!((g.k(), g.w_max()), (Some(0.0), 56.0));
    }

    #[test]
    fn an_undo_brings_back_the_state_of_before_the_spurious_loss() {
        // RFC 9438 §4.9: a stage under way at W_max 100 (K = cbrt(75)), then a loss at cwnd
        // 90 found spurious: W_max, the stage, cwnd and ssthresh come back.
        let mut g = Cubic::new(params(CubicRules::Rfc9438));
        g.on_congestion_event(&Conn::new(&state(100.0)), FR, &ack(0.0));
        let mut s = state(70.0);
        g.on_ack(&mut Window::new(&mut s), &ack(5.0));
        let k = g.k();
        let mut s = state(90.0);
        s.ssthresh = 70.0;
        let cut = g.on_congestion_event(&Conn::new(&s), FR, &ack(10.0));
        s.cwnd = cut.cwnd;
        s.ssthresh = cut.ssthresh;
        assert!(
            (g.w_max() - 76.5).abs() < 1e-12,
            "fast convergence cut W_max"
        );
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!(
            (s.cwnd, s.ssthresh, g.w_max(), g.k()),
            (90.0, 70.0, 100.0, k)
        );
        // Once: a second undo has nothing to restore.
        s.cwnd = 50.0;
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!(s.cwnd, 50.0);
        // Linux: tcp_reno_undo_cwnd() and prior_ssthresh = max(ssthresh, 3/4 cwnd); CUBIC's
        // own W_max stays as the cut left it.
        let mut g = Cubic::new(params(CubicRules::Linux));
        let mut s = state(100.0);
        s.ssthresh = 60.0;
        let cut = g.on_congestion_event(&Conn::new(&s), FR, &ack(0.0));
        s.cwnd = cut.cwnd;
        s.ssthresh = cut.ssthresh;
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!((s.cwnd, s.ssthresh, g.w_max()), (100.0, 75.0, 100.0));
    }

    #[test]
    fn linux_rules_compute_k_and_cnt_in_jiffies_and_2_to_the_minus_10_seconds() {
        let mut g = Cubic::new(params(CubicRules::Linux));
        // Loss at cwnd 100: ssthresh = 100 x 717 / 1024 = 70.
        let cut = g.on_congestion_event(&Conn::new(&state(100.0)), FR, &ack(0.0));
        assert_eq!((cut.ssthresh, g.w_max()), (70.0, 100.0));
        let mut s = state(70.0);
        g.delay_min = Some(Dur::from_secs(0.1));
        g.on_ack(&mut Window::new(&mut s), &ack(2.0));
        // K = cbrt(2^40 / 410 x 30) = cbrt(80452070310) = 4316 units of 2^-10 s (4.215 s).
        assert_eq!(g.k_units, 4316);
        // t = (0 + 25 jiffies of 4 ms) x 1024 / 250 = 102; offs = 4214; delta = 410 x 4214^3 >> 40
        // = 27 segments; target = 100 - 27 = 73; cnt = 70 / 3 = 23.
        assert_eq!(g.cnt, 23);
        // Reno-friendly tcp_cwnd: one per 70 x 15 / 8 = 131 delivered.
        assert_eq!(g.tcp_cwnd, 70);
    }

    #[test]
    fn linux_rules_shift_the_epoch_by_the_idle_jiffies_of_the_4_ms_clock() {
        // cubictcp_cwnd_event(CA_EVENT_TX_START): epoch_start += jiffies(now) -
        // jiffies(lsndtime), never past now. Last send at 10.003 s (jiffy 2500), the next at
        // 10.105 s (jiffy 2526): 102 ms idle count 26 jiffies, 104 ms.
        let mut g = Cubic::new(params(CubicRules::Linux));
        let mut s = state(70.0);
        s.now = Time::from_secs(10.105);
        let idle = Dur::from_secs(0.102);
        g.epoch_start = Some(2000);
        g.on_event(&mut Window::new(&mut s), CaEvent::TxStart { idle });
        assert_eq!(g.epoch_start, Some(2026));
        // An epoch that began after the last send (on an ACK at 10.100 s, jiffy 2525) stops
        // at now: 2525 + 26 would pass jiffy 2526.
        g.epoch_start = Some(2525);
        g.on_event(&mut Window::new(&mut s), CaEvent::TxStart { idle });
        assert_eq!(g.epoch_start, Some(2526));
    }

    #[test]
    fn hystart_pp_enters_css_on_a_delay_increase_then_congestion_avoidance() {
        let mut g = Cubic::new(CubicParams::default());
        let mut s = SenderState::new(1, 10_000, 3, u64::MAX);
        s.cwnd = 20.0;
        // Rounds of 20 ACKs: 100 ms RTT in the first, then 113 ms (>= 100 + max(4, 100/8)).
        let mut t = 0.0;
        let mut round = |g: &mut Cubic, s: &mut SenderState, rtt: f64| {
            let end = s.snd_max + 20;
            for _ in 0..20 {
                s.snd_una += 1;
                s.snd_nxt = end;
                s.snd_max = end;
                t += 0.001;
                let c = AckCtx {
                    rtt_sample: Some(Dur::from_secs(rtt)),
                    ..ack(t)
                };
                g.on_ack(&mut Window::new(s), &c);
            }
        };
        round(&mut g, &mut s, 0.100);
        round(&mut g, &mut s, 0.100);
        assert_eq!(g.hspp, HsppPhase::SlowStart);
        let before = s.cwnd;
        round(&mut g, &mut s, 0.113);
        assert!(matches!(g.hspp, HsppPhase::Css { .. }), "{:?}", g.hspp);
        // CSS grows a quarter as fast; five rounds later ssthresh = cwnd.
        assert!(s.cwnd < before + 20.0);
        for _ in 0..5 {
            round(&mut g, &mut s, 0.113);
        }
        assert_eq!(g.hspp, HsppPhase::Done);
        assert_eq!(s.ssthresh, s.cwnd);
    }
}

#[cfg(test)]
mod hystart_tests {
    use super::*;
    use crate::tcp::state::SenderState;

    /// 10 Mb/s of 1000-byte segments: one leaves the bottleneck every 0.8 ms.
    const SERVICE: Dur = Dur(800_000);
    /// Propagation, both ways together.
    const PROPAGATION: Dur = Dur(40_000_000);

    /// Linux CUBIC with Linux's HyStart in the first slow start of a bulk transfer (IW10) on
    /// a 40 ms path through a 10 Mb/s FIFO bottleneck that never drops, the receiver ACKing
    /// each of the first `quickacks` segments, then every `ack_every` segments. Returns when
    /// ssthresh is first set: the time (ns), the cumulative ACK that set it and ssthresh.
    fn first_exit(ack_every: u64, quickacks: u64) -> (u64, u64, f64) {
        let mut g = Cubic::new(CubicParams {
            slow_start: CubicSlowStart::Hystart,
            rules: CubicRules::Linux,
            ..CubicParams::default()
        });
        let mut s = SenderState::new(10, 100_000, 3, u64::MAX);
        let no_exit = s.ssthresh;
        // When each segment was sent and when it leaves the bottleneck.
        let mut path: Vec<(Time, Time)> = Vec::new();
        let send = |s: &mut SenderState, path: &mut Vec<(Time, Time)>, now: Time| {
            while (s.snd_nxt as f64) < s.snd_una as f64 + s.cwnd {
                let free = path.last().map_or(Time::ZERO, |p| p.1);
                path.push((now, now.max(free) + SERVICE));
                s.snd_nxt += 1;
                s.snd_max = s.snd_nxt;
            }
        };
        send(&mut s, &mut path, Time::ZERO);
        loop {
            let ack = s.snd_una + if s.snd_una < quickacks { 1 } else { ack_every };
            let newly = ack - s.snd_una;
            let (sent, left) = path[(ack - 1) as usize];
            let now = left + PROPAGATION;
            let rtt = now - sent;
            let ctx = AckCtx {
                now,
                rtt_sample: Some(rtt),
                newly_acked: newly,
                newly_delivered: newly,
                ..AckCtx::default()
            };
            g.on_ack_arrival(&Conn::new(&s), &ctx);
            s.snd_una = ack;
            s.srtt = Some(rtt);
            g.on_ack(&mut Window::new(&mut s), &ctx);
            if s.ssthresh != no_exit {
                return (now.0, ack, s.ssthresh);
            }
            send(&mut s, &mut path, now);
        }
    }

    /// Derived by hand from Linux's tcp_cubic.c, `hystart_update()` called from
    /// `cubictcp_acked()` before the ACK grows cwnd, one ACK per segment. Flights of 10, 20,
    /// 40 segments; each ACK releases two, so a flight leaves the bottleneck back to back and
    /// its ACKs come 0.8 ms apart; the first flight's first ACK is at 40.8 ms (RTT 40.8 ms:
    /// delay_min, never beaten since the queue empties between flights). Rounds restart on the
    /// ACK past the last round's snd_nxt whatever cwnd is: the ACK of segment 10 (81.6 ms,
    /// end_seq 30), of segment 30 (122.4 ms, end_seq 70). The round of segment 30 is the first
    /// with cwnd >= 16 from its start; its ACK train passes (delay_min + 1 ms cushion) / 2 =
    /// 20.9 ms at its 28th ACK (+21.6 ms, 144.0 ms), the ACK of segment 57, cwnd 10 + 57 = 67.
    /// The delay test never fires: each round's first sample is 40.8 ms.
    #[test]
    fn hystart_ack_train_fires_where_linux_does_one_ack_per_segment() {
        assert_eq!(first_exit(1, 0), (144_000_000, 58, 67.0));
    }

    /// As above with an ACK every two segments: ACKs 1.6 ms apart, each growing cwnd by two
    /// and releasing four segments; delay_min 41.6 ms (the first ACK is the second segment's).
    /// The round starts on the first ACK of each flight (it covers one segment past end_seq):
    /// 124.8 ms for the 40-segment flight 30..69. Its train passes (41.6 + 1) / 2 = 21.3 ms at
    /// its 15th ACK (+22.4 ms, 147.2 ms), the ACK of segments 58-59, cwnd 10 + 58 = 68.
    #[test]
    fn hystart_ack_train_fires_where_linux_does_delayed_acks() {
        assert_eq!(first_exit(2, 0), (147_200_000, 60, 68.0));
    }

    /// Linux's receiver ACKs its first 16 segments at once (quick-ack mode,
    /// TCP_MAX_QUICKACKS), then every two. delay_min 40.8 ms (segment 0 alone); the second
    /// flight's ACKs (segments 10-15 alone, then pairs) take the round from segment 10 to
    /// end_seq 30; the third flight, all in pairs from 123.2 ms (its segments left the
    /// bottleneck back to back from 82.4 ms), starts the round ending at 70; its train
    /// passes (40.8 + 1) / 2 = 20.9 ms at its 15th ACK (+22.4 ms, 145.6 ms), segments 58-59,
    /// cwnd 68: the quick ACKs move the exit 1.6 ms earlier, not its window.
    #[test]
    fn hystart_exit_with_linux_quick_acks_first() {
        assert_eq!(first_exit(2, 16), (145_600_000, 60, 68.0));
    }

    /// cubictcp_state(TCP_CA_Loss) → bictcp_hystart_reset(): HyStart looks again, from a
    /// round that ends past all the data sent before the timeout (Linux's snd_nxt, which the
    /// timeout leaves alone; the engine's go-back-N snd_nxt goes back to snd_una).
    #[test]
    fn a_timeout_restarts_hystart_in_a_round_ending_past_the_highest_sent() {
        let mut g = Cubic::new(CubicParams {
            slow_start: CubicSlowStart::Hystart,
            rules: CubicRules::Linux,
            ..CubicParams::default()
        });
        g.found = true;
        let mut s = SenderState::new(10, 100_000, 3, u64::MAX);
        s.snd_una = 100;
        s.snd_nxt = 100;
        s.snd_max = 200;
        s.now = Time::from_secs(3.0);
        g.on_event(&mut Window::new(&mut s), CaEvent::Timeout);
        assert!(!g.found);
        assert_eq!((g.rounds.end, g.round_start), (200, s.now));
    }
}
