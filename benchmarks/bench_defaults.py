"""One default against another (issue 33): the mean share of the raw tree's gain over many secure runs of one
table, algorithm and epsilon, with engine options set as a default would set them.

    .venv/bin/python benchmarks/bench_defaults.py TABLE ALGORITHM EPSILON RUNS [h=H] [OPTION=VALUE ...]

TABLE: one of ``quality_tables.TABLES`` (bench_quality.py's split and declarations) or ``adult`` (the Adult
protocol of ``evaluation.sweeps.adult_setup``: adult.data to train, adult.test to test, the bundled
taxonomies; majority 75.43 %, raw tree 85.24 %). OPTION=VALUE: any ``DiffGenParams`` field, e.g.
``numeric_grid=log``, ``grid_bins=64``, ``count_fraction=2/3``, ``score=infogain``; ``h`` an explicit h (the
automatic one otherwise). Prints the mean accuracy, and the mean (least to largest) share of the gain on the
compare protocol (``evaluation.classification.release_accuracy``). Secure noise: evaluation runs, never
releases; nothing is written.
"""

from __future__ import annotations

import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_quality import prepare, share  # noqa: E402

from dpstudio.algorithms.diffgen import preset, run_to_result  # noqa: E402
from dpstudio.algorithms.diffgen_auto import automatic_steps  # noqa: E402
from dpstudio.core.budget import Ledger  # noqa: E402
from dpstudio.core.noise import SecureNoise  # noqa: E402
from dpstudio.evaluation.classification import release_accuracy  # noqa: E402
from dpstudio.io.release import release_frame  # noqa: E402

ADULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "adult"


def _value(text: str):
    for kind in (int, Fraction):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def setup(table: str):
    """(data, test rows, class column, baseline accuracies) of one table."""
    if table == "adult":
        from dpstudio.evaluation.sweeps import adult_setup

        s = adult_setup(str(ADULT_DIR))
        return s.data, s.test, s.data.class_name, {"majority": 0.7543, "raw": 0.8524}
    spec, _train, test, data, base = prepare(table)
    return data, test, spec.class_column, base


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__)
        return 2
    table, algorithm, epsilon, runs = argv[0], argv[1], float(argv[2]), int(argv[3])
    options = dict(kv.split("=", 1) for kv in argv[4:])
    h = int(options.pop("h")) if "h" in options else automatic_steps(algorithm, epsilon)[0]
    overrides = {k: _value(v) for k, v in options.items()}
    data, test, class_column, base = setup(table)
    shares, t = [], time.perf_counter()
    for _ in range(runs):
        result = run_to_result(data, preset(algorithm, epsilon, h, **overrides), SecureNoise(), Ledger(epsilon))
        acc = release_accuracy(release_frame(result), result.cut, test, class_column).accuracy
        shares.append(share(acc, base))
    accs = [base["majority"] + x * (base["raw"] - base["majority"]) for x in shares]
    print(
        f"{table} {algorithm} eps={epsilon:g} h={h} {options or 'defaults'}: accuracy {100 * statistics.mean(accs):.2f} %, "
        f"share {100 * statistics.mean(shares):.1f} % ({100 * min(shares):.0f} to {100 * max(shares):.0f}), {runs} runs, "
        f"{time.perf_counter() - t:.0f} s",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
