"""What Compare reads about a run is decided in the model (``model.compare.monte_carlo`` and
``model.compare.classification``), not in its panel (issue 31): a release, or a teaching run looked at in
release mode, is compared by its noise alone and never reads the private rows; only a teaching run of a
teaching project reads the true counts, and only there a tree is trained on the raw data. The readers of the
private rows are planted to fail, so a path that reads them cannot pass."""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio import api
from dpstudio.model.compare import classification as clf
from dpstudio.model.compare import monte_carlo as mc
from dpstudio.model.project.vocabulary import RELEASE, TEACHING
from dpstudio.model.release import runs as runs_module
from dpstudio.model.release.session import RunSession


class PrivateRowsRead(AssertionError):
    pass


def _forbid_private_rows(monkeypatch):
    def refuse(*_a, **_k):
        raise PrivateRowsRead("the private rows were read")

    monkeypatch.setattr(runs_module, "encode_table", refuse)
    monkeypatch.setattr(runs_module, "used_frame", refuse)


@pytest.fixture
def ran(tmp_path):
    """A teaching run of a teaching project on the Adult sample (nothing charged), and a held-out file."""
    s = api.open_sample(store=tmp_path / "store.sqlite", lifetime_epsilon=3)
    s.use_only("age", "education", "sex", "Y")
    s.choose("diffgen-consistent", steps=3)
    p = s.project
    p.set_epsilon(1)
    p.set_mode(TEACHING)
    session = RunSession.of_project(p)
    session.begin(None)
    session.finish(list(session.events()))
    test = p.frame.sample(300, random_state=1)  # rows of the sample as a stand-in for other records
    return p, test


def test_a_teaching_run_of_a_teaching_project_reads_the_true_counts(ran, monkeypatch):
    p, test = ran
    assert mc.reads_true_counts(p)
    _forbid_private_rows(monkeypatch)
    with pytest.raises(PrivateRowsRead):
        mc.monte_carlo_job(p, p.result, None, runs=2, seed=0)(None)
    with pytest.raises(PrivateRowsRead):
        clf.release_accuracy(p, p.result, test)


def test_in_release_mode_compare_never_reads_the_private_rows(ran, monkeypatch):
    p, test = ran
    result = p.result
    p.set_mode(RELEASE)  # the same run, looked at in release mode
    assert not mc.reads_true_counts(p)
    _forbid_private_rows(monkeypatch)
    analytic, runs = mc.monte_carlo_job(p, result, None, runs=3, seed=0)(None)
    assert runs.runs == 3 and set(runs.values) == set(analytic.values)
    for m, y in analytic.values.items():  # the noise-only errors: positive, finite, growing with the box
        assert np.all(np.isfinite(y)) and np.all(np.asarray(y) > 0), m
    scored = clf.release_accuracy(p, result, test)
    assert scored.raw_withheld == clf.RAW_RELEASE_MODE and scored.scores.raw is None
    assert "raw-data baseline: teaching mode only" in scored.text()
    assert 0.0 <= scored.scores.release <= 1.0 and scored.scores.n_test == 300
    big = clf.ReleaseAccuracy(scored.scores.__class__(**{**vars(scored.scores), "n_test": 15060}), "", "x")
    assert big.text().startswith("15,060 test rows")  # walk 50: "15060" beside "30,162" elsewhere


def test_the_raw_baseline_comes_only_with_a_teaching_run_in_memory(ran):
    p, test = ran
    scored = clf.release_accuracy(p, p.result, test)
    assert scored.raw_withheld is None and 0.5 < scored.scores.raw <= 1.0
    assert "teaching mode: the raw baseline is not private" in scored.text()


def test_the_kind_of_a_run_is_told_without_building_its_leaf_labels(ran):
    """``leaf_labels`` is a cached property: asking whether a result has it built every leaf's labels, in the
    GUI thread's pass at a large run's end (session 26)."""
    import dataclasses
    from types import SimpleNamespace

    p, _ = ran
    fresh = dataclasses.replace(p.result)  # the same release, its cached labels not built
    assert "leaf_labels" not in fresh.__dict__
    assert mc.result_kind(fresh) == "table"
    assert "leaf_labels" not in fresh.__dict__
    assert fresh.n_partitions == len(p.result.leaf_labels) == len(fresh.leaf_labels) > 1
    assert mc.result_kind(SimpleNamespace(leaf_labels=[("a",)])) == "table"
    assert mc.result_kind(SimpleNamespace(plan=SimpleNamespace(tree=object()))) == "histogram"
    assert mc.result_kind(object()) is None


def test_there_is_nothing_to_compare_without_a_run(ran):
    p, _ = ran
    assert mc.result_kind(None) is None
    with pytest.raises(ValueError, match="run an algorithm first"):
        mc.monte_carlo_job(p, None, None, runs=2, seed=0)
    with pytest.raises(ValueError, match="DiffGen-family"):
        clf.release_accuracy(p, object(), None)
