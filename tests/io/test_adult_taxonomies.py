"""dpstudio's own Adult taxonomies (resources/taxonomies/adult): they cover the documented domains and
every complete record of adult.data and adult.test."""

import json

import numpy as np
import pytest

from dpstudio.core.taxonomy import CATEGORICAL
from dpstudio.io.taxonomy_formats import read_taxonomy, sniff_separator
from dpstudio.resources import resource

CATEGORICAL_ATTRIBUTES = ["workclass", "education", "marital-status", "occupation", "relationship", "race",
                          "sex", "native-country"]
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
