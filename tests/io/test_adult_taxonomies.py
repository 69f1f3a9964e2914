"""dpstudio's own Adult taxonomies (dpstudio/resources/taxonomies/adult): they cover the documented domains and
every complete record of adult.data and adult.test."""

import json

import numpy as np
import pytest

from dpstudio.core.taxonomy import CATEGORICAL
from dpstudio.io.taxonomy_formats import read_taxonomy, sniff_separator
from dpstudio.resources import resource

CATEGORICAL_ATTRIBUTES = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
]
NUMERIC_ATTRIBUTES = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def _documented_domains(shared_data) -> dict[str, list[str]]:
    """The value lists of adult.names ("workclass: Private, Self-emp-not-inc, ... .")."""
    out = {}
    for line in (shared_data / "adult" / "adult.names").read_text().splitlines():
        name, sep, rest = line.partition(":")
        if sep and name in CATEGORICAL_ATTRIBUTES:
            out[name] = [v.strip() for v in rest.strip().rstrip(".").split(",")]
    return out


def _complete_rows(path) -> tuple[list[str], np.ndarray]:
    lines = path.read_text().splitlines()
    header = [h.strip() for h in lines[0].split(",")]
    rows = [line.split(", ") for line in lines[1:] if line.strip()]
    rows = [r for r in rows if "?" not in r]
    return header, np.array(rows, dtype=object)


@pytest.fixture(scope="module")
def taxonomies():
    return {a: read_taxonomy(resource("taxonomies", "adult", f"{a}.csv")) for a in CATEGORICAL_ATTRIBUTES}


def test_files_are_semicolon_arx_with_root_star(taxonomies):
    for a, t in taxonomies.items():
        path = resource("taxonomies", "adult", f"{a}.csv")
        assert sniff_separator(path.read_text()) == ";"
        assert t.attribute == a and t.kind == CATEGORICAL
        assert t.labels[0] == "*"
        assert 1 <= t.height <= 3
        t.validate()


def test_leaves_are_exactly_the_documented_values(shared_data, taxonomies):
    domains = _documented_domains(shared_data)
    assert set(domains) == set(CATEGORICAL_ATTRIBUTES)
    for a, t in taxonomies.items():
        assert sorted(t.labels[i] for i in t.leaves) == sorted(domains[a]), a


def test_groupings_are_meaningful(taxonomies):
    wc = taxonomies["workclass"]
    group = {wc.labels[i]: wc.labels[wc.parents[i]] for i in wc.leaves}
    assert group["Federal-gov"] == group["State-gov"] == group["Local-gov"] == "Government"
    assert group["Self-emp-inc"] == group["Self-emp-not-inc"] == "Self-employed"
    assert group["Without-pay"] == group["Never-worked"]
    nc = taxonomies["native-country"]
    continent = {nc.labels[i]: nc.labels[nc.ancestor_at_depth([i], 1)[0]] for i in nc.leaves}
    assert continent["Germany"] == continent["Poland"] == "Europe"
    assert continent["Japan"] == continent["India"] == "Asia"
    assert continent["Mexico"] == continent["United-States"] == "Americas"
    ed = taxonomies["education"]
    assert ed.labels[ed.parents[ed.index("Doctorate")]] == ed.labels[ed.parents[ed.index("Masters")]]


@pytest.mark.parametrize("name, rows", [("adult.data", 30162), ("adult.test", 15060)])
def test_every_complete_record_maps_and_lies_inside_the_bounds(shared_data, taxonomies, name, rows):
    header, table = _complete_rows(shared_data / "adult" / name)
    assert table.shape == (rows, 15)
    for a, t in taxonomies.items():
        m = t.map_values(table[:, header.index(a)])
        assert m.all_covered, (a, m.uncovered)
        labels = np.array(t.labels, dtype=object)[m.leaf_ids]
        assert (labels == table[:, header.index(a)]).all()
    bounds = json.loads(resource("taxonomies", "adult", "bounds.json").read_text())
    assert sorted(bounds) == sorted(NUMERIC_ATTRIBUTES)
    for a in NUMERIC_ATTRIBUTES:
        lo, hi = bounds[a]
        x = table[:, header.index(a)].astype(float)
        assert lo < hi
        assert (x >= lo).all() and (x < hi).all(), a
    labels = {v.rstrip(".") for v in table[:, header.index("Y")]}
    assert labels == {"<=50K", ">50K"}


def test_readme_states_authorship_and_licence():
    text = resource("taxonomies", "adult", "README.md").read_text()
    assert "licen" in text.lower() and "dpstudio" in text


# -- public log-scale split grids for the money attributes (opt-in, dpstudio/resources/taxonomies/adult/log-grids) -------
MONEY_ATTRIBUTES = ["capital-gain", "capital-loss"]
# 0 (nothing reported), then the 1-2-5 series of every decade up to the 5-digit field's end
ONE_TWO_FIVE = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000]


@pytest.fixture(scope="module")
def money_taxonomies():
    return {a: read_taxonomy(resource("taxonomies", "adult", "log-grids", f"{a}.json")) for a in MONEY_ATTRIBUTES}


