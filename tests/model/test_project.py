"""The Qt-free project: notifications, validation messages, modes and ledgers, save and reopen."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SecureNoise, SimulationNoise
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.core.taxonomy_generators import numeric_equal_width
from dpstudio.model.project.project import (
    CLASS,
    IGNORE,
    KEEP_MISSING,
    QUASI_IDENTIFIER,
    RELEASE,
    SCHEMA_VERSION,
    TEACHING,
    Project,
    ProjectError,
    file_sha256,
)
from dpstudio.model.release.readiness import readiness


def frame():
    return pd.DataFrame(
        {"age": [20.0, 30.0, 45.0, np.nan, 88.0], "edu": ["a", "b", "c", "a", "b"], "cls": ["y", "n", "y", "n", "y"]}
    )


def edu_tax():
    root = Node("*")
    g = root.add(Node("ab"))
    g.add(Node("a"))
    g.add(Node("b"))
    return Taxonomy(root, "edu")


@pytest.fixture
def project(tmp_path):
    p = Project()
    path = tmp_path / "d.csv"
    frame().to_csv(path, index=False)
    p.set_data(frame(), path)
    return p


def test_set_data_defaults_and_hash(project, tmp_path):
    assert project.columns == ["age", "edu", "cls"]
    assert project.types == {"age": "numeric", "edu": "categorical", "cls": "categorical"}
    assert project.roles == {"age": QUASI_IDENTIFIER, "edu": QUASI_IDENTIFIER, "cls": CLASS}
    assert project.data_hash == file_sha256(tmp_path / "d.csv")
    import hashlib

    assert project.data_hash == hashlib.sha256((tmp_path / "d.csv").read_bytes()).hexdigest()
    assert project.dirty


def test_notifications_by_field(project):
    seen, only_bounds = [], []
    project.subscribe(seen.append)
    project.subscribe(only_bounds.append, "bounds")
    project.set_role("edu", IGNORE)
    project.set_bounds("age", 17, 90)
    assert "roles" in seen and "bounds" in seen
    assert only_bounds == ["bounds"]
    # a setter that changes nothing announces nothing
    seen.clear()
    project.set_bounds("age", 17, 90)
    assert seen == []
    with pytest.raises(ValueError):
        project.subscribe(seen.append, "no-such-field")


def test_one_class_attribute(project):
    project.set_role("edu", CLASS)
    assert project.class_attribute == "edu"
    assert project.roles["cls"] == QUASI_IDENTIFIER


@pytest.mark.parametrize(
    "lo,hi,needle",
    [
        (90, 17, "must be below"),
        (5, 5, "must be below"),
        ("x", 3, "must be numbers"),
        (float("inf"), 3, "finite"),
    ],
)
def test_bad_bounds_are_refused_with_reason(project, lo, hi, needle):
    with pytest.raises(ProjectError, match=needle):
        project.set_bounds("age", lo, hi)
    assert "age" not in project.bounds


def test_bounds_only_for_numeric(project):
    with pytest.raises(ProjectError, match="categorical"):
        project.set_bounds("edu", 0, 1)


def test_type_change_refused_when_values_are_not_numbers(project):
    with pytest.raises(ProjectError, match="5 value"):
        project.set_type("edu", "numeric")
    assert project.types["edu"] == "categorical"


def test_uncovered_values_against_direct_count(project):
    project.set_taxonomy("edu", edu_tax())
    values, rows = project.uncovered_values("edu")
    expected = frame()["edu"][~frame()["edu"].isin(["a", "b"])]
    assert values == sorted(expected.unique()) == ["c"]
    assert rows == len(expected) == 1
    project.set_taxonomy("age", numeric_equal_width(17, 60, 2, 2))
    values, rows = project.uncovered_values("age")
    assert rows == 1 and values == [88.0]  # NaN is the missing-value choice's business, not coverage


def test_problems_name_what_is_missing(project):
    probs = [x.text for x in readiness(project)]
    assert any("age" in p and "bounds" in p for p in probs)
    assert any("edu" in p and "taxonomy" in p for p in probs)
    project.set_bounds("age", 17, 90)
    project.set_taxonomy("edu", edu_tax())
    probs = [x.text for x in readiness(project)]
    assert probs == ["edu: the taxonomy does not cover some values (e.g. c)"]


def test_teaching_runs_get_fresh_ledgers_and_simulation_noise(project):
    project.set_epsilon("0.5")
    a, b = project.start_run(), project.start_run()
    assert isinstance(a.noise, SimulationNoise) and a.teaching
    assert a.ledger is not b.ledger and a.ledger.total == Fraction(1, 2)
    assert not project.can_export


def test_release_needs_its_question_answered_and_the_store_decides_a_second_one(project):
    from dpstudio.model.release.snapshot import snapshot_of

    project.set_classes(["n", "y"])
    for c in project.columns:  # the types guessed from the data, declared
        project.set_type(c, project.types[c])
    project.set_mode(RELEASE)
    with pytest.raises(ProjectError, match="question answered first"):
        project.start_run()  # no answer: nothing spent
    assert project.dataset_budget().total is None
    setup = project.start_run(project.release_question())
    assert isinstance(setup.noise, SecureNoise) and not setup.teaching
    setup.ledger.spend("counts", "discrete Laplace", 1)
    project.record_run([], setup.ledger, teaching=False, result="released", snapshot=snapshot_of(project))
    assert project.can_export
    # the dataset's lifetime total was this release's epsilon: a second one is refused by the store...
    assert "0 of 1 is left" in project.release_question().refusal
    with pytest.raises(ProjectError, match="0 of 1 is left"):
        project.start_run(project.release_question())
    # ... until the total is raised deliberately: then the same project releases again, at another epsilon
    project.set_dataset_total(3)
    project.set_epsilon(2)
    second = project.start_run(project.release_question())
    assert second.budget["dataset_spent"] == "3" and project.release_ledger is second.ledger
    # switching to teaching forgets the run: nothing of it can be exported
    project.set_mode(TEACHING)
    assert project.result is None and not project.can_export


def _json_leaves(value):
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _json_leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _json_leaves(v)]
    return [value]


def test_save_and_reopen_same_state(project, tmp_path):
    project.set_bounds("age", 17, 90)
    project.set_taxonomy("edu", edu_tax(), "edu.csv")
    project.set_taxonomy("age", numeric_equal_width(17, 90, 2, 2))
    project.set_missing(KEEP_MISSING)
    project.set_role("cls", CLASS)
    project.set_classes(["n", "y"])
    project.set_algorithm("maxgddp", {"steps": 4, "fanout": 3})
    project.set_epsilon("0.3")
    project.set_mode(RELEASE)
    led = project.start_run(project.release_question()).ledger
    with led.parallel("g"):
        led.spend("a", "m", Fraction(1, 10))
        led.spend("b", "m", Fraction(2, 10))
    path = project.save(tmp_path / "p")
    assert path.name == "p.dpstudio" and not project.dirty

    text = path.read_text()
    saved = json.loads(text)
    assert saved["schema_version"] == SCHEMA_VERSION
    # no raw data values in the file (checked on its values: paths, hashes and times may contain "88" by chance)
    leaves = _json_leaves(saved)
    assert not {88, "88", "88.0", "c"} & {
        v for v in leaves if isinstance(v, (int, float, str)) and not isinstance(v, bool)
    }

    q = Project()
    warnings = q.apply_dict(Project.read_file(path), frame(), tmp_path / "d.csv", path)
    assert warnings == []
    for attr in (
        "columns",
        "roles",
        "types",
        "bounds",
        "missing",
        "algorithm",
        "params",
        "epsilon",
        "mode",
        "data_hash",
        "taxonomy_sources",
    ):
        assert getattr(q, attr) == getattr(project, attr), attr
    assert q.taxonomies == project.taxonomies
    assert q.release_ledger.to_dict() == project.release_ledger.to_dict()
    assert q.release_ledger.spent == Fraction(2, 10)
    assert not q.dirty


def test_reopen_warns_when_data_changed_or_missing(project, tmp_path):
    path = project.save(tmp_path / "p.dpstudio")
    (tmp_path / "d.csv").write_text("age,edu,cls\n1,a,y\n")
    q = Project()
    warnings = q.apply_dict(Project.read_file(path), frame(), tmp_path / "d.csv", path)
    assert any("changed" in w for w in warnings)
    r = Project()
    warnings = r.apply_dict(Project.read_file(path), None, None, path)
    assert any("not found" in w for w in warnings)
    assert r.columns == project.columns


@pytest.mark.parametrize(
    "content,needle",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"{not json", "JSON error on line 1"),
        (b'{"format": "something-else"}', "not a dpstudio project file"),
        (b'{"format": "dpstudio-project", "schema_version": 99}', "version 99"),
    ],
)
def test_bad_project_files(tmp_path, content, needle):
    path = tmp_path / "bad.dpstudio"
    path.write_bytes(content)
    with pytest.raises(ProjectError, match=needle):
        Project.read_file(path)


def test_saved_ledger_replays_to_same_total():
    led = Ledger(1)
    led.spend("x", "m", Fraction(1, 3))
    p = Project()
    p.release_ledger = led
    d = p.to_dict()
    q = Project()
    q.apply_dict(d)
    assert q.release_ledger.spent == Fraction(1, 3)


def test_coverage_follows_new_data_and_type_changes():
    p = Project()
    p.set_data(pd.DataFrame({"edu": ["a", "b", "z"], "cls": ["y", "n", "y"]}), None)
    p.set_taxonomy("edu", edu_tax())
    assert p.uncovered("edu") == (("z", 1),)
    for _ in range(3):  # a new frame (which may reuse the old one's id) is counted afresh
        p.set_data(pd.DataFrame({"edu": ["q", "q", "a"], "cls": ["y", "n", "y"]}), None)
        assert p.uncovered("edu") == (("q", 2),)
    p.set_data(pd.DataFrame({"edu": ["a", "b", "b"], "cls": ["y", "n", "y"]}), None)
    assert p.uncovered("edu") == ()


def test_release_confirmation_states_dataset_epsilon_and_what_remains(tmp_path):
    from fractions import Fraction

    from tests.gui.export_fixtures import run, table_project

    data = tmp_path / "people.csv"
    data.write_text("x\n")
    p = table_project(steps=2, path=data)
    p.set_mode("release")
    facts = p.release_confirmation("1/4")
    assert (facts.dataset, facts.epsilon, facts.budget, facts.spent_before, facts.remaining_after) == (
        "people",
        Fraction(1, 4),
        Fraction(1, 4),
        0,
        0,
    )  # the dataset's name in the budget store
    assert facts.refusal == "" and "cannot be undone" in facts.text() and "people.csv" in facts.text()
    p.set_epsilon(1)
    run(p)  # spends the whole budget of 1
    spent = p.release_confirmation(1)
    assert "spent" in spent.refusal and spent.spent_before == 1


def test_declared_classes_are_saved_reloaded_and_cleared_with_the_class_attribute(project, tmp_path):
    heard = []
    project.subscribe(heard.append, "classes")
    project.set_classes([" y", "n", "maybe"])
    assert project.classes == ["y", "n", "maybe"] and heard == ["classes"]
    with pytest.raises(ProjectError, match="more than once"):
        project.set_classes(["y", "y"])
    path = project.save(tmp_path / "c")
    assert json.loads(path.read_text())["classes"] == ["y", "n", "maybe"]
    q = Project()
    q.apply_dict(Project.read_file(path), frame(), tmp_path / "d.csv", path)
    assert q.classes == ["y", "n", "maybe"]
    q.set_role("edu", CLASS)  # another class attribute: the declaration was about cls
    assert q.classes is None


def test_a_release_run_needs_declared_classes_a_teaching_run_does_not(project):
    from dpstudio.model.release.runs import RunInputError, encode_table

    project.set_role("age", IGNORE)
    project.set_taxonomy("edu", Taxonomy(Node("*", [Node("a"), Node("b"), Node("c")]), "edu"))
    assert encode_table(project).classes == ("n", "y")  # teaching: the data's own values
    project.set_mode(RELEASE)
    with pytest.raises(RunInputError, match="class values of cls are not declared"):
        encode_table(project)
    project.set_classes(["y", "n", "unseen"])
    data = encode_table(project)
    assert data.classes == ("y", "n", "unseen") and project.release_ledger is None
    project.set_classes(["y", "unseen"])
    with pytest.raises(RunInputError, match=r"outside the public classes \('n'\)"):
        encode_table(project)
