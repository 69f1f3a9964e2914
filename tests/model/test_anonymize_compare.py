"""model/anonymize_compare: the side-by-side figures agree with independent computations; the DP figures
come from the released noisy counts only."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.release import release_frame
from dpstudio.model.anonymize import compare as ac
from tests.gui.export_fixtures import run, table_project


@pytest.fixture(scope="module")
def released():
    p = table_project(n=400, seed=0, algorithm="diffgen_consistency", steps=3)
    p.set_mode("release")
    return run(p).result


def test_anonymization_figures_by_hand():
    out = SimpleNamespace(sizes=np.array([3, 4, 5]), suppressed=2, settings=SimpleNamespace(k=3))
    f = ac.anonymization_figures(out)
    # C_DM = 9 + 16 + 25 + n * 2 with n = 14; C_AVG = (12 / 3) / 3
    assert f.c_dm == 50 + 14 * 2 and f.classes == 3 and f.rows == 12
    assert f.c_avg == pytest.approx(4 / 3) and not f.from_noisy_counts


def test_dp_figures_equal_a_recount_of_the_release_frame(released):
    frame = release_frame(released)
    frame["count"] = frame["count"].clip(lower=0)
    sizes = frame.groupby(list(released.attributes), sort=False)["count"].sum().to_numpy(dtype=float)
    sizes = sizes[sizes > 0]
    f = ac.dp_figures(released, k=5)
    assert f.classes == len(sizes) and f.from_noisy_counts
    assert f.c_dm == pytest.approx((sizes**2).sum())
    assert f.c_avg == pytest.approx(sizes.sum() / len(sizes) / 5)


def test_dp_figures_follow_the_noisy_counts_only(released):
    """Changing only the released counts changes the figures the same way a recount does."""
    counts = np.asarray(released.counts, dtype=float).copy()
    fake = SimpleNamespace(
        counts=np.zeros_like(counts) + 2.0, leaf_values=released.leaf_values, classes=released.classes
    )
    f = ac.dp_figures(fake, k=1)
    per = 2.0 * len(released.classes)
    n_part = released.leaf_values.shape[0]
    assert f.classes == n_part and f.c_dm == pytest.approx(n_part * per**2)
    fake.counts = -np.ones_like(counts)
    assert ac.dp_figures(fake, k=1).classes == 0


def test_dp_accuracy_is_the_compare_panels(released):
    from dpstudio.evaluation.classification import release_accuracy

    rng = np.random.default_rng(3)
    test = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 120).astype(float),
            "sex": rng.choice(["Male", "Female"], 120),
            "work": rng.choice(["A", "B", "C"], 120),
            "income": rng.choice(["<=50K", ">50K"], 120, p=[0.7, 0.3]),
        }
    )
    assert (
        ac.dp_accuracy(released, test, "income", ["age"])
        == release_accuracy(release_frame(released), released.cut, test, "income").accuracy
    )


def test_anonymization_accuracy_equals_a_tree_on_pandas_generalized_columns():
    """A full-domain run on a small table: the accuracy equals a tree trained on the table generalized
    independently (pandas maps from the taxonomy files' leaf -> level labels)."""
    from sklearn.tree import DecisionTreeClassifier

    from dpstudio.cli.release import read_taxonomies
    from dpstudio.evaluation.classification import TREE_SETTINGS
    from dpstudio.gui.demo import bundled_taxonomy_folder
    from dpstudio.io.adult import load_bundled_adult
    from dpstudio.model.anonymize.job import AnonymizeSettings, run_to_outcome

    train, test = load_bundled_adult()
    train, test = train.iloc[:3000].reset_index(drop=True), test.iloc[:1500].reset_index(drop=True)
    qi = ("education", "marital-status", "sex")
    folder = bundled_taxonomy_folder()
    tax = read_taxonomies({a: str(folder / f"{a}.csv") for a in qi})
    out = run_to_outcome(train, tax, AnonymizeSettings(qi, 20, "optimal", "dm", 0.02))
    labels = ac.kept_class_labels(train, out, "Y")
    assert len(labels) == len(out.table)
    acc = ac.anonymization_accuracy(out, tax, test, "Y", labels)

    # independent: each QI's raw -> released label map read off the kept training rows (full-domain
    # recoding is one function per attribute), applied to the test rows
    kept = train.loc[out.kept].reset_index(drop=True)
    tr, te = [], []
    for a in qi:
        m = dict(zip(kept[a].astype(str), out.table[a].astype(str)))
        tr.append(pd.get_dummies(out.table[a].astype(str)))
        te.append(pd.get_dummies(test[a].astype(str).map(m)).reindex(columns=tr[-1].columns, fill_value=0))
    assert test[list(qi)].astype(str).apply(lambda c: c.isin(set(kept[c.name].astype(str)))).all().all()
    Xtr, Xte = pd.concat(tr, axis=1), pd.concat(te, axis=1)
    tree = DecisionTreeClassifier(**TREE_SETTINGS).fit(Xtr.to_numpy(float), labels)
    want = float((tree.predict(Xte.to_numpy(float)) == test["Y"].astype(str).to_numpy()).mean())
    assert acc == pytest.approx(want)
    assert 0.6 < acc < 0.95


def test_cells_have_one_definition_on_both_sides(released):
    """Cells: every combination of generalized values, empty ones included (the DP release's leaf partitions,
    what Compare and Export count); classes: the non-empty ones. Mondrian's cells are its partitions."""
    f = ac.dp_figures(released, k=5)
    assert f.cells == len(released.leaf_nodes) == released.leaf_values.shape[0] and f.classes <= f.cells
    mondrian = SimpleNamespace(sizes=np.array([5, 6]), suppressed=0, levels=None, settings=SimpleNamespace(k=5))
    assert ac.anonymization_figures(mondrian, taxonomies={}).cells == 2
