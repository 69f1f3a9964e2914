"""Issue 32 item 2: Anonymize's side by side on the user's own data. 'Compare with the last DP run' used the
bundled Adult test sample on a survey (which has none of its columns) and left every row blank. Now cells,
classes, C_DM and C_AVG are filled without any test file, and the accuracy row asks for a test file, or
names the one that does not fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import dpstudio.core.taxonomy_generators as tg
from dpstudio.model.anonymize import compare as ac
from tests.gui.export_fixtures import run


def _survey(project, path):
    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east", "west"], n),
            "income_band": rng.choice(["low", "mid", "high"], n),
            "class": rng.choice(["yes", "no"], n),
        }
    )
    df.to_csv(path, index=False)
    project.set_data(df, path, types={"region": "categorical", "income_band": "categorical", "class": "categorical"})
    project.set_taxonomy("region", tg.flat_categorical(["north", "south", "east", "west"], "region"))
    project.set_taxonomy("income_band", tg.flat_categorical(["low", "mid", "high"], "income_band"))
    project.set_role("class", "class")
    project.set_classes(["yes", "no"])
    project.set_algorithm("diffgen_consistency", {"steps": 2})


def test_the_figures_need_no_test_file_and_accuracy_asks_for_one(qtbot, window, tmp_path):
    p = window.project
    _survey(p, tmp_path / "survey.csv")
    p.set_mode("teaching")
    run(p)
    panel = window.show_panel("Anonymize")
    panel.refresh()
    panel.set_qi(("region", "income_band"))
    panel.k_spin.setValue(5)
    with qtbot.waitSignal(panel.finished, timeout=120000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)
    QTest.mouseClick(panel.side_button, Qt.LeftButton)
    assert panel.side is not None, panel.last_error
    an, dp, an_acc, dp_acc = panel.side
    assert an_acc is None and dp_acc is None
    sizes = ac.dp_partition_sizes(p.result)
    assert panel.side_table.item(2, 1).text() == f"{int((sizes > 0).sum()):,}"  # classes, from the noisy counts
    assert panel.side_table.item(3, 1).text() == f"{dp.c_dm:,.0f}" and panel.side_table.item(1, 0).text()
    assert panel.side_table.item(0, 0).text() == "needs a test file"
    note = panel.side_note.text()
    assert "Accuracy needs a test file" in note and "Adult" not in note
    # a test file without the run's columns: named, and the other figures stand
    wrong = tmp_path / "adult_like.csv"
    pd.DataFrame({"age": [30, 40], "sex": ["Male", "Female"], "Y": ["<=50K", ">50K"]}).to_csv(wrong, index=False)
    panel.compare_with_dp(wrong)
    assert "adult_like.csv cannot be used" in panel.side_note.text()
    assert panel.side_table.item(2, 1).text() == f"{int((sizes > 0).sum()):,}"
    # a fitting test file: the accuracy row is filled and the file named
    good = tmp_path / "held_out.csv"
    pd.read_csv(tmp_path / "survey.csv").sample(200, random_state=1).to_csv(good, index=False)
    _, _, an_acc, dp_acc = panel.compare_with_dp(good)
    assert 0 <= an_acc <= 1 and 0 <= dp_acc <= 1 and panel.side_table.item(0, 1).text() == f"{dp_acc:.2%}"
    assert "held_out.csv" in panel.side_note.text()


def test_a_numeric_quasi_identifier_without_a_taxonomy_is_generalised_on_its_public_grid(qtbot, window, tmp_path):
    """Issue 32 item 2: ticking age asked for an age taxonomy the DP run did not need (only its bounds)."""
    p = window.project
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, 500).astype(float),
            "region": rng.choice(["north", "south"], 500),
            "class": rng.choice(["yes", "no"], 500),
        }
    )
    df.to_csv(tmp_path / "people.csv", index=False)
    p.set_data(df, tmp_path / "people.csv", types={"age": "numeric", "region": "categorical", "class": "categorical"})
    p.set_bounds("age", 18, 90)
    p.set_taxonomy("region", tg.flat_categorical(["north", "south"], "region"))
    assert "age" not in p.taxonomies
    panel = window.show_panel("Anonymize")
    panel.refresh()
    item = next(panel.qi_list.item(i) for i in range(panel.qi_list.count()) if panel.qi_list.item(i).text() == "age")
    assert "equal-width intervals over the public bounds [18, 90)" in item.toolTip()  # tickable, said how
    panel.set_qi(("age", "region"))
    panel.k_spin.setValue(10)
    panel.algorithm_combo.setCurrentText("optimal")
    with qtbot.waitSignal(panel.finished, timeout=120000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)
    assert panel.outcome is not None, panel.last_error
    grids = panel.outcome.sidecar["parameters"]["public_grids"]
    assert list(grids) == ["age"] and "16 equal-width intervals over the public bounds [18, 90)" in grids["age"]
    released = set(panel.outcome.table["age"].astype(str))
    allowed = {
        "[18,90)",
        *(f"[{18 + 4.5 * i:g},{18 + 4.5 * (i + w):g})" for w in (1, 2, 4, 8) for i in range(0, 16, w)),
    }
    assert released <= allowed, released - allowed
