//! The sender-wide TCP options (every variant's, unlike a plugin's parameters): the profile's
//! knobs (on or off by the profile unless given) and the undo switches, declared once
//! here, as [`super::params`] declares the plugins' parameters, and exported with the variant
//! registry ([`super::variant::registry_json`]); the Python front builds from the export the
//! `Tcp` record's fields and their validation, `simulate()`'s keywords, the command line's
//! flags, the TOML keys and the README's table.
//!
//! One module for them all rather than one declaration beside each implementation: an
//! option is read in several places at once (DSACK by the receiver that reports and the
//! sender that undoes, `sim::tcp` pairing them; F-RTO and Eifel by the sender's undo
//! machinery; the knobs by `variant::preset`, which hands them to the recovery plugins and
//! the sender's `Compat`), and none of those files is its single home.
//!
//! Adding an option: one entry in [`OPTIONS`], its field in `TcpConfig` (the entry's `get`
//! reads it; a test checks the entry's name is the field's JSON key), and its implementation.

use crate::config::{Profile, TcpConfig, Variant};

/// What the option's value means when the scenario does not give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// Off unless given. A scenario carries it only when on, so a scenario that does not
    /// use it (and its run key) is what it was before the option existed.
    Switch,
    /// On or off by the profile when not given (`None`); a scenario always carries it,
    /// `null` for the profile's default.
    Tristate { rfc: bool, ns2: bool },
}

/// What the flow's variant must have for the option to be on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// Its recovery reads SACK blocks, so its receiver sends them
    /// ([`crate::config::Variant::reads_sack_blocks`]).
    SackBlocks,
}

