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


def test_the_encoding_chosen_for_one_file_does_not_carry_over_to_the_next(qtbot, tmp_path):
    """Issue 32 item 5: after latin-1 was chosen for one file, the next file (UTF-8) was read as latin-1."""
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,cls\nJos\u00e9,a\nAnn,b\n".encode("latin-1"))
    utf8 = tmp_path / "utf8.csv"
    utf8.write_text("name,cls\nZo\u00eb,a\n\u00c5sa,b\n", encoding="utf-8")
    panel = DataPanel(Project())
    qtbot.addWidget(panel)
    panel.show()
    panel.encoding_combo.setCurrentText("latin-1")
    with qtbot.waitSignal(panel.loaded, timeout=30000):
        panel.open_file(latin)
    assert list(panel.project.frame["name"]) == ["Jos\u00e9", "Ann"]
    with qtbot.waitSignal(panel.loaded, timeout=30000):
        panel.open_file(utf8)  # another file: read as UTF-8 again, and the choice shows it
    assert list(panel.project.frame["name"]) == ["Zo\u00eb", "\u00c5sa"] and panel.encoding == "utf-8"
    panel.encoding_combo.setCurrentText("latin-1")
    with qtbot.waitSignal(panel.loaded, timeout=30000):
        panel.open_file(latin)
    with qtbot.waitSignal(panel.loaded, timeout=30000):
        panel.open_file(latin)  # the same file again keeps its encoding
    assert list(panel.project.frame["name"]) == ["Jos\u00e9", "Ann"] and panel.encoding == "latin-1"


def test_bad_files_are_named_in_plain_words(qtbot, tmp_path):
    """An empty file read 'could not open empty.csv is empty (0 bytes)'; a binary file renamed .csv got advice
    about text encodings in Python syntax, then a field count; neither said what the file is."""
    import os

    panel = DataPanel(Project())
    qtbot.addWidget(panel)
    cases = {
        "empty.csv": (b"", "could not open empty.csv: it is empty (0 bytes)"),
        "photo.csv": (b"\x89PNG\r\n\x1a\n" + os.urandom(200), "photo.csv: it is not a text file: it holds a PNG image"),
        "book.csv": (b"PK\x03\x04" + os.urandom(200), "it holds a ZIP archive (an .xlsx or .docx workbook renamed"),
        "blob.csv": (b"a,b\n" + bytes(range(256)) * 4, "blob.csv: it is not a text file: it holds binary data"),
    }
    for name, (data, words) in cases.items():
        (tmp_path / name).write_bytes(data)
        with qtbot.waitSignal(panel.load_failed, timeout=30000):
            panel.open_file(tmp_path / name)
        assert words in panel.last_error, panel.last_error
        assert "encoding=" not in panel.last_error and "fields where line" not in panel.last_error
