"""From an event log to a private stream (``dpstudio stream --events``): the public buckets from --start to
--end, at most one event per person per bucket counted (checked against an independent pandas computation),
empty buckets as zeros, events outside the range dropped, the guarantee in people's terms, and person-level
neighbours (D, and D without every event of one person) giving the same non-noisy metadata."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.event_stream import EventStreamError, bucket_events, public_buckets
from tests.cli_outputs import integers_in, report_structure, run_writer, without
from tests.test_cli_stream import STREAM_MECHANISM_OUTPUTS, run_cli


def _events(n=4000, people=250, seed=0, days=75):
    rng = np.random.default_rng(seed)
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, days * 24 * 60, n), unit="min")
    return pd.DataFrame({"person": rng.integers(0, people, n).astype(str), "when": when.astype(str)})


def _expected(df, bucket, start, end):
    t = pd.to_datetime(df["when"])
    d = df.assign(t=t).loc[(t >= start) & (t < end)]
    if bucket == "month":
        b = (d.t.dt.year - pd.Timestamp(start).year) * 12 + d.t.dt.month - pd.Timestamp(start).month
    else:
        b = (d.t.dt.normalize() - pd.Timestamp(start)).dt.days // (1 if bucket == "day" else 7)
    n = len(public_buckets(start, end, bucket))
    return d.assign(b=b).groupby("b").person.nunique().reindex(range(n), fill_value=0).to_numpy()


@pytest.mark.parametrize(
    "bucket,start,end",
    [("day", "2024-01-10", "2024-02-10"), ("week", "2024-01-01", "2024-04-01"), ("month", "2024-01-01", "2024-06-01")],
)
def test_bucketing_and_bounding_match_an_independent_computation(tmp_path, bucket, start, end):
    df = _events()
    df.loc[:30, "person"] = "?"  # events without a person are not counted
    path = tmp_path / "ev.csv"
    df.to_csv(path, index=False)
    counts, report = bucket_events(path, "person", "when", bucket, start, end)
    expected = _expected(df.loc[df.person != "?"], bucket, start, end)
    np.testing.assert_array_equal(counts, expected)
    assert report.events_read == len(df) and report.events_counted == int(counts.sum())
    assert report.dropped_over_cap + report.dropped_outside + report.events_counted == report.events_read


def test_the_range_is_public_empty_buckets_are_zeros(tmp_path):
    path = tmp_path / "ev.csv"
    _events(days=20).to_csv(path, index=False)  # events in January only
    counts, _ = bucket_events(path, "person", "when", "week", "2023-12-04", "2024-03-04")
    assert len(counts) == len(public_buckets("2023-12-04", "2024-03-04", "week")) == 13
    assert counts[:4].sum() == 0 and counts[-6:].sum() == 0 and counts.sum() > 0
    with pytest.raises(EventStreamError, match="first day of a month"):
        public_buckets("2024-01-15", "2024-06-01", "month")
    with pytest.raises(EventStreamError, match="after"):
        public_buckets("2024-02-01", "2024-01-01", "day")


def test_the_cli_states_the_guarantee_in_people(tmp_path):
    _events().to_csv(tmp_path / "ev.csv", index=False)
    argv = ["stream", "--events", "ev.csv", "--user", "person", "--time", "when", "--bucket", "week"]
    argv += ["--start", "2024-01-01", "--end", "2024-03-11", "--window", "4", "--epsilon", "1", "--out", "out.csv"]
    out = run_writer(tmp_path, [*argv, "--report", "out.html"], report="out.html")
    src = out.sidecar["source"]
    assert src["buckets"] == 10 and src["per_bucket_cap"] == 1 and src["bucket"] == "week"
    assert "at most 1 event a week" in src["guarantee_in_people"]
    assert "events read" in out.stderr and "for you only" in out.stderr
    assert "events read" not in (tmp_path / "out.json").read_text()  # the owner's figures stay out of the release
    _, report = bucket_events(tmp_path / "ev.csv", "person", "when", "week", "2024-01-01", "2024-03-11")
    released = integers_in((tmp_path / "out.json").read_text()) | integers_in(out.texts["html"])
    exact = {report.events_read, report.events_counted, report.dropped_over_cap, report.dropped_outside}
    assert not (exact & released), exact & released
    code, _, err = run_cli(
        ["stream", "--counts", "c.txt", "--per-bucket-cap", "2", "--window", "4", "--epsilon", "1", "--out", "k.csv"]
    )
    assert code == 2 and "--per-bucket-cap goes with --events" in err


def test_a_cap_of_k_is_counted_and_every_spend_is_for_sensitivity_k(tmp_path):
    df = _events()
    df.to_csv(tmp_path / "ev.csv", index=False)
    counts, _ = bucket_events(tmp_path / "ev.csv", "person", "when", "week", "2024-01-01", "2024-03-11", cap=3)
    t = pd.to_datetime(df["when"])
    b = (t.dt.normalize() - pd.Timestamp("2024-01-01")).dt.days // 7
    per = df.assign(b=b).loc[b < 10].groupby(["b", "person"]).size().clip(upper=3)  # independent: pandas
    np.testing.assert_array_equal(counts, per.groupby(level=0).sum().reindex(range(10), fill_value=0).to_numpy())
    argv = ["stream", "--events", "ev.csv", "--user", "person", "--time", "when", "--bucket", "week"]
    argv += ["--start", "2024-01-01", "--end", "2024-03-11", "--window", "4", "--epsilon", "1"]
    for mechanism, sensitivity in (("tpm", 3), ("swm", 12), ("binary", 3)):
        folder = tmp_path / mechanism  # a budget store of its own: each a first release of the log
        folder.mkdir()
        df.to_csv(folder / "ev.csv", index=False)
        out = run_writer(
            folder, [*argv, "--per-bucket-cap", "3", "--mechanism", mechanism, "--out", "o.csv"], out="o.csv"
        )
        side = out.sidecar
        assert side["parameters"]["per_timestamp_cap"] == 3 and side["parameters"]["sensitivity"] == sensitivity
        words = side["source"]["guarantee_in_people"]
        assert side["source"]["per_bucket_cap"] == 3
        if mechanism == "binary":  # event-level: per week, never per person over the horizon
            assert "at most 3 events counted" in words and "holds per week, not per person over the horizon" in words
        else:
            assert "at most 3 events a week" in words and "holds for each person over the horizon" in words
        assert "3" in side["neighbouring"]
        spends = side["ledger"]["spends"] if "spends" in side["ledger"] else side["ledger"]["entries"]
        assert spends and all(int(float(s["sensitivity"])) == sensitivity for s in spends)
    tpm = json.loads((tmp_path / "tpm" / "o.json").read_text())
    assert "contributes at most 3" in tpm["guarantee"]


@pytest.mark.parametrize("mechanism,cap", [("tpm", 1), ("swm", 1), ("asm", 1), ("tpm", 3), ("asm", 3)])
def test_person_level_neighbours_give_the_same_metadata(tmp_path, mechanism, cap):
    df = _events(seed=3)
    heavy = df.person.value_counts().index[0]  # a person present in many weeks
    outs = []
    for tag, frame in (("d", df), ("without", df.loc[df.person != heavy])):
        folder = tmp_path / tag
        folder.mkdir()
        frame.to_csv(folder / "ev.csv", index=False)
        argv = ["stream", "--events", "ev.csv", "--user", "person", "--time", "when", "--bucket", "week"]
        argv += ["--start", "2024-01-01", "--end", "2024-03-11", "--window", "4", "--epsilon", "1"]
        argv += ["--mechanism", mechanism, "--per-bucket-cap", cap, "--out", "out.csv", "--report", "out.html"]
        outs.append(run_writer(folder, argv, report="out.html"))
    a, b = outs
    assert a.rows[0] == b.rows[0] and len(a.rows) == len(b.rows)
    varying = (*STREAM_MECHANISM_OUTPUTS, "dataset_budget")
    assert without(a.sidecar, varying) == without(b.sidecar, varying)
    # the report: the same headings and rows' names; for a data-independent ledger, the same text but for
    # the error estimate (read from the noisy values) and the store's running totals
    assert report_structure(a.texts["html"]) == report_structure(b.texts["html"])
    if mechanism == "tpm":

        def scrub(text):
            text = re.sub(r"about [0-9.e+-]+ \(estimated", "about X (estimated", text)
            text = re.sub(r"(estimated from the release</th><td>)[^<]*", r"\1X", text)
            text = re.sub(r"(from public inputs\)</th><td>)[^<]*", r"\1X", text)  # noisefirst's k_t
            return re.sub(r"<h2>Budget</h2>.*?</table>", "", text, flags=re.S)

        assert scrub(a.texts["html"]) == scrub(b.texts["html"])
    report = a.texts["html"]
    assert "In people's terms" in report and f"at most {cap} event" in report and "Recommended" in report


@pytest.mark.parametrize("grouping,only", [("noisefirst", True), ("seed", True), ("none", False)])
def test_the_error_figure_says_what_it_leaves_out(tmp_path, grouping, only):
    """Issue 23: for a grouped run the published figure is the Laplace term only (the grouping's approximation
    error, which depends on the data, is not in it): the sidecar says so beside the figure."""
    counts = tmp_path / "c.txt"
    counts.write_text("\n".join(str(v) for v in range(40, 100)) + "\n")
    out = run_writer(
        tmp_path,
        ["stream", "--counts", "c.txt", "--window", "12", "--epsilon", "1", "--grouping", grouping, "--out", "o.csv"],
        out="o.csv",
    )
    assert out.sidecar["laplace_term_only"] is only
    assert ("approximation error" in out.sidecar["error_note"]) is only


def test_the_sidecar_carries_the_recommendation_from_public_inputs(tmp_path):
    from dpstudio.model.stream.recommend import recommend

    counts = tmp_path / "c.txt"
    counts.write_text("\n".join(str(v) for v in range(40, 100)) + "\n")
    argv = ["stream", "--counts", "c.txt", "--window", "12", "--epsilon", "1", "--mechanism", "swm", "--out", "o.csv"]
    out = run_writer(tmp_path, argv, out="o.csv")
    rec = out.sidecar["recommendation"]
    assert rec["mechanism"] == "tpm" and rec["reason"] == recommend(60, 12, 1).reason
    assert "recommended: TPM" in out.stdout


def test_the_owners_report_says_none_rather_than_about_zero():
    from dpstudio.io.event_stream import EventReport

    words = EventReport(5000, 4800, 200, 0).words()
    assert "none outside the range" in words and "about 200 over the per-person cap" in words
