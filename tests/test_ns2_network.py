"""The ns-2 network script writer (lossytcp.ns2.network): what it writes, and the clean
Ns2Unsupported for what ns-2 cannot express. The engine-against-ns-2 numbers are in
tests/reference/test_network.py."""

from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path

import pytest

from lossytcp import _sim
from lossytcp.errors import ParameterError
from lossytcp.ns2 import Ns2Unsupported, build_script, simulate_ns2
from lossytcp.ns2.network import build_network_script, routes, run_network

sys.path.insert(0, str(Path(__file__).resolve().parent / "reference"))
import network_cases as nc  # noqa: E402

HAVE_NS = shutil.which("ns") is not None
needs_ns = pytest.mark.skipif(not HAVE_NS, reason="ns-2 (Debian package ns2) not installed")
TICK = dict(granularity_s=0.01)
HOPS = [{"rate_bps": 1e7, "delay_s": 0.02},
        {"rate_bps": 2e6, "delay_s": 0.01, "queue_packets": 8,
         "channel": "bernoulli:p=0.01"}]


def test_hops_are_a_chain_of_nodes() -> None:
    # Used to crash the writer: "ValueError: too many values to unpack".
    s = build_script("newreno", hops=HOPS, **TICK)
    t = s.text
    for line in ["$ns simplex-link $n(0) $n(1) 10000000.0 0.02 DropTail",
                 "$ns simplex-link $n(1) $n(2) 2000000.0 0.01 DropTail",
                 "$ns queue-limit $n(1) $n(2) 9",  # 8 waiting + the one on the wire
                 "$ns simplex-link $n(2) $n(1) 2000000.0 0.01 DropTail",
                 "$ns link-lossmodel $em(1) $n(1) $n(2)",
                 "$ns attach-agent $n(0) $tcp(0)", "$ns attach-agent $n(2) $sink(0)"]:
        assert line in t, line
    assert "LossyTcp/Bernoulli" in t
    assert s.channel_kind == "bernoulli"
    assert s.capacity_pps == 2e6 / (8 * 500)


def test_red_parameters_are_all_written_out() -> None:
    sc = nc.red_dumbbell("ns2-defaults", 1)
    t = build_network_script(sc).text
    for line in ["$ns simplex-link $n(0) $n(1) 10000000.0 0.02 RED", "$q set bytes_ true",
                 "$q set queue_in_bytes_ true", "$q set thresh_ 0.0", "$q set maxthresh_ 0.0",
                 "$q set linterm_ 10.0", "$q set q_weight_ -1.0", "$q set gentle_ true",
                 "$q set wait_ true", "$q set mean_pktsize_ 500", "$q set use_mark_p_ true",
                 "$q set targetdelay_ 0.005", "$q set setbit_ false",
                 "$ns queue-limit $n(0) $n(1) 100", "early-drop-target"]:
        assert line in t, line
    t = build_network_script(nc.red_dumbbell("classic", 1)).text
    for line in ["$q set thresh_ 5.0", "$q set maxthresh_ 15.0", "$q set q_weight_ 0.002",
                 "$q set gentle_ false", "$q set bytes_ false"]:
        assert line in t, line


def test_traffic_sources_and_transfer_pools() -> None:
    sc = nc.paper002(1, duration_s=10.0)
    sc["traffic"].append({"kind": "onoff", "src": "A1", "dst": "D1", "rate_bps": 2e6,
                          "packet_size_bytes": 1000, "on_s": 0.5, "off_s": 0.5})
    sc["traffic"].append({"kind": "cbr", "src": "A2", "dst": "D2", "rate_bps": 1e6,
                          "packet_size_bytes": 500, "start_s": 1.0, "stop_s": 5.0,
                          "random": True})
    t = build_network_script(sc, monitor_links=[0]).text
    assert t.count("Application/Traffic/Exponential") == 1
    assert "$app(29) set burst_time_ 0.5" in t and "$app(29) use-rng $apprng(29)" in t
    assert "$app(30) set random_ 1" in t and '$ns at 5.0 "$app(30) stop"' in t
    # 29 download entries, each 20 slots; a slot takes a fresh agent pair per transfer
    assert t.count("for {set j 0} {$j < 20} {incr j}") == 29
    assert "$tagent($k,$j) reset" in t and "$tsink($k,$j) reset" in t
    assert "lt_retire_$k $j" in t and "lt_pair_$k $j" in t
    assert t.count("set qm(") == 1


def _dumbbell_with_two_paths() -> dict:
    """S -> {X, Y} -> D: two 2-hop paths, a tie."""
    sc = nc.five_flows(1)
    sc["flows"] = sc["flows"][:1]
    sc["links"] = []
    for a, b in (("S", "X"), ("X", "D"), ("S", "Y"), ("Y", "D")):
        nc.duplex(sc["links"], a, b, 1e7, 0.01, {"kind": "droptail", "packets": 50})
    return sc


