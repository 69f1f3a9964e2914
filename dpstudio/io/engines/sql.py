"""The SQL the DuckDB and Spark engines run, and what comes back from it: aggregates only.

- ``group_counts``: ``SELECT <used columns>, COUNT(*) ... GROUP BY`` them (the raw values first, then the
  cleaned ones: ``distinct_rows``): the distinct combinations of the release's columns with how many
  records hold each (text trimmed, the missing tokens as NULL, as
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
from typing import Any

import numpy as np
import pandas as pd

from ..dataset_fingerprint import DatasetPrint, add_row_sums, combine_sums, print_from_sums
from ..datasets import Cancelled
from . import EngineError
from .source import Source

EngineProgress = Callable[[float, str], object]
POLL_SECONDS = 0.2
COUNT = "dpstudio_records"
#: how load_table reads a column (``SqlEngine.column_kinds``)
NUMBER, NUMBERS_AS_TEXT, BOOLEAN, TEXT = "number", "numbers as text", "boolean", "text"
#: the words pandas' CSV parser reads as booleans (load_table then writes them 'True' and 'False')
BOOL_TOKENS = ("True", "TRUE", "true", "False", "FALSE", "false")
FLOAT_MAX = "1.7976931348623157e308"
#: the weight of a distinct raw row (``distinct_rows``); a file's own column of this name is refused
WEIGHT = "dpstudio_weight"


def check_reserved(columns):
    """``columns``, or EngineError when one has a name the engines' queries use for their own counts."""
    if any(str(c) in (WEIGHT, COUNT) for c in columns):
        raise EngineError(f"a column named {WEIGHT!r} or {COUNT!r} cannot be read by the data engines")
    return columns


