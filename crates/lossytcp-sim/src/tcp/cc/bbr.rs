//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016) as Linux's `net/ipv4/tcp_bbr.c` defines it:
//! a model of the path — the bottleneck bandwidth BtlBw, a windowed maximum of delivery-rate
//! samples over 10 packet-timed rounds, and RTprop, a minimum of RTT samples over 10 s —
//! sets the pacing rate (pacing_gain x BtlBw) and the window (cwnd_gain x BtlBw x RTprop).
//! Four modes: Startup (gains 2/ln 2) until three rounds without 25% more bandwidth; Drain
//! (pacing 1/high gain) until the flight is down to one BDP; ProbeBW, an eight-phase cycle
//! of pacing gains 5/4, 3/4, 1 x 6, of one RTprop each, entered at a random phase other than
//! 3/4; ProbeRTT, entered when RTprop has not been refreshed for 10 s: cwnd of 4 segments
//! for max(200 ms, one round), then back to ProbeBW (or Startup if the pipe was never full).
//!
//! Losses do not cut the model: on entering fast recovery the window becomes the flight plus
//! what the ACK delivered (packet conservation for one round), then grows toward the target
//! by what each ACK delivers; the window of before the recovery comes back at its end. A
//! timeout restarts from one segment and treats itself as the end of a round. Linux's
//! long-term bandwidth estimator is included (`bbr_lt_bw`): two consecutive 4-16 round
//! intervals of consistent throughput and 20% loss mean a policer, whose rate is then used
//! for 48 rounds. So is the ACK-aggregation allowance (`extra_acked`) added to the window.
//!
//! Arithmetic: rates in segments per second and times in nanoseconds as floating point and
//! integers, where Linux counts packets per microsecond << 24 and jiffies; the gains are
//! Linux's, quantized to 1/256 (high gain 739/256, drain 88/256). The send quantum of the
//! window's budget (`bbr_tso_segs_goal()`) is Linux's, from the pacing rate and the segment
//! size. Pacing is the sender's, by default (`bbr_pacing_burst = "tso"`) as Linux's internal
//! pacing spaces its TSO/GSO packets (the kernel's BBR is the reference): `tcp_tso_autosize()`'s
//! burst of segments back to back, the earliest departure time advanced by the burst's length
//! over the rate; with `"segment"` each segment leaves 1 / pacing_rate after the previous one,
//! as ns-3's TcpSocketBase paces its TcpBbr (`crosscheck ns3` runs that; see [`PacingBurst`]).
//!
//! Where the TSO bursts still differ from the kernel's, and why that is left:
//! * The first flight. Linux sets BBR's rate at connection set-up (`bbr_init()`), from the
//!   handshake's RTT sample: at 100 ms the initial window of 10 leaves in bursts of 2 over
//!   about 30 ms. The engine has no handshake: BBR starts at the first transmission, at
//!   Linux's rate for no sample (the nominal 1 ms RTT: 28900 segments/s, bursts of 28), so the
//!   initial window leaves as one burst. Starting the plugin before the first segment instead
//!   was measured to change no departure with `tso` (10 Mb/s, 100 ms, initial window 10: the
//!   same send trace; the nominal burst holds the window) and to spread it 35 us apart with
//!   `segment`: only the handshake's RTT would matter, and the engine's flows have none (the
//!   figures start from one segment, `initial_window = 1`).
//! * The RTT term of `tcp_tso_autosize()` is followed (see [`Bbr::tso_autosize`]); it adds to
//!   a burst only below 16 ms of min RTT, so at the paths simulated here bursts are the rate's.

pub use super::bbr_shared::PacingBurst;
use super::bbr_shared::{
    ceil_u64, init_pacing_rate, kept_window, packets_in_net_at_edt, saved_cwnd, set_pacing_rate,
    HoldStep, ProbeRttHold, INIT_CWND, PACING_BURST,
};
use super::minmax::MaxFilter;
use super::{CaEvent, Growth};
use crate::rng::{Rng, Stream};
use crate::tcp::params::Param;
use crate::tcp::rate::RateSample;
use crate::tcp::view::{Conn, SenderView, Window};
use crate::tcp::{AckCtx, CaState, CongestionKind, Cut};
use crate::time::{Dur, Time};

