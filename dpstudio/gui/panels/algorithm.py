"""Algorithm and budget: choose the algorithm and its parameters, set epsilon, drag its split, see the
expected (data-independent) error before anything runs, and start the run.

Public methods (for the demo driver and tests):
- ``set_algorithm(name)``: one of ``dpstudio.model.release.budget_plan.ALGORITHMS`` (e.g. "diffgen_consistency").
- ``set_param(key, value)``: one parameter (``steps``, ``score``, ``consistency``, ``bins``, ...).
- ``set_epsilon(x)``: the total budget (number or text); raises ValueError with the reason.
- ``set_split(shares)`` / ``split()``: the budget split as exact Fractions (always summing to epsilon).
- ``expected_figures()``: the data-independent error figures currently shown (``Figure`` list).
- ``accuracy_lines()``: the same split in words, "a count of about N is off by about plus or minus X (95 %)"
  per level and for the released leaves (``model.accuracy``; N is ``example_box``, the user's example).
- ``show_preview()``: teaching mode only, true and simulated noisy counts of a few cells.
- ``readiness()`` / ``checklist``: every problem before Run (``model.readiness``), each with a button
  that goes to the place to fix it (the window's ``go_to``); Run refuses with the same list.
- ``run()``: start the algorithm on the project's data through the window's worker (or the panel's
  own runner when it stands alone); returns the Worker or None (and shows why).
- ``refresh_budget()`` / ``budget_label``: the loaded dataset's lifetime budget in the persistent budget
  store ("this dataset (NAME): X of Y epsilon left", "no release yet on this data", or "not tracked:
  experiments only"), refreshed when data loads and after a run; near-duplicate and untracked warnings.
- ``apply_dataset_budget(name=None, total=None)``: name the dataset and/or set its lifetime total, after
  a confirmation that budgets add up (default No; asked through ``exec_dialog``).

The plan is written to the project as parameters (``budget_split``, ``count_epsilon``, ``level_epsilons``)
so the run and the exported report use exactly the split shown. Privacy: nothing here touches the data;
the figures depend on public inputs only.
"""

from __future__ import annotations

import math
from fractions import Fraction

from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.gui.panels import host
from dpstudio.gui.widgets.budget_bar import BudgetBar
from dpstudio.gui.widgets.elided_label import ElidedLabel, ErrorLine
from dpstudio.gui.widgets.readiness_list import ReadinessList
from dpstudio.gui.widgets.yes_no import RELEASE_TITLE, ask_yes_no, exec_modal
from dpstudio.model.compare.accuracy import count_accuracy, simulated_preview
from dpstudio.model.project.epsilon_text import parse_epsilon_text, understood_text
from dpstudio.model.release import budget_plan as bp
from dpstudio.model.release.question import epsilon_caution
from dpstudio.model.release.readiness import readiness, refusal_text
from dpstudio.model.release.runs import default_bins

SLIDER_MIN, SLIDER_MAX = math.log10(0.01), math.log10(10.0)
SLIDER_STEPS = 1000
NOT_READY = "Not ready"
SPLIT_TITLE = "Split of epsilon (drag the dark handles)"
LOCKED_SPLIT_TITLE = "Split of epsilon (chosen by the algorithm itself: it cannot be dragged)"
#: project fields whose change can change the readiness checklist ("ledger", which a run's worker thread may
#: announce, refreshes it through ``refresh_budget`` on the GUI thread)
READINESS_FIELDS = (
    "data",
    "roles",
    "types",
    "bounds",
    "classes",
    "missing",
    "taxonomies",
    "algorithm",
    "epsilon",
    "mode",
    "provenance",
)


def slider_to_epsilon(pos: int) -> float:
    """Slider position -> epsilon on a log scale from 0.01 to 10, rounded to 3 significant digits."""
    x = 10 ** (SLIDER_MIN + (SLIDER_MAX - SLIDER_MIN) * pos / SLIDER_STEPS)
    return float(f"{x:.3g}")


def epsilon_to_slider(eps: float) -> int:
    v = (math.log10(max(min(eps, 10.0), 0.01)) - SLIDER_MIN) / (SLIDER_MAX - SLIDER_MIN)
    return int(round(v * SLIDER_STEPS))


def not_ready_line(n: int) -> str:
    """The line beside Run when it refuses for ``n`` readiness problems (the checklist lists them)."""
    return f"{NOT_READY}: {n} problem{'s' if n != 1 else ''} to fix first"


