"""``dpstudio stream``: release a count stream over sliding windows (SHP: SWM, TPM, ASM-DP; baselines).

Input: ``--counts FILE`` (one count per timestamp: one per line, a CSV with a ``count`` column, or .npy), or
``--data CSV --column C [--time-column T]`` (one row per timestamp), or ILINet's layout with ``--region``
(``national`` or a region name) and ``--from YYYY-Www``, or an event log: ``--events FILE --user COL --time COL
--bucket day|week|month --start DATE --end DATE`` (one row per event; the public buckets from start to end,
at most K = ``--per-bucket-cap`` events per person per bucket counted, and every mechanism's noise calibrated
for sensitivity K: ``io/event_stream.py``). Output: OUT.csv (``window,t,value``, one row per
published window and position) and OUT.json (parameters, ledger, guarantee, expected_window_laplace_error).
Secure OpenDP noise unless ``--seed`` (simulation noise: marked "not a release", nothing charged).
Bad input: a one-line message, exit 2, nothing written.
"""

from __future__ import annotations

import functools

from dpstudio.algorithms.stream_runs import MECHANISMS
from dpstudio.cli import CliError, non_negative_int
from dpstudio.cli.budget import add_store_options, check_store_options
from dpstudio.core.stream_partition import MODES


def add_parser(sub) -> None:
    p = sub.add_parser(
        "stream",
        help="release a differentially private count stream over sliding windows",
        description=__doc__.splitlines()[0],
    )
    src = p.add_argument_group("input (one of)")
    src.add_argument(
        "--counts", metavar="FILE", help="one count per timestamp: one per line, CSV with a 'count' column, or .npy"
    )
    src.add_argument("--data", metavar="CSV", help="a CSV with one row per timestamp (with --column)")
    src.add_argument(
        "--events",
        metavar="FILE",
        help="an event log (CSV or Parquet, one row per event) with --user, --time, --bucket, --start, --end",
    )
    p.add_argument("--user", metavar="COL", help="with --events: the column identifying the person")
    p.add_argument("--time", metavar="COL", help="with --events: the column holding the event's time")
    p.add_argument("--bucket", choices=["day", "week", "month"], help="with --events: the time bucket")
    p.add_argument("--start", dest="events_start", metavar="DATE", help="with --events: the first bucket (YYYY-MM-DD)")
    p.add_argument(
        "--end", dest="events_end", metavar="DATE", help="with --events: the end of the range (YYYY-MM-DD, excluded)"
    )
    p.add_argument(
        "--time-format",
        choices=["iso", "epoch-seconds", "epoch-milliseconds", "day-number", "week-number"],
        default="iso",
        help="with --events: how the time column is written: ISO dates or timestamps (default), epoch seconds or "
        "milliseconds (UTC), or day or week numbers counted from --time-origin",
    )
    p.add_argument(
        "--time-origin",
        metavar="DATE",
        help="with --time-format day-number or week-number: the public date (YYYY-MM-DD) that number 0 stands for",
    )
    p.add_argument(
        "--per-bucket-cap",
        type=int,
        default=1,
        metavar="K",
        help="with --events: events counted per person per bucket (default 1; more are dropped before counting); "
        "the noise grows with K",
    )
    p.add_argument("--column", help="with --data: the column holding the count (ILINet: ILITOTAL)")
    p.add_argument("--time-column", metavar="T", help="with --data: order the rows by this column")
    p.add_argument(
        "--region",
        metavar="R",
        help="with --data in ILINet's layout (REGION, YEAR, WEEK): "
        "'national' (the sum of the regions per week) or a region ('Region 4')",
    )
    p.add_argument("--from", dest="start", metavar="YYYY-Www", help="with --region: the first week (e.g. 2002-W40)")
    p.add_argument("--sep", help="with --data: field separator (default ',')")
    p.add_argument("--window", type=int, required=True, metavar="W", help="the sliding window's size")
    p.add_argument(
        "--horizon", type=int, metavar="T", help="the public horizon the budget covers (default: the stream's length)"
    )
    p.add_argument("--mechanism", choices=list(MECHANISMS), default="tpm", help="default tpm")
    p.add_argument(
        "--grouping",
        choices=list(MODES),
        default="noisefirst",
        help="how each window is grouped (post-processing; default noisefirst)",
    )
    p.add_argument("--groups", type=int, metavar="K", help="seed/approx grouping: exactly K groups (default W/10)")
    p.add_argument("--ratio", type=float, default=0.4, metavar="N/T", help="asm: sampling ratio (default 0.4)")
    p.add_argument(
        "--asm-budget",
        choices=["gap", "fixed"],
        default="gap",
        help="asm: eps g/T per sample (gap, default) or eps/M for M = ratio T samples (fixed)",
    )
    p.add_argument("--epsilon", required=True, metavar="E", help="privacy budget (a positive number)")
    p.add_argument("--out", required=True, metavar="OUT.csv", help="output CSV; the sidecar is OUT.json")
    p.add_argument("--report", metavar="OUT.html", help="also write the HTML report of the release")
    p.add_argument(
        "--published",
        choices=["whole", "real"],
        default="whole",
        help="what the CSV holds: counts as whole numbers, never negative (default), or the values as computed "
        "(decimals that may be negative)",
    )
    p.add_argument("--seed", type=non_negative_int, help="simulation noise with this seed: the output is NOT a release")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    add_store_options(p)
    p.set_defaults(run=run)


