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
    csv, side_path, report, script = record.export(store.parent / "out.csv")
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
