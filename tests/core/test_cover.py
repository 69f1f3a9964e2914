"""Minimal cover against brute force, and answers from the raw noisy tree."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpstudio.core.cover import cover_answer, minimal_cover


def leaves_under(parents):
    n = len(parents)
    kids = {v: [] for v in range(n)}
    for v, p in enumerate(parents):
        if p >= 0:
            kids[p].append(v)

    def walk(v):
        return frozenset([v]) if not kids[v] else frozenset().union(*(walk(c) for c in kids[v]))

    return [walk(v) for v in range(n)], [v for v in range(n) if not kids[v]]


def depth(parents, v):
    d = 0
    while parents[v] >= 0:
        v, d = parents[v], d + 1
    return d


def brute_force_cover(parents, selected, usable):
    """Smallest set of usable nodes whose leaf sets are disjoint and union to ``selected`` (topmost)."""
    under, _ = leaves_under(parents)
    target = frozenset(selected)
    candidates = [v for v in range(len(parents)) if usable[v] and under[v] <= target]
    for size in range(len(candidates) + 1):
        found = []
        for combo in combinations(candidates, size):
            sets = [under[v] for v in combo]
            if sum(len(s) for s in sets) == len(target) and frozenset().union(*sets) == target:
                found.append(sorted(combo))
        if found:
            # Ties come from chains of single children (same leaf set): the rule takes the topmost node.
            return min(found, key=lambda c: sum(depth(parents, v) for v in c))
    return None


@st.composite
def trees_with_selection(draw):
    n = draw(st.integers(1, 12))
    attach = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    perm = draw(st.permutations(range(n)))
    parents = [0] * n
    for old in range(n):
        parents[perm[old]] = -1 if attach[old] < 0 else perm[attach[old]]
    _, leaves = leaves_under(parents)
    selected = draw(st.lists(st.sampled_from(leaves), unique=True))
    usable = [draw(st.booleans()) or draw(st.booleans()) for _ in range(n)]
    return parents, selected, usable


@settings(max_examples=300, deadline=None)
@given(trees_with_selection())
def test_minimal_cover_matches_brute_force(case):
    parents, selected, usable = case
    n = len(parents)
    mask = np.zeros(n, dtype=bool)
    mask[selected] = True
    assert minimal_cover(parents, mask).tolist() == brute_force_cover(parents, selected, [True] * n)
    # ids instead of a mask give the same cover
    by_ids = minimal_cover(parents, np.array(selected, dtype=int))
    assert by_ids.tolist() == minimal_cover(parents, mask).tolist()
    expected = brute_force_cover(parents, selected, usable)
    if expected is None:
        with pytest.raises(ValueError, match="cannot be answered"):
            minimal_cover(parents, mask, usable=np.array(usable))
    else:
        assert minimal_cover(parents, mask, usable=np.array(usable)).tolist() == expected


def test_seed_example_strings():
    # Seed 000 figure 3(a): root ABCD over AB and CD over the single letters.
    #   0 ABCD, 1 AB, 2 CD, 3 A, 4 B, 5 C, 6 D
    parents = [-1, 0, 0, 1, 1, 2, 2]
    assert minimal_cover(parents, np.array([3, 4, 5, 6])).tolist() == [0]  # ABCD -> {C_ABCD}
    assert minimal_cover(parents, np.array([4, 5, 6])).tolist() == [2, 4]  # BCD -> {C_B, C_CD}
    assert minimal_cover(parents, np.array([], dtype=int)).tolist() == []


def test_cover_answer_sums_noisy_counts_and_variances():
    parents = [-1, 0, 0, 1, 1, 2, 2]
    noisy = np.array([40.0, 18.0, 21.0, 9.0, 10.0, 12.0, 11.0])
    variances = np.array([np.inf, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0])  # root not noised
    ans = cover_answer(parents, noisy, variances, np.array([4, 5, 6]))
    assert ans.nodes.tolist() == [2, 4]
    assert ans.estimate == pytest.approx(21.0 + 10.0)
    assert ans.variance == pytest.approx(5.0)
    # All leaves: the root is not noised, so its two children answer.
    ans = cover_answer(parents, noisy, variances, np.array([3, 4, 5, 6]))
    assert ans.nodes.tolist() == [1, 2] and ans.estimate == pytest.approx(39.0) and ans.variance == 4.0
    # nodes x classes
    two = np.stack([noisy, 2 * noisy], axis=1)
    ans = cover_answer(parents, two, 1.0, np.array([3, 5]))
    np.testing.assert_allclose(ans.estimate, [21.0, 42.0])
    assert ans.variance == 2.0


def test_bad_selections_are_refused():
    parents = [-1, 0, 0]
    with pytest.raises(ValueError, match="internal node"):
        minimal_cover(parents, np.array([True, False, False]))
    with pytest.raises(ValueError, match="one entry per node"):
        minimal_cover(parents, np.array([True, False]))
    with pytest.raises(ValueError, match="out of range"):
        minimal_cover(parents, np.array([3]))
