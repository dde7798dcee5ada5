"""Networks end to end: the seeds' topologies, queues, generated traffic and multi-flow
reports, through lossytcp.run / run_seeds and the command line.

Scenarios with named nodes, routed flows, generated traffic or RED need the network engine
(issue 9): those tests run when the built extension accepts the schema (the capability check
below), and skip on an older engine. Several flows on one link run on every engine.
Every assertion is a number the scenario fixes (a capacity, a round-trip time, a rate, a
count), so a wrong result fails.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import lossytcp
from lossytcp import scenario as s
from lossytcp.sim import engine_supports_networks, run, run_seeds

pytest.importorskip("lossytcp._sim")

ROOT = Path(__file__).resolve().parents[2]
NETWORKS = engine_supports_networks()
needs_networks = pytest.mark.skipif(not NETWORKS, reason="this build of the engine does not "
                                    "run networks yet (issue 9's network engine)")


# ------------------------------------------------------------------- any engine
def test_five_newreno_flows_share_a_link_fairly():
    """Paper 003's friendliness text: five NewReno flows on one 10 Mb/s link, RTT 100 ms,
    Jain index 0.9995 in the paper. Over 300 s the link is full and shared evenly (over the
    first 60 s one flow still has 1.4 shares and another 0.5: Jain 0.92)."""
    sc = s.paper003_friendliness(0, 5, duration_s=300.0)
    r = run(sc)
    assert len(r.flows) == 5 and [f.label for f in r.flows] == ["m1", "m2", "m3", "m4", "m5"]
    assert r.metric("goodput_norm") > 0.95
    assert r.jain() > 0.99
    share = r.fair_share_goodput()
    assert all(0.8 < x < 1.2 for x in share), share
    assert sum(share) == pytest.approx(5 * r.metric("goodput_norm"), rel=1e-9)
    # Each flow's capacity is the link's, in its packets.
    assert all(f.capacity_pps == pytest.approx(10e6 / (8 * 1500)) for f in r.flows)
    # Aggregates are sums of the flows' counters.
    assert r.metric("packets_sent") == sum(f.packets_sent for f in r.flows)
    assert r.metric("timeouts") == sum(f.timeouts for f in r.flows)


def test_one_greedy_flow_against_a_window_limited_one():
    """Jain's index over chosen flows, and what it means: a flow limited to 2 packets per
    RTT beside a greedy one on a 10 Mb/s, 100 ms link gets 2/RTT; the index of the two is
    far from 1, of either alone exactly 1."""
    tcp = s.Tcp(packet_size_bytes=1500, window=1000)
    sc = s.Scenario(topology=s.SingleLink(rate_bps=10e6, rtt_s=0.1, queue=s.DropTail(84)),
                    flows=(s.Flow(tcp=tcp, label="greedy"),
                           s.Flow(tcp=s.Tcp(packet_size_bytes=1500, window=2), label="small")),
                    duration_s=60.0)
    r = run(sc)
    small = r.flow("small")
    assert small.goodput_pps < 2 / 0.1 * 1.01
    assert r.flow("greedy").goodput_pps > 10 * small.goodput_pps
    assert r.jain() < 0.6
    assert r.jain(["small"]) == 1.0 and r.jain([0]) == 1.0
    with pytest.raises(lossytcp.ParameterError):
        r.flow("nosuch")


def test_run_seeds_is_the_runs_of_each_seed_and_deterministic():
    sc = s.paper003_friendliness(1, 1, duration_s=10.0)
    summary = run_seeds(sc, [3, 4], threads=2)
    alone = [run(sc, seed=x) for x in (3, 4)]
    assert summary.reports == tuple(alone)
    assert summary.flow(0).values("packets_sent").tolist() == [
        a.flows[0].packets_sent for a in alone]
    assert summary.mean("jain_index") == pytest.approx(sum(a.jain() for a in alone) / 2)


def test_a_scenario_file_runs_from_the_command_line():
    f = ROOT / "examples" / "scenarios" / "paper003-friendliness.toml"
    out = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--scenario", str(f),
                          "--duration", "20s", "--seeds", "2", "--json"], capture_output=True,
                         text=True, check=True, timeout=300)
    d = json.loads(out.stdout)
    assert [x["label"] for x in d["flows"]] == ["n1", "n2", "m1", "m2", "m3"]
    assert d["jain_index"]["mean"] > 0.8
    assert d["goodput_norm"]["mean"] > 0.85


# ------------------------------------------------------------- the network engine
@needs_networks
def test_paper003_two_hop_path_the_channel_on_the_wireless_hop_only():
    sc = s.paper003_two_hop(duration_s=60.0)
    r = run(sc)
    links = {(lk.src, lk.dst): lk for lk in r.links}
    assert links[("N", "D")].channel_drops > 0
    assert links[("S", "N")].channel_drops == 0 and links[("D", "N")].channel_drops == 0
    f = r.flows[0]
    assert f.channel_losses == links[("N", "D")].channel_drops
    # The two-state channel is Bad 0.05 / 1.05 of the time and loses everything then.
    assert 0.01 < f.channel_losses / f.packets_sent < 0.2
    assert f.loss_causes is not None and f.loss_causes["channel"] > 0


@needs_networks
def test_two_hop_round_trip_without_loss_is_the_propagation_plus_serialisation():
    sc = s.Scenario(topology=s.TwoHop(sn_rate_bps=10e6, nd_rate_bps=5e6, queue=s.DropTail(100)),
                    flows=(s.Flow(tcp=s.Tcp(packet_size_bytes=1500, window=8)),),
                    duration_s=30.0)
    r = run(sc).flows[0]
    rtt = (2 * (0.05 + 1e-5) + 1500 * 8 / 10e6 + 1500 * 8 / 5e6 + 40 * 8 / 5e6
           + 40 * 8 / 10e6)
    assert r.goodput_pps == pytest.approx(8 / rtt, rel=0.02)
    assert r.capacity_pps == pytest.approx(5e6 / 12000)
    # The same path as simulate()'s chain of hops gives the same run.
    chain = lossytcp.simulate("newreno", hops=[{"rate_bps": 10e6, "delay_s": 0.05,
                                                "queue_packets": 100},
                                               {"rate_bps": 5e6, "delay_s": 1e-5,
                                                "queue_packets": 100}],
                              packet_size_bytes=1500, window=8, duration_s=30.0)
    assert abs(chain.packets_delivered - r.packets_delivered) <= 1


@needs_networks
@pytest.mark.parametrize("kind", ["red", "droptail"])
def test_paper002_dumbbell_under_load(kind):
    """Paper 002 Scenario II, 60 s, arrivals at 1/s per sender: 29 x 0.8 Mb/s offered beside
    the FTP on a 15 Mb/s bottleneck, so its queue drops; RED drops early, DropTail only when
    full."""
    sc = s.paper002_scenario2(kind, arrival_rate_per_s=1.0, duration_s=60.0)
    r = run(sc)
    bc = next(lk for lk in r.links if (lk.src, lk.dst) == ("B", "C"))
    assert bc.queue_drops > 0
    early, forced = bc.extra["early_drops"], bc.extra["forced_drops"]
    assert early + forced == bc.queue_drops
    if kind == "red":
        assert early > 0 and bc.extra["mean_red_avg"] is not None
    else:
        assert early == 0
    assert 0.8 < bc.extra["utilization"] <= 1.0
    ftp = r.flow("ftp")
    assert ftp.capacity_pps == pytest.approx(15e6 / 4000)
    assert ftp.queue_drops == ftp.early_drops + ftp.forced_drops
    assert 0 < ftp.goodput_norm < 0.5         # 20 packets per >= 240 ms at most: 0.02
    assert ftp.goodput_pps <= 20 / 0.24 * 1.01
    web = r.traffic
    assert len(web) == 29 and web[0].label == "web2"
    started = sum(t["transfers_started"] for t in web)
    # 29 Poisson streams of 1/s over 60 s, minus those refused at 20 open: at most 1740 + 5 sd.
    assert 0 < started <= 1740 + 5 * math.sqrt(1740)
    done = [t for t in web if t["transfers_completed"] > 0]
    assert done
    # 100 KB = 200 packets of 500 B, slow start to a window of 20: at least a dozen RTTs of
    # at least 240 ms each.
    assert min(t["completion_time_s"]["p50"] for t in done) > 2.0


@needs_networks
def test_cbr_cross_traffic_gets_its_rate_and_tcp_the_rest():
    sc = s.Scenario(topology=s.SingleLink(rate_bps=10e6, rtt_s=0.05, queue=s.DropTail(1000)),
                    flows=(s.Flow(tcp=s.Tcp(packet_size_bytes=1000, window=30)),),
                    traffic=(s.Cbr(rate_bps=5e6, src="S", dst="D", packet_size_bytes=1000,
                                   label="cbr"),),
                    duration_s=30.0)
    r = run(sc)
    (cbr,) = r.traffic
    assert cbr.label == "cbr" and cbr["packets_sent"] == pytest.approx(5e6 * 30 / 8000, abs=2)
    assert cbr["goodput_bps"] == pytest.approx(5e6, rel=0.01)
    tcp = r.flows[0]
    # The window of 30 x 1000 B per ~55 ms RTT would be 4.4 Mb/s: TCP stays below the rest.
    assert tcp.goodput_pps * 8000 < 5.1e6
    assert tcp.queue_drops == 0


@needs_networks
def test_poisson_transfers_arrive_at_their_rate_and_take_round_trips():
    lam, dur = 4.0, 100.0
    sc = s.Scenario(topology=s.SingleLink(rate_bps=5e6, rtt_s=0.1),
                    flows=(s.Flow(tcp=s.Tcp(packet_size_bytes=1500, window=2)),),
                    traffic=(s.Transfers(src="S", dst="D", arrival_rate_per_s=lam,
                                         size=s.FixedSize(10_000), max_concurrent=50,
                                         tcp=s.Tcp(packet_size_bytes=1500)),),
                    duration_s=dur)
    (t,) = run(sc).traffic
    n = lam * dur
    assert abs(t["transfers_started"] - n) < 5 * math.sqrt(n)
    assert t["transfers_completed"] >= t["transfers_started"] - 5
    # 7 segments from a window of 1 in slow start: 1 + 2 + 4: three round trips of ~0.1 s.
    p50 = t["completion_time_s"]["p50"]
    assert 0.25 < p50 < 0.6, p50


@needs_networks
def test_red_queue_drops_early_around_its_thresholds():
    red = s.Red(packets=100, min_th=5, max_th=15, max_p=0.1, w_q=0.002, gentle=True,
                bytes=False, queue_in_bytes=False)
    sc = s.Scenario(topology=s.SingleLink(rate_bps=10e6, rtt_s=0.1, queue=red),
                    flows=(s.Flow(tcp=s.Tcp(packet_size_bytes=1000, window=500), count=4),),
                    duration_s=60.0)
    r = run(sc)
    fwd = r.links[0]
    assert fwd.extra["early_drops"] > 0
    assert fwd.extra["forced_drops"] <= fwd.extra["early_drops"]
    # The average sits between the thresholds (within gentle's upper range).
    assert 3 < fwd.extra["mean_red_avg"] < 30
    assert r.metric("goodput_norm") > 0.8


@needs_networks
def test_a_drop_list_names_its_flow():
    sc = s.Scenario(topology=s.SingleLink(channel=s.FlowDrops(flow=1, seqs=(10, 11))),
                    flows=(s.Flow(), s.Flow(start_s=0.01)), duration_s=20.0)
    r = run(sc)
    assert r.flows[0].channel_losses == 0 and r.flows[1].channel_losses == 2


@needs_networks
def test_the_queue_trace_is_bounded_to_its_window():
    sc = s.Scenario(topology=s.SingleLink(rate_bps=1e6, queue=s.DropTail(30)),
                    flows=(s.Flow(tcp=s.Tcp(window=100)),), duration_s=10.0,
                    trace=s.Tracing(queue=s.QueueTrace("S->D", 2.0, 2.5)))
    qt = run(sc).queue_trace
    assert qt is not None and qt["link"] == 0
    assert qt["t_s"] and min(qt["t_s"]) >= 2.0 and max(qt["t_s"]) <= 2.5


@needs_networks
def test_network_runs_are_deterministic_per_seed():
    sc = s.paper002_scenario2("red", arrival_rate_per_s=0.5, duration_s=20.0)
    a, b, c = run(sc, seed=5), run(sc, seed=5), run(sc, seed=6)
    assert a == b and a.flows[0].packets_sent == b.flows[0].packets_sent
    assert [t.values for t in a.traffic] == [t.values for t in b.traffic]
    assert [t.values for t in a.traffic] != [t.values for t in c.traffic]


@needs_networks
def test_every_shipped_example_runs():
    for f in sorted((ROOT / "examples" / "scenarios").glob("*.toml")):
        sc = s.Scenario.load(f).replace(duration_s=5.0)
        r = run(sc)
        assert r.flows and all(x.packets_sent > 0 for x in r.flows), f.name


@needs_networks
def test_the_command_line_runs_a_topology_with_cross_traffic():
    out = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--topology", "two-hop",
                          "--cross-traffic", "cbr:rate=2Mbps", "--duration", "10s", "--seeds",
                          "2", "--json"], capture_output=True, text=True, check=True,
                         timeout=300)
    d = json.loads(out.stdout)
    assert "flows" not in d and 0 < d["goodput_norm"]["mean"] <= 1
    (cbr,) = d["traffic"]
    assert cbr["label"] == "cbr1" and cbr["goodput_bps"] == pytest.approx(2e6, rel=0.02)


def test_a_dumbbell_of_thousands_of_senders_is_built_and_routed_quickly():
    # Found by the fuzz test: routing was a scan of every link per node visited, quadratic in
    # the senders (2357 of them took minutes); a breadth-first search over each node's own
    # links is linear. A hang guard as the fuzz test's (its bound is 20 s), not a speed target:
    # this takes about 0.3 s.
    import time

    from lossytcp import scenario as s

    t = time.perf_counter()
    sc = s.Scenario.from_dict({"topology": {"kind": "dumbbell", "senders": 3000,
                                            "access_delays_s": [0.01]}, "duration_s": 0.1})
    assert s.Scenario.from_toml(sc.to_toml()) == sc
    doc = sc.engine()
    assert len(doc["flows"]) >= 1 and len(doc["links"]) == 4 * 3000 + 2
    assert time.perf_counter() - t < 10.0
