"""Input histograms: a counts file, or a numeric/ordinal column binned with public edges (pandas allowed).

Bins are public input (ALGORITHMS.md section 0): edges come from the user (a list, a range, a file) and
are never silently derived from the data. ``derive_edges`` exists for teaching only and returns the mark
``DERIVED_NOT_PRIVATE``; a histogram built on such edges is not a release.

Every problem raises ``HistogramInputError`` with a specific one-line message (which line, which column,
which values, how many rows); rows are never dropped silently.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from dpstudio.algorithms.interval_trees import HistogramInputError, check_counts

DERIVED_NOT_PRIVATE = "derived from the data: not private"


def _parse_number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise HistogramInputError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise HistogramInputError(f"{where}: {text!r} is not a finite number")
    return value


def read_counts_file(path, check=check_counts) -> np.ndarray:
    """Bin counts from ``path``: ``.npy`` (a 1-D array) or text/CSV with one count per line (an optional
    header line; with several columns, the column named ``count``). Blank lines are skipped. ``check``
    validates the parsed array (``dpstudio stream`` passes its own; its errors get the file's name too)."""
    p = Path(path)
    if not p.is_file():
        raise HistogramInputError(f"counts file {p} does not exist")
    if p.suffix.lower() == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise HistogramInputError(f"{p}: not a readable .npy array ({exc})") from None
        if arr.ndim != 1:
            raise HistogramInputError(f"{p}: expected a 1-D array of counts, got shape {arr.shape}")
        if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise HistogramInputError(f"{p}: counts must be numbers, got dtype {arr.dtype}")
        try:
            return check(arr)
        except ValueError as exc:
            raise type(exc)(f"{p}: {exc}") from None
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise HistogramInputError(f"{p}: not a text file (use one count per line, or .npy)") from None
    rows = [
        (i + 1, row) for i, row in enumerate(csv.reader(io.StringIO(text))) if row and any(cell.strip() for cell in row)
    ]
    if not rows:
        raise HistogramInputError(f"{p}: the histogram is empty (no counts)")
    col = 0
    first_line, first = rows[0]
    try:
        float(first[0])
        header = False
    except ValueError:
        header = True
    if header:
        names = [c.strip().lower() for c in first]
        if len(names) > 1:
            if "count" not in names:
                raise HistogramInputError(f"{p}: several columns but none named 'count'")
            col = names.index("count")
        rows = rows[1:]
    elif len(first) > 1:
        raise HistogramInputError(
            f"{p}, line {first_line}: one count per line expected, found {len(first)} "
            "values (add a header with a 'count' column)"
        )
    values = []
    for line, row in rows:
        if col >= len(row):
            raise HistogramInputError(f"{p}, line {line}: no value in column {col + 1}")
        cell = row[col].strip()
        v = _parse_number(cell, f"{p}, line {line}")
        if v < 0:
            raise HistogramInputError(f"{p}, line {line}: count {cell} is negative")
        if v != round(v):
            raise HistogramInputError(f"{p}, line {line}: count {cell} is not a whole number")
        values.append(int(round(v)))
    try:
        return check(np.array(values, dtype=np.int64))
    except ValueError as exc:
        raise type(exc)(f"{p}: {exc}") from None


def parse_edges(spec: str) -> np.ndarray:
    """Public bin edges from ``"17,25,35,90"``, ``"start:stop:step"`` (stop included as the last edge when it
    falls on the grid) or ``"@FILE"`` (one edge per line). At least 2 edges, strictly increasing."""
    spec = str(spec).strip()
    if spec.startswith("@"):
        p = Path(spec[1:])
        if not p.is_file():
            raise HistogramInputError(f"edges file {p} does not exist")
        items = [(f"{p}, line {i + 1}", s.strip()) for i, s in enumerate(p.read_text().splitlines()) if s.strip()]
        edges = np.array([_parse_number(s, w) for w, s in items])
    elif ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise HistogramInputError(f"edges range {spec!r} must be start:stop:step")
        start, stop, step = (_parse_number(x, "edges") for x in parts)
        if step <= 0:
            raise HistogramInputError(f"edges step must be positive, got {parts[2]}")
        k = math.floor((stop - start) / step + 1e-9)
        edges = start + step * np.arange(k + 1)
    else:
        edges = np.array([_parse_number(s.strip(), "edges") for s in spec.split(",") if s.strip()])
    if edges.size < 2:
        raise HistogramInputError(f"bin edges need at least 2 numbers, got {edges.size}")
    bad = np.flatnonzero(np.diff(edges) <= 0)
    if bad.size:
        i = bad[0]
        raise HistogramInputError(
            f"bin edges must be strictly increasing: edge {i + 2} ({edges[i + 1]:g}) is not above edge "
            f"{i + 1} ({edges[i]:g})"
        )
    return edges


def read_column(path, column: str, sep: str | None = None, missing: str = "error", numeric: bool = True):
    """One column of a CSV as floats (pandas), or as stripped strings with ``numeric=False``. Adult's files
    (", "-separated, '?' for missing) read as is. ``missing``: "error" (default: a message with the row
    count, for the data owner) or "drop". Returns (values, number of rows dropped); the number is data, the
    caller must not write or print it."""
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise HistogramInputError(f"data file {p} does not exist")
    try:
        df = pd.read_csv(p, sep=sep or ",", skipinitialspace=True, dtype=str, keep_default_na=False)
    except Exception as exc:  # pandas raises several parser error types
        raise HistogramInputError(f"{p}: cannot read as CSV ({exc})") from None
    names = {c.strip(): c for c in df.columns}
    if column not in names:
        raise HistogramInputError(f"{p}: no column {column!r} (columns: {', '.join(names)})")
    raw = df[names[column]].astype(str).str.strip()
    values, n_missing, _ = column_values(raw, column, missing, numeric)
    return values, n_missing


MISSING_TOKENS = ("", "?", "NA", "NaN", "nan")


def column_values(raw, column: str, missing: str = "error", numeric: bool = True, weights=None):
    """``read_column``'s checks on stripped texts ``raw`` (a pandas Series; None/NaN: missing), each row
    standing for ``weights[i]`` records when given (a data engine's counts per distinct value). Returns
    (values, records dropped as missing, the kept rows' weights or None)."""
    import pandas as pd

    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    is_missing = (raw.isna() | raw.isin(MISSING_TOKENS)).to_numpy()
    n_missing = int(is_missing.sum() if w is None else w[is_missing].sum())
    if n_missing and missing != "drop":
        raise HistogramInputError(
            f"column {column!r}: {n_missing} rows have a missing value (pass --drop-missing to leave them out)"
        )
    raw = raw[~is_missing]
    w = None if w is None else w[~is_missing]
    if not numeric:
        return raw.tolist(), n_missing, w
    values = pd.to_numeric(raw, errors="coerce")
    bad = values.isna().to_numpy()
    if bad.any():
        examples = ", ".join(repr(v) for v in raw[bad].unique()[:3])
        n_bad = int(bad.sum() if w is None else w[bad].sum())
        raise HistogramInputError(f"column {column!r}: {n_bad} values are not numbers (e.g. {examples})")
    return values.to_numpy(dtype=float), n_missing, w


def read_column_counts(
    engine, path, column: str, sep: str | None = None, missing: str = "error", numeric: bool = True, progress=None
):
    """``read_column`` through a data engine (``dpstudio.io.engines``): the column's distinct values and
    their record counts (the only thing the engine returns). Returns (values, records dropped, weights)."""
    import dataclasses

    from .engines import EngineError
    from .engines.source import describe

    try:
        source = describe(path, missing=MISSING_TOKENS)
        delimiter = sep or ","
        with open(source.path, "rb") as fh:  # read_column: the first line names the columns, split at sep
            first = fh.readline()
        if source.kind == "csv":
            import gzip

            if first[:2] == b"\x1f\x8b":
                with gzip.open(source.path, "rb") as gz:
                    first = gz.readline()
            names = tuple(n.strip() for n in first.decode("utf-8-sig").rstrip("\r\n").split(delimiter))
            source = dataclasses.replace(source, names=names, delimiter=delimiter, header=True)
        if column not in source.names:
            raise HistogramInputError(f"{path}: no column {column!r} (columns: {', '.join(source.names)})")
        frame, counts = engine.group_counts(source, [column], progress=progress)
    except EngineError as exc:
        raise HistogramInputError(str(exc)) from None
    raw = frame[column]
    if raw.dtype.kind in "iuf":  # a Parquet column of numbers: as text, like read_column's strings
        raw = raw.map(lambda v: v if v != v else (str(int(v)) if float(v).is_integer() else str(v)))
    return column_values(raw, column, missing, numeric, counts)


def histogram_from_values(values, edges, column: str = "value", weights=None) -> np.ndarray:
    """Counts of ``values`` in the bins [e_i, e_i+1) (the last bin also holds e_n). Values outside the bins
    are an error naming how many rows and which values. ``weights``: records per value (None: one each)."""
    v = np.asarray(values, dtype=float)
    e = np.asarray(edges, dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    outside = (v < e[0]) | (v > e[-1]) | ~np.isfinite(v)
    if outside.any():
        ex = ", ".join(f"{x:g}" for x in np.unique(v[outside])[:5])
        n_out = int(outside.sum() if w is None else w[outside].sum())
        raise HistogramInputError(
            f"column {column!r}: {n_out} rows lie outside the bins [{e[0]:g}, {e[-1]:g}] "
            f"(values {ex}); extend the edges or map them explicitly"
        )
    idx = np.searchsorted(e, v, side="right") - 1
    idx = np.minimum(idx, e.size - 2)
    return check_counts(_count(idx, e.size - 1, w))


def _count(idx, n: int, weights) -> np.ndarray:
    if weights is None:
        return np.bincount(idx, minlength=n).astype(np.int64)
    return np.bincount(idx, weights=weights, minlength=n).astype(np.int64)


def histogram_from_categories(values, categories, column: str = "value", weights=None) -> np.ndarray:
    """Counts of an ordinal column over its public, ordered categories (one bin each; none repeated).
    ``weights``: records per value (None: one each)."""
    cats = [str(c) for c in categories]
    twice = sorted({c for c in cats if cats.count(c) > 1})
    if twice:
        raise HistogramInputError(f"the categories name {', '.join(map(repr, twice))} more than once")
    pos = {c: i for i, c in enumerate(cats)}
    vals = [str(x).strip() for x in values]
    unknown = sorted({x for x in vals if x not in pos})
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    if unknown:
        n_bad = sum(1 if w is None else int(w[i]) for i, x in enumerate(vals) if x not in pos)
        raise HistogramInputError(
            f"column {column!r}: {n_bad} rows have values outside the categories ({', '.join(unknown[:5])})"
        )
    return check_counts(_count(np.asarray([pos[x] for x in vals], dtype=np.int64), len(cats), w))


def derive_edges(values, n_bins: int):
    """Equal-width edges spanning the data's min and max: TEACHING ONLY. Returns (edges, mark) with the
    mark ``DERIVED_NOT_PRIVATE``: the bounds leak the extreme values, so the result is not a release."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise HistogramInputError("cannot derive edges from an empty column")
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        hi = lo + 1.0
    return np.linspace(lo, hi, int(n_bins) + 1), DERIVED_NOT_PRIVATE
