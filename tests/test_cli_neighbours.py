"""Neighbouring inputs through every CLI release writer, and no exact count in any artefact.

For each writer, D and D' = D + one record (secure noise, the same public inputs) must give outputs whose
non-noisy metadata are identical: the CSV header and its key structure, every sidecar field except the
documented outputs of a mechanism (docs/release.md, docs/histogram.md), the report's structure, stderr.
The added records are the ones today's leaks showed: a record of a declared class no other record holds
(the class domain used to come from the data) and a record with a missing value (its dropping used to be
counted in the console output and in the histogram sidecar).
"""

import re
from fractions import Fraction

import numpy as np
import pytest

from tests.cli_outputs import assert_no_exact_counts, owner_notes, report_structure, run_writer, without

#: sidecar fields of a table release that are outputs of a mechanism (the noisy cut and what follows from
#: it; post_processing notes whether the noisy counts needed rounding or clamping); everything else must not
#: depend on the data (docs/release.md lists the same)
RELEASE_MECHANISM_OUTPUTS = (
    "specializations",
    "cut",
    "leaf_partitions",
    "cells",
    "steps_done",
    "stopped_early",
    "ledger.entries",
    "post_processing",
    "error_estimates.count_epsilon",
    "error_estimates.count_sensitivity",
    "error_estimates.per_cell_variance",
    "error_estimates.min",
    "error_estimates.max",
    "error_estimates.mean",
)
#: sidecar fields of a histogram release that are not public inputs: the time of writing
HISTOGRAM_VARYING = ("created_utc",)

TAXONOMY = "China;Asian;Any\nKorea;Asian;Any\nCanada;American;Any\nUSA;American;Any\n"


def table_rows(n, seed=0):
    rng = np.random.default_rng(seed)
    return [
        (str(rng.choice(["China", "Korea", "Canada", "USA"])), int(rng.integers(17, 90)), str(rng.choice(["N", "Y"])))
        for _ in range(n)
    ]


def write_table(folder, rows):
    folder.mkdir()
    (folder / "d.csv").write_text("country,age,hired\n" + "".join(f"{c},{a},{h}\n" for c, a, h in rows))
    (folder / "country.csv").write_text(TAXONOMY)


def release_argv(algorithm, steps="3"):
    return [
        "release",
        "--data",
        "d.csv",
        "--class",
        "hired",
        "--classes",
        "N,Y,Maybe",
        "--taxonomy",
        "country=country.csv",
        "--bounds",
        "age=0:100",
        "--algorithm",
        algorithm,
        "--epsilon",
        "1",
        *(["--steps", steps] if steps is not None else []),
        "--out",
        "out.csv",
        "--report",
        "out.html",
    ]


def mask_mechanism_outputs(stdout):
    stdout = stdout.replace(" (stopped early: nothing left to specialize)", "")
    return re.sub(r"\d+ (specializations|leaf partitions)", r"N \1", stdout)


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
@pytest.mark.parametrize("added", [("China", 33, "Maybe"), ("?", 33, "N")], ids=["unseen-class", "missing-value"])
def test_release_metadata_is_the_same_for_neighbouring_tables(tmp_path, algorithm, added):
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [added])
    outs = [run_writer(tmp_path / name, release_argv(algorithm), report="out.html") for name in ("d", "d1")]
    a, b = outs
    assert a.rows[0] == b.rows[0] == ["country", "age", "hired", "count"]
    for o in outs:  # every partition lists exactly the public classes, in their order
        assert [r[2] for r in o.rows[1:]] == ["N", "Y", "Maybe"] * o.sidecar["leaf_partitions"]
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)
    assert report_structure(a.report) == report_structure(b.report) and report_structure(a.report)
    # the console tells the data owner (not a release artefact) the rounded share of rows left out for a
    # missing value: the one line that may differ, and it holds no count
    notes, rest = owner_notes(b.stderr)
    assert len(notes) == (added[0] == "?") and all("under 1 % of the rows" in n and "301" not in n for n in notes)
    assert a.stderr == rest
    assert mask_mechanism_outputs(a.stdout) == mask_mechanism_outputs(b.stdout)


