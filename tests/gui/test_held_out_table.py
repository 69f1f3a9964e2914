"""A test file is read with the project's schema: coded answers stay the codes the data declared (not floats
such as '1.0'), missing answers follow the project's choice and token, every mismatch is listed at once, and
the file dialog opens beside the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dpstudio.core.taxonomy_generators as tg
from dpstudio.gui.panels.compare import ComparePanel
from dpstudio.model.compare.held_out_table import HeldOutTableError, folder_for_test_file, read_test_table
from dpstudio.model.project.data import load_dataset
from dpstudio.model.project.project import Project
from tests.gui.export_fixtures import run


def _write(path, n, seed, extra=None):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "income": rng.choice(["1", "2", "3", "12", "?"], n),
            "state": rng.choice(["A", "B"], n),
            "vote": rng.choice(["yes", "no"], n),
        }
    )
    if extra:
        for col, value in extra.items():
            df.loc[:3, col] = value
    df.to_csv(path, index=False)
    return path


@pytest.fixture
def project(tmp_path):
    data = _write(tmp_path / "survey.csv", 500, 0)
    p = Project()
    p.set_data(load_dataset(data), data)
    assert p.types["income"] == "categorical"  # 4 distinct whole numbers: proposed as codes
    assert "codes" in p.provenance_of("type:income").source and p.provenance_of("type:income").derived
    p.set_type("state", "categorical")
    p.set_taxonomy("income", tg.flat_categorical(["1", "2", "3", "12", "?"], "income"), "income.csv")
    p.set_taxonomy("state", tg.flat_categorical(["A", "B"], "state"), "state.csv")
    p.set_role("vote", "class")
    p.set_classes(["yes", "no"])
    p.set_missing("keep")
    p.set_algorithm("diffgen", {"steps": 2})
    p.set_mode("teaching")
    return run(p)


def test_the_unmodified_test_file_is_scored(qtbot, project, tmp_path):
    test = _write(tmp_path / "survey_test.csv", 300, 1)
    frame = read_test_table(project, test, ["income", "state", "vote"])
    assert set(frame["income"]) == {"1", "2", "3", "12", "?"}  # the codes and the token, not '1.0'
    panel = ComparePanel(project)
    qtbot.addWidget(panel)
    panel.evaluate_classification(str(test))
    assert panel.scores is not None and 0 <= panel.scores.release <= 1
    assert folder_for_test_file(project) == str(tmp_path)


def test_every_mismatch_is_listed_before_refusing(project, tmp_path):
    test = _write(tmp_path / "bad.csv", 100, 2, extra={"income": "99", "state": "Z"})
    with pytest.raises(HeldOutTableError) as err:
        read_test_table(project, test, ["income", "state", "vote"])
    text = str(err.value)
    assert "income" in text and "'99'" in text and "state" in text and "'Z'" in text
    with pytest.raises(HeldOutTableError, match="no column"):
        read_test_table(project, pd.DataFrame({"income": ["1"]}), ["income", "state", "vote"])


def test_dropping_missing_drops_the_test_rows_too(project, tmp_path):
    project.set_missing("drop")
    test = _write(tmp_path / "survey_test.csv", 300, 1)
    frame = read_test_table(project, test, ["income", "state", "vote"])
    assert "?" not in set(frame["income"]) and len(frame) < 300


def test_the_data_file_itself_is_refused_as_the_test_file(qtbot, project, monkeypatch):
    """Walk finding: the private data file was accepted as the test file, and the accuracy then measures the
    release on the records it was made from. Through the real Test file... button."""
    from PySide6 import QtCore, QtWidgets

    data = project.data_path
    with pytest.raises(HeldOutTableError, match="is the data the release was made from"):
        read_test_table(project, data, ["income", "state", "vote"])
    panel = ComparePanel(project)
    qtbot.addWidget(panel)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(data), "")))
    qtbot.mouseClick(panel.test_button, QtCore.Qt.LeftButton)
    assert "survey.csv is the data the release was made from" in panel.last_error
    assert panel.scores is None and project.test_path is None
