"""The budget store through the CLI: `dpstudio release` and `dpstudio histogram` charge it before any noise,
a re-saved copy of the same records is the same dataset, `dpstudio budget` lists and raises totals, `none`
turns tracking off loudly; a refusal writes nothing."""

import json
import os

import numpy as np
import pytest

from dpstudio.cli import main
from tests.budget_data import ROWS, write_data


@pytest.fixture
def files(tmp_path):
    data = write_data(tmp_path / "people.csv", ROWS)
    tax = tmp_path / "country.csv"
    tax.write_text("China;Asian;Any\nKorea;Asian;Any\nCanada;American;Any\nUSA;American;Any\n")
    return tmp_path, data, tax


def release(data, tax, out, *extra, epsilon="1"):
    return [
        "release",
        "--data",
        str(data),
        "--class",
        "hired",
        "--classes",
        "N,Y",
        "--taxonomy",
        f"country={tax}",
        "--bounds",
        "age=15:40",
        "--algorithm",
        "diffgen-consistent",
        "--epsilon",
        epsilon,
        "--steps",
        "2",
        "--out",
        str(out),
        *extra,
    ]


def no_noise(monkeypatch):
    """Fail the test if the release engine (which draws the noise) is reached."""
    import dpstudio.algorithms.diffgen as diffgen

    def refuse(*a, **k):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(diffgen, "run_to_result", refuse)


@pytest.mark.parametrize("copy", ["shuffled", "crlf", "no-trailing-newline", "same-file"])
def test_second_release_on_the_same_records_is_refused_before_noise(files, capsys, monkeypatch, copy):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r1.csv")) == 0
    if copy == "shuffled":
        again = write_data(tmp / "people.csv.bak.csv", [ROWS[i] for i in np.random.default_rng(3).permutation(40)])
    elif copy == "crlf":
        again = write_data(tmp / "other.csv", ROWS, newline="\r\n")
    elif copy == "no-trailing-newline":
        again = write_data(tmp / "other.csv", ROWS, trailing=False)
    else:
        again = data
    capsys.readouterr()
    no_noise(monkeypatch)
    listing = sorted(os.listdir(tmp))
    assert main(release(again, tax, tmp / "r2.csv")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "dataset 'people'" in err and "0 of 1 is left" in err and "dpstudio budget set-total people" in err
    assert sorted(os.listdir(tmp)) == listing  # nothing written


def test_set_total_raises_the_budget_and_the_sidecar_says_what_was_charged(files, capsys):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r1.csv", epsilon="0.5")) == 0
    first = json.loads((tmp / "r1.json").read_text())["dataset_budget"]
    assert first == {
        "tracked": True,
        "dataset": "people",
        "charged": "1/2",
        "dataset_total": "1/2",
        "dataset_spent": "1/2",
        "dataset_remaining": "0",
    }
    assert main(["budget", "set-total", "people", "2"]) == 0
    assert "lifetime budget now 2" in capsys.readouterr().out
    assert main(release(data, tax, tmp / "r2.csv")) == 0
    second = json.loads((tmp / "r2.json").read_text())["dataset_budget"]
    assert second["dataset_spent"] == "3/2" and second["dataset_remaining"] == "1/2"
    capsys.readouterr()
    assert main(["budget", "list"]) == 0
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if x.startswith("people")][0].split()
    assert line[1:] == ["~40", "3", "2", "1.5", "0.5", "2"]
    assert main(["budget", "show", "people"]) == 0
    shown = capsys.readouterr().out
    assert "r1.csv" in shown and "r2.csv" in shown and "about 40" in shown


def test_release_and_histogram_charge_one_dataset(files, capsys):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r.csv", "--dataset-budget", "1.5")) == 0
    hist = [
        "histogram",
        "--data",
        str(data),
        "--column",
        "age",
        "--edges",
        "15:40:5",
        "--algorithm",
        "flat",
        "--out",
        str(tmp / "h.csv"),
    ]
    assert main(hist + ["--epsilon", "1"]) == 2
    assert "0.5 of 1.5 is left" in capsys.readouterr().err
    assert main(hist + ["--epsilon", "0.5"]) == 0
    side = json.loads((tmp / "h.json").read_text())["dataset_budget"]
    assert side["dataset"] == "people" and side["dataset_remaining"] == "0"


