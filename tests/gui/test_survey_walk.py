"""A data owner's own survey, end to end through the real window (issue 25's definition of done).

A table the test builds (coded answers 1..12 and '?' for a missing answer, as survey files write them) with
a folder of ARX-format taxonomies beside it whose trees cover '?': open it, see the codes proposed as
categorical and confirm the kinds in one step, declare the class, keep missing answers as '?', import the
offered folder, run in teaching mode and in release mode, score the unmodified test file, export, run the
exported ``NAME.command.sh`` and ``NAME.reproduce.py``, then anonymize on the same trees and set it beside
the DP run. Each step goes through the widget a person would use; a throwaway budget store
(tests/conftest.py) takes the spend.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from dpstudio.cli import main
from dpstudio.model.project.project import CATEGORICAL, CLASS, RELEASE, TEACHING
from tests.gui.conftest import shot
from tests.gui.test_newcomer_path import click
from tests.gui.test_run_epsilon import Answer

Qt = QtCore.Qt
ANSWERS = {"famincr": [str(i) for i in range(1, 13)], "ideo": ["1", "2", "3", "4", "5"]}
GROUPS = {"famincr": lambda c: "low" if int(c) <= 4 else "middle" if int(c) <= 8 else "high"}


def _table(path: Path, n: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    ideo = rng.choice(ANSWERS["ideo"], n)
    lean = np.isin(ideo, ["4", "5"])
    df = pd.DataFrame(
        {
            "state": rng.choice(["AL", "CA", "NY", "TX", "WA"], n),
            "sex": rng.choice(["1", "2"], n),
            "famincr": rng.choice(ANSWERS["famincr"], n).astype(object),
            "ideo": ideo.astype(object),
            # the class follows ideology, so a tree trained on the release has something to learn
            "vote": np.where(rng.random(n) < np.where(lean, 0.8, 0.25), "rep", "dem"),
        }
    )
    for col, share in (("famincr", 0.08), ("ideo", 0.05)):
        df.loc[rng.random(n) < share, col] = "?"
    df.to_csv(path, index=False)
    return path


def _trees(folder: Path) -> None:
    """ARX format (leaf;parent;...;root), every tree covering the missing answer '?'."""
    folder.mkdir()
    rows = [f"{c};{GROUPS['famincr'](c)};*" for c in ANSWERS["famincr"]] + ["?;unknown;*"]
    (folder / "famincr.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = [f"{c};{'left' if c in '12' else 'centre' if c == '3' else 'right'};*" for c in ANSWERS["ideo"]]
    (folder / "ideo.csv").write_text("\n".join([*rows, "?;unknown;*"]) + "\n", encoding="utf-8")
    (folder / "state.csv").write_text("AL;south;*\nTX;south;*\nCA;west;*\nWA;west;*\nNY;east;*\n", encoding="utf-8")
    (folder / "sex.csv").write_text("1;*\n2;*\n", encoding="utf-8")


def _accept_when_shown(attr_owner, name: str) -> None:
    """Press OK in the dialog the next click opens (kept by its panel as ``attr_owner.<name>``)."""

    def press():
        dialog = getattr(attr_owner, name, None)
        if dialog is None or not dialog.isVisible():
            QtCore.QTimer.singleShot(20, press)
            return
        dialog.accept()

    QtCore.QTimer.singleShot(0, press)


def test_a_survey_from_file_to_scripts_and_anonymization(qtbot, window, tmp_path):
    data = _table(tmp_path / "survey.csv", 3000, 0)
    test_file = _table(tmp_path / "survey_test.csv", 1000, 1)
    _trees(tmp_path / "taxonomies")
    p = window.project

    # 1. open the file from the Data panel; the coded answers are proposed as categorical, with the reason
    panel = window.show_panel("Data")
    panel.open_file(data)
    qtbot.waitUntil(lambda: p.frame is not None, timeout=60000)
    for col in ("famincr", "ideo", "sex"):
        assert p.types[col] == CATEGORICAL, col
        assert "codes" in p.provenance_of(f"type:{col}").source
    # one "confirm these kinds" step for every guessed type
    _accept_when_shown(panel, "types_dialog")
    click(qtbot, panel.types_button)
    assert not any(
        p.provenance_of(f"type:{c}").derived and not p.provenance_of(f"type:{c}").confirmed for c in p.columns
    )

    # 2. the class and its values, typed; missing answers kept as the file writes them
    panel.select_attribute("vote")
    panel.role_combo.setCurrentText(CLASS)
    assert p.roles["vote"] == CLASS
    panel.classes_edit.setText("dem, rep")
    click(qtbot, panel.classes_button)
    assert p.classes == ["dem", "rep"]
    click(qtbot, panel.keep_radio)
    assert p.missing == "keep" and panel.token_edit.text() == "?" == p.missing_token

    # 3. the Taxonomy panel offers the folder beside the data; its trees cover '?'
    tax = window.show_panel("Taxonomy")
    assert tax.offer_bar.isVisible() and "taxonomies" in tax.offer_label.text()
    click(qtbot, tax.offer_button)
    assert set(p.taxonomies) == {"state", "sex", "famincr", "ideo"}
    assert not [a for a in p.taxonomies if p.uncovered_values(a)[1]]
    shot(window, "survey_taxonomy")

    # 4. teaching run, then release run (the spend question answered Yes)
    algorithm = window.show_panel("Algorithm")
    algorithm.set_param("steps", 3)
    assert p.mode == TEACHING and algorithm.checklist.problems == [], algorithm.checklist.problems
    click(qtbot, algorithm.run_button)
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=300000)
    window.act_toggle_mode.trigger()  # the Mode menu's "Switch mode" (Ctrl+M)
    assert p.mode == RELEASE, window.statusBar().currentMessage()
    window.show_panel("Algorithm")
    assert algorithm.checklist.problems == [], algorithm.checklist.problems
    algorithm.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    click(qtbot, algorithm.run_button)
    qtbot.waitUntil(lambda: p.can_export and not window.runner.busy, timeout=300000)
    released = p.result

    # 5. Compare scores the unmodified test file (codes and '?' read with the project's schema)
    compare = window.show_panel("Compare")
    compare.evaluate_classification(str(test_file))
    assert compare.scores is not None, compare.last_error if hasattr(compare, "last_error") else ""
    majority = pd.read_csv(test_file)["vote"].value_counts(normalize=True).max()
    assert compare.scores.release > majority  # the release learned ideology's pull on the vote

    # 6. export, then run both re-run scripts successfully on the same file
    export = window.show_panel("Export")
    out = tmp_path / "out"
    out.mkdir()
    assert export.refusal_reason() == "", export.refusal_reason()
    paths = export.export_to(out, "survey", confirm=False)
    sidecar = json.loads(paths[1].read_text())
    assert {x["key"]: x["source"] for x in sidecar["public_inputs"]}["taxonomy:famincr"] == "famincr.csv"
    assert main(["budget", "set-total", sidecar["dataset_budget"]["dataset"], "5"]) == 0
    env = {**os.environ, "DPSTUDIO": str(Path(sys.executable).with_name("dpstudio"))}
    for cmd in (["sh", str(paths[3])], [sys.executable, str(paths[4])]):
        done = subprocess.run([*cmd, str(data)], capture_output=True, text=True, env=env, cwd=out, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr

    # 7. anonymize on the same trees ('?' a value like any other), then beside the DP run
    anon = window.show_panel("Anonymize")
    anon.set_qi(("state", "famincr", "ideo"))
    anon.k_spin.setValue(5)
    with qtbot.waitSignal(anon.finished, timeout=120000):
        QTest.mouseClick(anon.run_button, Qt.LeftButton)
    assert anon.outcome is not None and anon.last_error == "", anon.last_error
    assert p.result is released
    an, dp, an_acc, dp_acc = anon.compare_with_dp(str(test_file))
    assert dp.cells == len(released.leaf_nodes) and an.classes <= an.cells
    assert 0 < an_acc <= 1 and dp_acc == compare.scores.release
    anon.tabs.setCurrentIndex(2)
    shot(window, "survey_side_by_side")
