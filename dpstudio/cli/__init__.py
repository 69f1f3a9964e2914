"""Command-line entry point: ``dpstudio`` with no arguments opens the GUI; subcommands run headless jobs.

Each subcommand lives in its own module under ``dpstudio.cli`` exposing ``add_parser(subparsers)`` and
``run(args) -> int``. Bad input exits non-zero with a one-line message; no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand name -> module under dpstudio.cli
SUBCOMMANDS = {
    "gui": "gui",
    "release": "release",
    "evaluate": "evaluate",
    "histogram": "histogram",
    "budget": "budget",
    "anonymize": "anonymize",
    "stream": "stream",
}


class CliError(Exception):
    """Bad input: printed as one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse with the project's rule for bad input: one line on stderr (not the usage), exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number >= 0 (a seed)."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="dpstudio", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)
    for module in SUBCOMMANDS.values():
        try:
            mod = importlib.import_module(f"dpstudio.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"dpstudio.cli.{module}":
                continue  # not built yet
            raise
        mod.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        argv = ["gui"]
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except CliError as exc:
        print(f"dpstudio {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dpstudio {args.command}: cancelled", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