@pytest.mark.parametrize("algorithm", ["diffgen-consistent", "maxgddp"])
def test_automatic_steps_are_the_same_for_neighbouring_tables(tmp_path, algorithm):
    """Without --steps, h is chosen from public inputs only: D and D + one record get the same h and
    reason, and nothing beyond epsilon is spent on the choice."""
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [("China", 33, "Y")])
    a, b = (run_writer(tmp_path / name, release_argv(algorithm, steps=None), report="out.html") for name in ("d", "d1"))
    assert a.sidecar["steps_choice"] == b.sidecar["steps_choice"]
    assert a.sidecar["steps_choice"]["automatic"] is True and "epsilon" in a.sidecar["steps_choice"]["reason"]
    assert a.sidecar["parameters"]["steps"] == b.sidecar["parameters"]["steps"] == a.sidecar["steps_choice"]["steps"]
    assert a.sidecar["ledger"]["spent"] == b.sidecar["ledger"]["spent"] == "1"
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)


def test_maxgddp_log_grid_is_the_same_for_neighbouring_tables(tmp_path):
    """Bounds spanning three decades give MAXGDDP the 1-2-5 grid, from the bounds alone: D and D + one
    record (a value above every other) get the same grid, its source and the re-run script's options."""
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [("USA", 99000, "Y")])
    argv = [a if a != "age=0:100" else "age=0:100000" for a in release_argv("maxgddp", steps=None)]
    a, b = (run_writer(tmp_path / name, argv, report="out.html") for name in ("d", "d1"))
    for o in (a, b):
        age = next(x for x in o.sidecar["attributes"] if x["name"] == "age")
        assert age["lattice"]["grid"] == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]
        assert "1-2-5 series" in age["lattice"]["split_points"]
        assert o.sidecar["parameters"]["numeric_grid"] == "round"
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)
    assert report_structure(a.report) == report_structure(b.report)


@pytest.mark.parametrize("added", [("USA", 99, "Y"), ("China", 1, "N")], ids=["largest", "smallest"])
def test_maxgddp_round_grid_is_the_same_for_neighbouring_tables(tmp_path, added):
    """MAXGDDP's default grid for bounds under three decades: the multiples of a round step from the bounds
    alone (age in [0, 100) and 16 bins: 10, 20, ..., 90). D and D + one record at either end of the data get
    the same grid, its source, the same budget spent in full, and the same re-run script's options."""
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [added])
    a, b = (run_writer(tmp_path / name, release_argv("maxgddp", steps=None), report="out.html") for name in ("d", "d1"))
    for o in (a, b):
        age = next(x for x in o.sidecar["attributes"] if x["name"] == "age")
        assert age["lattice"]["grid"] == [10, 20, 30, 40, 50, 60, 70, 80, 90]
        assert "the multiples of 10 inside the public bounds" in age["lattice"]["split_points"]
        assert o.sidecar["parameters"]["numeric_grid"] == "round"
        ledger = o.sidecar["ledger"]
        assert ledger["total"] == ledger["spent"] == "1"
        assert sum(Fraction(e["epsilon"]) for e in ledger["entries"]) == 1
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)
    assert report_structure(a.report) == report_structure(b.report)


def write_counts(folder, counts):
    folder.mkdir()
    (folder / "counts.txt").write_text("\n".join(map(str, counts)) + "\n")


@pytest.mark.parametrize("algorithm", ["flat", "hb", "sc", "luedp", "hopt", "pidentity", None])
def test_histogram_from_counts_metadata_is_the_same_for_neighbours(tmp_path, algorithm):
    counts = [5, 0, 12, 7, 3, 3, 9, 40, 1, 0, 2, 6, 8, 30, 2, 2]
    write_counts(tmp_path / "d", counts)
    write_counts(tmp_path / "d1", counts[:7] + [counts[7] + 1] + counts[8:])
    chosen = [] if algorithm is None else ["--algorithm", algorithm]  # None: chosen from n and epsilon
    argv = ["histogram", "--counts", "counts.txt", *chosen, "--epsilon", "1", "--out", "out.csv"]
    a, b = (run_writer(tmp_path / name, argv) for name in ("d", "d1"))
    assert [r[0] for r in a.rows] == [r[0] for r in b.rows] and a.rows[0] == ["bin", "count"]
    assert without(a.sidecar, HISTOGRAM_VARYING) == without(b.sidecar, HISTOGRAM_VARYING)
    assert a.stdout.replace("d1", "d") == b.stdout.replace("d1", "d") and a.stderr == b.stderr


