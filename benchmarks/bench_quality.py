"""Release quality beyond Adult (issue 33): the share of a raw tree's gain over the majority class that a
decision tree trained on the released counts keeps, on five public tables (``quality_tables.py``).

    .venv/bin/python benchmarks/bench_quality.py [--tables flights,credit] [--algorithms diffgen,maxgddp]
        [--epsilons 1,0.25,0.1] [--runs 5] [--ceiling] [--steps H] [--results FILE] [--summary]

For each table: a fixed split (two thirds to train, one third to test, seed 0), the table's declared
taxonomies, bounds and kinds (as a release would take them), the algorithm's automatic h for epsilon
(``diffgen_auto``), secure noise (OpenDP), and two classifiers on each release:

- **compare**: the project's own protocol (``evaluation.classification.release_accuracy``: an entropy
  tree, leaves of at least 0.3 % of the weight, trained on the released rows weighted by their counts; the
  raw test rows generalised by the released cut);
- **tuned**: the same tree with its minimum leaf weight chosen among ``LEAF_FRACTIONS`` on a held-out fifth
  of the released counts (each released count split 4:1, post-processing of the release: a user may tune on
  the release, never on the private rows), then trained on the whole release.

Share of the gain = (accuracy - majority) / (raw - majority), where raw is the compare tree trained on the
raw training rows and majority is the training set's majority class; both evaluated on the same test rows.
``--ceiling`` adds one run at epsilon 100 per table and algorithm (the method's noise-free ceiling);
``--steps H`` runs an explicit h instead of the automatic one (the ceiling against the height).
Results are appended to a JSON-lines file (default /tmp/quality.jsonl) and runs already there are skipped,
so an interrupted sweep resumes; ``--summary`` prints the table from the file only.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quality_tables import TABLES, TableSpec  # noqa: E402

from dpstudio.algorithms.diffgen import preset, run_to_result  # noqa: E402
from dpstudio.algorithms.diffgen_auto import automatic_steps  # noqa: E402
from dpstudio.core.budget import Ledger  # noqa: E402
from dpstudio.core.noise import SecureNoise  # noqa: E402
from dpstudio.evaluation.classification import (  # noqa: E402
    Encoder,
    entropy_tree,
    majority_accuracy,
    raw_accuracy,
    read_cut,
    release_accuracy,
)
from dpstudio.io.encoding import encode_table  # noqa: E402
from dpstudio.io.release import release_frame  # noqa: E402

ALGORITHMS = ("diffgen", "diffgen-consistent", "maxgddp")
EPSILONS = (1.0, 0.25, 0.1)
LEAF_FRACTIONS = (0.0005, 0.001, 0.003, 0.01, 0.03)


def split(spec: TableSpec, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    test = rng.random(len(spec.frame)) < 1 / 3
    return spec.frame[~test].reset_index(drop=True), spec.frame[test].reset_index(drop=True)


def tuned_accuracy(release: pd.DataFrame, cut, test: pd.DataFrame, class_column: str, seed: int) -> tuple[float, float]:
    """(accuracy, chosen leaf fraction): the leaf size chosen on a held-out fifth of the released counts."""
    cuts = read_cut(cut)
    enc = Encoder.for_cut(cuts)
    weight = pd.to_numeric(release["count"]).clip(lower=0).to_numpy(dtype=float)
    keep = weight > 0
    X = enc.transform(release.loc[keep].reset_index(drop=True))
    y = release.loc[keep, class_column].astype(str).to_numpy()
    w = weight[keep]
    held = np.random.default_rng(seed).binomial(np.floor(w).astype(np.int64), 0.2) + 0.2 * (w - np.floor(w))
    fit_w = w - held
    best, best_score = LEAF_FRACTIONS[0], -1.0
    for frac in LEAF_FRACTIONS:
        tree = entropy_tree(min_weight_fraction_leaf=frac).fit(X, y, sample_weight=fit_w)
        score = float(np.sum(held * (tree.predict(X) == y)) / max(held.sum(), 1e-12))
        if score > best_score:
            best, best_score = frac, score
    tree = entropy_tree(min_weight_fraction_leaf=best).fit(X, y, sample_weight=w)
    generalized = pd.DataFrame({a: c.generalize(test[a]) for a, c in cuts.items()}, index=test.index)
    acc = float((tree.predict(enc.transform(generalized)) == test[class_column].astype(str).to_numpy()).mean())
    return acc, best


def raw_tuned(train: pd.DataFrame, test: pd.DataFrame, attrs, numeric, class_column: str) -> tuple[float, float]:
    """(accuracy, leaf fraction) of the raw tree whose leaf size is chosen on a held-out fifth of the raw
    training rows (the baseline for the tuned share: the best a tuned tree gets from the raw data)."""
    enc = Encoder.for_raw(pd.concat([train, test]), attrs, numeric)
    X, y = enc.transform(train), train[class_column].astype(str).to_numpy()
    held = np.random.default_rng(0).random(len(train)) < 0.2
    best, best_score = LEAF_FRACTIONS[0], -1.0
    for frac in LEAF_FRACTIONS:
        tree = entropy_tree(min_weight_fraction_leaf=frac).fit(X[~held], y[~held])
        score = float((tree.predict(X[held]) == y[held]).mean())
        if score > best_score:
            best, best_score = frac, score
    tree = entropy_tree(min_weight_fraction_leaf=best).fit(X, y)
    return float((tree.predict(enc.transform(test)) == test[class_column].astype(str).to_numpy()).mean()), best


def prepare(name: str):
    spec = TABLES[name]()
    train, test = split(spec)
    data = encode_table(train, spec.class_column, spec.taxonomies, spec.bounds, classes=spec.classes, types=spec.types)
    attrs = [a.name for a in data.attributes]
    numeric = [a.name for a in data.attributes if a.kind == "numeric"]
    maj = majority_accuracy(train[spec.class_column], test[spec.class_column])
    raw = raw_accuracy(train, test, attrs, numeric, spec.class_column).accuracy
    tuned, leaf = raw_tuned(train, test, attrs, numeric, spec.class_column)
    base = {"majority": maj, "raw": raw, "raw_tuned": tuned, "raw_leaf": leaf, "rows": len(spec.frame)}
    return spec, train, test, data, base


def one(spec, test, data, algorithm: str, epsilon: float, run: int, steps: int | None = None) -> dict:
    if steps is None:
        steps, _rule = automatic_steps(algorithm, epsilon)
    params = preset(algorithm, epsilon, steps)
    t = time.perf_counter()
    result = run_to_result(data, params, SecureNoise(), Ledger(epsilon))
    seconds = time.perf_counter() - t
    table = release_frame(result)
    compare = release_accuracy(table, result.cut, test, spec.class_column).accuracy
    tuned, leaf = tuned_accuracy(table, result.cut, test, spec.class_column, seed=run)
    return {
        "table": spec.name,
        "algorithm": algorithm,
        "epsilon": epsilon,
        "run": run,
        "steps": steps,
        "compare": compare,
        "tuned": tuned,
        "leaf_fraction": leaf,
        "seconds": round(seconds, 2),
    }


def share(acc: float, base: dict, raw: str = "raw") -> float:
    """The share of the raw tree's gain over the majority class (nan where the raw tree gains nothing)."""
    gain = base[raw] - base["majority"]
    return (acc - base["majority"]) / gain if gain > 0 else float("nan")


