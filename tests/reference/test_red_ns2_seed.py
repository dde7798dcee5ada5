"""RED's ``ns2_seed`` at the Python boundary (``lossytcp.scenario.Red``, the ``red:`` spec):
validation, the engine scenario it gives, and RED's drop sequence paired with ns-2's."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path

import network_cases as nc
import pytest
from make_network import flow_sends

from lossytcp import _sim, simulate, simulate_seeds
from lossytcp.errors import ParameterError
from lossytcp.experiments import Experiment
from lossytcp.ns2 import Ns2Unsupported, ns2_seed
from lossytcp.ns2.network import build_network_script, run_network
from lossytcp.scenario import NS2_SEED_MAX, Red
from lossytcp.sim import scenario_from_keywords
from lossytcp.spec import queue_from_spec

needs_ns = pytest.mark.skipif(shutil.which("ns") is None,
                              reason="ns-2 (Debian package ns2) not installed")
CLASSIC = ("red:packets=100,min_th=5,max_th=15,max_p=0.1,w_q=0.002,bytes=false,"
           "queue_in_bytes=false,gentle=false")


@pytest.mark.parametrize("bad", [0, -1, NS2_SEED_MAX + 1, 2**32, 1.5, True, "walk", "1e3",
                                 [1]])
def test_a_bad_ns2_seed_is_refused_by_name_with_its_range(bad: object) -> None:
    with pytest.raises(ParameterError) as e:
        Red(packets=100, ns2_seed=bad)  # type: ignore[arg-type]
    assert e.value.name == "ns2_seed" and e.value.value == bad
    assert f"[1, {NS2_SEED_MAX}] or 'run'" in str(e.value)


def test_the_spec_and_simulate_name_the_parameter_where_it_was_given() -> None:
    with pytest.raises(ParameterError, match=r"'queue\.ns2_seed' = 0 .*\[1, 2147483646\]"):
        queue_from_spec("red:packets=100,ns2_seed=0")
    with pytest.raises(ParameterError, match=r"'queue\.ns2_seed' = 'x'"):
        simulate(queue="red:packets=100,ns2_seed=x", duration_s=1.0)
    assert queue_from_spec("red:packets=100,ns2_seed=run").ns2_seed == "run"
    assert queue_from_spec(f"red:packets=100,ns2_seed={NS2_SEED_MAX}").ns2_seed == NS2_SEED_MAX


def test_the_engine_scenario_carries_it_and_run_takes_each_runs_seed() -> None:
    for seed in (1, 2, 2**64 - 1):
        sc = scenario_from_keywords(queue="red:packets=100,ns2_seed=run", seed=seed)
        assert sc.engine()["links"][0]["queue"]["ns2_seed"] == ns2_seed(seed)
        assert sc.engine(seed=5)["links"][0]["queue"]["ns2_seed"] == ns2_seed(5)
        fixed = scenario_from_keywords(queue="red:packets=100,ns2_seed=77", seed=seed)
        assert fixed.engine()["links"][0]["queue"]["ns2_seed"] == 77
    assert "ns2_seed" not in scenario_from_keywords(
        queue="red:packets=100").engine()["links"][0]["queue"]
    assert Red(packets=100, ns2_seed=9).to_dict()["ns2_seed"] == 9


def test_a_fixed_seed_gives_every_run_the_same_drops_and_run_does_not() -> None:
    # RED's draws are the only random thing on this path (no channel, one flow)
    kw = dict(rate_bps=10e6, rtt_s=0.1, window=1000, packet_size_bytes=1500,
              duration_s=30.0, profile="ns2", granularity_s=0.01, initial_rto_s=3.0)
    drops = {q: [simulate("newreno", queue=f"{CLASSIC},ns2_seed={q}", seed=s, **kw).queue_drops
                 for s in (1, 2, 3)] for q in ("4242", "run")}
    assert len(set(drops["4242"])) == 1 and drops["4242"][0] > 20
    assert len(set(drops["run"])) > 1


def _paired(variant: str, spec: str) -> tuple[list, list, dict, dict]:
    q = queue_from_spec(spec).engine_fields()["queue"]
    sc = nc.exact_path(q, variant, [0.0], duration_s=20.0, seed=7)
    with tempfile.TemporaryDirectory() as wd:
        tr = Path(wd) / "link.tr"
        ns = run_network(sc, monitor_links=[0], red_sample_s=None, trace_file=str(tr))
        ns_sends = [x for x in flow_sends(tr.read_text())[0] if x[0] < 20.0]
    rep = json.loads(_sim.run_json(json.dumps({**sc, "trace": {"sends": True}})))
    # ns-2's trace prints times to the microsecond, rounding halves up
    eng_sends = [(math.floor(t * 1e6 + 0.5) / 1e6, int(s), bool(x))
                 for t, s, x in rep["flows"][0]["send_trace"] if t < 20.0]
    return ns_sends, eng_sends, ns.links[0], rep["links"][0]


@needs_ns
@pytest.mark.parametrize("variant", ["newreno", "sack"])
def test_red_with_ns2_seed_drops_what_ns2_drops(variant: str) -> None:
    # The exact path (times exact in binary and in nanoseconds, one flow: the agent's tick
    # phase is the engine's default), RED in packet mode given ns2_seed=4242 at the Python
    # boundary: the ns-2 script reseeds its default RNG with 4242, the engine draws RED's
    # uniforms from MRG32k3a seeded so. Every send and drop is ns-2's.
    ns_sends, eng_sends, ns_link, eng_link = _paired(variant, f"{CLASSIC},ns2_seed=4242")
    assert eng_sends == ns_sends
    assert ns_link["early_drops"] > 50
    assert eng_link["early_drops"] == ns_link["early_drops"]
    assert eng_link["forced_drops"] == ns_link["forced_drops"]
    # Control: the engine's own stream, the same path, parts from ns-2.
    ns_sends, eng_sends, *_ = _paired(variant, CLASSIC)
    assert eng_sends != ns_sends


def test_ns2_scripts_seed_their_one_generator_with_it() -> None:
    sc = nc.exact_path(queue_from_spec(f"{CLASSIC},ns2_seed=4242").engine_fields()["queue"],
                       "newreno", [0.0])
    assert '$ns at 0.0 "$defaultRNG seed 4242"' in build_network_script(sc).text
    plain = nc.exact_path(queue_from_spec(CLASSIC).engine_fields()["queue"], "newreno", [0.0])
    assert (f'$ns at 0.0 "$defaultRNG seed {ns2_seed(1)}"'
            in build_network_script(plain).text)
    # ns-2 has one default RNG: two RED queues cannot draw from two seeds there
    two = nc.red_dumbbell("classic", 1)
    for i, s in ((0, 5), (1, 6)):
        two["links"][i]["queue"] = {**two["links"][i]["queue"], "kind": "red", "ns2_seed": s}
    with pytest.raises(Ns2Unsupported, match=r"links\[1\]\.queue\.ns2_seed"):
        build_network_script(two)


def test_seed_sweeps_give_each_seed_its_own_ns2_draws() -> None:
    # simulate_seeds and the experiments' per-point cache used to build a scenario once and
    # change only its "seed": "run" would have kept the first seed's ns-2 seed for all.
    kw = dict(rate_bps=10e6, rtt_s=0.1, window=1000, packet_size_bytes=1500,
              duration_s=20.0, profile="ns2", granularity_s=0.01, initial_rto_s=3.0)
    q = f"{CLASSIC},ns2_seed=run"
    swept = simulate_seeds([1, 2, 3], "newreno", queue=q, threads=1, **kw).values("queue_drops")
    alone = [simulate("newreno", queue=q, seed=s, **kw).queue_drops for s in (1, 2, 3)]
    assert list(swept) == alone and len(set(alone)) > 1
    exp = Experiment(name="red", scenario={"queue": q, "duration_s": 1.0})
    point, cache = exp.points()[0], {}
    for s in (1, 2, 1):
        sc = exp.run_spec(point, s, cache).scenario
        assert sc["links"][0]["queue"]["ns2_seed"] == ns2_seed(s)
    # an engine scenario given whole may say "run" too
    raw = scenario_from_keywords(queue=q).engine()
    raw["links"][0]["queue"]["ns2_seed"] = "run"
    rexp = Experiment(name="raw", scenario={"engine_scenario": raw})
    for s in (4, 5):
        sc = rexp.run_spec(rexp.points()[0], s, {}).scenario
        assert sc["links"][0]["queue"]["ns2_seed"] == ns2_seed(s)
