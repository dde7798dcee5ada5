"""Regenerate the ns-2 2.35 reference data in this directory (``make reference``).

Two kinds of data, both produced by ``lossytcp.ns2`` (the generated Tcl scripts run by ``ns``):

* ``grid.csv`` / ``grid_cases.json``: per-seed metrics for a grid of scenarios, variants x
  channels x paths x seeds 1-20 (``cases()`` below), 100 simulated seconds each, ns-2's timer
  settings (10 ms tick, 200 ms minimum RTO, 1 s initial RTO); ``grid_plain.csv`` the same
  with ns-2's limited transmit and delayed first-ACK growth off (``PLAIN``);
  ``grid_retest.csv`` seeds 21-220 of the cases test_grid.py judges "chance" (its
  ``CHANCE`` tables: beyond 2 s.e. on seeds 1-20, judged again on these fresh seeds).
* ``fall_floyd/<variant>-<k>drops.csv``: the sender's send trace (time, segment,
  retransmission flag) for Fall & Floyd's experiment: 10 Mb/s, one-way delay 50 ms,
  1000 B packets, window 16, segments 40 .. 40+k-1 lost once, k = 1..4, for Tahoe, Reno,
  NewReno (``Agent/TCP/Newreno``), SACK (``Agent/TCP/Sack1``) and Vegas
  (``Agent/TCP/Vegas``), 6 s. ns-2's defaults;
  and again in ``fall_floyd/plain/`` with two ns-2 extras switched off, limited transmit
  (``singledup_ 0``) and delayed cwnd growth on the first ACK (``delay_growth_ false``),
  which isolates the recovery algorithms themselves.

    python tests/reference/make_reference.py [--only grid|retest|fall-floyd] [--variants V ...]

``--variants`` (grid only) runs ns-2 for those variants alone and replaces their rows in
the existing ``grid.csv``, ``grid_plain.csv``, ``grid_cases.json`` and ``grid_retest.csv``,
keeping every other variant's rows as they are: a variant added to ``VARIANTS`` (and to
``lossytcp.ns2.AGENTS``) gets its reference data without rerunning the rest. The existing
files must have been made with the same seeds, metrics and plain settings (and the same
generator: rows kept are not rerun).

``--only retest`` remakes ``grid_retest.csv`` alone, after a change of the ``CHANCE`` tables.

Needs ``ns`` on PATH (Debian package ns2); the tests that read these files do not. The whole
grid (2 x 50 cases x 20 seeds) takes about 2 minutes, its retest about 10 s per case.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from lossytcp import ns2  # noqa: E402

#: 20 seeds: with 5 the 2 s.e. bands were too wide (and their s.e. too noisy) to tell chance
#: from a modelling gap (see test_grid.py).
SEEDS = tuple(range(1, 21))
DURATION_S = 100.0
TIMERS = dict(granularity_s=0.01, min_rto_s=0.2, initial_rto_s=1.0)
PATHS = {
    "2M-20ms": dict(rate_bps=2e6, rtt_s=0.02, packet_size_bytes=500, window=20),
    "10M-100ms": dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=64),
}
CHANNELS = {
    "bern-0.001": "bernoulli:p=0.001",
    "bern-0.02": "bernoulli:p=0.02",
    "ge-slot": "ge:alpha=0.01,beta=0.2,advance=slot",
    "twostate": "twostate:good=1s,bad=50ms",
    "burst": "burst:p=0.01,hold=50ms",
}
VARIANTS = ("oldtahoe", "tahoe", "reno", "newreno", "sack", "vegas")
METRICS = ("goodput_norm", "throughput_norm", "packets_sent", "retransmissions",
           "channel_losses", "timeouts", "fast_retransmits", "timeout_fraction")

FF = dict(rate_bps=10e6, rtt_s=0.1, packet_size_bytes=1000, window=16, duration_s=6.0,
          granularity_s=0.01, min_rto_s=1.0, initial_rto_s=3.0, seed=1)
FF_VARIANTS = ("tahoe", "reno", "newreno", "sack", "vegas")
FF_FIRST = 40
#: ns-2 extras switched off for the plain sets (the engine: limited_transmit=False,
#: delay_growth=False).
PLAIN = {"singledup_": 0, "delay_growth_": "false"}


def cases(variants: tuple[str, ...] = VARIANTS) -> list[dict]:
    out = []
    for path, pk in PATHS.items():
        for ch, spec in CHANNELS.items():
            for v in VARIANTS:
                if v not in variants:
                    continue
                out.append({"case": f"{v}/{path}/{ch}", "variant": v,
                            "kwargs": {**pk, "channel": spec, "duration_s": DURATION_S,
                                       **TIMERS}})
    return out


#: reference set -> (file, ns-2 agent settings)
GRID_SETS = {"defaults": ("grid.csv", None), "plain": ("grid_plain.csv", PLAIN)}
#: Fresh seeds for the cases test_grid.py judges "chance" (CHANCE, CHANCE_PLAIN): a
#: comparison beyond 2 s.e. on seeds 1-20 is judged again on these, ten times as many.
RETEST_SEEDS = tuple(range(21, 221))
RETEST_FILE = "grid_retest.csv"


def _header() -> dict:
    return {"seeds": list(SEEDS), "metrics": list(METRICS), "ns2": "2.35 (Debian ns2)",
            "plain": PLAIN, "retest_seeds": [RETEST_SEEDS[0], RETEST_SEEDS[-1]]}


def _retest_cases() -> dict[str, list[str]]:
    """Reference set -> the cases test_grid.py judges "chance" (its CHANCE tables)."""
    import test_grid  # this directory is on sys.path when the script runs

    return {"defaults": list(test_grid.CHANCE), "plain": list(test_grid.CHANCE_PLAIN)}


def make_grid(variants: tuple[str, ...] | None = None) -> None:
    """The whole grid, or (``variants``) only those variants' rows, the rest kept."""
    if variants is None:
        cs = cases()
        rows = {name: _grid(cs, name, settings, SEEDS) for name, settings in GRID_SETS.values()}
    else:
        unknown = sorted(set(variants) - set(VARIANTS))
        if unknown:
            raise SystemExit(f"unknown variant(s) {unknown}: add them to VARIANTS first")
        old = json.loads((HERE / "grid_cases.json").read_text())
        if {k: old.get(k) for k in _header()} != _header():
            raise SystemExit("grid_cases.json was made with other seeds, metrics or plain "
                             "settings: regenerate the whole grid (--only grid)")
        new = cases(tuple(variants))
        kept = [c for c in old["cases"] if c["variant"] not in variants]
        # cases() order (paths, channels, VARIANTS) for the merged list
        order = {c["case"]: i for i, c in enumerate(cases())}
        cs = sorted(kept + new, key=lambda c: order.get(c["case"], len(order)))
        rows = {}
        for name, settings in GRID_SETS.values():
            fresh = _grid(new, name, settings, SEEDS)
            prev = _read_rows(HERE / name)
            rows[name] = {c["case"]: fresh[c["case"]] if c["variant"] in variants
                          else prev[c["case"]] for c in cs}
    for name, _ in GRID_SETS.values():
        _write_rows(HERE / name, cs, rows[name])
    (HERE / "grid_cases.json").write_text(json.dumps({**_header(), "cases": cs}, indent=1)
                                          + "\n")
    make_retest(variants)


