"""Accuracy sweeps of the DiffGen family on Adult (ALGORITHMS.md 9): eps x h x runs, resumable.

A sweep runs the engine (``dpstudio.algorithms.diffgen``) on the training table, evaluates every run with
``classification.release_accuracy`` and appends one JSON line per run to a results file, so an interrupted
sweep resumes where it stopped and two processes can share one file (each claims a run before starting;
claims of processes that died are taken over).

Noise: ``SimulationNoise`` with a seed derived from (seed, algorithm, eps, h, run) by default, so a sweep is
reproducible; evaluation runs are not releases and say so. ``secure=True`` uses OpenDP's samplers instead
(not reproducible, slower).
"""

from __future__ import annotations

import fcntl
import json
import os
import statistics
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..algorithms.diffgen import PRESETS, DiffGenResult, preset, run_to_result
from ..algorithms.diffgen_input import DiffGenInput
from ..core.budget import Ledger
from ..core.noise import SecureNoise, SimulationNoise
from .classification import majority_accuracy, raw_accuracy, release_accuracy

EPSILONS = (0.1, 0.25, 0.5, 1.0)
STEPS = (4, 7, 10, 13, 16)
SIMULATION_NOTE = (
    "simulation noise (seeded numpy): an evaluation of the algorithms, not a release; "
    "use --secure for OpenDP's samplers"
)
SECURE_NOTE = "secure noise (OpenDP); evaluation runs are still not written as releases"


class SweepError(ValueError):
    """Bad sweep input (one line)."""


@dataclass
class Setup:
    """Train/test tables, the engine input coded from the training table, and what the baselines need."""

    train: pd.DataFrame
    test: pd.DataFrame
    data: DiffGenInput
    class_column: str
    numeric: tuple
    attributes: tuple
    notes: list = field(default_factory=list)  # lines about how the input was read (e.g. labels' dots removed)
    # records per row of ``train`` when an engine read it as distinct rows with counts (None: one row each)
    train_weights: np.ndarray | None = None

    @property
    def train_rows(self) -> int:
        return len(self.train) if self.train_weights is None else int(self.train_weights.sum())

    def baselines(self) -> dict:
        raw = raw_accuracy(
            self.train, self.test, self.attributes, self.numeric, self.class_column, weights=self.train_weights
        )
        return {
            "majority": majority_accuracy(
                self.train[self.class_column], self.test[self.class_column], weights=self.train_weights
            ),
            "raw": raw.accuracy,
        }


def adult_log_grids() -> Path:
    """The bundled public log-scale (1-2-5 series) split grids of Adult's capital-gain and capital-loss
    (dpstudio/resources/taxonomies/adult/log-grids; rationale in docs/taxonomy.md). Not used unless asked for."""
    from ..resources import resource

    return resource("taxonomies", "adult", "log-grids")


def adult_setup(data_dir, taxonomy_dir=None, numeric_grids=None, types=None, engine=None, progress=None) -> Setup:
    """Adult's protocol split and the bundled Adult taxonomies (or those in ``taxonomy_dir``).

    ``numeric_grids``: an optional folder of NUMERIC taxonomies (e.g. ``adult_log_grids()``) added on top
    of ``taxonomy_dir``'s (replacing a taxonomy of the same attribute); their cut points become MAXGDDP's
    public split grid for those attributes (DiffGen and DiffGen with consistency then split only at their
    cut points too). By default numeric attributes have only bounds, and MAXGDDP's own grid rule
    (``numeric_grid``, default "round") gives capital-gain, capital-loss and fnlwgt the same 1-2-5 series
    from their bounds and the others the multiples of a round step (age: 20, 25, ..., 90); DiffGen keeps
    its lattices.
    ``types``: attribute -> declared numeric kind, as for a release (``encode_table``'s ``types``); without
    one a numeric attribute's kind is the default from its public bounds. ``engine``: a SQL engine (DuckDB,
    Spark) that reads adult.data as distinct rows of the used columns with their counts (the release is then
    identical to the in-memory one; ``Setup.train_weights`` holds the counts); adult.test is read in memory.
    """
    from ..io.adult import CLASS_COLUMN, CLASS_LABELS, load_adult
    from ..io.encoding import encode_table

    notes: list[str] = []
    taxonomies, bounds = read_taxonomy_folder(taxonomy_dir)
    if numeric_grids is not None:
        grids, _ = read_taxonomy_folder(numeric_grids)
        for name, tax in grids.items():
            if not tax.is_numeric:
                raise SweepError(f"{name}: the taxonomy in {numeric_grids} is not numeric (a split grid must be)")
            if name in bounds and (float(tax.lo[0]), float(tax.hi[0])) != bounds[name]:
                raise SweepError(
                    f"{name}: the grid's root [{tax.lo[0]:g}, {tax.hi[0]:g}) differs from the "
                    f"public bounds [{bounds[name][0]:g}, {bounds[name][1]:g})"
                )
        taxonomies.update(grids)
    weights = None
    if engine is None:
        train, test = load_adult(data_dir, notes)
    else:
        from ..io.adult import COLUMNS, _complete, adult_files, engine_train_counts
        from ..io.datasets import load_table

        used = [c for c in COLUMNS if c in taxonomies or c in bounds or c == CLASS_COLUMN]
        train, weights = engine_train_counts(data_dir, engine, used, notes, progress)
        test = _complete(load_table(adult_files(data_dir)[1]), notes)
    data = encode_table(
        train,
        CLASS_COLUMN,
        taxonomies,
        bounds,
        classes=CLASS_LABELS,  # adult.names: public
        types=types,
        weights=weights,
    )
    numeric = tuple(a.name for a in data.attributes if a.kind == "numeric")
    return Setup(train, test, data, CLASS_COLUMN, numeric, tuple(a.name for a in data.attributes), notes, weights)


