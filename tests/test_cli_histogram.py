"""``dpstudio histogram``: the interface outside tools rely on, and every bad input through the CLI."""

import json
import math

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import IntervalTreeParams, plan_interval_tree
from dpstudio.cli import main


def run_cli(*argv):
    return main(["histogram", *map(str, argv)])


@pytest.fixture
def counts_file(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("\n".join(str(c) for c in [5, 0, 12, 7, 3, 3, 9, 40, 1, 0, 2, 6, 8, 30, 2, 2]) + "\n")
    return path


def read_counts(csv_path):
    lines = csv_path.read_text().splitlines()
    header = lines[0].split(",")
    col = header.index("count")
    return np.array([float(l.split(",")[col]) for l in lines[1:]])


@pytest.mark.parametrize(
    "algo,extra",
    [
        ("flat", []),
        ("hb", ["--branching", "2"]),
        ("hb", ["--no-root"]),
        ("sc", []),
        ("luedp", ["--branching", "4", "--no-root"]),
    ],
)
def test_interface_counts_file(tmp_path, counts_file, algo, extra, capsys):
    out = tmp_path / "out.csv"
    assert (
        run_cli("--counts", counts_file, "--algorithm", algo, *extra, "--epsilon", "0.5", "--out", out, "--seed", "7")
        == 0
    )
    released = read_counts(out)
    assert released.size == 16
    side = json.loads(out.with_suffix(".json").read_text())
    b = int(extra[extra.index("--branching") + 1]) if "--branching" in extra else None
    plan = plan_interval_tree(16, IntervalTreeParams(algo, 0.5, b, "--no-root" not in extra))
    assert side["expected_all_range_mse"] == pytest.approx(plan.expected_consistent_mse)
    assert side["ledger"]["spent"] == "1/2" and side["ledger"]["total"] == "1/2"
    assert side["release"] is False and "simulation" in side["not_a_release"][0]
    pp = side["post_processing"]
    assert pp["published"] == "whole" and pp["rounded"] is True and pp["clamped"] is True
    assert "wrote" in capsys.readouterr().out
    # the released counts are whole, never negative
    assert np.all(released >= 0) and np.array_equal(released, np.round(released))


def test_same_seed_same_output_and_npy_input(tmp_path, counts_file):
    arr = np.array([int(x) for x in counts_file.read_text().split()])
    np.save(tmp_path / "c.npy", arr)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert run_cli("--counts", counts_file, "--algorithm", "hb", "--epsilon", "1", "--out", a, "--seed", "3") == 0
    assert (
        run_cli("--counts", tmp_path / "c.npy", "--algorithm", "hb", "--epsilon", "1", "--out", b, "--seed", "3") == 0
    )
    assert np.array_equal(read_counts(a), read_counts(b))


def test_secure_release_round_clamp_and_overwrite(tmp_path, counts_file, capsys):
    out = tmp_path / "rel.csv"
    args = ["--counts", counts_file, "--algorithm", "luedp", "--epsilon", "1", "--out", out]
    args += ["--published", "least-squares", "--round", "--clamp"]
    assert run_cli(*args, "--dataset-budget", "2") == 0  # room for the second release below
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["release"] is True and side["not_a_release"] is None
    assert side["post_processing"]["order"] == [
        "least squares consistency (exact BLUE)",
        "clamped negative counts to 0",
        "rounded to whole numbers",
    ]
    rel = read_counts(out)
    assert np.all(rel >= 0) and np.all(rel == np.round(rel))
    before = out.read_text()
    assert run_cli(*args) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_text() == before
    assert run_cli(*args, "--overwrite") == 0


def test_adult_age_with_public_edges(tmp_path, shared_data):
    out = tmp_path / "age.csv"
    assert (
        run_cli(
            "--data",
            shared_data / "adult" / "adult.data",
            "--column",
            "age",
            "--edges",
            "17:91:1",
            "--algorithm",
            "hb",
            "--branching",
            "4",
            "--epsilon",
            "1",
            "--out",
            out,
            "--seed",
            "1",
        )
        == 0
    )
    lines = out.read_text().splitlines()
    assert lines[0] == "not_a_release,bin,lo,hi,count" and len(lines) == 75  # --seed: marked on every row
    assert lines[1].startswith("simulation noise (simulation (seed 1)),1,17,18,")
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["domain"]["source"] == "public edges given by the user"
    # 32,561 records: the consistent total is near it (root noise scale 5/1)
    assert abs(read_counts(out).sum() - 32561) < 100


def test_derived_edges_are_marked_not_a_release(tmp_path, shared_data):
    out = tmp_path / "d.csv"
    assert (
        run_cli(
            "--data",
            shared_data / "adult" / "adult.data",
            "--column",
            "hours-per-week",
            "--derive-edges",
            "10",
            "--algorithm",
            "flat",
            "--epsilon",
            "1",
            "--out",
            out,
        )
        == 0
    )
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["release"] is False
    assert "derived from the data: not private" in side["not_a_release"][0]


BAD = {
    "non-numeric": ("5\n3\nabc\n", "line 3: 'abc' is not a number"),
    "negative": ("5\n-3\n4\n", "line 2: count -3 is negative"),
    "fraction": ("5\n3.5\n4\n", "not a whole number"),
    "empty": ("\n\n", "empty"),
    "one bin": ("7\n", "at least 2 bins"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_counts_file(tmp_path, case, capsys):
    text, msg = BAD[case]
    src = tmp_path / "c.txt"
    src.write_text(text)
    out = tmp_path / "o.csv"
    assert run_cli("--counts", src, "--algorithm", "hb", "--epsilon", "1", "--out", out) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not out.with_suffix(".json").exists()


@pytest.mark.parametrize(
    "eps,msg",
    [
        ("0", "positive"),
        ("-1", "positive"),
        ("inf", "finite"),
        ("nan", "not a number"),
        ("abc", "not a number"),
        ("1e400", "usable range"),
        ("1e-400", "usable range"),
    ],
)
def test_bad_epsilon(tmp_path, counts_file, eps, msg, capsys):
    out = tmp_path / "o.csv"
    assert run_cli("--counts", counts_file, "--algorithm", "sc", "--epsilon", eps, "--out", out) == 2
    err = capsys.readouterr().err
    assert "epsilon" in err and msg in err
    assert not out.exists() and not out.with_suffix(".json").exists()


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("age,hours\n20,40\n35,50\n99,10\n41,38\n")
    return path


@pytest.mark.parametrize(
    "edges,msg",
    [
        ("20,40,30,100", "strictly increasing: edge 3 (30) is not above edge 2 (40)"),
        ("20,20,100", "strictly increasing"),
        ("20", "at least 2"),
        ("10,30,60", "1 rows lie outside the bins [10, 60] (values 99)"),
    ],
)
def test_bad_edges_and_values_outside(tmp_path, data_file, edges, msg, capsys):
    out = tmp_path / "o.csv"
    assert (
        run_cli(
            "--data",
            data_file,
            "--column",
            "age",
            "--edges",
            edges,
            "--algorithm",
            "hb",
            "--epsilon",
            "1",
            "--out",
            out,
        )
        == 2
    )
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not out.with_suffix(".json").exists()


def test_bad_branching_and_missing_input(tmp_path, counts_file, capsys):
    out = tmp_path / "o.csv"
    assert (
        run_cli("--counts", counts_file, "--algorithm", "hb", "--branching", "1", "--epsilon", "1", "--out", out) == 2
    )
    assert "branching" in capsys.readouterr().err
    assert run_cli("--algorithm", "hb", "--epsilon", "1", "--out", out) == 2
    assert "exactly one input" in capsys.readouterr().err
    assert not out.exists()


def test_expected_mse_anchor_through_cli(tmp_path):
    src = tmp_path / "z.npy"
    np.save(src, np.zeros(4096, dtype=np.int64))
    out = tmp_path / "o.csv"
    assert (
        run_cli(
            "--counts",
            src,
            "--algorithm",
            "hb",
            "--branching",
            "16",
            "--no-root",
            "--epsilon",
            "1",
            "--out",
            out,
            "--seed",
            "0",
        )
        == 0
    )
    side = json.loads(out.with_suffix(".json").read_text())
    assert math.sqrt(side["expected_all_range_mse"]) == pytest.approx(16.19, rel=0.005)


def test_ordinal_categories_through_cli(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("grade\nlow\nhigh\nmid\nlow\n=1+1\n")
    out = tmp_path / "g.csv"
    assert (
        run_cli(
            "--data",
            data,
            "--column",
            "grade",
            "--categories",
            "low,mid,high,=1+1",
            "--algorithm",
            "flat",
            "--epsilon",
            "1",
            "--out",
            out,
            "--seed",
            "1",
        )
        == 0
    )
    assert read_counts(out).size == 4
    mark = "simulation noise (simulation (seed 1)),"
    assert out.read_text().splitlines()[4].startswith(mark + "4,'=1+1,")
    assert out.read_text().splitlines()[0] == "not_a_release,bin,category,count"
    assert out.read_text().splitlines()[1].startswith(mark + "1,low,")
    assert json.loads(out.with_suffix(".json").read_text())["domain"]["categories"] == ["low", "mid", "high", "=1+1"]
    bad = tmp_path / "b.csv"
    assert (
        run_cli(
            "--data",
            data,
            "--column",
            "grade",
            "--categories",
            "low,mid",
            "--algorithm",
            "flat",
            "--epsilon",
            "1",
            "--out",
            bad,
        )
        == 2
    )
    assert not bad.exists()


def test_derived_edges_mark_every_csv_row(tmp_path):
    """A CSV on its own (or any excerpt of it) must not pass for a release: with --derive-edges (secure
    noise) every row's first column says why it is not one."""
    data = tmp_path / "d.csv"
    data.write_text("hours\n" + "\n".join(str(h) for h in range(1, 60)) + "\n")
    out = tmp_path / "h.csv"
    assert (
        run_cli(
            "--data",
            data,
            "--column",
            "hours",
            "--derive-edges",
            "5",
            "--algorithm",
            "flat",
            "--epsilon",
            "1",
            "--out",
            out,
        )
        == 0
    )
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["not_a_release", "bin", "lo", "hi", "count"] and len(rows) == 6
    assert {r[0] for r in rows[1:]} == {"bin edges derived from the data: not private"}


def test_what_the_counts_are_is_said_in_sidecar_report_and_help(tmp_path, capsys):
    """Histogram counts are whole, non-negative and consistent by default; the least-squares estimates on
    request (--published least-squares), rounded or clamped if asked: the CSV, the sidecar, the studio's
    report and --help say which."""
    import json

    import numpy as np

    from dpstudio.cli import main

    counts = tmp_path / "c.txt"
    np.savetxt(counts, np.r_[np.zeros(12, int), [40, 0, 3, 0]], fmt="%d")
    base = ["histogram", "--counts", str(counts), "--algorithm", "hb", "--epsilon", "0.2", "--seed", "3"]
    base += ["--budget-store", "none"]
    assert main([*base, "--out", str(tmp_path / "a.csv")]) == 0
    side = json.loads((tmp_path / "a.json").read_text())
    assert "whole numbers, never negative, consistent" in side["counts_note"]
    rel = read_counts(tmp_path / "a.csv")
    assert np.all(rel >= 0) and np.array_equal(rel, np.round(rel))
    assert main([*base, "--published", "least-squares", "--out", str(tmp_path / "l.csv")]) == 0
    note = json.loads((tmp_path / "l.json").read_text())["counts_note"]
    assert "neither rounded nor clamped" in note
    assert (read_counts(tmp_path / "l.csv") < 0).any()  # sparse and noisy: some estimates are negative
    assert main([*base, "--published", "least-squares", "--round", "--out", str(tmp_path / "b.csv")]) == 0
    note = json.loads((tmp_path / "b.json").read_text())["counts_note"]
    assert "rounded to whole numbers (asked for)" in note and "clamped" not in note
    capsys.readouterr()
    assert main([*base, "--round", "--out", str(tmp_path / "c.csv")]) == 2  # whole counts need no rounding
    err = capsys.readouterr().err
    assert "least-squares" in err and len(err.strip().splitlines()) == 1 and not (tmp_path / "c.csv").exists()
    with pytest.raises(SystemExit):
        main(["histogram", "--help"])
    assert "whole non-negative counts, consistent" in " ".join(capsys.readouterr().out.split())

    from dpstudio.algorithms.interval_trees import run_interval_tree
    from dpstudio.core.budget import Ledger
    from dpstudio.core.noise import SimulationNoise
    from dpstudio.io.report import report_html

    ledger = Ledger(1)
    result = list(run_interval_tree(np.arange(16), IntervalTreeParams("hb", 1, 4), SimulationNoise(0), ledger))[
        -1
    ].result
    assert "whole numbers, never negative, consistent" in report_html(result, ledger)


@pytest.mark.parametrize("algo", ["flat", "hb", "sc", "luedp", "hopt", "pidentity", None])
def test_an_epsilon_whose_noise_variance_is_zero_is_refused_before_anything_is_written(
    tmp_path, counts_file, algo, capsys
):
    """At epsilon 1e12 the discrete Laplace variance of a count is 0 in double precision: least squares
    divided by it and stopped with a traceback for every tree (seen with hopt). One line, exit 2: now the shared
    range of epsilon (at most 700, ``core.budget.check_usable_epsilon``) refuses it first."""
    out = tmp_path / "o.csv"
    args = ["--counts", counts_file, "--epsilon", "1e12", "--out", out, "--budget-store", "none"]
    if algo is not None:
        args += ["--algorithm", algo]
    assert run_cli(*args) == 2
    err = capsys.readouterr().err
    assert "at most 700" in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not out.with_suffix(".json").exists()


@pytest.mark.parametrize("algo", ["flat", "luedp", "hopt", None])
def test_an_epsilon_in_the_hundreds_releases_with_a_non_negative_expected_error(tmp_path, counts_file, algo):
    """At epsilon 500 the expected error underflows: it rounded below 0 (math domain error in the sidecar,
    after the noise was drawn) and H_opt's level search never stopped."""
    out = tmp_path / "o.csv"
    args = ["--counts", counts_file, "--epsilon", "500", "--out", out, "--seed", "1"]
    if algo is not None:
        args += ["--algorithm", algo]
    assert run_cli(*args) == 0
    side = json.loads(out.with_suffix(".json").read_text())
    rmse = [v for k, v in side.items() if k == "expected_all_range_rmse"]
    assert rmse and rmse[0] >= 0
    assert np.allclose(read_counts(out), [5, 0, 12, 7, 3, 3, 9, 40, 1, 0, 2, 6, 8, 30, 2, 2])


def test_pattern_search_stops_when_nothing_beats_a_value_at_or_below_zero():
    from dpstudio.algorithms.interval_levels import _pattern_search

    calls = []

    def f(theta):
        calls.append(1)
        if len(calls) > 100_000:
            raise RuntimeError("the search does not stop")
        return -1e-300  # an underflowed error that rounded below 0: equal values are no improvement

    best, theta = _pattern_search(f, np.zeros(3), 1.0, 1e-2)
    assert best == -1e-300 and np.array_equal(theta, np.zeros(3)) and len(calls) < 100
