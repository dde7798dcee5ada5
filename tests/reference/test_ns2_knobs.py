"""The engine's knobs for ns-2's two sender extras: validation, profile defaults, and the
ns-2 script written for them (so a cross-check runs the same sender on both sides)."""

from __future__ import annotations

import pytest

import lossytcp
from lossytcp.errors import ParameterError
from lossytcp.ns2.script import build_script
from lossytcp.sim import build_scenario

KW = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=64, duration_s=2.0,
          granularity_s=0.01, channel="drops:seq=40")


@pytest.mark.parametrize("name", ["limited_transmit", "delay_growth",
                                  "partial_window_deflation", "recovery_exit_growth"])
@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_knobs_refuse_non_booleans(name: str, bad: object) -> None:
    with pytest.raises(ParameterError, match=name):
        build_scenario("reno", **{name: bad})


def test_knobs_reach_the_engine_config() -> None:
    tcp = build_scenario("reno", limited_transmit=True, delay_growth=False)["flows"][0]["tcp"]
    assert (tcp["limited_transmit"], tcp["delay_growth"]) == (True, False)
    tcp = build_scenario("reno")["flows"][0]["tcp"]
    assert (tcp["limited_transmit"], tcp["delay_growth"]) == (None, None)


def _sends(**kw: object) -> list[tuple[float, int, bool]]:
    rep = lossytcp.simulate("reno", trace_sends=True, **KW, **kw)
    return [(float(t), int(s), bool(r)) for t, s, r in rep.send_trace]


def test_profile_defaults() -> None:
    # rfc: both off unless asked for; ns2: both on unless switched off.
    assert _sends(profile="rfc") == _sends(profile="rfc", limited_transmit=False,
                                           delay_growth=False)
    assert _sends(profile="ns2") == _sends(profile="ns2", limited_transmit=True,
                                           delay_growth=True)
    assert _sends(profile="ns2") != _sends(profile="ns2", limited_transmit=False)


def test_delay_growth_holds_cwnd_at_the_initial_window_for_one_more_round() -> None:
    # ns-2 tcp.cc: the ACK of segment 0 leaves cwnd = windowInit_ (1), so segment 1 goes out
    # alone one RTT plus one packet time after 0, and 2, 3 a round later.
    on = _sends(profile="ns2", delay_growth=True)
    off = _sends(profile="ns2", delay_growth=False)
    rtt = 0.1 + 8 * 1000 / 10e6 + 8 * 40 / 10e6  # propagation + data and ACK serialisation
    assert [s for _, s, _ in on[:4]] == [0, 1, 2, 3]
    assert on[1][0] == pytest.approx(rtt, abs=1e-9)
    assert on[2][0] == on[3][0] == pytest.approx(2 * rtt, abs=1e-9)
    assert off[1][0] == off[2][0] == pytest.approx(rtt, abs=1e-9)


@pytest.mark.parametrize("lt,dg,singledup,delay", [
    (None, None, "1", "true"), (False, None, "0", "true"), (True, False, "1", "false")])
def test_script_sets_the_ns2_variables(lt, dg, singledup: str, delay: str) -> None:
    text = build_script("reno", limited_transmit=lt, delay_growth=dg, profile="ns2",
                        **{k: v for k, v in KW.items() if k != "channel"}).text
    assert f"$tcp set singledup_ {singledup}\n" in text
    assert f"$tcp set delay_growth_ {delay}\n" in text


def test_script_sets_newreno_deflation_and_refuses_what_ns2_cannot_do() -> None:
    kw = {k: v for k, v in KW.items() if k != "channel"}
    text = build_script("newreno", partial_window_deflation=False, profile="ns2", **kw).text
    assert "$tcp set partial_window_deflation_ 0\n" in text
    assert "partial_window_deflation_" not in build_script("newreno", **kw).text
    from lossytcp.ns2.script import Ns2Unsupported

    with pytest.raises(Ns2Unsupported, match="recovery_exit_growth"):
        build_script("reno", recovery_exit_growth=False, **kw)


def test_rfc_profile_refuses_the_undeflated_newreno() -> None:
    with pytest.raises(ParameterError, match="partial_window_deflation"):
        build_scenario("newreno", profile="rfc", partial_window_deflation=False)
    build_scenario("newreno", profile="ns2", partial_window_deflation=False)
