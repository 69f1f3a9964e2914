"""The Adult classification protocol: weighting, generalization with the cut, baselines."""

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from dpstudio.evaluation.classification import (
    TREE_SETTINGS,
    AttributeCut,
    EvaluationError,
    majority_accuracy,
    raw_accuracy,
    release_accuracy,
)

CUT = {
    "x": {"intervals": [[0, 30, "[0,30)"], [30, 60, "[30,60)"], [60, 100, "[60,100)"]]},
    "c": {"leaf_to_label": {"a1": "A", "a2": "A", "b1": "b1", "b2": "b2"}},
}


def _synthetic(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 100, n)
    c = rng.choice(["a1", "a2", "b1", "b2"], n)
    p = 0.15 + 0.6 * (x > 45) * np.isin(c, ["a1", "a2", "b1"]) + 0.2 * (c == "b2")
    y = np.where(rng.random(n) < p, ">50K", "<=50K")
    return pd.DataFrame({"x": x, "c": c, "y": y})


def _release_from(train):
    """An exact (noise-free) release of `train` under CUT: generalized rows x class with counts."""
    g = pd.DataFrame(
        {
            "x": AttributeCut.from_json("x", CUT["x"]).generalize(train["x"]),
            "c": train["c"].map(CUT["c"]["leaf_to_label"]),
            "y": train["y"],
        }
    )
    return g.groupby(["x", "c", "y"]).size().rename("count").reset_index(), g


def _manual_features(frame):
    mids = {"[0,30)": 15.0, "[30,60)": 45.0, "[60,100)": 80.0}
    return np.column_stack(
        [
            frame["x"].map(mids).to_numpy(float),
            *[(frame["c"] == lab).to_numpy(float) for lab in ("A", "b1", "b2")],
        ]
    )


def test_weighted_release_equals_tree_on_expanded_generalized_records():
    train, test = _synthetic(3000, 1), _synthetic(1500, 2)
    release, generalized_train = _release_from(train)
    got = release_accuracy(release, CUT, test, "y")
    # independent: the same tree fitted on the generalized records themselves, features built by hand
    tree = DecisionTreeClassifier(**TREE_SETTINGS).fit(_manual_features(generalized_train), generalized_train["y"])
    generalized_test = pd.DataFrame(
        {
            "x": AttributeCut.from_json("x", CUT["x"]).generalize(test["x"]),
            "c": test["c"].map(CUT["c"]["leaf_to_label"]),
        }
    )
    expected = float((tree.predict(_manual_features(generalized_test)) == test["y"]).mean())
    assert got.accuracy == pytest.approx(expected)
    assert got.train_weight == len(train)
    assert got.accuracy > majority_accuracy(train["y"], test["y"]) + 0.1  # the generalized data keeps the signal


def test_negative_counts_are_clamped_to_zero():
    train, test = _synthetic(2000, 3), _synthetic(1000, 4)
    release, _ = _release_from(train)
    noisy = release.copy()
    noisy.loc[len(noisy)] = ["[60,100)", "b2", "<=50K", -40]  # a negative noisy count
    noisy.loc[0, "count"] = -7
    clamped = release.copy()
    clamped.loc[0, "count"] = 0
    a = release_accuracy(noisy, CUT, test, "y")
    b = release_accuracy(clamped, CUT, test, "y")
    assert a.accuracy == b.accuracy and a.train_weight == b.train_weight


def test_generalize_numeric_and_categorical():
    cut = AttributeCut.from_json("x", CUT["x"])
    out = cut.generalize(pd.Series([0, 29.99, 30, 99.5, 100, -1]))
    # values outside the public bounds go to the nearest end interval
    assert out.tolist() == ["[0,30)", "[0,30)", "[30,60)", "[60,100)", "[60,100)", "[0,30)"]
    with pytest.raises(EvaluationError, match="c: 2 row.*'zz'"):
        AttributeCut.from_json("c", CUT["c"]).generalize(pd.Series(["a1", "zz", "zz"]))
    with pytest.raises(EvaluationError, match="gaps"):
        AttributeCut.from_json("x", {"intervals": [[0, 10, "a"], [20, 30, "b"]]}).generalize(pd.Series([15]))


def test_release_errors_are_clear():
    train, test = _synthetic(200, 5), _synthetic(100, 6)
    release, _ = _release_from(train)
    with pytest.raises(EvaluationError, match="no column"):
        release_accuracy(release.drop(columns="count"), CUT, test, "y")
    zero = release.assign(count=-1)
    with pytest.raises(EvaluationError, match="nothing to train on"):
        release_accuracy(zero, CUT, test, "y")


def test_majority_accuracy():
    assert majority_accuracy(pd.Series(["a", "a", "b"]), pd.Series(["a", "b", "b", "a"])) == 0.5


# -- Adult (ALGORITHMS.md 9) -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def adult(shared_data):
    from dpstudio.io.adult import load_adult

    return load_adult(shared_data / "adult")


ADULT_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
ADULT_CATEGORICAL = [
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
]


def test_adult_baselines(adult):
    train, test = adult
    assert (len(train), len(test)) == (30162, 15060)
    y = "Y"
    assert majority_accuracy(train[y], test[y]) == pytest.approx(0.7543, abs=5e-5)
    raw = raw_accuracy(train, test, ADULT_NUMERIC + ADULT_CATEGORICAL, ADULT_NUMERIC, y)
    assert 0.852 <= raw.accuracy <= 0.854  # the papers' non-private baseline: 85.3 %
