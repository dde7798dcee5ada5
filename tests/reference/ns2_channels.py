"""ns-2's own channel realizations for the grid, rebuilt without ns-2.

The generated scripts draw every channel decision from Tcl's ``rand()``, seeded by
``srand(ns2_seed(seed))`` (``lossytcp.ns2._tcl``). ``TclRand`` is that generator (Tcl 8.x
``ExprRandFunc``: Park and Miller's minimal standard, Schrage's method, and ``srand()``
returning the first number), and the two functions below repeat the scripts' draws in the
same order, so they give the losses ns-2 applied in the grid's reference runs:

* ``bernoulli_fates``: ``LossyTcp/Bernoulli`` depends on the packet stream only through the
  count of transmissions, so its realization is a fixed per-transmission sequence, the
  engine's ``trace:...,advance=transmission`` channel;
* ``ge_slot_trace``: ``lossytcp_ge_slot`` switches the state at slot boundaries drawn in
  advance, a function of time alone: one outcome per slot, the engine's
  ``trace:...,advance=slot`` channel (the engine's slot is the link's data-packet time, the
  script's ``slot_s``).

Checked against ns-2's own logs (the scripts' ``log-to`` runs and the switch events) for
the grid's 20 seeds on both paths: 120 of 120 realizations identical. The other grid channels
(``twostate``, ``burst``) depend on the packet stream's timing in ways a trace cannot
state; replay those from ns-2's link trace (``lossytcp.ns2.parse_link_fates``).
"""

from __future__ import annotations

import math

#: What lossytcp_geom1 returns for "never" (and its cap).
NEVER = 1_000_000_000


class TclRand:
    """Tcl's ``rand()`` after ``srand(seed)``."""

    IA, IM, IQ, IR, MASK = 16807, 2147483647, 127773, 2836, 123459876

    def __init__(self, seed: int) -> None:
        x = seed & 0x7FFFFFFF
        if x in (0, 0x7FFFFFFF):
            x ^= self.MASK
        self.x = x
        self.rand()  # srand() returns the first number of the new sequence

    def rand(self) -> float:
        tmp = self.x // self.IQ
        self.x = self.IA * (self.x - tmp * self.IQ) - self.IR * tmp
        if self.x < 0:
            self.x += self.IM
        return self.x * (1.0 / self.IM)

    def geom1(self, q: float) -> int:
        """``lossytcp_geom1``: trials up to and including the first success."""
        if q >= 1.0:
            return 1
        if q <= 0.0:
            return NEVER
        u = 1.0 - self.rand()
        return min(1 + int(math.floor(math.log(u) / math.log(1.0 - q))), NEVER)


def bernoulli_fates(ns2_seed: int, p: float, n: int) -> str:
    """The first ``n`` per-transmission outcomes of ``LossyTcp/Bernoulli`` ('1' lost)."""
    if p <= 0.0:
        return "0" * n
    r = TclRand(ns2_seed)
    runs: list[str] = []
    total = 0
    while total < n:
        g = min(r.geom1(p) - 1, n - total)
        runs.append("0" * g + "1")
        total += g + 1
    return "".join(runs)[:n]


def ge_slot_trace(ns2_seed: int, alpha: float, beta: float, n_slots: int) -> str:
    """One outcome per slot ('1' Bad) of ``lossytcp_ge_slot`` with loss 0 in Good, 1 in Bad."""
    r = TclRand(ns2_seed)
    bad = r.rand() < alpha / (alpha + beta)
    out: list[str] = []
    k = 0
    while k < n_slots:
        length = r.geom1(beta if bad else alpha)
        length = min(length, n_slots - k)
        out.append(("1" if bad else "0") * length)
        k += length
        bad = not bad
    return "".join(out)
