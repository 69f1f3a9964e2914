"""Oracles K9.1-K9.4 of SYNTACTIC.md: models and metrics on the seed's Sweeney table, the t-closeness
distances and the l-diversity toy; class statistics are computed here independently with plain Python."""

from collections import Counter

import numpy as np
import pytest

from dpstudio.core import syntactic_metrics as sm
from dpstudio.core import syntactic_models as smod
from dpstudio.core.generalization import LevelHierarchy, lattice_size, strategy_count
from dpstudio.io.taxonomy_formats import parse_taxonomy

SWEENEY = [  # seed 001 section 2.3, t1..t11: Race, Birth, Gender, ZIP, Problem
    ("Black", 1965, "m", "0214*", "short breath"),
    ("Black", 1965, "m", "0214*", "chest pain"),
    ("Black", 1965, "f", "0213*", "hypertension"),
    ("Black", 1965, "f", "0213*", "hypertension"),
    ("Black", 1964, "f", "0213*", "obesity"),
    ("Black", 1964, "f", "0213*", "chest pain"),
    ("White", 1964, "m", "0213*", "chest pain"),
    ("White", 1964, "m", "0213*", "obesity"),
    ("White", 1964, "m", "0213*", "short breath"),
    ("White", 1967, "m", "0213*", "chest pain"),
    ("White", 1967, "m", "0213*", "chest pain"),
]
PROBLEMS = ["chest pain", "short breath", "hypertension", "obesity"]


def classes_and_hist(rows, qi_len, domain):
    """Classes in order of first appearance and their sensitive histograms (classes x |domain|)."""
    groups = {}
    for r in rows:
        groups.setdefault(r[:qi_len], []).append(r[qi_len])
    hist = np.array([[Counter(v)[s] for s in domain] for v in groups.values()])
    return np.array([len(v) for v in groups.values()]), hist


def test_sweeney_table_k_dm_cm():
    sizes, hist = classes_and_hist(SWEENEY, 4, PROBLEMS)
    assert sizes.tolist() == [2, 2, 2, 3, 2]
    assert sm.discernibility(sizes, sizes < 2) == 25
    assert sm.discernibility(sizes, sizes < 3) == 97
    assert sm.classification(hist, sizes < 2) == 4
    assert sm.minority(hist).tolist() == [1, 0, 1, 2, 0]
    assert sm.classification(hist, sizes < 2, tie="arx") == 7
    assert sm.iyengar_cm(hist, sizes < 2) == pytest.approx(4 / 11, rel=1e-9)
    assert sm.discernibility_star(sizes) == 25
    assert sm.average_class_size(11, 5, 2) == pytest.approx(1.1)


def test_sweeney_table_homogeneity_and_equal_distance():
    sizes, hist = classes_and_hist(SWEENEY, 4, PROBLEMS)
    assert smod.distinct_l(hist).min() == 1
    assert smod.entropy_l(hist).min() == pytest.approx(1.0)
    q = np.array([5, 2, 2, 2]) / 11
    assert q.tolist() == pytest.approx([Counter(r[4] for r in SWEENEY)[p] / 11 for p in PROBLEMS])
    d = smod.equal_distance(hist, q)
    assert d == pytest.approx([0.3636364, 0.8181818, 0.3636364, 0.3030303, 0.5454545], rel=1e-6)
    assert d.max() == pytest.approx(9 / 11, rel=1e-9)
    model = smod.TCloseness("equal", 0.8, "Problem")
    assert model.satisfied(hist, q).tolist() == [True, False, True, True, True]


def test_ordered_distance_salary_example():
    q = np.full(9, 1 / 9)  # 3K..11K

    def hist(*salaries):
        h = np.zeros((1, 9))
        for s in salaries:
            h[0, s - 3] += 1
        return h

    assert smod.ordered_distance(hist(3, 4, 5), q)[0] == pytest.approx(0.375, rel=1e-9)
    assert smod.ordered_distance(hist(6, 8, 11), q)[0] == pytest.approx(1 / 6, rel=1e-9)
    assert smod.ordered_distance(hist(3, 5, 9), q)[0] == pytest.approx(1 / 6, rel=1e-9)
    assert smod.ordered_distance(hist(4, 7, 10), q)[0] == pytest.approx(1 / 12, rel=1e-9)
    assert smod.equal_distance(hist(3, 4, 5), q)[0] == pytest.approx(2 / 3, rel=1e-9)
    assert smod.equal_distance(hist(6, 8, 11), q)[0] == pytest.approx(2 / 3, rel=1e-9)