crate::declare_params! {
    /// BBR's parameters (Linux tcp_bbr.c's constants; ns-3 TcpBbr's attributes).
    pub struct BbrParams {
        /// Startup's pacing and window gain (Linux: 2/ln 2 = 2.885, as 739/256).
        high_gain: f64 = Param::float("bbr_high_gain", "", 739.0 / 256.0, 1.0, 10.0)
            .ns3("ns3::TcpBbr::HighGain"),
        /// ProbeBW's window gain (Linux bbr_cwnd_gain: 2).
        cwnd_gain: f64 = Param::float("bbr_cwnd_gain", "", 2.0, 1.0, 10.0),
        /// Length of the BtlBw max filter, packet-timed rounds (Linux bbr_bw_rtts: 10).
        bw_rounds: u32 = Param::int("bbr_bw_rounds", "rounds", 10, 2, 1000)
            .ns3("ns3::TcpBbr::BwWindowLength"),
        /// Length of the RTprop min filter (Linux bbr_min_rtt_win_sec: 10 s).
        min_rtt_win_s: f64 = Param::float("bbr_min_rtt_win_s", "s", 10.0, 0.001, 1000.0)
            .ns3("ns3::TcpBbr::RttWindowLength"),
        /// Time ProbeRTT holds the window at bbr_probe_rtt_cwnd (Linux bbr_probe_rtt_mode_ms:
        /// 200 ms).
        probe_rtt_s: f64 = Param::float("bbr_probe_rtt_s", "s", 0.2, 0.0, 100.0)
            .ns3("ns3::TcpBbr::ProbeRttDuration"),
        /// ProbeRTT's window and the smallest window (Linux bbr_cwnd_min_target: 4).
        probe_rtt_cwnd: u32 = Param::int("bbr_probe_rtt_cwnd", "segments", 4, 1, 1000),
        /// Pacing below the estimate by this share (Linux bbr_pacing_margin_percent: 1%;
        /// ns-3: 0).
        pacing_margin: f64 = Param::float("bbr_pacing_margin", "", 0.01, 0.0, 0.5),
        /// Linux's long-term (policer) bandwidth estimator; ns-3 has none.
        lt_bw: bool = Param::flag("bbr_lt_bw", true),
        /// Linux's ACK-aggregation allowance in the window (extra_acked).
        extra_acked: bool = Param::flag("bbr_extra_acked", true),
        /// Departures in Linux's TSO bursts (default) or one segment at a time (ns-3's TcpBbr).
        pacing_burst: PacingBurst = PACING_BURST,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// ProbeBW's pacing gains (Linux bbr_pacing_gain[], in 1/256: 320, 192, 256 x 6).
const PACING_GAIN: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The phases' names in traces: the mode and, in ProbeBW, the gain.
const PROBE_BW_PHASES: [&str; 8] = [
    "probe_bw:1.25",
    "probe_bw:0.75",
    "probe_bw:1",
    "probe_bw:1",
    "probe_bw:1",
    "probe_bw:1",
    "probe_bw:1",
    "probe_bw:1",
];
/// The cycle starts at a random phase among the seven but the draining one
/// (bbr_cycle_rand).
const CYCLE_RAND: u64 = 7;
/// Startup ends after this many rounds without bbr_full_bw_thresh more bandwidth.
const FULL_BW_CNT: u32 = 3;
const FULL_BW_THRESH: f64 = 1.25;
/// Long-term sampling (bbr_lt_*): interval length in rounds, loss threshold (50/256),
/// consistency (1/8 or 4 kbit/s), rounds of use.
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
/// extra_acked: window of 5 rounds (two halves), epoch reset, cap of 100 ms of bandwidth.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
const EXTRA_ACKED_MAX: Dur = Dur(100_000_000);
/// bbr_min_tso_rate: below 1.2 Mbit/s one segment per TSO burst, else two.
const MIN_TSO_RATE_BYTES: f64 = 1_200_000.0 / 8.0;
/// GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER.
const TSO_MAX_BYTES: f64 = 65536.0 - 1.0 - 320.0;
/// A device's default `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE; a TUN device keeps it).
const GSO_MAX_BYTES: f64 = 65536.0;

/// `x as u64` for an `x` that is NaN or in [0, 2^63) (products of rates and times, windows),
/// through i64: a conversion instruction and a fix-up where u64 takes a dozen with branches.
#[inline]
fn to_u64(x: f64) -> u64 {
    x as i64 as u64
}

/// `n as f64` for a count below 2^63 (segments), through i64: one instruction.
#[inline]
fn to_f64(n: u64) -> f64 {
    n as i64 as f64
}

/// A flight target of one call site and the bandwidth (its bits) it was computed from at the
/// current RTprop and gains (and, for `bbr_inflight()`, send quantum and phase): they change
/// on few ACKs, the product's ceil costs a dozen instructions, and it is asked for on every
/// ACK. The gain of a call site changes only with the gains, which forget the targets; it is
/// kept to check that in debug builds. The window's site keeps its BDP with the additive part
/// of the quantization budget (`budget_base()`: send quantum and phase), and the cap of the
/// ACK-aggregation allowance, 100 ms of the same bandwidth (0 while the allowance is off or
/// the pipe not yet full: the allowance is then none), and the window's whole target with
/// the allowance of the moment, while the allowance stands: `target_bw` is the bandwidth's
/// bits while it does, `NO_TARGET` once the allowance changed (it changes on few ACKs) or the
/// BDP was computed again, so that one comparison says whether the target stands.
#[derive(Clone, Copy, Debug)]
struct BdpMemo {
    bw: u64,
    gain: u64,
    bdp: u64,
    extra_acked_cap: u64,
    target_bw: u64,
    target: f64,
}

/// No window target kept (the bits of a NaN, which no estimate is: as `STALE_BDP`'s `bw`).
const NO_TARGET: u64 = u64::MAX;

/// No BDP kept (the bits of no computed rate or gain).
const STALE_BDP: BdpMemo = BdpMemo {
    bw: u64::MAX,
    gain: u64::MAX,
    bdp: 0,
    extra_acked_cap: 0,
    target_bw: NO_TARGET,
    target: 0.0,
};
/// The call sites that keep a target: `bbr_inflight()` of the phase tests, `bbr_bdp()` of the
/// window.
const PHASE_BDP: usize = 0;
const CWND_BDP: usize = 1;

/// `d.as_secs()` for a duration below 2^63 ns (292 years), through i64: one conversion
/// instruction where u64 takes several, the same value.
#[inline]
fn secs(d: Dur) -> f64 {
    to_f64(d.0) * 1e-9
}

#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    min_rtt_win: Dur,
    probe_rtt_dur: Dur,
    drain_gain: f64,
    /// 1 - pacing_margin (the rate is set on every ACK).
    pacing_keep: f64,
    /// `bbr_tso_segs_goal()` of the current pacing rate.
    tso_goal: u64,
    /// The pacing rate (its bits, 0 for none) `tso_goal` was computed from: the rate changes
    /// on few ACKs, and the goal is asked for twice on every one.
    tso_rate_bits: u64,
    /// The connection's min RTT the sender's burst was sized with (`tcp_tso_autosize()`'s
    /// RTT term): it falls without the rate changing.
    burst_min_rtt: Option<Dur>,
    /// `inflight()` at `PHASE_BDP` and `budget_base(bdp())` at `CWND_BDP` (both forgotten when
    /// RTprop, the send quantum, the mode or the phase changes, and the window's when the pipe
    /// is first full).
    bdp_memo: [BdpMemo; 2],
    /// The bits of the bandwidth and gain of the rate last set, once the pipe was full and an
    /// RTT seen (both stay so; else `u64::MAX`, the bits of no computed number): the rate is
    /// then theirs alone, and while they stand setting it again and refreshing its send
    /// quantum change nothing (only this plugin sets the rate). Forgotten with RTprop, as the
    /// burst follows the connection's min RTT: that falls only on an ACK whose RTT sample is
    /// below it, so below RTprop (a minimum of a subset of the same samples) as well. Both are
    /// asked for on every ACK.
    paced_at: [u64; 2],
    /// `paced_at` was found to be the estimate's and the pacing gain's, and neither (nor it)
    /// can have changed since: cleared wherever they may (the bandwidth filter's update
    /// unless it left the filter's maximum as it was, the long-term estimate, the
    /// gains, RTprop, any setting of the rate), so that most ACKs test this flag instead of
    /// comparing both (checked in debug builds).
    pace_kept: bool,
    rng: Rng,
    initialized: bool,
    pub(crate) mode: Mode,
    bw: MaxFilter,
    /// The estimate in use ([`Self::bw`]: the long-term rate or the filter's maximum), kept
    /// wherever either changes (read on every ACK).
    bw_in_use: f64,
    min_rtt: Option<Dur>,
    /// `min_rtt` in seconds (read on every ACK).
    min_rtt_s: f64,
    /// `min_rtt`, or `Dur(u64::MAX)` without one: an RTT sample (below it: a time since a
    /// send) is below it exactly when `min_rtt.is_none_or(|m| rtt < m)` (one comparison on
    /// every ACK).
    min_rtt_or_max: Dur,
    /// When RTprop was last refreshed (Linux's min_rtt_stamp) plus its window: when it
    /// expires (tested on every ACK).
    min_rtt_expiry: Time,
    probe_rtt_hold: ProbeRttHold,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    cycle_mstamp: Time,
    /// `cycle_mstamp + min_rtt` (never without an RTprop): the phase has lasted its full
    /// length once the delivery time is past it (tested on every ACK).
    cycle_full_at: Time,
    /// `bbr_is_next_cycle_phase()` can say yes only once `delivered_mstamp` is past this:
    /// never outside ProbeBW (`Time(u64::MAX)`), at a pacing gain of 1 or above (probing)
    /// once the phase has lasted its full length (`cycle_full_at`: probing goes on until
    /// then whatever the flight or the losses), else (draining) at any time (`Time::ZERO`:
    /// ProbeBW comes after ACKs that delivered data, so `delivered_mstamp` is past it). Kept by
    /// `refresh_cycle_test()` wherever the mode, the pacing gain or `cycle_full_at` change;
    /// tested on every ACK instead of the three.
    cycle_test_after: Time,
    pub(crate) cycle_idx: usize,
    prev_ca_state: CaState,
    packet_conservation: bool,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// The mode, the phase, or the long-term estimate's use changed, or the pacing gain was
    /// set elsewhere, since `update_gains()` last ran: its gains are to be computed again.
    gains_stale: bool,
    /// ProbeBW after a full pipe, no idle restart, the gains up to date ([`Self::calm_now`]):
    /// then the tests for a full pipe, the end of Drain, ProbeRTT's hold, an idle restart's
    /// end and stale gains would all say no, and most ACKs test this instead (cleared where
    /// any of them may change, set again where the gains are computed or an idle restart
    /// ends; checked in debug builds).
    calm: bool,
    /// `calm && pace_kept`, and before RTprop's expiry: an ACK earlier than this needs none
    /// of those three tests ([`Self::calm_bound`], `Time::ZERO` when not calm; kept at the
    /// end of `bbr_main()` and of every event, the only places they change; checked in debug
    /// builds). (The phase test's time stays apart: on `same` most ACKs are past it.)
    calm_before: Time,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    full_bw: f64,
    has_seen_rtt: bool,
    prior_cwnd: f64,
    /// tp->delivered_mstamp: when the last delivery was acknowledged.
    delivered_mstamp: Time,
    // Long-term bandwidth.
    lt_is_sampling: bool,
    /// `lt_use_bw || lt_is_sampling` (tested on every ACK).
    lt_busy: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp: Time,
    lt_last_lost: u64,
    // ACK aggregation.
    ack_epoch_mstamp: Time,
    ack_epoch_acked: u64,
    /// Linux's `extra_acked[]`, as the current half's maximum and the last half's (the
    /// current one in a field of its own: no index on every ACK).
    extra_acked_now: u64,
    extra_acked_last: u64,
    extra_acked_win_rtts: u32,
}

impl Bbr {
    pub fn new(p: BbrParams, seed: u64) -> Self {
        Self {
            p,
            min_rtt_win: Dur::from_secs(p.min_rtt_win_s),
            probe_rtt_dur: Dur::from_secs(p.probe_rtt_s),
            drain_gain: Self::drain_gain_of(p.high_gain),
            pacing_keep: 1.0 - p.pacing_margin,
            tso_goal: 1,
            tso_rate_bits: u64::MAX,
            burst_min_rtt: None,
            bdp_memo: [STALE_BDP; 2],
            paced_at: [u64::MAX; 2],
            pace_kept: false,
            rng: Rng::derive(seed, Stream::Plugin, 0),
            initialized: false,
            mode: Mode::Startup,
            bw: MaxFilter::new(u64::from(p.bw_rounds)),
            bw_in_use: 0.0,
            min_rtt: None,
            min_rtt_s: 0.0,
            min_rtt_or_max: Dur(u64::MAX),
            min_rtt_expiry: Time::ZERO + Dur::from_secs(p.min_rtt_win_s),
            probe_rtt_hold: ProbeRttHold::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            cycle_mstamp: Time::ZERO,
            cycle_full_at: Time(u64::MAX),
            cycle_test_after: Time(u64::MAX),
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            idle_restart: false,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            gains_stale: true,
            calm: false,
            calm_before: Time::ZERO,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0.0,
            has_seen_rtt: false,
            prior_cwnd: 0.0,
            delivered_mstamp: Time::ZERO,
            lt_is_sampling: false,
            lt_busy: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp: Time::ZERO,
            lt_last_lost: 0,
            ack_epoch_mstamp: Time::ZERO,
            ack_epoch_acked: 0,
            extra_acked_now: 0,
            extra_acked_last: 0,
            extra_acked_win_rtts: 0,
        }
    }

    /// The bottleneck-bandwidth estimate in use, segments per second.
    pub fn bw(&self) -> f64 {
        debug_assert_eq!(
            self.bw_in_use.to_bits(),
            self.bw_now().to_bits(),
            "an estimate kept across a change"
        );
        self.bw_in_use
    }

    /// What `bw_in_use` is.
    fn bw_now(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.bw.get()
        }
    }

    /// RTprop, if measured.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// Linux: BBR_UNIT * 1000 / 2885, the inverse of the high gain in 1/256.
    fn drain_gain_of(high_gain: f64) -> f64 {
        (256.0 / high_gain).floor() / 256.0
    }

    fn set_mode(&mut self, _now: Time, mode: Mode) {
        self.gains_changed();
        self.mode = mode;
        self.refresh_cycle_test();
    }

    /// `cycle_test_after` for the mode, the pacing gain and `cycle_full_at` now.
    fn refresh_cycle_test(&mut self) {
        self.cycle_test_after = if self.mode != Mode::ProbeBw {
            Time(u64::MAX)
        } else if self.pacing_gain >= 1.0 {
            self.cycle_full_at
        } else {
            Time::ZERO
        };
    }

    /// The mode, the phase or the long-term estimate's use changed: the gains are to be
    /// computed again, and the phase tests' target with them.
    fn gains_changed(&mut self) {
        self.bdp_memo[PHASE_BDP] = STALE_BDP;
        self.gains_stale = true;
        self.calm = false;
    }

    /// What `calm` stands for.
    fn calm_now(&self) -> bool {
        self.full_bw_reached
            && self.mode == Mode::ProbeBw
            && !self.idle_restart
            && !self.gains_stale
    }

    /// What `calm_before` stands for: `Time::ZERO` unless calm with the pacing rate kept,
    /// else just after RTprop's expiry (saturating: at `Time(u64::MAX)` the tests run, and
    /// say what they say).
    fn calm_bound(&self) -> Time {
        if self.calm && self.pace_kept {
            Time(self.min_rtt_expiry.0.saturating_add(1))
        } else {
            Time::ZERO
        }
    }

    /// `bbr_init()`, at the first transmission (cold, as the entry to ProbeBW: rare, and out
    /// of `bbr_main()`'s code it leaves the per-ACK path fewer registers to save).
    #[cold]
    fn init(&mut self, w: &mut Window, now: Time) {
        self.initialized = true;
        w.set_ssthresh(f64::INFINITY);
        self.set_min_rtt(w.min_rtt());
        self.min_rtt_expiry = now + self.min_rtt_win;
        self.init_pacing_rate(w);
        self.ack_epoch_mstamp = now;
        self.cycle_mstamp = now;
        self.set_cycle_full_at();
        self.reset_lt_bw_sampling(w, now);
        self.set_mode(now, Mode::Startup);
    }

    /// `bbr_init_pacing_rate_from_rtt()`: high gain x cwnd / srtt (1 ms before a sample).
    fn init_pacing_rate(&mut self, w: &mut Window) {
        self.has_seen_rtt |= init_pacing_rate(w, self.p.high_gain, self.p.pacing_margin);
    }

    fn rate_with_margin(&self, bw: f64, gain: f64) -> f64 {
        bw * gain * self.pacing_keep
    }

    fn set_pacing_rate(&mut self, w: &mut Window, bw: f64, gain: f64) {
        let rate = self.rate_with_margin(bw, gain);
        let (high_gain, margin) = (self.p.high_gain, self.p.pacing_margin);
        set_pacing_rate(
            w,
            rate,
            &mut self.has_seen_rtt,
            self.full_bw_reached,
            high_gain,
            margin,
        );
        self.pace_kept = false;
        self.paced_at = if self.full_bw_reached && self.has_seen_rtt {
            [bw.to_bits(), gain.to_bits()]
        } else {
            [u64::MAX; 2]
        };
    }

    /// `bbr_tso_segs_goal()`: segments per burst the window must budget for, from about
    /// 1 ms (2^-10 s) of the pacing rate (kept in `tso_goal` while the rate stands). Linux
    /// floors the bytes before dividing by the segment size: the same as flooring rate /
    /// 1024 in segments.
    fn tso_segs_goal(s: &impl SenderView, rate: f64) -> u64 {
        let mss = f64::from(s.segment_bytes());
        let segs = ((rate / 1024.0).min(TSO_MAX_BYTES / mss)) as i64 as u64;
        segs.max(u64::from(Self::min_tso_segs(rate, mss))).min(0x7f)
    }

    /// `bbr_min_tso_segs()`: one segment per burst below 1.2 Mbit/s, else two.
    fn min_tso_segs(rate: f64, mss: f64) -> u32 {
        if rate * mss < MIN_TSO_RATE_BYTES {
            1
        } else {
            2
        }
    }

    /// `tso_goal` for the current pacing rate, computed again only when the rate changed;
    /// with Linux's bursts, the sender's burst size too, again also when the connection's
    /// min RTT fell (Linux sizes each TSO packet afresh in `tcp_write_xmit()` from these two).
    /// Asked on every ACK and kept inline; the rare resizing is out of line.
    #[inline]
    fn refresh_tso_goal(&mut self, w: &mut Window) {
        let rate = w.pacing_rate().unwrap_or(0.0);
        let rate_changed = rate.to_bits() != self.tso_rate_bits;
        if rate_changed
            || (self.p.pacing_burst == PacingBurst::Tso && w.min_rtt() != self.burst_min_rtt)
        {
            self.resize_tso(w, rate, rate_changed);
        }
    }

    #[inline(never)]
    fn resize_tso(&mut self, w: &mut Window, rate: f64, rate_changed: bool) {
        if rate_changed {
            self.tso_rate_bits = rate.to_bits();
            self.tso_goal = Self::tso_segs_goal(w, rate);
            self.bdp_memo = [STALE_BDP; 2];
        }
        if self.p.pacing_burst == PacingBurst::Tso
            && (rate_changed || w.min_rtt() != self.burst_min_rtt)
        {
            self.burst_min_rtt = w.min_rtt();
            w.set_pacing_burst(Some(Self::tso_autosize(w, rate)));
        }
    }

    /// `tcp_tso_autosize()` with BBR's `min_tso_segs()`: the segments of one TSO/GSO packet
    /// at this pacing rate, about 1 ms of it (`sk_pacing_rate >> sk_pacing_shift`, shift 10)
    /// plus `gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log)`, at most `gso_max_size`. The
    /// RTT term is Linux 5.18's (commit 65466904b015, "tcp: adjust TSO packet sizes based on
    /// min_rtt"; log 9 by default, 6.18 the same) and `min_rtt_us` the connection's
    /// (`tcp_min_rtt()`): 64 KB halved for every 512 us of it, so at least one 1448-byte
    /// segment more only below 3 ms and nothing at all from 16.4 ms. The seeds' paths and the
    /// figures' have RTTs of 20 ms and more, where bursts are the rate's alone; it counts on
    /// data-centre paths.
    fn tso_autosize(s: &impl SenderView, rate: f64) -> u32 {
        let mss = f64::from(s.segment_bytes());
        let mut bytes = (rate * mss / 1024.0).floor();
        if let Some(r) = s.min_rtt() {
            let shift = (r.0 / 1000) >> 9;
            if shift < 32 {
                bytes += (GSO_MAX_BYTES as u64 >> shift) as f64;
            }
        }
        let segs = (bytes.min(GSO_MAX_BYTES) / mss) as u32;
        segs.max(Self::min_tso_segs(rate, mss))
    }

    /// `bbr_bdp()`: ceil(bw x RTprop x gain), Linux's initial window before any RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => INIT_CWND,
            Some(_) => ceil_u64(bw * self.min_rtt_s * gain),
        }
    }

    /// `bdp()` (`CWND_BDP`) or `inflight()` (`PHASE_BDP`) of call site `site`, computed again
    /// only when its inputs changed.
    fn bdp_at(&mut self, site: usize, bw: f64, gain: f64) -> u64 {
        let m = self.bdp_memo[site];
        if m.bw == bw.to_bits() {
            debug_assert_eq!(
                m.gain,
                gain.to_bits(),
                "a target kept across a change of gain"
            );
            return m.bdp;
        }
        let mut bdp = self.bdp(bw, gain);
        let mut extra_acked_cap = 0;
        if site == PHASE_BDP {
            bdp = self.quantization_budget(bdp);
        } else {
            bdp = self.budget_base(bdp);
            if self.p.extra_acked && self.full_bw_reached {
                extra_acked_cap = (bw * EXTRA_ACKED_MAX.as_secs()) as u64;
            }
        }
        self.bdp_memo[site] = BdpMemo {
            bw: bw.to_bits(),
            gain: gain.to_bits(),
            bdp,
            extra_acked_cap,
            target_bw: NO_TARGET,
            target: 0.0,
        };
        bdp
    }

    fn set_min_rtt(&mut self, r: Option<Dur>) {
        self.bdp_memo = [STALE_BDP; 2];
        self.paced_at = [u64::MAX; 2];
        self.pace_kept = false;
        self.min_rtt = r;
        self.min_rtt_s = r.map_or(0.0, Dur::as_secs);
        self.min_rtt_or_max = r.unwrap_or(Dur(u64::MAX));
        self.set_cycle_full_at();
    }

    /// `cycle_full_at` for the phase's start and RTprop: `delivered_mstamp - cycle_mstamp >
    /// min_rtt` (the difference saturating at 0) is `delivered_mstamp > cycle_full_at`, the
    /// sum saturating at `Time(u64::MAX)`, which nothing is later than.
    fn set_cycle_full_at(&mut self) {
        self.cycle_full_at = self
            .min_rtt
            .map_or(Time(u64::MAX), |m| self.cycle_mstamp + m);
        self.refresh_cycle_test();
    }

    /// `bbr_quantization_budget()`: room for three bursts, an even window, and 2 more in the
    /// probing phase. (Adding the even 2 before rounding up to even is adding it after.)
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        (self.budget_base(cwnd) + 1) & !1
    }

    /// The quantization budget but its rounding up to even: what of it a memo can keep.
    fn budget_base(&self, cwnd: u64) -> u64 {
        let probing = self.mode == Mode::ProbeBw && self.cycle_idx == 0;
        cwnd + 3 * self.tso_goal + 2 * u64::from(probing)
    }

    /// `bbr_inflight()` (for the phase tests).
    fn inflight(&mut self, bw: f64, gain: f64) -> u64 {
        self.bdp_at(PHASE_BDP, bw, gain)
    }

    /// `bbr_packets_in_net_at_edt()`: what of `inflight_now` will still be in the network when
    /// the next paced segment leaves.
    #[inline(always)]
    fn packets_in_net_at_edt(&self, s: &impl SenderView, now: Time, inflight_now: u64) -> u64 {
        let burst = if self.pacing_gain > 1.0 {
            self.tso_goal
        } else {
            0
        };
        packets_in_net_at_edt(s, now, inflight_now, self.bw(), burst)
    }

    #[cold]
    fn reset_probe_bw_mode(&mut self, now: Time) {
        self.set_mode(now, Mode::ProbeBw);
        let r = (self.rng.next_u64() % CYCLE_RAND) as usize;
        self.cycle_idx = PACING_GAIN.len() - 1 - r;
        self.advance_cycle_phase();
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN.len();
        self.gains_changed();
        self.cycle_mstamp = self.delivered_mstamp;
        self.set_cycle_full_at();
    }

    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.set_mode(now, Mode::Startup);
        }
    }

    /// `bbr_save_cwnd()`: the last good window, to come back to after a recovery or ProbeRTT.
    fn save_cwnd(&mut self, cwnd: f64) {
        let fresh = self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt;
        self.prior_cwnd = saved_cwnd(self.prior_cwnd, cwnd, fresh);
    }

    // ------------------------------------------------------------- long-term bandwidth
    fn reset_lt_bw_sampling_interval(&mut self, s: &impl SenderView) {
        self.lt_last_stamp = self.delivered_mstamp;
        self.lt_last_delivered = s.delivered();
        self.lt_last_lost = s.accounting().lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self, s: &impl SenderView, _now: Time) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.bw_in_use = self.bw_now();
        self.pace_kept = false;
        self.gains_stale = true;
        self.calm = false;
        self.lt_is_sampling = false;
        self.lt_busy = false;
        self.reset_lt_bw_sampling_interval(s);
    }

    fn lt_bw_interval_done(&mut self, s: &impl SenderView, bw: f64) {
        self.pace_kept = false;
        if self.lt_bw > 0.0 {
            // Consistent with the previous interval: within 1/8, or 4 kbit/s.
            let diff = (bw - self.lt_bw).abs();
            let diff_bytes = self.rate_with_margin(diff, 1.0) * f64::from(s.segment_bytes());
            if diff <= LT_BW_RATIO * self.lt_bw || diff_bytes <= LT_BW_DIFF_BYTES {
                // Policed: use the average of the two intervals.
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.bw_in_use = self.lt_bw;
                self.lt_busy = true;
                self.pacing_gain = 1.0;
                self.refresh_cycle_test();
                self.gains_changed();
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        // (Not yet in use: `lt_use_bw` is false here.)
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(s);
    }

    /// `bbr_lt_bw_sampling()`.
    fn lt_bw_sampling(&mut self, s: &impl SenderView, now: Time, losses: u64, app_limited: bool) {
        if !self.p.lt_bw {
            return;
        }
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(s, now);
                    self.reset_probe_bw_mode(now);
                }
            }
            return;
        }
        // Start sampling at the first loss: the policer's tokens are then spent.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(s);
            self.lt_is_sampling = true;
            self.lt_busy = true;
        }
        if app_limited {
            self.reset_lt_bw_sampling(s, now);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(s, now);
            return;
        }
        // The interval ends at a loss.
        if losses == 0 {
            return;
        }
        let lost = s.accounting().lost - self.lt_last_lost;
        let delivered = s.delivered() - self.lt_last_delivered;
        if delivered == 0 || (lost as f64) < LT_LOSS_THRESH * delivered as f64 {
            return;
        }
        // Whole milliseconds, as Linux.
        let ms = |t: Time| t.0 / 1_000_000;
        let t_ms = ms(self.delivered_mstamp).saturating_sub(ms(self.lt_last_stamp));
        if t_ms < 1 {
            return;
        }
        let bw = delivered as f64 / (t_ms as f64 / 1000.0);
        self.lt_bw_interval_done(s, bw);
    }

    // ----------------------------------------------------------------------- the model
    /// `bbr_update_bw()` of an ACK with a rate sample `rs` (without one it only clears
    /// `round_start`): rounds and the BtlBw filter.
    fn update_bw(&mut self, s: &impl SenderView, ctx: &AckCtx, rs: &RateSample) {
        // The long-term sampler changes nothing unless this ACK lost, or it uses or samples a
        // long-term rate and a round starts or the sample is application-limited: within a
        // round a sampling interval's count stays at most 16 (it is reset as it passes), and
        // without a loss the interval does not end.
        let lt_due = if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = s.delivered();
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
            if self.p.extra_acked {
                // `bbr_update_ack_aggregation()`'s step at a round start, taken here: this
                // ACK has a sample, and nothing before that update reads the window.
                self.advance_extra_acked_window();
            }
            self.lt_busy
        } else {
            self.lt_busy && rs.is_app_limited
        };
        if lt_due || (ctx.losses > 0 && self.p.lt_bw) {
            self.lt_bw_sampling(s, ctx.now, ctx.losses, rs.is_app_limited);
        }
        // An application-limited sample counts only if it raises the estimate. (Most
        // samples change nothing in the filter either way: that is asked first.)
        let (t, v) = (self.rtt_cnt, rs.delivery_rate);
        if !self.bw.quiet(t, v)
            && (!rs.is_app_limited || v >= self.bw.get())
            && self.bw.take_and_settle(t, v)
        {
            self.pace_kept = false;
            self.bw_in_use = self.bw_now();
        }
    }

    /// `bbr_update_ack_aggregation()` of an ACK with a rate sample that delivered `newly`
    /// segments (Linux's does nothing without a sample): the most data acknowledged beyond
    /// the estimate over an epoch, kept for two halves of 5 rounds. (Inlined into both paths
    /// of `bbr_main()`: a call would make the calm one save registers.)
    #[inline(always)]
    fn update_ack_aggregation(&mut self, s: &impl SenderView, newly: u64, bw: f64) {
        if !self.p.extra_acked {
            return;
        }
        // (Its round-start step is taken in `update_bw()`.)
        // (An epoch starts at a delivery or a transmission, never after the delivery now:
        // `since()` would saturate at no time.)
        debug_assert!(self.ack_epoch_mstamp <= self.delivered_mstamp);
        let epoch = Dur(self
            .delivered_mstamp
            .0
            .wrapping_sub(self.ack_epoch_mstamp.0));
        let expected = bw * secs(epoch);
        debug_assert!(expected >= 0.0, "a finite estimate over a finite epoch");
        let acked = self.ack_epoch_acked;
        // Linux's `acked <= expected` of integers, `expected` the product's integer part: an
        // integer is at most a product's integer part exactly when it is at most the
        // product (never NaN), and only an epoch that goes on needs the conversion. Kept
        // below 2^20, `acked` converts exactly.
        let extra = if to_f64(acked) <= expected || acked + newly >= ACK_EPOCH_ACKED_RESET {
            self.ack_epoch_mstamp = self.delivered_mstamp;
            self.ack_epoch_acked = newly.min(0xfffff);
            self.ack_epoch_acked
        } else {
            // (Below the reset's 2^20: within the cap of 0xfffff.)
            self.ack_epoch_acked = acked + newly;
            acked + newly - to_u64(expected)
        };
        // The half's maximum, of `extra` capped by the window: a sample at most the maximum
        // leaves it, capped or not (most ACKs: the cap is then not looked at). An integer (at
        // most 2^20) at most the window is at most its integer part, whose conversion is
        // needed only when the cap may bind.
        let slot = &mut self.extra_acked_now;
        if extra > *slot {
            let cwnd = s.cwnd();
            *slot = if to_f64(extra) <= cwnd {
                extra
            } else {
                extra.min(to_u64(cwnd)).max(*slot)
            };
            self.bdp_memo[CWND_BDP].target_bw = NO_TARGET;
        }
    }

    /// The ACK-aggregation allowance's window at a round start: a new half every 5 rounds.
    fn advance_extra_acked_window(&mut self) {
        self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
        if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
            self.extra_acked_win_rtts = 0;
            self.extra_acked_last = self.extra_acked_now;
            self.extra_acked_now = 0;
            self.bdp_memo[CWND_BDP].target_bw = NO_TARGET;
        }
    }

    /// `bbr_ack_aggregation_cwnd()`, with `cap` 100 ms of the estimate in use, or 0 while
    /// the allowance is off or the pipe not yet full (kept with the window's BDP, whose
    /// bandwidth it is).
    fn ack_aggregation_cwnd(&self, cap: u64) -> u64 {
        self.extra_acked_now.max(self.extra_acked_last).min(cap)
    }

    /// `bbr_is_next_cycle_phase()`.
    fn is_next_cycle_phase(&mut self, s: &impl SenderView, ctx: &AckCtx) -> bool {
        debug_assert_eq!(self.mode, Mode::ProbeBw);
        let full_length = self.delivered_mstamp > self.cycle_full_at;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        // The flight at the next departure only where the answer depends on it.
        let inflight = |g: &Self| g.packets_in_net_at_edt(s, ctx.now, ctx.prior_in_flight);
        let bw = self.bw.get();
        if self.pacing_gain > 1.0 {
            // Probing: raise the flight to gain x BDP, unless losses say it will not fit.
            if !full_length || ctx.losses > 0 {
                return full_length;
            }
            let target = self.inflight(bw, self.pacing_gain);
            // The flight at the next departure is at most the flight now plus the burst:
            // below the target, when the next segment leaves does not matter.
            return ctx.prior_in_flight + self.tso_goal >= target && inflight(self) >= target;
        }
        full_length || inflight(self) <= self.inflight(bw, 1.0)
    }

    /// `bbr_check_full_bw_reached()`: three rounds without 25% more bandwidth.
    fn check_full_bw_reached(&mut self, ctx: &AckCtx) {
        // (Once the pipe is full, the one test of every ACK.)
        if self.full_bw_reached || !self.round_start || ctx.rate.is_some_and(|r| r.is_app_limited) {
            return;
        }
        if self.bw.get() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
        if self.full_bw_reached {
            // The window's target now has the ACK-aggregation allowance.
            self.bdp_memo[CWND_BDP] = STALE_BDP;
        }
    }

    /// `bbr_check_drain()`.
    fn check_drain(&mut self, w: &mut Window, now: Time) {
        // (In ProbeBW and ProbeRTT, the one test of every ACK.)
        if !matches!(self.mode, Mode::Startup | Mode::Drain) {
            return;
        }
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.set_mode(now, Mode::Drain);
            let bw = self.bw.get();
            let target = self.inflight(bw, 1.0);
            w.set_ssthresh(target as f64);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(w, now, w.in_flight()) <= {
                let bw = self.bw.get();
                self.inflight(bw, 1.0)
            }
        {
            // The queue Startup built is drained.
            self.reset_probe_bw_mode(now);
        }
    }

    /// `bbr_check_probe_rtt_done()`.
    fn check_probe_rtt_done(&mut self, w: &mut Window, now: Time) {
        if !self.probe_rtt_hold.over(now) {
            return;
        }
        self.min_rtt_expiry = now + self.min_rtt_win;
        w.set_cwnd(w.cwnd().max(self.prior_cwnd));
        self.reset_mode(now);
    }

    /// `bbr_update_min_rtt()`: RTprop and the entry to ProbeRTT (the rest of it is
    /// [`Self::probe_rtt_step`]). True if RTprop had expired (the one case that may change
    /// the mode).
    fn update_min_rtt(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        let now = ctx.now;
        if now > self.min_rtt_expiry {
            self.min_rtt_expired(w, ctx);
            return true;
        }
        if let Some(rtt) = ctx.rtt_sample {
            debug_assert!(rtt < Dur(u64::MAX));
            if rtt < self.min_rtt_or_max {
                self.set_min_rtt(Some(rtt));
                self.min_rtt_expiry = now + self.min_rtt_win;
            }
        }
        false
    }

    /// [`Self::update_min_rtt`] on an ACK after RTprop's window expired (once per 10 s: out
    /// of line, so that the other ACKs test the expiry once): RTprop is the ACK's RTT sample
    /// if it has one, and ProbeRTT begins.
    #[cold]
    #[inline(never)]
    fn min_rtt_expired(&mut self, w: &mut Window, ctx: &AckCtx) {
        let now = ctx.now;
        if let Some(rtt) = ctx.rtt_sample {
            self.set_min_rtt(Some(rtt));
            self.min_rtt_expiry = now + self.min_rtt_win;
        }
        if self.p.probe_rtt_s > 0.0 && !self.idle_restart && self.mode != Mode::ProbeRtt {
            // Dip to the minimum window to drain the queue and measure RTprop afresh.
            self.set_mode(now, Mode::ProbeRtt);
            self.save_cwnd(w.cwnd());
            self.probe_rtt_hold.reset();
        }
    }

    /// The rest of `bbr_update_min_rtt()`: ProbeRTT's hold, and the end of an idle restart.
    #[inline]
    fn probe_rtt_step(&mut self, w: &mut Window, ctx: &AckCtx) {
        let now = ctx.now;
        if self.mode == Mode::ProbeRtt {
            // Its low-rate samples must not lower BtlBw.
            w.mark_app_limited();
            let target = u64::from(self.p.probe_rtt_cwnd);
            // Hold for max(probe_rtt_s, one round) from the flight's reaching the target.
            match self.probe_rtt_hold.step(
                w.in_flight(),
                target,
                now,
                self.probe_rtt_dur,
                self.round_start,
            ) {
                HoldStep::Started => self.next_rtt_delivered = w.delivered(),
                HoldStep::Check => self.check_probe_rtt_done(w, now),
                HoldStep::Wait => {}
            }
        }
        // An idle restart ends with the first ACK that delivers data.
        if self.idle_restart && ctx.rate.is_some_and(|r| r.delivered > 0) {
            self.idle_restart = false;
            self.calm = self.calm_now();
        }
    }

    /// `bbr_update_gains()`, computed again only when its inputs changed.
    fn update_gains(&mut self) {
        if !self.gains_stale {
            return;
        }
        self.gains_stale = false;
        self.bdp_memo = [STALE_BDP; 2];
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.drain_gain, self.p.high_gain),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    1.0
                } else {
                    PACING_GAIN[self.cycle_idx]
                },
                self.p.cwnd_gain,
            ),
            Mode::ProbeRtt => (1.0, 1.0),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
        self.refresh_cycle_test();
        self.pace_kept = false;
        self.calm = self.calm_now();
    }

    /// `bbr_set_cwnd_to_recover_or_restore()`: packet conservation in the first round of a
    /// recovery, the window of before it at its end. Returns the window, and whether
    /// conservation decides it.
    #[inline]
    fn recover_or_restore(&mut self, w: &Window, ctx: &AckCtx) -> (f64, bool) {
        if ctx.losses != 0 || w.ca_state() != self.prev_ca_state {
            return self.recover_or_restore_news(w, ctx);
        }
        // No loss, no change of state: the window stands, or conservation goes on (the rest
        // would change nothing).
        let cwnd = w.cwnd();
        if !self.packet_conservation {
            return (cwnd, false);
        }
        Self::conserved(w, ctx.newly_delivered, cwnd)
    }

    /// [`Self::recover_or_restore`] on an ACK that lost or changed the state (few).
    fn recover_or_restore_news(&mut self, w: &Window, ctx: &AckCtx) -> (f64, bool) {
        let state = w.ca_state();
        let acked = ctx.newly_delivered;
        let mut cwnd = w.cwnd();
        // An ACK releases at most twice what it delivered: first take off what it found lost.
        if ctx.losses > 0 {
            cwnd = (cwnd - to_f64(ctx.losses)).max(1.0);
        }
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            // The first round of recovery: conserve packets, from the flight now.
            self.packet_conservation = true;
            self.next_rtt_delivered = w.delivered();
            cwnd = to_f64(w.in_flight() + acked);
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            // Recovery is over: the window saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return Self::conserved(w, acked, cwnd);
        }
        (cwnd, false)
    }

    /// Packet conservation: at least the flight plus what the ACK delivered.
    #[inline]
    fn conserved(w: &Window, acked: u64, cwnd: f64) -> (f64, bool) {
        (cwnd.max(to_f64(w.in_flight() + acked)), true)
    }

    /// `bbr_bdp()` plus `bbr_ack_aggregation_cwnd()` through `bbr_quantization_budget()`,
    /// from nothing kept (what the memo of `set_cwnd()` must give; debug builds check it).
    fn window_target(&self, bw: f64, gain: f64) -> u64 {
        let extra = if self.p.extra_acked && self.full_bw_reached {
            self.ack_aggregation_cwnd((bw * EXTRA_ACKED_MAX.as_secs()) as u64)
        } else {
            0
        };
        self.quantization_budget(self.bdp(bw, gain) + extra)
    }

    /// [`Self::window_target`] as an f64, kept with the window's BDP while the
    /// ACK-aggregation allowance stands (asked on most ACKs out of a recovery's first round).
    /// (The gain is the window's, read only when the target is computed again.)
    #[inline]
    fn cwnd_target(&mut self, bw: f64) -> f64 {
        let m = &self.bdp_memo[CWND_BDP];
        debug_assert_ne!(bw.to_bits(), NO_TARGET);
        if m.target_bw == bw.to_bits() {
            debug_assert_eq!(m.bw, m.target_bw);
            return m.target;
        }
        self.cwnd_target_again(bw)
    }

    fn cwnd_target_again(&mut self, bw: f64) -> f64 {
        // (`bw` is `self.bw()`, the estimate the cap is of.)
        let base = self.bdp_at(CWND_BDP, bw, self.cwnd_gain);
        let extra = self.ack_aggregation_cwnd(self.bdp_memo[CWND_BDP].extra_acked_cap);
        let target = to_f64((base + extra + 1) & !1);
        debug_assert_eq!(self.bdp_memo[CWND_BDP].bw, bw.to_bits());
        self.bdp_memo[CWND_BDP].target_bw = bw.to_bits();
        self.bdp_memo[CWND_BDP].target = target;
        target
    }

    /// `bbr_set_cwnd()`, toward the target of `bw` and the window's gain.
    fn set_cwnd(&mut self, w: &mut Window, ctx: &AckCtx, bw: f64) {
        let acked = ctx.newly_delivered;
        let mut cwnd = w.cwnd();
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(w, ctx);
            cwnd = c;
            if !conserving {
                let target = self.cwnd_target(bw);
                debug_assert_eq!(
                    target,
                    to_f64(self.window_target(bw, self.cwnd_gain)),
                    "a stale window target"
                );
                // Slow start up toward the target, or down to it once the pipe was full.
                if self.full_bw_reached {
                    // `(cwnd + acked).min(target)` (the target is never NaN) in one test.
                    let grown = cwnd + to_f64(acked);
                    cwnd = if grown <= target { grown } else { target };
                } else if cwnd < target || w.delivered() < INIT_CWND {
                    cwnd += to_f64(acked);
                }
                cwnd = cwnd.max(f64::from(self.p.probe_rtt_cwnd));
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(f64::from(self.p.probe_rtt_cwnd));
        }
        w.set_cwnd(cwnd);
    }
}

