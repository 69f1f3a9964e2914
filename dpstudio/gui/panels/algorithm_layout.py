"""The Algorithm panel's widgets and their connections, built once (Qt Designer's setupUi pattern): the
algorithm, its parameters, epsilon, the split bar, the figures, the words box, the checklist and Run.
``AlgorithmPanel`` (``gui.panels.algorithm``) holds the behaviour."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.gui.panels import algorithm_run
from dpstudio.gui.widgets.budget_bar import BudgetBar
from dpstudio.gui.widgets.elided_label import ElidedLabel, ErrorLine
from dpstudio.gui.widgets.readiness_list import ReadinessList
from dpstudio.gui.widgets.yes_no import exec_modal
from dpstudio.model.project.vocabulary import FIELDS
from dpstudio.model.release import budget_plan as bp
from dpstudio.model.release.runs import default_bins

SLIDER_STEPS = 1000

SPLIT_TITLE = "Split of epsilon (drag the dark handles)"

#: project fields whose change can change the readiness checklist ("ledger", which a run's worker thread may
#: announce, refreshes it through ``refresh_budget`` on the GUI thread)
READINESS_FIELDS = tuple(f for f in FIELDS if f not in ("ledger", "run", "dirty", "path"))


def build(panel, project, parent=None):
    panel.project = project
    panel._updating = False
    panel._runner = None
    panel.worker = None
    panel.last_error = ""

    outer = QtWidgets.QVBoxLayout(panel)
    top = QtWidgets.QHBoxLayout()
    outer.addLayout(top)

    # algorithm + parameters
    box = QtWidgets.QGroupBox("Algorithm")
    form = QtWidgets.QFormLayout(box)
    panel.combo = QtWidgets.QComboBox()
    for key, name in registry.ALGORITHMS.items():
        panel.combo.addItem(name, key)
    form.addRow("algorithm", panel.combo)
    panel.params_form = QtWidgets.QFormLayout()
    holder = QtWidgets.QWidget()
    holder.setLayout(panel.params_form)
    form.addRow(holder)
    top.addWidget(box, 1)
    panel.param_widgets: dict[str, QtWidgets.QWidget] = {}
    panel._bins_default: int | None = None  # the bins a histogram gets from its public bounds

    # epsilon
    ebox = QtWidgets.QGroupBox("Privacy budget")
    elay = QtWidgets.QFormLayout(ebox)
    panel.eps_edit = QtWidgets.QLineEdit()
    panel.eps_edit.setToolTip("Total epsilon of the run (e.g. 1, 0.5, 1/4)")
    panel.eps_slider = QtWidgets.QSlider(QtCore.Qt.Horizontal)
    panel.eps_slider.setRange(0, SLIDER_STEPS)
    panel.eps_slider.setToolTip("log scale, 0.01 to 10")
    panel.eps_error = ErrorLine()
    panel.eps_understood = QtWidgets.QLabel("")
    panel.eps_understood.setStyleSheet("color:#616161;")
    panel.eps_understood.setWordWrap(True)
    elay.addRow("epsilon", panel.eps_edit)
    elay.addRow("", panel.eps_understood)
    elay.addRow("log scale", panel.eps_slider)
    elay.addRow("", panel.eps_error)
    # one line whatever the mode, cut with its words in the tooltip: the teaching words wrapped where the
    # release words did not, and Run moved by a line on every switch of mode
    panel.mode_label = ElidedLabel()
    elay.addRow(panel.mode_label)
    panel.run_button = QtWidgets.QPushButton("Run")
    panel.run_button.setToolTip("Run the algorithm on the loaded data (spends the budget in release mode)")
    elay.addRow(panel.run_button)
    panel.budget_label = QtWidgets.QLabel("")
    panel.budget_label.setWordWrap(True)
    elay.addRow(panel.budget_label)
    panel.budget_warnings = QtWidgets.QLabel("")
    panel.budget_warnings.setWordWrap(True)
    panel.budget_warnings.setStyleSheet("color:#b35900;")
    elay.addRow(panel.budget_warnings)
    panel.new_dataset_check = QtWidgets.QCheckBox("These records are other people: a budget of their own")
    panel.new_dataset_check.setToolTip(
        "The budget store took these records for a known dataset (a renamed, "
        "added or dropped column, repeated rows). Tick only if they are other "
        "people: their releases then spend a budget of their own."
    )
    panel.new_dataset_check.toggled.connect(panel._on_new_dataset)
    panel.new_dataset_check.hide()
    elay.addRow(panel.new_dataset_check)
    drow = QtWidgets.QHBoxLayout()
    panel.dataset_name_edit = QtWidgets.QLineEdit()
    panel.dataset_name_edit.setPlaceholderText("dataset name")
    panel.dataset_total_edit = QtWidgets.QLineEdit()
    panel.dataset_total_edit.setPlaceholderText("total \u03b5")
    panel.dataset_total_edit.setToolTip("The dataset's lifetime total epsilon: every release on it spends from this")
    panel.dataset_apply = QtWidgets.QPushButton("Set\u2026")
    panel.dataset_apply.setToolTip("name this dataset and set or raise its lifetime budget (asks first)")
    for w in (panel.dataset_name_edit, panel.dataset_total_edit, panel.dataset_apply):
        drow.addWidget(w)
    elay.addRow("dataset budget", drow)
    top.addWidget(ebox, 1)

    # the readiness checklist beside Run (model.readiness): every problem at once, each with a way there
    panel.checklist = ReadinessList(here="Algorithm")
    panel.checklist.goTo.connect(panel.go_to_problem)
    top.addWidget(panel.checklist, 1)
    # fixed shares of the width, whatever the algorithm's parameters need: the columns moved sideways by
    # 140 px on a change of algorithm (the layout test checks that each still fits at 1280x800)
    for i, (widget, share) in enumerate(((box, 40), (ebox, 30), (panel.checklist, 30))):
        policy = widget.sizePolicy()
        policy.setHorizontalPolicy(QtWidgets.QSizePolicy.Ignored)
        widget.setSizePolicy(policy)
        top.setStretch(i, share)

    # split bar + expected error
    panel.split_box = sbox = QtWidgets.QGroupBox(SPLIT_TITLE)
    slay = QtWidgets.QVBoxLayout(sbox)
    panel.bar = BudgetBar()
    slay.addWidget(panel.bar)
    nrow = QtWidgets.QHBoxLayout()
    panel.notes = QtWidgets.QLabel("")
    panel.notes.setWordWrap(True)
    nrow.addWidget(panel.notes, 1)
    panel.reset_button = QtWidgets.QPushButton("Default split")
    panel.reset_button.setToolTip("back to the split the algorithm runs by default (docs/gui-panels.md)")
    nrow.addWidget(panel.reset_button)
    slay.addLayout(nrow)
    outer.addWidget(sbox)

    fbox = QtWidgets.QGroupBox("Expected error of this split (data-independent, before anything runs)")
    flay = QtWidgets.QHBoxLayout(fbox)
    panel.figures = QtWidgets.QTableWidget(0, 3)
    panel.figures.setHorizontalHeaderLabels(["quantity", "value", "how"])
    panel.figures.verticalHeader().setVisible(False)
    # a long explanation wraps onto more lines of its row, never cut ("a level given less ha...")
    panel.figures.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeToContents)
    header = panel.figures.horizontalHeader()
    for c, mode in enumerate(
        (
            QtWidgets.QHeaderView.ResizeToContents,
            QtWidgets.QHeaderView.ResizeToContents,
            QtWidgets.QHeaderView.Stretch,
        )
    ):  # fixed modes: a drag never shrinks it
        header.setSectionResizeMode(c, mode)
    panel.figures.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    panel.figures.setAccessibleName("Expected error figures")
    flay.addWidget(panel.figures, 3)
    flay.addWidget(panel._build_words_box(), 2)
    outer.addWidget(fbox, 1)

    panel.plan: bp.BudgetPlan | None = None
    panel._figures: list[bp.Figure] = []
    panel.exec_dialog = exec_modal  # how the release question is shown (see exec_modal)
    panel.release_box: QtWidgets.QMessageBox | None = None  # the last release question asked
    panel.budget_box: QtWidgets.QMessageBox | None = None  # the last dataset-budget question asked

    panel.combo.currentIndexChanged.connect(panel._on_combo)
    panel.eps_edit.editingFinished.connect(panel._on_eps_edit)
    panel.eps_edit.textChanged.connect(panel._check_eps_text)
    panel.eps_slider.valueChanged.connect(panel._on_slider)
    panel.bar.splitChanged.connect(panel._on_split)
    panel.run_button.clicked.connect(
        lambda: panel.run()
    )  # not the bound method: clicked passes its checked flag (False) as `watch`
    panel.reset_button.clicked.connect(panel.reset_split)
    panel.dataset_apply.clicked.connect(
        lambda: panel.apply_dataset_budget(panel.dataset_name_edit.text(), panel.dataset_total_edit.text())
    )
    panel.budgetChanged.connect(panel._budget_later, QtCore.Qt.QueuedConnection)
    project.subscribe(panel._on_project, "algorithm", "epsilon", "mode", "roles", "types", "data", "bounds")
    project.subscribe(panel._on_budget_field, "data", "ledger")
    project.subscribe(panel._on_run_field, "run")
    project.subscribe(panel._on_readiness_field, *READINESS_FIELDS)
    panel.eps_edit.textChanged.connect(panel.refresh_readiness)
    panel._load_from_project(rebuild_plan=True)
    panel.refresh_budget()
    algorithm_run.keep_standby_later(panel)


def build_param_widgets(panel, values: dict) -> None:
    while panel.params_form.rowCount():
        panel.params_form.removeRow(0)
    panel.param_widgets = {}
    for spec in registry.PARAMS[panel.algorithm]:
        v = values.get(spec.key, spec.default)
        if spec.key == "bins":  # one bin per whole number of small integer bounds
            panel._bins_default = default_bins(panel.project, values.get("attribute"))
            v = values.get("bins") or panel._bins_default
        if spec.kind == "int":
            w = QtWidgets.QSpinBox()
            w.setRange(spec.lo, spec.hi)
            if spec.special:
                w.setSpecialValueText(spec.special)
            w.setValue(int(v))
            w.valueChanged.connect(panel._on_param)
        elif spec.kind == "choice":
            w = QtWidgets.QComboBox()
            for c in spec.choices:
                w.addItem(registry.CHOICE_NAMES.get(c, c), c)
            w.setCurrentIndex(max(0, w.findData(v)))
            w.currentIndexChanged.connect(panel._on_param)
        else:
            w = QtWidgets.QCheckBox()
            w.setChecked(bool(v))
            w.toggled.connect(panel._on_param)
        if spec.help:
            w.setToolTip(spec.help)
        w.setAccessibleName(spec.label)
        panel.param_widgets[spec.key] = w
        panel.params_form.addRow(spec.label, w)
    if panel.algorithm in registry.HISTOGRAM_ALGORITHMS:
        # the histogram's attribute: a numeric column with public bounds (its bins split the bounds)
        w = QtWidgets.QComboBox()
        choices = panel._histogram_attributes()
        for c in choices:
            w.addItem(c, c)
        if not choices:
            w.addItem("(no numeric attribute with public bounds)", None)
        want = values.get("attribute")
        w.setCurrentIndex(max(0, w.findData(want)) if want else 0)
        w.setToolTip("a numeric attribute with public bounds (Data panel); equal-width bins over them")
        w.currentIndexChanged.connect(panel._on_param)
        panel.param_widgets["attribute"] = w
        panel.params_form.insertRow(0, "attribute", w)
    a_num = panel._numeric_qi_count()
    if a_num is not None and "numeric_attributes" in panel.param_widgets:
        panel.param_widgets["numeric_attributes"].setValue(a_num)
        panel.param_widgets["numeric_attributes"].setEnabled(False)


def build_words_box(panel) -> QtWidgets.QWidget:
    box = QtWidgets.QGroupBox("In words (95 %)")
    lay = QtWidgets.QVBoxLayout(box)
    row = QtWidgets.QHBoxLayout()
    row.addWidget(QtWidgets.QLabel("for a count of about"))
    panel.example_box = QtWidgets.QSpinBox()
    panel.example_box.setRange(1, 10**9)
    panel.example_box.setValue(1000)
    panel.example_box.setGroupSeparatorShown(True)
    panel.example_box.setToolTip("an example size of your choice (not read from the data)")
    panel.example_box.setAccessibleName("Example count for the accuracy in words")
    panel.example_box.valueChanged.connect(panel._refresh_words)
    row.addWidget(panel.example_box)
    row.addStretch(1)
    lay.addLayout(row)
    panel.words_label = QtWidgets.QLabel("")
    panel.words_label.setWordWrap(True)
    panel.words_label.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
    panel.words_label.setAlignment(QtCore.Qt.AlignTop | QtCore.Qt.AlignLeft)
    words_scroll = QtWidgets.QScrollArea()
    words_scroll.setWidgetResizable(True)
    words_scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
    words_scroll.setWidget(panel.words_label)
    lay.addWidget(words_scroll, 1)
    panel.preview_button = QtWidgets.QPushButton("Simulated preview (teaching)")
    panel.preview_button.setToolTip(
        "true counts of a few cells beside the same counts with simulated noise "
        "(teaching mode only: it shows true counts)"
    )
    panel.preview_button.clicked.connect(panel.show_preview)
    lay.addWidget(panel.preview_button)
    panel.preview_table = QtWidgets.QTableWidget(0, 3)
    panel.preview_table.setHorizontalHeaderLabels(["cell", "true count", "simulated noisy count"])
    panel.preview_table.verticalHeader().setVisible(False)
    panel.preview_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.Stretch)
    panel.preview_table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    panel.preview_table.setAccessibleName("Teaching preview: true and simulated noisy counts")
    panel.preview_table.hide()
    lay.addWidget(panel.preview_table, 1)
    return box
