"""Experiment files: expansion, templates, and errors naming the file, the key and what is
valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from lossytcp.experiments import Experiment, ExperimentError, ModelOverlay, load, logrange
from lossytcp.experiments.spec import grid, linrange

GOOD = """
name = "t"
variants = ["tahoe", "sack"]
seeds = 2
[scenario]
duration_s = 5
channel = "ge:alpha={alpha},beta=0.2,advance=slot"
[sweep]
alpha = {log = [1e-3, 1e-2], num = 3}
window = [10, 20]
[[models]]
name = "packet-train"
params = {alpha = "{alpha}", beta = 0.2, rate_bps = 2e6, rtt_s = 0.02, packet_size_bytes = 500}
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "exp.toml"
    p.write_text(text)
    return p


def test_good_file_expands_to_points_and_runs(tmp_path):
    exp = load(_write(tmp_path, GOOD))
    pts = exp.points()
    assert len(pts) == 2 * 3 * 2
    spec = exp.run_spec(pts[0], 1)
    assert spec.scenario["flows"][0]["tcp"]["max_window"] == 10      # axis named a parameter
    assert spec.scenario["links"][0]["channel"]["alpha"] == 0.001    # template filled
    assert exp.model_params(exp.models[0], pts[0])["variant"] == "tahoe"
    # the key is a function of the scenario: same point and seed, same key
    assert exp.run_spec(pts[0], 1).key == spec.key != exp.run_spec(pts[0], 2).key


def test_ranges_are_inclusive_and_reproducible():
    assert logrange(1e-3, 1e-1, 3) == [0.001, 0.01, 0.1]
    assert linrange(0, 1, 5) == [0, 0.25, 0.5, 0.75, 1.0]
    assert grid(0.1, 0.5, 0.1) == [0.1, 0.2, 0.3, 0.4, 0.5]


@pytest.mark.parametrize("edit, key, valid", [
    (("seeds = 2", "seeds = 0"), "seeds", "integer in [1, 1000000]"),
    (("seeds = 2", "seeds = {min = 3, max = 2}"), "seeds.max", ">= min_seeds"),
    (("seeds = 2", "seeds = {minimum = 3}"), "seeds.minimum", "valid: min, max"),
    (('variants = ["tahoe", "sack"]', 'variants = ["tahoe", "hybla"]'), "variants[1]",
     "oldtahoe, tahoe, reno, newreno, sack, vegas"),
    (("duration_s = 5", "duraton_s = 5"), "scenario.duraton_s", "duration_s"),
    (("duration_s = 5", "duration_s = -5"), "scenario.duration_s", "> 0"),
    (("num = 3", "num = 0"), "sweep.alpha.num", "integer >= 1"),
    (("{log = [1e-3, 1e-2], num = 3}", "{log = [1e-3, 1e-2], n = 3}"), "sweep.alpha.n",
     "takes log, num"),
    (("window = [10, 20]", "window = 10"), "sweep.window", "list of values or a range"),
    (("beta=0.2,advance", "beta={beta},advance"), "scenario.channel", "the axes are"),
    (('name = "packet-train"', 'name = "packet-trains"'), "models[0].name", "packet-train"),
    (("rtt_s = 0.02,", "rtt_s = -1,"), "models[0].params.rtt_s", "> 0"),
    (('name = "t"', 'name = "t"\ncolour = 1'), "colour", "valid keys: name"),
    (("[sweep]", "[sweep\n"), "(syntax)", "not valid TOML"),
])
def test_malformed_files_name_file_key_and_valid_values(tmp_path, edit, key, valid):
    old, new = edit
    assert old in GOOD
    p = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ExperimentError) as e:
        load(p)
    msg = str(e.value)
    assert str(p) in msg and f"'{key}'" in msg and valid in msg, msg


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ExperimentError, match="cannot be read"):
        load(tmp_path / "nope.toml")


def test_python_objects_take_functions_of_the_point():
    exp = Experiment(name="f", scenario=lambda p: dict(duration_s=1, window=2 * p["k"]),
                     sweep={"k": [3, 4]},
                     models=[ModelOverlay("mathis", params=lambda p: dict(rtt_s=0.1, p=0.01))])
    pts = exp.points()
    assert exp.run_spec(pts[1], 1).scenario["flows"][0]["tcp"]["max_window"] == 8
    with pytest.raises(ExperimentError, match="scenario.seed"):
        Experiment(name="g", scenario={"seed": 3, "duration_s": 1}).run_spec(
            Experiment(name="g", scenario={}).points()[0], 1)


def test_a_whole_engine_scenario_runs_as_given_with_each_seed(tmp_path):
    # the shape paper 002's scenario II and paper 003 will need: the engine's own JSON
    # scenario (here two hops built by build_scenario) instead of simulate() arguments
    import lossytcp
    from lossytcp.experiments import run
    from lossytcp.experiments.executors import Serial

    def scenario(p):
        sc = lossytcp.build_scenario("sack", duration_s=10, hops=[
            {"rate_bps": 5e6, "delay_s": 0.01},
            {"rate_bps": p["rate_bps"], "delay_s": 0.02,
             "channel": "bernoulli:p=0.01"}])
        return {"engine_scenario": sc}
    exp = Experiment(name="raw", scenario=scenario, sweep={"rate_bps": [1e6, 2e6]},
                     variants=["sack"], seeds=2)
    with Serial() as ex:
        res = run(exp, store=tmp_path / "s.sqlite", executor=ex)
    df = res.store.runs("raw", reports=True)
    assert len(df) == 4 and sorted(df["seed"]) == [1, 1, 2, 2]
    assert all(len(r["links"]) == 4 for r in df["report"])
    one = lossytcp.simulate("sack", duration_s=10, seed=2, hops=[
        {"rate_bps": 5e6, "delay_s": 0.01},
        {"rate_bps": 2e6, "delay_s": 0.02, "channel": "bernoulli:p=0.01"}])
    row = df[(df["seed"] == 2) & (df["rate_bps"] == 2e6)].iloc[0]
    assert row["packets_delivered"] == one.packets_delivered
    with pytest.raises(ExperimentError, match="cannot be combined"):
        Experiment(name="bad", scenario=lambda p: {"engine_scenario": {}, "window": 3}
                   ).run_spec(Experiment(name="x", scenario={}).points()[0], 1)
