//! The engine's own range checks: the ranges the Python front checks (`python/lossytcp/
//! scenario.py`, `_validate.py`), held here as well so that a scenario reaching the engine
//! another way (an experiment's `engine_scenario`, `_sim.run_json`, a Rust caller) cannot
//! run what the front refuses: a duration of 1e300 s that never ends, a minimum RTO above
//! the maximum, a timer shorter than one packet's transmission, a state of a semi-Markov
//! delay shorter than a packet. Every check returns an error naming the field, the value and
//! the valid range; nothing here panics.

use crate::config::{
    ChannelConfig, DelayConfig, QueueConfig, Scenario, SizeConfig, TcpConfig, TrafficConfig,
};
use crate::topology::Routes;

/// Longest simulated time anything may last (31.7 years): time is u64 nanoseconds (584
/// years), so sums of durations, delays and timers cannot overflow.
pub const MAX_TIME_S: f64 = 1e9;
/// The clock's resolution: a packet takes at least one tick to transmit.
pub const TICKS_PER_S: f64 = 1e9;
pub const MAX_QUEUE_PACKETS: usize = 10_000_000;
pub const MAX_PACKET_BYTES: u32 = 65_535;
pub const MAX_WINDOW: u32 = 1_000_000;
pub const MAX_DUPACKS: u32 = 1_000_000;
pub const MAX_BACKOFF: u32 = 1 << 20;
pub const MAX_VEGAS: u32 = 1_000_000;
pub const MAX_ARRIVAL_RATE_PER_S: f64 = 1e6;
pub const MAX_CONCURRENT: usize = 1_000_000;
pub const MAX_TRANSFERS: u64 = 1_000_000_000_000;

type Check = Result<(), String>;

/// A number as a person reads it: 1e300 rather than three hundred digits.
fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn time(name: &str, x: f64, lo: f64, open_low: bool) -> Check {
    let ok = x.is_finite() && x <= MAX_TIME_S && if open_low { x > lo } else { x >= lo };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name} = {} must be a number of seconds {} {} and at most {MAX_TIME_S:e}",
            num(x),
            if open_low { ">" } else { ">=" },
            num(lo)
        ))
    }
}

fn within(name: &str, x: f64, lo: f64, hi: f64) -> Check {
    if x.is_finite() && (lo..=hi).contains(&x) {
        Ok(())
    } else {
        Err(format!(
            "{name} = {} must be in [{}, {}]",
            num(x),
            num(lo),
            num(hi)
        ))
    }
}

fn count<T: PartialOrd + std::fmt::Display>(name: &str, x: T, lo: T, hi: T) -> Check {
    if x >= lo && x <= hi {
        Ok(())
    } else {
        Err(format!("{name} = {x} must be an integer in [{lo}, {hi}]"))
    }
}

/// Data packet sizes of every flow and traffic entry.
fn packet_sizes(sc: &Scenario) -> impl Iterator<Item = u32> + '_ {
    sc.flows
        .iter()
        .map(|f| f.tcp.packet_size_bytes)
        .chain(sc.traffic.iter().map(|t| t.packet_size_bytes()))
}

