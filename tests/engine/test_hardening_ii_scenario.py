"""Issue 24's cases in the scenario layer, the models, the channels, the engine's own checks
and the command line's smaller promises, one test each: a clear error naming the parameter
instead of a traceback, a refusal instead of a silent acceptance, bounded work refused up
front."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import warnings

import pytest
from cli_in_process import assert_refused, cli

import lossytcp
from lossytcp import ParameterError, models, simulate, units
from lossytcp import scenario as s
from lossytcp.sim import _engine_run, build_scenario

pytest.importorskip("lossytcp._sim")
from lossytcp import _sim  # noqa: E402

_cli = cli
_refused = assert_refused


SEMI = dict(rtt_s=[0.05, 0.06], H=[[0.0, 1.0], [1.0, 0.0]], excess_mean_s=[0.1, 0.1])


# ------------------------------------------------------------------- tracebacks become errors
@pytest.mark.parametrize("call, name, fragment", [
    (lambda: s.Link(rate_bps=1e6, delay_s=0.01), "delay_s", "did you mean delay?"),
    (lambda: s.Hop(rate_bps=1e6), "delay_s", "required by Hop"),
    (lambda: s.Hop(1e6, 0.01, None, None, 5), "Hop", "at most 4 values"),
    (lambda: s.Scenario().replace(bogus=1), "bogus", "not a field of Scenario"),
    (lambda: lossytcp.simulate_seeds(2, duration_s=1).mean("nonexistent"), "metric",
     "goodput_norm"),
    (lambda: lossytcp.simulate_seeds(2, duration_s=1).ci95("as_dict"), "metric",
     "goodput_norm"),
])
def test_api_mistakes_are_parameter_errors(call, name, fragment):
    _raises_named(call, name, fragment)


def _raises_named(call, name: str, fragment: str) -> None:
    with pytest.raises(ParameterError) as e:
        call()
    assert e.value.name == name and fragment in str(e.value), str(e.value)


def test_web_traffic_needs_no_max():
    t = lossytcp.spec.traffic_from_spec("web:arrival=2/s,size=100KB")
    assert t.max_concurrent is None and t.engine()["max_concurrent"] == s.MAX_CONCURRENT
    assert s.Transfers(arrival_rate_per_s=1, size=1000).max_concurrent is None
    r = _cli("simulate", "--cross-traffic", "web:arrival=2/s,size=100KB", "--duration", "5s",
             "--seeds", "1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["traffic"], r.stdout


def test_scenario_save_to_a_directory_or_a_missing_place(tmp_path):
    sc = s.Scenario(duration_s=5)
    for bad, fragment in ((tmp_path, "is a directory"),
                          (tmp_path / "no" / "such" / "x.toml", "cannot be written")):
        with pytest.raises(ParameterError) as e:
            sc.save(bad)
        assert e.value.name == "path" and fragment in str(e.value)
    sc.save(tmp_path / "ok.toml")
    assert s.Scenario.load(tmp_path / "ok.toml") == sc


def test_read_trace_of_a_binary_file_names_the_byte(tmp_path):
    from lossytcp.channels import read_trace, write_trace

    f = tmp_path / "t.bin"
    f.write_bytes(b"0101\x89PNG")
    with pytest.raises(ParameterError, match="byte 0x89 at offset 4") as e:
        read_trace(f)
    assert e.value.name == "path"
    write_trace(tmp_path / "ok.txt", [True, False, False, True])
    assert read_trace(tmp_path / "ok.txt").tolist() == [True, False, False, True]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_trace_from_a_named_pipe_is_refused_at_once(tmp_path):
    """Opening a FIFO blocks until someone writes to it: refused before it is opened, by
    the Python front and by the engine (a scenario handed to it whole)."""
    from lossytcp.channels import read_trace

    fifo = tmp_path / "trace"
    os.mkfifo(fifo)
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="named pipe"):
        simulate(channel=f"trace:file={fifo}", duration_s=1)
    with pytest.raises(ParameterError, match="named pipe"):
        read_trace(fifo)
    sc = build_scenario(duration_s=1)
    sc["links"][0]["channel"] = {"kind": "trace", "file": str(fifo)}
    with pytest.raises(ValueError, match="not a regular file"):
        _sim.check_json(json.dumps(sc))
    assert time.perf_counter() - t0 < 5


# ------------------------------------------------------------------- silent acceptances
@pytest.mark.parametrize("call, name, fragment", [
    (lambda: s.SingleLink(rtt_s=0.05, delay=SEMI), "rtt_s", "replaces the fixed round trip"),
    (lambda: s.Chain(hops=[s.Hop(rate_bps=1e6, delay_s=0.01)], delay=SEMI), "hops[0].delay_s",
     "would be ignored"),
    (lambda: s.Scenario(topology=s.Network(nodes=("A", "B"), links=(
        s.Link(rate_bps=1e6, src="A", dst="B"), s.Link(rate_bps=1e6, src="B", dst="A"))),
        flows=(s.Flow(forward=(0,), reverse=(0,)),)), "flows[0].reverse", "carries the data"),
    (lambda: simulate(granularity_s=100, duration_s=1), "granularity_s", "max_rto_s = 60"),
    (lambda: simulate(backoff=False, max_backoff=64, duration_s=1), "max_backoff",
     "backoff only"),
    (lambda: simulate(queue="droptail:packets=10,bytes=0", duration_s=1), "queue.bytes",
     ">= 500 B"),
    (lambda: s.Scenario(duration_s=5, flows=(s.Flow(start_s=5),)), "flows[0].start_s",
     "after the run ends"),
    (lambda: s.Scenario(duration_s=5, flows=(s.Flow(count=3, stagger_s=2.5),)),
     "flows[0].count", "after the run ends"),
    (lambda: s.Scenario(duration_s=5, traffic=(s.Cbr(rate_bps=1e5, start_s=6),)),
     "traffic[0].start_s", "after the run ends"),
    (lambda: models.evaluate("mathis", p=1.0, rtt_s=0.1), "p", "(0, 1)"),
    (lambda: models.evaluate("fading-energy", p_gb=1.0, p_bg=1.0), "p_bg", "alternates"),
    (lambda: lossytcp.spec.queue_from_spec("red:packets=100,gentle=yes"), "queue.gentle",
     "true or false"),
])
def test_nonsense_is_refused(call, name, fragment):
    _raises_named(call, name, fragment)


def test_a_semi_markov_delay_alone_keeps_working():
    r = simulate(delay=SEMI, duration_s=20)
    assert r.packets_delivered > 0
    assert s.SingleLink(delay=SEMI).rtt_s is None and s.SingleLink().rtt_s == 0.02


def test_packets_zero_passes_packets_and_bytes_at_a_packet_too():
    """--queue 0 is no waiting room (the packet on the wire passes); a byte limit of one
    packet is the same waiting room in bytes: both carry traffic."""
    a = simulate(queue="0", duration_s=5)
    b = simulate(queue="droptail:packets=10,bytes=500B", duration_s=5)
    assert a.packets_delivered > 0 and b.packets_delivered > 0


def test_marcum_q1_at_infinity():
    from lossytcp.channels.rayleigh import marcum_q1

    assert marcum_q1(math.inf, 1) == 1.0 and marcum_q1(1, math.inf) == 0.0
    assert marcum_q1(0, 0) == 1.0 and 0 < marcum_q1(1, 1) < 1
    with pytest.raises(ParameterError):
        marcum_q1(-1, 1)


def test_fading_energy_near_the_alternating_channel_is_finite():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = models.evaluate("fading-energy", p_gb=1.0, p_bg=0.5)
    assert all(math.isfinite(x) for x in (r.throughput_pps, r.energy_efficiency))


def test_flows_apply_before_the_channel_names_one_of_them():
    r = _cli("simulate", "--flows", "3", "--channel", "drops:seq=5,flow=2", "--duration", "2s",
             "--seeds", "1", "--json")
    assert r.returncode == 0, r.stderr
    flows = json.loads(r.stdout)["flows"]
    assert [f["channel_losses"]["mean"] for f in flows] == [0, 0, 1]
    _refused(_cli("simulate", "--flows", "2", "--channel", "drops:seq=5,flow=2"),
             "channel.flow", "one of the 2 flows")


def test_an_empty_scenario_file_is_refused(tmp_path):
    (tmp_path / "empty.toml").write_text("# nothing\n")
    _refused(_cli("simulate", "--scenario", str(tmp_path / "empty.toml")), "scenario",
             "is empty")


def test_a_slow_rate_is_blamed_not_the_default_timer():
    _refused(_cli("simulate", "--rate", "1bps"), "parameter 'rate_bps' = 1.0",
             "too slow for the TCP timers")
    _refused(_cli("simulate", "--rate", "1kbps", "--initial-rto", "1s"),
             "parameter 'initial_rto_s'")


# -------------------------------------------------------------------------- bounded work
def test_a_packet_train_buffer_is_bounded_before_any_allocation():
    t0 = time.perf_counter()
    r = _cli("model", "packet-train", "--variant", "tahoe", "--alpha", "0.01", "--beta", "0.1",
             "--rate", "2Mbps", "--rtt", "10ms", "--packet-size", "125B",
             "--buffer-packets", "100000")
    _refused(r, "parameter 'buffer_packets' = 100000", "W_m <= 4097")
    assert time.perf_counter() - t0 < 30
    models.evaluate("packet-train", variant="tahoe", alpha=0.01, beta=0.1, rate_bps=2e6,
                    rtt_s=0.01, packet_size_bytes=125, buffer_packets=10)


def test_jakes_traces_are_bounded():
    from lossytcp.channels import jakes_error_trace, jakes_gain
    from lossytcp.channels.rayleigh import MAX_SAMPLES

    with pytest.raises(ParameterError, match=f"{MAX_SAMPLES}"):
        jakes_error_trace(10**9, fading_margin_db=10, doppler_norm=0.01)
    with pytest.raises(ParameterError, match="samples_per_packet"):
        jakes_error_trace(MAX_SAMPLES // 2, fading_margin_db=10, doppler_norm=0.01,
                          samples_per_packet=4)
    with pytest.raises(ParameterError):
        jakes_gain(MAX_SAMPLES + 1, 0.01)
    assert jakes_error_trace(1000, fading_margin_db=10, doppler_norm=0.01, seed=1).size == 1000


def test_semi_markov_states_shorter_than_a_packet_are_refused_everywhere():
    """States of 1 ns ran 10 simulated seconds per 100 s of wall time and ignored Ctrl-C (the
    engine walks every state inside one event): refused by Python and by the engine."""
    fast = dict(rtt_s=[1e-9, 1e-9], H=[[0.0, 1.0], [1.0, 0.0]], excess_mean_s=[0.0, 0.0])
    with pytest.raises(ParameterError, match="one packet time") as e:
        simulate(delay=fast, duration_s=10)
    assert e.value.name == "delay.rtt_s[0]"
    sc = build_scenario(delay=SEMI, duration_s=10)
    sc["links"][0]["delay"].update(delay_s=[1e-9, 1e-9], excess_mean_s=[0.0, 0.0])
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="state 0 lasts"):
        _engine_run(sc)
    assert time.perf_counter() - t0 < 2


@pytest.mark.parametrize("edit, fragment", [
    (lambda sc: sc.update(duration_s=1e300), "duration_s = 1e300"),
    (lambda sc: sc["flows"][0]["tcp"].update(min_rto_s=100.0), "must be >= min_rto_s = 100"),
    (lambda sc: sc["flows"][0]["tcp"].update(granularity_s=100.0), "granularity_s = 100"),
    (lambda sc: sc["flows"][0]["tcp"].update(max_window=10**7), "max_window"),
    (lambda sc: sc["flows"][0].update(start_s=1e6), "after the run ends"),
    (lambda sc: sc["links"][0].update(rate_bps=0.5), "rate_bps = 0.5"),
])
def test_the_engine_holds_the_same_ranges(edit, fragment):
    sc = build_scenario(duration_s=10)
    edit(sc)
    text = json.dumps(sc)
    t0 = time.perf_counter()
    for call in (_sim.check_json, _sim.run_json):
        with pytest.raises(ValueError, match=re.escape(fragment)):
            call(text)
    assert time.perf_counter() - t0 < 2


def test_a_fast_semi_markov_delay_stops_at_ctrl_c():
    """States of 2.1 ms, just above the floor (one 500 B packet at 2 Mb/s is 2 ms), over a run
    that would last years: the engine polls between events, and every event walks at most a
    few states, so SIGINT stops it within a second."""
    code = ("import lossytcp; print('go', flush=True); lossytcp.simulate(duration_s=1e8, "
            "delay=dict(rtt_s=[1e-3, 1e-3], H=[[0.5, 0.5], [0.5, 0.5]], "
            "excess_mean_s=[1.1e-3, 1.1e-3]))")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert p.stdout.readline().strip() == "go"
        time.sleep(1.5)
        assert p.poll() is None
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        assert time.perf_counter() - t0 < 1.0
        assert p.returncode != 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


# ----------------------------------------------------------------- a newcomer's smaller asks
def test_version():
    r = _cli("--version")
    assert r.returncode == 0
    assert re.fullmatch(r"lossytcp \S+ \(engine \S+, Python \S+\)\n", r.stdout), r.stdout
    assert lossytcp.__version__ in r.stdout


def test_model_help_shows_defaults_in_units_that_parse_back():
    r = _cli("model", "packet-train", "--help")
    assert "default 500ms" in r.stdout and "(a time: 500ms" in r.stdout
    for field, value in (("timeout_s", 0.5), ("rate_bps", 1.5e6), ("rate_bps", 1e12),
                         ("packet_size_bytes", 1024.0), ("arrival_rate_per_s", 2.0),
                         ("delay_s", 1e-5), ("delay_s", 0.0), ("delay_s", 120.0)):
        text = units.format_for_field(field, value)
        assert math.isclose(units.parse_for_field(field, text), value, rel_tol=1e-12), text


@pytest.mark.parametrize("argv", [[], ["run"], ["results"], ["results", "show"], ["reproduce"],
                                  ["simulate"], ["model"], ["crosscheck"],
                                  ["model", "abrupt-rtt"], ["model", "fading-energy"]])
def test_help_has_no_restructuredtext(argv):
    r = _cli(*argv, "--help")
    assert r.returncode == 0, r.stderr
    for markup in ("``", ":func:", ":class:", ":mod:", ":meth:", ":data:"):
        assert markup not in r.stdout, (markup, r.stdout)


def test_plain_strips_roles():
    from lossytcp.cli import plain

    assert plain("see :func:`~lossytcp.sim.simulate` and ``x`` ::") == "see simulate and x"
    assert plain("Channels::\n\n    none") == "Channels:\n\n    none"
    assert plain(":mod:`the store <lossytcp.experiments.store>`") == "the store"


def test_readme_network_examples_show_something():
    """The README's --flows 5 example shows a spread between seeds (a queue that drops) and
    its two-hop example losses (a lossy wireless hop); both used to show neither."""
    r = _cli("simulate", "--flows", "5", "--rate", "10Mbps", "--rtt", "100ms", "--window",
             "100", "--queue", "red:packets=100", "--duration", "30s", "--seeds", "3",
             "--json")
    out = json.loads(r.stdout)
    assert out["goodput_norm"]["ci95"] > 0 and out["queue_drops"]["mean"] > 0
    r = _cli("simulate", "--topology", "two-hop", "--channel", "twostate:good=1s,bad=50ms",
             "--cross-traffic", "onoff:rate=2Mbps,on=500ms,off=500ms", "--duration", "30s",
             "--seeds", "3", "--json")
    assert json.loads(r.stdout)["channel_losses"]["mean"] > 0, r.stderr
    readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "README.md")).read()
    assert "--flows 5 --rate 10Mbps --rtt 100ms --window 100 --queue red:packets=100" in readme
    assert "--topology two-hop --channel twostate:good=1s,bad=50ms" in readme
