"""Figures from the experiment store: model curves as lines, simulation means as markers with
confidence-interval bars, one colour per series (variant), one panel per value of an optional
panel axis. Reads only the tables the store gives (runs summarised, model rows).

Layout: panels titled (a), (b), ... as the papers caption them, at most three to a row; text
sized for the figure's width as the report shows it (about 1000 px: 12 pt axes, 10 pt legend);
the legend below the panels; an optional note (what the figure's setup implies) under it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Colours and markers per variant, fixed so that every figure reads the same way.
STYLE = {
    "oldtahoe": ("#7f7f7f", "v"), "tahoe": ("#1f77b4", "o"), "reno": ("#9467bd", "D"),
    "newreno": ("#d62728", "s"), "sack": ("#2ca02c", "^"), "vegas": ("#ff7f0e", "P"),
    "newreno-lp": ("#17becf", "o"), "ideal-lp": ("#8c564b", "*"), "westwood-nr": ("#e377c2", "X"),
    "westwood-plus": ("#bcbd22", "h"), "cubic": ("#000080", "<"), "bbr": ("#ff1493", ">"),
}
LINESTYLES = ("-", "--", ":", "-.")
#: Text sizes (points) for figures shown about 1000 px wide (panels 4.2 x 3.6 in at 110 dpi).
FONT = dict(title=13, label=12, tick=11, legend=10, note=10)
PANEL_W_IN, PANEL_H_IN, MAX_COLS = 4.6, 3.7, 3


@dataclass(frozen=True)
class PlotSpec:
    x: str                                 # swept axis on the x axis
    xlabel: str
    ylabel: str
    sim_metric: str = "goodput_norm"
    model_metric: str = "throughput_norm"
    xlog: bool = False
    ylog: bool = False
    series: str = "variant"                # one colour per value of this column
    panel: str | None = None               # one subplot per value of this column
    panel_label: str = "{panel} = {value:g}"
    model_labels: tuple[str, ...] | None = None    # overlays to draw (default: all)
    model_label_names: dict[str, str] = field(default_factory=dict)
    #: per overlay label, the metric drawn (default: model_metric)
    model_metrics: dict[str, str] = field(default_factory=dict)
    ylim: tuple[float, float] | None = None
    sim_label: str = "simulation"
    where: dict[str, Any] = field(default_factory=dict)    # draw only these rows
    series_names: dict[Any, str] = field(default_factory=dict)
    note: str = ""                         # printed under the figure
    panel_letters: bool = True             # "(a) ...", "(b) ..." as the papers caption them
    ncols: int | None = None


def _style(series: Any, i: int) -> tuple[str, str]:
    if series in STYLE:
        return STYLE[series]
    import matplotlib

    cyc = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    return cyc[i % len(cyc)], "os^vDP"[i % 6]


def panel_title(i: int, text: str, letters: bool = True) -> str:
    return f"({chr(ord('a') + i)}) {text}" if letters else text


def subplots(n: int, ncols: int | None = None, sharey: bool = True):
    """A grid of ``n`` panels, at most :data:`MAX_COLS` to a row; the unused cells hidden."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = max(1, min(n, ncols or MAX_COLS))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_W_IN * cols + 0.4,
                                                  PANEL_H_IN * rows + 0.9),
                             squeeze=False, sharey=sharey)
    flat = [a for row in axes for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    for a in flat:
        a.tick_params(labelsize=FONT["tick"])
    return fig, flat[:n]


def finish(fig, axes, title: str, stem: Path, *, legend_title: str | None = None,
           note: str = "") -> list[Path]:
    """Legend (the first panel's entries, de-duplicated) below the panels, the title on top,
    the note under the legend; write PNG and SVG."""
    import matplotlib.pyplot as plt

    handles, labs, seen = [], [], set()
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in seen and not lab.startswith("_"):
                seen.add(lab)
                handles.append(h)
                labs.append(lab)
    fig.suptitle(title, fontsize=FONT["title"])
    fig.tight_layout()
    rows = 0
    if handles:
        ncol = max(1, min(4, len(handles), int(fig.get_figwidth() // 3.2)))
        rows = math.ceil(len(handles) / ncol) + (1 if legend_title else 0)
        fig.legend(handles, labs, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   fontsize=FONT["legend"], frameon=False, ncol=ncol, title=legend_title,
                   title_fontsize=FONT["legend"])
    if note:
        import textwrap

        wrapped = "\n".join(textwrap.wrap(note, int(fig.get_figwidth() * 14)))
        # below the legend: about 0.21 in per legend row at 10 pt
        fig.text(0.5, -(rows * 0.21 + 0.25) / fig.get_figheight(), wrapped,
                 ha="center", va="top", fontsize=FONT["note"], style="italic")
    out = save_figure(fig, stem)
    plt.close(fig)
    return out


def draw(spec: PlotSpec, summary, models, title: str, stem: Path,
         level: float = 0.95) -> list[Path]:
    """Write ``stem``.png and ``stem``.svg; returns the paths."""
    for k, val in spec.where.items():
        if summary is not None and len(summary) and k in summary:
            summary = summary[summary[k] == val]
        if models is not None and len(models) and k in models:
            models = models[models[k] == val]
    panels: list[Any] = [None]
    if spec.panel:
        vals = set()
        for df in (summary, models):
            if df is not None and len(df) and spec.panel in df:
                vals.update(df[spec.panel].dropna().unique().tolist())
        panels = sorted(vals) or [None]
    fig, axes = subplots(len(panels), spec.ncols)
    labels = spec.model_labels
    if labels is None and models is not None and len(models):
        labels = tuple(dict.fromkeys(models["label"].tolist()))
    series_all: list[Any] = []
    for df in (summary, models):
        if df is not None and len(df) and spec.series in df:
            series_all += [s for s in df[spec.series].unique().tolist() if s not in series_all]
    order = list(STYLE)
    series_all.sort(key=lambda s: (order.index(s) if s in order else len(order), str(s)))
    # markers of different series side by side rather than on top of each other
    dodge = {s: (i - (len(series_all) - 1) / 2) * 0.012 for i, s in enumerate(series_all)}
    for pi, (ax, pv) in enumerate(zip(axes, panels, strict=True)):
        for i, s in enumerate(series_all):
            color, marker = _style(s, i)
            name_s = spec.series_names.get(s, s)
            if models is not None and len(models):
                for j, lab in enumerate(labels or ()):
                    metric = spec.model_metrics.get(lab, spec.model_metric)
                    m = models[(models[spec.series] == s) & (models["label"] == lab)]
                    if pv is not None:
                        m = m[m[spec.panel] == pv]
                    if not len(m) or metric not in m:
                        continue
                    m = m.sort_values(spec.x)
                    y = m[metric].astype(float)
                    name = spec.model_label_names.get(lab, lab)
                    ax.plot(m[spec.x], y, LINESTYLES[j % len(LINESTYLES)], color=color,
                            lw=1.7, label=f"{name_s} ({name})")
            if summary is not None and len(summary) and spec.sim_metric in summary:
                d = summary[summary[spec.series] == s]
                if pv is not None:
                    d = d[d[spec.panel] == pv]
                if len(d):
                    d = d.sort_values(spec.x)
                    err = d.get(f"{spec.sim_metric}_ci")
                    err = None if err is None else err.fillna(0).to_numpy()
                    xv = d[spec.x].to_numpy(dtype=float)
                    xv = xv * 10 ** dodge[s] if spec.xlog else xv + dodge[s] * (
                        xv.max() - xv.min() if len(xv) > 1 else 0)
                    ax.errorbar(xv, d[spec.sim_metric], yerr=err, fmt=marker,
                                color=color, ms=6, capsize=3, lw=1.1, mfc="white",
                                label=f"{name_s} ({spec.sim_label})")
        if spec.xlog:
            ax.set_xscale("log")
        if spec.ylog:
            ax.set_yscale("log")
        if spec.ylim:
            ax.set_ylim(*spec.ylim)
        ax.set_xlabel(spec.xlabel, fontsize=FONT["label"])
        ax.grid(True, which="both", alpha=0.25)
        if pv is not None:
            ax.set_title(panel_title(pi, spec.panel_label.format(panel=spec.panel, value=pv),
                                     spec.panel_letters), fontsize=FONT["label"])
    axes[0].set_ylabel(spec.ylabel, fontsize=FONT["label"])
    return finish(fig, axes, title, stem,
                  legend_title=f"lines: model; markers: mean ± {level:.3g} CI", note=spec.note)


def save_figure(fig: Any, stem: Path) -> list[Path]:
    """Writes ``fig`` as ``stem``.png and ``stem``.svg (every figure's two formats)."""
    out = []
    for ext in ("png", "svg"):
        p = stem.with_suffix(f".{ext}")
        fig.savefig(p, dpi=110, bbox_inches="tight")
        out.append(p)
    return out


def errorbar_xy(ax, x: Sequence[float], y: Sequence[float], xerr, yerr, color: str,
                marker: str, label: str) -> None:
    """Simulation points with intervals on both axes (e.g. energy efficiency against
    throughput, both measured)."""
    ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=marker, color=color, ms=6, capsize=2.5,
                lw=1.0, mfc="white", label=label)


def finite(x: float) -> bool:
    return x is not None and math.isfinite(x)