#[cfg(test)]
thread_local! {
    /// Tests of the engine's last defences (the Zeno guard) build what these checks refuse.
    pub static SKIP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The routes of `sc` and every one of its ranges: what `Simulation::new` and `_sim.check_json`
/// run before anything else (kept out of `Scenario::check`, so that configuration sits below
/// topology and limits, with no import circle).
pub fn check_scenario(sc: &Scenario) -> Result<Routes, String> {
    let routes = Routes::resolve(sc)?;
    check_ranges(sc, &routes)?;
    Ok(routes)
}

/// Every range of `sc`, given its resolved routes.
pub fn check_ranges(sc: &Scenario, routes: &Routes) -> Check {
    #[cfg(test)]
    if SKIP.with(|s| s.get()) {
        return Ok(());
    }
    time("duration_s", sc.duration_s, 0.0, true)?;
    let smallest = packet_sizes(sc).min().unwrap_or(1).max(1);
    let largest = packet_sizes(sc).max().unwrap_or(1);
    for (i, l) in sc.links.iter().enumerate() {
        check_link(&format!("links[{i}]"), l, smallest, largest)?;
    }
    for (i, f) in sc.flows.iter().enumerate() {
        let name = format!("flows[{i}]");
        check_tcp(&name, &f.tcp)?;
        time(&format!("{name}.start_s"), f.start_s, 0.0, false)?;
        if f.start_s >= sc.duration_s {
            return Err(format!(
                "{name}.start_s = {} must be < duration_s = {}: the flow would start after \
                 the run ends",
                f.start_s, sc.duration_s
            ));
        }
        if let crate::config::AppConfig::Transfer { bytes } = f.app {
            count(&format!("{name}.app.bytes"), bytes, 1, i64::MAX as u64)?;
        }
        let (fwd, rev) = &routes.flows[i];
        check_paths(&name, fwd, rev)?;
        check_timers(&name, sc, &f.tcp, fwd)?;
    }
    for (i, t) in sc.traffic.iter().enumerate() {
        let name = format!("traffic[{i}]");
        check_traffic(&name, t)?;
        if t.start_s() >= sc.duration_s {
            return Err(format!(
                "{name}.start_s = {} must be < duration_s = {}: the source would start \
                 after the run ends",
                t.start_s(),
                sc.duration_s
            ));
        }
        if let TrafficConfig::Transfers { tcp, .. } = t {
            let (fwd, rev) = &routes.traffic[i];
            check_paths(&name, fwd, rev)?;
            check_timers(&format!("{name}.tcp"), sc, tcp, fwd)?;
        }
    }
    if let Some(q) = &sc.trace.queue {
        time("trace.queue.from_s", q.from_s, 0.0, false)?;
        time("trace.queue.to_s", q.to_s, 0.0, false)?;
    }
    Ok(())
}

fn check_link(name: &str, l: &crate::config::LinkConfig, smallest: u32, largest: u32) -> Check {
    let rate = l.rate_bps;
    // A packet takes at least one tick to transmit: below, transmissions round to zero
    // time and a flow can loop forever at one instant.
    let limit = f64::from(smallest) * 8.0 * TICKS_PER_S;
    if !(rate.is_finite() && (1.0..=limit).contains(&rate)) {
        return Err(format!(
            "{name}.rate_bps = {} must be in [1, {limit:e}] bit/s: at least 1, and a \
             {smallest}-byte packet must take at least the engine's clock resolution (1 ns)",
            num(rate)
        ));
    }
    let packet_time = f64::from(smallest) * 8.0 / rate;
    match &l.delay {
        DelayConfig::Fixed { delay_s } => time(&format!("{name}.delay_s"), *delay_s, 0.0, false)?,
        DelayConfig::SemiMarkov {
            delay_s,
            excess_mean_s,
            ..
        } => {
            for (k, (&t, &x)) in delay_s.iter().zip(excess_mean_s).enumerate() {
                time(&format!("{name}.delay.delay_s[{k}]"), t, 0.0, true)?;
                time(&format!("{name}.delay.excess_mean_s[{k}]"), x, 0.0, false)?;
                // The process is walked state by state up to each packet's start: states
                // shorter than a packet cost work per state and no packet sees them.
                if t + x < packet_time {
                    return Err(format!(
                        "{name}.delay: state {k} lasts {} s on average (delay_s + \
                         excess_mean_s); it must be >= {packet_time:e} s, one packet time of \
                         the link",
                        t + x
                    ));
                }
            }
        }
    }
    match &l.channel {
        ChannelConfig::TwoState { good_s, bad_s, .. } => {
            for (what, x) in [("good_s", *good_s), ("bad_s", *bad_s)] {
                time(&format!("{name}.channel.{what}"), x, 0.0, true)?;
                if x < packet_time {
                    return Err(format!(
                        "{name}.channel.{what} = {x} must be >= {packet_time:e} s, one \
                         packet time of its link"
                    ));
                }
            }
        }
        ChannelConfig::Burst { hold_s, .. } => {
            time(&format!("{name}.channel.hold_s"), *hold_s, 0.0, true)?
        }
        ChannelConfig::GilbertElliott {
            idle_reset_s,
            slot_s,
            ..
        } => {
            if let Some(x) = idle_reset_s {
                time(&format!("{name}.channel.idle_reset_s"), *x, 0.0, true)?;
            }
            if let Some(x) = slot_s {
                time(
                    &format!("{name}.channel.slot_s"),
                    *x,
                    1.0 / TICKS_PER_S,
                    false,
                )?;
            }
        }
        _ => {}
    }
    if let Some(q) = l.queue_config() {
        match q {
            QueueConfig::DropTail { packets, bytes } => {
                if let Some(n) = packets {
                    count(&format!("{name}.queue.packets"), n, 0, MAX_QUEUE_PACKETS)?;
                }
                if let Some(b) = bytes {
                    if b < u64::from(largest) || b > i64::MAX as u64 {
                        return Err(format!(
                            "{name}.queue.bytes = {b} must be >= {largest}, the largest \
                             packet: a smaller limit drops every packet that size"
                        ));
                    }
                }
            }
            QueueConfig::Red(r) => {
                count(
                    &format!("{name}.queue.packets"),
                    r.packets,
                    1,
                    MAX_QUEUE_PACKETS,
                )?;
                // Thresholds above the limit are ns-2's way to turn early drops off (the
                // reference data of tests/reference/network_cases.py `red_cbr` use it); the
                // Python front refuses them as a likely mistake, the engine runs them.
                for (what, x) in [("min_th", r.min_th), ("max_th", r.max_th)] {
                    if let Some(x) = x {
                        let most = MAX_QUEUE_PACKETS as f64;
                        within(&format!("{name}.queue.{what}"), x, 0.0, most)?;
                    }
                }
                count(
                    &format!("{name}.queue.mean_packet_size_bytes"),
                    r.mean_packet_size_bytes,
                    1,
                    MAX_PACKET_BYTES,
                )?;
                time(
                    &format!("{name}.queue.target_delay_s"),
                    r.target_delay_s,
                    0.0,
                    false,
                )?;
            }
        }
    }
    if let Some(b) = l.slot_bytes {
        count(&format!("{name}.slot_bytes"), b, 1, MAX_PACKET_BYTES)?;
    }
    Ok(())
}

/// A link has one direction: ACKs cannot cross a link that carries the data.
fn check_paths(name: &str, fwd: &[usize], rev: &[usize]) -> Check {
    if let Some(l) = rev.iter().find(|l| fwd.contains(l)) {
        return Err(format!(
            "{name}: the reverse path sends the ACKs over link {l}, which carries the data"
        ));
    }
    Ok(())
}

/// A timer shorter than one packet's transmission on the path's slowest link expires before
/// its segment can have left it, and with Karn's rule never gets a sample.
fn check_timers(name: &str, sc: &Scenario, tcp: &TcpConfig, path: &[usize]) -> Check {
    let slowest = path
        .iter()
        .filter_map(|&l| sc.links.get(l))
        .map(|l| l.rate_bps)
        .fold(f64::INFINITY, f64::min);
    let packet_time = f64::from(tcp.packet_size_bytes) * 8.0 / slowest;
    let timers = [
        ("fixed_rto_s", tcp.fixed_rto_s),
        (
            "initial_rto_s",
            tcp.fixed_rto_s.is_none().then_some(tcp.initial_rto_s),
        ),
        ("max_rto_s", Some(tcp.max_rto_s)),
    ];
    for (what, x) in timers {
        if let Some(x) = x {
            if x < packet_time {
                return Err(format!(
                    "{name}.tcp.{what} = {x} must be >= {packet_time:e} s, one packet's \
                     transmission time on the path's slowest link"
                ));
            }
        }
    }
    Ok(())
}

/// The ranges of one TCP's settings.
pub fn check_tcp(name: &str, t: &TcpConfig) -> Check {
    let n = |what: &str| format!("{name}.tcp.{what}");
    count(
        &n("packet_size_bytes"),
        t.packet_size_bytes,
        1,
        MAX_PACKET_BYTES,
    )?;
    count(&n("ack_size_bytes"), t.ack_size_bytes, 0, MAX_PACKET_BYTES)?;
    count(&n("max_window"), t.max_window, 1, MAX_WINDOW)?;
    count(&n("initial_window"), t.initial_window, 1, t.max_window)?;
    count(&n("dupack_threshold"), t.dupack_threshold, 1, MAX_DUPACKS)?;
    count(&n("max_backoff"), t.max_backoff, 1, MAX_BACKOFF)?;
    time(&n("min_rto_s"), t.min_rto_s, 0.0, false)?;
    time(&n("max_rto_s"), t.max_rto_s, 0.0, true)?;
    if t.max_rto_s < t.min_rto_s {
        return Err(format!(
            "{} = {} must be >= min_rto_s = {}",
            n("max_rto_s"),
            t.max_rto_s,
            t.min_rto_s
        ));
    }
    time(&n("granularity_s"), t.granularity_s, 0.0, false)?;
    if t.granularity_s > t.max_rto_s {
        return Err(format!(
            "{} = {} must be <= max_rto_s = {}: the RTO is at least G and at most the maximum",
            n("granularity_s"),
            t.granularity_s,
            t.max_rto_s
        ));
    }
    time(&n("delack_interval_s"), t.delack_interval_s, 0.0, true)?;
    match t.fixed_rto_s {
        Some(x) => {
            time(&n("fixed_rto_s"), x, 0.0, true)?;
            if x > t.max_rto_s {
                return Err(format!(
                    "{} = {x} must be <= max_rto_s = {}",
                    n("fixed_rto_s"),
                    t.max_rto_s
                ));
            }
        }
        None => {
            time(&n("initial_rto_s"), t.initial_rto_s, 0.0, true)?;
            if !(t.min_rto_s..=t.max_rto_s).contains(&t.initial_rto_s) {
                return Err(format!(
                    "{} = {} must be in [min_rto_s, max_rto_s] = [{}, {}]",
                    n("initial_rto_s"),
                    t.initial_rto_s,
                    t.min_rto_s,
                    t.max_rto_s
                ));
            }
        }
    }
    for (what, x) in [
        ("vegas.alpha", t.vegas.alpha),
        ("vegas.beta", t.vegas.beta),
        ("vegas.gamma", t.vegas.gamma),
    ] {
        count(&n(what), x, 0, MAX_VEGAS)?;
    }
    within(&n("lp.alpha"), t.lp.alpha, 0.0, 1e6)?;
    within(&n("lp.beta"), t.lp.beta, 0.0, 1e6)?;
    within(&n("westwood.tau_s"), t.westwood.tau_s, 1e-3, 1e3)?;
    Ok(())
}

fn check_traffic(name: &str, t: &TrafficConfig) -> Check {
    let n = |what: &str| format!("{name}.{what}");
    time(&n("start_s"), t.start_s(), 0.0, false)?;
    if let Some(stop) = t.stop_s() {
        time(&n("stop_s"), stop, 0.0, false)?;
    }
    count(
        &n("packet_size_bytes"),
        t.packet_size_bytes(),
        1,
        MAX_PACKET_BYTES,
    )?;
    match t {
        TrafficConfig::Cbr {
            rate_bps,
            packet_size_bytes,
            ..
        } => {
            if f64::from(*packet_size_bytes) * 8.0 / rate_bps > MAX_TIME_S {
                return Err(format!(
                    "{} = {rate_bps} sends less than a packet in {MAX_TIME_S:e} s",
                    n("rate_bps")
                ));
            }
        }
        TrafficConfig::Onoff { on_s, off_s, .. } => {
            time(&n("on_s"), *on_s, 0.0, true)?;
            time(&n("off_s"), *off_s, 0.0, false)?;
        }
        TrafficConfig::Transfers {
            arrival_rate_per_s,
            size,
            max_concurrent,
            max_transfers,
            tcp,
            ..
        } => {
            if !(arrival_rate_per_s.is_finite()
                && *arrival_rate_per_s > 0.0
                && *arrival_rate_per_s <= MAX_ARRIVAL_RATE_PER_S)
            {
                return Err(format!(
                    "{} = {arrival_rate_per_s} must be in (0, {MAX_ARRIVAL_RATE_PER_S:e}]",
                    n("arrival_rate_per_s")
                ));
            }
            count(&n("max_concurrent"), *max_concurrent, 1, MAX_CONCURRENT)?;
            if let Some(m) = max_transfers {
                count(&n("max_transfers"), *m, 1, MAX_TRANSFERS)?;
            }
            let max_bytes = i64::MAX as f64;
            match size {
                SizeConfig::Fixed { bytes } => count(&n("size.bytes"), *bytes, 1, i64::MAX as u64)?,
                SizeConfig::Exp { mean_bytes } => {
                    within(&n("size.mean_bytes"), *mean_bytes, 1.0, max_bytes)?
                }
                SizeConfig::Pareto { mean_bytes, shape } => {
                    within(&n("size.mean_bytes"), *mean_bytes, 1.0, max_bytes)?;
                    within(&n("size.shape"), *shape, 1.0, 1000.0)?;
                }
            }
            check_tcp(name, tcp)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_scenario;
    use crate::config::Scenario;

    /// A valid single-link scenario in the engine's JSON, with `edit` applied.
    fn scenario(edit: impl FnOnce(&mut serde_json::Value)) -> Result<Scenario, String> {
        let mut v = serde_json::json!({
            "seed": 1, "duration_s": 10.0,
            "links": [
                {"rate_bps": 2e6, "delay": {"kind": "fixed", "delay_s": 0.01},
                 "queue_packets": 100},
                {"rate_bps": 2e6, "delay": {"kind": "fixed", "delay_s": 0.01},
                 "queue_packets": 100}],
            "flows": [{"variant": "new_reno", "forward": [0], "reverse": [1],
                       "app": {"kind": "bulk"},
                       "tcp": {"packet_size_bytes": 500, "ack_size_bytes": 40,
                               "max_window": 20, "initial_window": 1,
                               "dupack_threshold": 3, "min_rto_s": 0.2, "max_rto_s": 60.0,
                               "initial_rto_s": 1.0, "granularity_s": 0.0,
                               "fixed_rto_s": null, "max_backoff": 64}}]
        });
        edit(&mut v);
        let sc = Scenario::from_json(&v.to_string())?;
        check_scenario(&sc)?;
        Ok(sc)
    }

    fn refused(edit: impl FnOnce(&mut serde_json::Value), fragment: &str) {
        match scenario(edit) {
            Ok(_) => panic!("accepted; expected an error with {fragment:?}"),
            Err(e) => assert!(e.contains(fragment), "{e:?} lacks {fragment:?}"),
        }
    }

    #[test]
    fn the_valid_scenario_passes() {
        scenario(|_| {}).expect("valid");
    }

    #[test]
    fn a_duration_beyond_the_clock_is_refused() {
        refused(|v| v["duration_s"] = 1e300.into(), "duration_s = 1e300");
        refused(|v| v["duration_s"] = 2e9.into(), "at most 1e9");
    }

    #[test]
    fn min_rto_above_max_rto_is_refused() {
        refused(
            |v| v["flows"][0]["tcp"]["min_rto_s"] = 100.0.into(),
            "max_rto_s = 60 must be >= min_rto_s = 100",
        );
    }

    #[test]
    fn granularity_above_max_rto_is_refused() {
        refused(
            |v| v["flows"][0]["tcp"]["granularity_s"] = 61.0.into(),
            "granularity_s = 61",
        );
    }

    #[test]
    fn a_timer_shorter_than_a_packet_is_refused() {
        refused(
            |v| {
                v["links"][0]["rate_bps"] = 1000.0.into();
                v["flows"][0]["tcp"]["min_rto_s"] = 0.0.into();
            },
            "initial_rto_s = 1 must be >= 4e0 s",
        );
    }

    #[test]
    fn semi_markov_states_shorter_than_a_packet_are_refused() {
        refused(
            |v| {
                v["links"][0]["delay"] = serde_json::json!({
                    "kind": "semi_markov", "delay_s": [1e-9, 1e-9],
                    "h": [[0.0, 1.0], [1.0, 0.0]], "excess_mean_s": [0.0, 0.0]});
            },
            "state 0 lasts 0.000000001 s",
        );
    }

    #[test]
    fn acks_over_the_data_link_and_late_starts_are_refused() {
        refused(
            |v| v["flows"][0]["reverse"] = serde_json::json!([0]),
            "over link 0, which carries the data",
        );
        refused(
            |v| v["flows"][0]["start_s"] = 10.0.into(),
            "would start after the run ends",
        );
    }

    #[test]
    fn a_byte_limit_below_a_packet_is_refused() {
        refused(
            |v| {
                v["links"][0]["queue_packets"] = serde_json::Value::Null;
                v["links"][0]["queue"] =
                    serde_json::json!({"kind": "droptail", "packets": 10, "bytes": 0});
            },
            "queue.bytes = 0 must be >= 500",
        );
    }

    #[test]
    fn a_trace_from_a_named_pipe_is_refused_without_opening_it() {
        let dir = std::env::temp_dir().join(format!("lossytcp-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("trace");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here
        }
        let path = fifo.to_str().unwrap().to_string();
        refused(
            |v| v["links"][0]["channel"] = serde_json::json!({"kind": "trace", "file": path}),
            "not a regular file",
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rates_and_windows_out_of_range_are_refused() {
        refused(|v| v["links"][0]["rate_bps"] = 0.5.into(), "rate_bps = 0.5");
        refused(|v| v["links"][0]["rate_bps"] = 1e300.into(), "1 ns");
        refused(
            |v| v["flows"][0]["tcp"]["max_window"] = 2_000_000.into(),
            "max_window = 2000000",
        );
        refused(
            |v| v["flows"][0]["tcp"]["initial_window"] = 30.into(),
            "initial_window = 30",
        );
    }
}
