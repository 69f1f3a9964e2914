"""The split of epsilon is the project's, not a panel's (issue 31): ``Project.plan()`` is the split the next run
uses, whoever drives it, and a custom split keeps its proportions when epsilon changes, in the Python API as in
the studio. Before, the rescaling lived in the Algorithm panel: a script that changed epsilon silently ran the
default split instead of the one it had set."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dpstudio import api
from dpstudio.model.project.project import Project
from dpstudio.model.release import budget_plan as bp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_api import _declared  # noqa: E402


def _selection_spent(ledger) -> Fraction:
    return sum((e.epsilon for e in ledger.entries if "choose a specialization" in e.step), Fraction(0))


def test_a_scripts_custom_split_keeps_its_proportions_at_a_new_epsilon_and_runs(tmp_path):
    study = _declared(tmp_path, tmp_path / "store.sqlite")  # diffgen, 3 steps, epsilon 1
    assert study.plan().names == ["selection", "split points", "counts"]
    study.set_split({"selection": "1/5", "split points": "3/10", "counts": "1/2"})
    release = study.simulate(2, seed=3)  # epsilon 2: nothing is charged
    assert study.plan().shares == [Fraction(2, 5), Fraction(3, 5), Fraction(1)]
    assert release.ledger.spent == 2
    # the engine ran that split: three selection steps of 2/15 each (the default would give 3/7 in all)
    assert _selection_spent(release.ledger) == Fraction(2, 5)
    assert {e.epsilon for e in release.ledger.entries if "choose a specialization" in e.step} == {Fraction(2, 15)}


def test_the_default_split_is_the_default_at_the_new_epsilon():
    p = Project()
    p.set_algorithm("hb", {})
    p.write_split()
    p.set_epsilon(3)
    assert p.plan().shares == bp.default_plan("hb", p.params, 3).shares
    assert p.is_default_split()


def test_a_custom_split_survives_epsilon_changes_exactly():
    p = Project()
    p.set_algorithm("hb", {})
    p.set_split([Fraction(1, 3), Fraction(2, 3)])
    heard = []
    p.subscribe(heard.append, "epsilon", "algorithm")
    p.set_epsilon("0.3")
    assert p.plan().shares == [Fraction(1, 10), Fraction(1, 5)]
    assert sum(p.plan().shares) == p.epsilon  # never more than epsilon
    assert not p.is_default_split()
    assert heard == ["epsilon", "algorithm"]  # the split is a parameter: its views hear it changed
    p.reset_split()
    assert p.is_default_split() and p.plan().shares == [Fraction(3, 20), Fraction(3, 20)]


@pytest.mark.parametrize(
    "algorithm, shares, words",
    [
        ("hb", [Fraction(1, 3), Fraction(1, 3)], "sums to"),
        ("hb", [Fraction(1)], "2 steps"),
        ("luedptree", [Fraction(1)], "chosen by the method"),
    ],
)
def test_a_split_that_does_not_fit_is_refused_and_changes_nothing(algorithm, shares, words):
    p = Project()
    p.set_algorithm(algorithm, {})
    p.write_split()
    before = dict(p.params)
    with pytest.raises(ValueError, match=words):
        p.set_split(shares)
    assert p.params == before


def test_the_api_refuses_a_split_with_unknown_names_or_text(tmp_path):
    study = _declared(tmp_path, tmp_path / "store.sqlite")
    with pytest.raises(api.StudyError, match="the split names selection"):
        study.set_split({"selection": 1})
    with pytest.raises(api.StudyError, match="numbers"):
        study.set_split(["a", "b", "c"])
    assert study.plan().shares == bp.saved_plan("diffgen", {**study.project.params, "budget_split": None}, 1).shares
