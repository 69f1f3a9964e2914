"""The stream run session (``model.stream.run``): the question, the charge before any noise, the record
of what ran, and the export read from it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpstudio.algorithms.stream_runs import StreamInputError, StreamParams
from dpstudio.model.release import ReleaseRefused
from dpstudio.model.stream import run as stream_run
from dpstudio.model.stream.run import StreamRun
from dpstudio.model.stream.session import COUNTS, StreamSource
from tests.budget_data import spent_epsilons

_spent = spent_epsilons


@pytest.fixture
def stream(tmp_path):
    counts = np.random.default_rng(3).integers(20, 80, 40)
    path = tmp_path / "visits.csv"
    path.write_text("count\n" + "\n".join(str(int(c)) for c in counts) + "\n")
    source = StreamSource(COUNTS, path)
    return source, source.load(), tmp_path / "store.sqlite"


def test_a_teaching_run_asks_nothing_charges_nothing_and_is_not_exportable(stream):
    source, counts, store = stream
    run = StreamRun(source, counts, StreamParams("swm", 1, 8), True, 7, str(store))
    assert run.question() is None
    assert run.begin(None).teaching
    record = run.finish(list(run.events()))
    assert not record.exportable and record.budget["charged"] is None and not store.exists()
    with pytest.raises(ValueError, match="nothing to export"):
        record.export(store.parent / "x.csv")


def test_a_release_is_charged_before_its_first_noisy_value_and_exports_what_ran(stream, monkeypatch):
    source, counts, store = stream
    seen = []
    real = stream_run.run_stream

    def spy(*args):
        seen.append(_spent(store))
        return real(*args)

    monkeypatch.setattr(stream_run, "run_stream", spy)
    run = StreamRun(source, counts, StreamParams("swm", "1/2", 8), False, 0, str(store))
    question = run.question()
    assert question.tracked and not question.refusal and _spent(store) == []
    run.begin(question, True)
    record = run.finish(list(run.events()))
    assert seen == [[0.5]] and record.exportable and record.store == str(store.resolve())
    assert "spent epsilon = 0.5" in record.confirm_text() and "one person added or removed" in record.confirm_text()
    csv, side_path, report, script, _python = record.export(store.parent / "out.csv")
    side = json.loads(side_path.read_text())
    assert side["dataset_budget"] == record.budget and side["parameters"]["mechanism"] == "swm"
    assert str(store.resolve()) in script.read_text() and report.exists() and csv.exists()
    assert _spent(store) == [0.5]  # exporting spends nothing


def test_only_the_question_this_run_asked_starts_it(stream):
    source, counts, store = stream
    first = StreamRun(source, counts, StreamParams("swm", 1, 8), False, 0, str(store))
    other = StreamRun(source, counts, StreamParams("swm", 1, 4), False, 0, str(store))
    asked = other.question()
    first.question()
    for wrong in (asked, None):
        with pytest.raises(ReleaseRefused, match="nothing was spent"):
            first.begin(wrong, True)
    with pytest.raises(ReleaseRefused, match="has not begun"):
        first.events()
    with pytest.raises(ReleaseRefused, match="not confirmed"):
        first.begin(first._question, False)
    assert _spent(store) == []


def test_bad_settings_and_the_literal_asm_are_refused_before_any_question(stream):
    source, counts, store = stream
    with pytest.raises(StreamInputError):
        StreamRun(source, counts, StreamParams("swm", 1, 400), False, 0, str(store)).question()
    with pytest.raises(StreamInputError):
        StreamRun(source, counts, StreamParams("swm", "nan", 8), False, 0, str(store)).question()
    with pytest.raises(ReleaseRefused, match="teaching mode only"):
        StreamRun(source, counts, StreamParams("asm", 1, 8), False, 0, str(store), literal=True).question()
    assert not store.exists()


def test_the_stream_rerun_scripts_run_from_any_folder_and_charge_the_releases_store(stream, tmp_path):
    """Issue 32 item 1: a stream export had no reproduce.py. Both scripts, started from another folder with
    only the system's PATH and another default store, re-run the settings on fresh noise and are charged to
    the store the release was charged to."""
    import os
    import subprocess
    import sys

    from dpstudio.cli import main

    source, counts, store = stream
    run = StreamRun(source, counts, StreamParams("swm", "1/2", 8), False, 0, str(store))
    run.begin(run.question(), True)
    record = run.finish(list(run.events()))
    csv, side, _report, sh, py = record.export(tmp_path / "visits_swm.csv")
    assert py.read_text().splitlines()[0] == f"#!{sys.executable}" and os.access(py, os.X_OK)
    name = json.loads(side.read_text())["dataset_budget"]["dataset"]
    assert main(["budget", "--budget-store", str(store), "set-total", name, "3/2"]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    decoy = tmp_path / "decoy.sqlite"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DPSTUDIO_BUDGET_STORE": str(decoy)}
    for i, cmd in enumerate((["/bin/sh", str(sh)], [str(py)])):
        done = subprocess.run([*cmd, str(source.path)], cwd=elsewhere, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert _spent(store) == [0.5] * (i + 2)
    written = sorted(p.name for p in elsewhere.glob("*.csv"))
    assert written == ["visits_swm.rerun-2.csv", "visits_swm.rerun.csv"]  # a new name on every run
    assert not decoy.exists()


def test_the_stream_question_says_how_to_set_a_new_datasets_total_from_where_it_can_be_set(stream):
    """Walk finding: the Stream panel's question sent the data owner to the Algorithm panel's dataset
    budget, which is the table's; the Stream panel has no such field, so it names the command line."""
    source, counts, store = stream
    text = StreamRun(source, counts, StreamParams("swm", 1, 8), False, 0, str(store)).question().text()
    assert "Algorithm panel" not in text
    assert "--dataset-budget EPS" in text and "dpstudio budget set-total visits EPS" in text
