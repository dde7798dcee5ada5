"""Cross-checking the engine against ns-2 2.35: script generation, runs, results.

:func:`build_script` writes the Tcl for one :func:`lossytcp.simulate` scenario (its own
Gilbert-Elliott, Bernoulli, burst, two-state, trace and drop-list channel models in OTcl,
see :mod:`lossytcp.ns2._tcl`); :func:`simulate_ns2` / :func:`run_seeds` run ``ns`` and return
reports with the engine's metric names; :func:`run_drops` adds the sender's send trace.
"""

from .run import (
    NOT_OBSERVABLE,
    NOT_OBSERVABLE_FOR,
    NS2_INSTALL,
    Ns2Error,
    Ns2NotInstalled,
    Ns2Report,
    Ns2Summary,
    compare_send_traces,
    fates_channel,
    fates_file,
    find_ns,
    first_divergence,
    parse_link_fates,
    parse_result,
    parse_send_trace,
    run_drops,
    run_script,
    run_seeds,
    simulate_ns2,
)
from .script import (
    AGENTS,
    NO_NS2_AGENT,
    Ns2Script,
    Ns2Unsupported,
    build_script,
    ns2_seed,
    ns2_variant,
)

__all__ = [
    "AGENTS", "NO_NS2_AGENT", "NOT_OBSERVABLE", "NOT_OBSERVABLE_FOR", "NS2_INSTALL", "Ns2Error",
    "Ns2NotInstalled", "Ns2Report", "Ns2Script", "Ns2Summary", "Ns2Unsupported",
    "build_script", "compare_send_traces", "fates_channel", "fates_file", "find_ns",
    "first_divergence", "ns2_seed", "ns2_variant", "parse_link_fates",
    "parse_result", "parse_send_trace", "run_drops", "run_script", "run_seeds", "simulate_ns2",
]
