"""``dpstudio budget``: the persistent per-dataset budget store (see docs/budget.md).

    dpstudio budget [list]                 datasets with their lifetime budget, spent and remaining
    dpstudio budget show NAME              one dataset and every spend on it
    dpstudio budget set-total NAME EPS     raise (or lower, not below what was spent) a lifetime budget
    dpstudio budget rename NAME NEW        give a dataset another name
    [--budget-store PATH|none]             default $DPSTUDIO_BUDGET_STORE, else the user data directory

Also the helpers the release commands use (``add_store_options``, ``check_store_options``,
``release_request``, and ``begin_session``, which drives a run session's question and spend through the
release service before any noise is drawn).
"""

from __future__ import annotations

import argparse
import sys

from . import CliError

STORE_HELP = (
    "the budget store (SQLite; default $DPSTUDIO_BUDGET_STORE, else the user data directory); "
    "'none' turns tracking off (a warning on every run)"
)


# -- helpers for the release commands ----------------------------------------------------------------------
def add_store_options(p) -> None:
    p.add_argument("--budget-store", metavar="PATH|none", default=None, help=STORE_HELP)
    p.add_argument(
        "--dataset-name",
        metavar="NAME",
        default=None,
        help="the data's name in the budget store (default: the file's name without its suffix)",
    )
    p.add_argument(
        "--dataset-budget",
        metavar="EPS",
        default=None,
        help="the data's lifetime budget, on its first use (default: the first release's epsilon)",
    )
    p.add_argument(
        "--new-dataset",
        action="store_true",
        help="these records are other people than a known dataset they resemble (a renamed, added or "
        "dropped column, repeated rows): give them a budget of their own",
    )


def check_store_options(args) -> None:
    """Refuse a bad --dataset-name / --dataset-budget before any work (one line, exit 2)."""
    from ..core.budget import check_usable_epsilon
    from ..io.budget_store import BudgetStoreError, check_name

    try:
        if args.dataset_name is not None:
            check_name(args.dataset_name)
        if args.dataset_budget is not None:
            check_usable_epsilon(args.dataset_budget)
    except BudgetStoreError as exc:
        raise CliError(f"--dataset-name: {exc}") from None
    except ValueError as exc:
        raise CliError(f"--dataset-budget: {exc}") from None


def release_request(args, fingerprint, epsilon, what: str, source):
    """The release service's ``ReleaseRequest`` for a command's spend: the store options (``--budget-store``,
    ``--dataset-name``, ``--dataset-budget``, ``--new-dataset``), ``fingerprint()`` computing the data's
    ``DatasetPrint`` (called only when a store is open: an untracked run does not hash the data), and
    ``source``, the data file (its stem names new data unless --dataset-name)."""
    from ..core.budget import check_epsilon, check_usable_epsilon
    from ..io.budget_store import default_dataset_name
    from ..model.release import ReleaseRequest

    total = None if args.dataset_budget is None else check_usable_epsilon(args.dataset_budget)
    return ReleaseRequest(
        args.dataset_name or default_dataset_name(source),
        fingerprint,
        check_epsilon(epsilon),
        what,
        "cli",
        args.budget_store,
        total,
        bool(getattr(args, "new_dataset", False)),
        str(source),
    )


def begin_session(args, session):
    """Drive a run session (``model.release.session.RunSession``, or the stream's ``StreamRun``) through its
    question and spend, and return its ``RunSetup``. The command line is the answer to the release question:
    its warnings are printed, its refusal is a CliError (nothing charged). A session without a question
    (seeded simulation noise) is not a release: nothing is charged."""
    from fractions import Fraction

    from ..io.budget_store import fraction_text
    from ..model.release import ReleaseRefused, epsilon_caution

    try:
        question = session.question()
    except ReleaseRefused as exc:
        raise CliError(str(exc)) from None
    if question is not None:
        caution = epsilon_caution(question.epsilon)
        for warning in ((caution,) if caution else ()) + question.warnings:
            print(f"WARNING: {warning}", file=sys.stderr)
        if question.refusal:
            raise CliError(question.refusal)
        if args.dataset_name and question.tracked and question.dataset != args.dataset_name:
            print(
                f"note: this data is already tracked as {question.dataset!r}; charging it there "
                "(dpstudio budget rename changes the name)",
                file=sys.stderr,
            )
        if question.related:
            print(
                f"note: charged to the known dataset {question.dataset!r}: {question.related} "
                "(--new-dataset declares these records other people)",
                file=sys.stderr,
            )
    try:
        setup = session.begin(question)
    except ReleaseRefused as exc:
        raise CliError(str(exc)) from None
    b = setup.budget or {}
    if b.get("tracked"):
        spent, left, lifetime = (
            fraction_text(Fraction(b[k])) for k in ("dataset_spent", "dataset_remaining", "dataset_total")
        )
        print(f"budget store: dataset {b['dataset']!r}: spent {spent} of {lifetime}, {left} left", file=sys.stderr)
    return setup


