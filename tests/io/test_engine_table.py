"""io.engine_table: a file read through DuckDB answers the studio's questions exactly as the same file loaded
into memory does (kinds, missing cells, each column's values and counts, the budget store's fingerprint,
type changes), and a studio run on it gives the same release, event for event, as on the loaded table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.dataset_fingerprint import table_print
from dpstudio.io.datasets import Cancelled, DatasetError, load_table
from tests.io.test_engines import SAMPLE, adult_files

duckdb = pytest.importorskip("duckdb")

from dpstudio.io.engine_table import PREVIEW_ROWS, open_engine_table, opens_with_engine  # noqa: E402


def same_as_loaded(table, dataset) -> None:
    assert table.columns == dataset.columns
    assert table.n_rows == dataset.n_rows
    assert table.types == dataset.types
    assert table.missing_report() == dataset.missing_report()
    for c in dataset.columns:
        counts = dataset.frame[c].value_counts(dropna=True).sort_index()
        values, n = table.value_counts(c)
        assert list(values) == list(counts.index), c
        assert n.tolist() == counts.tolist(), c
    preview = table.preview_frame()
    assert len(preview) == min(PREVIEW_ROWS, dataset.n_rows)
    pd.testing.assert_frame_equal(preview, dataset.frame.head(len(preview)), check_dtype=False)


@pytest.mark.parametrize("which", ["csv", "parquet"])
def test_table_answers_as_the_loaded_table(tmp_path, which):
    csv, parquet = adult_files(tmp_path, rows=3000)
    path = csv if which == "csv" else parquet
    table = open_engine_table(path)
    dataset = load_table(path)
    same_as_loaded(table, dataset)
    assert table.records_print == table_print(dataset.frame)  # one charge per dataset, however it is read
    assert table.frame is None and table.sha256 == dataset.sha256
    table.close()


def test_the_bundled_sample_gzip(tmp_path):
    table = open_engine_table(SAMPLE, fingerprint=False)
    dataset = load_table(SAMPLE)
    same_as_loaded(table, dataset)
    assert table.records_print is None
    assert table.fingerprint() == table_print(dataset.frame)


def test_type_changes_convert_as_dataset_set_type(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("code,size,y\n007,1.5,a\n7,2,b\nx9,2.0,a\n ?,3,b\n007,,a\n")
    table, dataset = open_engine_table(path), load_table(path)
    same_as_loaded(table, dataset)
    for column, kind in (("code", "numeric"), ("size", "categorical")):
        assert table.numeric_problems(column) == dataset.numeric_problems(column)
        change_t, change_d = table.set_type(column, kind), dataset.set_type(column, kind)
        assert change_t == change_d  # 'x9' becomes missing, with its count
        same_as_loaded(table, dataset)
    assert table.value_counts("size")[0].tolist() == ["1.5", "2", "3"]
    assert table.value_counts("code")[1].tolist() == [3]  # '007', '7' and '007' are the number 7


def test_group_counts_are_the_records_counted(tmp_path):
    csv, _ = adult_files(tmp_path, rows=2000)
    table, frame = open_engine_table(csv), load_table(csv).frame
    cols = ["sex", "age", "workclass"]
    rows, counts = table.group_counts(cols)
    assert counts.sum() == len(frame)
    expected = frame[cols].value_counts(dropna=False)
    got = {tuple("NA" if v != v else v for v in r): int(n) for r, n in zip(rows.itertuples(index=False), counts)}
    want = {tuple("NA" if v != v else v for v in k): int(n) for k, n in expected.items()}
    assert got == want


def test_unreadable_and_empty_files_say_why(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("a,b\n")
    with pytest.raises(DatasetError, match="no data rows"):
        open_engine_table(empty)
    book = tmp_path / "book.xlsx"
    book.write_bytes(b"PK")
    with pytest.raises(DatasetError, match="CSV/TSV and Parquet"):
        open_engine_table(book)


def test_cancel_stops_opening(tmp_path):
    csv, _ = adult_files(tmp_path, rows=500)
    seen = []

    def stop(done, total, what):
        seen.append(what)
        return False

    with pytest.raises(Cancelled):
        open_engine_table(csv, progress=stop)
    assert seen


def test_which_files_open_through_duckdb(tmp_path, monkeypatch):
    small = tmp_path / "small.csv"
    small.write_text("a\n1\n")
    monkeypatch.delenv("DPSTUDIO_STUDIO_ENGINE", raising=False)
    assert not opens_with_engine(small)  # small files load into memory
    monkeypatch.setattr("dpstudio.io.engines.AUTO_BYTES", 1)
    assert opens_with_engine(small)
    assert not opens_with_engine(small, encoding="latin-1")  # DuckDB reads UTF-8 text only
    assert not opens_with_engine(tmp_path / "book.xlsx")
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "numpy")
    assert not opens_with_engine(small)
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    monkeypatch.setattr("dpstudio.io.engines.AUTO_BYTES", 1 << 40)
    assert opens_with_engine(small)


def test_a_text_column_stays_text_in_every_part(tmp_path):
    """The kind is read from all of a column's values: a preview of numbers-only rows of a text column
    keeps '007' as written, as load_table does."""
    path = tmp_path / "codes.csv"
    path.write_text("code,y\n" + "007,a\n" * (PREVIEW_ROWS + 5) + "AB1,b\n")
    table, dataset = open_engine_table(path), load_table(path)
    assert table.types["code"] == "categorical"
    same_as_loaded(table, dataset)
    rows, counts = table.group_counts(["code"])
    assert rows["code"].tolist() == ["007", "AB1"] and counts.tolist() == [PREVIEW_ROWS + 5, 1]


def test_columns_with_very_many_values_are_summarised_not_listed(tmp_path, monkeypatch):
    """Above MAX_LISTED distinct values a column is not listed when the file opens: its kind, missing cells,
    bounds and wholeness come from SQL aggregates (the same answers), its values are read when asked."""
    monkeypatch.setattr("dpstudio.io.engine_table.MAX_LISTED", 20)
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame(
        {
            "id": [f"p{i:04d}" for i in range(n)],
            "income": np.round(rng.uniform(0, 1000, n), 2),
            "count": rng.integers(0, 500, n).astype(str),
            "y": rng.choice(["a", "b"], n),
        }
    )
    frame.loc[::37, "income"] = np.nan
    frame.loc[::41, "count"] = "?"
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False, na_rep="?")
    table, dataset = open_engine_table(path), load_table(path)
    assert not table.is_listed("id") and not table.is_listed("income") and table.is_listed("y")
    assert table.types == dataset.types
    assert table.missing_report() == dataset.missing_report()
    assert abs(table.distinct_count("id") - n) <= 0.05 * n  # DuckDB's estimate
    inc = dataset.frame["income"].dropna()
    assert table.numeric_summary("income") == (inc.min(), inc.max(), False)
    cnt = dataset.frame["count"].dropna()
    assert table.numeric_summary("count") == (cnt.min(), cnt.max(), True)
    same_as_loaded(table, dataset)  # asking for the values reads them (exact)
    assert table.is_listed("id")


@pytest.mark.parametrize("fingerprint", [True, False])
def test_opening_shows_one_bar_that_never_runs_back_between_its_steps(tmp_path, fingerprint):
    """Issue 35: the opening's passes (counting, listing, the SHA-256, the fingerprint) each had a bar of
    their own from 0, so a person saw it restart three times on a large file. Now each pass has its stretch of
    one bar, named "step k of n"."""
    path = tmp_path / "t.parquet"
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.integers(0, 50, 50_000), "b": rng.choice(["x", "y"], 50_000)}).to_parquet(path)
    seen = []
    open_engine_table(path, lambda done, total, what: seen.append((done, total, what)), fingerprint=fingerprint)
    n = 4 if fingerprint else 3
    steps = [int(w.split(" of ")[0].removeprefix("step ")) for _d, _t, w in seen]
    assert all(w.startswith("step ") and f" of {n}: " in w for _d, _t, w in seen)
    assert steps == sorted(steps) and set(steps) == set(range(1, n + 1))  # every step, in order
    assert all(t == 1000 for _d, t, _w in seen)
    for k in range(1, n):  # a later step never starts below where an earlier one reached
        before = max(d for (d, _t, _w), s in zip(seen, steps) if s == k)
        after = min(d for (d, _t, _w), s in zip(seen, steps) if s == k + 1)
        assert after >= before
    assert seen[0][0] == 0 and seen[-1][0] == 1000
