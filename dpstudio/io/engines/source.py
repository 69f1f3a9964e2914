"""How a data file is read by the SQL engines: its format, separator, header and column names, found on a
sample of its first lines exactly as ``io.datasets.load_table`` finds them (so every engine sees the same
columns). Public facts about the file's layout only."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import dataset_sniff as sniff
from .. import datasets as ds
from . import EngineError


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str  # "csv" or "parquet"
    names: tuple[str, ...]
    delimiter: str = ","
    header: bool = True
    missing: frozenset = frozenset(ds.DEFAULT_MISSING)


def describe(path, missing=ds.DEFAULT_MISSING) -> Source:
    """The layout of a CSV/TSV (optionally .gz) or Parquet file; ``EngineError`` for other formats."""
    try:
        p = ds._check_path(path)
    except ds.DatasetError as exc:
        raise EngineError(str(exc)) from None
    missing = frozenset(str(m).strip() for m in missing)
    suffix = p.suffix.lower()
    if suffix in ds.PARQUET_SUFFIXES:
        import duckdb

        try:
            with duckdb.connect() as con:
                names = tuple(
                    str(r[0]) for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(p)]).fetchall()
                )
        except duckdb.Error as exc:
            raise EngineError(f"cannot read the Parquet file {p.name}: {str(exc).splitlines()[0]}") from None
        return Source(p, "parquet", names, missing=missing)
    if suffix in ds.EXCEL_SUFFIXES or suffix == ".xls":
        raise EngineError(
            f"{p.name}: the DuckDB and Spark engines read CSV/TSV and Parquet; use --engine numpy for a workbook"
        )
    try:
        sample, _ = ds._read_sample(p, "utf-8-sig")
        if not sample.strip():
            raise EngineError(f"{p.name} has no data (only blank lines)")
        delimiter = ds._delimiter(sniff.sniff_separator(sample))
        rows = sniff.split_sample(sample, delimiter)
        header = sniff.looks_like_header(rows, missing)
        names = tuple(ds._column_names(rows[0], header, len(rows[0])))
    except ds.DatasetError as exc:
        raise EngineError(str(exc)) from None
    return Source(p, "csv", names, delimiter, header, missing)
