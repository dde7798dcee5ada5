"""The writer of ns-2 2.35's ``Agent/TCP/Linux`` scripts (lossytcp.ns2.linux): structure
without ns, and with ns the agent's documented behaviour (module docstring of linux.py)."""

from __future__ import annotations

import re
import shutil

import pytest

from lossytcp.errors import ParameterError
from lossytcp.ns2 import Ns2Unsupported
from lossytcp.ns2.linux import (
    LINUX_JIFFY_S,
    build_linux_script,
    compare_linux_send_traces,
    linux_link_trace,
    run_linux_seeds,
    simulate_linux,
)

HAVE_NS = shutil.which("ns") is not None
needs_ns = pytest.mark.skipif(not HAVE_NS, reason="ns-2 (Debian package ns2) not installed")
PATH = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1500, window=100, queue_packets=84)


def _lines(text: str, pattern: str) -> list[str]:
    return re.findall(rf"^{pattern}.*$", text, flags=re.M)


@pytest.mark.parametrize("sack,sink", [(True, "Agent/TCPSink/Sack1"), (False, "Agent/TCPSink")])
def test_linux_agent_module_and_sink(sack: bool, sink: str) -> None:
    sc = build_linux_script("westwood", sack=sack, **PATH, delayed_ack=True)
    t = sc.text
    assert _lines(t, "set tcp ") == ["set tcp [new Agent/TCP/Linux]"]
    assert _lines(t, "set sink ") == [f"set sink [new {sink}/DelAck]"]
    sets = [m.start() for m in re.finditer(r"^\$tcp set ", t, flags=re.M)]
    select = t.index("$tcp select_ca westwood")
    # the module is selected after every setting (select_ca sets the tick to one jiffy)
    assert select > max(sets)
    assert f"$tcp set tcpTick_ {LINUX_JIFFY_S}" in t
    assert "$sink set SYN_immediate_ack_ false" in t
    # queue-limit = waiting room + 1 (drop-tail.cc keeps qlim_ - 1 waiting)
    assert _lines(t, r"\$ns queue-limit") == ["$ns queue-limit $n0 $n1 85",
                                              "$ns queue-limit $n1 $n0 85"]
    assert sc.variant == f"linux-westwood-{'sack' if sack else 'nosack'}"


def test_without_delayed_acks_the_sink_has_no_timer_settings() -> None:
    t = build_linux_script("reno", **PATH).text
    assert _lines(t, "set sink ") == ["set sink [new Agent/TCPSink/Sack1]"]
    assert "SYN_immediate_ack_" not in t and "interval_" not in t
    assert "$tcp select_ca reno" in t


@pytest.mark.parametrize("kw,param", [
    ({"limited_transmit": True}, "limited_transmit"),
    ({"granularity_s": 0.01}, "granularity_s"),
    ({"profile": "ns2"}, "profile"),
    ({"dupack_threshold": 4}, "dupack_threshold"),
    ({"fixed_rto_s": 1.0}, "fixed_rto_s"),
])
def test_what_the_linux_agent_cannot_do_is_refused_by_name(kw: dict, param: str) -> None:
    with pytest.raises(Ns2Unsupported) as e:
        build_linux_script("westwood", **PATH, **kw)
    assert e.value.name == param


def test_bad_module_and_switch_are_refused() -> None:
    with pytest.raises(ParameterError) as e:
        build_linux_script("westwood-plus", **PATH)
    assert e.value.name == "cc"
    with pytest.raises(ParameterError) as e:
        build_linux_script("westwood", sack="yes", **PATH)
    assert e.value.name == "sack"
    with pytest.raises(ParameterError):
        build_linux_script("westwood", **{**PATH, "rate_bps": -1})


# --- with ns ---------------------------------------------------------------------------

@needs_ns
def test_without_sack_the_agent_never_fast_retransmits() -> None:
    # tcp-linux.cc: the scoreboard marks losses from SACK blocks only
    kw = dict(**PATH, channel="bernoulli:p=0.02", duration_s=20, delayed_ack=True)
    plain = run_linux_seeds(2, "westwood", sack=False, **kw)
    sack = run_linux_seeds(2, "westwood", sack=True, **kw)
    assert all(r.fast_retransmits == 0 and r.timeouts > 0 for r in plain.reports)
    assert all(r.fast_retransmits > 10 for r in sack.reports)
    assert sack.mean("goodput_norm") > 2 * plain.mean("goodput_norm")


@needs_ns
def test_metrics_are_consistent() -> None:
    r = simulate_linux("westwood", **PATH, channel="bernoulli:p=0.01", duration_s=20, seed=3)
    # the channel model counts every packet that reached the end of the link (the rest are
    # in flight at the end); deliveries
    # are in order, so at most the packets received; retransmissions are among the sends
    assert r.packets_received + r.channel_losses + r.queue_drops <= r.packets_sent
    assert r.packets_delivered <= r.packets_received
    assert 0 < r.retransmissions < r.packets_sent
    assert r.raw["tick"] == LINUX_JIFFY_S
    assert abs(r.raw["ack"] + 1 - r.packets_delivered) <= PATH["window"]


@needs_ns
def test_link_trace_and_send_for_send_comparison() -> None:
    kw = dict(**PATH, channel="bernoulli:p=0.01", duration_s=5, delayed_ack=True, seed=1)
    rep, sends, fates = linux_link_trace("westwood", **kw)
    assert len(sends) == rep.packets_sent
    assert sum(fates) >= rep.channel_losses
    cmp = compare_linux_send_traces("westwood-plus", "westwood", **kw)
    assert cmp["ns2_sends"] == len(sends)
    # identical until the first loss is detected (tests/reference/test_westwood.py)
    first_lost = fates.index(True)
    assert cmp["index"] is not None and cmp["index"] > first_lost
