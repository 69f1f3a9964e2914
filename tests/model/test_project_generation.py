"""The project's generation (``Notifier.generation``) grows with every change: the Algorithm panel keeps its
check before Run while the generation is the same (issue 35), so a change that did not move it would let Run
use a stale check and a stale snapshot. Every mutator of every part is exercised here, and a field set
through the project, and a part's change that announces only "unsaved"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio.core import taxonomy_generators as tg
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import _PART_TYPES, CLASS, RELEASE, Project


def _project() -> Project:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 200).astype(float),
            "work": rng.choice(["A", "B", "C"], 200),
            "income": rng.choice(["<=50K", ">50K"], 200),
        }
    )
    p = Project()
    p.set_data(df, None, types={"age": "numeric", "work": "categorical", "income": "categorical"})
    p.set_role("income", CLASS)
    p.set_bounds("age", 17, 90)
    p.set_taxonomy("age", tg.numeric_equal_width(17, 90, 2, 3, "age"))
    p.set_taxonomy("work", tg.flat_categorical(["A", "B", "C"], "work"))
    p.set_classes(["<=50K", ">50K"])
    p.set_algorithm("diffgen_consistency", {"steps": 3})
    return p


MUTATORS = {
    "set_role": lambda p: p.set_role("work", "ignore"),
    "set_type": lambda p: p.set_type("age", "categorical"),
    "set_numeric_type": lambda p: p.set_numeric_type("age", "integer"),
    "propose_numeric_type": lambda p: p.propose_numeric_type("age"),
    "set_bounds": lambda p: p.set_bounds("age", 0, 100),
    "propose_bounds": lambda p: p.propose_bounds("age"),
    "clear_bounds": lambda p: p.clear_bounds("age"),
    "set_classes": lambda p: p.set_classes([">50K", "<=50K", "unknown"]),
    "propose_classes": lambda p: p.propose_classes(),
    "set_missing": lambda p: p.set_missing("keep"),
    "set_missing_token": lambda p: p.set_missing_token("(none)"),
    "set_taxonomy": lambda p: p.set_taxonomy("work", tg.flat_categorical(["A", "B", "C", "D"], "work")),
    "restore_provenance": lambda p: p.restore_provenance(pv.key(pv.BOUNDS, "age"), None),
    "mark_derived": lambda p: p.mark_derived(pv.key(pv.BOUNDS, "age"), "read from the data"),
    "confirm_public": lambda p: p.confirm_public(pv.key(pv.BOUNDS, "age"), "published by the census"),
    "set_algorithm": lambda p: p.set_algorithm("diffgen", {"steps": 2}),
    "set_param": lambda p: p.set_param("steps", 4),
    "set_epsilon": lambda p: p.set_epsilon(0.5),
    "set_split": lambda p: p.set_split(list(reversed(p.plan().shares))),
    "reset_split": lambda p: p.reset_split(),
    "write_split": lambda p: p.write_split(),
    "set_seed": lambda p: p.set_seed(99),
    "set_mode": lambda p: p.set_mode(RELEASE),
    "set_dataset_name": lambda p: p.set_dataset_name("census sample"),
    "set_dataset_total": lambda p: p.set_dataset_total(3),
    "set_new_dataset": lambda p: p.set_new_dataset(True),
    "clear_run": lambda p: p.clear_run(),
    "set_data": lambda p: p.set_data(p.frame.copy(), None),
    "reset": lambda p: p.reset(),
    "a field set through the project": lambda p: setattr(p, "seed", 5),
}
#: what a mutator needs done first (not counted)
BEFORE = {"confirm_public": lambda p: p.mark_derived(pv.key(pv.BOUNDS, "age"), "read from the data")}


@pytest.mark.parametrize("name", sorted(MUTATORS))
def test_every_change_moves_the_generation(name, tmp_path):
    p = _project()
    p.budget_store = str(tmp_path / "budget.sqlite")
    BEFORE.get(name, lambda p: None)(p)
    before = p.generation
    MUTATORS[name](p)
    assert p.generation > before, name


def test_every_mutator_of_every_part_is_exercised():
    """A new mutator of a part is added to MUTATORS (and so shown to move the generation)."""
    prefixes = ("set_", "propose_", "clear_", "confirm_", "mark_", "restore_", "write_", "reset_")
    found = {
        name
        for part in _PART_TYPES.values()
        for name, value in vars(part).items()
        if callable(value) and name.startswith(prefixes)
    }
    assert found <= set(MUTATORS), sorted(found - set(MUTATORS))


def test_a_part_change_that_announces_only_unsaved_moves_the_generation():
    p = _project()
    p.set_dirty(True)  # already unsaved: the part's change notifies nobody
    before = p.generation
    p.run_state.changes.unsaved()
    assert p.generation > before
