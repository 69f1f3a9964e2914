"""Stream release files: a CSV of the published windows and a JSON sidecar, written atomically.

CSV: one row per published window and position, ``window,t,value``: ``window`` is the window's last
timestamp (1-based), ``t`` the timestamp and ``value`` the released value (after grouping). An output that
is not a release (``--seed`` simulation noise) has a first column ``not_a_release`` on every row.

Sidecar (``OUT.json``): the parameters, the guarantee in words, the ledger (every spend, exact fractions),
the post-processing, the budget store's charge, and ``expected_window_laplace_error``: the analytic
Laplace error of one window for the grouping used, with the exact discrete Laplace variance (S2). No true
count, no error against the truth, and nothing computed from the data other than the released values and
the numbers of groups (post-processing of released values) is written.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import numpy as np

from dpstudio.algorithms.stream_runs import MECHANISMS, WHOLE_NOTE, StreamResult
from dpstudio.core.budget import Ledger
from dpstudio.core.stream_partition import default_groups
from dpstudio.io.atomic import atomic_write_many, check_output_path
from dpstudio.io.release import mark_not_a_release, sidecar_path

FORMAT = "dpstudio-stream/1"


def check_release_paths(out_csv, overwrite: bool = False) -> tuple[Path, Path]:
    """Check both output paths before any work (OutputPathError otherwise)."""
    return check_output_path(out_csv, overwrite), check_output_path(sidecar_path(out_csv), overwrite)


def release_csv(result: StreamResult, buckets: list[str] | None = None) -> str:
    """``window,t,value``; with public time labels (an event log's buckets: each timestamp's first day;
    ILINet's weeks), ``window,t,bucket,value``."""
    w = result.params.window
    n_win = result.windows.shape[0]
    ends = np.repeat(result.window_ends, w)
    ts = (ends - w + 1) + np.tile(np.arange(w), n_win)
    vals = [format(v, ".10g") for v in result.windows.ravel().tolist()]
    if buckets is not None:
        body = "\n".join(f"{e},{t},{buckets[t - 1]},{v}" for e, t, v in zip(ends.tolist(), ts.tolist(), vals))
        return "window,t,bucket,value\n" + body + "\n"
    body = "\n".join(f"{e},{t},{v}" for e, t, v in zip(ends.tolist(), ts.tolist(), vals))
    return "window,t,value\n" + body + "\n"


def source_buckets(source: dict, n: int = 0) -> list[str] | None:
    """The public time labels of a stream's ``n`` timestamps, else None: an event log's buckets (their first
    days, from the typed range), or ILINet's surveillance weeks counted on from its declared first week
    (``from``: "2002-W40", then "2002-W41"...; CDC's MMWR weeks, public calendar arithmetic, never read from
    the file)."""
    if source.get("source") == "event log":
        from dpstudio.io.event_stream import public_buckets

        return public_buckets(source["start"], source["end"], source["bucket"])
    if source.get("layout") == "ILINet" and source.get("from"):
        return mmwr_weeks(str(source["from"]), n)
    return None


def _mmwr_week_one(year: int):
    """The Sunday that starts MMWR week 1 of ``year``: the first Sunday-to-Saturday week with at least four
    days in the year (the week holding 4 January)."""
    from datetime import date, timedelta

    jan4 = date(year, 1, 4)
    return jan4 - timedelta(days=jan4.isoweekday() % 7)


def mmwr_weeks(first: str, n: int) -> list[str]:
    """``n`` consecutive MMWR weeks from ``first`` ("YYYY-Www"), as "YYYY-Www" labels (ValueError for another
    form or a week the year does not have)."""
    from datetime import timedelta

    try:
        year, week = (int(x) for x in first.upper().split("-W"))
    except ValueError:
        raise ValueError(f"a first week is written YYYY-Www (2002-W40), got {first!r}") from None
    start = _mmwr_week_one(year) + timedelta(weeks=week - 1)
    if not 1 <= week <= 53 or start >= _mmwr_week_one(year + 1):
        raise ValueError(f"{year} has no MMWR week {week}")
    out = []
    for k in range(int(n)):
        day = start + timedelta(weeks=k)
        y = (
            day.year + 1
            if day >= _mmwr_week_one(day.year + 1)
            else (day.year - 1 if day < _mmwr_week_one(day.year) else day.year)
        )
        out.append(f"{y}-W{(day - _mmwr_week_one(y)).days // 7 + 1:02d}")
    return out


def release_sidecar(
    result: StreamResult,
    ledger: Ledger,
    source: dict,
    not_a_release: list[str] | None = None,
    extra: dict | None = None,
) -> dict:
    p = result.params
    reasons = list(not_a_release or [])
    if not result.is_release:
        reasons.insert(0, f"simulation noise ({result.noise_label})")
    grouping: dict[str, object] = {"mode": p.grouping}
    if p.grouping in ("seed", "approx"):
        grouping["groups"] = p.groups or default_groups(p.window)
        grouping["groups_declared"] = p.groups is not None
    params = {
        "mechanism": p.mechanism,
        "mechanism_description": MECHANISMS[p.mechanism],
        "epsilon": str(p.checked_epsilon()),
        "window": p.window,
        "horizon": result.horizon,
        "horizon_declared": p.horizon is not None,
        "grouping": grouping,
        "per_timestamp_cap": int(p.cap),
        "sensitivity": p.sensitivity,
    }
    if p.mechanism == "asm":
        params.update({"sampling_ratio": p.ratio, "asm_budget": p.asm_budget, "predictor": p.fit})
    return {
        **(extra or {}),
        "format": FORMAT,
        "release": not reasons,
        "not_a_release": reasons or None,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "parameters": params,
        "guarantee": result.guarantee,
        "neighbouring": neighbouring(p),
        "windows": {
            "count": int(result.windows.shape[0]),
            "first": int(result.window_ends[0]),
            "last": int(result.window_ends[-1]),
            "note": "windows end at t = w..n, n the timestamps given (n <= the horizon T)",
        },
        "noise": result.noise_label,
        "ledger": ledger.to_dict(),
        "unspent": str(ledger.remaining),
        "post_processing": [f"grouping '{p.grouping}' of every window's released values (no budget)"]
        + ([WHOLE_NOTE] if p.published == "whole" else []),
        "groups_per_window_mean": float(np.mean(result.group_counts)),
        **result.error,
        "source": source,
    }


def neighbouring(p) -> str:
    """What neighbouring streams differ by, for the parameters' mechanism and cap K."""
    k = int(p.cap)
    if p.mechanism == "binary":
        return (
            "one record added or removed at one timestamp"
            if k == 1
            else (f"one person's records at one timestamp (at most {k}) added or removed")
        )
    return f"one person added or removed, with at most {'one record' if k == 1 else f'{k} records'} at each timestamp"


def write_stream_release(
    out_csv,
    result: StreamResult,
    ledger: Ledger,
    source: dict,
    not_a_release: list[str] | None = None,
    overwrite: bool = False,
    extra: dict | None = None,
    report=None,
    also: dict | None = None,
) -> tuple[Path, ...]:
    """Write OUT.csv and OUT.json (and, given ``report``, the HTML report written from the same sidecar:
    ``io.stream_report``; ``also``: more files, path -> text, such as the re-run script) in one
    all-or-nothing step; returns their paths."""
    from dpstudio.io.stream_report import stream_report_html

    side = release_sidecar(result, ledger, source, not_a_release, extra)
    horizon = int(result.window_ends.max()) if result.window_ends.size else 0
    text = release_csv(result, source_buckets(source, horizon))
    if side["not_a_release"]:
        text = mark_not_a_release(text, "; ".join(side["not_a_release"]))
    csv_path, json_path = Path(out_csv), sidecar_path(out_csv)
    files = {csv_path: text, json_path: json.dumps(side, indent=2) + "\n"}
    if report is not None:
        files[Path(report)] = stream_report_html(side)
    files.update({Path(k): v for k, v in (also or {}).items()})
    atomic_write_many(files, overwrite)
    return tuple(files)
