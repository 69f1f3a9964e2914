"""The readiness checklist (model.readiness): every problem at once, each with the place to fix it."""

from __future__ import annotations

import pandas as pd
import pytest

from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import CLASS, IGNORE, NUMERIC, RELEASE, Project
from dpstudio.model.release.readiness import PLACES, readiness, refusal_text


def frame():
    return pd.DataFrame(
        {
            "age": [20, 30, 45, 60, 33, 41],
            "edu": ["a", "b", "c", "a", "b", "a"],
            "job": ["x", "y", "x", "y", "x", "y"],
            "cls": ["y", "n", "y", "n", "y", "n"],
        }
    )


def tax(attr, leaves):
    root = Node("*")
    for v in leaves:
        root.add(Node(v))
    return Taxonomy(root, attr)


@pytest.fixture
def project():
    p = Project()
    p.set_data(frame(), None)  # no file: the budget store knows the records by their fingerprint
    return p


def places(problems):
    return [(x.place, x.attribute) for x in problems]


def test_no_data_is_the_one_problem():
    probs = readiness(Project())
    assert places(probs) == [("data.open", None)]
    assert refusal_text(probs).startswith("not ready to run: no data is loaded")


def test_every_missing_input_is_listed_at_once_with_its_place(project):
    project.set_mode(RELEASE)
    probs = readiness(project, "0,1,2")
    found = places(probs)
    # the age bounds, both taxonomies, the undeclared classes and the epsilon box, all in one list
    assert ("data.bounds", "age") in found
    assert ("taxonomy", "edu") in found and ("taxonomy", "job") in found
    assert ("data.classes", "cls") in found
    assert ("algorithm.epsilon", None) in found
    assert all(x.place in PLACES for x in probs)
    text = refusal_text(probs)
    for word in ("age", "edu", "job", "class values", "epsilon"):
        assert word in text


def test_fixing_each_problem_removes_exactly_it(project):
    before = places(readiness(project))  # teaching mode: undeclared classes are fine
    assert before == [("data.bounds", "age"), ("taxonomy", "edu"), ("taxonomy", "job")]
    project.set_bounds("age", 0, 100)
    assert places(readiness(project)) == [("taxonomy", "edu"), ("taxonomy", "job")]
    project.set_taxonomy("edu", tax("edu", ["a", "b"]))  # "c" is not covered
    probs = readiness(project)
    assert places(probs) == [("taxonomy", "edu"), ("taxonomy", "job")]
    assert "does not cover" in probs[0].text and "c" in probs[0].text
    project.set_taxonomy("edu", tax("edu", ["a", "b", "c"]))
    project.set_taxonomy("job", tax("job", ["x", "y"]))
    assert readiness(project) == []
    assert [x.text for x in readiness(project)] == []


def test_class_and_quasi_identifiers_must_be_chosen(project):
    project.set_role("cls", IGNORE)
    for a in ("age", "edu", "job"):
        project.set_role(a, IGNORE)
    found = places(readiness(project))
    assert [p for p, _ in found] == ["data.role", "data.role"]
    project.set_role("cls", CLASS)
    assert [p for p, _ in places(readiness(project))] == ["data.role"]


def test_release_mode_lists_unconfirmed_derived_inputs_and_the_budget(project):
    project.set_bounds("age", 0, 100)
    project.set_taxonomy("edu", tax("edu", ["a", "b", "c"]))
    project.set_taxonomy("job", tax("job", ["x", "y"]), derived=True)
    project.set_classes(["n", "y"])
    assert readiness(project) == []  # teaching: derived inputs may be used to experiment
    project.set_mode(RELEASE)
    key = pv.key(pv.TAXONOMY, "job")
    assert key in project.unconfirmed_inputs()
    assert ("export.inputs", key) in places(readiness(project))
    project.confirm_public(key, "job titles are a published code list")
    for k in project.unconfirmed_inputs():  # types read from the data, if any
        project.confirm_public(k, "published")
    assert readiness(project) == []
    # more epsilon than the dataset's lifetime total leaves: refused, pointing at the dataset budget
    project.set_dataset_total("1/2")
    project.set_epsilon(1)
    probs = readiness(project)
    assert places(probs) == [("algorithm.budget", None)]
    assert "does not fit its lifetime budget" in probs[0].text


def test_histogram_needs_a_numeric_attribute_with_bounds(project):
    project.set_algorithm("flat", {"bins": 4})
    assert places(readiness(project)) == [("data.bounds", "age")]
    project.set_bounds("age", 0, 100)
    assert readiness(project) == []
    project.set_type("age", "categorical")
    assert places(readiness(project)) == [("data.type", "age")]  # no numeric column left: the first one
    assert project.types["age"] != NUMERIC
