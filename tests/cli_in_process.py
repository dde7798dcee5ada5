"""The command line run in this process, for tests that call it many times (fuzz tests):
a subprocess per call would cost a second of start-up each."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path


def run_main(argv: list[str]) -> tuple[int, str, str]:
    """``lossytcp ARGV`` in this process: (exit code, stdout, stderr). A traceback on stderr
    fails the calling test."""
    from lossytcp.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:         # argparse's usage errors and --help
            code = e.code if isinstance(e.code, int) else 2
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def cli(*args: str, cwd: str | Path | None = None) -> subprocess.CompletedProcess:
    """:func:`run_main` as a CompletedProcess, run in ``cwd`` (then back)."""
    here = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code, out, err = run_main(list(args))
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, code, out, err)


def assert_refused(r: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit code 2, no traceback, and each fragment in the message."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    for f in fragments:
        assert f in r.stderr, r.stderr
