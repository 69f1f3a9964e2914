"""Generated taxonomies: equal-width numeric trees and flat categorical trees."""

import numpy as np
import pytest

from dpstudio.core.taxonomy import NUMERIC, TaxonomyError
from dpstudio.core.taxonomy_generators import flat_categorical, numeric_equal_width


def test_equal_width_shape_and_intervals():
    t = numeric_equal_width(0, 16, fanout=2, depth=3, attribute="x")
    assert t.kind == NUMERIC and t.attribute == "x"
    assert len(t) == 1 + 2 + 4 + 8
    assert t.height == 3
    leaves = t.leaves
    assert [(t.lo[i], t.hi[i]) for i in leaves] == [(2.0 * k, 2.0 * k + 2) for k in range(8)]
    assert t.labels[0] == "[0,16)" and t.labels[1] == "[0,8)"
    t.validate()


def test_equal_width_awkward_bounds_still_partition():
    t = numeric_equal_width(0.1, 1.0, fanout=3, depth=4)
    t.validate()  # children partition parents exactly (shared edges)
    assert len(t.leaves) == 81
    widths = np.array([t.hi[i] - t.lo[i] for i in t.leaves])
    assert np.allclose(widths, 0.9 / 81)
    assert t.hi[t.leaves[-1]] == 1.0 and t.lo[t.leaves[0]] == 0.1


def test_equal_width_depth_zero_and_mapping():
    assert len(numeric_equal_width(17, 91, 4, 0)) == 1
    t = numeric_equal_width(17, 91, fanout=2, depth=1)
    m = t.map_values(np.array([17, 53.9, 54, 90.5, 91]))
    assert [t.labels[i] if i >= 0 else None for i in m.leaf_ids] == ["[17,54)", "[17,54)", "[54,91)", "[54,91)", None]


@pytest.mark.parametrize(
    "args, message",
    [
        ((5, 5, 2, 1), "lo < hi"),
        ((0, float("inf"), 2, 1), "finite"),
        ((0, 10, 1, 1), "fan-out"),
        ((0, 10, 2, -1), "depth"),
        ((0, 10, 2, 40), "too many"),
    ],
)
def test_equal_width_rejects_bad_parameters(args, message):
    with pytest.raises(TaxonomyError, match=message):
        numeric_equal_width(*args)


def test_flat_categorical():
    t = flat_categorical(["b", "a", " b ", 3], attribute="c")
    assert t.labels == ["*", "b", "a", "3"]
    assert t.parents.tolist() == [-1, 0, 0, 0]
    assert t.map_values([3, "a"]).leaf_ids.tolist() == [3, 2]
    assert flat_categorical(["x"], root="Any").labels == ["Any", "x"]
    with pytest.raises(TaxonomyError, match="at least one"):
        flat_categorical([])
    with pytest.raises(TaxonomyError, match="root label"):
        flat_categorical(["*", "a"])
    with pytest.raises(TaxonomyError, match="empty label"):
        flat_categorical(["a", " "])


def test_equal_width_integer_edges():
    t = numeric_equal_width(17, 91, fanout=2, depth=3, integer=True)
    t.validate()
    edges = [t.lo[i] for i in t.leaves] + [t.hi[t.leaves[-1]]]
    assert all(float(e).is_integer() for e in edges)
    assert edges[0] == 17 and edges[-1] == 91
    widths = np.diff(edges)
    assert widths.max() - widths.min() <= 1 and widths.sum() == 74
    assert [t.labels[i] for i in t.children[0]] == ["[17,54)", "[54,91)"]
    with pytest.raises(TaxonomyError, match="too narrow"):
        numeric_equal_width(0, 4, 2, 3, integer=True)
    with pytest.raises(TaxonomyError, match="whole-number bounds"):
        numeric_equal_width(0.5, 4, 2, 1, integer=True)
