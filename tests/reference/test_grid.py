"""The engine against ns-2 2.35 on the reference grid (data: grid.csv, made by
make_reference.py from ns-2 runs of the same scenarios and seeds).

Two reference sets: ns-2 with its defaults (grid.csv; the engine's ns2 profile defaults,
limited transmit and delay_growth_ on) and with both off (grid_plain.csv; the engine with
``limited_transmit=False, delay_growth=False``). 50 cases each, seeds 1-20 on both sides,
each side drawing its own channel realizations: this is the comparison in law, channel
models included. The sender alone is held to exact agreement on ns-2's own losses elsewhere
(test_grid_paired.py; test_replays.py).

Judged: the mean over the seeds of goodput, packets sent and timeouts. A metric agrees when

* |engine - ns-2| <= 2 standard errors of the difference (independent runs: sqrt(se_a^2 +
  se_b^2)), or
* |engine - ns-2| <= 3% of ns-2's mean (all three metrics), or
* for timeouts, the totals over the seeds differ by at most 4 events.

The tolerances (sized 2026-11 on this grid; ns2/README.md, "Evidence"): differences under
3% are below what this comparison is for: the gap rule 10 (b) closed was +52% in SACK's
timeouts (36.4 against 24), and the sender is checked exactly on ns-2's own losses, where all
2000 runs of the grid agree with ns-2 send for send. Below 3% a 2 s.e. band
(narrower than 3% in 44, 44 and 21 of the 100 goodput, packets and timeouts comparisons)
fails on the channel realization that every case of a path and channel shares on each side:
2M-20ms/bern-0.001 misses 2 s.e. in goodput and packets by 0.13-0.31% in five case-tests at
once (z -2.1 to -2.5), while on ns-2's own losses all 200 runs of that path and channel are
exact. The 4
events: timeouts are counts, rare on light loss (0-0.2 per run at bern-0.001), where the
sample s.e. is unreliable (zero when no seed has one) and 4 events against none is chance
(two-sided p = 2/2^4 = 0.125 for equal rates). Today neither timeouts tolerance decides a
verdict.

Many comparisons, so some fail by chance: 300 here (100 case-tests x 3 metrics), each with a
false-alarm rate of about 5.3% at 2 s.e. (t with ~38 degrees of freedom): ~16 expected beyond
2 s.e. by chance alone, ~5 beyond 2.5, ~1.4 beyond 3. Measured on seeds 1-20: z = (engine -
ns-2) / s.e. has mean -0.17 and standard deviation 0.97 over the 300; 15 beyond 2, 2 beyond
2.5, none beyond 3 (largest 2.69). The z-scores of one path and channel move together (each
side gives every variant the same channel realization per seed; mean z of goodput over
them: -1.43 on bern-0.001, +0.02 on bern-0.02, -0.11 on ge-slot, -0.36 on twostate, -0.39
on burst), which is why misses cluster. A case beyond the rule on seeds 1-20 is listed in
``CHANCE`` / ``CHANCE_PLAIN`` only once the miss is shown to be chance (the engine exact on
ns-2's own losses of those seeds, and the channel's law checked), and is then judged by the
same rule again on 200 fresh seeds (21-220, grid_retest.csv, both sides): a real gap shows
there at sqrt(10) times the significance, a chance miss repeats with probability 5%. The
listing is strict: a listed case that agrees on seeds 1-20 fails, asking for its removal.

Cases where the engine's ns2 profile is known to differ from ns-2 are marked xfail(strict)
with the reason (``KNOWN``, ``KNOWN_PLAIN``; none at present); a fix turns them into failures
that ask for the mark to be removed.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

import lossytcp

HERE = Path(__file__).resolve().parent
SPEC = json.loads((HERE / "grid_cases.json").read_text())

JUDGED = ("goodput_norm", "packets_sent", "timeouts")
#: relative floor for all three metrics (see the module docstring)
REL_TOL = 0.03
#: timeouts: totals over the seeds that differ by this many events or fewer agree
COUNT_TOL = 4
EXTRAS = {"defaults": {}, "plain": {"limited_transmit": False, "delay_growth": False}}


def _load(name: str) -> dict[str, list[dict[str, float]]]:
    rows: dict[str, list[dict[str, float]]] = {}
    with open(HERE / name) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["case"], []).append(
                {k: float(v) for k, v in r.items() if k != "case"})
    return rows


def _load_retest() -> dict[str, dict[str, list[dict[str, float]]]]:
    out: dict[str, dict[str, list[dict[str, float]]]] = {"defaults": {}, "plain": {}}
    path = HERE / "grid_retest.csv"
    if path.exists():
        with open(path) as f:
            for r in csv.DictReader(f):
                out[r["set"]].setdefault(r["case"], []).append(
                    {k: float(v) for k, v in r.items() if k not in ("set", "case")})
    return out


DATA = {"defaults": _load("grid.csv"), "plain": _load("grid_plain.csv")}
RETEST = _load_retest()

#: Known divergences of the engine's ns2 profile (see python/lossytcp/ns2/README.md): none.
KNOWN: dict[str, str] = {}
KNOWN_PLAIN: dict[str, str] = {}

# Misses on seeds 1-20 shown to be chance: on ns-2's own channel realization of the same 20
# seeds the engine reproduces ns-2's three metrics exactly (test_grid_paired.py), so the
# sender is not the cause; the engine's Gilbert-Elliott per-slot channel against ns-2's
# realizations, the sender held fixed (the engine on both), over seeds 21-3020 of
# tahoe/2M-20ms/ge-slot: timeouts -0.46% (z -1.70), goodput +0.19% (z 1.44), so the law is
# not either. All three share the 2M-20ms ge-slot realizations of seeds 1-20 (the same on
# each side for every variant), harsher on the engine's side.
_GE_2M = ("2M-20ms ge-slot realizations of seeds 1-20; on ns-2's own, the engine matches "
          "ns-2 exactly in 20 of 20 seeds")
CHANCE: dict[str, str] = {
    # timeouts 78.3 +- 1.2 against 72.35 +- 1.9 (+8.2%, z 2.69); seeds 21-220: -0.65%
    # (z -0.64), goodput -0.35%
    "tahoe/2M-20ms/ge-slot": _GE_2M,
}
CHANCE_PLAIN: dict[str, str] = {
    # timeouts 94.7 +- 1.8 against 89.2 +- 2.1 (+6.2%, z 2.01); seeds 21-220: -0.03%
    "tahoe/2M-20ms/ge-slot": _GE_2M,
    # timeouts 100 +- 1.7 against 93.05 +- 2.3 (+7.5%, z 2.44), packets -3.4% (z -2.20),
    # goodput -3.5% (z -2.14); seeds 21-220: timeouts +0.04%, goodput -0.50% (z -0.91)
    "newreno/2M-20ms/ge-slot": _GE_2M,
}
TABLES = {"defaults": (KNOWN, CHANCE), "plain": (KNOWN_PLAIN, CHANCE_PLAIN)}


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


def compare(metric: str, a: np.ndarray, b: np.ndarray) -> tuple[bool, float]:
    """(agrees, z) for the engine's per-seed values ``a`` against ns-2's ``b``."""
    (ma, sa), (mb, sb) = _mean_se(a), _mean_se(b)
    se = math.hypot(sa, sb)
    d = ma - mb
    z = d / se if se > 0 else (0.0 if d == 0 else math.copysign(math.inf, d))
    ok = (abs(d) <= 2 * se or abs(d) <= REL_TOL * abs(mb)
          or (metric == "timeouts" and abs(a.sum() - b.sum()) <= COUNT_TOL))
    return ok, z


def _misses(case: dict, ref: list[dict[str, float]], extras: dict[str, bool]) -> list[str]:
    seeds = [int(r["seed"]) for r in ref]
    reports = [lossytcp.simulate(case["variant"], seed=s, profile="ns2", **case["kwargs"],
                                 **extras)
               for s in seeds]
    bad = []
    for m in JUDGED:
        a = np.array([r.metric(m) for r in reports])
        b = np.array([r[m] for r in ref])
        ok, z = compare(m, a, b)
        if not ok:
            (ma, sa), (mb, sb) = _mean_se(a), _mean_se(b)
            bad.append(f"{m}: engine {ma:.5g} ± {sa:.2g}, ns-2 {mb:.5g} ± {sb:.2g} "
                       f"({(ma - mb) / abs(mb):+.1%}, z {z:+.2f}, seeds {seeds[0]}-{seeds[-1]})")
    return bad


def _params(setname: str) -> list:
    known, chance = TABLES[setname]
    out = []
    for c in SPEC["cases"]:
        marks = ([pytest.mark.xfail(strict=True, reason=known[c["case"]])]
                 if c["case"] in known else [])
        out.append(pytest.param(c, id=c["case"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params("defaults"))
def test_engine_matches_ns2_defaults(case: dict) -> None:
    _check("defaults", case)


@pytest.mark.parametrize("case", _params("plain"))
def test_engine_matches_ns2_without_its_extras(case: dict) -> None:
    _check("plain", case)


def _check(setname: str, case: dict) -> None:
    name = case["case"]
    bad = _misses(case, DATA[setname][name], EXTRAS[setname])
    chance = TABLES[setname][1].get(name)
    if chance is None:
        assert not bad, "; ".join(bad)
        return
    assert bad, (f"{name} agrees with ns-2 on seeds 1-20 now: remove it from the CHANCE table "
                 f"of its set ({setname}) and rerun make_reference.py --only retest")
    fresh = RETEST[setname].get(name)
    assert fresh, f"no retest data for {name} ({setname}): make_reference.py --only retest"
    bad_fresh = _misses(case, fresh, EXTRAS[setname])
    assert not bad_fresh, ("not chance: the miss repeats on the fresh seeds: "
                           + "; ".join(bad_fresh) + " (seeds 1-20: " + "; ".join(bad) + ")")


def test_retest_data_covers_exactly_the_chance_cases() -> None:
    for setname, (known, chance) in TABLES.items():
        assert set(RETEST[setname]) == set(chance), setname
        assert not set(known) & set(chance), setname
        for name, rows in RETEST[setname].items():
            assert [int(r["seed"]) for r in rows] == list(
                range(SPEC["retest_seeds"][0], SPEC["retest_seeds"][1] + 1)), name
