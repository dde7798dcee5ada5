"""``lossytcp run`` and ``lossytcp results`` as a user types them."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from _shared import PFTK_OVERLAY

EXP = """
name = "cli"
variants = ["tahoe", "sack"]
seeds = 3
metrics = ["goodput_norm", "timeouts"]
[scenario]
duration_s = 20
channel = "bernoulli:p={p}"
[sweep]
p = [0.01, 0.03]
""" + PFTK_OVERLAY


def _cli(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "lossytcp", *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)


def test_run_then_results_list_show_export(tmp_path):
    (tmp_path / "e.toml").write_text(EXP)
    r = _cli(tmp_path, "run", "e.toml", "--workers", "0")
    assert r.returncode == 0, r.stderr
    assert "cli: mean" in r.stdout and "pftk: throughput_pps" in r.stdout
    assert (tmp_path / "lossytcp-results.sqlite").exists()       # default: working directory
    again = _cli(tmp_path, "run", "e.toml", "--json")
    assert json.loads(again.stdout)["computed_runs"] == 0         # resumed: nothing to do
    r = _cli(tmp_path, "results", "list")
    assert "cli" in r.stdout and "12 / 12" in r.stdout
    r = _cli(tmp_path, "results", "show", "cli", "--where", "variant == 'sack'", "--json")
    rows = json.loads(r.stdout)
    assert len(rows) == 2 and all(x["variant"] == "sack" and x["n"] == 3 for x in rows)
    r = _cli(tmp_path, "results", "export", "cli", "--runs", "--csv", "runs.csv",
             "--parquet", "runs.parquet")
    assert r.returncode == 0, r.stderr
    a = pd.read_csv(tmp_path / "runs.csv")
    assert len(a) == 12 and {"p", "variant", "seed", "goodput_norm", "key"} <= set(a)
    pytest.importorskip("pyarrow")
    b = pd.read_parquet(tmp_path / "runs.parquet")
    assert len(b) == 12 and list(b["key"]) == list(a["key"])


@pytest.mark.parametrize("args, text", [
    (["results", "show", "nope"], "no such results database"),
    (["run", "missing.toml"], "cannot be read"),
    (["run", "e.toml", "--dask", "somewhere"], "tcp://host:8786"),
    (["run", "e.toml", "--workers", "-1"], ">= 0"),
])
def test_bad_input_is_exit_2_with_a_message(tmp_path, args, text):
    (tmp_path / "e.toml").write_text(EXP)
    r = _cli(tmp_path, *args)
    assert r.returncode == 2 and text in r.stderr, r.stderr
