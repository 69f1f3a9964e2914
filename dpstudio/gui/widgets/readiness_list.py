"""The readiness checklist beside Run: every problem of ``model.readiness`` at once, each with a button that
goes to the place to fix it (the window's ``go_to``). "Ready to run" when the list is empty."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.model.release.readiness import PLACES


class ReadinessList(QtWidgets.QGroupBox):
    """``set_problems(problems)`` shows them; ``goTo(problem)`` is emitted by a row's button."""

    goTo = QtCore.Signal(object)  # a model.readiness.Problem

    def __init__(self, parent=None, here: str | None = None):
        """``here``: the title of the panel the list sits on; a problem fixed on that panel gets a button
        that shows its control ("Show epsilon") rather than one that goes to the panel already shown."""
        super().__init__("Before you run", parent)
        self.here = here
        self.setObjectName("readinessList")
        outer = QtWidgets.QVBoxLayout(self)
        self.status = QtWidgets.QLabel("")
        self.status.setWordWrap(True)
        outer.addWidget(self.status)
        self.rows = QtWidgets.QWidget()
        self.rows_layout = QtWidgets.QVBoxLayout(self.rows)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarAlwaysOff)  # rows wrap; a button never hides
        scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
        scroll.setWidget(self.rows)
        outer.addWidget(scroll, 1)
        self.problems: list = []
        self._shown = None
        self.buttons: list[QtWidgets.QPushButton] = []
        self.set_problems([])

    def set_problems(self, problems) -> None:
        if self._shown == list(problems):
            return
        self.problems = self._shown = list(problems)
        while self.rows_layout.count():
            item = self.rows_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.buttons = []
        if not self.problems:
            self.status.setText("\u2714 Ready to run: every input the run needs is set.")
            self.status.setStyleSheet("color:#1b6b3a; font-weight:bold;")
            return
        n = len(self.problems)
        self.status.setText(f"{n} thing{'s' if n > 1 else ''} to fix before Run:")
        self.status.setStyleSheet("color:#b00020; font-weight:bold;")
        for problem in self.problems:
            row = QtWidgets.QWidget()
            lay = QtWidgets.QHBoxLayout(row)
            lay.setContentsMargins(0, 0, 0, 0)
            # a long column name may break after its underscores (it widened the list beyond its column)
            text = QtWidgets.QLabel("\u2022 " + problem.text.replace("_", "_\u200b"))
            text.setWordWrap(True)
            text.setToolTip(problem.text)
            where = PLACES[problem.place]
            button = QtWidgets.QPushButton(f"Show {where[1]}" if where[0] == self.here else f"Go to {where[0]}")
            button.setToolTip(f"Show where this is fixed: {where[0]} panel ({where[1]})")
            button.setAccessibleName(f"Fix: {problem.text}")
            button.clicked.connect(lambda _=False, p=problem: self.goTo.emit(p))
            lay.addWidget(text, 1)
            lay.addWidget(button, 0, QtCore.Qt.AlignTop)
            self.rows_layout.addWidget(row)
            self.buttons.append(button)
        self.rows_layout.addStretch(1)
