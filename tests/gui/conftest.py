"""Fixtures of the GUI tests: an isolated QSettings store, a window, small CSV files, screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

SHOTS = Path(os.environ.get("DPSTUDIO_SHOTS", "/tmp/dpstudio-shots"))


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, qapp):
    """QSettings go to a temporary INI folder, never to the developer's real settings."""
    from PySide6 import QtCore

    QtCore.QCoreApplication.setOrganizationName("dpstudio-tests")
    QtCore.QCoreApplication.setApplicationName("dpstudio-tests")
    QtCore.QSettings.setDefaultFormat(QtCore.QSettings.IniFormat)
    QtCore.QSettings.setPath(QtCore.QSettings.IniFormat, QtCore.QSettings.UserScope, str(tmp_path / "settings"))
    yield tmp_path / "settings"


@pytest.fixture
def window(qtbot):
    """A main window with a fresh project; closing it at the end does not ask about unsaved changes."""
    from dpstudio.gui.main_window import MainWindow

    win = MainWindow()
    win.show()
    yield win
    win.project.dirty = False  # pytest-qt would close it only after this; do it here, without a question
    win.close()
    win.runner.shutdown()
    win.deleteLater()


@pytest.fixture
def small_csv(tmp_path) -> Path:
    """A 12-row table with one missing cell in each of 'workclass' and 'age' (known counts)."""
    rows = ["age,workclass,sex,income"]
    data = [
        (25, "Private", "Male", "<=50K"),
        (38, "Private", "Male", "<=50K"),
        (28, "Local-gov", "Male", ">50K"),
        (44, "Private", "Male", ">50K"),
        (18, "?", "Female", "<=50K"),
        (34, "Private", "Male", "<=50K"),
        (29, "?", "Male", "<=50K"),
        (63, "Self-emp", "Male", ">50K"),
        (24, "Private", "Female", "<=50K"),
        (55, "Private", "Male", "<=50K"),
        ("?", "Private", "Male", ">50K"),
        (48, "Private", "Male", ">50K"),
    ]
    rows += [",".join(map(str, r)) for r in data]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def shot(widget, name: str) -> Path:
    """Save a PNG of ``widget`` under /tmp/dpstudio-shots/ (to look at; never asserted on as pixels)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    widget.grab().save(str(path))
    return path
