//! Runs a scenario from a JSON file and prints the report's counters and the wall time:
//! `cargo run --release --example run_scenario -- scenario.json` (used by the benchmarks to
//! time the engine without Python in the loop).

use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_scenario SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("cannot read the scenario");
    let sc = lossytcp_sim::Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let t = Instant::now();
    let r = lossytcp_sim::run(&sc).expect("run failed");
    let wall = t.elapsed().as_secs_f64();
    // The first flow's counters (the single-flow benchmarks), and totals for networks.
    let delivered: u64 = r.flows.iter().map(|f| f.packets_delivered).sum();
    let completed: u64 = r.traffic.iter().map(|t| t.transfers_completed).sum();
    let (received, first_delivered, timeouts, goodput) = match r.flows.first() {
        Some(f) => (
            f.packets_received,
            f.packets_delivered,
            f.timeouts,
            (f.packets_delivered as f64 / f.elapsed_s / f.capacity_pps).to_string(),
        ),
        None => (0, 0, 0, "null".to_string()),
    };
    println!(
        "{{\"wall_s\": {wall}, \"events\": {}, \"packets_received\": {received}, \"packets_delivered\": {first_delivered}, \"timeouts\": {timeouts}, \"goodput_norm\": {goodput}, \"all_flows_delivered\": {delivered}, \"transfers_completed\": {completed}}}",
        r.events,
    );
}
