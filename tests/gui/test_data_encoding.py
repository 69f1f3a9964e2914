"""The Data panel: a text-encoding choice that is used, and an open dialog that offers every loadable kind."""

from __future__ import annotations

from PySide6 import QtWidgets

from dpstudio.gui.panels.data import DataPanel
from dpstudio.model.project.project import Project


def test_a_latin1_file_fails_as_utf8_then_opens_with_the_chosen_encoding(qtbot, tmp_path):
    path = tmp_path / "people.csv"
    path.write_bytes("name,city,cls\nJos\u00e9,M\u00e1laga,a\nAnn,Ume\u00e5,b\n".encode("latin-1"))
    panel = DataPanel(Project())
    qtbot.addWidget(panel)
    panel.show()
    with qtbot.waitSignal(panel.load_failed, timeout=30000):
        panel.open_file(path)
    assert "choose its text encoding" in panel.last_error and "encoding='latin-1'" not in panel.last_error
    assert panel.project.frame is None
    panel.start_page.encoding_combo.setCurrentText("latin-1")  # chosen on the start page
    assert panel.encoding == "latin-1" and panel.encoding_combo.currentText() == "latin-1"
    with qtbot.waitSignal(panel.loaded, timeout=30000):
        panel.open_file(path)
    assert list(panel.project.frame["name"]) == ["Jos\u00e9", "Ann"]
    assert list(panel.project.frame["city"]) == ["M\u00e1laga", "Ume\u00e5"]


def test_open_dialog_offers_excel_and_parquet(qtbot, monkeypatch):
    seen = []

    def fake_dialog(parent, caption, start, filters):
        seen.append(filters)
        return "", ""

    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(fake_dialog))
    panel = DataPanel(Project())
    qtbot.addWidget(panel)
    panel.open_dialog()
    first = seen[0].split(";;")[0]
    for pattern in ("*.csv", "*.csv.gz", "*.tsv", "*.xlsx", "*.parquet"):
        assert pattern in first, pattern
