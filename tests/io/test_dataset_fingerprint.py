"""The dataset fingerprint: the same records give the same print whatever the file's bytes; any change of a
record gives another; the size kept with it is rounded."""

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.dataset_fingerprint import approximate_size, counts_print, table_print
from dpstudio.io.datasets import load_table

ROWS = [
    ("China", 18, "N", 2.5),
    ("Korea", 21, "Y", 0.0),
    ("Canada", 27, "N", 1.25),
    ("USA", 35, "N", 3.0),
    ("USA", 29, "Y", 2.5),
    ("China", 39, "Y", 7.0),
    ("Korea", 22, "", 1.0),
] * 3 + [("USA", 50, "Y", 9.5)]


def write(path, rows, columns=("country", "age", "hired", "score"), newline="\n", trailing=True):
    lines = [",".join(columns)] + [",".join(str(v) for v in r) for r in rows]
    path.write_bytes((newline.join(lines) + (newline if trailing else "")).encode())
    return path


def print_of(path):
    return table_print(load_table(path).frame)


def test_same_records_same_print_whatever_the_bytes(tmp_path):
    base = print_of(write(tmp_path / "a.csv", ROWS))
    shuffled = [ROWS[i] for i in np.random.default_rng(1).permutation(len(ROWS))]
    assert print_of(write(tmp_path / "b.csv", shuffled)) == base
    assert print_of(write(tmp_path / "c.csv", ROWS, newline="\r\n")) == base
    assert print_of(write(tmp_path / "d.csv", ROWS, trailing=False)) == base
    assert (tmp_path / "d.csv").read_bytes() != (tmp_path / "a.csv").read_bytes()
    reordered = [(r[3], r[2], r[1], r[0]) for r in ROWS]
    assert print_of(write(tmp_path / "e.csv", reordered, ("score", "hired", "age", "country"))) == base


def test_whole_numbers_as_int_or_float_and_signed_zero_match():
    a = pd.DataFrame({"x": [1, 2, 0], "y": ["a", "b", "c"]})
    b = pd.DataFrame({"y": ["c", "a", "b"], "x": [-0.0, 1.0, 2.0]})
    assert table_print(a) == table_print(b)


@pytest.mark.parametrize("change", ["edit", "add", "remove", "duplicate", "missing", "rename"])
def test_any_record_change_gives_another_print(change):
    frame = pd.DataFrame(ROWS, columns=["country", "age", "hired", "score"])
    other = frame.copy()
    if change == "edit":
        other.loc[5, "age"] = 40
    elif change == "add":
        other = pd.concat([other, other.iloc[[0]].assign(age=99)], ignore_index=True)
    elif change == "remove":
        other = other.drop(index=3)
    elif change == "duplicate":  # the same record twice is two people
        other = pd.concat([other, other.iloc[[3]]], ignore_index=True)
    elif change == "missing":
        other.loc[2, "hired"] = np.nan
    else:
        other = other.rename(columns={"score": "points"})
    assert table_print(other).fingerprint != table_print(frame).fingerprint


def test_removing_one_of_two_identical_records_is_seen():
    frame = pd.DataFrame({"a": [1, 1, 2]})
    assert table_print(frame) != table_print(frame.iloc[[0, 2]])


@pytest.mark.parametrize(
    "n, approx", [(1, 10), (7, 10), (45, 50), (99, 100), (1234, 1200), (30162, 30000), (987_654, 990_000)]
)
def test_approximate_size(n, approx):
    assert approximate_size(n) == approx


def test_print_keeps_sorted_columns_and_a_rounded_size_only():
    frame = pd.DataFrame({"b": np.arange(1234) % 7, "a": np.arange(1234) % 3})
    fp = table_print(frame)
    assert fp.columns == ("a", "b") and fp.approx_rows == 1200
    assert "1234" not in repr(fp)


def test_counts_print_depends_on_bin_order_and_values():
    c = np.array([5, 0, 3, 9])
    assert counts_print(c) == counts_print(c.copy())
    assert counts_print(c[::-1]) != counts_print(c)
    assert counts_print(c + np.array([0, 1, 0, 0])) != counts_print(c)
    assert counts_print(c).approx_rows == 20  # the records counted (17), rounded
