"""The typed scenario layer: validation in one place, the engine's JSON, TOML round trips,
the builders of the seeds' networks and the shipped example files."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import lossytcp
from lossytcp import scenario as s
from lossytcp.errors import ParameterError
from lossytcp.scenario_toml import dumps, loads
from lossytcp.sim import build_scenario, scenario_from_keywords
from lossytcp.spec import channel_from_spec, queue_from_spec, traffic_from_spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"


# ------------------------------------------------------------------ the legacy keyword API
def test_every_golden_scenario_is_rebuilt_bit_for_bit(tmp_path):
    """tests/reference/golden_scenarios.json was made by build_scenario before the typed
    layer; make_golden.py must regenerate it byte for byte."""
    out = tmp_path / "golden.json"
    code = (f"import sys; sys.argv=['x']; import runpy; "
            f"m = runpy.run_path({str(ROOT / 'tests/reference/make_golden.py')!r}, "
            f"run_name='golden'); m['OUT'] = None; "
            f"import json; rows=[{{'name': n, 'scenario': m['build_scenario'](v, **kw)}} "
            f"for n, v, kw in m['cases']()]; "
            f"open({str(out)!r}, 'w').write(json.dumps(rows, sort_keys=True) + '\\n')")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    assert out.read_bytes() == (ROOT / "tests/reference/golden_scenarios.json").read_bytes()


def test_keyword_scenario_is_the_typed_single_link():
    sc = scenario_from_keywords("sack", rate_bps=5e6, rtt_s=0.1, window=64,
                                channel="bernoulli:p=0.01", queue_packets=30, seed=4)
    assert sc.topology == s.SingleLink(rate_bps=5e6, rtt_s=0.1, queue=s.DropTail(30),
                                       channel=s.Bernoulli(0.01))
    assert sc.flows == (s.Flow(variant="sack", tcp=s.Tcp(window=64)),)
    d = sc.engine()
    assert "nodes" not in d and d["flows"][0]["forward"] == [0]
    assert d["links"][0]["queue_packets"] == 30 and "queue" not in d["links"][0]
    assert d["flows"][0]["variant"] == "sack" and d["seed"] == 4


def test_a_red_queue_from_the_keyword_api_and_its_json():
    d = build_scenario("reno", queue="red:packets=100,min_th=5,max_th=15,max_p=0.1,w_q=0.002,"
                                     "gentle=true")
    assert d["links"][0]["queue"] == {"kind": "red", "packets": 100, "min_th": 5.0,
                                      "max_th": 15.0, "max_p": 0.1, "w_q": 0.002,
                                      "gentle": True}
    assert "queue_packets" not in d["links"][0]
    with pytest.raises(ParameterError, match="either queue or queue_packets"):
        build_scenario("reno", queue=50, queue_packets=50)


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize(("build", "name", "fragment"), [
    (lambda: s.Red(packets=100, min_th=20, max_th=10), "max_th", "> min_th"),
    (lambda: s.Red(packets=100, max_p=0), "max_p", "(0, 1]"),
    (lambda: s.Red(packets=100, gentle="yes"), "gentle", "True, False or None"),
    (lambda: s.DropTail(packets=-1), "packets", "integer"),
    (lambda: s.Link(rate_bps=1e6, queue="red:packets=5,min_th=3,max_th=2"), "queue.max_th",
     "> min_th"),
    (lambda: s.Link(rate_bps=1e6, channel={"kind": "bernoulli", "p": 2}), "channel.p", "[0, 1]"),
    (lambda: s.Link(rate_bps=1e6, channel={"kind": "wifi"}), "channel.kind", "one of"),
    (lambda: s.Flow(variant="reno", tcp={"window": 0}), "tcp.window", "[1,"),
    (lambda: s.Flow(tcp={"colour": 1}), "tcp.colour", "not a field"),
    (lambda: s.Transfers(arrival_rate_per_s=1, size=0, max_concurrent=5), "size", "integer"),
    (lambda: s.Transfers(arrival_rate_per_s=1, size={"kind": "pareto", "mean_bytes": 1e4,
                                                     "shape": 1.0}, max_concurrent=1),
     "size.shape", "> 1"),
    (lambda: s.Cbr(rate_bps=1e6, start_s=5, stop_s=1), "stop_s", "> start_s"),
    (lambda: s.Dumbbell(senders=30, access_delays_s=(0.01, 0.02, 0.03, 0.04)), "access_delays_s",
     "equal groups"),
    (lambda: s.Network(nodes=("A", "B"), links=({"rate_bps": 1e6, "src": "A", "dst": "C"},)),
     "links[0].dst", "one of the nodes"),
    (lambda: s.Network(nodes=("A", "A"), links=()), "nodes", "twice"),
    (lambda: s.Scenario(flows=({"src": "S", "dst": "X"},)), "flows[0].dst", "one of the nodes"),
    (lambda: s.Scenario(topology=s.Network(nodes=("A", "B"), links=(
        s.Link(rate_bps=1e6, src="A", dst="B"),)), flows=(s.Flow(src="A", dst="B"),)),
     "flows[0].dst", "cannot be reached"),   # no link back for the ACKs
    (lambda: s.Scenario(topology=s.SingleLink(channel=s.FlowDrops(flow=3, seqs=(1,)))),
     "channel.flow", "one of the 1 flows"),
    (lambda: s.Scenario(trace={"queue": {"link": "S->X"}}), "trace.queue.link", "names no link"),
    (lambda: s.Scenario.from_dict({"flows": [{"variant": "hybla"}]}), "flows[0].variant",
     "one of"),
    (lambda: s.Scenario.from_dict({"topology": {"kind": "dumbbell", "queue": "red:packets=0"}}),
     "topology.queue.packets", "integer"),
    (lambda: s.Scenario.from_dict({"seeds": 5}), "seeds", "not a field"),
])
def test_each_error_names_its_place_value_and_range(build, name, fragment):
    with pytest.raises(ParameterError) as e:
        sc = build()
        if isinstance(sc, s.Scenario):
            sc.engine()
    assert e.value.name == name, str(e.value)
    assert fragment in str(e.value)


def test_records_are_immutable_and_compare_by_value():
    a, b = s.Tcp(window=30), s.Tcp(window=30)
    assert a == b and hash(a) == hash(b) and a != s.Tcp(window=31)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.window = 5  # type: ignore[misc]
    assert dataclasses.replace(a, window=40).window == 40
    with pytest.raises(ParameterError, match="window"):
        dataclasses.replace(a, window=0)


def test_specs_parse_into_the_typed_objects():
    assert channel_from_spec("burst:p=0.01,hold=100ms") == s.Burst(p=0.01, hold_s=0.1)
    assert channel_from_spec("ge:alpha=0.01,beta=0.2") == s.GilbertElliott(0.01, 0.2)
    assert channel_from_spec("drops:seq=16+15") == s.Drops((15, 16))
    assert channel_from_spec("drops:seq=3,flow=2") == s.FlowDrops(2, (3,))
    assert queue_from_spec("50") == s.DropTail(50)
    assert queue_from_spec("droptail:packets=50,bytes=64KiB") == s.DropTail(50, bytes=65536)
    assert queue_from_spec("red:packets=100,min_th=5,max_th=15,max_p=0.1,w_q=0.002,"
                           "gentle=true") == s.Red(100, 5, 15, 0.1, 0.002, True)
    # Floyd & Jacobson's packet mode (ns-2's default counts in 500-byte units)
    assert queue_from_spec("red:packets=100,bytes=false,queue_in_bytes=false") == s.Red(
        100, bytes=False, queue_in_bytes=False)
    assert traffic_from_spec("cbr:rate=2Mbps") == s.Cbr(rate_bps=2e6)
    assert traffic_from_spec("onoff:rate=2Mbps,on=500ms,off=500ms") == s.OnOff(rate_bps=2e6)
    web = traffic_from_spec("web:arrival=2/s,size=100KB,max=20")
    assert web == s.Transfers(arrival_rate_per_s=2.0, size=s.FixedSize(100_000),
                              max_concurrent=20)
    pareto = traffic_from_spec("web:arrival=30/min,size=20kB,max=3,dist=pareto,shape=1.2")
    assert pareto.size == s.ParetoSize(20_000, 1.2) and pareto.arrival_rate_per_s == 0.5
    for bad, name in [("red:packets=100,gentle=maybe", "queue.gentle"),
                      ("red:packets=100,packets=50", "queue.packets"),
                      ("fifo:packets=3", "queue"), ("50.5", "queue")]:
        with pytest.raises(ParameterError) as e:
            queue_from_spec(bad, "queue")
        assert e.value.name == name
    with pytest.raises(ParameterError) as e:
        traffic_from_spec("web:arrival=2,size=100KB,max=3")
    assert e.value.name == "cross-traffic.arrival" and "unit" in str(e.value)


# ------------------------------------------------------------------------ engine JSON
def test_network_json_follows_the_schema():
    sc = s.paper003_two_hop(cross_traffic=True, duration_s=10)
    d = sc.engine()
    assert d["nodes"] == ["S", "N", "D"]
    assert [(lk["from"], lk["to"]) for lk in d["links"]] == [("S", "N"), ("N", "S"),
                                                              ("N", "D"), ("D", "N")]
    # The channel on the wireless N -> D hop only, the wired hop lossless.
    assert d["links"][2]["channel"]["kind"] == "two_state"
    assert all(d["links"][i]["channel"] == {"kind": "none"} for i in (0, 1, 3))
    assert d["flows"][0]["src"] == "S" and d["flows"][0]["dst"] == "D"
    assert "forward" not in d["flows"][0]
    assert d["traffic"] == [{"kind": "onoff", "src": "S", "dst": "N", "rate_bps": 5e6,
                             "packet_size_bytes": 1500, "on_s": 0.5, "off_s": 0.5,
                             "start_s": 0.0, "stop_s": None}]
    # BDP of 10 Mb/s x 100.02 ms in 1500 B packets, rounded up.
    assert d["links"][0]["queue_packets"] == 84


def test_paper002_scenario2_is_the_papers_dumbbell():
    sc = s.paper002_scenario2("red", arrival_rate_per_s=0.2)
    d = sc.engine()
    assert len(d["nodes"]) == 62
    links = {(lk["from"], lk["to"]): lk for lk in d["links"]}
    assert len(links) == 2 * 61
    bc = links[("B", "C")]
    assert bc["rate_bps"] == 15e6 and bc["delay"]["delay_s"] == 0.1
    assert bc["queue"] == {"kind": "red", "packets": 150}
    # Groups of ten: one-way access delays 10/30/50 ms on both sides, so min RTTs 240/320/400.
    for i, d_s in ((1, 0.01), (10, 0.01), (11, 0.03), (20, 0.03), (21, 0.05), (30, 0.05)):
        assert links[(f"A{i}", "B")]["delay"]["delay_s"] == d_s
        assert links[("C", f"D{i}")]["delay"]["delay_s"] == d_s
        assert links[(f"A{i}", "B")]["rate_bps"] == 90e6
        rtt = 2 * (2 * d_s + 0.1)
        assert rtt == pytest.approx({0.01: 0.24, 0.03: 0.32, 0.05: 0.40}[d_s])
    assert d["flows"][0]["src"] == "A1" and d["flows"][0]["dst"] == "D1"
    assert d["flows"][0]["tcp"]["packet_size_bytes"] == 500
    assert d["flows"][0]["tcp"]["max_window"] == 20
    assert not d["flows"][0]["tcp"]["delayed_ack"]
    web = d["traffic"]
    assert [(t["src"], t["dst"]) for t in web] == [(f"A{i}", f"D{i}") for i in range(2, 31)]
    assert all(t["size"] == {"kind": "fixed", "bytes": 100_000} and t["max_concurrent"] == 20
               and t["arrival_rate_per_s"] == 0.2 for t in web)
    dt = s.paper002_scenario2("droptail").engine()
    assert {(lk["from"], lk["to"]): lk for lk in dt["links"]}[("B", "C")]["queue_packets"] == 150


def test_friendliness_flows_start_10_ms_apart_on_one_link():
    sc = s.paper003_friendliness(2, 3, variant_m="sack")
    d = sc.engine()
    assert "nodes" not in d      # one link: the engine's legacy form, runnable by every engine
    assert [f.get("start_s", 0.0) for f in d["flows"]] == pytest.approx(
        [0.0, 0.01, 0.02, 0.03, 0.04])
    assert [f["variant"] for f in d["flows"]] == ["new_reno"] * 2 + ["sack"] * 3
    assert sc.flow_labels() == ["n1", "n2", "m1", "m2", "m3"]
    assert all(f["forward"] == [0] and f["reverse"] == [1] for f in d["flows"])


def test_routing_is_fewest_hops_then_lowest_link_index():
    # A -> B directly (link 2) or A -> C -> B (links 0, 1); then a tie A -> D: via B or C,
    # the lower index first (A -> C is link 0).
    net = s.Network(nodes=("A", "B", "C", "D"), links=tuple(
        s.Link(rate_bps=1e6, src=a, dst=b) for a, b in
        [("A", "C"), ("C", "B"), ("A", "B"), ("B", "D"), ("C", "D"), ("D", "A")])).expand()
    assert s.route(net, "A", "B") == [2]
    assert s.route(net, "A", "D") == [0, 4]
    assert s.route(net, "D", "C") == [5, 0]
    assert s.route(net, "B", "C") == [3, 5, 0]
    assert s.route(net, "A", "A") is None


def test_engine_seed_override_and_queue_trace_by_name():
    sc = s.Scenario(topology=s.TwoHop(), trace=s.Tracing(queue=s.QueueTrace("N->D", 1, 2)))
    d = sc.engine(seed=9)
    assert d["seed"] == 9 and d["trace"]["queue"] == {"link": 2, "from_s": 1.0, "to_s": 2.0}


# ---------------------------------------------------------------------------- TOML
@pytest.mark.parametrize("sc", [
    s.Scenario(),
    s.paper002_scenario2("droptail"),
    s.paper002_scenario2("red", variant="newreno", arrival_rate_per_s=1.5, seed=3),
    s.paper003_two_hop(cross_traffic=True),
    s.paper003_friendliness(1, 4, variant_m="vegas"),
    s.Scenario(topology=s.Network(nodes=("X", "Y"), links=(
        s.Link(rate_bps=1e6, src="X", dst="Y", delay=0.01, queue=s.Red(40, gentle=False),
               channel=s.GilbertElliott(0.01, 0.3, advance="transmission")),
        s.Link(rate_bps=1e6, src="Y", dst="X", channel="bernoulli:p=0.1"))),
        flows=(s.Flow(variant="vegas", tcp=s.Tcp(vegas_alpha=2, vegas_beta=4), src="X",
                      dst="Y", app=s.Transfer(10_000), label="a"),
               s.Flow(tcp=s.Tcp(fixed_rto_s=0.5, backoff=False), src="X", dst="Y")),
        traffic=(s.Cbr(rate_bps=1e5, src="X", dst="Y", random=True, stop_s=5.0),),
        seed=2**40, duration_s=12.5, trace=s.Tracing(sends=True)),
    scenario_from_keywords("reno", hops=[{"rate_bps": 1e7, "delay_s": 0.02},
                                         {"rate_bps": 2e6, "delay_s": 0.01, "queue_packets": 8,
                                          "channel": "bernoulli:p=0.005"}]),
    scenario_from_keywords("oldtahoe", delay={"rtt_s": [0.05, 0.1], "H": [[0, 1], [1, 0]],
                                              "excess_mean_s": [0.01, 0.02]}),
])
def test_toml_round_trip(sc):
    text = sc.to_toml("a comment\nover two lines")
    assert text.startswith("# a comment\n# over two lines\n")
    back = s.Scenario.from_toml(text)
    assert back == sc
    assert back.engine() == sc.engine()
    assert tomllib.loads(text) == loads(text)


def test_toml_shorthands_and_tcp_defaults():
    text = """
        duration_s = 30.0
        [topology]
        kind = "single"
        rate_bps = 10e6
        queue = "red:packets=60,min_th=5,max_th=15"
        channel = "bernoulli:p=0.01"
        [tcp]
        packet_size_bytes = 1500
        delayed_ack = true
        [[flows]]
        variant = "sack"
        [[flows]]
        tcp = {window = 64}
        [[traffic]]
        kind = "transfers"
        arrival_rate_per_s = 1.0
        size = 20000
        max_concurrent = 4
    """
    sc = s.Scenario.from_toml(text)
    assert sc.topology.queue == s.Red(60, min_th=5, max_th=15)
    tcp = s.Tcp(packet_size_bytes=1500, delayed_ack=True)
    assert sc.flows == (s.Flow(variant="sack", tcp=tcp),
                        s.Flow(tcp=dataclasses.replace(tcp, window=64)))
    assert sc.traffic[0].tcp == tcp and sc.traffic[0].size == s.FixedSize(20000)
    assert s.Scenario.from_toml(sc.to_toml()) == sc


def test_toml_errors_name_the_key():
    with pytest.raises(ParameterError) as e:
        s.Scenario.from_toml("[topology]\nkind = 'two-hop'\nnd_rate_bps = -5\n")
    assert e.value.name == "topology.nd_rate_bps"
    with pytest.raises(ParameterError, match="valid TOML"):
        s.Scenario.from_toml("seed = = 3")
    with pytest.raises(ParameterError) as e:
        s.Scenario.from_toml("[[flows]]\ntcp = {initial_window = 30}\n")
    assert e.value.name == "flows[0].tcp.initial_window" and "window = 20" in str(e.value)


def test_trace_files_in_a_toml_file_are_relative_to_it(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "t.txt").write_text("0001")
    f = tmp_path / "sub" / "sc.toml"
    f.write_text('[topology]\nkind = "single"\nchannel = "trace:file=t.txt"\n')
    sc = s.Scenario.load(f)
    assert sc.topology.channel.file == str((tmp_path / "sub" / "t.txt").resolve())


def test_the_toml_writer_quotes_what_needs_quoting():
    data = {"a b": "x\"y\\z\n", "n": 3, "f": 1e-05, "t": True, "l": [1, 2.5, "é"],
            "tab": {"k": {"x": 1}}, "arr": [{"p": 1}, {"p": 2}]}
    assert tomllib.loads(dumps(data)) == data


# ------------------------------------------------------------------- shipped examples
@pytest.mark.parametrize(("name", "build"), [
    ("paper002-scenario2.toml", lambda: s.paper002_scenario2("red")),
    ("paper003-two-hop.toml", lambda: s.paper003_two_hop()),
    ("paper003-friendliness.toml", lambda: s.paper003_friendliness()),
])
def test_shipped_examples_are_the_builders(name, build):
    assert s.Scenario.load(EXAMPLES / name) == build()


def test_scenario_is_exported_lazily():
    assert lossytcp.Scenario is s.Scenario
    assert "Scenario" in dir(lossytcp)
    with pytest.raises(AttributeError):
        lossytcp.nonexistent  # noqa: B018


def test_cli_scenario_file_and_overrides(tmp_path):
    f = tmp_path / "sc.toml"
    f.write_text(s.paper003_friendliness(1, 1, duration_s=5.0).to_toml())
    from lossytcp.cli import build_parser
    from lossytcp.cli.simulate import build_scenario_from_args

    p = build_parser("simulate")

    def built(*argv):
        return build_scenario_from_args(p.parse_args(["simulate", "--scenario", str(f), *argv]))

    base = built()
    assert base == s.Scenario.load(f)
    sc = built("--rate", "5Mbps", "--queue", "red:packets=40", "--window", "30",
               "--duration", "2s", "--variant", "sack")
    assert sc.topology.rate_bps == 5e6 and sc.topology.queue == s.Red(40)
    assert all(fl.tcp.window == 30 and fl.variant == "sack" for fl in sc.flows)
    assert sc.flows[0].tcp.packet_size_bytes == 1500     # the file's, kept
    assert sc.duration_s == 2.0
    three = built("--flows", "3")
    assert len(three.all_flows()) == 3
    assert [f.start_s for f in three.all_flows()] == pytest.approx([0, 0.01, 0.02])
    with pytest.raises(ParameterError, match="differs from the file's topology"):
        built("--topology", "dumbbell")
    two = build_scenario_from_args(p.parse_args(["simulate", "--topology", "two-hop",
                                                 "--channel", "bernoulli:p=0.01",
                                                 "--cross-traffic", "cbr:rate=1Mbps"]))
    assert two.topology.channel == s.Bernoulli(0.01)
    assert two.traffic == (s.Cbr(rate_bps=1e6, src="S", dst="N"),)
    with pytest.raises(ParameterError) as e:
        build_scenario_from_args(p.parse_args(["simulate", "--topology", "two-hop",
                                               "--rate", "2Mbps"]))
    assert e.value.name == "rate" and "two-hop" in str(e.value)
    db = build_scenario_from_args(p.parse_args(["simulate", "--topology", "dumbbell",
                                                "--cross-traffic",
                                                "web:arrival=2/s,size=100KB,max=20"]))
    assert len(db.traffic) == 29 and db.traffic[0].src == "A2" and db.traffic[-1].dst == "D30"


def test_cli_multi_flow_json_has_jain_and_flows():
    out = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--flows", "3",
                          "--rate", "1Mbps", "--duration", "20s", "--seeds", "2", "--json"],
                         capture_output=True, text=True, check=True, timeout=120)
    d = json.loads(out.stdout)
    assert set(d["jain_index"]) == {"mean", "ci95"}
    assert 0.9 < d["jain_index"]["mean"] <= 1.0
    assert [f["label"] for f in d["flows"]] == ["newreno1", "newreno2", "newreno3"]
    for f in d["flows"]:
        assert set(f) >= {"goodput_norm", "timeouts", "variant"}
    # Three flows fill the 1 Mb/s link together: each about a third of it.
    assert d["goodput_norm"]["mean"] > 0.9
    assert sum(f["goodput_norm"]["mean"] for f in d["flows"]) == pytest.approx(
        d["goodput_norm"]["mean"], rel=1e-9)
    single = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--duration", "5s",
                             "--seeds", "2", "--json"], capture_output=True, text=True,
                            check=True, timeout=120)
    assert "flows" not in json.loads(single.stdout)      # one flow: today's output


def test_cli_delay_is_papers_001_semi_markov_round_trip_on_either_path(tmp_path):
    # simulate()'s keywords and the typed scenario take the scenario file's spelling through
    # the scenario's own parser; it replaces the round trip (the file's or the default) and
    # --rtt replaces a file's delay, while both at once are refused by name.
    from lossytcp.cli import build_parser
    from lossytcp.cli.simulate import build_scenario_from_args, scenario_from_args
    from lossytcp.sim import run, simulate

    table = "{rtt_s = [0.04, 0.32], H = [[0, 1], [1, 0]], excess_mean_s = [3, 3]}"
    want = s.SemiMarkovDelay(rtt_s=(0.04, 0.32), H=((0, 1), (1, 0)), excess_mean_s=(3, 3))
    p = build_parser("simulate")
    kw = scenario_from_args(p.parse_args(["simulate", "--delay", table, "--duration", "5s"]))
    assert kw["delay"] == want and "rtt_s" not in kw
    typed = build_scenario_from_args(p.parse_args(["simulate", "--topology", "single",
                                                   "--delay", table, "--duration", "5s"]))
    assert typed.topology.delay == want and typed.topology.rtt_s is None
    # Both spellings run the same scenario.
    assert simulate(seed=3, **kw).goodput_norm == run(typed, seed=3).flows[0].goodput_norm
    f = tmp_path / "sc.toml"
    f.write_text(typed.to_toml())
    back = build_scenario_from_args(p.parse_args(["simulate", "--scenario", str(f),
                                                  "--rtt", "30ms"]))
    assert back.topology.delay is None and back.topology.rtt_s == 0.03
    for argv, name in ((["--rtt", "20ms", "--delay", table], "rtt"),
                       (["--delay", "{rtt_s = [0.04], H = [[0, 1]], excess_mean_s = [3]}"],
                        "delay.H"),
                       (["--delay", "rtt_s = 0.04"], "delay")):
        with pytest.raises(ParameterError) as e:
            scenario_from_args(p.parse_args(["simulate", *argv]))
        assert e.value.name == name
