"""The engine against ns-2 2.35 on the reference grid (data: grid.csv, made by
make_reference.py from ns-2 runs of the same scenarios and seeds).

Judged: the mean over the five seeds of goodput, packets sent and timeouts. Agreement means
|engine - ns-2| <= 2 standard errors of the difference (independent runs: sqrt(se_a^2 +
se_b^2)) or, for goodput and packets sent, within a 3% relative tolerance (seed-to-seed spread
can be tiny on light loss, where a 2 s.e. band is narrower than any modelling detail).
Two reference sets: ns-2 with its defaults (grid.csv; the engine's ns2 profile defaults,
limited transmit and delay_growth_ on) and with both off (grid_plain.csv; the engine with
``limited_transmit=False, delay_growth=False``).
Cases where the engine's 'ns2' profile is known to differ from ns-2 are marked xfail(strict)
with the reason; a fix turns them into failures that ask for the mark to be removed.
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


def _load(name: str) -> dict[str, list[dict[str, float]]]:
    rows: dict[str, list[dict[str, float]]] = {}
    with open(HERE / name) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["case"], []).append(
                {k: float(v) for k, v in r.items() if k != "case"})
    return rows


DATA = {"defaults": _load("grid.csv"), "plain": _load("grid_plain.csv")}

JUDGED = {"goodput_norm": 0.03, "packets_sent": 0.03, "timeouts": None}

#: Known divergences of the engine's ns2 profile (see python/lossytcp/ns2/README.md).
_SACK_GAP = ("SACK: ns-2 2.35's Sack1 rules are modelled, a difference remains under bursty "
             "channels; not located (ns2/README.md, 'Known gaps', open)")
KNOWN_PLAIN: dict[str, str] = {
    "sack/10M-100ms/burst": _SACK_GAP,
    # 14% below ns-2 in goodput; yet on the losses of ns-2's own seeds 1 and 2 (its link
    # trace replayed as a drop list) the engine sends what ns-2 sends for all 100 s.
    "sack/10M-100ms/twostate": _SACK_GAP,
    # Borderline since the recover_ = 0 rule: timeouts 25.2 +- 1.3 against 30.8 +- 2.3
    # (2.1 s.e.); on ns-2's own losses seeds 1 and 2 match send for send (99 and 100 s),
    # seeds 3-5 up to the first loss a drop list cannot express (a retransmission lost
    # after its original got through).
    "sack/10M-100ms/ge-slot": "SACK timeouts 2.1 s.e. below ns-2; same losses, same sends",
}
KNOWN: dict[str, str] = {
    # Borderline: timeouts 71.4 +- 0.51 against ns-2's 74.2 +- 1.3 (2.0 s.e.; unchanged by
    # switching limited transmit and delay_growth_ off); goodput and packets agree.
    "oldtahoe/10M-100ms/burst": "timeouts 2.0 s.e. below ns-2; not located",
    # Borderline the same way: timeouts 56.4 +- 1.1 against 59.6 +- 1.1 (2.05 s.e.), goodput
    # and packets agree, and Reno's send traces under burst drop lists match ns-2 send for
    # send (fall_floyd/bursts); what remains is in the burst channel's timing, not located.
    "reno/10M-100ms/burst": "timeouts 2.05 s.e. below ns-2; not located",
}


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


def _cases(known: dict[str, str]) -> list:
    out = []
    for c in SPEC["cases"]:
        marks = ([pytest.mark.xfail(strict=True, reason=known[c["case"]])]
                 if c["case"] in known else [])
        out.append(pytest.param(c, id=c["case"], marks=marks))
    return out


@pytest.mark.parametrize("case", _cases(KNOWN))
def test_engine_matches_ns2_defaults(case: dict) -> None:
    _check(case, DATA["defaults"][case["case"]], {})


@pytest.mark.parametrize("case", _cases(KNOWN_PLAIN))
def test_engine_matches_ns2_without_its_extras(case: dict) -> None:
    _check(case, DATA["plain"][case["case"]],
           {"limited_transmit": False, "delay_growth": False})


def _check(case: dict, ref: list[dict[str, float]], extras: dict[str, bool]) -> None:
    seeds = [int(r["seed"]) for r in ref]
    reports = [lossytcp.simulate(case["variant"], seed=s, profile="ns2", **case["kwargs"],
                                 **extras)
               for s in seeds]
    bad = []
    for m, rel in JUDGED.items():
        a = np.array([r.metric(m) for r in reports])
        b = np.array([r[m] for r in ref])
        (ma, sa), (mb, sb) = _mean_se(a), _mean_se(b)
        se = math.hypot(sa, sb)
        ok = abs(ma - mb) <= 2 * se or (rel is not None and abs(ma - mb) <= rel * abs(mb))
        if not ok:
            bad.append(f"{m}: engine {ma:.5g} ± {sa:.2g}, ns-2 {mb:.5g} ± {sb:.2g}")
    assert not bad, "; ".join(bad)
