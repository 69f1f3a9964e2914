"""The newcomer path of issue 9, driven with keys and clicks on the real window: open the bundled sample,
Run at once in teaching mode, switch to release, run, export, open the report. A throwaway budget store
(tests/conftest.py) takes the release's spend.

Until the sample opens ready to run (issue 9, item 2, another branch), the test applies the bundled Adult
taxonomies the way ``gui/demo.py`` does (Import folder, unused attributes ignored) and says so below.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from dpstudio.model.project.project import CATEGORICAL, IGNORE, NUMERIC, QUASI_IDENTIFIER, RELEASE, TEACHING
from dpstudio.model.release.readiness import readiness

Qt = QtCore.Qt


def click(qtbot, widget):
    assert widget.isEnabled(), widget.accessibleName()
    qtbot.mouseClick(widget, Qt.LeftButton)


def toolbar_button(window, text):
    for action in window.toolbar.actions():
        if action.text() == text:
            return window.toolbar.widgetForAction(action)
    raise AssertionError(f"no toolbar button {text!r}")


def make_ready_like_the_demo(window):
    """Stand-in for the sample opening ready to run (another branch of issue 9): the demo's steps 1-2."""
    from dpstudio.gui.demo import bundled_taxonomy_folder

    p = window.project
    if not [x.text for x in readiness(p)]:
        return
    window.panels["Taxonomy"].import_folder(bundled_taxonomy_folder())
    for a in p.attributes(QUASI_IDENTIFIER):
        if (p.types.get(a) == NUMERIC and a not in p.bounds) or (
            p.types.get(a) == CATEGORICAL and a not in p.taxonomies
        ):
            p.set_role(a, IGNORE)


def test_newcomer_opens_the_sample_runs_releases_exports_and_reads_the_report(qtbot, window, tmp_path, monkeypatch):
    p = window.project
    # 1. start on the sample: the toolbar's "Adult sample"
    click(qtbot, toolbar_button(window, "Adult sample"))
    qtbot.waitUntil(lambda: p.frame is not None, timeout=120000)
    make_ready_like_the_demo(window)
    algorithm = window.panels["Algorithm"]
    QTest.keyClick(window, Qt.Key_3, Qt.ControlModifier)  # Ctrl+3: the Algorithm panel
    assert window.tabs.currentWidget() is algorithm
    assert algorithm.checklist.problems == [], algorithm.checklist.problems
    algorithm.set_param("steps", 3)  # a short run (auto would choose more steps for this epsilon)

    # 2. Run at once, in teaching mode
    assert p.mode == TEACHING
    click(qtbot, algorithm.run_button)
    qtbot.waitUntil(lambda: p.result is not None and not window.runner.busy, timeout=300000)
    assert p.run_teaching is True and window.panels["Export"].refusal_reason()  # teaching: nothing exportable

    # 3. switch to release with the keyboard (Ctrl+M) and run; the spend question is answered Yes
    QTest.keyClick(window, Qt.Key_M, Qt.ControlModifier)
    assert p.mode == RELEASE and "RELEASE MODE" in window.banner.text()
    window.show_panel("Algorithm")
    asked = []

    def answer_yes(box):
        asked.append(box.text())
        QtCore.QTimer.singleShot(0, box.button(QtWidgets.QMessageBox.Yes).click)
        return QtWidgets.QDialog.exec(box)

    algorithm.exec_dialog = answer_yes
    assert algorithm.checklist.problems == [], algorithm.checklist.problems
    click(qtbot, algorithm.run_button)
    qtbot.waitUntil(lambda: p.can_export and not window.runner.busy, timeout=300000)
    assert len(asked) == 1 and "cannot be undone" in asked[0]

    # 4. export: type a folder, click Export, confirm
    export = window.show_panel("Export")
    assert export.refusal_reason() == ""
    out = tmp_path / "out"
    out.mkdir()
    export.folder_edit.setFocus()
    QTest.keyClicks(export.folder_edit, str(out))
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", lambda *a, **k: QtWidgets.QMessageBox.Yes)
    click(qtbot, export.export_button)
    written = {x.suffix: x for x in export.last_paths}
    assert set(written) == {".csv", ".json", ".html", ".sh", ".py"} and all(x.is_file() for x in written.values())

    # 5. open the report: it states what was released and the budget it spent
    report = written[".html"].read_text(encoding="utf-8")
    assert "<html" in report.lower() and "epsilon" in report.lower()
    spent = f"{float(p.run_ledger.spent):g}"
    assert spent in report
    rows = written[".csv"].read_text(encoding="utf-8").splitlines()
    assert len(rows) > 1
