"""Figures from the experiment store: model curves as lines, simulation means as markers with
confidence-interval bars, one colour per series (variant), one panel per value of an optional
panel axis. Reads only the tables the store gives (runs summarised, model rows)."""

from __future__ import annotations

import math
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
    ylim: tuple[float, float] | None = None
    sim_label: str = "simulation"
    where: dict[str, Any] = field(default_factory=dict)    # draw only these rows


def _style(series: Any, i: int) -> tuple[str, str]:
    if series in STYLE:
        return STYLE[series]
    import matplotlib

    cyc = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    return cyc[i % len(cyc)], "os^vDP"[i % 6]


def draw(spec: PlotSpec, summary, models, title: str, stem: Path,
         level: float = 0.95) -> list[Path]:
    """Write ``stem``.png and ``stem``.svg; returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for k, val in spec.where.items():
        if summary is not None and len(summary) and k in summary:
            summary = summary[summary[k] == val]
        if models is not None and len(models) and k in models:
            models = models[models[k] == val]
    panels = [None]
    if spec.panel:
        vals = set()
        for df in (summary, models):
            if df is not None and len(df) and spec.panel in df:
                vals.update(df[spec.panel].dropna().unique().tolist())
        panels = sorted(vals) or [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels) + 0.8, 4.2),
                             squeeze=False, sharey=True)
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
    for ax, pv in zip(axes[0], panels, strict=True):
        for i, s in enumerate(series_all):
            color, marker = _style(s, i)
            if models is not None and len(models):
                for j, lab in enumerate(labels or ()):
                    m = models[(models[spec.series] == s) & (models["label"] == lab)]
                    if pv is not None:
                        m = m[m[spec.panel] == pv]
                    if not len(m) or spec.model_metric not in m:
                        continue
                    m = m.sort_values(spec.x)
                    y = m[spec.model_metric].astype(float)
                    name = spec.model_label_names.get(lab, lab)
                    ax.plot(m[spec.x], y, LINESTYLES[j % len(LINESTYLES)], color=color,
                            lw=1.6, label=f"{s} ({name})")
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
                                color=color, ms=5, capsize=3, lw=1, mfc="white",
                                label=f"{s} ({spec.sim_label})")
        if spec.xlog:
            ax.set_xscale("log")
        if spec.ylog:
            ax.set_yscale("log")
        if spec.ylim:
            ax.set_ylim(*spec.ylim)
        ax.set_xlabel(spec.xlabel)
        ax.grid(True, which="both", alpha=0.25)
        if pv is not None:
            ax.set_title(spec.panel_label.format(panel=spec.panel, value=pv), fontsize=10)
    axes[0][0].set_ylabel(spec.ylabel)
    handles, labs = axes[0][0].get_legend_handles_labels()
    fig.suptitle(title, fontsize=11)
    if handles:
        fig.legend(handles, labs, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8,
                   frameon=False, title=f"lines: model; markers: mean ± {level:.3g} CI",
                   title_fontsize=8)
    fig.tight_layout()
    out = save_figure(fig, stem)
    plt.close(fig)
    return out


def save_figure(fig: Any, stem: Path) -> list[Path]:
    """Writes ``fig`` as ``stem``.png and ``stem``.svg (every figure's two formats)."""
    out = []
    for ext in ("png", "svg"):
        p = stem.with_suffix(f".{ext}")
        fig.savefig(p, dpi=110, bbox_inches="tight")
        out.append(p)
    return out


def finite(x: float) -> bool:
    return x is not None and math.isfinite(x)
