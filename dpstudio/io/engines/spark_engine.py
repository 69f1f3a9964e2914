"""The Spark engine: the same SQL on pyspark, ``local[*]`` on one machine or any cluster.

The master is ``--spark-master`` when given, else Spark's own configuration (``spark-defaults.conf``,
``$SPARK_MASTER``), else ``local[*]``. On a cluster the data file's path must be readable by the
executors (HDFS, S3, a shared file system), and dpstudio must be installed on them for the fingerprint
(its row hashes are summed on the executors; only the two sums and a row count come back).
"""

from __future__ import annotations

import os
import sys
import uuid

import pandas as pd

from . import EngineError
from .source import Source
from .sql import EngineProgress, SqlEngine, combine_prints, partial_print


class SparkEngine(SqlEngine):
    name = "spark"
    text_type = "STRING"

    def __init__(self, master: str | None = None):
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise EngineError("--engine spark needs pyspark (pip install pyspark) and Java 17") from None
        builder = SparkSession.builder.appName("dpstudio")
        master = master or os.environ.get("SPARK_MASTER") or _defaults().get("spark.master") or "local[*]"
        builder = builder.master(master)
        if master.startswith("local"):
            if not os.environ.get("PYSPARK_PYTHON"):
                os.environ["PYSPARK_PYTHON"] = sys.executable  # local workers: this environment's packages
            # one machine: a few shuffle partitions, not the cluster default of 200
            builder = builder.config("spark.sql.shuffle.partitions", str(max(2, os.cpu_count() or 2)))
        builder = (
            builder.config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.ansi.enabled", "false")
        )
        from pyspark import SparkContext

        self._owns = SparkContext._active_spark_context is None  # stop on close only a session we started
        try:
            self.spark = builder.getOrCreate()
        except Exception as exc:  # no Java, a master that does not answer
            raise EngineError(f"spark did not start: {str(exc).splitlines()[0] if str(exc) else exc}") from None
        self.spark.sparkContext.setLogLevel("ERROR")
        self.group = f"dpstudio-{uuid.uuid4().hex[:8]}"
        self._registered: tuple[Source, dict[str, bool]] | None = None

    def quote(self, name: str) -> str:
        return "`" + str(name).replace("`", "``") + "`"

    def register(self, source: Source) -> dict[str, bool]:
        if self._registered is not None and self._registered[0] == source:
            return self._registered[1]
        path = str(source.path)
        try:
            if source.kind == "parquet":
                df = self.spark.read.parquet(path)
            else:
                df = (
                    self.spark.read.option("sep", source.delimiter)
                    .option("header", source.header)
                    .option("quote", '"')
                    .option("escape", '"')
                    .option("inferSchema", False)
                    .option("ignoreLeadingWhiteSpace", False)
                    .option("ignoreTrailingWhiteSpace", False)
                    .option("nullValue", None)
                    .option("emptyValue", "")
                    .option("mode", "FAILFAST")
                    .csv(path)
                )
                if len(df.columns) != len(source.names):
                    raise EngineError(
                        f"spark reads {len(df.columns)} columns in {source.path.name}, expected {len(source.names)}"
                    )
                df = df.toDF(*source.names)
        except EngineError:
            raise
        except Exception as exc:
            raise EngineError(f"spark cannot read {source.path.name}: {str(exc).splitlines()[0]}") from None
        df.createOrReplaceTempView("src")
        kinds = {name: kind == "string" for name, kind in df.dtypes}
        self._native = {
            name: "bool" if kind == "boolean" else "float" if kind in ("double", "float") else "other"
            for name, kind in df.dtypes
        }
        self._registered = (source, kinds)
        return kinds

    def native_type(self, column: str) -> str:
        return getattr(self, "_native", {}).get(column, "other")

    def frame(self, sql: str) -> pd.DataFrame:
        self.spark.sparkContext.setJobGroup(self.group, "dpstudio", interruptOnCancel=True)
        try:
            result = self.spark.sql(sql)
            rows = result.collect()
        except Exception as exc:
            raise EngineError(f"spark: {str(exc).splitlines()[0]}") from None
        return pd.DataFrame([tuple(r) for r in rows], columns=result.columns)

    def fraction_done(self) -> float | None:
        tracker = self.spark.sparkContext.statusTracker()
        done = total = 0
        for job in tracker.getJobIdsForGroup(self.group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info else ():
                s = tracker.getStageInfo(stage)
                if s is not None:
                    done += s.numCompletedTasks
                    total += s.numTasks
        return done / total if total else None

    def interrupt(self) -> None:
        self.spark.sparkContext.cancelJobGroup(self.group)

    def table_print(self, source: Source, progress: EngineProgress | None = None):
        sql, read = self.print_query(source, progress)
        df = self.spark.sql(sql)
        columns = list(df.columns)

        def run():
            self.spark.sparkContext.setJobGroup(self.group, "dpstudio", interruptOnCancel=True)
            parts = df.rdd.mapPartitions(lambda rows: [_partition_sums(rows, columns, read)]).collect()
            return combine_prints((tuple(n) if n else None, [int(s) for s in sums], r) for n, sums, r in parts)

        return self.watched(run, progress, "fingerprinting the table for the budget store")

    def close(self) -> None:
        # a session this engine started is stopped (its JVM does not outlive the run); one that was
        # already running in the process (a notebook's, a test's) is left to its owner
        if self._owns:
            self.spark.stop()


def _partition_sums(rows, columns, read):
    """On an executor: the row-hash sums of one partition (only these leave it)."""
    chunk = pd.DataFrame([tuple(r) for r in rows], columns=columns)
    if chunk.empty:
        return (None, ["0", "0"], 0)
    names, sums, n = partial_print(iter([chunk]), read)
    return (list(names), [str(s) for s in sums], n)


def _defaults() -> dict:
    home = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if "SPARK_HOME" in os.environ else None
    )
    out = {}
    if home and os.path.isfile(os.path.join(home, "spark-defaults.conf")):
        with open(os.path.join(home, "spark-defaults.conf"), encoding="utf-8") as fh:
            for line in fh:
                parts = line.split(None, 1)
                if len(parts) == 2 and not parts[0].startswith("#"):
                    out[parts[0]] = parts[1].strip()
    return out
