"""Confirming the column types read from the data, all together.

A new file's types are guessed from its values (numbers -> numeric, else categorical) and marked derived
from the data until confirmed. This dialog lists every such column with its guessed type, each ticked, and
one statement (editable; Enter presses Confirm); the ticked ones are confirmed with that statement, which
the project, the sidecar and the report record (``Project.confirm_public``). A wrong guess is changed in
the Data panel's Type control instead (choosing a type there declares it).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.model.project import provenance as pv

WORDING = (
    "I confirm that these column types (numeric or categorical) are public knowledge, known from the "
    "data's documentation without looking at its records."
)


def unconfirmed_types(project) -> list[str]:
    """The columns whose type was read from the data and is not confirmed, in column order."""
    return [c for c in project.columns if project.provenance_of(pv.key(pv.TYPE, c)).unconfirmed]


class ConfirmTypesDialog(QtWidgets.QDialog):
    """See the module docstring. ``checked()`` lists the ticked columns, ``wording()`` the statement."""

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Confirm the column types")
        self.project = project
        lay = QtWidgets.QVBoxLayout(self)
        intro = QtWidgets.QLabel(
            "These types were read from the data's values. Confirm those that are public "
            "knowledge; change a wrong one in the Data panel (Type) instead."
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        self.list = QtWidgets.QListWidget()
        self.list.setAccessibleName("Column types to confirm")
        self.list.setWordWrap(True)  # a long reason wraps instead of needing a horizontal scroll
        self.list.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarAlwaysOff)
        self.list.setResizeMode(QtWidgets.QListView.Adjust)
        for c in unconfirmed_types(project):
            source = project.provenance_of(pv.key(pv.TYPE, c)).source
            why = "" if source == pv.TYPE_FROM_DATA else f" ({source.removeprefix('guessed from the data: ')})"
            item = QtWidgets.QListWidgetItem(f"{c}: {project.types.get(c)}{why}")
            item.setToolTip(f"{c}: {project.types.get(c)}\n{source}")
            item.setData(QtCore.Qt.UserRole, c)
            item.setFlags(item.flags() | QtCore.Qt.ItemIsUserCheckable)
            item.setCheckState(QtCore.Qt.Checked)
            self.list.addItem(item)
        lay.addWidget(self.list, 1)
        lay.addWidget(QtWidgets.QLabel("Your statement (recorded in the project, the sidecar and the report):"))
        self.statement = QtWidgets.QLineEdit(WORDING)
        self.statement.setCursorPosition(0)  # the statement read from its start
        self.statement.setAccessibleName("Statement confirming the types")
        lay.addWidget(self.statement)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.Ok | QtWidgets.QDialogButtonBox.Cancel)
        buttons.button(QtWidgets.QDialogButtonBox.Ok).setText("Confirm the ticked types")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.resize(720, 460)

    def checked(self) -> list[str]:
        return [
            self.list.item(i).data(QtCore.Qt.UserRole)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == QtCore.Qt.Checked
        ]

    def wording(self) -> str:
        return self.statement.text()

    def record(self) -> list[str]:
        """Confirm the ticked columns' types with the statement; returns them (ProjectError if refused)."""
        done = []
        for c in self.checked():
            self.project.confirm_public(pv.key(pv.TYPE, c), self.wording())
            done.append(c)
        return done


__all__ = ["ConfirmTypesDialog", "WORDING", "unconfirmed_types"]
