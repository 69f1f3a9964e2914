"""Saving a project from the window and opening it in a new window gives the same state and views."""

from __future__ import annotations

import json

from PySide6 import QtWidgets

from dpstudio.gui.main_window import MainWindow
from dpstudio.model.project.project import IGNORE, KEEP_MISSING, RELEASE

ARX = "Private;Worked;*\nLocal-gov;Worked;*\nSelf-emp;Worked;*\n"


def test_save_and_reopen_in_a_new_window(qtbot, window, small_csv, tmp_path, monkeypatch):
    data = window.panels["Data"]
    with qtbot.waitSignal(data.loaded, timeout=10000):
        window.open_data(small_csv)
    p = window.project
    data.select_attribute("age")
    data.lo_edit.setText("17")
    data.hi_edit.setText("91")
    data.apply_bounds()
    data.set_role("sex", IGNORE)
    data.keep_radio.setChecked(True)
    tax_file = tmp_path / "workclass.csv"
    tax_file.write_text(ARX, encoding="utf-8")
    taxp = window.panels["Taxonomy"]
    assert taxp.import_file(tax_file, attribute="workclass")
    taxp.editor("workclass").add_child((), "Never-worked")
    taxp.editor("workclass").add_child((), "?")  # kept missing cells take the token '?': covered too
    assert taxp.generate_numeric(17, 91, 2, 2, attribute="age")
    window.act_release.trigger()
    p.set_epsilon("0.75")

    target = tmp_path / "study.dpstudio"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window.act_save.trigger()
    assert target.is_file() and not p.dirty and not window.isWindowModified()
    assert "study.dpstudio" in window.windowTitle()
    text = target.read_text()
    assert "Private" in text  # taxonomy labels are public inputs and are saved
    assert "<=50K" not in text and "Male" not in text  # no data cells
    assert json.loads(text)["data"]["sha256"] == p.data_hash

    other = MainWindow()
    qtbot.addWidget(other)
    worker = other.open_project(target)
    assert worker is not None
    with qtbot.waitSignal(worker.signals.finished, timeout=10000):
        pass
    qtbot.waitUntil(lambda: other.project.frame is not None, timeout=5000)
    q = other.project
    for attr in (
        "columns",
        "roles",
        "types",
        "bounds",
        "missing",
        "algorithm",
        "params",
        "epsilon",
        "mode",
        "data_hash",
        "data_path",
    ):
        assert getattr(q, attr) == getattr(p, attr), attr
    assert q.taxonomies == p.taxonomies
    assert q.missing == KEEP_MISSING and q.mode == RELEASE
    assert not q.dirty and q.path == target
    # the views show the reopened state
    assert "RELEASE MODE" in other.banner.text() and "0.75" in other.banner.text()
    assert other.panels["Data"].preview_model.rowCount() == 12
    assert other.panels["Taxonomy"].badge("workclass")[0] == "covered"
    other.project.dirty = False
    other.close()


def test_open_a_broken_project_file_shows_why(window, tmp_path):
    bad = tmp_path / "broken.dpstudio"
    bad.write_text("{oops", encoding="utf-8")
    assert window.open_project(bad) is None
    assert "broken.dpstudio" in window.last_error and "JSON error on line 1" in window.last_error


def test_open_project_whose_data_moved(qtbot, window, small_csv, tmp_path):
    data = window.panels["Data"]
    with qtbot.waitSignal(data.loaded, timeout=10000):
        window.open_data(small_csv)
    path = window.project.save(tmp_path / "p.dpstudio")
    small_csv.rename(tmp_path / "moved.csv")
    other = MainWindow()
    qtbot.addWidget(other)
    assert other.open_project(path) is None
    assert "was not found" in other.last_error
    assert other.project.columns == ["age", "workclass", "sex", "income"]
    other.close()


def test_a_latin1_data_file_reopens_with_the_encoding_it_was_read_with(qtbot, window, tmp_path, monkeypatch):
    path = tmp_path / "people.csv"
    path.write_bytes("name,city,cls\nJos\u00e9,M\u00e1laga,a\nAnn,Ume\u00e5,b\n".encode("latin-1"))
    data = window.panels["Data"]
    data.set_encoding("latin-1")
    with qtbot.waitSignal(data.loaded, timeout=10000):
        window.open_data(path)
    target = tmp_path / "people.dpstudio"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window.act_save.trigger()
    assert json.loads(target.read_text())["data"]["encoding"] == "latin-1"

    other = MainWindow()  # its Data panel's encoding is the default UTF-8: the project's choice must win
    qtbot.addWidget(other)
    worker = other.open_project(target)
    with qtbot.waitSignal(worker.signals.finished, timeout=10000):
        pass
    qtbot.waitUntil(lambda: other.project.frame is not None, timeout=5000)
    assert list(other.project.frame["city"]) == ["M\u00e1laga", "Ume\u00e5"]
    assert other.project.data_encoding == "latin-1"
    other.project.dirty = False
    other.close()
