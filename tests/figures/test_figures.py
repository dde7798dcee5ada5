"""Every figure at --quick size: files written, both sources present, every verdict that is
not "holds" explained with the run's numbers, and each claim recorded as holding at that size
(expected.py) still holding: a change of engine or model that breaks one fails here. Failing
claims are not pinned (a claim that starts to hold must not break a test): their mechanisms
are, by the figure modules' own tests (test_paper000.py, ...). Full size under the slow
marker: the quick size's holds, and those decided only there (EXPECTED_FULL_ONLY), keep
theirs, but for a hold that only the quick size's shorter axis gives (QUICK_AXIS_ONLY, with
its reason)."""

from __future__ import annotations

import json

import pytest
from expected import EXPECTED_FULL_ONLY, EXPECTED_QUICK, QUICK_AXIS_ONLY

from lossytcp.figures import all_figures, reproduce

FIGURES = [f.id for f in all_figures()]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    # one store per test process: figures sharing an experiment compute it once
    return tmp_path_factory.mktemp("figures")


def test_every_figure_and_table_of_scenarios_is_registered():
    """SCENARIOS.md's figures and tables, each a reproduce entry; nothing pending."""
    from lossytcp.figures import PENDING

    papers = {f.split("-")[0] for f in FIGURES}
    assert papers == {"paper000", "paper001", "paper002", "paper003", "paper004", "beyond"}
    assert {f"paper000-fig{n}" for n in range(2, 11)} <= set(FIGURES)
    assert {f"paper000-table{n}" for n in (1, 2, 3)} <= set(FIGURES)
    assert {f"paper001-fig{n}" for n in range(8, 13)} <= set(FIGURES)
    assert {f"paper002-fig{n}" for n in range(9, 15)} <= set(FIGURES)
    assert {"paper003-fig2", "paper003-fig3a", "paper003-fig7b", "paper003-jain"} <= set(FIGURES)
    assert {"paper004-fig1-4"} | {f"paper004-fig{n}" for n in range(5, 16)} <= set(FIGURES)
    assert not PENDING
    # reproduce list's order: by paper, then figure number
    assert FIGURES.index("paper000-fig9") < FIGURES.index("paper000-fig10") < \
        FIGURES.index("paper000-table1") < FIGURES.index("paper001-fig8")


@pytest.mark.parametrize("fig_id", FIGURES)
def test_quick_figure_and_its_decidable_claims(fig_id, out):
    o = reproduce(fig_id, quick=True, out=out, workers=0)
    suffixes = {p.suffix for p in o.files}
    assert {".png", ".svg", ".csv", ".json"} <= suffixes
    # both sources on every figure, but where no model of the project applies (the figure
    # says so: paper 003's classification accuracy, friendliness, fairness, short transfers)
    for name, res in o.data.results.items():
        assert len(res.runs()) == res.planned > 0, name
        if o.figure.extra.get("model_at_measured"):
            continue                  # the model at what the runs measured: checked below
        if o.figure.extra.get("no_model"):
            assert "no model applies" in o.figure.description, name
            continue
        if not res.experiment.models:
            assert "ontrol" in res.experiment.description, name     # a control run
            continue
        models = res.models()
        assert len(models) and models["error"].isna().all(), name
    if o.figure.extra.get("model_at_measured"):
        # the model evaluated at what the runs measured (paper 002 scenario II): in the
        # figure's own CSV, beside the measurement
        import pandas as pd

        cols = [(c, df[c]) for p in o.files if p.suffix == ".csv"
                for df in [pd.read_csv(p)] for c in df.columns if c.endswith("_model")]
        assert cols and all(s.notna().any() for _, s in cols), fig_id
    got = {(c.figure, c.source, c.claim): c.verdict for c in o.claims}
    assert all(v in ("holds", "fails", "inconclusive") for v in got.values())
    assert {c.source for c in o.claims} <= {"model", "simulation"}
    # one reading per claim text, and every verdict other than holds explained with numbers
    # of this run
    for c in o.claims:
        if c.verdict != "holds":
            assert c.why and any(ch.isdigit() for ch in c.why), (c.claim, c.source)
    expected = {k: v for k, v in EXPECTED_QUICK.items() if k[0] == fig_id}
    for k, v in expected.items():
        assert k in got, f"claim {k} no longer checked"
        assert got[k] == v, (k, got[k], next(c.detail for c in o.claims
                                             if (c.figure, c.source, c.claim) == k))
    on_disk = json.loads((out / fig_id / "claims.json").read_text())
    assert len(on_disk["claims"]) == len(o.claims)


@pytest.fixture(scope="module")
def full_out(tmp_path_factory):
    return tmp_path_factory.mktemp("full")


@pytest.mark.slow
@pytest.mark.parametrize("fig_id", FIGURES)
def test_full_size_keeps_the_quick_verdicts(fig_id, full_out):
    o = reproduce(fig_id, quick=False, out=full_out)
    got = {(c.figure, c.source, c.claim): c.verdict for c in o.claims}
    for k, v in {**EXPECTED_QUICK, **EXPECTED_FULL_ONLY}.items():
        if k[0] == fig_id and k not in QUICK_AXIS_ONLY:
            assert got[k] == v, (k, got[k])
