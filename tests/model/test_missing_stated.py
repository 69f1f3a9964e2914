"""Issue 34 item 4: the API and the studio never leave rows out silently. The release question says, in a
rounded share, how many rows a release that drops missing values leaves out and in which columns (the data
owner's figure: never in a file), and the exported sidecar states the rule, the same with or without such rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpstudio import api


def _study(tmp_path, holes: int):
    rng = np.random.default_rng(1)
    n = 200
    region = rng.choice(["north", "south", "east", "west"], n).astype(object)
    region[:holes] = None  # an empty cell: missing
    path = tmp_path / f"survey{holes}.csv"
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "region": region,
            "answer": rng.choice(["yes", "no"], n),
            "note": ["?"] * 10 + ["x"] * (n - 10),  # ignored: its '?' never counts
        }
    ).to_csv(path, index=False)
    tax = tmp_path / "region.csv"
    tax.write_text("north;N;*\nsouth;S;*\neast;EW;*\nwest;EW;*\n?;unknown;*\n", encoding="utf-8")
    study = api.open_table(path, store=tmp_path / f"store{holes}.sqlite")
    study.declare_class("answer", ["yes", "no"], why="the questionnaire's two answers")
    study.declare_taxonomy("region", tax)
    study.declare_bounds("age", 18, 90, kind="integer", why="the survey's eligibility range")
    study.ignore("note")
    study.choose("diffgen", steps=2)
    return study


def test_the_question_states_the_rounded_share_of_rows_left_out(tmp_path):
    study = _study(tmp_path, holes=25)  # 25 of 200: 12.5 %, said "12 %" or "13 %", never 25
    q = study.question(1)
    assert not q.refusal
    note = next(n for n in q.notes if "left out" in n)
    assert "of the rows have a missing value in region and are left out of this release" in note
    assert ("12 %" in note or "13 %" in note) and "25" not in note
    assert note in q.text()
    study.keep_missing(True)
    assert not any("left out" in n for n in study.question(1).notes)


def test_no_note_without_missing_values_in_used_columns(tmp_path):
    q = _study(tmp_path, holes=0).question(1)
    assert not q.refusal and q.notes == ()


@pytest.mark.parametrize("holes", [0, 1])
def test_the_sidecar_states_the_rule_alike_for_neighbouring_tables(tmp_path, holes):
    study = _study(tmp_path, holes=holes)
    release = study.release(study.question(1))
    out = tmp_path / f"out{holes}"
    out.mkdir()
    sidecar = json.loads(release.export(out, "survey")[1].read_text())
    assert sidecar["missing"] == {
        "rule": "drop",
        "words": "rows with a missing value in a released column were left out",
    }


def test_the_report_states_the_rule_and_its_post_processing_in_words(tmp_path):
    """Issue 32 item 6: the report printed Python dicts ("{'step': 'consistency', ...}") and never said that
    rows with a missing value were left out."""
    study = _study(tmp_path, holes=3)
    study.choose("diffgen_consistency", steps=2)
    release = study.release(study.question(1))
    out = tmp_path / "rep"
    out.mkdir()
    report = release.export(out, "survey")[2].read_text()
    assert "Missing values: rows with a missing value in a released column were left out." in report
    assert "{'step'" not in report and "consistency: least squares" in report


def test_the_missing_figures_are_counted_once_per_load_of_data(monkeypatch):
    """Issue 35: the release question and the readiness list asked for the missing figures on every
    refresh, and each summed the whole table's mask again (20-40 ms of the window's thread on a million
    rows). They are counted once per loaded frame; another frame is counted anew, with its own figures."""
    from dpstudio.model.project.missing import missing_summary
    from dpstudio.model.project.project import Project

    frame = pd.DataFrame({"a": [1.0, None, 3.0, None], "b": ["x", "y", None, "z"], "c": [1, 2, 3, 4]})
    p = Project()
    p.set_data(frame, None, types={"a": "numeric", "b": "categorical", "c": "numeric"})
    sums = []
    original = pd.DataFrame.sum
    monkeypatch.setattr(pd.DataFrame, "sum", lambda self, *a, **k: (sums.append(1), original(self, *a, **k))[1])
    first = missing_summary(p, ["a", "b"])
    again = missing_summary(p, ["a", "b"])
    only_a = missing_summary(p, ["a", "c"])
    assert len(sums) == 1
    assert first == again and (first.per_column, first.rows_in_used) == ({"a": 2, "b": 1}, 3)
    assert (only_a.rows_in_used, only_a.used_with_missing) == (2, ("a",))
    p.set_data(frame.fillna({"a": 0.0}), None, types={"a": "numeric", "b": "categorical", "c": "numeric"})
    assert missing_summary(p, ["a", "b"]).per_column == {"b": 1} and len(sums) == 2
