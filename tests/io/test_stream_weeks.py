"""ILINet's released stream carries its surveillance weeks (walk finding: the CSV had t = 1..12 only). The
labels are calendar arithmetic from the declared first week (CDC's MMWR weeks); they are checked here against
the YEAR and WEEK columns of the bundled ILINet file, which spans the 53-week years 2008, 2014 and 2020."""

from __future__ import annotations

import pandas as pd
import pytest

from dpstudio.io.stream_release import mmwr_weeks, source_buckets
from dpstudio.resources import resource


def test_the_weeks_match_the_files_own_year_and_week_columns():
    frame = pd.read_csv(resource("samples", "ILINet.csv.gz"))
    region = frame[frame["REGION"] == frame["REGION"].iloc[0]]
    years, weeks = region["YEAR"].tolist(), region["WEEK"].tolist()
    first = f"{years[0]}-W{weeks[0]:02d}"
    expected = [f"{y}-W{w:02d}" for y, w in zip(years, weeks)]
    assert len(expected) > 500 and {"2008-W53", "2014-W53"} <= set(expected)
    assert mmwr_weeks(first, len(expected)) == expected


def test_only_ilinet_with_a_first_week_and_event_logs_get_labels():
    assert source_buckets({"source": "data file", "layout": "ILINet", "from": "2002-W40"}, 2) == [
        "2002-W40",
        "2002-W41",
    ]
    assert source_buckets({"source": "data file", "layout": "ILINet", "from": None}, 2) is None
    assert source_buckets({"source": "counts file"}, 2) is None


@pytest.mark.parametrize("bad", ["2002W40", "2002-W53", "2002-W00", "week 3"])
def test_a_first_week_the_calendar_does_not_have_is_refused(bad):
    with pytest.raises(ValueError):
        mmwr_weeks(bad, 3)


def test_the_released_csv_names_each_week(tmp_path):
    from dpstudio.cli import main

    out = tmp_path / "flu.csv"
    argv = ["stream", "--data", str(resource("samples", "ILINet.csv.gz")), "--column", "ILITOTAL"]
    argv += ["--region", "national", "--from", "2002-W40", "--window", "8", "--epsilon", "1", "--seed", "3"]
    argv += ["--out", str(out), "--budget-store", "none"]
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    assert lines[0].endswith("window,t,bucket,value")  # after the not-a-release mark of a seeded run
    first = lines[1].split(",")
    assert first[-3:-1] == ["1", "2002-W40"]