@pytest.mark.parametrize("algorithm", ["pidentity", None])
def test_histogram_with_smooth_rows_metadata_is_the_same_for_neighbours(tmp_path, algorithm):
    """1,024 bins: p-Identity's smooth rows (the default there); D and D plus one record in bin 500."""
    counts = [int(c) for c in np.random.default_rng(7).poisson(20, 1024)]
    write_counts(tmp_path / "d", counts)
    write_counts(tmp_path / "d1", counts[:500] + [counts[500] + 1] + counts[501:])
    chosen = [] if algorithm is None else ["--algorithm", algorithm]
    argv = ["histogram", "--counts", "counts.txt", *chosen, "--epsilon", "1", "--out", "out.csv"]
    a, b = (run_writer(tmp_path / name, argv) for name in ("d", "d1"))
    assert a.sidecar["algorithm"] == b.sidecar["algorithm"] == "pidentity"
    assert a.sidecar["strategy"]["extra_rows"] == 68  # 1,024 / 16 + 1,024 / 256 smooth rows
    assert [r[0] for r in a.rows] == [r[0] for r in b.rows] and a.rows[0] == ["bin", "count"]
    assert without(a.sidecar, HISTOGRAM_VARYING) == without(b.sidecar, HISTOGRAM_VARYING)
    assert a.stdout.replace("d1", "d") == b.stdout.replace("d1", "d") and a.stderr == b.stderr


@pytest.mark.parametrize("chosen", [["--algorithm", "hb"], []], ids=["hb", "default"])
@pytest.mark.parametrize("added", ["33", "?"], ids=["value", "missing-value"])
def test_histogram_from_data_metadata_is_the_same_for_neighbours(tmp_path, added, chosen):
    values = [str(a) for _, a, _ in table_rows(300)]
    for name, column in (("d", values), ("d1", values + [added])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "d.csv").write_text("age\n" + "\n".join(column) + "\n")
    argv = [
        "histogram",
        "--data",
        "d.csv",
        "--column",
        "age",
        "--edges",
        "0:100:10",
        "--drop-missing",
        *chosen,
        "--epsilon",
        "1",
        "--out",
        "out.csv",
    ]
    a, b = (run_writer(tmp_path / name, argv) for name in ("d", "d1"))
    assert [r[:3] for r in a.rows] == [r[:3] for r in b.rows] and a.rows[0] == ["bin", "lo", "hi", "count"]
    assert without(a.sidecar, HISTOGRAM_VARYING) == without(b.sidecar, HISTOGRAM_VARYING)
    assert a.stdout == b.stdout and a.stderr == b.stderr


def test_no_exact_count_in_any_release_artefact(tmp_path):
    """Rows, dropped rows and class totals (distinctive numbers) appear in no CSV key column, sidecar,
    report, stdout or stderr of a successful release."""
    rows = table_rows(1237, seed=1) + [("?", 40, "N")] * 113
    write_table(tmp_path / "d", rows)
    complete = [r for r in rows if r[0] != "?"]
    counts = {
        "rows": len(rows),
        "dropped": 113,
        "kept": len(complete),
        **{f"class {k}": sum(r[2] == k for r in complete) for k in "NY"},
        **{f"class {k} with missing": sum(r[2] == k for r in rows) for k in "NY"},
    }
    assert min(counts.values()) > 100  # distinctive: no public figure is that large
    for algorithm in ("diffgen", "diffgen-consistent", "maxgddp"):
        out = run_writer(
            tmp_path / "d",
            release_argv(algorithm, steps="2") + ["--overwrite", "--dataset-budget", "3"],
            report="out.html",
        )
        assert_no_exact_counts(out, counts)


def test_no_exact_count_in_any_histogram_artefact(tmp_path):
    ages = [str(a) for _, a, _ in table_rows(1237, seed=2)]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "d.csv").write_text("age\n" + "\n".join(ages + ["?"] * 113) + "\n")
    argv = [
        "histogram",
        "--data",
        "d.csv",
        "--column",
        "age",
        "--edges",
        "0:100:10",
        "--drop-missing",
        "--algorithm",
        "hb",
        "--epsilon",
        "1",
        "--out",
        "out.csv",
    ]
    out = run_writer(tmp_path / "d", argv)
    assert "how many is not reported" in out.sidecar["domain"]["missing"]
    assert_no_exact_counts(out, {"rows": 1237 + 113, "dropped": 113, "kept": 1237})
