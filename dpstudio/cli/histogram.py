"""``dpstudio histogram``: release a histogram (interval trees: flat, H_b, SC, LUEDPTree, H_opt; p-Identity).

Input: ``--counts FILE`` (one count per line, CSV with a ``count`` column, or .npy), or ``--data CSV
--column NAME --edges SPEC`` (public bin edges). Output: OUT.csv (one released count per bin, column
``count``) and the sidecar OUT.json (``expected_all_range_mse``, ``ledger``, tree, budgets,
post-processing). Without ``--algorithm`` the candidate with the lowest expected error for the public
inputs (n bins, epsilon) runs, and the sidecar's ``algorithm_choice`` says which and why. Secure OpenDP noise unless ``--seed`` (simulation noise: marked "not a release").
Bad input: a one-line message, exit 2, nothing written.
"""

from __future__ import annotations

import functools
import math

from dpstudio.algorithms.interval_trees import ALGORITHMS
from dpstudio.cli import CliError, non_negative_int
from dpstudio.cli.budget import add_store_options, check_store_options
from dpstudio.cli.engines import add_engine_options, chosen_engine, open_chosen

MISSING_DROPPED = "rows with a missing value in the column were dropped; how many is not reported (it is data)"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "histogram",
        help="release a differentially private histogram (interval trees)",
        description=__doc__.splitlines()[0],
    )
    src = p.add_argument_group("input (one of)")
    src.add_argument("--counts", metavar="FILE", help="bin counts: one per line, CSV with a 'count' column, or .npy")
    src.add_argument("--data", metavar="CSV", help="a data file; bin one column with --column and --edges")
    p.add_argument("--column", help="with --data: the numeric column to bin (e.g. age)")
    p.add_argument(
        "--edges", metavar="SPEC", help="public bin edges: '17,25,35,91', 'start:stop:step' (e.g. 17:91:1) or '@FILE'"
    )
    p.add_argument("--categories", metavar="A,B,...", help="with --data: ordered public categories (one bin each)")
    p.add_argument(
        "--derive-edges",
        type=int,
        metavar="K",
        help="TEACHING ONLY: K equal-width bins from the data's min/max ('derived from the data: "
        "not private', output marked not a release)",
    )
    p.add_argument("--sep", help="with --data: field separator (default ',')")
    p.add_argument(
        "--drop-missing",
        action="store_true",
        help="with --data: leave out rows with a missing value (how many is not reported: it is data)",
    )
    p.add_argument(
        "--algorithm",
        choices=list(ALGORITHMS),
        help="default: the lowest expected error for n bins and epsilon (sidecar: algorithm_choice)",
    )
    p.add_argument(
        "--branching",
        type=int,
        metavar="B",
        help="hb/luedp: tree arity (default: Qardaji's rule); sc: fix the first-step arity k",
    )
    p.add_argument(
        "--shape",
        choices=["regular", "sc"],
        default="regular",
        help="luedp: run on the b-ary tree (default) or on SC's structure",
    )
    p.add_argument("--no-root", action="store_true", help="do not noise the root (the total)")
    p.add_argument("--epsilon", required=True, metavar="E", help="privacy budget (a positive number)")
    p.add_argument("--out", required=True, metavar="OUT.csv", help="output CSV; the sidecar is OUT.json")
    p.add_argument("--seed", type=non_negative_int, help="simulation noise with this seed: the output is NOT a release")
    p.add_argument(
        "--published",
        choices=["whole", "least-squares"],
        default="whole",
        help="what the CSV holds: whole non-negative counts, consistent across the tree's levels and "
        "summing to the published total (default), or the least-squares estimates (decimals that may be "
        "negative; unbiased)",
    )
    p.add_argument(
        "--round",
        action="store_true",
        help="with --published least-squares: round the estimates to whole numbers (breaks consistency)",
    )
    p.add_argument(
        "--clamp",
        action="store_true",
        help="with --published least-squares: clamp negative estimates to 0 (breaks consistency)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    add_store_options(p)
    add_engine_options(p)
    p.set_defaults(run=run)


def _load(args, engine=None):
    """(counts, edges, domain dict, not-a-release reasons). ``engine``: a SQL data engine reading --data
    (None: pandas)."""
    from dpstudio.io.histogram_input import (
        DERIVED_NOT_PRIVATE,
        derive_edges,
        histogram_from_categories,
        histogram_from_values,
        parse_edges,
        read_column,
        read_column_counts,
        read_counts_file,
    )

    def column(numeric):
        how = "drop" if args.drop_missing else "error"
        if engine is None:
            return (*read_column(args.data, args.column, args.sep, how, numeric=numeric), None)
        return read_column_counts(engine, args.data, args.column, args.sep, how, numeric=numeric)

    if bool(args.counts) == bool(args.data):
        raise CliError("give exactly one input: --counts FILE or --data CSV --column NAME --edges SPEC")
    if args.counts:
        if args.edges or args.column or args.derive_edges or args.categories:
            raise CliError("--edges/--column/--categories/--derive-edges go with --data, not --counts")
        counts = read_counts_file(args.counts)
        return counts, None, {"source": "counts file", "file": str(args.counts)}, []
    if not args.column:
        raise CliError("--data needs --column NAME")
    given = [x for x in (args.edges, args.categories, args.derive_edges) if x]
    if len(given) != 1:
        raise CliError("--data needs exactly one of --edges SPEC (public), --categories LIST or --derive-edges K")
    domain = {"file": str(args.data), "column": args.column}
    if args.drop_missing:  # said whether or not any row was dropped: the count and even its being 0 are data
        domain["missing"] = MISSING_DROPPED
    reasons = []
    if args.categories:
        values, _, weights = column(False)
        cats = [c.strip() for c in args.categories.split(",") if c.strip()]
        counts = histogram_from_categories(values, cats, args.column, weights)
        domain.update({"source": "public categories", "categories": cats})
        return counts, None, domain, reasons
    values, _, weights = column(True)
    if args.edges:
        edges = parse_edges(args.edges)
        domain.update({"source": "public edges given by the user", "edges": args.edges})
    else:
        if args.derive_edges < 2:
            raise CliError("--derive-edges needs at least 2 bins")
        edges, mark = derive_edges(values, args.derive_edges)
        domain.update({"source": mark})
        reasons.append(f"bin edges {DERIVED_NOT_PRIVATE}")
    counts = histogram_from_values(values, edges, args.column, weights)
    return counts, edges, domain, reasons


def _dataset_print(args, counts, engine=None):
    """The budget store's key: the whole parsed table behind --data (as ``dpstudio release`` reads it, so
    both commands charge one dataset; by the data engine when one reads --data), or the parsed counts of
    --counts."""
    from dpstudio.io.dataset_fingerprint import counts_print, table_print

    if args.counts:
        return counts_print(counts)
    if engine is not None:
        from dpstudio.io.engines import EngineError
        from dpstudio.io.engines.source import describe

        try:
            return engine.table_print(describe(args.data))
        except EngineError as exc:
            raise CliError(str(exc)) from None
    from dpstudio.io.datasets import DatasetError, load_table

    try:
        return table_print(load_table(args.data).frame)
    except DatasetError:  # a file only the plain CSV reader takes: fingerprint what that reader parses
        import pandas as pd

        return table_print(
            pd.read_csv(args.data, sep=args.sep or ",", skipinitialspace=True, dtype=str, keep_default_na=False)
        )


def _snapshot(args, params, bins: int, domain: dict):
    """The frozen inputs of the run (``model.release.snapshot.RunSnapshot``): the column and its public bins
    as declared on the command line (a counts file's bins are the file's own), the missing-value rule."""
    from types import MappingProxyType

    from dpstudio.algorithms.registry import algorithm_id
    from dpstudio.io.budget_store import default_dataset_name
    from dpstudio.model.project import provenance as pv
    from dpstudio.model.release.snapshot import RunSnapshot

    inputs = []
    if args.data:
        given = (
            f"--edges {args.edges}"
            if args.edges
            else f"--categories {args.categories}"
            if args.categories
            else f"--derive-edges {args.derive_edges}"
        )
        keys = [pv.key(pv.TYPE, args.column)] + ([pv.key(pv.BOUNDS, args.column)] if not args.categories else [])
        for k in keys:
            inputs.append(
                {
                    "input": pv.describe(k),
                    "key": k,
                    "source": f"declared on the command line: {given}" if not args.derive_edges else domain["source"],
                    "derived": bool(args.derive_edges),
                    "confirmed": None,
                }
            )
    source = args.counts or args.data
    return RunSnapshot(
        teaching=args.seed is not None,
        epsilon=params.checked_epsilon(),
        seed=0 if args.seed is None else int(args.seed),
        algorithm=algorithm_id(params.algorithm),
        params=MappingProxyType({"bins": int(bins), "attribute": args.column}),
        data_path=str(source),
        data_sha256=None,
        dataset_name=args.dataset_name or default_dataset_name(source),
        public_inputs=tuple(inputs),
        missing="drop" if args.drop_missing else "",
        histogram_attribute=args.column,
    )


def run(args) -> int:
    from dpstudio.algorithms.interval_trees import (
        HistogramInputError,
        IntervalTreeParams,
        check_counts,
        choose_algorithm,
        plan_interval_tree,
        run_interval_tree,
    )
    from dpstudio.algorithms.pidentity import PIdentityPlan
    from dpstudio.cli.budget import begin_session, release_request
    from dpstudio.core.budget import BudgetExceededError
    from dpstudio.io.atomic import OutputPathError
    from dpstudio.io.histogram_release import check_release_paths
    from dpstudio.model.release.record import CSV, SIDECAR
    from dpstudio.model.release.runs import PreparedRun
    from dpstudio.model.release.session import RunSession

    check_store_options(args)
    try:
        check_release_paths(args.out, args.overwrite)
        choice = None
        params = IntervalTreeParams(
            args.algorithm or "hb",
            args.epsilon,
            args.branching,
            not args.no_root,
            round_counts=args.round,
            clamp_negative=args.clamp,
            shape=args.shape,
            published=args.published.replace("-", "_"),
        )
        params.validate()
        engine_name = chosen_engine(args) if args.data else "numpy"
        engine = None if engine_name == "numpy" else open_chosen(args, engine_name)
        try:
            counts, edges, domain, reasons = _load(args, engine)
            check_counts(counts)
            if args.algorithm is None:  # public inputs only: the number of bins and epsilon
                args.algorithm, choice = choose_algorithm(counts.size, params.checked_epsilon(), not args.no_root)
            if edges is not None or choice is not None:
                params = IntervalTreeParams(
                    args.algorithm,
                    args.epsilon,
                    args.branching,
                    not args.no_root,
                    round_counts=args.round,
                    clamp_negative=args.clamp,
                    edges=None if edges is None else tuple(float(e) for e in edges),
                    shape=args.shape,
                    published=args.published.replace("-", "_"),
                )
            plan_interval_tree(counts.size, params)  # shape and budgets before any noise
            request = None
            if args.seed is None:
                request = release_request(
                    args,
                    functools.partial(_dataset_print, args, counts, engine),
                    params.checked_epsilon(),
                    f"dpstudio histogram --algorithm {args.algorithm} -> {args.out}",
                    args.counts or args.data,
                )
            snapshot = _snapshot(args, params, counts.size, domain)
            session = RunSession(PreparedRun(run_interval_tree, (counts, params), 0), snapshot, request, seed=args.seed)
            begin_session(args, session)
        finally:
            if engine is not None:
                engine.close()
        record = session.finish(list(session.events()))
        result = record.result
        csv_path, json_path = record.write(
            args.out,
            overwrite=args.overwrite,
            files=(CSV, SIDECAR),
            simulation=args.seed is not None,
            extra={"algorithm_choice": choice or "given by the user"},
            writer_options={
                "edges": edges,
                "domain": domain,
                "not_a_release": reasons,
                "labels": domain.get("categories"),
            },
        )
    except (HistogramInputError, OutputPathError, BudgetExceededError) as exc:
        raise CliError(str(exc)) from None
    del counts
    plan = result.plan
    shape = (
        f"b={plan.branching}"
        if plan.branching
        else f"p={plan.n_rows}"
        if isinstance(plan, PIdentityPlan)
        else plan.tree.name
    )
    status = "release" if (result.is_release and not reasons) else "NOT a release"
    print(
        f"wrote {csv_path} and {json_path} ({status}): {plan.tree.n_bins} bins, {params.algorithm} ({shape}), "
        f"epsilon {params.checked_epsilon()}, expected RMSE of a random range "
        f"{math.sqrt(plan.expected_consistent_mse):.4g}"
    )
    return 0
