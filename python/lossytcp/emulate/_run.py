"""Running the emulator binary (``crates/lossytcp-emu``): finding it, handing it a
configuration, forwarding Ctrl-C, and turning its exit code into a result or an exception."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

#: The emulator's exit codes (see crates/lossytcp-emu/src/main.rs).
EXIT_OK, EXIT_WORKLOAD, EXIT_BAD_CONFIG, EXIT_REFUSED, EXIT_CANNOT, EXIT_INACCURATE = (
    0, 1, 2, 3, 4, 5)
EXIT_INTERRUPTED = 130


class EmulatorError(RuntimeError):
    """The emulator could not produce a result (the message says why)."""


class EmulatorUnavailable(EmulatorError):
    """This machine cannot emulate: not root, no TUN device, no network namespaces, or the
    emulator is not built. ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the link emulator cannot run here: {reason}")
        self.reason = reason


class EmulatorRefused(EmulatorError):
    """The emulator measured the machine before the run and refused: it cannot hold the
    rate (or the delay's precision) now. ``preflight`` holds its measurements."""

    def __init__(self, reason: str, preflight: dict[str, Any] | None) -> None:
        super().__init__(f"the emulator refuses this run: {reason}")
        self.reason = reason
        self.preflight = preflight or {}


class EmulatorInaccurate(EmulatorError):
    """The run completed but the emulator's own accuracy did not hold (packets written late,
    the rate not achieved, the forwarder near saturation); ``report`` is the run's report."""

    def __init__(self, problems: list[str], report: Any) -> None:
        super().__init__("the emulator's accuracy did not hold: " + "; ".join(problems))
        self.problems = problems
        self.report = report


def _repo_root() -> Path:
    # python/lossytcp/emulate/_run.py -> the repository (an editable install).
    return Path(__file__).resolve().parents[3]


def find_emulator() -> Path:
    """The emulator binary: ``$LOSSYTCP_EMU``, the repository's release build, or
    ``lossytcp-emu`` on PATH."""
    env = os.environ.get("LOSSYTCP_EMU")
    if env:
        p = Path(env)
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise EmulatorUnavailable(f"LOSSYTCP_EMU={env} is not an executable file")
        return p
    built = _repo_root() / "target" / "release" / "lossytcp-emu"
    if built.is_file():
        return built
    on_path = shutil.which("lossytcp-emu")
    if on_path:
        return Path(on_path)
    raise EmulatorUnavailable("the emulator is not built: cargo build --release -p lossytcp-emu "
                              "(make build does it)")


def emulator_status() -> tuple[bool, str]:
    """Whether this machine can emulate, and why not (root, TUN, network namespaces, the
    binary): ``(True, "")`` or ``(False, reason)``. Cheap: no run."""
    try:
        exe = find_emulator()
    except EmulatorUnavailable as e:
        return False, e.reason
    try:
        out = subprocess.run([str(exe), "check"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{exe} check failed: {e}"
    try:
        d = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, f"{exe} check said: {(out.stdout + out.stderr).strip()[-300:]}"
    return (True, "") if d.get("ok") else (False, str(d.get("reason")))


def run_emulator(config: dict[str, Any], workdir: Path | None = None) -> tuple[int, dict[str, Any]]:
    """Runs the emulator on ``config``; its exit code and report. Ctrl-C is passed on to it
    (it stops the run and tears down its namespaces), then re-raised."""
    exe = find_emulator()
    with tempfile.TemporaryDirectory(prefix="lossytcp-emu-") as tmp:
        path = Path(workdir or tmp) / "emulate.json"
        path.write_text(json.dumps(config))
        proc = subprocess.Popen([str(exe), "run", str(path)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
            raise
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = out.strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (ValueError, IndexError):
        raise EmulatorError(f"the emulator (exit {proc.returncode}) printed no report: "
                            f"{(out + err).strip()[-500:]}") from None
    return proc.returncode, report


def raise_for(code: int, report: dict[str, Any]) -> None:
    """The exception an exit code stands for (none for a run that held its accuracy; an
    inaccurate run is the caller's to judge)."""
    if code in (EXIT_OK, EXIT_INACCURATE):
        return
    if code == EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    if code == EXIT_CANNOT:
        raise EmulatorUnavailable(str(report.get("error")))
    if code == EXIT_REFUSED:
        raise EmulatorRefused(str(report.get("refused")), report.get("preflight"))
    raise EmulatorError(f"the emulator failed (exit {code}): {report.get('error')}")
