"""Verdicts of a cross-check, whatever the reference simulator: statistics, tables, JSON.

A backend (``crosscheck ns2`` today; ns-3 or the Linux kernel later) runs the same scenario
in the engine and in its reference for each seed and hands over one *observation* per run
and side: a mapping from :class:`Quantity` (section, row, metric) to a number, NaN where the
side cannot observe it. :func:`judge` tests every quantity at once:

* unpaired (each side its own randomness): Welch's t-test of the per-seed values
  (two-sided, unequal variances); with zero spread on both sides the test is exact;
* paired (the reference's losses replayed in the engine, the same seed on both sides): a
  paired t-test of the per-seed differences, exact when the differences are constant.

The p-values of all quantities form one family, corrected with Holm's method: a quantity
"DIFFERS" only when its Holm-adjusted p-value is below ``alpha``, so two identical systems
exit 1 by chance at most ``alpha`` of the time however many quantities are judged. Holm
rather than Bonferroni: the same family-wise guarantee under any dependence (goodput,
packets sent and retransmissions move together; a flow's goodput and the aggregate too),
and never fewer detections. Each unpaired quantity also shows the smallest difference its
seed count detects with 80% power at the strictest Holm level: "agree" with few seeds means
"no difference larger than that", not "equal".

:func:`flow_observation` turns per-flow counters of either side into the aggregate,
per-flow and fairness quantities with one set of definitions, so that both sides are
computed alike.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..sim import RunCounts

__all__ = ["EXIT_AGREE", "EXIT_BAD_INPUT", "EXIT_CRASH", "EXIT_DIFFER", "EXIT_INTERRUPTED",
           "EXIT_NO_REFERENCE", "EXIT_TERMINATED", "FlowCounts", "Quantity", "SECTIONS",
           "exit_code", "flow_observation", "judge", "print_verdicts", "verdicts_json"]

EXIT_AGREE, EXIT_DIFFER, EXIT_BAD_INPUT, EXIT_NO_REFERENCE, EXIT_CRASH = 0, 1, 2, 3, 4
#: 128 + the signal's number, as a shell reports a process the signal ended.
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143


class Quantity(NamedTuple):
    """What one judged number is: ``section`` (a key of :data:`SECTIONS`), ``row`` (a flow,
    a link, a traffic kind; empty in the aggregate) and ``metric``."""

    section: str
    row: str
    metric: str


#: Sections in display order: title, the name of their row column (None: no rows), and the
#: key of their rows in the JSON output.
SECTIONS: dict[str, tuple[str, str | None, str]] = {
    "aggregate": ("all flows together", None, "metrics"),
    "flow": ("per flow", "flow", "flows"),
    "fairness": ("fairness", None, "fairness"),
    "link": ("queues and channels, per link", "link", "links"),
    "traffic": ("generated traffic, per kind", "traffic", "traffic"),
}


# --- observations from per-flow counters --------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class FlowCounts(RunCounts):
    """One flow's counters as either side reports them (the rates derive from them as for
    the engine's reports; ``packets_received`` NaN where a side does not count it)."""

    label: str
    completion_time_s: float | None = None


#: Quantities of a network run: the aggregate's and each flow's (when there are several).
NET_AGGREGATE = ("goodput_norm", "packets_sent", "retransmissions", "timeouts",
                 "fast_retransmits", "timeout_fraction", "transmissions_per_delivered")
NET_PER_FLOW = ("goodput_norm", "packets_sent", "retransmissions", "timeouts",
                "fast_retransmits")


def flow_observation(flows: Sequence[FlowCounts], finite: bool = False
                     ) -> dict[Quantity, float]:
    """The aggregate, per-flow (several flows) and fairness quantities of one run, by the
    definitions of :class:`lossytcp.sim.NetReport` (counters summed, goodput over the largest
    flow's bottleneck capacity, Jain's index of goodput) whichever side counted them.
    ``finite``: some flow is a finite transfer (its completion time is judged)."""
    from ..sim import NetReport

    together = NetReport(seed=0, flows=tuple(flows), links=(), traffic=(), events=0,
                         simulated_s=0.0)
    extra = ("completion_time_s",) if finite else ()
    out = {Quantity("aggregate", "", m): together.metric(m) for m in (*NET_AGGREGATE, *extra)}
    if len(flows) > 1:
        for f in flows:
            out.update({Quantity("flow", f.label, m): f.metric(m)
                        for m in (*NET_PER_FLOW, *extra)})
        out[Quantity("fairness", "", "jain_index")] = together.jain()
    return out


# --- statistics ---------------------------------------------------------------------------

def _finite(x: np.ndarray) -> np.ndarray:
    return x[np.isfinite(x)]


