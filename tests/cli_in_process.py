"""The command line run in this process, for tests that call it many times (fuzz tests):
a subprocess per call would cost a second of start-up each."""

from __future__ import annotations

import contextlib
import io


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
