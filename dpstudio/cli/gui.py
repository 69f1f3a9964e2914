"""``dpstudio gui [DATA]``: open the studio (the bundled Adult sample when no data is given).

``dpstudio gui --demo [--screenshots DIR]`` runs the whole workflow on the bundled sample (load, import
taxonomies, DiffGen with consistency in teaching mode, watch, compare, then one release-mode run exported
to a temporary folder), saves a PNG of each panel in DIR and exits; it works offscreen
(QT_QPA_PLATFORM=offscreen).
"""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("gui", help="open the dpstudio window (default when no subcommand is given)")
    p.add_argument("data", nargs="?", help="a CSV file to open (default: the bundled Adult sample)")
    p.add_argument("--demo", action="store_true", help="run the whole workflow on the bundled sample and exit")
    p.add_argument("--screenshots", metavar="DIR", help="with --demo: save a PNG of each panel in DIR")
    p.set_defaults(run=run)


def run(args) -> int:
    from dpstudio.cli import CliError

    if args.screenshots and not args.demo:
        raise CliError("--screenshots needs --demo")
    if args.demo and args.data:
        raise CliError("--demo runs on the bundled Adult sample; leave out DATA")
    from dpstudio.gui.app import run_app

    return run_app(args)
