"""Issue 34 item 3: event logs as machines write them. Times as epoch seconds or milliseconds or day and week
numbers from a public origin give the same counts as ISO times (checked against pandas); an ISO read of a
numeric column is refused naming the option; a run that counts nothing, or a range that ends inside a bucket,
is refused before any charge; person ids are one person however they are written; binary's guarantee in
people's terms is per bucket."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.budget_store import open_store
from dpstudio.io.event_stream import MAX_CAP, EventStreamError, bucket_events, public_buckets
from tests.test_cli_stream import run_cli

START, END = "2024-01-01", "2024-03-11"  # ten whole weeks
EPOCH = 1704067200  # 2024-01-01 00:00 UTC


def _log(n=3000, people=200, seed=0):
    rng = np.random.default_rng(seed)
    seconds = EPOCH + rng.integers(-5 * 86400, 80 * 86400, n)  # some before the range, some after
    return pd.DataFrame({"person": rng.integers(0, people, n), "seconds": seconds})


def _expected(df):
    """Independent: pandas, one event per person per week."""
    day = pd.to_datetime(df["seconds"], unit="s").dt.normalize()
    d = df.assign(day=day).loc[(day >= START) & (day < END)]
    week = (d.day - pd.Timestamp(START)).dt.days // 7
    return d.assign(w=week).groupby("w").person.nunique().reindex(range(10), fill_value=0).to_numpy()


@pytest.mark.parametrize(
    "fmt,column,origin",
    [
        ("iso", lambda s: pd.to_datetime(s, unit="s").astype(str), None),
        ("epoch-seconds", lambda s: s, None),
        ("epoch-seconds", lambda s: s + 0.25, None),  # fractional seconds
        ("epoch-milliseconds", lambda s: s * 1000 + 999, None),
        ("day-number", lambda s: (s - EPOCH) // 86400 + 10, "2023-12-22"),  # day 10 is 2024-01-01
        ("week-number", lambda s: (s - EPOCH) // (7 * 86400), "2024-01-01"),
    ],
)
def test_every_time_format_gives_the_counts_of_an_independent_computation(tmp_path, fmt, column, origin):
    df = _log()
    path = tmp_path / "log.csv"
    df.assign(seconds=column(df["seconds"])).to_csv(path, index=False)
    counts, _ = bucket_events(path, "person", "seconds", "week", START, END, 1, fmt, origin)
    if fmt == "week-number":  # a week number carries no day: every event of week k lands in bucket k
        week = (df["seconds"] - EPOCH) // (7 * 86400)
        d = df.assign(w=week).loc[(week >= 0) & (week < 10)]
        expected = d.groupby("w").person.nunique().reindex(range(10), fill_value=0).to_numpy()
    else:
        expected = _expected(df)
    np.testing.assert_array_equal(counts, expected)


def _argv(log, *extra, end=END, out="o.csv"):
    argv = ["stream", "--events", log, "--user", "person", "--time", "seconds", "--bucket", "week"]
    argv += ["--start", START, "--end", end, "--window", "4", "--epsilon", "1", "--out", out]
    return argv + list(extra)


def _refused(tmp_path, argv, *words):
    """One line, exit 2, nothing written, nothing charged."""
    store = tmp_path / "store.sqlite"
    code, out, err = run_cli([*argv, "--budget-store", store])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]
    assert not (tmp_path / "o.csv").exists() and not (tmp_path / "o.json").exists()
    assert not store.exists() or not open_store(str(store)).datasets()
    return lines[0]


@pytest.mark.parametrize(
    "scale,option", [(1, "--time-format epoch-seconds"), (1000, "--time-format epoch-milliseconds")]
)
def test_epoch_times_read_as_dates_are_refused_naming_the_option(tmp_path, monkeypatch, scale, option):
    monkeypatch.chdir(tmp_path)
    df = _log()
    df.assign(seconds=df.seconds * scale).to_csv("log.csv", index=False)
    line = _refused(tmp_path, _argv("log.csv"), "no event would be counted", option, "nothing was charged")
    assert "holds numbers, not dates" in line
    df.assign(seconds=(df.seconds - EPOCH) // 86400).to_csv("days.csv", index=False)
    _refused(tmp_path, _argv("days.csv"), "--time-format day-number", "--time-origin")
    _refused(tmp_path, _argv("days.csv", "--time-format", "day-number"), "--time-origin YYYY-MM-DD")
    _refused(tmp_path, _argv("log.csv", "--time-origin", "2024-01-01"), "--time-origin goes with")


def test_a_log_with_an_epoch_column_is_released_by_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _log().to_csv("log.csv", index=False)
    code, out, err = run_cli([*_argv("log.csv", "--time-format", "epoch-seconds"), "--budget-store", "s.sqlite"])
    assert code == 0, err
    import json

    side = json.loads((tmp_path / "o.json").read_text())
    assert side["source"]["time_format"] == "epoch-seconds" and side["release"] is True
    assert float(open_store("s.sqlite").datasets()[0].spent) == 1


def test_a_run_that_counts_nothing_is_refused_before_the_charge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    df = _log()
    df.assign(seconds=pd.to_datetime(df.seconds, unit="s").astype(str)).to_csv("log.csv", index=False)
    late = ["--start", "2030-01-07", "--end", "2030-03-18"]
    argv = _argv("log.csv")
    argv[argv.index("--start") : argv.index("--start") + 4] = late
    _refused(tmp_path, argv, "no event would be counted", "between 2030-01-07 and 2030-03-18")


def test_a_range_ending_inside_a_bucket_is_refused_with_the_whole_bucket_ends(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _log().to_csv("log.csv", index=False)
    _refused(
        tmp_path,
        _argv("log.csv", "--time-format", "epoch-seconds", end="2024-03-09"),
        "--end 2024-03-09 ends inside the week that starts 2024-03-04",
        "give --end 2024-03-11",
        "or 2024-03-04",
    )
    with pytest.raises(EventStreamError, match="ends inside the month that starts 2024-05-01.*2024-06-01"):
        public_buckets("2024-01-01", "2024-05-15", "month")
    assert len(public_buckets("2024-01-01", "2024-06-01", "month")) == 5


def test_person_ids_are_one_person_however_written(tmp_path):
    ids = [" p1", "p1 ", "p1", "1", "1.0", "01", "+1", "1e0", "2", "2.5", " 2.50 ", "?", ""]
    path = tmp_path / "ids.csv"
    pd.DataFrame({"person": ids, "seconds": ["2024-01-02"] * len(ids)}).to_csv(path, index=False)
    counts, report = bucket_events(path, "person", "seconds", "week", START, END)
    # p1; 1; 2; 2.5: four people in week 0, each counted once; '?' and '' are missing
    assert counts[0] == 4 and counts[1:].sum() == 0
    assert report.dropped_over_cap == len(ids) - 2 - 4


@pytest.mark.parametrize(
    "extra,words",
    [
        (["--per-bucket-cap", str(10**12)], f"from 1 to {MAX_CAP:,}"),
        (["--per-bucket-cap", "0"], "from 1 to"),
        (["--window", "300"], "larger than the stream"),
    ],
)
def test_caps_and_windows_beyond_the_bounds_are_refused(tmp_path, monkeypatch, extra, words):
    monkeypatch.chdir(tmp_path)
    _log().to_csv("log.csv", index=False)
    _refused(tmp_path, _argv("log.csv", "--time-format", "epoch-seconds", *extra), words)


def test_a_range_too_long_for_memory_is_refused_before_the_log_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = _argv("absent.csv", "--time-format", "epoch-seconds")  # the file is never opened
    argv[argv.index("--start") + 1] = "0001-01-01"
    argv[argv.index("--end") + 1] = "9999-01-01"
    argv[argv.index("--bucket") + 1] = "day"
    _refused(tmp_path, argv, "3,651,694 days", "at most 1,000,000 buckets")
    argv[argv.index("--start") + 1] = "1900-01-01"
    argv[argv.index("--end") + 1] = "2100-01-01"
    argv[argv.index("--window") + 1] = "20000"
    _refused(tmp_path, argv, "published values: at most 20,000,000")


def test_binary_says_per_bucket_in_the_sidecar_and_the_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _log().to_csv("log.csv", index=False)
    argv = _argv("log.csv", "--time-format", "epoch-seconds", "--mechanism", "binary", "--report", "o.html")
    code, _, err = run_cli([*argv, "--budget-store", "none"])
    assert code == 0, err
    import json

    words = json.loads((tmp_path / "o.json").read_text())["source"]["guarantee_in_people"]
    report = (tmp_path / "o.html").read_text()
    for text in (words, report):
        assert "holds per week, not per person over the horizon" in text
        assert "holds for each person over the horizon" not in text
