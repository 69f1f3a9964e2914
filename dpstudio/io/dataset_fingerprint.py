"""An order-insensitive fingerprint of a parsed table: which dataset a release spends its budget on.

``table_print(frame)`` hashes the *parsed records*, not the file's bytes: each row gets two 64-bit hashes
(``pandas.util.hash_pandas_object`` under two hash keys, columns taken in sorted-name order), and the
row hashes are summed modulo 2^64. A sum does not depend on the order of the rows, so shuffled rows, CRLF
against LF line ends, a trailing newline or reordered columns give the same print; a changed, added or
removed record changes both sums (a duplicate record counts twice). The sorted column names go into the
print too. Whole numbers are hashed as floats, so a column read as int64 in one file and float64 in
another (the same values) gives the same print.

Beside the exact print, two looser ones let the budget store recognise the same people under trivial edits
(``budget_store.BudgetStore.related``):

- ``column_prints``: one per column, over the column's values as a multiset (order-insensitive, the
  column's name ignored): a renamed column keeps its print, an added or dropped column leaves the others'.
- ``distinct``: over the distinct records (each distinct row once), so duplicating every row keeps it.

``counts_print(counts)`` does the same for a histogram's bin counts (a counts file is data too); there the
bin number is part of each row, so the order of the bins matters.

Privacy: the print is a hash of the private records (a guess of the whole table can be checked against
it), so it is kept in the local budget store only and never written to a release artefact. The size kept
with it is approximate (``approximate_size``): no exact count of rows goes into the store either.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: two independent 16-character keys for pandas' SipHash-based row hashing
HASH_KEYS = ("dpstudio-print-1", "dpstudio-print-2")


@dataclass(frozen=True)
class DatasetPrint:
    """What the budget store knows about a dataset: its fingerprint, sorted column names, rounded size."""

    fingerprint: str  # hex; a hash of the private records (never published)
    columns: tuple[str, ...]
    approx_rows: int  # approximate_size(records), never the exact count
    column_prints: tuple[str, ...] = ()  # sorted; one per column, names ignored (never published)
    distinct: str = ""  # hex; a hash of the distinct records ("" where not computed: counts files)
    approx_distinct: int = 0  # approximate_size(distinct records)


def approximate_size(n: int) -> int:
    """``n`` rounded to two significant figures, and at least to the nearest ten (7 -> 10, 1234 -> 1200)."""
    n = int(n)
    if n <= 0:
        return 0
    step = max(10, 10 ** (int(math.floor(math.log10(n))) - 1))
    return max(step, (n + step // 2) // step * step)  # halves round up


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns in sorted-name order; numeric columns as float64 (+0.0 folds -0.0 into 0.0)."""
    names = sorted(str(c) for c in frame.columns)
    if len(set(names)) != len(names):
        raise ValueError("the table has two columns with the same name")
    by_name = {str(c): c for c in frame.columns}
    out = {}
    for name in names:
        col = frame[by_name[name]]
        if col.dtype.kind in "iuf":
            col = col.astype(np.float64) + 0.0
        elif col.dtype.kind == "b":
            col = col.astype(np.float64)
        out[name] = col.reset_index(drop=True)
    return pd.DataFrame(out)


def _hashes(frame: pd.DataFrame, key: str) -> np.ndarray:
    return pd.util.hash_pandas_object(frame, index=False, hash_key=key).to_numpy(dtype=np.uint64)


def _wrapped_sum(hashes: np.ndarray, weights: np.ndarray | None = None) -> int:
    if weights is not None:  # a row standing for w identical rows adds its hash w times (wrapping)
        hashes = hashes * np.asarray(weights, dtype=np.uint64)
    return int(hashes.sum(dtype=np.uint64))  # numpy's unsigned sum wraps: modulo 2^64


def _row_sum(frame: pd.DataFrame, key: str, weights: np.ndarray | None = None) -> int:
    return _wrapped_sum(_hashes(frame, key), weights)


