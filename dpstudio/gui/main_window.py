"""The main window (panels arrive with the studio issue)."""

from __future__ import annotations

from PySide6 import QtWidgets


class MainWindow(QtWidgets.QMainWindow):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("dpstudio")
        self.resize(1200, 800)
        self.setCentralWidget(QtWidgets.QLabel("dpstudio: panels coming"))
