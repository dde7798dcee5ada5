"""The network engine against ns-2 2.35 (data: network/, made by make_network.py from ns-2
runs of the scenarios in network_cases.py).

* Deterministic cases, held to exact agreement: RED's average on constant-bit-rate traffic
  (every change of ns-2's ``ave_``, to the 6 significant digits ns-2 prints, packet and byte
  mode, with its idle-time decay and forced drops), a NewReno flow through a 10-packet
  DropTail ``queue``, and two hops.
* Random cases, judged in law by test_grid.py's acceptance rule (the mean over 20 seeds
  within 2 standard errors of the difference, or within 3% of ns-2's mean; counts whose
  totals differ by at most 4 events): RED's time-average average, early and forced drops,
  queue and utilization on a 5-flow dumbbell with two RED settings; goodput of each of
  five NewReno flows on one DropTail link and their Jain index.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from network_cases import RED_SETTINGS, TWO_HOP, five_flows, red_cbr, red_dumbbell, single_droptail
from test_grid import compare

import lossytcp
from lossytcp import _sim

HERE = Path(__file__).resolve().parent / "network"
#: Counts judged like test_grid.py's timeouts (rare events: 4 against none is chance).
COUNTS = ("forced_drops",)


def run(sc: dict) -> dict:
    return json.loads(_sim.run_json(json.dumps(sc)))


def _rows(name: str) -> list[dict[str, str]]:
    with open(HERE / name) as f:
        return list(csv.DictReader(f))


def _judge(metric: str, engine: list[float], ref: list[float]) -> tuple[bool, float]:
    a, b = np.array(engine, dtype=float), np.array(ref, dtype=float)
    if metric in COUNTS:
        # compare() applies the 4-event rule to "timeouts"
        return compare("timeouts", a, b)
    return compare(metric, a, b)


@pytest.mark.parametrize("mode", ["packets", "bytes"])
def test_red_average_equals_ns2s_on_deterministic_traffic(mode: str) -> None:
    ref = [(float(r["t_s"]), float(r["ave"])) for r in _rows("red_average.csv")
           if r["mode"] == mode]
    counts = json.loads((HERE / "red_cbr.json").read_text())[mode]
    qib = mode == "bytes"
    rep = run(red_cbr(qib))
    q = rep["queue_trace"]
    t_e, ave_e = q["t_s"], q["red_avg"]
    unit = 500.0 if qib else 1.0  # the engine reports packets of the mean size
    # ns-2 prints a line whenever the average changes: walk both in order.
    j, worst = 0, 0.0
    for t, v in ref:
        tol = 6e-6 * max(1.0, t)
        while j < len(t_e) and (t_e[j] < t - tol or (j > 0 and ave_e[j] == ave_e[j - 1])):
            j += 1
        assert j < len(t_e) and abs(t_e[j] - t) <= tol, f"no engine arrival at {t}"
        worst = max(worst, abs(ave_e[j] * unit - v) / abs(v))
        j += 1
    assert worst <= 5e-6, worst  # half a unit in the 6th significant digit
    lk = rep["links"][0]
    assert lk["forced_drops"] == counts["forced_drops"] > 0
    assert lk["early_drops"] == counts["early_drops"] == 0
    assert lk["transmitted"] == counts["departures"]


def test_deterministic_flows_equal_ns2s() -> None:
    ref = json.loads((HERE / "deterministic.json").read_text())
    f = run(single_droptail())
    got = {"packets_sent": f["flows"][0]["packets_sent"], "timeouts": f["flows"][0]["timeouts"],
           "fast_retransmits": f["flows"][0]["fast_retransmits"],
           "packets_delivered": f["flows"][0]["packets_delivered"],
           "queue_drops": f["links"][0]["queue_drops"]}
    assert got == ref["droptail-queue"]
    r = lossytcp.simulate("newreno", profile="ns2", **TWO_HOP)
    assert {k: getattr(r, k) for k in ref["two-hop"]} == ref["two-hop"]


@pytest.mark.parametrize("red", list(RED_SETTINGS))
def test_red_dumbbell_agrees_with_ns2_in_law(red: str) -> None:
    ref = [r for r in _rows("red_dumbbell.csv") if r["red"] == red]
    seeds = [int(r["seed"]) for r in ref]
    reports = [run(red_dumbbell(red, s)) for s in seeds]
    engine = {
        "mean_red_avg": [r["links"][0]["mean_red_avg"] for r in reports],
        "early_drops": [r["links"][0]["early_drops"] for r in reports],
        "forced_drops": [r["links"][0]["forced_drops"] for r in reports],
        "mean_queue_packets": [r["links"][0]["mean_queue_packets"] for r in reports],
        "utilization": [r["links"][0]["utilization"] for r in reports],
        "goodput": [sum(f["packets_delivered"] / f["elapsed_s"] for f in r["flows"])
                    for r in reports],
    }
    ns = {k: [float(r[k]) for r in ref] for k in engine if k != "goodput"}
    ns["goodput"] = [sum(float(r[f"goodput_{i}"]) for i in range(5)) for r in ref]
    misses = []
    for m in engine:
        ok, z = _judge(m, engine[m], ns[m])
        if not ok:
            misses.append(f"{m}: engine {np.mean(engine[m]):.4g} ns-2 {np.mean(ns[m]):.4g} "
                          f"(z {z:.2f})")
    assert not misses, misses
    # RED is at work: early drops dominate, the average sits between the thresholds.
    assert np.mean(engine["early_drops"]) > 10 * np.mean(engine["forced_drops"])


def test_five_flows_goodput_and_jain_agree_with_ns2() -> None:
    ref = _rows("five_flows.csv")
    seeds = [int(r["seed"]) for r in ref]
    reports = [run(five_flows(s)) for s in seeds]
    good = [[f["packets_delivered"] / f["elapsed_s"] for f in r["flows"]] for r in reports]

    def jain(x: list[float]) -> float:
        return sum(x) ** 2 / (len(x) * sum(v * v for v in x))

    engine = {"jain": [jain(g) for g in good],
              "forced_drops": [r["links"][0]["forced_drops"] for r in reports],
              "utilization": [r["links"][0]["utilization"] for r in reports]}
    engine.update({f"goodput_{i}": [g[i] for g in good] for i in range(5)})
    misses = []
    for m, values in engine.items():
        ok, z = _judge(m, values, [float(r[m]) for r in ref])
        if not ok:
            misses.append(f"{m}: engine {np.mean(values):.4g} ns-2 "
                          f"{np.mean([float(r[m]) for r in ref]):.4g} (z {z:.2f})")
    assert not misses, misses
    assert min(engine["jain"]) > 0.8 and not math.isnan(np.mean(engine["jain"]))
