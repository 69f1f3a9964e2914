"""A data file read through DuckDB without loading its rows: the studio's large tables.

``open_engine_table(path)`` returns an :class:`EngineTable`, which answers what the studio asks of a loaded
table (its columns and their kinds, a preview of the first rows, each column's distinct values with their
counts, the missing cells, the budget store's fingerprint) and, for a run, the records of the used columns
as their distinct combinations with a count each (``group_counts``, the same aggregate as
``dpstudio release --engine duckdb``). No record is kept in memory: ``frame`` is None, and what needs
single records (the neighbour views, anonymization) says so.

Everything here is private: the counts, the distinct values, the preview and the fingerprint are shown to
the data owner or used by a run on the driver, never written into a release. No domain is decided here:
the kinds read from the values are proposals the data owner confirms, as with ``load_table``.

Kinds and values follow ``io.datasets.load_table`` exactly: the engine reads text trimmed with the
missing tokens as NULL, and the driver applies ``load_table``'s own column rules to each column's distinct
values (a column is numeric when every present value is a number; a type change converts the same way
``Dataset.set_type`` does). Every engine call goes through one lock (a DuckDB connection serves one query
at a time); what the studio shows is computed once when the file is opened.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import datasets as ds
from .engines import EngineError, open_engine
from .engines.source import Source, describe

#: rows the Data panel shows (the first ones of the file)
PREVIEW_ROWS = 1000
#: a column with more distinct values (DuckDB's estimate) is not listed when the file is opened: its
#: summary comes from SQL aggregates, its values are read only when something needs them
MAX_LISTED = 1_000_000


@dataclass(frozen=True)
class ColumnStats:
    """SQL aggregates of a column with too many distinct values to list (``MAX_LISTED``): cells present,
    DuckDB's estimate of the distinct values, cells that DuckDB reads as numbers, their least and largest
    value, and how many of them are not whole. Private: for the data owner's eyes and proposals only."""

    present: int
    distinct: int
    numbers: int
    lo: float | None
    hi: float | None
    fractional: int

    def kind(self, is_text: bool) -> str:
        """Numeric when the file holds numbers, or text every present cell of which DuckDB reads as one."""
        return ds.NUMERIC if not is_text or 0 < self.present == self.numbers else ds.CATEGORICAL


StudioProgress = Callable[[int, int, str], object]


