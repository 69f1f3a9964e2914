"""Table + public domains -> engine input: coding, and the input errors the data owner sees."""

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen_input import CategoricalAttribute, NumericAttribute
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.io.encoding import EncodingError, encode_table, parse_bounds


def country():
    return Taxonomy(
        Node("Any", [Node("Asian", [Node("China"), Node("Korea")]), Node("American", [Node("Canada"), Node("USA")])]),
        "Country",
    )


def frame():
    return pd.DataFrame(
        {
            "Country": ["China", "Korea", "USA", " USA "],
            "Age": [18, 21, 35, 40],
            "Other": [1, 2, 3, 4],
            "Class": ["N", "Y", "N", "Y"],
        }
    )


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
    root = Node(
        "[0,40)",
        [
            Node("[0,20)", [Node("[0,10)", lo=0, hi=10), Node("[10,20)", lo=10, hi=20)], lo=0, hi=20),
            Node("[20,40)", lo=20, hi=40),
        ],
        lo=0,
        hi=40,
    )
    tax = Taxonomy(root, "Age")
    data = encode_table(frame().iloc[:3], "Class", {"Age": tax})
    (num,) = data.attributes
    assert (num.lo, num.hi) == (0, 40) and num.grid.tolist() == [10, 20]


def test_parse_bounds():
    assert parse_bounds("17:90") == (17, 90)
    for bad in ("17", "a:b", "5:5", "9:1", "0:inf"):
        with pytest.raises(EncodingError):
            parse_bounds(bad)


def _tax():
    return Taxonomy(Node("Any", [Node("P", [Node("a"), Node("b")]), Node("Q", [Node("c"), Node("7")])]), "g")


@pytest.mark.parametrize("dtype", ["object", "category", "string"])
def test_blockwise_factorize_equals_rowwise_mapping(monkeypatch, dtype):
    import dpstudio.io.encoding as enc

    monkeypatch.setattr(enc, "BLOCK", 7)  # many blocks, values first seen in later blocks
    rng = np.random.default_rng(0)
    vals = np.array(["a", "b", "c", "7", " a "], dtype=object)[rng.integers(0, 5, 100)]
    col = pd.Series(vals).astype(dtype)
    codes, uniques = enc.factorize_column(col)
    assert [uniques[c] for c in codes] == list(col)
    tax = _tax()
    leaf = enc._map_categorical("g", col, tax)
    np.testing.assert_array_equal(leaf, tax.map_values_strict(vals))
    cls = pd.Series(rng.choice([1.0, 2.0, 10.0], 100)).astype(dtype if dtype != "string" else "object")
    frame = pd.DataFrame({"g": col, "y": cls})
    data = enc.encode_table(frame, "y", {"g": tax})
    assert data.classes == ("1", "10", "2")  # integral floats as integers, sorted as text
    np.testing.assert_array_equal(np.asarray(data.classes)[data.y], [str(int(v)) for v in cls])


def test_uncovered_and_missing_values_give_the_taxonomys_own_message(monkeypatch):
    import dpstudio.io.encoding as enc
    from dpstudio.core.taxonomy import TaxonomyError

    monkeypatch.setattr(enc, "BLOCK", 3)
    vals = ["a", "zz", None, "b", "zz", float("nan"), "c"]
    with pytest.raises(TaxonomyError) as expected:
        _tax().map_values_strict(np.asarray(vals, dtype=object))
    frame = pd.DataFrame({"g": vals, "y": ["u", "v"] * 3 + ["u"]})
    with pytest.raises(EncodingError) as got:
        encode_table(frame, "y", {"g": _tax()})
    assert str(got.value) == str(expected.value)
    assert "'zz' (2 rows)" in str(got.value) and "missing" in str(got.value)


def test_studio_and_cli_code_a_project_the_same_way():
    from dpstudio.model.project.project import Project
    from dpstudio.model.release.runs import RunInputError
    from dpstudio.model.release.runs import encode_table as encode_project

    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 91, 50).astype(float),
            "g": rng.choice(["a", "b", "c"], 50),
            "y": rng.choice(["n", "y"], 50),
        }
    )
    p = Project()
    p.set_data(df, None, {"age": "numeric", "g": "categorical", "y": "categorical"})
    p.set_bounds("age", 17, 90)
    p.set_taxonomy("g", _tax())
    ours = encode_project(p)
    cli = encode_table(df, "y", {"g": _tax()}, {"age": (17.0, 90.0)})
    for a, b in zip(ours.attributes, cli.attributes):
        assert type(a) is type(b) and a.name == b.name
        np.testing.assert_array_equal(
            getattr(a, "values", getattr(a, "leaf_ids", None)), getattr(b, "values", getattr(b, "leaf_ids", None))
        )
    np.testing.assert_array_equal(ours.y, cli.y)
    # the same validation message (the upper bound is inclusive in both)
    p.set_bounds("age", 20, 90)
    with pytest.raises(RunInputError) as e1:
        encode_project(p)
    with pytest.raises(EncodingError) as e2:
        encode_table(df, "y", {"g": _tax()}, {"age": (20.0, 90.0)})
    assert str(e1.value) == str(e2.value)


def test_declared_classes_are_the_domain_in_their_order():
    """The public classes, not the data's, are the class domain: declared order, a class no record holds kept,
    declaration and data compared as stripped text."""
    f = frame()
    f["Class"] = ["N", " Y", "N", "Y "]
    data = encode_table(f, "Class", {"Country": country()}, classes=["Z ", "Y", " N"])
    assert data.classes == ("Z", "Y", "N")
    assert [data.classes[k] for k in data.y] == [v.strip() for v in f["Class"]]


def test_class_outside_the_declared_classes_is_an_input_error():
    f = frame()
    f.loc[[1, 3], "Class"] = "Maybe"
    with pytest.raises(EncodingError, match=r"'Class': 2 rows hold a value outside the public classes \('Maybe'\)"):
        encode_table(f, "Class", {"Country": country()}, classes=["N", "Y"])


@pytest.mark.parametrize(
    "classes, needle", [(["N"], "at least two"), (["N", "Y", " N"], "'N' more than once"), (["N", ""], "empty value")]
)
def test_bad_class_declarations(classes, needle):
    with pytest.raises(EncodingError, match=needle):
        encode_table(frame(), "Class", {"Country": country()}, classes=classes)