impl Growth for Bbr {
    fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) {}

    /// `bbr_ssthresh()` (fast recovery) and `tcp_enter_loss()` (timeout): the model is not
    /// cut; the window to come back to is saved.
    fn on_congestion_event(&mut self, s: &Conn, kind: CongestionKind, _: &AckCtx) -> Cut {
        self.save_cwnd(s.cwnd());
        kept_window(s, kind)
    }

    fn on_event(&mut self, w: &mut Window, ev: CaEvent) {
        match ev {
            CaEvent::TxStart { .. } if !self.initialized => {
                let now = w.now();
                self.init(w, now);
                self.refresh_tso_goal(w);
            }
            CaEvent::TxStart { .. } if w.app_limited() => {
                // `bbr_cwnd_event(CA_EVENT_TX_START)`: restarting from idle.
                self.idle_restart = true;
                self.calm = false;
                self.ack_epoch_mstamp = w.now();
                self.ack_epoch_acked = 0;
                // No need for more speed: pace at the estimate (or end a due ProbeRTT).
                if self.mode == Mode::ProbeBw {
                    let bw = self.bw();
                    self.set_pacing_rate(w, bw, 1.0);
                    self.refresh_tso_goal(w);
                } else if self.mode == Mode::ProbeRtt {
                    let now = w.now();
                    self.check_probe_rtt_done(w, now);
                }
            }
            CaEvent::Timeout => {
                // `bbr_set_state(TCP_CA_Loss)`: a timeout ends a round, restarts the search
                // for a full pipe, and is a loss for the long-term estimator.
                self.prev_ca_state = CaState::Loss;
                self.full_bw = 0.0;
                self.round_start = true;
                let now = self.delivered_mstamp;
                self.lt_bw_sampling(w, now, 1, false);
            }
            CaEvent::Undo => {
                // `bbr_undo_cwnd()`: the slow-down was spurious; look for a full pipe and a
                // policer afresh (the window is BBR's own on every ACK).
                self.full_bw = 0.0;
                self.full_bw_cnt = 0;
                let now = self.delivered_mstamp;
                self.reset_lt_bw_sampling(w, now);
            }
            CaEvent::TxStart { .. }
            | CaEvent::EnterRecovery
            | CaEvent::ExitRecovery
            | CaEvent::LossRecovered => {}
        }
        self.calm_before = self.calm_bound();
    }

    fn owns_window(&self) -> bool {
        true
    }

    fn wants_tx_start(&self) -> bool {
        true
    }

    fn phase(&self) -> Option<&'static str> {
        Some(match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => PROBE_BW_PHASES[self.cycle_idx],
            Mode::ProbeRtt => "probe_rtt",
        })
    }

    /// `bbr_main()`: most ACKs take [`Bbr::calm_ack`], the others the whole of it
    /// ([`Bbr::main`]). (Out of line, as it was before the split: inlined into the sender's
    /// ACK path it cost 49 instructions per packet more on `two-hop`.)
    #[inline(never)]
    fn cong_control(&mut self, w: &mut Window, ctx: &AckCtx) {
        #[cfg(debug_assertions)]
        let before = (self.clone(), w.state().clone());
        if self.calm_ack(w, ctx) {
            #[cfg(debug_assertions)]
            {
                let (mut full, mut st) = before;
                full.main(&mut Window::new(&mut st), ctx);
                debug_assert_eq!(format!("{full:?}"), format!("{self:?}"), "a calm ACK");
                debug_assert_eq!(format!("{st:?}"), format!("{:?}", w.state()), "a calm ACK");
            }
            return;
        }
        self.main(w, ctx);
    }
}

