"""The neighbour view of a selection step (teaching mode only): its candidates' probabilities on D and on D
minus one chosen record, after the same earlier choices.

A DiffGen or MAXGDDP step picks a specialization with the exponential mechanism: candidate c is chosen with
probability proportional to exp(eps u(c) / (2 Du)). Removing one record changes each score u(c) by at most
the score's sensitivity Du, so every candidate's probability moves by a factor of at most e^eps (the
numerator by e^(eps/2) at most and the normaliser by e^(eps/2) at most): whichever candidate is looked at,
the two tables are hard to tell apart. This view computes both distributions exactly: it runs the engine
again on D minus the record with the run's own earlier outcomes (``algorithms.diffgen.ReplayScript``: the
same specializations and split points, no noise drawn for them) up to the chosen step, and reads that step's
scores and probabilities.

Shown only in teaching mode: the scores and probabilities depend on the data, which a release never shows.
Report-noisy-max steps have the same e^eps bound; their probabilities are estimated by sampling
(``noisy_max_probabilities``). A numeric split point (``neighbour_split``) is compared point by point: its
candidate groups are cut by data values and differ between the two tables, but every point of the public
lattice is a candidate on both, with chance group probability / points in the group.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from dpstudio.core.events import BudgetSpent, CandidatesScored, WinnerChosen


class SelectionNeighbourError(ValueError):
    """The view cannot be shown (release mode, a split-point step, a record that is not in the data...)."""


@dataclass
class NeighbourSelection:
    """One selection's candidates and their probabilities on D and on D minus ``record``."""

    selection: int
    step: int
    record: int
    labels: tuple
    probs_d: np.ndarray
    probs_d1: np.ndarray
    scores_d: np.ndarray
    scores_d1: np.ndarray
    epsilon: float  # what the step spent
    mechanism: str

    @property
    def bound(self) -> float:
        """e^eps: the largest ratio of a candidate's probability on the two tables."""
        return math.exp(self.epsilon)

    @property
    def max_ratio(self) -> float:
        a, b = self.probs_d, self.probs_d1
        ok = (a > 0) & (b > 0)
        return float(np.max(np.maximum(a[ok] / b[ok], b[ok] / a[ok]))) if ok.any() else 1.0

    @property
    def changed(self) -> int:
        """How many candidates' scores the record moves."""
        return int(np.sum(self.scores_d != self.scores_d1))

    def caption(self) -> str:
        return (
            f"record {self.record + 1} removed: {self.changed} of {len(self.labels)} candidate scores change; "
            f"the largest ratio of a candidate's probability is {self.max_ratio:.4f}, at most "
            f"e^{self.epsilon:.3g} = {self.bound:.4f} (the step's epsilon)"
        )


def script_until(events, selection: int):
    """The ``ReplayScript`` of the selections before ``selection`` in a recorded run's events."""
    from dpstudio.algorithms.diffgen import ReplayScript

    kinds: dict[int, bool] = {}  # selection -> is a split point
    winners, splits = {}, {}
    for e in events:
        if isinstance(e, CandidatesScored):
            kinds[e.selection] = "split-point" in e.mechanism
        elif isinstance(e, WinnerChosen) and 0 <= e.selection < selection:
            if kinds.get(e.selection):
                found = re.search(r"split at (\S+)$", e.label)
                if found is None:
                    raise SelectionNeighbourError(f"the split point of selection {e.selection} is not recorded")
                splits[e.selection] = float(found.group(1))
            else:
                winners[e.selection] = int(e.index)
    return ReplayScript(winners, splits)


def step_of(events, selection: int) -> tuple[CandidatesScored, float]:
    """The ``CandidatesScored`` of ``selection`` and the epsilon its spend paid."""
    for i, e in enumerate(events):
        if isinstance(e, CandidatesScored) and e.selection == selection:
            spend = next((x for x in events[i + 1 :] if isinstance(x, BudgetSpent)), None)
            if spend is None:
                raise SelectionNeighbourError("the step's spend is not in the run")
            return e, float(spend.spend.epsilon)
    raise SelectionNeighbourError(f"no selection {selection} in the run")


def selection_scores(project, events, selection: int, frame=None):
    """(labels, scores, probabilities) of ``selection`` when the project's run is made again on ``frame``
    (default: the project's own data) with the run's earlier outcomes."""
    e = selection_event(project, events, selection, frame)
    return tuple(e.labels), np.asarray(e.scores, float), np.asarray(e.probabilities, float)


def selection_event(project, events, selection: int, frame=None) -> CandidatesScored:
    """The ``CandidatesScored`` of ``selection`` when the run is made again on ``frame`` (see above)."""
    from dpstudio.core.budget import Ledger
    from dpstudio.core.noise import SimulationNoise
    from dpstudio.model.release.runs import prepare_run

    clone = copy.copy(project)
    if frame is not None:
        clone.dataset = SimpleNamespace(frame=frame)  # the project's data, one row fewer (nothing else read)
    prepared = prepare_run(clone)
    script = script_until(events, selection)
    run = prepared.engine(*prepared.args, SimulationNoise(0), Ledger(project.epsilon), teaching=True, script=script)
    try:
        for e in run:
            if isinstance(e, CandidatesScored) and e.selection == selection:
                return e
    finally:
        close = getattr(run, "close", None)  # a generator: stop it (its finally blocks run)
        if close is not None:
            close()
    raise SelectionNeighbourError(f"the run on the other table has no selection {selection}")


