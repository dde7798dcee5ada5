//! Golden runs: every scenario of `tests/reference/golden_scenarios.json` (written by
//! `tests/reference/make_golden.py`: every variant, both profiles, every channel kind, the
//! papers' timers, delays and knobs) must give the report digest stored in
//! `golden_digests.json`, bit for bit. A refactoring of the engine that changes no behaviour
//! keeps them all; a change of behaviour re-blesses them in a commit that explains it:
//!
//!     LOSSYTCP_BLESS=1 cargo test -p lossytcp-sim --test golden
//!
//! The digest covers the report keys the digests file lists, so a report that gains a key
//! keeps its digests (and blessing keeps that list; `LOSSYTCP_BLESS=keys` renews it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use lossytcp_sim::Scenario;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference")
}

/// The report keys a digest covers: top level, per flow and per link.
fn keys_of(report: &Value) -> BTreeMap<String, Vec<String>> {
    let names = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    BTreeMap::from([
        ("report".to_string(), names(report)),
        ("flow".to_string(), names(&report["flows"][0])),
        ("link".to_string(), names(&report["links"][0])),
    ])
}

fn project(v: &Value, keys: &[String]) -> Value {
    let o = v.as_object().expect("an object");
    Value::Object(
        keys.iter()
            .map(|k| (k.clone(), o.get(k).cloned().unwrap_or(Value::Null)))
            .collect::<Map<_, _>>(),
    )
}

fn digest(report: &Value, keys: &BTreeMap<String, Vec<String>>) -> String {
    let mut top = project(report, &keys["report"]);
    let each = |list: &Value, k: &[String]| -> Value {
        Value::Array(
            list.as_array()
                .map(|a| a.iter().map(|x| project(x, k)).collect())
                .unwrap_or_default(),
        )
    };
    top["flows"] = each(&report["flows"], &keys["flow"]);
    top["links"] = each(&report["links"], &keys["link"]);
    let text = serde_json::to_string(&top).expect("serialisable");
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

#[test]
fn golden_runs_are_bit_identical() {
    let dir = reference_dir();
    let scenarios: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("golden_scenarios.json")).expect("golden scenarios"),
    )
    .expect("json");
    let digests_path = dir.join("golden_digests.json");
    // LOSSYTCP_BLESS=1 keeps the stored key list, so that only the runs whose behaviour
    // changed get new digests; LOSSYTCP_BLESS=keys takes the keys of today's report.
    let bless = std::env::var("LOSSYTCP_BLESS").ok();
    let stored: Value = match std::fs::read_to_string(&digests_path) {
        Ok(text) => serde_json::from_str(&text).expect("json"),
        Err(_) if bless.is_some() => Value::Null,
        Err(e) => panic!("golden digests: {e}"),
    };
    let mut keys: Option<BTreeMap<String, Vec<String>>> =
        (bless.as_deref() != Some("keys") && !stored.is_null()).then(|| {
            serde_json::from_value(stored["keys"].clone()).expect("the digests file lists its keys")
        });
    let bless = bless.is_some();
    let mut got = BTreeMap::new();
    let mut failures = Vec::new();
    for case in &scenarios {
        let name = case["name"].as_str().expect("name").to_string();
        let sc: Scenario = serde_json::from_value(case["scenario"].clone()).expect("scenario");
        let report = serde_json::to_value(lossytcp_sim::run(&sc).expect("runs")).unwrap();
        let k = keys.get_or_insert_with(|| keys_of(&report));
        let d = digest(&report, k);
        if !bless && stored["runs"][&name].as_str() != Some(d.as_str()) {
            failures.push(name.clone());
        }
        got.insert(name, d);
    }
    if bless {
        let out = serde_json::json!({"keys": keys, "runs": got});
        std::fs::write(
            &digests_path,
            serde_json::to_string_pretty(&out).unwrap() + "\n",
        )
        .expect("write digests");
        return;
    }
    assert_eq!(
        got.len(),
        stored["runs"].as_object().map_or(0, |o| o.len()),
        "the scenarios and the digests list different runs: re-bless"
    );
    assert!(
        failures.is_empty(),
        "{} of {} golden runs changed: {failures:?}",
        failures.len(),
        got.len()
    );
}
