"""``dpstudio release``: a DiffGen / DiffGen-with-consistency / MAXGDDP release of a table, headless.

    dpstudio release --data FILE --class ATTR --classes A,B,... --taxonomy ATTR=FILE ... --bounds ATTR=LO:HI ...
                     [--type ATTR=integer|continuous[:RESOLUTION] ...]
                     --algorithm diffgen|diffgen-consistent|maxgddp --epsilon E [--steps H] --out OUT.csv
                     [--seed N] [--score max|infogain] [--score-scope partition|pooled]
                     [--consistency ls|hay|none] [--node-budget optimized|uniform|path]
                     [--post-processing projection|clamp] [--overwrite]
                     [--expand-records] [--missing drop|category] [--numeric-grid log|equal] [--grid-bins B]
                     [--tree-fraction F] [--fanout F] [--no-round] [--no-clamp] [--classes-file FILE] [--report OUT.html]
                     [--engine auto|numpy|duckdb|spark] [--spark-master URL]

Writes OUT.csv and the sidecar OUT.json (see ``dpstudio.io.release``). Attributes named by neither
--taxonomy nor --bounds (and not the class) are left out. The class domain is a public input like a
taxonomy: ``--classes`` (or ``--classes-file``, one per line) lists every class in release order; a record
with another class is an input error, a declared class no record holds is released with its noisy cells.
``--type`` declares a numeric attribute's kind (public; without it: whole-number bounds -> integer, else
continuous with resolution about 1e-4 of the range); DiffGen's split points lie on the lattice
lo + k * resolution (integer: resolution 1). Rows with a missing value in a used column are dropped by
default (the Adult protocol): stderr tells the data owner the rounded share of rows left out, the sidecar's
``missing`` states the rule (never how many: that is data). ``--missing category`` keeps
them with the value "?" (``--missing-token`` another; the taxonomy must then cover it). ``--seed N`` runs on seeded simulation noise:
the output is marked "not_a_release". ``--report OUT.html`` also writes the HTML report. Without
``--steps``, h is chosen from epsilon alone (``algorithms.diffgen_auto``; the sidecar's ``steps_choice``). Bad input: exit 2,
one line, nothing written.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..algorithms import registry
from . import CliError, non_negative_int
from .budget import add_store_options, begin_release, check_store_options
from .engines import add_engine_options, chosen_engine, open_chosen

ALGORITHMS = registry.commands(registry.TABLE)
CONSISTENCY = {
    "ls": "least_squares",
    "least_squares": "least_squares",
    "hay": "hay_generalized",
    "hay_generalized": "hay_generalized",
    "none": "none",
}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "release",
        help="differentially private release of a table (DiffGen family)",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--data", required=True, help="the table (CSV/TSV, optionally .gz, .xlsx, .parquet)")
    p.add_argument("--class", dest="class_attr", required=True, help="the class attribute")
    p.add_argument(
        "--classes",
        metavar="A,B,...",
        help="the public class values, comma-separated, in release order (required, or --classes-file)",
    )
    p.add_argument("--classes-file", metavar="FILE", help="the public class values, one per line")
    p.add_argument(
        "--taxonomy",
        action="append",
        default=[],
        metavar="ATTR=FILE",
        help="taxonomy file of an attribute (ARX CSV, brace text, JSON, indented text); repeatable",
    )
    p.add_argument(
        "--bounds",
        action="append",
        default=[],
        metavar="ATTR=LO:HI",
        help="public bounds of a numeric attribute (upper bound inclusive); repeatable",
    )
    add_type_option(p)
    p.add_argument("--algorithm", default="diffgen-consistent", choices=ALGORITHMS)
    p.add_argument("--epsilon", default=None, help="the privacy budget (a positive number)")
    p.add_argument(
        "--steps",
        default=None,
        help="number of specializations h (>= 0; default: chosen from epsilon, see docs/release.md)",
    )
    p.add_argument("--out", required=True, help="OUT.csv (the sidecar goes to OUT.json)")
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        help="seeded simulation noise: the output is marked NOT A RELEASE",
    )
    p.add_argument("--score", choices=("max", "infogain"), default="max")
    p.add_argument(
        "--score-scope",
        choices=("partition", "pooled"),
        default="partition",
        help="sum a candidate's score over the partitions holding it (default) or pool its records",
    )
    p.add_argument(
        "--consistency",
        choices=tuple(CONSISTENCY),
        default=None,
        help="diffgen-consistent: ls (exact least squares, default), hay (seed 000's rule), none",
    )
    p.add_argument(
        "--node-budget",
        choices=("optimized", "uniform", "path"),
        default=None,
        help="diffgen-consistent: per-node count budgets (default optimized: per-level shares "
        "chosen for the released tree's shape)",
    )
    p.add_argument(
        "--post-processing",
        choices=("projection", "clamp"),
        default=None,
        help="projection (default: non-negative, consistent over the released tree, total kept; "
        "diffgen and maxgddp project the sums of their noisy leaves) or clamp (negative counts "
        "set to 0 after rounding)",
    )
    p.add_argument(
        "--numeric-grid",
        choices=("log", "equal"),
        default=None,
        help="maxgddp: split grid of a numeric attribute without a numeric taxonomy: log (default: the "
        "1-2-5 series 1, 2, 5, 10, ... when its bounds start at 0 or above and span three decades, "
        "such as money amounts; equal-width bins otherwise) or equal (always --grid-bins bins)",
    )
    p.add_argument(
        "--grid-bins",
        type=int,
        default=16,
        help="maxgddp: equal-width split grid for numeric attributes without a numeric taxonomy",
    )
    p.add_argument("--tree-fraction", default=None, help="maxgddp: share of epsilon for the tree (eps1; default 1/2)")
    p.add_argument(
        "--count-share",
        default=None,
        metavar="F",
        help="share of epsilon for the counts, 0 < F < 1 (default: the algorithm's formula, 1/2); the "
        "rest goes to the selection steps and split points in DiffGen's proportions "
        "(h : |A_num| + h), or to MAXGDDP's tree levels",
    )
    p.add_argument("--fanout", type=float, default=None, help="maxgddp: f in the level ratio r = f^(1/3) (default 3)")
    p.add_argument(
        "--missing",
        choices=("drop", "category"),
        default="drop",
        help="rows with a missing value in a released column: drop them (default; stderr says what share of "
        "the rows that is) or keep missing as a category of its own",
    )
    p.add_argument(
        "--missing-token",
        default="?",
        metavar="TOKEN",
        help="with --missing category: the value a missing cell takes, which the taxonomies must cover "
        "(default '?', as UCI and ARX files write it; the studio's Data panel declares the same)",
    )
    p.add_argument("--expand-records", action="store_true", help="one row per released record")
    p.add_argument(
        "--omit-zero-cells",
        action="store_true",
        help="leave out rows whose released count is 0 (large sparse releases; the sidecar says so and "
        "every absent leaf partition x class of the cut has count 0)",
    )
    p.add_argument("--no-clamp", action="store_true", help="keep negative counts")
    p.add_argument("--no-round", action="store_true", help="keep consistent estimates as decimals")
    p.add_argument("--report", metavar="OUT.html", help="also write the HTML report of the release")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    add_store_options(p)
    add_engine_options(p)
    p.set_defaults(run=run)


def add_type_option(p) -> None:
    """``--type ATTR=integer|continuous[:RESOLUTION]`` (repeatable; read with ``parse_types``)."""
    p.add_argument(
        "--type",
        dest="types",
        action="append",
        default=[],
        metavar="ATTR=integer|continuous[:RESOLUTION]",
        help="declared kind of a numeric attribute (public; default from its bounds: whole numbers -> "
        "integer, else continuous, resolution 10^(floor(log10(hi-lo))-4)); repeatable",
    )


def parse_classes(text, file) -> list[str]:
    """The public class domain from ``--classes A,B`` or ``--classes-file FILE`` (exactly one of them)."""
    if text is not None and file is not None:
        raise CliError("give --classes or --classes-file, not both")
    if text is None and file is None:
        raise CliError(
            "--classes is missing: list the public class values in release order, e.g. "
            "--classes '<=50K,>50K' (or --classes-file FILE, one per line)"
        )
    if file is not None:
        try:
            lines = Path(file).read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"--classes-file {file}: cannot read ({exc})") from None
        return [v.strip() for v in lines if v.strip()]
    return [v.strip() for v in str(text).split(",")]


def _parse_pairs(items, what: str) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise CliError(f"--{what} expects ATTR=VALUE, got {item!r}")
        name, value = item.split("=", 1)
        name = name.strip()
        if not name or not value.strip():
            raise CliError(f"--{what} expects ATTR=VALUE, got {item!r}")
        if name in out:
            raise CliError(f"--{what} names {name!r} twice")
        out[name] = value.strip()
    return out


def parse_types(items) -> dict:
    """--type ATTR=integer|continuous[:RESOLUTION] (repeatable) -> {attribute: NumericType}."""
    from ..core.lattice import LatticeError, NumericType

    out = {}
    for name, text in _parse_pairs(items, "type").items():
        try:
            out[name] = NumericType.parse(text)
        except LatticeError as exc:
            raise CliError(f"--type {name}: {exc}") from None
    return out


def public_inputs(args, taxonomies: dict, bounds: dict, types: dict, tax_files: dict) -> list[dict]:
    """The sidecar's ``public_inputs`` in the studio's and the API's form (``Project.public_inputs_record``):
    each input the release depends on, in their order (per quasi-identifier its type, bounds, numeric kind
    and taxonomy; then the class values), and where it came from: every one declared on the command line,
    none derived from the data."""
    from ..model.project import provenance as pv

    def entry(kind: str, attribute: str, source: str) -> dict:
        k = pv.key(kind, attribute)
        return {"input": pv.describe(k), "key": k, "source": source, "derived": False, "confirmed": None}

    out = []
    for a in [*taxonomies, *[b for b in bounds if b not in taxonomies]]:
        numeric = a in bounds or taxonomies[a].is_numeric
        out.append(entry(pv.TYPE, a, f"declared on the command line ({'numeric' if numeric else 'categorical'})"))
        if numeric:
            if a in bounds:
                lo, hi = bounds[a]
                out.append(entry(pv.BOUNDS, a, f"declared on the command line: --bounds {a}={lo:g}:{hi:g}"))
            kind = f"--type {a}={types[a]}" if a in types else "the default kind (--type not given)"
            out.append(entry(pv.KIND, a, f"declared on the command line: {kind}"))
        if a in taxonomies:
            out.append(
                entry(pv.TAXONOMY, a, f"declared on the command line: the taxonomy file {Path(tax_files[a]).name}")
            )
    given = "--classes-file " + Path(args.classes_file).name if args.classes_file else "--classes"
    out.append(entry(pv.CLASSES, args.class_attr, f"declared on the command line: {given}"))
    return out


def _parse_epsilon(text):
    from ..core.budget import check_usable_epsilon

    if text is None:
        raise CliError("--epsilon is missing (give the privacy budget, e.g. --epsilon 1)")
    try:
        return check_usable_epsilon(text)
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        raise CliError(f"--epsilon: {exc}") from None


def _parse_steps(text) -> int | None:
    if text is None:
        return None
    try:
        h = int(str(text).strip())
    except ValueError:
        raise CliError(f"--steps must be a whole number >= 0, got {text!r}") from None
    from ..algorithms.diffgen import MAX_STEPS

    if h < 0:
        raise CliError(f"--steps must be >= 0, got {h}")
    if h > MAX_STEPS:
        raise CliError(f"--steps must be at most {MAX_STEPS}, got {h if h < 10**15 else f'about 1e{len(str(h)) - 1}'}")
    return h


def run(args) -> int:
    from ..algorithms.diffgen import run_to_result
    from ..core.budget import as_fraction
    from ..io.atomic import OutputPathError, check_output_path
    from ..io.encoding import EncodingError, check_classes, parse_bounds
    from ..io.release import missing_rule, sidecar_path, write_release

    eps = _parse_epsilon(args.epsilon)
    steps = _parse_steps(args.steps)
    steps_choice: dict[str, object] = {"steps": steps, "automatic": False}
    if steps is None:
        from ..algorithms.diffgen_auto import automatic_steps

        steps, reason = automatic_steps(args.algorithm, eps)
        steps_choice = {"steps": steps, "automatic": True, "reason": reason}
    check_store_options(args)
    out = Path(args.out)
    try:
        check_output_path(out, args.overwrite)
        check_output_path(sidecar_path(out), args.overwrite)
        if args.report:
            check_output_path(args.report, args.overwrite)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    try:
        classes = check_classes(parse_classes(args.classes, args.classes_file))
    except EncodingError as exc:
        raise CliError(f"--classes: {exc}") from None
    tax_files = _parse_pairs(args.taxonomy, "taxonomy")
    bound_text = _parse_pairs(args.bounds, "bounds")
    if not tax_files and not bound_text:
        raise CliError("no attributes to release: name them with --taxonomy ATTR=FILE or --bounds ATTR=LO:HI")
    try:
        bounds = {k: parse_bounds(v) for k, v in bound_text.items()}
    except EncodingError as exc:
        raise CliError(str(exc)) from None
    types = parse_types(args.types)
    try:
        tree_fraction = as_fraction(args.tree_fraction if args.tree_fraction is not None else "1/2")
    except (ValueError, TypeError, ZeroDivisionError):
        raise CliError(f"--tree-fraction must be a number between 0 and 1, got {args.tree_fraction!r}") from None
    count_share = None
    if args.count_share is not None:
        if args.tree_fraction is not None:
            raise CliError(
                "give --count-share or --tree-fraction, not both (for maxgddp the tree gets 1 - count share)"
            )
        try:
            count_share = as_fraction(args.count_share)
        except (ValueError, TypeError, ZeroDivisionError):
            count_share = None
        if count_share is None or not (0 < count_share < 1):
            raise CliError(f"--count-share must be a number strictly between 0 and 1, got {args.count_share!r}")

    taxonomies = read_taxonomies(tax_files)

    simulation = args.seed is not None
    used = [args.class_attr, *taxonomies, *[b for b in bounds if b not in taxonomies]]
    engine_name = chosen_engine(args)
    engine = None if engine_name == "numpy" else open_chosen(args, engine_name)
    try:
        sources = {
            a: f"the cut points of the taxonomy file {Path(tax_files[a]).name}"
            for a in taxonomies
            if a in bounds or taxonomies[a].is_numeric
        }
        data, fingerprint, missing_note = _coded_input(args, engine, used, taxonomies, bounds, classes, types, sources)
        params, setup = _prepare_and_begin(args, data, fingerprint, eps, steps, tree_fraction, count_share, out)
    finally:
        if engine is not None:
            engine.close()
    ledger, budget = setup.ledger, setup.budget
    result = run_to_result(data, params, setup.noise, ledger)
    also = None
    if args.report:  # rendered first, written with the CSV and the sidecar: all three or none
        from dataclasses import replace

        from ..io.report import report_html
        from ..model.release.report_facts import report_facts

        facts = replace(report_facts(result, budget), missing=missing_rule(args.missing, args.missing_token))
        if args.omit_zero_cells and not args.expand_records:
            facts = replace(facts, csv_note=f"{out.name} leaves out the cells whose count is 0 (the sidecar says so).")
        also = {Path(args.report): report_html(result, ledger, files=[out.name, sidecar_path(out).name], facts=facts)}
    try:
        csv_path, json_path = write_release(
            result,
            out,
            overwrite=args.overwrite,
            expand_records=args.expand_records,
            omit_zero_cells=args.omit_zero_cells,
            simulation=simulation,
            extra={
                "public_inputs": public_inputs(args, taxonomies, bounds, types, tax_files),
                "dataset_budget": budget,
                "steps_choice": steps_choice,
                "missing": missing_rule(args.missing, args.missing_token),  # the rule, never how many
            },
            also=also,
        )
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    if simulation:
        print(f"WARNING: seeded simulation noise (seed {args.seed}): NOT A RELEASE", file=sys.stderr)
    print(
        f"{args.algorithm}: {result.steps_done} specializations"
        f"{' (stopped early: nothing left to specialize)' if result.stopped_early else ''}, "
        f"{result.leaf_values.shape[0]} leaf partitions x {len(result.classes)} classes; "
        f"epsilon spent {float(ledger.spent):g} of {float(ledger.total):g}"
    )
    if missing_note:
        print(missing_note, file=sys.stderr)
    print(f"wrote {csv_path} and {json_path}{' and ' + str(args.report) if args.report else ''}")
    return 0


def _prepare_and_begin(args, data, fingerprint, eps, steps, tree_fraction, count_share, out):
    """(params, RunSetup): the parameters checked, then the spend settled by the release service (the store
    charged) before any noise."""
    from ..algorithms.diffgen import preset

    for option, value in (("--tree-fraction", args.tree_fraction), ("--fanout", args.fanout)):
        if value is not None and args.algorithm != "maxgddp":
            raise CliError(f"{option} applies to --algorithm maxgddp only (its geometric budget over the levels)")
    overrides = {
        "score": args.score,
        "score_scope": args.score_scope,
        "grid_bins": args.grid_bins,
        "tree_fraction": tree_fraction,
        "fanout": 3.0 if args.fanout is None else args.fanout,
        "clamp_negative": not args.no_clamp,
        "round_counts": not args.no_round,
    }
    if count_share is not None:
        overrides["count_fraction"] = count_share
    if args.node_budget and args.algorithm != "diffgen-consistent":
        raise CliError("--node-budget applies to --algorithm diffgen-consistent only")
    if args.node_budget is not None:
        overrides["node_budget"] = args.node_budget
    if args.numeric_grid is not None:
        if args.algorithm != "maxgddp":
            raise CliError(
                "--numeric-grid applies to --algorithm maxgddp only (DiffGen's split points lie on the "
                "attribute's lattice or taxonomy)"
            )
        overrides["numeric_grid"] = args.numeric_grid
    if args.post_processing is not None:
        overrides["tree_projection"] = args.post_processing == "projection"
    if args.consistency is not None:
        if args.algorithm != "diffgen-consistent" and CONSISTENCY[args.consistency] != "none":
            raise CliError("--consistency applies to --algorithm diffgen-consistent only")
        overrides["consistency"] = CONSISTENCY[args.consistency]
    try:
        params = preset(args.algorithm, eps, steps, **overrides)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return params, begin_release(
        args, fingerprint, eps, f"dpstudio release --algorithm {args.algorithm} -> {out}", args.data, args.seed
    )


def _dropped_note(frame, keep, weights) -> str:
    """For the data owner (stderr, after the release: the figure is data, rounded) the share of the rows the
    default leaves out; "" when none."""
    import numpy as np

    from ..model.project.missing import share_words

    drop = ~keep.to_numpy()
    if not drop.any():
        return ""
    w = np.ones(len(frame)) if weights is None else np.asarray(weights, dtype=float)
    share = float(w[drop].sum() / w.sum())
    cols = [c for c in frame.columns if frame[c].isna().to_numpy()[drop].any()]
    return (
        f"note: {share_words(share)} of the rows have a missing value in {', '.join(cols)} and were left out "
        "(--missing drop, the default); --missing category keeps them as a value of their own"
    )


def _coded_input(args, engine, used, taxonomies, bounds, classes, types, grid_sources):
    """(the coded input, a function giving the data's fingerprint, the note on rows left out): read by numpy (the whole table in
    memory) or by a SQL engine (its group-by counts of the used columns only; docs/scale.md)."""
    from ..io.dataset_fingerprint import table_print
    from ..io.encoding import EncodingError, encode_table

    weights = None
    if engine is None:
        frame = _load(args.data)
        loaded = frame  # the whole parsed table: the dataset the budget is for (fingerprinted if tracked)
        _check_columns(args, frame.columns, used)

        def fingerprint():
            return table_print(loaded)
    else:
        from ..io.datasets import Cancelled
        from ..io.engines import EngineError
        from ..io.engines.source import describe

        try:
            source = describe(args.data)
        except EngineError as exc:
            raise CliError(str(exc)) from None
        _check_columns(args, source.names, used)
        try:
            frame, weights = engine.group_counts(source, used, progress=_progress_printer(args))
        except (EngineError, Cancelled) as exc:
            raise CliError(str(exc)) from None

        def fingerprint():
            try:
                return engine.table_print(source, progress=_progress_printer(args))
            except (EngineError, Cancelled) as exc:
                raise CliError(str(exc)) from None

    if len(frame) == 0:
        raise CliError(f"{args.data}: the table is empty (no rows)")
    frame = frame[used]
    note = ""
    if args.missing == "drop":
        keep = ~frame.isna().any(axis=1)
        note = _dropped_note(frame, keep, weights)
        frame = frame.loc[keep].reset_index(drop=True)
        weights = None if weights is None else weights[keep.to_numpy()]
    else:
        from ..io.datasets import missing_as_token

        numeric = [c for c in used if c in bounds or (c in taxonomies and taxonomies[c].is_numeric)]
        categorical = [c for c in used if c not in numeric and c != args.class_attr]
        frame = missing_as_token(frame, args.missing_token, categorical)
    if len(frame) == 0:
        raise CliError("the table is empty after dropping rows with missing values")
    try:
        data = encode_table(
            frame,
            args.class_attr,
            taxonomies,
            bounds,
            classes=classes,
            types=types,
            grid_sources=grid_sources,
            weights=weights,
        )
    except EncodingError as exc:
        raise CliError(str(exc)) from None
    return data, fingerprint, note


def _check_columns(args, columns, used) -> None:
    missing_cols = [c for c in used if c not in columns]
    if args.class_attr not in columns:
        raise CliError(
            f"class attribute {args.class_attr!r} is not a column of {args.data} "
            f"(columns: {', '.join(map(str, columns))})"
        )
    if missing_cols:
        raise CliError(f"{', '.join(map(repr, missing_cols))} not a column of {args.data}")


def _progress_printer(args):
    """Progress of a SQL engine's query on stderr (when it is a terminal); Ctrl-C cancels the query."""
    if not sys.stderr.isatty():
        return None

    def show(fraction, what):
        print(f"\r{what}: {fraction:4.0%}", end="\n" if fraction >= 1 else "", file=sys.stderr, flush=True)
        return True

    return show


def read_taxonomies(tax_files: dict) -> dict:
    """{attribute: Taxonomy} from {attribute: file} (--taxonomy); CliError naming the attribute."""
    from ..core.taxonomy import TaxonomyError
    from ..io.taxonomy_formats import read_taxonomy

    taxonomies = {}
    for name, path in tax_files.items():
        if not Path(path).is_file():
            raise CliError(f"taxonomy file for {name!r} not found: {path}")
        try:
            taxonomies[name] = read_taxonomy(path, attribute=name)
        except (TaxonomyError, OSError, ValueError) as exc:
            raise CliError(f"taxonomy of {name!r}: {exc}") from None
    return taxonomies


def _load(path):
    p = Path(path)
    if not p.is_file():
        raise CliError(f"data file not found: {path}")
    try:
        from ..io.datasets import DatasetError, load_table
    except ImportError:  # pragma: no cover - the datasets module is part of the package
        import pandas as pd

        return pd.read_csv(p, sep=None, engine="python", skipinitialspace=True, na_values=["?"])
    try:
        return load_table(p).frame
    except DatasetError as exc:
        raise CliError(str(exc)) from None
