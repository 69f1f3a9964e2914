"""The studio side of issue 8 items 2, 3 and 7 in the model: class values and numeric kinds proposed from
the data stay "derived from the data: not private" until confirmed, typed ones are public inputs; the
release question takes the dataset's name, lifetime total and spends from the persistent budget store; the
dataset's name is saved with the project."""

from fractions import Fraction

import pandas as pd
import pytest

from dpstudio.model.project.project import Project, ProjectError
from tests.gui.export_fixtures import run, table_project

DATA = pd.DataFrame({"age": [25.0, 38.0, 61.0, 44.0], "work": ["A", "B", "A", "C"], "income": ["x", "y", "x", "z"]})
TYPES = {"age": "numeric", "work": "categorical", "income": "categorical"}


def project():
    p = Project()
    p.set_data(DATA.copy(), None, types=TYPES)
    p.set_bounds("age", 0, 100)
    return p


def test_class_values_proposed_from_the_data_are_derived_typed_ones_are_public():
    p = project()
    assert p.propose_classes() == ["x", "y", "z"]
    assert p.classes == ["x", "y", "z"] and p.provenance_of("classes:income").unconfirmed
    assert "classes:income" in p.unconfirmed_inputs()
    p.set_classes(["x", "y"], edit=True)  # an edit over proposed values keeps their mark
    assert p.provenance_of("classes:income").unconfirmed
    p.confirm_public("classes:income", "x and y are the survey's published answers.")
    assert "classes:income" not in p.unconfirmed_inputs()
    p.set_classes(None)  # cleared: nothing declared, nothing confirmed
    assert p.classes is None and p.provenance_of("classes:income").derived
    p.set_classes(["x", "y", "maybe"])  # typed afresh: a public input, nothing to confirm
    assert not p.provenance_of("classes:income").derived
    with pytest.raises(ProjectError, match="nothing to confirm"):
        p.confirm_public("classes:income", "public")


def test_numeric_kind_read_from_the_data_is_derived_the_default_comes_from_the_bounds():
    p = project()
    assert p.default_numeric_type("age") == "integer"
    assert p.provenance_of("kind:age").source == "default from the bounds: integer"
    assert not p.provenance_of("kind:age").derived and "kind:age" in p.release_inputs()
    p.set_bounds("age", 0, 99.5)
    assert p.default_numeric_type("age") == "continuous:0.001"
    assert p.propose_numeric_type("age") == "integer"
    assert p.numeric_types["age"] == "integer" and p.provenance_of("kind:age").unconfirmed
    assert p.unconfirmed_inputs() == ["kind:age", "classes:income"]  # classes: not declared yet
    p.set_numeric_type("age", "continuous:0.5")  # chosen by hand: a public declaration
    assert p.numeric_types["age"] == "continuous:0.5" and not p.provenance_of("kind:age").derived
    p.set_numeric_type("age", None)
    assert "age" not in p.numeric_types and p.provenance_of("kind:age").source.startswith("default from the bounds")
    with pytest.raises(ProjectError, match="categorical"):
        p.propose_numeric_type("work")


def test_release_question_takes_the_dataset_budget_from_the_store(tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("x\n")
    first = table_project(steps=2, path=data)
    first.set_mode("release")
    first.set_dataset_total(2)
    first.set_epsilon("1/2")
    run(first)
    # a new project on the same records, shuffled: the store knows them and what was spent
    second = table_project(steps=2, path=data)
    second.set_data(first.frame.sample(frac=1, random_state=3), data)
    second.set_mode("release")
    facts = second.release_confirmation("1/4")
    assert (facts.dataset, facts.budget, facts.spent_before, facts.remaining_after) == (
        "people",
        2,
        Fraction(1, 2),
        Fraction(5, 4),
    )
    assert facts.refusal == "" and "budget of 2 (already spent: 0.5)" in facts.text()
    too_much = second.release_confirmation(2)
    assert (
        "dataset 'people': a release of epsilon 2 does not fit" in too_much.refusal
        and "1.5 of 2 is left" in too_much.refusal
    )


def test_release_question_without_tracking_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", "none")
    p = table_project(steps=2)
    p.set_mode("release")
    facts = p.release_confirmation(1)
    assert facts.tracked is False and facts.refusal == ""
    assert "WARNING: budget tracking is off" in facts.text()


def test_release_question_refuses_undeclared_classes():
    p = table_project(steps=2)
    p.set_classes(None)
    p.set_mode("release")
    assert "declare them in the Data panel (Class values)" in p.release_confirmation(1).refusal


def test_dataset_name_is_saved_and_renames_the_store_entry(tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("x\n")
    p = table_project(steps=2, path=data)
    p.set_mode("release")
    run(p)
    assert p.dataset_budget().name == "people"
    info = p.set_dataset_name("survey 2024")
    assert info.name == "survey 2024" and p.dirty
    path = p.save(tmp_path / "proj")
    q = Project()
    q.apply_dict(Project.read_file(path), p.frame.copy(), data, path)
    assert q.dataset_name == "survey 2024" and q.dataset_budget().name == "survey 2024"
    other = table_project(steps=2, seed=5, path=tmp_path / "other.csv")  # other records
    with pytest.raises(ProjectError, match="belongs to another dataset"):
        other.set_dataset_name("survey 2024")
