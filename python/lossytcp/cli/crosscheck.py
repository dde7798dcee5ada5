"""``lossytcp crosscheck ns2``: the same scenario in lossytcp and in ns-2 2.35, side by side.

Takes every flag of ``lossytcp simulate``; runs the engine and ``ns`` for each seed and judges
each metric with Welch's t-test (two-sided, unequal variances) of the per-seed values, the
p-values corrected with Holm's method for the number of metrics judged at once: a metric
"DIFFERS" only when its Holm-adjusted p-value is below --alpha (default 0.05), so a crosscheck
of two identical systems exits 1 by chance at most 5% of the time however many metrics are
judged. Holm rather than Bonferroni: the same family-wise guarantee under any dependence (the
metrics are strongly dependent: goodput, packets sent and retransmissions move together), and
never fewer detections. Each metric also shows the smallest difference its seed count can
detect with 80% power at that level: "agree" with few seeds means "no difference larger than
that", not "equal".

--paired replays ns-2's own losses through the engine: ns-2 runs with a trace of its data link,
the fate of each of its transmissions becomes the engine's ``trace:`` channel, and both senders
face the same losses, so the comparison is of the senders alone (no channel randomness): per
metric, the number of seeds with identical values and a paired t-test of the differences.

The engine runs with ns-2's timer profile and a 10 ms tick unless --profile/--granularity say
otherwise. Metrics ns-2 cannot observe (spurious timeouts and fast retransmits) are not judged;
features it cannot express are refused with the reason.

Exit codes: 0 every judged metric agrees; 1 some metric differs; 2 bad input (nothing was
run); 3 ns-2 is not installed; 4 ns-2 or the engine failed while running; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from ._progress import run_progress
from .simulate import (
    METRICS,
    add_scenario_arguments,
    json_safe,
    scenario_from_args,
    seeds_from_args,
)

__all__ = ["EXIT_AGREE", "EXIT_CRASH", "EXIT_DIFFER", "EXIT_NO_NS2", "compare",
           "compare_paired", "register", "run"]

EXIT_AGREE, EXIT_DIFFER, EXIT_BAD_INPUT, EXIT_NO_NS2, EXIT_CRASH = 0, 1, 2, 3, 4

#: Judged metrics, in display order (the engine's names).
JUDGED = ("goodput_norm", "throughput_norm", "packets_sent", "retransmissions",
          "channel_losses", "timeouts", "fast_retransmits", "timeout_fraction",
          "transmissions_per_delivered")

#: Variables of ns-2 2.35's TCP agents (tcl/lib/ns-default.tcl, Agent/TCP and the Reno,
#: Newreno, Sack1 and Vegas subclasses): ns-2 accepts any name silently, so a typo would
#: change nothing and be reported as a difference in the sender.
NS2_AGENT_VARIABLES = frozenset("""
    CoarseTimer_ EnblRTTCtr_ LimTransmitFix_ QOption_ SetCWRonRetransmit_ ack_
    aggressive_maxburst_ awnd_ backoff_ bugFix_ bugFix_ack_ bugFix_ts_ bugfix_ss_
    control_increase_ cwnd_ cwnd_range_ dctcp_ dctcp_alpha_ dctcp_g_ decrease_num_
    delay_growth_ dupacks_ ecn_ eln_ eln_rxmit_thresh_ exitFastRetrans_
    exit_recovery_fix_ high_decrease_ high_p_ high_window_ increase_num_ k_parameter_
    l_parameter_ lessCareful_ low_window_ max_connects_ max_ssthresh_ maxburst_ maxcwnd_
    maxrto_ maxseq_ minrto_ nackpack_ nam_tracevar_ ncwndcuts_ ndatabytes_ ndatapack_
    necnresponses_ newreno_changes_ noFastRetrans_ nrexmit_ nrexmitbytes_ nrexmitpack_
    numdupacksFrac_ numdupacks_ oldCode_ old_ecn_ overhead_ packetSize_ partial_ack_
    partial_window_deflation_ precisionReduce_ print_request_ qs_enabled_
    qs_request_mode_ qs_rtt_ qs_thresh_ rate_request_ restart_bugfix_ rtt_ rttvar_
    rttvar_exp_ rttvar_init_ rtxcur_init_ seqno_ singledup_ slow_start_restart_
    spurious_response_ srtt_ srtt_init_ ssthresh_ syn_ t_seqno_ tcpTick_
    tcp_qs_recovery_ tcpip_base_hdr_size_ timerfix_ timestamps_ trace_all_oneline_
    ts_option_size_ ts_resetRTO_ updated_rttvar_ useHeaders_ v_alpha_ v_beta_ v_gamma_
    v_rtt_ windowConstant_ windowInitOption_ windowInit_ windowOption_ windowThresh_
    window_