impl Bbr {
    /// `bbr_main()` on the most common ACK, without a call but one at its end (so that it
    /// saves and restores no registers): in ProbeBW's calm ([`Self::calm`]) an ACK with a
    /// rate sample, no loss and no change of state, in no round start, that no long-term
    /// sampling, RTprop or pacing change is due on, and no phase test or one that says no
    /// without a call ([`Self::phase_goes_on`]), whose sample changes no
    /// more of the bandwidth filter than [`MaxFilter::takes_in_place`] does, and whose
    /// window is conserved or kept toward a target kept ([`Self::cwnd_target`]'s memo), the
    /// window's memo missing a call at the end. Returns false, having changed nothing, for
    /// the other ACKs (then [`Self::main`] takes them); what it does is what
    /// `main` would do on these (checked on a copy in debug builds).
    #[inline(always)]
    fn calm_ack(&mut self, w: &mut Window, ctx: &AckCtx) -> bool {
        let Some(rs) = &ctx.rate else {
            return false;
        };
        // (Calm is ProbeBW after a full pipe: never before `init()`.)
        debug_assert!(!self.calm || self.initialized);
        let (t, v) = (self.rtt_cnt, rs.delivery_rate);
        let takes = !self.bw.quiet(t, v) && (!rs.is_app_limited || v >= self.bw.get());
        debug_assert_eq!(self.calm_before, self.calm_bound(), "a stale calm bound");
        // The calm, the pacing rate kept and `update_min_rtt()`'s expiry, in one comparison
        // before the bound; `update_bw()`'s round start and long-term sampler; the phase test
        // (the delivery time is now); `update_min_rtt()`'s new minimum;
        // `recover_or_restore()`'s news.
        if (ctx.now >= self.calm_before && !self.calm_past_bound(ctx))
            || ctx.losses != 0
            || rs.prior_delivered >= self.next_rtt_delivered
            || (self.lt_busy && rs.is_app_limited)
            || (ctx.now > self.cycle_test_after && !self.phase_goes_on(w, ctx))
            || ctx.rtt_sample.is_some_and(|r| r < self.min_rtt_or_max)
            || w.ca_state() != self.prev_ca_state
            || (takes && !self.bw.takes_in_place(t, v))
        {
            return false;
        }
        self.round_start = false;
        self.delivered_mstamp = ctx.now;
        if takes {
            self.bw.take_in_place(t, v);
        }
        let bw = self.bw_in_use;
        let acked = ctx.newly_delivered;
        self.update_ack_aggregation(w, acked, bw);
        // `set_cwnd()` with no loss, no change of state, in ProbeBW after a full pipe.
        let mut cwnd = w.cwnd();
        if acked > 0 {
            if self.packet_conservation {
                cwnd = Self::conserved(w, acked, cwnd).0;
            } else {
                let m = &self.bdp_memo[CWND_BDP];
                debug_assert_ne!(bw.to_bits(), NO_TARGET);
                if m.target_bw != bw.to_bits() {
                    self.set_cwnd_again(w, ctx, bw);
                    return true;
                }
                debug_assert_eq!(m.bw, m.target_bw);
                let target = m.target;
                let grown = cwnd + to_f64(acked);
                cwnd = if grown <= target { grown } else { target };
                cwnd = cwnd.max(f64::from(self.p.probe_rtt_cwnd));
            }
        }
        w.set_cwnd(cwnd);
        true
    }

