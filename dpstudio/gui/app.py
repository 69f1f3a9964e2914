"""Start the Qt application and the main window (``dpstudio`` / ``dpstudio gui [DATA] [--demo]``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dpstudio.gui.excepthook import install_excepthook  # noqa: F401  (also imported from here by tests)

#: Qt messages that say nothing to a user (the offscreen plugin repeats this one for every top-level window)
QUIET_QT_MESSAGES = frozenset({"This plugin does not support propagateSizeHints()"})


def qt_message(_mode, _context, message: str) -> None:
    """Qt's messages to stderr, except the ones in QUIET_QT_MESSAGES (installed by ``make_app``)."""
    if message not in QUIET_QT_MESSAGES:
        print(message, file=sys.stderr)


def make_app():
    """The QApplication (created once), named so QSettings finds the remembered layout."""
    from PySide6 import QtCore, QtGui, QtWidgets

    QtCore.qInstallMessageHandler(qt_message)
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("dpstudio")
    app.setOrganizationName("dpstudio")
    app.setApplicationDisplayName("dpstudio")
    from dpstudio.gui.gc_policy import gc_policy
    from dpstudio.gui.wheel_guard import install

    gc_policy()  # only the GUI thread collects (a worker thread's collection could deadlock with Qt)
    install(app)  # the wheel scrolls the page, never an unfocused combo or spin box
    try:
        from dpstudio.resources import resource

        app.setWindowIcon(QtGui.QIcon(str(resource("icons", "dpstudio.svg"))))
    except FileNotFoundError:
        pass
    return app


def run_app(args) -> int:
    """Open the window on ``args.data`` (else the bundled sample), or run the demo with ``args.demo``."""
    data = getattr(args, "data", None)  # checked by the launcher (``dpstudio gui``): it exists
    app = make_app()
    if getattr(args, "demo", False):
        from dpstudio.gui.demo import run_demo

        return run_demo(app, getattr(args, "screenshots", None), size=getattr(args, "window_size", (1440, 900)))
    from dpstudio.gui.main_window import MainWindow

    window = MainWindow()
    install_excepthook(window)
    window.show()
    if data is not None:
        window.open_data(Path(data))
    else:
        window.open_sample()
    code = app.exec()
    if getattr(window, "job_left_running", False):  # closed during a job that did not stop in time
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