def read_taxonomy_folder(folder=None) -> tuple[dict, dict]:
    """{attribute: Taxonomy} from every taxonomy file in ``folder`` (default: the bundled Adult ones) and
    {attribute: (lo, hi)} from its ``bounds.json`` (numeric attributes without a taxonomy)."""
    from ..io.taxonomy_formats import read_taxonomy

    if folder is None:
        from ..resources import resource

        folder = resource("taxonomies", "adult")
    folder = Path(folder)
    if not folder.is_dir():
        raise SweepError(f"taxonomy folder not found: {folder}")
    taxonomies, bounds = {}, {}
    for p in sorted(folder.iterdir()):
        if p.name == "bounds.json":
            for name, b in json.loads(p.read_text()).items():
                if isinstance(b, dict):
                    b = (b["lo"], b["hi"])
                bounds[name] = (float(b[0]), float(b[1]))
        elif p.is_file() and not p.name.startswith(".") and p.suffix.lower() in (".csv", ".txt", ".json", ".tax"):
            tax = read_taxonomy(p)
            taxonomies[tax.attribute or p.stem] = tax
    for name in list(bounds):
        if name in taxonomies and not taxonomies[name].is_numeric:
            raise SweepError(f"{name} has a categorical taxonomy and bounds in {folder}")
    if not taxonomies and not bounds:
        raise SweepError(f"no taxonomies in {folder}")
    return taxonomies, bounds


def run_seed(seed: int, algorithm: str, epsilon: float, steps: int, run: int) -> int:
    return zlib.crc32(f"{seed}|{algorithm}|{epsilon!r}|{steps}|{run}".encode())


def one_run(
    setup: Setup, algorithm: str, epsilon: float, steps: int, noise, encoding: str = "onehot", **overrides
) -> tuple[float, DiffGenResult]:
    """Run the engine once on the training table and return (test accuracy, result)."""
    from ..io.release import release_frame

    params = preset(algorithm, epsilon, steps, **overrides)
    result = run_to_result(setup.data, params, noise, Ledger(epsilon))
    table = release_frame(result)
    acc = release_accuracy(table, result.cut, setup.test, result.class_name, encoding=encoding)
    return acc.accuracy, result


# -- results file --------------------------------------------------------------------------------


def _key(rec: dict) -> tuple:
    return (rec["algorithm"], float(rec["epsilon"]), int(rec["steps"]), int(rec["run"]))


def read_results(path) -> tuple[list[dict], dict]:
    """(finished run records, {key: claim record}) from a results file (missing file: empty)."""
    done: list[dict] = []
    claims: dict[tuple, dict] = {}
    p = Path(path)
    if not p.exists():
        return done, claims
    for line in p.read_text().splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash
        if rec.get("claim"):
            claims[_key(rec)] = rec
        elif "accuracy" in rec:
            done.append(rec)
    return done, claims


