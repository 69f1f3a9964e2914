"""The neighbour view of a selection: the run's history replays exactly (the recorded scores come back on
the same table), and on D minus one record every candidate's probability moves by at most e^eps, with the
probabilities those of the exponential mechanism on the new scores (recomputed here)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpstudio.core.events import CandidatesScored
from dpstudio.model.release.session import make_job
from dpstudio.model.watch.neighbour_selection import (
    SelectionNeighbourError,
    neighbour_selection,
    selection_scores,
    step_of,
)
from tests.model.test_run_process import project


@pytest.fixture(scope="module")
def run():
    p = project(rows=400, seed=2, algorithm="diffgen_consistency")
    job, _ = make_job(p)
    return p, list(job())


def _selections(events, split: bool):
    return [
        e.selection
        for e in events
        if isinstance(e, CandidatesScored) and ("split-point" in e.mechanism) == split and len(e.labels) > 1
    ]


def test_the_history_replays_to_the_recorded_scores(run):
    p, events = run
    specs = _selections(events, split=False)
    assert len(specs) >= 3 and _selections(events, split=True)  # later steps come after split points
    for sel in (specs[0], specs[len(specs) // 2], specs[-1]):
        scored, _ = step_of(events, sel)
        labels, scores, probs = selection_scores(p, events, sel)
        assert labels == tuple(scored.labels)
        np.testing.assert_array_equal(scores, scored.scores)
        np.testing.assert_allclose(probs, scored.probabilities, rtol=1e-12)


def test_removing_a_record_moves_each_probability_by_at_most_e_to_the_epsilon(run):
    p, events = run
    sel = _selections(events, split=False)[-1]
    moved = None
    for record in range(0, 40, 3):
        view = neighbour_selection(p, events, sel, record)
        assert view.labels == tuple(step_of(events, sel)[0].labels)
        assert np.all(np.abs(view.scores_d1 - view.scores_d) <= 1)  # the Max score's sensitivity: 1
        assert view.max_ratio <= view.bound * (1 + 1e-12)
        # the probabilities on D - record are the exponential mechanism's on its scores (recomputed here)
        w = np.exp(view.epsilon * (view.scores_d1 - view.scores_d1.max()) / 2)
        np.testing.assert_allclose(view.probs_d1, w / w.sum(), rtol=1e-9)
        if view.changed:
            moved = view
    assert moved is not None and moved.max_ratio > 1  # some record does move some score
    assert f"at most e^{moved.epsilon:.3g}" in moved.caption()


def test_split_steps_release_runs_and_bad_records_are_refused(run):
    p, events = run
    with pytest.raises(SelectionNeighbourError, match="split point"):
        neighbour_selection(p, events, _selections(events, split=True)[0], 0)
    sel = _selections(events, split=False)[0]
    with pytest.raises(SelectionNeighbourError, match="not a row"):
        neighbour_selection(p, events, sel, 400)
    release_like = [e for e in events if getattr(e, "true_count", None) is None]
    with pytest.raises(SelectionNeighbourError, match="teaching"):
        neighbour_selection(p, release_like, sel, 0)
    assert math.isfinite(step_of(events, sel)[1])


def test_a_split_point_step_is_compared_point_by_point(run):
    """On D minus a record the split point's groups change (they are cut by data values), so the view compares
    each lattice point's chance (group probability / points): within e^eps everywhere; the replay on D itself
    gives back the recorded groups and probabilities."""
    from dpstudio.model.watch.neighbour_selection import neighbour_split, neighbour_view_of_step, selection_event

    p, events = run
    sel = _selections(events, split=True)[0]
    scored, eps = step_of(events, sel)
    again = selection_event(p, events, sel)
    assert again.ranges == scored.ranges
    np.testing.assert_allclose(again.probabilities, scored.probabilities, rtol=1e-12)
    moved = []
    for record in range(0, 60, 4):
        view = neighbour_split(p, events, sel, record)
        assert view.edges[0] > view.interval[0] and view.edges[-1] == view.interval[1]
        assert np.all(np.diff(view.edges) > 0) and view.point_d.size == view.edges.size - 1
        assert view.max_ratio <= view.bound * (1 + 1e-12)
        moved.append(view.max_ratio > 1)
    assert any(moved)
    assert type(neighbour_view_of_step(p, events, sel, 0)).__name__ == "NeighbourSplit"
    assert math.isclose(view.epsilon, eps)
