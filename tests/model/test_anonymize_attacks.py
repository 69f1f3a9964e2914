"""Background knowledge and complementary releases on loaded data (SYNTACTIC.md K11), on hand-made tables
whose classes are worked out here."""

from __future__ import annotations

import pandas as pd
import pytest

from dpstudio.io.taxonomy_formats import parse_arx
from dpstudio.model.anonymize.job import AnonymizeSettings
from dpstudio.model.anonymize.teaching import background_knowledge, complementary_join


def _tax(text, attr):
    return parse_arx(text, attribute=attr)


@pytest.fixture
def table():
    # two QIs; at k = 2 the optimum keeps both at their leaves: classes (a, x) 3 rows, (a, y) 2, (b, x) 2, (b, y) 2
    rows = [
        ("a", "x", "flu"),
        ("a", "x", "flu"),
        ("a", "x", "cold"),
        ("a", "y", "hiv"),
        ("a", "y", "hiv"),
        ("b", "x", "flu"),
        ("b", "x", "cold"),
        ("b", "y", "cold"),
        ("b", "y", "hiv"),
    ]
    frame = pd.DataFrame(rows, columns=["g", "h", "d"])
    taxes = {"g": _tax("a;*\nb;*\n", "g"), "h": _tax("x;*\ny;*\n", "h")}
    return frame, taxes


def test_background_knowledge_counts_the_facts_each_class_needs(table):
    frame, taxes = table
    bk = background_knowledge(frame, taxes, AnonymizeSettings(qi=("g", "h"), k=2, metric="dm"), "d")
    assert bk.classes == 4 and bk.rows == 9
    # (a, y) is homogeneous (hiv, hiv): no fact needed; the other three hold two values: one fact each
    assert bk.facts == {0: 1, 1: 3} and bk.rows_by_facts == {0: 2, 1: 7}
    label, counts = bk.example
    assert counts == {"hiv": 2} and "a" in label and "y" in label
    assert "homogeneity" in bk.words() and "Everyone in it has hiv" in bk.words()
    with pytest.raises(ValueError, match="quasi-identifier"):
        background_knowledge(frame, taxes, AnonymizeSettings(qi=("g", "h"), k=2), "g")


def test_two_k_anonymous_releases_joined_row_by_row_break_k(table):
    frame, taxes = table
    cj = complementary_join(frame, taxes, AnonymizeSettings(qi=("g", "h"), k=2, metric="dm"))
    # A releases g alone (a: 5 rows, b: 4), B h alone (x: 5, y: 4): each 2-anonymous at its leaves; row by row
    # the pairs are the four (g, h) classes of sizes 3, 2, 2, 2: none below 2
    assert (cj.qi_a, cj.qi_b) == (("g",), ("h",))
    assert (cj.classes_a, cj.classes_b, cj.smallest_a, cj.smallest_b) == (2, 2, 4, 4)
    assert (cj.rows, cj.below_k, cj.unique) == (9, 0, 0)
    # at k = 4 each half still releases its leaves (sizes 5/4 and 5/4) but the joined classes hold 2 or 3 rows
    cj4 = complementary_join(frame, taxes, AnonymizeSettings(qi=("g", "h"), k=4, metric="dm"))
    assert (cj4.smallest_a, cj4.smallest_b) == (4, 4)
    assert cj4.below_k == 9 and cj4.unique == 0
    row, values, na, nb, nj = cj4.example
    assert nj == 2 and (na, nb) in {(5, 4), (4, 5), (4, 4)}
    assert "4-anonymous" in cj4.words() and "9 of 9 rows" in cj4.words()
    with pytest.raises(ValueError, match="two quasi-identifiers"):
        complementary_join(frame, taxes, AnonymizeSettings(qi=("g",), k=2))
