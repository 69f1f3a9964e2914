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
    """``window,t,value``; with the public ``buckets`` of an event log (each timestamp's first day),
    ``window,t,bucket,value``."""
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


def source_buckets(source: dict) -> list[str] | None:
    """The public buckets of an event log's stream (their first days, from the typed range), else None."""
    if source.get("source") != "event log":
        return None
    from dpstudio.io.event_stream import public_buckets

    return public_buckets(source["start"], source["end"], source["bucket"])


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
    text = release_csv(result, source_buckets(source))
    if side["not_a_release"]:
        text = mark_not_a_release(text, "; ".join(side["not_a_release"]))
    csv_path, json_path = Path(out_csv), sidecar_path(out_csv)
    files = {csv_path: text, json_path: json.dumps(side, indent=2) + "\n"}
    if report is not None:
        files[Path(report)] = stream_report_html(side)
    files.update({Path(k): v for k, v in (also or {}).items()})
    atomic_write_many(files, overwrite)
    return tuple(files)
