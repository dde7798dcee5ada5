"""Sysctls of a control run reach the emulator's namespaces: a new network namespace starts
from the kernel's defaults for its TCP settings, not from the host's, so a control set on the
host alone would change nothing (measured: host tcp_comp_sack_nr 0, a new namespace 44)."""

from __future__ import annotations

import pytest

from lossytcp.emulate import emulate
from lossytcp.errors import ParameterError

pytestmark = pytest.mark.usefixtures("emulator")


def test_timestamps_off_in_the_namespaces_give_the_whole_segment(held):
    # With timestamps the kernel takes their 12 bytes from TCP_MAXSEG (1000 - 40 - 12 = 948);
    # without them the segment is the packet less the headers.
    on = held(emulate, "reno", rate_bps=2e6, packet_size_bytes=1000, duration_s=0.5)
    off = held(emulate, "reno", rate_bps=2e6, packet_size_bytes=1000, duration_s=0.5,
               sysctls={"net.ipv4.tcp_timestamps": 0})
    assert (on.snd_mss, off.snd_mss) == (948, 960)
    assert off.path["sysctls"] == {"net.ipv4.tcp_timestamps": "0"}


@pytest.mark.parametrize("bad", [{"kernel.panic": 1}, {"net.ipv4.no_such_knob": 1},
                                 {"net.ipv4.tcp_timestamps": "off"}])
def test_a_bad_sysctl_is_refused_before_any_run(bad):
    with pytest.raises(ParameterError, match="sysctls"):
        emulate("reno", duration_s=0.5, sysctls=bad)
