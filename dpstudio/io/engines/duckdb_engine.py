"""The DuckDB engine: embedded, reads CSV/TSV (.gz) and Parquet in place, spills to disk (out of core)."""

from __future__ import annotations

import os
import tempfile

import pandas as pd

from .. import datasets as ds
from . import EngineError
from .source import Source
from .sql import (
    EngineProgress,
    SqlEngine,
    check_reserved,
    combine_prints,
    distinct_rows,
    literal,
    partial_print,
)

#: DuckDB's own memory limit (it spills beyond it); $DPSTUDIO_DUCKDB_MEMORY overrides
MEMORY_LIMIT = "2GB"
CHUNK_VECTORS = 512  # x 2048 rows per streamed chunk
PRINT_ROWS = "dpstudio_print_rows"
#: ``print_rows`` groups the raw rows first when at most 1 in REPEATS of the first HEAD rows is distinct
HEAD, REPEATS = 1_000_000, 4


class DuckDBEngine(SqlEngine):
    name = "duckdb"

    def __init__(self):
        try:
            import duckdb
        except ImportError:
            raise EngineError("--engine duckdb needs the duckdb package (pip install duckdb)") from None
        self._duckdb = duckdb
        self.con = duckdb.connect(
            ":memory:",
            config={
                "memory_limit": os.environ.get("DPSTUDIO_DUCKDB_MEMORY", MEMORY_LIMIT),
                "temp_directory": os.path.join(tempfile.gettempdir(), "dpstudio-duckdb"),
            },
        )
        self.con.execute("SET enable_progress_bar = true")  # query_progress() for the progress callback
        self.con.execute("SET enable_progress_bar_print = false")
        self._registered = None
        self._native: dict[str, str] = {}

    def quote(self, name: str) -> str:
        return '"' + str(name).replace('"', '""') + '"'

    def register(self, source: Source) -> dict[str, bool]:
        if self._registered is not None and self._registered[0] == source:
            return self._registered[1]
        path = literal(str(source.path))
        if source.kind == "parquet":
            scan = f"read_parquet({path})"
        else:
            columns = ", ".join(f"{literal(n)}: {literal(self.text_type)}" for n in source.names)
            scan = (
                f"read_csv({path}, delim={literal(source.delimiter)}, header={str(source.header).lower()}, "
                f"quote='\"', escape='\"', auto_detect=false, columns={{{columns}}}, "
                f"compression={literal('gzip' if ds._is_gzip(source.path) else 'none')})"
            )
        try:
            self.con.execute(f"CREATE OR REPLACE VIEW src AS SELECT * FROM {scan}")
            types = self.con.execute("DESCRIBE SELECT * FROM src").fetchall()
        except self._duckdb.Error as exc:
            raise EngineError(f"duckdb cannot read {source.path.name}: {str(exc).splitlines()[0]}") from None
        kinds = {str(name): not _is_number(str(kind)) for name, kind, *_ in types}
        self._native = {str(name): _native(str(kind)) for name, kind, *_ in types}
        self._registered = (source, kinds)
        return kinds

    def native_type(self, column: str) -> str:
        return self._native.get(column, "other")

    def frame(self, sql: str) -> pd.DataFrame:
        try:
            return self.con.execute(sql).df()
        except self._duckdb.InterruptException:
            raise
        except self._duckdb.Error as exc:
            raise EngineError(f"duckdb: {str(exc).splitlines()[0]}") from None

    def fraction_done(self) -> float | None:
        try:
            p = self.con.query_progress()
        except Exception:  # no query running yet
            return None
        return max(0.0, min(1.0, p / 100.0)) if p is not None and p >= 0 else None

    def interrupt(self) -> None:
        self.con.interrupt()

    def print_rows(self, source: Source, progress: EngineProgress | None) -> str:
        """When the file repeats its records (at most one in ``REPEATS`` of its first ``HEAD`` rows
        distinct), its distinct raw rows in a temporary table (spilled to disk beyond the memory limit):
        the column kinds and the print both read that, so the file is read once (a billion resampled
        rows: 113 s instead of about 420). Otherwise the file itself, as the other engines read it: with
        every row distinct, grouping twice costs more than it saves (benchmarks/RESULTS.md). Either way
        the print is the same; only its speed depends on the guess."""
        names = ", ".join(self.quote(c) for c in check_reserved(source.names))
        distinct, head = self.con.execute(
            f"SELECT approx_count_distinct(hash({names})), count(*) FROM (SELECT * FROM src LIMIT {HEAD})"
        ).fetchone()
        if not head or int(distinct) * REPEATS > int(head):
            return super().print_rows(source, progress)
        rows = distinct_rows(self.quote, source.names)
        self.watched(
            lambda: self.con.execute(f"CREATE OR REPLACE TEMP TABLE {PRINT_ROWS} AS {rows}"),
            progress,
            "reading the table's rows for the budget store",
        )
        return PRINT_ROWS

    def table_print(self, source: Source, progress: EngineProgress | None = None):
        try:
            sql, read = self.print_query(source, progress)

            def run():
                result = self.con.execute(sql)

                def chunks():
                    while True:
                        chunk = result.fetch_df_chunk(CHUNK_VECTORS)
                        if chunk.empty:
                            return
                        yield chunk

                return combine_prints([partial_print(chunks(), read)])

            return self.watched(run, progress, "fingerprinting the table for the budget store")
        finally:
            self.con.execute(f"DROP TABLE IF EXISTS {PRINT_ROWS}")

    def close(self) -> None:
        self.con.close()


def _native(kind: str) -> str:
    k = kind.upper()
    if k == "BOOLEAN":
        return "bool"
    return "float" if k.startswith(("DOUBLE", "FLOAT", "REAL")) else "other"


def _is_number(kind: str) -> bool:
    k = kind.upper()
    return k.startswith(
        (
            "TINYINT",
            "SMALLINT",
            "INTEGER",
            "BIGINT",
            "HUGEINT",
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT",
            "FLOAT",
            "DOUBLE",
            "DECIMAL",
            "REAL",
        )
    )