@pytest.mark.parametrize("edit, param", [
    (lambda sc: None, "flows[0].forward"),  # a tie between two routes
    (lambda sc: sc["links"][0]["queue"].update(bytes=10**7), "links[0].queue"),  # both can bind
    (lambda sc: sc["links"][0]["queue"].update(packets=0), "links[0].queue.packets"),
    (lambda sc: sc["links"][0].update(protect_retransmissions=True),
     "links[0].protect_retransmissions"),
    (lambda sc: sc["links"][0].update(delay={"kind": "semi_markov", "delay_s": [0.01],
                                             "h": [[1.0]], "excess_mean_s": [0.0]}),
     "links[0].delay"),
    (lambda sc: sc["links"][0].update(channel={"kind": "flow_drops", "drops": []}),
     "links[0].channel"),
])
def test_what_ns2_cannot_express_is_refused_by_name(edit, param: str) -> None:
    sc = nc.five_flows(1)
    if param == "flows[0].forward":
        sc = _dumbbell_with_two_paths()
    edit(sc)
    with pytest.raises(Ns2Unsupported) as e:
        build_network_script(sc)
    assert e.value.name == param


def test_a_time_driven_channel_needs_one_packet_size_on_its_link() -> None:
    sc = nc.five_flows(1)
    sc["links"][0]["channel"] = {"kind": "burst", "p": 0.01, "hold_s": 0.05}
    build_network_script(sc)  # data packets only: fine
    sc["traffic"] = [{"kind": "cbr", "src": "S", "dst": "D", "rate_bps": 1e6,
                      "packet_size_bytes": 200}]
    with pytest.raises(Ns2Unsupported) as e:
        build_network_script(sc)
    assert e.value.name == "links[0].channel"


def test_hand_listed_paths_must_be_ns2s_route() -> None:
    sc = copy.deepcopy(nc.five_flows(1))
    f = sc["flows"][0]
    del f["src"], f["dst"]
    f["forward"], f["reverse"] = [0], [1]
    build_network_script(sc)
    sc["links"].append(dict(sc["links"][0]))  # a parallel S -> D link: now a tie
    with pytest.raises(Ns2Unsupported):
        build_network_script(sc)


def test_routes_mirror_the_engine() -> None:
    # (from, to) per link; ties broken by the lowest link index at each node
    ends = [(0, 1), (1, 3), (0, 2), (2, 3), (0, 3)]
    assert routes(4, ends, 0, 3) == ([4], True)
    assert routes(4, ends[:4], 0, 3) == ([0, 1], False)
    assert routes(4, ends, 3, 0) == (None, True)


def test_links_without_endpoints_are_refused_by_the_network_writer() -> None:
    sc = nc.five_flows(1)
    for lk in sc["links"]:
        del lk["from"], lk["to"]
    with pytest.raises(ParameterError):
        build_network_script(sc)


@needs_ns
@pytest.mark.parametrize("variant", ["sack", "newreno", "tahoe"])
def test_every_transfer_of_a_slot_runs_as_the_first(variant: str) -> None:
    # One slot, 60 KB transfers into a 6-packet DropTail: each overflows in slow start the
    # same way, and nothing random touches it. When the script reused a slot's agents with
    # ``reset``, ns-2's Sack1 kept its scoreboard's cumulative ACK (scoreboard-rq.h:
    # ClearScoreBoard() leaves sack_min), found no hole below it in the next transfer and
    # waited for a timeout: the first transfer took 0.7796 s, every later one 1.0702 s with
    # one timeout. Fresh agents: all as the first, and as the engine's fresh connections.
    links: list = []
    nc.duplex(links, "S", "D", 1e6, 0.02, {"kind": "droptail", "packets": 6})
    sc = {"seed": 1, "duration_s": 40.0, "links": links, "flows": [],
          "traffic": [{"kind": "transfers", "src": "S", "dst": "D",
                       "arrival_rate_per_s": 0.2, "size": {"kind": "fixed", "bytes": 60000},
                       "max_concurrent": 1,
                       "variant": nc.ENGINE_VARIANT.get(variant, variant),
                       "tcp": nc.tcp(variant, window=64, size=1000)}]}
    ns = run_network(sc, monitor_links=[0], red_sample_s=None).traffic[0]
    eng = json.loads(_sim.run_json(json.dumps(sc)))["traffic"][0]
    assert ns["transfers_completed"] >= 5 and eng["transfers_completed"] >= 5
    t_ns, t_eng = ns["completion_time_s"], eng["completion_time_s"]
    assert t_ns["min"] == pytest.approx(t_ns["max"], abs=1e-9)
    assert t_ns["min"] == pytest.approx(t_eng["min"], abs=1e-9)
    assert t_eng["min"] == pytest.approx(t_eng["max"], abs=1e-9)
    if variant == "sack":
        assert ns["timeouts"] == eng["timeouts"] == 0


@needs_ns
def test_two_hops_run_in_ns2_like_the_engine() -> None:
    import lossytcp

    kw = dict(hops=HOPS, window=32, duration_s=20.0, min_rto_s=0.2, initial_rto_s=1.0, **TICK)
    r = simulate_ns2("newreno", **kw)
    e = lossytcp.simulate("newreno", profile="ns2", **kw)
    assert r.channel_losses > 0 and r.packets_delivered > 1000
    # Different channel draws: the same law, not the same run.
    assert abs(r.goodput_norm - e.goodput_norm) < 0.15
