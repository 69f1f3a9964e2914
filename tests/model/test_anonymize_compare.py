"""model/anonymize_compare: the side-by-side figures agree with independent computations; the DP figures
come from the released noisy counts only."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dpstudio.io.release import release_frame
from dpstudio.model import anonymize_compare as ac
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
    assert f.c_dm == pytest.approx((sizes ** 2).sum())
    assert f.c_avg == pytest.approx(sizes.sum() / len(sizes) / 5)


def test_dp_figures_follow_the_noisy_counts_only(released):
    """Changing only the released counts changes the figures the same way a recount does."""
    counts = np.asarray(released.counts, dtype=float).copy()
    fake = SimpleNamespace(counts=np.zeros_like(counts) + 2.0, leaf_values=released.leaf_values,
                           classes=released.classes)
    f = ac.dp_figures(fake, k=1)
    per = 2.0 * len(released.classes)
    n_part = released.leaf_values.shape[0]
    assert f.classes == n_part and f.c_dm == pytest.approx(n_part * per ** 2)
    fake.counts = -np.ones_like(counts)
    assert ac.dp_figures(fake, k=1).classes == 0


def test_dp_accuracy_is_the_compare_panels(released):
    from dpstudio.evaluation.classification import release_accuracy

    rng = np.random.default_rng(3)
    test = pd.DataFrame({"age": rng.integers(17, 90, 120).astype(float), "sex": rng.choice(["Male", "Female"], 120),
                         "work": rng.choice(["A", "B", "C"], 120),
                         "income": rng.choice(["<=50K", ">50K"], 120, p=[0.7, 0.3])})
    assert ac.dp_accuracy(released, test, "income", ["age"]) == \
        release_accuracy(release_frame(released), released.cut, test, "income").accuracy
