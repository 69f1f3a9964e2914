"""Start the Qt application and the main window."""

from __future__ import annotations

import sys


def run_app(args) -> int:
    from PySide6 import QtWidgets

    from dpstudio.gui.main_window import MainWindow

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("dpstudio")
    app.setOrganizationName("dpstudio")
    window = MainWindow()
    window.show()
    return app.exec()