def test_a_counts_file_is_a_dataset_too(tmp_path, capsys):
    counts = tmp_path / "c.txt"
    counts.write_text("5\n7\n0\n3\n")
    args = ["histogram", "--counts", str(counts), "--algorithm", "flat", "--epsilon", "1"]
    assert main(args + ["--out", str(tmp_path / "a.csv")]) == 0
    counts.write_text("5\r\n7\r\n0\r\n3")  # the same counts
    assert main(args + ["--out", str(tmp_path / "b.csv")]) == 2
    assert "dataset 'c'" in capsys.readouterr().err and not (tmp_path / "b.csv").exists()


def test_the_sidecar_holds_no_fingerprint_or_size(files):
    from dpstudio.io.budget_store import open_store

    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r.csv")) == 0
    import sqlite3

    con = sqlite3.connect(open_store().path)
    (fingerprint,) = con.execute("SELECT fingerprint FROM datasets").fetchone()
    con.close()
    text = (tmp / "r.json").read_text() + (tmp / "r.csv").read_text()
    assert fingerprint not in text and fingerprint[:12] not in text


@pytest.mark.parametrize("how", ["option", "env"])
def test_none_warns_on_every_run_and_the_sidecar_says_untracked(files, capsys, monkeypatch, how):
    tmp, data, tax = files
    extra = ["--budget-store", "none"] if how == "option" else []
    if how == "env":
        monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", "none")
    for name in ("a.csv", "b.csv"):
        assert main(release(data, tax, tmp / name, *extra)) == 0
        assert "WARNING: budget tracking is off" in capsys.readouterr().err
        side = json.loads((tmp / name).with_suffix(".json").read_text())["dataset_budget"]
        assert side["tracked"] is False and "not recorded" in side["note"]


def test_an_untracked_run_does_not_hash_the_data(files, monkeypatch):
    import dpstudio.io.dataset_fingerprint as fingerprint

    def refuse(*a, **k):
        raise AssertionError("the data was fingerprinted although nothing is tracked")

    monkeypatch.setattr(fingerprint, "table_print", refuse)
    monkeypatch.setattr(fingerprint, "counts_print", refuse)
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "u.csv", "--budget-store", "none")) == 0
    assert (
        main(
            [
                "histogram",
                "--data",
                str(data),
                "--column",
                "age",
                "--edges",
                "15:40:5",
                "--algorithm",
                "hb",
                "--epsilon",
                "1",
                "--out",
                str(tmp / "h.csv"),
                "--budget-store",
                "none",
            ]
        )
        == 0
    )


def test_seeded_simulation_does_not_charge(files, capsys):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "s.csv", "--seed", "3")) == 0
    assert json.loads((tmp / "s.json").read_text())["dataset_budget"]["charged"] is None
    assert main(["budget"]) == 0
    assert "no datasets yet" in capsys.readouterr().out


def test_near_duplicate_warning_and_name_options(files, capsys):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r.csv", "--dataset-name", "hiring 2026")) == 0
    edited = write_data(tmp / "people2.csv", [("USA", 30, "N")] + ROWS[1:])
    capsys.readouterr()
    assert main(release(edited, tax, tmp / "r2.csv", "--dataset-name", "hiring 2026")) == 2
    err = capsys.readouterr().err
    assert "looks like the dataset 'hiring 2026'" in err and "1 of 1 epsilon was spent" in err
    assert "belongs to another dataset" in err.strip().splitlines()[-1]
    assert main(release(edited, tax, tmp / "r2.csv")) == 0
    assert "WARNING: this data looks like the dataset 'hiring 2026'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["budget", "show", "nobody"], "no dataset named 'nobody'"),
        (["budget", "set-total", "nobody", "1"], "no dataset named 'nobody'"),
        (["budget", "set-total", "people", "-1"], "epsilon must be positive"),
        (["budget", "--budget-store", "none"], "budget tracking is off"),
    ],
)
def test_budget_command_bad_input(files, capsys, argv, message):
    tmp, data, tax = files
    assert main(release(data, tax, tmp / "r.csv")) == 0
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_bad_store_options_write_nothing(files, capsys):
    tmp, data, tax = files
    for extra, message in (
        (["--dataset-budget", "0"], "--dataset-budget: epsilon must be positive"),
        (["--dataset-name", " "], "--dataset-name: a dataset name cannot be empty"),
    ):
        assert main(release(data, tax, tmp / "r.csv", *extra)) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err
    bad = tmp / "store.sqlite"
    bad.write_text("this is not sqlite " * 50)
    assert main(release(data, tax, tmp / "r.csv", "--budget-store", str(bad))) == 2
    assert "is not usable" in capsys.readouterr().err
    assert not (tmp / "r.csv").exists() and not (tmp / "r.json").exists()
