"""Data engines: where the data-touching steps of a release run (numpy in memory, DuckDB out of core,
Spark on a cluster).

What leaves an engine is aggregates only: the group-by counts of the release's columns (one row per
distinct combination of the used columns' values, with how many records hold it; ``group_counts``), and for
the budget store the two row-hash sums of the table's fingerprint (``table_print``). Everything private
happens on the driver, in the existing algorithms, on those counts: mapping values to taxonomy leaves and
checking them against the public taxonomies, bounds and classes (``release_input``), the scores, the
noise, the ledger, the selection. No engine computes anything that decides a domain: the domains are the
declared public inputs, as with numpy. Input errors are found on the driver and reported as with numpy,
their counts in the one-line message for the data owner's terminal only.

``numpy`` is today's in-memory path (``io.datasets.load_table`` + ``io.encoding.encode_table``), the
default for files up to ``AUTO_BYTES``; ``duckdb`` (embedded, reads CSV/TSV, .gz and Parquet in place,
spills to disk) is the default for larger files; ``spark`` runs the same SQL on pyspark (``local[*]``, or
the cluster of ``--spark-master`` or Spark's own configuration). With the same simulation seed every
engine gives a byte-identical release: the algorithms take the counts as weighted records
(``DiffGenInput.weights``) and compute the same numbers from them. See docs/scale.md.
"""

from __future__ import annotations

from pathlib import Path

ENGINES = ("auto", "numpy", "duckdb", "spark")
#: ``auto`` picks DuckDB for data files larger than this (bytes as stored); numpy below it
AUTO_BYTES = 256 * 1024 * 1024


class EngineError(ValueError):
    """An engine is missing or cannot read the data (one line for the data owner)."""


def choose_engine(name: str | None, path) -> str:
    """The engine to run: ``name`` itself, or for ``auto`` (None) numpy up to ``AUTO_BYTES``, else DuckDB
    (numpy when DuckDB is not installed). Decided from the file's size on disk, a public fact of the run."""
    name = name or "auto"
    if name not in ENGINES:
        raise EngineError(f"unknown engine {name!r} (choose {', '.join(ENGINES)})")
    if name != "auto":
        return name
    try:
        big = Path(path).stat().st_size > AUTO_BYTES
    except OSError:
        return "numpy"
    if big and _has("duckdb"):
        return "duckdb"
    return "numpy"


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def open_engine(name: str, spark_master: str | None = None):
    """A SQL engine (``duckdb`` or ``spark``); close it with ``close()`` (or use it in a ``with``)."""
    if name == "duckdb":
        from .duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    if name == "spark":
        from .spark_engine import SparkEngine

        return SparkEngine(spark_master)
    raise EngineError(f"{name!r} is not a SQL engine (duckdb or spark)")
