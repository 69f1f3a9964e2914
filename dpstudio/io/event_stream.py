"""From an event log to a count stream, with each person's contribution bounded (read through DuckDB).

A data owner holds events: one row per visit, order or login, with the person's id and a time. A stream
release needs one count per time bucket in which one person changes each count by at most K. This module:

- builds the **public** buckets from ``start`` to ``end`` (day, week or month; never read from the data), so
  an empty bucket is a zero and the number of buckets is known before any record is read;
- reads the time as the data owner's machines write it (``TIME_FORMATS``): ISO dates and timestamps, epoch
  seconds or milliseconds (UTC), or day or week numbers counted from a public origin (``--time-origin``);
  a column of numbers read as ISO text is refused with the option it looks like;
- reads the person as every other reader does (``person_sql``): surrounding spaces are not part of an id, and
  a number is one id however it is written (``1``, ``1.0``, ``01``); a split id would give one person two caps;
- keeps at most ``cap`` events per person per bucket (the rest are dropped) and counts what is kept, in one
  SQL pass over the file (CSV or Parquet, through DuckDB, in bounded memory);
- drops events outside [start, end) and events without a person or a readable time; a run that would count
  no event at all is refused before anything is charged;
- refuses a range that ends inside a bucket (a short last bucket would be counted as a whole one), naming the
  two ends that give whole buckets.

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
#: How the time column is written: ISO text, epoch seconds or milliseconds (UTC), day or week numbers from an origin.
TIME_FORMATS = ("iso", "epoch-seconds", "epoch-milliseconds", "day-number", "week-number")
#: At most this many buckets (a million days is 2,700 years): the public range is refused above it.
MAX_BUCKETS = 1_000_000
#: At most this many events per person per bucket: every count's noise grows with K (at K = 10,000 and
#: epsilon 1 a weekly count's noise is about +-30,000 for one person-level spend).
MAX_CAP = 10_000


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
    months and need ``start`` on the first of a month. ``end`` must close a bucket (refused otherwise, with
    the whole-bucket ends on either side), and there are at most ``MAX_BUCKETS``."""
    if bucket not in BUCKETS:
        raise EventStreamError(f"--bucket must be one of {', '.join(BUCKETS)}, got {bucket!r}")
    s, e = _date(start, "--start"), _date(end, "--end")
    if not s < e:
        raise EventStreamError(f"--end ({e}) must come after --start ({s})")
    if bucket == "month":
        if s.day != 1:
            raise EventStreamError("month buckets are calendar months: --start must be the first day of a month")
        n = (e.year - s.year) * 12 + e.month - s.month + (e.day > 1)
        if e.day != 1:
            before = date(e.year, e.month, 1)
            after = date(e.year + (e.month == 12), e.month % 12 + 1, 1)
            raise EventStreamError(
                f"--end {e} ends inside the month that starts {before}: its count would cover part of a month; "
                f"give --end {after} to count that month whole, or {before} to stop before it"
            )
    else:
        step = 1 if bucket == "day" else 7
        n = -(-(e - s).days // step)
        if (e - s).days % step:
            before = date.fromordinal(s.toordinal() + (n - 1) * step)
            after = date.fromordinal(s.toordinal() + n * step)
            raise EventStreamError(
                f"--end {e} ends inside the week that starts {before} (weeks run from --start {s} in steps "
                f"of 7 days): its count would cover {(e - before).days} days as a week; give --end {after} "
                f"to count that week whole, or {before} to stop before it"
            )
    if n > MAX_BUCKETS:
        raise EventStreamError(
            f"{n:,} {bucket}s from {s} to {e}: at most {MAX_BUCKETS:,} buckets (a longer bucket or a shorter range)"
        )
    if bucket == "month":
        out, y, m = [], s.year, s.month
        while date(y, m, 1) < e:
            out.append(date(y, m, 1).isoformat())
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        return out
    return [date.fromordinal(s.toordinal() + i * step).isoformat() for i in range(n)]


def check_time_format(time_format: str, origin) -> date | None:
    """The origin a day or week number counts from (None for the other formats); EventStreamError when the
    format is unknown, a number format has no origin, or another format is given one."""
    if time_format not in TIME_FORMATS:
        raise EventStreamError(f"--time-format must be one of {', '.join(TIME_FORMATS)}, got {time_format!r}")
    numbered = time_format in ("day-number", "week-number")
    if numbered and not origin:
        raise EventStreamError(
            f"--time-format {time_format} counts from a public origin: give --time-origin YYYY-MM-DD (the date "
            f"{'day' if time_format == 'day-number' else 'week'} 0 stands for)"
        )
    if origin and not numbered:
        raise EventStreamError("--time-origin goes with --time-format day-number or week-number")
    return _date(origin, "--time-origin") if numbered else None


def check_cap(cap) -> int:
    """K as a whole number in [1, ``MAX_CAP``] (EventStreamError otherwise)."""
    try:
        k = int(cap)
    except (TypeError, ValueError):
        raise EventStreamError(f"--per-bucket-cap must be a whole number, got {cap!r}") from None
    whole = isinstance(cap, str) or k == cap  # int("1.5") already failed; a float must be whole
    if not whole or not 1 <= k <= MAX_CAP:
        raise EventStreamError(
            f"--per-bucket-cap must be a whole number from 1 to {MAX_CAP:,}, got {cap} (every count's noise "
            "grows with it: a larger cap drowns the counts)"
        )
    return k


def _day_sql(t: str, time_format: str, origin: date | None) -> str:
    """SQL for the event's day (a DATE, NULL when unreadable) from the quoted time column ``t``."""
    if time_format == "iso":
        return f"CAST(TRY_CAST({t} AS TIMESTAMP) AS DATE)"
    number = f"TRY_CAST(TRIM(CAST({t} AS VARCHAR)) AS DOUBLE)"
    finite = f"CASE WHEN isfinite({number}) AND abs({number}) < 1e15 THEN {number} END"
    if time_format == "epoch-seconds":
        return f"CAST(epoch_ms(CAST(floor({finite} * 1000) AS BIGINT)) AS DATE)"
    if time_format == "epoch-milliseconds":
        return f"CAST(epoch_ms(CAST(floor({finite}) AS BIGINT)) AS DATE)"
    days = f"CASE WHEN abs({finite}) < 3000000 THEN CAST(floor({finite}) AS INTEGER) END"
    assert origin is not None
    scale = "" if time_format == "day-number" else " * 7"
    return f"(DATE '{origin.isoformat()}' + {days}{scale})"


def person_sql(u: str) -> str:
    """SQL for the person's id from the quoted column ``u``, as the other readers see values: trimmed text,
    and a number as its one canonical text (``1``, ``1.0``, ``01``, ``1e0`` are one person); NULL when
    missing (empty or ``?``). Merging two ids never raises a person's influence; splitting one would."""
    text = f"TRIM(CAST({u} AS VARCHAR))"
    d = f"TRY_CAST({text} AS DOUBLE)"
    return (
        f"CASE WHEN {u} IS NULL OR {text} IN ('', '?') THEN NULL "
        f"WHEN regexp_full_match({text}, '[+-]?[0-9]+') THEN CAST(CAST({text} AS HUGEINT) AS VARCHAR) "
        f"WHEN isfinite({d}) AND {d} = floor({d}) AND abs({d}) < 9007199254740992 "
        f"THEN CAST(CAST({d} AS HUGEINT) AS VARCHAR) "
        f"WHEN isfinite({d}) THEN CAST({d} AS VARCHAR) ELSE {text} END"
    )


def _looks_like(eng, t: str) -> str:
    """When an ISO time column holds numbers: which format they look like, as advice ('' otherwise)."""
    row = eng.frame(
        f"SELECT COUNT(TRY_CAST({t} AS TIMESTAMP)) AS iso, "
        f"COUNT(TRY_CAST(TRIM(CAST({t} AS VARCHAR)) AS DOUBLE)) AS num, "
        f"median(abs(TRY_CAST(TRIM(CAST({t} AS VARCHAR)) AS DOUBLE))) AS mid FROM src"
    ).iloc[0]
    if int(row["iso"]) > 0 or int(row["num"]) == 0:
        return ""
    mid = float(row["mid"])
    if 1e8 <= mid < 1e11:
        guess = "epoch seconds: give --time-format epoch-seconds"
    elif 1e11 <= mid < 1e14:
        guess = "epoch milliseconds: give --time-format epoch-milliseconds"
    else:
        guess = (
            "day or week numbers: give --time-format day-number (or week-number) and --time-origin YYYY-MM-DD, "
            "the public date that number 0 stands for"
        )
    return f"the time column holds numbers, not dates; they look like {guess}"


def bucket_events(
    path, user: str, time: str, bucket: str, start, end, cap: int = 1, time_format: str = "iso", origin=None
):
    """(counts, EventReport): per public bucket, the number of events counted with at most ``cap`` per person
    per bucket (see the module docstring). ``path``: a CSV (optionally gzipped) or Parquet file.
    ``time_format`` / ``origin``: how the time column is written (``TIME_FORMATS``; day and week numbers count
    from the public ``origin``). EventStreamError when no event at all would be counted."""
    from dpstudio.io.engines import EngineError, open_engine
    from dpstudio.io.engines.source import describe

    labels = public_buckets(start, end, bucket)
    k = check_cap(cap)
    day0 = check_time_format(time_format, origin)
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
        day = _day_sql(t, time_format, day0)
        if bucket == "month":
            index = f"datediff('month', DATE '{s.isoformat()}', {day})"
        else:
            index = (
                f"CAST(floor(datediff('day', DATE '{s.isoformat()}', {day}) / {1 if bucket == 'day' else 7}) AS BIGINT)"
            )
        sql = f"""
            WITH ev AS (
                SELECT {person_sql(u)} AS u, {index} AS b FROM src
                WHERE {day} >= DATE '{s.isoformat()}' AND {day} < DATE '{e.isoformat()}'
            ),
            per AS (SELECT b, u, COUNT(*) AS n FROM ev WHERE u IS NOT NULL GROUP BY b, u)
            SELECT b, SUM(LEAST(n, {k})) AS kept, SUM(n) AS total FROM per GROUP BY b
        """
        try:
            rows = eng.frame(sql)
            read = int(eng.frame("SELECT COUNT(*) AS n FROM src")["n"].iloc[0])
            advice = _looks_like(eng, t) if time_format == "iso" and rows.empty else ""
        except EngineError as exc:
            raise EventStreamError(str(exc)) from None
    counts = np.zeros(len(labels), dtype=np.int64)
    b = rows["b"].to_numpy(dtype=np.int64)
    ok = (b >= 0) & (b < len(labels))
    counts[b[ok]] = rows["kept"].to_numpy(dtype=np.int64)[ok]
    in_range = int(rows["total"].to_numpy(dtype=np.int64)[ok].sum())
    kept = int(counts.sum())
    report = EventReport(read, kept, in_range - kept, read - in_range)
    if kept == 0:
        raise EventStreamError(
            f"no event would be counted ({report.words().split(' (for you')[0]}): "
            + (advice or f"check the person and time columns and that events fall between {s} and {e}")
            + "; nothing was charged"
        )
    return counts, report


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


def events_source(
    path,
    user: str,
    time: str,
    bucket: str,
    start,
    end,
    cap: int = 1,
    time_format: str = "iso",
    origin=None,
    mechanism: str | None = None,
) -> dict:
    """The sidecar's ``source`` of a stream counted from an event log: public settings only, and the
    guarantee in people's terms (for ``mechanism``: binary's is per bucket)."""
    n = len(public_buckets(start, end, bucket))
    out = {
        "source": "event log",
        "file": str(path),
        "user_column": user,
        "time_column": time,
        "time_format": time_format,
        "bucket": bucket,
        "start": str(start),
        "end": str(end),
        "buckets": n,
        "per_bucket_cap": int(cap),
        "guarantee_in_people": guarantee_words(bucket, cap, n, mechanism),
    }
    if origin:
        out["time_origin"] = str(origin)
    return out


def guarantee_words(bucket: str, cap: int, n_buckets: int, mechanism: str | None = None) -> str:
    """The guarantee in people's terms (public: the bucket, the cap, the horizon and the mechanism). Every
    mechanism but binary protects a person over the whole horizon; binary (event-level) protects what one
    person does in one bucket, so a person active in m buckets is protected with m times epsilon."""
    unit = {"day": "day", "week": "week", "month": "month"}[bucket]
    events = "1 event" if int(cap) == 1 else f"{int(cap)} events"
    if mechanism == "binary":
        return (
            f"one person's events in one {unit} (at most {events} counted) change that {unit}'s count by at "
            f"most {int(cap)}: binary's guarantee holds per {unit}, not per person over the horizon; a person "
            f"active in several {unit}s is protected with epsilon times their number of {unit}s"
        )
    return (
        f"one person, present in any number of {unit}s, with at most {events} a {unit} counted (more are "
        f"dropped before counting), changes each {unit}'s count by at most {int(cap)}: the stream's guarantee "
        f"holds for each person over the horizon of {n_buckets} {unit}s"
    )


__all__ = [
    "BUCKETS",
    "MAX_BUCKETS",
    "MAX_CAP",
    "TIME_FORMATS",
    "check_cap",
    "check_time_format",
    "person_sql",
    "EventReport",
    "EventStreamError",
    "bucket_events",
    "events_print",
    "events_source",
    "guarantee_words",
    "public_buckets",
]