    /// [`Self::calm_ack`]'s three tests that `calm_before` answers for the ACKs before it:
    /// calm, the pacing rate kept, RTprop not expired.
    #[inline(always)]
    fn calm_past_bound(&self, ctx: &AckCtx) -> bool {
        self.calm && self.pace_kept && ctx.now <= self.min_rtt_expiry
    }

    /// `bbr_is_next_cycle_phase()` says no on this ACK (of no loss, with a rate sample that
    /// leaves the estimate as it was), found without a call: its target kept, in the
    /// probing phase (past its length: the test runs) the flight at the next departure
    /// below it (at once if the flight now plus a burst is), in the draining one before
    /// its length still above it. A probing phase that the receiver's window keeps from its
    /// target tests on every ACK once it has lasted its length (`same`), and the draining
    /// one on every ACK (8% of them on `two-hop`).
    #[inline(always)]
    fn phase_goes_on(&self, w: &Window, ctx: &AckCtx) -> bool {
        debug_assert_eq!(ctx.losses, 0);
        // (The estimate in use is the filter's: a long-term rate's gain is 1.)
        let m = &self.bdp_memo[PHASE_BDP];
        if m.bw != self.bw_in_use.to_bits() {
            return false;
        }
        let (now, prior) = (ctx.now, ctx.prior_in_flight);
        if self.pacing_gain > 1.0 {
            prior + self.tso_goal < m.bdp || self.packets_in_net_at_edt(w, now, prior) < m.bdp
        } else {
            self.pacing_gain < 1.0
                && now <= self.cycle_full_at
                && self.packets_in_net_at_edt(w, now, prior) > m.bdp
        }
    }

