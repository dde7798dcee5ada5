"""Issue 24's promise for the experiment layer and the results commands, held by hypothesis
as tests/test_fuzz.py holds it for simulate(): random and adversarial experiment definitions
(TOML tables and text), run() arguments, stores and ``results`` command lines end in a result
or a ParameterError (on the command line: exit 0 or 2, no traceback), within a time bound;
a definition that passes and plans a handful of runs runs in an in-memory store and returns
exactly its runs; a ``--where`` filter never executes anything.

Plans are kept tiny (a few runs of at most 0.2 simulated seconds) so the bound measures hangs
and unbounded work, not long valid sweeps. LOSSYTCP_FUZZ_SCALE multiplies the number of
examples (1 by default: about a minute in all on two shared cores).
"""

from __future__ import annotations

import json
import os
import string
import time
from pathlib import Path
from typing import Any

import pytest
from _shared import PFTK_OVERLAY
from cli_in_process import run_main
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from lossytcp.errors import ParameterError
from lossytcp.experiments import ExperimentError, from_dict, run, validate
from lossytcp.experiments.spec import MAX_RUNS

pytest.importorskip("lossytcp._sim")


@pytest.fixture(autouse=True, scope="module")
def _in_a_scratch_folder(tmp_path_factory):
    """Relative paths the examples make up (a store named "{p}", an export to ".csv") land in
    a folder of their own, not in the checkout."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(here)

SCALE = float(os.environ.get("LOSSYTCP_FUZZ_SCALE", "1"))
BOUND_S = 20.0


def _settings(n: int) -> settings:
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much,
                                           HealthCheck.function_scoped_fixture])


ODD = [0, -1, 1, 2, 0.5, -0.0, 1e-300, 1e300, 2**64, -(2**63), float("nan"), float("inf"),
       True, False, "", "abc", "{p}", "{nope}", "{p:g}", "{", "}", [], [1], {}, {"log": 1}]
odd = st.sampled_from(ODD)


def maybe(valid: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly valid values (four in five), sometimes odd ones."""
    return st.integers(0, 4).flatmap(lambda i: odd if i == 0 else valid)


_axis_valid = st.one_of(
    st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.05]), min_size=1, max_size=3, unique=True),
    st.fixed_dictionaries({"log": st.tuples(st.floats(1e-4, 0.1), st.floats(1e-4, 0.1))
                           .map(list), "num": st.integers(1, 3)}),
    st.fixed_dictionaries({"linear": st.just([0.0, 0.05]), "num": st.integers(1, 3)}),
    st.fixed_dictionaries({"start": st.just(0.0), "stop": st.just(0.02),
                           "step": st.sampled_from([0.01, 0.02])}),
)
_axis_odd = st.one_of(
    st.fixed_dictionaries({"log": st.tuples(st.floats(-1, 0.1), st.floats(1e-4, 0.1))
                           .map(list), "num": st.integers(-1, 3)}),
    st.fixed_dictionaries({"start": st.just(0.0), "stop": st.sampled_from([1.0, -1.0]),
                           "step": st.sampled_from([1e-12, 0.0, -0.01, 1e-300])}),
    st.fixed_dictionaries({"log": st.just([1e-3, 1e-2]), "num": st.sampled_from(
        [10**7, 2**40])}),
    st.fixed_dictionaries({"start": st.just(0), "stop": st.just(1)}),
    st.lists(st.just(0.01), min_size=2, max_size=2),         # repeated values
    odd,
)