class EngineTable(ds.ColumnKinds):
    """A table in a file, queried through DuckDB (see the module docstring). Same questions as a
    ``Dataset`` where the studio asks them; ``frame`` is None: no records in memory."""

    frame = None
    engine_name = "duckdb"

    def __init__(
        self,
        source: Source,
        engine,
        native: dict[str, bool],
        marginals: dict[str, tuple],
        n_rows: int,
        rows_with_missing: int,
        preview: pd.DataFrame,
        sha256: str,
        wide: dict[str, ColumnStats] | None = None,
    ):
        self.source = source
        self.path = source.path
        self.sha256 = sha256
        self.separator = source.delimiter if source.kind == "csv" else None
        self.header = source.header
        self.encoding = "utf-8"
        self.history: tuple[str, ...] = ()
        self.records_print = None
        self._engine = engine
        self._lock = threading.Lock()
        self._native = dict(native)  # column -> the file holds text (else numbers, e.g. Parquet)
        self._raw = marginals  # column -> (raw distinct values incl. None for missing, counts)
        self._n_rows = int(n_rows)
        self._rows_with_missing = int(rows_with_missing)
        self._wide = dict(wide or {})  # columns not listed (too many values): their SQL summary
        self._types = {
            c: (_inferred_kind(self._raw[c][0]) if c in self._raw else self._wide[c].kind(native[c]))
            for c in source.names
        }
        self._loaded_types = dict(self._types)  # the kinds load_table would give: how the values were parsed
        self._raw_preview = preview
        self._vc: dict[str, tuple] = {}

    def __repr__(self) -> str:
        return f"<EngineTable {self.path.name}: {self.n_rows} rows x {len(self.columns)} columns (duckdb)>"

    def __len__(self) -> int:
        return self.n_rows

    # -- what a Dataset answers ----------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self._n_rows

    @property
    def columns(self) -> list[str]:
        return list(self.source.names)

    def _numbers_from_text(self, column: str) -> bool:
        """The file holds text in ``column`` and it is declared numeric: cells that are not numbers are missing."""
        return self._native[column] and self._types[column] == ds.NUMERIC

    def numeric_problems(self, column: str) -> dict[str, int]:
        """Values that are not numbers, with their counts (no change is made)."""
        self._check_column(column)
        if self._types[column] == ds.NUMERIC:
            return {}
        values, counts = self._values(column)
        present = [(v, int(n)) for v, n in zip(values, counts) if not ds._isna(v)]
        parsed = ds._parse_numbers([ds._cell_text(v) for v, _ in present])
        return {ds._cell_text(v): n for (v, n), x in zip(present, parsed) if np.isnan(x)}

    def set_type(self, column: str, kind: str) -> ds.TypeChange:
        """Make ``column`` numeric or categorical, as ``Dataset.set_type`` does (text that is not a number
        becomes missing); nothing is read again: every query converts with the declared kinds."""
        self._check_column(column)
        if kind not in ds.KINDS:
            raise ds.DatasetError(f"unknown column kind {kind!r}: use 'numeric' or 'categorical'")
        if self._types[column] == kind:
            return ds.TypeChange(column, kind)
        bad = self.numeric_problems(column) if kind == ds.NUMERIC else {}
        self._types[column] = kind
        self._vc.pop(column, None)
        self.history = self.history + (f"column {column!r} set to {kind}",)
        if bad:  # cells that were present are missing now: count the rows again (one pass over the file)
            self._rows_with_missing = self._count_rows_with_missing()
        return ds.TypeChange(column, kind, bad)

    def _count_rows_with_missing(self) -> int:
        eng, src = self._engine, self.source
        tests = []
        for c in self.columns:
            e = eng.column(src, c, self._native[c])
            tests.append(f"TRY_CAST({e} AS DOUBLE) IS NULL" if self._numbers_from_text(c) else f"{e} IS NULL")
        with self._lock:
            out = eng.frame(f"SELECT COUNT(*) AS n FROM src WHERE {' OR '.join(tests)}")
        return int(out["n"].iloc[0])

    def value_counts(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(distinct values, records holding each) of ``column`` as its declared kind reads it, missing
        left out. Private: for the data owner's checks (coverage, class values, bounds proposals)."""
        self._check_column(column)
        if column not in self._vc:
            values, counts = self._values(column)
            typed = self.typed(column, pd.Series(list(values), dtype=object, name=column))
            frame = pd.DataFrame({"v": typed, "n": np.asarray(counts, dtype=np.int64)}).dropna()
            summed = frame.groupby("v", sort=True)["n"].sum()  # "1" and "1.0" are one number
            self._vc[column] = (summed.index.to_numpy(), summed.to_numpy(dtype=np.int64))
        return self._vc[column]

    def _values(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(raw distinct values with None for missing, counts): listed when the file was opened, or read now
        (one pass) for a column with more than ``MAX_LISTED`` values."""
        if column not in self._raw:
            with self._lock:
                frame, counts = self._engine.group_counts(self.source, [column])
            self._raw[column] = (_raw_values(frame[column]), counts)
        return self._raw[column]

    def is_listed(self, column: str) -> bool:
        """Whether the column's values are at hand (else only its SQL summary: ``ColumnStats``)."""
        return column in self._raw

    def distinct_count(self, column: str) -> int:
        """Distinct values (missing left out); DuckDB's estimate for a column not listed (``is_listed``)."""
        if not self.is_listed(column):
            return self._wide[column].distinct
        return int(self.value_counts(column)[0].size)

    def missing_per_column(self) -> dict[str, int]:
        """Missing cells per column under the declared kinds (text that is not a number counts as missing in a
        numeric column, as after ``Dataset.set_type``)."""
        out = {}
        for c in self.columns:
            if self.is_listed(c):
                out[c] = self._n_rows - int(self.value_counts(c)[1].sum())
            else:
                st = self._wide[c]
                out[c] = self._n_rows - (st.numbers if self._numbers_from_text(c) else st.present)
        return out

    def numeric_summary(self, column: str) -> tuple[float, float, bool] | None:
        """(least value, largest value, every value whole) of a numeric column, None without numbers: for the
        bounds and kind proposals (derived from the data, marked so until the data owner confirms them)."""
        if self._types[column] != ds.NUMERIC:
            raise ds.DatasetError(f"column {column!r} is categorical")
        if not self.is_listed(column):
            st = self._wide[column]
            return None if st.lo is None or st.hi is None else (st.lo, st.hi, st.fractional == 0)
        return ds.value_range(self.value_counts(column)[0])

    def missing_report(self) -> ds.MissingReport:
        """Missing cells per column, and the rows with a missing value in any column (read when the file was
        opened; a type change the studio accepts never turns a present value into a missing one)."""
        return ds.MissingReport(self.missing_per_column(), self._rows_with_missing, self._n_rows)

    def preview_frame(self) -> pd.DataFrame:
        """The first ``PREVIEW_ROWS`` rows of the file with the declared kinds (display only)."""
        return pd.DataFrame({c: self.typed(c, self._raw_preview[c]) for c in self.columns})

    # -- what a run reads --------------------------------------------------------------------------
    def typed(self, column: str, raw: pd.Series) -> pd.Series:
        """Raw engine values of ``column`` converted as ``load_table`` and ``Dataset.set_type`` would."""
        raw = raw.astype(object).where(raw.notna(), np.nan) if raw.dtype == object else raw
        loaded = self._loaded_types[column]  # decided on all of the column's values, not on this part of them
        if loaded == ds.NUMERIC:
            values, read = ds._finish_column(raw.rename(column), self.source.missing, None)
            if read != ds.NUMERIC:  # text DuckDB read as numbers and Python does not ('1_0'): missing
                values = ds._as_numeric(values)[0]
        else:
            values = ds._finish_column(raw.rename(column), self.source.missing, ds.CATEGORICAL)[0]
        kind = self._types[column]
        if kind == loaded:
            return values
        return ds.numbers_as_text(values) if kind == ds.CATEGORICAL else ds._as_numeric(values)[0]

    def group_counts(self, columns, progress: StudioProgress | None = None) -> tuple[pd.DataFrame, np.ndarray]:
        """(distinct combinations of ``columns`` with the declared kinds, records per combination): one
        pass over the file in DuckDB, or for one listed column its counts read when the file was opened (no
        pass; the same rows). Private aggregates for the run on the driver."""
        columns = list(columns)
        for c in columns:
            self._check_column(c)
        if len(columns) == 1 and self.is_listed(columns[0]):
            values, counts = self._raw[columns[0]]
            raw = pd.Series(values, dtype=object, name=columns[0])
            return pd.DataFrame({columns[0]: self.typed(columns[0], raw)}), np.asarray(counts, dtype=np.int64)
        what = f"reading {', '.join(columns)} from {self.path.name}"
        _check(progress, 0, 1000, what)
        with self._lock:
            frame, counts = self._engine.group_counts(self.source, columns, progress=_engine_progress(progress))
        _check(progress, 1000, 1000, what)
        out = pd.DataFrame({c: self.typed(c, frame[c]) for c in columns})
        return out, counts

    def fingerprint(self, progress: StudioProgress | None = None):
        """The budget store's ``DatasetPrint`` of the whole table (a pass over the file; the same print as
        ``load_table``'s records give, so the dataset is charged once however it is read)."""
        if self.records_print is None:
            with self._lock:
                self.records_print = self._engine.table_print(self.source, progress=_engine_progress(progress))
        return self.records_print

    def close(self) -> None:
        with self._lock:
            try:
                self._engine.close()
            except Exception:  # an engine already closed
                pass


def _inferred_kind(values) -> str:
    series = pd.Series([v for v in values if not ds._isna(v)], dtype=object)
    if series.empty:
        return ds.CATEGORICAL
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in series):
        return ds.NUMERIC
    return ds.NUMERIC if ds._looks_numeric(series.map(ds._cell_text)) else ds.CATEGORICAL


def _engine_progress(progress: StudioProgress | None):
    """The engine's ``progress(fraction, what)`` from the studio's ``progress(done, total, message)``; the
    studio cancels by raising (its worker) or returning False: either way the query is interrupted."""
    if progress is None:
        return None

    def report(fraction: float, what: str):
        try:
            return progress(int(round(fraction * 1000)), 1000, what) is not False
        except Exception:  # the worker's Cancelled: stop the query
            return False

    return report


def _phases(progress: StudioProgress | None, fingerprint: bool) -> dict:
    """The opening's passes over the file, each on its own stretch of one bar of 1,000 (so the bar never
    runs back between passes) and named with its place ("step 2 of 4: ..."): {pass: its progress}. The
    stretches follow what each pass costs on a large file: the fingerprint is the heaviest."""
    names = ["counting", "listing", "hashing"] + (["fingerprint"] if fingerprint else [])
    shares = {"counting": 3, "listing": 3, "hashing": 1, "fingerprint": 4}
    total = sum(shares[n] for n in names)
    out, start = {}, 0
    for k, name in enumerate(names):
        end = start + shares[name]
        out[name] = _stretch(progress, 1000 * start // total, 1000 * end // total, f"step {k + 1} of {len(names)}")
        start = end
    return out


def _stretch(progress: StudioProgress | None, lo: int, hi: int, step: str) -> StudioProgress | None:
    """``progress`` of one pass mapped onto ``lo``..``hi`` of the bar, its words prefixed with ``step``."""
    if progress is None:
        return None

    def report(done: int, total: int, what: str = ""):
        frac = min(max(done / total, 0.0), 1.0) if total else 0.0
        return progress(lo + int(round((hi - lo) * frac)), 1000, f"{step}: {what}")

    return report


def _check(progress: StudioProgress | None, done: int, total: int, what: str) -> None:
    if progress is not None and progress(done, total, what) is False:
        raise ds.Cancelled(f"cancelled ({what})")


def open_engine_table(path, progress: StudioProgress | None = None, fingerprint: bool = True) -> EngineTable:
    """Open a CSV/TSV (.gz) or Parquet file through DuckDB: one pass for every column's SQL summary and the
    rows with a missing value, one for the distinct values with their counts of every column with at most
    ``MAX_LISTED`` of them, the first rows for the preview, the file's SHA-256, and (``fingerprint``) the
    budget store's fingerprint (a third pass). Raises ``DatasetError`` for a file
    DuckDB cannot read and ``io.datasets.Cancelled`` when ``progress`` stops it; nothing is kept then."""
    try:
        source = describe(path)
    except EngineError as exc:
        raise ds.DatasetError(str(exc)) from None
    engine = open_engine("duckdb")
    try:
        return _opened(source, engine, progress, fingerprint)
    except BaseException:
        engine.close()
        raise


def _opened(source: Source, engine, progress, fingerprint: bool) -> EngineTable:
    from .datasets import _file_sha256

    phase = _phases(progress, fingerprint)
    _check(phase["counting"], 0, 1000, "reading the file's columns")
    names = source.names
    q = engine.quote
    try:
        native = engine.register(source)
        cleaned = engine.cleaned(source, names, native)
        any_missing = " OR ".join(f"{q(c)} IS NULL" for c in names)
        rows = f"SELECT *, ({any_missing}) AS dpstudio_any_missing FROM (SELECT {cleaned} FROM src)"
        parts = ["COUNT(*) AS n_rows", "COUNT(*) FILTER (WHERE dpstudio_any_missing) AS n_missing"]
        for i, c in enumerate(names):
            d = f"TRY_CAST({q(c)} AS DOUBLE)"
            parts += [
                f"COUNT({q(c)}) AS present{i}",
                f"approx_count_distinct({q(c)}) AS distinct{i}",
                f"COUNT({d}) AS numbers{i}",
                f"MIN({d}) AS lo{i}",
                f"MAX({d}) AS hi{i}",
                f"COUNT(*) FILTER (WHERE {d} <> round({d})) AS fractional{i}",
            ]
        stats_sql = f"SELECT {', '.join(parts)} FROM ({rows})"
        stats = engine.watched(
            lambda: engine.frame(stats_sql), _engine_progress(phase["counting"]), "counting each column's values"
        ).iloc[0]
        listed = [c for i, c in enumerate(names) if int(stats[f"distinct{i}"]) <= MAX_LISTED]
        out = None
        if listed:
            sets = ", ".join(f"({q(c)})" for c in listed)
            flags = ", ".join(f"GROUPING({q(c)}) AS g{names.index(c)}" for c in listed)
            sql = (
                f"SELECT {', '.join(q(c) for c in listed)}, {flags}, COUNT(*) AS n FROM "
                f"(SELECT {cleaned} FROM src) GROUP BY GROUPING SETS ({sets})"
            )
            out = engine.watched(
                lambda: engine.frame(sql), _engine_progress(phase["listing"]), "listing each column's values"
            )
        preview = engine.first_rows(source, PREVIEW_ROWS)
    except ds.Cancelled:
        raise
    except EngineError as exc:
        raise ds.DatasetError(str(exc)) from None
    except Exception as exc:  # duckdb's own errors (a damaged file, a ragged line)
        raise ds.DatasetError(f"duckdb cannot read {source.path.name}: {str(exc).splitlines()[0]}") from None
    n_rows = int(stats["n_rows"])
    if n_rows == 0:
        raise ds.DatasetError(f"{source.path.name} has no data rows")
    marginals = {}
    for c in listed:
        assert out is not None  # the GROUPING SETS query ran: ``listed`` is not empty
        part = out[out[f"g{names.index(c)}"] == 0].sort_values(c, na_position="last")  # as group_counts orders
        marginals[c] = (_raw_values(part[c]), part["n"].to_numpy(np.int64))
    wide = {
        c: ColumnStats(
            int(stats[f"present{i}"]),
            int(stats[f"distinct{i}"]),
            int(stats[f"numbers{i}"]),
            _number(stats[f"lo{i}"]),
            _number(stats[f"hi{i}"]),
            int(stats[f"fractional{i}"]),
        )
        for i, c in enumerate(names)
        if c not in marginals
    }
    _check(phase["hashing"], 0, 1000, "computing the file's SHA-256")
    table = EngineTable(
        source, engine, native, marginals, n_rows, int(stats["n_missing"]), preview, _file_sha256(source.path), wide
    )
    _check(phase["hashing"], 1000, 1000, "computing the file's SHA-256")
    if fingerprint:
        table.fingerprint(phase["fingerprint"])
    return table


def _raw_values(series: pd.Series) -> np.ndarray:
    """An engine's distinct values of one column as objects, None for missing."""
    return series.astype(object).where(series.notna(), None).to_numpy()


def _number(value) -> float | None:
    return None if value is None or value != value else float(value)


def first_rows(path, rows: int = PREVIEW_ROWS) -> pd.DataFrame:
    """The first ``rows`` rows of a large file as the Data panel previews them (text trimmed, the missing
    tokens as missing), read at once: DuckDB stops after them, so the data owner sees the file while its
    counts are computed (``open_engine_table`` reads every row). Private, for the data owner's eyes;
    ``ds.DatasetError`` when the file cannot be read."""
    source = describe(path)
    try:
        with open_engine("duckdb") as engine:
            return engine.first_rows(source, rows)
    except EngineError as exc:
        raise ds.DatasetError(str(exc)) from None


def opens_with_engine(path, encoding: str = "utf-8") -> bool:
    """Whether the studio opens ``path`` through DuckDB rather than into memory: a CSV/TSV (.gz) or Parquet
    file larger than ``engines.AUTO_BYTES`` (the CLI's ``--engine auto`` rule), in UTF-8, with DuckDB
    installed; ``$DPSTUDIO_STUDIO_ENGINE`` = ``duckdb`` or ``numpy`` decides instead."""
    import os

    from .engines import _has, choose_engine

    p = Path(path)
    suffix = p.suffix.lower()
    readable = suffix in ds.PARQUET_SUFFIXES or suffix not in (*ds.EXCEL_SUFFIXES, ".xls")
    if not readable or (
        suffix not in ds.PARQUET_SUFFIXES and encoding.lower().replace("_", "-") not in ("utf-8", "utf8", "utf-8-sig")
    ):
        return False
    forced = os.environ.get("DPSTUDIO_STUDIO_ENGINE", "").strip().lower()
    if forced in ("duckdb", "numpy"):
        return forced == "duckdb" and _has("duckdb")
    return choose_engine("auto", p) == "duckdb"
