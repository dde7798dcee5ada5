"""The kernel's response to reordering beside ``rack``: ``reordering`` (the reordering degree
``tp->reordering``), ``rack_reo_wnd`` (RACK's window widened by DSACKs) and ``partial_undo``
(``tcp_try_undo_partial()``). Their rules with hand-derived values are unit tests in
``crates/lossytcp-sim/src/tcp/rack.rs``; here the refusals, the scenario without them, and a
whole run on paper 001's reordering path."""

from __future__ import annotations

import pytest

from lossytcp import scenario as s
from lossytcp.errors import ParameterError
from lossytcp.sim import build_scenario

OPTIONS = ("reordering", "rack_reo_wnd", "partial_undo")


@pytest.mark.parametrize("name", OPTIONS)
def test_each_is_refused_where_it_has_no_meaning(name: str) -> None:
    with pytest.raises(ParameterError, match=f"'{name}' = True is invalid: refines rack: it "
                       "needs rack=True"):
        s.Tcp(**{name: True})
    with pytest.raises(ParameterError, match=r"= True is invalid: .*profile='ns2'"):
        s.Tcp(**{name: True, "rack": True, "profile": "ns2"})
    # (rack, which it refines, is refused first where both are)
    with pytest.raises(ParameterError, match=f"'({name}|rack)' = True is invalid: .*newreno's "
                       "receiver does not send"):
        build_scenario("newreno", **{name: True, "rack": True})
    with pytest.raises(ParameterError, match=f"'{name}' = True is invalid: refines rack"):
        build_scenario("sack", **{name: True})


@pytest.mark.parametrize("name", OPTIONS)
def test_off_leaves_the_scenario_as_it_was(name: str) -> None:
    assert build_scenario("sack", rack=True, **{name: False}) == build_scenario("sack",
                                                                                rack=True)
    assert build_scenario("sack", rack=True, **{name: True})["flows"][0]["tcp"][name] is True


def test_crosscheck_linux_runs_the_engine_with_the_reordering_response() -> None:
    from lossytcp.emulate.linux import engine_config

    for v in ("sack", "cubic", "bbr"):
        c = engine_config(packet_size_bytes=1500, window=100, variant=v)
        assert all(c[o] is True for o in OPTIONS)


def test_a_reordering_path_raises_the_degree_widens_the_window_and_undoes_partially() -> None:
    # Paper 001's abrupt RTT changes (160 ms / 40 ms, a drop lets new segments overtake
    # old ones), the kernel's reno seed 1 of docs/data/linux_beyond_rtt-2026-11-27b.jsonl
    # replayed: without the response no reordering is seen (the overtaken segments are all
    # retransmitted before their originals arrive, which then show nothing); with it the
    # first partial ACK's old timestamp is reordering (TCPTSReorder), the degree rises far
    # above 3, DSACKs widen RACK's window and recoveries are undone partially, and the
    # engine retransmits less.
    from lossytcp.emulate.linux import engine_config, engine_variant
    from lossytcp.figures.modern import rtt_jump_link
    from lossytcp.sim import _run

    link = rtt_jump_link(0.16)
    runs = {}
    for on in (False, True):
        kw = dict(**link, duration_s=20.0, seed=1,
                  **{**engine_config(packet_size_bytes=link["packet_size_bytes"], window=None,
                                     variant="sack"), **{o: on for o in OPTIONS}})
        sc = build_scenario(engine_variant("reno"), **kw)
        sc["flows"][0]["start_s"] = 0.040667576
        sc["duration_s"] = 20.040667576
        runs[on] = _run(sc, "sack")
    off, on = runs[False], runs[True]
    assert (off.reordering_degree, off.rack_reo_wnd_steps, off.undos_partial) == (3, 1, 0)
    assert on.reordering_events > 100 and on.reordering_degree > 50
    assert on.rack_reo_wnd_steps > 1 and on.undos_partial > 0
    assert on.undos == on.undos_partial + on.undos_dsack + on.undos_frto


def test_a_networks_report_sums_reordering_events_and_takes_the_largest_degree() -> None:
    # Two flows over beyond-rtt's jumping RTT with the response on: events add up over the
    # flows, the degree and the window steps are each flow's own state, so the largest.
    from lossytcp import run
    from lossytcp.emulate.linux import engine_config
    from lossytcp.figures.modern import rtt_jump_link

    link = rtt_jump_link(0.16)
    tcp = s.Tcp(packet_size_bytes=link["packet_size_bytes"],
                **engine_config(packet_size_bytes=link["packet_size_bytes"], window=None,
                                variant="sack"))
    sc = s.Scenario(topology=s.SingleLink(rate_bps=link["rate_bps"],
                                          queue=s.DropTail(100),
                                          delay=link["delay"]),
                    flows=(s.Flow(variant="sack", tcp=tcp), s.Flow(variant="sack", tcp=tcp)),
                    duration_s=10.0)
    r = run(sc)
    events = [f.reordering_events for f in r.flows]
    assert min(events) > 0
    assert r.metric("reordering_events") == sum(events)
    assert r.metric("reordering_degree") == max(f.reordering_degree for f in r.flows)
    assert r.metric("rack_reo_wnd_steps") == max(f.rack_reo_wnd_steps for f in r.flows)


@pytest.mark.parametrize("variant,rtt_s", [("sack", 0.04), ("cubic", 0.1)])
def test_without_loss_or_reordering_the_response_changes_nothing(variant: str,
                                                                 rtt_s: float) -> None:
    # The window's growth with ``reordering`` counts what each ACK delivers as Linux's
    # tcp_newly_delivered() does (a segment SACKed earlier is not counted again when the
    # cumulative ACK covers it) and grows on SACKs once the degree exceeds 3; a path with
    # no SACK at all (a window below the path's pipe plus queue: nothing dropped, nothing
    # overtaken) leaves both nothing to do, so every segment counts once, at its cumulative
    # ACK, as without the response: the same run, metric for metric.
    from lossytcp.emulate.linux import engine_config
    from lossytcp.sim import simulate

    base = {**engine_config(packet_size_bytes=1000, window=40, variant=variant),
            "rate_bps": 10e6, "rtt_s": rtt_s, "packet_size_bytes": 1000,
            "queue_packets": 100, "duration_s": 10.0, "seed": 3}
    off = simulate(variant, **{**base, **{o: False for o in OPTIONS}})
    on = simulate(variant, **base)
    assert off.retransmissions == 0 and off.queue_drops == 0
    assert on.reordering_events == 0
    for m in ("goodput_norm", "retransmissions", "fast_retransmits", "timeouts"):
        assert on.metric(m) == off.metric(m), m
    assert on.goodput_norm > 0.2
