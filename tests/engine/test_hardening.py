"""Issue 13's cases, each a regression test: every input ends in a result or a clear error
(a ParameterError naming parameter, value and range; on the command line exit code 2 and no
traceback), quickly; nothing hangs; nonsense is refused, not silently accepted."""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
import time

import pytest

import lossytcp
from lossytcp import ParameterError, models, simulate, simulate_seeds, units
from lossytcp.cli import main
from lossytcp.sim import _engine_run, build_scenario

pytest.importorskip("lossytcp._sim")


def _cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lossytcp", *argv], capture_output=True,
                          text=True, timeout=timeout)


def _refused(r: subprocess.CompletedProcess, fragment: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert fragment in r.stderr, r.stderr


# ------------------------------------------------------------------------------ hangs
@pytest.mark.parametrize(("kwargs", "name", "fragment"), [
    # Zero-RTT livelock: a 1-byte packet at 20 Gb/s takes 0.4 ns, below the 1 ns clock.
    (dict(rate_bps=2e10, packet_size_bytes=1, ack_size_bytes=0, rtt_s=0, duration_s=0.001),
     "rate_bps", "1 ns"),
    (dict(rate_bps=1e300, rtt_s=0), "rate_bps", "1 ns"),
    (dict(channel="twostate:good=1ns,bad=1ns", duration_s=10), "channel.good_s",
     "one packet time"),
    (dict(slot_model=True, fixed_rto_s=1e-9), "fixed_rto_s", "one packet's transmission"),
    (dict(min_rto_s=0, initial_rto_s=1e-9, channel="bernoulli:p=0.5", duration_s=10),
     "initial_rto_s", "one packet's transmission"),
    (dict(max_rto_s=1e-9, min_rto_s=0, initial_rto_s=1e-9), "initial_rto_s", ">= 0.002"),
    (dict(duration_s=1e12), "duration_s", "at most 1e+09"),
    (dict(rtt_s=1e300), "rtt_s", "at most 1e+09"),
    (dict(rate_bps=0.5), "rate_bps", ">= 1 bit/s"),
])
def test_physical_floors_are_refused_before_the_run(kwargs, name, fragment):
    t = time.perf_counter()
    with pytest.raises(ParameterError) as e:
        simulate("newreno", **kwargs)
    assert time.perf_counter() - t < 2
    assert e.value.name == name, str(e.value)
    assert fragment in str(e.value)


def test_a_packet_of_one_nanosecond_still_runs():
    # At the floor: 1 B at 8 Gb/s is 1 ns; no delays; 100 µs of it is ~10^5 packets.
    r = simulate("newreno", rate_bps=8e9, packet_size_bytes=1, ack_size_bytes=0, rtt_s=0,
                 duration_s=1e-4, initial_rto_s=1e-3, min_rto_s=0)
    assert r.packets_delivered > 90_000


def test_the_engine_refuses_what_the_floors_refuse():
    """Past Python's floors (an engine scenario written by hand), the engine's own checks
    hold the same ranges (issue 24): the zero-time livelock of issue 13 is refused before it
    runs. The Zeno guard behind them, which ends a run making no progress in simulated time,
    is tested in Rust (sim.rs: a_loop_in_zero_time_trips_the_zeno_guard)."""
    sc = build_scenario("reno", duration_s=0.001)
    for lk in sc["links"]:
        lk["rate_bps"] = 1e300
        lk["delay"] = {"kind": "fixed", "delay_s": 0.0}
    sc["flows"][0]["tcp"].update(packet_size_bytes=1, ack_size_bytes=0)
    t = time.perf_counter()
    with pytest.raises(ParameterError, match="1 ns"):
        _engine_run(sc)
    assert time.perf_counter() - t < 2


def test_a_large_trace_file_costs_bytes_not_lists(tmp_path):
    """A 50 MB trace (issue 13: 100 MB took 4.8 GB and 27 s as a list of bools through
    JSON) is checked in chunks by Python and read packed by the engine."""
    f = tmp_path / "big.txt"
    line = ("0" * 99 + "1\n").encode()
    with open(f, "wb") as out:
        for _ in range(50):
            out.write(line * 10_000)        # 1 MB a block
    # The child's own peak (VmHWM): its ru_maxrss would start from the forking worker's.
    code = (f"import lossytcp, re, time; t = time.perf_counter(); "
            f"r = lossytcp.simulate('reno', channel='trace:file={f}', duration_s=20); "
            f"hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()); "
            f"print(r.channel_losses, r.packets_sent, time.perf_counter() - t, hwm.group(1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    lost, sent, wall, rss_kb = int(out[0]), int(out[1]), float(out[2]), int(out[3])
    # One loss per 100 transmissions, in order: exactly sent // 100 of them.
    assert lost == sent // 100
    # 50 MB of trace: 6 MB packed (+ the interpreter). The time it takes (3.7 s for 100 MB,
    # was 27 s) is measured, not asserted: a timed test fails on a loaded machine.
    assert rss_kb < 200_000, (rss_kb, wall)


def test_a_trace_wraps_around_when_it_runs_out(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("1" + "0" * 9)               # 10 outcomes: the first lost
    r = simulate("reno", channel=f"trace:file={f}", duration_s=10)
    assert r.packets_sent > 100
    assert r.channel_losses == math.ceil(r.packets_sent / 10)


def test_seeds_are_streamed_not_built_up_front():
    """simulate_seeds(10**7) starts at once (it built every scenario first); stopped from
    its progress callback after three runs, it has run only a handful."""
    class Enough(Exception):
        pass

    def stop(done: float, total: int) -> None:
        assert total == 10**7
        if done >= 3:
            raise Enough

    t = time.perf_counter()
    with pytest.raises(Enough):
        simulate_seeds(10**7, duration_s=0.01, threads=2, progress=stop)
    assert time.perf_counter() - t < 10


# ------------------------------------------------------------------- bare tracebacks
@pytest.mark.parametrize(("argv", "fragment"), [
    (["simulate", "--transfer", "1e30B"], "transfer"),
    (["simulate", "--channel", "drops:seq=99999999999999999999999"], "channel.seqs[0]"),
    (["simulate", "--packet-size", "1e400B"], "finite"),
    (["simulate", "--seeds", "0"], "'seeds' = 0"),
    (["simulate", "--duration", "1e12s"], "duration_s"),
    (["simulate", "--flows", "0"], "'flows' = 0"),
    (["simulate", "--queue", "red:packets=10,min_th=9,max_th=3"], "queue.max_th"),
    (["simulate", "--cross-traffic", "web:arrival=2/s"], "needs size"),
    (["simulate", "--scenario", "/nonexistent/x.toml"], "readable TOML"),
])
def test_command_line_errors_exit_2_without_traceback(argv, fragment):
    _refused(_cli(*argv, "--duration" if "--duration" not in argv else "--json", *(
        ["1s"] if "--duration" not in argv else [])), fragment)


def test_a_trace_file_of_bad_bytes_names_the_offset(tmp_path):
    f = tmp_path / "t.bin"
    f.write_bytes(b"0101\xff\xfe")
    with pytest.raises(ParameterError) as e:
        simulate("reno", channel=f"trace:file={f}")
    assert e.value.name == "channel.file" and "0xff at offset 4" in str(e.value)
    _refused(_cli("simulate", "--channel", f"trace:file={f}"), "offset 4")


@pytest.mark.parametrize(("call", "name"), [
    (lambda: simulate_seeds(5.0), "seeds"),
    (lambda: simulate_seeds(None), "seeds"),
    (lambda: simulate_seeds("5"), "seeds"),
    (lambda: simulate_seeds([1, 1]), "seeds"),
    (lambda: simulate_seeds([]), "seeds"),
    (lambda: simulate_seeds([1, -2]), "seeds[1]"),
    (lambda: simulate_seeds(3, threads=-1), "threads"),
    (lambda: simulate_seeds(3, threads=2.5), "threads"),
    (lambda: simulate_seeds(3, progress=5), "progress"),
    (lambda: simulate_seeds(3, seed=7), "seed"),
    (lambda: simulate("reno", channel={"kind": "bernoulli", "p": 7}), "channel.p"),
    (lambda: simulate("reno", channel={"kind": "gilbert_elliott", "alpha": 0.1}), "channel"),
    (lambda: simulate("reno", channel={"kind": "bernoulli", "p": 0.1, "q": 1}), "channel.q"),
    (lambda: models.evaluate("mathis", rtt_s=0.1), "p"),
    (lambda: models.sweep("mathis", dict(rtt_s=0.1), p=0.01), "p"),
    (lambda: models.sweep("mathis", dict(rtt_s=0.1, p=0.01), p=[0.01]), "p"),
])
def test_api_errors_are_parameter_errors(call, name):
    with pytest.raises(ParameterError) as e:
        call()
    assert e.value.name == name, str(e.value)


def test_model_functions_missing_an_argument():
    from lossytcp.models.abrupt_rtt import abrupt_rtt
    from lossytcp.models.mathis import MathisParams, mathis

    for call in (lambda: abrupt_rtt(rate_pps=1000.0), lambda: mathis(rtt_s=0.1),
                 lambda: MathisParams(0.1), lambda: MathisParams(rtt_s=0.1, p=0.1, x=1),
                 lambda: MathisParams(0.1, rtt_s=0.1, p=0.1)):
        with pytest.raises(ParameterError):
            call()
    # Valid calls are untouched, positionally too.
    assert MathisParams(0.1, 0.01) == MathisParams(rtt_s=0.1, p=0.01)


# ---------------------------------------------------------------- nonsense refused
@pytest.mark.parametrize("name", ["backoff", "delayed_ack", "protect_retransmissions",
                                  "slot_model", "trace_sends", "trace_window"])
@pytest.mark.parametrize("bad", ["no", "yes", 1, 0, None.__class__])
def test_switches_must_be_booleans(name, bad):
    if name == "backoff" and bad is None.__class__:
        pytest.skip("None is backoff's 'default'")
    with pytest.raises(ParameterError) as e:
        build_scenario("reno", **{name: bad})
    assert e.value.name == name


def test_backoff_no_is_not_backoff_on():
    # "no" was truthy and turned back-off ON; False still switches it off.
    assert build_scenario("reno", backoff=False)["flows"][0]["tcp"]["max_backoff"] == 1
    assert build_scenario("reno")["flows"][0]["tcp"]["max_backoff"] == 64


@pytest.mark.parametrize("spec", ["bernoulli:p=0.1,p=0.9", "ge:alpha=0.1,beta=0.2,alpha=0.3",
                                  "twostate:good=1s,bad=1s,GOOD=2s"])
def test_repeated_spec_keys_are_refused(spec):
    with pytest.raises(ParameterError, match="twice"):
        simulate("reno", channel=spec)


@pytest.mark.parametrize(("text", "parse", "value"), [
    ("2Mbps", units.rate_bps, 2e6), ("2MBps", units.rate_bps, 16e6),
    ("2MB/s", units.rate_bps, 16e6), ("1.5Gbit/s", units.rate_bps, 1.5e9),
    ("64Kbps", units.rate_bps, 64e3), ("1Mibps", units.rate_bps, 1048576.0),
    ("500B", units.size_bytes, 500), ("1.5kB", units.size_bytes, 1500),
    ("100KB", units.size_bytes, 100_000), ("64KiB", units.size_bytes, 65536),
    ("20ms", units.time_s, 0.02), ("2min", units.time_s, 120), ("5us", units.time_s, 5e-6),
    ("0", units.time_s, 0.0), ("2/s", units.per_s, 2.0), ("30/min", units.per_s, 0.5),
])
def test_units_are_exact(text, parse, value):
    assert parse(text) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize(("text", "parse", "fragment"), [
    ("500b", units.size_bytes, "'b' is bits"),
    ("2mbps", units.rate_bps, "'m' is milli"),
    ("20", units.time_s, "needs a unit"),
    ("5m", units.time_s, "'min'"),
    ("2 furlongs", units.rate_bps, "unknown unit"),
    ("inf", units.rate_bps, "number with a unit"),
    ("1e400s", units.time_s, "finite"),
    (2e6, units.rate_bps, "text with a unit"),
])
def test_ambiguous_units_are_refused(text, parse, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse(text)


def test_non_integer_sizes_are_refused_not_truncated():
    _refused(_cli("simulate", "--packet-size", "500.7B", "--duration", "1s"),
             "'packet-size' = 500.7")
    _refused(_cli("simulate", "--rtt", "20", "--duration", "1s"), "needs a unit")
    _refused(_cli("simulate", "--packet-size", "500b", "--duration", "1s"), "bits")


def test_the_api_takes_numbers_not_unit_strings():
    with pytest.raises(ParameterError, match="lossytcp.units.rate_bps") as e:
        simulate("reno", rate_bps="2 Mbps")
    assert e.value.name == "rate_bps"
    with pytest.raises(ParameterError):
        simulate("reno", rtt_s="0.02")     # a number in a string is text too


def test_seed_and_seeds_together_are_refused():
    r = _cli("simulate", "--seed", "3", "--seeds", "10", "--duration", "1s")
    assert r.returncode == 2 and "not allowed with" in r.stderr


@pytest.mark.parametrize(("kwargs", "name", "fragment"), [
    (dict(fixed_rto_s=0.1, min_rto_s=0.2), "min_rto_s", "does not apply"),
    (dict(fixed_rto_s=0.5, initial_rto_s=1.0), "initial_rto_s", "does not apply"),
    (dict(fixed_rto_s=100.0, max_rto_s=60.0), "fixed_rto_s", "<= max_rto_s"),
    (dict(min_rto_s=0.5, initial_rto_s=0.3), "initial_rto_s", ">= min_rto_s = 0.5"),
    (dict(min_rto_s=2.0), "initial_rto_s", "(the default)"),
    (dict(delay={"rtt_s": [0.1], "H": [[1]], "excess_mean_s": [0]}, rtt_s=0.1), "delay",
     "rtt_s"),
    (dict(slot_model=True, fixed_rto_s=0.5, rtt_s=0.05), "slot_model", "rtt_s"),
    (dict(initial_window=30, window=20), "initial_window", "<= window = 20"),
])
def test_contradictions_are_refused(kwargs, name, fragment):
    with pytest.raises(ParameterError) as e:
        build_scenario("reno", **kwargs)
    assert e.value.name == name, str(e.value)
    assert fragment in str(e.value)


def test_a_fixed_rto_below_the_default_minimum_is_fine():
    # The minimum applies to the estimator, which a fixed RTO replaces.
    tcp = build_scenario("reno", fixed_rto_s=0.05)["flows"][0]["tcp"]
    assert tcp["fixed_rto_s"] == 0.05


def test_model_list_json():
    r = _cli("model", "list", "--json")
    assert r.returncode == 0, r.stderr
    names = [m["name"] for m in json.loads(r.stdout)]
    assert names == sorted(names) and {"packet-train", "abrupt-rtt", "mathis"} <= set(names)
    _refused(_cli("model", "list", "--colour"), "takes only --json")


def test_errors_quote_a_short_excerpt(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("01" * 100_000)                  # 200 KB
    with pytest.raises(ParameterError) as e:
        simulate("reno", channel=f"trace:file={f},advance=sometimes")
    assert len(str(e.value)) < 400
    lost = [True, False] * 100_000
    with pytest.raises(ParameterError) as e:
        simulate("reno", channel={"kind": "trace", "lost": lost, "advance": "sometimes"})
    assert len(str(e.value)) < 400 and e.value.name == "channel.advance"
    with pytest.raises(ParameterError) as e:
        simulate("reno", channel={"kind": "trace", "lost": lost + ["x"]})
    assert len(str(e.value)) < 400 and e.value.name == "channel.lost[200000]"


# ------------------------------------------------------------------- smaller things
def test_abrupt_rtt_from_the_command_line(capsys):
    from lossytcp.models.abrupt_rtt import SECTION_6_3

    argv = ["model", "abrupt-rtt", "--rate-pps", "1210", "--rtt", "58.056ms,60.383ms,81.911ms",
            "--H", "0.1,0.33,0.57;0.30,0.12,0.58;0.165,0.36,0.475",
            "--excess-mean", "106.7ms,118.3ms,4.2ms", "--max-window", "30", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    direct = models.evaluate("abrupt-rtt", **SECTION_6_3, max_window=30)
    assert out["throughput_pps"] == pytest.approx(direct.throughput_pps, rel=1e-12)
    assert main(["model", "abrupt-rtt", "--rate-pps", "1210", "--rtt", "58ms,",
                 "--H", "1", "--excess-mean", "1ms", "--max-window", "30"]) == 2
    assert "entries separated by ','" in capsys.readouterr().err


def test_bulk_transfers_have_no_completion_time_row():
    r = _cli("simulate", "--duration", "2s", "--seeds", "2")
    assert r.returncode == 0 and "goodput_norm" in r.stdout
    assert "completion_time_s" not in r.stdout
    r = _cli("simulate", "--duration", "20s", "--seeds", "2", "--transfer", "50kB")
    assert "completion_time_s" in r.stdout


def test_senders_without_a_classifier_have_no_accuracy_row():
    r = _cli("simulate", "--duration", "2s", "--seeds", "2")
    assert r.returncode == 0 and "classification_accuracy" not in r.stdout
    r = _cli("simulate", "--duration", "5s", "--seeds", "2", "--variant", "ideal-lp",
             "--channel", "bernoulli:p=0.02")
    assert r.returncode == 0 and "classification_accuracy" in r.stdout


def test_elapsed_time_reads_as_whole_nanoseconds():
    r = simulate("reno", duration_s=1000)
    assert r.elapsed_s == 1000.0 and "elapsed_s=1000.0," in repr(r)
    assert r.final_rto_s == round(r.final_rto_s, 9)


def test_the_package_api_is_lazy_but_complete():
    for name in ("simulate", "simulate_seeds", "run", "run_seeds", "SimReport", "METRICS",
                 "build_scenario", "NetReport", "SeedSummary"):
        assert getattr(lossytcp, name) is getattr(lossytcp.sim, name)


def test_command_line_start_up_imports_only_what_it_needs():
    """lossytcp --help and lossytcp simulate load neither the models nor numpy/scipy before
    they start (issue 9: 1.1 s of start-up was the models and scipy.stats)."""
    code = ("import sys, io, contextlib\n"
            "from lossytcp.cli import main\n"
            "for argv in (['--help'], ['simulate', '--help'], ['model', '--help']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        try: main(argv)\n"
            "        except SystemExit: pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', "
            "'pandas', 'rich') or m.startswith('lossytcp.models')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout


def test_report_of_children_rusage_is_available():
    # The memory bound above reads ru_maxrss (kilobytes on Linux).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0