def _append(path, rec: dict) -> None:
    with open(path, "a", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(json.dumps(rec) + "\n")
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _claim(path, key: tuple) -> bool:
    """Claim a run under an exclusive lock unless it is done or claimed by a live process."""
    with open(path, "a+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        for line in f.read().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not {"algorithm", "epsilon", "steps", "run"} <= set(rec) or _key(rec) != key:
                continue
            if "accuracy" in rec:
                fcntl.flock(f, fcntl.LOCK_UN)
                return False
            if rec.get("claim") and rec.get("pid") != os.getpid() and _alive(int(rec.get("pid", 0))):
                fcntl.flock(f, fcntl.LOCK_UN)
                return False
        f.write(
            json.dumps(
                {
                    "claim": True,
                    "algorithm": key[0],
                    "epsilon": key[1],
                    "steps": key[2],
                    "run": key[3],
                    "pid": os.getpid(),
                    "time": time.time(),
                }
            )
            + "\n"
        )
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)
    return True


def sweep(
    setup: Setup,
    algorithms: Sequence[str],
    epsilons: Iterable[float],
    steps: Iterable[int],
    runs: int,
    seed: int = 0,
    secure: bool = False,
    results=None,
    encoding: str = "onehot",
    progress: Callable[[str], None] | None = None,
    **overrides,
) -> list[dict]:
    """Run every (algorithm, eps, h, run) not yet in ``results`` (a JSONL path, optional); return all records."""
    for a in algorithms:
        if a not in PRESETS:
            raise SweepError(f"unknown algorithm {a!r} (choose {', '.join(PRESETS)})")
    if runs < 1:
        raise SweepError("runs must be at least 1")
    epsilons, steps = [float(e) for e in epsilons], [int(h) for h in steps]
    if any(not e > 0 for e in epsilons):
        raise SweepError("every epsilon must be positive")
    if any(h < 0 for h in steps):
        raise SweepError("steps must be >= 0")
    todo = [(a, e, h, r) for a in algorithms for e in epsilons for h in steps for r in range(runs)]
    records = []
    if results is not None:
        done, _ = read_results(results)
        wanted = set(todo)
        records = [rec for rec in done if _key(rec) in wanted]
    have = {_key(rec) for rec in records}
    total = len(todo)
    for key in todo:
        if key in have:
            continue
        if results is not None and not _claim(results, key):
            continue
        a, e, h, r = key
        s = run_seed(seed, a, e, h, r)
        noise = SecureNoise() if secure else SimulationNoise(s)
        t0 = time.perf_counter()
        acc, result = one_run(setup, a, e, h, noise, encoding, **overrides)
        rec = {
            "algorithm": a,
            "epsilon": e,
            "steps": h,
            "run": r,
            "accuracy": acc,
            "seed": None if secure else s,
            "noise": noise.label,
            "steps_done": result.steps_done,
            "partitions": int(len(result.leaf_nodes)),
            "seconds": round(time.perf_counter() - t0, 3),
        }
        if results is not None:
            _append(results, rec)
        records.append(rec)
        have.add(key)
        if progress:
            progress(
                f"[{len(have)}/{total}] {a} eps={e:g} h={h} run={r}: {100 * acc:.2f} % "
                f"({rec['partitions']} partitions, {rec['seconds']:.1f} s)"
            )
    if results is not None:  # pick up runs that other processes finished meanwhile
        done, _ = read_results(results)
        wanted = set(todo)
        merged = {_key(rec): rec for rec in done if _key(rec) in wanted}
        merged.update({_key(rec): rec for rec in records})
        records = list(merged.values())
    return records


def summarize(records: Iterable[dict]) -> list[dict]:
    """Mean, standard deviation, min and max accuracy per (algorithm, eps, h)."""
    groups: dict[tuple, list[float]] = {}
    for rec in records:
        groups.setdefault((rec["algorithm"], float(rec["epsilon"]), int(rec["steps"])), []).append(rec["accuracy"])
    out = []
    for (a, e, h), accs in sorted(groups.items()):
        out.append(
            {
                "algorithm": a,
                "epsilon": e,
                "steps": h,
                "runs": len(accs),
                "mean": statistics.fmean(accs),
                "std": statistics.stdev(accs) if len(accs) > 1 else 0.0,
                "min": min(accs),
                "max": max(accs),
            }
        )
    return out


def format_summary(rows: list[dict], baselines: dict | None = None, note: str = SIMULATION_NOTE) -> str:
    lines = [f"# {note}"]
    if baselines:
        lines.append("# baselines: " + ", ".join(f"{k} {100 * v:.2f} %" for k, v in baselines.items()))
    lines.append(
        f"{'algorithm':<20} {'eps':>6} {'h':>4} {'runs':>5} {'mean %':>8} {'std':>6} {'min %':>7} {'max %':>7}"
    )
    for r in rows:
        lines.append(
            f"{r['algorithm']:<20} {r['epsilon']:>6g} {r['steps']:>4} {r['runs']:>5} "
            f"{100 * r['mean']:>8.2f} {100 * r['std']:>6.2f} {100 * r['min']:>7.2f} {100 * r['max']:>7.2f}"
        )
    return "\n".join(lines)