#: Valid simulate() arguments of a tiny run, with placeholders of the axes p and q.
_SCENARIO = {
    "duration_s": st.sampled_from([0.05, 0.1, 0.2]),
    "rate_bps": st.sampled_from([1e5, 1e6, 2e6]),
    "rtt_s": st.sampled_from([0.0, 0.01, 0.05]),
    "window": st.integers(1, 50),
    "channel": st.sampled_from(["bernoulli:p={p}", "ge:alpha={p},beta=0.3", "none",
                                "twostate:good=1s,bad=50ms"]),
    "queue": st.sampled_from(["50", "red:packets=40", "droptail:packets=5,bytes=3kB"]),
    "granularity_s": st.sampled_from([0.0, 0.1]),
}
#: One way to break a definition: (path of keys, odd value).
_BREAKS = st.one_of(
    st.tuples(st.sampled_from([("name",), ("variants",), ("seeds",), ("base_seed",),
                               ("level",), ("metrics",), ("description",), ("sweep",),
                               ("scenario",), ("models",), ("unknown_top",)]), odd),
    st.tuples(st.sampled_from([("scenario", "duration_s"), ("scenario", "channel"),
                               ("scenario", "rate_bps"), ("scenario", "window"),
                               ("scenario", "bogus"), ("sweep", "p"), ("sweep", "unused"),
                               ("sweep", "variant"), ("seeds", "min"), ("seeds", "metric")]),
              st.one_of(odd, _axis_odd, st.sampled_from(
                  ["{nope}", "bernoulli:p={q}", "twostate:good=1s,bad={p}", 10**7,
                   "droptail:packets=5,bytes=0", 100.0, ["sack", "sack"], ["cubic"]]))),
)


@st.composite
def definitions(draw) -> dict[str, Any]:
    """A small valid definition, then (two times in three) one or two fields broken."""
    d: dict[str, Any] = {"name": draw(st.sampled_from(["e", "e-1", "a.b_c"]))}
    d["scenario"] = draw(st.fixed_dictionaries({}, optional=_SCENARIO))
    if "{p}" in str(d["scenario"]) or draw(st.booleans()):
        d["sweep"] = {"p": draw(_axis_valid)}
        if draw(st.integers(0, 3)) == 0:
            d["sweep"]["window"] = draw(st.lists(st.integers(1, 30), min_size=1, max_size=2,
                                                 unique=True))
    if draw(st.booleans()):
        d["variants"] = draw(st.lists(st.sampled_from(["newreno", "sack", "tahoe", "vegas"]),
                                      min_size=1, max_size=2, unique=True))
    if draw(st.booleans()):
        d["seeds"] = draw(st.one_of(st.integers(1, 2), st.fixed_dictionaries(
            {"min": st.just(2), "max": st.integers(2, 3)},
            optional={"rel_halfwidth": st.floats(0.01, 0.5),
                      "metric": st.just("goodput_norm")})))
    for key, strat in (("base_seed", st.integers(0, 10)), ("level", st.just(0.9)),
                       ("metrics", st.lists(st.sampled_from(["goodput_norm", "timeouts"]),
                                            max_size=2, unique=True)),
                       ("description", st.text(max_size=10))):
        if draw(st.integers(0, 3)) == 0:
            d[key] = draw(strat)
    if draw(st.integers(0, 2)) == 0 and "sweep" in d:
        d["models"] = [draw(st.fixed_dictionaries(
            {"name": st.just("mathis"), "params": st.just({"p": "{p}", "rtt_s": 0.05})},
            optional={"label": st.just("m"), "metric": st.just("throughput_pps"),
                      "sim_metric": st.just("goodput_pps"),
                      "variants": st.just(["sack"])}))]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        path, value = draw(_BREAKS)
        if len(path) == 1:
            d[path[0]] = value
        elif isinstance(d.get(path[0]), dict):
            d[path[0]][path[1]] = value
    return d


def _timed(call):
    t0 = time.perf_counter()
    try:
        return call(), None
    except ParameterError as e:        # ExperimentError is one
        assert str(e), "an error without a message"
        return None, e
    finally:
        took = time.perf_counter() - t0
        assert took < BOUND_S, f"took {took:.1f} s"


def _planned(exp) -> int:
    seeds = exp.seeds if isinstance(exp.seeds, int) else exp.seeds.max_seeds
    return len(exp.points()) * seeds


