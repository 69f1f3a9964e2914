"""The SQL the DuckDB and Spark engines run, and what comes back from it: aggregates only.

- ``group_counts``: ``SELECT <used columns>, COUNT(*) ... GROUP BY`` them: the distinct combinations of the
  release's columns with how many records hold each (text trimmed, the missing tokens as NULL, as
  ``io.datasets.load_table`` reads them). The driver maps them to taxonomy leaves, checks them against the
  public domains and runs the algorithms on them as weighted records.
- ``table_print``: the budget store's fingerprint of the whole table (``io.dataset_fingerprint``): the
  table's distinct rows with their counts (``GROUP BY`` every column), each row's hash times its count,
  summed chunk by chunk (DuckDB streams the chunks to the driver, Spark sums on its executors): the same
  print as the numpy engine's, so a dataset is charged once whichever engine reads it.

Progress and cancel: ``progress(fraction, what)`` is called about five times a second while a query runs;
returning False interrupts the query and raises ``io.datasets.Cancelled`` (nothing is returned).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd

from ..dataset_fingerprint import DatasetPrint, add_row_sums, combine_sums, print_from_sums
from ..datasets import Cancelled
from . import EngineError
from .source import Source

EngineProgress = Callable[[float, str], object]
POLL_SECONDS = 0.2
COUNT = "dpstudio_records"


def literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


class SqlEngine:
    """Shared by DuckDB and Spark; subclasses register the file as the view ``src`` and run the SQL."""

    name = "sql"
    text_type = "VARCHAR"

    # -- hooks -------------------------------------------------------------------------------------------
    def register(self, source: Source) -> dict[str, bool]:
        """Make ``src`` the file's table; {column: holds text (else a native number)}."""
        raise NotImplementedError

    def quote(self, name: str) -> str:
        raise NotImplementedError

    def frame(self, sql: str) -> pd.DataFrame:
        raise NotImplementedError

    def fraction_done(self) -> float | None:
        return None

    def interrupt(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- shared ------------------------------------------------------------------------------------------
    def column(self, source: Source, name: str, is_text: bool) -> str:
        """The column as ``load_table`` reads it: text trimmed with the missing tokens as NULL; numbers."""
        q = self.quote(name)
        if not is_text:
            return f"CAST({q} AS DOUBLE)"
        t = f"trim(CAST({q} AS {self.text_type}))"
        tokens = ", ".join(literal(m) for m in sorted(source.missing))
        return f"CASE WHEN {t} IN ({tokens}) THEN NULL ELSE {t} END" if tokens else t

    def watched(self, run: Callable[[], object], progress: EngineProgress | None, what: str):
        """Run ``run()`` in a thread, reporting progress and interrupting it when progress says False."""
        if progress is None:
            return run()
        box: dict = {}

        def target():
            try:
                box["value"] = run()
            except BaseException as exc:  # re-raised on the calling thread
                box["error"] = exc

        worker = threading.Thread(target=target, name=f"dpstudio-{self.name}", daemon=True)
        worker.start()
        cancelled = False
        while worker.is_alive():
            worker.join(POLL_SECONDS)
            if not worker.is_alive():
                break
            if cancelled or progress(self.fraction_done() or 0.0, what) is False:
                cancelled = True
                self.interrupt()  # again at every poll: a query may start after the first interrupt
        if cancelled:
            raise Cancelled(f"{self.name}: {what} was cancelled")
        if "error" in box:
            raise box["error"]
        progress(1.0, what)
        return box.get("value")

    def group_counts(
        self, source: Source, columns, progress: EngineProgress | None = None
    ) -> tuple[pd.DataFrame, np.ndarray]:
        """(distinct rows of ``columns``, records per row): the release's only look at the data."""
        columns = list(columns)
        missing = [c for c in columns if c not in source.names]
        if missing:
            raise EngineError(f"{', '.join(map(repr, missing))} not a column of {source.path}")
        kinds = self.register(source)
        exprs = [f"{self.column(source, c, kinds[c])} AS {self.quote(c)}" for c in columns]
        keys = ", ".join(str(i + 1) for i in range(len(columns)))
        sql = f"SELECT {', '.join(exprs)}, COUNT(*) AS {COUNT} FROM src GROUP BY {keys} ORDER BY {keys}"
        out = self.watched(lambda: self.frame(sql), progress, "counting records per distinct value")
        counts = out.pop(COUNT).to_numpy(dtype=np.int64)
        for c in columns:
            if kinds[c]:
                out[c] = out[c].astype(object).where(out[c].notna(), np.nan)
        return out.reset_index(drop=True), counts

    def numeric_columns(self, source: Source, kinds: dict[str, bool]) -> set[str]:
        """The text columns every present value of which is a number (read as numbers, like load_table)."""
        text = [c for c in source.names if kinds[c]]
        if not text:
            return {c for c in source.names if not kinds[c]}
        parts = []
        for i, c in enumerate(text):
            e = self.column(source, c, True)
            parts.append(f"COUNT({e}) AS p{i}, COUNT(TRY_CAST({e} AS DOUBLE)) AS n{i}")
        row = self.frame(f"SELECT {', '.join(parts)} FROM src").iloc[0]
        numeric = {c for i, c in enumerate(text) if row[f"p{i}"] > 0 and row[f"n{i}"] == row[f"p{i}"]}
        return numeric | {c for c in source.names if not kinds[c]}

    def print_query(self, source: Source, progress: EngineProgress | None) -> tuple[str, set[str]]:
        kinds = self.register(source)
        numeric = self.watched(lambda: self.numeric_columns(source, kinds), progress, "reading column kinds")
        exprs = [f"{self.column(source, c, kinds[c])} AS {self.quote(c)}" for c in source.names]
        keys = ", ".join(str(i + 1) for i in range(len(exprs)))
        # identical rows hashed once and counted: sum of row hashes = sum over distinct rows of hash x count
        return f"SELECT {', '.join(exprs)}, COUNT(*) AS {COUNT} FROM src GROUP BY {keys}", numeric

    def table_print(self, source: Source, progress: EngineProgress | None = None) -> DatasetPrint:
        raise NotImplementedError


def as_loaded(chunk: pd.DataFrame, numeric: set[str]) -> pd.DataFrame:
    """A streamed chunk with the column types ``load_table`` gives: numbers as float64, text as text."""
    out = {}
    for c in chunk.columns:
        col = chunk[c]
        if c in numeric:
            out[c] = pd.to_numeric(col).astype(np.float64)
        else:
            out[c] = col.astype(object).where(col.notna(), np.nan).astype("str").where(col.notna(), np.nan)
    return pd.DataFrame(out)


def partial_print(chunks: Iterator[pd.DataFrame], numeric: set[str]):
    """Row-hash sums of chunks of ``print_query``'s distinct rows with their counts (column ``COUNT``)."""

    def loaded():
        for chunk in chunks:
            counts = chunk.pop(COUNT).to_numpy(dtype=np.int64)
            yield as_loaded(chunk, numeric), counts

    return add_row_sums(loaded())


def combine_prints(parts) -> DatasetPrint:
    names, sums, rows = None, None, 0
    for n, s, r in parts:
        if n is None:
            continue
        names = n
        sums = s if sums is None else combine_sums(sums, s)
        rows += r
    if names is None:
        raise EngineError("the table has no rows")
    return print_from_sums(names, sums, rows)
