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


def histogram(data, out, *extra):
    argv = ["histogram", "--data", str(data), "--column", "age", "--edges", "15:40:1", "--algorithm", "hb"]
    return main([*argv, "--epsilon", "1/2", "--out", str(out), *extra])


@pytest.mark.parametrize(
    "columns", [["age"], ["age", "country", "hired"]], ids=["the ages alone", "the released columns"]
)
def test_a_file_of_some_of_its_columns_is_the_same_people(setup, capsys, columns):
    """Issue 34 item 5: a file holding only the released columns was a fresh dataset: a histogram of the same
    people's ages got a second full budget."""
    tmp, tax, original = setup
    assert release(original, tax, tmp / "a.csv", "--dataset-budget", "1") == 0
    part = tmp / "part.csv"
    pd.read_csv(original)[columns].to_csv(part, index=False)
    capsys.readouterr()
    assert histogram(part, tmp / "h.csv") == 0
    err = capsys.readouterr().err
    assert "charged to the known dataset 'people'" in err and "a table of some of its columns" in err, err
    assert spends() == {"people": (1.0, 1.0)}
    assert histogram(part, tmp / "h2.csv") == 2  # the lifetime total is spent, whichever file asks
    assert "dataset 'people'" in capsys.readouterr().err and spends() == {"people": (1.0, 1.0)}


def test_a_table_that_adds_columns_is_the_same_people(setup, capsys):
    tmp, tax, original = setup
    assert release(original, tax, tmp / "a.csv") == 0
    wide = tmp / "wide.csv"
    f = pd.read_csv(original)
    rng = np.random.default_rng(3)
    extra = {f"derived_{i}": rng.integers(0, 100, len(f)) for i in range(16)}  # 16 columns added: 4 of 20 shared
    f.assign(**extra).to_csv(wide, index=False)
    capsys.readouterr()
    assert release(wide, tax, tmp / "b.csv") == 2  # recognised: 'people' has spent its total
    err = capsys.readouterr().err
    assert "dataset 'people'" in err and spends() == {"people": (0.5, 0.5)}


def test_related_records_are_looked_up_inside_the_charge_transaction(tmp_path):
    """Two first releases of related tables at the same moment: the second's lookup of related records ran
    before its transaction, so both created a dataset (5 of 15 trials). Here the other charge is made to land
    between the two steps, deterministically."""
    from dpstudio.io.dataset_fingerprint import table_print

    store_path = tmp_path / "s.sqlite"
    a, b = open_store(str(store_path)), open_store(str(store_path))
    frame = people()
    first, second = table_print(frame), table_print(frame.rename(columns={"weight": "wt"}))
    real = a._transaction
    landed = []

    def transaction_after_the_other_charge():
        if not landed:  # the other process's first charge lands just before this one's transaction
            landed.append(b.charge(second, "1/2", "other", "release", name="renamed", total="1"))
        return real()

    a._transaction = transaction_after_the_other_charge
    charge = a.charge(first, "1/2", "this", "release", name="people")
    assert charge.dataset == "renamed" and "hold the same values" in charge.related
    assert [d.name for d in a.datasets()] == ["renamed"] and float(a.datasets()[0].spent) == 1
