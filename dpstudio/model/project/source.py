"""The data a project reads (Qt-free): the loaded table, its file, its SHA-256 and its budget-store print,
and what the data owner's checks read from it (value and missing counts: private, never released)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from dpstudio.model.project.changes import Changes
from dpstudio.model.project.vocabulary import (
    ProjectError,
)

#: one token per load of data, unique in the process: a release question is bound to the load it was asked on
_LOADS = itertools.count(1)


def next_load() -> int:
    return next(_LOADS)


class DataSource:
    """The loaded data of a project: its file, the records (in memory or read through an engine), the
    counts the data owner's checks use."""

    def __init__(self, owner) -> None:
        self.owner = owner  # the Project this part belongs to: the other parts are read through it
        self.changes = Changes()  # announces nothing itself: ``Project.set_data`` announces a new load
        self.data_path: Path | None = None
        self.data_hash: str | None = None
        self.data_encoding: str = "utf-8"  # text encoding the CSV/TSV data file is read with (saved)
        self.dataset: Any = None  # runtime only: a dpstudio.io.datasets.Dataset (or anything with .frame)
        self.columns: list[str] = []
        # the held-out test file last scored (Compare, Anonymize's side by side): the next scoring's default;
        # other records, never released, not saved
        self.test_path: Path | None = None
        self._loaded: list[Any] | None = None  # (shallow copy of the frame as loaded, its DatasetPrint or None)
        self.load_token = next_load()  # changes with every load of data (``question_binding``)
        self.previous_declarations: Any = None  # model.declarations.Declarations of the file opened before

    @property
    def frame(self):
        """The pandas frame of the loaded data, or None (no data, or a table read through an engine: its
        records are not in memory; ``has_data`` tells the two apart)."""
        if self.dataset is None:
            return None
        return getattr(self.dataset, "frame", self.dataset)

    @property
    def has_data(self) -> bool:
        return self.dataset is not None

    @property
    def n_rows(self) -> int:
        """Records in the loaded table (private: for the data owner's eyes only); 0 without data."""
        if self.dataset is None:
            return 0
        frame = self.frame
        return len(self.dataset) if frame is None else len(frame)

    @property
    def engine_table(self):
        """The loaded table when it is read through an engine (``io.engine_table.EngineTable``), else None."""
        return self.dataset if self.dataset is not None and self.frame is None else None

    def missing_rows(self, attribute: str) -> int:
        """How many rows miss a value of ``attribute`` (private: for the data owner's coverage check only);
        cached per data frame and column dtype like ``value_counts``, since every badge refresh asks."""
        frame = self.frame
        if frame is not None:
            col = frame[attribute]
            cache = self.__dict__.setdefault("_missing_cache", {})
            entry = cache.get(attribute)
            if entry is None or entry[0] is not frame or entry[1] != str(col.dtype):
                entry = (frame, str(col.dtype), int(col.isna().sum()))
                cache[attribute] = entry
            return entry[2]
        per_column = getattr(self.dataset, "missing_per_column", None)  # a table read through an engine
        counts = per_column() if callable(per_column) else {}
        return int((counts or {}).get(attribute, 0))

    def value_counts(self, attribute: str):
        """(distinct values, their row counts) of ``attribute``, missing left out; cached per data frame
        and column dtype, so checking coverage after each taxonomy edit maps only the distinct values. A table
        read through an engine answers from the counts it read when it was opened."""
        frame = self.frame
        if frame is None:
            return self.dataset.value_counts(attribute)
        col = frame[attribute]
        cache = self.__dict__.setdefault("_vc_cache", {})
        entry = cache.get(attribute)
        # the frame object itself (not its id, which a new frame may reuse) and the dtype must match
        if entry is None or entry[0] is not frame or entry[1] != str(col.dtype):
            vc = col.value_counts(dropna=True, sort=False)
            entry = (frame, str(col.dtype), (vc.index.to_numpy(), vc.to_numpy().astype("int64")))
            cache[attribute] = entry
        return entry[2]

    def distinct_count(self, attribute: str) -> tuple[int, bool]:
        """(distinct values of ``attribute``, whether that is an estimate): exact for a table in memory and
        for a column a table read through an engine listed when it was opened; DuckDB's estimate for a column
        with very many values. Private (the data owner's Data tab only); cached per data frame and dtype."""
        cache = self.__dict__.setdefault("_distinct_cache", {})
        entry = cache.get(attribute)
        table = self.engine_table
        if table is not None:
            if entry is None or entry[0] is not table:
                entry = (table, "", int(table.distinct_count(attribute)), not table.is_listed(attribute))
        else:
            frame, dtype = self.frame, str(self.frame[attribute].dtype)
            if entry is None or entry[0] is not frame or entry[1] != dtype:
                entry = (frame, dtype, int(frame[attribute].nunique()), False)
        cache[attribute] = entry
        return entry[2], entry[3]

    def preview_frame(self):
        """The rows a preview shows: the whole table in memory, or the first rows of a table read through an
        engine (``EngineTable.preview_frame``); None without data."""
        table = self.engine_table
        return self.frame if table is None else table.preview_frame()

    # -- the persistent per-dataset budget ----------------------------------------------------------
    def dataset_print(self):
        """The ``DatasetPrint`` of the records as loaded (computed once per load: ~0.7 s a million rows)."""
        if self._loaded is None:
            return None
        if self._loaded[1] is None and self._loaded[0] is None:  # an engine table opened without its print
            self._loaded[1] = self.dataset.fingerprint()
        elif self._loaded[1] is None:
            from dpstudio.io.dataset_fingerprint import table_print

            self._loaded[1] = table_print(self._loaded[0])
        return self._loaded[1]

    # -- helpers ---------------------------------------------------------------------------------------------
    def _check_attribute(self, attribute: str) -> None:
        if attribute not in self.columns:
            raise ProjectError(f"{attribute!r} is not an attribute of the loaded data")
