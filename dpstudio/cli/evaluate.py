"""``dpstudio evaluate``: the Adult classification protocol, eps x h sweeps, and range-count error.

Examples::

    dpstudio evaluate --data-dir ../shared/data/adult --algorithm maxgddp --epsilon 1 --steps 10 --runs 10
    dpstudio evaluate --data-dir ../shared/data/adult --sweep --runs 10 --results sweep.jsonl --out grid.csv
    dpstudio evaluate --data-dir ../shared/data/adult --range-error --epsilon 1 --steps 10 --mc-runs 30

Evaluation compares with true labels / true answers, so its figures are about the algorithms, not a
release: nothing here writes released counts. Simulation noise (seeded numpy) is the default and the
output says so; ``--secure`` uses OpenDP's samplers.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from ..algorithms import registry
from . import CliError, non_negative_int
from .engines import add_engine_options, chosen_engine, open_chosen
from .release import _progress_printer, add_type_option, parse_types

ALGORITHMS = registry.commands(registry.TABLE)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="classification accuracy on Adult (eps x h sweeps) and range-count error by query size",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "--data-dir",
        help="folder holding adult.data and adult.test (or its parent); default: the bundled sample "
        "(30,162 training and 15,060 test rows of UCI Adult)",
    )
    p.add_argument("--taxonomies", help="folder of taxonomy files + bounds.json (default: the bundled Adult ones)")
    p.add_argument(
        "--numeric-grids",
        metavar="DIR",
        help="folder of numeric taxonomies whose cut points become MAXGDDP's public split grids "
        "(e.g. dpstudio/resources/taxonomies/adult/log-grids); default: --numeric-grid's rule",
    )
    p.add_argument(
        "--numeric-grid",
        choices=("round", "log", "equal"),
        default=None,
        help="maxgddp: grid of a numeric attribute without a numeric taxonomy: round (default: the 1-2-5 "
        "series when the bounds start at 0 or above and span three decades, else the multiples of the "
        "smallest step of 1, 2 or 5 times a power of ten that cuts the bounds into at most 16 bins), "
        "log (the 1-2-5 series likewise, 16 equal-width bins otherwise) or equal (16 equal-width bins)",
    )
    add_type_option(p)
    p.add_argument(
        "--algorithm",
        default="maxgddp",
        help=f"one of {', '.join(ALGORITHMS)}, or several separated by commas (default maxgddp)",
    )
    p.add_argument("--epsilon", help="privacy budget (default 1); with --sweep a comma list")
    p.add_argument("--steps", help="number of specializations h (default 10); with --sweep a comma list")
    p.add_argument("--runs", type=int, default=10, help="repeated runs per setting (default 10)")
    p.add_argument(
        "--sweep",
        action="store_true",
        help="the grid eps in {0.1,0.25,0.5,1} x h in {4,7,10,13,16} (unless --epsilon/--steps list others)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0, help="base seed of the simulation noise (default 0)")
    p.add_argument("--secure", action="store_true", help="use OpenDP's secure samplers instead of simulation noise")
    p.add_argument(
        "--encoding",
        choices=("onehot", "ordinal"),
        default="onehot",
        help="categorical features for the decision tree (default onehot)",
    )
    p.add_argument("--results", help="JSON-lines file of finished runs: resume from it and append to it")
    p.add_argument("--out", help="write the summary: .csv (table) or .json (summary, baselines and every run)")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    p.add_argument("--no-baselines", action="store_true", help="skip the raw-data and majority baselines")
    p.add_argument(
        "--range-error",
        action="store_true",
        help="instead of accuracy: range-count MSE by query size, leaf-only vs consistent release",
    )
    p.add_argument("--queries", type=int, default=1000, help="--range-error: random boxes (default 1000)")
    p.add_argument("--mc-runs", type=int, default=30, help="--range-error: Monte-Carlo runs (default 30)")
    p.add_argument(
        "--workload",
        choices=("boxes", "nodes"),
        default="boxes",
        help="--range-error: random boxes over the taxonomies (default) or random nodes of the tree",
    )
    p.add_argument(
        "--size",
        choices=("records", "domain"),
        default="records",
        help="--range-error: query size as share of records or of the domain's volume",
    )
    p.add_argument("--release", help="answer --query boxes from a written release (CSV beside its JSON sidecar)")
    p.add_argument(
        "--query",
        action="append",
        default=[],
        help="with --release: a box like 'age=[20,40);sex=Female' (repeatable; omitted attributes = all)",
    )
    p.add_argument("--class", dest="query_class", help="with --release: count only this class (default: all)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_engine_options(p)
    p.set_defaults(run=run)


def _numbers(text: str, kind, what: str) -> list:
    from ..core.budget import check_epsilon

    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if kind is float:
                out.append(float(check_epsilon(part)))
            else:
                v = int(part)
                if v < 0:
                    raise ValueError
                out.append(v)
        except ValueError as exc:
            msg = (
                (f"epsilon: {exc}" if "epsilon" not in str(exc) else str(exc))
                if kind is float
                else f"{what} must be a whole number >= 0, got {part!r}"
            )
            raise CliError(msg) from None
    if not out:
        raise CliError(f"{what} is missing")
    return out


def _algorithms(text: str) -> list[str]:
    algs = [a.strip() for a in text.split(",") if a.strip()]
    bad = [a for a in algs if a not in ALGORITHMS]
    if bad or not algs:
        raise CliError(f"unknown algorithm {', '.join(bad) or text!r} (choose {', '.join(ALGORITHMS)})")
    return algs


def run(args) -> int:
    from ..io.atomic import OutputPathError, check_output_path

    if args.release:
        return _query_release(args)
    if args.query:
        raise CliError("--query needs --release")
    if not args.data_dir:
        from ..resources import resource

        args.data_dir = str(resource("samples"))
        print("dpstudio evaluate: the bundled Adult sample (no --data-dir)", file=sys.stderr)
    algorithms = _algorithms(args.algorithm)
    if args.sweep:
        from ..evaluation.sweeps import EPSILONS, STEPS

        epsilons = _numbers(args.epsilon, float, "epsilon") if args.epsilon is not None else list(EPSILONS)
        steps = _numbers(args.steps, int, "steps") if args.steps is not None else list(STEPS)
    else:
        epsilons = _numbers("1" if args.epsilon is None else args.epsilon, float, "epsilon")
        steps = _numbers("10" if args.steps is None else args.steps, int, "steps")
        if len(epsilons) > 1 or len(steps) > 1:
            raise CliError("several epsilons or steps need --sweep")
    if args.runs < 1:
        raise CliError(f"--runs must be at least 1, got {args.runs}")
    if not Path(args.data_dir).is_dir():
        raise CliError(f"data folder not found: {args.data_dir}")
    if args.out:
        if Path(args.out).suffix.lower() not in (".csv", ".json"):
            raise CliError(f"--out must end in .csv or .json, got {args.out}")
        try:
            check_output_path(args.out, args.overwrite)
        except OutputPathError as exc:
            raise CliError(str(exc)) from None
    if args.results and Path(args.results).is_dir():
        raise CliError(f"--results {args.results} is a folder, not a file")

    setup = _setup(args)
    for note in setup.notes:
        print(f"dpstudio evaluate: {note}", file=sys.stderr)
    if args.range_error:
        return _range_error(args, setup, algorithms, epsilons, steps)
    return _accuracy(args, setup, algorithms, epsilons, steps)


def _setup(args):
    """The Adult protocol's tables; adult.data is read by the chosen engine (``--engine``; auto decides on
    adult.data's size), adult.test always in memory (it is the test set, not the data released)."""
    from ..evaluation.sweeps import SweepError, adult_setup
    from ..io.datasets import Cancelled
    from ..io.engines import EngineError

    types = parse_types(args.types)
    from ..io.adult import adult_files
    from ..io.datasets import DatasetError

    try:
        args.data = str(adult_files(args.data_dir)[0])  # what --engine auto measures
    except DatasetError as exc:
        raise CliError(str(exc)) from None
    name = chosen_engine(args)
    engine = None if name == "numpy" else open_chosen(args, name)
    try:
        return adult_setup(
            args.data_dir,
            args.taxonomies,
            args.numeric_grids,
            types,
            engine=engine,
            progress=None if engine is None else _progress_printer(args),
        )
    except (SweepError, FileNotFoundError, EngineError, Cancelled) as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:  # dataset, taxonomy or encoding problems carry one-line messages
        raise CliError(str(exc).splitlines()[0]) from None
    finally:
        if engine is not None:
            engine.close()


