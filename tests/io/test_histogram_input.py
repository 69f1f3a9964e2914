"""Histogram input: counts files, public edges, binning a column, ordinal categories."""

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import HistogramInputError
from dpstudio.io.histogram_input import (
    DERIVED_NOT_PRIVATE,
    derive_edges,
    histogram_from_categories,
    histogram_from_values,
    parse_edges,
    read_column,
    read_counts_file,
)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_counts_text_header_and_csv_column(tmp_path):
    assert read_counts_file(write(tmp_path, "a.txt", "3\n0\n\n7\n")).tolist() == [3, 0, 7]
    assert read_counts_file(write(tmp_path, "b.csv", "count\n3\n4\n")).tolist() == [3, 4]
    assert read_counts_file(write(tmp_path, "c.csv", "bin,count\n1,3\n2,4.0\n")).tolist() == [3, 4]
    with pytest.raises(HistogramInputError, match="none named 'count'"):
        read_counts_file(write(tmp_path, "d.csv", "a,b\n1,2\n3,4\n"))
    with pytest.raises(HistogramInputError, match="line 1: one count per line"):
        read_counts_file(write(tmp_path, "e.csv", "1,2\n3,4\n"))
    with pytest.raises(HistogramInputError, match="does not exist"):
        read_counts_file(tmp_path / "missing.txt")


def test_counts_npy(tmp_path):
    np.save(tmp_path / "a.npy", np.array([1, 2, 3]))
    assert read_counts_file(tmp_path / "a.npy").tolist() == [1, 2, 3]
    np.save(tmp_path / "b.npy", np.array([[1, 2], [3, 4]]))
    with pytest.raises(HistogramInputError, match="1-D"):
        read_counts_file(tmp_path / "b.npy")
    np.save(tmp_path / "c.npy", np.array([1, -2]))
    with pytest.raises(HistogramInputError, match="negative"):
        read_counts_file(tmp_path / "c.npy")


def test_parse_edges(tmp_path):
    assert parse_edges("17:91:1").tolist() == list(range(17, 92))
    assert parse_edges("0:10:3").tolist() == [0, 3, 6, 9]
    assert parse_edges("1, 2.5, 10").tolist() == [1, 2.5, 10]
    assert parse_edges("@" + str(write(tmp_path, "e.txt", "0\n5\n9\n"))).tolist() == [0, 5, 9]
    with pytest.raises(HistogramInputError, match="strictly increasing"):
        parse_edges("1,3,2")
    with pytest.raises(HistogramInputError, match="step must be positive"):
        parse_edges("1:5:0")
    with pytest.raises(HistogramInputError, match="not a number"):
        parse_edges("1,x,3")


def test_binning_left_closed_last_bin_closed():
    counts = histogram_from_values([0, 0.5, 1, 1.99, 2, 3], [0, 1, 2, 3])
    assert counts.tolist() == [2, 2, 2]
    with pytest.raises(HistogramInputError, match=r"2 rows lie outside the bins \[0, 3\] \(values -1, 4\)"):
        histogram_from_values([-1, 0, 4], [0, 1, 2, 3], "x")


def test_read_adult_age_column(shared_data):
    values, missing = read_column(shared_data / "adult" / "adult.data", "age")
    assert values.size == 32561 and missing == 0
    counts = histogram_from_values(values, parse_edges("17:91:1"), "age")
    assert counts.sum() == 32561 and counts.size == 74


def test_missing_values_are_an_error_unless_dropped(tmp_path, shared_data):
    p = write(tmp_path, "m.csv", "a,b\n1,x\n?,y\n3,z\n")
    with pytest.raises(HistogramInputError, match="1 rows have a missing value"):
        read_column(p, "a")
    values, missing = read_column(p, "a", missing="drop")
    assert values.tolist() == [1, 3] and missing == 1
    with pytest.raises(HistogramInputError, match="not numbers"):
        read_column(p, "b")
    with pytest.raises(HistogramInputError, match="no column 'c'"):
        read_column(p, "c")


def test_ordinal_categories():
    assert histogram_from_categories(["lo", "hi", "mid", "lo"], ["lo", "mid", "hi"]).tolist() == [2, 1, 1]
    with pytest.raises(HistogramInputError, match="outside the categories"):
        histogram_from_categories(["lo", "huge"], ["lo", "hi"])
    # a repeated category would be a second bin that can never hold a record
    with pytest.raises(HistogramInputError, match="'lo' more than once"):
        histogram_from_categories(["lo", "hi"], ["lo", "hi", "lo"])


def test_derived_edges_are_marked():
    edges, mark = derive_edges([3, 9, 5], 3)
    assert mark == DERIVED_NOT_PRIVATE
    assert edges[0] == 3 and edges[-1] == 9 and edges.size == 4
