"""`dpstudio evaluate`: accuracy runs, resuming, range error, and one-line errors for bad input."""

import json
import shutil

import pytest

from dpstudio.cli import main


@pytest.fixture(scope="module")
def small_taxonomies(tmp_path_factory, shared_data):
    """Four Adult attributes only (ARX hierarchies for two, public bounds for two) to keep runs fast."""
    d = tmp_path_factory.mktemp("tax")
    for name in ("sex", "marital-status"):
        shutil.copy(shared_data / "arx" / f"adult_hierarchy_{name}.csv", d / f"{name}.csv")
    (d / "bounds.json").write_text(json.dumps({"age": [17, 91], "education-num": [1, 17]}))
    return d


def _args(shared_data, tax, *extra):
    return ["evaluate", "--data-dir", str(shared_data / "adult"), "--taxonomies", str(tax), "--quiet", *extra]


def test_accuracy_run_writes_json_and_resumes(shared_data, small_taxonomies, tmp_path, capsys):
    results = tmp_path / "runs.jsonl"
    out = tmp_path / "summary.json"
    code = main(
        _args(
            shared_data,
            small_taxonomies,
            "--algorithm",
            "maxgddp,diffgen",
            "--epsilon",
            "1",
            "--steps",
            "4",
            "--runs",
            "2",
            "--results",
            str(results),
            "--out",
            str(out),
        )
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "simulation noise" in text and "not a release" in text
    assert "raw-data entropy tree" in text and "75.43 %" in text
    payload = json.loads(out.read_text())
    assert len(payload["runs"]) == 4 and {r["algorithm"] for r in payload["runs"]} == {"maxgddp", "diffgen"}
    for row in payload["summary"]:
        assert row["runs"] == 2 and 0.75 < row["mean"] < 0.86
        assert row["min"] <= row["mean"] <= row["max"]
    # a second call finds every run in the results file: nothing new is appended, same summary
    lines = results.read_text().splitlines()
    code = main(
        _args(
            shared_data,
            small_taxonomies,
            "--algorithm",
            "maxgddp,diffgen",
            "--steps",
            "4",
            "--runs",
            "2",
            "--results",
            str(results),
            "--no-baselines",
        )
    )
    again = capsys.readouterr().out
    assert code == 0 and results.read_text().splitlines() == lines
    for row in payload["summary"]:
        assert f"{100 * row['mean']:.2f}" in again


def test_range_error_csv(shared_data, small_taxonomies, tmp_path, capsys):
    out = tmp_path / "err.csv"
    code = main(
        _args(
            shared_data,
            small_taxonomies,
            "--range-error",
            "--algorithm",
            "diffgen",
            "--steps",
            "4",
            "--queries",
            "60",
            "--mc-runs",
            "3",
            "--workload",
            "nodes",
            "--out",
            str(out),
        )
    )
    text = capsys.readouterr().out
    assert code == 0 and "not a release" in text
    header = out.read_text().splitlines()[0].split(",")
    assert header[:3] == ["size_lo", "size_hi", "queries"] and "leaf-only" in header


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--epsilon", "0"], "epsilon must be positive"),
        (["--epsilon", "abc"], "epsilon"),
        (["--algorithm", "nope"], "unknown algorithm 'nope'"),
        (["--steps", "-3"], "steps must be a whole number"),
        (["--runs", "0"], "--runs must be at least 1"),
        (["--epsilon", "0.5,1"], "need --sweep"),
        (["--out", "x.txt"], "must end in .csv or .json"),
        (["--type", "age=decimal"], "--type age: a numeric type is integer, continuous or continuous:RESOLUTION"),
        (["--type", "sex=integer"], "a type is declared for 'sex', which is not a numeric attribute"),
        (["--type", "age=integer", "--type", "age=continuous"], "--type names 'age' twice"),
    ],
)
def test_bad_input_is_one_line(shared_data, small_taxonomies, capsys, extra, message):
    code = main(_args(shared_data, small_taxonomies, *extra))
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_missing_folders_and_existing_output(shared_data, small_taxonomies, tmp_path, capsys):
    assert main(["evaluate", "--data-dir", str(tmp_path / "none")]) == 2
    assert "data folder not found" in capsys.readouterr().err
    assert main(_args(shared_data, tmp_path / "no-tax")) == 2
    assert "taxonomy folder not found" in capsys.readouterr().err
    existing = tmp_path / "exists.csv"
    existing.write_text("keep")
    assert main(_args(shared_data, small_taxonomies, "--out", str(existing))) == 2
    assert "already exists" in capsys.readouterr().err and existing.read_text() == "keep"


