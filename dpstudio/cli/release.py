"""``dpstudio release``: a DiffGen / DiffGen-with-consistency / MAXGDDP release of a table, headless.

    dpstudio release --data FILE --class ATTR --classes A,B,... --taxonomy ATTR=FILE ... --bounds ATTR=LO:HI ...
                     [--type ATTR=integer|continuous[:RESOLUTION] ...]
                     --algorithm diffgen|diffgen-consistent|maxgddp --epsilon E [--steps H] --out OUT.csv
                     [--seed N] [--score max|infogain] [--score-scope partition|pooled]
                     [--consistency ls|hay|none] [--node-budget optimized|uniform|path]
                     [--post-processing projection|clamp] [--overwrite]
                     [--expand-records] [--missing drop|category] [--numeric-grid round|log|equal] [--grid-bins B]
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
from .budget import add_store_options, check_store_options
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
        choices=("round", "log", "equal"),
        default=None,
        help="maxgddp: split grid of a numeric attribute without a numeric taxonomy: round (default: the "
        "1-2-5 series 1, 2, 5, 10, ... when its bounds start at 0 or above and span three decades, "
        "such as money amounts; otherwise the multiples of the smallest step of 1, 2 or 5 times a power "
        "of ten that cuts the bounds into at most --grid-bins bins), log (the 1-2-5 series likewise, "
        "--grid-bins equal-width bins otherwise) or equal (always --grid-bins equal-width bins)",
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


def public_inputs(args, qis: list, taxonomies: dict, bounds: dict, types: dict, tax_files: dict) -> list[dict]:
    """The sidecar's ``public_inputs`` in the studio's and the API's form and order
    (``Project.public_inputs_record``): per quasi-identifier, in the data's column order, its type, bounds,
    numeric kind and taxonomy, then the class values; each with where it came from, in the words
    ``api.Study`` records for the same declaration: every one declared on the command line, none derived
    from the data."""
    from ..core.lattice import Lattice, LatticeError, NumericType
    from ..model.project import provenance as pv

    def entry(kind: str, attribute: str, source: str) -> dict:
        k = pv.key(kind, attribute)
        return {"input": pv.describe(k), "key": k, "source": source, "derived": False, "confirmed": None}

    out = []
    for a in qis:
        numeric = a in bounds or taxonomies[a].is_numeric
        if a in bounds:
            lo, hi = bounds[a]
            said = f"declared on the command line: --bounds {a}={lo:g}:{hi:g}"
            if a in types:
                said += f" --type {a}={types[a]}"
            out.append(entry(pv.TYPE, a, said))
            out.append(entry(pv.BOUNDS, a, said))
            if a in types:
                kind = said
            else:
                try:
                    lat = Lattice.for_bounds(lo, hi)
                    kind = f"default from the bounds: {NumericType(lat.kind, None if lat.kind == 'integer' else lat.resolution)}"
                except LatticeError:
                    kind = "default from the bounds: no bounds yet"
            out.append(entry(pv.KIND, a, kind))
        else:
            out.append(
                entry(pv.TYPE, a, "declared with its taxonomy" if not numeric else "declared on the command line")
            )
        if a in taxonomies:
            out.append(entry(pv.TAXONOMY, a, f"the taxonomy file {Path(tax_files[a]).name}"))
    given = "--classes-file " + Path(args.classes_file).name if args.classes_file else "--classes"
    out.append(entry(pv.CLASSES, args.class_attr, f"declared on the command line: {given}"))
    return out


def run_snapshot(args, algorithm: str, params: dict, eps, qis, taxonomies, bounds, types, tax_files, classes):
    """The frozen inputs of the run (``model.release.snapshot.RunSnapshot``), as a project's run freezes them:
    what the files and the report describe. Public inputs only."""
    from types import MappingProxyType

    from ..io.budget_store import default_dataset_name
    from ..model.release.snapshot import RunSnapshot

    numeric = tuple(a for a in qis if a in bounds or taxonomies[a].is_numeric)
    return RunSnapshot(
        teaching=args.seed is not None,
        epsilon=eps,
        seed=0 if args.seed is None else int(args.seed),
        algorithm=algorithm,
        params=MappingProxyType(dict(params)),
        data_path=str(Path(args.data).resolve()),
        data_sha256=None,
        dataset_name=args.dataset_name or default_dataset_name(args.data),
        public_inputs=tuple(public_inputs(args, qis, taxonomies, bounds, types, tax_files)),
        class_attribute=args.class_attr,
        classes=tuple(classes),
        quasi_identifiers=tuple(qis),
        numeric=numeric,
        taxonomies=MappingProxyType({a: taxonomies[a] for a in qis if a in taxonomies}),
        bounds=MappingProxyType({a: bounds[a] for a in qis if a in bounds}),
        numeric_types=MappingProxyType({a: str(types[a]) for a in qis if a in types}),
        missing="drop" if args.missing == "drop" else "keep",
        missing_token=args.missing_token,
    )


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
    from ..algorithms.diffgen import run_diffgen
    from ..core.budget import as_fraction
    from ..io.atomic import OutputPathError, check_output_path
    from ..io.encoding import EncodingError, check_classes, parse_bounds
    from ..io.release import sidecar_path
    from ..model.release import ReleaseRefused
    from ..model.release.record import CSV, REPORT, SIDECAR
    from ..model.release.runs import PreparedRun, RunInputError, table_engine_params
    from ..model.release.session import RunSession
    from .budget import begin_session, release_request

    eps = _parse_epsilon(args.epsilon)
    steps = _parse_steps(args.steps)
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
    if args.tree_fraction is not None:
        try:
            as_fraction(args.tree_fraction)
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
    algorithm = registry.lookup(args.algorithm)
    params = _params(args, algorithm, steps, count_share)
    taxonomies = read_taxonomies(tax_files)

    simulation = args.seed is not None
    engine_name = chosen_engine(args)
    engine = None if engine_name == "numpy" else open_chosen(args, engine_name)
    try:
        sources = {
            a: f"the cut points of the taxonomy file {Path(tax_files[a]).name}"
            for a in taxonomies
            if a in bounds or taxonomies[a].is_numeric
        }
        data, fingerprint, missing_note, qis = _coded_input(args, engine, taxonomies, bounds, classes, types, sources)
        try:
            dg = table_engine_params(algorithm.id, params, eps, len([a for a in qis if a in bounds]))
        except RunInputError as exc:
            raise CliError(str(exc)) from None
        snapshot = run_snapshot(args, algorithm.id, params, eps, qis, taxonomies, bounds, types, tax_files, classes)
        what = f"dpstudio release --algorithm {args.algorithm} -> {out}"
        request = None if simulation else release_request(args, fingerprint, eps, what, args.data)
        session = RunSession(PreparedRun(run_diffgen, (data, dg), 0), snapshot, request, seed=args.seed)
        setup = begin_session(args, session)
    finally:
        if engine is not None:
            engine.close()
    try:
        record = session.finish(list(session.events()))
    except ReleaseRefused as exc:
        raise CliError(str(exc)) from None
    result, ledger = record.result, setup.ledger
    try:
        written = record.write(
            out,
            (CSV, SIDECAR, REPORT) if args.report else (CSV, SIDECAR),
            report_path=args.report,
            expand_records=args.expand_records,
            omit_zero_cells=args.omit_zero_cells,
            overwrite=args.overwrite,
            simulation=simulation,
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
    print(f"wrote {written[0]} and {written[1]}{' and ' + str(args.report) if args.report else ''}")
    return 0


#: the command line's options that apply to some table algorithms only: (option, engine key)
ALGORITHM_OPTIONS = (
    ("--tree-fraction", "tree_fraction"),
    ("--fanout", "fanout"),
    ("--node-budget", "node_budget"),
    ("--numeric-grid", "numeric_grid"),
)


def _params(args, algorithm, steps, count_share) -> dict:
    """The run's parameters (the registry's and the engine options the command line sets), each option
    checked against the algorithm it applies to (``Algorithm.accepts``) before anything is read."""
    for option, key in ALGORITHM_OPTIONS:
        if getattr(args, key) is not None and not algorithm.accepts(key):
            takers = ", ".join(a.command for a in registry.REGISTRY.values() if a.is_table and a.accepts(key))
            raise CliError(f"{option} applies to --algorithm {takers} only")
    if (
        args.consistency is not None
        and CONSISTENCY[args.consistency] != "none"
        and not algorithm.accepts("consistency")
    ):
        raise CliError("--consistency applies to --algorithm diffgen-consistent only")
    params: dict = {
        "steps": registry.AUTO_STEPS if steps is None else steps,
        "automatic_steps": steps is None,
        "score": args.score,
        "score_scope": args.score_scope,
        "grid_bins": args.grid_bins,
        "clamp_negative": not args.no_clamp,
        "round_counts": not args.no_round,
    }
    for _option, key in ALGORITHM_OPTIONS:
        if getattr(args, key) is not None:
            params[key] = str(getattr(args, key)) if key == "tree_fraction" else getattr(args, key)
    if count_share is not None:
        params["count_fraction"] = str(count_share)
    if args.post_processing is not None:
        params["tree_projection"] = args.post_processing == "projection"
    if args.consistency is not None and algorithm.accepts("consistency"):
        params["consistency"] = CONSISTENCY[args.consistency]
    return params


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


def _released(args, columns, taxonomies, bounds) -> tuple[list, list]:
    """(the columns the release reads, the quasi-identifiers): the attributes named by --taxonomy and
    --bounds in the data's column order (as the studio and the API take them), then the class."""
    named = [*taxonomies, *[b for b in bounds if b not in taxonomies]]
    _check_columns(args, columns, [args.class_attr, *named])
    position = {str(c): i for i, c in enumerate(columns)}
    qis = sorted(named, key=lambda a: position[a])
    return [*qis, args.class_attr], qis


def _coded_input(args, engine, taxonomies, bounds, classes, types, grid_sources):
    """(the coded input, a function giving the data's fingerprint, the note on rows left out, the
    quasi-identifiers in release order): read by numpy (the whole table in memory) or by a SQL engine (its
    group-by counts of the used columns only; docs/scale.md)."""
    from ..io.dataset_fingerprint import table_print
    from ..io.encoding import EncodingError, encode_table

    weights = None
    if engine is None:
        frame = _load(args.data)
        loaded = frame  # the whole parsed table: the dataset the budget is for (fingerprinted if tracked)
        used, qis = _released(args, [str(c) for c in frame.columns], taxonomies, bounds)

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
        used, qis = _released(args, list(source.names), taxonomies, bounds)
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
            {a: taxonomies[a] for a in qis if a in taxonomies},
            {a: bounds[a] for a in qis if a in bounds},
            classes=classes,
            types=types,
            grid_sources=grid_sources,
            weights=weights,
        )
    except EncodingError as exc:
        raise CliError(str(exc)) from None
    return data, fingerprint, note, qis


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