    /// [`Self::set_cwnd`] when the window's target is to be computed again (out of line).
    #[inline(never)]
    fn set_cwnd_again(&mut self, w: &mut Window, ctx: &AckCtx, bw: f64) {
        self.set_cwnd(w, ctx, bw);
    }

    /// `bbr_main()`.
    #[inline(never)]
    fn main(&mut self, w: &mut Window, ctx: &AckCtx) {
        if !self.initialized {
            self.init(w, ctx.now);
            self.refresh_tso_goal(w);
        }
        // (`tso_goal` is that of the pacing rate: only this plugin sets the rate, and it
        // refreshes the goal wherever it does.)
        self.round_start = false;
        // The estimate in use is final once update_bw() ran: nothing else changes it.
        let bw = match &ctx.rate {
            Some(rs) => {
                // (A rate sample comes from a segment the ACK delivered.)
                debug_assert!(ctx.newly_delivered > 0);
                self.delivered_mstamp = ctx.now;
                self.update_bw(w, ctx, rs);
                let bw = self.bw();
                self.update_ack_aggregation(w, ctx.newly_delivered, bw);
                bw
            }
            None => {
                if ctx.newly_delivered > 0 {
                    self.delivered_mstamp = ctx.now;
                }
                self.bw()
            }
        };
        debug_assert!(
            self.delivered_mstamp > self.cycle_test_after
                || self.mode != Mode::ProbeBw
                || (self.pacing_gain >= 1.0 && self.delivered_mstamp <= self.cycle_full_at),
            "a phase test skipped that could say yes"
        );
        // (Outside ProbeBW nothing is past `cycle_test_after`.)
        if self.delivered_mstamp > self.cycle_test_after && self.is_next_cycle_phase(w, ctx) {
            self.advance_cycle_phase();
        }
        debug_assert_eq!(self.calm, self.calm_now(), "calm across a change");
        if self.calm {
            // Only RTprop's expiry (ProbeRTT's entry) can end the calm before the gains.
            if self.update_min_rtt(w, ctx) && !self.calm {
                self.probe_rtt_step(w, ctx);
                self.update_gains();
            }
        } else {
            // (Nothing here makes the sender calm before `update_gains()`.)
            self.check_full_bw_reached(ctx);
            self.check_drain(w, ctx.now);
            self.update_min_rtt(w, ctx);
            debug_assert!(!self.calm);
            self.probe_rtt_step(w, ctx);
            self.update_gains();
        }
        debug_assert_eq!(self.calm, self.calm_now(), "calm across a change");
        debug_assert!(!self.gains_stale);
        debug_assert_eq!(bw.to_bits(), self.bw().to_bits());
        let pacing = self.pacing_gain;
        let paced = [bw.to_bits(), pacing.to_bits()];
        if !self.pace_kept {
            self.pace_kept = self.paced_at == paced || {
                self.set_pacing_rate(w, bw, pacing);
                self.refresh_tso_goal(w);
                self.paced_at == paced
            };
        }
        debug_assert!(
            !self.pace_kept || self.paced_at == paced,
            "a pacing rate kept across a change of the estimate or the gain"
        );
        debug_assert!(
            self.p.pacing_burst != PacingBurst::Tso || w.min_rtt() == self.burst_min_rtt,
            "a burst kept across a fall of the min RTT"
        );
        self.set_cwnd(w, ctx, bw);
        self.calm_before = self.calm_bound();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::state::SenderState;

    /// A sender with `flight` segments out and `delivered` delivered.
    fn state(flight: u64, delivered: u64) -> SenderState {
        let mut s = SenderState::new(10, 100_000, 3, u64::MAX);
        s.segment_bytes = 1000;
        s.srtt = Some(Dur::from_secs(0.1));
        s.snd_una = delivered;
        s.snd_max = delivered + flight;
        s.snd_nxt = s.snd_max;
        s.acct.delivered = delivered;
        s
    }

    /// One ACK per round delivering 10 segments at `rate` segments/s, 100 ms apart.
    fn round(g: &mut Bbr, s: &mut SenderState, k: u64, rate: f64) {
        let flight = s.flight();
        s.acct.delivered = 10 * (k + 1);
        s.snd_una = s.acct.delivered;
        s.snd_max = s.snd_una + flight;
        let ctx = AckCtx {
            now: Time::from_secs(0.1 * (k + 1) as f64),
            rtt_sample: Some(Dur::from_secs(0.1)),
            newly_acked: 10,
            newly_delivered: 10,
            rate: Some(RateSample {
                delivered: 10,
                interval: Dur::from_secs(10.0 / rate),
                delivery_rate: rate,
                is_app_limited: false,
                prior_delivered: 10 * k,
                rtt: Some(Dur::from_secs(0.1)),
                tx_in_flight: 0,
                lost: 0,
            }),
            prior_in_flight: s.flight(),
            losses: 0,
        };
        g.cong_control(&mut Window::new(s), &ctx);
    }

    /// `tcp_tso_autosize()`'s RTT term: a min RTT falling below 16 ms with the rate unchanged
    /// resizes the burst (64 KB >> (min_rtt_us >> 9)); `segment` never sets one.
    #[test]
    fn the_tso_burst_follows_the_min_rtt_as_well_as_the_rate() {
        let mut g = Bbr::new(BbrParams::default(), 1);
        let mut s = state(0, 0);
        s.segment_bytes = 1448;
        s.pacing_rate = Some(1000.0); // 1.4 MB/s: 1414 bytes per 2^-10 s, under one segment
        g.refresh_tso_goal(&mut Window::new(&mut s));
        assert_eq!(
            s.pacing_burst,
            Some(2),
            "bbr_min_tso_segs() above 1.2 Mbit/s"
        );
        s.min_rtt = Some(Dur::from_secs(0.02));
        g.refresh_tso_goal(&mut Window::new(&mut s));
        assert_eq!(s.pacing_burst, Some(2), "from 16.4 ms the term is nothing");
        // 2 ms: 64 KB >> 3 = 8192 bytes more: (1414 + 8192) / 1448 = 6 segments.
        s.min_rtt = Some(Dur::from_secs(0.002));
        g.refresh_tso_goal(&mut Window::new(&mut s));
        assert_eq!(s.pacing_burst, Some(6));
        let mut seg = Bbr::new(
            BbrParams {
                pacing_burst: PacingBurst::Segment,
                ..BbrParams::default()
            },
            1,
        );
        let mut s = state(0, 0);
        s.pacing_rate = Some(1000.0);
        s.min_rtt = Some(Dur::from_secs(0.002));
        seg.refresh_tso_goal(&mut Window::new(&mut s));
        assert_eq!(s.pacing_burst, None);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_more_bandwidth() {
        let mut g = Bbr::new(BbrParams::default(), 1);
        let mut s = state(500, 0);
        // 800 -> 1000 is exactly 25% more: still growing. Then 1100, 1150, 1200: three
        // rounds below 1.25 x 1000 = 1250.
        let rates = [100.0, 200.0, 400.0, 800.0, 1000.0, 1100.0, 1150.0];
        for (k, r) in rates.iter().enumerate() {
            round(&mut g, &mut s, k as u64, *r);
            assert_eq!(g.mode, Mode::Startup, "round {k}");
        }
        assert_eq!(g.full_bw_cnt, 2);
        round(&mut g, &mut s, 7, 1200.0);
        assert_eq!(g.mode, Mode::Drain, "the third round without growth");
        assert_eq!(g.bw(), 1200.0);
        // Drain paces at 88/256 of the estimate, 1% under it; the window stays at 2.89 BDP.
        assert_eq!(g.pacing_gain, 88.0 / 256.0);
        let rate = s.pacing_rate.unwrap();
        assert!((rate - 1200.0 * 88.0 / 256.0 * 0.99).abs() < 1e-9, "{rate}");
        // ssthresh becomes one BDP plus the send-quantum budget, from the pacing rate of the
        // moment (Startup's, 2.89 x 1150 x 0.99 = 3290 segments/s: 3 segments per 2^-10 s):
        // ceil(1200 x 0.1) = 120, plus 3 x 3, rounded up to even.
        assert_eq!(s.ssthresh, 130.0);
    }

    #[test]
    fn drain_ends_when_the_flight_is_down_to_one_bdp() {
        let mut g = Bbr::new(BbrParams::default(), 1);
        let mut s = state(500, 0);
        for (k, r) in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0]
            .iter()
            .enumerate()
        {
            round(&mut g, &mut s, k as u64, *r);
        }
        assert_eq!(g.mode, Mode::Drain);
        // BDP + budget = 100 + 6: a flight of 107 keeps draining, 106 ends it.
        s.snd_max = s.snd_una + 107;
        round(&mut g, &mut s, 8, 1000.0);
        assert_eq!(g.mode, Mode::Drain);
        s.snd_max = s.snd_una + 106;
        round(&mut g, &mut s, 9, 1000.0);
        assert_eq!(g.mode, Mode::ProbeBw);
        assert_ne!(g.cycle_idx, 1, "never starts in the draining phase");
    }

    #[test]
    fn the_gain_cycle_starts_at_every_phase_but_the_draining_one() {
        let mut seen = [0u32; 8];
        for seed in 0..400 {
            let mut g = Bbr::new(BbrParams::default(), seed);
            g.reset_probe_bw_mode(Time::ZERO);
            seen[g.cycle_idx] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(
            seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 30),
            "{seen:?}"
        );
    }

    #[test]
    fn an_undo_restarts_the_search_for_a_full_pipe() {
        // bbr_undo_cwnd(): a spurious slow-down says nothing of the pipe.
        let mut g = Bbr::new(BbrParams::default(), 1);
        let mut s = state(500, 0);
        for (k, r) in [100.0, 200.0, 400.0, 800.0, 1000.0, 1100.0, 1150.0]
            .iter()
            .enumerate()
        {
            round(&mut g, &mut s, k as u64, *r);
        }
        assert_eq!(g.full_bw_cnt, 2);
        let cwnd = s.cwnd;
        g.on_event(&mut Window::new(&mut s), CaEvent::Undo);
        assert_eq!((g.full_bw_cnt, g.full_bw, s.cwnd), (0, 0.0, cwnd));
        round(&mut g, &mut s, 7, 1200.0);
        assert_eq!(g.mode, Mode::Startup, "three more rounds are needed");
    }

    #[test]
    fn recovery_conserves_packets_then_restores_the_window() {
        let mut g = Bbr::new(BbrParams::default(), 1);
        let mut s = state(100, 0);
        s.cwnd = 120.0;
        for k in 0..8 {
            round(&mut g, &mut s, k, 1000.0);
        }
        let before = s.cwnd;
        // Entering recovery: the window saved; the first ACK in recovery sets cwnd to the
        // flight plus what it delivered, less what it found lost.
        g.on_congestion_event(
            &Conn::new(&s),
            CongestionKind::FastRetransmit,
            &AckCtx::default(),
        );
        s.ca_state = CaState::Recovery;
        s.snd_max = s.snd_una + 60;
        round(&mut g, &mut s, 8, 1000.0);
        assert_eq!(s.cwnd, 70.0, "in flight 60 + 10 delivered");
        assert!(g.packet_conservation);
        // Recovery over: the saved window comes back.
        s.ca_state = CaState::Open;
        round(&mut g, &mut s, 9, 1000.0);
        assert!(s.cwnd >= before, "{} vs {before}", s.cwnd);
    }
}
