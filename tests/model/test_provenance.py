"""Provenance of public inputs in the model: every derivation from the data marks the input, edits keep
the mark, a confirmation is a deliberate per-input statement kept in the project file (issue 8 item 5)."""

import pandas as pd
import pytest

from dpstudio.core.taxonomy_generators import flat_categorical, numeric_equal_width
from dpstudio.model.project.project import Project, ProjectError

DATA = pd.DataFrame({"age": [25.0, 38.5, 61.0, 44.0], "work": ["A", "B", "A", "C"], "income": ["x", "y", "x", "y"]})


def project(types=None):
    p = Project()
    p.set_data(DATA.copy(), None, types=types)
    return p


def test_types_read_from_the_data_are_derived_until_chosen_by_hand():
    p = project()
    assert p.types["age"] == "numeric"
    assert all(p.provenance_of(f"type:{c}").unconfirmed for c in DATA.columns)
    p.set_type("age", "numeric")  # choosing the same type by hand declares it
    p.set_type("work", "categorical")
    assert not p.provenance_of("type:age").derived and not p.provenance_of("type:work").derived
    assert p.provenance_of("type:income").unconfirmed
    declared = project({"age": "numeric", "work": "categorical", "income": "categorical"})
    assert not any(declared.provenance_of(f"type:{c}").derived for c in DATA.columns)


def test_bounds_from_min_max_are_derived_typed_bounds_are_not():
    p = project({"age": "numeric", "work": "categorical", "income": "categorical"})
    assert p.propose_bounds("age") == (25.0, 62.0)  # [floor(min), floor(max) + 1)
    assert p.bounds["age"] == (25.0, 62.0) and p.provenance_of("bounds:age").unconfirmed
    p.set_bounds("age", 17, 91)
    assert not p.provenance_of("bounds:age").derived
    with pytest.raises(ProjectError, match="categorical"):
        p.propose_bounds("work")


def test_a_derived_taxonomy_keeps_its_mark_through_edits_until_confirmed():
    p = project({"age": "numeric", "work": "categorical", "income": "categorical"})
    p.set_taxonomy("work", flat_categorical(["A", "B", "C"], "work"), "flat tree from the data's values", derived=True)
    p.set_taxonomy("work", flat_categorical(["A", "B", "C", "D"], "work"), "edited here", edit=True)
    assert p.provenance_of("taxonomy:work").unconfirmed
    assert p.provenance_of("taxonomy:work").source == "edited here, from flat tree from the data's values"
    with pytest.raises(ProjectError, match="public knowledge"):
        p.confirm_public("taxonomy:work", "   ")
    p.confirm_public("taxonomy:work", "Work categories A-C are the published survey codes.")
    p.set_taxonomy("work", flat_categorical(["A", "B", "C", "E"], "work"), "edited here", edit=True)
    assert p.provenance_of("taxonomy:work").confirmed.startswith("Work categories")
    p.mark_derived("taxonomy:work", "values added from the data (uncovered values)")  # new data values: void
    assert p.provenance_of("taxonomy:work").unconfirmed
    p.set_taxonomy("work", flat_categorical(["A", "B"], "work"), "work.csv")  # replaced from a public file
    assert not p.provenance_of("taxonomy:work").derived
    with pytest.raises(ProjectError, match="not derived"):
        p.confirm_public("taxonomy:work", "it is public")


def test_unconfirmed_inputs_are_those_the_release_uses():
    p = project({"age": "numeric", "work": "categorical", "income": "categorical"})
    p.propose_bounds("age")
    p.set_taxonomy("work", flat_categorical(["A", "B", "C"], "work"), "flat", derived=True)
    assert p.unconfirmed_inputs() == ["bounds:age", "taxonomy:work", "classes:income"]
    p.set_role("work", "ignore")
    assert p.unconfirmed_inputs() == ["bounds:age", "classes:income"]
    p.set_algorithm("hb", {"attribute": "age", "bins": 8})  # a histogram: its bin edges divide the bounds
    assert p.unconfirmed_inputs() == ["bounds:age"]
    p.confirm_public("bounds:age", "Ages 25-61 is the survey's published sampling frame.")
    assert p.unconfirmed_inputs() == []
    rec = {d["key"]: d for d in p.public_inputs_record()}
    assert rec["bounds:age"]["confirmed"] == "Ages 25-61 is the survey's published sampling frame."
    assert rec["bounds:age"]["derived"] is True and rec["type:age"]["derived"] is False


def test_provenance_and_confirmations_are_saved_and_reopened(tmp_path):
    data = tmp_path / "d.csv"
    DATA.to_csv(data, index=False)
    p = Project()
    p.set_data(DATA.copy(), data, types={"age": "numeric", "work": "categorical", "income": "categorical"})
    p.set_taxonomy("work", flat_categorical(["A", "B", "C"], "work"), "flat", derived=True)
    p.set_taxonomy("age", numeric_equal_width(0, 100, 2, 2, "age"), "generated")
    p.propose_bounds("age")
    p.confirm_public("bounds:age", "The age range is public.")
    path = p.save(tmp_path / "x.dpstudio")
    q = Project()
    q.apply_dict(Project.read_file(path), DATA.copy(), data, path)
    assert q.provenance_of("taxonomy:work").unconfirmed
    assert q.provenance_of("bounds:age").confirmed == "The age range is public."
    assert not q.provenance_of("taxonomy:age").derived and not q.provenance_of("type:age").derived