def distinct_rows(quote: Callable[[str], str], columns) -> str:
    """``SELECT <columns>, COUNT(*) AS WEIGHT ... GROUP BY`` them, as the file holds them: grouping the raw
    values first and trimming and mapping the missing tokens on the distinct rows only (a second GROUP BY
    merges rows that differ in spaces alone) reads each record once, through the cheapest aggregate."""
    names = [quote(c) for c in check_reserved(columns)]
    return f"SELECT {', '.join(names)}, COUNT(*) AS {WEIGHT} FROM src GROUP BY {', '.join(names)}"


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

    def cleaned(self, source: Source, columns, kinds: dict[str, bool]) -> str:
        """The select list of ``columns`` as ``load_table`` reads them (``column``), each under its own name."""
        return ", ".join(f"{self.column(source, c, kinds[c])} AS {self.quote(c)}" for c in columns)

    def first_rows(self, source: Source, rows: int) -> pd.DataFrame:
        """The file's first ``rows`` rows, cleaned: the engine stops after them (no scan of the file)."""
        kinds = self.register(source)
        return self.frame(f"SELECT {self.cleaned(source, source.names, kinds)} FROM src LIMIT {int(rows)}")

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
        keys = ", ".join(str(i + 1) for i in range(len(columns)))
        rows = distinct_rows(self.quote, columns)
        sql = f"SELECT {self.cleaned(source, columns, kinds)}, CAST(SUM({WEIGHT}) AS BIGINT) AS {COUNT} FROM ({rows}) AS r GROUP BY {keys} ORDER BY {keys}"
        out = self.watched(lambda: self.frame(sql), progress, "counting records per distinct value")
        counts = out.pop(COUNT).to_numpy(dtype=np.int64)
        for c in columns:
            if kinds[c]:
                out[c] = out[c].astype(object).where(out[c].notna(), np.nan)
        return out.reset_index(drop=True), counts

    def column_kinds(self, source: Source, kinds: dict[str, bool], relation: str = "src") -> dict[str, str]:
        """{column: how ``load_table`` reads it}: ``NUMBER`` (every present value a finite number as pandas
        parses it: not '1_000', 'nan' or 'inf'), ``NUMBERS_AS_TEXT`` (numbers with an infinity among them:
        pandas reads them as floats, then the loader writes them as text, 'Infinity' as 'inf'),
        ``BOOLEAN`` (every present value True/TRUE/true/False/FALSE/false, or a native boolean: text
        'True'/'False'), else ``TEXT``. One aggregate query over ``relation``: the file, or its distinct rows
        (each test holds for every value exactly when it holds for every distinct value)."""
        text = [c for c in source.names if kinds[c]]
        native = {c: self.native_type(c) for c in source.names if not kinds[c]}
        floats = [c for c, t in native.items() if t == "float"]
        parts = []
        for i, c in enumerate(text):
            e = self.column(source, c, True)
            x = f"(CASE WHEN instr({e}, '_') = 0 THEN TRY_CAST({e} AS DOUBLE) END)"
            tokens = ", ".join(literal(t) for t in BOOL_TOKENS)
            parts += [
                f"COUNT({e}) AS p{i}",
                f"COUNT(CASE WHEN abs({x}) < {FLOAT_MAX} THEN 1 END) AS n{i}",
                f"COUNT(CASE WHEN {x} IS NOT NULL AND NOT isnan({x}) THEN 1 END) AS m{i}",  # Spark: isnan(NULL) false
                f"COUNT(CASE WHEN {e} IN ({tokens}) THEN 1 END) AS b{i}",
            ]
        for i, c in enumerate(floats):
            q = self.quote(c)
            parts.append(
                f"COUNT(CASE WHEN {q} IS NOT NULL AND NOT isnan({q}) AND NOT abs({q}) < {FLOAT_MAX} THEN 1 END) AS f{i}"
            )
        row: Any = self.frame(f"SELECT {', '.join(parts)} FROM {relation}").iloc[0] if parts else {}
        out = {}
        for i, c in enumerate(text):
            present = int(row[f"p{i}"])
            if present and int(row[f"n{i}"]) == present:
                out[c] = NUMBER
            elif present and int(row[f"m{i}"]) == present:
                out[c] = NUMBERS_AS_TEXT
            elif present and int(row[f"b{i}"]) == present:
                out[c] = BOOLEAN
            else:
                out[c] = TEXT
        for c, t in native.items():
            if t == "bool":
                out[c] = BOOLEAN
            elif c in floats and int(row[f"f{floats.index(c)}"]):
                out[c] = NUMBERS_AS_TEXT
            else:
                out[c] = NUMBER
        return {c: out[c] for c in source.names}

    def native_type(self, column: str) -> str:
        """'bool', 'float' or 'other' for a column the file types natively (Parquet); engines override."""
        return "other"

    def print_rows(self, source: Source, progress: EngineProgress | None) -> str:
        """The relation the column kinds and the print read: the file's rows, each of weight 1 (column
        ``WEIGHT``). DuckDB's engine may give the distinct raw rows with their counts instead (the same
        print: a row's hash times its count)."""
        names = ", ".join(self.quote(c) for c in check_reserved(source.names))
        return f"(SELECT {names}, 1 AS {WEIGHT} FROM src) AS r"

    def print_query(self, source: Source, progress: EngineProgress | None) -> tuple[str, dict[str, str]]:
        kinds = self.register(source)
        rows = self.print_rows(source, progress)
        read = self.watched(lambda: self.column_kinds(source, kinds, rows), progress, "reading column kinds")
        keys = ", ".join(str(i + 1) for i in range(len(source.names)))
        # identical rows hashed once and counted: sum of row hashes = sum over distinct rows of hash x count
        return (
            f"SELECT {self.cleaned(source, source.names, kinds)}, CAST(SUM({WEIGHT}) AS BIGINT) AS {COUNT} FROM {rows} GROUP BY {keys}",
            read,
        )

    def table_print(self, source: Source, progress: EngineProgress | None = None) -> DatasetPrint:
        raise NotImplementedError


def as_loaded(chunk: pd.DataFrame, read: dict[str, str]) -> pd.DataFrame:
    """A streamed chunk with the values ``load_table`` gives (``SqlEngine.column_kinds``): numbers as
    float64, numbers with an infinity and booleans as the loader's text, text as text."""
    from ..datasets import numbers_as_text

    out = {}
    for c in chunk.columns:
        col = chunk[c]
        kind = read.get(c, TEXT)
        if kind == NUMBER:
            out[c] = pd.to_numeric(col).astype(np.float64)
        elif kind == NUMBERS_AS_TEXT:
            out[c] = numbers_as_text(pd.to_numeric(col).astype(np.float64))
        elif kind == BOOLEAN:
            words = col.map(_boolean_word, na_action="ignore")
            out[c] = words.astype(object).where(col.notna(), np.nan)
        else:
            out[c] = col.astype(object).where(col.notna(), np.nan).astype("str").where(col.notna(), np.nan)
    return pd.DataFrame(out)


def _boolean_word(value) -> str:
    """'True' or 'False' for a boolean as an engine returns it: a token, a native bool, or 1.0/0.0 (Spark
    casts a native boolean column to double)."""
    if isinstance(value, str):
        return "True" if value.lower() == "true" else "False"
    return "True" if bool(value) else "False"


def partial_print(chunks: Iterator[pd.DataFrame], read: dict[str, str]):
    """Row-hash sums of chunks of ``print_query``'s distinct rows with their counts (column ``COUNT``)."""

    def loaded():
        for chunk in chunks:
            counts = chunk.pop(COUNT).to_numpy(dtype=np.int64)
            yield as_loaded(chunk, read), counts

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
