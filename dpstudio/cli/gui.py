"""``dpstudio gui [DATA]``: open the studio (the bundled Adult sample when no data is given).

``dpstudio gui --demo [--screenshots DIR]`` runs the whole workflow on the bundled sample (load, import
taxonomies, DiffGen with consistency in teaching mode, watch, compare, then one release-mode run exported
to a temporary folder), saves a PNG of each panel in DIR and exits; it works offscreen
(QT_QPA_PLATFORM=offscreen).
"""

from __future__ import annotations

from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("gui", help="open the dpstudio window (default when no subcommand is given)")
    p.add_argument("data", nargs="?", help="a CSV file to open (default: the bundled Adult sample)")
    p.add_argument("--demo", action="store_true", help="run the whole workflow on the bundled sample and exit")
    p.add_argument("--screenshots", metavar="DIR", help="with --demo: save a PNG of each panel in DIR")
    p.add_argument(
        "--size",
        metavar="WxH",
        default="1440x900",
        help="with --demo: the window's size in pixels (default 1440x900; e.g. 1280x800, 1920x1080)",
    )
    p.set_defaults(run=run)


def run(args) -> int:
    from dpstudio.cli import CliError

    if args.screenshots and not args.demo:
        raise CliError("--screenshots needs --demo")
    if args.size != "1440x900" and not args.demo:
        raise CliError("--size needs --demo")
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        if width < 640 or height < 480:
            raise ValueError
    except ValueError:
        raise CliError(f"--size {args.size!r}: give WIDTHxHEIGHT in pixels, at least 640x480") from None
    args.window_size = (width, height)
    if args.demo and args.data:
        raise CliError("--demo runs on the bundled Adult sample; leave out DATA")
    if args.data is not None and not Path(args.data).exists():
        raise CliError(f"{args.data}: no such file")
    from dpstudio.gui.app import run_app

    return run_app(args)
