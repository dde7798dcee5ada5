"""Analytical models against the packet-level engine: experiment designs, runs and error
tables as pandas DataFrames.

Each module configures the engine to one model's assumptions and returns its tables:

* :mod:`.models_i`: packet-train (paper 000), aqm-renewal (paper 002), mathis, pftk;
* :mod:`.abrupt`: abrupt-rtt (paper 001), the random designs of Section 6.1, Fig. 9, Figs. 10-12;
* :mod:`.fading`: fading-energy (paper 004), the bounds against the slot model, Figs. 1-4, the
  energy-efficiency claims.

``tables(quick=...)`` of each module gives ``{name: DataFrame}``; :func:`all_tables` merges
them. ``scripts/validate_models_I.py`` and ``scripts/validate_models_II.py`` print them;
``tests/validation`` asserts their bounds (quick sizes by default, the full ones under the
``slow`` marker). Engine runs go through :func:`lossytcp.simulate_seeds` (threads; the GIL is
released while the engine runs).
"""

from __future__ import annotations

from .cases import Case, error_summary, run_case, run_cases

__all__ = ["Case", "run_case", "run_cases", "error_summary", "all_tables", "report_tables"]


def all_tables(*, quick: bool = True) -> dict:
    """Every validation table, ``{name: DataFrame}`` (``quick``: the smaller designs)."""
    from . import abrupt, fading, models_i

    out = {}
    mi = models_i.tables(duration_scale=0.25 if quick else 1.0)
    out.update({f"models_i_{k}": v for k, v in mi.items()})
    out.update(abrupt.tables(quick=quick))
    out.update(fading.tables(quick=quick))
    return out


#: The report's title and note for each table of :func:`all_tables`.
_TABLES = {
    "models_i_summary": ("Models I against the engine: error summary",
                         "packet-train (paper 000), aqm-renewal (002), Mathis and PFTK, each "
                         "in its domain with the engine configured to its assumptions "
                         "(lossytcp.validation.models_i): mean and max relative error per "
                         "model and group"),
    "models_i_cases": ("Models I: every case", "model value, engine mean and CI, relative "
                       "error and tolerance per case"),
    "models_i_packet_train_figs_5_6": ("Packet-train, Figs. 5-6 at two timers",
                                       "the two links' curves with the 0.05 s and 0.005 s "
                                       "timers"),
    "models_i_aqm_timeout_order": ("aqm-renewal: NewReno's Q against Tahoe's",
                                   "the model with the paper's (Tahoe) window density and "
                                   "NewReno's own, against the engine"),
    "abrupt_summary": ("abrupt-rtt (paper 001): the Section 6.1 designs",
                       "mean and max error per design, variant and timer rule (the paper's "
                       "RTO and ours carrying RFC 6298's state)"),
    "abrupt_design1": ("abrupt-rtt: design 1, per experiment", ""),
    "abrupt_design2": ("abrupt-rtt: design 2, per experiment", ""),
    "abrupt_fig9_design1": ("abrupt-rtt: Fig. 9, OldTahoe's gain over Reno (design 1)",
                            "shares of experiments by gain, engine and model"),
    "abrupt_fig9_design2": ("abrupt-rtt: Fig. 9 (design 2)", ""),
    "abrupt_fig9_ns2": ("abrupt-rtt: Fig. 9 in ns-2 2.35, per experiment",
                        "design 1 with ns-2's OldTahoe and Reno over the semi-Markov delay, next "
                        "to the engine configured as ns-2"),
    "abrupt_fig9_ns2_shares": ("abrupt-rtt: Fig. 9 in ns-2 2.35", "shares of experiments by "
                               "OldTahoe's gain over Reno, ns-2 and the engine"),
    "abrupt_isolated_jump": ("abrupt-rtt: an isolated RTT jump", "timer expiries per model "
                             "timeout after a single jump"),
    "abrupt_long_holding": ("abrupt-rtt: holding times x10", "the worst design-2 experiments "
                            "with RTT changes many rounds apart"),
    "abrupt_fig10": ("abrupt-rtt: Fig. 10, throughput vs dupack threshold", ""),
    "abrupt_fig11": ("abrupt-rtt: Fig. 11, throughput vs w_m", ""),
    "abrupt_fig12_wm25": ("abrupt-rtt: Fig. 12, E[V] scaled", ""),
    "fading_bounds": ("fading-energy (paper 004): bounds against the slot-model engine",
                      "throughput and transmissions per success inside the model's "
                      "pessimistic / optimistic bounds"),
    "fading_figs_1_4": ("fading-energy: Figs. 1-4 over a Jakes trace", "analysis, engine over "
                        "the trace stepped per slot, analysis with trace-estimated parameters"),
    "fading_claims": ("fading-energy: the paper's energy-efficiency ratios", "the paper's "
                      "words against the model and a channel following the fade within a "
                      "packet"),
}


def report_tables(quick: bool) -> list:
    """Every validation table for the HTML report (:mod:`lossytcp.report`): (title, DataFrame,
    note), the summaries first."""
    tables = all_tables(quick=quick)
    order = sorted(tables, key=lambda k: (not k.endswith("summary"), k))
    out = []
    for k in order:
        title, note = _TABLES.get(k, (k, ""))
        out.append((title, tables[k], note))
    return out
