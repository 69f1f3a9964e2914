"""The table run session (``model.release.session``) and its record (``model.release.record``): inputs refused
before any question, the charge before the first noisy value, only the session's own question starts it, and
the files read from the record of what ran, whatever the project holds later."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dpstudio import api
from dpstudio.model.release import ReleaseRefused
from dpstudio.model.release import runs as runs_module
from dpstudio.model.release.record import CSV, REPORT, SIDECAR
from dpstudio.model.release.runs import PreparedRun, RunInputError
from dpstudio.model.release.service import ReleaseRequest
from dpstudio.model.release.session import RunSession
from tests.budget_data import spent_epsilons

_spent = spent_epsilons


@pytest.fixture
def study(tmp_path):
    s = api.open_sample(store=tmp_path / "store.sqlite", lifetime_epsilon=3)
    s.use_only("age", "education", "sex", "Y")
    s.choose("diffgen-consistent", steps=3)
    s.project.set_epsilon(1)
    return s, tmp_path / "store.sqlite"


def test_a_projects_session_charges_before_the_first_noisy_value_and_records_what_ran(study, monkeypatch):
    s, store = study
    seen = []
    real = PreparedRun.events

    def spy(self, setup):
        seen.append(_spent(store))
        return real(self, setup)

    monkeypatch.setattr(PreparedRun, "events", spy)
    session = RunSession.of_project(s.project)
    question = session.question()
    assert question.tracked and not question.refusal and _spent(store) == []
    session.begin(question)
    record = session.finish(list(session.events()))
    assert seen == [[1.0]] and s.project.record is record and record.is_release
    assert record.budget["charged"] == "1" and record.store == str(store.resolve())
    # the project changes after the run: the files still describe what ran
    s.project.set_role("education", "ignore")
    out = store.parent / "out.csv"
    written = record.write(out, (CSV, SIDECAR, REPORT))
    side = json.loads(written[1].read_text())
    assert [x["key"] for x in side["public_inputs"]] == [x["key"] for x in record.snapshot.public_inputs]
    assert "taxonomy:education" in [x["key"] for x in side["public_inputs"]]
    assert side["steps_choice"] == {"steps": 3, "automatic": False} and written[2].name == "out.report.html"
    assert _spent(store) == [1.0]  # writing spends nothing


def test_bad_inputs_are_refused_before_any_question(study):
    s, store = study
    s.project.set_role("Y", "ignore")  # no class
    with pytest.raises(RunInputError, match="no attribute is the class"):
        RunSession.of_project(s.project)
    assert _spent(store) == []


def test_only_the_sessions_own_question_starts_it(tmp_path, study):
    """A session built from frozen inputs (the command line's) takes only the question it asked itself."""
    s, store = study
    prepared = runs_module.prepare_run(s.project)
    from dpstudio.model.release.snapshot import snapshot_of

    snapshot = snapshot_of(s.project)

    def request():
        return ReleaseRequest("adult", s.project.dataset_print, Fraction(1), "test", "cli", str(store))

    first = RunSession(prepared, snapshot, request())
    other = RunSession(prepared, snapshot, request())
    foreign = other.question()
    first.question()
    for wrong in (foreign, None):
        with pytest.raises(ReleaseRefused, match="nothing was spent"):
            first.begin(wrong)
    with pytest.raises(ReleaseRefused, match="has not begun"):
        first.events()
    assert _spent(store) == []


def test_a_seeded_session_asks_nothing_charges_nothing_and_writes_only_marked_files(study, tmp_path):
    s, store = study
    from dpstudio.model.release.snapshot import snapshot_of

    s.project.set_mode("teaching")
    session = RunSession(runs_module.prepare_run(s.project), snapshot_of(s.project), seed=4)
    assert session.question() is None
    assert session.begin(None).teaching
    record = session.finish(list(session.events()))
    assert not record.is_release and _spent(store) == []
    with pytest.raises(ValueError, match="not a release-mode run"):
        record.write(tmp_path / "x.csv")
    csv, side = record.write(tmp_path / "x.csv", (CSV, SIDECAR), simulation=True)
    assert json.loads(side.read_text())["not_a_release"] and csv.read_text().startswith("not_a_release,")


def test_the_record_keeps_the_events_it_was_handed_without_copying_them(study):
    """A large run's 77,000 events were copied twice at its end, on the GUI thread (issue 35): the record keeps
    the sequence it was handed. An iterator (read once) is made into a list."""
    s, _ = study
    s.project.set_mode("teaching")
    session = RunSession.of_project(s.project)
    session.begin(None)
    events = list(session.events())
    record = session.finish(events)
    assert record.events is events and s.project.record.events is events
    assert record.result is not None and record.result is events[-1].result

    from dpstudio.model.release.snapshot import snapshot_of

    bare = RunSession(runs_module.prepare_run(s.project), snapshot_of(s.project), seed=4)
    bare.begin(None)
    as_tuple = tuple(bare.events())
    assert bare.finish(as_tuple).events is as_tuple
    again = RunSession(runs_module.prepare_run(s.project), snapshot_of(s.project), seed=4)
    again.begin(None)
    read_once = again.finish(iter(again.events()))
    assert isinstance(read_once.events, list) and read_once.result is not None
    assert [type(e) for e in read_once.events] == [type(e) for e in as_tuple]  # the same seed: the same run
