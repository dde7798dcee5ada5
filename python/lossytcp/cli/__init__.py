"""The ``lossytcp`` command line: one subcommand per module of this package.

Each subcommand module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning an exit code. Only the
subcommand being run is imported (the others are listed by name and help line), so that
``lossytcp --help`` and ``lossytcp simulate`` start without loading the models and scipy.

Exit codes: 0 success, 1 a worker process of the sweep died (killed from outside), 2 a bad
argument or parameter (the message names it), 130 interrupted (Ctrl-C), 143 terminated
(SIGTERM: stopped as cleanly as by Ctrl-C); a subcommand may document more (``crosscheck``).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from typing import Any

from ..errors import ParameterError, WorkerDied

#: Subcommand -> its help line (shown by ``lossytcp --help`` without importing the module).
_SUBCOMMANDS = {
    "simulate": "packet-level simulation of TCP flows over a lossy path or network",
    "model": "evaluate an analytical model",
    "crosscheck": "compare a scenario against another simulator",
    "emulate": "the kernel's TCP over the engine's link, in real time (root)",
    "run": "run an experiment file (sweeps, seeds, model overlays) into a resumable store",
    "results": "list, query and export an experiment store",
    "reproduce": "reproduce a figure of the papers: model and simulation, claims checked",
}


_ROLE = re.compile(r":[a-z:]+:`(?:([^`<]*?)\s*<[^`>]*>|~?(?:[\w.]*\.)?([^`]*))`")


def plain(text: str | None) -> str | None:
    """Help text without reStructuredText markup (help reuses the modules' docstrings):
    ``code`` -> code, :func:`~a.b.name` -> name, :mod:`x <a.b>` -> x, "x::" -> "x:"."""
    if not text:
        return text
    text = _ROLE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    text = text.replace("``", "")
    text = re.sub(r"[ \t]+::(?=\s|$)", "", text)        # "text ::" is "text"
    return re.sub(r"(?<=\S)::(?=\s|$)", ":", text)      # "text::" is "text:"


def plain_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` and its subcommands' parsers with help texts made :func:`plain`."""
    parser.description = plain(parser.description)
    parser.epilog = plain(parser.epilog)
    for action in parser._actions:
        if isinstance(action.help, str):
            action.help = plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for a in action._choices_actions:
                a.help = plain(a.help)
            for sub in set(action.choices.values()):
                plain_parser(sub)
    return parser


def documented_parser(sub: Any, name: str, help: str, doc: str) -> argparse.ArgumentParser:
    """Subcommand ``name`` whose description and epilog are its module's docstring (the
    first paragraph, the summary, left out; the last one is the epilog), with ``code``
    shown as 'code'."""
    parts = doc.replace("``", "'").split("\n\n")
    return sub.add_parser(name, help=help, description="\n\n".join(parts[1:-1]),
                          epilog=parts[-1], formatter_class=argparse.RawDescriptionHelpFormatter)


class _Version(argparse.Action):
    """``--version``: the package's and the engine's versions (the engine's is part of every
    stored run's key), looked up only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        import platform

        from .. import __version__

        try:
            from .._sim import engine_version
            engine = engine_version()
        except ImportError:  # pragma: no cover - an unbuilt checkout
            engine = "not built (make build)"
        print(f"lossytcp {__version__} (engine {engine}, Python {platform.python_version()})")
        parser.exit()


def build_parser(load: str | None = "all") -> argparse.ArgumentParser:
    """The parser; ``load`` names the one subcommand whose module is imported (``"all"``:
    every one, ``None``: none, each then only listed)."""
    parser = argparse.ArgumentParser(
        prog="lossytcp",
        description="TCP over lossy, bursty, delay-jumping paths: models and simulation.",
        epilog="Exit codes: 0 success, 2 bad arguments or parameters, 130 interrupted, "
               "143 terminated.",
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the versions of lossytcp and its engine, and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, helptext in _SUBCOMMANDS.items():
        if load in ("all", name):
            importlib.import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=helptext, add_help=False)
    return plain_parser(parser)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be: the same clean stop (workers stopped, each
    finished run kept), one message, exit code 143."""


def _importing(frame: Any) -> bool:
    """Whether an import is running in this frame or one of its callers."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _later(signum: int) -> None:
    import os
    import threading

    t = threading.Timer(0.02, os.kill, (os.getpid(), signum))
    t.daemon = True
    t.start()


def _interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C, put off while a module is being imported: a KeyboardInterrupt inside an
    extension's initialisation becomes an ImportError and a traceback (issue 24: numpy's
    "PyCapsule_Import could not import module datetime" after a Ctrl-C in the first
    second of `lossytcp run`). The signal comes back 20 ms later until no import runs."""
    if _importing(frame):
        _later(signum)
        return
    raise KeyboardInterrupt


def _terminate(signum: int, frame: Any) -> None:
    if _importing(frame):
        _later(signum)
        return
    raise Terminated


def _quiet_stdout() -> None:
    """Point standard output at /dev/null: the reader went away (``| head``), and the
    interpreter's last flush at exit must not fail on the broken pipe (exit code 120 and
    an "Exception ignored" message)."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _stdout_identity() -> tuple[int, int] | None:
    import os

    try:
        st = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_dev, st.st_ino


def _devnull_identity() -> tuple[int, int] | None:
    import os

    try:
        st = os.stat(os.devnull)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def main(argv: list[str] | None = None) -> int:
    import signal
    import threading

    argv = sys.argv[1:] if argv is None else list(argv)
    # The subcommand is the first argument not an option (the top level has only -h).
    command = next((a for a in argv if not a.startswith("-")), None)
    name = f"lossytcp {command}" if command in _SUBCOMMANDS else "lossytcp"
    main_thread = threading.current_thread() is threading.main_thread()
    stdout_was = _stdout_identity()
    if main_thread:
        old_term = signal.signal(signal.SIGTERM, _terminate)
        old_int = signal.getsignal(signal.SIGINT)
        if old_int is signal.default_int_handler:   # not when SIGINT is ignored (nohup)
            signal.signal(signal.SIGINT, _interrupt)
    try:
        parser = build_parser(command if command in _SUBCOMMANDS else None)
        args = parser.parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except ParameterError as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        return 2
    except WorkerDied as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        # One message, whatever else arrives while this process winds down.
        if main_thread:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        term = isinstance(e, Terminated)
        print(f"{name}: {'terminated' if term else 'interrupted'}", file=sys.stderr)
        return 143 if term else 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except SystemExit as e:
        # rich's Console meets a closed pipe by pointing stdout at /dev/null and exiting 1
        # (Console.on_broken_pipe); the reader going away is not a failure (issue 24:
        # `lossytcp reproduce list | head -3` exited 1).
        if e.code == 1 and stdout_was != _stdout_identity() == _devnull_identity():
            return 0
        raise
    finally:
        if main_thread:
            if signal.getsignal(signal.SIGTERM) is _terminate:
                signal.signal(signal.SIGTERM, old_term)
            if signal.getsignal(signal.SIGINT) is _interrupt:
                signal.signal(signal.SIGINT, old_int)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
