"""ns-2 scripts for typed scenarios (lossytcp.scenario), as `crosscheck ns2` writes them:
every topology, queue and kind of traffic gives Tcl that ns-2 2.35 runs (each script is run
for a simulated second and its results read back), westwood-plus becomes Agent/TCP/Linux,
the senders ns-2 does not have are refused by name, progress lines leave the run unchanged,
and --paired's per-link fates replay ns-2's losses exactly."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from lossytcp import scenario as S
from lossytcp.errors import ParameterError
from lossytcp.ns2 import NO_NS2_AGENT, Ns2Unsupported, build_script, fates_file, find_ns
from lossytcp.ns2.network import (
    build_network_script,
    named_scenario,
    parse_fates,
    parse_network,
    run_network,
)
from lossytcp.ns2.run import run_ns

HAVE_NS = shutil.which("ns") is not None
needs_ns = pytest.mark.skipif(not HAVE_NS, reason="ns-2 (Debian package ns2) not installed")
TCP = S.Tcp(profile="ns2", granularity_s=0.01, window=20)


def _flow(**kw) -> S.Flow:
    return S.Flow(tcp=kw.pop("tcp", TCP), **kw)


def _web(src: str, dst: str, **kw) -> S.Transfers:
    return S.Transfers(arrival_rate_per_s=5.0, size=S.FixedSize(20_000), max_concurrent=4,
                       src=src, dst=dst, tcp=TCP, **kw)


#: name -> (scenario, lines its script must hold)
CASES = {
    "single link, 3 flows, DropTail": (
        S.Scenario(topology=S.SingleLink(queue=S.DropTail(10)), flows=(_flow(count=3),)),
        ["$ns simplex-link $n(0) $n(1) 2000000.0 0.01 DropTail",
         "$ns queue-limit $n(0) $n(1) 11", "set tcp(2) [new Agent/TCP/Newreno]"]),
    "single link, RED": (
        S.Scenario(topology=S.SingleLink(queue=S.Red(packets=30, min_th=5, max_th=15,
                                                     w_q=0.002, max_p=0.1)),
                   flows=(_flow(count=2),)),
        ["$ns simplex-link $n(0) $n(1) 2000000.0 0.01 RED", "$q set thresh_ 5.0",
         "$q set maxthresh_ 15.0", "$q set linterm_ 10.0", "early-drop-target"]),
    "single link, DropTail in bytes": (
        S.Scenario(topology=S.SingleLink(queue=S.DropTail(packets=1000, bytes=5000)),
                   flows=(_flow(count=2),)),
        ["$q set queue_in_bytes_ true", "$ns queue-limit $n(0) $n(1) 5001"]),
    "chain of two hops": (
        S.Scenario(topology=S.Chain(hops=(S.Hop(rate_bps=1e7, delay_s=0.01),
                                          S.Hop(rate_bps=2e6, delay_s=0.005, queue=S.DropTail(8),
                                                channel="bernoulli:p=0.01"))),
                   flows=(_flow(),)),
        ["$ns simplex-link $n(1) $n(2) 2000000.0 0.005 DropTail", "LossyTcp/Bernoulli",
         "$ns link-lossmodel $em(1) $n(1) $n(2)"]),
    "two-hop, on/off traffic, wireless channel": (
        S.Scenario(topology=S.TwoHop(channel="ge:alpha=0.01,beta=0.2"), flows=(_flow(),),
                   traffic=(S.OnOff(rate_bps=2e6, on_s=0.2, off_s=0.2, src="S", dst="N"),)),
        ["Application/Traffic/Exponential", "LossyTcp/GERuns", "Agent/LossMonitor"]),
    "dumbbell, CBR and web transfers": (
        S.Scenario(topology=S.Dumbbell(senders=3, access_delays_s=(0.01,),
                                       queue=S.Red(packets=50)),
                   flows=(_flow(src="A1", dst="D1"),),
                   traffic=(S.Cbr(rate_bps=1e6, src="A2", dst="D2"), _web("A3", "D3"))),
        ["Application/Traffic/CBR", "lt_arrival", "$q set thresh_ 0.0"]),
    "network of links, finite transfer": (
        S.Scenario(topology=S.Network(nodes=("a", "b", "c"), links=(
            S.Link(rate_bps=1e7, delay=0.005, src="a", dst="b"),
            S.Link(rate_bps=1e6, delay=0.01, src="b", dst="c", queue=S.Red(packets=20)),
            S.Link(rate_bps=1e6, delay=0.01, src="c", dst="b"),
            S.Link(rate_bps=1e7, delay=0.005, src="b", dst="a"))),
            flows=(_flow(app=S.Transfer(30_000)), _flow(start_s=0.1))),
        ["$tcp(0) advanceby 60", "$ns simplex-link $n(1) $n(2) 1000000.0 0.01 RED"]),
    "westwood-plus, delayed ACKs": (
        S.Scenario(topology=S.SingleLink(queue=S.DropTail(10)),
                   flows=(S.Flow(variant="westwood-plus", count=2,
                                 tcp=S.Tcp(delayed_ack=True, westwood_slow_start="per_ack")),)),
        ["set tcp(1) [new Agent/TCP/Linux]", "$tcp(1) select_ca westwood",
         "set sink(1) [new Agent/TCPSink/Sack1/DelAck]", "$sink(1) set SYN_immediate_ack_ false",
         "$tcp(0) set tcpTick_ 0.001"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_topology_queue_and_traffic_has_its_script(name: str) -> None:
    sc, lines = CASES[name]
    text = build_network_script(named_scenario(sc.replace(duration_s=1.0), 1)).text
    for ln in lines:
        assert ln in text, ln


@needs_ns
@pytest.mark.parametrize("name", list(CASES))
def test_ns2_runs_every_script(name: str) -> None:
    sc = CASES[name][0].replace(duration_s=1.0)
    d = named_scenario(sc, 1)
    rep = run_network(d, red_sample_s=None)
    assert len(rep.flows) == len(sc.all_flows()) and len(rep.links) == len(d["links"])
    for f in rep.flows:
        assert f["packets_sent"] > 0 and 0 < f["packets_delivered"] <= f["packets_sent"]
        assert f["capacity_pps"] > 0
    for t in rep.traffic:
        assert t["transfers_started"] > 0 if t["kind"] == "transfers" else t["goodput_bps"] > 0


def test_legacy_scenarios_get_their_nodes() -> None:
    # simulate()'s single link and chains are the engine's legacy form (no node names)
    sc = S.Scenario(topology=S.SingleLink(), flows=(_flow(count=2),))
    assert "nodes" not in sc.engine()
    d = named_scenario(sc, 7)
    assert d["seed"] == 7 and d["nodes"] == ["S", "D"]
    assert [(lk["from"], lk["to"]) for lk in d["links"]] == [("S", "D"), ("D", "S")]


@pytest.mark.parametrize("variant", sorted(NO_NS2_AGENT))
def test_senders_ns2_does_not_have_are_refused_by_name(variant: str) -> None:
    # issue 24: build_script raised a bare KeyError for these
    with pytest.raises(Ns2Unsupported) as e:
        build_script(variant, duration_s=1.0, granularity_s=0.01)
    assert isinstance(e.value, ParameterError)
    assert e.value.name == "variant" and e.value.value == variant
    sc = S.Scenario(flows=(_flow(), S.Flow(variant=variant)))
    with pytest.raises(Ns2Unsupported) as e:
        build_network_script(named_scenario(sc))
    assert e.value.name == "flows[1].variant" and e.value.value == variant
    sc = S.Scenario(traffic=(S.Transfers(arrival_rate_per_s=1.0, size=S.FixedSize(1000),
                                         max_concurrent=2, variant=variant, tcp=TCP),),
                    flows=(_flow(),))
    with pytest.raises(Ns2Unsupported) as e:
        build_network_script(named_scenario(sc))
    assert e.value.name == "traffic[0].variant"


def test_westwood_plus_is_the_linux_agent() -> None:
    # issue 24: a KeyError before; lossytcp.ns2.linux's mapping
    s = build_script("westwood-plus", duration_s=1.0, delayed_ack=True)
    assert "set tcp [new Agent/TCP/Linux]" in s.text and "$tcp select_ca westwood" in s.text
    assert "Agent/TCPSink/Sack1/DelAck" in s.text and s.variant == "linux-westwood-sack"
    assert any("Agent/TCP/Linux" in n for n in s.notes)
    assert "select_ca" in build_script("westwood-plus", westwood_slow_start="per_ack").text
    for kw, name in ((dict(westwood_slow_start="acked"), "westwood_slow_start"),
                     (dict(granularity_s=0.01), "granularity_s"),
                     (dict(profile="ns2"), "profile"),
                     (dict(dupack_threshold=4), "dupack_threshold")):
        with pytest.raises(Ns2Unsupported) as e:
            build_script("westwood-plus", **kw)
        assert e.value.name == name
    sc = S.Scenario(flows=(S.Flow(variant="westwood-plus", tcp=S.Tcp(dupack_threshold=4)),))
    with pytest.raises(Ns2Unsupported) as e:
        build_network_script(named_scenario(sc))
    assert e.value.name == "dupack_threshold"


def test_a_red_or_byte_queue_on_one_link_goes_through_the_network_writer() -> None:
    # build_script read queue_packets, which a RED queue does not have (KeyError)
    s = build_script("newreno", queue="red:packets=20", granularity_s=0.01, duration_s=1.0)
    assert "RED" in s.text and "LOSSYTCP-RESULT" in s.text
    # 1000 packets never fit in 5000 bytes: the byte limit binds first, on both links
    s = build_script("newreno", queue="droptail:packets=1000,bytes=5000B", granularity_s=0.01)
    assert s.text.count("$q set queue_in_bytes_ true") == 2
    for spec, link in (("droptail:packets=100,bytes=1000000B", "links[0].queue"),
                       ("droptail:packets=100,bytes=5000B", "links[1].queue")):  # 40 B ACKs
        with pytest.raises(Ns2Unsupported) as e:
            build_script("newreno", queue=spec, granularity_s=0.01)
        assert e.value.name == link


@needs_ns
def test_progress_lines_leave_the_run_unchanged(tmp_path: Path) -> None:
    from lossytcp.ns2 import run_script

    s = build_script("newreno", channel="bernoulli:p=0.02", duration_s=20.0,
                     granularity_s=0.01, seed=3)
    seen: list[float] = []
    plain, _ = run_script(s)
    shown, out = run_script(s, on_time=seen.append, keep_script=tmp_path / "kept.tcl")
    assert (plain.packets_sent, plain.timeouts, plain.packets_delivered) == (
        shown.packets_sent, shown.timeouts, shown.packets_delivered)
    assert out.count("LOSSYTCP-T ") >= 100
    assert seen == sorted(seen) and seen[-1] > 19 and all(0 <= t <= 20.0 for t in seen)
    assert "LOSSYTCP-T" in (tmp_path / "kept.tcl").read_text()


@needs_ns
def test_per_link_fates_replay_ns2s_losses_exactly() -> None:
    # Three flows and their ACKs share a lossy link and a 10-packet queue: ns-2's fate for
    # every transmission on the link, replayed through the engine's trace channel, gives the
    # engine the same losses; this seed's runs are then the same, packet for packet.
    from lossytcp import sim

    sc = S.Scenario(topology=S.SingleLink(rate_bps=2e6, rtt_s=0.04, queue=S.DropTail(10),
                                          channel="bernoulli:p=0.01",
                                          ack_channel="bernoulli:p=0.01"),
                    flows=(_flow(count=3),), duration_s=30.0)
    d = named_scenario(sc, 3)
    with tempfile.TemporaryDirectory() as wd:
        tr = Path(wd) / "t.tr"
        script = build_network_script(d, trace_file=str(tr), trace_links=[0, 1],
                                      red_sample_s=None)
        (Path(wd) / "s.tcl").write_text(script.text)
        out, _, _ = run_ns(find_ns(), Path(wd) / "s.tcl", Path(wd))
        ref = parse_network(out, d, script)
        fates = parse_fates(tr.read_text(), d, [0, 1])
        e = sc.engine(seed=3)
        for k in (0, 1):
            e["links"][k]["channel"] = {"kind": "trace", "advance": "transmission",
                                        "file": str(fates_file(fates[k], Path(wd) / f"{k}"))}
        rep = sim._net_report(sc, sim._engine_run(e), 3)
    for k in (0, 1):
        assert rep.links[k].channel_drops == ref.links[k]["channel_drops"] == sum(fates[k]) > 0
    assert rep.links[0].queue_drops == ref.links[0]["queue_drops"] > 0
    for f, g in zip(rep.flows, ref.flows, strict=True):
        assert (f.packets_sent, f.retransmissions, f.timeouts, f.packets_delivered) == (
            g["packets_sent"], g["retransmissions"], g["timeouts"], g["packets_delivered"])


@needs_ns
def test_timer_on_every_partial_ack_is_newreno_changes1_off() -> None:
    # Seven losses in one window, a 200 ms path: NewReno spends several partial ACKs in one
    # recovery. The engine's knob and ns-2's newreno_changes1_ send the same, send for send.
    from lossytcp.ns2 import compare_send_traces

    assert "$tcp set newreno_changes1_ 0" in build_script(
        "newreno", timer_every_partial_ack=True, granularity_s=0.01).text
    sends = {}
    for every in (True, False):
        r = compare_send_traces("newreno", channel="drops:seq=30+31+32+33+34+35+36",
                                timer_every_partial_ack=every, granularity_s=0.01, window=40,
                                duration_s=4.0, rtt_s=0.2)
        assert r["index"] is None, r
        sends[every] = r["ns2_sends"]
    assert sends[True] != sends[False]
