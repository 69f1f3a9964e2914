"""A warning question with No as the default (and Escape) answer: the release question and every other
deliberate step (raising a lifetime total) are asked through it.

``exec_dialog(box)`` is how the box is shown (default ``exec_modal``: ``box.exec()``); a driver without a
user, such as the demo or a test, answers the real dialog by replacing it.
"""

from __future__ import annotations

from PySide6 import QtWidgets


def exec_modal(box: QtWidgets.QMessageBox) -> int:
    """Show a modal question and return the button pressed."""
    return box.exec()


def ask_yes_no(parent, title: str, text: str, exec_dialog=exec_modal, keep_as: str | None = None) -> bool:
    """Ask ``text``; True only for Yes. The box is kept as ``parent.<keep_as>`` while it is shown."""
    box = QtWidgets.QMessageBox(
        QtWidgets.QMessageBox.Warning, title, text, QtWidgets.QMessageBox.Yes | QtWidgets.QMessageBox.No, parent
    )
    box.setDefaultButton(QtWidgets.QMessageBox.No)
    box.setEscapeButton(QtWidgets.QMessageBox.No)
    if keep_as:
        setattr(parent, keep_as, box)
    try:
        exec_dialog(box)
        return box.clickedButton() is box.button(QtWidgets.QMessageBox.Yes)
    finally:
        box.deleteLater()


def ask_choice(
    parent,
    title: str,
    text: str,
    choices: dict[str, str],
    default: str,
    exec_dialog=exec_modal,
    keep_as: str | None = None,
) -> str:
    """Ask ``text`` with one button per ``choices`` item (key: button text); the key pressed, ``default``
    (also Escape's answer) when the box is closed otherwise. The box is kept as ``parent.<keep_as>``."""
    box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Warning, title, text, QtWidgets.QMessageBox.NoButton, parent)
    buttons = {
        key: box.addButton(
            label, QtWidgets.QMessageBox.RejectRole if key == default else QtWidgets.QMessageBox.AcceptRole
        )
        for key, label in choices.items()
    }
    box.setDefaultButton(buttons[default])
    box.setEscapeButton(buttons[default])
    if keep_as:
        setattr(parent, keep_as, box)
    try:
        exec_dialog(box)
        return next((k for k, b in buttons.items() if box.clickedButton() is b), default)
    finally:
        box.deleteLater()


RELEASE_TITLE = "Spend the release budget?"

__all__ = ["RELEASE_TITLE", "ask_choice", "ask_yes_no", "exec_modal"]