@_settings(150)
@given(d=definitions())
def test_definitions_give_an_experiment_or_an_error_and_small_ones_run(d):
    exp, err = _timed(lambda: from_dict(d, "fuzz.toml"))
    if err is not None:
        event(f"refused: {type(err).__name__}")
        assert isinstance(err, ExperimentError) and "fuzz.toml" in str(err)
        return
    assert _planned(exp) <= MAX_RUNS
    _, err = _timed(lambda: validate(exp))
    if err is not None:
        event("refused by validate")
        return
    if _planned(exp) > 8:
        event("valid, not run (too many runs)")
        return
    res, err = _timed(lambda: run(exp, store=":memory:", workers=0))
    if err is not None:
        event("refused by run")
        return
    event("ran")
    df = res.runs()
    # points whose scenarios coincide (an axis only a model uses) share their runs
    assert res.planned == len(df) and res.computed == len(res._keys) <= res.planned
    assert set(df["key"]) == res._keys
    summ = res.summary()
    assert int(summ["n"].sum()) == res.planned


_TEXTS = st.one_of(
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.text(max_size=200),
    st.lists(st.sampled_from(['name = "t"', "[scenario]", "duration_s = 0.1", "[sweep]",
                              "p = [0.01]", 'channel = "bernoulli:p={p}"', "seeds = 1",
                              "[[models]]", 'name = "mathis"', "x = ", "= 1", "[scenario",
                              '"\\', "\x00"]),
             max_size=10).map("\n".join),
)


@_settings(100)
@given(text=_TEXTS, binary=st.booleans())
def test_experiment_files_load_or_are_refused(tmp_path_factory, text, binary):
    from lossytcp.experiments import load

    p = tmp_path_factory.mktemp("f") / "e.toml"
    if binary:
        p.write_bytes(text.encode("utf-8", "surrogatepass") + b"\xff\xfe")
    else:
        p.write_text(text, encoding="utf-8", errors="surrogatepass")
    exp, err = _timed(lambda: load(p))
    if err is not None:
        assert str(p) in str(err)


@_settings(60)
@given(store=st.one_of(st.none(), st.just(":memory:"), odd, st.just(Path("/"))),
       workers=st.one_of(st.none(), st.integers(-2, 1), odd),
       dask=st.one_of(st.none(), st.sampled_from(["local", "nowhere", ""]), odd),
       progress=st.sampled_from([None, "x", 1, print, lambda a: None, lambda a, b: None]),
       replace=st.one_of(st.booleans(), odd))
def test_run_arguments_give_a_result_or_an_error(store, workers, dask, progress, replace):
    from lossytcp.experiments import Experiment

    assume(not (dask == "local" and workers != 0))      # a LocalCluster per example: slow
    exp = Experiment(name="args", scenario=dict(duration_s=0.05), variants=["sack"], seeds=1)
    res, err = _timed(lambda: run(exp, store=store, workers=workers, dask=dask,
                                  progress=progress, replace=replace))
    event("result" if err is None else f"refused: {getattr(err, 'name', '?')}")
    if err is None:
        assert len(res.runs()) == 1


# ---------------------------------------------------------------------- results commands
_main = run_main


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("store")
    (root / "e.toml").write_text("""
name = "fz"
variants = ["tahoe", "sack"]
seeds = 2
[scenario]
duration_s = 0.5
channel = "bernoulli:p={p}"
[sweep]
p = [0.01, 0.05]
""" + PFTK_OVERLAY)
    code, _, err = _main(["run", str(root / "e.toml"), "--store", str(root / "s.sqlite"),
                          "--workers", "0"])
    assert code == 0, err
    return root


_COLUMNS = ["p", "variant", "seed", "goodput_norm", "timeouts", "`pftk: throughput_pps`",
            "nope", "__class__", "key"]
_LITERALS = ["0", "1", "0.01", "-1", "'sack'", '"tahoe"', "True", "None", "1e309", "[1, 2]",
             "('sack',)", "nan"]
_OPS = ["==", "!=", "<", "<=", ">", ">=", " in ", " not in ", " is ", "+", "*", "@", "."]


