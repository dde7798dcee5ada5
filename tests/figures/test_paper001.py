"""Paper 001's control runs (lossytcp.figures.paper001): the mechanisms the whys of the
model's verdicts name, each pinned on the figure's own parameters."""

from __future__ import annotations

from lossytcp import models
from lossytcp.figures import paper001 as m


def _gain(e: int, **opts) -> float:
    mu, T, wm, H, V = m.design()[e]
    thr = {v: models.evaluate("abrupt-rtt", **m._model(mu, T, H, V, wm, v), **opts)
           .throughput_pps for v in ("oldtahoe", "reno")}
    return thr["oldtahoe"] / thr["reno"] - 1


def test_eq3_as_typeset_counts_more_spurious_dupacks_so_oldtahoe_gains_more():
    """Fig. 9's control: OldTahoe's gain over Reno comes from Reno's spurious duplicate ACKs
    alone; eq. (3) as typeset counts more of them than the consecutive reading, never fewer,
    so every experiment's gain is at least ours and the share of gains above 10% grows."""
    ours = [_gain(e) for e in range(16)]
    typeset = [_gain(e, dupack_rule="typeset") for e in range(16)]
    assert all(t >= o - 1e-9 for o, t in zip(ours, typeset, strict=True))
    assert sum(t > 0.10 for t in typeset) > sum(o > 0.10 for o in ours)