def _accuracy(args, setup, algorithms, epsilons, steps) -> int:
    from ..evaluation.sweeps import SECURE_NOTE, SIMULATION_NOTE, format_summary, summarize, sweep

    note = SECURE_NOTE if args.secure else SIMULATION_NOTE
    from ..io.dataset_fingerprint import approximate_size

    # the sizes rounded (two significant figures): an evaluation prints no exact count of the data's rows
    print(
        f"# Adult: about {approximate_size(setup.train_rows):,} training rows, about "
        f"{approximate_size(len(setup.test)):,} test rows; neighbouring = add/remove one record"
    )
    print(f"# {note}", flush=True)
    baselines = None
    if not args.no_baselines:
        baselines = setup.baselines()
        print(
            f"# majority class {100 * baselines['majority']:.2f} %, raw-data entropy tree {100 * baselines['raw']:.2f} %"
            " (papers: 75.43 %, 85.3 %)",
            flush=True,
        )
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    records = sweep(
        setup,
        algorithms,
        epsilons,
        steps,
        args.runs,
        seed=args.seed,
        secure=args.secure,
        results=args.results,
        encoding=args.encoding,
        progress=progress,
        **_grid_override(args),
    )
    rows = summarize(records)
    print(format_summary(rows, baselines, note))
    if args.out:
        _write(
            args,
            rows,
            {
                "note": note,
                "baselines": baselines,
                "summary": rows,
                "runs": sorted(records, key=lambda r: (r["algorithm"], r["epsilon"], r["steps"], r["run"])),
            },
        )
    return 0


