//! Networks: topologies with routing, queues, several flows and generated traffic, run end
//! to end (paper 002 Scenario II, paper 003's two-hop path, friendliness link and short
//! transfers), and the invariants a network run must keep.

mod common;

use common::*;
use lossytcp_sim::config::{Profile, Scenario};
use lossytcp_sim::RunReport;
use serde_json::{json, Value};

fn tcp_json(window: u32, size: u32, delayed_ack: bool) -> Value {
    let mut t = tcp(window, Profile::Ns2);
    t.packet_size_bytes = size;
    t.delayed_ack = delayed_ack;
    t.min_rto_s = 0.2;
    serde_json::to_value(t).unwrap()
}

fn run(v: Value) -> RunReport {
    let sc: Scenario = serde_json::from_value(v).expect("a scenario");
    lossytcp_sim::run(&sc).expect("runs")
}

/// Both directions of a link, appended to `links`.
fn duplex(links: &mut Vec<Value>, a: &str, b: &str, rate: f64, delay: f64, queue: Value) {
    for (x, y) in [(a, b), (b, a)] {
        links.push(json!({"from": x, "to": y, "rate_bps": rate,
                          "delay": {"kind": "fixed", "delay_s": delay}, "queue": queue}));
    }
}

fn droptail(packets: usize) -> Value {
    json!({"kind": "droptail", "packets": packets})
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Paper 002 Scenario II: A1..A30 -> B -> C -> D1..D30, a 15 Mb/s 100 ms bottleneck with a
/// 150-packet queue, access links of 90 Mb/s with 10/30/50 ms for groups of ten; a
/// persistent transfer A1 -> D1, Poisson 100 KB downloads between the other pairs, at most
/// 20 open per node; 500 B packets, window 20.
fn paper002(bottleneck: Value, rate_per_node: f64, duration_s: f64) -> Value {
    let mut links = Vec::new();
    duplex(&mut links, "B", "C", 15e6, 0.1, bottleneck);
    for i in 1..=30 {
        let d = [0.01, 0.03, 0.05][(i - 1) / 10];
        duplex(&mut links, &format!("A{i}"), "B", 90e6, d, droptail(1000));
        duplex(&mut links, "C", &format!("D{i}"), 90e6, d, droptail(1000));
    }
    let t = tcp_json(20, 500, false);
    let traffic: Vec<Value> = (2..=30)
        .map(|i| {
            json!({"kind": "transfers", "src": format!("A{i}"), "dst": format!("D{i}"),
                   "arrival_rate_per_s": rate_per_node,
                   "size": {"kind": "fixed", "bytes": 100_000}, "max_concurrent": 20,
                   "variant": "new_reno", "tcp": t})
        })
        .collect();
    json!({"seed": 1, "duration_s": duration_s, "links": links,
           "flows": [{"variant": "new_reno", "src": "A1", "dst": "D1", "tcp": t,
                      "app": {"kind": "bulk"}, "label": "measured"}],
           "traffic": traffic})
}

#[test]
fn paper002_scenario_ii_runs_with_red_and_with_droptail() {
    let red = json!({"kind": "red", "packets": 150, "bytes": false, "queue_in_bytes": false});
    let r = run(paper002(red, 0.6, 60.0));
    let bottleneck = &r.links[0];
    let f = &r.flows[0];
    assert_eq!(f.label.as_deref(), Some("measured"));
    assert!(f.packets_delivered > 1000, "{f:?}");
    assert!(
        bottleneck.early_drops > 0 && bottleneck.utilization > 0.5,
        "{bottleneck:?}"
    );
    let avg = bottleneck
        .mean_red_avg
        .expect("a RED link reports its average");
    assert!(avg > 1.0 && avg < 60.0, "{avg}");
    // No channel anywhere: every detected loss of the measured flow is a queue drop (or a
    // spurious detection), and the drops are all at the bottleneck.
    assert_eq!(f.loss_causes.channel, 0);
    assert!(f.loss_causes.queue > 0, "{f:?}");
    assert!(r.links[1..].iter().all(|l| l.queue_drops == 0));
    // Every drop at the bottleneck belongs to a flow or a transfer.
    let data_drops: u64 = f.queue_drops + r.traffic.iter().map(|t| t.queue_drops).sum::<u64>();
    assert_eq!(data_drops, bottleneck.queue_drops);
    let early: u64 = f.early_drops + r.traffic.iter().map(|t| t.early_drops).sum::<u64>();
    assert_eq!(early, bottleneck.early_drops);
    let started: u64 = r.traffic.iter().map(|t| t.transfers_started).sum();
    let completed: u64 = r.traffic.iter().map(|t| t.transfers_completed).sum();
    assert!(
        completed > 300 && completed <= started,
        "{completed} of {started}"
    );
    // A 100 KB download cannot finish faster than the path allows: 200 packets through a
    // 15 Mb/s bottleneck (53 ms) after the first group's minimum RTT of 240 ms.
    let fastest = r
        .traffic
        .iter()
        .filter_map(|t| t.completion_time_s.map(|c| c.min))
        .fold(f64::INFINITY, f64::min);
    assert!(fastest > 0.24 + 0.053, "{fastest}");
    let completion = r.traffic[0].completion_time_s.expect("some completed");
    assert!(completion.p50 <= completion.p90 && completion.p90 <= completion.max);

    let r = run(paper002(droptail(150), 0.6, 60.0));
    let b = &r.links[0];
    assert_eq!(b.early_drops, 0);
    assert!(b.forced_drops > 0, "{b:?}");
    assert!(b.mean_red_avg.is_none());
}

#[test]
fn paper003_two_hop_path_loses_on_the_wireless_hop_only() {
    // S -(10 Mb/s, 50 ms)- N -(10 Mb/s, 0.01 ms, 1% loss)- D, delayed ACKs, with exponential
    // on/off UDP cross traffic on the wired hop (paper 003 Fig. 2).
    let bdp = 10e6 * 0.1 / (8.0 * 1500.0);
    let q = droptail(bdp as usize);
    let mut links = Vec::new();
    duplex(&mut links, "S", "N", 10e6, 0.05, q.clone());
    duplex(&mut links, "N", "D", 10e6, 0.00001, q);
    links[2]["channel"] = json!({"kind": "bernoulli", "p": 0.01});
    let sc = json!({"seed": 4, "duration_s": 60.0, "nodes": ["S", "N", "D"], "links": links,
        "flows": [{"variant": "new_reno", "src": "S", "dst": "D",
                   "tcp": tcp_json(200, 1500, true), "app": {"kind": "bulk"}}],
        "traffic": [{"kind": "onoff", "src": "S", "dst": "N", "rate_bps": 4e6,
                     "packet_size_bytes": 1000, "on_s": 0.5, "off_s": 0.5}]});
    let r = run(sc);
    let f = &r.flows[0];
    assert!(r.links[2].channel_drops > 0);
    assert!(r
        .links
        .iter()
        .enumerate()
        .all(|(i, l)| i == 2 || l.channel_drops == 0));
    assert_eq!(f.channel_losses, r.links[2].channel_drops);
    assert!(f.loss_causes.channel > 0, "{:?}", f.loss_causes);
    // The UDP source reaches N; its long-run rate is about 4 Mb/s x burst / (burst + idle).
    let udp = &r.traffic[0];
    assert_eq!(udp.kind, "onoff");
    let rate = udp.packets_sent as f64 * 8000.0 / 60.0;
    assert!(rate > 1.4e6 && rate < 2.6e6, "{rate}");
    assert!(udp.packets_received > 0 && udp.packets_received <= udp.packets_sent);
}

#[test]
fn paper003_friendliness_link_shares_fairly() {
    // n + m = 3 NewReno + 2 Reno flows on one 10 Mb/s, 100 ms RTT link with a BDP queue,
    // started 10 ms apart (paper 003 Fig. 7's setting with NewReno as the sender).
    let bdp = (10e6 * 0.1 / (8.0 * 1500.0)) as usize;
    let mut links = Vec::new();
    duplex(&mut links, "S", "D", 10e6, 0.05, droptail(bdp));
    let flows: Vec<Value> = (0..5)
        .map(|i| {
            json!({"variant": if i < 3 { "new_reno" } else { "reno" }, "src": "S", "dst": "D",
                   "tcp": tcp_json(1000, 1500, true), "app": {"kind": "bulk"},
                   "start_s": 0.01 * i as f64})
        })
        .collect();
    let r = run(json!({"seed": 2, "duration_s": 200.0, "links": links, "flows": flows}));
    let goodput: Vec<f64> = r
        .flows
        .iter()
        .map(|f| f.packets_delivered as f64 / f.elapsed_s)
        .collect();
    let total: f64 = goodput.iter().sum::<f64>() / r.flows[0].capacity_pps;
    assert!(total > 0.85 && total <= 1.0, "{total}");
    let j = jain(&goodput);
    assert!(j > 0.9, "Jain {j}: {goodput:?}");
    assert!(r.links[0].utilization > 0.85);
}

#[test]
fn paper003_short_transfers_all_complete_and_the_run_ends() {
    // 500 transfers of 10 KB over 5 Mb/s, RTT 100 ms, 5% loss, one at a time (paper 003's
    // completion-time experiment): the run ends when the last one completes.
    let mut links = Vec::new();
    duplex(&mut links, "S", "D", 5e6, 0.05, droptail(100));
    links[0]["channel"] = json!({"kind": "bernoulli", "p": 0.05});
    let sc = json!({"seed": 9, "duration_s": 100_000.0, "links": links,
        "traffic": [{"kind": "transfers", "src": "S", "dst": "D", "arrival_rate_per_s": 0.5,
                     "size": {"kind": "fixed", "bytes": 10_000}, "max_concurrent": 1,
                     "max_transfers": 500, "variant": "new_reno",
                     "tcp": tcp_json(100, 1000, true), "label": "short"}]});
    let r = run(sc);
    let t = &r.traffic[0];
    assert_eq!(t.label.as_deref(), Some("short"));
    assert_eq!(t.transfers_started + t.transfers_refused, 500);
    assert_eq!(t.transfers_completed, t.transfers_started);
    assert_eq!(t.bytes_delivered, 10_000 * t.transfers_completed);
    let c = t.completion_time_s.expect("completion times");
    assert_eq!(c.count, t.transfers_completed);
    assert!(c.min >= 0.2 && c.mean > c.min && c.p99 <= c.max, "{c:?}");
    assert!(
        r.simulated_s < 100_000.0,
        "ended early at {}",
        r.simulated_s
    );
}

#[test]
fn late_packets_of_retired_transfers_never_reach_their_successor() {
    // A fixed RTO far below the RTT retransmits every segment several times: copies keep
    // arriving after their transfer completed, while the next transfer runs in the same
    // slot (one open at a time, back-to-back arrivals).
    let mut t = tcp(64, Profile::Rfc);
    t.fixed_rto_s = Some(0.02);
    t.max_backoff = 1;
    let mut links = Vec::new();
    duplex(&mut links, "S", "D", 10e6, 0.05, droptail(1000));
    let sc = json!({"seed": 5, "duration_s": 30.0, "links": links,
        "traffic": [{"kind": "transfers", "src": "S", "dst": "D", "arrival_rate_per_s": 50.0,
                     "size": {"kind": "fixed", "bytes": 10_000}, "max_concurrent": 1,
                     "variant": "new_reno", "tcp": t}]});
    let r = run(sc);
    let e = &r.traffic[0];
    assert!(e.stale_packets > 100, "{e:?}");
    assert!(e.transfers_completed > 40, "{e:?}");
    // Had a stale segment or ACK reached a successor, some transfer would deliver data it
    // never sent or complete before its own data could cross: ten 1000 B segments need one
    // RTT (100 ms) plus their serialisation.
    let c = e.completion_time_s.unwrap();
    assert!(c.min >= 0.1 + 10.0 * 8e-4, "{c:?}");
    let open = e.transfers_started - e.transfers_completed;
    assert!(open <= 1);
    assert!(e.bytes_delivered >= 10_000 * e.transfers_completed);
    assert!(e.bytes_delivered <= 10_000 * (e.transfers_completed + open));
}

#[test]
fn cbr_sends_on_its_schedule() {
    // 1000 B at 2 Mb/s: a packet every 4 ms from 1 s, through 10 s inclusive.
    let mut links = Vec::new();
    duplex(&mut links, "X", "Y", 10e6, 0.01, droptail(10));
    let sc = json!({"seed": 1, "duration_s": 12.0, "links": links,
        "traffic": [{"kind": "cbr", "src": "X", "dst": "Y", "rate_bps": 2e6,
                     "packet_size_bytes": 1000, "start_s": 1.0, "stop_s": 10.0}]});
    let r = run(sc);
    let c = &r.traffic[0];
    assert_eq!(c.packets_sent, 2251);
    assert_eq!(c.packets_received, 2251);
    assert_eq!(c.bytes_delivered, 2251 * 1000);
    // 0.8 ms of transmission every 4 ms from 1 s to 10.0008 s, over 12 s.
    assert!((r.links[0].utilization - 2251.0 * 8e-4 / 12.0).abs() < 1e-9);
    assert_eq!(r.links[0].mean_queue_packets, 0.0);
    // A UDP source has nothing to complete: the run lasts its duration.
    assert_eq!(r.simulated_s, 12.0);
}

#[test]
fn a_routed_flow_gives_the_legacy_bits() {
    let legacy = single_link(
        lossytcp_sim::config::Variant::Sack,
        lossytcp_sim::config::ChannelConfig::Bernoulli { p: 0.02 },
        tcp(20, Profile::Rfc),
        lossytcp_sim::config::AppConfig::Bulk,
        20.0,
        3,
    );
    let mut routed = legacy.clone();
    routed.nodes = vec!["S".into(), "D".into()];
    routed.links[0].from = Some("S".into());
    routed.links[0].to = Some("D".into());
    routed.links[1].from = Some("D".into());
    routed.links[1].to = Some("S".into());
    routed.flows[0].forward.clear();
    routed.flows[0].reverse.clear();
    routed.flows[0].src = Some("S".into());
    routed.flows[0].dst = Some("D".into());
    let a = serde_json::to_string(&lossytcp_sim::run(&legacy).unwrap()).unwrap();
    let b = serde_json::to_string(&lossytcp_sim::run(&routed).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn flow_drops_name_their_flow() {
    let mut links = Vec::new();
    duplex(&mut links, "S", "D", 10e6, 0.05, droptail(1000));
    links[0]["channel"] = json!({"kind": "flow_drops", "drops": [{"flow": 1, "seq": 10},
                                                                   {"flow": 1, "seq": 12}]});
    let flow = json!({"variant": "new_reno", "src": "S", "dst": "D",
                      "tcp": tcp_json(16, 1000, false), "app": {"kind": "transfer", "bytes": 50_000}});
    let r = run(json!({"seed": 1, "duration_s": 20.0, "links": links,
                       "flows": [flow.clone(), flow]}));
    assert_eq!(r.flows[0].channel_losses, 0);
    assert_eq!(r.flows[1].channel_losses, 2);
    assert_eq!(r.flows[0].retransmissions, 0);
    assert!(r.flows[1].retransmissions >= 2);
    assert_eq!(
        r.flows[1].loss_causes.channel,
        r.flows[1].fast_retransmits + r.flows[1].timeouts
    );
}

#[test]
fn the_slot_of_a_stepped_channel_is_the_links() {
    // A slot-indexed loss trace on a link crossed by two flows of 500 B and 1000 B: the
    // slot is the 1000 B packet time whichever flow is listed first, and slot_bytes sets it.
    let build = |sizes: [u32; 2], slot_bytes: Option<u32>| {
        let mut links = Vec::new();
        duplex(&mut links, "S", "D", 1e6, 0.01, droptail(1000));
        let lost: Vec<bool> = (0..97).map(|i| i % 7 == 3 || i % 11 == 5).collect();
        links[0]["channel"] = json!({"kind": "trace", "lost": lost, "advance": "slot"});
        if let Some(b) = slot_bytes {
            links[0]["slot_bytes"] = json!(b);
        }
        let flows: Vec<Value> = sizes
            .iter()
            .map(|&s| {
                json!({"variant": "new_reno", "src": "S", "dst": "D",
                       "tcp": tcp_json(20, s, false), "app": {"kind": "bulk"},
                       "label": format!("{s}")})
            })
            .collect();
        run(json!({"seed": 1, "duration_s": 10.0, "links": links, "flows": flows}))
    };
    let by_label = |r: &RunReport, l: &str| -> u64 {
        r.flows
            .iter()
            .find(|f| f.label.as_deref() == Some(l))
            .unwrap()
            .packets_sent
    };
    // The default is the largest packet's time, not the first flow's (the rule before).
    let a = build([500, 1000], None);
    let c = build([500, 1000], Some(1000));
    let d = build([500, 1000], Some(500));
    for l in ["500", "1000"] {
        assert_eq!(by_label(&a, l), by_label(&c, l));
    }
    assert_eq!(a.links[0].channel_drops, c.links[0].channel_drops);
    assert_ne!(a.links[0].channel_drops, d.links[0].channel_drops);
    // Listed the other way round, the flows run differently (the first listed starts
    // first), but the slot is the same: it matches slot_bytes = 1000 again.
    let b = build([1000, 500], None);
    let e = build([1000, 500], Some(1000));
    assert_eq!(b.links[0].channel_drops, e.links[0].channel_drops);
    assert_eq!(by_label(&b, "500"), by_label(&e, "500"));
}

#[test]
fn the_queue_trace_stays_in_its_window() {
    let red = json!({"kind": "red", "packets": 150, "bytes": false, "queue_in_bytes": false});
    let mut sc = paper002(red, 0.6, 30.0);
    sc["trace"] = json!({"queue": {"link": 0, "from_s": 20.0, "to_s": 20.5}});
    let r = run(sc);
    let q = r.queue_trace.expect("a queue trace");
    assert!(q.t_s.len() > 100 && !q.truncated);
    assert!(q.t_s.iter().all(|&t| (20.0..=20.5).contains(&t)));
    assert!(q.red_avg.iter().all(|a| a.is_some()));
    // The queue each arrival saw is the number of earlier admitted packets still waiting
    // (one that starts transmission at that very instant still waits, ns-2's tie order, if
    // it waited, or if it came when the packet before it finished: the arrival goes before
    // the link's resume), once the window has run long enough to know them all (the queue
    // is below 150). Every packet on this link is a 500 B segment at 15 Mb/s.
    let ns = |x: f64| (x * 1e9).round() as u64;
    let tx = lossytcp_sim::time::Dur::transmission(500, 15e6).0;
    let n = q.t_s.len();
    let ends: std::collections::BTreeSet<u64> =
        q.dequeue_s.iter().flatten().map(|&d| ns(d) + tx).collect();
    let mut checked = 0;
    for i in 0..n {
        let t = q.t_s[i];
        if t < 20.2 {
            continue;
        }
        let waiting = (0..i)
            .filter(|&j| {
                q.dequeue_s[j]
                    .is_some_and(|d| d > t || (d == t && (d > q.t_s[j] || ends.contains(&ns(d)))))
            })
            .count();
        assert_eq!(waiting, q.queue_packets[i] as usize, "record {i}");
        checked += 1;
    }
    assert!(checked > 50);
    let flows: std::collections::BTreeSet<i64> = q.flow.iter().copied().collect();
    assert!(flows.contains(&-1), "transfers are tagged by entry");
    assert!(q.event.contains(&"early"), "{:?}", r.links[0]);
}

#[test]
fn the_queue_trace_has_a_record_limit() {
    let mut links = Vec::new();
    duplex(&mut links, "X", "Y", 1e6, 0.01, droptail(5));
    let sc = json!({"seed": 1, "duration_s": 5.0, "links": links,
        "traffic": [{"kind": "cbr", "src": "X", "dst": "Y", "rate_bps": 2e6,
                     "packet_size_bytes": 500}],
        "trace": {"queue": {"link": 0, "from_s": 1.0, "to_s": 4.0, "max_records": 10}}});
    let q = run(sc).queue_trace.expect("a trace");
    assert_eq!(q.t_s.len(), 10);
    assert!(q.truncated);
    assert!(q.t_s[0] >= 1.0);
    // Overloaded twice over: every other arrival finds the 5 places full.
    assert!(q.event.contains(&"forced"));
    assert!(q.red_avg.iter().all(|a| a.is_none()));
}

#[test]
fn malformed_networks_fail_with_a_message() {
    let bad = |v: Value| -> String {
        let sc: Scenario = serde_json::from_value(v).expect("parses");
        lossytcp_sim::run(&sc).expect_err("refused")
    };
    let link = |q: Value| {
        let mut l = json!({"from": "A", "to": "B", "rate_bps": 1e6,
                           "delay": {"kind": "fixed", "delay_s": 0.01}});
        l.as_object_mut()
            .unwrap()
            .extend(q.as_object().unwrap().clone());
        l
    };
    let cbr = json!([{"kind": "cbr", "src": "A", "dst": "B", "rate_bps": 1e5,
                      "packet_size_bytes": 100}]);
    let e = bad(
        json!({"seed": 1, "duration_s": 1.0, "links": [link(json!({}))],
                       "traffic": cbr}),
    );
    assert!(e.contains("links[0] needs queue_packets or queue"), "{e}");
    let e = bad(json!({"seed": 1, "duration_s": 1.0,
                       "links": [link(json!({"queue_packets": 5, "queue": droptail(5)}))],
                       "traffic": cbr}));
    assert!(e.contains("not both"), "{e}");
    let e = bad(json!({"seed": 1, "duration_s": 1.0,
                       "links": [link(json!({"queue": {"kind": "red", "max_p": 2.0}}))],
                       "traffic": cbr}));
    assert!(e.contains("max_p = 2"), "{e}");
    let e = bad(
        json!({"seed": 1, "duration_s": 1.0, "links": [link(json!({"queue_packets": 5}))],
                       "traffic": [{"kind": "cbr", "src": "B", "dst": "A", "rate_bps": 1e5,
                                    "packet_size_bytes": 100}]}),
    );
    assert!(e.contains("no route from 'B' to 'A'"), "{e}");
    let e = bad(
        json!({"seed": 1, "duration_s": 1.0, "links": [link(json!({"queue_packets": 5}))],
                       "traffic": [{"kind": "transfers", "src": "A", "dst": "B",
                                    "arrival_rate_per_s": 1.0,
                                    "size": {"kind": "pareto", "mean_bytes": 1e4, "shape": 1.0},
                                    "max_concurrent": 2, "variant": "reno",
                                    "tcp": tcp_json(10, 500, false)}]}),
    );
    assert!(e.contains("shape = 1"), "{e}");
}
