"""Compare panel: a test file whose labels end in "." (UCI adult.test style) is read as the declared classes."""

import numpy as np
import pandas as pd
import pytest

from dpstudio.gui.panels.compare import ComparePanel
from dpstudio.io.class_labels import ClassLabelError


def _frame(n=150, seed=9):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "sex": rng.choice(["Male", "Female"], n),
            "work": rng.choice(["A", "B", "C"], n),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )


@pytest.fixture
def panel(qtbot):
    from tests.gui.export_fixtures import run, table_project

    p = table_project(n=400, steps=3)
    p.set_mode("release")
    w = ComparePanel(run(p))
    qtbot.addWidget(w)
    return w


def test_dotted_labels_score_as_the_declared_classes_and_the_panel_says_so(panel, tmp_path):
    plain = _frame()
    expected = panel.evaluate_classification(plain)
    assert "trailing" not in panel.class_label.text()
    dotted = plain.assign(income=plain["income"] + ".")
    path = tmp_path / "test.csv"
    dotted.to_csv(path, index=False)
    s = panel.evaluate_classification(str(path))
    assert (s.release, s.majority, s.n_test) == (expected.release, expected.majority, expected.n_test)
    assert s.majority > 0.4
    assert "class labels '<=50K.', '>50K.' read as '<=50K', '>50K' (one trailing '.' removed)" in (
        panel.class_label.text()
    )


def test_labels_matching_no_class_are_refused(panel):
    bad = _frame().assign(income=lambda f: f["income"].map({"<=50K": "low", ">50K": "high"}))
    with pytest.raises(ClassLabelError, match="no class label of the test file matches"):
        panel.evaluate_classification(bad)
