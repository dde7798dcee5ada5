"""The ``lossytcp`` command line: one subcommand per module of this package.

Each subcommand module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning an exit code. Only the
subcommand being run is imported (the others are listed by name and help line), so that
``lossytcp --help`` and ``lossytcp simulate`` start without loading the models and scipy.

Exit codes: 0 success, 2 a bad argument or parameter (the message names it), 130 interrupted
(Ctrl-C); a subcommand may document more (``crosscheck``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import ParameterError

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


def build_parser(load: str | None = "all") -> argparse.ArgumentParser:
    """The parser; ``load`` names the one subcommand whose module is imported (``"all"``:
    every one, ``None``: none, each then only listed)."""
    parser = argparse.ArgumentParser(
        prog="lossytcp",
        description="TCP over lossy, bursty, delay-jumping paths: models and simulation.",
        epilog="Exit codes: 0 success, 2 bad arguments or parameters, 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, helptext in _SUBCOMMANDS.items():
        if load in ("all", name):
            importlib.import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=helptext, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The subcommand is the first argument not an option (the top level has only -h).
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in _SUBCOMMANDS else None)
    try:
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except ParameterError as e:
        print(f"lossytcp {command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"lossytcp {command or ''}: interrupted".replace("  ", " "), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (| head): nothing more to say, and nothing to flush at exit.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
