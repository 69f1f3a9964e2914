"""What the studio's Stream panel needs beside ``model.stream_view`` (Qt-free): where the stream comes
from, and the budget store's charge of a stream release.

- ``StreamSource(kind, path, region, column, start, ...)``: a counts file (``kind="counts"``), a table in
  ILINet's layout (``"ilinet"``), a table with one row per timestamp (``"table"``: ``column``, optional
  ``time_column``) or an event log (``"events"``: ``user``, ``time_column``, ``bucket``, the public range
  ``start``..``end``; at most one event per person per bucket counted, ``io.event_stream``); ``load()`` reads
  it (StreamInputError with one line otherwise), ``record()`` is the sidecar's ``source``.
- ``bundled_ilinet()``: the ILINet file of ``../shared/data/streams`` beside the checkout, if present.
- ``stream_request(source, counts, epsilon, store, what)``: the release service's request for a stream
  release (``model.release``): the panel asks its question, and ``ReleaseService.begin`` charges the
  persistent budget store (docs/budget.md) for the whole epsilon before any secure noise is drawn. The
  store knows the data by the same fingerprint as ``dpstudio stream`` (the parsed counts of a counts
  file, the whole parsed table of a data file), so the CLI and the studio spend from one lifetime budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpstudio.algorithms.stream_runs import StreamInputError

COUNTS, ILINET, TABLE, EVENTS = "counts", "ilinet", "table", "events"


def bundled_ilinet() -> Path | None:
    """ILINet.csv in ``shared/data/streams`` next to the checkout, else the sample shipped in
    ``dpstudio/resources/samples/ILINet.csv.gz`` (the same national series from 2002-W40); None when neither is there."""
    root = Path(__file__).resolve().parents[2]
    for candidate in (
        root.parent / "shared" / "data" / "streams" / "ILINet.csv",
        root / "data" / "streams" / "ILINet.csv",
    ):
        if candidate.is_file():
            return candidate
    from dpstudio.resources import resource

    try:
        return resource("samples", "ILINet.csv.gz")
    except FileNotFoundError:
        return None


#: The command line's options for an event log, and the fields of the studio's dialog that set them
DIALOG_FIELDS = (
    ("--time-format", "'time written as'"),
    ("--time-origin", "'number 0 is the date'"),
    ("--per-bucket-cap", "'events per person per bucket'"),
    ("--start", "'first bucket'"),
    ("--end", "'end of the range'"),
)


FORMAT_WORDS = {
    "epoch-seconds": "epoch seconds",
    "epoch-milliseconds": "epoch milliseconds",
    "day-number": "day numbers",
    "week-number": "week numbers",
}


def studio_words(message: str) -> str:
    """An event-log message of ``io.event_stream`` (written for the command line) with each option named as
    the dialog's field that sets it, and the format's value as the dialog words it."""
    for option, field in DIALOG_FIELDS:
        message = message.replace(f"give {option} ", f"set {field} to ").replace(option, field)
    for fmt, words in FORMAT_WORDS.items():
        message = message.replace(fmt, words)
    return message


@dataclass(frozen=True)
class StreamSource:
    kind: str  # COUNTS, ILINET, TABLE or EVENTS
    path: Path
    region: str = "national"
    column: str = "ILITOTAL"
    start: str | None = "2002-W40"  # ILINet: the first week; events: the first bucket (YYYY-MM-DD)
    time_column: str | None = None  # table: orders the rows; events: the event's time
    user: str | None = None  # events: the person
    bucket: str = "week"  # events: day, week or month
    end: str | None = None  # events: the end of the public range (excluded)
    cap: int = 1  # events: at most K events per person per bucket counted (the mechanisms' sensitivity K)
    time_format: str = "iso"  # events: how the time is written (io.event_stream.TIME_FORMATS)
    origin: str | None = None  # events: the public date that day or week number 0 stands for
    sep: str | None = None  # table, ILINet: the field separator (None: detected)

    def load(self) -> np.ndarray:
        return self.load_with_report()[0]

    def load_with_report(self):
        """(counts, the data owner's rounded report of an event log's dropped events, or None)."""
        from dpstudio.io.stream_input import read_column, read_counts, read_ilinet

        if self.kind == COUNTS:
            return read_counts(self.path), None
        if self.kind == TABLE:
            return read_column(self.path, self.column, self.time_column, self.sep), None
        if self.kind == EVENTS:
            from dpstudio.io.event_stream import EventStreamError, bucket_events

            if not (self.user and self.time_column and self.start and self.end):
                raise StreamInputError("an event log needs its person and time columns and the public range")
            try:
                return bucket_events(**self._event_settings())
            except EventStreamError as exc:
                raise StreamInputError(studio_words(str(exc))) from None
        return read_ilinet(self.path, self.region, self.column, self.start, self.sep), None

    def _event_settings(self) -> dict:
        """An event log's public settings, as ``io.event_stream.bucket_events`` and ``events_source`` name them."""
        return {
            "path": self.path,
            "user": self.user,
            "time": self.time_column,
            "bucket": self.bucket,
            "start": self.start,
            "end": self.end,
            "cap": self.cap,
            "time_format": self.time_format,
            "origin": self.origin,
        }

    def record(self, mechanism: str | None = None) -> dict:
        """The sidecar's ``source``; an event log's guarantee in people's terms depends on the ``mechanism``."""
        if self.kind == COUNTS:
            return {"source": "counts file", "file": str(self.path)}
        if self.kind == TABLE:
            return {
                "source": "data file",
                "file": str(self.path),
                "column": self.column,
                "time_column": self.time_column,
            }
        if self.kind == EVENTS:
            from dpstudio.io.event_stream import events_source

            assert self.user is not None and self.time_column is not None  # load() refused the source otherwise
            return events_source(**self._event_settings(), mechanism=mechanism)
        return {
            "source": "data file",
            "file": str(self.path),
            "column": self.column,
            "layout": "ILINet",
            "region": self.region,
            "from": self.start,
        }

    def describe(self) -> str:
        if self.kind == COUNTS:
            return f"counts file {self.path.name}"
        if self.kind == TABLE:
            return f"{self.path.name}, column {self.column}" + (f" by {self.time_column}" if self.time_column else "")
        if self.kind == EVENTS:
            cap = f", at most {self.cap} events a {self.bucket} each" if self.cap != 1 else ""
            return (
                f"event log {self.path.name}: each person by {self.user}, {self.bucket}s from {self.start} to "
                f"{self.end}{cap}"
            )
        return f"{self.path.name} (ILINet), {self.region}, {self.column}" + (
            f", from {self.start}" if self.start else ""
        )

    def fingerprint(self, counts):
        """The budget store's key, as ``dpstudio stream`` computes it."""
        from dpstudio.io.dataset_fingerprint import counts_print, table_print
        from dpstudio.io.datasets import load_table

        if self.kind == COUNTS:
            return counts_print(counts)
        if self.kind == EVENTS:  # the whole log, read by DuckDB, as ``dpstudio stream --events`` keys it
            from dpstudio.io.event_stream import EventStreamError, events_print

            try:
                return events_print(self.path)
            except EventStreamError as exc:
                raise StreamInputError(str(exc)) from None
        return table_print(load_table(self.path).frame)


def stream_request(
    source: StreamSource, counts, epsilon, store=None, dataset_name: str | None = None, what: str = "studio stream"
):
    """The release service's ``ReleaseRequest`` for a stream release of ``counts`` read from ``source``
    (``store``: None for the default store, "none" for tracking off)."""
    from dpstudio.core.budget import check_epsilon
    from dpstudio.io.budget_store import default_dataset_name
    from dpstudio.model.release import ReleaseRequest

    def fingerprint():
        from dpstudio.io.datasets import DatasetError

        try:
            return source.fingerprint(counts)
        except DatasetError as exc:
            raise StreamInputError(str(exc).splitlines()[0]) from None

    return ReleaseRequest(
        dataset_name or default_dataset_name(source.path),
        fingerprint,
        check_epsilon(epsilon),
        f"{what} on {source.path.name}",
        "studio",
        store,
        data_path=str(source.path),
        # the Stream panel has no lifetime-total field yet: the command line sets it
        raise_hint=(
            "release it with dpstudio stream ... --dataset-budget EPS instead (the Stream panel cannot set it "
            f"yet), or raise it afterwards with dpstudio budget set-total {dataset_name or default_dataset_name(source.path)} EPS"
        ),
    )
