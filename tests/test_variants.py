"""The variant registry and the plugin-parameter contract: the engine's declaration reaches
every place that accepts a variant (schema, simulate() keywords, TOML, CLI flags, README),
and nothing else lists variants or parameters."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lossytcp
from lossytcp import scenario as s
from lossytcp import variants
from lossytcp._sim import registry_json
from lossytcp.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_holds_the_current_knob_table() -> None:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"<!-- knob-table:[^\n]*-->\n(.*?)<!-- /knob-table -->", text, re.S)
    assert m is not None, "README.md lost its knob-table markers"
    assert m.group(1) == variants.knob_table(), (
        "README.md's knob table is stale: paste lossytcp.variants.knob_table() between "
        "its markers")


def test_every_declared_parameter_is_a_keyword_a_field_and_a_flag() -> None:
    from lossytcp.sim import _DEFAULTS
    fields = {f.name for f in s.Tcp.__dataclass_fields__.values()}
    help_text = subprocess.run([sys.executable, "-m", "lossytcp", "simulate", "--help"],
                               capture_output=True, text=True, check=True).stdout
    for name, p in variants.PARAMS.items():
        assert name in _DEFAULTS and name in fields
        assert f"``{name}``" in (lossytcp.simulate.__doc__ or "")
        assert p.flag in help_text, p.flag
        assert p.doc and p.variants


def test_registry_lists_every_engine_variant_once() -> None:
    raw = json.loads(registry_json())
    names = [x["name"] for x in raw["variants"]]
    assert tuple(names) == variants.VARIANTS == s.VARIANTS
    assert len(set(names)) == len(names)
    assert len({x["engine"] for x in raw["variants"]}) == len(names)
    assert set(variants.CLASSIFYING_VARIANTS) == {"newreno-lp", "ideal-lp"}


@pytest.mark.parametrize("name", list(variants.PARAMS))
def test_each_parameter_is_validated_by_its_declaration(name: str) -> None:
    p = variants.PARAMS[name]
    owner = p.variants[0]
    bad = {"bool": "yes", "choice": "nonsense", "int": 2.5, "float": float("nan")}[p.type]
    with pytest.raises(ParameterError, match=f"'{name}'"):
        s.Tcp(**{name: bad})
    if p.type in ("int", "float"):
        with pytest.raises(ParameterError, match=re.escape(p.range_text)):
            s.Tcp(**{name: p.max * 2 + 1})
    # The default is valid, and reaches the engine's JSON only when given.
    tcp = s.Tcp(**{name: p.default})
    tcp.check_variant(owner)
    assert tcp.engine()["params"] == {name: p.default}
    assert s.Tcp().engine()["params"] == {}
    others = [x for x in variants.VARIANTS if name not in variants.REGISTRY[x].params]
    with pytest.raises(ParameterError, match=f"applies to .*{owner}.* only, not '{others[0]}'"):
        tcp.check_variant(others[0])


def test_a_parameter_round_trips_through_toml() -> None:
    sc = s.Scenario(topology=s.SingleLink(rate_bps=2e6, rtt_s=0.02, queue=s.DropTail(50)),
                    flows=(s.Flow(variant="westwood-nr", tcp=s.Tcp(westwood_tau_s=0.3)),),
                    duration_s=5.0)
    text = sc.to_toml()
    assert "westwood_tau_s = 0.3" in text
    assert s.Scenario.from_toml(text) == sc
    assert sc.engine()["flows"][0]["tcp"]["params"] == {"westwood_tau_s": 0.3}


def test_the_engine_refuses_what_the_front_refuses() -> None:
    """A scenario built by hand (not through the front) meets the same declaration."""
    from lossytcp import _sim
    sc = lossytcp.build_scenario("vegas", duration_s=1.0)
    for params, msg in (({"vegas_alpha": 5}, "vegas_alpha = 5 must be <= vegas_beta = 3"),
                        ({"lp_alpha": 1.0}, "takes no such parameter"),
                        ({"vegas_gamma": -1}, "must be an integer in [0, 1000000]")):
        sc["flows"][0]["tcp"]["params"] = params
        with pytest.raises(ValueError, match=re.escape(msg)):
            _sim.run_json(json.dumps(sc))


def test_a_parameter_changes_the_run_it_is_given_to() -> None:
    kw = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=100, duration_s=20.0,
              channel="bernoulli:p=0.01", seed=3)
    a = lossytcp.simulate("westwood-nr", **kw)
    b = lossytcp.simulate("westwood-nr", westwood_tau_s=0.05, **kw)
    c = lossytcp.simulate("westwood-nr", westwood_tau_s=0.5, **kw)
    assert a == c, "the declared default is the engine's"
    assert a.packets_sent != b.packets_sent


def test_the_kernels_cubic_and_bbr_have_engine_counterparts_configured_as_linux() -> None:
    # lossytcp crosscheck linux / emulate's replay: the kernel's congestion control -> the
    # engine variant and the knobs that make it the kernel's (not RFC 9438's arithmetic)
    from lossytcp.emulate.linux import engine_config, engine_variant
    from lossytcp.sim import build_scenario

    for cc, v in (("reno", "sack"), ("cubic", "cubic"), ("bbr", "bbr")):
        assert engine_variant(cc) == v
        kw = engine_config(packet_size_bytes=1500, window=100, variant=v)
        sc = build_scenario(v, duration_s=1.0, **kw)
        params = sc["flows"][0]["tcp"]["params"]
        if cc == "cubic":
            assert params == {"cubic_rules": "linux", "cubic_slow_start": "hystart"}
        elif cc == "bbr":
            # Linux's internal pacing sends tcp_tso_autosize() bursts (emulate/linux.py)
            assert params == {"bbr_pacing_burst": "tso"}
        else:
            # Linux's reno module counts delivered segments and halves cwnd
            assert params == {"reno_rules": "linux"}