def test_query_a_written_release(tmp_path, capsys):
    import pandas as pd

    from dpstudio.algorithms.diffgen import preset, run_to_result
    from dpstudio.core.budget import Ledger
    from dpstudio.core.noise import SimulationNoise
    from dpstudio.io.release import write_release
    from tests.evaluation.test_diffgen_trees import small_input

    result = run_to_result(small_input(seed=4), preset("maxgddp", 1.0, 3), SimulationNoise(1), Ledger(1.0))
    csv_path, _ = write_release(result, tmp_path / "rel.csv", simulation=True)
    frame = pd.read_csv(csv_path)
    total = frame["count"].sum()
    yes = frame.loc[frame["y"] == "yes", "count"].sum()
    assert main(["evaluate", "--release", str(csv_path), "--query", "", "--query", "age=[0,100)"]) == 0
    out = capsys.readouterr().out
    assert "not a release" in out
    answers = [float(line.split("\t")[1]) for line in out.splitlines() if not line.startswith("#")]
    assert answers == [pytest.approx(total), pytest.approx(total)]
    assert main(["evaluate", "--release", str(csv_path), "--query", "age=[0,50)", "--class", "yes"]) == 0
    half = [float(line.split("\t")[1]) for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    assert 0 <= half[0] <= yes + 1e-9
    assert main(["evaluate", "--release", str(csv_path), "--query", "age=oops"]) == 2
    assert "interval like" in capsys.readouterr().err
    assert main(["evaluate", "--release", str(tmp_path / "none.csv"), "--query", ""]) == 2
    assert "release not found" in capsys.readouterr().err


def test_secure_noise_runs_and_says_so(shared_data, small_taxonomies, capsys):
    code = main(_args(shared_data, small_taxonomies, "--secure", "--runs", "1", "--steps", "2", "--no-baselines"))
    out = capsys.readouterr().out
    assert code == 0 and "secure noise (OpenDP)" in out and "simulation" not in out


def test_declared_numeric_types_reach_the_engine(shared_data, small_taxonomies, monkeypatch, capsys):
    # --type is read as for a release: the sweep's engine input carries the declared lattices
    from dpstudio.evaluation import sweeps

    seen = []
    real = sweeps.adult_setup
    monkeypatch.setattr(sweeps, "adult_setup", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    code = main(
        _args(
            shared_data,
            small_taxonomies,
            "--type",
            "age=continuous:0.5",
            "--secure",
            "--runs",
            "1",
            "--steps",
            "2",
            "--no-baselines",
            "--algorithm",
            "diffgen",
        )
    )
    assert code == 0, capsys.readouterr().err
    lattices = {a.name: a.lattice for a in seen[0].data.attributes if a.kind == "numeric"}
    assert (lattices["age"].kind, lattices["age"].resolution, lattices["age"].declared) == ("continuous", 0.5, True)
    assert (lattices["education-num"].kind, lattices["education-num"].declared) == ("integer", False)


def test_numeric_grids_become_maxgddp_split_grids(shared_data, tmp_path, capsys):
    from dpstudio.resources import resource

    grids = resource("taxonomies", "adult", "log-grids")
    out = tmp_path / "grid.json"
    code = main(
        [
            "evaluate",
            "--data-dir",
            str(shared_data / "adult"),
            "--numeric-grids",
            str(grids),
            "--quiet",
            "--no-baselines",
            "--algorithm",
            "maxgddp",
            "--steps",
            "4",
            "--runs",
            "1",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert 0.70 < json.loads(out.read_text())["summary"][0]["mean"] < 0.90


def test_numeric_grids_refuse_a_categorical_taxonomy(shared_data, tmp_path, capsys):
    shutil.copy(shared_data / "arx" / "adult_hierarchy_sex.csv", tmp_path / "sex.csv")
    code = main(
        [
            "evaluate",
            "--data-dir",
            str(shared_data / "adult"),
            "--numeric-grids",
            str(tmp_path),
            "--quiet",
            "--no-baselines",
            "--steps",
            "4",
            "--runs",
            "1",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "sex" in err


def test_uci_test_labels_lose_their_dot_and_it_is_said(shared_data, small_taxonomies, capsys):
    assert (shared_data / "adult" / "adult.test").read_text().splitlines()[1].endswith("<=50K.")
    code = main(_args(shared_data, small_taxonomies, "--epsilon", "1", "--steps", "2", "--runs", "1"))
    captured = capsys.readouterr()
    assert code == 0
    assert (
        "adult.test: class labels '<=50K.', '>50K.' read as '<=50K', '>50K' (one trailing '.' removed)" in captured.err
    )
    majority = float(captured.out.split("# majority class ")[1].split(" %")[0])
    assert 70 < majority < 80  # 75.43 % in the papers; 0.00 if the labels were compared with their dots


def test_test_labels_matching_no_class_are_an_input_error(shared_data, small_taxonomies, tmp_path, capsys):
    lines = (shared_data / "adult" / "adult.data").read_text().splitlines()[:201]
    (tmp_path / "adult.data").write_text("\n".join(lines) + "\n")
    test = (shared_data / "adult" / "adult.test").read_text().splitlines()[:201]
    relabelled = [test[0]] + [ln.replace("<=50K.", "low").replace(">50K.", "high") for ln in test[1:]]
    (tmp_path / "adult.test").write_text("\n".join(relabelled) + "\n")
    out = tmp_path / "summary.json"
    code = main(
        [
            "evaluate",
            "--data-dir",
            str(tmp_path),
            "--taxonomies",
            str(small_taxonomies),
            "--quiet",
            "--runs",
            "1",
            "--steps",
            "2",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "no class label of adult.test matches a declared class" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