def stream_source(args):
    """The ``StreamSource`` the options name (``model.stream.session``): what the run and its sidecar's
    ``source`` describe."""
    from pathlib import Path

    from dpstudio.model.stream.session import COUNTS, EVENTS, ILINET, TABLE, StreamSource

    if args.events:
        return StreamSource(
            EVENTS,
            Path(args.events),
            start=args.events_start,
            end=args.events_end,
            time_column=args.time,
            user=args.user,
            bucket=args.bucket,
            cap=args.per_bucket_cap,
            time_format=args.time_format,
            origin=args.time_origin,
        )
    if args.counts:
        return StreamSource(COUNTS, Path(args.counts))
    if args.region:
        return StreamSource(
            ILINET, Path(args.data), region=args.region, column=args.column, start=args.start, sep=args.sep
        )
    return StreamSource(
        TABLE, Path(args.data), column=args.column, start=None, time_column=args.time_column, sep=args.sep
    )


def load_stream(args):
    """(counts, source dict) from the input options."""
    from dpstudio.io.stream_input import read_column, read_counts, read_ilinet

    if getattr(args, "events", None):
        return _load_events(args)
    if any(getattr(args, k, None) for k in ("user", "time", "bucket", "events_start", "events_end", "time_origin")):
        raise CliError("--user/--time/--bucket/--start/--end/--time-origin go with --events")
    if getattr(args, "time_format", "iso") != "iso":
        raise CliError("--time-format goes with --events")
    if getattr(args, "per_bucket_cap", 1) != 1:
        raise CliError("--per-bucket-cap goes with --events")
    if bool(args.counts) == bool(args.data):
        raise CliError("give exactly one input: --counts FILE, --data CSV --column C, or --events FILE")
    if args.counts:
        if args.column or args.time_column or args.region or args.start:
            raise CliError("--column/--time-column/--region/--from go with --data, not --counts")
        return read_counts(args.counts), {"source": "counts file", "file": str(args.counts)}
    if not args.column:
        raise CliError("--data needs --column C (the count column)")
    source = {"source": "data file", "file": str(args.data), "column": args.column}
    if args.region:
        if args.time_column:
            raise CliError("--time-column does not go with --region (ILINet's weeks are in file order)")
        source.update({"layout": "ILINet", "region": args.region, "from": args.start})
        return read_ilinet(args.data, args.region, args.column, args.start, args.sep), source
    if args.start:
        raise CliError("--from goes with --region (ILINet's layout)")
    source["time_column"] = args.time_column
    return read_column(args.data, args.column, args.time_column, args.sep), source


