"""The engine on ns-2's own losses of the grid's reference runs (paired), without ns-2.

test_grid.py compares independent runs: each side draws its own channel realization per seed,
so the comparison carries the channel's chance as well as any modelling difference, and a
2 s.e. band cannot tell a small gap from chance. Here the engine gets the very losses ns-2
applied in each reference run, rebuilt from the generated script's Tcl ``rand()`` draws
(``ns2_channels.py``), and must reproduce ns-2's per-seed results in grid.csv and
grid_plain.csv exactly: goodput, packets sent and timeouts, seed by seed.

Covered: the Bernoulli and per-slot Gilbert-Elliott cases (60 of the 100 case-tests), whose
realizations do not depend on the packet stream; the time- and stream-driven channels
(twostate, burst) need ns-2's link trace (``lossytcp.ns2.compare_send_traces``;
test_replays.py keeps one run of each). Measured: 1200 of 1200 runs identical for the
Reno family and SACK, 156 of 160 for Vegas (see VEGAS_TIE_SEEDS). With a tick
phase other than ns-2's (a random one per seed, before rule 6 of ns2/README.md took ns-2's)
26 of the 1200 differed, each first by whole ticks of the retransmission timer, and another
phase reproduced 25 of them exactly; the 26th was a timer expiry and an ACK arrival at the
same instant, run in the other order (rule 12).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ns2_channels import bernoulli_fates, ge_slot_trace
from test_grid import DATA, EXTRAS, JUDGED, SPEC

import lossytcp
from lossytcp.ns2.script import ns2_seed
from lossytcp.spec import parse_channel

#: Vegas decides once per RTT on ``int((expected - actual) x BaseRTT + 0.5)``. On these
#: deterministic paths the RTT after a loss is often exactly twice BaseRTT with three
#: segments sent and two in use, and the value is exactly 1.0 in exact arithmetic; ns-2's
#: double clock (sums of transmission times and delays, each rounded) lands a few ulps on
#: either side, and the engine's integer nanoseconds do not reproduce that rounding
#: (rounding such ties down instead of up fails 6 of these 16 case-tests instead of 2).
#: The 4 of the 160 Vegas runs here that differ (vegas/2M-20ms/bern-0.02, seeds 10 and 18,
#: both sets) first differ right after such a tie. Up to this many seeds of a case may,
#: each by at most 1% of its packets and 2 timeouts.
VEGAS_TIE_SEEDS = 2


def _replayable(case: dict) -> bool:
    ch = parse_channel(case["kwargs"]["channel"], "channel")
    return ch["kind"] == "bernoulli" or (
        ch["kind"] == "gilbert_elliott" and ch["advance"] == "slot"
        and ch["loss_good"] == 0.0 and ch["loss_bad"] == 1.0 and not ch.get("idle_reset_s"))


CASES = [pytest.param(c, id=c["case"]) for c in SPEC["cases"] if _replayable(c)]


def _trace(case: dict, seed: int, tmp: Path) -> str:
    """The engine's spec of ns-2's channel realization for this seed, written under tmp."""
    kw = case["kwargs"]
    ch = parse_channel(kw["channel"], "channel")
    slot_s = kw["packet_size_bytes"] * 8.0 / kw["rate_bps"]
    # more slots (and so more transmissions) than the run can use
    n = int(kw["duration_s"] / slot_s) + 100
    if ch["kind"] == "bernoulli":
        text, advance = bernoulli_fates(ns2_seed(seed), ch["p"], n), "transmission"
    else:
        text, advance = ge_slot_trace(ns2_seed(seed), ch["alpha"], ch["beta"], n), "slot"
    path = tmp / f"seed{seed}.txt"
    path.write_text(text)
    return f"trace:file={path},advance={advance}"


@pytest.mark.parametrize("setname", ["defaults", "plain"])
@pytest.mark.parametrize("case", CASES)
def test_engine_on_ns2_losses_matches_ns2(case: dict, setname: str, tmp_path: Path) -> None:
    ref = DATA[setname][case["case"]]
    diffs = {m: [] for m in JUDGED}
    for r in ref:
        s = int(r["seed"])
        kw = {**case["kwargs"], "channel": _trace(case, s, tmp_path)}
        rep = lossytcp.simulate(case["variant"], seed=s, profile="ns2", **kw,
                                **EXTRAS[setname])
        for m in JUDGED:
            diffs[m].append(rep.metric(m) - r[m])
    exact = [int(r["seed"]) for i, r in enumerate(ref)
             if all(diffs[m][i] == 0 for m in JUDGED)]
    allowed = VEGAS_TIE_SEEDS if case["variant"] == "vegas" else 0
    near = all(abs(diffs["packets_sent"][i]) <= 0.01 * r["packets_sent"]
               and abs(diffs["timeouts"][i]) <= 2 for i, r in enumerate(ref))
    if len(ref) - len(exact) > allowed or not near:
        worst = {m: max(diffs[m], key=abs) for m in JUDGED}
        raise AssertionError(
            f"{len(ref) - len(exact)} of {len(ref)} seeds differ from ns-2 on its own losses "
            f"(seeds {sorted(set(int(r['seed']) for r in ref) - set(exact))}; largest "
            f"differences {worst}); see one with lossytcp.ns2.compare_send_traces"
            f"({case['variant']!r}, seed=..., **{case['kwargs']!r})")