DISEASES = (
    "{root {Respiratory {RespInfection {flu}{pneumonia}{bronchitis}} {VascularLung {pulm-edema}"
    "{pulm-embolism}}} {Digestive {Stomach {gastric-ulcer}{gastritis}{stomach-cancer}} {Colon {colitis}"
    "{colon-cancer}}}}"
)


@pytest.mark.parametrize(
    "cls, hier, equal",
    [
        (("gastric-ulcer", "gastritis", "stomach-cancer"), 12 / 27, 0.4444444),
        (("gastritis", "flu", "bronchitis"), 8 / 27, 0.4444444),
        (("gastric-ulcer", "stomach-cancer", "pneumonia"), 7 / 27, 0.5555556),
        (("gastritis", "bronchitis", "stomach-cancer"), 5 / 27, 0.3333333),
    ],
)
def test_hierarchical_distance_toy(cls, hier, equal):
    from dpstudio.io.anonymize import hierarchical_tree

    tax = parse_taxonomy(DISEASES, attribute="disease")
    h = LevelHierarchy.from_taxonomy(tax)
    assert h.height == 3
    everyone = [
        "gastric-ulcer",
        "gastritis",
        "stomach-cancer",
        "gastritis",
        "flu",
        "bronchitis",
        "bronchitis",
        "pneumonia",
        "stomach-cancer",
    ]
    m = h.size(0)
    q = np.bincount(h.leaf_codes(tax, everyone), minlength=m) / 9
    p = np.bincount(h.leaf_codes(tax, list(cls)), minlength=m)[None, :]
    model = smod.TCloseness("hierarchical", 0.3, "disease", hierarchical_tree(tax))
    assert model.distances(p, q)[0] == pytest.approx(hier, rel=1e-6)
    assert smod.equal_distance(p, q)[0] == pytest.approx(equal, rel=1e-6)


L_TOY = [  # zip, age, nationality, condition
    (13053, 28, "Russian", "Heart"),
    (13068, 29, "American", "Heart"),
    (13068, 21, "Japanese", "Viral"),
    (13053, 23, "American", "Viral"),
    (14853, 50, "Indian", "Cancer"),
    (14853, 55, "Russian", "Heart"),
    (14850, 47, "American", "Viral"),
    (14850, 49, "American", "Viral"),
    (13053, 31, "American", "Cancer"),
    (13053, 37, "Indian", "Cancer"),
    (13068, 36, "Japanese", "Cancer"),
    (13068, 35, "American", "Cancer"),
]
CONDITIONS = ["Heart", "Viral", "Cancer"]


def test_l_diversity_toy():
    four_anon = [
        ("130**" if z < 14000 else "1485*", "<30" if a < 30 else (">=40" if a >= 40 else "3*"), c)
        for z, a, _, c in L_TOY
    ]
    sizes, hist = classes_and_hist(four_anon, 2, CONDITIONS)
    assert sizes.min() == 4 and smod.distinct_l(hist).min() == 1
    three_div = [(str(z)[:4] + "*", "<=40" if a <= 40 else ">40", c) for z, a, _, c in L_TOY]
    sizes, hist = classes_and_hist(three_div, 2, CONDITIONS)
    assert sizes.tolist() == [4, 4, 4]
    assert smod.distinct_l(hist).min() == 3
    assert smod.entropy_l(hist).min() == pytest.approx(2**1.5, rel=1e-9)
    assert smod.LDiversity("entropy", 2.8, "c").satisfied(hist).all()
    assert not smod.LDiversity("entropy", 3, "c").satisfied(hist).any()
    assert smod.recursive_cl(hist, 1.01, 2).all() and not smod.recursive_cl(hist, 1.0, 2).any()
    assert smod.recursive_cl(hist, 2.01, 3).all() and not smod.recursive_cl(hist, 2.0, 3).any()
    assert sm.discernibility(sizes, sizes < 4) == 48


def test_lattice_and_strategy_counts():
    assert strategy_count((1, 2)) == 3
    assert strategy_count((4, 3, 2, 2, 2, 1, 1, 2)) == 154_378_224_000
    assert lattice_size((4, 3, 2, 2, 2, 1, 1, 2)) == 6480
    assert lattice_size((4, 1, 1, 2)) == 60


def test_max_suppressed_is_the_floor():
    assert smod.max_suppressed(0.01, 30162) == 301
    assert smod.max_suppressed(0.04, 30162) == 1206
    assert smod.max_suppressed(0.0, 30162) == 0


def test_non_uniform_entropy_by_hand():
    counts = np.array([3, 1, 2, 0])
    gen = np.array([0, 0, 1, 1])
    expected = 3 * np.log2(4 / 3) + 1 * np.log2(4 / 1) + 2 * np.log2(2 / 2)
    assert sm.entropy_terms(counts, gen, 2) == pytest.approx(expected, rel=1e-12)