def _grid_override(args) -> dict:
    return {} if args.numeric_grid is None else {"numeric_grid": args.numeric_grid}


def _range_error(args, setup, algorithms, epsilons, steps) -> int:
    import numpy as np

    from ..core.noise import SecureNoise, SimulationNoise
    from ..core.range_queries import random_boxes
    from ..evaluation.diffgen_trees import domain_of, node_workload, true_tree
    from ..evaluation.range_error import error_by_query_size, format_table
    from ..evaluation.sweeps import one_run

    if len(epsilons) != 1 or len(steps) != 1 or len(algorithms) != 1:
        raise CliError("--range-error takes one algorithm, one epsilon and one steps value")
    if args.mc_runs < 1 or args.queries < 1:
        raise CliError("--mc-runs and --queries must be at least 1")
    noise = SecureNoise() if args.secure else SimulationNoise(args.seed)
    # the tree: one run of the chosen algorithm (its structure); its count budget eps_c is what the
    # Monte-Carlo compares leaf-only and consistent releases on
    _, result = one_run(setup, algorithms[0], epsilons[0], steps[0], noise, **_grid_override(args))
    domain = domain_of(setup.data)
    tree = true_tree(setup.data, result, domain)
    rng = np.random.default_rng(args.seed)
    if args.workload == "nodes":
        wl = node_workload(result, domain, args.queries, rng)
    else:
        wl = random_boxes(domain, args.queries, rng, attributes=(1, 3), n_classes=len(setup.data.classes))
    eps_c = float(result.count_epsilon)
    print(
        f"# tree of one {algorithms[0]} run (eps={epsilons[0]:g}, h={steps[0]}): {len(tree.parents)} nodes, "
        f"{len(tree.leaves)} leaves; counts budget eps_c = {eps_c:g}; {args.queries} random "
        f"{'tree nodes' if args.workload == 'nodes' else 'boxes over the taxonomies'}",
        flush=True,
    )
    res = error_by_query_size(domain, tree, eps_c, wl, runs=args.mc_runs, seed=args.seed, size=args.size)
    print(format_table(res))
    print(
        "# node MSE by depth: "
        + "; ".join(f"{m}: " + ", ".join(f"{v:.3g}" for v in res.per_depth[m]) for m in res.methods)
    )
    if args.out:
        rows = res.table()
        _write(
            args,
            rows,
            {
                "note": res.label,
                "epsilon_counts": eps_c,
                "path_length": res.path_length,
                "runs": res.runs,
                "size": res.size_kind,
                "by_size": rows,
                "overall": res.overall(),
                "per_depth": res.per_depth,
            },
        )
    return 0


