"""``dpstudio anonymize``: syntactic anonymization (k-anonymity, l-diversity, t-closeness), headless.

    dpstudio anonymize --data FILE --qi A,B,... --taxonomy A=FILE ... --k K
                       [--l-diversity distinct|entropy|recursive:L:ATTR [--recursive-c C]]
                       [--t-closeness equal|ordered|hierarchical:T:ATTR] [--suppression FRACTION]
                       [--algorithm optimal|samarati|incognito|mondrian-strict|mondrian-relaxed]
                       [--metric entropy|dm|dm-star|cm|avg|loss] [--class ATTR] [--tie one-majority|arx]
                       [--missing drop|category] --out OUT.csv [--overwrite]

Writes OUT.csv (the anonymized table; suppressed rows removed; first column ``not_a_dp_release``) and the
sidecar OUT.json (parameters, levels, metric, classes, suppressed, lattice). This is NOT a
differential-privacy release: "syntactic anonymization: no differential-privacy guarantee"; it does not
charge the budget store. Mondrian keeps --l-diversity / --t-closeness on both halves of every cut and
refuses a table that fails the model as a whole (it suppresses nothing). Rows with a missing value in a used column are dropped by default (the sidecar and
the console say how many). Bad input: exit 2, one line, nothing written. See docs/anonymize.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import CliError

ALGORITHMS = ("optimal", "samarati", "incognito", "mondrian-strict", "mondrian-relaxed")
METRICS = ("entropy", "dm", "dm-star", "cm", "avg", "loss")
MONDRIAN_METRICS = ("dm", "dm-star", "avg", "cm")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "anonymize",
        help="syntactic anonymization (k-anonymity etc.): NOT differential privacy",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--data", required=True, help="the table (CSV/TSV, optionally .gz, .xlsx, .parquet)")
    p.add_argument("--qi", required=True, metavar="A,B,...", help="the quasi-identifiers, in lattice order")
    p.add_argument(
        "--taxonomy",
        action="append",
        default=[],
        metavar="ATTR=FILE",
        help="generalization hierarchy of an attribute (ARX CSV, brace, JSON, indented); repeatable",
    )
    p.add_argument("--k", required=True, help="k of k-anonymity (a whole number >= 1)")
    p.add_argument("--l-diversity", metavar="KIND:L:ATTR", help="distinct, entropy or recursive l-diversity")
    p.add_argument("--recursive-c", default=None, help="c of recursive (c,l)-diversity")
    p.add_argument("--t-closeness", metavar="KIND:T:ATTR", help="equal, ordered or hierarchical t-closeness")
    p.add_argument("--suppression", default="0", help="suppression limit x in [0, 1): MaxSup = floor(x n) rows")
    p.add_argument("--algorithm", default="optimal", choices=ALGORITHMS)
    p.add_argument("--metric", default="dm", choices=METRICS)
    p.add_argument("--class", dest="class_attr", default=None, help="class attribute (for --metric cm)")
    p.add_argument("--tie", choices=("one-majority", "arx"), default="one-majority", help="cm: majority ties")
    p.add_argument("--missing", choices=("drop", "category"), default="drop")
    p.add_argument(
        "--missing-token",
        default="?",
        metavar="TOKEN",
        help="with --missing category: the value a missing cell takes, which the taxonomies must cover (default '?')",
    )
    p.add_argument("--out", required=True, help="OUT.csv (the sidecar goes to OUT.json)")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    p.set_defaults(run=run)


def _number(text, what: str, kind=float):
    try:
        return kind(str(text).strip())
    except ValueError:
        raise CliError(f"{what} must be a {'whole ' if kind is int else ''}number, got {text!r}") from None


def _model_spec(text, option: str, kinds) -> tuple[str, str, str]:
    parts = str(text).split(":", 2)
    if len(parts) != 3 or parts[0] not in kinds or not parts[2].strip():
        raise CliError(f"{option} expects KIND:VALUE:ATTRIBUTE with KIND one of {', '.join(kinds)}, got {text!r}")
    return parts[0], parts[1], parts[2].strip()


def parse_models(args) -> tuple[list, list[str]]:
    """The l-diversity / t-closeness models (without their trees) and the sensitive attributes."""
    from ..core.syntactic_models import LDiversity, TCloseness

    models: list[LDiversity | TCloseness] = []
    if args.l_diversity:
        kind, value, attr = _model_spec(args.l_diversity, "--l-diversity", ("distinct", "entropy", "recursive"))
        l_value = _number(value, "--l-diversity L", int if kind != "entropy" else float)
        if l_value < 1:
            raise CliError(f"--l-diversity: l must be >= 1, got {value}")
        c = 1.0
        if kind == "recursive":
            if args.recursive_c is None:
                raise CliError("--l-diversity recursive needs --recursive-c C (the c of (c,l)-diversity)")
            c = _number(args.recursive_c, "--recursive-c")
            if c <= 0:
                raise CliError(f"--recursive-c must be > 0, got {args.recursive_c}")
        models.append(LDiversity(kind, l_value, attr, c))
    if args.t_closeness:
        kind, value, attr = _model_spec(args.t_closeness, "--t-closeness", ("equal", "ordered", "hierarchical"))
        t = _number(value, "--t-closeness T")
        if not 0 <= t <= 1:
            raise CliError(f"--t-closeness: t must be in [0, 1], got {value}")
        models.append(TCloseness(kind, t, attr))
    return models, [m.attribute for m in models]


def run(args) -> int:
    from ..algorithms.fulldomain import run_to_result
    from ..core.syntactic_models import TCloseness
    from ..io.anonymize import LABEL, AnonymizeError, sidecar_path, write_outputs
    from ..io.atomic import OutputPathError, check_output_path
    from ..model.anonymize.job import AnonymizeOutcome, anonymize_table
    from .release import _load, _parse_pairs, read_taxonomies

    k = _number(args.k, "--k", int)
    if k < 1:
        raise CliError(f"--k must be >= 1, got {k}")
    suppression = _number(args.suppression, "--suppression")
    if not 0 <= suppression < 1:
        raise CliError(f"--suppression must be in [0, 1), got {args.suppression}")
    qi = [c.strip() for c in str(args.qi).split(",") if c.strip()]
    if not qi or len(set(qi)) != len(qi):
        raise CliError(f"--qi must name distinct attributes, got {args.qi!r}")
    models, sensitive = parse_models(args)
    mondrian = args.algorithm.startswith("mondrian")
    if set(sensitive) & set(qi):
        raise CliError("a sensitive attribute cannot also be a quasi-identifier")
    from dpstudio.algorithms.fulldomain import MONOTONE_SEARCHES

    if args.algorithm in MONOTONE_SEARCHES and any(isinstance(m, TCloseness) or m.kind == "recursive" for m in models):
        raise CliError(
            f"{args.algorithm} prunes by monotonicity, which t-closeness and recursive l-diversity "
            "with suppression do not have: use --algorithm optimal"
        )
    if mondrian and args.metric not in MONDRIAN_METRICS:
        raise CliError(
            f"--metric {args.metric} needs a full-domain node; Mondrian reports {', '.join(MONDRIAN_METRICS)}"
        )
    if mondrian and suppression:
        raise CliError("Mondrian does not suppress rows: leave --suppression at 0")
    if args.metric == "cm" and not args.class_attr:
        raise CliError("--metric cm needs --class ATTR (the class attribute)")
    out = Path(args.out)
    try:
        check_output_path(out, args.overwrite)
        check_output_path(sidecar_path(out), args.overwrite)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    taxonomies = read_taxonomies(_parse_pairs(args.taxonomy, "taxonomy"))
    if not mondrian:
        for name in qi:
            if name not in taxonomies:
                raise CliError(f"quasi-identifier {name!r} has no taxonomy (give --taxonomy {name}=FILE)")

    frame = _load(args.data)
    extras = list(dict.fromkeys(sensitive + ([args.class_attr] if args.class_attr else [])))
    used = qi + [c for c in extras if c not in qi]
    absent = [c for c in used if c not in frame.columns]
    if absent:
        raise CliError(
            f"{', '.join(map(repr, absent))} not a column of {args.data} "
            f"(columns: {', '.join(map(str, frame.columns))})"
        )
    frame = frame[used]
    n_before = len(frame)
    if args.missing == "drop":
        frame = frame.loc[~frame.isna().any(axis=1)].reset_index(drop=True)
    else:
        from dpstudio.io.datasets import missing_as_token

        frame = missing_as_token(frame, args.missing_token)
    dropped = n_before - len(frame)
    if len(frame) == 0:
        raise CliError("the table is empty (after dropping rows with missing values)")
    if len(frame) < k:
        raise CliError(f"the table has fewer rows than k = {k}: no k-anonymous output exists")

    params = {
        "data": Path(args.data).name,
        "qi": qi,
        "taxonomies": {a: Path(p).name for a, p in _parse_pairs(args.taxonomy, "taxonomy").items()},
        "k": k,
        "l_diversity": args.l_diversity,
        "recursive_c": args.recursive_c,
        "t_closeness": args.t_closeness,
        "suppression": suppression,
        "algorithm": args.algorithm,
        "metric": args.metric,
        "class": args.class_attr,
        "tie": args.tie,
        "missing": args.missing,
    }
    try:
        outcome: AnonymizeOutcome = run_to_result(  # type: ignore[assignment]  # the generator's return value
            anonymize_table(
                frame,
                taxonomies,
                qi,
                k,
                models,
                algorithm=args.algorithm,
                metric=args.metric,
                suppression=suppression,
                class_attr=args.class_attr,
                tie=args.tie,
                params=params,
                dropped=dropped,
                suppression_hint="--suppression",
            )
        )
        table, side = outcome.table, outcome.sidecar
        summary = f"{args.algorithm}: {outcome.classes} classes"
        if not mondrian:
            summary = (
                f"{args.algorithm}: levels {outcome.levels}, {outcome.classes} classes, "
                f"{outcome.suppressed} rows suppressed"
            )
    except AnonymizeError as exc:
        raise CliError(str(exc)) from None
    try:
        csv_path, json_path = write_outputs(table, side, out, args.overwrite)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    if dropped:
        print(
            f"dropped {dropped} rows with a missing value in a used column (--missing category keeps them)",
            file=sys.stderr,
        )
    print(f"{summary}; {args.metric} = {side['metric']['value']:g}")
    print(f"{LABEL.upper()}")
    print(f"wrote {csv_path} and {json_path}")
    return 0
