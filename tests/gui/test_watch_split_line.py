"""A DiffGen split of a numeric attribute on a number line: in teaching mode the line shows the interval
being split, one bar per group of lattice points (as wide as the points, as tall as the probability; the
probabilities are the exponential mechanism's, recomputed here), the chosen group and point; a release
stream carries no groups and the line stays hidden."""

import math

import numpy as np

from dpstudio.core.events import CandidatesScored, WinnerChosen
from dpstudio.gui.widgets.split_line import chosen_point
from tests.gui.test_watch_panel import panel  # noqa: F401  (the Watch panel fixture, shown)


def _split_selections(events):
    """(position of the winner, CandidatesScored, WinnerChosen) of every numeric split point selection."""
    out, scored = [], {}
    for k, e in enumerate(events):
        if isinstance(e, CandidatesScored) and "split-point" in e.mechanism:
            scored[e.selection] = e
        elif isinstance(e, WinnerChosen) and e.selection in scored:
            out.append((k, scored.pop(e.selection), e))
    return out


def _events(teaching):
    from tests.algorithms.test_diffgen_events import events as diffgen_events

    events, _ = diffgen_events("diffgen", teaching, seed=7, steps=6)
    return events


def test_the_number_line_shows_the_groups_their_probabilities_and_the_chosen_point(panel):
    events = _events(True)
    found = _split_selections(events)
    assert found, "the run split a numeric attribute"
    k, scored, winner = found[0]
    panel.load_events(events, teaching=True, epsilon=1.0)
    panel.seek(k + 1)
    line = panel.split_line
    assert line.isVisible()
    lo, hi = scored.interval
    assert line.interval == (lo, hi) and f"[{lo:g}, {hi:g})" in line.caption
    bars = line.bars()
    assert len(bars) == sum(1 for r in scored.ranges if r[2] > 0)
    # the groups named are those with points (the walk read "15 lattice points in 17 groups")
    points = sum(int(r[2]) for r in scored.ranges)
    assert f"{points:,} lattice points in {len(bars)} groups" in line.caption
    for (a, b, _p), (first, last, n) in zip(bars, [r for r in scored.ranges if r[2] > 0]):
        assert lo < a <= b < hi and (a, b) == (first, last) and n >= 1
    # each group's chance is its points x exp(eps u / (2 du)), normalised: log(p / points) is affine in the
    # score with one slope for every group
    p = np.array(scored.probabilities)
    n = np.array([r[2] for r in scored.ranges], dtype=float)
    u = np.array(scored.scores)
    ok = n > 0
    if ok.sum() >= 2:
        y = np.log(p[ok] / n[ok])
        slope = np.polyfit(u[ok], y, 1)[0] if np.ptp(u[ok]) > 0 else 0.0
        np.testing.assert_allclose(y - slope * u[ok], (y - slope * u[ok])[0], atol=1e-6)
    assert line.winner == winner.index and line.point == chosen_point(winner)
    a, b, _n = scored.ranges[winner.index]
    assert a <= line.point <= b and math.isclose(float(line.point), float(winner.label.split()[-1]))
    assert line.grab().width() > 0


def test_a_release_stream_hides_the_number_line(panel):
    events = _events(False)
    assert all(not getattr(e, "ranges", ()) for e in events if isinstance(e, CandidatesScored))
    panel.load_events(events, teaching=False, epsilon=1.0)
    for k in range(0, len(events) + 1, 5):
        panel.seek(k)
        assert not panel.split_line.isVisible() and panel.split_line.bars() == []


def test_another_kind_of_step_hides_the_line(panel):
    events = _events(True)
    panel.load_events(events, teaching=True, epsilon=1.0)
    specs = [k for k, e in enumerate(events) if isinstance(e, CandidatesScored) and "split-point" not in e.mechanism]
    panel.seek(specs[0] + 1)
    assert not panel.split_line.isVisible()