def _query_release(args) -> int:
    import pandas as pd

    from ..core.range_queries import answer, cell_weights
    from ..evaluation.release_queries import ReleaseQueryError, parse_box, release_cells
    from ..io.release import NOT_A_RELEASE_COLUMN, sidecar_path

    csv_path = Path(args.release)
    if not csv_path.is_file():
        raise CliError(f"release not found: {csv_path}")
    side = sidecar_path(csv_path)
    if not side.is_file():
        raise CliError(f"the release's JSON sidecar is missing: {side}")
    if not args.query:
        raise CliError("give at least one --query, e.g. --query 'age=[20,40);sex=Female'")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
        cut = meta["cut"]
    except (json.JSONDecodeError, KeyError, UnicodeDecodeError):
        raise CliError(f"{side} is not a release sidecar (no 'cut')") from None
    if "count" not in pd.read_csv(csv_path, nrows=0).columns:
        raise CliError(f"{csv_path} has no count column (an expanded release: query its records directly)")
    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    frame = frame.drop(columns=[NOT_A_RELEASE_COLUMN], errors="ignore")  # the mark of a simulation's CSV
    for c in frame.columns:  # undo the spreadsheet-formula guard of the writer
        frame[c] = frame[c].map(lambda v: v[1:] if len(v) > 1 and v[0] == "'" and v[1] in "=+-@\t\r" else v)
    taxonomies: dict = {}
    if args.taxonomies:
        from ..evaluation.sweeps import SweepError, read_taxonomy_folder

        try:
            taxonomies, _ = read_taxonomy_folder(args.taxonomies)
        except (SweepError, ValueError) as exc:
            raise CliError(str(exc).splitlines()[0]) from None
    try:
        domain, cells, counts, classes = release_cells(frame, cut, taxonomies, meta.get("class_attribute"))
        boxes = [parse_box(q, domain) for q in args.query]
    except (ReleaseQueryError, ValueError) as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    if args.query_class is not None and args.query_class not in classes:
        raise CliError(f"unknown class {args.query_class!r} (classes: {', '.join(classes)})")
    k = -1 if args.query_class is None else classes.index(args.query_class)
    wl = domain.workload(boxes, classes=[k] * len(boxes))
    answers = answer(cell_weights(domain, cells, wl), counts, wl.classes)
    print(
        f"# {csv_path.name}: {len(cells[0])} partitions; partly covered partitions are pro-rated "
        "(uniformity assumption); answers are post-processing of released counts"
    )
    if meta.get("not_a_release"):
        print("# this file was made with simulation noise: not a release")
    for q, a, f in zip(args.query, answers, domain.fraction(wl)):
        print(f"{q}\t{a:.2f}\t(share of the domain {f:.4g})")
    return 0


#: every evaluation output says what it is on each row (secure noise or not, it is never a release)
NOT_A_RELEASE = "evaluation: not a release"


def _write(args, rows: list[dict], payload: dict) -> None:
    from ..io.atomic import OutputPathError, atomic_write

    payload = {"not_a_release": NOT_A_RELEASE, **payload}
    try:
        if args.out.lower().endswith(".csv"):
            buf = io.StringIO()
            if rows:
                marked = [{**r, "not_a_release": NOT_A_RELEASE} for r in rows]
                w = csv.DictWriter(buf, fieldnames=list(marked[0]), lineterminator="\n")
                w.writeheader()
                w.writerows(marked)
            atomic_write(args.out, buf.getvalue(), overwrite=args.overwrite)
        else:
            atomic_write(args.out, json.dumps(payload, indent=1, default=str), overwrite=args.overwrite)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    print(f"# wrote {args.out}")