def _pct(values) -> str:
    if any(v != v for v in values):
        return "n/a (the raw tree does not beat the majority)"
    return f"{100 * statistics.mean(values):.0f} % ({100 * min(values):.0f} to {100 * max(values):.0f})"


def read(path: Path) -> tuple[list[dict], dict]:
    runs, bases = [], {}
    if path.exists():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("kind") == "baseline":
                bases[rec["table"]] = rec
            else:
                runs.append(rec)
    return runs, bases


def summary(path: Path) -> str:
    runs, bases = read(path)
    lines = [
        "| table | rows | majority | raw tree: compare / tuned | algorithm | epsilon | h | share of the gain, "
        "compare: mean (min to max) | share, tuned leaf size: mean (min to max) | runs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted(
        {(r["table"], r["algorithm"], r["epsilon"], r["steps"]) for r in runs}, key=lambda k: (k[0], k[1], -k[2], k[3])
    )
    for table, alg, eps, h in keys:
        b = bases[table]
        rs = [r for r in runs if (r["table"], r["algorithm"], r["epsilon"], r["steps"]) == (table, alg, eps, h)]
        c = [share(r["compare"], b) for r in rs]
        t = [share(r["tuned"], b, "raw_tuned") for r in rs]
        lines.append(
            f"| {table} | {b['rows']:,} | {100 * b['majority']:.2f} | {100 * b['raw']:.2f} / "
            f"{100 * b['raw_tuned']:.2f} | {alg} | {eps:g} | {rs[0]['steps']} | {_pct(c)} | {_pct(t)} | {len(rs)} |"
        )
    return "\n".join(lines)


def _option(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv: list[str]) -> int:
    path = Path(_option(argv, "--results", "/tmp/quality.jsonl"))
    if "--summary" in argv:
        print(summary(path))
        return 0
    tables = _option(argv, "--tables", ",".join(TABLES)).split(",")
    algorithms = _option(argv, "--algorithms", ",".join(ALGORITHMS)).split(",")
    epsilons = [float(e) for e in _option(argv, "--epsilons", ",".join(map(str, EPSILONS))).split(",")]
    runs = int(_option(argv, "--runs", "5"))
    if "--ceiling" in argv:
        epsilons = [*epsilons, 100.0]
    done, bases = read(path)
    fixed = int(_option(argv, "--steps", "0")) or None  # an explicit h instead of the automatic one
    seen = {(r["table"], r["algorithm"], r["epsilon"], r["run"], r["steps"] if fixed else None) for r in done}
    for name in tables:
        t = time.perf_counter()
        spec, _train, test, data, base = prepare(name)
        if name not in bases:
            with path.open("a") as f:
                f.write(json.dumps({"kind": "baseline", "table": name, **base}) + "\n")
        base = bases.get(name, base)
        print(
            f"{name}: {base['rows']:,} rows, majority {base['majority']:.4f}, raw {base['raw']:.4f}, "
            f"raw tuned {base['raw_tuned']:.4f} "
            f"({time.perf_counter() - t:.0f} s to read and code)",
            flush=True,
        )
        for alg in algorithms:
            for eps in epsilons:
                for run in range(1 if eps >= 100 else runs):
                    if (name, alg, eps, run, fixed) in seen:
                        continue
                    rec = one(spec, test, data, alg, eps, run, fixed)
                    with path.open("a") as f:
                        f.write(json.dumps(rec) + "\n")
                    print(
                        f"  {alg} eps {eps:g} run {run}: compare {rec['compare']:.4f} ({share(rec['compare'], base):.0%}) "
                        f"tuned {rec['tuned']:.4f} ({share(rec['tuned'], base, 'raw_tuned'):.0%}) h {rec['steps']} "
                        f"{rec['seconds']} s",
                        flush=True,
                    )
    print(summary(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
