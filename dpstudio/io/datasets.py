"""Loading a data owner's table: CSV (also gzip-compressed), Excel .xlsx, Parquet.

``load_table(path)`` returns a :class:`Dataset`: the pandas DataFrame (text stripped of surrounding spaces,
missing cells as NaN), the file's SHA-256 (a project records it, so a release can be traced to its input),
a 'numeric' or 'categorical' kind per column (inferred; :meth:`Dataset.set_type` overrides), a missing-value
report, and the two ways to deal with missing values: drop the rows, or (categorical columns only) treat
missing as a category of its own.

Every problem with the file raises :class:`DatasetError` with a message meant for the data owner. The
loaded table is the private input: nothing here writes it anywhere or logs its values.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dpstudio.io import dataset_sniff as sniff

NUMERIC = "numeric"
CATEGORICAL = "categorical"
KINDS = (NUMERIC, CATEGORICAL)
MISSING_LABEL = "Missing"
DEFAULT_MISSING = ("?", "")
EXCEL_SUFFIXES = (".xlsx", ".xlsm")
PARQUET_SUFFIXES = (".parquet", ".pq")
GZIP_MAGIC = b"\x1f\x8b"
SAMPLE_BYTES = 1 << 16
READ_BLOCK = 1 << 20

Progress = Callable[[int, int], object]


class DatasetError(ValueError):
    """The table cannot be loaded or the requested change cannot be made; the message says why."""


class Cancelled(Exception):
    """The progress callback returned False: loading stopped, nothing was returned."""


@dataclass(frozen=True)
class MissingReport:
    """Missing cells per column and the number of rows with at least one."""

    per_column: dict[str, int]
    rows_with_missing: int
    n_rows: int

    @property
    def complete_rows(self) -> int:
        return self.n_rows - self.rows_with_missing

    @property
    def any(self) -> bool:
        return self.rows_with_missing > 0


@dataclass(frozen=True)
class TypeChange:
    """What :meth:`Dataset.set_type` did: values that could not be read as numbers became missing."""

    column: str
    kind: str
    unconvertible: dict[str, int] = field(default_factory=dict)  # value -> number of cells

    @property
    def n_unconvertible(self) -> int:
        return sum(self.unconvertible.values())


class ColumnKinds:
    """A 'numeric' or 'categorical' kind per column (``_types``), as a table in memory (:class:`Dataset`) and
    a table read through an engine (``io.engine_table.EngineTable``) both keep them."""

    _types: dict[str, str]

    @property
    def columns(self) -> list[str]:
        raise NotImplementedError

    @property
    def types(self) -> dict[str, str]:
        """Column name -> 'numeric' or 'categorical' (a copy; change it with ``set_type``)."""
        return dict(self._types)

    def kind(self, column: str) -> str:
        self._check_column(column)
        return self._types[column]

    def _check_column(self, column: str) -> None:
        if column not in self._types:
            raise DatasetError(f"no column named {column!r}; the columns are {', '.join(self.columns)}")


class Dataset(ColumnKinds):
    """A loaded table with its provenance and a kind ('numeric' or 'categorical') per column.

    ``frame`` holds numeric columns as int64 (whole numbers, nothing missing) or float64 (NaN = missing)
    and categorical columns as text (NaN = missing). ``history`` lists the changes made since loading.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        types: Mapping[str, str],
        path: Path | None = None,
        sha256: str | None = None,
        separator: str | None = None,
        header: bool | None = None,
        encoding: str | None = None,
        history: Iterable[str] = (),
    ):
        self.frame = frame
        self._types = dict(types)
        self.path = path
        self.sha256 = sha256
        self.separator = separator
        self.header = header
        self.encoding = encoding
        self.history = tuple(history)

    def __repr__(self) -> str:
        name = self.path.name if self.path else "table"
        return f"<Dataset {name}: {self.n_rows} rows x {len(self.columns)} columns>"

    def __len__(self) -> int:
        return self.n_rows

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def numeric_columns(self) -> list[str]:
        return [c for c in self.columns if self._types[c] == NUMERIC]

    def categorical_columns(self) -> list[str]:
        return [c for c in self.columns if self._types[c] == CATEGORICAL]

    def categories(self, column: str) -> list[str]:
        """The distinct values of a categorical column, sorted (missing not included)."""
        if self.kind(column) != CATEGORICAL:
            raise DatasetError(f"column {column!r} is numeric; it has no categories")
        return sorted(self.frame[column].dropna().unique().tolist())

    def _derived(self, frame: pd.DataFrame, note: str, types: Mapping[str, str] | None = None) -> Dataset:
        return Dataset(
            frame,
            types if types is not None else self._types,
            self.path,
            self.sha256,
            self.separator,
            self.header,
            self.encoding,
            self.history + (note,),
        )

    def renamed(self, names: Mapping[str, str]) -> Dataset:
        """A new dataset with columns renamed (old name -> new name); names must stay distinct."""
        for old in names:
            self._check_column(old)
        new_names = [names.get(c, c) for c in self.columns]
        _column_names(new_names, True, len(new_names))
        frame = self.frame.rename(columns=dict(names))
        types = {names.get(c, c): k for c, k in self._types.items()}
        listed = ", ".join(f"{o!r} -> {n!r}" for o, n in names.items())
        return self._derived(frame, f"renamed columns {listed}", types)

    # --- types --------------------------------------------------------------------------------------

    def numeric_problems(self, column: str) -> dict[str, int]:
        """Values of a column that cannot be read as numbers, with their counts (no change is made)."""
        self._check_column(column)
        if self._types[column] == NUMERIC:
            return {}
        return _as_numeric(self.frame[column])[1]

    def set_type(self, column: str, kind: str) -> TypeChange:
        """Make ``column`` numeric or categorical, in place.

        To numeric: text that is not a number becomes missing; the returned :class:`TypeChange` lists those
        values and how many cells held each (see :meth:`numeric_problems` to look before converting).
        To categorical: numbers become text ('39', '2.5'); text a loader read as a number keeps no leading
        zeros, so pass ``types={column: 'categorical'}`` to :func:`load_table` to keep '007' as written.
        """
        self._check_column(column)
        if kind not in KINDS:
            raise DatasetError(f"unknown column kind {kind!r}: use 'numeric' or 'categorical'")
        if self._types[column] == kind:
            return TypeChange(column, kind)
        if kind == NUMERIC:
            values, bad = _as_numeric(self.frame[column])
        else:
            values, bad = numbers_as_text(self.frame[column]), {}
        self.frame[column] = values
        self._types[column] = kind
        note = f"column {column!r} set to {kind}"
        if bad:
            note += f" ({sum(bad.values())} cells that were not numbers became missing)"
        self.history = self.history + (note,)
        return TypeChange(column, kind, bad)

    # --- missing values ------------------------------------------------------------------------------

    def missing_report(self) -> MissingReport:
        mask = self.frame.isna()
        per_column = {str(c): int(n) for c, n in mask.sum().items()}
        rows = int(mask.any(axis=1).sum()) if len(self.columns) else 0
        return MissingReport(per_column, rows, self.n_rows)

    def drop_missing(self) -> tuple[Dataset, int]:
        """A new dataset without the rows that have a missing value, and how many rows were dropped.

        The count is a statistic of the private table: show it to the data owner, never put it in a release.
        """
        keep = ~self.frame.isna().any(axis=1)
        dropped = int((~keep).sum())
        frame = self.frame.loc[keep].reset_index(drop=True)
        for column in self.numeric_columns():
            frame[column] = _tidy_numeric(frame[column])
        return self._derived(frame, f"dropped {dropped} rows with a missing value"), dropped

    def missing_as_category(self, label: str = MISSING_LABEL) -> Dataset:
        """A new dataset in which missing cells of categorical columns hold ``label``.

        Numbers have no category for 'missing': if a numeric column has missing cells, DatasetError says
        to drop those rows (:meth:`drop_missing`) or make the column categorical (:meth:`set_type`).
        """
        label = str(label).strip()
        if not label:
            raise DatasetError("the label for missing values must not be empty")
        report = self.missing_report()
        numeric = {c: report.per_column[c] for c in self.numeric_columns() if report.per_column[c]}
        if numeric:
            listed = ", ".join(f"{c!r} ({n} missing)" for c, n in numeric.items())
            raise DatasetError(
                f"missing values in a numeric column cannot become a category: {listed}; drop the rows "
                "with missing values, or make the column categorical first"
            )
        frame = self.frame.copy()
        filled = []
        for column in self.categorical_columns():
            if not report.per_column[column]:
                continue
            if (frame[column] == label).any():
                raise DatasetError(
                    f"column {column!r} already has the value {label!r}; choose another label for missing values"
                )
            frame[column] = frame[column].fillna(label)
            filled.append(column)
        return self._derived(frame, f"missing values labelled {label!r} in {len(filled)} columns")