# -- the subcommand ----------------------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--budget-store", metavar="PATH|none", default=argparse.SUPPRESS, help=STORE_HELP)
    p = subparsers.add_parser(
        "budget",
        help="the per-dataset budget store: list, show, set-total, rename",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--budget-store", metavar="PATH|none", default=None, help=STORE_HELP)
    verbs = p.add_subparsers(dest="verb")
    verbs.add_parser("list", parents=[common], help="every dataset: lifetime budget, spent, remaining")
    show = verbs.add_parser("show", parents=[common], help="one dataset and its spends")
    show.add_argument("name")
    st = verbs.add_parser("set-total", parents=[common], help="change a dataset's lifetime budget")
    st.add_argument("name")
    st.add_argument("epsilon")
    rn = verbs.add_parser("rename", parents=[common], help="rename a dataset")
    rn.add_argument("name")
    rn.add_argument("new_name")
    p.set_defaults(run=run)


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def _summary(d) -> list[str]:
    from ..io.budget_store import fraction_text

    return [
        d.name,
        f"~{d.approx_rows:,}",
        str(len(d.columns)),
        fraction_text(d.total),
        fraction_text(d.spent),
        fraction_text(d.remaining),
        str(len(d.spends)),
    ]


def run(args) -> int:
    from ..core.budget import check_usable_epsilon
    from ..io.budget_store import ENV, BudgetStore, BudgetStoreError, fraction_text, store_location

    path = store_location(args.budget_store)
    if path is None:
        raise CliError(f"budget tracking is off ({ENV}=none or --budget-store none): there is no store to show")
    store = BudgetStore(path)
    verb = args.verb or "list"
    try:
        if verb == "list":
            found = store.datasets()
            print(f"budget store: {path}")
            if not found:
                print("no datasets yet (a release adds its data here)")
                return 0
            head = ["dataset", "rows (approx.)", "columns", "total", "spent", "remaining", "releases"]
            print(_table([head] + [_summary(d) for d in found]))
            return 0
        if verb == "set-total":
            try:
                total = check_usable_epsilon(args.epsilon)
            except ValueError as exc:
                raise CliError(f"set-total: {exc}") from None
            d = store.set_total(args.name, total)
            print(
                f"dataset {d.name!r}: lifetime budget now {fraction_text(d.total)} (spent "
                f"{fraction_text(d.spent)}, {fraction_text(d.remaining)} left)"
            )
            return 0
        if verb == "rename":
            d = store.rename(args.name, args.new_name)
            print(f"dataset {args.name!r} is now {d.name!r}")
            return 0
        d = store.dataset(args.name)
    except BudgetStoreError as exc:
        raise CliError(str(exc)) from None
    print(f"dataset {d.name!r} (budget store {path})")
    print(f"  columns: {', '.join(d.columns)}")
    print(f"  rows: about {d.approx_rows:,} (rounded)")
    print(
        f"  lifetime budget {fraction_text(d.total)}, spent {fraction_text(d.spent)}, {fraction_text(d.remaining)} left"
    )
    if d.spends:
        print(
            _table(
                [["time (UTC)", "epsilon", "mode", "what"]]
                + [[s.time, fraction_text(s.epsilon), s.mode, s.what] for s in d.spends]
            )
        )
    return 0
