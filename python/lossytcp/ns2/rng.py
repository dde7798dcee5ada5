"""ns-2 2.35's default random generator, so that the engine can draw what ns-2 draws.

ns-2 2.35 (tools/rng.cc, without ``OLD_RNG``) generates with L'Ecuyer's MRG32k3a; ``$defaultRNG
seed s`` sets its six state words to ``s`` and ``Random::uniform()`` is the next ``U01()``.
Two things in the scripts of :mod:`lossytcp.ns2.network` come from that generator:

* RED's early-drop test (red.cc ``drop_early()``: one draw per packet tested), after the
  script reseeds the generator with ``ns2_seed(seed)`` at time 0. The engine draws the same
  uniforms when a RED queue has ``ns2_seed`` (crates/lossytcp-sim/src/rng.rs ``Ns2Mrg``).
* Each TCP agent's RTT tick phase ``boot_time_ / tcpTick_``, drawn before that reseed from the
  generator's start-up seed 1: read on Debian's ``ns`` with gdb (the first ``fmod()`` of each
  agent's first RTT sample), a script with n agents (none of them Vegas) gives agent k, in the
  order the script creates them, draw n + k (one agent: draw 1, the engine's default phase;
  five: draws 5 to 9). Each agent draws once when it is created and once more when the run
  starts.

:func:`with_ns2_draws` sets both in an engine scenario. With them, TCP over RED runs send for
send as ns-2 runs them on a path whose times are exact in binary floating point
(tests/reference/test_network.py, the RED replays); elsewhere ns-2's clock, a sum of
rounded doubles, breaks some exact ties the other way and the runs part after a while.
"""

from __future__ import annotations

import copy
from typing import Any

from .script import ns2_seed

__all__ = ["Ns2Rng", "agent_tick_phases", "with_ns2_draws"]

_M1 = 4294967087.0
_M2 = 4294944443.0
_NORM = 1.0 / (_M1 + 1.0)
_A12, _A13N, _A21, _A23N = 1403580.0, 810728.0, 527612.0, 1370589.0


class Ns2Rng:
    """ns-2's ``RNG`` after ``seed`` (1 <= seed < 2^31 - 1)."""

    def __init__(self, seed: int) -> None:
        if not 1 <= seed < 2**31 - 1:
            raise ValueError(f"ns-2 seeds are in [1, 2^31 - 2], not {seed}")
        self._c = [float(seed)] * 6

    def uniform(self) -> float:
        """``RNG::U01()``: uniform in (0, 1), in the reference implementation's doubles."""
        c = self._c
        p1 = _A12 * c[1] - _A13N * c[0]
        p1 -= int(p1 / _M1) * _M1
        if p1 < 0.0:
            p1 += _M1
        c[0], c[1], c[2] = c[1], c[2], p1
        p2 = _A21 * c[5] - _A23N * c[3]
        p2 -= int(p2 / _M2) * _M2
        if p2 < 0.0:
            p2 += _M2
        c[3], c[4], c[5] = c[4], c[5], p2
        return (p1 - p2) * _NORM if p1 > p2 else (p1 - p2 + _M1) * _NORM


def agent_tick_phases(n_agents: int) -> list[float]:
    """The tick phases of a script's ``n_agents`` TCP agents (none Vegas), creation order."""
    g = Ns2Rng(1)
    draws = [g.uniform() for _ in range(2 * n_agents)]
    return draws[n_agents:]


def _variant(entry: dict[str, Any]) -> str:
    return str(entry.get("variant", "new_reno"))


def with_ns2_draws(sc: dict[str, Any], *, red: bool = True) -> dict[str, Any]:
    """A copy of an engine scenario (the dict ``lossytcp._sim.run_json`` reads) that draws what
    ns-2 draws in the script :func:`lossytcp.ns2.network.build_network_script` writes for it:
    every flow's RTT tick phase (the agents are its flows, then ``max_concurrent`` per
    transfers entry; left to the engine's default when one of them is Vegas, whose agents
    draw differently) and, with ``red``, every RED queue's early-drop draws (``ns2_seed``;
    ns-2 has one generator for all of them, so this is ns-2's run as long as one RED queue
    draws). A comparison in law keeps the engine's own RED draws (``red=False``): the tick
    phases are part of ns-2's scenario, its drop draws are not. A tick phase or seed the
    scenario sets is kept."""
    out = copy.deepcopy(sc)
    flows = out.get("flows") or []
    pools = [t for t in out.get("traffic") or [] if t.get("kind") == "transfers"]
    if not any(_variant(e) == "vegas" for e in [*flows, *pools]):
        n = len(flows) + sum(int(t["max_concurrent"]) for t in pools)
        for f, phase in zip(flows, agent_tick_phases(n), strict=False):
            tcp = f["tcp"]
            if tcp.get("profile") == "ns2" and tcp.get("tick_phase") is None:
                f["tcp"] = {**tcp, "tick_phase": phase}
    for lk in out["links"] if red else []:
        q = lk.get("queue")
        if q and q.get("kind") == "red" and q.get("ns2_seed") is None:
            lk["queue"] = {**q, "ns2_seed": ns2_seed(int(out["seed"]))}
    return out
