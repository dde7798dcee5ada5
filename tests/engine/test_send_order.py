"""New data leaves in sequence order: a sender sends segment n before segment n + 1 the
first time, whatever held it back. A paced sender (BBR) keeps the segment its pacing held
back as the send head; limited transmit on a duplicate ACK used to send the segment after
it, so the path delivered data out of order that no link had reordered (the receiver then
SACKed around a hole, and the segment could be marked lost and retransmitted spuriously)."""

from __future__ import annotations

import pytest

from lossytcp import scenario as s
from lossytcp.emulate.linux import engine_config, engine_variant
from lossytcp.figures import paper003
from lossytcp.sim import _engine_run, build_scenario


def out_of_order_new_data(sc: dict) -> int:
    """How many first transmissions left below a segment already sent."""
    sc["trace"] = {"sends": True, "window": False}
    sends = _engine_run(sc)["flows"][0]["send_trace"]
    high, late = -1, 0
    for _, seq, retransmission in sends:
        if not retransmission:
            late += seq < high
            high = max(high, seq)
    return late


@pytest.mark.parametrize("variant", ["bbr", "bbr3", "cubic", "newreno"])
def test_paper003_two_hop_sends_new_data_in_order(variant: str) -> None:
    # 1% loss on the wireless hop: BBR is paced and nearly always has duplicate ACKs.
    sc = paper003.two_hop(variant, 10e6, 10e6, s.Bernoulli(p=1e-2), duration_s=20.0)
    assert out_of_order_new_data(sc.engine(seed=1)) == 0


@pytest.mark.parametrize("cc", ["bbr", "cubic"])
def test_crosscheck_linux_engine_sends_new_data_in_order(cc: str) -> None:
    v = engine_variant(cc)
    sc = build_scenario(v, rate_bps=10e6, rtt_s=0.05, duration_s=10.0, seed=5,
                        channel="bernoulli:p=0.01",
                        **engine_config(packet_size_bytes=1500, window=None, variant=v))
    assert out_of_order_new_data(sc) == 0