def make_retest(variants: tuple[str, ...] | None = None) -> None:
    """``grid_retest.csv``: seeds RETEST_SEEDS for the cases judged "chance" in test_grid.py
    (with ``variants``, only those variants' cases are run again, the others' rows kept)."""
    by_case = {c["case"]: c for c in cases()}
    prev: dict[tuple[str, str], list[list[str]]] = {}
    path = HERE / RETEST_FILE
    if variants is not None and path.exists():
        with open(path, newline="") as f:
            r = csv.reader(f)
            if next(r) == ["set", "case", "seed", *METRICS]:
                for row in r:
                    prev.setdefault((row[0], row[1]), []).append(row[2:])
    order = {c: i for i, c in enumerate(by_case)}
    out: list[list[str]] = []
    for setname, wanted in _retest_cases().items():
        name, settings = GRID_SETS[setname]
        for case in sorted(wanted, key=lambda c: order.get(c, len(order))):
            if case not in by_case:
                raise SystemExit(f"test_grid.py judges {case!r} chance, but it is not in the "
                                 "grid")
            old = prev.get((setname, case))
            if old is None or variants is None or by_case[case]["variant"] in variants:
                old = _grid([by_case[case]], f"{RETEST_FILE} {setname}", settings,
                            RETEST_SEEDS)[case]
            out.extend([setname, case, *row] for row in old)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["set", "case", "seed", *METRICS])
        w.writerows(out)


