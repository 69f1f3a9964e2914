"""The budget store recognises the same people under trivial edits (issue 21, item 6): a renamed, added or
dropped column, or every row duplicated, is charged to the dataset it came from, and the owner is told; a
sample of other people, or a table whose most columns changed, is not; ``--new-dataset`` declares a
resembling table other people deliberately."""

import numpy as np
import pandas as pd
import pytest

from dpstudio.cli import main
from dpstudio.io.budget_store import open_store


def people(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "country": rng.choice(["China", "Korea", "Canada", "USA"], n),
            "age": rng.integers(15, 40, n),
            "weight": rng.integers(10_000, 900_000, n),
            "hired": rng.choice(["N", "Y"], n),
        }
    )


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "budget.sqlite"))
    tax = tmp_path / "country.csv"
    tax.write_text("China;Asian;Any\nKorea;Asian;Any\nCanada;American;Any\nUSA;American;Any\n")
    original = tmp_path / "people.csv"
    people().to_csv(original, index=False)
    return tmp_path, tax, original


def release(data, tax, out, *extra):
    return main(
        [
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
            "1/2",
            "--steps",
            "2",
            "--out",
            str(out),
            *extra,
        ]
    )


def spends():
    return {d.name: (float(d.spent), float(d.total)) for d in open_store().datasets()}


EDITS = {
    "renamed column": lambda f: f.rename(columns={"weight": "wt"}),
    "added column": lambda f: f.assign(row_id=np.arange(len(f))),
    "dropped unused column": lambda f: f.drop(columns=["weight"]),
    "every row duplicated": lambda f: pd.concat([f, f], ignore_index=True),
    "reordered columns and rows": lambda f: f[["hired", "weight", "age", "country"]].sample(frac=1, random_state=1),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_copy_is_charged_to_the_dataset_it_came_from(setup, capsys, edit):
    tmp, tax, original = setup
    assert release(original, tax, tmp / "a.csv", "--dataset-budget", "1") == 0
    copy = tmp / "copy.csv"
    EDITS[edit](pd.read_csv(original)).to_csv(copy, index=False)
    capsys.readouterr()
    assert release(copy, tax, tmp / "b.csv") == 0
    err = capsys.readouterr().err
    if edit != "reordered columns and rows":  # that one is the same records exactly: no note needed
        assert "charged to the known dataset 'people'" in err, err
    assert spends() == {"people": (1.0, 1.0)}
    # the lifetime total is spent now, whichever copy asks
    assert release(copy, tax, tmp / "c.csv") == 2
    assert "dataset 'people'" in capsys.readouterr().err and spends() == {"people": (1.0, 1.0)}


def test_other_people_or_most_columns_changed_are_not_recognised(setup, capsys):
    tmp, tax, original = setup
    assert release(original, tax, tmp / "a.csv") == 0
    others = tmp / "others.csv"
    people(seed=9).to_csv(others, index=False)  # another sample: every column's values differ
    assert release(others, tax, tmp / "b.csv") == 0
    half = tmp / "half.csv"
    f = pd.read_csv(original)
    f[["age", "weight"]] = people(seed=5)[["age", "weight"]]  # two of four columns replaced
    f.to_csv(half, index=False)
    assert release(half, tax, tmp / "c.csv") == 0
    subset = tmp / "subset.csv"
    pd.read_csv(original).iloc[:250].to_csv(subset, index=False)  # rows removed: every multiset changes
    assert release(subset, tax, tmp / "d.csv") == 0
    assert spends() == {"people": (0.5, 0.5), "others": (0.5, 0.5), "half": (0.5, 0.5), "subset": (0.5, 0.5)}


def test_new_dataset_declares_a_resembling_table_other_people(setup, capsys):
    tmp, tax, original = setup
    assert release(original, tax, tmp / "a.csv") == 0
    renamed = tmp / "renamed.csv"
    pd.read_csv(original).rename(columns={"weight": "wt"}).to_csv(renamed, index=False)
    assert release(renamed, tax, tmp / "b.csv") == 2  # recognised: the total of 'people' is spent
    assert "dataset 'people'" in capsys.readouterr().err
    assert release(renamed, tax, tmp / "c.csv", "--new-dataset") == 0
    assert spends() == {"people": (0.5, 0.5), "renamed": (0.5, 0.5)}
    # once charged, those exact records belong to their own dataset
    assert release(renamed, tax, tmp / "d.csv") == 2
    assert "dataset 'renamed'" in capsys.readouterr().err
