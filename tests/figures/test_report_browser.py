"""The HTML report: self-contained, and rendered by a real browser (headless Chromium, Debian's
``chromium``; skipped when it is not installed)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from lossytcp.figures import reproduce
from lossytcp.report import add_validation_section, write_report


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    o = reproduce("paper000-fig3", quick=True, out=out, workers=0)
    # lossytcp.validation's tables take about 40 s even quick: test_validation_tables_... below
    return (write_report([o], out / "report.html", quick=True, executor="serial",
                         validation=False), o)


def test_report_is_self_contained_and_complete(report):
    path, o = report
    text = path.read_text()
    assert "<svg" in text                                   # figure inline
    assert not re.search(r"""(src|href)=["'](?!#)""", text)  # nothing fetched from elsewhere
    for c in o.claims:
        assert c.claim in text and c.verdict in text
    for section in ("Contents", "Claims", "Model vs simulation error", "Validation tables",
                    "Settings and versions"):
        assert section in text
    assert "engine" in text and "paper000-fig3" in text
    # contents by paper, headings marked quick, wide tables in scrolling boxes, reasons shown
    assert "<nav class=toc>" in text and "Paper 000" in text
    assert "paper000-fig3: " in text and "(quick)</h3>" in text
    assert "<div class=scroll><table" in text
    for c in o.claims:
        if c.verdict != "holds":
            assert "why:</b>" in text


def test_validation_hook_renders_registered_tables(tmp_path, report, monkeypatch):
    import pandas as pd

    import lossytcp.validation

    _, o = report
    monkeypatch.delattr(lossytcp.validation, "report_tables")   # only the one registered here

    @add_validation_section
    def tables(quick):
        return [("packet-train vs engine", pd.DataFrame({"case": ["a"], "rel_error": [0.05]}),
                 "a test table")]
    try:
        text = write_report([o], tmp_path / "r.html", quick=True).read_text()
    finally:
        from lossytcp import report as rep

        rep.VALIDATION_SECTIONS.remove(tables)
    assert "packet-train vs engine" in text and "a test table" in text


@pytest.mark.slow
def test_validation_tables_of_every_model_are_in_the_report(tmp_path, report):
    _, o = report
    text = write_report([o], tmp_path / "r.html", quick=True).read_text()
    for title in ("Models I against the engine: error summary",
                  "abrupt-rtt (paper 001): the Section 6.1 designs",
                  "fading-energy (paper 004): bounds against the slot-model engine"):
        assert title in text
    assert "validation section" not in text      # no section failed


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian chromium) absent")
def test_report_renders_in_headless_chromium(report, tmp_path):
    path, o = report
    shot = tmp_path / "report.png"
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1200,1600"]
    r = subprocess.run([*args, f"--screenshot={shot}", path.as_uri()], capture_output=True,
                       text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(shot)
    assert img.shape[0] == 1600 and img.shape[1] == 1200
    # not a blank page: plenty of non-white pixels (text, tables, the coloured verdicts)
    dark = np.mean(img[..., :3].mean(axis=2) < 0.6)
    assert dark > 0.01
    verdict_colours = ((img[..., 0] > 0.6) & (img[..., 1] < 0.3)) | (
        (img[..., 1] > 0.4) & (img[..., 0] < 0.2))
    assert verdict_colours.any()
    dom = subprocess.run([*args, "--dump-dom", path.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert dom.count("<svg") >= 1 and all(c.claim in dom for c in o.claims)
