"""Exceptions that escape a Qt slot go to the window's error bar (shared by the app and the demo, so
neither imports the other)."""

from __future__ import annotations

import sys


def install_excepthook(window, also=None):
    """Route exceptions that escape a Qt slot to the window's error bar (one line, no traceback there);
    the traceback still goes to stderr for a bug report. ``also(message)`` is called too, if given."""
    import traceback

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        from dpstudio.gui.worker import user_message

        traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        message = f"internal error, please report it: {user_message(exc)}"
        try:
            window.show_error(message)
        except RuntimeError:  # the window is gone
            pass
        if also is not None:
            also(message)

    sys.excepthook = hook
    return hook