@dataclass
class NeighbourSplit:
    """A split-point selection on D and on D minus ``record``: the chance of each lattice point of the
    interval being chosen, as a step function over ``edges`` (a point in [edges[i], edges[i+1]) has chance
    ``point_d[i]`` on D and ``point_d1[i]`` on D minus the record). The candidate groups differ between the two
    tables (a group is cut by data values), but every lattice point is a candidate on both."""

    selection: int
    step: int
    record: int
    interval: tuple
    edges: np.ndarray
    point_d: np.ndarray
    point_d1: np.ndarray
    epsilon: float

    @property
    def bound(self) -> float:
        return math.exp(self.epsilon)

    @property
    def max_ratio(self) -> float:
        a, b = self.point_d, self.point_d1
        ok = (a > 0) & (b > 0)
        return float(np.max(np.maximum(a[ok] / b[ok], b[ok] / a[ok]))) if ok.any() else 1.0

    def caption(self) -> str:
        lo, hi = self.interval
        return (
            f"record {self.record + 1} removed: the split point of [{lo:g}, {hi:g}); the largest ratio of a "
            f"point's chance is {self.max_ratio:.4f}, at most e^{self.epsilon:.3g} = {self.bound:.4f} (the "
            "step's epsilon)"
        )


def _point_chances(scored: CandidatesScored) -> tuple[np.ndarray, np.ndarray]:
    """(first point of each non-empty group, chance of each of its points)."""
    firsts, chance = [], []
    for (a, _b, n), p in zip(scored.ranges, scored.probabilities):
        if n and a is not None:
            firsts.append(float(a))
            chance.append(float(p) / int(n))
    return np.asarray(firsts), np.asarray(chance)


def neighbour_split(project, events, selection: int, record: int) -> NeighbourSplit:
    """The view of a split-point ``selection`` of the project's teaching run without data row ``record``."""
    scored, eps = step_of(events, selection)
    if "split-point" not in scored.mechanism or not scored.ranges:
        raise SelectionNeighbourError("not a split-point step of a teaching run")
    frame = _without(project, record)
    other = selection_event(project, events, selection, frame)
    f0, c0 = _point_chances(scored)
    f1, c1 = _point_chances(other)
    edges = np.union1d(f0, f1)
    at0 = np.searchsorted(f0, edges, side="right") - 1
    at1 = np.searchsorted(f1, edges, side="right") - 1
    return NeighbourSplit(
        selection,
        scored.step,
        record,
        tuple(scored.interval),
        np.r_[edges, float(scored.interval[1])],
        c0[at0],
        c1[at1],
        eps,
    )


def _without(project, record: int):
    if project.frame is None:
        raise SelectionNeighbourError("the neighbour view needs the loaded data")
    n = len(project.frame)
    if not 0 <= record < n:
        raise SelectionNeighbourError(f"record {record + 1} is not a row of the data (1 to {n})")
    return project.frame.drop(index=project.frame.index[record])


def neighbour_view_of_step(project, events, selection: int, record: int):
    """``neighbour_split`` for a split-point step, else ``neighbour_selection``."""
    scored, _ = step_of(events, selection)
    if "split-point" in scored.mechanism:
        if not any(getattr(e, "true_count", None) is not None for e in events):
            raise SelectionNeighbourError("the neighbour view needs a teaching run on the loaded data")
        return neighbour_split(project, events, selection, record)
    return neighbour_selection(project, events, selection, record)


def neighbour_selection(project, events, selection: int, record: int) -> NeighbourSelection:
    """The view for ``selection`` of the project's recorded teaching run and data row ``record`` (0-based)."""
    if project.frame is None or not any(getattr(e, "true_count", None) is not None for e in events):
        raise SelectionNeighbourError("the neighbour view needs a teaching run on the loaded data")
    scored, eps = step_of(events, selection)
    if "split-point" in scored.mechanism or not scored.labels:
        raise SelectionNeighbourError(
            "the neighbour view of a selection covers specialization steps; a split "
            "point's candidates are groups cut by data values"
        )
    frame = _without(project, record)
    labels, scores_d1, probs_d1 = selection_scores(project, events, selection, frame)
    if labels != tuple(scored.labels):
        raise SelectionNeighbourError("the candidates differ on the two tables (the history did not replay)")
    return NeighbourSelection(
        selection,
        scored.step,
        record,
        labels,
        np.asarray(scored.probabilities, float),
        probs_d1,
        np.asarray(scored.scores, float),
        scores_d1,
        eps,
        scored.mechanism,
    )


__all__ = [
    "NeighbourSelection",
    "NeighbourSplit",
    "SelectionNeighbourError",
    "neighbour_selection",
    "neighbour_split",
    "neighbour_view_of_step",
    "script_until",
    "selection_event",
    "selection_scores",
    "step_of",
]
