"""The DiffGen event stream is self-describing: every selection (specialization or split point) has its own
CandidatesScored and WinnerChosen with a unique selection number, and release-mode events reveal no data
value that was not paid for."""

import math
import re
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_diffgen
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import BudgetSpent, CandidatesScored, NodeCreated, NodeNoised, RunFinished, WinnerChosen
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.taxonomy import Node, Taxonomy


def odd_table(n=120, seed=0):
    """Numeric values with three odd decimals (they cannot be confused with step numbers or counts)."""
    rng = np.random.default_rng(seed)
    x = np.round(100 + 100 * rng.random(n), 3)
    tax = Taxonomy(Node("Any", [Node("P", [Node("a"), Node("b")]), Node("Q", [Node("c"), Node("d")])]), "g")
    g = rng.integers(0, 4, n)
    leaf = np.array([tax.index(v) for v in "abcd"])[g]
    attrs = (NumericAttribute("x", x, 100.0, 200.0, integer=False), CategoricalAttribute("g", tax, leaf))
    return DiffGenInput(attrs, "y", ("0", "1"), rng.integers(0, 2, n)), x


def events(algorithm, teaching, seed=3, steps=4):
    data, x = odd_table()
    evs = list(run_diffgen(data, preset(algorithm, 2, steps), SimulationNoise(seed), Ledger(2), teaching=teaching))
    return evs, x


@pytest.mark.parametrize("teaching", [True, False])
@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_every_selection_has_its_own_candidates_then_winner(algorithm, teaching):
    evs, _ = events(algorithm, teaching)
    sel = [e for e in evs if isinstance(e, (CandidatesScored, WinnerChosen))]
    # strictly alternating: candidates k, winner k, candidates k + 1, ...
    assert len(sel) % 2 == 0 and sel
    for k in range(0, len(sel), 2):
        c, w = sel[k], sel[k + 1]
        assert isinstance(c, CandidatesScored) and isinstance(w, WinnerChosen)
        assert c.selection == w.selection == k // 2 and c.step == w.step
        if c.labels:
            assert 0 <= w.index < len(c.labels)
            if "interval" not in c.mechanism:
                assert c.labels[w.index] == w.label
        else:
            assert not teaching and w.index == -1
    # each selection is paid for between its candidates and its winner
    for i, e in enumerate(evs):
        if isinstance(e, WinnerChosen):
            assert isinstance(evs[i - 1], BudgetSpent)
    if algorithm != "maxgddp":
        assert any("interval" in e.mechanism for e in sel if isinstance(e, CandidatesScored))


def _numbers(obj, out):
    """Every number in an event: numeric fields and numbers written in its strings."""
    if isinstance(obj, str):
        out += [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", obj)]
    elif isinstance(obj, (bool, type(None))):
        return
    elif isinstance(obj, (int, float, np.integer, np.floating)):
        out.append(float(obj))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _numbers(k, out)
            _numbers(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _numbers(v, out)
    elif is_dataclass(obj):
        for f in fields(obj):
            _numbers(getattr(obj, f.name), out)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent"])
def test_release_events_reveal_no_unpaid_data_value(algorithm, seed):
    evs, x = events(algorithm, teaching=False, seed=seed, steps=5)
    result = evs[-1].result
    released = {float(f"{v:g}") for lo, hi, _ in result.intervals["x"] for v in (lo, hi)}
    private = {float(f"{v:g}") for v in np.unique(x)} - released
    assert len(private) > 100
    for e in evs[:-1]:
        assert not isinstance(e, RunFinished)
        if isinstance(e, (NodeCreated, NodeNoised)):
            assert e.true_count is None
        if isinstance(e, CandidatesScored):
            assert all(math.isnan(v) for v in e.scores + e.probabilities)
        leaked = {float(f"{v:g}") for v in _numbers(e, [])} & private
        assert not leaked, (e, leaked)
    # the scan does find data values where they are shown: teaching mode names the intervals
    teach, _ = events(algorithm, teaching=True, seed=seed, steps=5)
    shown = {float(f"{v:g}") for e in teach if isinstance(e, CandidatesScored) for v in _numbers(e.labels, [])}
    assert shown & private
