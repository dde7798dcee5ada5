"""The sender-wide options (``eifel_undo``, ``frto``, ``dsack``) declared once in the engine
(``tcp/options.rs``): every place that accepts one is built from the declaration, scenarios
that use none stay byte-identical, and the cross-checks refuse one that has no counterpart."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

import pytest

from lossytcp import scenario as s
from lossytcp import variants
from lossytcp.errors import ParameterError
from lossytcp.experiments.keys import _files_prefix, _key, dumps, run_key
from lossytcp.sim import build_scenario

SWITCHES = [k for k, o in variants.OPTIONS.items() if o.kind == "switch"]

#: sha256 (16 hex) of the canonical text of build_scenario(variant, **kw), the part of a run
#: key the front decides, computed with main at fa6c6f1 (the options written by hand): the
#: declaration must give the same scenarios, with and without an option on.
SCENARIO_DIGESTS = {
    ("newreno", ()): "c972e565e4e893d0",
    ("newreno", (("frto", True),)): "9f5e7a586a8a8ac3",
    ("reno", (("eifel_undo", True), ("profile", "ns2"))): "4107fc8172788758",
    ("sack", (("dsack", True),)): "47ecc396fa19717f",
    # written by hand on branch tlp (3cf3125)
    ("sack", (("tlp", True),)): "9f2cfacfcd6ff8dc",
    ("cubic", (("cubic_beta", 0.6), ("dsack", True), ("eifel_undo", True),
               ("frto", True))): "6995b31598fe83fa",
    ("sack", (("dsack", False), ("eifel_undo", False), ("frto", False))): "b250e710b1d031ed",
    ("newreno", (("delay_growth", True), ("limited_transmit", False),
                 ("partial_window_deflation", False), ("profile", "ns2"),
                 ("recovery_exit_growth", True),
                 ("timer_every_partial_ack", True))): "05411a56acb95cf3",
}


@pytest.mark.parametrize(("variant", "kw"), list(SCENARIO_DIGESTS))
def test_scenarios_and_their_run_keys_are_those_of_the_hand_written_options(
        variant: str, kw: tuple[tuple[str, object], ...]) -> None:
    sc = build_scenario(variant, **dict(kw))
    text = dumps(sc)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == SCENARIO_DIGESTS[variant, kw]
    # The run key is this text under the engine's version (which any engine change moves).
    assert run_key(sc) == _key(_files_prefix(sc, text), text)


def test_an_option_off_is_not_in_the_scenario() -> None:
    off = build_scenario("sack", dsack=False, frto=False, eifel_undo=False)
    assert run_key(off) == run_key(build_scenario("sack"))
    tcp = build_scenario("sack", frto=True)["flows"][0]["tcp"]
    assert tcp["frto"] is True and "dsack" not in tcp and "eifel_undo" not in tcp


def test_the_engine_as_linux_runs_the_options_it_ran_by_hand() -> None:
    from lossytcp.emulate.linux import engine_config

    kw = engine_config(packet_size_bytes=1500, window=100, variant="sack")
    assert {k: kw.get(k) for k in variants.OPTIONS} == {
        "limited_transmit": True, "delay_growth": None, "partial_window_deflation": None,
        "recovery_exit_growth": None, "timer_every_partial_ack": None, "eifel_undo": False,
        "frto": True, "dsack": True, "tlp": True, "prr": True, "rack": True,
        "reordering": True, "rack_reo_wnd": True, "partial_undo": True, "handshake_rtt": True}
    # the scenario branch tlp (3cf3125) built from it, with frto, dsack, tlp, limited_transmit
    # by hand (main fa6c6f1's, d2d737f167b32120, had no tlp); since, Linux's reno window
    # (the variant's reno_rules) is in it as well; since branch prr, PRR (prr = true) is in
    # it too, and the only change: without it the scenario is main ef500b9's, 4cb0103c111819f5;
    # since branch rack, RACK (rack = true), without which it is main b0522df's; since
    # branch reord, the reordering response, without which it is main 4885ee9's; since
    # branch kern11, the handshake's RTT sample, without which it is main 94c1254's
    assert kw.pop("reno_rules") == "linux"
    text = dumps(build_scenario("sack", **kw))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == "4428bd0db03660e4"
    kw["handshake_rtt"] = False
    text = dumps(build_scenario("sack", **kw))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == "93f3db0c24d4f437"
    reord = dict.fromkeys(("reordering", "rack_reo_wnd", "partial_undo"), False)
    kw = {**kw, **reord}
    text = dumps(build_scenario("sack", **kw))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == "f91ef10e46de9f31"
    text = dumps(build_scenario("sack", **{**kw, "rack": False}))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == "d828e8e1314f7a27"
    text = dumps(build_scenario("sack", **{**kw, "rack": False, "prr": False}))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == "4cb0103c111819f5"


def test_the_registry_exports_the_options() -> None:
    raw = json.loads(variants.registry_json())["options"]
    assert [o["name"] for o in raw] == list(s.Tcp.KNOBS) + SWITCHES
    assert SWITCHES == ["eifel_undo", "frto", "dsack", "tlp", "prr", "rack", "reordering",
                        "rack_reo_wnd", "partial_undo", "handshake_rtt"]
    assert s.Tcp.KNOBS == ("limited_transmit", "delay_growth", "partial_window_deflation",
                           "recovery_exit_growth", "timer_every_partial_ack")
    dsack = variants.OPTIONS["dsack"]
    assert dsack.requires == {"what": "sack_blocks", "why": "reports duplicates in SACK blocks"}
    assert dsack.refused is not None and dsack.refused["profile"] == "ns2"
    assert all(variants.OPTIONS[k].ns2 is None for k in SWITCHES)
    # ns-3 3.37 has PRR (TcpPrrRecovery, its recovery ops' other than the classic one)
    assert [k for k in SWITCHES if variants.OPTIONS[k].ns3 is not None] == ["prr"]
    assert variants.OPTIONS["prr"].ns3 == "ns3::TcpPrrRecovery"


@pytest.mark.parametrize("name", list(variants.OPTIONS))
def test_a_bad_value_is_refused_naming_the_option_the_value_and_the_range(name: str) -> None:
    valid = "True or False" if name in SWITCHES else (
        r"True, False or None \(the profile's default")
    with pytest.raises(ParameterError, match=f"'{name}' = 'yes' is invalid: must be {valid}"):
        s.Tcp(**{name: "yes"})


def test_the_declared_refusals_keep_their_words() -> None:
    with pytest.raises(ParameterError) as e:
        s.Tcp(dsack=True, profile="ns2")
    assert str(e.value) == ("parameter 'dsack' = True is invalid: is RFC 2883's report in RFC "
                            "2018's SACK blocks; ns-2 2.35's sink (profile='ns2') sends none")
    with pytest.raises(ParameterError) as e:
        s.Tcp(dsack=True).check_variant("newreno")
    assert str(e.value) == ("parameter 'dsack' = True is invalid: reports duplicates in SACK "
                            "blocks, which newreno's receiver does not send: a variant with "
                            "SACK recovery (sack, cubic, bbr, bbr3), or dsack=False")
    with pytest.raises(ParameterError) as e:
        s.Tcp(partial_window_deflation=False)
    assert str(e.value) == ("parameter 'partial_window_deflation' = False is invalid: RFC 6582 "
                            "always deflates; the undeflated NewReno is ns-2's (profile='ns2')")
    s.Tcp(partial_window_deflation=False, profile="ns2")


@pytest.mark.parametrize("name", SWITCHES)
def test_the_cross_checks_refuse_an_option_on_without_a_counterpart(name: str) -> None:
    from lossytcp.ns2 import build_script
    from lossytcp.ns2.script import Ns2Unsupported
    from lossytcp.ns3 import Ns3Unsupported, ns3_arguments

    # (an option that refines another is on with it; the other's refusal may come first)
    needs = variants.OPTIONS[name].needs
    on = {name: True, **({needs: True} if needs else {})}
    named = f"({name}|{needs})" if needs else name
    with pytest.raises(Ns2Unsupported, match=f"'{named}' = True .*no ns-2 2.35 counterpart"):
        build_script("sack", **on)
    # Westwood+ (ns-2's Agent/TCP/Linux): no SACK (handshake_rtt: the ns2 profile refuses it)
    if name not in ("dsack", "tlp", "prr", "rack", "handshake_rtt") and not needs:
        with pytest.raises(Ns2Unsupported, match=f"'{name}' = True .*no ns-2 2.35"):
            build_script("westwood-plus", **{name: True})
    build_script("sack", granularity_s=0.01, **{name: False})
    ns3_arguments("sack", {name: False})
    if variants.OPTIONS[name].ns3 is not None:   # prr: tests/engine/test_prr.py
        return
    # (tlp's and rack's own reasons, ns-3's list of settings it cannot run, come first)
    with pytest.raises(Ns3Unsupported, match=f"'{named}' = True .*(no ns-3 3.37 counterpart|"
                       "no tail loss probe|no RACK)"):
        ns3_arguments("sack", on)


def test_crosscheck_ns3_refuses_a_knob_given() -> None:
    from lossytcp.ns3 import Ns3Unsupported, ns3_arguments
    from lossytcp.variants import refuse_options_without

    with pytest.raises(Ns3Unsupported, match="'delay_growth' = False .*ns-2's delay_growth_"):
        ns3_arguments("newreno", {"delay_growth": False})
    # a knob with no entry of its own in ns-3's list is refused by the declaration
    with pytest.raises(Ns3Unsupported, match="'delay_growth' = True is invalid: has no ns-3 "
                       r"3.37 counterpart; leave it out \(the profile's default\)"):
        refuse_options_without("ns3", {"delay_growth": True}, Ns3Unsupported, "ns-3 3.37")
    refuse_options_without("ns3", {"delay_growth": None, "frto": False}, Ns3Unsupported, "x")


#: Run in a fresh interpreter: the engine's registry, given one more option (a switch that
#: the ns2 profile refuses and that needs SACK blocks), reaches every place built from it.
_FAKE_OPTION = textwrap.dedent('''
    import json
    import lossytcp._sim as engine

    real = engine.registry_json

    def registry_json():
        raw = json.loads(real())
        raw["options"].append({
            "name": "fake_probe", "doc": "A probe of nothing (test).", "kind": "switch",
            "default": {"rfc": False, "ns2": False},
            "refused": {"profile": "ns2", "value": True, "why": "is not ns-2's"},
            "requires": {"what": "sack_blocks", "why": "reads fake blocks"},
            "ns2": None, "ns3": "ns3::Fake::Probe", "linux": None, "as_linux": True})
        raw["options"].append({
            "name": "fake_knob", "doc": "A knob of nothing (test).", "kind": "tristate",
            "default": {"rfc": True, "ns2": False},
            "refused": {"profile": "rfc", "value": False, "why": "is on in rfc"},
            "requires": None, "ns2": "fake_", "ns3": None, "linux": None, "as_linux": None})
        return json.dumps(raw)

    engine.registry_json = registry_json

    import pytest
    import lossytcp
    from lossytcp import scenario as s, variants
    from lossytcp.cli import build_parser
    from lossytcp.cli.simulate import scenario_from_args
    from lossytcp.errors import ParameterError
    from lossytcp.ns2 import build_script
    from lossytcp.ns2.script import Ns2Unsupported
    from lossytcp.sim import build_scenario

    # the Tcp field and its validation
    assert "fake_probe" in s.Tcp.__dataclass_fields__ and s.Tcp().fake_probe is False
    with pytest.raises(ParameterError, match="'fake_probe' = 3 is invalid: must be True or"):
        s.Tcp(fake_probe=3)
    with pytest.raises(ParameterError, match="'fake_probe' = True is invalid: is not ns-2's"):
        s.Tcp(fake_probe=True, profile="ns2")
    with pytest.raises(ParameterError, match="reads fake blocks, which reno's receiver does "
                       "not send: a variant with SACK recovery .*, or fake_probe=False"):
        build_scenario("reno", fake_probe=True)
    # simulate()'s keyword and its documentation; the engine's JSON only when on
    assert build_scenario("sack", fake_probe=True)["flows"][0]["tcp"]["fake_probe"] is True
    assert "fake_probe" not in build_scenario("sack", fake_probe=False)["flows"][0]["tcp"]
    doc = " ".join(lossytcp.simulate.__doc__.split())
    assert "``fake_probe`` (default off): A probe of nothing (test)" in doc
    # the command line's flag
    parser = build_parser("simulate")
    a = parser.parse_args(["simulate", "--variant", "sack", "--fake-probe"])
    assert scenario_from_args(a)["fake_probe"] is True
    assert "--fake-probe" in parser._subparsers._group_actions[0].choices["simulate"].format_help()
    # the TOML key
    sc = s.Scenario(topology=s.SingleLink(rate_bps=2e6, rtt_s=0.02),
                    flows=(s.Flow(variant="sack", tcp=s.Tcp(fake_probe=True)),),
                    duration_s=5.0)
    assert "fake_probe = true" in sc.to_toml() and s.Scenario.from_toml(sc.to_toml()) == sc
    # the README's row
    assert "| `fake_probe` | off | `--fake-probe` | none | ns3::Fake::Probe | none | on |" in \\
        variants.option_table()
    # crosscheck ns2 refuses it by name (ns-2 has no counterpart)
    with pytest.raises(Ns2Unsupported, match="'fake_probe' = True .*no ns-2 2.35"):
        build_script("sack", fake_probe=True)
    # a knob: None (the profile's default) unless given, in the engine's JSON always
    assert s.Tcp().fake_knob is None and "fake_knob" in s.Tcp.KNOBS
    assert build_scenario("sack")["flows"][0]["tcp"]["fake_knob"] is None
    assert build_scenario("sack", profile="ns2", fake_knob=False)["flows"][0]["tcp"][
        "fake_knob"] is False
    with pytest.raises(ParameterError, match="'fake_knob' = 1 is invalid: must be True, False "
                       "or None"):
        s.Tcp(fake_knob=1)
    with pytest.raises(ParameterError, match="'fake_knob' = False is invalid: is on in rfc"):
        s.Tcp(fake_knob=False)
    assert "``fake_knob`` (default on for 'rfc', off for 'ns2'): A knob of nothing" in doc
    a = parser.parse_args(["simulate", "--profile", "ns2", "--fake-knob", "false"])
    assert scenario_from_args(a)["fake_knob"] is False
    assert "| `fake_knob` | on for 'rfc', off for 'ns2' | `--fake-knob` `true` or `false` |" \
        in variants.option_table()
    # the engine as Linux's TCP (crosscheck linux) runs the option as declared
    from lossytcp.emulate.linux import engine_config
    assert engine_config(packet_size_bytes=1500, window=100)["fake_probe"] is True
    print("ok")
''')


def test_an_option_added_to_the_engine_reaches_every_place_built_from_it() -> None:
    p = subprocess.run([sys.executable, "-c", _FAKE_OPTION], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-3000:]


def test_the_readme_holds_the_current_option_table() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    m = re.search(r"<!-- option-table:[^\n]*-->\n(.*?)<!-- /option-table -->", text, re.S)
    assert m is not None, "README.md lost its option-table markers"
    assert m.group(1) == variants.option_table(), (
        "README.md's option table is stale: paste lossytcp.variants.option_table() between "
        "its markers")
