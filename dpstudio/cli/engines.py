"""``--engine auto|numpy|duckdb|spark`` and ``--spark-master URL`` for the commands that read data."""

from __future__ import annotations

from . import CliError


def add_engine_options(p) -> None:
    from ..io.engines import ENGINES

    p.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="where the data is read and counted: numpy (in memory), duckdb (out of core), spark "
        "(cluster); auto: duckdb for files over 256 MB, else numpy (docs/scale.md)",
    )
    p.add_argument(
        "--spark-master",
        metavar="URL",
        default=None,
        help="with --engine spark: the cluster (default: Spark's configuration, else local[*])",
    )


def chosen_engine(args) -> str:
    """The engine this run uses (CliError for an unknown one or --spark-master without spark)."""
    from ..io.engines import EngineError, choose_engine

    try:
        name = choose_engine(args.engine, args.data)
    except EngineError as exc:
        raise CliError(str(exc)) from None
    if args.spark_master and name != "spark":
        raise CliError("--spark-master goes with --engine spark")
    return name


def open_chosen(args, name: str):
    from ..io.engines import EngineError, open_engine

    try:
        return open_engine(name, args.spark_master)
    except EngineError as exc:
        raise CliError(str(exc)) from None