""".split())
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _stats(values: np.ndarray) -> tuple[float, float, int, float]:
    x = values[np.isfinite(values)]
    if x.size == 0:
        return math.nan, math.nan, 0, math.nan
    sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
    return float(x.mean()), sd / math.sqrt(x.size) if x.size > 1 else math.nan, int(x.size), sd


def compare(engine_reports: list[Any], ns2_reports: list[Any],
            metrics: tuple[str, ...] = JUDGED, alpha: float = 0.05) -> list[dict[str, Any]]:
    """Per metric: both means and standard errors, Welch's test, Holm's adjusted p-value, the
    verdict at family level ``alpha`` and the difference detectable with 80% power.

    With fewer than two finite values per side there is no test ("n/a")."""
    from ..experiments.stats import holm, min_detectable_difference, welch

    rows = []
    for m in metrics:
        a = np.array([r.metric(m) for r in engine_reports], dtype=float)
        b = np.array([r.metric(m) for r in ns2_reports], dtype=float)
        ma, sa, na, sda = _stats(a)
        mb, sb, nb, sdb = _stats(b)
        w = welch(a, b)
        rows.append({"metric": m, "lossytcp": ma, "lossytcp_se": sa, "ns2": mb, "ns2_se": sb,
                     "n_lossytcp": na, "n_ns2": nb, "diff": ma - mb, "diff_se": w.se,
                     "t": w.t, "df": w.df, "p": w.p, "_sd": (sda, sdb)})
    adj = holm([r["p"] for r in rows])
    m_tests = sum(math.isfinite(r["p"]) for r in rows)
    for r, p in zip(rows, adj, strict=True):
        sda, sdb = r.pop("_sd")
        r["p_holm"] = p
        r["verdict"] = "n/a" if not math.isfinite(p) else "DIFFER" if p < alpha else "agree"
        # Holm's first step tests at alpha / m: the power is stated for that, the strictest
        r["detectable_80"] = min_detectable_difference(
            r["n_lossytcp"], r["n_ns2"], sda, sdb, alpha / max(m_tests, 1))
    return rows


def compare_paired(engine_reports: list[Any], ns2_reports: list[Any],
                   metrics: tuple[str, ...] = JUDGED, alpha: float = 0.05
                   ) -> list[dict[str, Any]]:
    """Per metric over seeds run on the same losses: identical seeds, mean difference, a
    paired t-test (Holm-corrected over the metrics). Identical values on every seed agree
    exactly; a constant nonzero difference differs exactly."""
    from scipy import stats as st

    from ..experiments.stats import holm

    rows = []
    for m in metrics:
        a = np.array([r.metric(m) for r in engine_reports], dtype=float)
        b = np.array([r.metric(m) for r in ns2_reports], dtype=float)
        ok = np.isfinite(a) & np.isfinite(b)
        d = a[ok] - b[ok]
        # rates computed the same way on both sides may differ in the last bits only
        d[np.abs(d) <= 1e-12 * np.maximum(np.abs(a[ok]), np.abs(b[ok]))] = 0.0
        same = int(np.sum(d == 0))
        if d.size == 0:
            p = math.nan
        elif np.all(d == d[0]):
            p = 1.0 if d[0] == 0 else 0.0
        elif d.size < 2:
            p = math.nan
        else:
            p = float(st.ttest_1samp(d, 0.0).pvalue)
        rows.append({"metric": m, "lossytcp": float(a[ok].mean()) if d.size else math.nan,
                     "ns2": float(b[ok].mean()) if d.size else math.nan,
                     "diff": float(d.mean()) if d.size else math.nan,
                     "max_abs_diff": float(np.abs(d).max()) if d.size else math.nan,
                     "identical_seeds": same, "seeds": int(d.size), "p": p})
    for r, p in zip(rows, holm([r["p"] for r in rows]), strict=True):
        r["p_holm"] = p
        r["verdict"] = "n/a" if not math.isfinite(p) else "DIFFER" if p < alpha else "agree"
    return rows


def _agent_settings(items: list[str]) -> dict[str, str]:
    from ..errors import ParameterError

    out = {}
    for it in items:
        name, eq, value = it.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name or not value:
            raise ParameterError("ns2-agent", it, "must be NAME=VALUE, e.g. singledup_=0")
        if name not in NS2_AGENT_VARIABLES:
            close = sorted(n for n in NS2_AGENT_VARIABLES if n.lower().startswith(
                name.lower()[:3]))
            raise ParameterError("ns2-agent", it, f"'{name}' is not a variable of ns-2 2.35's "
                                 "TCP agents (ns-default.tcl)" + (
                                     "; similar: " + ", ".join(close) if close else ""))
        if not (_NUMBER.fullmatch(value) or value in ("true", "false")):
            raise ParameterError("ns2-agent", it, f"the value of {name} must be a number or "
                                 "true/false (ns-2 reads anything else as 0 and the run "
                                 "then measures nothing)")
        out[name] = value
    return out


def _fmt(x: float, se: float = math.nan) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.4g}" + (f" ± {se:.2g}" if math.isfinite(se) else "")


def _p(p: float) -> str:
    return "n/a" if not math.isfinite(p) else f"{p:.2g}" if p >= 1e-4 else "<1e-4"


def _check_keep_script(path: str | None, n_seeds: int) -> None:
    """The directory must exist and be writable before anything runs."""
    if path is None:
        return
    import os

    from ..errors import ParameterError

    p = Path(path)
    d = p.resolve().parent
    if p.is_dir():
        raise ParameterError("keep-script", path, "is a directory; give a file name such as "
                             f"{p / 'crosscheck.tcl'}")
    if not d.is_dir():
        raise ParameterError("keep-script", path, f"directory {d} does not exist")
    if not os.access(d, os.W_OK):
        raise ParameterError("keep-script", path, f"directory {d} is not writable")


def _keep(path: str | None, i: int, seed: int) -> str | None:
    if path is None:
        return None
    p = Path(path)
    return str(p) if i == 0 else str(p.with_name(f"{p.stem}-seed{seed}{p.suffix or '.tcl'}"))


def script_scenario(variant: str, seed: int, kw: dict[str, Any]) -> dict[str, Any]:
    from ..sim import build_scenario

    return build_scenario(variant, seed=seed, **kw)


def _paired_runs(ns2, variant: str, seeds: list[int], kw: dict[str, Any],
                 agent: dict[str, str], keep: str | None, progress) -> tuple[list, list]:
    import tempfile

    from ..sim import simulate

    engine, sims = [], []
    for i, s in enumerate(seeds):
        with tempfile.TemporaryDirectory(prefix="lossytcp-paired-") as wd:
            tr = Path(wd) / "link.tr"
            script = ns2.build_script(variant, seed=s, trace_file=str(tr),
                                      agent_settings=agent, **kw)
            rep, _ = ns2.run_script(script, workdir=wd, keep_script=_keep(keep, i, s))
            # a packet still in flight when ns-2 stops has no "r" event and reads as lost, but
            # ns-2's channel (at the end of the link) never decided it: not a loss
            sc = script_scenario(variant, s, kw)
            link = sc["links"][0]
            horizon = sc["duration_s"] - link["delay"].get("delay_s", 0.0) - (
                8.0 * sc["flows"][0]["tcp"]["packet_size_bytes"] / link["rate_bps"])
            fates = [lost and t < horizon
                     for t, _, lost in ns2.parse_link_fates(tr.read_text())]
            sims.append(rep)
            engine.append(simulate(variant, seed=s, **{
                **kw, "channel": ns2.fates_channel(fates, Path(wd))}))
        progress(2 * (i + 1), 2 * len(seeds))
    return engine, sims


def run(a: argparse.Namespace) -> int:
    from .. import ns2
    from ..errors import ParameterError
    from ..experiments.stats import check_level
    from ..sim import build_scenario, simulate

    try:
        ns2.find_ns()
    except ns2.Ns2NotInstalled as e:
        print(f"lossytcp crosscheck: {e}")
        return EXIT_NO_NS2
    if a.seed is None and a.seeds < 1:
        raise ParameterError("seeds", a.seeds, "must be >= 1 (seeds 1..N are run on both "
                             "sides; 2 or more are needed for a verdict)")
    try:
        check_level(a.alpha, "alpha")
    except ParameterError:
        raise ParameterError("alpha", a.alpha, "must be a significance level in (0, 1), "
                             "e.g. 0.05") from None
    kw = scenario_from_args(a)
    variant = kw.pop("variant")
    seeds = seeds_from_args(a)
    agent = _agent_settings(a.ns2_agent)
    _check_keep_script(a.keep_script, len(seeds))
    # Bad input, or a scenario ns-2 cannot express, fails here before any run starts.
    build_scenario(variant, seed=seeds[0], **kw)
    notes: list[str] = []
    is_drops = str(kw["channel"]).strip().startswith("drops")
    if a.paired:
        if is_drops:
            raise ParameterError("paired", True, "a drops: channel is already the same on "
                                 "both sides; --paired is for random channels")
        if str(kw.get("ack_channel", "none")).strip().lower() != "none":
            raise ParameterError("paired", True, "replays the data channel's losses only: "
                                 "use a lossless ACK path (--ack-channel none)")
    if not is_drops:
        notes += ns2.build_script(variant, seed=seeds[0], agent_settings=agent, **kw).notes
    try:
        with run_progress(f"{variant}: lossytcp and ns-2 runs", 2 * len(seeds)) as progress:
            if a.paired:
                engine, sims = _paired_runs(ns2, variant, seeds, kw, agent, a.keep_script,
                                            progress)
            else:
                engine, sims = [], []
                for s in seeds:
                    engine.append(simulate(variant, seed=s, **kw))
                    progress(len(engine), 2 * len(seeds))
                for i, s in enumerate(seeds):
                    sims.append(ns2.simulate_ns2(variant, seed=s,
                                                 keep_script=_keep(a.keep_script, i, s),
                                                 agent_settings=agent, **kw))
                    progress(len(seeds) + len(sims), 2 * len(seeds))
    except ns2.Ns2Error as e:
        print(f"lossytcp crosscheck: ns-2 failed: {e}")
        return EXIT_CRASH
    except (OSError, RuntimeError, ValueError) as e:
        if isinstance(e, ParameterError):
            raise
        print(f"lossytcp crosscheck: run failed: {type(e).__name__}: {e}")
        return EXIT_CRASH
    rows = (compare_paired if a.paired else compare)(engine, sims, alpha=a.alpha)
    if agent:
        notes.append("ns-2 agent settings: " + ", ".join(f"{k} {v}" for k, v in agent.items()))
    hidden = (*ns2.NOT_OBSERVABLE, *ns2.NOT_OBSERVABLE_FOR.get(variant, ()))
    notes.append("not observable in ns-2, not judged: " + ", ".join(
        m for m in METRICS if m in hidden))
    if len(seeds) < 2 and not a.paired:
        notes.append("one seed per side: no variance to test with, no verdict (use --seeds "
                     "N with N >= 2, or --paired)")
    code = EXIT_DIFFER if any(r["verdict"] == "DIFFER" for r in rows) else EXIT_AGREE
    if a.json:
        print(json.dumps(json_safe({"variant": variant, "seeds": seeds, "scenario": kw,
                                    "paired": a.paired, "alpha": a.alpha,
                                    "correction": "holm", "metrics": rows, "notes": notes,
                                    "exit_code": code})))
        return code
    from rich.console import Console
    from rich.table import Table

    con = Console()
    if not con.is_terminal:
        # a pipe or a file has no width: do not squeeze the table into 80 columns
        con = Console(width=max(con.width, 130))
    if a.paired:
        t = Table(title=f"{variant}: lossytcp vs ns-2 2.35 on ns-2's own losses, {len(seeds)} "
                        f"seed(s) (paired t-test, Holm, family alpha {a.alpha:g})")
        cols = ("metric", "lossytcp", "ns-2", "mean diff", "identical seeds", "p (Holm)",
                "verdict")
    else:
        t = Table(title=f"{variant}: lossytcp vs ns-2 2.35, {len(seeds)} seed(s), mean ± s.e. "
                        f"(Welch, Holm over {len(rows)} metrics, family alpha {a.alpha:g})")
        cols = ("metric", "lossytcp", "ns-2", "difference", "p (Holm)", "detectable",
                "verdict")
    width = max(len(m) for m in JUDGED)
    for col in cols:
        if col == "metric":
            # never truncated: the other columns wrap instead
            t.add_column(col, no_wrap=True, min_width=width)
        else:
            t.add_column(col, justify="right", overflow="fold",
                         no_wrap=col in ("verdict", "p (Holm)"))
    for r in rows:
        if a.paired:
            t.add_row(r["metric"], _fmt(r["lossytcp"]), _fmt(r["ns2"]), _fmt(r["diff"]),
                      f"{r['identical_seeds']}/{r['seeds']}", _p(r["p_holm"]), r["verdict"])
        else:
            t.add_row(r["metric"], _fmt(r["lossytcp"], r["lossytcp_se"]),
                      _fmt(r["ns2"], r["ns2_se"]), _fmt(r["diff"], r["diff_se"]),
                      _p(r["p_holm"]), _fmt(r["detectable_80"]), r["verdict"])
    con.print(t)
    if not a.paired:
        notes.insert(0, "detectable: the smallest true difference this seed count detects with "
                     "80% power at the strictest Holm level; 'agree' says no difference larger "
                     "than that was seen")
    for n in notes:
        con.print(f"note: {n}")
    if a.keep_script:
        con.print(f"ns-2 script kept: {a.keep_script}")
    return code


def register(sub: Any) -> None:
    p = sub.add_parser("crosscheck", help="compare a scenario against another simulator",
                       description="Run one scenario in lossytcp and in another simulator.")
    which = p.add_subparsers(dest="against", required=True, metavar="SIMULATOR")
    doc = __doc__.split("\n\n")
    q = which.add_parser("ns2", help="ns-2 2.35 (Debian package ns2)",
                         description="\n\n".join(doc[1:-1]), epilog=doc[-1],
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scenario_arguments(q)
    # like with like: ns-2's tick-based estimator on the engine side too
    q.set_defaults(profile="ns2", granularity="10ms")
    q.add_argument("--keep-script", default=None, metavar="PATH",
                   help="keep the generated ns-2 Tcl script there (one per seed)")
    q.add_argument("--ns2-agent", action="append", default=[], metavar="NAME=VALUE",
                   help="extra ns-2 agent setting, e.g. singledup_=0 (limited transmit off)")
    q.add_argument("--paired", action="store_true",
                   help="replay ns-2's own losses through the engine: compare the senders "
                        "seed by seed on the same losses")
    q.add_argument("--alpha", type=float, default=0.05,
                   help="family-wise significance level over the judged metrics "
                        "(default %(default)s)")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=run)
    from .crosscheck_linux import register as register_linux

    register_linux(which)
