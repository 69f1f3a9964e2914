"""From an event log to a count stream, with each person's contribution bounded (read through DuckDB).

A data owner holds events: one row per visit, order or login, with the person's id and a time. A stream
release needs one count per time bucket in which one person changes each count by at most K. This module:

- builds the **public** buckets from ``start`` to ``end`` (day, week or month; never read from the data), so
  an empty bucket is a zero and the number of buckets is known before any record is read;
- keeps at most ``cap`` events per person per bucket (the rest are dropped) and counts what is kept, in one
  SQL pass over the file (CSV or Parquet, through DuckDB, in bounded memory);
- drops events outside [start, end) and events without a person or a readable time.

Privacy: the counts are private (they are noised by a stream mechanism before anything is released); the
numbers of events and people dropped are for the data owner only (``EventReport``, rounded) and never go to
a release file. The guarantee in people's terms: one person, present in any number of buckets, with at most
``cap`` events a bucket counted, changes each bucket's count by at most ``cap``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

BUCKETS = ("day", "week", "month")


class EventStreamError(ValueError):
    """The events cannot be bucketed as asked; the message says why (nothing was read or released)."""


@dataclass(frozen=True)
class EventReport:
    """For the data owner only (never in a release file): rounded figures of what was read and dropped."""

    events_read: int
    events_counted: int
    dropped_over_cap: int
    dropped_outside: int  # outside [start, end), or without a person or a readable time

    def words(self) -> str:
        def about(n: int) -> str:
            return "none" if n == 0 else f"about {_rounded(n)}"

        return (
            f"about {_rounded(self.events_read)} events read, {_rounded(self.events_counted)} counted; "
            f"dropped: {about(self.dropped_over_cap)} over the per-person cap, {about(self.dropped_outside)} "
            "outside the range or without a person or time (for you only: not in the release)"
        )


def _rounded(n: int) -> str:
    """Two significant figures, as text (the data owner's view; exact counts are not repeated)."""
    if n == 0:
        return "0"
    digits = max(0, len(str(abs(int(n)))) - 2)
    return f"{round(int(n), -digits):,}"


def _date(text, what: str) -> date:
    try:
        return date.fromisoformat(str(text))
    except ValueError:
        raise EventStreamError(f"{what} must be a date as YYYY-MM-DD, got {text!r}") from None


def public_buckets(start, end, bucket: str) -> list[str]:
    """The buckets from ``start`` (inclusive) to ``end`` (exclusive), as labels (their first day): public
    inputs, the same for every dataset. Weeks run from ``start`` in steps of 7 days; months are calendar
    months and need ``start`` on the first of a month."""
    if bucket not in BUCKETS:
        raise EventStreamError(f"--bucket must be one of {', '.join(BUCKETS)}, got {bucket!r}")
    s, e = _date(start, "--start"), _date(end, "--end")
    if not s < e:
        raise EventStreamError(f"--end ({e}) must come after --start ({s})")
    if bucket == "month":
        if s.day != 1:
            raise EventStreamError("month buckets are calendar months: --start must be the first day of a month")
        out, y, m = [], s.year, s.month
        while date(y, m, 1) < e:
            out.append(date(y, m, 1).isoformat())
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        return out
    step = 1 if bucket == "day" else 7
    n = -(-(e - s).days // step)
    return [date.fromordinal(s.toordinal() + i * step).isoformat() for i in range(n)]


def bucket_events(path, user: str, time: str, bucket: str, start, end, cap: int = 1):
    """(counts, EventReport): per public bucket, the number of events counted with at most ``cap`` per person
    per bucket (see the module docstring). ``path``: a CSV (optionally gzipped) or Parquet file."""
    from dpstudio.io.engines import EngineError, open_engine
    from dpstudio.io.engines.source import describe

    labels = public_buckets(start, end, bucket)
    if int(cap) < 1:
        raise EventStreamError(f"--per-bucket-cap must be at least 1, got {cap}")
    s, e = _date(start, "--start"), _date(end, "--end")
    try:
        source = describe(path)
    except EngineError as exc:
        raise EventStreamError(str(exc)) from None
    absent = [c for c in (user, time) if c not in source.names]
    if absent:
        raise EventStreamError(
            f"{', '.join(map(repr, absent))} not a column of {path} (columns: {', '.join(source.names)})"
        )
    with open_engine("duckdb") as eng:
        eng.register(source)
        u, t = eng.quote(user), eng.quote(time)
        day = f"CAST(TRY_CAST({t} AS TIMESTAMP) AS DATE)"
        if bucket == "month":
            index = f"datediff('month', DATE '{s.isoformat()}', {day})"
        else:
            index = (
                f"CAST(floor(datediff('day', DATE '{s.isoformat()}', {day}) / {1 if bucket == 'day' else 7}) AS BIGINT)"
            )
        sql = f"""
            WITH ev AS (
                SELECT {u} AS u, {index} AS b FROM src
                WHERE {u} IS NOT NULL AND TRIM(CAST({u} AS VARCHAR)) NOT IN ('', '?')
                  AND {day} >= DATE '{s.isoformat()}' AND {day} < DATE '{e.isoformat()}'
            ),
            per AS (SELECT b, u, COUNT(*) AS n FROM ev GROUP BY b, u)
            SELECT b, SUM(LEAST(n, {int(cap)})) AS kept, SUM(n) AS total FROM per GROUP BY b
        """
        try:
            rows = eng.frame(sql)
            read = int(eng.frame("SELECT COUNT(*) AS n FROM src")["n"].iloc[0])
        except EngineError as exc:
            raise EventStreamError(str(exc)) from None
    counts = np.zeros(len(labels), dtype=np.int64)
    b = rows["b"].to_numpy(dtype=np.int64)
    ok = (b >= 0) & (b < len(labels))
    counts[b[ok]] = rows["kept"].to_numpy(dtype=np.int64)[ok]
    in_range = int(rows["total"].to_numpy(dtype=np.int64)[ok].sum())
    kept = int(counts.sum())
    return counts, EventReport(read, kept, in_range - kept, read - in_range)


def events_print(path):
    """The budget store's key for an event log: the whole file's records, read by DuckDB (the CLI and the
    studio key it alike)."""
    from dpstudio.io.engines import EngineError, open_engine
    from dpstudio.io.engines.source import describe

    try:
        with open_engine("duckdb") as eng:
            return eng.table_print(describe(path))
    except EngineError as exc:
        raise EventStreamError(str(exc)) from None


def events_source(path, user: str, time: str, bucket: str, start, end, cap: int = 1) -> dict:
    """The sidecar's ``source`` of a stream counted from an event log: public settings only, and the
    guarantee in people's terms."""
    n = len(public_buckets(start, end, bucket))
    return {
        "source": "event log",
        "file": str(path),
        "user_column": user,
        "time_column": time,
        "bucket": bucket,
        "start": str(start),
        "end": str(end),
        "buckets": n,
        "per_bucket_cap": int(cap),
        "guarantee_in_people": guarantee_words(bucket, cap, n),
    }


def guarantee_words(bucket: str, cap: int, n_buckets: int) -> str:
    """The guarantee in people's terms (public: the bucket, the cap and the horizon)."""
    unit = {"day": "day", "week": "week", "month": "month"}[bucket]
    events = "1 event" if int(cap) == 1 else f"{int(cap)} events"
    return (
        f"one person, present in any number of {unit}s, with at most {events} a {unit} counted (more are "
        f"dropped before counting), changes each {unit}'s count by at most {int(cap)}: the stream's guarantee "
        f"holds for each person over the horizon of {n_buckets} {unit}s"
    )


__all__ = [
    "BUCKETS",
    "EventReport",
    "EventStreamError",
    "bucket_events",
    "events_print",
    "events_source",
    "guarantee_words",
    "public_buckets",
]
