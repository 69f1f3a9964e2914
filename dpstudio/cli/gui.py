"""``dpstudio gui [DATA]``: open the studio (the bundled Adult sample when no data is given)."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("gui", help="open the dpstudio window (default when no subcommand is given)")
    p.add_argument("data", nargs="?", help="a CSV file to open (default: the bundled Adult sample)")
    p.add_argument("--demo", action="store_true", help="run the whole workflow on the bundled sample")
    p.add_argument("--screenshots", metavar="DIR", help="with --demo: save a PNG of each panel in DIR and exit")
    p.set_defaults(run=run)


def run(args) -> int:
    from dpstudio.gui.app import run_app

    return run_app(args)
