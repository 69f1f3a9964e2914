"""Every interactive control of the main window has an accessible name (issue 9, item 4)."""

from __future__ import annotations

from PySide6 import QtWidgets

from dpstudio.gui.accessibility import accessible_name_for, is_interactive, unnamed_controls
from tests.gui.export_fixtures import table_project


def describe(w):
    return f"{type(w).__name__} {w.objectName()!r} in {type(w.parentWidget()).__name__}"


def test_every_interactive_control_of_the_window_has_a_name(qtbot, window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in\n")
    table_project(steps=2, project=window.project, path=data)
    window.panels["Data"].select_attribute("age")
    window.panels["Taxonomy"].select_attribute("work")
    for title in [*window.panels, "Data"]:  # each panel shown in turn, as a user would
        window.show_panel(title)
        qtbot.wait(10)
    missing = [describe(w) for w in unnamed_controls(window)]
    window.show_guide()
    missing += [f"help: {describe(w)}" for w in unnamed_controls(window.help_window)]
    assert not missing, "\n".join(sorted(set(missing)))
    names = [w.accessibleName() for w in window.findChildren(QtWidgets.QWidget) if is_interactive(w)]
    assert "Run" in names and "epsilon" in names  # found by what a user reads


def test_a_control_with_no_words_around_it_gets_no_made_up_name(qtbot):
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    lay = QtWidgets.QVBoxLayout(box)
    bare, labelled = QtWidgets.QLineEdit(), QtWidgets.QLineEdit()
    form = QtWidgets.QFormLayout()
    form.addRow("lower bound", labelled)
    lay.addWidget(bare)
    lay.addLayout(form)
    assert accessible_name_for(bare) == "" and unnamed_controls(box) == [bare, labelled]
    assert accessible_name_for(labelled) == "lower bound"


def test_the_focus_landing_on_a_deleted_widget_is_not_an_error(qtbot, window):
    """Opening a file dialog in the real window sent a focus change to the dialog's line edit while Qt
    deleted it: naming it raised 'Internal C++ object already deleted' into the window's error banner."""
    import shiboken6

    edit = QtWidgets.QLineEdit()
    edit.setPlaceholderText("file name")
    shiboken6.delete(edit)
    window._name_focused(None, edit)  # no exception

    class Dying(QtWidgets.QLineEdit):  # deleted while its words are read
        def placeholderText(self):
            shiboken6.delete(self)
            return super().placeholderText()

    dying = Dying()
    window._name_focused(None, dying)