class AlgorithmPanel(QtWidgets.QWidget):
    """See the module docstring."""

    planChanged = QtCore.Signal(object)  # BudgetPlan
    budgetChanged = QtCore.Signal()  # the project's ledger changed (maybe in the worker): refresh the label

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.project = project
        self._updating = False
        self._runner = None
        self.worker = None
        self.last_error = ""

        outer = QtWidgets.QVBoxLayout(self)
        top = QtWidgets.QHBoxLayout()
        outer.addLayout(top)

        # algorithm + parameters
        box = QtWidgets.QGroupBox("Algorithm")
        form = QtWidgets.QFormLayout(box)
        self.combo = QtWidgets.QComboBox()
        for key, name in registry.ALGORITHMS.items():
            self.combo.addItem(name, key)
        form.addRow("algorithm", self.combo)
        self.params_form = QtWidgets.QFormLayout()
        holder = QtWidgets.QWidget()
        holder.setLayout(self.params_form)
        form.addRow(holder)
        top.addWidget(box, 1)
        self.param_widgets: dict[str, QtWidgets.QWidget] = {}
        self._bins_default: int | None = None  # the bins a histogram gets from its public bounds

        # epsilon
        ebox = QtWidgets.QGroupBox("Privacy budget")
        elay = QtWidgets.QFormLayout(ebox)
        self.eps_edit = QtWidgets.QLineEdit()
        self.eps_edit.setToolTip("Total epsilon of the run (e.g. 1, 0.5, 1/4)")
        self.eps_slider = QtWidgets.QSlider(QtCore.Qt.Horizontal)
        self.eps_slider.setRange(0, SLIDER_STEPS)
        self.eps_slider.setToolTip("log scale, 0.01 to 10")
        self.eps_error = ErrorLine()
        self.eps_understood = QtWidgets.QLabel("")
        self.eps_understood.setStyleSheet("color:#616161;")
        self.eps_understood.setWordWrap(True)
        elay.addRow("epsilon", self.eps_edit)
        elay.addRow("", self.eps_understood)
        elay.addRow("log scale", self.eps_slider)
        elay.addRow("", self.eps_error)
        # one line whatever the mode, cut with its words in the tooltip: the teaching words wrapped where the
        # release words did not, and Run moved by a line on every switch of mode
        self.mode_label = ElidedLabel()
        elay.addRow(self.mode_label)
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.setToolTip("Run the algorithm on the loaded data (spends the budget in release mode)")
        elay.addRow(self.run_button)
        self.budget_label = QtWidgets.QLabel("")
        self.budget_label.setWordWrap(True)
        elay.addRow(self.budget_label)
        self.budget_warnings = QtWidgets.QLabel("")
        self.budget_warnings.setWordWrap(True)
        self.budget_warnings.setStyleSheet("color:#b35900;")
        elay.addRow(self.budget_warnings)
        self.new_dataset_check = QtWidgets.QCheckBox("These records are other people: a budget of their own")
        self.new_dataset_check.setToolTip(
            "The budget store took these records for a known dataset (a renamed, "
            "added or dropped column, repeated rows). Tick only if they are other "
            "people: their releases then spend a budget of their own."
        )
        self.new_dataset_check.toggled.connect(self._on_new_dataset)
        self.new_dataset_check.hide()
        elay.addRow(self.new_dataset_check)
        drow = QtWidgets.QHBoxLayout()
        self.dataset_name_edit = QtWidgets.QLineEdit()
        self.dataset_name_edit.setPlaceholderText("dataset name")
        self.dataset_total_edit = QtWidgets.QLineEdit()
        self.dataset_total_edit.setPlaceholderText("total \u03b5")
        self.dataset_total_edit.setToolTip("The dataset's lifetime total epsilon: every release on it spends from this")
        self.dataset_apply = QtWidgets.QPushButton("Set\u2026")
        self.dataset_apply.setToolTip("name this dataset and set or raise its lifetime budget (asks first)")
        for w in (self.dataset_name_edit, self.dataset_total_edit, self.dataset_apply):
            drow.addWidget(w)
        elay.addRow("dataset budget", drow)
        top.addWidget(ebox, 1)

        # the readiness checklist beside Run (model.readiness): every problem at once, each with a way there
        self.checklist = ReadinessList(here="Algorithm")
        self.checklist.goTo.connect(self.go_to_problem)
        top.addWidget(self.checklist, 1)
        # fixed shares of the width, whatever the algorithm's parameters need: the columns moved sideways by
        # 140 px on a change of algorithm (the layout test checks that each still fits at 1280x800)
        for i, (widget, share) in enumerate(((box, 40), (ebox, 30), (self.checklist, 30))):
            policy = widget.sizePolicy()
            policy.setHorizontalPolicy(QtWidgets.QSizePolicy.Ignored)
            widget.setSizePolicy(policy)
            top.setStretch(i, share)

        # split bar + expected error
        self.split_box = sbox = QtWidgets.QGroupBox(SPLIT_TITLE)
        slay = QtWidgets.QVBoxLayout(sbox)
        self.bar = BudgetBar()
        slay.addWidget(self.bar)
        nrow = QtWidgets.QHBoxLayout()
        self.notes = QtWidgets.QLabel("")
        self.notes.setWordWrap(True)
        nrow.addWidget(self.notes, 1)
        self.reset_button = QtWidgets.QPushButton("Default split")
        self.reset_button.setToolTip("back to the split the algorithm runs by default (docs/gui-panels.md)")
        nrow.addWidget(self.reset_button)
        slay.addLayout(nrow)
        outer.addWidget(sbox)

        fbox = QtWidgets.QGroupBox("Expected error of this split (data-independent, before anything runs)")
        flay = QtWidgets.QHBoxLayout(fbox)
        self.figures = QtWidgets.QTableWidget(0, 3)
        self.figures.setHorizontalHeaderLabels(["quantity", "value", "how"])
        self.figures.verticalHeader().setVisible(False)
        # a long explanation wraps onto more lines of its row, never cut ("a level given less ha...")
        self.figures.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeToContents)
        header = self.figures.horizontalHeader()
        for c, mode in enumerate(
            (
                QtWidgets.QHeaderView.ResizeToContents,
                QtWidgets.QHeaderView.ResizeToContents,
                QtWidgets.QHeaderView.Stretch,
            )
        ):  # fixed modes: a drag never shrinks it
            header.setSectionResizeMode(c, mode)
        self.figures.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.figures.setAccessibleName("Expected error figures")
        flay.addWidget(self.figures, 3)
        flay.addWidget(self._build_words_box(), 2)
        outer.addWidget(fbox, 1)

        self.plan: bp.BudgetPlan | None = None
        self._figures: list[bp.Figure] = []
        self.exec_dialog = exec_modal  # how the release question is shown (see exec_modal)
        self.release_box: QtWidgets.QMessageBox | None = None  # the last release question asked
        self.budget_box: QtWidgets.QMessageBox | None = None  # the last dataset-budget question asked

        self.combo.currentIndexChanged.connect(self._on_combo)
        self.eps_edit.editingFinished.connect(self._on_eps_edit)
        self.eps_edit.textChanged.connect(self._check_eps_text)
        self.eps_slider.valueChanged.connect(self._on_slider)
        self.bar.splitChanged.connect(self._on_split)
        self.run_button.clicked.connect(self.run)
        self.reset_button.clicked.connect(self.reset_split)
        self.dataset_apply.clicked.connect(
            lambda: self.apply_dataset_budget(self.dataset_name_edit.text(), self.dataset_total_edit.text())
        )
        self.budgetChanged.connect(self.refresh_budget, QtCore.Qt.QueuedConnection)
        project.subscribe(self._on_project, "algorithm", "epsilon", "mode", "roles", "types", "data", "bounds")
        project.subscribe(self._on_budget_field, "data", "ledger")
        project.subscribe(self._on_run_field, "run")
        project.subscribe(self._on_readiness_field, *READINESS_FIELDS)
        self.eps_edit.textChanged.connect(self.refresh_readiness)
        self._load_from_project(rebuild_plan=True)
        self.refresh_budget()

    # -- public API ---------------------------------------------------------------------------------
    def detach(self) -> None:
        """Stop following the project (before the panel is thrown away)."""
        self.project.unsubscribe(self._on_project)
        self.project.unsubscribe(self._on_budget_field)
        self.project.unsubscribe(self._on_run_field)
        self.project.unsubscribe(self._on_readiness_field)

    def _on_readiness_field(self, _field) -> None:
        try:
            self.refresh_readiness()
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_readiness_field)

    def readiness(self) -> list:
        """The checklist's problems now (``model.readiness.readiness`` with the epsilon box's text)."""
        return readiness(self.project, self.eps_edit.text())

    def refresh_readiness(self, *_) -> None:
        """Re-check the project and show every problem beside Run; a refusal beside Run for problems that are
        fixed since is taken back (or its count brought up to date)."""
        problems = self.readiness()
        self.checklist.set_problems(problems)
        if self.eps_error.text().startswith(NOT_READY):
            self.eps_error.setText(not_ready_line(len(problems)) if problems else "")
        self._problems = len(problems)
        self._update_run_button()
        win = host(self)
        if not problems and win is not None and hasattr(win, "message_label"):
            if win.message_label.text().startswith("not ready to run"):  # Run's refusal no longer holds
                win.clear_message()

    def _update_run_button(self) -> None:
        """Run is on only while epsilon is valid and the checklist beside it is empty (it says what to fix)."""
        if not getattr(self, "_eps_valid", True):
            return  # _check_eps_text said why
        n = getattr(self, "_problems", 0)
        self.run_button.setEnabled(n == 0)
        self.run_button.setToolTip(
            f"Run is off until the {n} problem{'s' if n != 1 else ''} in \u201cBefore you run\u201d "
            f"{'are' if n != 1 else 'is'} fixed"
            if n
            else "Run the algorithm on the loaded data (spends the budget in release mode)"
        )

    def go_to_problem(self, problem) -> None:
        """Show the place where ``problem`` is fixed (the window switches panel and selects the control)."""
        win = host(self)
        if win is not None and hasattr(win, "go_to"):
            win.go_to(problem.place, problem.attribute)
        elif problem.place == "algorithm.epsilon":
            self.eps_edit.setFocus()

    def _on_budget_field(self, _field) -> None:
        try:
            self.budgetChanged.emit()  # queued: the release ledger is charged in the worker thread
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_budget_field)

    def refresh_budget(self) -> None:
        """Show what the budget store holds for the loaded data (and any warning)."""
        from dpstudio.model.project.project import ProjectError

        p = self.project
        self.refresh_readiness()
        if not p.has_data:
            self.budget_label.setText("this dataset: no data loaded")
            self.budget_warnings.setText("")
            self.dataset_apply.setEnabled(False)
            return
        try:
            info = p.dataset_budget()
        except ProjectError as exc:
            self.budget_label.setText(f"this dataset: the budget store cannot be read: {exc}")
            self.budget_label.setStyleSheet("color:#b00020;")
            self.dataset_apply.setEnabled(False)
            return
        self.budget_label.setText(info.describe())
        self.budget_label.setStyleSheet("font-weight:bold;" + ("color:#b35900;" if not info.tracked else ""))
        declared_new = p.account.new_dataset
        self.new_dataset_check.setVisible(bool(info.related) or declared_new)
        self.new_dataset_check.blockSignals(True)
        self.new_dataset_check.setChecked(declared_new)
        self.new_dataset_check.blockSignals(False)
        self.budget_warnings.setText("\n".join(f"WARNING: {w}" for w in info.warnings))
        self.dataset_apply.setEnabled(True)
        self.dataset_total_edit.setEnabled(info.tracked)
        if not self.dataset_name_edit.hasFocus():
            self.dataset_name_edit.setText(info.name or "")

    def showEvent(self, event) -> None:  # the store may have changed (another project, the CLI)
        super().showEvent(event)
        self.refresh_budget()

    def _on_new_dataset(self, checked: bool) -> None:
        from dpstudio.model.project.project import ProjectError

        try:
            self.project.set_new_dataset(checked)
        except ProjectError as exc:
            self._refuse_budget(str(exc))

    def dataset_budget_question(self, info, name: str | None, total) -> str:
        """The confirmation asked before naming the dataset or setting its lifetime total."""
        from dpstudio.core.budget import fraction_text

        parts = []
        if name and name != info.name:
            parts.append(f"Name this dataset {name!r} (was {info.name!r}) in the budget store.")
        if total is not None:
            now = "not set yet" if info.total is None else fraction_text(info.total, True)
            parts.append(
                f"Set the lifetime budget of {name or info.name!r} to epsilon = {fraction_text(total, True)} "
                f"(now: {now}; spent so far: {fraction_text(info.spent, True)})."
            )
        parts.append(
            "Budgets add up: every release on these records, from any project or command, spends from "
            "this one lifetime budget, and releases on data that shares people with it (an edited copy, "
            "another extract) add to what is revealed about each of them. Raise the total only "
            "deliberately; what has been spent is never given back."
        )
        return "\n\n".join(parts)

    def apply_dataset_budget(self, name: str | None = None, total=None) -> bool:
        """Name the loaded dataset and/or set its lifetime total (text or number; empty: unchanged), after
        a question that says budgets add up (default No). False, with the reason shown, if not done."""
        from dpstudio.model.project.project import ProjectError

        p = self.project
        name = str(name or "").strip() or None
        try:
            info = p.dataset_budget()
            total = parse_epsilon_text(total) if isinstance(total, str) and total.strip() else (total or None)
            if name == info.name:
                name = None
            if name is None and total is None:
                raise ProjectError("type a new dataset name or a lifetime total first")
        except ValueError as exc:
            self._refuse_budget(str(exc))
            return False
        if not self._ask_yes_no(
            "budget_box", "Change this dataset's budget?", self.dataset_budget_question(info, name, total)
        ):
            return False
        try:
            if name is not None:
                p.set_dataset_name(name)
            if total is not None:
                p.set_dataset_total(total)
        except ValueError as exc:
            self._refuse_budget(str(exc))
            return False
        self.dataset_total_edit.clear()
        self.refresh_budget()
        self.eps_error.setText("")  # a refusal for want of budget no longer holds
        win = host(self)
        if win is not None and hasattr(win, "clear_message"):
            win.clear_message()
        return True

    def _refuse_budget(self, message: str) -> None:
        self._refuse(self.budget_warnings, message)

    def _refuse(self, label: QtWidgets.QLabel, message: str, short: str | None = None) -> None:
        """Say why something did not happen in ``label`` (``short`` when the details are listed elsewhere in
        the panel) and in the window; stay where we are."""
        self.last_error = message
        label.setText(short or message)
        win = host(self)
        if win is not None:
            win.show_error(message)

    def set_algorithm(self, name: str) -> None:
        if name not in registry.ALGORITHMS:
            raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(registry.ALGORITHMS)}")
        self.combo.setCurrentIndex(self.combo.findData(name))

    def set_param(self, key: str, value) -> None:
        w = self.param_widgets.get(key)
        if w is None:
            raise KeyError(f"{self.algorithm} has no parameter {key!r}")
        if isinstance(w, QtWidgets.QSpinBox):
            w.setValue(int(value))
        elif isinstance(w, QtWidgets.QComboBox):
            i = w.findData(value)
            if i < 0:
                raise ValueError(f"{key} must be one of {[w.itemData(k) for k in range(w.count())]}")
            w.setCurrentIndex(i)
        elif isinstance(w, QtWidgets.QCheckBox):
            w.setChecked(bool(value))

    def set_epsilon(self, value) -> None:
        eps = parse_epsilon_text(value) if isinstance(value, str) else value
        self.project.set_epsilon(eps)

    @property
    def algorithm(self) -> str:
        return self.combo.currentData()

    def split(self) -> list[Fraction]:
        return list(self.plan.shares) if self.plan else []

    def set_split(self, shares) -> None:
        """Set the split (numbers; rescaled to sum exactly to epsilon)."""
        self.bar.set_segments(self.plan.names, shares, self.plan.epsilon, locked=self.plan.locked)

    def reset_split(self) -> None:
        """Back to the algorithm's default split (the one its engine runs)."""
        default = bp.default_plan(self.algorithm, self.params(), self.project.epsilon)
        self.bar.set_segments(default.names, default.shares, default.epsilon, locked=default.locked)

    def is_default_split(self) -> bool:
        """True when the shown split is the algorithm's default (the shown split is always the one that
        runs: ``model.release.session.make_job`` passes it to the engine)."""
        return self.plan is None or bp.is_default_split(self.plan, self.params())

    def expected_figures(self) -> list[bp.Figure]:
        return list(self._figures)

    def params(self) -> dict:
        return {**registry.default_params(self.algorithm), **self._user_params()}

    # -- accuracy in words -----------------------------------------------------------------------------
    def _build_words_box(self) -> QtWidgets.QWidget:
        box = QtWidgets.QGroupBox("In words (95 %)")
        lay = QtWidgets.QVBoxLayout(box)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("for a count of about"))
        self.example_box = QtWidgets.QSpinBox()
        self.example_box.setRange(1, 10**9)
        self.example_box.setValue(1000)
        self.example_box.setGroupSeparatorShown(True)
        self.example_box.setToolTip("an example size of your choice (not read from the data)")
        self.example_box.setAccessibleName("Example count for the accuracy in words")
        self.example_box.valueChanged.connect(self._refresh_words)
        row.addWidget(self.example_box)
        row.addStretch(1)
        lay.addLayout(row)
        self.words_label = QtWidgets.QLabel("")
        self.words_label.setWordWrap(True)
        self.words_label.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        self.words_label.setAlignment(QtCore.Qt.AlignTop | QtCore.Qt.AlignLeft)
        words_scroll = QtWidgets.QScrollArea()
        words_scroll.setWidgetResizable(True)
        words_scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
        words_scroll.setWidget(self.words_label)
        lay.addWidget(words_scroll, 1)
        self.preview_button = QtWidgets.QPushButton("Simulated preview (teaching)")
        self.preview_button.setToolTip(
            "true counts of a few cells beside the same counts with simulated noise "
            "(teaching mode only: it shows true counts)"
        )
        self.preview_button.clicked.connect(self.show_preview)
        lay.addWidget(self.preview_button)
        self.preview_table = QtWidgets.QTableWidget(0, 3)
        self.preview_table.setHorizontalHeaderLabels(["cell", "true count", "simulated noisy count"])
        self.preview_table.verticalHeader().setVisible(False)
        self.preview_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.Stretch)
        self.preview_table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.preview_table.setAccessibleName("Teaching preview: true and simulated noisy counts")
        self.preview_table.hide()
        lay.addWidget(self.preview_table, 1)
        return box

    def accuracy_lines(self) -> list:
        """The accuracy-in-words lines now shown (``model.accuracy.count_accuracy`` for the shown split)."""
        return count_accuracy(self.plan, self.example_box.value(), self.params()) if self.plan is not None else []

    def _refresh_words(self, *_) -> None:
        lines = self.accuracy_lines()
        if not lines:
            self.words_label.setText("(no noised counts)")
            return
        # the released counts first (what a reader of the release sees), then each level
        self.words_label.setText("<br>".join([f"<b>{lines[-1].text}</b>"] + [ln.text for ln in lines[:-1]]))

    def show_preview(self) -> list:
        """Teaching mode: fill the preview table (true and simulated noisy counts of a few cells); the rows,
        or [] with the reason shown. Never in release mode."""
        self.preview_table.setRowCount(0)
        try:
            rows = simulated_preview(self.project, self.plan)
        except ValueError as exc:
            self.preview_table.hide()
            self._refuse(self.eps_error, f"no preview: {exc}")
            return []
        self.preview_table.setRowCount(len(rows))
        for r, (cell, true, noisy) in enumerate(rows):
            for c, text in enumerate((cell, f"{true:,}", f"{noisy:,}")):
                self.preview_table.setItem(r, c, QtWidgets.QTableWidgetItem(text))
        self.preview_table.show()
        return rows

    # -- building -----------------------------------------------------------------------------------
    def _user_params(self) -> dict:
        out = {}
        w = self.param_widgets.get("attribute")
        if w is not None and w.currentData():
            out["attribute"] = w.currentData()
        for spec in registry.PARAMS[self.algorithm]:
            w = self.param_widgets.get(spec.key)
            if isinstance(w, QtWidgets.QSpinBox):
                out[spec.key] = w.value()
            elif isinstance(w, QtWidgets.QComboBox):
                out[spec.key] = w.currentData()
            elif isinstance(w, QtWidgets.QCheckBox):
                out[spec.key] = w.isChecked()
        return out

    def _numeric_qi_count(self) -> int | None:
        try:
            qis = self.project.attributes("quasi-identifier")
        except Exception:
            return None
        if not qis:
            return None
        return sum(1 for a in qis if self.project.types.get(a) == "numeric")

    def _histogram_attributes(self) -> list[str]:
        p = self.project
        return [c for c in getattr(p, "columns", []) if p.types.get(c) == "numeric" and c in p.bounds]

    def _follow_default_bins(self, new_file: bool) -> None:
        """The bins follow their default (from the attribute's public bounds) while the user has not chosen
        another number; a new file always starts from its own default (74 bins from the previous file's
        age bounds stayed on a file without bounds)."""
        bins = self.param_widgets.get("bins")
        attribute = self.param_widgets.get("attribute")
        if bins is None or attribute is None:
            return
        new = default_bins(self.project, attribute.currentData())
        if (new_file or bins.value() == self._bins_default) and bins.value() != new:
            bins.setValue(new)  # through _on_param: the plan and the project follow
        self._bins_default = new

    def _bins_from_project(self) -> int | None:
        n = (self.project.params or {}).get("bins")
        return int(n) if n else None

    def _build_param_widgets(self, values: dict) -> None:
        while self.params_form.rowCount():
            self.params_form.removeRow(0)
        self.param_widgets = {}
        for spec in registry.PARAMS[self.algorithm]:
            v = values.get(spec.key, spec.default)
            if spec.key == "bins":  # one bin per whole number of small integer bounds
                self._bins_default = default_bins(self.project, values.get("attribute"))
                v = values.get("bins") or self._bins_default
            if spec.kind == "int":
                w = QtWidgets.QSpinBox()
                w.setRange(spec.lo, spec.hi)
                if spec.special:
                    w.setSpecialValueText(spec.special)
                w.setValue(int(v))
                w.valueChanged.connect(self._on_param)
            elif spec.kind == "choice":
                w = QtWidgets.QComboBox()
                for c in spec.choices:
                    w.addItem(registry.CHOICE_NAMES.get(c, c), c)
                w.setCurrentIndex(max(0, w.findData(v)))
                w.currentIndexChanged.connect(self._on_param)
            else:
                w = QtWidgets.QCheckBox()
                w.setChecked(bool(v))
                w.toggled.connect(self._on_param)
            if spec.help:
                w.setToolTip(spec.help)
            w.setAccessibleName(spec.label)
            self.param_widgets[spec.key] = w
            self.params_form.addRow(spec.label, w)
        if self.algorithm in registry.HISTOGRAM_ALGORITHMS:
            # the histogram's attribute: a numeric column with public bounds (its bins split the bounds)
            w = QtWidgets.QComboBox()
            choices = self._histogram_attributes()
            for c in choices:
                w.addItem(c, c)
            if not choices:
                w.addItem("(no numeric attribute with public bounds)", None)
            want = values.get("attribute")
            w.setCurrentIndex(max(0, w.findData(want)) if want else 0)
            w.setToolTip("a numeric attribute with public bounds (Data panel); equal-width bins over them")
            w.currentIndexChanged.connect(self._on_param)
            self.param_widgets["attribute"] = w
            self.params_form.insertRow(0, "attribute", w)
        a_num = self._numeric_qi_count()
        if a_num is not None and "numeric_attributes" in self.param_widgets:
            self.param_widgets["numeric_attributes"].setValue(a_num)
            self.param_widgets["numeric_attributes"].setEnabled(False)

    def _load_from_project(self, rebuild_plan: bool) -> None:
        self._updating = True
        try:
            alg = self.project.algorithm if self.project.algorithm in registry.ALGORITHMS else "diffgen_consistency"
            self.combo.setCurrentIndex(self.combo.findData(alg))
            self._build_param_widgets(self.project.params or {})
            eps = float(self.project.epsilon)
            self.eps_edit.setText(understood_text(self.project.epsilon))
            self.eps_slider.setValue(epsilon_to_slider(eps))
        finally:
            self._updating = False
        self._update_mode_label()
        if rebuild_plan:
            self._rebuild_plan(saved=(self.project.params or {}).get("budget_split"))

    def _rebuild_plan(self, saved=None) -> None:
        plan = bp.saved_plan(self.algorithm, {**self.params(), "budget_split": saved}, self.project.epsilon)
        self.plan = plan
        self._updating = True
        try:
            self.bar.set_segments(plan.names, plan.shares, plan.epsilon, locked=plan.locked)
            self.split_box.setTitle(LOCKED_SPLIT_TITLE if plan.locked else SPLIT_TITLE)
        finally:
            self._updating = False
        self._refresh_figures()
        self._write_params()

    def _on_run_field(self, *_) -> None:
        try:
            if getattr(self, "plan", None) is not None:
                self._refresh_figures()  # the last run's figures, from its ledger, beside the plan's
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_run_field)

    def _refresh_figures(self) -> None:
        from dpstudio.model.release.spent_figures import spent_figures

        self._figures = bp.expected_error(self.plan, self.params())
        result = getattr(self.project, "result", None)
        if result is not None and getattr(result.params, "algorithm", None) == registry.TABLE_PRESETS.get(
            self.algorithm
        ):
            # the last run's rows belong beside the plan of the algorithm that ran, not another one
            self._figures += spent_figures(result, getattr(self.project, "run_ledger", None))
        self.figures.setRowCount(len(self._figures))
        for r, f in enumerate(self._figures):
            val = f"{f.value:.4g}" if not float(f.value).is_integer() else f"{int(f.value)}"
            for c, text in enumerate((f.label, val, f.explanation)):
                item = QtWidgets.QTableWidgetItem(text)
                if c == 1:
                    item.setTextAlignment(QtCore.Qt.AlignRight | QtCore.Qt.AlignVCenter)
                self.figures.setItem(r, c, item)
        self._refresh_words()
        if not self.preview_table.isHidden():
            self.show_preview()  # the preview follows the split and epsilon too
        notes = list(self.plan.notes)
        custom = not self.is_default_split()
        if custom:
            notes.insert(0, "<b>custom split</b>: the run uses this split (the ledger will show these shares).")
        self.notes.setText(" ".join(notes))
        self.reset_button.setEnabled(custom)
        self.planChanged.emit(self.plan)

    def _write_params(self) -> None:
        params = {**self.params(), **self.plan.to_params()}
        self._updating = True
        try:
            self.project.set_algorithm(self.algorithm, params)
        finally:
            self._updating = False

    def _update_mode_label(self) -> None:
        self.preview_button.setVisible(self.project.teaching)
        if not self.project.teaching:  # true counts are never shown in release mode
            self.preview_table.setRowCount(0)
            self.preview_table.hide()
        if self.project.teaching:
            self.mode_label.setText("teaching: not a release (simulation noise)")
            self.mode_label.setStyleSheet("color:#8a5a00;")
        else:
            self.mode_label.setText("release - secure noise; running spends the budget once")
            self.mode_label.setStyleSheet("color:#1b6b3a;")

    # -- slots --------------------------------------------------------------------------------------
    def _on_combo(self, _i) -> None:
        if self._updating:
            return
        self._build_param_widgets({})
        self._rebuild_plan()

    def _on_param(self, *_):
        if self._updating:
            return
        self._rebuild_plan()

    def _on_split(self, shares) -> None:
        if self._updating or self.plan is None:
            return
        self.plan = self.plan.with_shares(shares)
        self._refresh_figures()
        self._write_params()

    def _on_eps_edit(self) -> None:
        try:
            self.set_epsilon(self.eps_edit.text())
            self.eps_error.setText("")
        except ValueError as exc:
            self.eps_error.setText(str(exc))
            self.last_error = str(exc)
        self._check_eps_text()

    def _check_eps_text(self, *_) -> None:
        """Run is enabled only while the box holds a valid epsilon; the reason or the value read beside it."""
        text = self.eps_edit.text()
        try:
            eps = parse_epsilon_text(text)
        except ValueError as exc:
            self._eps_valid = False
            self.run_button.setEnabled(False)
            self.run_button.setToolTip(f"epsilon is not valid: {exc}")
            self.eps_understood.setText("")
            self.eps_error.setText(f"Run is off: {exc}")
            # the split and its figures are still the last valid epsilon's: greyed, and said so
            self.figures.setEnabled(False)
            self.figures.setToolTip(f"the figures of epsilon {understood_text(self.project.epsilon)}: {exc}")
            return
        self.figures.setEnabled(True)
        self.figures.setToolTip("")
        self._eps_valid = True
        self._update_run_button()
        shown = understood_text(eps)
        words = [] if text.strip() == shown else [f"understood as epsilon = {shown}"]
        caution = epsilon_caution(eps)
        self.eps_understood.setText("; ".join(words + ([f"Caution: {caution}"] if caution else [])))
        self.eps_understood.setStyleSheet("color:#b36b00;" if caution else "color:#616161;")
        if self.eps_error.text().startswith("Run is off"):
            self.eps_error.setText("")

    def _on_slider(self, pos: int) -> None:
        if self._updating:
            return
        try:
            self.project.set_epsilon(slider_to_epsilon(pos))
            self.eps_error.setText("")
        except ValueError as exc:
            self.eps_error.setText(str(exc))

    def _on_project(self, field: str) -> None:
        if self._updating:
            return
        if field == "epsilon":
            self._updating = True
            try:
                self.eps_edit.setText(understood_text(self.project.epsilon))
                self.eps_slider.setValue(epsilon_to_slider(float(self.project.epsilon)))
            finally:
                self._updating = False
            # keep the proportions of the current split at the new total
            old = self.plan
            self.plan = None
            plan = bp.default_plan(self.algorithm, self.params(), self.project.epsilon)
            if old is not None and old.names == plan.names and not plan.locked:
                self._updating = True
                try:
                    self.bar.set_segments(plan.names, [s / old.epsilon for s in old.shares], plan.epsilon)
                finally:
                    self._updating = False
                plan = plan.with_shares(self.bar.shares)
            else:
                self.bar.set_segments(plan.names, plan.shares, plan.epsilon, locked=plan.locked)
            self.split_box.setTitle(LOCKED_SPLIT_TITLE if plan.locked else SPLIT_TITLE)
            self.plan = plan
            self._refresh_figures()
            self._write_params()
        elif field == "mode":
            self._update_mode_label()
        elif field == "algorithm":
            if self.project.algorithm != self.algorithm:
                self._load_from_project(rebuild_plan=True)
        elif field in ("types", "data", "bounds") and "attribute" in self.param_widgets:
            w = self.param_widgets["attribute"]
            current = w.currentData()
            choices = self._histogram_attributes()
            if [w.itemData(i) for i in range(w.count())] != choices:
                self._updating = True
                try:
                    w.clear()
                    for c in choices:
                        w.addItem(c, c)
                    if not choices:
                        w.addItem("(no numeric attribute with public bounds)", None)
                    w.setCurrentIndex(max(0, w.findData(current)))
                finally:
                    self._updating = False
                self._write_params()
            self._follow_default_bins(new_file=field == "data")
        if field == "data":
            self.eps_error.setText("")  # a refusal of the previous file's run does not describe this one
        if field in ("roles", "types", "data"):
            a_num = self._numeric_qi_count()
            w = self.param_widgets.get("numeric_attributes")
            if w is not None and a_num is not None and w.value() != a_num:
                w.setValue(a_num)

    # -- running ------------------------------------------------------------------------------------
    def confirm_release(self, facts) -> bool:
        """Ask before a release-mode run spends: the dataset, the epsilon, what remains afterwards, that it
        cannot be undone (``ReleaseConfirmation.text``). No is the default answer; True only for Yes."""
        return self._ask_yes_no("release_box", RELEASE_TITLE, facts.text())

    def _ask_yes_no(self, keep_as: str, title: str, text: str) -> bool:
        """A warning question with No as the default answer, shown through ``exec_dialog`` and kept in
        ``self.<keep_as>``; True only for Yes (``gui.widgets.yes_no``)."""
        return ask_yes_no(self, title, text, self.exec_dialog, keep_as)

    def _refuse_run(self, message: str) -> None:
        """A run that does not start: say why beside the button and in the window; stay where we are."""
        self._refuse(self.eps_error, message)

    def run(self, watch=None):
        """Start the chosen algorithm in a worker; returns the Worker (or None, with the reason shown).

        The epsilon is what the box shows when Run is pressed (read now, whether or not editing was
        finished); a box that does not hold a valid epsilon refuses the run. In release mode the user is
        asked first (``confirm_release``, default No); nothing is spent unless they answer Yes.

        The whole job runs off the GUI thread, including coding the table (``model.release.session.make_job``; a
        1M-row table takes seconds to code) and ``Project.start_run`` (which hands out the noise and the
        ledger); for large tables the coding and the engine run in a separate process
        (``model.run_process``), so that their long numpy calls cannot freeze the window. Input problems arrive as the worker's ``failed`` message, before any budget is spent; the
        studio then stays where it is. Events go to ``watch`` (default: the window's Watch panel), which
        is cleared and shown only when the first event arrives; at the end (or on cancel) the run is
        recorded in the project.
        """
        from dpstudio.gui.worker import TaskRunner, Worker

        win = host(self)
        project = self.project
        problems = self.readiness()
        self.checklist.set_problems(problems)
        if problems:  # every problem at once, the same list the checklist shows
            self._refuse(self.eps_error, refusal_text(problems), not_ready_line(len(problems)))
            return None
        try:
            eps = parse_epsilon_text(self.eps_edit.text())
        except ValueError as exc:
            self._refuse_run(f"not run: {exc}")
            return None
        if eps != project.epsilon:
            try:
                project.set_epsilon(eps)
            except ValueError as exc:
                self._refuse_run(f"not run: {exc}")
                return None
        from dpstudio.model.release.snapshot import snapshot_of

        snapshot = snapshot_of(project)  # what this run uses: the export describes it, whatever changes later
        answer = None
        if not project.teaching:
            answer = project.release_question(eps)
            if answer.refusal:
                self._refuse_run(f"not run: {answer.refusal}")
                return None
            if not self.confirm_release(answer):
                self.last_error = ""
                if win is not None:
                    win.show_info("release run not started: nothing was spent")
                return None
        teaching = project.teaching
        holder: dict = {}

        def job():
            from dpstudio.model.release import run_process

            # the engine's numpy calls then never hold our GIL; a table read through DuckDB is never forked
            # (its connection stays here) and its run reads the small counts of the used columns only
            if project.frame is not None and run_process.use_process(len(project.frame)):
                return run_process.events_in_child(project, lambda setup: holder.update(setup=setup), answer)
            from dpstudio.model.release.session import RunSession

            session = RunSession.of_project(project, reading, snapshot)  # Cancel in a read: nothing spent
            holder["setup"] = session.begin(answer)
            holder["session"] = session
            return session.events()

        def reading(done: int, total: int, what: str) -> bool:
            """Progress of the pass over a file read through DuckDB; False (Cancel pressed) stops it."""
            if worker.is_cancelled:
                return False
            worker.signals.progress.emit(int(done), int(total), str(what))
            return True

        # pause_gc: the worker pauses the cyclic collector during the run (policy in gui/worker.py)
        worker = Worker(job, name=registry.ALGORITHMS[self.algorithm], pause_gc=True)
        events: list = []
        if watch is None and win is not None and hasattr(win, "panels"):
            watch = win.panels.get("Watch")
        live = {"started": False}

        def on_events(batch):
            if not live["started"]:  # the inputs passed make_job's checks: now follow the run
                live["started"] = True
                try:  # an earlier refusal's message no longer holds
                    self.eps_error.setText("")
                    if win is not None and hasattr(win, "clear_message"):
                        win.clear_message()
                except RuntimeError:  # the panel was deleted while its run goes on
                    pass
                if watch is not None and hasattr(watch, "begin_live"):
                    watch.begin_live(teaching, float(eps))
                if win is not None and hasattr(win, "show_panel") and watch is not None:
                    win.show_panel("Watch")
            events.extend(batch)
            if watch is not None and hasattr(watch, "feed"):
                watch.feed(batch)

        def on_end(*_):
            setup = holder.get("setup")
            if setup is not None:  # the Watch stops following here
                if "session" in holder:
                    holder["session"].finish(events)
                else:  # run in the engine process (``run_process``): the same record
                    project.record_run(events, setup.ledger, setup.teaching, None, snapshot, setup.budget, setup.store)
                if setup.recognised and win is not None:  # the data owner's eyes only
                    win.show_info(f"charged to the known dataset {setup.budget.get('dataset')!r}: {setup.recognised}")
            if watch is not None and getattr(watch, "live", False):
                watch.end_live()

        def on_failed(message):
            project.release_in_progress = ""
            self.last_error = message
            if holder.get("setup") is not None:  # the store was charged before the failure: show it
                project.notify("ledger")
            if live["started"] and watch is not None and hasattr(watch, "end_live"):
                watch.end_live()
            self.eps_error.setText(message)

        worker.signals.events.connect(on_events)
        worker.signals.finished.connect(on_end)
        worker.signals.cancelled.connect(on_end)
        worker.signals.failed.connect(on_failed)
        self.worker = worker
        if win is not None:
            return win.start_worker(worker, f"running {registry.ALGORITHMS[self.algorithm]}")
        if self._runner is None:
            self._runner = TaskRunner(self)
        try:
            return self._runner.start(worker)
        except RuntimeError as exc:
            on_failed(str(exc))
            return None
