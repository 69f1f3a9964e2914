"""``dpstudio budget``: the persistent per-dataset budget store (see docs/budget.md).

    dpstudio budget [list]                 datasets with their lifetime budget, spent and remaining
    dpstudio budget show NAME              one dataset and every spend on it
    dpstudio budget set-total NAME EPS     raise (or lower, not below what was spent) a lifetime budget
    dpstudio budget rename NAME NEW        give a dataset another name
    [--budget-store PATH|none]             default $DPSTUDIO_BUDGET_STORE, else the user data directory

Also the helpers ``dpstudio release`` and ``dpstudio histogram`` use to charge the store before any noise
is drawn (``add_store_options``, ``check_store_options``, ``charge_store``).
"""

from __future__ import annotations

import argparse
import sys

from . import CliError

STORE_HELP = ("the budget store (SQLite; default $DPSTUDIO_BUDGET_STORE, else the user data directory); "
              "'none' turns tracking off (a warning on every run)")


# -- helpers for the release commands ----------------------------------------------------------------------
def add_store_options(p) -> None:
    p.add_argument("--budget-store", metavar="PATH|none", default=None, help=STORE_HELP)
    p.add_argument("--dataset-name", metavar="NAME", default=None,
                   help="the data's name in the budget store (default: the file's name without its suffix)")
    p.add_argument("--dataset-budget", metavar="EPS", default=None,
                   help="the data's lifetime budget, on its first use (default: the first release's epsilon)")


def check_store_options(args) -> None:
    """Refuse a bad --dataset-name / --dataset-budget before any work (one line, exit 2)."""
    from ..core.budget import check_epsilon
    from ..io.budget_store import BudgetStoreError, check_name

    try:
        if args.dataset_name is not None:
            check_name(args.dataset_name)
        if args.dataset_budget is not None:
            check_epsilon(args.dataset_budget)
    except BudgetStoreError as exc:
        raise CliError(f"--dataset-name: {exc}") from None
    except ValueError as exc:
        raise CliError(f"--dataset-budget: {exc}") from None


def charge_store(args, fingerprint, epsilon, what: str, source) -> dict:
    """Charge the store for the whole run's ``epsilon`` (call before any noise); the sidecar's entry.

    ``fingerprint()`` computes the data's ``DatasetPrint`` (called only when a store is open: an untracked
    run does not hash the data), ``source`` is the data file. Refusals become a CliError.
    """
    from ..core.budget import BudgetExceededError
    from ..io.budget_store import (BudgetStoreError, UNTRACKED, default_dataset_name, fraction_text, open_store,
                                   untracked_record)

    name = args.dataset_name or default_dataset_name(source)
    try:
        store = open_store(args.budget_store)
        if store is None:
            print(f"WARNING: {UNTRACKED}", file=sys.stderr)
            return untracked_record(name)
        fp = fingerprint()
        known = store.find(fp)
        if known is not None and args.dataset_name and args.dataset_name != known.name:
            print(f"note: this data is already tracked as {known.name!r}; charging it there "
                  "(dpstudio budget rename changes the name)", file=sys.stderr)
        for warning in store.near_duplicate_warnings(fp):
            print(f"WARNING: {warning}", file=sys.stderr)
        charge = store.charge(fp, epsilon, what, "cli", name=name, total=args.dataset_budget)
    except (BudgetStoreError, BudgetExceededError) as exc:
        raise CliError(str(exc)) from None
    print(f"budget store: dataset {charge.dataset!r}: spent {fraction_text(charge.spent)} of "
          f"{fraction_text(charge.total)}, {fraction_text(charge.remaining)} left", file=sys.stderr)
    return charge.to_dict()


SIMULATION_RECORD = {"tracked": False, "charged": None,
                     "note": "simulation noise (not a release): nothing was charged to the budget store"}


# -- the subcommand ----------------------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--budget-store", metavar="PATH|none", default=argparse.SUPPRESS, help=STORE_HELP)
    p = subparsers.add_parser("budget", help="the per-dataset budget store: list, show, set-total, rename",
                              description=__doc__.splitlines()[0])
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

    return [d.name, f"~{d.approx_rows:,}", str(len(d.columns)), fraction_text(d.total), fraction_text(d.spent),
            fraction_text(d.remaining), str(len(d.spends))]


def run(args) -> int:
    from ..core.budget import check_epsilon
    from ..io.budget_store import BudgetStoreError, ENV, fraction_text, store_location, BudgetStore

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
                total = check_epsilon(args.epsilon)
            except ValueError as exc:
                raise CliError(f"set-total: {exc}") from None
            d = store.set_total(args.name, total)
            print(f"dataset {d.name!r}: lifetime budget now {fraction_text(d.total)} (spent "
                  f"{fraction_text(d.spent)}, {fraction_text(d.remaining)} left)")
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
    print(f"  lifetime budget {fraction_text(d.total)}, spent {fraction_text(d.spent)}, "
          f"{fraction_text(d.remaining)} left")
    if d.spends:
        print(_table([["time (UTC)", "epsilon", "mode", "what"]]
                     + [[s.time, fraction_text(s.epsilon), s.mode, s.what] for s in d.spends]))
    return 0