def _mean_se_sd(x: np.ndarray) -> tuple[float, float, int, float]:
    x = _finite(x)
    if x.size == 0:
        return math.nan, math.nan, 0, math.nan
    sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
    return float(x.mean()), sd / math.sqrt(x.size) if x.size > 1 else math.nan, int(x.size), sd


def _keys(engine: Sequence[Mapping[Quantity, float]], ref: Sequence[Mapping[Quantity, float]]
          ) -> list[Quantity]:
    """Every quantity either side observed, in the order first seen, sections in order."""
    seen: dict[Quantity, None] = {}
    for obs in (*engine, *ref):
        for k in obs:
            seen.setdefault(Quantity(*k), None)
    order = list(SECTIONS)
    return sorted(seen, key=lambda k: order.index(k.section))


def _values(obs: Sequence[Mapping[Quantity, float]], k: Quantity) -> np.ndarray:
    return np.array([o.get(k, math.nan) for o in obs], dtype=float)


#: Differences this small are the two sides' arithmetic, not their behaviour: ns-2 sums
#: double-precision times where the engine counts whole nanoseconds (a completion time may
#: differ by one), and rates of the same counts differ in the last bits.
_TOLERANCE = 1e-9


def _negligible(d: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(d) <= _TOLERANCE * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


def _constant(x: np.ndarray) -> bool:
    x = _finite(x)
    return x.size > 1 and bool(np.all(x == x[0]))


def judge(engine: Sequence[Mapping[Quantity, float]], ref: Sequence[Mapping[Quantity, float]],
          *, ref_name: str, alpha: float = 0.05, paired: bool = False) -> list[dict[str, Any]]:
    """One row per quantity: both sides' means, the test, Holm's adjusted p-value over all
    rows, the verdict at family level ``alpha`` ("agree", "DIFFER", "n/a" without a test).
    Unpaired rows carry standard errors and ``detectable_80``; paired rows the number of
    seeds with identical values. ``ref_name`` keys the reference's columns (``"ns2"``)."""
    from scipy import stats as st

    from ..experiments.stats import holm, welch

    rows: list[dict[str, Any]] = []
    sds: list[tuple[float, float]] = []
    for k in _keys(engine, ref):
        a, b = _values(engine, k), _values(ref, k)
        row: dict[str, Any] = {"section": k.section, "row": k.row, "metric": k.metric}
        if paired:
            ok = np.isfinite(a) & np.isfinite(b)
            d = a[ok] - b[ok]
            d[_negligible(d, a[ok], b[ok])] = 0.0
            if d.size == 0:
                p = math.nan
            elif np.all(d == d[0]):
                p = 1.0 if d[0] == 0 else 0.0
            elif d.size < 2:
                p = math.nan
            else:
                p = float(st.ttest_1samp(d, 0.0).pvalue)
            row.update({"lossytcp": float(a[ok].mean()) if d.size else math.nan,
                        ref_name: float(b[ok].mean()) if d.size else math.nan,
                        "diff": float(d.mean()) if d.size else math.nan,
                        "max_abs_diff": float(np.abs(d).max()) if d.size else math.nan,
                        "identical_seeds": int(np.sum(d == 0)), "seeds": int(d.size), "p": p})
        else:
            ma, sa, na, sda = _mean_se_sd(a)
            mb, sb, nb, sdb = _mean_se_sd(b)
            exact = _constant(a) and _constant(b)
            if exact and _negligible(np.array([ma - mb]), np.array([ma]), np.array([mb]))[0]:
                b, mb = np.full_like(b, ma), ma   # the same value, up to the arithmetic
            w = welch(a, b)
            # Both sides the same on every seed (nothing random in the scenario): Welch's
            # test is then exact, any difference differs.
            row.update({"lossytcp": ma, "lossytcp_se": sa, ref_name: mb, f"{ref_name}_se": sb,
                        "n_lossytcp": na, f"n_{ref_name}": nb, "diff": ma - mb,
                        "diff_se": w.se, "t": w.t, "df": w.df, "p": w.p, "exact": exact})
            sds.append((sda, sdb))
        rows.append(row)
    adjusted = holm([r["p"] for r in rows])
    m_tests = sum(math.isfinite(r["p"]) for r in rows)
    for i, (r, p) in enumerate(zip(rows, adjusted, strict=True)):
        r["p_holm"] = p
        r["verdict"] = "n/a" if not math.isfinite(p) else "DIFFER" if p < alpha else "agree"
        if not paired:
            from ..experiments.stats import min_detectable_difference

            # Holm's first step tests at alpha / m: the power is stated for that, the strictest
            r["detectable_80"] = min_detectable_difference(
                r["n_lossytcp"], r[f"n_{ref_name}"], *sds[i], alpha / max(m_tests, 1))
    return rows


def exit_code(rows: Iterable[Mapping[str, Any]]) -> int:
    return EXIT_DIFFER if any(r["verdict"] == "DIFFER" for r in rows) else EXIT_AGREE


def by_section(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["section"], []).append(r)
    return out


def verdicts_json(rows: list[dict[str, Any]], **head: Any) -> dict[str, Any]:
    """The JSON object: ``head`` (what was run), then each section's rows under its key
    (:data:`SECTIONS`; ``metrics`` the aggregate), the judged count and the exit code."""
    from .simulate import json_safe

    out = dict(head)
    for name, section in by_section(rows).items():
        out[SECTIONS[name][2]] = section
    out.setdefault("metrics", [])
    out["judged"] = sum(r["verdict"] != "n/a" for r in rows)
    out["differ"] = sum(r["verdict"] == "DIFFER" for r in rows)
    out["exit_code"] = exit_code(rows)
    return json_safe(out)


# --- printing -----------------------------------------------------------------------------

def _num(x: float, digits: int) -> str:
    # counts in the thousands read better whole than as 1.036e+04
    whole = 10.0 ** min(digits, 3)
    return f"{x:.0f}" if whole <= abs(x) < 1e9 else f"{x:.{digits}g}"


def _fmt(x: float | None, se: float = math.nan) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return _num(x, 4) + (f" ± {_num(se, 2)}" if math.isfinite(se) else "")


def _p(p: float) -> str:
    return "n/a" if not math.isfinite(p) else f"{p:.2g}" if p >= 1e-4 else "<1e-4"


def print_verdicts(rows: list[dict[str, Any]], *, title: str, ref_name: str, ref_label: str,
                   paired: bool, alpha: float, notes: Sequence[str] = ()) -> None:
    """One table per section present, a summary line, then the notes."""
    from rich.console import Console
    from rich.table import Table

    con = Console()
    if not con.is_terminal:
        # a pipe or a file has no width: do not squeeze the tables into 80 columns
        con = Console(width=max(con.width, 130))
    n = sum(math.isfinite(r["p"]) for r in rows)
    if paired:
        how = f"paired t-test, Holm over {n} tests, family alpha {alpha:g}"
        cols = ("metric", "lossytcp", ref_label, "mean diff", "identical seeds", "p (Holm)",
                "verdict")
    else:
        how = f"mean ± s.e.; Welch, Holm over {n} tests, family alpha {alpha:g}"
        cols = ("metric", "lossytcp", ref_label, "difference", "p (Holm)", "detectable",
                "verdict")
    con.print(f"[bold]{title}[/bold]: {how}", highlight=False)
    for name, section in by_section(rows).items():
        heading, row_col, _ = SECTIONS[name]
        width = max(len(r["metric"]) for r in section)
        t = Table(title=heading)
        if row_col is not None:
            t.add_column(row_col, no_wrap=True)
        for col in cols:
            if col == "metric":
                # never truncated: the other columns wrap instead
                t.add_column(col, no_wrap=True, min_width=width)
            else:
                t.add_column(col, justify="right", overflow="fold",
                             no_wrap=col in ("verdict", "p (Holm)"))
        last = None
        for r in section:
            head = [] if row_col is None else ["" if r["row"] == last else r["row"]]
            last = r["row"]
            if paired:
                t.add_row(*head, r["metric"], _fmt(r["lossytcp"]), _fmt(r[ref_name]),
                          _fmt(r["diff"]), f"{r['identical_seeds']}/{r['seeds']}",
                          _p(r["p_holm"]), r["verdict"])
            else:
                t.add_row(*head, r["metric"], _fmt(r["lossytcp"], r["lossytcp_se"]),
                          _fmt(r[ref_name], r[f"{ref_name}_se"]), _fmt(r["diff"], r["diff_se"]),
                          _p(r["p_holm"]), _fmt(r["detectable_80"]), r["verdict"])
        con.print(t)
    differ = sum(r["verdict"] == "DIFFER" for r in rows)
    con.print(f"{n} quantities judged: {differ} differ, {n - differ} agree "
              f"(family-wise alpha {alpha:g}, Holm)")
    if not paired:
        con.print("note: detectable: the smallest true difference this seed count detects "
                  "with 80% power at the strictest Holm level; 'agree' says no difference "
                  "larger than that was seen")
    if any(r.get("exact") and r["verdict"] == "DIFFER" for r in rows):
        con.print("note: some quantities are the same on every seed on both sides (nothing "
                  "in the scenario is random for them): they are compared exactly, and any "
                  "difference differs; a random channel or random traffic makes the "
                  "comparison one in law")
    for note in notes:
        con.print(f"note: {note}")
