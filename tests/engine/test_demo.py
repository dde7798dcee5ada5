"""The demo's claim verdicts on hand-made numbers (mean, 95% CI half-width)."""

from lossytcp.demo import ALPHAS, VARIANTS, _claims


def _means(table):
    return {(v, x): table[v][i] for v in VARIANTS for i, x in enumerate(ALPHAS)}


def test_clear_overlap_and_reversal_are_told_apart():
    base = {"oldtahoe": [(0.1, 0.01)] * 4, "tahoe": [(0.5, 0.01)] * 4,
            "newreno": [(0.4, 0.01)] * 4, "sack": [(0.9, 0.01)] * 4}
    verdicts = {c: (v, d) for c, v, d in _claims(_means(base))}
    assert all(v == "holds" and d == "clearly at every alpha" for v, d in verdicts.values())

    overlap = dict(base, newreno=[(0.4, 0.01)] * 3 + [(0.505, 0.01)])
    v, d = next((v, d) for c, v, d in _claims(_means(overlap)) if c.startswith("Tahoe"))
    assert v == "holds" and d == f"CIs overlap at alpha {ALPHAS[-1]:g}"

    reversed_ = dict(base, newreno=[(0.4, 0.01)] * 3 + [(0.6, 0.01)])
    v, d = next((v, d) for c, v, d in _claims(_means(reversed_)) if c.startswith("Tahoe"))
    assert v == "not seen" and d == f"tahoe<newreno at {ALPHAS[-1]:g}"

    tie = dict(base, newreno=base["tahoe"])
    v, _ = next((v, d) for c, v, d in _claims(_means(tie)) if c.startswith("Tahoe"))
    assert v == "tie"
