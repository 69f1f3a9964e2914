"""The Adult protocol split (ALGORITHMS.md 9) and the bundled sample that must equal it."""

import gzip

import numpy as np
import pandas as pd
import pytest

from dpstudio.io import adult
from dpstudio.io.datasets import CATEGORICAL, NUMERIC, DatasetError
from dpstudio.resources import resource


@pytest.fixture(scope="module")
def split(shared_data):
    return adult.load_adult(shared_data / "adult")


def _complete_lines(path):
    """Independent reading: data lines with no '?' field, split on ', '."""
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split(", ") for line in lines if line and "?" not in line.split(", ")]


def test_split_sizes_and_columns(split):
    train, test = split
    assert (len(train), len(test)) == (30162, 15060) == (adult.TRAIN_ROWS, adult.TEST_ROWS)
    assert list(train.columns) == list(test.columns) == list(adult.COLUMNS)
    assert adult.CLASS_COLUMN == "Y" == train.columns[-1]
    for name in adult.NUMERIC_COLUMNS:
        assert train[name].dtype == np.int64 and test[name].dtype == np.int64
    assert set(adult.NUMERIC_COLUMNS) | set(adult.CATEGORICAL_COLUMNS) | {"Y"} == set(adult.COLUMNS)
    assert not train.isna().any().any() and not test.isna().any().any()


def test_test_labels_and_majority_class(split):
    train, test = split
    assert set(test["Y"]) == set(train["Y"]) == {"<=50K", ">50K"}
    counts = test["Y"].value_counts()
    assert counts["<=50K"] == 11360 and counts[">50K"] == 3700


def test_split_matches_an_independent_reading(split, shared_data):
    train, test = split
    for frame, name in ((train, "adult.data"), (test, "adult.test")):
        rows = _complete_lines(shared_data / "adult" / name)
        assert len(rows) == len(frame)
        assert [int(r[0]) for r in rows] == frame["age"].tolist()
        assert [r[6] for r in rows] == frame["occupation"].tolist()
        assert [r[14].rstrip(".") for r in rows] == frame["Y"].tolist()
        assert sum(int(r[2]) for r in rows) == int(frame["fnlwgt"].sum())


def test_parent_folder_is_accepted_and_bad_folder_refused(shared_data, tmp_path):
    train, _ = adult.load_adult(shared_data)
    assert len(train) == 30162
    with pytest.raises(DatasetError, match="adult.data and adult.test .* not found"):
        adult.load_adult(tmp_path)


def test_a_folder_in_the_bundled_layout_is_read_like_the_uci_files():
    """``--data-dir`` and ``load_adult`` take the bundled sample's folder (adult.csv.gz, adult_test.csv.gz): the
    evaluation protocol then needs no download."""
    from dpstudio.resources import resource

    assert [len(f) for f in adult.load_adult(resource("samples"))] == [30162, 15060]


def test_bundled_sample_equals_protocol_split(split):
    train, test = split
    bundled_train, bundled_test = adult.load_bundled_adult()
    pd.testing.assert_frame_equal(bundled_train, train)
    pd.testing.assert_frame_equal(bundled_test, test)


def test_bundled_files_are_reproducible(split):
    train, test = split
    assert resource("samples", "adult.csv.gz").read_bytes() == adult.sample_bytes(train)
    assert resource("samples", "adult_test.csv.gz").read_bytes() == adult.sample_bytes(test)
    header = gzip.decompress(resource("samples", "adult.csv.gz").read_bytes()).split(b"\n", 1)[0]
    assert header.decode().split(",") == list(adult.COLUMNS)


def test_bundled_dataset_for_the_app():
    seen = []
    ds = adult.bundled_dataset(progress=lambda done, total: seen.append((done, total)))
    assert len(ds) == 30162 and ds.header is True and ds.separator == ","
    assert ds.types["age"] == NUMERIC and ds.types["workclass"] == CATEGORICAL
    assert ds.missing_report().rows_with_missing == 0
    assert seen and seen[-1][0] == seen[-1][1] == resource("samples", "adult.csv.gz").stat().st_size


def test_attribution_names_source_licence_and_changes():
    text = resource("samples", "ATTRIBUTION.md").read_text(encoding="utf-8")
    for needed in ("Becker", "Kohavi", "1996", "CC BY 4.0", "10.24432/C5XW20", "complete rows", "dot"):
        assert needed in text


def test_files_without_header_rows(shared_data, tmp_path):
    for name in ("adult.data", "adult.test"):
        lines = (shared_data / "adult" / name).read_text(encoding="utf-8").splitlines()
        (tmp_path / name).write_text("\n".join(lines[1:301]) + "\n", encoding="utf-8")
    train, test = adult.load_adult(tmp_path)
    assert list(train.columns) == list(adult.COLUMNS)
    full_train, full_test = adult.load_adult(shared_data / "adult")
    # the first 300 data lines hold exactly the complete rows among them
    n_train = sum(
        "?" not in line.split(", ") for line in (shared_data / "adult" / "adult.data").read_text().splitlines()[1:301]
    )
    pd.testing.assert_frame_equal(train, full_train.iloc[:n_train].reset_index(drop=True))
    assert test["Y"].isin(["<=50K", ">50K"]).all() and len(test) <= 300
    with pytest.raises(DatasetError, match="expected the Adult columns"):
        (tmp_path / "adult.data").write_text("a,b\n1,2\n", encoding="utf-8")
        adult.load_adult(tmp_path)
