"""The Data tab's distinct counts and preview come from the data source (``model.project.source``), whichever
engine holds the table (issue 31: the Data panel dispatched on the engine itself). Exact in memory and for a
listed column of a table read through DuckDB, an estimate (and said so) for a column with very many values."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpstudio.io import engine_table
from dpstudio.model.project.project import Project


def _frame(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east"], n),
            "id": np.arange(n),  # every value distinct
            "age": rng.integers(18, 60, n),
        }
    )


def test_in_memory_counts_are_exact(tmp_path):
    f = _frame()
    p = Project()
    p.set_data(f.copy(), None)
    assert p.distinct_count("region") == (3, False)
    assert p.distinct_count("age") == (f["age"].nunique(), False)
    assert p.preview_frame() is p.frame


def test_an_engine_table_lists_few_values_exactly_and_estimates_many(tmp_path, monkeypatch):
    path = tmp_path / "big.parquet"
    f = _frame()
    f.to_parquet(path)
    monkeypatch.setattr(engine_table, "MAX_LISTED", 100)  # the id column (2,000 values) is not listed
    table = engine_table.open_engine_table(path, fingerprint=False)
    p = Project()
    p.set_data(table, path)
    assert p.frame is None and p.engine_table is table
    assert p.distinct_count("region") == (3, False)
    n, approx = p.distinct_count("id")
    assert approx and abs(n - 2000) <= 0.1 * 2000  # DuckDB's HyperLogLog estimate
    preview = p.preview_frame()
    assert list(preview.columns) == list(f.columns) and 0 < len(preview) <= len(f)
    assert preview["region"].tolist() == f["region"].head(len(preview)).tolist()
