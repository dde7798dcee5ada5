"""One self-contained HTML report of reproduced figures (``lossytcp reproduce --all``).

Everything is inline (figures as SVG, styles in the head), so the file opens anywhere, offline,
and can be mailed or archived alone. Sections: a summary of the claims, then per figure the
figure, its claims (every point's numbers), the model-vs-simulation error table, and the
experiment's settings; then the validation tables; then versions and run settings.

Validation tables (hook): :data:`VALIDATION_SECTIONS` holds callables ``quick -> [(title,
DataFrame, note), ...]``; :func:`write_report` renders each. Register one with
:func:`add_validation_section`. If a module ``lossytcp.validation`` exists and defines
``report_tables(quick)`` with that signature, it is used automatically (the models helper's
validation package; see the report's "Validation tables" section).
"""

from __future__ import annotations

import html
import importlib
import json
import math
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["VALIDATION_SECTIONS", "add_validation_section", "error_table", "write_report"]

ValidationSection = Callable[[bool], list[tuple[str, Any, str]]]
VALIDATION_SECTIONS: list[ValidationSection] = []


def add_validation_section(fn: ValidationSection) -> ValidationSection:
    VALIDATION_SECTIONS.append(fn)
    return fn


def _validation_sections() -> list[ValidationSection]:
    out = list(VALIDATION_SECTIONS)
    try:
        mod = importlib.import_module("lossytcp.validation")
    except ImportError:
        return out
    fn = getattr(mod, "report_tables", None)
    if callable(fn) and fn not in out:
        out.append(fn)
    return out


def error_table(outcome) -> Any:
    """Model vs simulation at every point of the figure's experiments: per overlay (label),
    variant and point, the model's value, the simulated mean and CI, and the relative error
    model / simulation - 1."""
    import pandas as pd

    rows = []
    for name, res in outcome.data.results.items():
        exp = res.experiment
        summ = res.summary()
        mods = res.models()
        if not len(summ) or not len(mods):
            continue
        axes = ["variant", *exp.sweep]
        for ov in exp.models:
            m = mods[mods["label"] == ov.key]
            if ov.metric not in m or ov.sim_metric not in summ:
                continue
            j = m.merge(summ, on=[a for a in axes if a in m and a in summ],
                        suffixes=("_model", ""))
            mcol = ov.metric if ov.metric != ov.sim_metric else f"{ov.metric}_model"
            for _, r in j.iterrows():
                mv, sv = r.get(mcol), r.get(ov.sim_metric)
                rows.append({"experiment": name, "model": ov.key, **{a: r[a] for a in axes
                                                                     if a in r},
                             "model_value": mv, "sim_mean": sv,
                             "sim_ci": r.get(f"{ov.sim_metric}_ci"),
                             "rel_error": (mv / sv - 1) if sv and _finite(mv)
                             and _finite(sv) and sv != 0 else math.nan})
    return pd.DataFrame(rows)