/// One sender-wide option.
#[derive(Clone, Copy, Debug)]
pub struct SenderOption {
    /// The scenario's key, `simulate()`'s keyword, the TOML key; `--name-with-dashes` flag.
    pub name: &'static str,
    /// What it does and whose rule it is (one paragraph, the keyword's documentation).
    pub doc: &'static str,
    pub kind: OptionKind,
    /// A value a profile refuses, and why (the error's text after the value).
    pub refused: Option<(Profile, bool, &'static str)>,
    /// What the variant needs when the option is on, and what the option does with it (the
    /// error's text: "`why`, which `variant`'s receiver does not send: ...").
    pub requires: Option<(Requirement, &'static str)>,
    /// Another option that must be on with it (it refines that one).
    pub needs: Option<&'static SenderOption>,
    /// The ns-2 2.35 counterpart, if any (the agent variable the cross-check sets, or the
    /// behaviour ns-2 always has): `crosscheck ns2` refuses a switch on, or a knob given,
    /// without one.
    pub ns2: Option<&'static str>,
    /// The ns-3 3.37 counterpart, if any: `crosscheck ns3` refuses as `crosscheck ns2` does.
    pub ns3: Option<&'static str>,
    /// Linux's counterpart (the emulator runs the kernel's defaults; for the reader).
    pub linux: Option<&'static str>,
    /// Its value in the engine's configuration closest to Linux's TCP (`crosscheck linux`,
    /// the emulator's replay: `lossytcp.emulate.linux.engine_config`); `None`: the rfc
    /// profile's default.
    pub as_linux: Option<bool>,
    /// The scenario's value (`None`: not given, the kind's default).
    pub get: fn(&TcpConfig) -> Option<bool>,
}

impl SenderOption {
    const fn new(
        name: &'static str,
        kind: OptionKind,
        get: fn(&TcpConfig) -> Option<bool>,
    ) -> Self {
        Self {
            name,
            doc: "",
            kind,
            refused: None,
            requires: None,
            needs: None,
            ns2: None,
            ns3: None,
            linux: None,
            as_linux: None,
            get,
        }
    }
    /// Off unless given; `get` reads its `TcpConfig` field.
    pub const fn switch(name: &'static str, get: fn(&TcpConfig) -> Option<bool>) -> Self {
        Self::new(name, OptionKind::Switch, get)
    }
    /// The profile's default unless given (`rfc`, `ns2`); `get` reads its `TcpConfig` field.
    pub const fn knob(
        name: &'static str,
        rfc: bool,
        ns2: bool,
        get: fn(&TcpConfig) -> Option<bool>,
    ) -> Self {
        Self::new(name, OptionKind::Tristate { rfc, ns2 }, get)
    }
    pub const fn doc(mut self, doc: &'static str) -> Self {
        self.doc = doc;
        self
    }
    pub const fn refused(mut self, profile: Profile, value: bool, why: &'static str) -> Self {
        self.refused = Some((profile, value, why));
        self
    }
    pub const fn requires(mut self, what: Requirement, why: &'static str) -> Self {
        self.requires = Some((what, why));
        self
    }
    pub const fn needs(mut self, other: &'static SenderOption) -> Self {
        self.needs = Some(other);
        self
    }
    pub const fn ns2(mut self, setting: &'static str) -> Self {
        self.ns2 = Some(setting);
        self
    }
    pub const fn ns3(mut self, attribute: &'static str) -> Self {
        self.ns3 = Some(attribute);
        self
    }
    pub const fn linux(mut self, counterpart: &'static str, as_linux: Option<bool>) -> Self {
        self.linux = Some(counterpart);
        self.as_linux = as_linux;
        self
    }

    /// Whether it is on in `t`.
    pub fn on(&self, t: &TcpConfig) -> bool {
        (self.get)(t).unwrap_or(self.default_for(t.profile))
    }

    /// Its value in `profile` when not given.
    pub fn default_for(&self, profile: Profile) -> bool {
        match (self.kind, profile) {
            (OptionKind::Switch, _) => false,
            (OptionKind::Tristate { rfc, .. }, Profile::Rfc) => rfc,
            (OptionKind::Tristate { ns2, .. }, Profile::Ns2) => ns2,
        }
    }
}

/// RFC 3042 (`Compat::limited_transmit`).
pub const LIMITED_TRANSMIT: SenderOption =
    SenderOption::knob("limited_transmit", false, true, |t| t.limited_transmit)
        .doc(
            "RFC 3042 limited transmit: each of the first DupThresh - 1 duplicate ACKs \
             releases one new segment (ns-2's singledup_, 1 in ns-2 2.35); Vegas refuses it, \
             having its own rule for the first duplicate ACKs.",
        )
        .ns2("singledup_")
        .linux("always on", Some(true));

/// ns-2's `delay_growth_` (`Compat::delay_growth`).
pub const DELAY_GROWTH: SenderOption =
    SenderOption::knob("delay_growth", false, true, |t| t.delay_growth)
        .doc(
            "ns-2's delay_growth_: the ACK of segment 0 resets cwnd to the initial window \
             instead of opening it.",
        )
        .ns2("delay_growth_");

/// NewReno's partial window deflation (`PartialAckWindow::Ns2`).
pub const PARTIAL_WINDOW_DEFLATION: SenderOption =
    SenderOption::knob("partial_window_deflation", true, true, |t| {
        t.partial_window_deflation
    })
    .doc(
        "NewReno partial ACKs deflate the window by the newly acknowledged amount less one \
         (RFC 6582 section 3.2 step 5; ns-2's partial_window_deflation_, 1 in ns-2 2.35); off \
         gives the ns-2 NewReno of paper 000 Table III in profile 'ns2'.",
    )
    .refused(
        Profile::Rfc,
        false,
        "RFC 6582 always deflates; the undeflated NewReno is ns-2's (profile='ns2')",
    )
    .ns2("partial_window_deflation_");

/// Growth on the ACK that ends fast recovery (`exit_growth` of the Reno and NewReno
/// recoveries).
pub const RECOVERY_EXIT_GROWTH: SenderOption =
    SenderOption::knob("recovery_exit_growth", false, true, |t| {
        t.recovery_exit_growth
    })
    .doc(
        "The ACK that ends fast recovery also opens cwnd, as ns-2's recv_newack_helper() \
             does; RFC 5681 section 3.2 step 6 and RFC 6582 set cwnd and stop.",
    )
    .ns2("always on (recv_newack_helper)");

/// NewReno's timer on partial ACKs (`NewRenoParams::timer_every_partial_ack`).
pub const TIMER_EVERY_PARTIAL_ACK: SenderOption =
    SenderOption::knob("timer_every_partial_ack", false, false, |t| {
        t.timer_every_partial_ack
    })
    .doc(
        "NewReno restarts the retransmission timer on every partial ACK (RFC 6582 section 4's \
         Slow-but-Steady; ns-2's newreno_changes1_ 0) instead of the first one only \
         (Impatient, RFC 6582 section 3.2 step 5; ns-2 2.35's default).",
    )
    .ns2("newreno_changes1_ (inverted)");

/// RFC 3522 Eifel detection and the undo of what it finds spurious (`Sender`'s
/// `eifel_probe`).
pub const EIFEL_UNDO: SenderOption = SenderOption::switch("eifel_undo", |t| Some(t.eifel_undo))
    .doc(
        "RFC 3522 Eifel: segments carry RFC 7323 timestamps, and the first ACK covering a \
         congestion event's retransmission that echoes an earlier copy's timestamp makes the \
         growth plugin undo the event's cut, as Linux's undo_cwnd() (every variant's growth \
         has one); a timeout found spurious also ends its go-back-N, RFC 4015's response, and \
         a spurious fast retransmit's recovery ends.",
    )
    // Off in the engine's Linux configuration all the same: on paper 001's path it brings the
    // engine's retransmissions nearer the kernel's but not its goodput (emulate/linux.py).
    .linux(
        "tcp_packet_delayed(), the timestamp undo (on with timestamps)",
        Some(false),
    );

/// F-RTO (`Sender`'s `frto`). ns-2 2.35 has an F-RTO of its own (frto_enabled_,
/// sfrto_enabled_: RFC 4138's, with spurious_response_), never checked against this one: not
/// a counterpart yet.
pub const FRTO: SenderOption = SenderOption::switch("frto", |t| Some(t.frto))
    .doc(
        "RFC 5682 F-RTO, SACK-enhanced as Linux's tcp_frto = 2: after a timeout two new \
         segments probe whether the originals were only delayed; if so the timeout is undone \
         as with eifel_undo (no go-back-N), else recovery goes on conventionally.",
    )
    .linux("net.ipv4.tcp_frto = 2", Some(true));

/// DSACK: the receiver's report (`Receiver::with_dsack`) and the sender's undo (`Sender`'s
/// `dsack_undo`).
pub const DSACK: SenderOption = SenderOption::switch("dsack", |t| Some(t.dsack))
    .doc(
        "RFC 2883 DSACK: the receiver reports a duplicate segment in the first SACK block, and \
         when every retransmission of a loss episode has been reported so the sender undoes \
         the episode's cut as Linux's undo_retrans does (RFC 3708's detection): after a \
         timeout on the next ACK that advances, as with eifel_undo; a fast recovery ends with \
         it. SACK variants with profile 'rfc', which carry the blocks.",
    )
    .refused(
        Profile::Ns2,
        true,
        "is RFC 2883's report in RFC 2018's SACK blocks; ns-2 2.35's sink (profile='ns2') \
         sends none",
    )
    .requires(Requirement::SackBlocks, "reports duplicates in SACK blocks")
    .linux("net.ipv4.tcp_dsack = 1", Some(true));

/// RFC 8985 section 7's tail loss probe as Linux 6.x runs it (`Sender`'s `tlp`).
pub const TLP: SenderOption = SenderOption::switch("tlp", |t| Some(t.tlp))
    .doc(
        "RFC 8985 section 7's tail loss probe as Linux 6.x runs it (tcp_schedule_loss_probe(), \
         tcp_send_loss_probe(), tcp_process_tlp_ack()): a SACK sender in the open state with \
         data out arms a probe at 2 SRTT + 2 ms (+200 ms, Linux's TCP_RTO_MIN, with one \
         segment out; 1 s before any RTT sample), rounded up to 4 ms jiffies (HZ 250), never \
         after the RTO, re-armed by every ACK that advances and every send of new data; when \
         it fires one segment leaves, new data if the receiver's window takes it (whatever \
         cwnd) or else the last segment again, and the RTO restarts from it; one probe per \
         episode; an ACK beyond the probe that is not its DSACK reduces the window once \
         (ssthresh as at a fast retransmit, cwnd = ssthresh); flows report tlps and \
         tlp_recoveries.",
    )
    .refused(
        Profile::Ns2,
        true,
        "is RFC 8985's tail loss probe as Linux runs it; ns-2 2.35's agents (profile='ns2') \
         have none",
    )
    .requires(
        Requirement::SackBlocks,
        "probes SACK connections only (RFC 8985 section 7.2, Linux's tcp_is_sack())",
    )
    .linux(
        "net.ipv4.tcp_early_retrans = 3 (RACK-TLP's probe)",
        Some(true),
    );

/// RFC 6937's Proportional Rate Reduction as Linux 6.x runs it (`Sack`'s `prr`).
pub const PRR: SenderOption = SenderOption::switch("prr", |t| Some(t.prr))
    .doc(
        "RFC 6937 Proportional Rate Reduction as Linux 6.x's tcp_cwnd_reduction(): in SACK \
         fast recovery cwnd is not set to ssthresh at entry but, on every ACK that delivers \
         (cumulatively or by SACK), to the pipe plus what PRR releases: ssthresh/prior_cwnd \
         of the data delivered since entry less what was sent, while the pipe exceeds \
         ssthresh; up to ssthresh again by slow start (one more on an ACK that advances \
         without new losses) below it; at least the fast retransmission; cwnd = ssthresh \
         when recovery ends. Growth plugins that own the window (bbr, bbr3) get none, as \
         Linux's cong_control.",
    )
    .refused(
        Profile::Ns2,
        true,
        "is RFC 6937's rate reduction; ns-2 2.35's agents (profile='ns2') have none",
    )
    .requires(
        Requirement::SackBlocks,
        "counts the segments each ACK delivers by SACK",
    )
    .ns3("ns3::TcpPrrRecovery")
    .linux("tcp_cwnd_reduction(), always on", Some(true));

/// RFC 8985 section 6's RACK loss detection as Linux 6.x runs it (`Sender`'s `rack`,
/// [`super::rack`]).
pub const RACK: SenderOption = SenderOption::switch("rack", |t| Some(t.rack))
    .doc(
        "RFC 8985 section 6's RACK time-based loss detection as Linux 6.x runs it \
         (tcp_rack_advance(), tcp_rack_detect_loss(), tcp_rack_reo_timeout()): a segment, \
         original or retransmission, is lost once one sent after it is delivered and the \
         latest delivered segment's RTT plus a reordering window has passed since it left; \
         the window is 0 in recovery or with DupThresh segments SACKed while no reordering \
         was seen, else min_rtt/4 (at most SRTT), and the segments still within it wait for \
         a reordering timer (in 4 ms jiffies, HZ 250) that marks them and starts recovery; \
         recovery starts once a loss is proven instead of on DupThresh duplicate ACKs, and a \
         lost retransmission goes again without the RTO; flows report rack_lost (segments \
         RACK marked lost) and rack_lost_retransmissions (retransmissions marked lost by RACK \
         or a timeout, Linux's TCPLostRetransmit).",
    )
    .refused(
        Profile::Ns2,
        true,
        "is RFC 8985's loss detection as Linux runs it; ns-2 2.35's agents (profile='ns2') \
         have none",
    )
    .requires(
        Requirement::SackBlocks,
        "detects losses from what SACK blocks deliver (RFC 8985 section 6)",
    )
    .linux("net.ipv4.tcp_recovery = 1 (RACK, the default)", Some(true));

/// The reordering degree (Linux's `tp->reordering`, [`super::rack::Reordering::degree`]).
pub const REORDERING: SenderOption = SenderOption::switch("reordering", |t| Some(t.reordering))
    .doc(
        "Linux 6.x's reordering degree beside rack (tcp_check_sack_reordering()): a segment \
         never retransmitted that is delivered (SACKed or cumulatively ACKed) below the \
         highest SACKed one raises the degree to that distance in segments, at most 300 \
         (net.ipv4.tcp_max_reordering), and the degree is read where DupThresh is: RACK's \
         zero window once that many segments are SACKed while no reordering was seen, and \
         the SACK recovery's IsLost (which Linux 6.x no longer has beside RACK: there the \
         degree is the count Linux 4.x's tcp_mark_head_lost() used); a timeout in the open \
         state with DupThresh segments SACKed brings it back to DupThresh (tcp_enter_loss()). \
         The window grows as Linux's tcp_cong_control() grows it beside the degree: by the \
         segments each ACK delivers (SACKed or cumulatively ACKed for the first time, \
         tcp_newly_delivered()), and once the degree exceeds DupThresh also on an ACK that \
         only SACKs new data, outside recovery (tcp_may_raise_cwnd()'s \
         FLAG_FORWARD_PROGRESS; not for a plugin that owns the window, bbr). Flows report \
         reordering_events (TCPSACKReorder + TCPTSReorder) and reordering_degree (the \
         highest reached). Needs rack.",
    )
    .refused(
        Profile::Ns2,
        true,
        "is Linux's reordering degree beside RACK; ns-2 2.35's agents (profile='ns2') have \
         none",
    )
    .requires(
        Requirement::SackBlocks,
        "measures reordering from SACK blocks",
    )
    .needs(&RACK)
    .linux(
        "tp->reordering (net.ipv4.tcp_reordering = 3, tcp_max_reordering = 300)",
        Some(true),
    );

/// RACK's reordering window widened by DSACKs ([`super::rack::Reordering::dsack_window`]).
pub const RACK_REO_WND: SenderOption =
    SenderOption::switch("rack_reo_wnd", |t| Some(t.rack_reo_wnd))
        .doc(
            "RACK's reordering window widened by DSACKs as Linux 6.x's \
             tcp_rack_update_reo_wnd() (RFC 8985 section 6.2 step 4): a DSACK received once \
             reordering was seen (not the tail loss probe's) adds a step of min_rtt/4 to the \
             window, at most once a round trip (on the first ACK delivering a segment sent \
             after the last step), the window staying at most SRTT; the widened window \
             persists over 16 recoveries that end without an undo (one more per recovery a \
             DSACK undid), then is one step again. Flows report rack_reo_wnd_steps (the \
             steps at the end). Needs rack.",
        )
        .refused(
            Profile::Ns2,
            true,
            "is RFC 8985's reordering window as Linux widens it; ns-2 2.35's agents \
             (profile='ns2') have none",
        )
        .requires(
            Requirement::SackBlocks,
            "widens RACK's window on DSACKs in SACK blocks",
        )
        .needs(&RACK)
        .linux(
            "tcp_rack_update_reo_wnd() (net.ipv4.tcp_recovery without 0x2)",
            Some(true),
        );

/// Linux's `tcp_try_undo_partial()` (`Sender`'s `partial_undo`).
pub const PARTIAL_UNDO: SenderOption =
    SenderOption::switch("partial_undo", |t| Some(t.partial_undo))
        .doc(
            "Linux's tcp_try_undo_partial(): in fast recovery, an ACK that advances snd_una \
             and echoes (RFC 7323) a timestamp older than the episode's first \
             retransmission was sent for an original that was only delayed: that is \
             reordering (TCPTSReorder, raising the reordering degree with reordering on), \
             and while retransmissions are in flight that ACK is held: RACK marks nothing \
             lost and the recovery retransmits nothing on it (new data goes as the window \
             allows); with none in flight the recovery is undone (cwnd and ssthresh restored, the \
             segments marked lost unmarked; Linux's TCPPartialUndo, flows' \
             undos_partial). Segments carry timestamps. Needs rack.",
        )
        .refused(
            Profile::Ns2,
            true,
            "is Linux's undo on timestamps; ns-2 2.35's agents (profile='ns2') have none",
        )
        .requires(
            Requirement::SackBlocks,
            "reads RACK's record of SACKed retransmissions",
        )
        .needs(&RACK)
        .linux(
            "tcp_try_undo_partial() (net.ipv4.tcp_timestamps = 1)",
            Some(true),
        );

/// The RTT sample of the connection's handshake (`Sender::handshake_rtt_sample`).
pub const HANDSHAKE_RTT: SenderOption =
    SenderOption::switch("handshake_rtt", |t| Some(t.handshake_rtt))
        .doc(
            "The connection's handshake gives the sender its first RTT sample, as Linux's \
             active open (tcp_rcv_synsent_state_process() -> tcp_ack() -> \
             tcp_ack_update_rtt()) measures the SYN's round trip before any data: the time a \
             60-byte SYN and SYN-ACK take across the idle data and ACK routes when the flow \
             starts (serialisation and the delay then) seeds SRTT, RTTVAR, the RTO and the \
             minimum RTT (tcp_min_rtt(), which BBR's RTprop, RACK and the rate samples read \
             from the start; bbr_init() takes it). Without it the flow starts established \
             and its first sample is its first data ACK's, a full segment's serialisation or \
             two (a delayed ACK) longer.",
        )
        .refused(
            Profile::Ns2,
            true,
            "is Linux's SYN RTT sample; ns-2 2.35's agents (profile='ns2') start without one",
        )
        .linux(
            "tcp_ack_update_rtt() on the SYN-ACK (every active open)",
            Some(true),
        );

/// Every sender-wide option, in the order users see them.
pub static OPTIONS: &[SenderOption] = &[
    LIMITED_TRANSMIT,
    DELAY_GROWTH,
    PARTIAL_WINDOW_DEFLATION,
    RECOVERY_EXIT_GROWTH,
    TIMER_EVERY_PARTIAL_ACK,
    EIFEL_UNDO,
    FRTO,
    DSACK,
    TLP,
    PRR,
    RACK,
    REORDERING,
    RACK_REO_WND,
    PARTIAL_UNDO,
    HANDSHAKE_RTT,
];

/// Refuses what the declaration refuses, for a scenario given to the engine directly (the
/// Python front refuses the same before building one): a value its profile refuses, an
/// option given on for a variant without what it requires. `owner` names the place
/// (`flows[0].tcp`).
pub fn check(owner: &str, variant: Variant, t: &TcpConfig) -> Result<(), String> {
    for o in OPTIONS {
        let given = (o.get)(t);
        if let Some((profile, value, why)) = o.refused {
            if t.profile == profile && given == Some(value) {
                return Err(format!("{owner}.{} = {value} {why}", o.name));
            }
        }
        if let (Some(other), Some(true)) = (o.needs, given) {
            if !other.on(t) {
                return Err(format!(
                    "{owner}.{} = true refines {}: it needs {} = true",
                    o.name, other.name, other.name
                ));
            }
        }
        if let (Some((Requirement::SackBlocks, why)), Some(true)) = (o.requires, given) {
            if !variant.reads_sack_blocks() {
                return Err(format!(
                    "{owner}.{} = true {why}, which {}'s receiver does not send",
                    o.name,
                    variant.info().name
                ));
            }
        }
    }
    Ok(())
}

fn profile_name(p: Profile) -> serde_json::Value {
    serde_json::to_value(p).expect("a unit variant")
}

/// The options as JSON, for the registry's export.
pub fn options_json() -> serde_json::Value {
    use serde_json::json;
    let options: Vec<_> = OPTIONS
        .iter()
        .map(|o| {
            let (kind, defaults) = match o.kind {
                OptionKind::Switch => ("switch", json!({"rfc": false, "ns2": false})),
                OptionKind::Tristate { rfc, ns2 } => ("tristate", json!({"rfc": rfc, "ns2": ns2})),
            };
            json!({
                "name": o.name, "doc": o.doc, "kind": kind, "default": defaults,
                "refused": o.refused.map(|(p, value, why)| json!({
                    "profile": profile_name(p), "value": value, "why": why,
                })),
                "requires": o.requires.map(|(r, why)| json!({
                    "what": match r { Requirement::SackBlocks => "sack_blocks" },
                    "why": why,
                })),
                "needs": o.needs.map(|n| n.name),
                "ns2": o.ns2, "ns3": o.ns3, "linux": o.linux, "as_linux": o.as_linux,
            })
        })
        .collect();
    serde_json::Value::Array(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: serde_json::Value) -> TcpConfig {
        let mut base = serde_json::json!({
            "packet_size_bytes": 1000, "ack_size_bytes": 40, "max_window": 20,
            "initial_window": 1, "dupack_threshold": 3, "min_rto_s": 1.0,
            "max_rto_s": 60.0, "initial_rto_s": 3.0, "granularity_s": 0.0,
            "fixed_rto_s": null, "max_backoff": 64,
        });
        base.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(base).expect("a TCP configuration")
    }

    #[test]
    fn each_name_is_the_key_its_accessor_reads() {
        for o in OPTIONS {
            for profile in ["rfc", "ns2"] {
                let absent = config(serde_json::json!({ "profile": profile }));
                let p = absent.profile;
                assert_eq!(o.on(&absent), o.default_for(p), "{} left out", o.name);
                for value in [true, false] {
                    let t = config(serde_json::json!({ "profile": profile, o.name: value }));
                    assert_eq!((o.get)(&t), Some(value), "{} = {value}", o.name);
                    assert!(o.on(&t) == value);
                }
            }
        }
    }

    #[test]
    fn the_engine_refuses_what_the_declaration_refuses() {
        let ok = config(serde_json::json!({ "dsack": true }));
        assert_eq!(check("f", Variant::Sack, &ok), Ok(()));
        let e = check("f", Variant::NewReno, &ok).unwrap_err();
        assert!(e.contains("f.dsack = true reports duplicates in SACK blocks, which newreno's"));
        let ns2 = config(serde_json::json!({ "dsack": true, "profile": "ns2" }));
        let e = check("f", Variant::Sack, &ns2).unwrap_err();
        assert!(e.starts_with("f.dsack = true is RFC 2883's report"), "{e}");
        let rfc = config(serde_json::json!({ "partial_window_deflation": false }));
        assert!(check("f", Variant::NewReno, &rfc).is_err());
        let alone = config(serde_json::json!({ "partial_undo": true }));
        let e = check("f", Variant::Sack, &alone).unwrap_err();
        assert_eq!(
            e,
            "f.partial_undo = true refines rack: it needs rack = true"
        );
        let with = config(serde_json::json!({ "partial_undo": true, "rack": true }));
        assert_eq!(check("f", Variant::Sack, &with), Ok(()));
        let off = config(serde_json::json!({ "dsack": false, "profile": "ns2" }));
        assert_eq!(check("f", Variant::NewReno, &off), Ok(()));
    }

    #[test]
    fn names_are_unique_and_documented() {
        for (i, o) in OPTIONS.iter().enumerate() {
            assert!(!o.doc.is_empty(), "{}", o.name);
            assert!(OPTIONS[..i].iter().all(|p| p.name != o.name), "{}", o.name);
        }
        let json = options_json();
        assert_eq!(json[7]["name"], "dsack");
        assert_eq!(json[7]["requires"]["what"], "sack_blocks");
        assert_eq!(json[7]["refused"]["profile"], "ns2");
        assert_eq!(json[5]["kind"], "switch");
        assert_eq!(json[0]["kind"], "tristate");
        assert_eq!(json[0]["default"]["ns2"], true);
    }
}
