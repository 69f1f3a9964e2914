"""Loading a count stream: one whole non-negative count per timestamp, oldest first.

- ``read_counts(path)``: one count per line (an optional header line; with several columns, the column
  named ``count``), or a 1-D ``.npy`` array.
- ``read_column(path, column, time_column=None)``: a CSV with one row per timestamp; ``column`` holds the
  count; with ``time_column`` the rows are ordered by it (a time that appears twice is an error), else file
  order.
- ``read_ilinet(path, region, column="ILITOTAL", start=None)``: CDC FluView's ILINet layout (columns
  ``REGION``, ``YEAR``, ``WEEK``, one row per region and week, weeks in file order). ``region="national"``
  sums the regions of each (YEAR, WEEK); otherwise one region by name ("Region 4"). ``start="2002-W40"``
  keeps the weeks from that one on (before 2002-W40 the national series has 128 unreported summer weeks
  recorded as 0).

Errors are ``StreamInputError`` with one line (they may quote a value of the input: nothing is written
when they appear).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from dpstudio.algorithms.stream_runs import StreamInputError, check_stream
from dpstudio.io.histogram_input import HistogramInputError, read_counts_file


def read_counts(path) -> np.ndarray:
    """The histogram's counts-file reader (``io.histogram_input``) with the stream's checks."""
    try:
        return read_counts_file(path, check=check_stream)
    except HistogramInputError as exc:
        raise StreamInputError(str(exc).replace("the histogram is empty", "the stream is empty")) from None


def _checked(arr, where) -> np.ndarray:
    try:
        return check_stream(arr)
    except StreamInputError as exc:
        raise StreamInputError(f"{where}: {exc}") from None


def _read_table(path, sep=None) -> pd.DataFrame:
    p = Path(path)
    if not p.is_file():
        raise StreamInputError(f"data file {p} does not exist")
    try:
        return pd.read_csv(p, sep=sep or ",", dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise StreamInputError(f"{p}: not a readable CSV ({str(exc).splitlines()[0]})") from None


def _numbers(frame: pd.DataFrame, column: str, where) -> np.ndarray:
    if column not in frame.columns:
        raise StreamInputError(f"{where}: no column {column!r} (columns: {', '.join(map(str, frame.columns))})")
    cells = frame[column].astype(str).str.strip()
    empty = np.flatnonzero((cells == "").to_numpy())
    if empty.size:
        raise StreamInputError(f"{where}: column {column!r} has a missing count (data row {empty[0] + 1})")
    nums = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isnan(nums))
    if bad.size:
        raise StreamInputError(
            f"{where}: column {column!r}, data row {bad[0] + 1}: not a number {cells.iloc[bad[0]]!r}"
        )
    return nums


def read_column(path, column: str, time_column: str | None = None, sep=None) -> np.ndarray:
    frame = _read_table(path, sep)
    values = _numbers(frame, column, path)
    if time_column is not None:
        if time_column not in frame.columns:
            raise StreamInputError(f"{path}: no time column {time_column!r}")
        times = frame[time_column].astype(str).str.strip()
        as_num = pd.to_numeric(times, errors="coerce")
        key = as_num if not as_num.isna().any() else times
        dup = key[key.duplicated()]
        if len(dup):
            raise StreamInputError(f"{path}: time {dup.iloc[0]!r} appears twice in {time_column!r}")
        values = values[np.argsort(key.to_numpy(), kind="stable")]
    return _checked(values, path)


def parse_week(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{4})-?W(\d{1,2})\s*", str(text), re.IGNORECASE)
    if not m:
        raise StreamInputError(f"--from must look like 2002-W40, got {text!r}")
    return int(m.group(1)), int(m.group(2))


def read_ilinet(path, region: str, column: str = "ILITOTAL", start: str | None = None, sep=None) -> np.ndarray:
    frame = _read_table(path, sep)
    missing = [c for c in ("REGION", "YEAR", "WEEK") if c not in frame.columns]
    if missing:
        raise StreamInputError(f"{path}: not ILINet's layout (no column {missing[0]!r})")
    values = _numbers(frame, column, path)
    year = pd.to_numeric(frame["YEAR"], errors="coerce").to_numpy()
    week = pd.to_numeric(frame["WEEK"], errors="coerce").to_numpy()
    if np.isnan(year).any() or np.isnan(week).any():
        raise StreamInputError(f"{path}: YEAR and WEEK must be numbers")
    keep = np.ones(len(frame), bool)
    if region.lower() != "national":
        regions = frame["REGION"].astype(str).str.strip()
        keep = (regions == region).to_numpy()
        if not keep.any():
            raise StreamInputError(
                f"{path}: no region {region!r} (regions: {', '.join(regions.unique())}; or 'national')"
            )
    if start is not None:
        y0, w0 = parse_week(start)
        keep = keep & ((year > y0) | ((year == y0) & (week >= w0)))
    if not keep.any():
        raise StreamInputError(f"{path}: no week from {start} on")
    key = pd.Series(year[keep].astype(int) * 100 + week[keep].astype(int))
    summed = pd.Series(values[keep]).groupby(key.to_numpy(), sort=False).sum()  # weeks in file order
    return _checked(summed.to_numpy(), path)