def missing_as_token(frame: pd.DataFrame, token: str, columns=None) -> pd.DataFrame:
    """A copy of ``frame`` whose missing cells in ``columns`` (default: all) hold ``token``: the one way every
    path (studio run, Anonymize, the CLI, test files) keeps missing values as a category of their own."""
    out = frame.copy()
    for c in frame.columns if columns is None else columns:
        out[c] = out[c].astype(object).where(out[c].notna(), token)
    return out


# --- column conversion -------------------------------------------------------------------------------


def value_range(values) -> tuple[float, float, bool] | None:
    """(least, largest, every value whole) of numbers (e.g. a column's distinct values), None for none: what
    the bounds and numeric-kind proposals read from the data."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return None
    return float(v.min()), float(v.max()), bool(np.array_equal(v, np.round(v)))


def _tidy_numeric(series: pd.Series) -> pd.Series:
    """float64 -> int64 when nothing is missing and every value is whole."""
    values = series.to_numpy()
    if values.dtype.kind == "f" and values.size and np.isfinite(values).all() and (values == np.round(values)).all():
        if np.abs(values).max() < 2**53:
            return series.astype(np.int64)
    return series


def _parse_numbers(texts) -> np.ndarray:
    parsed = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=np.float64, copy=True)
    parsed[~np.isfinite(parsed)] = np.nan
    return parsed


def _as_numeric(series: pd.Series) -> tuple[pd.Series, dict[str, int]]:
    """Text column -> numbers, parsing each distinct value once; returns the values that were not numbers."""
    if series.dtype.kind in "iuf":
        return _tidy_numeric(series.astype(np.float64) if series.dtype.kind == "u" else series), {}
    codes, uniques = pd.factorize(series.map(_cell_text, na_action="ignore") if series.dtype == object else series)
    texts = [str(u) for u in uniques]
    parsed = _parse_numbers(texts)
    values = np.where(codes >= 0, parsed[np.maximum(codes, 0)], np.nan)
    bad: dict[str, int] = {}
    failed = np.flatnonzero(np.isnan(parsed))
    if failed.size:
        counts = np.bincount(codes[codes >= 0], minlength=len(texts))
        bad = {texts[i]: int(counts[i]) for i in failed}
    return _tidy_numeric(pd.Series(values, index=series.index, name=series.name)), bad


def _looks_numeric(text: pd.Series) -> bool:
    """Every distinct non-missing value is a number (checked on a few distinct values first)."""
    uniques = pd.unique(text.dropna())
    if len(uniques) == 0:
        return False
    if np.isnan(_parse_numbers([str(u) for u in uniques[:50]])).any():
        return False
    return not np.isnan(_parse_numbers([str(u) for u in uniques])).any()


def _number_text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def numbers_as_text(series: pd.Series) -> pd.Series:
    """A numeric column as the text a categorical column holds ('1', not '1.0'; missing stays missing)."""
    if series.dtype.kind not in "iuf":
        return series
    uniques = pd.unique(series.dropna())
    lookup = {u: _number_text(u.item() if hasattr(u, "item") else u) for u in uniques}
    return series.map(lookup, na_action="ignore").astype("str")


def _finish_column(series: pd.Series, missing: frozenset[str], kind: str | None) -> tuple[pd.Series, str]:
    """One loaded column -> (values, kind): text stripped, missing tokens to NaN, numbers recognised."""
    if series.dtype.kind == "b":
        series = series.astype(object)
    if series.dtype.kind == "f" and np.isinf(series.to_numpy()).any():
        series = numbers_as_text(series)  # 'inf' is text here: numeric columns hold finite numbers only
    if series.dtype.kind in "iuf":
        values, kind_out = _tidy_numeric(series), NUMERIC
    else:
        if series.dtype == object:
            series = series.map(_cell_text, na_action="ignore")
        text = series.astype("str")
        uniques = pd.unique(text.dropna())
        if any(u != u.strip() or u in missing for u in map(str, uniques)):
            text = text.str.strip()
            text = text.mask(text.isin(missing))
        values, kind_out = text, CATEGORICAL
        if kind != CATEGORICAL and _looks_numeric(text):
            values, kind_out = _as_numeric(text)[0], NUMERIC
    if kind == NUMERIC and kind_out != NUMERIC:
        bad = _as_numeric(values)[1]
        raise DatasetError(f"column {series.name!r} was asked to be numeric but holds text such as {_examples(bad)}")
    if kind == CATEGORICAL and kind_out == NUMERIC:
        values, kind_out = numbers_as_text(values), CATEGORICAL
    return values, kind_out


def _cell_text(value) -> str:
    if isinstance(value, float):
        return _number_text(value)
    return str(value)


def _examples(bad: dict[str, int], limit: int = 3) -> str:
    items = sorted(bad.items(), key=lambda kv: -kv[1])[:limit]
    return ", ".join(f"{v!r} ({n}x)" for v, n in items)


# --- the loader --------------------------------------------------------------------------------------


def load_table(
    path,
    sep: str | None = None,
    header: bool | None = None,
    missing: Iterable[str] = DEFAULT_MISSING,
    progress: Progress | None = None,
    encoding: str = "utf-8",
    types: Mapping[str, str] | None = None,
) -> Dataset:
    """Load a table from CSV/TSV text (optionally gzip-compressed), .xlsx or .parquet.

    sep: None sniffs one of ',' ';' tab '|' or ', '. header: None detects a first row of names; without a
    header the columns are named col1..colN. missing: cell texts that mean 'missing' (after stripping
    spaces). progress(done_bytes, total_bytes) is called as a large file is read; returning False raises
    :class:`Cancelled`. types: column name -> 'numeric'/'categorical' to fix kinds at load time.
    """
    p = _check_path(path)
    missing_set = frozenset(str(m).strip() for m in missing)
    types = dict(types or {})
    for column, kind in types.items():
        if kind not in KINDS:
            raise DatasetError(f"unknown column kind {kind!r} for {column!r}: use 'numeric' or 'categorical'")
    suffix = p.suffix.lower()
    if suffix == ".xls":
        raise DatasetError(f"{p.name} is an old-style .xls workbook; save it as .xlsx or CSV and load that")
    if suffix in EXCEL_SUFFIXES:
        return _load_excel(p, header, missing_set, progress, types)
    if suffix in PARQUET_SUFFIXES:
        return _load_parquet(p, missing_set, progress, types)
    return _load_text(p, sep, header, missing_set, progress, encoding, types)


def _check_path(path) -> Path:
    if path is None or str(path) == "":
        raise DatasetError("no file was given")
    p = Path(path).expanduser()
    if not p.exists():
        raise DatasetError(f"file not found: {p}")
    if p.is_dir():
        raise DatasetError(f"{p} is a folder; choose a data file inside it")
    try:
        size = p.stat().st_size
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise DatasetError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if size == 0:
        raise DatasetError(f"{p.name} is empty (0 bytes)")
    return p


def _file_sha256(p: Path) -> str:
    digest = hashlib.sha256()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(READ_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_gzip(p: Path) -> bool:
    with open(p, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


class _Tap(io.RawIOBase):
    """A readable stream that shows every block read from ``inner`` to ``on_data``."""

    def __init__(self, inner, on_data: Callable[[memoryview], None]):
        super().__init__()
        self._inner = inner
        self._on_data = on_data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._inner.readinto(buffer)
        if n:
            self._on_data(memoryview(buffer)[:n])
        return n


class _Source:
    """The raw file: hashes what is read and reports progress (bytes of the file as stored)."""

    def __init__(self, p: Path, progress: Progress | None):
        self.total = p.stat().st_size
        self.done = 0
        self.digest = hashlib.sha256()
        self._progress = progress
        self._file = open(p, "rb")
        self.stream = _Tap(self._file, self._seen)

    def _seen(self, block: memoryview) -> None:
        self.digest.update(block)
        self.done += len(block)
        self.report()

    def report(self) -> None:
        if self._progress is not None and self._progress(self.done, self.total) is False:
            raise Cancelled(f"loading was cancelled after {self.done} of {self.total} bytes")

    def drain(self) -> None:
        while self.stream.read(READ_BLOCK):
            pass

    def close(self) -> None:
        self._file.close()


def _open_text_bytes(p: Path):
    """Binary stream of the text (decompressed when the file is gzip)."""
    fh = open(p, "rb")
    return gzip.GzipFile(fileobj=fh, mode="rb") if _is_gzip(p) else fh


def _read_sample(p: Path, encoding: str) -> tuple[str, bool]:
    """The first lines of the text (whole lines only) and whether that is the whole file."""
    with _open_text_bytes(p) as fh:
        try:
            raw = fh.read(SAMPLE_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise DatasetError(f"{p.name} looks gzip-compressed but cannot be decompressed: {exc}") from exc
    whole = len(raw) <= SAMPLE_BYTES
    raw = raw[:SAMPLE_BYTES]
    _check_text_bytes(p, raw, encoding)
    if not whole and b"\n" in raw:
        raw = raw[: raw.rindex(b"\n") + 1]
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        text = decoder.decode(raw, final=whole)
    except UnicodeDecodeError as exc:
        raise _decode_error(p, encoding) from exc
    return text, whole


#: the leading bytes of binary formats people open by mistake, and what they are
BINARY_MAGIC = {
    b"PK\x03\x04": "a ZIP archive (an .xlsx or .docx workbook renamed, or a .zip)",
    b"\xd0\xcf\x11\xe0": "an old Office file (.xls or .doc)",
    b"PAR1": "a Parquet file",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"SQLite format 3": "an SQLite database",
}


def _check_text_bytes(p: Path, raw: bytes, encoding: str) -> None:
    """Refuse a file that is not text at all, in plain words (before any advice about text encodings): a
    known binary format by its first bytes, else NUL bytes in text that is not UTF-16 or UTF-32."""
    wide = codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")) or raw[:2] in (
        codecs.BOM_UTF16_LE,
        codecs.BOM_UTF16_BE,
    )
    what = next((name for magic, name in BINARY_MAGIC.items() if raw.startswith(magic)), None)
    if what is None and not wide and b"\x00" in raw:
        what = "binary data"
    if what is not None:
        raise DatasetError(
            f"{p.name} is not a text file: it holds {what}. Open a CSV or TSV text file, an Excel workbook "
            "named .xlsx or a .parquet file"
        )


def _decode_error(p: Path, encoding: str) -> DatasetError:
    """Find the first line that does not decode and say where it is."""
    with _open_text_bytes(p) as fh:
        start = fh.read(2)
    if start in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) and not encoding.startswith("utf-16"):
        return DatasetError(
            f"{p.name} is UTF-16 text (Excel's 'Unicode Text'); load it with encoding='utf-16', or re-save it "
            "as 'CSV UTF-8'"
        )
    offset = 0
    with _open_text_bytes(p) as fh:
        for number, line in enumerate(fh, start=1):
            try:
                line.decode(encoding)
            except UnicodeDecodeError as exc:
                bad = line[exc.start : exc.start + 1].hex()
                where = f"line {number}, byte offset {offset + exc.start} (byte 0x{bad})"
                break
            offset += len(line)
        else:
            where = "near the end of the file"
    name = "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf-8-sig", "utf8") else encoding
    return DatasetError(
        f"{p.name} is not valid {name} text at {where}. Re-save the file as UTF-8 (in Excel: "
        "'CSV UTF-8'), or load it with its encoding, e.g. encoding='latin-1'"
    )


def _python_encoding(encoding: str) -> str:
    try:
        name = codecs.lookup(encoding).name
    except LookupError as exc:
        raise DatasetError(f"unknown text encoding {encoding!r}") from exc
    return "utf-8-sig" if name == "utf-8" else name


def _column_names(first: list[str], header: bool, width: int) -> list[str]:
    if not header:
        return [f"col{i}" for i in range(1, width + 1)]
    names = [name if name else f"col{i}" for i, name in enumerate(first, start=1)]
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if name in seen:
            raise DatasetError(f"duplicate column name {name!r} (columns {seen[name]} and {i}); rename one of them")
        seen[name] = i
    return names


def _delimiter(sep: str) -> str:
    if sep == sniff.COMMA_SPACE:
        return ","
    if len(sep) != 1:
        raise DatasetError(f"separator {sep!r} is not supported: use one character, or ', '")
    return sep


def _load_text(p, sep, header, missing, progress, encoding, types) -> Dataset:
    encoding = _python_encoding(encoding)
    sample, whole = _read_sample(p, encoding)
    if not sample.strip():
        raise DatasetError(f"{p.name} has no data (only blank lines)")
    sep = sniff.sniff_separator(sample) if sep is None else sep
    delimiter = _delimiter(sep)
    rows = sniff.split_sample(sample, delimiter)
    has_header = sniff.looks_like_header(rows, missing) if header is None else bool(header)
    width = len(rows[0])
    names = _column_names(rows[0], has_header, width)
    unknown = [c for c in types if c not in names]
    if unknown:
        raise DatasetError(f"types were given for unknown columns: {', '.join(map(repr, unknown))}")
    dtypes = {i: str for i, name in enumerate(names) if types.get(name) == CATEGORICAL}

    source = _Source(p, progress)
    counter = sniff.FieldCounter(delimiter)
    if codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        counter.quoted = True  # bytes are not characters here: leave the row check to the csv module
    try:
        source.report()
        stream = source.stream
        if _is_gzip(p):
            stream = gzip.GzipFile(fileobj=io.BufferedReader(stream, READ_BLOCK), mode="rb")  # type: ignore[assignment]  # a readable binary stream as the tap reads it
        counted = io.BufferedReader(_Tap(stream, counter.feed), READ_BLOCK)
        frame = pd.read_csv(
            counted,
            sep=delimiter,
            header=0 if has_header else None,
            names=list(range(width)),
            dtype=dtypes or None,
            keep_default_na=False,
            na_values=sorted(missing),
            skipinitialspace=True,
            quotechar=sniff.QUOTE,
            encoding=encoding,
            engine="c",
        )
        source.drain()
        counter.finish()
    except UnicodeDecodeError as exc:
        raise _decode_error(p, encoding) from exc
    except pd.errors.EmptyDataError as exc:
        raise DatasetError(f"{p.name} has no data rows") from exc
    except pd.errors.ParserError as exc:
        error = _ragged_error(p, delimiter, encoding, counter)
        raise error or DatasetError(f"{p.name} could not be read as a table: {exc}") from exc
    except (gzip.BadGzipFile, EOFError, OSError) as exc:
        raise DatasetError(f"cannot read {p.name}: {exc}") from exc
    finally:
        source.close()
    if counter.bad or counter.quoted:
        error = _ragged_error(p, delimiter, encoding, counter)
        if error is not None:
            raise error
    if frame.empty:
        raise DatasetError(f"{p.name} has a header row but no data rows")
    frame.columns = names
    out_types = {}
    for name in names:
        frame[name], out_types[name] = _finish_column(frame[name], missing, types.get(name))
    shown_encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    return Dataset(frame, out_types, p, source.digest.hexdigest(), sep, has_header, shown_encoding)


def _ragged_error(p, delimiter, encoding, counter) -> DatasetError | None:
    if counter.bad is not None:
        line, fields = counter.bad
        expected, first = counter.expected, counter.expected_line
    else:
        with _open_text_bytes(p) as fh:
            text = io.TextIOWrapper(fh, encoding=encoding, newline="")
            found = sniff.first_ragged_line(text, delimiter)
        if found is None:
            return None
        line, fields, expected, first = found
    return DatasetError(
        f"{p.name}, line {line}: {fields} field{'' if fields == 1 else 's'} where line {first} has "
        f"{expected}; every row needs the same number of values (separator {delimiter!r})"
    )


def _frame_rows(frame: pd.DataFrame, limit: int = 200) -> list[list[str]]:
    head = frame.head(limit)
    return [["" if _isna(v) else _cell_text(v).strip() for v in row] for row in head.itertuples(index=False)]


def _isna(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _load_excel(p, header, missing, progress, types) -> Dataset:
    total = p.stat().st_size
    if progress is not None and progress(0, total) is False:
        raise Cancelled("loading was cancelled before it started")
    try:
        raw = pd.read_excel(p, header=None, dtype=object, engine="openpyxl")
    except Exception as exc:  # openpyxl raises many kinds (zip, XML, key errors) for a damaged workbook
        raise DatasetError(f"cannot read the workbook {p.name}: {exc}") from exc
    raw = raw.dropna(how="all").dropna(axis=1, how="all").reset_index(drop=True)
    if raw.empty:
        raise DatasetError(f"the first sheet of {p.name} is empty")
    rows = _frame_rows(raw)
    has_header = sniff.looks_like_header(rows, missing) if header is None else bool(header)
    names = _column_names(rows[0], has_header, raw.shape[1])
    frame = raw.iloc[1:].reset_index(drop=True) if has_header else raw
    if frame.empty:
        raise DatasetError(f"{p.name} has a header row but no data rows")
    frame.columns = names
    dataset = _finished(frame, names, missing, types, p, _file_sha256(p), has_header)
    if progress is not None and progress(total, total) is False:
        raise Cancelled("loading was cancelled")
    return dataset


def _load_parquet(p, missing, progress, types) -> Dataset:
    total = p.stat().st_size
    if progress is not None and progress(0, total) is False:
        raise Cancelled("loading was cancelled before it started")
    try:
        frame = pd.read_parquet(p)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for a damaged file
        raise DatasetError(f"cannot read the Parquet file {p.name}: {exc}") from exc
    frame = frame.reset_index(drop=True)
    names = [str(c) for c in frame.columns]
    _column_names(names, True, len(names))
    frame.columns = names
    if frame.empty:
        raise DatasetError(f"{p.name} has no data rows")
    dataset = _finished(frame, names, missing, types, p, _file_sha256(p), True)
    if progress is not None and progress(total, total) is False:
        raise Cancelled("loading was cancelled")
    return dataset


def _finished(frame, names, missing, types, p, sha, has_header) -> Dataset:
    unknown = [c for c in types if c not in names]
    if unknown:
        raise DatasetError(f"types were given for unknown columns: {', '.join(map(repr, unknown))}")
    columns, out_types = {}, {}
    for name in names:
        column = frame[name]
        if column.dtype == object:
            column = column.where(column.map(lambda v: not _isna(v)), np.nan)
            present = column.dropna()
            if len(present) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
                column = pd.to_numeric(column).astype(np.float64)
        columns[name], out_types[name] = _finish_column(column.rename(name), missing, types.get(name))
    return Dataset(pd.DataFrame(columns), out_types, p, sha, None, has_header, None)