def _chunk_sums(canon: pd.DataFrame, weights: np.ndarray | None) -> list[int]:
    """A chunk's sums: the row hashes under each key, the distinct rows' hashes, then each column's value
    hashes (the column's name left out); the number of distinct rows follows their sum. A chunk of raw rows (``weights`` None) counts its distinct rows
    itself; a weighted chunk's rows are distinct already (a GROUP BY over every column)."""
    rows = [_hashes(canon, key) for key in HASH_KEYS]
    sums = [_wrapped_sum(h, weights) for h in rows]
    distinct = rows[0] if weights is not None else np.unique(rows[0])
    sums += [_wrapped_sum(distinct), int(distinct.size)]
    for name in canon.columns:
        values = pd.util.hash_pandas_object(canon[name], index=False, hash_key=HASH_KEYS[0]).to_numpy(dtype=np.uint64)
        sums.append(_wrapped_sum(values, weights))
    return sums


def _digest(kind: str, names, sums) -> str:
    h = hashlib.sha256()
    h.update(kind.encode())
    for name in names:
        h.update(b"\x00" + name.encode("utf-8", "surrogatepass"))
    for s in sums:
        h.update(b"\x01" + s.to_bytes(8, "little"))
    return h.hexdigest()[:32]


def table_print(frame: pd.DataFrame) -> DatasetPrint:
    """The fingerprint of a table's records (all its columns, missing cells included)."""
    return table_print_chunks([frame])


def table_print_chunks(chunks) -> DatasetPrint:
    """``table_print`` of the rows of several frames (same columns) taken together: the row hashes are
    summed, so a table streamed in chunks (the data engines, ``dpstudio.io.engines``) gets the same print
    as the whole table loaded at once."""
    names, sums, rows = add_row_sums(chunks)
    if names is None or sums is None:
        raise ValueError("no rows to fingerprint")
    return print_from_sums(names, sums, rows)


def add_row_sums(chunks) -> tuple[tuple | None, list[int], int]:
    """(sorted column names, sums, rows) of chunks: part of a print, to combine with other parts
    (``combine_sums``, ``print_from_sums``). A chunk is a frame, or (frame, counts) when its rows are
    distinct rows each standing for ``counts[i]`` identical rows (a data engine's GROUP BY: chunks of one
    such query never repeat a row, so the distinct records' sum adds up across them). Frames of raw rows
    are deduplicated within themselves only: pass the table as one frame. ``sums``: the row-hash sums
    under each key, the distinct rows' sum and number, and one sum per column in sorted-name order."""
    names: tuple | None = None
    sums: list[int] = []
    rows = 0
    for chunk in chunks:
        frame, weights = chunk if isinstance(chunk, tuple) else (chunk, None)
        canon = _canonical(frame)
        names = tuple(canon.columns)
        part = _chunk_sums(canon, weights)
        sums = combine_sums(sums, part) if sums else part
        rows += len(canon) if weights is None else int(np.sum(weights))
    return names, sums, rows


def combine_sums(a, b) -> list[int]:
    return [(x + y) % (1 << 64) for x, y in zip(a, b)]


def print_from_sums(names, sums, rows: int) -> DatasetPrint:
    """The ``DatasetPrint`` of a table from its sorted column names and its combined sums (``add_row_sums``;
    only the row-hash sums under each key, in prints made before the looser ones were kept)."""
    n = len(HASH_KEYS)
    exact = _digest("table", tuple(names), sums[:n])
    if len(sums) < n + 2 + len(names):
        return DatasetPrint(exact, tuple(names), approximate_size(rows))
    distinct = _digest("distinct", tuple(names), [sums[n]])
    columns = tuple(sorted(_digest("column", (), [s]) for s in sums[n + 2 :]))
    return DatasetPrint(exact, tuple(names), approximate_size(rows), columns, distinct, approximate_size(sums[n + 1]))


def counts_print(counts) -> DatasetPrint:
    """The fingerprint of a histogram's bin counts (bin order matters); its size is the records counted."""
    c = np.asarray(counts, dtype=np.int64).reshape(-1)
    frame = pd.DataFrame({"bin": np.arange(c.size, dtype=np.float64), "count": c.astype(np.float64)})
    sums = [_row_sum(frame, key) for key in HASH_KEYS]
    names = ("bin", "count")
    return DatasetPrint(_digest("counts", names, sums), names, approximate_size(int(c.sum())))
