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
(``noisy_max_probabilities``), so the view says so.
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
        return (f"record {self.record + 1} removed: {self.changed} of {len(self.labels)} candidate scores change; "
                f"the largest ratio of a candidate's probability is {self.max_ratio:.4f}, at most "
                f"e^{self.epsilon:.3g} = {self.bound:.4f} (the step's epsilon)")


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
            spend = next((x for x in events[i + 1:] if isinstance(x, BudgetSpent)), None)
            if spend is None:
                raise SelectionNeighbourError("the step's spend is not in the run")
            return e, float(spend.spend.epsilon)
    raise SelectionNeighbourError(f"no selection {selection} in the run")


def selection_scores(project, events, selection: int, frame=None):
    """(labels, scores, probabilities) of ``selection`` when the project's run is made again on ``frame``
    (default: the project's own data) with the run's earlier outcomes."""
    from dpstudio.core.budget import Ledger
    from dpstudio.core.noise import SimulationNoise
    from dpstudio.model.runs import prepare_run

    clone = copy.copy(project)
    if frame is not None:
        clone.dataset = SimpleNamespace(frame=frame)  # the project's data, one row fewer (nothing else read)
    prepared = prepare_run(clone)
    script = script_until(events, selection)
    run = prepared.engine(*prepared.args, SimulationNoise(0), Ledger(project.epsilon), teaching=True,
                          script=script)
    try:
        for e in run:
            if isinstance(e, CandidatesScored) and e.selection == selection:
                return tuple(e.labels), np.asarray(e.scores, float), np.asarray(e.probabilities, float)
    finally:
        run.close()
    raise SelectionNeighbourError(f"the run on the other table has no selection {selection}")


def neighbour_selection(project, events, selection: int, record: int) -> NeighbourSelection:
    """The view for ``selection`` of the project's recorded teaching run and data row ``record`` (0-based)."""
    if project.frame is None or not any(getattr(e, "true_count", None) is not None for e in events):
        raise SelectionNeighbourError("the neighbour view needs a teaching run on the loaded data")
    scored, eps = step_of(events, selection)
    if "split-point" in scored.mechanism or not scored.labels:
        raise SelectionNeighbourError("the neighbour view of a selection covers specialization steps; a split "
                                      "point's candidates are groups cut by data values")
    n = len(project.frame)
    if not 0 <= record < n:
        raise SelectionNeighbourError(f"record {record + 1} is not a row of the data (1 to {n})")
    frame = project.frame.drop(index=project.frame.index[record])
    labels, scores_d1, probs_d1 = selection_scores(project, events, selection, frame)
    if labels != tuple(scored.labels):
        raise SelectionNeighbourError("the candidates differ on the two tables (the history did not replay)")
    return NeighbourSelection(selection, scored.step, record, labels, np.asarray(scored.probabilities, float),
                              probs_d1, np.asarray(scored.scores, float), scores_d1, eps, scored.mechanism)


__all__ = ["NeighbourSelection", "SelectionNeighbourError", "neighbour_selection", "script_until",
           "selection_scores", "step_of"]