def _finite(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _df_html(df, float_digits: int = 4, max_rows: int = 400) -> str:
    if df is None or not len(df):
        return "<p class=muted>(empty)</p>"
    more = ""
    if len(df) > max_rows:
        more = f"<p class=muted>{len(df) - max_rows} more rows in the CSV files</p>"
        df = df.head(max_rows)
    return "<div class=scroll>" + df.to_html(
        index=False, border=0, classes="data", na_rep="n/a",
        float_format=lambda x: f"{x:.{float_digits}g}") + "</div>" + more


def _svg(path: Path) -> str:
    text = path.read_text()
    i = text.find("<svg")
    return text[i:] if i >= 0 else text


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.4em} .muted{color:#777} .figure svg{max-width:100%;height:auto}
.figure{overflow-x:auto} .scroll{overflow-x:auto;max-width:100%}
nav.toc{columns:2;font-size:.9em} nav.toc ul{margin:.2em 0 .6em 1em;padding:0}
nav.toc li{list-style:none} .why{color:#555;font-size:.95em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right}
.holds{color:#11772a;font-weight:600} .fails{color:#b00020;font-weight:600}
.inconclusive{color:#a66b00;font-weight:600}
details{margin:.4em 0} summary{cursor:pointer;color:#335}
.tally span{margin-right:1.5em} code{background:#f4f4f4;padding:0 .2em}
"""


def _claims_rows(claims, with_figure: bool) -> str:
    out = []
    for c in claims:
        fig = f"<td><a href='#{c.figure}'>{html.escape(c.figure)}</a></td>" if with_figure \
            else ""
        src = html.escape(c.source) + (" *" if c.primary else "")
        why = getattr(c, "why", "")
        reading = getattr(c, "reading", "")
        out.append(f"<tr>{fig}<td>{html.escape(c.claim)}</td><td>{src}</td>"
                   f"<td class='{c.verdict}'>{c.verdict}</td><td>{html.escape(c.short)}"
                   + (f"<div class=why><b>why:</b> {html.escape(why)}</div>" if why else "")
                   + (f"<details><summary>reading</summary>{html.escape(reading)}</details>"
                      if reading else "")
                   + f"<details><summary>every point</summary>{html.escape(c.detail)}"
                   "</details></td></tr>")
    return "\n".join(out)


def _toc(outcomes, papers: dict[str, str]) -> str:
    """Contents by paper, each paper's figures and tables in numeric order."""
    by: dict[str, list[Any]] = {}
    for o in outcomes:
        by.setdefault(o.figure.paper, []).append(o)
    parts = ["<nav class=toc><h2>Contents</h2>"]
    for paper in sorted(by):
        parts.append(f"<b>Paper {html.escape(paper)}</b> "
                     f"<span class=muted>{html.escape(papers.get(paper, ''))}</span><ul>")
        for o in by[paper]:
            f = o.figure
            tally = ", ".join(f"{k} {v}" for k, v in sorted(_tally(o.claims).items()))
            parts.append(f"<li><a href='#{f.id}'>{html.escape(f.title)}</a> "
                         f"<span class=muted>({tally})</span></li>")
        parts.append("</ul>")
    parts.append("<b>Also</b><ul><li><a href='#claims'>Claims</a></li><li><a "
                 "href='#errors'>Model vs simulation error</a></li><li><a "
                 "href='#validation'>Validation tables</a></li><li><a "
                 "href='#versions'>Settings and versions</a></li></ul></nav>")
    return "".join(parts)


def _tally(claims) -> dict[str, int]:
    t: dict[str, int] = {}
    for c in claims:
        if c.primary:
            t[c.verdict] = t.get(c.verdict, 0) + 1
    return t


def write_report(outcomes: Sequence[Any], path: str | Path, *, quick: bool,
                 executor: str = "", wall_s: float | None = None,
                 validation: bool = True) -> Path:
    """Write the report for these :class:`lossytcp.figures.Outcome` objects."""
    import matplotlib
    import numpy
    import pandas
    import scipy

    from . import __version__
    from .experiments.keys import engine_version

    path = Path(path)
    all_claims = [c for o in outcomes for c in o.claims]
    tally: dict[str, dict[str, int]] = {"paper's source": {}, "other source": {}}
    for c in all_claims:
        k = "paper's source" if c.primary else "other source"
        tally[k][c.verdict] = tally[k].get(c.verdict, 0) + 1
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8>"
             f"<title>lossytcp: reproduced figures</title><style>{_CSS}</style></head><body>",
             "<h1>lossytcp: the papers' figures reproduced</h1>",
             f"<p>{len(outcomes)} figures, {sum(o.runs for o in outcomes)} simulation runs"
             f"{' (quick size)' if quick else ' (full size)'}; model curves are lines, "
             "simulation means are markers with confidence-interval bars. Claims are checked "
             "on both sources; * marks the source the paper's figure shows. A claim "
             "<span class=holds>holds</span> when every compared point is significantly in "
             "its direction or equal within the figure's margin (Welch tests, Holm-corrected "
             "over the claim's points), <span class=fails>fails</span> when some point is "
             "significantly against it, and is <span class=inconclusive>inconclusive</span> "
             "otherwise.</p>"]
    for k, t in tally.items():
        parts.append(f"<p class=tally><b>{k}:</b> " + "".join(
            f"<span class='{v}'>{v}: {n}</span>" for v, n in sorted(t.items())) + "</p>")
    from .figures import PAPERS

    parts.append(_toc(outcomes, PAPERS))
    order = {o.figure.id: i for i, o in enumerate(outcomes)}
    parts.append("<h2 id=claims>Claims</h2><div class=scroll><table><tr><th>figure</th>"
                 "<th>claim</th><th>source</th><th>verdict</th><th>measured</th></tr>"
                 + _claims_rows(sorted(all_claims, key=lambda c: (
                     not c.primary, order.get(c.figure, 0))), True) + "</table></div>")
    parts.append("<h2>Figures</h2>")
    err_summary = []
    size = " (quick)" if quick else ""
    for o in outcomes:
        f = o.figure
        parts.append(f"<h3 id='{f.id}'>{html.escape(f.id)}: {html.escape(f.title)}"
                     f"{size}</h3>")
        parts.append(f"<p>{html.escape(f.description)} (the paper shows: {f.kind}). "
                     f"{o.runs} runs, {o.wall_s:.1f} s.</p>")
        svg = next((p for p in o.files if p.suffix == ".svg"), None)
        if svg is not None:
            parts.append(f"<div class=figure>{_svg(svg)}</div>")
        if f.notes:
            parts.append(f"<p class=muted>Settings: {html.escape(f.notes)}</p>")
        txt = next((p for p in o.files if p.suffix == ".txt"), None)
        if txt is not None:
            parts.append(f"<div class=scroll><pre>{html.escape(txt.read_text())}</pre></div>")
        parts.append("<div class=scroll><table><tr><th>claim</th><th>source</th><th>verdict"
                     "</th><th>measured</th></tr>" + _claims_rows(o.claims, False)
                     + "</table></div>")
        et = error_table(o)
        if len(et):
            e = et["rel_error"].abs()
            err_summary.append({"figure": f.id, "points": len(et),
                                "mean |model/sim - 1|": float(e.mean()),
                                "max |model/sim - 1|": float(e.max())})
            parts.append("<details><summary>model vs simulation, every point</summary>"
                         + _df_html(et) + "</details>")
        for name, res in o.data.results.items():
            from .experiments.runner import definition

            d = definition(res.experiment)
            parts.append(f"<details><summary>experiment {html.escape(name)}: settings"
                         f"</summary><pre>{html.escape(json.dumps(d, indent=1, default=str))}"
                         "</pre></details>")
    import pandas as pd

    parts.append("<h2 id=errors>Model vs simulation error, per figure</h2>"
                 "<p>Relative error model / simulated mean - 1 over every point with both "
                 "(each figure's overlays; where the engine is configured to the model's "
                 "assumptions this is the model's accuracy, elsewhere the distance between "
                 "the model and the paper's simulation setting).</p>"
                 + _df_html(pd.DataFrame(err_summary)))
    parts.append("<h2 id=validation>Validation tables</h2>")
    t_val = time.perf_counter()
    secs = _validation_sections() if validation else []
    if not secs:
        parts.append("<p class=muted>No validation tables are registered "
                     "(lossytcp.report.add_validation_section, or "
                     "lossytcp.validation.report_tables).</p>")
    for fn in secs:
        try:
            tables = fn(quick)
        except Exception as e:   # a broken section must not lose the rest of the report
            parts.append(f"<p class=fails>validation section {html.escape(str(fn))} failed: "
                         f"{html.escape(type(e).__name__)}: {html.escape(str(e))}</p>")
            continue
        for title, df, note in tables:
            parts.append(f"<h3>{html.escape(title)}</h3><p>{html.escape(note)}</p>"
                         + _df_html(df))
    val_s = time.perf_counter() - t_val
    versions = {"lossytcp": __version__, "engine": engine_version(),
                "python": platform.python_version(), "numpy": numpy.__version__,
                "scipy": scipy.__version__, "pandas": pandas.__version__,
                "matplotlib": matplotlib.__version__, "platform": platform.platform()}
    parts.append("<h2 id=versions>Settings and versions</h2><table>" + "".join(
        f"<tr><th>{k}</th><td>{html.escape(str(v))}</td></tr>" for k, v in {
            **versions, "size": "quick" if quick else "full", "executor": executor,
            "wall time": "" if wall_s is None else (
                f"{wall_s + val_s:.1f} s: figures {wall_s:.1f} s, validation tables "
                f"{val_s:.1f} s"),
            "written": time.strftime("%Y-%m-%d %H:%M:%S %Z")}.items()) + "</table>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts))
    return path