def test_money_grids_are_the_documented_one_two_five_series(money_taxonomies):
    bounds = json.loads(resource("taxonomies", "adult", "bounds.json").read_text())
    for a, t in money_taxonomies.items():
        t.validate()
        assert t.attribute == a and t.is_numeric
        assert (float(t.lo[0]), float(t.hi[0])) == tuple(map(float, bounds[a])) == (0.0, 100000.0)
        cuts = np.unique(np.concatenate([t.lo, t.hi]))
        assert cuts.tolist() == [float(c) for c in ONE_TWO_FIVE]
        # 16 leaves like the engine's default 16 equal-width bins: only the spacing differs
        assert len(t.leaves) == 16
        # level 1: "none" and the five decades; level 2: each decade split at 2x and 5x
        level1 = [(float(t.lo[c]), float(t.hi[c])) for c in t.children[0]]
        assert level1 == [(0, 1), (1, 10), (10, 100), (100, 1000), (1000, 10000), (10000, 100000)]
        for c in t.children[0][1:]:
            d = float(t.lo[c])
            assert [(float(t.lo[k]), float(t.hi[k])) for k in t.children[c]] == [
                (d, 2 * d),
                (2 * d, 5 * d),
                (5 * d, 10 * d),
            ]
        assert len(t.children[t.children[0][0]]) == 0  # [0,1): nothing reported, a leaf


@pytest.mark.parametrize("name, rows", [("adult.data", 30162), ("adult.test", 15060)])
def test_every_complete_record_maps_into_the_money_grids(shared_data, money_taxonomies, name, rows):
    header, table = _complete_rows(shared_data / "adult" / name)
    assert table.shape == (rows, 15)
    for a, t in money_taxonomies.items():
        x = table[:, header.index(a)].astype(float)
        m = t.map_values(x)
        assert m.all_covered, (a, m.uncovered)
        leaf_lo, leaf_hi = t.lo[m.leaf_ids], t.hi[m.leaf_ids]
        assert ((leaf_lo <= x) & (x < leaf_hi)).all()
        assert (t.depth[m.leaf_ids] >= 1).all()
    # the CPS top code 99,999 falls in the last leaf, not outside the root
    t = money_taxonomies["capital-gain"]
    leaf = t.map_values(np.array([99999.0])).leaf_ids[0]
    assert (float(t.lo[leaf]), float(t.hi[leaf])) == (50000.0, 100000.0)


def test_adult_setup_uses_the_money_grids_only_when_asked(shared_data):
    from dpstudio.algorithms.diffgen_input import NumericAttribute
    from dpstudio.evaluation.sweeps import adult_log_grids, adult_setup

    inner = [float(c) for c in ONE_TWO_FIVE[1:-1]]
    setup = adult_setup(shared_data / "adult", numeric_grids=adult_log_grids())
    attrs = {a.name: a for a in setup.data.attributes}
    for a in MONEY_ATTRIBUTES:
        attr = attrs[a]
        assert isinstance(attr, NumericAttribute)
        assert (attr.lo, attr.hi) == (0.0, 100000.0)
        assert attr.grid is not None and np.asarray(attr.grid, dtype=float).tolist() == inner
    # the other numeric attributes keep the engine's equal-width grid over their bounds
    for a in ("age", "fnlwgt", "education-num", "hours-per-week"):
        assert isinstance(attrs[a], NumericAttribute) and attrs[a].grid is None
    assert "capital-gain" in setup.numeric and "capital-loss" in setup.numeric
    # the default (measured better for MAXGDDP at h >= 13): bounds only, the engine's equal-width grid
    default = {a.name: a for a in adult_setup(shared_data / "adult").data.attributes}
    assert all(default[a].grid is None for a in MONEY_ATTRIBUTES)
    assert [a.name for a in setup.data.attributes] == list(default)
    np.testing.assert_array_equal(default["capital-gain"].values, attrs["capital-gain"].values)


def test_numeric_grids_must_be_numeric_and_match_the_bounds(shared_data, tmp_path):
    from dpstudio.core.taxonomy_generators import flat_categorical, numeric_equal_width
    from dpstudio.evaluation.sweeps import SweepError, adult_setup
    from dpstudio.io.taxonomy_formats import write_taxonomy

    write_taxonomy(
        numeric_equal_width(0, 50000, fanout=2, depth=1, attribute="capital-gain"), tmp_path / "capital-gain.json"
    )
    with pytest.raises(SweepError, match=r"capital-gain: the grid's root \[0, 50000\) differs"):
        adult_setup(shared_data / "adult", numeric_grids=tmp_path)
    other = tmp_path / "cat"
    other.mkdir()
    write_taxonomy(flat_categorical(["Male", "Female"], attribute="sex"), other / "sex.json")
    with pytest.raises(SweepError, match="sex: the taxonomy .* is not numeric"):
        adult_setup(shared_data / "adult", numeric_grids=other)


def test_maxgddp_candidates_on_the_money_attributes_are_the_grid_points(shared_data):
    from dpstudio.algorithms.diffgen import preset, run_diffgen
    from dpstudio.core.budget import Ledger
    from dpstudio.core.events import CandidatesScored
    from dpstudio.core.noise import SimulationNoise
    from dpstudio.evaluation.sweeps import adult_log_grids, adult_setup

    setup = adult_setup(shared_data / "adult", numeric_grids=adult_log_grids())
    events = run_diffgen(setup.data, preset("maxgddp", 1.0, 1), SimulationNoise(0), Ledger(1.0), teaching=True)
    first = next(e for e in events if isinstance(e, CandidatesScored))
    for a in MONEY_ATTRIBUTES:
        points = [lab.split(" at ")[1] for lab in first.labels if lab.startswith(f"{a}=[0,100000) at ")]
        assert points == [f"{c:g}" for c in ONE_TWO_FIVE[1:-1]]