def _load_events(args):
    """(counts per public bucket, source dict) from an event log; the dropped events go to stderr, rounded
    (the data owner's view, never the release)."""
    import sys

    from dpstudio.io.event_stream import EventStreamError, bucket_events, events_source

    if args.counts or args.data or args.column or args.time_column or args.region or args.start:
        raise CliError("--events goes alone: not with --counts, --data, --column, --time-column, --region, --from")
    missing = [f"--{n}" for n, v in (("user", args.user), ("time", args.time), ("bucket", args.bucket)) if not v]
    missing += [n for n, v in (("--start", args.events_start), ("--end", args.events_end)) if not v]
    if missing:
        raise CliError(f"--events needs {', '.join(missing)}")
    settings = (args.events, args.user, args.time, args.bucket, args.events_start, args.events_end, args.per_bucket_cap)
    settings += (args.time_format, args.time_origin)
    try:
        source = events_source(*settings, mechanism=args.mechanism)  # the public settings checked first
        counts, report = bucket_events(*settings)
    except EventStreamError as exc:
        raise CliError(str(exc)) from None
    print(f"dpstudio stream: {report.words()}", file=sys.stderr)
    return counts, source


def _check_cap(cap) -> None:
    from dpstudio.io.event_stream import EventStreamError, check_cap

    try:
        check_cap(cap)
    except EventStreamError as exc:
        raise CliError(str(exc)) from None


def _public_horizon(args) -> int | None:
    """The number of public buckets of an event log's range (its horizon), from the options alone; None
    while an option is missing (``_load_events`` names it)."""
    from dpstudio.io.event_stream import EventStreamError, public_buckets

    if not (args.bucket and args.events_start and args.events_end):
        return None
    try:
        return len(public_buckets(args.events_start, args.events_end, args.bucket))
    except EventStreamError as exc:
        raise CliError(str(exc)) from None


def _events_print(args):
    """The budget store's key for an event log (``io.event_stream.events_print``)."""
    from dpstudio.io.event_stream import EventStreamError, events_print

    try:
        return events_print(args.events)
    except EventStreamError as exc:
        raise CliError(str(exc)) from None


def run(args) -> int:
    from dpstudio.algorithms.stream_runs import StreamInputError, StreamParams
    from dpstudio.cli.budget import begin_session, release_request
    from dpstudio.cli.histogram import _dataset_print
    from dpstudio.core.budget import BudgetExceededError
    from dpstudio.io.atomic import OutputPathError, check_output_path
    from dpstudio.io.stream_release import check_release_paths
    from dpstudio.model.stream.recommend import advice
    from dpstudio.model.stream.run import StreamRun

    check_store_options(args)
    try:
        check_release_paths(args.out, args.overwrite)
        if args.report:
            check_output_path(args.report, args.overwrite)
        params = StreamParams(
            args.mechanism,
            args.epsilon,
            args.window,
            args.horizon,
            args.grouping,
            args.groups,
            args.ratio,
            args.asm_budget,
            cap=args.per_bucket_cap if args.events else 1,  # K: every mechanism's noise for sensitivity K
            published=args.published,
        )
        eps = params.checked_epsilon()
        if args.events:
            _check_cap(args.per_bucket_cap)
        horizon = _public_horizon(args) if args.events else None
        if horizon is not None:  # the public range gives the horizon: checked before the log is read
            params.validate(horizon)
        counts, _source = load_stream(args)
        params.validate(counts.size)  # every check before the store is charged or noise drawn
        request = None
        if args.seed is None:
            request = release_request(
                args,
                functools.partial(_events_print, args)
                if args.events
                else functools.partial(_dataset_print, args, counts),
                eps,
                f"dpstudio stream --mechanism {args.mechanism} -> {args.out}",
                args.counts or args.data or args.events,
            )
        run = StreamRun(
            stream_source(args),
            counts,
            params,
            args.seed is not None,
            args.seed or 0,
            args.budget_store,
            request=request,
        )
        begin_session(args, run)
        record = run.finish(list(run.events()))
        result = record.result
        assert result is not None  # a private mechanism's run ends with its result
        rec, _entry = advice(params, result.horizon)
        csv_path, json_path, *_report = record.export(
            args.out, args.overwrite, report=args.report or False, script=False, simulation=args.seed is not None
        )
    except (StreamInputError, OutputPathError, BudgetExceededError) as exc:
        raise CliError(str(exc)) from None
    del counts
    status = "release" if result.is_release else "NOT a release"
    print(
        f"wrote {csv_path} and {json_path}{' and ' + str(args.report) if args.report else ''} ({status}): {result.windows.shape[0]} windows of {args.window}, "
        f"{args.mechanism}, grouping {args.grouping}, epsilon {eps}; {result.guarantee}"
    )
    if rec.mechanism != args.mechanism:
        print(f"recommended: {rec.reason}")
    return 0
