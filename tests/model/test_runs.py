"""model.runs: the coded table matches an independent coding, and bad inputs stop before any spend."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.events import RunFinished
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.model.project.project import CLASS, KEEP_MISSING, RELEASE, Project
from dpstudio.model.release.runs import RunInputError, encode_table, histogram_counts
from dpstudio.model.release.session import make_job


def make_project(missing_edu=False):
    df = pd.DataFrame(
        {
            "age": [20, 30, 45, 61, 88, 33],
            "edu": ["a", "b", None if missing_edu else "a", "a", "b", "b"],
            "cls": ["y", "n", "y", "n", "y", "y"],
        }
    )
    p = Project()
    p.set_data(df, None)
    root = Node("*")
    root.add(Node("a"))
    root.add(Node("b"))
    p.set_taxonomy("edu", Taxonomy(root))
    p.set_bounds("age", 0, 100)
    return p


def test_encode_table_matches_independent_coding():
    p = make_project()
    data = encode_table(p)
    age, edu = data.attributes
    assert age.name == "age" and np.array_equal(age.values, [20, 30, 45, 61, 88, 33]) and age.integer
    tax = p.taxonomies["edu"]
    assert [tax.labels[i] for i in edu.leaf_ids] == ["a", "b", "a", "a", "b", "b"]
    assert data.classes == ("n", "y")
    assert list(data.y) == [1, 0, 1, 0, 1, 1]


def test_missing_drop_and_keep():
    p = make_project(missing_edu=True)
    assert encode_table(p).n_records == 5
    p.set_missing(KEEP_MISSING)
    with pytest.raises(RunInputError, match=r"'\?'"):  # the taxonomy must cover the missing-value token
        encode_table(p)
    assert p.uncovered_values("edu") == (["?"], 1)  # and the coverage check said so before the run


@pytest.mark.parametrize(
    "change,needle",
    [
        (lambda p: p.set_bounds("age", 25, 100), "outside the public bounds"),
        (lambda p: p.set_taxonomy("edu", None), "no taxonomy"),
        (lambda p: p.set_role("cls", "ignore"), "class"),
    ],
)
def test_bad_inputs_raise_before_spending(change, needle):
    p = make_project()
    p.set_classes(["n", "y"])
    p.set_mode(RELEASE)
    change(p)
    with pytest.raises(RunInputError, match=needle):
        make_job(p)
    assert p.release_ledger is None or p.release_ledger.spent == 0


def test_teaching_run_finishes_and_spends_epsilon():
    p = make_project()
    p.set_algorithm("diffgen", {"steps": 2})
    p.set_epsilon(1)
    job, setup = make_job(p)
    events = list(job())
    assert isinstance(events[-1], RunFinished)
    assert setup.ledger.spent == 1 and setup.teaching


def test_histogram_counts_equal_numpy_histogram():
    p = make_project()
    counts, edges, attr = histogram_counts(p, None, 10)
    expected, _ = np.histogram([20, 30, 45, 61, 88, 33], bins=np.linspace(0, 100, 11))
    assert attr == "age" and np.array_equal(counts, expected)


@pytest.mark.parametrize("algorithm", ["flat", "hb", "sc", "luedptree", "hopt"])
def test_one_bin_histogram_is_refused_before_any_spend(algorithm):
    from tests.gui.export_fixtures import histogram_data_project

    p = histogram_data_project(bins=1, algorithm=algorithm)
    p.set_mode(RELEASE)
    with pytest.raises(RunInputError, match="at least 2 bins"):
        make_job(p)
    assert p.release_ledger is None or p.release_ledger.spent == 0


def test_histogram_level_split_from_the_project_runs():
    from fractions import Fraction

    from dpstudio.model.release import budget_plan as bp
    from tests.gui.export_fixtures import histogram_data_project

    p = histogram_data_project(bins=16, algorithm="hb")
    p.set_algorithm("hb", {**p.params, "root_noised": True})  # two levels to split between
    plan = bp.default_plan("hb", p.params, p.epsilon)
    shares = [Fraction(1, 2)] + [Fraction(1, 2) / (len(plan.shares) - 1)] * (len(plan.shares) - 1)
    p.set_algorithm("hb", {**p.params, **plan.with_shares([s * p.epsilon for s in shares]).to_params()})
    job, setup = make_job(p)
    events = list(job())
    assert [e.epsilon for e in setup.ledger.entries] == [s * p.epsilon for s in shares]
    assert isinstance(events[-1], RunFinished)


def test_maxgddp_tree_fraction_and_levels_from_the_project_run():
    from fractions import Fraction

    from dpstudio.model.release import budget_plan as bp

    p = make_project()
    p.set_algorithm("maxgddp", {"steps": 2})
    p.set_epsilon(1)
    plan = bp.default_plan("maxgddp", p.params, 1)
    assert plan.names == ["level 0", "level 1", "counts"]
    mine = plan.with_shares([Fraction(1, 10), Fraction(3, 10), Fraction(3, 5)])
    p.set_algorithm("maxgddp", {**p.params, **mine.to_params()})
    job, setup = make_job(p)
    list(job())
    spent = [e.epsilon for e in setup.ledger.entries]
    assert spent == [Fraction(1, 10), Fraction(3, 10), Fraction(3, 5)]
    assert p.params["tree_fraction"] == "2/5"


def test_declared_numeric_type_reaches_the_encoder_and_survives_saving():
    p = make_project()
    p.set_bounds("age", 0, 100)
    assert encode_table(p).attributes[0].split_lattice.declared is False  # default from the bounds
    p.set_numeric_type("age", "continuous:0.5")
    lattice = encode_table(p).attributes[0].split_lattice
    assert (lattice.kind, lattice.resolution, lattice.declared) == ("continuous", 0.5, True)
    q = Project()
    q.apply_dict(p.to_dict(), p.dataset)
    assert q.numeric_types == {"age": "continuous:0.5"}
    assert encode_table(q).attributes[0].split_lattice == lattice


def test_a_fractional_age_is_refused_unless_declared_continuous():
    p = make_project()
    frame = p.frame.assign(age=[30.5, 30, 45, 61, 88, 33])
    p.set_data(frame, None)
    p.set_bounds("age", 0, 100)
    with pytest.raises(RunInputError, match="declare it continuous"):
        encode_table(p)
    p.set_numeric_type("age", "continuous")
    assert encode_table(p).attributes[0].split_lattice.kind == "continuous"
    with pytest.raises(Exception, match="integer, continuous"):
        p.set_numeric_type("age", "decimal")


def test_missing_domains_are_all_named_in_one_message():
    df = pd.DataFrame(
        {
            "age": [20, 30, 45],
            "hours": [10, 40, 50],
            "edu": ["a", "b", "a"],
            "work": ["x", "y", "x"],
            "sex": ["F", "M", "F"],
            "cls": ["y", "n", "y"],
        }
    )
    p = Project()
    p.set_data(
        df,
        None,
        types={
            "age": "numeric",
            "hours": "numeric",
            "edu": "categorical",
            "work": "categorical",
            "sex": "categorical",
            "cls": "categorical",
        },
    )
    p.set_role("cls", CLASS)
    root = Node("*")
    root.add(Node("F"))
    root.add(Node("M"))
    p.set_taxonomy("sex", Taxonomy(root))
    p.set_bounds("age", 0, 100)
    with pytest.raises(RunInputError) as err:
        encode_table(p)
    msg = str(err.value)
    assert (
        "2 attributes have no taxonomy (edu, work;" in msg and "1 numeric attribute needs public bounds (hours;" in msg
    )
    assert "\n" not in msg and "sex" not in msg and "age" not in msg


def test_a_numeric_attributes_taxonomy_is_its_split_grid_in_the_studio():
    """An ARX-style age tree (ages grouped by decade) on a numeric attribute: DiffGen's split points are
    its decade boundaries, named with the taxonomy's provenance (it used to be ignored)."""
    from dpstudio.core.split_grid import GridLattice

    rng = np.random.default_rng(1)
    age = rng.integers(20, 80, 2000)
    df = pd.DataFrame({"age": age, "cls": np.where(age >= 50, "y", "n")})
    p = Project()
    p.set_data(df, None, types={"age": "numeric", "cls": "categorical"})
    p.set_role("cls", CLASS)
    p.set_bounds("age", 20, 80)
    root = Node("*")
    for d in range(20, 80, 10):
        group = root.add(Node(f"{d}-{d + 9}"))
        for v in range(d, d + 10):
            group.add(Node(str(v)))
    p.set_taxonomy("age", Taxonomy(root), "ages.csv")
    p.set_algorithm("diffgen", {"steps": 3})
    p.set_epsilon("20")
    (age_attr,) = encode_table(p).attributes
    assert isinstance(age_attr.lattice, GridLattice) and age_attr.lattice.grid == (30, 40, 50, 60, 70)
    assert "ages.csv" in age_attr.lattice.source
    job, _setup = make_job(p)
    result = [e for e in job() if isinstance(e, RunFinished)][0].result
    ends = {e for lo, hi, _ in result.intervals["age"] for e in (lo, hi)}
    assert ends <= {20, 30, 40, 50, 60, 70, 80} and len(ends) > 2