@st.composite
def filters(draw, depth: int = 0) -> str:
    kind = draw(st.integers(0, 6 if depth < 2 else 2))
    if kind <= 2:
        return (draw(st.sampled_from(_COLUMNS)) + draw(st.sampled_from(_OPS))
                + draw(st.sampled_from(_LITERALS + _COLUMNS)))
    if kind == 3:
        return f"not ({draw(filters(depth + 1))})"
    if kind == 4:
        op = draw(st.sampled_from([" and ", " or ", " & ", " | "]))
        return draw(filters(depth + 1)) + op + draw(filters(depth + 1))
    if kind == 5:
        return draw(st.sampled_from(["@pd.io.common.os.system('touch PWNED')",
                                     "__import__('os').system('touch PWNED')",
                                     "p.__class__.__mro__", "variant[0] == 's'",
                                     "(lambda: 1)()", "open('PWNED', 'w')", "seed",
                                     "`unterminated", "p < < 1", ""]))
    return draw(st.text(alphabet=string.printable, max_size=30))


@_settings(200)
@given(where=filters())
def test_where_filters_exit_0_or_2_and_execute_nothing(store, where):
    code, out, err = _main(["results", "show", "fz", "--store", str(store / "s.sqlite"),
                            "--runs", "--json", "--where", where])
    event(f"exit {code}")
    assert code in (0, 2), err
    if code == 0:
        rows = json.loads(out)
        assert len(rows) <= 8
    assert not (store / "PWNED").exists() and not Path("PWNED").exists()


@st.composite
def results_argv(draw) -> list[str]:
    """A ``results`` command line: mostly well formed, with odd names, metrics, filters and
    output paths (a directory, a missing place), sometimes a stray argument."""
    action = draw(st.sampled_from(["list", "show", "show", "export", "export"]
                                  + (["nope"] if draw(st.integers(0, 9)) == 0 else [])))
    argv = [action]
    if action != "list":
        argv.append(draw(st.sampled_from(["fz"] * 6 + ["nope", "", "--json"])))
    opts = ["--runs", "--json", "--metric", "--where", "--csv", "--parquet"]
    if draw(st.integers(0, 9)) == 0:
        opts.append("--bogus")
    for opt in draw(st.lists(st.sampled_from(opts), max_size=4, unique=True)):
        argv.append(opt)
        if opt == "--metric":
            argv.append(draw(st.sampled_from(["goodput_norm", "timeouts", "nonexistent"])))
        elif opt == "--where":
            argv.append(draw(st.one_of(filters(), st.sampled_from(
                ["variant == 'sack'", "p < 0.02 and seed in [1, 2]", "not seed == 1",
                 "`pftk: throughput_pps` > 0 or variant != 'sack'"]))))
        elif opt in ("--csv", "--parquet"):
            where = draw(st.sampled_from(["OUT", "OUT", ".", "MISSING/x"]))
            argv.append(where if where == "." else where + opt[2:])
    if action == "export" and draw(st.booleans()):
        argv += ["--csv", "OUTcsv"]
    return argv


@_settings(120)
@given(argv=results_argv(), store_kind=st.sampled_from(["STORE"] * 4 + ["/", "MISSING"]))
def test_results_command_lines_exit_0_or_2(store, tmp_path_factory, argv, store_kind):
    out_dir = tmp_path_factory.mktemp("out")
    subs = {"STORE": str(store / "s.sqlite"), "MISSING": str(out_dir / "missing.sqlite"),
            "/": "/"}
    argv = ["results", *[a.replace("OUT", str(out_dir / "o.")).replace(
        "MISSING", str(out_dir / "missing")) for a in argv], "--store", subs[store_kind]]
    t0 = time.perf_counter()
    code, _, err = _main(argv)
    assert time.perf_counter() - t0 < BOUND_S
    event(f"exit {code}")
    assert code in (0, 2), (argv, err)


@_settings(60)
@given(content=st.one_of(st.binary(max_size=300), st.just(b""),
                         st.just(b"SQLite format 3\x00" + b"\x00" * 100)))
def test_any_file_as_a_store_is_read_or_refused(tmp_path_factory, content):
    p = tmp_path_factory.mktemp("s") / "s.sqlite"
    p.write_bytes(content)
    for argv in (["results", "list"], ["results", "show", "fz"]):
        code, _, err = _main([*argv, "--store", str(p)])
        assert code in (0, 2), err