def _grid(cs: list[dict], name: str, settings: dict | None,
          seeds: tuple[int, ...]) -> dict[str, list[list[str]]]:
    """ns-2's rows (seed, metrics...) per case."""
    t0 = time.time()
    out: dict[str, list[list[str]]] = {}
    for i, c in enumerate(cs):
        out[c["case"]] = []
        for s in seeds:
            r = ns2.simulate_ns2(c["variant"], seed=s, agent_settings=settings, **c["kwargs"])
            out[c["case"]].append([str(s), *(repr(r.metric(m)) for m in METRICS)])
        print(f"{name} [{i + 1}/{len(cs)}] {c['case']} ({time.time() - t0:.0f} s)", flush=True)
    return out


def _read_rows(path: Path) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    with open(path, newline="") as f:
        r = csv.reader(f)
        if next(r) != ["case", "seed", *METRICS]:
            raise SystemExit(f"{path.name} has other columns: regenerate the whole grid")
        for row in r:
            out.setdefault(row[0], []).append(row[1:])
    return out


def _write_rows(path: Path, cs: list[dict], rows: dict[str, list[list[str]]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "seed", *METRICS])
        for c in cs:
            for row in rows[c["case"]]:
                w.writerow([c["case"], *row])


def make_fall_floyd() -> None:
    for sub, settings in (("", None), ("plain", PLAIN)):
        _fall_floyd_set(HERE / "fall_floyd" / sub, settings)
    (HERE / "fall_floyd" / "scenario.json").write_text(json.dumps(
        {**FF, "first_drop": FF_FIRST, "variants": FF_VARIANTS, "plain": PLAIN}, indent=1) + "\n")


def _fall_floyd_set(d: Path, settings: dict | None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for v in FF_VARIANTS:
        for k in range(1, 5):
            seqs = "+".join(str(s) for s in range(FF_FIRST, FF_FIRST + k))
            rep, trace = ns2.run_drops(v, channel=f"drops:seq={seqs}", agent_settings=settings,
                                       **FF)
            with open(d / f"{v}-{k}drops.csv", "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["time_s", "seq", "retransmission"])
                for t, s, rx in trace:
                    w.writerow([f"{t:.9f}", s, int(rx)])
            print(f"fall-floyd {d.name} {v} {k} drops: {len(trace)} sends, timeouts "
                  f"{rep.timeouts}, fast retransmits {rep.fast_retransmits}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=["grid", "retest", "fall-floyd"], default=None)
    ap.add_argument("--variants", nargs="+", default=None, metavar="V",
                    help="grid only: regenerate these variants' rows, keep the others")
    a = ap.parse_args(argv)
    if a.variants is not None and a.only == "fall-floyd":
        ap.error("--variants applies to the grid and its retest")
    if a.only in (None, "fall-floyd") and a.variants is None:
        make_fall_floyd()
    if a.only in (None, "grid"):
        make_grid(None if a.variants is None else tuple(a.variants))
    elif a.only == "retest":
        make_retest(None if a.variants is None else tuple(a.variants))
    return 0


if __name__ == "__main__":
    sys.exit(main())
