"""Golden runs of the engine: a matrix of scenarios (every variant, both profiles, every
channel kind, the timers, delays and knobs the papers use) and a digest of each run's whole
report (counters, send trace and window trace), so that a refactoring of the engine can show
it changed no bit (s2n-quic's snapshotted scenario runs).

This script writes ``golden_scenarios.json`` (each scenario as the engine's JSON, built by
:func:`lossytcp.build_scenario`); ``crates/lossytcp-sim/tests/golden.rs`` runs them without
Python and compares each report's digest with ``golden_digests.json``. The digest covers the
report keys listed in that file, so a report that gains a key keeps its digests. Regenerate
only for a change of behaviour that a commit explains:

    .venv/bin/python tests/reference/make_golden.py
    LOSSYTCP_BLESS=1 cargo test -p lossytcp-sim --test golden
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from lossytcp.sim import build_scenario  # noqa: E402

OUT = HERE / "golden_scenarios.json"
VARIANTS = ("oldtahoe", "tahoe", "reno", "newreno", "sack", "vegas")
CHANNELS = {
    "bern": "bernoulli:p=0.02",
    "ge-slot": "ge:alpha=0.01,beta=0.2,advance=slot",
    "burst": "burst:p=0.01,hold=100ms",
}
PROFILES = {
    "rfc": {"profile": "rfc"},
    "ns2": {"profile": "ns2", "granularity_s": 0.01, "min_rto_s": 0.2, "initial_rto_s": 3.0},
}
BASE = {"rate_bps": 2e6, "rtt_s": 0.04, "packet_size_bytes": 500, "window": 20,
        "duration_s": 30.0, "seed": 7, "trace_sends": True, "trace_window": True}
#: BASE for the semi-Markov delay and the slot model, which replace the round trip (simulate()
#: refuses rtt_s beside them; it was ignored, so the scenarios are unchanged).
NO_RTT = {k: x for k, x in BASE.items() if k != "rtt_s"}


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    out: list[tuple[str, str, dict[str, Any]]] = []
    for v in VARIANTS:
        for pname, prof in PROFILES.items():
            for cname, ch in CHANNELS.items():
                out.append((f"{v}/{pname}/{cname}", v, {**BASE, **prof, "channel": ch}))
            # Delayed ACKs and a queue small enough to overflow in slow start.
            out.append((f"{v}/{pname}/delack-queue", v,
                        {**BASE, **prof, "rate_bps": 5e6, "rtt_s": 0.1, "window": 64,
                         "packet_size_bytes": 1500, "queue_packets": 20, "delayed_ack": True,
                         "channel": "bernoulli:p=0.001"}))
            # Fall & Floyd's three drops in one window.
            out.append((f"{v}/{pname}/drops", v,
                        {**BASE, **prof, "window": 28, "channel": "drops:seq=14+26+28",
                         "duration_s": 10.0}))
        out.append((f"{v}/rfc/ge-tx-ackloss", v,
                    {**BASE, "channel": "ge:alpha=0.005,beta=0.3,advance=transmission",
                     "ack_channel": "bernoulli:p=0.05", "rtt_sampling": "per_window"}))
        out.append((f"{v}/rfc/twostate-transfer", v,
                    {**BASE, "channel": "twostate:good=1s,bad=50ms", "transfer_bytes": 400_000,
                     "delayed_ack": True}))
    # Paper 001: the semi-Markov RTT; paper 004: the slot model with a fixed RTO.
    delay = {"rtt_s": [0.058056, 0.060383, 0.081911],
             "H": [[0.1, 0.33, 0.57], [0.30, 0.12, 0.58], [0.165, 0.36, 0.475]],
             "excess_mean_s": [0.1067, 0.1183, 0.0042]}
    for v in ("oldtahoe", "reno"):
        out.append((f"{v}/rfc/semi-markov", v,
                    {**NO_RTT, "rate_bps": 9.68e6, "packet_size_bytes": 1000, "window": 60,
                     "delay": delay, "granularity_s": 0.0, "min_rto_s": 0.0,
                     "dupack_threshold": 3, "duration_s": 60.0}))
    for v in ("tahoe", "reno", "newreno"):
        out.append((f"{v}/rfc/slot-model", v,
                    {**NO_RTT, "rate_bps": 1.5e6, "packet_size_bytes": 1024, "window": 24,
                     "slot_model": True, "fixed_rto_s": 100 * 1024 * 8 / 1.5e6,
                     "channel": "ge:alpha=0.02,beta=0.3,advance=slot"}))
    # Two hops with a small queue on the second, SACK and Reno.
    for v in ("sack", "reno"):
        out.append((f"{v}/rfc/two-hop", v,
                    {"hops": [{"rate_bps": 1e7, "delay_s": 0.02},
                              {"rate_bps": 2e6, "delay_s": 0.01, "queue_packets": 8,
                               "channel": "bernoulli:p=0.005"}],
                     "window": 32, "duration_s": 30.0, "seed": 3, "trace_sends": True,
                     "trace_window": True}))
    # Issue 22's senders, paced and not: CUBIC (RFC 9438 and Linux's rules with HyStart),
    # BBR v1 and BBRv3 with Linux's TSO-burst pacing (their default) and per segment (ns-3's),
    # so that a refactoring of the per-ACK models, the rate sampler or the pacing timer shows
    # it changed no bit.
    modern = {
        "cubic": {},
        "cubic-linux": {"cubic_rules": "linux", "cubic_slow_start": "hystart"},
        "bbr": {},
        "bbr-segment": {"bbr_pacing_burst": "segment"},
        "bbr3": {},
        "bbr3-segment": {"bbr_pacing_burst": "segment"},
    }
    for name, knobs in modern.items():
        v = name.split("-")[0]
        for cname in ("bern", "ge-slot"):
            out.append((f"{name}/rfc/{cname}", v,
                        {**BASE, **knobs, "channel": CHANNELS[cname]}))
        out.append((f"{name}/rfc/delack-queue", v,
                    {**BASE, **knobs, "rate_bps": 10e6, "rtt_s": 0.1, "window": 200,
                     "packet_size_bytes": 1500, "queue_packets": 40, "delayed_ack": True,
                     "channel": "bernoulli:p=0.001", "duration_s": 20.0}))
    # Spurious-timeout undo: paper 001's delay jumps (every timeout spurious) with F-RTO and
    # Eifel's response, and a lost window (a genuine timeout F-RTO hands back to go-back-N).
    spikes = {**NO_RTT, "window": 100, "duration_s": 30.0,
              "delay": {"rtt_s": [0.05, 1.0], "H": [[0, 1], [1, 0]],
                        "excess_mean_s": [3.0, 0.3]}}
    for v in ("newreno", "sack", "cubic", "bbr"):
        for knob in ("frto", "eifel_undo"):
            out.append((f"{v}-{knob.split('_')[0]}/rfc/spikes", v, {**spikes, knob: True}))
    # DSACK's undo (the go-back-N's duplicates reported) on the same jumps, and a path whose
    # losses are genuine.
    for v in ("sack", "cubic", "bbr"):
        out.append((f"{v}-dsack/rfc/spikes", v, {**spikes, "dsack": True}))
    out.append(("sack-dsack/rfc/bern", "sack", {**BASE, "channel": CHANNELS["bern"],
                                                "dsack": True}))
    for v in ("newreno", "sack"):
        out.append((f"{v}-frto/rfc/window-lost", v,
                    {**BASE, "window": 10, "channel": "drops:seq=" + "+".join(
                        str(q) for q in range(200, 210)), "frto": True, "duration_s": 10.0}))
    # The Tail Loss Probe on the same jumps (probes that find nothing lost, with and without
    # DSACK ending their episodes) and on the tail losses of short transfers (a probe that
    # repairs the last segment; one whose SACK alone starts no recovery).
    for v in ("sack", "cubic", "bbr"):
        out.append((f"{v}-tlp/rfc/spikes", v, {**spikes, "tlp": True}))
    out.append(("sack-tlp-dsack/rfc/spikes", "sack", {**spikes, "tlp": True, "dsack": True}))
    tail = {**BASE, "rate_bps": 10e6, "rtt_s": 0.1, "packet_size_bytes": 1000,
            "initial_window": 4, "min_rto_s": 1.0, "transfer_bytes": 4000, "duration_s": 5.0}
    for drops in ("3", "2+3"):
        out.append((f"sack-tlp/rfc/tail-{drops}", "sack",
                    {**tail, "channel": f"drops:seq={drops}", "tlp": True}))
    return out


def main() -> int:
    rows = []
    for name, variant, kw in cases():
        sc = build_scenario(variant, **kw)
        rows.append({"name": name, "scenario": sc})
    OUT.write_text(json.dumps(rows, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} golden scenarios to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
