"""`dpstudio evaluate --engine duckdb`: adult.data read as distinct rows with counts gives the same runs,
accuracies and baselines as the in-memory reading (same seeds), on an Adult-format folder made here from
the bundled sample (as ../shared/data/adult holds them: a header row, ', ' separators, '?' for missing
values, test labels with a dot)."""

import json

import pytest

from dpstudio.cli import main
from dpstudio.io.adult import COLUMNS, load_bundled_adult

pytest.importorskip("duckdb")


@pytest.fixture(scope="module", params=["header", "uci"])
def adult_dir(tmp_path_factory, request):
    """``uci``: adult.data without its header row, as UCI distributes it."""
    train, test = load_bundled_adult()
    d = tmp_path_factory.mktemp("adult")
    train = train.iloc[:3000].copy()
    train = train.astype(object)
    train.iloc[::97, 1] = "?"  # rows with a missing workclass: dropped by the protocol under every engine
    rows = [", ".join(str(v) for v in r) for r in train[list(COLUMNS)].itertuples(index=False)]
    header = ", ".join(COLUMNS) + "\n"
    (d / "adult.data").write_text((header if request.param == "header" else "") + "\n".join(rows) + "\n")
    test = test.iloc[:1500]
    rows = [", ".join(str(v) for v in r) + "." for r in test[list(COLUMNS)].itertuples(index=False)]
    (d / "adult.test").write_text(header + "\n".join(rows) + "\n")
    return d


def _run(adult_dir, tmp_path, engine, capsys):
    out = tmp_path / f"{engine}.json"
    code = main(
        [
            "evaluate",
            "--data-dir",
            str(adult_dir),
            "--algorithm",
            "maxgddp,diffgen",
            "--epsilon",
            "1",
            "--steps",
            "4",
            "--runs",
            "2",
            "--engine",
            engine,
            "--quiet",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    payload = json.loads(out.read_text())
    for r in payload["runs"]:
        r.pop("seconds", None)
    return text, payload


def test_duckdb_reads_adult_data_to_the_same_runs_as_numpy(adult_dir, tmp_path, capsys):
    text_np, numpy = _run(adult_dir, tmp_path, "numpy", capsys)
    text_db, duck = _run(adult_dir, tmp_path, "duckdb", capsys)
    assert numpy["runs"] == duck["runs"] and numpy["summary"] == duck["summary"]
    assert numpy["baselines"] == duck["baselines"]
    kept = 3000 - len(range(0, 3000, 97))  # both engines keep the same rows; the output rounds their number
    assert numpy["not_a_release"] == duck["not_a_release"] == "evaluation: not a release"
    line = "# Adult: about 3,000 training rows, about 1,500 test rows"
    assert line in text_np and line in text_db and str(kept) not in text_np + text_db


def test_an_unknown_layout_is_refused_with_one_line(tmp_path, capsys):
    d = tmp_path / "bad"
    d.mkdir()
    (d / "adult.data").write_text("a,b\n1,2\n")
    (d / "adult.test").write_text("a,b\n1,2\n")
    code = main(["evaluate", "--data-dir", str(d), "--engine", "duckdb", "--quiet", "--runs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "expected the Adult columns" in err and len(err.strip().splitlines()) == 1


def test_secure_evaluation_csv_is_marked_not_a_release_and_prints_no_exact_count(adult_dir, tmp_path, capsys):
    """``evaluate --secure`` uses OpenDP noise but is an evaluation: every CSV row says it is not a
    release, and the row counts it prints are rounded."""
    import csv

    out = tmp_path / "e.csv"
    assert (
        main(
            [
                "evaluate",
                "--data-dir",
                str(adult_dir),
                "--algorithm",
                "maxgddp",
                "--epsilon",
                "1",
                "--steps",
                "2",
                "--runs",
                "1",
                "--secure",
                "--no-baselines",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert rows and all(r["not_a_release"] == "evaluation: not a release" for r in rows)
    assert "about 3,000 training rows" in text and str(3000 - len(range(0, 3000, 97))) not in text
