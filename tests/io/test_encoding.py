"""Table + public domains -> engine input: coding, and the input errors the data owner sees."""

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen_input import CategoricalAttribute, NumericAttribute
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.io.encoding import EncodingError, encode_table, parse_bounds


def country():
    return Taxonomy(Node("Any", [Node("Asian", [Node("China"), Node("Korea")]),
                                 Node("American", [Node("Canada"), Node("USA")])]), "Country")


def frame():
    return pd.DataFrame({"Country": ["China", "Korea", "USA", " USA "], "Age": [18, 21, 35, 40],
                         "Other": [1, 2, 3, 4], "Class": ["N", "Y", "N", "Y"]})


def test_codes_leaves_numbers_and_classes():
    data = encode_table(frame(), "Class", {"Country": country()}, {"Age": (15, 40)})
    assert [a.name for a in data.attributes] == ["Country", "Age"]  # Other left out
    cat, num = data.attributes
    assert isinstance(cat, CategoricalAttribute) and isinstance(num, NumericAttribute)
    tax = country()
    assert cat.leaf_ids.tolist() == [tax.index(v) for v in ("China", "Korea", "USA", "USA")]
    assert num.values.tolist() == [18, 21, 35, 40] and num.integer  # upper bound inclusive
    assert data.classes == ("N", "Y") and data.y.tolist() == [0, 1, 0, 1]


def test_uncovered_value_names_attribute_values_and_rows():
    f = frame()
    f.loc[2, "Country"] = "Mars"
    f.loc[3, "Country"] = "Mars"
    with pytest.raises(EncodingError, match=r"'Country'.*'Mars' \(2 rows\)"):
        encode_table(f, "Class", {"Country": country()})


def test_numeric_outside_bounds_and_non_numbers():
    with pytest.raises(EncodingError, match=r"'Age': 2 rows .*outside the public bounds \[20, 39\] \(from 18 to 40\)"):
        encode_table(frame(), "Class", bounds={"Age": (20, 39)})
    f = frame()
    f["Age"] = f["Age"].astype(object)
    f.loc[0, "Age"] = "old"
    with pytest.raises(EncodingError, match="non-numeric"):
        encode_table(f, "Class", bounds={"Age": (0, 100)})


def test_class_problems_and_empty_table():
    with pytest.raises(EncodingError, match="not a column"):
        encode_table(frame(), "Nope", bounds={"Age": (0, 100)})
    f = frame()
    f["Class"] = "N"
    with pytest.raises(EncodingError, match="only one value"):
        encode_table(f, "Class", bounds={"Age": (0, 100)})
    with pytest.raises(EncodingError, match="empty"):
        encode_table(frame().iloc[:0], "Class", bounds={"Age": (0, 100)})


def test_numeric_taxonomy_gives_bounds_and_public_grid():
    root = Node("[0,40)", [Node("[0,20)", [Node("[0,10)", lo=0, hi=10), Node("[10,20)", lo=10, hi=20)], lo=0, hi=20),
                           Node("[20,40)", lo=20, hi=40)], lo=0, hi=40)
    tax = Taxonomy(root, "Age")
    data = encode_table(frame().iloc[:3], "Class", {"Age": tax})
    (num,) = data.attributes
    assert (num.lo, num.hi) == (0, 40) and num.grid.tolist() == [10, 20]


def test_parse_bounds():
    assert parse_bounds("17:90") == (17, 90)
    for bad in ("17", "a:b", "5:5", "9:1", "0:inf"):
        with pytest.raises(EncodingError):
            parse_bounds(bad)
